/* pmukit stat --topdown: see stat_topdown.h. The numbers come from the
 * library (pk_topdown_buckets, pk_topdown_compute_bucket); this file lays
 * them out. A node that is
 * not computable is printed as "-" (JSON null), never as 0. */
#include "stat_topdown.h"
#include "textout.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TD_MAX_NODES = 160 };

static void print_value(FILE *o, const pk_topdown_node *n, int width)
{
	if (n->computable)
		fprintf(o, "%*.1f", width, n->value);
	else
		fprintf(o, "%*s", width, "-");
}

static int col_width(const pk_topdown_node *n)
{
	return (int)strlen(n->name) + 3;
}

/* -A / --per-thread: one bucket's blocks, named "CPU3" or "comm-tid". */
typedef pk_topdown_bucket td_key;

/* The -I rows' label column: the bucket (-A, --per-thread; with the core
 * PMU on hybrid threads), else the core PMU on hybrid; its title. */
static const char *label_column(const stat_td *t)
{
	if (t->aggr == PK_AGGR_CPU)
		return "cpu";
	if (t->aggr == PK_AGGR_THREAD)
		return "thread";
	return pk_topdown_nr_blocks(t->td) > 1 ? "core" : NULL;
}

static const char *row_label(const stat_td *t, size_t b, const td_key *k, char *buf,
			     size_t len, double interval_ns)
{
	bool hybrid = pk_topdown_nr_blocks(t->td) > 1;
	if (interval_ns < 0 || !label_column(t))
		return NULL;
	if (k->key < 0)
		return pk_topdown_block_pmu(t->td, b);
	if (t->aggr == PK_AGGR_THREAD && hybrid)
		snprintf(buf, len, "%s/%s", k->label, pk_topdown_block_pmu(t->td, b));
	else
		snprintf(buf, len, "%s", k->label);
	return buf;
}

static int label_width(const stat_td *t)
{
	return t->aggr == PK_AGGR_THREAD ? 24 : 9;
}

static void human_header(FILE *o, const stat_td *t, size_t b, const pk_topdown_node *v,
			 size_t n, bool interval)
{
	fprintf(o, " %s: %s\n", pk_topdown_block_pmu(t->td, b), pk_topdown_block_title(t->td, b));
	if (pk_topdown_block_note(t->td, b))
		fprintf(o, " note: %s\n", pk_topdown_block_note(t->td, b));
	fprintf(o, "%s", interval ? "#           time " : " ");
	if (interval && label_column(t))
		fprintf(o, "%-*s ", label_width(t), label_column(t));
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%s%%  %s", i ? " " : "", v[i].name);
	fputc('\n', o);
}

static void human_row(FILE *o, const char *label, int lw, const pk_topdown_node *v, size_t n,
		      double interval_ns)
{
	if (interval_ns >= 0)
		fprintf(o, "%16.9f ", interval_ns / 1e9);
	else
		fputc(' ', o);
	if (label)
		fprintf(o, "%-*s ", lw, label);
	for (size_t i = 0; i < n; i++)
		print_value(o, &v[i], col_width(&v[i]) + (i ? 1 : 0));
	fputc('\n', o);
}

static void csv_row(const stat_printer *p, const stat_td *t, size_t b, const td_key *k,
		    const pk_topdown_node *v, size_t n, double interval_ns)
{
	FILE *o = p->out;
	for (size_t i = 0; i < n; i++) {
		if (interval_ns >= 0)
			fprintf(o, "%.9f%s", interval_ns / 1e9, p->sep);
		if (k->key >= 0) { /* a comm may hold the separator */
			out_csv_field(o, k->label, p->sep);
			fputs(p->sep, o);
		}
		if (v[i].computable)
			fprintf(o, "%.2f", v[i].value);
		/* text fields quoted when they hold the separator (RFC 4180) */
		out_csv_next(o, "%", p->sep);
		out_csv_next(o, v[i].name, p->sep);
		out_csv_next(o, pk_topdown_block_pmu(t->td, b), p->sep);
		fprintf(o, "%s%d", p->sep, v[i].level);
		out_csv_next(o, v[i].parent ? v[i].parent : "", p->sep);
		fprintf(o, "%s%.2f", p->sep, 100 * v[i].running); /* perf's running % */
		fputs(p->sep, o); /* the error bound where above the stated one */
		if (v[i].error_why && isinf(v[i].error))
			fputs("inf", o);
		else if (v[i].error_why)
			fprintf(o, "%.2f", v[i].error);
		fputc('\n', o);
	}
}

/* -j: "error" : {node : bound (pp; null: not bounded)} for the nodes whose
 * bound exceeds the stated one. */
static void json_errors(FILE *o, const pk_topdown_node *v, size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (!v[i].error_why)
			continue;
		fputs(any ? ", " : ", \"error\" : {", o);
		out_json_str(o, v[i].name);
		if (isinf(v[i].error))
			fputs(" : null", o);
		else
			fprintf(o, " : %.2f", v[i].error);
		any = true;
	}
	if (any)
		fputc('}', o);
}

/* Under a block: the nodes whose multiplexing error may exceed the stated
 * bound (pk_topdown_error_limit), with their running share and why; nodes
 * not bounded for the same reason at the same running share on one line. */
static void error_notes(FILE *o, const pk_topdown_node *v, size_t n)
{
	bool *done = calloc(n + 1, sizeof(*done));
	for (size_t i = 0; done && i < n; i++) {
		if (!v[i].error_why || done[i])
			continue;
		fprintf(o, " note: %s", v[i].name);
		for (size_t j = i + 1; isinf(v[i].error) && j < n; j++)
			if (v[j].error_why == v[i].error_why && isinf(v[j].error) &&
			    v[j].running == v[i].running) {
				fprintf(o, ", %s", v[j].name);
				done[j] = true;
			}
		fprintf(o, ": multiplexed (running %.1f%%), ", 100 * v[i].running);
		if (isinf(v[i].error))
			fprintf(o, "error not bounded (%s)\n", v[i].error_why);
		else
			fprintf(o, "error up to \u00b1%.1f pp (%s)\n", v[i].error, v[i].error_why);
	}
	free(done);
}

static void json_row(const stat_printer *p, const stat_td *t, size_t b, const td_key *k,
		     const pk_topdown_node *v, size_t n, double interval_ns)
{
	FILE *o = p->out;
	fputc('{', o);
	if (interval_ns >= 0)
		fprintf(o, "\"interval\" : %.9f, ", interval_ns / 1e9);
	if (k->key >= 0 && t->aggr == PK_AGGR_CPU)
		fprintf(o, "\"cpu\" : \"%d\", ", k->key);
	if (k->key >= 0 && t->aggr == PK_AGGR_THREAD) {
		fprintf(o, "\"thread\" : ");
		out_json_str(o, k->label);
		fprintf(o, ", ");
	}
	fputs("\"core\" : ", o);
	out_json_str(o, pk_topdown_block_pmu(t->td, b));
	fputs(", \"method\" : ", o);
	out_json_str(o, pk_topdown_block_method(t->td, b));
	for (size_t i = 0; i < n; i++) {
		fputs(", ", o);
		out_json_str(o, v[i].name);
		fputs(" : ", o);
		if (v[i].computable)
			fprintf(o, "%.2f", v[i].value);
		else
			fprintf(o, "null");
	}
	json_errors(o, v, n);
	if (p->modeled) {
		fprintf(o, ", \"modeled\" : ");
		out_json_str(o, p->modeled);
	}
	fprintf(o, "}\n");
}

/* The bottleneck's (or its nearest ancestor's) "Sample with" events as a
 * ready record line. */
static void sample_line(FILE *o, const pk_topdown_node *v, size_t n, long at)
{
	at = pk_topdown_sample_node(v, n, at);
	if (at < 0)
		return;
	fprintf(o, "  Sample with (%s): pmukit record -e ", v[at].name);
	const char *s = v[at].sample;
	for (bool first = true; *s; first = false) {
		size_t len = strcspn(s, " ");
		fprintf(o, "%s%s/%.*s", first ? "" : ",", v[at].pmu, (int)len, s);
		s += len + (s[len] == ' ');
	}
	fprintf(o, " -- <command>\n");
}

static void tree_node(FILE *o, const stat_td *t, const pk_topdown_node *n, bool mark)
{
	int indent = 2 + 4 * (n->level - 1);
	fprintf(o, "%*s%-*s", indent, "", 44 - indent, n->name);
	if (n->computable)
		fprintf(o, "%6.1f %%", n->value);
	else
		fprintf(o, "%6s %%", "-");
	if (n->threshold)
		fprintf(o, "  %-8s (%s)", n->over_threshold ? "crossed" : "below", n->threshold);
	if (n->running < 0.9995 || !n->grouped)
		fprintf(o, "  [running %.1f%%%s]", 100 * n->running, n->grouped ? "" : ", ungrouped");
	fprintf(o, "%s\n", mark ? "  <== dominant" : "");
	if (t->desc && n->description)
		fprintf(o, "%*s%s\n", indent + 4, "", n->description);
}

static void tree_print(FILE *o, const stat_td *t, size_t b, const pk_topdown_node *v, size_t n)
{
	fprintf(o, "%s %s: %s\n", b ? "\n" : "", pk_topdown_block_pmu(t->td, b),
		pk_topdown_block_title(t->td, b));
	if (pk_topdown_block_note(t->td, b))
		fprintf(o, " note: %s\n", pk_topdown_block_note(t->td, b));
	bool *mark = calloc(n + 1, sizeof(bool)), *show = calloc(n + 1, sizeof(bool));
	if (!mark || !show) {
		free(mark);
		free(show);
		return;
	}
	long last = pk_topdown_bottleneck(v, n, mark);
	size_t hidden = pk_topdown_drill_down(v, n, t->verbose, show);
	for (size_t i = 0; i < n; i++)
		if (show[i])
			tree_node(o, t, &v[i], mark[i]);
	if (hidden)
		fprintf(o, "  (%zu nodes below a parent under its threshold not shown: -v shows "
			   "them)\n", hidden);
	if (last >= 0)
		sample_line(o, v, n, last);
	error_notes(o, v, n);
	free(mark);
	free(show);
}

/* Lines saying that nothing was counted, which nodes' groups were
 * multiplexed, and which could not be counted as one group. */
static void mux_note(FILE *o, const stat_td *t, size_t b, const pk_topdown_node *v, size_t n)
{
	pk_topdown_mux m;
	pk_topdown_mux_summary(v, n, &m);
	if (!m.computable)
		fprintf(o, " (nothing counted on %s: no measured task ran there)\n",
			pk_topdown_block_pmu(t->td, b));
	if (m.multiplexed)
		fprintf(o, " note: %zu of %zu nodes were counted part of the time (multiplexed "
			   "groups, or the task ran on another core type; the least ran %.1f%%); "
			   "each group's ratios come from its own time slices (%zu groups)\n",
			m.multiplexed, n, 100 * m.least, pk_topdown_block_groups(t->td, b));
	if (m.split)
		fprintf(o, " note: %zu nodes need more events than %s has counters: their weak "
			   "groups were opened as lone events, so their ratios mix time slices and "
			   "may be off where the workload changes faster than the multiplexing "
			   "(4 ms)\n",
			m.split, pk_topdown_block_pmu(t->td, b));
}

/* Human output as a tree: --tree, --desc, or a level of 3 and more (a
 * row of 100 columns would be no use). */
static bool tree_layout(const stat_td *t)
{
	bool deep = false;
	for (size_t b = 0; b < pk_topdown_nr_blocks(t->td); b++)
		deep |= pk_topdown_block_level(t->td, b) >= 3;
	return t->tree || t->desc || deep;
}

static void print_block(stat_td *t, const stat_printer *p, size_t b, const td_key *k,
			const pk_topdown_node *v, size_t n, bool last, double interval_ns)
{
	char buf[128];
	if (p->fmt == STAT_JSON) {
		json_row(p, t, b, k, v, n, interval_ns);
	} else if (p->fmt == STAT_CSV) {
		if (t->csv_header) { /* once, naming csv_row's columns */
			const char *sep = p->sep;
			if (interval_ns >= 0)
				fprintf(p->out, "time%s", sep);
			if (k->key >= 0)
				fprintf(p->out, "%s%s", t->aggr == PK_AGGR_CPU ? "cpu" : "thread", sep);
			fprintf(p->out, "value%sunit%snode%spmu%slevel%sparent%srunning%serror\n", sep,
				sep, sep, sep, sep, sep, sep);
			t->csv_header = false;
		}
		csv_row(p, t, b, k, v, n, interval_ns);
	} else if (tree_layout(t)) {
		if (interval_ns >= 0 && b == 0)
			fprintf(p->out, "\n# time %.9f\n", interval_ns / 1e9);
		tree_print(p->out, t, b, v, n);
	} else {
		if (interval_ns < 0)
			human_header(p->out, t, b, v, n, false);
		human_row(p->out, row_label(t, b, k, buf, sizeof(buf), interval_ns), label_width(t),
			  v, n, interval_ns);
		if (interval_ns < 0)
			mux_note(p->out, t, b, v, n);
		error_notes(p->out, v, n); /* -I: the interval's estimate's */
		if (interval_ns < 0 && !last)
			fputc('\n', p->out);
	}
}

/* One bucket's blocks: computed, kept for --plot (aggregated only),
 * printed; a bucket's block without counts (a CPU of the other core type)
 * is left out, and a bucket without any block too. */
static int print_key(stat_td *t, const stat_printer *p, const pk_metric_counts *in,
		     const td_key *k, bool first, pk_topdown_node *v, double interval_ns)
{
	size_t nb = pk_topdown_nr_blocks(t->td), n[8] = {0};
	int r = pk_topdown_compute_bucket(t->td, in, k->key, v, TD_MAX_NODES, n, 8, &t->series,
					  interval_ns);
	for (size_t b = 0; b < nb && b < 8 && t->delta && k->key < 0; b++)
		(t->intervals ? pk_topdown_windows_bound_last
			      : pk_topdown_windows_bound)(t->td, b, in, t->delta, v + b * TD_MAX_NODES,
							  n[b]);
	/* -I: each block's column header once, before its first rows (with
	 * -A, at the first CPU that has the block) */
	for (size_t b = 0; b < nb && b < 8 && r == 0 && interval_ns >= 0; b++)
		if (p->fmt == STAT_HUMAN && !tree_layout(t) && n[b] && !(t->headers_done >> b & 1)) {
			human_header(p->out, t, b, v + b * TD_MAX_NODES, n[b], true);
			t->headers_done |= 1u << b;
		}
	size_t last = nb;
	for (size_t b = 0; b < nb && b < 8; b++)
		if (k->key < 0 || n[b])
			last = b;
	if (last == nb || r < 0)
		return r;
	if (k->key >= 0 && p->fmt == STAT_HUMAN && (interval_ns < 0 || tree_layout(t)))
		fprintf(p->out, "%s %s:\n", first ? "" : "\n", k->label);
	for (size_t b = 0; b < nb && b < 8; b++)
		if (k->key < 0 || n[b])
			print_block(t, p, b, k, v + b * TD_MAX_NODES, n[b], b == last, interval_ns);
	return r;
}

/* -e's events after the TopDown blocks, as plain stat prints them. */
static int print_extra(const stat_td *t, stat_printer *p, const stat_rows *rows, double wall_ns,
		       double interval_ns)
{
	stat_rows extra = {.v = calloc(rows->nr + 1, sizeof(stat_row)), .runs = rows->runs};
	if (!extra.v)
		return -ENOMEM;
	for (size_t i = 0; i < rows->nr; i++)
		if (!pk_topdown_has_evsel(t->td, rows->v[i].evsel))
			extra.v[extra.nr++] = rows->v[i];
	if (extra.nr && p->fmt == STAT_HUMAN && interval_ns < 0)
		fputc('\n', p->out);
	int r = extra.nr ? stat_print_rows(p, &extra, wall_ns, interval_ns) : 0;
	free(extra.v);
	return r;
}

int stat_td_print(stat_td *t, stat_printer *p, const stat_rows *rows, double wall_ns,
		  double interval_ns)
{
	pk_metric_count *counts;
	pk_metric_literal lit;
	pk_metric_counts in;
	if (pk_metric_counts_from_stat(rows, wall_ns, &counts, &lit, &in) < 0)
		return -ENOMEM;
	/* totals on the model: multiplexed counts from the rotation's readings */
	double *delta = NULL;
	if (t->windows && (interval_ns < 0) != t->intervals && t->aggr == PK_AGGR_GLOBAL &&
	    (delta = calloc(in.nr + 1, sizeof(*delta)))) {
		if (t->intervals) /* -I: this interval's, from the intervals so far */
			pk_topdown_windows_correct_last(t->windows, counts, in.nr, delta);
		else
			pk_topdown_windows_correct(t->windows, counts, in.nr, delta);
	}
	t->delta = delta;
	td_key *keys;
	size_t nk;
	int r = pk_topdown_buckets(t->td, rows, t->aggr, &keys, &nk);
	pk_topdown_node *v = calloc(8 * TD_MAX_NODES, sizeof(*v));
	r = v ? r : -ENOMEM;
	for (size_t i = 0; i < nk && r == 0; i++)
		r = print_key(t, p, &in, &keys[i], i == 0, v, interval_ns);
	if (r == 0)
		r = print_extra(t, p, rows, wall_ns, interval_ns);
	free(v);
	free(keys);
	free(counts);
	free(delta);
	t->delta = NULL;
	return r;
}

void stat_td_advice(const stat_printer *p)
{
	FILE *o = p->fmt == STAT_HUMAN ? p->out : stderr;
	fprintf(o, "Topdown accuracy may decrease when measuring long periods.\n"
		   "Please print the result regularly, e.g. -I1000\n");
}

void stat_td_free(stat_td *t)
{
	pk_topdown_free(t->td);
	pk_topdown_windows_free(t->windows);
	pk_topdown_series_release(&t->series);
	memset(t, 0, sizeof(*t));
}
