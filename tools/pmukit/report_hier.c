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

/* A node's value `which` of member m: its percentage of the event's total. */
static double node_pct(const hier_ctx *c, const pk_hist_hnode *nd, int m)
{
	uint64_t t = pk_hist_total_of(c->h, pk_hist_entry_event(nd->e[0]) + m, false);
	return t ? 100.0 * (double)nd->v[m * PK_HIST_NV + PK_HIST_SELF] / (double)t : 0.0;
}

/* The line under -t: the indent, the values as the flat table's cells
 * (" 1.23% 4.56%" for a group), the key's text after the separator. */
static void print_line_sep(const hier_ctx *c, const pk_hist_hnode *nd, int depth)
{
	const pk_hist_opts *o = pk_hist_config(c->h);
	char t[PK_HIST_NAME_MAX];
	size_t l = 0;
	printf("%*s", depth * INDENT, "");
	for (int m = 0; m < c->nm && l < sizeof(t); m++)
		l += (size_t)snprintf(t + l, sizeof(t) - l, " %.2f%%", node_pct(c, nd, m));
	report_sep_cell(o, true, 8 * c->nm, t);
	for (int col = 0; col < 2; col++) {
		if (!(col ? o->show_period : o->show_nr))
			continue;
		l = 0;
		for (int m = 0; m < c->nm && l < sizeof(t); m++)
			l += (size_t)snprintf(t + l, sizeof(t) - l, " %" PRIu64,
					      nd->v[m * PK_HIST_NV + (col ? PK_HIST_SELF : PK_HIST_SELF_NR)]);
		report_sep_cell(o, false, 12 * c->nm, t);
	}
	report_sep_key(c->h, nd->e[0], false, depth, c->w[depth], o->keys[depth]->pad_last);
	printf("\n");
}

static void print_line(const hier_ctx *c, const pk_hist_hnode *nd, int depth)
{
	const pk_hist *h = c->h;
	const pk_hist_opts *o = pk_hist_config(h);
	if (o->field_sep) {
		print_line_sep(c, nd, depth);
		return;
	}
	printf("%*s  ", depth * INDENT, "");
	for (int m = 0; m < c->nm && m < 8; m++)
		report_pct(node_pct(c, nd, m));
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
				       pk_hist_entry_value(le, 0, PK_HIST_SELF), o->sym_first, NULL);
		}
	}
	free(nodes);
}

void report_hier_heads(const pk_hist *h, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	const char *sep = o->field_sep;
	/* under -t: no indent, the columns joined by the separator */
	int indent = sep ? 0 : (o->nr_keys - 1) * INDENT, keys = 0;
	int vw[3] = {8 * nm, o->show_nr ? 12 * nm : 0, o->show_period ? 12 * nm : 0};
	static const char *const vt[3] = {"Overhead", "Samples", "Period"};
	printf("# %*s", indent, "");
	for (int v = 0; v < 3; v++)
		if (vw[v])
			printf("%s%*s", v ? sep ? sep : "  " : "", vw[v], vt[v]);
	const char *gap = sep ? sep : "  ";
	int titles = printf("%s", gap) - (int)strlen(gap);
	for (int k = 0; k < o->nr_keys; k++) {
		titles += printf("%s%s", k ? " / " : "", o->keys[k]->title);
		if (k * INDENT + w[k] > keys)
			keys = k * INDENT + w[k];
	}
	if (titles > keys)
		keys = titles;
	printf("\n# ");
	for (int v = 0; v < 3; v++) { /* perf's dots run through the gaps but -t's */
		if (!vw[v])
			continue;
		if (v)
			printf("%s", sep ? sep : "..");
		for (int i = 0; i < vw[v] + (v ? 0 : indent); i++)
			putchar('.');
	}
	printf("%s", gap);
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
