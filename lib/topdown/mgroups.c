/* stat -M (perf's --metrics) as a library (pk_metric_groups, topdown.h):
 * names and groups resolved in the vendor metric table of each core PMU
 * (lib/metrics, pk_metric_defs_cpu: on a hybrid part cpu_core's and
 * cpu_atom's, as perf 6.1 resolves them in both core types' tables), each
 * metric's events opened as one group on the PMU of the table that has it
 * (perf 6.1's rule: a metric's events in one group, so its ratio never
 * mixes time slices), or ungrouped with --metric-no-group, and each metric
 * evaluated by the metrics engine over the counts of its own events (the
 * same bucket) only.
 *
 * Invariants: a metric is added once however often it is named; metrics
 * are in perf 6.1's order (most events first, then by_events), each group's
 * events in the order the formula first names them (slots first: Intel's
 * PERF_METRICS events need a slots leader); unless --metric-no-merge, a
 * metric whose events are all in an earlier metric's own group is counted
 * in that group (perf's merge) and printed on the first of its events
 * there; an uncore event the table says how to open (CHA, iMC, ...) is
 * opened on every instance of its PMU, after the core group and outside
 * it; any other event that is no core event (MSR, energy) fails the setup
 * naming the metric and the event. A metric of no event counts
 * duration_time (perf's rule) when it merges into no group. Without a core
 * PMU (a VM without PMU virtualization) the metrics still resolve in the
 * CPU's table: their events, core or not, are absent evsels (never opened,
 * <not supported>, ungrouped), each metric printed on its first event and
 * saying what it needs when it cannot be computed, its value when it can
 * (a metric of no event merges into none there); one note says so.
 * A metric both core types of a hybrid have is two metrics (one per PMU,
 * never merged across PMUs); there the events are named PMU/EVENT/
 * ("cpu_atom/TOPDOWN_RETIRING.ALL/") as perf prints hybrid events.
 * It lives beside TopDown because it needs both the metric tables and
 * TopDown's PERF_METRICS rule (a slots leader), as topdown.c does; it
 * never prints (the open's weak-group notes are the evlist's warnings). */
#include <pmukit/topdown.h>

#include "events/evlist_internal.h"
#include "metrics/metric_tables.h"
#include "topdown/td_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct mg_metric {
	size_t side;               /* the core PMU whose table has it */
	long row;                  /* in that table */
	int arg;                   /* the -M list's name that first named it: 0, 1, ... */
	size_t first, nr;          /* the group counting it, [first, first + nr) in the
				    * event list: its own, or merged an earlier metric's */
	size_t anchor;             /* the evsel whose line prints it */
	bool owns;                 /* the group is its own */
	char **ev;                 /* during setup: its events' names and configs */
	uint64_t *cfg;
	const char **spec;         /* and for an uncore event its text on that PMU
				    * (every instance), else NULL */
	size_t nev;
	char *label;               /* perf's metric unit: "%  tma_retiring", or the name */
	char *needs;               /* without a core PMU: "needs EVENT and N more events",
				    * said when it cannot be computed; else NULL */
} mg_metric;

/* A core PMU and its CPU's metric table. */
typedef struct mg_side {
	char pmu[32];              /* "cpu", "cpu_core", "cpu_atom"; "" without a core PMU */
	pk_metric_table *table;    /* its vendor metrics */
	pk_metric_literal lit[PK_TOPDOWN_HOST_LITERALS + 2]; /* #smt_on, #tsc_hz, ..., #slots, #midr */
	size_t nr_lit;
} mg_side;

#define MG_SIDES 4

struct pk_metric_groups {
	mg_side side[MG_SIDES];    /* the core PMUs, cpu_core first (perf's order) */
	size_t nr_sides;
	bool hybrid;               /* more than one: events named PMU/EVENT/ */
	mg_metric *v;
	size_t nr;
	bool no_merge;             /* --metric-no-merge: a group per metric */
	bool absent;               /* no core PMU: the metrics' events are absent evsels */
};

pk_metric_groups *pk_metric_groups_new(void)
{
	return calloc(1, sizeof(pk_metric_groups));
}

void pk_metric_groups_no_merge(pk_metric_groups *mg, bool no_merge)
{
	mg->no_merge = no_merge;
}

static int add_metric(pk_metric_groups *mg, size_t side, long row, int arg)
{
	for (size_t i = 0; i < mg->nr; i++)
		if (mg->v[i].side == side && mg->v[i].row == row)
			return 0;
	mg_metric *v = realloc(mg->v, (mg->nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	mg->v = v;
	v[mg->nr++] = (mg_metric){.side = side, .row = row, .arg = arg};
	return 0;
}

static const pk_metric_def *def_of(const pk_metric_groups *mg, const mg_metric *m)
{
	return pk_metric_table_def(mg->side[m->side].table, (size_t)m->row);
}

/* Every row each comma-separated name of the list names; *arg numbers the
 * names across lists. */
static int resolve(pk_metric_groups *mg, const char *names, int *arg, pk_error *err)
{
	char *copy = strdup(names), *save = NULL;
	if (!copy)
		return pk_err(err, -ENOMEM, "out of memory");
	int r = 0;
	for (char *n = strtok_r(copy, ",", &save); n && r == 0;
	     n = strtok_r(NULL, ",", &save), (*arg)++) {
		bool found = false;
		for (size_t s = 0; s < mg->nr_sides; s++) {
			const pk_metric_table *t = mg->side[s].table;
			for (size_t i = 0; i < pk_metric_table_nr(t) && r == 0; i++) {
				/* perf 6.1 takes "all" for every metric */
				if (strcmp(n, "all") && !pk_metric_named(pk_metric_table_def(t, i), n))
					continue;
				found = true;
				if (add_metric(mg, s, (long)i, *arg) < 0)
					r = pk_err(err, -ENOMEM, "out of memory");
			}
		}
		if (!found && r == 0)
			r = pk_err(err, -EINVAL, "Cannot find metric or group `%s'", n);
	}
	free(copy);
	return r;
}

static int by_name(const void *a, const void *b, void *mg)
{
	return strcmp(def_of(mg, a)->name, def_of(mg, b)->name);
}

/* perf 6.1's order: most events first; ties as perf lists them before
 * sorting, each name's metrics before the previous name's, and a name's
 * (a group's) metrics in reverse name order. */
static int by_events(const void *a, const void *b, void *mg)
{
	const mg_metric *x = a, *y = b;
	if (x->nev != y->nev)
		return x->nev > y->nev ? -1 : 1;
	if (x->arg != y->arg)
		return x->arg > y->arg ? -1 : 1;
	int c = by_name(b, a, mg);
	return c ? c : (x->side > y->side) - (x->side < y->side);
}

/* Event name on pmu, or absent (pmu NULL: no core PMU counts it, never
 * opened; its raw config kept as the table has it). */
static int add_event(pk_evlist *l, const pk_pmu *pmu, const char *name, uint64_t config,
		     pk_error *err)
{
	struct perf_event_attr a = {.type = pmu ? pmu->type : PERF_TYPE_RAW, .size = sizeof(a),
				    .config = config};
	pk_evsel *e = pk_evlist_add(l, &a, name, pmu);
	if (!e)
		return pk_err(err, -ENOMEM, "out of memory");
	e->absent = !pmu;
	return 0;
}

/* Uncore event name as spec says (uncore_cha/event=..,umask=../, msr/tsc/),
 * one evsel per instance of its PMU (uncore_cha_0 ...), each called name
 * (msr/tsc/ is its own): the engine sums them and counts them for
 * source_count. */
static int add_uncore(pk_evlist *l, const pk_pmus *pmus, const char *name, const char *spec,
		      pk_error *err)
{
	char *text = NULL;
	size_t n = strlen(spec);
	if (strchr(name, '/')) /* msr/tsc/: its own name */
		text = strdup(spec);
	else if (asprintf(&text, "%.*s,name=%s/", (int)(n - 1), spec, name) < 0)
		text = NULL;
	if (!text)
		return pk_err(err, -ENOMEM, "out of memory");
	int r = pk_evlist_parse(l, pmus, text, NULL, err);
	free(text);
	return r;
}

/* Without a core PMU, what a metric m that cannot be computed needs: its
 * first event, and how many more. */
static int set_needs(mg_metric *m)
{
	if (!m->nev)
		return 0;
	int n = m->nev > 1 ? asprintf(&m->needs, "needs %s and %zu more event%s", m->ev[0],
				      m->nev - 1, m->nev > 2 ? "s" : "")
			   : asprintf(&m->needs, "needs %s", m->ev[0]);
	if (n < 0)
		m->needs = NULL;
	return n < 0 ? -ENOMEM : 0;
}

/* Appends event name (PMU/name/ with pmu: a hybrid's) to m's; spec: an
 * uncore event's text (pki_metric_event_spec). */
static int push_event(mg_metric *m, const char *pmu, const char *name, uint64_t config,
		      const char *spec)
{
	char **ev = realloc(m->ev, (m->nev + 1) * sizeof(*ev));
	if (ev)
		m->ev = ev;
	uint64_t *cfg = ev ? realloc(m->cfg, (m->nev + 1) * sizeof(*cfg)) : NULL;
	if (cfg)
		m->cfg = cfg;
	const char **sp = cfg ? realloc(m->spec, (m->nev + 1) * sizeof(*sp)) : NULL;
	if (sp)
		m->spec = sp;
	char *copy = NULL;
	if (!sp)
		return -ENOMEM;
	if (pmu && !spec)
		copy = asprintf(&copy, "%s/%s/", pmu, name) < 0 ? NULL : copy;
	else
		copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	m->ev[m->nev] = copy;
	m->spec[m->nev] = spec;
	m->cfg[m->nev++] = config;
	return 0;
}

/* Metric m's events in the order they are opened: the formula's first
 * mentions, slots first (added when it names PERF_METRICS events without
 * it: they need a slots leader), the uncore events last (outside the core
 * PMU's group). */
static int collect_events(pk_metric_groups *mg, mg_metric *m, const pk_cpuid *id, pk_error *err)
{
	const pk_metric_def *d = def_of(mg, m);
	const char *pmu = mg->side[m->side].pmu, *prefix = mg->hybrid ? pmu : NULL;
	pk_expr *e = pk_expr_parse(d->formula, err);
	if (!e)
		return err->code;
	size_t n = pk_expr_nr_refs(e);
	uint64_t *cfg = calloc(n ? n : 1, sizeof(*cfg));
	const char **spec = calloc(n ? n : 1, sizeof(*spec));
	int r = cfg && spec ? 0 : pk_err(err, -ENOMEM, "out of memory");
	bool metrics = false, slots = false;
	for (size_t i = 0; i < n && r == 0; i++) {
		const char *ev = pk_expr_ref(e, i);
		if (ev[0] == '#')
			continue;
		r = pk_metric_event_config(id, *pmu ? pmu : NULL, ev, &cfg[i], err);
		if (r == -EOPNOTSUPP && !mg->absent) /* on its uncore PMU, if it opens there */
			spec[i] = pki_metric_event_spec(id, *pmu ? pmu : NULL, ev);
		if (r == -EOPNOTSUPP && (mg->absent || spec[i])) /* absent as the core ones are */
			r = 0;
		if (r < 0) { /* the message written into itself would overlap: a copy */
			char why[sizeof(err->msg)];
			snprintf(why, sizeof(why), "%s", err->msg);
			r = pk_err(err, r, "metric %s: %s", d->name, why);
		}
		metrics |= pk_topdown_metric_field(cfg[i] & 0xffff) >= 0;
		slots |= cfg[i] == 0x0400;
	}
	if (r == 0 && metrics && !slots && push_event(m, prefix, "TOPDOWN.SLOTS", 0x0400, NULL) < 0)
		r = pk_err(err, -ENOMEM, "out of memory");
	for (int pass = 0; pass < 3 && r == 0; pass++) /* slots, the others, uncore */
		for (size_t i = 0; i < n && r == 0; i++)
			if (pk_expr_ref(e, i)[0] != '#' &&
			    pass == (spec[i] ? 2 : cfg[i] == 0x0400 ? 0 : 1) &&
			    push_event(m, prefix, pk_expr_ref(e, i), cfg[i], spec[i]) < 0)
				r = pk_err(err, -ENOMEM, "out of memory");
	free(cfg);
	free(spec);
	pk_expr_free(e);
	return r;
}

static bool has_event(const mg_metric *m, const char *name)
{
	for (size_t i = 0; i < m->nev; i++)
		if (!strcmp(m->ev[i], name))
			return true;
	return false;
}

/* perf's merge: an earlier metric with a group of its own that has every
 * event of m, or NULL. */
static const mg_metric *merge_into(const pk_metric_groups *mg, size_t from, size_t i)
{
	const mg_metric *m = &mg->v[i];
	for (size_t j = from; j < i; j++) {
		const mg_metric *n = &mg->v[j];
		bool all = n->owns && n->side == m->side;
		for (size_t k = 0; k < m->nev && all; k++)
			all = has_event(n, m->ev[k]);
		if (all)
			return n;
	}
	return NULL;
}

/* Places metric i: in an earlier metric's group (merged), else its events
 * appended as a group of its own (lone events with no_group); its line is
 * the group's first event it names. */
static int place_metric(pk_metric_groups *mg, size_t from, size_t i, const pk_pmus *pmus,
			bool no_group, pk_evlist *l, pk_error *err)
{
	mg_metric *m = &mg->v[i];
	/* a metric of no event merges into any group; without a core PMU
	 * that group's line is <not supported>, which prints no value: it
	 * counts its own duration_time (below) */
	bool merge = !mg->no_merge && !(mg->absent && !m->nev);
	const mg_metric *into = merge ? merge_into(mg, from, i) : NULL;
	const pk_pmu *pmu = mg->absent ? NULL : pk_pmus_find(pmus, mg->side[m->side].pmu);
	int r = mg->absent ? set_needs(m) : 0;
	if (r < 0)
		return pk_err(err, r, "out of memory");
	if (into) {
		m->first = into->first;
		m->nr = into->nr;
	} else {
		m->owns = true;
		m->first = pk_evlist_count(l);
		size_t core = 0;
		for (size_t k = 0; k < m->nev && r == 0 && !m->spec[k]; k++, core++)
			r = add_event(l, pmu, m->ev[k], m->cfg[k], err);
		for (size_t k = core; k < m->nev && r == 0; k++)
			r = add_uncore(l, pmus, m->ev[k], m->spec[k], err);
		/* perf's rule: a metric of no event counts duration_time */
		if (r == 0 && !m->nev)
			r = pk_evlist_parse(l, pmus, "duration_time", NULL, err);
		m->nr = pk_evlist_count(l) - m->first;
		if (r == 0 && !no_group && core > 1 && pmu) /* perf's {...}:W */
			pk_evlist_group_weak(l, m->first, core);
	}
	m->anchor = m->first;
	for (size_t k = m->first; k < m->first + m->nr; k++)
		if (has_event(m, pk_evsel_name(pk_evlist_at(l, k)))) {
			m->anchor = k;
			break;
		}
	return r;
}

static void free_events(mg_metric *m)
{
	for (size_t k = 0; k < m->nev; k++)
		free(m->ev[k]);
	free(m->ev);
	free(m->cfg);
	free(m->spec);
	m->ev = NULL;
	m->cfg = NULL;
	m->spec = NULL;
	m->nev = 0;
}

static int make_label(pk_metric_groups *mg, mg_metric *m)
{
	const pk_metric_def *d = def_of(mg, m);
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

/* The machine's literals, the CPU's (#midr), and #slots from the core PMU's
 * caps/slots (Arm's topdown metrics: perf reads the same file). */
static void set_literals(mg_side *side, const pk_kernel *k, const pk_pmu *pmu, const pk_cpuid *id)
{
	side->nr_lit = pk_topdown_host_literals(k, side->lit, PK_TOPDOWN_HOST_LITERALS);
	side->nr_lit += pki_cpuid_literals(id, side->lit + side->nr_lit, 1);
	const char *slots = pmu ? pk_pmu_cap(pmu, "slots") : NULL;
	char *end;
	double v = slots ? strtod(slots, &end) : 0;
	if (slots && end != slots && v > 0)
		side->lit[side->nr_lit++] = (pk_metric_literal){"#slots", v};
}

/* One side per core PMU (cpu_core first, perf's order; one without a
 * PMU on a machine without any, for the tables' names and perf's error),
 * each with its CPU's table for that PMU. */
static int set_sides(pk_metric_groups *mg, const pk_pmus *pmus, const pk_kernel *k,
		     const pk_cpuid *id, pk_error *err)
{
	const pk_pmu *pc = pk_pmus_find(pmus, "cpu_core");
	size_t n = pk_pmus_nr_core(pmus);
	for (size_t i = 0; i <= n && mg->nr_sides < MG_SIDES; i++) {
		const pk_pmu *pmu = i == 0 ? pc : pk_pmus_core_at(pmus, i - 1);
		if ((i > 0 && pmu == pc) || (i == 0 && !pc && n))
			continue;
		mg_side *s = &mg->side[mg->nr_sides++];
		snprintf(s->pmu, sizeof(s->pmu), "%s", pmu ? pmu->name : "");
		size_t nr;
		const pk_metric_def *rows = pk_metric_defs_cpu(id, pmu ? pmu->name : NULL, &nr, NULL);
		s->table = pk_metric_table_new(rows, nr, err);
		if (!s->table)
			return err->code ? err->code : -ENOMEM;
		set_literals(s, k, pmu, id);
	}
	mg->hybrid = mg->nr_sides > 1;
	return 0;
}

static bool any_table(const pk_metric_groups *mg)
{
	for (size_t s = 0; s < mg->nr_sides; s++)
		if (pk_metric_table_nr(mg->side[s].table))
			return true;
	return false;
}

int pk_metric_groups_add(pk_metric_groups *mg, const char *names, const pk_pmus *pmus,
			 const pk_kernel *k, const char *cpuid, bool no_group, pk_evlist *evlist,
			 pk_error *err)
{
	pk_cpuid id;
	int r = cpuid ? pk_cpuid_parse(cpuid, &id, err) : pk_host_cpuid(k, &id, err);
	if (r == 0 && !mg->nr_sides)
		r = set_sides(mg, pmus, k, &id, err);
	if (r < 0)
		return r;
	size_t before = mg->nr;
	int arg = 0;
	r = resolve(mg, names, &arg, err);
	if (r < 0 && !any_table(mg))
		pk_err_hint(err, "pmukit has no metric table for this CPU (%s): it has Intel's for "
			    "Haswell to Granite Rapids, the hybrid parts (Alder Lake to Arrow "
			    "Lake) and the E-core servers, AMD's "
			    "for Zen 2-5, Arm's for Neoverse N1, V1, N2 and V2 (PMUKIT_CPUID or "
			    "PERF_CPUID chooses one: `PERF_CPUID=GenuineIntel-6-5E-3 pmukit list "
			    "metric` lists Skylake's); TopDown here: `pmukit stat --topdown`", id.str);
	if (r < 0)
		return r;
	if (!pk_pmus_nr_core(pmus) && mg->nr > before && !mg->absent) {
		mg->absent = true;
		pk_evlist_warn(evlist, "note: no core PMU in %s/bus/event_source/devices (a VM "
				       "without PMU virtualization?): the metrics' hardware events are "
				       "<not supported> and metrics that need them are not computed; "
				       "software events, duration_time and metrics of no event still "
				       "count",
			       pk_pmus_root(pmus));
	}
	for (size_t i = before; i < mg->nr && r == 0; i++)
		r = collect_events(mg, &mg->v[i], &id, err);
	if (r == 0)
		qsort_r(mg->v + before, mg->nr - before, sizeof(*mg->v), by_events, mg);
	for (size_t i = before; i < mg->nr && r == 0; i++) {
		r = place_metric(mg, before, i, pmus, no_group, evlist, err);
		if (r == 0 && make_label(mg, &mg->v[i]) < 0)
			r = pk_err(err, -ENOMEM, "out of memory");
	}
	for (size_t i = before; i < mg->nr; i++)
		free_events(&mg->v[i]);
	return r;
}

/* The nth metric printed on evsel ev: perf 6.1 prints the metrics of one
 * event last placed first. */
static const mg_metric *nth_at(const pk_metric_groups *mg, size_t ev, size_t nth)
{
	for (size_t i = mg->nr; i-- > 0;)
		if (mg->v[i].nr && mg->v[i].anchor == ev && nth-- == 0)
			return &mg->v[i];
	return NULL;
}

int pk_metric_groups_value(const pk_metric_groups *mg, const pk_metric_counts *in, size_t idx, size_t nth,
		  pk_metric_group_value *out)
{
	const pk_metric_count *c = &in->v[idx];
	const mg_metric *m = nth_at(mg, (size_t)pk_evsel_idx(c->evsel), nth);
	if (!m)
		return 0;
	const mg_side *side = &mg->side[m->side];
	const pk_metric_def *d = pk_metric_table_def(side->table, (size_t)m->row);
	*out = (pk_metric_group_value){.label = m->label, .name = d->name};
	/* the counts of the metric's group in this bucket */
	pk_metric_count *sub = malloc((in->nr ? in->nr : 1) * sizeof(*sub));
	if (!sub)
		return -ENOMEM;
	size_t n = 0;
	for (size_t j = 0; j < in->nr; j++) {
		size_t e = (size_t)pk_evsel_idx(in->v[j].evsel);
		if (in->v[j].key == c->key && e >= m->first && e < m->first + m->nr)
			sub[n++] = in->v[j];
	}
	/* the caller's (up to 8) and the side's (the machine's, #slots, #midr) */
	enum { NL = 8 + PK_TOPDOWN_HOST_LITERALS + 2 };
	pk_metric_literal lit[NL];
	size_t nl = pki_literals_append(lit, 0, NL, in->lit, in->nr_lit);
	nl = pki_literals_append(lit, nl, NL, side->lit, side->nr_lit);
	pk_metric_counts own = {.v = sub, .nr = n, .lit = lit, .nr_lit = nl};
	pk_metric_value v;
	if (pk_metric_eval(side->table, (size_t)m->row, &own, 0, &v) == 1) {
		out->have = true;
		out->value = v.value;
		out->style = d->style;
	}
	out->why = m->needs;
	free(sub);
	return 1;
}

void pk_metric_groups_free(pk_metric_groups *mg)
{
	if (!mg)
		return;
	for (size_t i = 0; i < mg->nr; i++) {
		free(mg->v[i].label);
		free(mg->v[i].needs);
		free_events(&mg->v[i]);
	}
	free(mg->v);
	for (size_t s = 0; s < mg->nr_sides; s++)
		pk_metric_table_free(mg->side[s].table);
	free(mg);
}
