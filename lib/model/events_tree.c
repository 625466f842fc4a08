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
 *   more than 1e-9 (or 200 sweeps).
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
		const char *ref = pk_expr_ref(e, i);
		long ev = ref[0] == '#' ? -1 : pki_td_find_event(c->t, ref);
		v[i] = ref[0] == '#' ? literal(c, ref) : ev >= 0 ? c->rate[ev] : NAN;
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
	for (int i = 0; i < 12 && !(isfinite(flo) && isfinite(fhi) && flo * fhi <= 0); i++) {
		hi *= 2; /* up to 4096 counts per cycle */
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

static int solve(pki_tree_rates *out, const pki_core *core, const pki_phase *ph, pk_error *err)
{
	const pki_td_table *t = out->t;
	size_t nr = t->nr_rows + 1, ne = t->nr_events + 1;
	tree_ctx c = {.t = t, .core = core, .ph = ph, .f = calloc(nr, sizeof(pk_expr *)),
		      .target = calloc(nr, sizeof(double)), .rate = out->rate,
		      .unknown = out->unknown, .owns = calloc(nr, sizeof(long))};
	int rc = c.f && c.target && c.owns ? 0 : pk_err(err, -ENOMEM, "out of memory");
	for (size_t r = 0; r < t->nr_rows && rc == 0; r++)
		if (pki_td_row_level(&t->rows[r]) >= 3 &&
		    !(c.f[r] = pk_expr_parse(t->rows[r].formula, err)))
			rc = err->code;
	if (rc == 0)
		rc = known_rates(&c, err);
	if (rc == 0) {
		targets(&c);
		assign(&c);
		sweep_all(&c);
	}
	for (size_t r = 0; c.f && r < t->nr_rows; r++)
		pk_expr_free(c.f[r]);
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
