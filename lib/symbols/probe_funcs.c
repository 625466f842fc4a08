/* Where a probe point lies in an ELF binary, for perf probe -x
 * (pmukit/probe.h): a function by name to file offsets, a file offset back
 * to perf -l's words, and --funcs' list.
 *
 * The binary is read as a dso of a throwaway pk_machine (no recording, no
 * build-id cache): its symbols as perf probe reads them, every alias kept
 * (elf.c and symtab.c, the debug file's .symtab preferred) and its
 * DWARF through the dso's Dwfl (srcline.c: its own, or its debug file by
 * build id or debuglink). As perf 6.1: a function is looked up in DWARF
 * first (every unit's top-level subprograms whose name, their abstract
 * origin's for an LTO unit's concrete copy, is the one asked; their entry
 * address), then in the symbol table. Inlined copies are not probed (perf
 * adds one probe per inlined copy too). Offsets are file offsets through
 * the binary's PT_LOAD segments. */
#include "sy_internal.h"

#include <pmukit/probe.h>

#include "core/util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A machine holding path's dso, loaded; NULL with err when unreadable. */
static pk_machine *open_binary(const char *path, dso **out, pk_error *err)
{
	char real[PATH_MAX];
	if (!realpath(path, real) || access(real, R_OK) < 0)
		return pk_err(err, -errno, "Failed to get the absolute path of %s: %s", path,
			      strerror(errno)), NULL;
	pk_machine_opts o = {.kallsyms = "", .kallsyms_cache = "", .buildid_dir = ""};
	pk_machine *m = pk_machine_new(&o);
	dso *d = m ? pki_sy_dso_get(m, real) : NULL;
	if (!d) {
		pk_machine_free(m);
		return pk_err(err, -ENOMEM, "out of memory reading %s", path), NULL;
	}
	d->keep_aliases = true; /* perf probe's table: every alias */
	pki_sy_dso_load(m, d);
	if (!d->elf) {
		pk_machine_free(m);
		return pk_err(err, -ENOEXEC, "%s is no ELF file", path), NULL;
	}
	*out = d;
	return m;
}

int pk_probe_point_parse(const char *s, pk_probe_point *pp, pk_error *err)
{
	memset(pp, 0, sizeof(*pp));
	size_t n = strcspn(s, "+%:@");
	if (!n || n >= sizeof(pp->func))
		return pk_err(err, -EINVAL, "Semantic error :'%s' is not a valid function name", s);
	memcpy(pp->func, s, n);
	const char *rest = s + n;
	if (*rest == '+') {
		char *end;
		errno = 0;
		pp->off = strtoull(rest + 1, &end, 0);
		if (errno || end == rest + 1)
			return pk_err(err, -EINVAL, "Semantic error :'%s' has a bad offset", s);
		rest = end;
	}
	if (!strcmp(rest, "%return"))
		pp->ret = true, rest += 7;
	if (*rest)
		return pk_err(err, -EINVAL,
			      "probe point '%s': only FUNC[+OFF|%%return] is supported here", s);
	if (pp->ret && pp->off)
		return pk_err(err, -EINVAL, "Semantic error :Offset can't be used with return probe.");
	return 0;
}

typedef struct addr_list {
	uint64_t *v;
	size_t n, cap;
	const char *func;
	uint64_t bias;
} addr_list;

static int add_addr(addr_list *l, uint64_t a)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == a)
			return 0;
	if (pki_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = a;
	return 0;
}

/* A function's entry: its entry pc, else its first range's start. */
static bool entry_of(Dwarf_Die *f, Dwarf_Addr *pc)
{
	if (dwarf_entrypc(f, pc) == 0)
		return true;
	Dwarf_Addr base, end;
	return dwarf_ranges(f, 0, &base, pc, &end) > 0;
}

static int func_cb(Dwarf_Die *f, void *arg)
{
	addr_list *l = arg;
	const char *name = dwarf_diename(f); /* integrates the abstract origin */
	Dwarf_Addr pc;
	if (name && !strcmp(name, l->func) && entry_of(f, &pc) && add_addr(l, pc + l->bias) < 0)
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

/* The entries of the functions named func in d's DWARF (link-time);
 * false when d has no DWARF. */
static bool dwarf_funcs(pk_machine *m, dso *d, addr_list *l)
{
	Dwfl_Module *mod = pki_sy_dso_module(m, d);
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	bool any = false;
	while (mod && (cu = dwfl_module_nextcu(mod, cu, &bias))) {
		any = true;
		l->bias = bias;
		dwarf_getfuncs(cu, func_cb, l, 0);
	}
	return any;
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int pk_probe_resolve(const char *path, const pk_probe_point *pp, uint64_t **out, size_t *n,
		     pk_error *err)
{
	*out = NULL;
	*n = 0;
	dso *d;
	pk_machine *m = open_binary(path, &d, err);
	if (!m)
		return err ? err->code : -ENOENT;
	addr_list l = {.func = pp->func};
	bool dwarf = dwarf_funcs(m, d, &l);
	for (size_t i = 0; !l.n && i < d->nr_syms; i++)
		if (!strcmp(d->syms[i].name, pp->func) && add_addr(&l, d->syms[i].start) < 0)
			break;
	for (size_t i = 0; i < l.n; i++)
		l.v[i] = pki_sy_seg_offset(d, l.v[i] + pp->off);
	pk_machine_free(m);
	if (!l.n) {
		free(l.v);
		/* perf's words: with debug info, and without */
		return dwarf ? pk_err(err, -ENOENT, "Probe point '%s' not found.", pp->func)
			     : pk_err(err, -ENOENT, "Failed to find symbol %s in %s", pp->func, path);
	}
	qsort(l.v, l.n, sizeof(*l.v), addr_cmp);
	*out = l.v;
	*n = l.n;
	return 0;
}

typedef struct holder {
	Dwarf_Addr pc;
	Dwarf_Die die;
	bool found;
} holder;

static int holder_cb(Dwarf_Die *f, void *arg)
{
	holder *h = arg;
	if (dwarf_haspc(f, h->pc) <= 0)
		return DWARF_CB_OK;
	h->die = *f;
	h->found = true;
	return DWARF_CB_ABORT;
}

/* The last 30 characters of a long path, from a '/' (perf's cut). */
static const char *short_file(const char *f)
{
	size_t len = strlen(f);
	if (len <= 30)
		return f;
	const char *s = strchr(f + len - 30, '/');
	return s ? s + 1 : f + len - 30;
}

/* The line table's first row at pc (perf's line of an address several
 * rows start at), else libdw's row for it. */
static Dwarf_Line *first_row(Dwarf_Die *cu, Dwarf_Addr pc)
{
	Dwarf_Lines *lines;
	size_t n;
	Dwarf_Addr a;
	if (dwarf_getsrclines(cu, &lines, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			if (l && dwarf_lineaddr(l, &a) == 0 && a == pc)
				return l;
		}
	return dwarf_getsrc_die(cu, pc);
}

/* perf's words from DWARF: "func[+OFF|:LINE]@file"; false when no
 * function of the DWARF holds vaddr. */
static bool dwarf_place(Dwfl_Module *mod, uint64_t vaddr, bool ret, char *buf, size_t size)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = mod ? pki_sy_unit_of(mod, vaddr, &bias) : NULL;
	holder h = {.pc = vaddr - (cu ? bias : 0)};
	if (!cu || (dwarf_getfuncs(cu, holder_cb, &h, 0), !h.found))
		return false;
	Dwarf_Attribute at;
	const char *name = dwarf_formstring(dwarf_attr_integrate(&h.die, DW_AT_linkage_name, &at));
	if (!name)
		name = dwarf_diename(&h.die);
	Dwarf_Addr entry;
	if (!name || !entry_of(&h.die, &entry))
		return false;
	const char *file = dwarf_decl_file(&h.die);
	if (!file) /* DWARF 5's file 0 (clang): the unit's own source */
		file = dwarf_diename(cu);
	int base = 0, line = 0;
	Dwarf_Line *dl = h.pc != entry ? first_row(cu, h.pc) : NULL;
	int n = snprintf(buf, size, "%s", name);
	if (ret)
		n += snprintf(buf + n, size - (size_t)n, "%%return");
	else if (dl && dwarf_decl_line(&h.die, &base) == 0 && dwarf_lineno(dl, &line) == 0 &&
		 line != base)
		n += snprintf(buf + n, size - (size_t)n, ":%d", line - base);
	else if (h.pc != entry)
		n += snprintf(buf + n, size - (size_t)n, "+%" PRIu64, (uint64_t)(h.pc - entry));
	if (file && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "@%s", short_file(file));
	return true;
}

void pk_probe_place(const char *path, uint64_t off, bool ret, char *buf, size_t size)
{
	snprintf(buf, size, "0x%" PRIx64, off);
	dso *d;
	pk_machine *m = open_binary(path, &d, NULL);
	if (!m)
		return;
	uint64_t vaddr = pki_sy_seg_vaddr(d, off);
	if (!dwarf_place(pki_sy_dso_module(m, d), vaddr, ret, buf, size)) {
		sym *s = pki_sy_sym_find(d, vaddr);
		if (s && s->start == vaddr)
			snprintf(buf, size, "%s%s", s->name, ret ? "%return" : "");
		else if (s)
			snprintf(buf, size, "%s+%" PRIu64, s->name, vaddr - s->start);
	}
	pk_machine_free(m);
}

/* One filter word: a glob, maybe negated. */
static bool word_match(const char *w, size_t len, const char *name)
{
	while (len && (*w == ' ' || *w == '\t'))
		w++, len--;
	while (len && (w[len - 1] == ' ' || w[len - 1] == '\t'))
		len--;
	bool neg = len && *w == '!';
	if (neg)
		w++, len--;
	char pat[512];
	snprintf(pat, sizeof(pat), "%.*s", (int)len, w);
	return (fnmatch(pat, name, 0) == 0) != neg;
}

bool pk_probe_filter_match(const char *filter, const char *name)
{
	if (!filter)
		filter = "!_* & !*@plt";
	for (const char *alt = filter; alt;) { /* '|' binds looser than '&' */
		const char *bar = strchr(alt, '|');
		size_t alen = bar ? (size_t)(bar - alt) : strlen(alt);
		bool all = true;
		for (const char *w = alt; all && w < alt + alen;) {
			const char *amp = memchr(w, '&', (size_t)(alt + alen - w));
			size_t wl = amp ? (size_t)(amp - w) : (size_t)(alt + alen - w);
			all = word_match(w, wl, name);
			w += wl + (amp ? 1 : 0);
		}
		if (all)
			return true;
		alt = bar ? bar + 1 : NULL;
	}
	return false;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int pk_probe_funcs(const char *path, const char *filter, char ***out, size_t *n, pk_error *err)
{
	*out = NULL;
	*n = 0;
	dso *d;
	pk_machine *m = open_binary(path, &d, err);
	if (!m)
		return err ? err->code : -ENOENT;
	const char **names = malloc((d->nr_syms ? d->nr_syms : 1) * sizeof(*names));
	size_t k = 0, bytes = 0;
	for (size_t i = 0; names && i < d->nr_syms; i++)
		if (pk_probe_filter_match(filter, d->syms[i].name)) {
			names[k++] = d->syms[i].name;
			bytes += strlen(d->syms[i].name) + 1;
		}
	if (names)
		qsort(names, k, sizeof(*names), str_cmp);
	/* one block: the pointers, then the names */
	char **block = names ? malloc(k * sizeof(char *) + bytes + 1) : NULL;
	size_t j = 0;
	char *p = block ? (char *)(block + k) : NULL;
	for (size_t i = 0; block && i < k; i++) {
		block[j++] = strcpy(p, names[i]);
		p += strlen(p) + 1;
	}
	free(names);
	pk_machine_free(m);
	if (!block)
		return pk_err(err, -ENOMEM, "out of memory listing the functions of %s", path);
	*out = block;
	*n = j;
	return 0;
}
