/* Address maps: a process's (or the kernel's) sorted, non-overlapping list
 * of [start, end) -> (dso, file offset), and the MMAP/MMAP2 records that
 * fill them.
 *
 * A new map cuts away what it overlaps, as a new mmap replaces the old
 * range. Map groups are shared by a process's threads (refcounted) and
 * copied on fork. Every change gives the group a new version (unique across
 * groups, from the machine's counter): the lookup cache keys on it. Kernel
 * maps (kernel and modules, or pid -1) go to the machine's kmaps with their
 * addresses used as they are; a module's map keeps its own dso, named as
 * perf names it ("[i915]"). */
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

mapgroup *pki_sy_mg_clone(const mapgroup *src)
{
	mapgroup *g = pki_sy_mg_new();
	if (!g || !src || !src->nr)
		return g;
	g->maps = malloc(src->nr * sizeof(map));
	if (!g->maps) {
		free(g);
		return NULL;
	}
	memcpy(g->maps, src->maps, src->nr * sizeof(map));
	g->nr = g->cap = src->nr;
	return g;
}

/* Inserts [start, end): what it overlaps is cut away, as a new mmap over an
 * old range replaces it. */
int pki_sy_mg_insert(pk_machine *m, mapgroup *g, map nm)
{
	g->version = m->next_version++;
	size_t i = 0;
	while (i < g->nr && g->maps[i].end <= nm.start)
		i++;
	/* pieces of overlapped maps that stay */
	map left = {0}, right = {0};
	bool has_left = false, has_right = false;
	size_t j = i;
	while (j < g->nr && g->maps[j].start < nm.end) {
		map *o = &g->maps[j];
		if (o->start < nm.start) {
			left = *o;
			left.end = nm.start;
			has_left = true;
		}
		if (o->end > nm.end) {
			right = *o;
			right.pgoff += nm.end - o->start;
			right.start = nm.end;
			has_right = true;
		}
		j++;
	}
	size_t add = 1 + has_left + has_right;
	size_t removed = j - i;
	size_t nr = g->nr - removed + add;
	if (nr > g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		while (cap < nr)
			cap *= 2;
		map *nmaps = realloc(g->maps, cap * sizeof(map));
		if (!nmaps)
			return -ENOMEM;
		g->maps = nmaps;
		g->cap = cap;
	}
	memmove(g->maps + i + add, g->maps + j, (g->nr - j) * sizeof(map));
	size_t k = i;
	if (has_left)
		g->maps[k++] = left;
	g->maps[k++] = nm;
	if (has_right)
		g->maps[k++] = right;
	g->nr = nr;
	g->last = 0;
	return 0;
}

const map *pki_sy_mg_find(mapgroup *g, uint64_t addr)
{
	if (!g || !g->nr)
		return NULL;
	if (g->last < g->nr && addr >= g->maps[g->last].start && addr < g->maps[g->last].end)
		return &g->maps[g->last];
	size_t lo = pki_sy_count_le(g->maps, g->nr, sizeof(map), addr);
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

int pki_sy_on_mmap(pk_machine *m, const pk_pd_event *ev)
{
	pk_pd_rec_mmap r;
	if (pk_pd_rec_mmap_parse(ev, &r, NULL) < 0 || !r.len)
		return 0;
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || r.pid == (uint32_t)-1;
	if (kernel) {
		/* "[kernel.kallsyms]_text", and modules ("/.../i915.ko", or a
		 * "[name]"): the recorded maps, addresses used as they are;
		 * symbols come from the recorded kernel's kallsyms */
		const char *f = r.filename;
		bool kmap = !strncmp(f, "[kernel.kallsyms", 16);
		/* the symbol the kernel's map starts at, for kallsyms of another
		 * boot (a zero address: kptr_restrict at record time, none) */
		if (kmap && r.pgoff && f[16] == ']' && f[17]) {
			snprintf(m->kref, sizeof(m->kref), "%s", f + 17);
			m->kref_addr = r.pgoff;
		}
		dso *d = kmap ? m->kernel : pki_sy_dso_get(m, f);
		if (!d || (!kmap && (f[0] == '/' || f[0] == '[') && !d->is_module &&
			   !pki_sy_dso_set_module(d)))
			return -ENOMEM;
		/* the kernel's addresses are its own; a module's count from
		 * its start, as perf's module maps do */
		map nm = {r.addr, r.addr + r.len, d->is_module ? 0 : r.addr, d};
		if (nm.end < nm.start)
			nm.end = UINT64_MAX;
		return pki_sy_mg_insert(m, &m->kmaps, nm);
	}
	mapgroup *g = pki_sy_process_maps(m, r.pid);
	if (!g)
		return -ENOMEM;
	char jit[40];
	bool fileless;
	dso *d = pki_sy_dso_get(m, pk_mmap_dso_name(ev, &r, jit, sizeof(jit), &fileless));
	if (!d)
		return -ENOMEM;
	/* an offset equal to the start maps each address to itself */
	map nm = {r.addr, r.addr + r.len, fileless ? r.addr : pki_sy_mmap_pgoff(&r), d};
	if (nm.end < nm.start)
		return 0;
	return pki_sy_mg_insert(m, g, nm);
}
