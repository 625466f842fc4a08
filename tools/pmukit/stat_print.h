/* pmukit stat: the counting engine's rows (pmukit/stat.h) in perf's three
 * output forms (human, CSV with -x, JSON lines with -j). Which metric follows a
 * count, and its value, come from the library's metrics engine
 * (pmukit/metrics.h); this file only lays them out. Kept apart from
 * cmd_stat.c so the CLI's test (tests/cli) can print from a fake kernel. */
#ifndef PMUKIT_STAT_PRINT_H
#define PMUKIT_STAT_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <pmukit/counting.h>
#include <pmukit/metrics.h>
#include <pmukit/model.h>
#include <pmukit/stat.h>
#include <pmukit/topdown.h>

typedef enum stat_format {
	STAT_HUMAN = 0,
	STAT_CSV,
	STAT_JSON,
} stat_format;

/* The rows: the counting engine's (pmukit/stat.h), one per printed line. */
typedef pk_stat_row stat_row;
typedef pk_stat_rows stat_rows;

typedef struct stat_printer {
	FILE *out;
	stat_format fmt;
	const char *sep;           /* CSV field separator */
	pk_aggr_mode aggr;
	pk_stat_per per;              /* --per-*: the rows are buckets (aggr GLOBAL) */
	bool big_num;              /* thousands separators in human output */
	const char *thousands;     /* which (stat_thousands_sep), NULL: "," */
	int runs;                  /* -r N, for the header and noise columns */
	int interval_lines;        /* lines since the interval header */
	/* The metrics printed after counts; NULL: perf stat's (built at the
	 * first print, freed by stat_printer_free). */
	pk_metric_table *metrics;
	/* stat -M: the nth vendor metric printed on count idx (1: *out filled,
	 * 0: no more, < 0: no memory); a count with one gets no metric of perf
	 * stat's. NULL: none. */
	pk_metric_vendor_fn vendor_metric;
	const void *vendor_arg;
	bool metric_only;          /* --metric-only: one line of metric columns per bucket */
	/* perf's #core_wide for the vendor metrics: every CPU is counted (-a
	 * without -C), so a thread's core is measured whole */
	bool core_wide;
	/* --model: what was modeled ("scenario 'S' on machine 'M'"); JSON rows
	 * carry it as "modeled", the elapsed time says "(modeled)". NULL:
	 * measured. */
	const char *modeled;
	/* --summary: CSV total lines start with "summary" in the time column */
	bool csv_summary;
	/* --table: each run's elapsed seconds, listed before their mean; NULL:
	 * none */
	const double *run_secs;
	int nr_run_secs;
	bool null_run;             /* -n: no blank line before the elapsed time (perf's) */
	bool interval_clear;       /* --interval-clear: the column header every interval */
} stat_printer;

/* Frees what the printer built (its metrics table). */
void stat_printer_free(stat_printer *p);

/* " Performance counter stats for 'ls -l':" (human only). */
void stat_print_header(stat_printer *p, const char *target, int runs);
/* The counts, each followed by its metric from the metrics engine; wall_ns
 * is the time the counts cover (for "CPUs utilized"); interval_ns >= 0
 * prefixes each line with that timestamp (-I). Returns 0 or -ENOMEM
 * (nothing printed). */
int stat_print_rows(stat_printer *p, const stat_rows *rows, double wall_ns, double interval_ns);
/* Elapsed time (mean and runstats over -r runs) and user/sys seconds
 * (negative: not shown). Human only. */
void stat_print_footer(stat_printer *p, const pk_runstats *elapsed_s, double user_s, double sys_s);

/* Formats v with `decimals` digits, the thousands separated by sep (NULL
 * or "": not). */
void stat_format_num(char *buf, size_t len, double v, int decimals, const char *sep);
/* The environment's thousands separator (LC_ALL, LC_NUMERIC, LANG) as
 * perf's %' prints with it: "" in the C locale. Read without changing the
 * process's locale, so '.' stays the decimal point everywhere. */
const char *stat_thousands_sep(void);

#endif
