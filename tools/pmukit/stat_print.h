/* pmukit stat: turning counts into rows and rows into perf's three output
 * forms (human, CSV with -x, JSON lines with -j). Which metric follows a
 * count, and its value, come from the library's metrics engine
 * (pmukit/metrics.h); this file only lays them out. Kept apart from
 * cmd_stat.c so the CLI's test (tests/cli) can print from a fake kernel. */
#ifndef PMUKIT_STAT_PRINT_H
#define PMUKIT_STAT_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <pmukit/counting.h>
#include <pmukit/metrics.h>

typedef enum stat_format {
	STAT_HUMAN = 0,
	STAT_CSV,
	STAT_JSON,
} stat_format;

/* --per-core, --per-die, --per-socket, --per-node (stat_aggr.c) */
typedef enum stat_per {
	STAT_PER_NONE = 0,
	STAT_PER_CORE,
	STAT_PER_DIE,
	STAT_PER_SOCKET,
	STAT_PER_NODE,
} stat_per;

/* One printed line: an evsel summed over one aggregation bucket. */
typedef struct stat_row {
	const pk_evsel *evsel;
	const char *name;          /* as counted (pk_counting_name: "cycles:u" after the fallback) */
	pk_open_status status;
	int key;                   /* CPU (-A), tid (--per-thread), bucket (--per-*), -1 */
	int socket, die, id;       /* --per-*: the bucket (id: core or node) */
	int nr_cpus;               /* --per-*: the CPUs summed */
	char comm[32];             /* --per-thread: the thread's command name */
	pk_counts counts;          /* summed over the bucket (averaged over -r runs) */
	pk_runstats noise;         /* the value over -r runs */
} stat_row;

typedef struct stat_rows {
	stat_row *v;
	size_t nr;
	int runs;                  /* how many runs were added */
} stat_rows;

/* Builds the rows of one reading (delta: since the previous read). */
int stat_rows_collect(stat_rows *rows, pk_counting *c, pk_aggr_mode aggr, bool delta);
/* Adds one run's rows into an accumulator of the same shape (-r). */
int stat_rows_accumulate(stat_rows *acc, const stat_rows *run);
void stat_rows_free(stat_rows *rows);
/* The rows as the metrics engine sees them, with the wall time the counts
 * cover as #wall_ns (absent when unknown: no "CPUs utilized"); *out is the
 * array to free. Returns 0 or -ENOMEM. */
int stat_rows_metric_counts(const stat_rows *rows, double wall_ns, pk_metric_count **out,
			    pk_metric_literal *lit, pk_metric_counts *in);

/* A vendor metric (stat -M) as printed on a count's line. */
typedef struct stat_vendor_metric {
	bool have;                 /* the value could be computed */
	double value;
	pk_metric_style style;
	const char *label;         /* perf's metric unit: "%  tma_retiring" */
	const char *name;          /* "tma_retiring": --metric-only's header without a value */
} stat_vendor_metric;

typedef struct stat_printer {
	FILE *out;
	stat_format fmt;
	const char *sep;           /* CSV field separator */
	pk_aggr_mode aggr;
	stat_per per;              /* --per-*: the rows are buckets (aggr GLOBAL) */
	bool big_num;              /* thousands separators in human output */
	int runs;                  /* -r N, for the header and noise columns */
	int interval_lines;        /* lines since the interval header */
	/* The metrics printed after counts; NULL: perf stat's (built at the
	 * first print, freed by stat_printer_free). */
	pk_metric_table *metrics;
	/* stat -M: the nth vendor metric printed on count idx (1: *out filled,
	 * 0: no more, < 0: no memory); a count with one gets no metric of perf
	 * stat's. NULL: none. */
	int (*vendor_metric)(const void *arg, const pk_metric_counts *in, size_t idx, size_t nth,
			     struct stat_vendor_metric *out);
	const void *vendor_arg;
	bool metric_only;          /* --metric-only: one line of metric columns per bucket */
	/* --model: what was modeled ("scenario 'S' on machine 'M'"); JSON rows
	 * carry it as "modeled", the elapsed time says "(modeled)". NULL:
	 * measured. */
	const char *modeled;
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

/* The unit perf shows an event's counts in and the scale to it: the
 * software clocks in msec (scale 1e-6: ns counted), else the sysfs alias's
 * (scale 1 without one). perf script scales sample periods so too. */
const char *stat_evsel_unit(const pk_evsel *e, double *scale);

/* Formats v with thousands separators and `decimals` digits. */
void stat_format_num(char *buf, size_t len, double v, int decimals, bool big_num);

#endif
