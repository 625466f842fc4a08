/* pmukit report: the histogram printed as perf report 6.1 prints it
 * (the entries of lib/hist/report_hist.c): each event's title, the column
 * heads, the rows cut to their columns' widths, the call graphs under
 * them, the closing lines. */
#include "report_print.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "session_cli.h"

/* perf's sample count: "2K" past a thousand, "M", "G"; else the number
 * and a space. */
static void print_count(uint64_t n)
{
	char unit = ' ';
	if (n > 1000000000) {
		n /= 1000000000;
		unit = 'G';
	} else if (n > 1000000) {
		n /= 1000000;
		unit = 'M';
	} else if (n > 1000) {
		n /= 1000;
		unit = 'K';
	}
	printf("%" PRIu64 "%c", n, unit);
}

static void print_title(const pk_hist *h, int ev)
{
	const pk_hist_opts *o = pk_hist_config(h);
	int nm = pk_hist_nr_members(h, ev);
	uint64_t nr = 0, period = 0;
	for (int m = 0; m < nm; m++) {
		nr += pk_hist_total_of(h, ev + m, true);
		period += pk_hist_total_of(h, ev + m, false);
	}
	/* perf 6.1: a leader of more than one is "of events", in the view
	 * of each event alone (--no-group) too */
	bool plural = nm > 1 || (o->forced_group && ev == 0);
	for (uint32_t g = 0; pk_hist_header(h) && g < pk_hist_header(h)->nr_groups; g++)
		if ((int)pk_hist_header(h)->groups[g].leader_idx == ev && pk_hist_header(h)->groups[g].nr_members > 1)
			plural = true;
	printf("# Samples: ");
	print_count(nr);
	printf(" of event%s '", plural ? "s" : "");
	bool braces = nm > 1 && !o->forced_group; /* perf: not around a forced group */
	if (braces)
		printf("%s { ", "anon group");
	for (int m = 0; m < nm; m++)
		printf("%s%s", m ? ", " : "", pk_pd_evsel_name(pk_session_evsel_at(pk_hist_session(h), (size_t)(ev + m))));
	if (braces)
		printf(" }");
	printf("'");
	if (o->time_arg) /* perf names the windows as given */
		printf(" (time slices: %s)", o->time_arg);
	if (!o->mem_mode) {
		printf("\n# Event count (approx.): %" PRIu64 "\n", period);
		if (o->socket_filter >= 0)
			printf("# Processor Socket: %d\n", o->socket_filter);
		printf("#\n");
		return;
	}
	printf("\n# Total weight : %" PRIu64 "\n# Sort order   :", period);
	/* perf prints -s as given (and ipc_null it added), else its default
	 * order, which names "sym" and ends in local_p_stage_cyc (no column) */
	if (o->sort_given && o->sort_list)
		printf(" %s%s", o->sort_list, o->nr_keys > o->nr_sort_keys && !o->fields ? ",ipc_null" : "");
	for (int k = 0; !(o->sort_given && o->sort_list) && k < o->nr_keys; k++)
		printf("%c%s", k ? ',' : ' ',
		       o->mem_mode_default && !strcmp(o->keys[k]->name, "symbol") ? "sym" : o->keys[k]->name);
	printf("%s\n#\n", o->mem_mode_default ? ",local_p_stage_cyc" : "");
}

static void print_heads(const pk_hist *h, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	for (int dots = 0; dots < 2; dots++) {
		const char *titles[6 + PK_HIST_MAX_KEYS];
		int tw[6 + PK_HIST_MAX_KEYS], nc = 0;
		bool right[6 + PK_HIST_MAX_KEYS];
		for (int c = 0; c < 6; c++)
			right[c] = true;
		if (o->children) {
			titles[nc] = "Children";
			tw[nc++] = 8 * nm;
		}
		titles[nc] = o->children ? "Self" : "Overhead";
		tw[nc++] = 8 * nm;
		for (int u = 0; o->cpu_util && u < 2; u++) {
			titles[nc] = u ? "usr" : "sys";
			tw[nc++] = 8 * nm;
		}
		if (o->show_nr) {
			titles[nc] = "Samples";
			tw[nc++] = 12 * nm;
		}
		if (o->show_period) {
			titles[nc] = "Period";
			tw[nc++] = 12 * nm;
		}
		for (int k = 0; k < o->nr_keys; k++) {
			if (o->hidden_cols & (1u << k))
				continue;
			right[nc] = o->keys[k]->right;
			titles[nc] = o->keys[k]->title;
			tw[nc++] = w[k];
		}
		const char *sep = o->field_sep;
		printf("#");
		for (int c = 0; c < nc; c++) {
			fputs(c ? sep ? sep : "  " : " ", stdout);
			if (dots)
				for (int j = 0; j < tw[c]; j++)
					putchar('.');
			else
				printf(right[c] ? "%*s" : "%-*s", tw[c], titles[c]);
		}
		printf("\n");
		if (o->field_sep) /* perf: the titles alone, no rule below */
			return;
	}
	printf("#\n");
}

void report_sep_cell(const pk_hist_opts *o, bool first, int w, const char *text)
{
	printf("%s%-*s", first ? "" : o->field_sep, w, text);
}

void report_sep_values(char *t, size_t n, const pk_hist *h, const pk_hist_entry *e, int nm,
		       int which, bool pct)
{
	size_t l = 0;
	t[0] = 0;
	for (int m = 0; m < nm && l < n; m++)
		l += (size_t)(pct ? snprintf(t + l, n - l, " %.2f%%", pk_hist_pct(h, e, m, which))
				  : snprintf(t + l, n - l, " %" PRIu64, pk_hist_entry_value(e, m, which)));
}

void report_sep_key(const pk_hist *h, const pk_hist_entry *e, bool first, int k, int w, bool pad)
{
	const pk_hist_opts *o = pk_hist_config(h);
	char t[PK_HIST_NAME_MAX];
	pk_hist_col_text(h, e, k, t, sizeof(t));
	/* perf: the separator's first character inside a key's text reads
	 * as a '.', so the row splits into its columns */
	for (char *c = strchr(t, o->field_sep[0]); c && *c; c = strchr(c, o->field_sep[0]))
		*c = '.';
	printf("%s%-*.*s", first ? "" : o->field_sep, pad ? w : 0, report_key_cut(o->keys[k], w), t);
}

/* print_row's row under -t/--field-separator: the cells joined by sep. */
static void print_row_sep(const pk_hist *h, const pk_hist_entry *e, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	static const int pct[] = {PK_HIST_ACC, PK_HIST_SELF, PK_HIST_SYS, PK_HIST_US};
	bool first = true;
	char t[PK_HIST_NAME_MAX];
	for (int c = o->children ? 0 : 1; c < (o->cpu_util ? 4 : 2); c++, first = false) {
		report_sep_values(t, sizeof(t), h, e, nm, pct[c], true);
		report_sep_cell(o, first, 8 * nm, t);
	}
	for (int c = 0; c < 2; c++)
		if (c ? o->show_period : o->show_nr) {
			report_sep_values(t, sizeof(t), h, e, nm, c ? PK_HIST_SELF : PK_HIST_SELF_NR, false);
			report_sep_cell(o, false, 12 * nm, t);
		}
	int last = o->nr_keys - 1;
	for (int k = 0; k <= last; k++)
		if (!(o->hidden_cols & (1u << k)))
			report_sep_key(h, e, false, k, w[k], k < last || o->keys[k]->pad_last);
	printf("\n");
}

static void print_row(const pk_hist *h, const pk_hist_entry *e, int nm, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	if (o->field_sep) {
		print_row_sep(h, e, nm, w);
		return;
	}
	printf("  ");
	if (o->children) {
		for (int m = 0; m < nm; m++)
			report_pct(pk_hist_pct(h, e, m, PK_HIST_ACC));
		printf("  ");
	}
	for (int m = 0; m < nm; m++)
		report_pct(pk_hist_pct(h, e, m, PK_HIST_SELF));
	for (int u = 0; o->cpu_util && u < 2; u++) { /* --show-cpu-utilization */
		printf("  ");
		for (int m = 0; m < nm; m++)
			report_pct(pk_hist_pct(h, e, m, u ? PK_HIST_US : PK_HIST_SYS));
	}
	if (o->show_nr) {
		printf("  ");
		for (int m = 0; m < nm; m++)
			printf("%12" PRIu64, pk_hist_entry_value(e, m, PK_HIST_SELF_NR));
	}
	if (o->show_period) {
		printf("  ");
		for (int m = 0; m < nm; m++)
			printf("%12" PRIu64, pk_hist_entry_value(e, m, PK_HIST_SELF));
	}
	report_key_cols(h, e, w);
	printf("\n");
}

void report_pct(double p)
{
	/* p * 100 rounded to the nearest integer is printf's "%.2f" unless the
	 * product is near a half (where printf rounds the exact binary value
	 * and the product's own rounding could decide it): printf there, and
	 * for negative, huge or odd values */
	double x = p * 100.0;
	if (!(x >= 0.0 && x < 1e9) || signbit(x)) {
		printf("%7.2f%%", p);
		return;
	}
	uint64_t whole = (uint64_t)x;
	double frac = x - (double)whole;
	if (frac > 0.5 - 1e-6 && frac < 0.5 + 1e-6) {
		printf("%7.2f%%", p);
		return;
	}
	whole += frac > 0.5;
	char b[32], *q = b + sizeof(b);
	*--q = '%';
	*--q = (char)('0' + whole % 10);
	*--q = (char)('0' + whole / 10 % 10);
	*--q = '.';
	whole /= 100;
	do
		*--q = (char)('0' + whole % 10);
	while (whole /= 10);
	while (b + sizeof(b) - q < 8) /* "%7.2f%%": 7 columns and the '%' */
		*--q = ' ';
	fwrite(q, 1, (size_t)(b + sizeof(b) - q), stdout);
}

/* printf("  %-*.*s", w, cut, t) without printf: a row's column (the
 * table's hot path: a printf per column was most of its printing). */
static void put_col(const char *t, int w, int cut)
{
	static const char blanks[] = "                                                                ";
	size_t l = strnlen(t, (size_t)cut);
	fwrite("  ", 1, 2, stdout);
	fwrite(t, 1, l, stdout);
	for (int pad = w - (int)l; pad > 0; pad -= (int)sizeof(blanks) - 1)
		fwrite(blanks, 1, pad < (int)sizeof(blanks) - 1 ? (size_t)pad : sizeof(blanks) - 1, stdout);
}

void report_key_cols(const pk_hist *h, const pk_hist_entry *e, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	int last = o->nr_keys - 1; /* perf pads a column before an elided last one */
	for (int k = 0; k <= last; k++) {
		if (o->hidden_cols & (1u << k))
			continue;
		char t[PK_HIST_NAME_MAX];
		pk_hist_col_text(h, e, k, t, sizeof(t));
		bool pad = k < last || o->keys[k]->pad_last;
		put_col(t, pad ? w[k] : 0, report_key_cut(o->keys[k], w[k]));
	}
}

int report_key_cut(const pk_hist_key *key, int w)
{
	/* perf cuts a comm, a trace and a branch end's dso (sized by the
	 * ends with a symbol only) to the width */
	bool cut = !strcmp(key->name, "comm") || !strcmp(key->name, "trace") ||
		   (key->unres == PK_HIST_U_MAP && key->side != PK_HIST_SIDE_ENTRY);
	return cut ? w : PK_HIST_NAME_MAX;
}

static void print_event(const pk_hist *h, pk_hist_entry **all, size_t n, int ev)
{
	const pk_hist_opts *o = pk_hist_config(h);
	int nm = pk_hist_nr_members(h, ev);
	int w[PK_HIST_MAX_KEYS];
	pk_hist_widths(h, all, n, ev, w);
	if (!o->quiet) {
		print_title(h, ev);
		if (o->hierarchy)
			report_hier_heads(h, nm, w);
		else if (o->fields)
			report_fields_heads(h, nm, w);
		else
			print_heads(h, nm, w);
	}
	if (o->hierarchy) {
		report_hier_print(h, all, n, ev, w);
		printf("\n\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const pk_hist_entry *e = all[i];
		if (pk_hist_entry_event(e) != ev || !pk_hist_shown(h, e))
			continue;
		if (o->fields)
			report_fields_row(h, e, nm, w);
		else
			print_row(h, e, nm, w);
		if (o->use_cg && o->cg.mode != PK_HIST_CG_NONE)
			report_cnode_print(stdout, pk_hist_entry_chain(e), &o->cg, pk_hist_total_of(h, ev, false),
				       pk_hist_entry_value(e, 0, o->children ? PK_HIST_ACC : PK_HIST_SELF), o->sym_first,
				       o->field_sep);
	}
	printf("\n\n");
}

bool report_hist_print(pk_hist *h)
{
	const pk_hist_opts *o = pk_hist_config(h);
	size_t n;
	pk_hist_entry **all = pk_hist_collect(h, &n);
	if (!all)
		return false;
	/* a filter of one item names it above the table, in column order,
	 * when it has a column (elided), with -q too, and before a file without samples (perf 6.1) */
	for (int i = 0; i < (o->fields ? o->nr_out : o->nr_keys); i++) {
		int k = !o->fields ? i : o->out[i].val == PK_HIST_V_KEY ? o->out[i].key : -1;
		const char *what;
		const pk_hist_list *l = pk_hist_key_filter(o, k, &what);
		if (l && l->n == 1)
			printf("# %s: %s\n", what, l->items[0]);
	}
	if (!n) {
		/* perf 6.1: no entry (filters only hide them) is an error it
		 * prints on stderr, with status 0 */
		fprintf(stderr, "Error:\nThe %s data has no samples!\n", pk_session_input(pk_hist_session(h)));
		free(all);
		return false;
	}
	const pk_pd_stats *st = pk_pd_get_stats(pk_session_reader(pk_hist_session(h)));
	if (!o->quiet)
		printf("#\n# Total Lost Samples: %" PRIu64 "\n#\n", st->nr_lost_samples);
	for (size_t ev = 0; ev < pk_hist_nr_events(h); ev++) {
		if (pk_hist_leader(h, ev) != (int)ev)
			continue;
		uint64_t nr = 0;
		for (int m = 0; m < pk_hist_nr_members(h, ev); m++)
			nr += pk_hist_nr_samples(h, ev + (size_t)m);
		if (nr)
			print_event(h, all, n, (int)ev);
	}
	if (o->branch_view)
		report_branch_stats_print(h, all, n);
	free(all);
	return true;
}
