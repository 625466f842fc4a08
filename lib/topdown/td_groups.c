/* TopDown's event groups: one group per metric (tree node) of the chosen
 * levels, as perf groups a metric's events, so that every ratio a node's
 * formula takes is counted over the same time slices even when the groups
 * multiplex (docs/topdown.md, "Grouping").
 *
 * Rules, in this order, for each row up to the level (depth first):
 * - its events are those its formula names (and the rows it names) in the
 *   branches the known literals take (#smt_on: Skylake's _ANY forms with
 *   SMT on, the plain ones without; perf opens only the branch taken);
 * - its PERF_METRICS events go into the one group led by slots, which holds
 *   slots and metric events only: it takes no generic counter and so is
 *   never multiplexed (a second slots group would be: slots has one fixed
 *   counter), and the register's shares are whole-period values;
 * - its other events reuse a group that holds them all (perf's metric
 *   merging), else join one whose union with them still takes at most
 *   PKI_TD_GROUP_FLOOR generic counters (every core of the vendor has
 *   that many per thread, so a merged group always fits; instructions
 *   count as one where the multiplexing reference pins fixed counter 0),
 *   else start their own;
 * - a row reading the register is evaluated over both its groups: the
 *   shares of the register and one group's ratios of generic events.
 * The groups are added weak (:W): a group the PMU cannot schedule at all
 * (a row needing more events than counters: Skylake's memory bound) is
 * opened as lone events instead, metric events kept with slots (lib/
 * counting, perf's fallback), and its nodes say so (grouped false).
 *
 * Invariants: every row up to the level has a group for its generic events
 * (row[]) and/or the slots group (metric[]), which together hold every
 * event its formula needs; the slots group holds slots and metric events
 * only; merging never makes a group take more than the floor unless one
 * row alone needs more. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topdown/td_internal.h"

long pki_td_find_event(const pki_td_table *t, const char *name)
{
	for (size_t i = 0; i < t->nr_events; i++)
		if (!strcmp(t->events[i].name, name))
			return (long)i;
	return -1;
}

long pki_td_find_row(const pki_td_table *t, const char *name)
{
	for (size_t i = 0; i < t->nr_rows; i++)
		if (!strcmp(t->rows[i].name, name))
			return (long)i;
	return -1;
}

/* A literal's value (#smt_on, #threads, #slots), or NaN. */
static double literal(const pki_td_lits *lits, const char *name)
{
	if (!lits)
		return NAN;
	if (!strcasecmp(name, "#smt_on"))
		return lits->smt ? 1 : 0;
	if (!strcasecmp(name, "#threads"))
		return lits->smt ? 2 : 1;
	if (!strcasecmp(name, "#slots"))
		return lits->width;
	return NAN;
}

/* Whether ref i of e can change its value once the literals are known: an
 * event in the branch an `if` on #smt_on does not take never does (perf
 * evaluates the literal when it parses the formula and opens only the
 * branch taken). Sensitive when the value with the ref missing (NaN)
 * differs from with it, or two values of it give two results, in any of a
 * few trials of the other refs; else dead (never without a literal). */
static bool live_ref(const pk_expr *e, size_t i, const pki_td_lits *lits)
{
	size_t n = pk_expr_nr_refs(e);
	double v[64];
	if (!lits || n > 64)
		return true;
	for (unsigned trial = 0; trial < 8; trial++) {
		for (size_t k = 0; k < n; k++) {
			double l = literal(lits, pk_expr_ref(e, k));
			v[k] = !isnan(l) ? l : 1 + (double)((k * 7 + trial * 13) % 17) / 3;
		}
		double with = pk_expr_eval(e, v);
		v[i] = NAN;
		double none = pk_expr_eval(e, v);
		v[i] = 1000 + trial;
		double other = pk_expr_eval(e, v);
		if (isnan(none) != isnan(with) || (!isnan(with) && with != other))
			return true;
	}
	return false;
}

int pki_td_mark_row(const pki_td_table *t, size_t r, const pki_td_lits *lits, bool *need,
		    int depth, pk_error *err)
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
		if ((row = pki_td_find_row(t, ref)) >= 0)
			rc = pki_td_mark_row(t, (size_t)row, lits, need, depth + 1, err);
		else if (!live_ref(e, i, lits))
			continue;
		else if ((ev = pki_td_find_event(t, ref)) >= 0)
			need[ev] = true;
		else
			rc = pk_err(err, -EINVAL, "topdown table: row '%s' names '%s', which is "
						   "neither a row nor an event of the table",
				    t->rows[r].name, ref);
	}
	pk_expr_free(e);
	return rc;
}

/* Whether every event of a is in b. */
static bool subset(const bool *a, const bool *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] && !b[i])
			return false;
	return true;
}

/* Does the event take a generic counter? Not slots, the metric events
 * (the register), nor Intel's fixed-counter codes (0x0100 instructions,
 * 0x0200 cycles, 0x0300 reference cycles, as the tables keep them), but
 * instructions when fixed counter 0 is the pinned reference's
 * (lits->fixed0_taken); nor Arm's CPU_CYCLES (0x11), which the PMUv3
 * driver counts on the cycle counter. */
static bool generic_counter(const pki_td_event *e, const pki_td_lits *lits)
{
	uint64_t code = e->config & 0xffff;
	if (code == 0x0100 && lits && lits->fixed0_taken)
		return !e->grouped;
	if (lits && lits->vendor == PK_VENDOR_ARM)
		return e->config != 0x11;
	return !e->grouped && code != 0x0100 && code != 0x0200 && code != 0x0300;
}

/* The generic counters the union of a and b takes. */
static int union_generic(const pki_td_table *t, const bool *a, const bool *b,
			 const pki_td_lits *lits)
{
	int n = 0;
	for (size_t i = 0; i < t->nr_events; i++)
		n += (a[i] || b[i]) && generic_counter(&t->events[i], lits);
	return n;
}

/* The group events `set` join: one that holds them all (perf's metric
 * merging), else one the union with which still fits the floor of
 * counters, both of the same kind (led by slots or not); nr for a new one. */
static size_t pick_group(const pki_td_table *t, const pki_td_groups *gs, const bool *set,
			 bool metrics, const pki_td_lits *lits)
{
	int floor = lits ? lits->floor : PKI_TD_GROUP_FLOOR(PK_VENDOR_INTEL);
	size_t ne = t->nr_events ? t->nr_events : 1;
	for (size_t g = 0; g < gs->nr; g++)
		if (gs->g[g].metrics == metrics && subset(set, gs->g[g].ev, ne))
			return g;
	for (size_t g = 0; g < gs->nr; g++)
		if (gs->g[g].metrics == metrics &&
		    union_generic(t, set, gs->g[g].ev, lits) <= floor)
			return g;
	return gs->nr;
}

/* Puts the events of set into a group (led by slots when metrics); its
 * index in *at. */
static int join(const pki_td_table *t, pki_td_groups *gs, const bool *set, bool metrics,
		const pki_td_lits *lits, int *at, pk_error *err)
{
	size_t ne = t->nr_events ? t->nr_events : 1;
	size_t g = pick_group(t, gs, set, metrics, lits);
	if (g == gs->nr) {
		pki_td_group *n = realloc(gs->g, (gs->nr + 1) * sizeof(*n));
		if (!n)
			return pk_err(err, -ENOMEM, "out of memory");
		gs->g = n;
		gs->g[g] = (pki_td_group){.ev = calloc(ne, sizeof(bool)), .metrics = metrics};
		gs->nr++;
		if (!gs->g[g].ev)
			return pk_err(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < t->nr_events; i++)
		gs->g[g].ev[i] |= set[i];
	*at = (int)g;
	return 0;
}

static int add_row(const pki_td_table *t, size_t r, const pki_td_lits *lits, pki_td_groups *gs,
		   bool *set, pk_error *err)
{
	size_t ne = t->nr_events ? t->nr_events : 1;
	memset(set, 0, 2 * ne * sizeof(*set));
	int rc = pki_td_mark_row(t, r, lits, set, 0, err);
	if (rc < 0)
		return rc;
	bool *mset = set + ne, metrics = false, generic = false;
	for (size_t i = 0; i < t->nr_events; i++) {
		bool m = t->events[i].grouped;
		mset[i] = set[i] && m;
		metrics |= mset[i];
		set[i] = set[i] && !m;
		generic |= set[i];
	}
	for (size_t i = 0; i < t->nr_events && metrics; i++) /* their slots leader */
		if (t->events[i].grouped && (t->events[i].config & 0xffff) == 0x0400)
			mset[i] = true;
	if (metrics && (rc = join(t, gs, mset, true, lits, &gs->metric[r], err)) < 0)
		return rc;
	return generic ? join(t, gs, set, false, lits, &gs->row[r], err) : 0;
}

int pki_td_groups_build(const pki_td_table *t, int level, const pki_td_lits *lits,
			pki_td_groups *gs, pk_error *err)
{
	memset(gs, 0, sizeof(*gs));
	size_t nr = t->nr_rows ? t->nr_rows : 1;
	gs->row = malloc(nr * sizeof(*gs->row));
	gs->metric = malloc(nr * sizeof(*gs->metric));
	bool *set = calloc(2 * (t->nr_events ? t->nr_events : 1), sizeof(*set));
	int rc = gs->row && gs->metric && set ? 0 : pk_err(err, -ENOMEM, "out of memory");
	for (size_t r = 0; r < t->nr_rows && rc == 0; r++) {
		gs->row[r] = gs->metric[r] = -1;
		if (pki_td_row_level(&t->rows[r]) <= level)
			rc = add_row(t, r, lits, gs, set, err);
	}
	free(set);
	return rc;
}

void pki_td_groups_release(pki_td_groups *gs)
{
	for (size_t g = 0; g < gs->nr; g++) {
		free(gs->g[g].ev);
		free(gs->g[g].evsel);
	}
	free(gs->g);
	free(gs->row);
	free(gs->metric);
	memset(gs, 0, sizeof(*gs));
}
