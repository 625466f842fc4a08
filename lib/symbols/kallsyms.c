/* The kernel's symbols, from /proc/kallsyms (or opts.kallsyms), read once,
 * when the first kernel address is looked up (pki_sy_kernel_load), or from
 * the kallsyms cache (kcache.c) when it holds the same kernel's table.
 * Only the recorded kernel's: this host's kallsyms when the file's kernel
 * build id is this host's (or the file has none), else the copy perf record
 * kept in the build-id cache, else none (pki_sy_kallsyms_source).
 *
 * perf loads code and data symbols (data symbols bound the code before
 * them); they arrive unsized, and a module's symbols carry "\t[module]".
 * Once loaded, the kernel map grows to the end of the last kernel symbol
 * (kernel_map_extend), as perf's does: only lookups made from then on see
 * the larger map. With kptr_restrict every address reads as 0 and no
 * symbol is kept. */
#include "sy_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value of a hex digit, or -1. */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The fields of a line "<hex addr> <type> <name>[\t[module]]" (without
 * its '\n'); false when it is not one. *name ends at e or its tab. */
static bool split_line(const char *p, const char *e, uint64_t *addr, char *type,
		       const char **name)
{
	const char *q = p;
	*addr = 0;
	for (int v; q < e && (v = hex_digit(*q)) >= 0; q++)
		*addr = *addr << 4 | (uint64_t)v;
	if (q == p || e - q < 3 || q[0] != ' ' || q[2] != ' ')
		return false;
	*type = q[1];
	*name = q + 3;
	return true;
}

/* One line, added when it is a code or data symbol; false only when out
 * of memory (a line callback of for_each_line). */
static bool parse_line(void *arg, const char *p, size_t len)
{
	dso *d = arg;
	const char *e = p + len, *name;
	uint64_t addr;
	char type;
	if (!split_line(p, e, &addr, &type, &name))
		return true;
	/* code and data, as perf loads them (data symbols bound the code
	 * symbols before them) */
	char T = (char)(type & ~0x20);
	if (T != 'T' && T != 'W' && T != 'D' && T != 'B')
		return true;
	const char *tab = memchr(name, '\t', (size_t)(e - name));
	size_t nl = (size_t)((tab ? tab : e) - name);
	/* kptr_restrict shows every address as 0: no usable symbols */
	if (!nl || addr == 0)
		return true;
	uint8_t bind = type == 'W' ? STB_WEAK : T == type ? STB_GLOBAL : STB_LOCAL;
	if (!pki_sy_add_sym(d, addr, addr, name, nl, bind))
		return false;
	d->syms[d->nr_syms - 1].module = tab != NULL;
	return true;
}

/* Reads the file in large blocks (/proc/kallsyms costs per read) and
 * hands each whole line to fn in place (no stdio, no strtoull) until fn
 * returns false. */
static int for_each_line(const char *path, bool (*fn)(void *arg, const char *p, size_t len),
			 void *arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	enum { BLOCK = 1 << 18 };
	char *buf = malloc(BLOCK);
	size_t have = 0;
	bool ok = buf != NULL;
	while (ok) {
		ssize_t n = read(fd, buf + have, BLOCK - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (have) /* a last line without '\n' */
				ok = fn(arg, buf, have);
			break;
		}
		have += (size_t)n;
		char *p = buf, *end = buf + have, *nl;
		while (ok && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			ok = fn(arg, p, (size_t)(nl - p));
			p = nl + 1;
		}
		have = (size_t)(end - p);
		if (have == BLOCK) /* a line longer than a block: dropped */
			have = 0;
		memmove(buf, p, have);
	}
	free(buf);
	close(fd);
	return 0;
}

static int load_kallsyms(dso *d, const char *path)
{
	int rc = for_each_line(path, parse_line, d);
	pki_sy_syms_finish(d);
	return rc;
}

/* A kernel symbol looked for by name (for_each_line stops at it). */
typedef struct ref_find {
	const char *name;
	uint64_t addr;
	bool found;
} ref_find;

static bool ref_line(void *arg, const char *p, size_t len)
{
	ref_find *f = arg;
	const char *name;
	uint64_t addr;
	char type;
	size_t nl = strlen(f->name);
	if (split_line(p, p + len, &addr, &type, &name) && (size_t)(p + len - name) == nl &&
	    !memcmp(name, f->name, nl)) {
		f->addr = addr;
		f->found = true;
	}
	return !f->found;
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
			end = k->syms[i - 1].end - (uint64_t)m->kdelta; /* the recording's address */
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

/* From the cache when it holds the current kernel's table, else from
 * the source, then saved to the cache (kcache.c). */
static void load_cached(dso *d, const char *src, const pk_machine_opts *o)
{
	char *path = pki_sy_kcache_path(o), key[1024];
	bool keyed = path && pki_sy_kcache_key(src, key, sizeof(key));
	if (!keyed || !pki_sy_kcache_read(path, key, d)) {
		load_kallsyms(d, src);
		if (keyed && d->nr_syms)
			pki_sy_kcache_write(path, key, d);
	}
	free(path);
}

/* The kernel's symbols are at the addresses of kallsyms' boot, the
 * file's at the recording's (KASLR): the distance, from the symbol the
 * kernel map names ("_text", among the first lines; the table keeps one
 * name per address, so the file is read for it, as perf does). False when
 * kallsyms lacks it: its table is not used, as perf. */
static bool kernel_delta(pk_machine *m, const char *path)
{
	ref_find f = {m->kref, 0, false};
	m->kdelta = 0;
	if (!m->kref[0])
		return true;
	if (for_each_line(path, ref_line, &f) < 0 || !f.found)
		return false;
	m->kdelta = (int64_t)(f.addr - m->kref_addr);
	return true;
}

void pki_sy_kernel_load(pk_machine *m)
{
	m->kernel->loaded = true;
	char path[4096];
	if (m->opts.no_symbols || (m->opts.kallsyms && !m->opts.kallsyms[0]) ||
	    !pki_sy_kallsyms_source(m, path, sizeof(path)))
		return;
	load_cached(m->kernel, path, &m->opts);
	if (!kernel_delta(m, path)) {
		m->kernel->nr_syms = 0; /* another kernel's table: no names */
		return;
	}
	kernel_map_extend(m);
}

int pk_machine_kernel_symbol(pk_machine *m, const char *name, uint64_t *addr)
{
	if (!m->kernel->loaded)
		pki_sy_kernel_load(m);
	const dso *k = m->kernel;
	for (size_t i = 0; i < k->nr_syms; i++)
		if (!k->syms[i].module && !strcmp(k->syms[i].name, name)) {
			*addr = k->syms[i].start - (uint64_t)m->kdelta;
			return 0;
		}
	return -ENOENT;
}
