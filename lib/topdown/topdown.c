/* TopDown: the one engine over the method tables (td_internal.h). It picks
 * a method per core PMU (td_methods.c), compiles the method's rows into a
 * metrics table once, lists the events the chosen level's formulas need,
 * adds them to an evlist grouped as the kernel wants, and evaluates the
 * rows over counts with the metrics engine. Nothing here knows a CPU: PMU
 * knowledge is the tables.
 *
 * Invariants: a block's events are exactly those its rows up to the level
 * name (rows they refer to included); an event a formula names but the
 * table lacks is -EINVAL naming both (a table bug, tested); grouped events
 * form one group led by the first of them (slots); the library never
 * prints and never invents a value (NaN: not computable). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/topdown.h>

#include "core/util.h"
#include "events/pfm.h"
#include "pmu/cpuid_internal.h"
#include "topdown/td_internal.h"

/* Room for the caller's literals plus #slots, #smt_on, #threads. */
#define PKI_TD_LITERALS 16

typedef struct td_block {
	const pk_pmu *pmu;
	const pki_td_method *method;
	pk_vendor vendor;
	pk_metric_table *table;
	int width;                 /* #slots */
	bool *need;                /* per table event: used at this level */
	const pk_evsel *anchor;    /* its first evsel once added */
} td_block;

struct pk_topdown {
	td_block *b;
	size_t nr;
	int level;
	bool smt;
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

static long find_event(const pki_td_table *t, const char *name)
{
	for (size_t i = 0; i < t->nr_events; i++)
		if (!strcmp(t->events[i].name, name))
			return (long)i;
	return -1;
}

static long find_row(const pki_td_table *t, const char *name)
{
	for (size_t i = 0; i < t->nr_rows; i++)
		if (!strcmp(t->rows[i].name, name))
			return (long)i;
	return -1;
}

/* Marks the events row r needs (and those of the rows it names). depth
 * bounds the walk (the metrics table refused cycles already). */
static int mark_row(const pki_td_table *t, size_t r, bool *need, int depth, pk_error *err)
{
	if (depth > 16)
		return pk_err(err, -EINVAL, "topdown table: rows nested too deep at '%s'",
			      t->rows[r].name);
	pk_expr *e = pk_expr_parse(t->rows[r].formula, err);
	if (!e)
		return err->code;
	int rc = 0;
	for (size_t i = 0; i < pk_expr_nr_refs(e) && !rc; i++) {
		const char *ref = pk_expr_ref(e, i);
		long ev, row;
		if (ref[0] == '#')
			continue;
		if ((row = find_row(t, ref)) >= 0)
			rc = mark_row(t, (size_t)row, need, depth + 1, err);
		else if ((ev = find_event(t, ref)) >= 0)
			need[ev] = true;
		else
			rc = pk_err(err, -EINVAL, "topdown table: row '%s' names '%s', which is "
						   "neither a row nor an event of the table",
				    t->rows[r].name, ref);
	}
	pk_expr_free(e);
	return rc;
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
	b->table = pk_metric_table_new(t->rows, t->nr_rows, err);
	b->need = calloc(t->nr_events ? t->nr_events : 1, sizeof(*b->need));
	if (!b->table || !b->need)
		return err->code ? err->code : pk_err(err, -ENOMEM, "out of memory");
	bool metrics = false;
	for (size_t r = 0; r < t->nr_rows; r++)
		if (pki_td_row_level(&t->rows[r]) <= td->level) {
			int rc = mark_row(t, r, b->need, 0, err);
			if (rc < 0)
				return rc;
		}
	for (size_t i = 0; i < t->nr_events; i++)
		metrics |= b->need[i] && t->events[i].grouped;
	/* metric events need their slots leader (the kernel's rule) */
	for (size_t i = 0; i < t->nr_events && metrics; i++)
		if (t->events[i].grouped && (t->events[i].config & 0xffff) == 0x0400)
			b->need[i] = true;
	return 0;
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
	if (opts->level < 0 || opts->level > 2) {
		pk_err(err, -EINVAL, "Invalid top-down metrics level %d. The max level is 2.",
		       opts->level);
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
		if (rc == 0 && td->level > m->max_level)
			rc = pk_err(err, -EINVAL, "Invalid top-down metrics level %d. The max "
						  "level is %d (%s on '%s').",
				    td->level, m->max_level, m->name, p->name);
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
		pk_metric_table_free(td->b[i].table);
		free(td->b[i].need);
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
	return b < td->nr ? BLOCK(td, b)->method->max_level : 0;
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

/* Adds the block's needed events of one kind; grouped ones in the order of
 * their configs, so slots (0x0400) leads the metric events (0x80NN) and
 * those follow in PERF_METRICS byte order. *added: how many. */
static int add_kind(td_block *b, pk_evlist *l, bool grouped, size_t *added, pk_error *err)
{
	const pki_td_table *t = b->method->table;
	bool *done = calloc(t->nr_events ? t->nr_events : 1, sizeof(*done));
	if (!done)
		return pk_err(err, -ENOMEM, "out of memory");
	*added = 0;
	for (;;) {
		long pick = -1;
		for (size_t i = 0; i < t->nr_events; i++)
			if (b->need[i] && !done[i] && t->events[i].grouped == grouped &&
			    (pick < 0 || (grouped && t->events[i].config < t->events[pick].config)))
				pick = (long)i;
		if (pick < 0)
			break;
		done[pick] = true;
		struct perf_event_attr a = {.type = b->pmu->type, .size = sizeof(a),
					    .config = event_config(b, &t->events[pick])};
		pk_evsel *e = pk_evlist_add(l, &a, t->events[pick].name, b->pmu);
		if (!e) {
			free(done);
			return pk_err(err, -ENOMEM, "out of memory");
		}
		if (!b->anchor)
			b->anchor = e;
		(*added)++;
	}
	free(done);
	return 0;
}

int pk_topdown_add_events(pk_topdown *td, pk_evlist *evlist, pk_error *err)
{
	if (!td || !evlist)
		return pk_err(err, -EINVAL, "pk_topdown_add_events: NULL argument");
	for (size_t i = 0; i < td->nr; i++) {
		td_block *b = &td->b[i];
		size_t first = pk_evlist_count(evlist), n;
		b->anchor = NULL;
		int rc = add_kind(b, evlist, true, &n, err);
		if (rc < 0)
			return rc;
		if (n > 1)
			pk_evlist_group(evlist, first, n);
		rc = add_kind(b, evlist, false, &n, err);
		if (rc < 0)
			return rc;
	}
	return 0;
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
	size_t nl = 0;
	for (size_t i = 0; i < counts->nr_lit && nl < PKI_TD_LITERALS - 3; i++)
		lit[nl++] = counts->lit[i];
	lit[nl++] = (pk_metric_literal){"#slots", (double)b->width};
	lit[nl++] = (pk_metric_literal){"#smt_on", td->smt ? 1 : 0};
	lit[nl++] = (pk_metric_literal){"#threads", td->smt ? 2 : 1};
	in.lit = lit;
	in.nr_lit = nl;
	size_t n = 0;
	for (size_t r = 0; r < pk_metric_table_nr(b->table); r++) {
		const pk_metric_def *d = pk_metric_table_def(b->table, r);
		if (pki_td_row_level(d) > td->level)
			continue;
		if (n < cap) {
			pk_topdown_node *o = &out[n];
			pk_metric_value mv;
			*o = (pk_topdown_node){.pmu = b->pmu->name, .name = d->name,
					       .parent = d->parent, .level = pki_td_row_level(d),
					       .description = d->description,
					       .threshold = d->threshold, .value = NAN};
			if (pk_metric_eval(b->table, r, &in, anchor, &mv) && isfinite(mv.value)) {
				o->value = mv.value;
				o->computable = true;
				o->has_threshold = mv.has_threshold;
				o->over_threshold = mv.over_threshold;
			}
		}
		n++;
	}
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
