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
	const char *sep = o->field_sep;
	for (int dots = 0; dots < (sep ? 1 : 2); dots++) {
		printf("#");
		bool first = true;
		for (int i = 0; i < o->nr_out; i++) {
			pk_hist_field f = o->out[i];
			if (hidden(o, f))
				continue;
			fputs(first ? " " : sep ? sep : "  ", stdout);
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
	if (!sep) /* perf: under -t the titles alone */
		printf("#\n");
}

/* A value column's text for the entry, every member's (children without
 * call chains: perf's "N/A", once, in the member's width). */
static void value_text(char *t, size_t n, const pk_hist *h, const pk_hist_entry *e, int nm,
		       const pk_hist_value *v, bool sep)
{
	const pk_hist_opts *o = pk_hist_config(h);
	size_t l = 0;
	t[0] = 0;
	if (v->val == PK_HIST_V_CHILDREN && !o->children) {
		snprintf(t, n, "%*s%*s", v->width, "N/A", sep ? 0 : v->width * (nm - 1), "");
		return;
	}
	bool count = v->val == PK_HIST_V_SAMPLE || v->val == PK_HIST_V_PERIOD;
	if (sep) { /* perf's cell: " 1.23%" or " 123" per member */
		report_sep_values(t, n, h, e, nm, v->which, !count);
		return;
	}
	for (int m = 0; m < nm && l < n; m++)
		l += (size_t)(count ? snprintf(t + l, n - l, "%*" PRIu64, v->width,
					       pk_hist_entry_value(e, m, v->which))
				    : snprintf(t + l, n - l, "%*.2f%%", v->width - 1,
					       pk_hist_pct(h, e, m, v->which)));
}

void report_fields_row(const pk_hist *h, const pk_hist_entry *e, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	const char *sep = o->field_sep;
	int last = o->nr_out - 1; /* perf pads a column before an elided last one */
	if (!sep)
		printf("  ");
	bool first = true;
	for (int i = 0; i <= last; i++) {
		pk_hist_field f = o->out[i];
		if (hidden(o, f))
			continue;
		if (f.val == PK_HIST_V_KEY) {
			bool pad = i < last || o->keys[f.key]->pad_last;
			int kw = pad ? w[f.key] : 0;
			if (sep) {
				report_sep_key(h, e, first, f.key, w[f.key], pad);
			} else {
				char t[PK_HIST_NAME_MAX];
				pk_hist_col_text(h, e, f.key, t, sizeof(t));
				printf("%s%-*.*s", first ? "" : "  ", kw, report_key_cut(o->keys[f.key], w[f.key]),
				       t);
			}
			first = false;
			continue;
		}
		const pk_hist_value *v = pk_hist_value_of(f.val);
		char t[PK_HIST_NAME_MAX];
		value_text(t, sizeof(t), h, e, nm, v, sep);
		if (sep)
			report_sep_cell(o, first, i < last ? v->width * nm : 0, t);
		else
			printf("%s%s", first ? "" : "  ", t);
		first = false;
	}
	printf("\n");
}
