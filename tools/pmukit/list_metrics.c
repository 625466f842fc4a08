/* pmukit list's metric sections, as perf 6.1 prints them: `list metric`
 * (each metric and its description, with --details its formula),
 * `list metricgroup` (the group names), and in the default listing each
 * group followed by its metrics ("Metric Groups:"). The metrics are the
 * vendor's for this CPU, sorted and grouped by the library
 * (pk_metric_listing); this file prints them (--raw-dump: the names alone,
 * each followed by a space, in the same order). */
#include <stdio.h>

#include <pmukit/metrics.h>

#include "list_metrics.h"

static void print_metric(const pk_metric_listing *l, size_t i, struct pk_list_metrics_style st)
{
	if (st.raw) {
		printf("%s ", l->rows[i]->name);
		return;
	}
	printf("  %s\n", l->rows[i]->name);
	if (l->descs[i])
		printf("       [%s]\n", l->descs[i]);
	if (st.details)
		printf("       [%s]\n", l->rows[i]->formula);
}

int pk_list_metrics(const pk_cpuid *id, enum pk_list_metrics_how how,
		    struct pk_list_metrics_style st)
{
	pk_metric_listing l;
	if (pk_metric_listing_new(id, &l) < 0)
		return -1;
	if (!st.raw)
		printf("\n%s:\n\n", how == PK_LIST_METRICS ? "Metrics" : "Metric Groups");
	for (size_t i = 0; how == PK_LIST_METRICS && i < l.nr; i++)
		print_metric(&l, i, st);
	for (size_t g = 0; how != PK_LIST_METRICS && g < l.nr_groups; g++) {
		if (st.raw)
			printf("%s ", l.groups[g]);
		else
			printf(how == PK_LIST_METRIC_GROUPS ? "%s\n" : "%s:\n", l.groups[g]);
		for (size_t i = 0; how == PK_LIST_GROUPED && i < l.nr; i++)
			if (pk_metric_in_group(l.rows[i], l.groups[g]))
				print_metric(&l, i, st);
	}
	pk_metric_listing_release(&l);
	return 0;
}
