/* stat -M (perf's --metrics) as a library (pk_metric_groups, topdown.h):
 * names and groups resolved in the CPU's
 * vendor metric table (lib/metrics, pk_metric_defs_cpu), each metric's
 * events opened as one group on the core PMU (perf 6.1's rule: a metric's
 * events in one group, so its ratio never mixes time slices), or ungrouped
 * with --metric-no-group, and each metric evaluated by the metrics engine
 * over the counts of its own events (the same bucket) only.
 *
 * Invariants: a metric is added once however often it is named; metrics
 * are in name order, each group's events in the order the formula first
 * names them (slots first: Intel's PERF_METRICS events need a slots
 * leader); an event that is no core event (uncore, MSR) fails the
 * setup naming the metric and the event.
 * It lives beside TopDown because it needs both the metric tables and
 * TopDown's PERF_METRICS rule (a slots leader), as topdown.c does. */
#include <pmukit/topdown.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pmukit/topdown.h>

typedef struct mg_metric {
	long row;                  /* in the table */
	size_t first, nr;          /* its evsels [first, first + nr) in the event list */
	char *label;               /* perf's metric unit: "%  tma_retiring", or the name */
} mg_metric;

struct pk_metric_groups {
	pk_metric_table *table;    /* the CPU's vendor metrics */
	mg_metric *v;
	size_t nr;
	pk_metric_literal lit[8];  /* #smt_on, #threads, ... */
	size_t nr_lit;
};

pk_metric_groups *pk_metric_groups_new(void)
{
	return calloc(1, sizeof(pk_metric_groups));
}

static int add_metric(pk_metric_groups *mg, long row)
{
	for (size_t i = 0; i < mg->nr; i++)
		if (mg->v[i].row == row)
			return 0;
	mg_metric *v = realloc(mg->v, (mg->nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	mg->v = v;
	v[mg->nr++] = (mg_metric){.row = row};
	return 0;
}

/* Every row each comma-separated name names. */
static int resolve(pk_metric_groups *mg, const char *names, pk_error *err)
{
	char *copy = strdup(names), *save = NULL;
	if (!copy)
		return pk_err(err, -ENOMEM, "out of memory");
	int r = 0;
	for (char *n = strtok_r(copy, ",", &save); n && r == 0; n = strtok_r(NULL, ",", &save)) {
		bool found = false;
		for (size_t i = 0; i < pk_metric_table_nr(mg->table) && r == 0; i++) {
			if (!pk_metric_named(pk_metric_table_def(mg->table, i), n))
				continue;
			found = true;
			if (add_metric(mg, (long)i) < 0)
				r = pk_err(err, -ENOMEM, "out of memory");
		}
		if (!found && r == 0)
			r = pk_err(err, -EINVAL, "Cannot find metric or group `%s'", n);
	}
	free(copy);
	return r;
}

static int by_name(const void *a, const void *b, void *t)
{
	return strcmp(pk_metric_table_def(t, (size_t)((const mg_metric *)a)->row)->name,
		      pk_metric_table_def(t, (size_t)((const mg_metric *)b)->row)->name);
}

static int add_event(pk_evlist *l, const pk_pmu *pmu, const char *name, uint64_t config,
		     pk_error *err)
{
	struct perf_event_attr a = {.type = pmu->type, .size = sizeof(a), .config = config};
	return pk_evlist_add(l, &a, name, pmu) ? 0 : pk_err(err, -ENOMEM, "out of memory");
}

/* Appends the events of metric m (one group unless no_group). */
static int add_events(pk_metric_groups *mg, mg_metric *m, const pk_cpuid *id, const pk_pmu *pmu,
		      bool no_group, pk_evlist *l, pk_error *err)
{
	const pk_metric_def *d = pk_metric_table_def(mg->table, (size_t)m->row);
	pk_expr *e = pk_expr_parse(d->formula, err);
	if (!e)
		return err->code;
	size_t n = pk_expr_nr_refs(e);
	uint64_t *cfg = calloc(n ? n : 1, sizeof(*cfg));
	int r = cfg ? 0 : pk_err(err, -ENOMEM, "out of memory");
	bool metrics = false, slots = false;
	for (size_t i = 0; i < n && r == 0; i++) {
		const char *ev = pk_expr_ref(e, i);
		if (ev[0] == '#')
			continue;
		r = pk_metric_event_config(id, pmu->name, ev, &cfg[i], err);
		if (r < 0)
			r = pk_err(err, r, "metric %s: %s", d->name, err->msg);
		/* PERF_METRICS events need a slots leader: added first below */
		metrics |= pk_topdown_metric_field(cfg[i] & 0xffff) >= 0;
		slots |= cfg[i] == 0x0400;
	}
	m->first = pk_evlist_count(l);
	if (r == 0 && metrics && !slots)
		r = add_event(l, pmu, "TOPDOWN.SLOTS", 0x0400, err);
	for (int pass = 0; pass < 2 && r == 0; pass++) /* slots first */
		for (size_t i = 0; i < n && r == 0; i++)
			if (pk_expr_ref(e, i)[0] != '#' && (cfg[i] == 0x0400) == (pass == 0))
				r = add_event(l, pmu, pk_expr_ref(e, i), cfg[i], err);
	free(cfg);
	pk_expr_free(e);
	m->nr = pk_evlist_count(l) - m->first;
	if (r == 0 && !no_group && m->nr > 1)
		pk_evlist_group(l, m->first, m->nr);
	return r;
}

static int make_label(pk_metric_groups *mg, mg_metric *m)
{
	const pk_metric_def *d = pk_metric_table_def(mg->table, (size_t)m->row);
	size_t len = strlen(d->name) + strlen(d->unit ? d->unit : "") + 3;
	m->label = malloc(len);
	if (!m->label)
		return -ENOMEM;
	if (d->unit && *d->unit)
		snprintf(m->label, len, "%s  %s", d->unit, d->name);
	else
		snprintf(m->label, len, "%s", d->name);
	return 0;
}

static void set_literals(pk_metric_groups *mg, const pk_kernel *k)
{
	bool smt = pk_topdown_host_smt(k);
	mg->lit[mg->nr_lit++] = (pk_metric_literal){"#smt_on", smt ? 1 : 0};
	mg->lit[mg->nr_lit++] = (pk_metric_literal){"#threads", smt ? 2 : 1};
}

int pk_metric_groups_add(pk_metric_groups *mg, const char *names, const pk_pmus *pmus, const pk_kernel *k,
		  const char *cpuid, bool no_group, pk_evlist *evlist, pk_error *err)
{
	pk_cpuid id;
	int r = cpuid ? pk_cpuid_parse(cpuid, &id, err) : pk_host_cpuid(k, &id, err);
	if (r < 0)
		return r;
	/* the P-core on a hybrid part, whose metrics the tables hold */
	const pk_pmu *pmu = pk_pmus_find(pmus, "cpu_core");
	if (!pmu && pk_pmus_nr_core(pmus))
		pmu = pk_pmus_core_at(pmus, 0);
	size_t nr;
	const pk_metric_def *rows = pk_metric_defs_cpu(&id, pmu ? pmu->name : NULL, &nr, NULL);
	if (!mg->table) {
		mg->table = pk_metric_table_new(rows, nr, err);
		if (!mg->table)
			return err->code ? err->code : -ENOMEM;
		set_literals(mg, k);
	}
	size_t before = mg->nr;
	r = resolve(mg, names, err);
	if (r < 0 && !nr)
		pk_err_hint(err, "pmukit has no metric table for this CPU (%s): it has Intel's for "
			    "Skylake, Ice Lake, Sapphire Rapids and Alder Lake (PMUKIT_CPUID or "
			    "PERF_CPUID chooses one: `PERF_CPUID=GenuineIntel-6-5E-3 pmukit list "
			    "metric` lists Skylake's); TopDown here: `pmukit stat --topdown`", id.str);
	if (r < 0)
		return r;
	if (!pmu && mg->nr > before)
		return pk_err(err, -ENODEV, "metrics need a core PMU, and this machine has none");
	qsort_r(mg->v + before, mg->nr - before, sizeof(*mg->v), by_name, mg->table);
	for (size_t i = before; i < mg->nr && r == 0; i++) {
		r = add_events(mg, &mg->v[i], &id, pmu, no_group, evlist, err);
		if (r == 0 && make_label(mg, &mg->v[i]) < 0)
			r = pk_err(err, -ENOMEM, "out of memory");
	}
	return r;
}

int pk_metric_groups_value(const pk_metric_groups *mg, const pk_metric_counts *in, size_t idx,
		  pk_metric_value *out, const char **label)
{
	const pk_metric_count *c = &in->v[idx];
	size_t ev = (size_t)pk_evsel_idx(c->evsel);
	const mg_metric *m = NULL;
	for (size_t i = 0; i < mg->nr && !m; i++)
		if (mg->v[i].nr && mg->v[i].first == ev)
			m = &mg->v[i];
	if (!m)
		return 0;
	*label = m->label;
	/* the metric's own counts of this bucket, its first event first */
	pk_metric_count *sub = malloc((in->nr ? in->nr : 1) * sizeof(*sub));
	if (!sub)
		return -1;
	size_t n = 0;
	for (size_t j = 0; j < in->nr; j++) {
		size_t e = (size_t)pk_evsel_idx(in->v[j].evsel);
		if (in->v[j].key == c->key && e >= m->first && e < m->first + m->nr)
			sub[n++] = in->v[j];
	}
	pk_metric_literal lit[16];
	size_t nl = 0;
	for (size_t i = 0; i < mg->nr_lit; i++)
		lit[nl++] = mg->lit[i];
	for (size_t i = 0; i < in->nr_lit && nl < 16; i++)
		lit[nl++] = in->lit[i];
	pk_metric_counts own = {.v = sub, .nr = n, .lit = lit, .nr_lit = nl};
	int r = pk_metric_eval(mg->table, (size_t)m->row, &own, 0, out) == 1 ? 1 : -1;
	free(sub);
	return r;
}

void pk_metric_groups_free(pk_metric_groups *mg)
{
	if (!mg)
		return;
	for (size_t i = 0; i < mg->nr; i++)
		free(mg->v[i].label);
	free(mg->v);
	pk_metric_table_free(mg->table);
	free(mg);
}
