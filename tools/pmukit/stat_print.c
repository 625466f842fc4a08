/* pmukit stat output, in the layout perf 6.1 prints: human columns, CSV
 * (-x) with perf's columns, JSON lines (-j) with perf's keys. */
#include "stat_print.h"
#include "textout.h"

#include <pmukit/util.h>

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Numbers ------------------------------------------------------------ */

const char *stat_thousands_sep(void)
{
	static char sep[8];
	static bool done;
	if (!done) {
		locale_t l = newlocale(LC_NUMERIC_MASK, "", (locale_t)0);
		if (l) {
			snprintf(sep, sizeof(sep), "%s", nl_langinfo_l(THOUSEP, l));
			freelocale(l);
		}
		done = true;
	}
	return sep;
}

void stat_format_num(char *buf, size_t len, double v, int decimals, const char *sep)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
	if (!sep || !*sep) {
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
		for (const char *c = sep; left && left % 3 == 0 && *c && o + 1 < len; c++)
			buf[o++] = *c;
	}
	snprintf(buf + o, len - o, "%s", p + digits);
}

/* ---- Event units and metrics ------------------------------------------- */

/* What is printed after a count, and the further lines: the metrics
 * engine's (pk_metric_stat_lines). */
typedef pk_metric_line metric;
typedef pk_metric_lines metric_lines;

/* The separators perf puts before a further line's value in CSV: its
 * count, unit and event columns and one per aggregation column. */
static int csv_line_fields(const stat_printer *p)
{
	return 3 + (p->aggr == PK_AGGR_CPU || p->aggr == PK_AGGR_THREAD) + 2 * (p->per != PK_STAT_PER_NONE);
}

/* ---- Printing ----------------------------------------------------------- */

/* A vendor metric's value field when its events could not be counted. */
#define NOT_COMPUTED "<not computed>"

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
	pk_metric_format(m->style, m->value, tmp, sizeof(tmp));
	const char *p = tmp;
	while (*p == ' ')
		p++;
	/* perf 6.1 keeps the leading digits and dots: a negative value is
	 * printed as an empty field */
	size_t n = strspn(p, "0123456789.");
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
	h.unit = pk_evsel_display_unit(r->evsel, &h.scale);
	h.st = status_text(r);
	return h;
}

/* --per-*: JSON's key of the bucket */
static const char *const per_key[] = {
	[PK_STAT_PER_CORE] = "core", [PK_STAT_PER_DIE] = "die", [PK_STAT_PER_SOCKET] = "socket",
	[PK_STAT_PER_NODE] = "node"};

/* --per-*: the bucket as perf names it ("S0-D0-C1", "S0-D0", "S0", "N0"). */
static void per_label(const stat_row *r, pk_stat_per per, char *buf, size_t len)
{
	if (per == PK_STAT_PER_CORE)
		snprintf(buf, len, "S%d-D%d-C%d", r->socket, r->die, r->id);
	else if (per == PK_STAT_PER_DIE)
		snprintf(buf, len, "S%d-D%d", r->socket, r->die);
	else if (per == PK_STAT_PER_SOCKET)
		snprintf(buf, len, "S%d", r->socket);
	else
		snprintf(buf, len, "N%d", r->id);
}

/* --per-*: the bucket and its CPU count, as perf 6.1's columns (text:
 * the last id left-aligned in 8, or 5 for socket and node, the count in
 * 4; CSV: two fields). */
static void per_columns(FILE *o, const stat_row *r, pk_stat_per per, bool csv, const char *sep)
{
	char label[64];
	per_label(r, per, label, sizeof(label));
	int w = per == PK_STAT_PER_CORE || per == PK_STAT_PER_DIE ? 8 : 5;
	int head = 0; /* up to the last letter: the number after it is padded */
	for (int c = 0; label[c]; c++)
		if (label[c] >= 'A' && label[c] <= 'Z')
			head = c + 1;
	fprintf(o, "%.*s%-*s%s%*d%s", head, label, csv ? 0 : w, label + head, sep, csv ? 0 : 4,
		r->nr_cpus, sep);
}

/* The start of a JSON line's object: the interval and the bucket as its
 * first pairs; false when it has any. */
static bool json_only_start(stat_printer *p, const stat_row *r, double interval_ns)
{
	FILE *o = p->out;
	fputc('{', o);
	if (interval_ns >= 0) {
		fprintf(o, "\"interval\" : ");
		print_interval_prefix(o, interval_ns, false, "");
	}
	const char *sep = interval_ns >= 0 ? ", " : "";
	if (p->per) {
		char label[64];
		per_label(r, p->per, label, sizeof(label));
		fprintf(o, "%s\"%s\" : \"%s\", \"aggregate-number\" : %d", sep, per_key[p->per],
			label, r->nr_cpus);
	} else if (p->aggr == PK_AGGR_CPU) {
		fprintf(o, "%s\"cpu\" : \"%d\"", sep, r->key);
	} else if (p->aggr == PK_AGGR_THREAD) {
		char t[64];
		snprintf(t, sizeof(t), "%s-%d", r->comm, r->key);
		fprintf(o, "%s\"thread\" : ", sep);
		out_json_str(o, t);
	}
	return interval_ns < 0 && p->aggr == PK_AGGR_GLOBAL && !p->per;
}

/* The start of a JSON line: the interval and the aggregation keys, each
 * followed by ", ". */
static void json_line_start(stat_printer *p, const stat_row *r, double interval_ns)
{
	if (!json_only_start(p, r, interval_ns))
		fputs(", ", p->out);
}

/* A vendor metric whose events cannot be counted here (no core PMU) and
 * that has no value: said so, never a number. */
static bool not_computed(const metric *m)
{
	return !m->have && m->why;
}

static void json_metric(FILE *o, const metric *m)
{
	if (not_computed(m))
		fprintf(o, "\"metric-value\" : \"%s\", \"metric-unit\" : ", NOT_COMPUTED);
	else
		fprintf(o, "\"metric-value\" : %f, \"metric-unit\" : ", m->have ? m->value : 0.0);
	out_json_str(o, m->unit ? m->unit : "");
	if (not_computed(m)) {
		fprintf(o, ", \"metric-note\" : ");
		out_json_str(o, m->why);
	}
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
		fprintf(o, "\"%f\"", pk_stat_row_value(r, p->runs) * h.scale);
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
	/* an uncounted event's line has no metric: the ones that say why
	 * follow it */
	for (size_t k = h.st ? 0 : 1; k < ml->nr; k++) {
		if (h.st && !ml->v[k].why)
			continue;
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
	else if (p->csv_summary)
		fprintf(o, "%16s%s", "summary", p->sep);
	if (p->per) {
		per_columns(o, r, p->per, true, p->sep);
	} else if (p->aggr == PK_AGGR_CPU) {
		fprintf(o, "CPU%d%s", r->key, p->sep);
	} else if (p->aggr == PK_AGGR_THREAD) {
		char who[96];
		snprintf(who, sizeof(who), "%s-%d", r->comm, r->key);
		out_csv_field(o, who, p->sep);
		fputs(p->sep, o);
	}
}

/* A line's metric fields (value, unit) and its end. */
static void csv_metric(stat_printer *p, const metric *m)
{
	FILE *o = p->out;
	char mv[64];
	if (m->have)
		metric_plain(m, mv, sizeof(mv));
	if (m->have || not_computed(m)) {
		fprintf(o, "%s%s", p->sep, m->have ? mv : NOT_COMPUTED);
		out_csv_next(o, m->unit ? m->unit : "", p->sep);
		fputc('\n', o);
	} else {
		fprintf(o, "%s%s\n", p->sep, p->sep);
	}
}

static void print_row_csv(stat_printer *p, const stat_row *r, const metric_lines *ml,
			  double interval_ns)
{
	FILE *o = p->out;
	const char *sep = p->sep;
	row_head h = row_head_of(r);
	csv_line_start(p, r, interval_ns);
	/* text fields (a status, the unit, the event's name, a metric's unit)
	 * quoted when they hold the separator, RFC 4180; perf 6.1 writes them
	 * as they are */
	if (h.st)
		out_csv_field(o, h.st, sep);
	else
		fprintf(o, "%.*f", h.scale != 1.0 ? 2 : 0, pk_stat_row_value(r, p->runs) * h.scale);
	out_csv_next(o, h.unit, sep);
	out_csv_next(o, row_name(r), sep);
	if (p->runs > 1)
		fprintf(o, "%s%.2f%%", sep, h.st ? 0.0 : pk_runstats_rel_pct(&r->noise));
	fprintf(o, "%s%llu%s%.2f", sep,
		(unsigned long long)(h.st ? 0 : r->counts.run / (uint64_t)(p->runs > 1 ? p->runs : 1)),
		sep, running_pct(&r->counts));
	csv_metric(p, &ml->v[0]);
	for (size_t k = 1; k < ml->nr; k++) {
		csv_line_start(p, r, interval_ns);
		for (int f = 0; f < csv_line_fields(p); f++)
			fputs(sep, o);
		csv_metric(p, &ml->v[k]);
	}
}

/* The start of a human line: the interval and the aggregation column. */
static void human_line_start(stat_printer *p, const stat_row *r, double interval_ns)
{
	FILE *o = p->out;
	if (interval_ns >= 0)
		print_interval_prefix(o, interval_ns, true, " ");
	if (p->per)
		per_columns(o, r, p->per, false, " ");
	else if (p->aggr == PK_AGGR_CPU)
		fprintf(o, "CPU%-7d ", r->key);
	else if (p->aggr == PK_AGGR_THREAD)
		fprintf(o, "%16s-%-8d ", r->comm, r->key);
}

/* perf's metric column: " # <value> <unit>" in 35 characters, or 35 blanks. */
static void human_metric(FILE *o, const metric *m)
{
	if (not_computed(m)) { /* what it needs after its label */
		fprintf(o, " # %s  %s (%s)", NOT_COMPUTED, m->unit, m->why);
		return;
	}
	if (!m->have) {
		fprintf(o, "%-35s", "");
		return;
	}
	int n = fprintf(o, " # ");
	char mv[64];
	n += pk_metric_format(m->style, m->value, mv, sizeof(mv));
	fputs(mv, o);
	fprintf(o, " %-*s", 35 - n - 1, m->unit);
}

/* A further line: perf's new line, blank up to the metric column, the
 * metric (no line end). */
static void human_further(stat_printer *p, const stat_row *r, double interval_ns, const metric *m)
{
	human_line_start(p, r, interval_ns);
	fprintf(p->out, "%s%49s", p->aggr == PK_AGGR_CPU ? "        " : "", "");
	human_metric(p->out, m);
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
		/* its vendor metrics that say why (no core PMU), each on a line */
		for (size_t k = 0; k < ml->nr; k++) {
			if (ml->v[k].why) {
				human_further(p, r, interval_ns, &ml->v[k]);
				fputc('\n', o);
			}
		}
		return;
	}
	stat_format_num(val, sizeof(val), pk_stat_row_value(r, p->runs) * h.scale, h.scale != 1.0 ? 2 : 0,
			p->big_num ? (p->thousands ? p->thousands : ",") : NULL);
	fprintf(o, "%18s %-4s %-32s", val, h.unit, row_name(r));
	human_metric(o, &ml->v[0]);
	for (size_t k = 1; k < ml->nr; k++) {
		fputc('\n', o);
		human_further(p, r, interval_ns, &ml->v[k]);
	}
	/* perf 6.1 leaves out a noise of 0 (the same count every run) */
	if (p->runs > 1 && pk_runstats_rel_pct(&r->noise) != 0)
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

/* perf's interval header's bucket columns of --per-* */
static const char *const per_head[] = {
	[PK_STAT_PER_CORE] = " core            cpus", [PK_STAT_PER_DIE] = " die          cpus",
	[PK_STAT_PER_SOCKET] = " socket cpus", [PK_STAT_PER_NODE] = " node   cpus"};

static void print_interval_header(stat_printer *p)
{
	/* perf repeats the column header every 25 intervals */
	if (p->fmt != STAT_HUMAN || (p->interval_lines++ % 25 && !p->interval_clear))
		return;
	static const char *const heads[] = {
		[PK_AGGR_GLOBAL] = "#           time             counts unit events",
		[PK_AGGR_CPU] = "#           time CPU                    counts unit events",
		[PK_AGGR_THREAD] = "#           time             comm-pid                  counts unit events",
	};
	if (p->per)
		fprintf(p->out, "#           time%s             counts unit events\n", per_head[p->per]);
	else
		fprintf(p->out, "%s\n", heads[p->aggr]);
}

/* ---- --metric-only ------------------------------------------------------ */

/* perf's metric-only column width */
enum { METRIC_ONLY_LEN = 20 };

/* A metric's --metric-only column title (the header's when header), NULL
 * for none: perf leaves rates and "CPUs utilized" out and names the event
 * of a miss ratio ("branch-misses of all branches"). */
static const char *only_unit(const stat_printer *p, const metric *m, const stat_row *r,
			     bool header, char *buf, size_t len)
{
	/* perf 6.1 evaluates the header once, before the buckets of --per-*
	 * have values */
	bool named = header && m->name && (!m->have || p->per);
	const char *u = named ? m->name : m->unit;
	if (!u || !strcmp(u, "(null)") || strstr(u, "/sec") || strstr(u, "CPUs utilized"))
		return NULL;
	if (!strncmp(u, "of all", 6)) {
		snprintf(buf, len, "%s %s", row_name(r), u);
		return buf;
	}
	return u;
}

/* One column: the header's title, or the value as perf prints it
 * (`%*s ` at least 20 wide in text; CSV the leading digits). */
static void only_column(stat_printer *p, const char *title, const metric *m, bool header,
			bool *first)
{
	FILE *o = p->out;
	char v[64] = "";
	if (m && m->have) {
		if (p->fmt == STAT_CSV)
			metric_plain(m, v, sizeof(v));
		else
			pk_metric_format(m->style, m->value, v, sizeof(v));
	}
	if (p->fmt == STAT_JSON) {
		fputs(*first ? "" : ", ", o);
		out_json_str(o, title);
		fprintf(o, " : \"%s\"", v + strspn(v, " "));
	} else if (p->fmt == STAT_CSV) {
		out_csv_field(o, header ? title : v, p->sep);
		fputs(p->sep, o);
	} else {
		size_t w = strlen(title) > METRIC_ONLY_LEN && !header ? strlen(title) + 1
								     : METRIC_ONLY_LEN;
		fprintf(o, "%*s ", (int)w, header ? title : v);
	}
	*first = false;
}

/* The columns of one bucket's rows (key), or their titles (header). */
static int only_columns(stat_printer *p, const stat_rows *rows, const pk_metric_counts *in,
			int key, bool header, bool first, metric_lines *ml)
{
	for (size_t i = 0; i < rows->nr; i++) {
		const stat_row *r = &rows->v[i];
		if (r->key != key)
			continue;
		if (status_text(r) && !header) { /* perf: an empty column (JSON: none) */
			if (p->fmt != STAT_JSON)
				only_column(p, "", NULL, false, &first);
			continue;
		}
		if (pk_metric_stat_lines(p->metrics, in, i, p->vendor_metric, p->vendor_arg, ml) < 0)
			return -ENOMEM;
		for (size_t k = 0; k < ml->nr; k++) {
			char buf[160];
			const char *t = only_unit(p, &ml->v[k], r, header || p->fmt == STAT_JSON, buf,
						  sizeof(buf));
			if (t)
				only_column(p, t, &ml->v[k], header, &first);
		}
	}
	return 0;
}

/* The header line: perf's before the first interval and every 25th, or
 * once without -I; JSON has none. */
static int only_header(stat_printer *p, const stat_rows *rows, const pk_metric_counts *in,
		       metric_lines *ml, double interval_ns)
{
	static const char *const text_aggr[] = {
		[PK_AGGR_GLOBAL] = "", [PK_AGGR_CPU] = " CPU    ",
		[PK_AGGR_THREAD] = "             comm-pid"};
	static const char *const csv_aggr[] = {
		[PK_AGGR_GLOBAL] = "", [PK_AGGR_CPU] = "cpu,", [PK_AGGR_THREAD] = "comm-pid,"};
	static const int indent[] = {[PK_AGGR_GLOBAL] = 0, [PK_AGGR_CPU] = 6, [PK_AGGR_THREAD] = 24};
	/* perf 6.1's, the missing commas of die and socket included */
	static const char *const csv_per[] = {
		[PK_STAT_PER_CORE] = "core,cpus,", [PK_STAT_PER_DIE] = "die,cpus",
		[PK_STAT_PER_SOCKET] = "socket,cpus", [PK_STAT_PER_NODE] = "node,"};
	static const int per_indent[] = {
		[PK_STAT_PER_CORE] = 24, [PK_STAT_PER_DIE] = 18, [PK_STAT_PER_SOCKET] = 12, [PK_STAT_PER_NODE] = 6};
	if (p->fmt == STAT_JSON || (interval_ns >= 0 && p->interval_lines++ % 25))
		return 0;
	FILE *o = p->out;
	if (p->fmt == STAT_CSV)
		fprintf(o, "%s%s", interval_ns >= 0 ? " time," : "",
			p->per ? csv_per[p->per] : csv_aggr[p->aggr]);
	else if (interval_ns >= 0)
		fprintf(o, "#           time%s ", p->per ? per_head[p->per] : text_aggr[p->aggr]);
	else
		fprintf(o, "%*s", p->per ? per_indent[p->per] : indent[p->aggr], "");
	int r = only_columns(p, rows, in, rows->nr ? rows->v[0].key : -1, true, true, ml);
	fputc('\n', o);
	return r;
}

/* --metric-only (perf 6.1's layout): a header of metric titles, then one
 * line per bucket (the whole run, a CPU with -A, a thread) of their
 * values; an uncounted event is an empty column. */
static int print_metric_only(stat_printer *p, const stat_rows *rows, const pk_metric_counts *in,
			     metric_lines *ml, double interval_ns)
{
	int r = only_header(p, rows, in, ml, interval_ns);
	for (size_t i = 0; i < rows->nr && r == 0; i++) {
		const stat_row *row = &rows->v[i];
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = rows->v[j].key == row->key;
		if (seen)
			continue;
		bool first = true;
		if (p->fmt == STAT_JSON)
			first = json_only_start(p, row, interval_ns);
		else if (p->fmt == STAT_CSV)
			csv_line_start(p, row, interval_ns);
		else
			human_line_start(p, row, interval_ns);
		r = only_columns(p, rows, in, row->key, false, first, ml);
		fputs(p->fmt == STAT_JSON ? "}\n" : "\n", p->out);
	}
	return r;
}

int stat_print_rows(stat_printer *p, const stat_rows *rows, double wall_ns, double interval_ns)
{
	pk_metric_count *counts;
	pk_metric_literal lit[2];
	pk_metric_counts in;
	if (!p->metrics) {
		p->metrics = pk_metric_table_stat(NULL);
		if (!p->metrics)
			return -ENOMEM;
	}
	if (pk_metric_counts_from_stat(rows, wall_ns, &counts, lit, &in) < 0)
		return -ENOMEM;
	lit[in.nr_lit++] = (pk_metric_literal){"#core_wide", p->core_wide};
	if (interval_ns >= 0 && !p->metric_only)
		print_interval_header(p);
	metric_lines ml = {0};
	int ret = 0;
	if (p->metric_only)
		ret = print_metric_only(p, rows, &in, &ml, interval_ns);
	for (size_t i = 0; i < rows->nr && !p->metric_only && ret == 0; i++) {
		const stat_row *r = &rows->v[i];
		ret = pk_metric_stat_lines(p->metrics, &in, i, p->vendor_metric, p->vendor_arg, &ml);
		if (ret < 0)
			break;
		if (p->fmt == STAT_JSON)
			print_row_json(p, r, &ml, interval_ns);
		else if (p->fmt == STAT_CSV)
			print_row_csv(p, r, &ml, interval_ns);
		else
			print_row_human(p, r, &ml, interval_ns);
	}
	pk_metric_lines_release(&ml);
	free(counts);
	return ret;
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

/* --table: each run's seconds, its distance from the mean and a bar of one
 * '#' and one more per 5% of the run it is off (perf 6.1's), then the
 * heading of the mean. */
static void print_run_table(const stat_printer *p, double mean, int prec)
{
	fprintf(p->out, "%9s# Table of individual measurements:\n", "");
	for (int i = 0; i < p->nr_run_secs; i++) {
		double run = p->run_secs[i];
		int pct = run > 0 ? (int)(100.0 * (run - mean) / run) : 0;
		int n = 1 + abs(pct / 5);
		fprintf(p->out, " %17.*f (%+.*f) ", prec, run, prec, run - mean);
		for (int h = 0; h < n; h++)
			fputc('#', p->out);
		fputc('\n', p->out);
	}
	fprintf(p->out, "\n%9s# Final result:\n", "");
}

void stat_print_footer(stat_printer *p, const pk_runstats *elapsed, double user_s, double sys_s)
{
	if (p->fmt != STAT_HUMAN)
		return;
	FILE *o = p->out;
	if (!p->null_run)
		fputc('\n', o);
	if (elapsed->n > 1) {
		double sd = pk_runstats_stddev_mean(elapsed);
		int prec = noise_precision(sd);
		if (p->run_secs)
			print_run_table(p, elapsed->mean, prec);
		fprintf(o, " %17.*f +- %.*f seconds time elapsed  ( +- %5.2f%% )\n\n", prec,
			elapsed->mean, prec, sd, pk_runstats_rel_pct(elapsed));
		return;
	}
	fprintf(o, " %17.9f seconds time elapsed%s\n\n", elapsed->mean,
		p->modeled ? " (modeled)" : "");
	/* perf 6.1: one blank line after the elapsed time without user and
	 * sys (a target other than a command), two after them */
	if (user_s >= 0 && sys_s >= 0)
		fprintf(o, " %17.9f seconds user\n %17.9f seconds sys\n\n\n", user_s, sys_s);
}
