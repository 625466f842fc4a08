/* pmukit report --hierarchy: the entries as a tree, one level per sort key
 * (perf report 6.1's hierarchy view in --stdio).
 *
 * The flat entries (made by all the keys) are grouped level by level: the
 * entries agreeing on the keys down to a level make one node, whose values
 * are their sums. Siblings are ordered by their values (each group member
 * in turn), then by the level's key as in the flat table. A node's line is
 * indented 3 columns per level, then its values, then 3 columns per level
 * below the first, then its key's text; the header names the keys joined by
 * " / ". Children columns are not used in this view (perf's rule); a leaf
 * shows its call chains as the flat table does. */
#include "report_print.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


#define INDENT 3

typedef struct hier_ctx {
	const pk_hist *h;
	const int *w;
	int nm;                      /* group members */
	int depth_k;                 /* the level being sorted */
} hier_ctx;

static const hier_ctx *sort_ctx;

static bool same_key(const pk_hist_entry *x, const pk_hist_entry *y, int k)
{
	return pk_hist_entry_number(x, k) == pk_hist_entry_number(y, k) && !strcmp(pk_hist_entry_text(x, k), pk_hist_entry_text(y, k));
}

/* The entries by their keys down to the sorted level, so that each node's
 * entries are next to each other. */
static int cmp_path(const void *a, const void *b)
{
	const pk_hist_entry *x = *(pk_hist_entry *const *)a, *y = *(pk_hist_entry *const *)b;
	for (int k = 0; k <= sort_ctx->depth_k; k++) {
		int c = strcmp(pk_hist_entry_text(x, k), pk_hist_entry_text(y, k));
		if (c)
			return c;
		if (pk_hist_entry_number(x, k) != pk_hist_entry_number(y, k))
			return pk_hist_entry_number(x, k) < pk_hist_entry_number(y, k) ? -1 : 1;
	}
	return 0;
}

typedef struct hier_node {
	pk_hist_entry **e;                /* its entries */
	size_t n;
	uint64_t v[PK_HIST_NV * 8];       /* sums per member (at most 8 shown) */
} hier_node;

static int cmp_node(const void *a, const void *b)
{
	const hier_node *x = a, *y = b;
	const hier_ctx *c = sort_ctx;
	const pk_hist_opts *o = pk_hist_config(c->h);
	for (int m = 0; m < c->nm && m < 8; m++)
		if (x->v[m * PK_HIST_NV + PK_HIST_SELF] != y->v[m * PK_HIST_NV + PK_HIST_SELF])
			return x->v[m * PK_HIST_NV + PK_HIST_SELF] > y->v[m * PK_HIST_NV + PK_HIST_SELF] ? -1 : 1;
	int r = pk_hist_cmp_key(c->h, c->depth_k, x->e[0], y->e[0]);
	int k = c->depth_k;
	bool unres = !pk_hist_entry_resolved(x->e[0], k) && !pk_hist_entry_resolved(y->e[0], k);
	if (!r || o->keys[k]->order != PK_HIST_ORD_SYM ||
	    (!unres && strcmp(pk_hist_entry_text(x->e[0], k), pk_hist_entry_text(y->e[0], k))))
		return r;
	/* one name (or two addresses) in two dsos: perf's order is by dso
	 * name first */
	int d = strcmp(pk_hist_entry_dso(x->e[0]), pk_hist_entry_dso(y->e[0]));
	return d ? d : r;
}

static void print_line(const hier_ctx *c, const hier_node *nd, int depth)
{
	const pk_hist *h = c->h;
	const pk_hist_opts *o = pk_hist_config(h);
	printf("%*s  ", depth * INDENT, "");
	for (int m = 0; m < c->nm && m < 8; m++) {
		uint64_t t = pk_hist_total_of(h, pk_hist_entry_event(nd->e[0]) + m, false);
		printf("%7.2f%%", t ? 100.0 * (double)nd->v[m * PK_HIST_NV + PK_HIST_SELF] / (double)t : 0.0);
	}
	if (o->show_nr) {
		printf("  ");
		for (int m = 0; m < c->nm && m < 8; m++)
			printf("%12" PRIu64, nd->v[m * PK_HIST_NV + PK_HIST_SELF_NR]);
	}
	if (o->show_period) {
		printf("  ");
		for (int m = 0; m < c->nm && m < 8; m++)
			printf("%12" PRIu64, nd->v[m * PK_HIST_NV + PK_HIST_SELF]);
	}
	char t[PK_HIST_NAME_MAX];
	pk_hist_col_text(h, nd->e[0], depth, t, sizeof(t));
	bool pad = o->keys[depth]->pad_last; /* at any level, as perf */
	printf("%*s  %-*s\n", (o->nr_keys - 1) * INDENT, "", pad ? c->w[depth] : 0, t);
}

/* The nodes of level depth among entries e[0..n), printed with theirs. */
static void print_level(hier_ctx *c, pk_hist_entry **e, size_t n, int depth)
{
	const pk_hist_opts *o = pk_hist_config(c->h);
	c->depth_k = depth;
	sort_ctx = c;
	qsort(e, n, sizeof(*e), cmp_path);
	hier_node *nodes = calloc(n ? n : 1, sizeof(*nodes));
	if (!nodes)
		return;
	size_t nn = 0;
	for (size_t i = 0; i < n; i++) {
		if (!nn || !same_key(nodes[nn - 1].e[0], e[i], depth))
			nodes[nn++].e = &e[i];
		hier_node *nd = &nodes[nn - 1];
		nd->n++;
		for (int v = 0; v < c->nm * PK_HIST_NV && v < PK_HIST_NV * 8; v++)
			nd->v[v] += pk_hist_entry_value(e[i], v / PK_HIST_NV, v % PK_HIST_NV);
	}
	c->depth_k = depth;
	sort_ctx = c;
	qsort(nodes, nn, sizeof(*nodes), cmp_node);
	for (size_t i = 0; i < nn; i++) {
		print_line(c, &nodes[i], depth);
		if (depth + 1 < o->nr_keys) {
			print_level(c, nodes[i].e, nodes[i].n, depth + 1);
		} else if (o->use_cg && o->cg.mode != PK_HIST_CG_NONE) {
			const pk_hist_entry *le = nodes[i].e[0];
			report_cnode_print(stdout, pk_hist_entry_chain(le), &o->cg, pk_hist_total_of(c->h, pk_hist_entry_event(le), false),
				       pk_hist_entry_value(le, 0, PK_HIST_SELF), o->sym_first,
				       report_entry_whole(le, pk_hist_nr_members(c->h, pk_hist_entry_event(le)), PK_HIST_SELF));
		}
	}
	free(nodes);
}

void report_hier_heads(const pk_hist *h, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	int indent = (o->nr_keys - 1) * INDENT, vals = 8 * nm, keys = 0;
	printf("# %*s%*s", indent, "", 8 * nm, "Overhead");
	if (o->show_nr) {
		printf("  %*s", 12 * nm, "Samples");
		vals += 2 + 12 * nm;
	}
	if (o->show_period) {
		printf("  %*s", 12 * nm, "Period");
		vals += 2 + 12 * nm;
	}
	int titles = printf(" ") - 1;
	for (int k = 0; k < o->nr_keys; k++) {
		titles += printf("%s%s", k ? " / " : " ", o->keys[k]->title) - (k ? 0 : 1);
		if (k * INDENT + w[k] > keys)
			keys = k * INDENT + w[k];
	}
	if (titles > keys)
		keys = titles;
	printf("\n# ");
	for (int i = 0; i < indent + vals; i++)
		putchar('.');
	printf("  ");
	for (int i = 0; i < keys; i++)
		putchar('.');
	printf("\n#\n");
}

void report_hier_print(const pk_hist *h, pk_hist_entry **all, size_t n, int ev, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	pk_hist_entry **mine = malloc((n ? n : 1) * sizeof(*mine));
	if (!mine)
		return;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (pk_hist_entry_event(all[i]) == ev && pk_hist_listed(h, all[i]))
			mine[k++] = all[i];
	hier_ctx c = {.h = h, .w = w, .nm = pk_hist_nr_members(h, ev)};
	if (o->nr_keys)
		print_level(&c, mine, k, 0);
	free(mine);
}
