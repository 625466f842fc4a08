/* A CPU's vendor metrics as perf 6.1's `list` shows them (metrics.h,
 * pk_metric_listing): the rows sorted by name, the distinct group names,
 * and which rows a group holds; on a hybrid part both core PMUs' tables,
 * each row's description followed by its PMU as perf 6.1 prints it.
 *
 * Invariants: names sort with strcmp (upper case first, as perf), a name
 * both tables have by its printed description (perf's order; a metric
 * counting no core event, a package C-state's, is printed without PMU); a row
 * without a group belongs to "No_group"; a metric is not listed under a
 * group of its own name. */
#include <pmukit/metrics.h>
#include <pmukit/util.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics/metric_tables.h"

#define NO_GROUP PKI_METRIC_NO_GROUP

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
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

typedef struct listed {
	const pk_metric_def *def;
	const char *pmu;
	char *desc;
} listed;

static int by_name_desc(const void *a, const void *b)
{
	const listed *x = a, *y = b;
	int c = strcmp(x->def->name, y->def->name);
	return c ? c : strcmp(x->desc ? x->desc : "", y->desc ? y->desc : "");
}

/* The tables list shows: the core PMU's (pmu NULL), on a hybrid part
 * cpu_core's and cpu_atom's. Their number. */
static size_t tables(const pk_cpuid *id, const pk_metric_def **rows, size_t *nr,
		     const char **pmu)
{
	static const char *const hybrid[] = {"cpu_core", "cpu_atom"};
	for (size_t i = 0; i < 2; i++)
		rows[i] = pk_metric_defs_cpu(id, hybrid[i], &nr[i], NULL);
	if (rows[0] && rows[1] && rows[0] != rows[1]) {
		pmu[0] = hybrid[0];
		pmu[1] = hybrid[1];
		return 2;
	}
	rows[0] = pk_metric_defs_cpu(id, NULL, &nr[0], NULL);
	pmu[0] = NULL;
	return 1;
}

/* Whether d counts an event of the core PMU pmu, one with a privilege
 * suffix too ("CPU_CLK_UNHALTED.THREAD_P:SUP", refused by stat -M but a
 * core event: perf 6.1 lists its metric with the PMU); the C-state
 * metrics count none (perf 6.1 lists them without a PMU). */
static bool on_core(const pk_cpuid *id, const char *pmu, const pk_metric_def *d)
{
	pk_error err = {0};
	pk_expr *e = pk_expr_parse(d->formula, &err);
	bool core = !e;
	uint64_t config;
	for (size_t i = 0; e && i < pk_expr_nr_refs(e) && !core; i++)
		core = pk_expr_ref(e, i)[0] != '#' &&
		       (strchr(pk_expr_ref(e, i), ':') ||
			pk_metric_event_config(id, pmu, pk_expr_ref(e, i), &config, &err) == 0);
	pk_expr_free(e);
	return core;
}

/* d's description as list prints it (perf 6.1 adds the hybrid PMU). */
static int describe(const pk_cpuid *id, listed *e)
{
	const char *d = e->def->description;
	if (!d || !*d)
		return 0;
	if (e->pmu && on_core(id, e->pmu, e->def))
		return asprintf(&e->desc, "%s. Unit: %s ", d, e->pmu) < 0 ? -ENOMEM : 0;
	return (e->desc = strdup(d)) ? 0 : -ENOMEM;
}

static int add_groups(pk_metric_listing *l, size_t *cap, const pk_metric_def *d)
{
	int r = 0;
	const char *s = d->groups && *d->groups ? d->groups : NO_GROUP;
	for (size_t len; *s && r == 0; s += len + (s[len] == ';')) {
		len = strcspn(s, ";");
		r = add_group(l, cap, s, len);
	}
	return r;
}

int pk_metric_listing_new(const pk_cpuid *id, pk_metric_listing *l)
{
	const pk_metric_def *rows[2];
	size_t nr[2] = {0, 0}, cap = 0;
	const char *pmu[2];
	size_t nt = tables(id, rows, nr, pmu), n = nr[0] + (nt > 1 ? nr[1] : 0);
	listed *v = calloc(n + 1, sizeof(*v));
	*l = (pk_metric_listing){.rows = calloc(n + 1, sizeof(*l->rows)),
				 .pmus = calloc(n + 1, sizeof(*l->pmus)),
				 .descs = calloc(n + 1, sizeof(*l->descs)), .nr = n};
	int r = v && l->rows && l->pmus && l->descs ? 0 : -ENOMEM;
	for (size_t t = 0, k = 0; t < nt && r == 0; t++)
		for (size_t i = 0; i < nr[t] && r == 0; i++, k++) {
			v[k] = (listed){.def = &rows[t][i], .pmu = pmu[t]};
			r = describe(id, &v[k]);
			if (r == 0)
				r = add_groups(l, &cap, &rows[t][i]);
		}
	if (r == 0) {
		qsort(v, n, sizeof(*v), by_name_desc);
		for (size_t i = 0; i < n; i++) {
			l->rows[i] = v[i].def;
			l->pmus[i] = v[i].pmu;
			l->descs[i] = v[i].desc;
			v[i].desc = NULL;
		}
		if (l->nr_groups)
			qsort(l->groups, l->nr_groups, sizeof(*l->groups), by_name);
	}
	for (size_t i = 0; v && i < n; i++)
		free(v[i].desc);
	free(v);
	if (r < 0)
		pk_metric_listing_release(l);
	return r;
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
	for (size_t i = 0; l->descs && i < l->nr; i++)
		free(l->descs[i]);
	free(l->descs);
	free(l->pmus);
	free(l->rows);
	*l = (pk_metric_listing){0};
}
