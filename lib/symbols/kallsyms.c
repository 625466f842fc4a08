/* The kernel's symbols, from /proc/kallsyms (or opts.kallsyms), read once,
 * when the first kernel address is looked up (sy_kernel_load).
 *
 * perf loads code and data symbols (data symbols bound the code before
 * them); they arrive unsized, and a module's symbols carry "\t[module]".
 * Once loaded, the kernel map grows to the end of the last kernel symbol
 * (kernel_map_extend), as perf's does: only lookups made from then on see
 * the larger map. With kptr_restrict every address reads as 0 and no
 * symbol is kept. */
#include "sy_internal.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int load_kallsyms(dso *d, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	/* /proc/kallsyms costs per read: fewer, larger ones */
	setvbuf(f, NULL, _IOFBF, (size_t)1 << 18);
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		char *end;
		uint64_t addr = strtoull(line, &end, 16);
		if (end == line || *end != ' ')
			continue;
		char type = end[1];
		if (end[2] != ' ')
			continue;
		/* code and data, as perf loads them (data symbols bound the
		 * code symbols before them) */
		char T = (char)(type & ~0x20);
		if (T != 'T' && T != 'W' && T != 'D' && T != 'B')
			continue;
		char *name = end + 3;
		size_t nl = strcspn(name, "\t\n");
		/* kptr_restrict shows every address as 0: no usable symbols */
		if (!nl || addr == 0)
			continue;
		uint8_t bind = type == 'W' ? STB_WEAK : T == type ? STB_GLOBAL : STB_LOCAL;
		if (!sy_add_sym(d, addr, addr, name, nl, bind))
			break;
		d->syms[d->nr_syms - 1].module = name[nl] == '\t';
	}
	fclose(f);
	sy_syms_finish(d);
	return 0;
}

/* Once kallsyms is loaded, perf's kernel map reaches the end of the last
 * kernel symbol (init text and data after _etext), never into a module's
 * map. Only addresses looked up from then on see the larger map. */
static void kernel_map_extend(pk_machine *m)
{
	const dso *k = m->kernel;
	uint64_t end = 0;
	for (size_t i = k->nr_syms; i > 0; i--)
		if (!k->syms[i - 1].module) {
			end = k->syms[i - 1].end;
			break;
		}
	mapgroup *g = &m->kmaps;
	for (size_t i = 0; i < g->nr; i++) {
		map *mp = &g->maps[i];
		uint64_t limit = i + 1 < g->nr ? g->maps[i + 1].start : UINT64_MAX;
		if (mp->dso != m->kernel || end <= mp->end)
			continue;
		mp->end = end < limit ? end : limit;
		g->version = m->next_version++;
	}
}

void sy_kernel_load(pk_machine *m)
{
	m->kernel->loaded = true;
	if (m->opts.no_symbols || (m->opts.kallsyms && !m->opts.kallsyms[0]))
		return;
	load_kallsyms(m->kernel, m->opts.kallsyms ? m->opts.kallsyms : "/proc/kallsyms");
	kernel_map_extend(m);
}
