/* pmukit stat -M: the vendor metrics and metric groups asked for, their
 * events added to the event list (one group per metric, as perf 6.1; lone
 * events with --metric-no-group), and each metric's value for the line of
 * its first event (stat_mg.c). */
#ifndef PK_STAT_MG_H
#define PK_STAT_MG_H
#include <stdbool.h>
#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/metrics.h>
#include <pmukit/pmu.h>

typedef struct stat_mg_metric {
	long row;                  /* in the table */
	int arg;                   /* the -M list's name that first named it: 0, 1, ... */
	size_t first, nr;          /* the group counting it, [first, first + nr) in the
				    * event list: its own, or merged an earlier metric's */
	size_t anchor;             /* the evsel whose line prints it */
	bool owns;                 /* the group is its own */
	char **ev;                 /* during setup: its events' names and configs */
	uint64_t *cfg;
	size_t nev;
	char *label;               /* perf's metric unit: "%  tma_retiring", or the name */
} stat_mg_metric;

typedef struct stat_mg {
	pk_metric_table *table;    /* the CPU's vendor metrics */
	stat_mg_metric *v;
	size_t nr;
	pk_metric_literal lit[8];  /* #smt_on, #threads, ... */
	size_t nr_lit;
	bool no_merge;             /* --metric-no-merge: a group per metric */
} stat_mg;

/* Resolves the -M lists (each comma-separated metrics and groups, without
 * case as perf; the lists as one, as perf 6.1 joins them) for the CPU
 * (cpuid: a PERF_CPUID-style override, NULL: the kernel's) and appends
 * their events to evlist. An unknown name fails with perf's message. */
int stat_mg_setup(stat_mg *mg, const char *const *lists, int nr_lists, const pk_pmus *pmus,
		  const pk_kernel *k, const char *cpuid, bool no_group, pk_evlist *evlist,
		  pk_error *err);
struct stat_vendor_metric;
/* The nth metric printed on count idx of in: 1 with *out filled (its
 * value when it can be computed), 0 when there is none, -ENOMEM. */
int stat_mg_value(const stat_mg *mg, const pk_metric_counts *in, size_t idx, size_t nth,
		  struct stat_vendor_metric *out);
/* The event list's warnings from *printed on (the open's: "Weak group for
 * X/N failed", perf's -v message) to stderr when verbose; *printed moves
 * past them. */
void stat_mg_print_notes(const pk_evlist *l, size_t *printed, bool verbose);
void stat_mg_free(stat_mg *mg);
#endif
