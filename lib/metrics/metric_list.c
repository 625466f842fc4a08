/* A CPU's vendor metrics as perf 6.1's `list` shows them (metrics.h,
 * pk_metric_listing): the rows sorted by name, the distinct group names,
 * and which rows a group holds.
 *
 * Invariants: names sort with strcmp (upper case first, as perf); a row
 * without a group belongs to "No_group"; a metric is not listed under a
 * group of its own name. */
#include <pmukit/metrics.h>
#include <pmukit/util.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NO_GROUP "No_group"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int rows_by_name(const void *a, const void *b)
{
	return strcmp((*(const pk_metric_def *const *)a)->name,
		      (*(const pk_metric_def *const *)b)->name);
}

/* Adds the group name s[0..len) unless l has it: 0 or -ENOMEM. */
static int add_group(pk_metric_listing *l, size_t *cap, const char *s, size_t len)
{
	for (size_t k = 0; k < l->nr_groups; k++)
		if (strlen(l->groups[k]) == len && !strncmp(l->groups[k], s, len))
			return 0;
	if (pk_grow(&l->groups, cap, l->nr_groups + 1, sizeof(*l->groups)) < 0)
		return -ENOMEM;
	l->groups[l->nr_groups] = strndup(s, len);
	return l->groups[l->nr_groups++] ? 0 : -ENOMEM;
}

int pk_metric_listing_new(const pk_cpuid *id, pk_metric_listing *l)
{
	size_t nr, cap = 0;
	const pk_metric_def *rows = pk_metric_defs_cpu(id, NULL, &nr, NULL);
	*l = (pk_metric_listing){.rows = calloc(nr + 1, sizeof(*l->rows)), .nr = nr};
	int r = l->rows ? 0 : -ENOMEM;
	for (size_t i = 0; i < nr && r == 0; i++) {
		l->rows[i] = &rows[i];
		const char *s = rows[i].groups && *rows[i].groups ? rows[i].groups : NO_GROUP;
		for (size_t len; *s && r == 0; s += len + (s[len] == ';')) {
			len = strcspn(s, ";");
			r = add_group(l, &cap, s, len);
		}
	}
	if (r < 0) {
		pk_metric_listing_release(l);
		return r;
	}
	qsort(l->rows, nr, sizeof(*l->rows), rows_by_name);
	if (l->nr_groups)
		qsort(l->groups, l->nr_groups, sizeof(*l->groups), by_name);
	return 0;
}

bool pk_metric_in_group(const pk_metric_def *d, const char *group)
{
	if (!d->groups || !*d->groups)
		return !strcmp(group, NO_GROUP);
	return pk_metric_named(d, group) && strcasecmp(d->name, group);
}

void pk_metric_listing_release(pk_metric_listing *l)
{
	for (size_t g = 0; g < l->nr_groups; g++)
		free(l->groups[g]);
	free(l->groups);
	free(l->rows);
	*l = (pk_metric_listing){0};
}
