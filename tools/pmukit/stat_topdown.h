/* pmukit stat --topdown (issue 9): the TopDown blocks (one per core PMU,
 * lib/topdown) and their output as newer perf's --topdown prints it:
 * metric-only, tma_* names, percentages, one row per interval with -I, the
 * accuracy advice without -I; --tree (and from Level 3, or with --desc) as
 * an indented tree with thresholds, toplev's drill-down (children shown
 * below a crossed node; -v: all), the bottleneck path (only crossed nodes)
 * and its "Sample with" events as a record line; which nodes' groups were
 * multiplexed (their running share). The values of every interval are kept as data
 * (pk_topdown_series) for a plot. Kept out of cmd_stat.c, which branches
 * here. */
#ifndef PMUKIT_STAT_TOPDOWN_H
#define PMUKIT_STAT_TOPDOWN_H

#include <stdbool.h>
#include <stdio.h>
#include <pmukit/counting.h>
#include <pmukit/topdown.h>

#include "stat_print.h"

typedef struct stat_td {
	pk_topdown *td;
	bool tree;                 /* --tree */
	bool desc;                 /* --desc: each node's description */
	bool verbose;              /* -v: every node, not only below crossed ones */
	bool csv_header;           /* --csv-header: a column row before the first CSV row */
	pk_aggr_mode aggr;         /* -A: a block per CPU; --per-thread: per thread */
	pk_topdown_series series;  /* every printed reading, per block */
	unsigned headers_done;     /* -I: bit b: block b's column header was printed */
	pk_topdown_windows *windows; /* the model's readings at every rotation, -I's
				      * at every interval (intervals), or NULL */
	bool intervals;            /* the windows are -I's intervals */
	const double *delta;       /* while printing totals: each count's bound */
} stat_td;

/* Prints one reading: totals (interval_ns < 0) or one -I row per block;
 * with -A / --per-thread the blocks of each CPU / thread (a block whose
 * core PMU counted nothing there is left out), labeled; then -e's events as
 * plain stat prints them (wall_ns: the time they cover). Returns 0 or
 * -ENOMEM. */
int stat_td_print(stat_td *t, stat_printer *p, const stat_rows *rows, double wall_ns,
		  double interval_ns);
/* Without -I: newer perf's advice on long periods (human output: to the
 * output; CSV/JSON: to stderr). */
void stat_td_advice(const stat_printer *p);
void stat_td_free(stat_td *t);
/* --plot: the kept -I readings as an SVG timeline at path (stat_td_plot.c):
 * one panel per block, Level 1 and (when measured) Level 2 bands; target in
 * the subtitle, the "modeled" badge when modeled. < 0 with err naming the
 * file or why nothing can be drawn. */
int stat_td_plot(const stat_td *t, const char *path, const char *target, bool modeled,
		 pk_error *err);

#endif
