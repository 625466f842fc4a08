/* libpmukit: the orders perf report 6.1 prints a chain tree in (hist.h,
 * pk_hist_cnode_children, pk_hist_cnode_ends, pk_hist_cnode_path); the
 * tree itself is chain.c's, its printing the CLI's (report_chain.c).
 *
 * Invariants: perf keeps a node's children in a tree by address (by dso,
 * then symbol start or address), which decides among equal values; the
 * children printed are sorted by cumul, stably, over that order. The
 * address order is not transitive where symbols and bare addresses of one
 * dso meet, so a node of fewer than WIDE children keeps the insertion sort
 * (the order perf's tree gives on the files tested, perfdata_brstack's) and
 * a wider one (a dso's root under --sort dso) a stable merge sort, as an
 * insertion sort is quadratic there. Nothing here changes a node. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define WIDE 64

/* perf's order of two children, the higher first: by dso (none lowest;
 * two dsos as perf's by where each was allocated, which glibc's allocator
 * makes the order they were made: here that order, the dso's ordinal),
 * then by symbol start when both have one, else by address. */
static bool before(const pk_hist_cnode *a, const pk_hist_cnode *b)
{
	if (a->has_map != b->has_map)
		return a->has_map;
	if (a->has_map && a->dso_ordinal != b->dso_ordinal)
		return a->dso_ordinal > b->dso_ordinal;
	if (a->sym && b->sym)
		return a->sym_start > b->sym_start;
	return a->ip > b->ip;
}

/* Merge sort of v[0, k) by before, stable (of equal nodes the earlier
 * first); safe with the address order, which qsort's need of a transitive
 * order is not. */
static void merge_sort(const pk_hist_cnode **v, const pk_hist_cnode **t, size_t k)
{
	if (k < 2)
		return;
	size_t h = k / 2, x = 0, y = h, o = 0;
	merge_sort(v, t, h);
	merge_sort(v + h, t, k - h);
	while (x < h && y < k)
		t[o++] = before(v[y], v[x]) ? v[y++] : v[x++];
	while (x < h)
		t[o++] = v[x++];
	memcpy(v, t, o * sizeof(*v)); /* v[y, k) is in place */
}

/* n's children, highest address first, into *out (the caller frees it);
 * their count, 0 when out of memory. */
static size_t children_by_addr(const pk_hist_cnode *n, const pk_hist_cnode ***out)
{
	size_t k = 0;
	for (const pk_hist_cnode *c = n->child; c; c = c->next)
		k++;
	const pk_hist_cnode **v = malloc((k ? k : 1) * sizeof(*v));
	*out = v;
	if (!v)
		return 0;
	if (n->nr_child >= WIDE) {
		const pk_hist_cnode **t = malloc(k * sizeof(*t));
		if (!t)
			return 0;
		k = 0;
		for (const pk_hist_cnode *c = n->child; c; c = c->next)
			v[k++] = c;
		merge_sort(v, t, k);
		free(t);
		return k;
	}
	k = 0;
	for (const pk_hist_cnode *c = n->child; c; c = c->next) { /* insertion: see WIDE */
		size_t j = k++;
		for (; j > 0 && before(c, v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = c;
	}
	return k;
}

/* v[0, k) by cumul (by_hit: by hit), the higher first, stable: an
 * insertion sort (few nodes kept). */
static void sort_by_count(const pk_hist_cnode **v, size_t k, bool by_hit)
{
	for (size_t i = 1; i < k; i++) {
		const pk_hist_cnode *x = v[i];
		uint64_t kx = by_hit ? x->hit : x->cumul;
		size_t j = i;
		for (; j > 0 && (by_hit ? v[j - 1]->hit : v[j - 1]->cumul) < kx; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

size_t pk_hist_cnode_children(const pk_hist_cnode *n, uint64_t min_hit, const pk_hist_cnode ***out)
{
	const pk_hist_cnode **v;
	size_t all = children_by_addr(n, &v), k = 0;
	*out = v;
	for (size_t i = 0; i < all; i++)
		if (v[i]->cumul >= min_hit)
			v[k++] = v[i];
	sort_by_count(v, k, false);
	return k;
}

/* The nodes below n (n too) with chains ending there (hit >= min_hit),
 * each after its children, children in address order. */
static void collect_ends(const pk_hist_cnode *n, uint64_t min_hit, const pk_hist_cnode ***v,
			 size_t *k, size_t *cap)
{
	const pk_hist_cnode **kids;
	size_t nk = children_by_addr(n, &kids);
	for (size_t i = 0; i < nk; i++)
		collect_ends(kids[i], min_hit, v, k, cap);
	free(kids);
	if (!n->hit || n->hit < min_hit)
		return;
	if (*k == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		const pk_hist_cnode **nv = realloc(*v, nc * sizeof(**v));
		if (!nv)
			return;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*k)++] = n;
}

size_t pk_hist_cnode_ends(const pk_hist_cnode *root, uint64_t min_hit, const pk_hist_cnode ***out)
{
	const pk_hist_cnode **v = NULL;
	size_t k = 0, cap = 0;
	collect_ends(root, min_hit, &v, &k, &cap);
	sort_by_count(v, k, true);
	*out = v;
	return k;
}

static size_t path_from(const pk_hist_cnode *root, const pk_hist_cnode *n,
			const pk_hist_cnode **out, size_t max, size_t depth)
{
	for (const pk_hist_cnode *c = root->child; c; c = c->next) {
		if (depth >= max)
			return 0;
		out[depth] = c;
		if (c == n)
			return depth + 1;
		size_t r = path_from(c, n, out, max, depth + 1);
		if (r)
			return r;
	}
	return 0;
}

size_t pk_hist_cnode_path(const pk_hist_cnode *root, const pk_hist_cnode *n,
			  const pk_hist_cnode **out, size_t max)
{
	return path_from(root, n, out, max, 0);
}
