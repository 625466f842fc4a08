/* The events of a phase below Level 2: TopDown's deeper nodes (Intel's
 * Levels 3-6) from the method's own formulas (lib/topdown's tables), so a
 * scenario may give any node of the tree and `stat --topdown --td-level 3+`
 * on the model reproduces it (docs/model.md, "Deeper nodes").
 *
 * For a phase and the core's table, every event a deeper node's formula
 * names that no row of the family's tables counts (events_*.c: those stay
 * as they are, so Levels 1-2 and every other method keep their counts) is
 * an unknown, solved per phase:
 * - each deeper node has a target share: the scenario's ("tma": {"l2_bound":
 *   0.05}); else its parent's share less the given siblings', split evenly
 *   among the siblings not given (never below 0) -- the split rule;
 * - each node owns one unknown of its formula (nodes with fewer unknowns
 *   choose first; an unknown is owned once); the others not owned count
 *   PKI_TREE_DEFAULT per cycle;
 * - sweeps set each owned unknown, by bisection, so that its node's formula
 *   gives the target with the others as they are, until no node is off by
 *   more than 1e-9 (or 200 sweeps);
 * - then passes over every unknown (owned or not) move each to the value
 *   that lowers the squared misses of the nodes naming it, never taking a
 *   node that is on its target (PKI_TREE_ON) off it: this places the nodes
 *   whose owned unknown alone could not (the others' defaults too large);
 * - every rate stays in [0, PKI_TREE_MAX] per cycle (a solve that needs
 *   more misses instead of inventing an impossible count);
 * - Intel's latency nodes scale by the core clock, #tsc over #duration_ms:
 *   the nominal rate (ref_ghz; without it they are not solved, and the
 *   model publishes no TSC rate, mhost.c).
 * A node whose formula has no unknown left (every event counted by the
 * rows: Store_Bound over EXE_ACTIVITY.BOUND_ON_STORES, 0) keeps the value
 * the rows give: the model cannot set it, and says which in the error
 * when the scenario gave it (pki_tree_check).
 *
 * Invariants: rates are per core cycle, finite, >= 0; the solved rates of a
 * phase are computed once and kept in the phase (ph->tree); an event no
 * formula names and no row knows stays -ENOENT (never invented). */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pmukit/metrics.h>

#include "core/util.h"
#include "model/events.h"
#include "topdown/td_internal.h"

#define PKI_TREE_DEFAULT 0.02 /* counts per cycle of an unknown no node owns */
#define PKI_TREE_SWEEPS 200
#define PKI_TREE_PASSES 20     /* joint passes over every unknown after the sweeps */
#define PKI_TREE_MAX 16.0      /* counts per cycle: more than a core does */
#define PKI_TREE_NAN 1e6       /* the squared miss of a row not computable */
#define PKI_TREE_ON 0.01       /* pp: a node this close is on its target */

typedef struct pki_tree_rates {
	const pki_td_table *t;
	double *rate;          /* per table event: counts per cycle, NaN: not a deep unknown */
	bool *unknown;
} pki_tree_rates;

typedef struct tree_ctx {
	const pki_td_table *t;
	const pki_core *core;
	const pki_phase *ph;
	pk_expr **f;           /* per row (deeper rows only) */
	double *target;        /* per row, percent */
	double *rate;          /* per event */
	bool *unknown;
	long *owns;            /* per row: the event it sets, -1 */
	long **ref;            /* per row: each reference's event, -1: a literal */
} tree_ctx;

/* Intel's fixed-counter pseudo codes as the rows know them (perf's codes). */
static uint64_t row_config(uint64_t config)
{
	uint64_t code = config & 0xffff;
	if (code == 0x0100)
		return (config & ~0xffffull) | 0xc0;
	if (code == 0x0200)
		return (config & ~0xffffull) | 0x3c;
	return config;
}

static double literal(const tree_ctx *c, const char *name)
{
	if (!strcasecmp(name, "#smt_on"))
		return c->core->smt ? 1 : 0;
	if (!strcasecmp(name, "#threads"))
		return c->core->smt ? 2 : 1;
	if (!strcasecmp(name, "#slots"))
		return c->core->row->width;
	/* Intel's latency nodes scale by the core clock: #tsc (the TSC's ticks)
	 * over #duration_ms, here a second at the nominal rate (ref_ghz; none:
	 * NaN, and the model publishes no TSC rate then either) */
	if (!strcasecmp(name, "#duration_ms"))
		return 1000;
	if (!strcasecmp(name, "#tsc"))
		return c->core->ref_ghz > 0 ? c->core->ref_ghz * 1e9 : NAN;
	return NAN;
}

static double eval_row(const tree_ctx *c, size_t r)
{
	pk_expr *e = c->f[r];
	double v[128];
	size_t n = pk_expr_nr_refs(e);
	if (n > 128)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		long ev = c->ref[r][i];
		v[i] = ev >= 0 ? c->rate[ev] : ev == -1 ? literal(c, pk_expr_ref(e, i)) : NAN;
	}
	return pk_expr_eval(e, v);
}

/* Sets event ev so that row r gives the target: bisection over [0, hi]
 * on whichever side the value moves. False when no value of ev reaches it
 * (ev left as it was). */
static bool solve_one(tree_ctx *c, size_t r, long ev)
{
	double want = c->target[r], lo = 0, hi = 1, was = c->rate[ev];
	c->rate[ev] = lo;
	double flo = eval_row(c, r) - want;
	c->rate[ev] = hi;
	double fhi = eval_row(c, r) - want;
	for (int i = 0; hi < PKI_TREE_MAX && !(isfinite(flo) && isfinite(fhi) && flo * fhi <= 0);
	     i++) {
		hi *= 2; /* up to PKI_TREE_MAX counts per cycle */
		c->rate[ev] = hi;
		fhi = eval_row(c, r) - want;
	}
	if (!(isfinite(flo) && isfinite(fhi) && flo * fhi <= 0)) {
		c->rate[ev] = was; /* not reachable by this event: left as it was */
		return false;
	}
	for (int i = 0; i < 64; i++) {
		double mid = (lo + hi) / 2;
		c->rate[ev] = mid;
		double fm = eval_row(c, r) - want;
		if ((fm <= 0) == (flo <= 0))
			lo = mid, flo = fm;
		else
			hi = mid;
	}
	c->rate[ev] = (lo + hi) / 2;
	return true;
}

/* The counts of the events the family's rows know; the rest unknown. */
static int known_rates(tree_ctx *c, pk_error *err)
{
	for (size_t i = 0; i < c->t->nr_events; i++) {
		const pki_td_event *e = &c->t->events[i];
		pki_event_key key = {.kind = PERF_TYPE_RAW, .config = row_config(e->config)};
		double rate;
		c->unknown[i] = e->grouped || pki_event_rate_rows(c->core, &key, c->ph, &rate, NULL) < 0;
		c->rate[i] = c->unknown[i] ? PKI_TREE_DEFAULT : rate;
		if (e->grouped)
			c->rate[i] = NAN; /* the register's events: Levels 1-2, never in a deeper formula */
	}
	(void)err;
	return 0;
}

/* Node r's target (percent): given, a Level 1-2 node's share, or the split
 * rule over its parent's. */
static void targets(tree_ctx *c)
{
	const pki_td_table *t = c->t;
	double share[12];
	pki_phase_shares(c->ph, share);
	for (size_t r = 0; r < t->nr_rows; r++) {
		const char *name = t->rows[r].name + 4; /* after "tma_" */
		double given = pki_phase_node_given(c->ph, t->rows[r].name);
		long k = pki_tma_key(name);
		c->target[r] = !isnan(given) ? 100 * given : k >= 0 ? 100 * share[k] : NAN;
	}
	for (size_t r = 0; r < t->nr_rows; r++) {
		if (!isnan(c->target[r]) || !t->rows[r].parent)
			continue;
		long p = pki_td_find_row(t, t->rows[r].parent);
		double left = p >= 0 ? c->target[p] : NAN;
		size_t open = 0;
		for (size_t s = 0; s < t->nr_rows; s++) {
			if (!t->rows[s].parent || strcmp(t->rows[s].parent, t->rows[r].parent))
				continue;
			double g = pki_phase_node_given(c->ph, t->rows[s].name);
			if (!isnan(g))
				left -= 100 * g;
			else
				open++;
		}
		double each = open ? left / (double)open : 0;
		for (size_t s = r; s < t->nr_rows; s++)
			if (t->rows[s].parent && !strcmp(t->rows[s].parent, t->rows[r].parent) &&
			    isnan(c->target[s]))
				c->target[s] = each > 0 ? each : 0;
	}
}

/* Each deeper node owns an unknown of its formula, fewest unknowns first. */
static void assign(tree_ctx *c)
{
	const pki_td_table *t = c->t;
	bool *owned = calloc(t->nr_events + 1, sizeof(*owned));
	for (size_t r = 0; r < t->nr_rows; r++)
		c->owns[r] = -1;
	for (size_t want = 1; owned && want <= 16; want++)
		for (size_t r = 0; r < t->nr_rows; r++) {
			if (!c->f[r] || c->owns[r] >= 0)
				continue;
			size_t free_n = 0;
			long first = -1;
			for (size_t i = 0; i < pk_expr_nr_refs(c->f[r]); i++) {
				long ev = pki_td_find_event(t, pk_expr_ref(c->f[r], i));
				if (ev >= 0 && c->unknown[ev] && !owned[ev]) {
					free_n++;
					first = first < 0 ? ev : first;
				}
			}
			if (first >= 0 && free_n <= want) {
				c->owns[r] = first;
				owned[first] = true;
			}
		}
	free(owned);
}

static void sweep_all(tree_ctx *c)
{
	bool *reach = calloc(c->t->nr_rows + 1, sizeof(*reach));
	for (int s = 0; reach && s < PKI_TREE_SWEEPS; s++) {
		for (size_t r = 0; r < c->t->nr_rows; r++)
			if (c->owns[r] >= 0 && !isnan(c->target[r]))
				reach[r] = solve_one(c, r, c->owns[r]);
		double off = 0; /* after the sweep: later nodes moved earlier ones */
		for (size_t r = 0; r < c->t->nr_rows; r++)
			if (reach[r]) {
				double v = eval_row(c, r);
				off = fmax(off, isfinite(v) ? fabs(v - c->target[r]) : INFINITY);
			}
		if (off < 1e-9)
			break;
	}
	free(reach);
}

/* Row r's references bound to the table's events once (-1: a literal, -2:
 * an event the table does not have). */
static int bind_refs(tree_ctx *c, size_t r)
{
	size_t n = pk_expr_nr_refs(c->f[r]);
	c->ref[r] = malloc((n ? n : 1) * sizeof(long));
	if (!c->ref[r])
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *ref = pk_expr_ref(c->f[r], i);
		long ev = ref[0] == '#' ? -1 : pki_td_find_event(c->t, ref);
		c->ref[r][i] = ref[0] == '#' ? -1 : ev >= 0 ? ev : -2;
	}
	return 0;
}

/* The squared misses of the deeper rows naming event ev (all rows: -1); a
 * row that cannot be computed weighs PKI_TREE_NAN. With keep, a row of
 * keep[] (on its target before) that leaves its target makes it infinite:
 * refining a node never takes another off its target. */
static double miss(const tree_ctx *c, long ev, const bool *keep)
{
	double sum = 0;
	for (size_t r = 0; r < c->t->nr_rows; r++) {
		if (!c->f[r] || isnan(c->target[r]))
			continue;
		bool named = ev < 0;
		for (size_t i = 0; !named && i < pk_expr_nr_refs(c->f[r]); i++)
			named = c->ref[r][i] == ev;
		if (!named)
			continue;
		double d = eval_row(c, r) - c->target[r];
		if (keep && keep[r] && !(fabs(d) <= PKI_TREE_ON))
			return INFINITY;
		sum += isfinite(d) ? d * d : PKI_TREE_NAN;
	}
	return sum;
}

/* miss() with ev set to v (and left there). */
static double miss_at(tree_ctx *c, long ev, double v, const bool *keep)
{
	c->rate[ev] = v;
	return miss(c, ev, keep);
}

/* Moves unknown ev to the value in [0, PKI_TREE_MAX] that lowers the misses
 * of the rows naming it most without taking one that is on its target off
 * it (a log scan, then golden-section around the best point); keeps its
 * value when nothing is lower. */
static void refine_one(tree_ctx *c, long ev, bool *keep)
{
	for (size_t r = 0; r < c->t->nr_rows; r++)
		keep[r] = c->f[r] && !isnan(c->target[r]) &&
			  fabs(eval_row(c, r) - c->target[r]) <= PKI_TREE_ON;
	double x = c->rate[ev], low = miss(c, ev, keep);
	for (int i = 0; i <= 32; i++) { /* rates span decades */
		double v = i == 0 ? 0 : PKI_TREE_MAX * pow(2, i - 32), m = miss_at(c, ev, v, keep);
		if (m < low)
			low = m, x = v;
	}
	double a = x / 2, b = x > 0 ? x * 2 : PKI_TREE_MAX * pow(2, -31);
	for (int i = 0; i < 40; i++) {
		double p = b - (b - a) * 0.618034, q = a + (b - a) * 0.618034;
		double mp = miss_at(c, ev, p, keep), mq = miss_at(c, ev, q, keep);
		if (mp < mq)
			b = q;
		else
			a = p;
		if (fmin(mp, mq) < low)
			low = fmin(mp, mq), x = mp < mq ? p : q;
	}
	c->rate[ev] = x;
}

/* Every unknown at once, after the sweeps: passes of refine_one over them
 * while some node misses its target. */
static void refine_all(tree_ctx *c)
{
	bool *keep = calloc(c->t->nr_rows + 1, sizeof(*keep));
	for (int pass = 0; keep && pass < PKI_TREE_PASSES && miss(c, -1, NULL) > 1e-6; pass++)
		for (long ev = 0; (size_t)ev < c->t->nr_events; ev++)
			if (c->unknown[ev])
				refine_one(c, ev, keep);
	free(keep);
}

static int solve(pki_tree_rates *out, const pki_core *core, const pki_phase *ph, pk_error *err)
{
	const pki_td_table *t = out->t;
	size_t nr = t->nr_rows + 1, ne = t->nr_events + 1;
	tree_ctx c = {.t = t, .core = core, .ph = ph, .f = calloc(nr, sizeof(pk_expr *)),
		      .target = calloc(nr, sizeof(double)), .rate = out->rate,
		      .unknown = out->unknown, .owns = calloc(nr, sizeof(long))};
	int rc = c.f && c.target && c.owns ? 0 : pk_err(err, -ENOMEM, "out of memory");
	c.ref = calloc(nr, sizeof(long *));
	if (!c.ref)
		rc = pk_err(err, -ENOMEM, "out of memory");
	for (size_t r = 0; r < t->nr_rows && rc == 0; r++)
		if (pki_td_row_level(&t->rows[r]) >= 3 &&
		    (!(c.f[r] = pk_expr_parse(t->rows[r].formula, err)) || bind_refs(&c, r) < 0))
			rc = err->code ? err->code : pk_err(err, -ENOMEM, "out of memory");
	if (rc == 0)
		rc = known_rates(&c, err);
	if (rc == 0) {
		targets(&c);
		assign(&c);
		sweep_all(&c);
		refine_all(&c);
	}
	for (size_t r = 0; c.f && r < t->nr_rows; r++) {
		pk_expr_free(c.f[r]);
		if (c.ref)
			free(c.ref[r]);
	}
	free(c.ref);
	free(c.f);
	free(c.target);
	free(c.owns);
	(void)ne;
	return rc;
}

int pki_tree_rate(const pki_core *core, const pki_event_key *ev, const pki_phase *ph,
		  double *rate, pk_error *err)
{
	const pki_td_table *t = core->tree;
	if (!t || ev->kind != PERF_TYPE_RAW)
		return -ENOENT;
	if (ph->same_tma)
		ph = ph->same_tma; /* an earlier phase with the same shares: its rates */
	pki_phase *mph = (pki_phase *)ph; /* the cache of solved rates lives in the phase */
	if (!mph->tree || mph->tree->t != t) {
		pki_tree_release(mph);
		pki_tree_rates *tr = calloc(1, sizeof(*tr));
		if (!tr || !(tr->rate = calloc(t->nr_events + 1, sizeof(double))) ||
		    !(tr->unknown = calloc(t->nr_events + 1, sizeof(bool)))) {
			if (tr)
				free(tr->rate);
			free(tr);
			return pk_err(err, -ENOMEM, "out of memory");
		}
		tr->t = t;
		mph->tree = tr;
		int rc = solve(tr, core, ph, err);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < t->nr_events; i++)
		if (mph->tree->unknown[i] && row_config(t->events[i].config) == ev->config) {
			*rate = mph->tree->rate[i] > 0 ? mph->tree->rate[i] : 0;
			return 0;
		}
	return -ENOENT;
}

void pki_tree_release(pki_phase *ph)
{
	if (!ph->tree)
		return;
	free(ph->tree->rate);
	free(ph->tree->unknown);
	free(ph->tree);
	ph->tree = NULL;
}
