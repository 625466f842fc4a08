/* pk_machine: records in, address lookups out.
 *
 * Records go to the thread, map and build-id code (pk_machine_event); a
 * lookup picks the map group (the kernel's for kernel modes, else the
 * process's), the map, the dso (its symbols loaded on first use) and the
 * symbol. Answers are cached, direct mapped, under (map group, its version,
 * address, cpumode): a change to one process's maps leaves the others'
 * answers valid, and an answer is never served for a changed group. A
 * lookup that has no map group goes through a scratch entry, never a hit. */
#include "sy_internal.h"

#include <errno.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

/* PERF_CONTEXT_* (include/uapi/linux/perf_event.h) */
#define CTX_HV ((uint64_t)-32)
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)
#define CTX_GUEST ((uint64_t)-2048)
#define CTX_GUEST_KERNEL ((uint64_t)-2176)
#define CTX_GUEST_USER ((uint64_t)-2560)
#define CTX_MAX ((uint64_t)-4095)

pk_machine *pk_machine_new(const pk_machine_opts *opts)
{
	pk_machine *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	if (opts)
		m->opts = *opts;
	elf_version(EV_CURRENT);
	m->kernel = pki_sy_dso_get(m, "[kernel.kallsyms]");
	if (!m->kernel) {
		free(m);
		return NULL;
	}
	m->kernel->is_kernel = true;
	m->cache = calloc(LOC_CACHE, sizeof(loc_entry));
	m->next_version = 1;
	m->kmaps.version = m->next_version++;
	if (pki_sy_idle_thread(m) < 0) {
		pk_machine_free(m);
		return NULL;
	}
	return m;
}

void pk_machine_free(pk_machine *m)
{
	if (!m)
		return;
	pki_sy_unwind_free(m);
	pki_sy_tasks_free(m->tasks);
	pki_sy_threads_free(m);
	pki_sy_dsos_free(m);
	free(m->kmaps.maps);
	free(m->cache);
	for (size_t i = 0; i < m->nr_cgroups; i++)
		free(m->cgroups[i].path);
	free(m->cgroups);
	free(m);
}

const char *pk_machine_cgroup(const pk_machine *m, uint64_t id)
{
	for (size_t i = 0; i < m->nr_cgroups; i++)
		if (m->cgroups[i].id == id)
			return m->cgroups[i].path;
	return NULL;
}

/* A NAMESPACES record: the thread's cgroup namespace (the 7th link,
 * perf's CGROUP_NS_INDEX), none when the record has fewer. */
static int on_namespaces(pk_machine *m, const pk_pd_event *ev)
{
	uint32_t pid, tid;
	uint64_t nr, link[2] = {0, 0};
	if (ev->size < 24)
		return 0;
	memcpy(&pid, ev->data + 8, 4);
	memcpy(&tid, ev->data + 12, 4);
	memcpy(&nr, ev->data + 16, 8);
	if (nr > 6 && ev->size >= 24 + 7 * 16)
		memcpy(link, ev->data + 24 + 6 * 16, sizeof(link));
	thread *t = pki_sy_thread_findnew(m, pid, tid);
	if (!t)
		return -ENOMEM;
	t->cg_dev = link[0], t->cg_ino = link[1];
	return 0;
}

bool pk_machine_cgroup_ns(pk_machine *m, uint32_t tid, uint64_t *dev, uint64_t *ino)
{
	const thread *t = pki_sy_thread_find(m, tid);
	*dev = t ? t->cg_dev : 0, *ino = t ? t->cg_ino : 0;
	return t != NULL;
}

/* A CGROUP record (its id, then the path up to a NUL); an id already
 * named keeps its first path, as perf's env does. */
static int on_cgroup(pk_machine *m, const pk_pd_event *ev)
{
	uint64_t id;
	if (ev->size < 17)
		return 0; /* too short to name one: nothing learnt */
	memcpy(&id, ev->data + 8, sizeof(id));
	if (pk_machine_cgroup(m, id))
		return 0;
	struct pki_sy_cgroup *n = realloc(m->cgroups, (m->nr_cgroups + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	m->cgroups = n;
	char *path = strndup((const char *)ev->data + 16, ev->size - 16);
	if (!path)
		return -ENOMEM;
	n[m->nr_cgroups++] = (struct pki_sy_cgroup){id, path};
	return 0;
}

int pk_machine_event(pk_machine *m, const pk_pd_event *ev)
{
	switch (ev->type) {
	case PERF_RECORD_COMM:
		pki_sy_tasks_changed(m->tasks);
		return pki_sy_on_comm(m, ev);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		pki_sy_tasks_changed(m->tasks);
		return pki_sy_on_fork(m, ev);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		pki_sy_tasks_changed(m->tasks);
		return pki_sy_on_mmap(m, ev);
	case PERF_RECORD_KSYMBOL:
		return pki_sy_on_ksymbol(m, ev);
	case PERF_RECORD_CGROUP:
		return on_cgroup(m, ev);
	case PERF_RECORD_NAMESPACES:
		return on_namespaces(m, ev);
	case PK_RECORD_HEADER_BUILD_ID: {
		pk_pd_rec_build_id b;
		if (pk_pd_build_id_parse(ev->data, ev->size, false, &b) < 0)
			return 0;
		return pki_sy_add_build_id(m, &b);
	}
	case PK_RECORD_HEADER_FEATURE: /* pipe mode: the recording's ARCH */
	{
		uint64_t feat = 0;
		if (ev->size > 16)
			memcpy(&feat, ev->data + 8, sizeof(feat));
		if (feat == PK_FEAT_ARCH)
			pki_sy_set_arch(m, ev->data + 16, ev->size - 16);
		return 0;
	}
	default:
		return 0;
	}
}

static bool kernel_mode(unsigned cpumode)
{
	return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	       cpumode == PERF_RECORD_MISC_HYPERVISOR;
}

/* A KSYMBOL's map: its dso's own symbols, offsets from the map's start. */
static void resolve_ksymbol(const map *mp, uint64_t addr, pk_addr_loc *loc)
{
	dso *d = mp->dso;
	loc->dso = loc->dso_short = d->name;
	loc->dso_long = d->bpf_image ? "" : d->name;
	loc->dso_ordinal = d->ordinal;
	loc->has_map = true;
	loc->map_size = mp->end - mp->start;
	loc->dso_addr = loc->objdump_addr = addr - mp->start;
	const sym *s = pki_sy_sym_find(d, loc->dso_addr);
	/* perf's dso__find_symbol answers its last address again from its
	 * cache, which a later registration may have renamed */
	const char *cached = d->bpf_last_at == loc->dso_addr ? d->bpf_last : NULL;
	d->bpf_last_at = loc->dso_addr;
	d->bpf_last = s ? s->name : NULL;
	if (cached && s) {
		d->bpf_last = cached;
		loc->sym = cached;
		loc->sym_start = s->start;
		loc->sym_size = s->end - s->start;
		loc->symoff = loc->dso_addr - s->start;
	} else if (s) {
		loc->sym = s->name;
		loc->sym_start = s->start;
		loc->sym_size = s->end - s->start;
		loc->symoff = loc->dso_addr - s->start;
	}
}

static void resolve_kernel(pk_machine *m, uint64_t addr, pk_addr_loc *loc)
{
	const map *mp = pki_sy_mg_find(&m->kmaps, addr);
	/* An address no kernel map holds is unknown, as perf shows it (a kernel
	 * callchain can run on into user addresses without a context marker;
	 * a file without the kernel MMAP has no kernel symbols at all). */
	if (!mp)
		return;
	loc->kernel = true;
	dso *d = mp->dso;
	if (d->bpf) {
		resolve_ksymbol(mp, addr, loc);
		return;
	}
	if (!d->is_module) /* the kernel's, or another kernel map of it */
		d = m->kernel;
	/* perf names a module by its path only when the file listed it
	 * with a build id; else by "[name]" */
	loc->dso = d->is_module && !d->listed ? d->short_name : d->name;
	loc->dso_short = d->short_name;
	loc->dso_long = d->name;
	loc->dso_ordinal = d->ordinal;
	loc->has_map = true;
	uint64_t base = mp->start - mp->pgoff; /* 0 for the kernel: its addresses as they are */
	loc->dso_addr = addr - base;
	loc->objdump_addr = d->is_module ? loc->dso_addr : addr;
	if (!m->kernel->loaded) { /* the kernel's map then reaches its last symbol */
		pki_sy_kernel_load(m);
		mp = pki_sy_mg_find(&m->kmaps, addr);
	}
	loc->map_size = mp ? mp->end - mp->start : 0; /* perf's dso_size: the map as loaded */
	/* kallsyms lists the modules' symbols too: a module's map takes
	 * only those, the kernel's only the kernel's, at this boot's
	 * addresses (kdelta: KASLR's move since the recording) */
	uint64_t delta = d->is_module ? 0 : (uint64_t)m->kdelta;
	const sym *s = pki_sy_sym_find(m->kernel, addr + delta);
	if (s && s->module == d->is_module) {
		loc->sym = s->name; /* kernel names are never demangled */
		loc->sym_start = s->start - delta - base;
		loc->sym_size = s->end - s->start;
		loc->symoff = addr + delta - s->start;
	}
}

/* The map of process pid that holds addr, *off the address in its dso. */
static const map *user_map(pk_machine *m, uint32_t pid, uint64_t addr, uint64_t *off)
{
	const map *mp = pki_sy_mg_find(pki_sy_process_maps(m, pid), addr);
	if (mp)
		*off = addr - mp->start + pki_sy_map_pgoff(mp);
	return mp;
}

char pk_machine_origin(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr)
{
	uint64_t off;
	const map *mp = kernel_mode(cpumode) ? pki_sy_mg_find(&m->kmaps, addr)
					     : user_map(m, pid, addr, &off);
	if (!mp)
		return '!';
	const dso *d = mp->dso;
	if (kernel_mode(cpumode) && d->is_module)
		return d->name[0] == '/' ? 'K' : '!';
	if (kernel_mode(cpumode) || d == m->kernel)
		return m->kernel->nr_syms ? 'k' : '!';
	const char *base = strrchr(d->name, '/');
	if (base && !strncmp(base + 1, "perf-", 5) && strstr(base, ".map"))
		return access(d->name, R_OK) ? '!' : 'j'; /* a JIT's map file, when there */
	return pki_sy_dso_origin(m, d);
}

static void resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
		    pk_addr_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->dso = loc->dso_short = loc->dso_long = "[unknown]";
	if (kernel_mode(cpumode)) {
		resolve_kernel(m, addr, loc);
		return;
	}
	uint64_t off;
	const map *mp = user_map(m, pid, addr, &off);
	if (!mp)
		return;
	dso *d = mp->dso;
	loc->has_map = true;
	loc->map_size = mp->end - mp->start;
	loc->dso = loc->dso_long = d->name;
	loc->dso_short = d->short_name;
	loc->dso_ordinal = d->ordinal;
	if (!d->loaded)
		pki_sy_dso_load(m, d);
	loc->dso_read = d->elf;
	loc->dso_exec = d->exec;
	uint64_t vaddr = pki_sy_seg_vaddr(d, off);
	loc->dso_addr = off;
	loc->objdump_addr = vaddr;
	sym *s = pki_sy_sym_find(d, vaddr);
	if (s) {
		loc->sym = pki_sy_sym_name(d, s);
		loc->sym_start = s->start;
		loc->sym_size = s->end - s->start;
		loc->symoff = vaddr - s->start;
	}
}

/* The maps a lookup uses: the kernel's, or the process's. */
static const mapgroup *lookup_maps(pk_machine *m, uint32_t pid, unsigned cpumode)
{
	if (kernel_mode(cpumode))
		return &m->kmaps;
	return pki_sy_process_maps(m, pid);
}

int pk_machine_srcline(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
		       const char **file, unsigned *line)
{
	*file = NULL;
	*line = 0;
	if (kernel_mode(cpumode))
		return -1; /* kallsyms has no line tables */
	const map *mp = pki_sy_mg_find(pki_sy_process_maps(m, pid), addr);
	if (!mp || m->opts.no_symbols)
		return -1;
	dso *d = mp->dso;
	if (!d->loaded)
		pki_sy_dso_load(m, d);
	uint64_t vaddr = pki_sy_seg_vaddr(d, addr - mp->start + pki_sy_map_pgoff(mp));
	return pki_sy_dso_srcline(m, d, vaddr, file, line);
}

uint64_t pk_machine_maps_version(pk_machine *m, uint32_t pid, unsigned cpumode)
{
	const mapgroup *g = lookup_maps(m, pid, cpumode);
	return g ? g->version : 0;
}

void pk_machine_locate(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
			pk_addr_loc *loc)
{
	resolve(m, pid, cpumode, addr, loc);
	loc->sym_len = loc->sym ? strlen(loc->sym) : 0;
	loc->dso_len = strlen(loc->dso);
}

const pk_addr_loc *pk_machine_lookup(pk_machine *m, uint32_t pid, unsigned cpumode,
				     uint64_t addr)
{
	/* the cache key is the map group and its version: a change to one
	 * process's maps leaves the others' cached lookups valid */
	const mapgroup *g = lookup_maps(m, pid, cpumode);
	loc_entry *c = &m->scratch;
	if (m->cache && g) {
		uint64_t h = (addr ^ (uint64_t)(uintptr_t)g) * 0x9e3779b97f4a7c15ULL;
		c = &m->cache[(h >> 40) % LOC_CACHE];
		if (c->mg == g && c->version == g->version && c->addr == addr &&
		    c->cpumode == cpumode)
			return &c->loc;
	}
	pk_addr_loc *loc = &c->loc;
	pk_machine_locate(m, pid, cpumode, addr, loc);
	c->mg = g;
	c->version = g ? g->version : 0;
	c->addr = addr;
	c->cpumode = cpumode;
	if (c == &m->scratch)
		c->mg = NULL; /* never a hit */
	return loc;
}

const void *pk_machine_frame_map(pk_machine *m, uint32_t pid, unsigned cpumode,
				  uint64_t addr, pk_frame_map *fm)
{
	*fm = (pk_frame_map){NULL, 0, UINT64_MAX, 0};
	if (kernel_mode(cpumode))
		return NULL;
	mapgroup *g = pki_sy_process_maps(m, pid);
	const map *mp = pki_sy_mg_find(g, addr);
	if (!mp) {
		pki_sy_mg_gap(g, addr, &fm->start, &fm->end);
		return NULL;
	}
	*fm = (pk_frame_map){mp->dso, mp->start, mp->end, pki_sy_map_pgoff(mp)};
	return mp->dso;
}

const void *pk_machine_frame(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
			      uint64_t *off)
{
	pk_frame_map fm;
	if (!pk_machine_frame_map(m, pid, cpumode, addr, &fm))
		return NULL;
	*off = addr - fm.start + fm.pgoff;
	return fm.dso;
}

void pk_machine_resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
			pk_addr_loc *loc)
{
	*loc = *pk_machine_lookup(m, pid, cpumode, addr);
}

int pk_callchain_context(uint64_t ip, unsigned *cpumode)
{
	if (ip < CTX_MAX)
		return 0;
	switch (ip) {
	case CTX_HV: *cpumode = PERF_RECORD_MISC_HYPERVISOR; break;
	case CTX_KERNEL: *cpumode = PERF_RECORD_MISC_KERNEL; break;
	case CTX_USER: *cpumode = PERF_RECORD_MISC_USER; break;
	case CTX_GUEST: *cpumode = PERF_RECORD_MISC_GUEST_KERNEL; break;
	case CTX_GUEST_KERNEL: *cpumode = PERF_RECORD_MISC_GUEST_KERNEL; break;
	case CTX_GUEST_USER: *cpumode = PERF_RECORD_MISC_GUEST_USER; break;
	default: return -1;
	}
	return 1;
}
