/* pmukit report: the histogram printed as perf report 6.1 prints it
 * (the entries of lib/hist/report_hist.c): each event's title, the column
 * heads, the rows cut to their columns' widths, the call graphs under
 * them, the closing lines. */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_keys.h"
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

static void print_title(const report *rp, int ev)
{
	int nm = rp->nr_members[ev];
	uint64_t nr = 0, period = 0;
	for (int m = 0; m < nm; m++) {
		nr += rp_total_of(rp, ev + m, true);
		period += rp_total_of(rp, ev + m, false);
	}
	/* perf 6.1: a leader of more than one is "of events", in the view
	 * of each event alone (--no-group) too */
	bool plural = nm > 1 || (rp->forced_group && ev == 0);
	for (uint32_t g = 0; rp->hdr && g < rp->hdr->nr_groups; g++)
		if ((int)rp->hdr->groups[g].leader_idx == ev && rp->hdr->groups[g].nr_members > 1)
			plural = true;
	printf("# Samples: ");
	print_count(nr);
	printf(" of event%s '", plural ? "s" : "");
	bool braces = nm > 1 && !rp->forced_group; /* perf: not around a forced group */
	if (braces)
		printf("%s { ", "anon group");
	for (int m = 0; m < nm; m++)
		printf("%s%s", m ? ", " : "", pk_pd_evsel_name(pk_session_evsel_at(rp->s, (size_t)(ev + m))));
	if (braces)
		printf(" }");
	if (!rp->mem_mode) {
		printf("'\n# Event count (approx.): %" PRIu64 "\n#\n", period);
		return;
	}
	printf("'\n# Total weight : %" PRIu64 "\n# Sort order   :", period);
	for (int k = 0; k < rp->nr_keys; k++)
		printf("%c%s", k ? ',' : ' ', rp->keys[k]->name);
	/* perf's default order ends in local_p_stage_cyc, which has no column */
	printf("%s\n#\n", rp->mem_mode_default ? ",local_p_stage_cyc" : "");
}

/* perf sizes the comm column by the length of each entry's thread's name
 * when the table is made (its last COMM), not by the names the entries
 * print (a sample's own, "perf-exec" before the exec): those are cut to the
 * width, as perf cuts them ("perf-ex"). */
static int comm_width(const report *rp, const rp_entry *e)
{
	return (int)strlen(pk_machine_comm(pk_session_machine(rp->s), e->pid, e->tid));
}

/* perf makes a trace key's text only when it compares two entries on it: a
 * sample's with an equal one (an entry of two samples or more), or two
 * entries equal in the keys before it; the column is sized with the texts
 * made by then (an entry of one sample, alone in the keys before trace,
 * keeps the title's width and is cut to it). */
static int trace_kt;
static rp_entry **trace_all;

static int prefix_cmp(const void *a, const void *b)
{
	const rp_entry *x = trace_all[*(const size_t *)a], *y = trace_all[*(const size_t *)b];
	for (int k = 0; k < trace_kt; k++) {
		int c = strcmp(x->cols[k], y->cols[k]);
		if (c)
			return c;
	}
	return 0;
}

static void trace_known(rp_entry **all, size_t n, int ev, int kt, bool *known)
{
	size_t *v = malloc((n ? n : 1) * sizeof(*v)), m = 0;
	for (size_t i = 0; i < n; i++) {
		known[i] = all[i]->v[RP_SELF_NR] > 1;
		if (v && all[i]->ev == ev)
			v[m++] = i;
	}
	if (!v)
		return;
	trace_kt = kt;
	trace_all = all;
	qsort(v, m, sizeof(*v), prefix_cmp);
	for (size_t i = 0; i + 1 < m; i++)
		if (!prefix_cmp(&v[i], &v[i + 1]))
			known[v[i]] = known[v[i + 1]] = true;
	free(v);
}

static void widths(const report *rp, rp_entry **all, size_t n, int ev, int *w)
{
	for (int k = 0; k < rp->nr_keys; k++)
		w[k] = rp_key_width_min(rp->keys[k]);
	int kt = -1;
	for (int k = 0; k < rp->nr_keys; k++)
		if (rp->keys[k]->fill == rp_keys[RP_KEY_TRACE].fill)
			kt = k;
	bool *known = kt >= 0 ? calloc(n ? n : 1, sizeof(bool)) : NULL;
	if (known)
		trace_known(all, n, ev, kt, known);
	int dso_k = -1;
	for (int k = 0; k < rp->nr_keys; k++)
		if (rp->keys[k]->fill == rp_keys[RP_KEY_DSO].fill)
			dso_k = k;
	for (size_t i = 0; i < n; i++) {
		if (all[i]->ev != ev || !rp_listed(rp, all[i]))
			continue;
		for (int k = 0; k < rp->nr_keys; k++) {
			char t[RP_NAME_MAX];
			if (rp->keys[k]->fixed_w)
				continue;
			rp_col_text(rp, all[i], k, t, sizeof(t));
			int l = rp->keys[k]->order == RP_ORD_SYM ? rp_sym_width(t) : (int)strlen(t);
			if (rp->keys[k]->fill == rp_keys[RP_KEY_COMM].fill)
				l = comm_width(rp, all[i]);
			if (k == kt && !(known && known[i]))
				l = 0; /* text not made yet: the title's width */
			if (!strcmp(rp->keys[k]->name, "cpu"))
				l = 3; /* perf's fixed width, "-001" too */
			/* perf: an entry without a symbol widens the dso column
			 * to an address's 16 digits (not under --dsos); a
			 * branch end's dso is counted only with its symbol */
			const rp_key *key = rp->keys[k];
			bool end_dso = key->unres == RP_U_MAP && key->side != RP_SIDE_ENTRY;
			bool nosym = end_dso ? all[i]->nosym_end[key->side == RP_SIDE_TO] : all[i]->nosym;
			if (end_dso && nosym)
				l = 0;
			if (nosym && (k == dso_k || end_dso) && !rp->dsos.n && l < 16)
				l = 16;
			if (l > w[k])
				w[k] = l;
		}
	}
	free(known);
}

static void print_heads(const report *rp, int nm, const int *w)
{
	for (int dots = 0; dots < 2; dots++) {
		const char *titles[4 + RP_MAX_KEYS];
		int tw[4 + RP_MAX_KEYS], nc = 0;
		bool right[4 + RP_MAX_KEYS];
		for (int c = 0; c < 4; c++)
			right[c] = true;
		if (rp->children) {
			titles[nc] = "Children";
			tw[nc++] = 8 * nm;
		}
		titles[nc] = rp->children ? "Self" : "Overhead";
		tw[nc++] = 8 * nm;
		if (rp->show_nr) {
			titles[nc] = "Samples";
			tw[nc++] = 12 * nm;
		}
		if (rp->show_period) {
			titles[nc] = "Period";
			tw[nc++] = 12 * nm;
		}
		for (int k = 0; k < rp->nr_keys; k++) {
			if (rp->hidden_cols & (1u << k))
				continue;
			right[nc] = rp->keys[k]->right;
			titles[nc] = rp->keys[k]->title;
			tw[nc++] = w[k];
		}
		printf("#");
		for (int c = 0; c < nc; c++) {
			printf(c ? "  " : " ");
			if (dots)
				for (int j = 0; j < tw[c]; j++)
					putchar('.');
			else
				printf(right[c] ? "%*s" : "%-*s", tw[c], titles[c]);
		}
		printf("\n");
	}
	printf("#\n");
}

static void print_row(const report *rp, const rp_entry *e, int nm, const int *w)
{
	printf("  ");
	if (rp->children) {
		for (int m = 0; m < nm; m++)
			printf("%7.2f%%", rp_pct(rp, e, m, RP_ACC));
		printf("  ");
	}
	for (int m = 0; m < nm; m++)
		printf("%7.2f%%", rp_pct(rp, e, m, RP_SELF));
	if (rp->show_nr) {
		printf("  ");
		for (int m = 0; m < nm; m++)
			printf("%12" PRIu64, e->v[m * RP_NV + RP_SELF_NR]);
	}
	if (rp->show_period) {
		printf("  ");
		for (int m = 0; m < nm; m++)
			printf("%12" PRIu64, e->v[m * RP_NV + RP_SELF]);
	}
	int last = rp->nr_keys - 1; /* perf pads a column before an elided last one */
	for (int k = 0; k <= last; k++) {
		if (rp->hidden_cols & (1u << k))
			continue;
		char t[RP_NAME_MAX];
		rp_col_text(rp, e, k, t, sizeof(t));
		bool pad = k < last || rp->keys[k]->pad_last;
		/* perf cuts a comm, a trace and a branch end's dso (sized
		 * by the ends with a symbol only) to the width */
		const rp_key *key = rp->keys[k];
		int cut = key->fill == rp_keys[RP_KEY_COMM].fill ||
				  key->fill == rp_keys[RP_KEY_TRACE].fill ||
				  (key->unres == RP_U_MAP && key->side != RP_SIDE_ENTRY)
			  ? w[k]
			  : (int)sizeof(t);
		printf("  %-*.*s", pad ? w[k] : 0, cut, t);
	}
	printf("\n");
}

static void print_event(const report *rp, rp_entry **all, size_t n, int ev)
{
	int nm = rp->nr_members[ev];
	int w[RP_MAX_KEYS];
	widths(rp, all, n, ev, w);
	if (!rp->quiet) {
		print_title(rp, ev);
		if (rp->hierarchy)
			rp_hier_heads(rp, nm, w);
		else if (rp->fields)
			rp_fields_heads(rp, nm, w);
		else
			print_heads(rp, nm, w);
	}
	if (rp->hierarchy) {
		rp_hier_print(rp, all, n, ev, w);
		printf("\n\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const rp_entry *e = all[i];
		if (e->ev != ev || !rp_shown(rp, e))
			continue;
		if (rp->fields)
			rp_fields_row(rp, e, nm, w);
		else
			print_row(rp, e, nm, w);
		if (rp->use_cg && rp->cg.mode != RP_CG_NONE)
			rp_cnode_print(stdout, &e->chain, &rp->cg, rp_total_of(rp, ev, false),
				       rp->children ? e->v[RP_ACC] : e->v[RP_SELF], rp->sym_first);
	}
	printf("\n\n");
}

void rp_hist_print(report *rp)
{
	size_t n;
	rp_entry **all = rp_hist_collect(rp, &n);
	if (!all)
		return;
	if (!n) {
		/* perf 6.1: no entry (filters only hide them) is an error it
		 * prints on stderr, with status 0 */
		fprintf(stderr, "Error:\nThe %s data has no samples!\n", pk_session_input(rp->s));
		free(all);
		return;
	}
	const pk_pd_stats *st = pk_pd_get_stats(pk_session_reader(rp->s));
	/* a filter of one item names it above the table, in column order,
	 * when it has a column (elided), with -q too (perf 6.1) */
	for (int i = 0; i < (rp->fields ? rp->nr_out : rp->nr_keys); i++) {
		int k = !rp->fields ? i : rp->out[i].val == RP_V_KEY ? rp->out[i].key : -1;
		const rp_list *l = NULL;
		const char *what = NULL;
		if (k >= 0 && !strcmp(rp->keys[k]->name, "comm"))
			l = &rp->comms, what = "comm";
		else if (k >= 0 && rp->keys[k]->fill == rp_keys[RP_KEY_DSO].fill)
			l = &rp->dsos, what = "dso";
		else if (k >= 0 && rp->keys[k]->order == RP_ORD_SYM)
			l = &rp->syms, what = "symbol";
		if (l && l->n == 1)
			printf("# %s: %s\n", what, l->items[0]);
	}
	if (!rp->quiet)
		printf("#\n# Total Lost Samples: %" PRIu64 "\n#\n", st->nr_lost_samples);
	for (size_t ev = 0; ev < rp->nr_ev; ev++) {
		if (rp->leader[ev] != (int)ev)
			continue;
		uint64_t nr = 0;
		for (int m = 0; m < rp->nr_members[ev]; m++)
			nr += rp->tot_nr[ev + (size_t)m];
		if (nr)
			print_event(rp, all, n, (int)ev);
	}
	if (rp->branch_view)
		rp_branch_stats_print(rp, all, n);
	free(all);
}
