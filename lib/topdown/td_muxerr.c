/* The multiplexing error of TopDown's shares (topdown.h, issue 22): the
 * run read at every rotation of the counters, each window's deltas kept;
 * a multiplexed event's count where its group was off the PMU predicted
 * from a pinned reference read in every window, and what that prediction
 * can still miss bounded and carried through the node formulas.
 *
 * Method, per multiplexed event e of a block with reference R (its rate
 * rho_w in window w: R's delta over the window's enabled time):
 * - over the windows where e's group ran (weights: its running time), e's
 *   rate y_w = count / running is regressed on rho_w: y = a + b rho (b = 0
 *   when rho did not vary there);
 * - e's count = what it counted + for each window the time it did not run
 *   times a + b rho_w (enabled/running's scaling is the case b = 0);
 * - its bound: the largest residual |y_w - a - b rho_w| over the windows it
 *   ran most of, times the time it did not run; INFINITY when windows it did
 *   not run saw the reference outside the range its own windows saw (its
 *   group ran in step with some phases only: nothing says what it missed).
 * A node's error is the sum over its counts of how far each count's bound
 * moves it (the formula evaluated again with the count moved).
 *
 * Invariants: windows hold deltas of the same rows in the same order; the
 * reference is pinned (counts in every window); events that never
 * multiplexed keep their counts and a bound of 0. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "topdown/td_internal.h"

typedef struct mw_delta {
	double val, ena, run;
} mw_delta;

struct pk_topdown_windows {
	const pk_topdown *td;
	size_t nr_rows;            /* rows per window */
	mw_delta *prev;            /* the totals at the last window's end */
	mw_delta *d;               /* window-major: d[w * nr_rows + i] */
	size_t nr, cap;            /* windows */
};

pk_topdown_windows *pk_topdown_windows_new(const pk_topdown *td)
{
	pk_topdown_windows *w = calloc(1, sizeof(*w));
	if (w)
		w->td = td;
	return w;
}

void pk_topdown_windows_free(pk_topdown_windows *w)
{
	if (!w)
		return;
	free(w->prev);
	free(w->d);
	free(w);
}

size_t pk_topdown_windows_nr(const pk_topdown_windows *w)
{
	return w ? w->nr : 0;
}

int pk_topdown_windows_add(pk_topdown_windows *w, const pk_stat_rows *totals)
{
	if (!w->prev) {
		w->nr_rows = totals->nr;
		if (!(w->prev = calloc(totals->nr + 1, sizeof(*w->prev))))
			return -ENOMEM;
	}
	if (totals->nr != w->nr_rows)
		return -EINVAL;
	if (pki_grow(&w->d, &w->cap, (w->nr + 1) * w->nr_rows + 1, sizeof(*w->d)) < 0)
		return -ENOMEM;
	mw_delta *d = &w->d[w->nr++ * w->nr_rows];
	for (size_t i = 0; i < w->nr_rows; i++) {
		const pk_counts *c = &totals->v[i].counts;
		mw_delta now = {(double)c->val, (double)c->ena, (double)c->run};
		d[i] = (mw_delta){now.val - w->prev[i].val, now.ena - w->prev[i].ena,
				  now.run - w->prev[i].run};
		w->prev[i] = now;
	}
	return 0;
}

/* The row of evsel e, or -1. */
static long row_of(const pk_metric_count *v, size_t nr, const pk_evsel *e)
{
	for (size_t i = 0; e && i < nr; i++)
		if (v[i].evsel == e)
			return (long)i;
	return -1;
}

/* The reference's row for count i: its block's (same core PMU), or -1. */
static long ref_row(const pk_topdown_windows *w, const pk_metric_count *v, size_t nr, size_t i)
{
	const pk_topdown *td = w->td;
	if (!pk_topdown_has_evsel(td, v[i].evsel))
		return -1;
	for (size_t b = 0; b < pk_topdown_nr_blocks(td); b++) {
		const pk_evsel *ref = pki_td_block_ref(td, b);
		if (ref && ref != v[i].evsel &&
		    !strcmp(pk_evsel_pmu_name(ref), pk_evsel_pmu_name(v[i].evsel)))
			return row_of(v, nr, ref);
	}
	return -1;
}

/* The reference's rate in window k (per enabled ns); NaN when not known. */
static double rho(const pk_topdown_windows *w, size_t k, long ref)
{
	const mw_delta *r = &w->d[k * w->nr_rows + (size_t)ref];
	return r->ena > 0 && r->run >= r->ena ? r->val / r->ena : NAN;
}

typedef struct mw_fit {
	double a, b;               /* rate = a + b rho */
	double lo, hi;             /* rho's range over the windows it ran */
	double resid;              /* the largest residual rate */
} mw_fit;

/* Weighted least squares of count i's rate on the reference's rate over
 * the windows it ran. */
static void fit(const pk_topdown_windows *w, size_t i, long ref, mw_fit *f)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	size_t n = 0;
	f->lo = INFINITY, f->hi = -INFINITY, f->resid = 0;
	for (size_t k = 0; k < w->nr; k++) {
		const mw_delta *d = &w->d[k * w->nr_rows + i];
		double x = rho(w, k, ref);
		if (d->run <= 0 || isnan(x))
			continue;
		double y = d->val / d->run, wt = d->run;
		sw += wt, sx += wt * x, sy += wt * y, sxx += wt * x * x, sxy += wt * x * y, n++;
		f->lo = fmin(f->lo, x), f->hi = fmax(f->hi, x);
	}
	double mx = sw > 0 ? sx / sw : 0, my = sw > 0 ? sy / sw : 0;
	double vxx = sw > 0 ? sxx / sw - mx * mx : 0;
	f->b = n >= 3 && vxx > 1e-9 * mx * mx ? (sxy / sw - mx * my) / vxx : 0;
	f->a = my - f->b * mx;
	for (size_t k = 0; k < w->nr; k++) {
		const mw_delta *d = &w->d[k * w->nr_rows + i];
		double x = rho(w, k, ref);
		/* a window the group ran a sliver of says little of its rate */
		if (d->run * 2 < d->ena || isnan(x))
			continue;
		f->resid = fmax(f->resid, fabs(d->val / d->run - f->a - f->b * x));
	}
}

/* Count i corrected: its value and bound. */
static void correct_one(const pk_topdown_windows *w, size_t i, long ref, pk_metric_count *c,
			double *delta)
{
	mw_fit f;
	fit(w, i, ref, &f);
	double total = 0, off = 0, span = f.hi - f.lo, tol = 0.05 * span + 0.02 * fabs(f.hi);
	double unseen = 0, ena = 0;
	for (size_t k = 0; k < w->nr; k++) {
		const mw_delta *d = &w->d[k * w->nr_rows + i];
		double x = rho(w, k, ref), gap = d->ena - d->run;
		ena += d->ena;
		total += d->val;
		if (gap <= 0)
			continue;
		off += gap;
		if (isnan(x) || isinf(f.lo) || x < f.lo - tol || x > f.hi + tol)
			unseen += gap;
		total += gap * fmax(0, f.a + (isnan(x) ? 0 : f.b * x));
	}
	if (off <= 0)
		return;
	c->value = total;
	/* some of the time it missed looked like none it saw */
	*delta = isinf(f.lo) || unseen > 0.01 * ena ? INFINITY : f.resid * off;
}

int pk_topdown_windows_correct(const pk_topdown_windows *w, pk_metric_count *v, size_t nr,
			       double *delta)
{
	for (size_t i = 0; i < nr; i++)
		delta[i] = 0;
	if (!w || w->nr < 2 || nr != w->nr_rows)
		return 0;
	for (size_t i = 0; i < nr; i++) {
		long ref = v[i].counted ? ref_row(w, v, nr, i) : -1;
		if (ref >= 0 && v[(size_t)ref].counted)
			correct_one(w, i, ref, &v[i], &delta[i]);
	}
	return 0;
}

double pk_topdown_error_limit(int level)
{
	return level <= 2 ? 1.0 : 2.0;
}

/* How far node values move (into err[]) with count i of in (whose v is
 * the caller's copy, c) moved by d. */
static void moved(const pk_topdown *td, size_t b, const pk_metric_counts *in, pk_metric_count *c,
		  size_t i, double d, const pk_topdown_node *v, size_t n, double *err,
		  pk_topdown_node *tmp)
{
	double keep = c[i].value;
	c[i].value = keep + d;
	size_t m = pk_topdown_compute(td, b, in, -1, tmp, n);
	c[i].value = keep;
	for (size_t k = 0; k < m && k < n; k++)
		if (v[k].computable && tmp[k].computable)
			err[k] += fabs(tmp[k].value - v[k].value);
}

static const char *why(double error)
{
	return isinf(error) ? "its group ran only while the workload was in some of its phases: "
			      "they change in step with the counter rotation"
			    : "the workload changes within the rotation in ways the pinned "
			      "reference does not follow";
}

void pk_topdown_windows_bound(const pk_topdown *td, size_t b, const pk_metric_counts *in,
			      const double *delta, pk_topdown_node *v, size_t n)
{
	pk_topdown_node *tmp = calloc(n + 1, sizeof(*tmp));
	double *err = calloc(2 * n + 2, sizeof(*err)), *unk = err ? err + n + 1 : NULL;
	pk_metric_count *c = malloc((in->nr + 1) * sizeof(*c));
	if (tmp && err && c) {
		memcpy(c, in->v, in->nr * sizeof(*c));
		pk_metric_counts own = *in;
		own.v = c;
		for (size_t i = 0; i < in->nr; i++) {
			if (isinf(delta[i])) /* which nodes it feeds: moved a tenth */
				moved(td, b, &own, c, i, 0.1 * c[i].value, v, n, unk, tmp);
			else if (delta[i] > 0)
				moved(td, b, &own, c, i, delta[i], v, n, err, tmp);
		}
		for (size_t k = 0; k < n; k++) {
			v[k].error = unk[k] > 0.005 ? INFINITY : err[k];
			if (v[k].error > pk_topdown_error_limit(v[k].level))
				v[k].error_why = why(v[k].error);
		}
	}
	free(tmp);
	free(err);
	free(c);
}
