/* perf report 6.1's --hierarchy view as nodes (pmukit/hist.h:
 * pk_hist_hier_level): at a level, the entries agreeing on the keys down
 * to it make one node, whose values are their sums. Siblings are ordered
 * by their values (each group member in turn), then by the level's key as
 * in the flat table (one name, or two addresses, in two dsos: by dso name
 * first, as perf). The CLI prints the nodes (report_hier.c).
 * Invariants: the caller's entries are only reordered (a node's entries
 * next to each other, its e pointing at them); nothing here prints. */
#include <pmukit/hist.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct hier_sort {
	const pk_hist *h;
	int depth;                   /* the level being sorted */
	int nm;                      /* group members */
} hier_sort;

static bool same_key(const pk_hist_entry *x, const pk_hist_entry *y, int k)
{
	return pk_hist_entry_number(x, k) == pk_hist_entry_number(y, k) &&
	       !strcmp(pk_hist_entry_text(x, k), pk_hist_entry_text(y, k));
}

/* The entries by their keys down to the sorted level, so that each node's
 * entries are next to each other. */
static int cmp_path(const void *a, const void *b, void *arg)
{
	const hier_sort *c = arg;
	const pk_hist_entry *x = *(pk_hist_entry *const *)a, *y = *(pk_hist_entry *const *)b;
	for (int k = 0; k <= c->depth; k++) {
		int r = strcmp(pk_hist_entry_text(x, k), pk_hist_entry_text(y, k));
		if (r)
			return r;
		if (pk_hist_entry_number(x, k) != pk_hist_entry_number(y, k))
			return pk_hist_entry_number(x, k) < pk_hist_entry_number(y, k) ? -1 : 1;
	}
	return 0;
}

static int cmp_node(const void *a, const void *b, void *arg)
{
	const pk_hist_hnode *x = a, *y = b;
	const hier_sort *c = arg;
	const pk_hist_opts *o = pk_hist_config(c->h);
	for (int m = 0; m < c->nm && m < 8; m++)
		if (x->v[m * PK_HIST_NV + PK_HIST_SELF] != y->v[m * PK_HIST_NV + PK_HIST_SELF])
			return x->v[m * PK_HIST_NV + PK_HIST_SELF] > y->v[m * PK_HIST_NV + PK_HIST_SELF] ? -1 : 1;
	int k = c->depth, r = pk_hist_cmp_key(c->h, k, x->e[0], y->e[0]);
	bool unres = !pk_hist_entry_resolved(x->e[0], k) && !pk_hist_entry_resolved(y->e[0], k);
	if (!r || o->keys[k]->order != PK_HIST_ORD_SYM ||
	    (!unres && strcmp(pk_hist_entry_text(x->e[0], k), pk_hist_entry_text(y->e[0], k))))
		return r;
	int d = strcmp(pk_hist_entry_dso(x->e[0]), pk_hist_entry_dso(y->e[0]));
	return d ? d : r;
}

int pk_hist_hier_level(const pk_hist *h, pk_hist_entry **e, size_t n, int depth, int nm,
		       pk_hist_hnode **out, size_t *nr)
{
	hier_sort c = {.h = h, .depth = depth, .nm = nm};
	*nr = 0;
	qsort_r(e, n, sizeof(*e), cmp_path, &c);
	pk_hist_hnode *nodes = calloc(n ? n : 1, sizeof(*nodes));
	*out = nodes;
	if (!nodes)
		return -ENOMEM;
	size_t nn = 0;
	for (size_t i = 0; i < n; i++) {
		if (!nn || !same_key(nodes[nn - 1].e[0], e[i], depth))
			nodes[nn++].e = &e[i];
		pk_hist_hnode *nd = &nodes[nn - 1];
		nd->n++;
		for (int v = 0; v < nm * PK_HIST_NV && v < PK_HIST_NV * 8; v++)
			nd->v[v] += pk_hist_entry_value(e[i], v / PK_HIST_NV, v % PK_HIST_NV);
	}
	qsort_r(nodes, nn, sizeof(*nodes), cmp_node, &c);
	*nr = nn;
	return 0;
}
