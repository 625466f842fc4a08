/* pmukit stat output, in the layout perf 6.1 prints: human columns, CSV
 * (-x) with perf's columns, JSON lines (-j) with perf's keys. */
#include "stat_print.h"
#include "textout.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Rows --------------------------------------------------------------- */

int stat_rows_collect(stat_rows *rows, pk_counting *c, pk_aggr_mode aggr, bool delta)
{
	pk_evlist *l = pk_counting_evlist(c);
	size_t n = 0, cap = 0;
	stat_row *v = NULL;
	for (size_t i = 0; i < pk_evlist_count(l); i++) {
		int nb = pk_counting_nr_aggr(c, i, aggr);
		for (int b = 0; b < nb; b++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				stat_row *nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			stat_row *r = &v[n++];
			memset(r, 0, sizeof(*r));
			r->evsel = pk_evlist_at(l, i);
			r->name = pk_counting_name(c, i);
			r->status = pk_counting_status(c, i);
			pk_counting_aggr(c, i, aggr, b, delta, &r->counts, &r->key);
			if (aggr == PK_AGGR_THREAD)
				snprintf(r->comm, sizeof(r->comm), "%s",
					 pk_threadmap_comm(pk_counting_threads(c), b));
		}
	}
	stat_rows_free(rows);
	rows->v = v;
	rows->nr = n;
	rows->runs = 1;
	return 0;
}

int stat_rows_accumulate(stat_rows *acc, const stat_rows *run)
{
	if (!acc->v) {
		acc->v = calloc(run->nr ? run->nr : 1, sizeof(*acc->v));
		if (!acc->v)
			return -ENOMEM;
		acc->nr = run->nr;
		for (size_t i = 0; i < run->nr; i++) {
			acc->v[i] = run->v[i];
			memset(&acc->v[i].counts, 0, sizeof(acc->v[i].counts));
		}
	}
	if (acc->nr != run->nr)
		return -EINVAL;
	for (size_t i = 0; i < run->nr; i++) {
		stat_row *a = &acc->v[i];
		const stat_row *r = &run->v[i];
		pk_scaled s;
		a->counts.val += r->counts.val;
		a->counts.ena += r->counts.ena;
		a->counts.run += r->counts.run;
		/* an event that failed in any run is shown as failed */
		if (r->status != PK_OPEN_OK)
			a->status = r->status;
		pk_counts_scale(&r->counts, &s);
		pk_runstats_add(&a->noise, s.value);
	}
	acc->runs++;
	return 0;
}

void stat_rows_free(stat_rows *rows)
{
	free(rows->v);
	rows->v = NULL;
	rows->nr = 0;
	rows->runs = 0;
}

/* ---- Numbers ------------------------------------------------------------ */

void stat_format_num(char *buf, size_t len, double v, int decimals, bool big_num)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
	if (!big_num) {
		snprintf(buf, len, "%s", tmp);
		return;
	}
	const char *p = tmp;
	size_t o = 0;
	if (*p == '-' && o + 1 < len)
		buf[o++] = *p++;
	size_t digits = strspn(p, "0123456789");
	for (size_t i = 0; i < digits && o + 1 < len; i++) {
		buf[o++] = p[i];
		size_t left = digits - i - 1;
		if (left && left % 3 == 0 && o + 1 < len)
			buf[o++] = ',';
	}
	snprintf(buf + o, len - o, "%s", p + digits);
}

/* ---- Event units and metrics ------------------------------------------- */

/* perf shows the software clocks in msec (counted in ns). */
static bool is_clock(const pk_evsel *e)
{
	return pk_evsel_attr(e)->type == PERF_TYPE_SOFTWARE && (pk_evsel_attr(e)->config == PERF_COUNT_SW_TASK_CLOCK ||
						      pk_evsel_attr(e)->config == PERF_COUNT_SW_CPU_CLOCK);
}

const char *stat_evsel_unit(const pk_evsel *e, double *scale)
{
	if (is_clock(e)) {
		*scale = 1e-6; /* ns counted, msec shown */
		return "msec";
	}
	double s = pk_evsel_scale(e);
	*scale = s > 0 ? s : 1.0;
	return pk_evsel_unit(e) ? pk_evsel_unit(e) : "";
}

static double row_value(const stat_row *r, int runs)
{
	pk_scaled s;
	pk_counts_scale(&r->counts, &s);
	return s.value / (runs > 1 ? runs : 1);
}

/* What is printed after a count: the engine's shadow metric, if any. */
typedef struct metric {
	bool have;
	double value;
	pk_metric_style style;
	const char *unit;          /* without a value: what JSON names (perf's "(null)": none) */
} metric;

/* A count's metric lines: its metric, then the engine's further lines
 * (PK_METRIC_NEW_LINE rows: "stalled cycles per insn" under the IPC). */
enum { MAX_METRIC_LINES = 4 };
typedef struct metric_lines {
	metric v[MAX_METRIC_LINES];
	size_t nr;                 /* 1 + the further lines */
} metric_lines;

/* The separators perf puts before a further line's value in CSV: its
 * count, unit and event columns and one per aggregation column. */
static int csv_line_fields(pk_aggr_mode aggr)
{
	return 3 + (aggr == PK_AGGR_CPU || aggr == PK_AGGR_THREAD);
}

/* The metric's value in perf's eight human columns. */
static int format_metric(const metric *m, char *buf, size_t len)
{
	return pk_metric_format(m->style, m->value, buf, len);
}

int stat_rows_metric_counts(const stat_rows *rows, double wall_ns, pk_metric_count **out,
			    pk_metric_literal *lit, pk_metric_counts *in)
{
	pk_metric_count *v = calloc(rows->nr ? rows->nr : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < rows->nr; i++) {
		const stat_row *r = &rows->v[i];
		v[i] = (pk_metric_count){.evsel = r->evsel, .key = r->key,
					 .value = row_value(r, rows->runs),
					 .counted = r->status == PK_OPEN_OK && r->counts.run,
					 .running = r->counts.ena ? (double)r->counts.run /
									(double)r->counts.ena : 0};
	}
	*lit = (pk_metric_literal){.name = "#wall_ns", .value = wall_ns};
	*in = (pk_metric_counts){.v = v, .nr = rows->nr, .lit = lit, .nr_lit = wall_ns > 0};
	*out = v;
	return 0;
}

static void compute_metrics(const stat_printer *p, const pk_metric_table *t,
			    const pk_metric_counts *in, size_t idx, metric_lines *ml)
{
	pk_metric_value mv;
	memset(ml, 0, sizeof(*ml));
	ml->nr = 1;
	ml->v[0].unit = "(null)"; /* perf 6.1's JSON when no row matched */
	const char *label;
	int vr = p->vendor_metric ? p->vendor_metric(p->vendor_arg, in, idx, &mv, &label) : 0;
	if (vr) {
		ml->v[0] = (metric){.have = vr > 0, .value = vr > 0 ? mv.value : 0,
				    .style = vr > 0 ? mv.def->style : PK_METRIC_SCALED, .unit = label};
		return;
	}
	if (!t)
		return;
	int have = pk_metric_shadow(t, in, idx, &mv);
	if (mv.def)
		ml->v[0] = (metric){.have = have, .value = mv.value, .style = mv.def->style,
				    .unit = mv.unit};
	for (size_t pos = 0; ml->nr < MAX_METRIC_LINES && pk_metric_shadow_line(t, in, idx, &pos, &mv);)
		ml->v[ml->nr++] = (metric){.have = true, .value = mv.value, .style = mv.def->style,
					   .unit = mv.unit};
}

/* ---- Printing ----------------------------------------------------------- */

static const char *status_text(const stat_row *r)
{
	if (r->status == PK_OPEN_UNSUPPORTED)
		return "<not supported>";
	if (r->status != PK_OPEN_OK || !r->counts.run)
		return "<not counted>";
	return NULL;
}

static const char *row_name(const stat_row *r)
{
	return r->name ? r->name : "?";
}

static double running_pct(const pk_counts *c)
{
	return c->ena ? 100.0 * (double)c->run / (double)c->ena : 100.0;
}

/* Seconds with nanoseconds; the text forms pad to perf's column. */
static void print_interval_prefix(FILE *o, double ns, bool pad, const char *tail)
{
	unsigned long long t = (unsigned long long)(ns < 0 ? 0 : ns);
	fprintf(o, "%*llu.%09llu%s", pad ? 6 : 0, t / 1000000000ull, t % 1000000000ull, tail);
}

/* The metric value as CSV wants it: the human format's digits, trimmed. */
static void metric_plain(const metric *m, char *buf, size_t len)
{
	char tmp[64];
	format_metric(m, tmp, sizeof(tmp));
	const char *p = tmp;
	while (*p == ' ')
		p++;
	size_t n = strspn(p, "-0123456789.");
	snprintf(buf, len, "%.*s", (int)n, p);
}

/* What every form prints of a row: its unit and scale, its status text
 * (NULL: counted). */
typedef struct row_head {
	double scale;
	const char *unit;
	const char *st;
} row_head;

static row_head row_head_of(const stat_row *r)
{
	row_head h;
	h.unit = stat_evsel_unit(r->evsel, &h.scale);
	h.st = status_text(r);
	return h;
}

/* The start of a JSON line: the interval and the aggregation keys. */
static void json_line_start(stat_printer *p, const stat_row *r, double interval_ns)
{
	FILE *o = p->out;
	fputc('{', o);
	if (interval_ns >= 0) {
		fprintf(o, "\"interval\" : ");
		print_interval_prefix(o, interval_ns, false, ", ");
	}
	if (p->aggr == PK_AGGR_CPU)
		fprintf(o, "\"cpu\" : \"%d\", ", r->key);
	else if (p->aggr == PK_AGGR_THREAD) {
		char t[64];
		snprintf(t, sizeof(t), "%s-%d", r->comm, r->key);
		fprintf(o, "\"thread\" : ");
		out_json_str(o, t);
		fprintf(o, ", ");
	}
}

static void json_metric(FILE *o, const metric *m)
{
	fprintf(o, "\"metric-value\" : %f, \"metric-unit\" : ", m->have ? m->value : 0.0);
	out_json_str(o, m->unit ? m->unit : "");
}

static void print_row_json(stat_printer *p, const stat_row *r, const metric_lines *ml,
			   double interval_ns)
{
	FILE *o = p->out;
	row_head h = row_head_of(r);
	json_line_start(p, r, interval_ns);
	fprintf(o, "\"counter-value\" : ");
	if (h.st) {
		out_json_str(o, h.st);
	} else {
		fprintf(o, "\"%f\"", row_value(r, p->runs) * h.scale);
	}
	fprintf(o, ", \"unit\" : ");
	out_json_str(o, h.unit);
	fprintf(o, ", \"event\" : ");
	out_json_str(o, row_name(r));
	if (p->runs > 1 && !h.st)
		fprintf(o, ", \"variance\" : %.2f", pk_runstats_rel_pct(&r->noise));
	fprintf(o, ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, ",
		(unsigned long long)(h.st ? 0 : r->counts.run / (uint64_t)(p->runs > 1 ? p->runs : 1)),
		running_pct(&r->counts));
	/* an uncounted event names no unit (perf's pm(..., "", 0)) */
	json_metric(o, h.st ? &(metric){.unit = ""} : &ml->v[0]);
	if (p->modeled) {
		fprintf(o, ", \"modeled\" : ");
		out_json_str(o, p->modeled);
	}
	fprintf(o, "}\n");
	for (size_t k = 1; k < ml->nr; k++) {
		json_line_start(p, r, interval_ns);
		json_metric(o, &ml->v[k]);
		fprintf(o, "}\n");
	}
}

/* The start of a CSV line: the interval and the aggregation column (a
 * comm may hold the separator: quoted then, RFC 4180). */
static void csv_line_start(stat_printer *p, const stat_row *r, double interval_ns)
{
	FILE *o = p->out;
	if (interval_ns >= 0)
		print_interval_prefix(o, interval_ns, true, p->sep);
	if (p->aggr == PK_AGGR_CPU) {
		fprintf(o, "CPU%d%s", r->key, p->sep);
	} else if (p->aggr == PK_AGGR_THREAD) {
		char who[96];
		snprintf(who, sizeof(who), "%s-%d", r->comm, r->key);
		out_csv_field(o, who, p->sep);
		fputs(p->sep, o);
	}
}

static void print_row_csv(stat_printer *p, const stat_row *r, const metric_lines *ml,
			  double interval_ns)
{
	FILE *o = p->out;
	const char *sep = p->sep;
	row_head h = row_head_of(r);
	char mv[64];
	csv_line_start(p, r, interval_ns);
	/* text fields (a status, the unit, the event's name, a metric's unit)
	 * quoted when they hold the separator, RFC 4180; perf 6.1 writes them
	 * as they are */
	if (h.st)
		out_csv_field(o, h.st, sep);
	else
		fprintf(o, "%.*f", h.scale != 1.0 ? 2 : 0, row_value(r, p->runs) * h.scale);
	out_csv_next(o, h.unit, sep);
	out_csv_next(o, row_name(r), sep);
	if (p->runs > 1)
		fprintf(o, "%s%.2f%%", sep, h.st ? 0.0 : pk_runstats_rel_pct(&r->noise));
	fprintf(o, "%s%llu%s%.2f", sep,
		(unsigned long long)(h.st ? 0 : r->counts.run / (uint64_t)(p->runs > 1 ? p->runs : 1)),
		sep, running_pct(&r->counts));
	if (ml->v[0].have) {
		metric_plain(&ml->v[0], mv, sizeof(mv));
		fprintf(o, "%s%s", sep, mv);
		out_csv_next(o, ml->v[0].unit ? ml->v[0].unit : "", sep);
		fputc('\n', o);
	} else {
		fprintf(o, "%s%s\n", sep, sep);
	}
	for (size_t k = 1; k < ml->nr; k++) {
		csv_line_start(p, r, interval_ns);
		for (int f = 0; f < csv_line_fields(p->aggr); f++)
			fputs(sep, o);
		metric_plain(&ml->v[k], mv, sizeof(mv));
		fprintf(o, "%s%s", sep, mv);
		out_csv_next(o, ml->v[k].unit ? ml->v[k].unit : "", sep);
		fputc('\n', o);
	}
}

/* The start of a human line: the interval and the aggregation column. */
static void human_line_start(stat_printer *p, const stat_row *r, double interval_ns)
{
	FILE *o = p->out;
	if (interval_ns >= 0)
		print_interval_prefix(o, interval_ns, true, " ");
	if (p->aggr == PK_AGGR_CPU)
		fprintf(o, "CPU%-7d ", r->key);
	else if (p->aggr == PK_AGGR_THREAD)
		fprintf(o, "%16s-%-8d ", r->comm, r->key);
}

/* perf's metric column: " # <value> <unit>" in 35 characters, or 35 blanks. */
static void human_metric(FILE *o, const metric *m)
{
	if (!m->have) {
		fprintf(o, "%-35s", "");
		return;
	}
	int n = fprintf(o, " # ");
	char mv[64];
	n += format_metric(m, mv, sizeof(mv));
	fputs(mv, o);
	fprintf(o, " %-*s", 35 - n - 1, m->unit);
}

static void print_row_human(stat_printer *p, const stat_row *r, const metric_lines *ml,
			    double interval_ns)
{
	FILE *o = p->out;
	row_head h = row_head_of(r);
	char val[64];
	human_line_start(p, r, interval_ns);
	if (h.st) {
		/* perf's line of an event without a count: the name in 25 */
		fprintf(o, "%18s %-4s %-25s%-35s", h.st, h.unit, row_name(r), "");
		if (r->counts.run != r->counts.ena)
			fprintf(o, "  (%.2f%%)", running_pct(&r->counts));
		fputc('\n', o);
		return;
	}
	stat_format_num(val, sizeof(val), row_value(r, p->runs) * h.scale, h.scale != 1.0 ? 2 : 0,
			p->big_num);
	fprintf(o, "%18s %-4s %-32s", val, h.unit, row_name(r));
	human_metric(o, &ml->v[0]);
	for (size_t k = 1; k < ml->nr; k++) {
		/* a further line: perf's new line, blank up to the metric column */
		fputc('\n', o);
		human_line_start(p, r, interval_ns);
		fprintf(o, "%s%49s", p->aggr == PK_AGGR_CPU ? "        " : "", "");
		human_metric(o, &ml->v[k]);
	}
	if (p->runs > 1)
		fprintf(o, "  ( +- %5.2f%% )", pk_runstats_rel_pct(&r->noise));
	if (r->counts.run < r->counts.ena)
		fprintf(o, "  (%.2f%%)", running_pct(&r->counts));
	fputc('\n', o);
}

void stat_print_header(stat_printer *p, const char *target, int runs)
{
	if (p->fmt != STAT_HUMAN)
		return;
	fprintf(p->out, "\n Performance counter stats for %s", target);
	if (runs > 1)
		fprintf(p->out, " (%d runs)", runs);
	fprintf(p->out, ":\n\n");
}

static void print_interval_header(stat_printer *p)
{
	/* perf repeats the column header every 25 intervals */
	if (p->fmt != STAT_HUMAN || p->interval_lines++ % 25)
		return;
	static const char *const heads[] = {
		[PK_AGGR_GLOBAL] = "#           time             counts unit events",
		[PK_AGGR_CPU] = "#           time CPU                    counts unit events",
		[PK_AGGR_THREAD] = "#           time             comm-pid                  counts unit events",
	};
	fprintf(p->out, "%s\n", heads[p->aggr]);
}

int stat_print_rows(stat_printer *p, const stat_rows *rows, double wall_ns, double interval_ns)
{
	pk_metric_count *counts;
	pk_metric_literal lit;
	pk_metric_counts in;
	if (!p->metrics) {
		p->metrics = pk_metric_table_stat(NULL);
		if (!p->metrics)
			return -ENOMEM;
	}
	if (stat_rows_metric_counts(rows, wall_ns, &counts, &lit, &in) < 0)
		return -ENOMEM;
	if (interval_ns >= 0)
		print_interval_header(p);
	for (size_t i = 0; i < rows->nr; i++) {
		const stat_row *r = &rows->v[i];
		metric_lines ml;
		compute_metrics(p, p->metrics, &in, i, &ml);
		if (p->fmt == STAT_JSON)
			print_row_json(p, r, &ml, interval_ns);
		else if (p->fmt == STAT_CSV)
			print_row_csv(p, r, &ml, interval_ns);
		else
			print_row_human(p, r, &ml, interval_ns);
	}
	free(counts);
	return 0;
}

void stat_printer_free(stat_printer *p)
{
	pk_metric_table_free(p->metrics);
	p->metrics = NULL;
}

/* perf shows the mean to two digits past the first significant digit of
 * its standard deviation. */
static int noise_precision(double sd)
{
	if (sd <= 0)
		return 9;
	int digits = (int)-floor(log10(sd));
	digits = digits < 0 ? 0 : digits + 2;
	return digits > 9 ? 9 : digits;
}

void stat_print_footer(stat_printer *p, const pk_runstats *elapsed, double user_s, double sys_s)
{
	if (p->fmt != STAT_HUMAN)
		return;
	FILE *o = p->out;
	fputc('\n', o);
	if (elapsed->n > 1) {
		double sd = pk_runstats_stddev_mean(elapsed);
		int prec = noise_precision(sd);
		fprintf(o, " %17.*f +- %.*f seconds time elapsed  ( +- %5.2f%% )\n\n", prec,
			elapsed->mean, prec, sd, pk_runstats_rel_pct(elapsed));
		return;
	}
	fprintf(o, " %17.9f seconds time elapsed%s\n\n", elapsed->mean,
		p->modeled ? " (modeled)" : "");
	if (user_s >= 0 && sys_s >= 0)
		fprintf(o, " %17.9f seconds user\n %17.9f seconds sys\n\n", user_s, sys_s);
	fputc('\n', o);
}
