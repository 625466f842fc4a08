/* Which symbol perf 6.1 answers for each PLT slot of an ELF file.
 *
 * perf keeps a dso's symbols in a red-black tree keyed by start, built by
 * inserting the table's symbols in load order, erasing the losers among
 * aliases (an in-order walk comparing neighbours with the same start), then
 * growing unsized symbols up to the next one, and only then inserting its
 * synthesized "name@plt" symbols, one per slot. Its lookup walks down from
 * the root and stops at the first node whose [start, end) holds the address
 * (an unsized node: its start). An unsized _init just before .plt grows over
 * the whole PLT, so a slot answers _init when _init's node lies on the
 * slot's search path, which only the tree's shape decides: the first slot of
 * most programs, of no slot in some Python extension modules. This file
 * replays those steps on a red-black tree of the same algorithm (insertion
 * and erase fix-ups as in the classic formulation, successor replacement on
 * erase) and reports, per slot, the symbol that answers.
 * Invariants: node 0 is the black nil sentinel; equal starts go right, so an
 * in-order walk lists aliases in load order, as perf's does. */
#include "sy_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct rbn {
	uint64_t start, end;
	uint32_t l, r, p;
	int32_t sym;                 /* index into the symbol copies; -1: a PLT slot */
	bool red;
} rbn;

typedef struct rbt {
	rbn *n;
	uint32_t root, len;
} rbt;

static void rotate(rbt *t, uint32_t x, bool left)
{
	rbn *n = t->n;
	uint32_t y = left ? n[x].r : n[x].l;
	uint32_t inner = left ? n[y].l : n[y].r;
	if (left)
		n[x].r = inner;
	else
		n[x].l = inner;
	if (inner)
		n[inner].p = x;
	n[y].p = n[x].p;
	if (!n[x].p)
		t->root = y;
	else if (x == n[n[x].p].l)
		n[n[x].p].l = y;
	else
		n[n[x].p].r = y;
	if (left)
		n[y].l = x;
	else
		n[y].r = x;
	n[x].p = y;
}

static void insert(rbt *t, uint64_t start, uint64_t end, int32_t symi)
{
	rbn *n = t->n;
	uint32_t z = t->len++, p = 0;
	n[z] = (rbn){start, end, 0, 0, 0, symi, true};
	for (uint32_t c = t->root; c; c = start < n[c].start ? n[c].l : n[c].r)
		p = c;
	n[z].p = p;
	if (!p)
		t->root = z;
	else if (start < n[p].start)
		n[p].l = z;
	else
		n[p].r = z;
	while (n[n[z].p].red) {
		uint32_t pa = n[z].p, g = n[pa].p;
		bool left = pa == n[g].l;
		uint32_t u = left ? n[g].r : n[g].l;
		if (n[u].red) {
			n[pa].red = n[u].red = false;
			n[g].red = true;
			z = g;
			continue;
		}
		if (z == (left ? n[pa].r : n[pa].l)) {
			z = pa;
			rotate(t, z, left);
			pa = n[z].p;
		}
		n[pa].red = false;
		n[g].red = true;
		rotate(t, g, !left);
	}
	n[t->root].red = false;
}

/* Puts v (maybe nil) where u was. */
static void transplant(rbt *t, uint32_t u, uint32_t v)
{
	rbn *n = t->n;
	if (!n[u].p)
		t->root = v;
	else if (u == n[n[u].p].l)
		n[n[u].p].l = v;
	else
		n[n[u].p].r = v;
	n[v].p = n[u].p;
}

static void erase_fixup(rbt *t, uint32_t x)
{
	rbn *n = t->n;
	while (x != t->root && !n[x].red) {
		uint32_t p = n[x].p;
		bool left = x == n[p].l;
		uint32_t w = left ? n[p].r : n[p].l;
		if (n[w].red) {
			n[w].red = false;
			n[p].red = true;
			rotate(t, p, left);
			w = left ? n[p].r : n[p].l;
		}
		uint32_t near = left ? n[w].l : n[w].r, far = left ? n[w].r : n[w].l;
		if (!n[near].red && !n[far].red) {
			n[w].red = true;
			x = p;
			continue;
		}
		if (!n[far].red) {
			n[near].red = false;
			n[w].red = true;
			rotate(t, w, !left);
			w = left ? n[p].r : n[p].l;
			far = left ? n[w].r : n[w].l;
		}
		n[w].red = n[p].red;
		n[p].red = false;
		n[far].red = false;
		rotate(t, p, left);
		x = t->root;
	}
	n[x].red = false;
}

static void erase(rbt *t, uint32_t z)
{
	rbn *n = t->n;
	uint32_t y = z, x;
	bool was_red = n[y].red;
	if (!n[z].l) {
		x = n[z].r;
		transplant(t, z, x);
	} else if (!n[z].r) {
		x = n[z].l;
		transplant(t, z, x);
	} else {
		for (y = n[z].r; n[y].l; y = n[y].l)
			;
		was_red = n[y].red;
		x = n[y].r;
		if (n[y].p == z) {
			n[x].p = y; /* x may be nil: the fix-up starts from y */
		} else {
			transplant(t, y, x);
			n[y].r = n[z].r;
			n[n[y].r].p = y;
		}
		transplant(t, z, y);
		n[y].l = n[z].l;
		n[n[y].l].p = y;
		n[y].red = n[z].red;
	}
	if (!was_red)
		erase_fixup(t, x);
	n[0].p = 0;
}

static uint32_t next_node(const rbt *t, uint32_t x)
{
	const rbn *n = t->n;
	if (n[x].r) {
		for (x = n[x].r; n[x].l; x = n[x].l)
			;
		return x;
	}
	uint32_t p = n[x].p;
	while (p && x == n[p].r)
		x = p, p = n[p].p;
	return p;
}

static uint32_t first_node(const rbt *t)
{
	uint32_t x = t->root;
	while (x && t->n[x].l)
		x = t->n[x].l;
	return x;
}

/* perf's alias pass: of neighbours with one start, the loser is erased. */
static void drop_aliases(rbt *t, dso *d, sym *cp)
{
	uint32_t cur = first_node(t);
	while (cur) {
		uint32_t nx = next_node(t, cur);
		if (!nx)
			break;
		if (t->n[cur].start != t->n[nx].start) {
			cur = nx;
			continue;
		}
		if (pki_sy_sym_better(d, &cp[t->n[cur].sym], &cp[t->n[nx].sym])) {
			erase(t, nx);
		} else {
			erase(t, cur);
			cur = nx;
		}
	}
}

/* perf's symbols__find: the first node on the path that holds addr. */
static uint32_t find(const rbt *t, uint64_t addr)
{
	const rbn *n = t->n;
	uint32_t c = t->root;
	while (c) {
		if (addr < n[c].start)
			c = n[c].l;
		else if (addr > n[c].end || (addr == n[c].end && addr != n[c].start))
			c = n[c].r;
		else
			return c;
	}
	return 0;
}

/* For the nslots PLT slots at plt, plt + entsize, ...: owner[i] is the
 * load index (into d->syms, names still offsets) of the ELF symbol perf
 * answers for slot i, or -1 when the slot answers its own name@plt. False
 * when out of memory (owner all -1). */
bool pki_sy_plt_owners(dso *d, uint64_t plt, uint64_t entsize, size_t nslots, int32_t *owner)
{
	size_t nsyms = d->nr_syms;
	for (size_t i = 0; i < nslots; i++)
		owner[i] = -1;
	if (nsyms + nslots >= UINT32_MAX / 2)
		return false;
	rbt t = {calloc(nsyms + nslots + 1, sizeof(rbn)), 0, 1};
	sym *cp = malloc((nsyms ? nsyms : 1) * sizeof(sym));
	bool ok = t.n && cp;
	for (size_t i = 0; ok && i < nsyms; i++) {
		cp[i] = d->syms[i];
		cp[i].name = d->strs + (uintptr_t)d->syms[i].name;
		cp[i].mangled = !d->keep_mangled && pk_is_mangled(cp[i].name);
		insert(&t, cp[i].start, cp[i].end, (int32_t)i);
	}
	if (ok) {
		drop_aliases(&t, d, cp);
		uint32_t prev = 0;
		for (uint32_t x = first_node(&t); x; prev = x, x = next_node(&t, x))
			if (prev && t.n[prev].end == t.n[prev].start)
				t.n[prev].end = t.n[x].start;
		if (prev && t.n[prev].end == t.n[prev].start)
			t.n[prev].end = pki_sy_page_after(t.n[prev].start);
		for (size_t i = 0; i < nslots; i++)
			insert(&t, plt + i * entsize, plt + (i + 1) * entsize, -1);
		for (size_t i = 0; i < nslots; i++) {
			uint32_t x = find(&t, plt + i * entsize);
			if (x && t.n[x].sym >= 0)
				owner[i] = t.n[x].sym;
		}
	}
	free(t.n);
	free(cp);
	return ok;
}

/* Keeps the slots answered by another symbol (owner[i] >= 0) as runs with
 * that symbol's start, for pki_sy_sym_find. False when out of memory. */
bool pki_sy_plt_shadows(dso *d, uint64_t plt, uint64_t entsize, size_t nslots,
		const int32_t *owner)
{
	for (size_t i = 0; i < nslots; i++) {
		if (owner[i] < 0)
			continue;
		uint64_t a = plt + i * entsize, o = d->syms[owner[i]].start;
		plt_shadow *last = d->nr_shadows ? &d->shadows[d->nr_shadows - 1] : NULL;
		if (last && last->end == a && last->owner == o) {
			last->end = a + entsize;
			continue;
		}
		plt_shadow *ns = realloc(d->shadows, (d->nr_shadows + 1) * sizeof(*ns));
		if (!ns)
			return false;
		d->shadows = ns;
		d->shadows[d->nr_shadows++] = (plt_shadow){a, a + entsize, o};
	}
	return true;
}

/* The shadowed run holding addr, or NULL. */
const plt_shadow *pki_sy_plt_shadow_find(const dso *d, uint64_t addr)
{
	size_t lo = pki_sy_count_le(d->shadows, d->nr_shadows, sizeof(plt_shadow), addr);
	if (!lo || addr >= d->shadows[lo - 1].end)
		return NULL;
	return &d->shadows[lo - 1];
}
