/* pmukit report -F/--fields: the titles and rows of the columns perf
 * report 6.1 prints when they are named (pk_hist_opts_fields sets them
 * and the order it then sorts in).
 *
 * perf's rules: the columns are -F's list ("+list": after the default
 * "overhead"), then the -s keys not in it. The order is by the -s keys,
 * then by the columns not among them, in their order; without -s, by the
 * columns alone (so "-F sym" sorts by name). The entries are made by the
 * sort keys of both lists. Value columns sort high first: overhead (the
 * period), overhead_sys/_us/_guest_sys/_guest_us (the period of kernel,
 * user, guest kernel, guest user samples), sample, period; overhead_children
 * prints N/A without call chains; in the group view each member has its
 * value. -n and --show-total-period add nothing under -F, as in perf.
 * "+list" keeps the default keys, and the order starts with overhead. */
#include "report_print.h"

#include <inttypes.h>
#include <string.h>

static bool hidden(const pk_hist_opts *o, pk_hist_field f)
{
	return f.val == PK_HIST_V_KEY && (o->hidden_cols & (1u << f.key));
}

void report_fields_heads(const pk_hist *h, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	for (int dots = 0; dots < 2; dots++) {
		printf("#");
		bool first = true;
		for (int i = 0; i < o->nr_out; i++) {
			pk_hist_field f = o->out[i];
			if (hidden(o, f))
				continue;
			printf(first ? " " : "  ");
			first = false;
			bool key = f.val == PK_HIST_V_KEY;
			int width = key ? w[f.key] : pk_hist_value_of(f.val)->width * nm;
			const char *title = key ? o->keys[f.key]->title : pk_hist_value_of(f.val)->title;
			if (dots)
				for (int j = 0; j < width; j++)
					putchar('.');
			else
				printf(key && !o->keys[f.key]->right ? "%-*s" : "%*s", width, title);
		}
		printf("\n");
	}
	printf("#\n");
}

void report_fields_row(const pk_hist *h, const pk_hist_entry *e, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	int last = o->nr_out - 1; /* perf pads a column before an elided last one */
	printf("  ");
	bool first = true;
	for (int i = 0; i <= last; i++) {
		pk_hist_field f = o->out[i];
		if (hidden(o, f))
			continue;
		printf(first ? "" : "  ");
		first = false;
		if (f.val == PK_HIST_V_KEY) {
			char t[PK_HIST_NAME_MAX];
			pk_hist_col_text(h, e, f.key, t, sizeof(t));
			bool pad = i < last || o->keys[f.key]->pad_last;
			printf("%-*s", pad ? w[f.key] : 0, t);
			continue;
		}
		const pk_hist_value *v = pk_hist_value_of(f.val);
		int wv = v->width; /* per group member */
		for (int m = 0; m < nm; m++)
			if (f.val == PK_HIST_V_SAMPLE || f.val == PK_HIST_V_PERIOD)
				printf("%*" PRIu64, wv, pk_hist_entry_value(e, m, v->which));
			else if (f.val == PK_HIST_V_CHILDREN && !o->children)
				printf("%*s", wv, m ? "" : "N/A");
			else
				printf("%*.2f%%", wv - 1, pk_hist_pct(h, e, m, v->which));
	}
	printf("\n");
}
