/* TopDown: the one engine over the method tables (td_internal.h). It picks
 * a method per core PMU (td_methods.c), compiles the method's rows into a
 * metrics table once, makes one event group per metric of the chosen
 * levels (td_groups.c), adds them to an evlist, and evaluates each row over
 * its own group's counts with the metrics engine, the thresholds over the
 * rows' values. Nothing here knows a CPU or a node: PMU knowledge is the
 * tables.
 *
 * Invariants: a block's events are exactly those its rows up to the level
 * name (rows they refer to included); an event a formula names but the
 * table lacks is -EINVAL naming both (a table bug, tested); a row's value
 * comes from one group's counts only, so no ratio mixes time slices of
 * different groups; the library never prints and never invents a value
 * (NaN: not computable). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/topdown.h>

#include "core/util.h"
#include "events/pfm.h"
#include "events/evlist_internal.h"
#include "pmu/cpuid_internal.h"
#include "topdown/td_internal.h"

/* Room for the caller's literals (up to 8) plus #slots, #smt_on, #threads
 * and the machine's. */
#define PKI_TD_LITERALS (8 + 3 + PK_TOPDOWN_HOST_LITERALS)

typedef struct td_block {
	const pk_pmu *pmu;
	const pki_td_method *method;
	pk_vendor vendor;
	pk_metric_table *table;
	int width;                 /* #slots */
	int level;                 /* the deepest level computed */
	pki_td_groups groups;      /* one per metric (td_groups.c) */
	pk_expr **thr;             /* per row: its threshold, or NULL */
	const pk_evsel *anchor;    /* its first evsel once added */
	/* the pinned references of the multiplexing estimate (td_muxerr.c):
	 * the PERF_METRICS group's metric events, else a pinned instructions
	 * on Intel; none elsewhere */
	const pk_evsel *ref[PKI_TD_MAX_REFS];
	size_t nr_ref;
} td_block;

struct pk_topdown {
	td_block *b;
	size_t nr;
	int level;
	bool smt;
	bool mux_reference;        /* opts.mux_reference */
	pk_metric_literal lit[PK_TOPDOWN_HOST_LITERALS + 1]; /* the machine's (opts.kernel),
							      * the CPU's (#midr) */
	size_t nr_lit;
	const pk_evlist *evlist;   /* pk_topdown_add_events': its events */
	size_t first, nr_events;   /* are evlist's [first, first + nr_events) */
};

void pk_topdown_opts_init(pk_topdown_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->level = 1;
}

bool pk_topdown_host_smt(const pk_kernel *k)
{
	if (!k)
		k = pk_kernel_linux();
	pk_cpu_topology t = {0};
	if (!k->ops->host.topology || k->ops->host.topology(k, 0, &t) < 0)
		return false;
	bool smt = t.thread_siblings && pk_cpumap_nr(t.thread_siblings) > 1;
	pk_cpu_topology_release(&t);
	return smt;
}

static int slots_width(const pk_pmu *pmu, int *width, pk_error *err)
{
	const char *cap = pk_pmu_cap(pmu, "slots");
	char *end = NULL;
	unsigned long v = cap ? strtoul(cap, &end, 0) : 0;
	if (!cap || end == cap || v == 0 || v > 255) {
		pk_err(err, -ENODEV, "core PMU '%s' publishes no slot count (caps/slots%s%s): "
				     "Arm TopDown needs it as the pipeline width",
		       pmu->name, cap ? " = " : " is missing", cap ? cap : "");
		pk_err_hint(err, "the kernel writes caps/slots from PMMIR_EL1 (Linux 5.13 and later) "
				 "on cores with slot events (STALL_SLOT)");
		return -ENODEV;
	}
	*width = (int)v;
	return 0;
}

/* The deepest level the method's table has (its rows' levels), capped by
 * the method's. */
static int table_levels(const pki_td_method *m)
{
	int deepest = 1;
	for (size_t r = 0; r < m->table->nr_rows; r++)
		if (pki_td_row_level(&m->table->rows[r]) > deepest)
			deepest = pki_td_row_level(&m->table->rows[r]);
	return deepest < m->max_level ? deepest : m->max_level;
}

static int parse_thresholds(td_block *b, pk_error *err)
{
	const pki_td_table *t = b->method->table;
	b->thr = calloc(t->nr_rows ? t->nr_rows : 1, sizeof(*b->thr));
	if (!b->thr)
		return pk_err(err, -ENOMEM, "out of memory");
	for (size_t r = 0; r < t->nr_rows; r++)
		if (t->rows[r].threshold && PKI_TD_ROW_ON(&b->groups, r) &&
		    !(b->thr[r] = pk_expr_parse(t->rows[r].threshold, err)))
			return err->code;
	return 0;
}

/* Whether block b gets the pinned instructions reference (add_reference):
 * Intel without PERF_METRICS, when the caller makes the estimate. */
static bool wants_reference(const pk_topdown *td, const td_block *b)
{
	return td->mux_reference && b->vendor == PK_VENDOR_INTEL && !b->method->perf_metrics;
}

static int block_init(pk_topdown *td, td_block *b, pk_error *err)
{
	const pki_td_table *t = b->method->table;
	if (b->method->perf_metrics && !pk_pmu_alias(b->pmu, "slots")) {
		pk_err(err, -ENODEV, "core PMU '%s' has no 'slots' event: this kernel or "
				     "hypervisor does not expose PERF_METRICS, which TopDown "
				     "needs on this CPU", b->pmu->name);
		pk_err_hint(err, "a guest needs the host's PMU passed through with PERF_METRICS "
				 "(Linux 5.9 and later); `--model SCENARIO` shows TopDown on the "
				 "PMU model");
		return -ENODEV;
	}
	b->width = b->method->width;
	if (!b->width && slots_width(b->pmu, &b->width, err) < 0)
		return -ENODEV;
	int max = table_levels(b->method);
	b->level = td->level == PK_TOPDOWN_LEVEL_ALL ? max : td->level;
	if (b->level > max)
		return pk_err(err, -EINVAL, "Invalid top-down metrics level %d. The max level is %d "
					    "(%s on '%s').",
			      td->level, max, b->method->name, b->pmu->name);
	b->table = pk_metric_table_new(t->rows, t->nr_rows, err);
	if (!b->table)
		return err->code ? err->code : pk_err(err, -ENOMEM, "out of memory");
	pki_td_lits lits = {.smt = td->smt, .width = b->width,
			    .floor = PKI_TD_GROUP_FLOOR(b->vendor), .vendor = b->vendor,
			    .fixed0_taken = td->smt && wants_reference(td, b)};
	int rc = pki_td_groups_build(t, b->level, &lits, &b->groups, err);
	return rc < 0 ? rc : parse_thresholds(b, err);
}

static int no_method(const pk_pmus *pmus, const pk_cpuid *id, const char *only, pk_error *err)
{
	if (pk_pmus_nr_core(pmus) == 0) {
		pk_err(err, -ENODEV, "no core PMU in %s/bus/event_source/devices (a VM without "
				     "PMU virtualization?): TopDown needs the CPU's pipeline "
				     "counters", pk_pmus_root(pmus));
	} else if (only) {
		pk_err(err, -ENODEV, "no TopDown method for core PMU '%s' of CPU '%s'", only,
		       id->str);
	} else {
		pk_err(err, -ENODEV, "no TopDown method for CPU '%s' (core PMU '%s')", id->str,
		       pk_pmus_core_at(pmus, 0)->name);
	}
	pk_err_hint(err, "TopDown knows Intel Skylake to Cascade Lake, Ice Lake, Tiger Lake, "
			 "Sapphire Rapids, Alder/Raptor Lake (both core types), Gracemont, "
			 "Crestmont, AMD Zen 4 and Zen 5, Arm Neoverse N1, N2, V1, V2 and cores "
			 "with caps/slots (docs/topdown.md). Software events (-e task-clock,"
			 "page-faults,context-switches) still count; `pmukit stat --topdown "
			 "--model SCENARIO` runs TopDown on the PMU model (docs/model.md).");
	return -ENODEV;
}

pk_topdown *pk_topdown_new(const pk_pmus *pmus, const pk_cpuid *cpuid,
			   const pk_topdown_opts *opts, pk_error *err)
{
	pk_topdown_opts dflt;
	if (!opts) {
		pk_topdown_opts_init(&dflt);
		opts = &dflt;
	}
	if (!pmus || !cpuid) {
		pk_err(err, -EINVAL, "pk_topdown_new: NULL argument");
		return NULL;
	}
	if (pki_cpuid_check_pmus(cpuid, pmus, err) < 0)
		return NULL;
	if ((opts->level < 0 || opts->level > PK_TOPDOWN_MAX_LEVEL) &&
	    opts->level != PK_TOPDOWN_LEVEL_ALL) {
		pk_err(err, -EINVAL, "Invalid top-down metrics level %d. The max level is %d.",
		       opts->level, PK_TOPDOWN_MAX_LEVEL);
		return NULL;
	}
	pk_topdown *td = calloc(1, sizeof(*td));
	size_t n = pk_pmus_nr_core(pmus);
	if (!td || !(td->b = calloc(n ? n : 1, sizeof(*td->b)))) {
		free(td);
		pk_err(err, -ENOMEM, "out of memory");
		return NULL;
	}
	td->level = opts->level ? opts->level : 1;
	td->smt = opts->smt;
	td->mux_reference = opts->mux_reference;
	if (opts->kernel)
		td->nr_lit = pk_topdown_host_literals(opts->kernel, td->lit, PK_TOPDOWN_HOST_LITERALS);
	td->nr_lit += pki_cpuid_literals(cpuid, td->lit + td->nr_lit, 1);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const pk_pmu *p = pk_pmus_core_at(pmus, i);
		const pki_td_method *m = pki_td_find(cpuid, p->name);
		if (!m || (opts->only_pmu && strcmp(opts->only_pmu, p->name)))
			continue;
		td_block *b = &td->b[td->nr++];
		b->pmu = p;
		b->method = m;
		b->vendor = cpuid->vendor;
		rc = block_init(td, b, err);
	}
	if (rc == 0 && td->nr == 0)
		rc = no_method(pmus, cpuid, opts->only_pmu, err);
	if (rc < 0) {
		pk_topdown_free(td);
		return NULL;
	}
	return td;
}

void pk_topdown_free(pk_topdown *td)
{
	if (!td)
		return;
	for (size_t i = 0; i < td->nr; i++) {
		td_block *b = &td->b[i];
		for (size_t r = 0; b->thr && r < b->method->table->nr_rows; r++)
			pk_expr_free(b->thr[r]);
		free(b->thr);
		pk_metric_table_free(b->table);
		pki_td_groups_release(&b->groups);
	}
	free(td->b);
	free(td);
}

size_t pk_topdown_nr_blocks(const pk_topdown *td)
{
	return td ? td->nr : 0;
}

#define BLOCK(td, b) (&(td)->b[(b)])

const char *pk_topdown_block_pmu(const pk_topdown *td, size_t b)
{
	return b < td->nr ? BLOCK(td, b)->pmu->name : NULL;
}

const char *pk_topdown_block_method(const pk_topdown *td, size_t b)
{
	return b < td->nr ? BLOCK(td, b)->method->name : NULL;
}

const char *pk_topdown_block_title(const pk_topdown *td, size_t b)
{
	return b < td->nr ? BLOCK(td, b)->method->title : NULL;
}

const char *pk_topdown_block_note(const pk_topdown *td, size_t b)
{
	return b < td->nr ? BLOCK(td, b)->method->note : NULL;
}

int pk_topdown_block_max_level(const pk_topdown *td, size_t b)
{
	return b < td->nr ? table_levels(BLOCK(td, b)->method) : 0;
}

int pk_topdown_block_level(const pk_topdown *td, size_t b)
{
	return b < td->nr ? BLOCK(td, b)->level : 0;
}

size_t pk_topdown_block_groups(const pk_topdown *td, size_t b)
{
	return b < td->nr ? BLOCK(td, b)->groups.nr : 0;
}

/* The config an event of the table is opened with: its own, except Intel's
 * fixed-counter events, which the tables keep as Intel's files write them
 * (pseudo codes 0x100, 0x200) and which take the general-purpose encodings
 * perf gives them, from lib/events (the one place of that fact). */
static uint64_t event_config(const td_block *b, const pki_td_event *e)
{
	uint64_t config[PK_NR_CONFIGS];
	if (b->vendor == PK_VENDOR_INTEL && !e->grouped &&
	    pki_pfm_fixed_encode(b->pmu, e->name, config))
		return config[0];
	return e->config;
}

/* The group's next event to add: grouped ones (slots, metric events) first
 * in the order of their configs, so slots (0x0400) leads the metric events
 * (0x80NN) in PERF_METRICS byte order; then the others in table order. */
static long next_event(const pki_td_table *t, const pki_td_group *g, const bool *done)
{
	long pick = -1;
	for (size_t i = 0; i < t->nr_events; i++) {
		if (!g->ev[i] || done[i])
			continue;
		if (pick < 0 || (t->events[i].grouped && !t->events[pick].grouped) ||
		    (t->events[i].grouped && t->events[i].config < t->events[pick].config))
			pick = (long)i;
	}
	return pick;
}

static int add_group(td_block *b, pki_td_group *g, pk_evlist *l, bool *done, pk_error *err)
{
	const pki_td_table *t = b->method->table;
	size_t first = pk_evlist_count(l);
	memset(done, 0, (t->nr_events ? t->nr_events : 1) * sizeof(*done));
	free(g->evsel);
	g->nr = 0;
	if (!(g->evsel = calloc(t->nr_events ? t->nr_events : 1, sizeof(*g->evsel))))
		return pk_err(err, -ENOMEM, "out of memory");
	for (long i; (i = next_event(t, g, done)) >= 0;) {
		done[i] = true;
		struct perf_event_attr a = {.type = b->pmu->type, .size = sizeof(a),
					    .config = event_config(b, &t->events[i])};
		/* the slots group takes fixed counter 3 and the register only:
		 * pinned, it counts all the time and costs the others nothing */
		a.pinned = g->metrics && g->nr == 0;
		pk_evsel *e = pk_evlist_add(l, &a, t->events[i].name, b->pmu);
		if (!e)
			return pk_err(err, -ENOMEM, "out of memory");
		g->evsel[g->nr++] = e;
		/* perf's fix_topdown roles: the weak fallback keeps metric events
		 * with their slots leader */
		e->td_role = !t->events[i].grouped ? 0 : (t->events[i].config & 0xffff) == 0x0400 ? 1 : 2;
		if (!b->anchor)
			b->anchor = e;
		if (pk_topdown_metric_field(a.config) >= 0 && b->nr_ref < PKI_TD_MAX_REFS)
			b->ref[b->nr_ref++] = e; /* pinned with slots */
	}
	if (g->nr > 1)
		pk_evlist_group_weak(l, first, g->nr); /* perf's :W */
	return 0;
}

/* Intel without PERF_METRICS, when the caller makes the multiplexing
 * estimate (opts.mux_reference): its reference, a pinned instructions on
 * fixed counter 0. A group that counts instructions then takes a generic
 * counter for them: with SMT on (4 per thread) the groups were made
 * counting it as one (pki_td_lits.fixed0_taken), so each still fits. */
static int add_reference(const pk_topdown *td, td_block *b, pk_evlist *l, pk_error *err)
{
	uint64_t config[PK_NR_CONFIGS];
	if (!wants_reference(td, b) || !pki_pfm_fixed_encode(b->pmu, "INST_RETIRED.ANY", config))
		return 0;
	struct perf_event_attr a = {.type = b->pmu->type, .size = sizeof(a), .config = config[0],
				    .pinned = 1};
	pk_evsel *e = pk_evlist_add(l, &a, "INST_RETIRED.ANY", b->pmu);
	if (!e)
		return pk_err(err, -ENOMEM, "out of memory");
	b->ref[b->nr_ref++] = e;
	return 0;
}

size_t pki_td_block_refs(const pk_topdown *td, size_t b, const pk_evsel *const **refs)
{
	*refs = b < td->nr ? td->b[b].ref : NULL;
	return b < td->nr ? td->b[b].nr_ref : 0;
}

int pk_topdown_add_events(pk_topdown *td, pk_evlist *evlist, pk_error *err)
{
	if (!td || !evlist)
		return pk_err(err, -EINVAL, "pk_topdown_add_events: NULL argument");
	td->evlist = evlist;
	td->first = pk_evlist_count(evlist);
	td->nr_events = 0;
	for (size_t i = 0; i < td->nr; i++) {
		td_block *b = &td->b[i];
		const pki_td_table *t = b->method->table;
		bool *done = calloc(t->nr_events ? t->nr_events : 1, sizeof(*done));
		if (!done)
			return pk_err(err, -ENOMEM, "out of memory");
		b->anchor = NULL;
		b->nr_ref = 0;
		int rc = 0;
		for (size_t g = 0; g < b->groups.nr && rc == 0; g++)
			rc = add_group(b, &b->groups.g[g], evlist, done, err);
		free(done);
		if (rc == 0 && !b->nr_ref)
			rc = add_reference(td, b, evlist, err);
		td->nr_events = pk_evlist_count(evlist) - td->first;
		if (rc < 0)
			return rc;
	}
	return 0;
}

bool pk_topdown_has_evsel(const pk_topdown *td, const pk_evsel *e)
{
	for (size_t i = 0; td->evlist && i < td->nr_events; i++)
		if (pk_evlist_at(td->evlist, td->first + i) == e)
			return true;
	return false;
}

pk_topdown *pk_topdown_new_host(const pk_pmus *pmus, const pk_kernel *k, const char *cpuid,
				const pk_topdown_opts *opts, pk_error *err)
{
	pk_cpuid id;
	int r = cpuid ? pk_cpuid_parse(cpuid, &id, err) : pk_host_cpuid(k, &id, err);
	/* without a core PMU the CPU model does not matter: pk_topdown_new
	 * says that instead */
	if (r < 0 && pk_pmus_nr_core(pmus) == 0 && !cpuid && !pk_cpuid_overridden()) {
		memset(&id, 0, sizeof(id));
		pk_error_clear(err);
		r = 0;
	}
	if (r < 0)
		return NULL;
	pk_topdown_opts o = *opts;
	o.smt = pk_topdown_host_smt(k);
	o.kernel = k;
	return pk_topdown_new(pmus, &id, &o, err);
}

int pk_topdown_check(pk_topdown *td, pk_counting *c, const pk_pmus *pmus, pk_error *err)
{
	pk_evlist *l = pk_counting_evlist(c);
	pk_topdown_opened(td, c);
	for (size_t i = 0; i < pk_evlist_count(l); i++) {
		/* a core type none of the chosen CPUs has (-C on hybrid): its block
		 * counts nothing, the others print */
		pk_open_status st = pk_counting_status(c, i);
		const pk_evsel *e = pk_evlist_at(l, i);
		if (st == PK_OPEN_OK || st == PK_OPEN_NO_CPUS || !pk_topdown_has_evsel(td, e))
			continue;
		pk_error why;
		pk_error_clear(&why);
		pk_counting_explain(c, i, pmus, &why);
		pk_err(err, -EOPNOTSUPP, "TopDown needs every one of its events, and '%s' (%s) could "
					 "not be counted: %s", pk_evsel_name(e), pk_evsel_pmu_name(e),
		       why.msg[0] ? why.msg : "the kernel refused it");
		pk_err_hint(err, "no TopDown numbers are printed without all of them. A "
				 "perf_event_paranoid above 0 (or 2 for -a) needs CAP_PERFMON; software "
				 "events still count (-e task-clock); `--model SCENARIO` shows TopDown "
				 "on the PMU model");
		return err->code;
	}
	return 0;
}

static bool in_group(const pki_td_group *g, const pk_evsel *e);

/* Whether group g was opened split: a member counted with another leader
 * than its first event (the weak group fell back). */
static bool opened_split(const pki_td_group *g, const pk_counting *c, const pk_evlist *l)
{
	long lead = -1;
	for (size_t i = 0; i < pk_evlist_count(l) && g->nr > 1; i++) {
		if (!in_group(g, pk_evlist_at(l, i)))
			continue;
		if (lead < 0)
			lead = (long)i;
		if (pk_counting_leader(c, i) != lead)
			return true;
	}
	return false;
}

void pk_topdown_opened(pk_topdown *td, const pk_counting *c)
{
	const pk_evlist *l = c ? pk_counting_evlist(c) : NULL;
	for (size_t b = 0; td && l && b < td->nr; b++)
		for (size_t g = 0; g < td->b[b].groups.nr; g++)
			td->b[b].groups.g[g].split = opened_split(&td->b[b].groups.g[g], c, l);
}

static bool in_group(const pki_td_group *g, const pk_evsel *e)
{
	for (size_t i = 0; i < g->nr; i++)
		if (g->evsel[i] == e)
			return true;
	return false;
}

/* The counts of groups g1 and g2 (NULL: none) only (all buckets: the
 * engine keeps to the anchor's); *anchor: the first in bucket key, or -1;
 * *running: the least share of its enabled time a counted member ran. */
static size_t group_counts(const pki_td_group *g1, const pki_td_group *g2,
			   const pk_metric_counts *in, int key, pk_metric_count *out, long *anchor,
			   double *running)
{
	size_t n = 0;
	*anchor = -1;
	*running = 1;
	for (size_t i = 0; i < in->nr; i++) {
		const pk_metric_count *c = &in->v[i];
		if (!(g1 && in_group(g1, c->evsel)) && !(g2 && in_group(g2, c->evsel)))
			continue;
		bool mine = key < 0 || c->key == key;
		if (mine && *anchor < 0)
			*anchor = (long)n;
		if (mine && c->counted && c->running > 0 && c->running < *running)
			*running = c->running;
		out[n++] = *c;
	}
	return n;
}

/* Each row's value from its own groups' counts (val, run: per row). */
static void eval_groups(const td_block *b, const pk_metric_counts *in, int key,
			pk_metric_count *sub, double *val, double *run, bool *split)
{
	const pki_td_groups *gs = &b->groups;
	for (size_t r = 0; r < b->method->table->nr_rows; r++) {
		long anchor;
		pk_metric_value mv;
		if (!PKI_TD_ROW_ON(gs, r))
			continue;
		pk_metric_counts gin = *in;
		gin.v = sub;
		const pki_td_group *g1 = gs->row[r] >= 0 ? &gs->g[gs->row[r]] : NULL,
				   *g2 = gs->metric[r] >= 0 ? &gs->g[gs->metric[r]] : NULL;
		gin.nr = group_counts(g1, g2, in, key, sub, &anchor, &run[r]);
		split[r] = (g1 && g1->split) || (g2 && g2->split);
		if (anchor >= 0 && pk_metric_eval(b->table, r, &gin, (size_t)anchor, &mv) &&
		    isfinite(mv.value))
			val[r] = mv.value;
	}
}

/* Row r's threshold over the rows' values (a row not computed is NaN, and
 * a comparison with NaN does not hold). -1: no threshold. */
static int threshold(const td_block *b, size_t r, const double *val)
{
	pk_expr *e = b->thr[r];
	if (!e)
		return -1;
	double v[64];
	size_t n = pk_expr_nr_refs(e);
	for (size_t i = 0; i < n && i < 64; i++) {
		long row = pki_td_find_row(b->method->table, pk_expr_ref(e, i));
		v[i] = row >= 0 ? val[row] : NAN;
	}
	double x = n <= 64 ? pk_expr_eval(e, v) : NAN;
	return !isnan(x) && x != 0;
}

static void fill_nodes(const td_block *b, const double *val, const double *run,
		       const bool *split, pk_topdown_node *out, size_t cap, size_t *n)
{
	const pki_td_table *t = b->method->table;
	for (size_t r = 0; r < t->nr_rows; r++) {
		const pk_metric_def *d = &t->rows[r];
		if (!PKI_TD_ROW_ON(&b->groups, r))
			continue;
		if (*n < cap) {
			int over = threshold(b, r, val);
			out[*n] = (pk_topdown_node){.pmu = b->pmu->name, .name = d->name,
						    .parent = d->parent, .level = pki_td_row_level(d),
						    .description = d->description,
						    .threshold = d->threshold, .value = val[r],
						    .computable = !isnan(val[r]),
						    .has_threshold = over >= 0, .over_threshold = over > 0,
						    .grouped = !split[r], .running = run[r],
						    .sample = t->samples ? t->samples[r] : NULL};
		}
		(*n)++;
	}
}

size_t pk_topdown_compute(const pk_topdown *td, size_t bi, const pk_metric_counts *counts,
			  int key, pk_topdown_node *out, size_t cap)
{
	if (!td || bi >= td->nr || !counts)
		return 0;
	const td_block *b = &td->b[bi];
	long anchor = -1;
	for (size_t i = 0; i < counts->nr && anchor < 0; i++)
		if (counts->v[i].evsel == b->anchor && (key < 0 || counts->v[i].key == key))
			anchor = (long)i;
	if (anchor < 0)
		return 0;
	pk_metric_literal lit[PKI_TD_LITERALS];
	pk_metric_counts in = *counts;
	size_t nr = b->method->table->nr_rows, n = 0;
	const pk_metric_literal own[] = {{"#slots", (double)b->width},
					 {"#smt_on", td->smt ? 1 : 0},
					 {"#threads", td->smt ? 2 : 1}};
	size_t nl = pki_literals_append(lit, 0, PKI_TD_LITERALS - 3, counts->lit, counts->nr_lit);
	nl = pki_literals_append(lit, nl, PKI_TD_LITERALS, own, 3);
	nl = pki_literals_append(lit, nl, PKI_TD_LITERALS, td->lit, td->nr_lit);
	in.lit = lit;
	in.nr_lit = nl;
	pk_metric_count *sub = malloc((counts->nr + 1) * sizeof(*sub));
	double *val = malloc((nr + 1) * 2 * sizeof(*val)), *run = val ? val + nr + 1 : NULL;
	bool *split = calloc(nr + 1, sizeof(*split));
	if (sub && val && split) {
		for (size_t r = 0; r < nr; r++)
			val[r] = NAN, run[r] = 1;
		eval_groups(b, &in, key, sub, val, run, split);
		fill_nodes(b, val, run, split, out, cap, &n);
	}
	free(sub);
	free(val);
	free(split);
	return n;
}

int pk_topdown_series_add(pk_topdown_series *s, double t_ns, size_t block,
			  const pk_topdown_node *nodes, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		if (pki_grow(&s->v, &s->cap, s->nr + 1, sizeof(*s->v)) < 0)
			return -ENOMEM;
		s->v[s->nr++] = (pk_topdown_sample){.t_ns = t_ns, .block = block, .node = nodes[i]};
	}
	return 0;
}

void pk_topdown_series_release(pk_topdown_series *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
