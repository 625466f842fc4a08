/* Address maps: a process's (or the kernel's) list of [start, end) ->
 * (dso, file offset), sorted by start, and the MMAP/MMAP2 records that
 * fill them.
 *
 * A new map cuts away what it overlaps, as a new mmap replaces the old
 * range. A user map keeps what was recorded (offset, prot, flags, inode:
 * report --mmaps lists them, tasks.c); memory without a file is marked
 * fileless (its addresses are their own: pki_sy_map_pgoff), a zero-length
 * map is kept where perf keeps it and never found. Map groups are shared by
 * a process's threads (refcounted) and copied on fork. Every change gives
 * the group a new version (unique across groups, from the machine's
 * counter): the lookup cache keys on it. Kernel maps (kernel and modules,
 * or pid -1) go to the machine's kmaps with their addresses used as they
 * are; a module's map keeps its own dso, named as perf names it
 * ("[i915]"). */
#include "sy_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

mapgroup *pki_sy_mg_new(void)
{
	mapgroup *g = calloc(1, sizeof(*g));
	if (g)
		pki_ref_init(&g->ref);
	return g;
}

void pki_sy_mg_put(mapgroup *g)
{
	if (g && pki_ref_put(&g->ref)) {
		free(g->maps);
		free(g);
	}
}

/* Cuts from g what [start, end) overlaps (a map holding it whole is split
 * in two); g has room for one more map. */
static void cut_maps(mapgroup *g, uint64_t start, uint64_t end)
{
	/* from the last map starting at or before start (zero-length ones
	 * skipped back), up to the first starting at or after end */
	size_t i = pki_sy_count_le(g->maps, g->nr, sizeof(map), start);
	i = i ? i - 1 : 0;
	while (i > 0 && g->maps[i].start == g->maps[i].end)
		i--;
	for (; i < g->nr && g->maps[i].start < end; i++) {
		map *o = &g->maps[i];
		if (o->end <= start)
			continue;
		if (o->start < start && o->end > end) { /* split in two */
			map after = *o;
			after.pgoff += end - o->start;
			after.start = end;
			o->end = start;
			memmove(o + 2, o + 1, (g->nr - i - 1) * sizeof(*o));
			o[1] = after;
			g->nr++;
			return;
		}
		if (o->start < start) {
			o->end = start;
		} else if (o->end > end) {
			o->pgoff += end - o->start;
			o->start = end;
		} else {
			memmove(o, o + 1, (g->nr - i - 1) * sizeof(*o));
			g->nr--;
			i--;
		}
	}
}

/* Inserts nm: what it overlaps is cut away, as a new mmap over an old
 * range replaces it; it goes before the maps starting where it starts (a
 * zero-length map too: perf keeps those, no lookup finds them). */
int pki_sy_mg_insert(pk_machine *m, mapgroup *g, map nm)
{
	if (g->nr + 2 > g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		while (cap < g->nr + 2)
			cap *= 2;
		map *nmaps = realloc(g->maps, cap * sizeof(map));
		if (!nmaps)
			return -ENOMEM;
		g->maps = nmaps;
		g->cap = cap;
	}
	g->version = m->next_version++;
	cut_maps(g, nm.start, nm.end);
	size_t at = nm.start ? pki_sy_count_le(g->maps, g->nr, sizeof(map), nm.start - 1) : 0;
	memmove(g->maps + at + 1, g->maps + at, (g->nr - at) * sizeof(map));
	g->maps[at] = nm;
	g->nr++;
	g->last = 0;
	return 0;
}

void pki_sy_mg_cut(pk_machine *m, mapgroup *g, uint64_t start, uint64_t end)
{
	g->version = m->next_version++;
	cut_maps(g, start, end);
	g->last = 0;
}

/* Appends copies of src's maps to g (a child process's maps on FORK):
 * g's own first when it has any (perf keeps both then; pmukit cuts). */
int pki_sy_mg_copy(pk_machine *m, mapgroup *g, const mapgroup *src)
{
	if (!g || !src)
		return 0;
	if (!g->nr && src->nr) { /* the usual case: a copy of the same size */
		map *v = malloc(src->nr * sizeof(map));
		if (!v)
			return -ENOMEM;
		memcpy(v, src->maps, src->nr * sizeof(map));
		free(g->maps);
		g->maps = v;
		g->nr = g->cap = src->nr;
		g->last = 0;
		g->version = m->next_version++;
		return 0;
	}
	for (size_t i = 0; i < src->nr; i++)
		if (pki_sy_mg_insert(m, g, src->maps[i]) < 0)
			return -ENOMEM;
	return 0;
}

const map *pki_sy_mg_find(mapgroup *g, uint64_t addr)
{
	if (!g || !g->nr)
		return NULL;
	if (g->last < g->nr && addr >= g->maps[g->last].start && addr < g->maps[g->last].end)
		return &g->maps[g->last];
	size_t lo = pki_sy_count_le(g->maps, g->nr, sizeof(map), addr);
	while (lo > 1 && g->maps[lo - 1].start == g->maps[lo - 1].end)
		lo--; /* a zero-length map before one starting where it does */
	if (!lo || addr >= g->maps[lo - 1].end)
		return NULL;
	g->last = lo - 1;
	return &g->maps[lo - 1];
}

/* The room around addr that no map of g holds: [*lo, *hi). */
void pki_sy_mg_gap(const mapgroup *g, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	size_t n = g ? pki_sy_count_le(g->maps, g->nr, sizeof(map), addr) : 0;
	*lo = n ? g->maps[n - 1].end : 0;
	*hi = g && n < g->nr ? g->maps[n].start : UINT64_MAX;
}

/* Memory without a file (anonymous, heap, stack, SysV shared memory):
 * perf keeps its addresses as they are (no file offsets), and names it,
 * when executable, after the symbol map a JIT may write for the process,
 * "/tmp/perf-<pid>.map". The one rule: the machine's maps and its task
 * table as recorded (tasks.c, report's --mmaps) name maps through it. */
const char *pk_mmap_dso_name(const pk_pd_event *ev, const pk_pd_rec_mmap *r, char *buf,
			     size_t size, bool *fileless)
{
	bool dummy;
	if (!fileless)
		fileless = &dummy;
	const char *f = r->filename;
	*fileless = !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) ||
		    !strncmp(f, "/anon_hugepage", 14) || !strncmp(f, "[stack", 6) ||
		    !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
	/* MMAP has no prot: its DATA mark tells a data map */
	bool exec = ev->type == PERF_RECORD_MMAP2 ? (r->prot & PROT_EXEC) != 0
						  : !(ev->misc & PERF_RECORD_MISC_MMAP_DATA);
	if (!*fileless || !exec)
		return f;
	snprintf(buf, size, "/tmp/perf-%u.map", (unsigned)r->pid);
	return buf;
}

/* A user map's file offset as perf keeps it: a vdso's is 0, whatever was
 * recorded (kernel 3.4 wrote its start); --mmaps prints it so too. */
uint64_t pki_sy_mmap_pgoff(const pk_pd_rec_mmap *r)
{
	const char *f = r->filename;
	bool vdso = !strcmp(f, "[vdso]") || !strcmp(f, "[vdso32]") || !strcmp(f, "[vdsox32]");
	return vdso ? 0 : r->pgoff;
}

/* A kernel (or pid -1) MMAP: the kernel's maps. */
static int kernel_mmap(pk_machine *m, const pk_pd_rec_mmap *r)
{
	/* "[kernel.kallsyms]_text", and modules ("/.../i915.ko", or a
	 * "[name]"): the recorded maps, addresses used as they are;
	 * symbols come from the recorded kernel's kallsyms */
	const char *f = r->filename;
	bool kmap = !strncmp(f, "[kernel.kallsyms", 16);
	/* the symbol the kernel's map starts at, for kallsyms of another
	 * boot (a zero address: kptr_restrict at record time, none) */
	if (kmap && r->pgoff && f[16] == ']' && f[17]) {
		snprintf(m->kref, sizeof(m->kref), "%s", f + 17);
		m->kref_addr = r->pgoff;
	}
	dso *d = kmap ? m->kernel : pki_sy_dso_get(m, f);
	if (!d || (!kmap && (f[0] == '/' || f[0] == '[') && !d->is_module &&
		   !pki_sy_dso_set_module(d)))
		return -ENOMEM;
	/* the kernel's addresses are its own; a module's count from
	 * its start, as perf's module maps do */
	map nm = {.start = r->addr, .end = r->addr + r->len, .pgoff = d->is_module ? 0 : r->addr,
		  .dso = d};
	if (nm.end < nm.start)
		nm.end = UINT64_MAX;
	return pki_sy_mg_insert(m, &m->kmaps, nm);
}

/* KSYMBOL, as perf 6.1 takes it: a registration inside no kernel map makes
 * one, [addr, addr + len), for a dso of the symbol's name (a trampoline's
 * or dispatcher's with no long name) holding that symbol at its start; one
 * inside a program's map adds its symbol at that map's start, where the
 * first one answers perf's tree look-ups (so it is not added) but perf's
 * last-lookup cache takes it when it covers the cached address (0 at
 * first: kptr_restrict's trampolines all at 0 are named by the last one);
 * an unregistration drops the map holding addr. */
int pki_sy_on_ksymbol(pk_machine *m, const pk_pd_event *ev)
{
	if (ev->size < 25)
		return 0;
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	memcpy(&addr, ev->data + 8, 8);
	memcpy(&len, ev->data + 16, 4);
	memcpy(&flags, ev->data + 22, 2);
	const char *name = (const char *)ev->data + 24;
	size_t room = (size_t)ev->size - 24, nl = strnlen(name, room);
	if (nl == room || !nl)
		return 0; /* no name, or not ended in the record */
	const map *mp = pki_sy_mg_find(&m->kmaps, addr);
	if (flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
		if (mp && mp->dso->bpf)
			pki_sy_mg_cut(m, &m->kmaps, mp->start, mp->end);
		return 0;
	}
	if (mp) { /* inside a kernel map: a program's cache may take it */
		dso *in = mp->dso;
		if (in->bpf && in->bpf_last_at < len) {
			char *alias = strndup(name, nl);
			if (!alias)
				return -ENOMEM;
			free(in->bpf_alias);
			in->bpf_alias = alias;
			in->bpf_last = alias;
		}
		return 0;
	}
	char key[64 + 4096];
	snprintf(key, sizeof(key), "[ksymbol:%.4096s]", name);
	dso *d = pki_sy_dso_get(m, key);
	if (!d)
		return -ENOMEM;
	if (!d->bpf) {
		free(d->name);
		free(d->short_name);
		d->name = strndup(name, nl);
		d->short_name = strndup(name, nl);
		if (!d->name || !d->short_name)
			return -ENOMEM;
		d->bpf = d->loaded = true;
		d->bpf_image = !strncmp(name, "bpf_trampoline_", 15) ||
			       !strncmp(name, "bpf_dispatcher_", 15);
		if (!pki_sy_add_sym(d, 0, len ? len : 1, name, nl, STB_GLOBAL))
			return -ENOMEM;
		d->keep_mangled = true;
		pki_sy_syms_finish(d);
		d->bpf_last = d->nr_syms ? d->syms[0].name : NULL;
		d->bpf_last_at = 0;
	}
	map nm = {.start = addr, .end = addr + len, .pgoff = 0, .dso = d};
	if (nm.end < nm.start)
		nm.end = UINT64_MAX;
	return pki_sy_mg_insert(m, &m->kmaps, nm);
}

/* The map a user MMAP records: what was recorded (prot, flags, inode, the
 * offset: a vdso's 0, as perf keeps it); memory without a file keeps its
 * recorded offset, its addresses are their own (fileless). 0 or -ENOMEM. */
static int recorded_map(pk_machine *m, const pk_pd_event *ev, const pk_pd_rec_mmap *r, map *nm)
{
	char jit[40];
	bool fileless;
	dso *d = pki_sy_dso_get(m, pk_mmap_dso_name(ev, r, jit, sizeof(jit), &fileless));
	if (!d)
		return -ENOMEM;
	*nm = (map){.start = r->addr, .end = r->addr + r->len, .pgoff = pki_sy_mmap_pgoff(r),
		    .dso = d};
	if (ev->type == PERF_RECORD_MMAP2) {
		nm->prot = r->prot & ~MAP_FILELESS;
		nm->flags = r->flags;
		nm->ino = r->has_build_id ? 0 : r->ino;
	} else {
		nm->prot = ev->misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PROT_EXEC;
	}
	if (fileless)
		nm->prot |= MAP_FILELESS;
	return 0;
}

/* A user MMAP into the maps of its tid's thread (made when missing, as
 * perf makes it); a zero-length map too. */
static int user_mmap(pk_machine *m, const pk_pd_event *ev, const pk_pd_rec_mmap *r)
{
	thread *t = pki_sy_thread_findnew(m, r->pid, r->tid);
	map nm;
	if (!t || recorded_map(m, ev, r, &nm) < 0)
		return -ENOMEM;
	if (nm.end < nm.start)
		return 0;
	mapgroup *g = pki_sy_thread_maps(m, t);
	return g ? pki_sy_mg_insert(m, g, nm) : -ENOMEM;
}

/* A guest kernel's MMAP: guests are not modelled (perf keeps it in the
 * guest machine's kernel maps, no task made): the maps of its pid's
 * process when that is known, for lookups, as pmukit always did. */
static int guest_kernel_mmap(pk_machine *m, const pk_pd_event *ev, const pk_pd_rec_mmap *r)
{
	mapgroup *g = pki_sy_process_maps(m, r->pid);
	map nm;
	if (!g || !r->len || r->addr + r->len < r->addr)
		return 0;
	if (recorded_map(m, ev, r, &nm) < 0)
		return -ENOMEM;
	return pki_sy_mg_insert(m, g, nm);
}

int pki_sy_on_mmap(pk_machine *m, const pk_pd_event *ev)
{
	pk_pd_rec_mmap r;
	if (pk_pd_rec_mmap_parse(ev, &r, NULL) < 0)
		return 0;
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		return r.len ? kernel_mmap(m, &r) : 0;
	if (cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
		return guest_kernel_mmap(m, ev, &r);
	/* pid -1: the kernel's maps for lookups (pmukit's rule) and a task's
	 * maps for the table (perf's) */
	if (r.pid == (uint32_t)-1 && r.len && kernel_mmap(m, &r) < 0)
		return -ENOMEM;
	return user_mmap(m, ev, &r);
}
