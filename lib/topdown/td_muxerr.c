/* The multiplexing error of TopDown's shares (topdown.h, issue 22): the
 * run read at every rotation of the counters, each window's deltas kept;
 * a multiplexed event's count where its group was off the PMU predicted
 * from a pinned reference read in every window, and what that prediction
 * can still miss bounded and carried through the node formulas.
 *
 * Method, per multiplexed event e of a block with references R_1..R_n
 * (pinned: PERF_METRICS' metric events, or a pinned instructions; their
 * rates x_w in window w: each one's delta over the window's enabled time):
 * - over the windows where e's group ran (weights: its running time), e's
 *   rate y_w = count / running is regressed on x_w, the references made
 *   orthogonal first and those adding nothing (or not varying there)
 *   dropped: y = mean + sum c_j z_j;
 * - e's count = what it counted + for each window the time it did not run
 *   times the predicted rate (enabled/running's scaling is the case of no
 *   reference kept);
 * - its bound: the largest residual over the windows it ran most of, times
 *   the time it did not run; INFINITY when windows it did not run (over 1%
 *   of its enabled time) saw the references outside what its own saw (its
 *   group ran in step with some phases only: nothing says what it missed).
 * A node's error is the sum over its counts of how far each count's bound
 * moves it (the formula evaluated again with the count moved).
 *
 * With -I (pk_topdown_windows_correct_last) the windows are the intervals,
 * coarser than the rotation: a group ran part of every interval, the
 * reference's rate is known over the whole interval only. The last
 * interval's multiplexed count is what it counted plus the time it did not
 * run times the fit's rate at that interval's reference rates; its error is
 * run x (its rate - the fit) plus enabled x the fit's error there, taken
 * as three times the largest residual of the intervals before it in a standard
 * error's shape (fit_spread; the fit is over the intervals before it, its
 * own point would pass the fit through itself): an empirical bound, which
 * the phases of a workload in step with the rotation inside every interval
 * escape (nothing read at interval ends shows them). Fewer than four
 * earlier intervals with its group, or reference rates outside theirs: not
 * bounded.
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

enum { MAX_REFS = PKI_TD_MAX_REFS };

typedef struct mw_refs {
	long row[MAX_REFS];
	size_t n;
} mw_refs;

/* The reference rows for count i: its block's (same core PMU). */
static void refs_of(const pk_topdown_windows *w, const pk_metric_count *v, size_t nr, size_t i,
		    mw_refs *r)
{
	const pk_topdown *td = w->td;
	r->n = 0;
	if (!pk_topdown_has_evsel(td, v[i].evsel))
		return;
	for (size_t b = 0; b < pk_topdown_nr_blocks(td); b++) {
		const pk_evsel *const *ref;
		size_t n = pki_td_block_refs(td, b, &ref);
		for (size_t j = 0; j < n; j++) {
			long row = row_of(v, nr, ref[j]);
			if (row >= 0 && v[row].counted && ref[j] != v[i].evsel && r->n < MAX_REFS &&
			    !strcmp(pk_evsel_pmu_name(ref[j]), pk_evsel_pmu_name(v[i].evsel)))
				r->row[r->n++] = row;
		}
	}
}

/* The references' rates in window k (per enabled ns) into x; false when
 * one is not known (not counting all of the window). */
static bool rates(const pk_topdown_windows *w, size_t k, const mw_refs *r, double *x)
{
	for (size_t j = 0; j < r->n; j++) {
		const mw_delta *d = &w->d[k * w->nr_rows + (size_t)r->row[j]];
		if (!(d->ena > 0 && d->run >= d->ena))
			return false;
		x[j] = d->val / d->ena;
	}
	return true;
}

/* The rate of a count regressed on the references' rates over the windows
 * its group ran, the references made orthogonal first (Gram-Schmidt, a
 * reference that adds nothing to the earlier ones dropped: PERF_METRICS'
 * bytes sum to slots). */
typedef struct mw_fit {
	size_t n;                  /* references */
	double mx[MAX_REFS], my;   /* weighted means over its windows */
	double g[MAX_REFS][MAX_REFS]; /* z_j = x_j - mx_j - sum_l<j g[j][l] z_l */
	bool keep[MAX_REFS];
	double zz[MAX_REFS], c[MAX_REFS]; /* rate = my + sum_j c_j z_j */
	double lo[MAX_REFS], hi[MAX_REFS], tol[MAX_REFS]; /* z_j's range seen */
	double resid;              /* the largest residual rate */
	bool any;                  /* it ran in a window with the references known */
} mw_fit;

static void to_z(const mw_fit *f, const double *x, double *z)
{
	for (size_t j = 0; j < f->n; j++) {
		z[j] = x[j] - f->mx[j];
		for (size_t l = 0; l < j; l++)
			if (f->keep[l])
				z[j] -= f->g[j][l] * z[l];
	}
}

static double predict(const mw_fit *f, const double *x)
{
	double z[MAX_REFS], y = f->my;
	to_z(f, x, z);
	for (size_t j = 0; j < f->n; j++)
		if (f->keep[j])
			y += f->c[j] * z[j];
	return y;
}

/* Whether x lies outside what the fit's windows saw. */
static bool unseen(const mw_fit *f, const double *x)
{
	double z[MAX_REFS];
	to_z(f, x, z);
	/* a reference dropped for not varying in its windows counts too */
	for (size_t j = 0; j < f->n; j++)
		if (z[j] < f->lo[j] - f->tol[j] || z[j] > f->hi[j] + f->tol[j])
			return true;
	return false;
}

/* The windows count i ran with every reference known, as weighted sums:
 * means, then each reference made orthogonal to the kept earlier ones. */
static void fit_means(const pk_topdown_windows *w, size_t i, const mw_refs *r, mw_fit *f,
		      double *sw)
{
	double x[MAX_REFS];
	*sw = 0;
	for (size_t k = 0; k < w->nr; k++) {
		const mw_delta *d = &w->d[k * w->nr_rows + i];
		if (d->run <= 0 || !rates(w, k, r, x))
			continue;
		*sw += d->run;
		f->my += d->run * d->val / d->run;
		for (size_t j = 0; j < r->n; j++)
			f->mx[j] += d->run * x[j];
	}
	f->any = *sw > 0;
	for (size_t j = 0; f->any && j < r->n; j++)
		f->mx[j] /= *sw;
	f->my = f->any ? f->my / *sw : 0;
}

/* Reference j made orthogonal to the kept references before it, over the
 * windows count i ran; kept when it varies there on its own. */
static void fit_ref(const pk_topdown_windows *w, size_t i, const mw_refs *r, mw_fit *f,
		    size_t j, size_t nwin)
{
	double x[MAX_REFS], z[MAX_REFS], zz = 0, xx = 0, zy = 0, zl[MAX_REFS] = {0};
	f->keep[j] = false;
	for (size_t l = 0; l < j; l++) { /* g[j][l] = <x_j - mx_j, z_l> / <z_l, z_l> */
		f->g[j][l] = 0;
		if (!f->keep[l])
			continue;
		for (size_t k = 0; k < w->nr; k++) {
			const mw_delta *d = &w->d[k * w->nr_rows + i];
			if (d->run <= 0 || !rates(w, k, r, x))
				continue;
			to_z(f, x, z);
			zl[l] += d->run * (x[j] - f->mx[j]) * z[l];
		}
		f->g[j][l] = zl[l] / f->zz[l];
	}
	f->lo[j] = INFINITY, f->hi[j] = -INFINITY;
	for (size_t k = 0; k < w->nr; k++) {
		const mw_delta *d = &w->d[k * w->nr_rows + i];
		if (d->run <= 0 || !rates(w, k, r, x))
			continue;
		to_z(f, x, z);
		zz += d->run * z[j] * z[j];
		xx += d->run * x[j] * x[j];
		zy += d->run * z[j] * (d->val / d->run - f->my);
		f->lo[j] = fmin(f->lo[j], z[j]), f->hi[j] = fmax(f->hi[j], z[j]);
	}
	size_t kept = 0;
	for (size_t l = 0; l < j; l++)
		kept += f->keep[l];
	f->keep[j] = zz > 1e-8 * xx && nwin >= kept + 4;
	f->zz[j] = zz;
	f->c[j] = f->keep[j] ? zy / zz : 0;
}

static void fit(const pk_topdown_windows *w, size_t i, const mw_refs *r, mw_fit *f)
{
	double sw, x[MAX_REFS];
	size_t nwin = 0;
	memset(f, 0, sizeof(*f));
	f->n = r->n;
	fit_means(w, i, r, f, &sw);
	for (size_t k = 0; k < w->nr; k++)
		nwin += w->d[k * w->nr_rows + i].run > 0;
	for (size_t j = 0; f->any && j < r->n; j++)
		fit_ref(w, i, r, f, j, nwin);
	for (size_t j = 0; f->any && j < r->n; j++) /* tolerance: a share of its scale */
		f->tol[j] = 0.05 * (f->hi[j] - f->lo[j]) + 0.02 * fabs(f->mx[j]);
	for (size_t k = 0; k < w->nr; k++) {
		const mw_delta *d = &w->d[k * w->nr_rows + i];
		/* a window the group ran a sliver of says little of its rate */
		if (d->run * 2 < d->ena || !rates(w, k, r, x))
			continue;
		f->resid = fmax(f->resid, fabs(d->val / d->run - predict(f, x)));
	}
}

/* Count i corrected: its value and bound. */
static void correct_one(const pk_topdown_windows *w, size_t i, const mw_refs *r,
			pk_metric_count *c, double *delta)
{
	mw_fit f;
	fit(w, i, r, &f);
	double total = 0, off = 0, away = 0, ena = 0, x[MAX_REFS];
	for (size_t k = 0; k < w->nr; k++) {
		const mw_delta *d = &w->d[k * w->nr_rows + i];
		double gap = d->ena - d->run;
		bool known = rates(w, k, r, x);
		ena += d->ena;
		total += d->val;
		if (gap <= 0)
			continue;
		off += gap;
		if (!f.any || !known || unseen(&f, x))
			away += gap;
		total += gap * fmax(0, known ? predict(&f, x) : f.my);
	}
	if (off <= 0 || !f.any)
		return;
	c->value = total;
	/* some of the time it missed looked like none it saw */
	*delta = away > 0.01 * ena ? INFINITY : f.resid * off;
}

typedef void (*mw_correct_fn)(const pk_topdown_windows *w, size_t i, const mw_refs *r,
			      pk_metric_count *c, double *delta);

/* Each count of v with references corrected by fn (with at least min
 * windows), its bound into delta. */
static int correct_all(const pk_topdown_windows *w, pk_metric_count *v, size_t nr,
		       double *delta, size_t min, mw_correct_fn fn)
{
	for (size_t i = 0; i < nr; i++)
		delta[i] = 0;
	if (!w || w->nr < min || nr != w->nr_rows)
		return 0;
	for (size_t i = 0; i < nr; i++) {
		mw_refs r;
		refs_of(w, v, nr, i, &r);
		if (v[i].counted && r.n)
			fn(w, i, &r, &v[i], &delta[i]);
	}
	return 0;
}

int pk_topdown_windows_correct(const pk_topdown_windows *w, pk_metric_count *v, size_t nr,
			       double *delta)
{
	return correct_all(w, v, nr, delta, 2, correct_one);
}

/* How far the fit can be off at reference rates x: the largest residual
 * over the nw windows count i ran, times sqrt(1/nw + sum_j z_j^2 /
 * (zz_j / mean weight)) (a standard error's shape with the largest
 * residual for the spread: the windows' residuals are not alike). */
static double fit_spread(const pk_topdown_windows *w, size_t i, const mw_refs *r,
			 const mw_fit *f, const double *x, size_t *nw)
{
	double xs[MAX_REFS], z[MAX_REFS], sw = 0, worst = 0;
	*nw = 0;
	for (size_t k = 0; k < w->nr; k++) {
		const mw_delta *d = &w->d[k * w->nr_rows + i];
		if (d->run <= 0 || !rates(w, k, r, xs))
			continue;
		worst = fmax(worst, fabs(d->val / d->run - predict(f, xs)));
		sw += d->run;
		(*nw)++;
	}
	if (*nw < 2 || sw <= 0)
		return INFINITY;
	double q = 1.0 / (double)*nw, mean_w = sw / (double)*nw;
	to_z(f, x, z);
	for (size_t j = 0; j < f->n; j++)
		if (f->keep[j])
			q += z[j] * z[j] * mean_w / f->zz[j];
	return worst * sqrt(q);
}

/* Count i of the last window (-I's interval) corrected from the fit over
 * the intervals before it (the last one's own point would pass the fit
 * through itself): its value and bound; INFINITY when fewer than four of
 * them had its group, or the interval's reference rates lie outside theirs
 * (nothing says how it follows the reference there). */
static void correct_last_one(const pk_topdown_windows *w, size_t i, const mw_refs *r,
			     pk_metric_count *c, double *delta)
{
	const mw_delta *d = &w->d[(w->nr - 1) * w->nr_rows + i];
	pk_topdown_windows before = *w;
	double x[MAX_REFS], gap = d->ena - d->run;
	mw_fit f;
	size_t nw = 0;
	if (gap <= 0)
		return;
	before.nr--;
	fit(&before, i, r, &f);
	double se = f.any && rates(w, w->nr - 1, r, x) ? fit_spread(&before, i, r, &f, x, &nw)
						       : INFINITY;
	if (nw < 4 || !isfinite(se) || unseen(&f, x)) {
		*delta = INFINITY;
		return;
	}
	double pred = fmax(0, predict(&f, x));
	double resid = d->run > 0 ? fabs(d->val / d->run - pred) : 0;
	c->value = d->val + gap * pred;
	*delta = d->run * resid + d->ena * 3 * se;
}

int pk_topdown_windows_correct_last(const pk_topdown_windows *w, pk_metric_count *v, size_t nr,
				    double *delta)
{
	return correct_all(w, v, nr, delta, 1, correct_last_one);
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

static const char *why(double error, bool intervals)
{
	if (intervals)
		return isinf(error) ? "per-interval estimate: its group's earlier intervals (fewer "
				      "than 4, or the reference's rates outside theirs) do not "
				      "show how it follows the pinned reference"
				    : "per-interval estimate from the earlier intervals: they are "
				      "its windows, coarser than the 4 ms rotation";
	return isinf(error) ? "its group ran only while the workload was in some of its phases: "
			      "they change in step with the counter rotation"
			    : "the workload changes within the rotation in ways the pinned "
			      "reference does not follow";
}

static void bound(const pk_topdown *td, size_t b, const pk_metric_counts *in,
		  const double *delta, pk_topdown_node *v, size_t n, bool intervals)
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
				v[k].error_why = why(v[k].error, intervals);
		}
	}
	free(tmp);
	free(err);
	free(c);
}

void pk_topdown_windows_bound(const pk_topdown *td, size_t b, const pk_metric_counts *in,
			      const double *delta, pk_topdown_node *v, size_t n)
{
	bound(td, b, in, delta, v, n, false);
}

void pk_topdown_windows_bound_last(const pk_topdown *td, size_t b, const pk_metric_counts *in,
				   const double *delta, pk_topdown_node *v, size_t n)
{
	bound(td, b, in, delta, v, n, true);
}
