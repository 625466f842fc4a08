/* pmukit report --hierarchy: the entries as a tree, one level per sort key
 * (perf report 6.1's hierarchy view in --stdio).
 *
 * The flat entries (made by all the keys) are grouped level by level into
 * nodes in perf's order by the library (pk_hist_hier_level). A node's line is
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
} hier_ctx;

static void print_line(const hier_ctx *c, const pk_hist_hnode *nd, int depth)
{
	const pk_hist *h = c->h;
	const pk_hist_opts *o = pk_hist_config(h);
	printf("%*s  ", depth * INDENT, "");
	for (int m = 0; m < c->nm && m < 8; m++) {
		uint64_t t = pk_hist_total_of(h, pk_hist_entry_event(nd->e[0]) + m, false);
		report_pct(t ? 100.0 * (double)nd->v[m * PK_HIST_NV + PK_HIST_SELF] / (double)t : 0.0);
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
	printf("%*s  %-*.*s\n", (o->nr_keys - 1) * INDENT, "", pad ? c->w[depth] : 0,
	       report_key_cut(o->keys[depth], c->w[depth]), t);
}

/* The nodes of level depth among entries e[0..n), printed with theirs. */
static void print_level(const hier_ctx *c, pk_hist_entry **e, size_t n, int depth)
{
	const pk_hist_opts *o = pk_hist_config(c->h);
	pk_hist_hnode *nodes;
	size_t nn;
	if (pk_hist_hier_level(c->h, e, n, depth, c->nm, &nodes, &nn) < 0)
		return;
	for (size_t i = 0; i < nn; i++) {
		print_line(c, &nodes[i], depth);
		if (depth + 1 < o->nr_keys) {
			print_level(c, nodes[i].e, nodes[i].n, depth + 1);
		} else if (o->use_cg && o->cg.mode != PK_HIST_CG_NONE) {
			const pk_hist_entry *le = nodes[i].e[0];
			report_cnode_print(stdout, pk_hist_entry_chain(le), &o->cg, pk_hist_total_of(c->h, pk_hist_entry_event(le), false),
				       pk_hist_entry_value(le, 0, PK_HIST_SELF), o->sym_first,
				       report_entry_whole(le, pk_hist_nr_members(c->h, pk_hist_entry_event(le)), PK_HIST_SELF), NULL);
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
