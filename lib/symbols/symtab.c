/* Symbol tables of a dso: building them, perf's choice among aliases,
 * lookup by address.
 *
 * A table is built by pki_sy_add_sym() calls (names appended to one string
 * block; while loading, sym.name holds an offset into it, since the block
 * may move) and closed by pki_sy_syms_finish(), after which names are pointers,
 * symbols are sorted by start, unsized symbols reach the next one, and each
 * address has one symbol: the one perf 6.1 would show. C++ names are
 * demangled lazily, on first use (pki_sy_sym_name), never the kernel's. */
#include "sy_internal.h"
#include "core/util.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

static int sym_cmp(const void *a, const void *b)
{
	const sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static inline bool start_less(const sym *x, const sym *y)
{
	return x->start < y->start;
}

PKI_DEFINE_MERGE_PASS(merge_runs, sym, start_less)

/* Sorts d's symbols by start, in load order (idx) among equal starts, with
 * the compare inline (qsort's call per compare was most of a big ELF
 * table's load). False when out of memory. */
static bool sort_syms(dso *d)
{
	size_t n = d->nr_syms;
	sym *tmp = malloc(n * sizeof(sym));
	if (!tmp)
		return false;
	sym *a = d->syms, *b = tmp;
	for (;;) {
		size_t runs = merge_runs(a, b, n);
		sym *t = a;
		a = b;
		b = t;
		if (runs <= 1)
			break;
	}
	if (a != d->syms)
		memcpy(d->syms, a, n * sizeof(sym));
	free(tmp);
	return true;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* The name perf shows: C++ names demangled, once per symbol. When the
 * demangler is missing or fails, the mangled name stays. */
const char *pki_sy_sym_name(dso *d, sym *s)
{
	if (!s->mangled)
		return s->name;
	s->mangled = false;
	if (d->nr_dnames == d->cap_dnames) {
		size_t cap = d->cap_dnames ? d->cap_dnames * 2 : 64;
		char **n = realloc(d->dnames, cap * sizeof(*n));
		if (!n)
			return s->name;
		d->dnames = n;
		d->cap_dnames = cap;
	}
	/* "name@plt": perf demangles the name, then adds "@plt" */
	size_t n = strlen(s->name);
	bool plt = n > 4 && !strcmp(s->name + n - 4, "@plt");
	char *dn = NULL;
	if (plt) {
		char *cut = strndup(s->name, n - 4);
		char *dc = cut ? pk_demangle(cut) : NULL;
		size_t dl = dc ? strlen(dc) : 0;
		if (dc && (dn = malloc(dl + 5)))
			memcpy(dn, dc, dl), memcpy(dn + dl, "@plt", 5);
		free(dc);
		free(cut);
	} else {
		dn = pk_demangle(s->name);
	}
	if (dn) {
		d->dnames[d->nr_dnames++] = dn;
		s->name = dn;
	}
	return s->name;
}

/* Of two ELF symbols at one address, the one perf shows: sized over unsized,
 * non-weak over weak, global over local, fewer leading underscores, longer
 * name (the names as shown, demangled). */
bool pki_sy_sym_better(dso *d, sym *a, sym *b)
{
	/* kallsyms has no sizes: the last alias, the only one that reaches
	 * the next symbol, wins (seen: __pi_memcpy over memcpy) */
	bool as = a->end > a->start, bs = b->end > b->start;
	if (as != bs)
		return as;
	bool wa = a->bind == STB_WEAK, wb = b->bind == STB_WEAK;
	if (wa != wb)
		return !wa;
	bool ga = a->bind == STB_GLOBAL, gb = b->bind == STB_GLOBAL;
	if (ga != gb)
		return ga;
	const char *na = pki_sy_sym_name(d, a), *nb = pki_sy_sym_name(d, b);
	size_t ua = leading_underscores(na), ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub;
	size_t la = strlen(na), lb = strlen(nb);
	if (la != lb)
		return la > lb;
	return a->idx < b->idx; /* a full tie: the one listed first */
}

/* The end given to a last unsized symbol: the end of its page + 4 KiB. */
uint64_t pki_sy_page_after(uint64_t addr)
{
	return ((addr + 4095) & ~4095ULL) + 4096;
}

/* Sorts, gives unsized symbols the room up to the next one (the last one,
 * and the last of the kernel before its modules, to page_after()), and
 * keeps one symbol per address (unless d keeps aliases). */
void pki_sy_syms_finish(dso *d)
{
	for (size_t i = 0; i < d->nr_syms; i++) {
		sym *s = &d->syms[i];
		s->name = d->strs + (uintptr_t)s->name;
		/* perf demangles ELF symbols, never the kernel's; with
		 * --no-demangle, aliases are compared by their raw names too */
		s->mangled = !d->is_kernel && !d->keep_mangled && pk_is_mangled(s->name);
	}
	if (!d->nr_syms)
		return;
	/* kallsyms comes sorted already, ELF tables often nearly so */
	bool sorted = true;
	for (size_t i = 1; i < d->nr_syms && sorted; i++)
		sorted = d->syms[i - 1].start <= d->syms[i].start;
	if (!sorted && !sort_syms(d))
		qsort(d->syms, d->nr_syms, sizeof(sym), sym_cmp); /* no memory for the merge */
	/* Sizes first, then aliases, in perf's order: of unsized aliases at
	 * one address only the last one reaches the next symbol and so counts
	 * as sized when the aliases are compared. */
	size_t n = d->nr_syms;
	for (size_t i = 0; i + 1 < n; i++) {
		sym *s = &d->syms[i];
		if (s->end == s->start)
			s->end = s->module == s[1].module ? s[1].start : pki_sy_page_after(s->start);
	}
	sym *last = &d->syms[n - 1];
	if (last->end == last->start)
		last->end = pki_sy_page_after(last->start);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		if (out && d->syms[out - 1].start == d->syms[i].start && !d->keep_aliases) {
			if (!pki_sy_sym_better(d, &d->syms[out - 1], &d->syms[i]))
				d->syms[out - 1] = d->syms[i];
			continue;
		}
		d->syms[out++] = d->syms[i];
	}
	d->nr_syms = out;
}

/* Number of elements whose start (their first field) is <= addr, in an
 * array sorted by start: syms and maps share this search. */
size_t pki_sy_count_le(const void *base, size_t n, size_t stride, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t start;
		memcpy(&start, (const char *)base + mid * stride, sizeof(start));
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Tables from this size on are searched through a bucket index. */
#define INDEX_MIN_SYMS 256

/* Buckets of 2^shift bytes from the first symbol's start, about one
 * symbol per bucket: a search reads one bucket's entry and bisects the
 * few symbols starting in it, instead of bisecting the whole table (whose
 * steps each miss the CPU caches in a big one). False when out of memory. */
static bool index_build(dso *d)
{
	struct sym_index *x = &d->index;
	size_t n = d->nr_syms;
	uint64_t base = d->syms[0].start, span = d->syms[n - 1].start - base;
	unsigned shift = 0;
	while (shift < 63 && (span >> shift) >= n)
		shift++;
	size_t nb = (size_t)(span >> shift) + 1;
	uint32_t *first = realloc(x->first, nb * sizeof(*first));
	if (!first || n > UINT32_MAX)
		return false;
	size_t i = 0;
	for (size_t b = 0; b < nb; b++) {
		uint64_t lo = base + ((uint64_t)b << shift);
		while (i < n && d->syms[i].start < lo)
			i++;
		first[b] = (uint32_t)i;
	}
	*x = (struct sym_index){d->syms, n, base, shift, nb, first};
	return true;
}

/* The number of d's symbols starting at or below addr. */
static size_t syms_count_le(dso *d, uint64_t addr)
{
	struct sym_index *x = &d->index;
	size_t n = d->nr_syms;
	if (n < INDEX_MIN_SYMS ||
	    ((x->syms != d->syms || x->nr_syms != n) && !index_build(d)))
		return pki_sy_count_le(d->syms, n, sizeof(sym), addr);
	if (addr < x->base)
		return 0;
	uint64_t b = (addr - x->base) >> x->shift;
	if (b >= x->nr)
		return n;
	/* every symbol before first[b] starts below the bucket, every one from
	 * first[b + 1] on after it */
	size_t lo = x->first[b], hi = b + 1 < x->nr ? x->first[b + 1] : n;
	return lo + pki_sy_count_le(d->syms + lo, hi - lo, sizeof(sym), addr);
}

sym *pki_sy_sym_find(dso *d, uint64_t addr)
{
	size_t lo = syms_count_le(d, addr);
	sym *s = lo ? &d->syms[lo - 1] : NULL;
	if (s && addr < s->end)
		return s;
	/* a PLT slot perf answers with the symbol grown over it */
	const plt_shadow *sh = d->nr_shadows ? pki_sy_plt_shadow_find(d, addr) : NULL;
	if (!sh || !(lo = pki_sy_count_le(d->syms, d->nr_syms, sizeof(sym), sh->owner)))
		return NULL;
	s = &d->syms[lo - 1];
	return s->start == sh->owner ? s : NULL;
}

/* Room for nsyms more symbols with nstr more bytes of names: one
 * allocation for a whole table instead of a doubling series of copies. */
bool pki_sy_syms_reserve(dso *d, size_t nsyms, size_t nstr)
{
	if (d->nr_syms + nsyms > d->cap_syms) {
		size_t cap = d->cap_syms ? d->cap_syms * 2 : 1024;
		while (cap < d->nr_syms + nsyms)
			cap *= 2;
		sym *ns = realloc(d->syms, cap * sizeof(sym));
		if (!ns)
			return false;
		d->syms = ns;
		d->cap_syms = cap;
	}
	if (d->slen + nstr > d->scap) {
		size_t cap = d->scap ? d->scap * 2 : 65536;
		while (cap < d->slen + nstr)
			cap *= 2;
		char *nsb = realloc(d->strs, cap);
		if (!nsb)
			return false;
		d->strs = nsb;
		d->scap = cap;
	}
	return true;
}

/* Appends a symbol; names stay offsets until pki_sy_syms_finish(). */
bool pki_sy_add_sym(dso *d, uint64_t start, uint64_t end, const char *name, size_t nl,
		uint8_t bind)
{
	if (!pki_sy_syms_reserve(d, 1, nl + 1))
		return false;
	memcpy(d->strs + d->slen, name, nl);
	d->strs[d->slen + nl] = 0;
	sym *o = &d->syms[d->nr_syms++];
	o->start = start;
	o->end = end;
	o->name = (const char *)(uintptr_t)d->slen;
	o->bind = bind;
	o->mangled = false;
	o->module = false;
	o->idx = (uint32_t)(d->nr_syms - 1);
	d->slen += nl + 1;
	return true;
}
