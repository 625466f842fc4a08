/* pmukit list's metric sections (list_metrics.c): perf 6.1's "Metrics:"
 * and "Metric Groups:" listings of the CPU's vendor metrics. */
#ifndef PK_LIST_METRICS_H
#define PK_LIST_METRICS_H
#include <stdbool.h>
#include <pmukit/cpuid.h>

enum pk_list_metrics_how {
	PK_LIST_METRICS,        /* list metric: every metric */
	PK_LIST_METRIC_GROUPS,  /* list metricgroup: the group names */
	PK_LIST_GROUPED,        /* the default listing: each group's metrics */
};
struct pk_list_metrics_style {
	bool details; /* each formula too */
	bool raw;     /* --raw-dump: names alone, each followed by a space */
};
/* Prints the section; -1 without memory. */
int pk_list_metrics(const pk_cpuid *id, enum pk_list_metrics_how how,
		    struct pk_list_metrics_style st);
#endif
