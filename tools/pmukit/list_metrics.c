/* pmukit list's metric sections, as perf 6.1 prints them: `list metric`
 * (each metric and its description, with --details its formula),
 * `list metricgroup` (the group names), and in the default listing each
 * group followed by its metrics ("Metric Groups:"). The metrics are the
 * vendor's for this CPU (lib/metrics, pk_metric_defs_cpu).
 *
 * Invariants: names sort as perf's (strcmp: upper case first); a metric
 * with no group is listed under "No_group"; nothing is printed for a CPU
 * without tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pmukit/metrics.h>

#include "list_metrics.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int rows_by_name(const void *a, const void *b)
{
	return strcmp((*(const pk_metric_def *const *)a)->name,
		      (*(const pk_metric_def *const *)b)->name);
}

static void print_metric(const pk_metric_def *d, bool details)
{
	printf("  %s\n", d->name);
	if (d->description && *d->description)
		printf("       [%s]\n", d->description);
	if (details)
		printf("       [%s]\n", d->formula);
}

/* Every distinct group name of rows (strdup'ed, sorted); "No_group" for a
 * row without one. Returns the count, or -1 without memory. */
static long group_names(const pk_metric_def *rows, size_t nr, char ***out)
{
	size_t cap = 64, n = 0;
	char **g = malloc(cap * sizeof(*g));
	for (size_t i = 0; g && i < nr; i++) {
		const char *s = rows[i].groups && *rows[i].groups ? rows[i].groups : "No_group";
		while (g && *s) {
			size_t len = strcspn(s, ";");
			bool seen = false;
			for (size_t k = 0; k < n && !seen; k++)
				seen = strlen(g[k]) == len && !strncmp(g[k], s, len);
			if (!seen && n == cap) {
				char **bigger = realloc(g, (cap *= 2) * sizeof(*g));
				if (!bigger)
					free(g); /* the names are lost with it: the caller fails */
				g = bigger;
			}
			if (!seen && g)
				g[n++] = strndup(s, len);
			s += len + (s[len] == ';');
		}
	}
	if (!g)
		return -1;
	qsort(g, n, sizeof(*g), by_name);
	*out = g;
	return (long)n;
}

static bool in_group(const pk_metric_def *d, const char *group)
{
	if (!d->groups || !*d->groups)
		return !strcmp(group, "No_group");
	return pk_metric_named(d, group) && strcasecmp(d->name, group);
}

int pk_list_metrics(const pk_cpuid *id, enum pk_list_metrics_how how, bool details)
{
	size_t nr;
	const pk_metric_def *rows = pk_metric_defs_cpu(id, NULL, &nr, NULL);
	const pk_metric_def **sorted = calloc(nr + 1, sizeof(*sorted));
	char **groups = NULL;
	long ng = how == PK_LIST_METRICS ? 0 : group_names(rows, nr, &groups);
	if (!sorted || ng < 0) {
		free(sorted);
		return -1;
	}
	for (size_t i = 0; i < nr; i++)
		sorted[i] = &rows[i];
	qsort(sorted, nr, sizeof(*sorted), rows_by_name);
	printf("\n%s:\n\n", how == PK_LIST_METRICS ? "Metrics" : "Metric Groups");
	for (size_t i = 0; how == PK_LIST_METRICS && i < nr; i++)
		print_metric(sorted[i], details);
	for (long g = 0; g < ng; g++) {
		printf(how == PK_LIST_METRIC_GROUPS ? "%s\n" : "%s:\n", groups[g]);
		for (size_t i = 0; how == PK_LIST_GROUPED && i < nr; i++)
			if (in_group(sorted[i], groups[g]))
				print_metric(sorted[i], details);
		free(groups[g]);
	}
	free(groups);
	free(sorted);
	return 0;
}
