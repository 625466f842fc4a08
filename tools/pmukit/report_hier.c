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
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_keys.h"

#define INDENT 3

typedef struct hier_ctx {
	const report *rp;
	const int *w;
	int nm;                      /* group members */
	int depth_k;                 /* the level being sorted */
} hier_ctx;

static const hier_ctx *sort_ctx;

static bool same_key(const rp_entry *x, const rp_entry *y, int k)
{
	return x->nums[k] == y->nums[k] && !strcmp(x->cols[k], y->cols[k]);
}

/* The entries by their keys down to the sorted level, so that each node's
 * entries are next to each other. */
static int cmp_path(const void *a, const void *b)
{
	const rp_entry *x = *(rp_entry *const *)a, *y = *(rp_entry *const *)b;
	for (int k = 0; k <= sort_ctx->depth_k; k++) {
		int c = strcmp(x->cols[k], y->cols[k]);
		if (c)
			return c;
		if (x->nums[k] != y->nums[k])
			return x->nums[k] < y->nums[k] ? -1 : 1;
	}
	return 0;
}

typedef struct hier_node {
	rp_entry **e;                /* its entries */
	size_t n;
	uint64_t v[RP_NV * 8];       /* sums per member (at most 8 shown) */
} hier_node;

static int cmp_node(const void *a, const void *b)
{
	const hier_node *x = a, *y = b;
	const hier_ctx *c = sort_ctx;
	for (int m = 0; m < c->nm && m < 8; m++)
		if (x->v[m * RP_NV + RP_SELF] != y->v[m * RP_NV + RP_SELF])
			return x->v[m * RP_NV + RP_SELF] > y->v[m * RP_NV + RP_SELF] ? -1 : 1;
	int r = rp_cmp_key(c->rp, c->depth_k, x->e[0], y->e[0]);
	int k = c->depth_k;
	bool unres = (x->e[0]->unresolved & y->e[0]->unresolved) & (1u << k);
	if (!r || c->rp->keys[k]->order != RP_ORD_SYM ||
	    (!unres && strcmp(x->e[0]->cols[k], y->e[0]->cols[k])))
		return r;
	/* one name (or two addresses) in two dsos: perf's order is by dso
	 * name first */
	int d = strcmp(x->e[0]->dso, y->e[0]->dso);
	return d ? d : r;
}

static void print_line(const hier_ctx *c, const hier_node *nd, int depth)
{
	const report *rp = c->rp;
	printf("%*s  ", depth * INDENT, "");
	for (int m = 0; m < c->nm && m < 8; m++) {
		uint64_t t = rp_total(rp, nd->e[0]->ev + m);
		printf("%7.2f%%", t ? 100.0 * (double)nd->v[m * RP_NV + RP_SELF] / (double)t : 0.0);
	}
	if (rp->show_nr) {
		printf("  ");
		for (int m = 0; m < c->nm && m < 8; m++)
			printf("%12" PRIu64, nd->v[m * RP_NV + RP_SELF_NR]);
	}
	if (rp->show_period) {
		printf("  ");
		for (int m = 0; m < c->nm && m < 8; m++)
			printf("%12" PRIu64, nd->v[m * RP_NV + RP_SELF]);
	}
	char t[RP_NAME_MAX];
	rp_col_text(rp, nd->e[0], depth, t, sizeof(t));
	bool pad = rp->keys[depth]->pad_last; /* at any level, as perf */
	printf("%*s  %-*s\n", (rp->nr_keys - 1) * INDENT, "", pad ? c->w[depth] : 0, t);
}

/* The nodes of level depth among entries e[0..n), printed with theirs. */
static void print_level(hier_ctx *c, rp_entry **e, size_t n, int depth)
{
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
		for (int v = 0; v < c->nm * RP_NV && v < RP_NV * 8; v++)
			nd->v[v] += e[i]->v[v];
	}
	c->depth_k = depth;
	sort_ctx = c;
	qsort(nodes, nn, sizeof(*nodes), cmp_node);
	for (size_t i = 0; i < nn; i++) {
		print_line(c, &nodes[i], depth);
		if (depth + 1 < c->rp->nr_keys) {
			print_level(c, nodes[i].e, nodes[i].n, depth + 1);
		} else if (c->rp->use_cg && c->rp->cg.mode != RP_CG_NONE) {
			const rp_entry *le = nodes[i].e[0];
			rp_cnode_print(stdout, &le->chain, &c->rp->cg, rp_total(c->rp, le->ev),
				       le->v[RP_SELF], c->rp->sym_first);
		}
	}
	free(nodes);
}

void rp_hier_heads(const report *rp, int nm, const int *w)
{
	int indent = (rp->nr_keys - 1) * INDENT, vals = 8 * nm, keys = 0;
	printf("# %*s%*s", indent, "", 8 * nm, "Overhead");
	if (rp->show_nr) {
		printf("  %*s", 12 * nm, "Samples");
		vals += 2 + 12 * nm;
	}
	if (rp->show_period) {
		printf("  %*s", 12 * nm, "Period");
		vals += 2 + 12 * nm;
	}
	int titles = printf(" ") - 1;
	for (int k = 0; k < rp->nr_keys; k++) {
		titles += printf("%s%s", k ? " / " : " ", rp->keys[k]->title) - (k ? 0 : 1);
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

void rp_hier_print(const report *rp, rp_entry **all, size_t n, int ev, const int *w)
{
	rp_entry **mine = malloc((n ? n : 1) * sizeof(*mine));
	if (!mine)
		return;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (all[i]->ev == ev && rp_listed(rp, all[i]))
			mine[k++] = all[i];
	hier_ctx c = {.rp = rp, .w = w, .nm = rp->nr_members[ev]};
	if (rp->nr_keys)
		print_level(&c, mine, k, 0);
	free(mine);
}
