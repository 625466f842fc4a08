/* perf diff's engine (include/pmukit/diff.h): the entries of several
 * files' histograms paired by their keys, a value per pair, the rows in
 * perf diff 6.1's output order.
 *
 * Per event of the baseline: its listed entries are rows; each other
 * file's event of the same attr type and config is matched entry by entry
 * (a key of the entry's texts, and a symbol key's number: perf matches a
 * symbol by its dso's name and its start, an address without a symbol by
 * itself), an entry without a match making a dummy row (not with -b).
 * Invariants: a row has at most one pair per file (the first entry that
 * matched, as perf's pair list gives it); values are computed from the
 * event totals as read (perf's precompute, before -b drops rows), the
 * shares printed from the total left after (pk_diff_base_total). */
#include <pmukit/diff.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strmap.h"
#include "core/util.h"
#include "report.h"

struct diff_event {
	pk_diff_row *rows;
	pk_diff_cell *cells;         /* nr * nr_files, row i's at i * nr_files */
	size_t nr, cap, ccap;
	uint64_t base_total;
};

struct pk_diff {
	pk_hist **h;
	size_t n;
	pk_diff_opts o;
	pk_hist_entry ***all;        /* per file, pk_hist_collect's */
	size_t *nall;
	struct diff_event *ev;
	size_t nr_ev;
};

int pk_diff_opts_compute(pk_diff_opts *o, const char *arg, pk_error *err)
{
	static const char *const names[] = {"delta", "delta-abs", "ratio", "wdiff"};
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i]) != len || strncmp(arg, names[i], len))
			continue;
		if (i != PK_DIFF_WDIFF) {
			if (colon)
				return pk_err_at(err, -EINVAL, "--compute", arg, -1,
						 "extra option specified '%s'", colon + 1);
			o->compute = (enum pk_diff_compute)i;
			return 0;
		}
		const char *w2 = colon ? strchr(colon + 1, ',') : NULL;
		int64_t a = colon ? strtoll(colon + 1, NULL, 10) : 0, b = w2 ? strtoll(w2 + 1, NULL, 10) : 0;
		if (!a || !b)
			return pk_err_at(err, -EINVAL, "--compute", arg, -1,
					 "wrong weight data, use 'wdiff:w1,w2'");
		o->compute = PK_DIFF_WDIFF;
		o->w1 = a;
		o->w2 = b;
		return 0;
	}
	return pk_err_at(err, -EINVAL, "--compute", arg, -1,
			 "'%s' is not computation method (use 'delta','ratio' or 'wdiff')", arg);
}

/* The match key of an entry: its key texts; a symbol key's name alone,
 * every address without a symbol one (perf diff's collapse: a dso's
 * unresolved samples are one entry, the first in table order). */
static void match_key(const pk_hist *h, const pk_hist_entry *e, char *b, size_t n)
{
	const pk_hist_opts *o = pk_hist_config(h);
	size_t at = 0;
	b[0] = '\0';
	for (int k = 0; k < o->nr_keys && at < n; k++) {
		bool unres = o->keys[k]->order == PK_HIST_ORD_SYM && (e->unresolved & (1u << k));
		int w = snprintf(b + at, n - at, "%s\x02", unres ? "" : e->cols[k]);
		at += w > 0 ? (size_t)w : 0;
	}
}

static int entry_table_cmp(const void *a, const void *b, void *arg)
{
	return pki_hist_table_cmp_keys(arg, *(pk_hist_entry *const *)a, *(pk_hist_entry *const *)b);
}

/* File f's listed entries of event ev in perf's table order (*n; an
 * array the caller frees; NULL when out of memory). */
static pk_hist_entry **event_entries(const pk_diff *d, size_t f, int ev, size_t *n)
{
	pk_hist_entry **v = malloc((d->nall[f] ? d->nall[f] : 1) * sizeof(*v));
	*n = 0;
	for (size_t i = 0; v && i < d->nall[f]; i++)
		if (d->all[f][i]->ev == ev && pk_hist_listed(d->h[f], d->all[f][i]))
			v[(*n)++] = d->all[f][i];
	if (v)
		qsort_r(v, *n, sizeof(*v), entry_table_cmp, d->h[f]);
	return v;
}

/* A new row of ev (its cells zeroed); NULL when out of memory. */
static pk_diff_row *row_add(pk_diff *d, struct diff_event *de, pk_hist *h, pk_hist_entry *e)
{
	if (pki_grow(&de->rows, &de->cap, de->nr + 1, sizeof(*de->rows)) ||
	    pki_grow(&de->cells, &de->ccap, (de->nr + 1) * d->n, sizeof(*de->cells)))
		return NULL;
	memset(de->cells + de->nr * d->n, 0, d->n * sizeof(*de->cells));
	pk_diff_row *r = &de->rows[de->nr++];
	*r = (pk_diff_row){.hist = h, .entry = e};
	return r;
}

/* The event of file f matching the baseline's event b (perf's evsel
 * match: attr type and config); -1 when none. */
static int match_event(const pk_diff *d, size_t f, int b)
{
	const pk_pd_evsel *be = pk_session_evsel_at(pk_hist_session(d->h[0]), (size_t)b);
	pk_session *s = pk_hist_session(d->h[f]);
	size_t n = pk_session_nr_evsels(s);
	if (n > pk_hist_nr_events(d->h[f]))
		n = pk_hist_nr_events(d->h[f]);
	for (size_t i = 0; be && i < n; i++) {
		const pk_pd_evsel *e = pk_session_evsel_at(s, i);
		if (e && e->attr.type == be->attr.type && e->attr.config == be->attr.config)
			return (int)i;
	}
	return -1;
}

/* File f's entries of its event ef paired with rows (dummies made);
 * equal ones (perf's collapse) add to one pair. */
static int pair_file(pk_diff *d, struct diff_event *de, pki_strmap *map, size_t f, int ef)
{
	char key[PK_HIST_MAX_KEYS * (PK_HIST_NAME_MAX + 24)];
	size_t n;
	pk_hist_entry **v = event_entries(d, f, ef, &n);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		pk_hist_entry *e = v[i];
		match_key(d->h[f], e, key, sizeof(key));
		size_t ri = (size_t)(uintptr_t)pki_strmap_get(map, key);
		if (!ri && d->o.baseline_only)
			continue;
		if (!ri) {
			pki_strmap_slot *slot = pki_strmap_put(map, key);
			if (!slot || !row_add(d, de, d->h[f], e)) {
				free(v);
				return -ENOMEM;
			}
			de->rows[de->nr - 1].dummy = true;
			ri = de->nr;
			slot->val = (void *)(uintptr_t)ri;
		}
		pk_diff_cell *c = &de->cells[(ri - 1) * d->n + f];
		c->paired = true;
		c->period += e->v[PK_HIST_SELF];
		c->total = pk_hist_total_of(d->h[f], ef, false);
	}
	free(v);
	return 0;
}

/* perf's precompute: the value of every pair against its row. */
static void compute(const pk_diff *d, struct diff_event *de)
{
	for (size_t r = 0; r < de->nr; r++) {
		uint64_t old = de->rows[r].period;
		/* perf divides by a total of 0 too (a file without samples: -nan) */
		double old_pct = (double)old * 100.0 / (double)de->base_total;
		for (size_t f = 1; f < d->n; f++) {
			pk_diff_cell *c = &de->cells[r * d->n + f];
			if (!c->paired)
				continue;
			switch (d->o.compute) {
			case PK_DIFF_DELTA:
			case PK_DIFF_DELTA_ABS:
				c->delta = (double)c->period * 100.0 / (double)c->total - old_pct;
				break;
			case PK_DIFF_RATIO:
				c->ratio = (double)c->period / (double)(old ? old : 1);
				break;
			case PK_DIFF_WDIFF:
				c->wdiff = (int64_t)(c->period * (uint64_t)d->o.w2 - old * (uint64_t)d->o.w1);
				break;
			}
		}
	}
}

/* ---- perf diff's output order ---- */

struct sort_ctx {
	const pk_diff *d;
	const struct diff_event *de;
	size_t *pos;                 /* a row's place in perf's table order */
};

static int desc(double x, double y)
{
	return x > y ? -1 : x < y ? 1 : 0;
}

static int value_cmp(const pk_diff *d, const pk_diff_cell *x, const pk_diff_cell *y)
{
	switch (d->o.compute) {
	case PK_DIFF_DELTA: return desc(x->delta, y->delta);
	case PK_DIFF_DELTA_ABS: return desc(fabs(x->delta), fabs(y->delta));
	case PK_DIFF_RATIO: return desc(x->ratio, y->ratio);
	case PK_DIFF_WDIFF: return x->wdiff > y->wdiff ? -1 : x->wdiff < y->wdiff;
	}
	return 0;
}

static bool has_pairs(const pk_diff *d, const pk_diff_row *r)
{
	for (size_t f = 1; f < d->n; f++)
		if (r->cell[f].paired)
			return true;
	return false;
}

/* perf's column of file f: rows with a pair first, paired in f first,
 * then the value, the higher first. idx: the -o column prepended, which
 * also puts dummies last when the value needs a baseline. */
static int file_cmp(const pk_diff *d, const pk_diff_row *x, const pk_diff_row *y, size_t f, bool idx)
{
	if (!idx) {
		bool hx = has_pairs(d, x), hy = has_pairs(d, y);
		if (hx != hy)
			return hx ? -1 : 1;
		if (!hx)
			return 0;
	}
	bool px = x->cell[f].paired, py = y->cell[f].paired;
	if (px != py)
		return px ? -1 : 1;
	if (!px)
		return 0;
	if (idx && d->o.compute != PK_DIFF_DELTA && d->o.compute != PK_DIFF_DELTA_ABS &&
	    (x->dummy || y->dummy))
		return x->dummy == y->dummy ? 0 : x->dummy ? 1 : -1;
	return value_cmp(d, &x->cell[f], &y->cell[f]);
}

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	const pk_diff *d = c->d;
	const pk_diff_row *x = a, *y = b;
	int r = d->o.order ? file_cmp(d, x, y, d->o.order, true) : 0;
	if (!r && x->period != y->period)
		r = x->period > y->period ? -1 : 1;
	for (size_t f = 1; !r && f < d->n; f++)
		r = file_cmp(d, x, y, f, false);
	if (!r)
		r = pki_hist_out_keys_cmp(d->h[0], x->entry, y->entry, true);
	if (!r) {
		size_t ix = c->pos[x - c->de->rows], iy = c->pos[y - c->de->rows];
		r = ix < iy ? -1 : ix > iy;
	}
	return r;
}

static int table_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	const pk_diff_row *x = &c->de->rows[*(const size_t *)a], *y = &c->de->rows[*(const size_t *)b];
	return pki_hist_table_cmp_keys(c->d->h[0], x->entry, y->entry);
}

/* The rows sorted: their table order first (perf's tree walked), then
 * the output order, ties kept in table order. */
static int sort_rows(const pk_diff *d, struct diff_event *de)
{
	size_t n = de->nr;
	size_t *ord = malloc((n ? n : 1) * sizeof(*ord)), *pos = malloc((n ? n : 1) * sizeof(*pos));
	int rc = ord && pos ? 0 : -ENOMEM;
	struct sort_ctx c = {d, de, pos};
	for (size_t i = 0; !rc && i < n; i++) {
		ord[i] = i;
		de->rows[i].cell = de->cells + i * d->n;
	}
	if (!rc) {
		qsort_r(ord, n, sizeof(*ord), table_cmp, &c);
		for (size_t i = 0; i < n; i++)
			pos[ord[i]] = i;
		qsort_r(de->rows, n, sizeof(*de->rows), row_cmp, &c);
	}
	free(ord);
	free(pos);
	return rc;
}

/* Event b's rows: the baseline's entries, each other file's paired. */
static int make_event(pk_diff *d, struct diff_event *de, int b)
{
	pki_strmap map = {0};
	char key[PK_HIST_MAX_KEYS * (PK_HIST_NAME_MAX + 24)];
	int rc = 0;
	de->base_total = pk_hist_total_of(d->h[0], b, false);
	size_t n;
	pk_hist_entry **v = event_entries(d, 0, b, &n);
	rc = v ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		match_key(d->h[0], v[i], key, sizeof(key));
		pki_strmap_slot *slot = pki_strmap_put(&map, key);
		if (slot && slot->val) { /* collapsed into the first in table order */
			de->rows[(size_t)(uintptr_t)slot->val - 1].period += v[i]->v[PK_HIST_SELF];
			continue;
		}
		pk_diff_row *r = slot ? row_add(d, de, d->h[0], v[i]) : NULL;
		if (!r) {
			rc = -ENOMEM;
			break;
		}
		slot->val = (void *)(uintptr_t)de->nr;
		r->period = v[i]->v[PK_HIST_SELF];
	}
	free(v);
	for (size_t f = 1; !rc && f < d->n; f++) {
		int ef = match_event(d, f, b);
		if (ef >= 0)
			rc = pair_file(d, de, &map, f, ef);
	}
	pki_strmap_free(&map, NULL);
	if (rc)
		return rc;
	for (size_t r = 0; r < de->nr; r++)
		de->rows[r].cell = de->cells + r * d->n;
	compute(d, de);
	if (d->o.baseline_only) { /* perf drops rows without a pair, then totals what is left */
		size_t w = 0;
		de->base_total = 0;
		for (size_t r = 0; r < de->nr; r++) {
			if (!has_pairs(d, &de->rows[r]))
				continue;
			de->base_total += de->rows[r].period;
			memmove(de->cells + w * d->n, de->cells + r * d->n, d->n * sizeof(*de->cells));
			de->rows[w++] = de->rows[r];
		}
		de->nr = w;
	}
	return sort_rows(d, de);
}

static int diff_make(pk_diff *d)
{
	for (size_t f = 0; f < d->n; f++)
		if (!(d->all[f] = pk_hist_collect(d->h[f], &d->nall[f])))
			return -ENOMEM;
	d->nr_ev = pk_session_nr_evsels(pk_hist_session(d->h[0]));
	if (d->nr_ev > pk_hist_nr_events(d->h[0]))
		d->nr_ev = pk_hist_nr_events(d->h[0]);
	d->ev = calloc(d->nr_ev ? d->nr_ev : 1, sizeof(*d->ev));
	if (!d->ev)
		return -ENOMEM;
	for (size_t b = 0; b < d->nr_ev; b++) {
		int rc = make_event(d, &d->ev[b], (int)b);
		if (rc)
			return rc;
	}
	return 0;
}

int pk_diff_new(pk_hist *const *hists, size_t n, const pk_diff_opts *o, pk_diff **out,
		pk_error *err)
{
	*out = NULL;
	if (!o || o->size != sizeof(*o) || n < 2)
		return pk_err(err, -EINVAL, "perf diff: two files or more, and options of this size");
	if (o->order >= n)
		return pk_err(err, -EINVAL, "Order option out of limit.");
	const pk_hist_opts *b = pk_hist_config(hists[0]);
	for (size_t f = 1; f < n; f++) {
		const pk_hist_opts *x = pk_hist_config(hists[f]);
		if (x->nr_keys != b->nr_keys || memcmp(x->keys, b->keys, sizeof(b->keys[0]) * (size_t)b->nr_keys))
			return pk_err(err, -EINVAL, "perf diff: the files' histograms have other keys");
	}
	pk_diff *d = calloc(1, sizeof(*d));
	if (!d || !(d->h = malloc(n * sizeof(*d->h))) || !(d->all = calloc(n, sizeof(*d->all))) ||
	    !(d->nall = calloc(n, sizeof(*d->nall)))) {
		pk_diff_free(d);
		return pk_err(err, -ENOMEM, "perf diff: out of memory");
	}
	memcpy(d->h, hists, n * sizeof(*d->h));
	d->n = n;
	d->o = *o;
	if (diff_make(d)) {
		pk_diff_free(d);
		return pk_err(err, -ENOMEM, "perf diff: out of memory");
	}
	*out = d;
	return 0;
}

void pk_diff_free(pk_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->ev && i < d->nr_ev; i++) {
		free(d->ev[i].rows);
		free(d->ev[i].cells);
	}
	free(d->ev);
	for (size_t f = 0; d->all && f < d->n; f++)
		free(d->all[f]);
	free(d->all);
	free(d->nall);
	free(d->h);
	free(d);
}

size_t pk_diff_nr_events(const pk_diff *d)
{
	return d->nr_ev;
}

const pk_diff_row *pk_diff_rows(const pk_diff *d, size_t i, size_t *n)
{
	*n = i < d->nr_ev ? d->ev[i].nr : 0;
	return i < d->nr_ev ? d->ev[i].rows : NULL;
}

uint64_t pk_diff_base_total(const pk_diff *d, size_t i)
{
	return i < d->nr_ev ? d->ev[i].base_total : 0;
}

void pk_diff_widths(const pk_diff *d, size_t i, int *w)
{
	const pk_hist_opts *o = pk_hist_config(d->h[0]);
	for (int k = 0; k < o->nr_keys; k++)
		w[k] = pk_hist_key_width_min(o->keys[k]);
	for (size_t r = 0; i < d->nr_ev && r < d->ev[i].nr; r++) {
		const pk_diff_row *row = &d->ev[i].rows[r];
		pk_hist_entry *e = (pk_hist_entry *)row->entry;
		int rw[PK_HIST_MAX_KEYS];
		pk_hist_widths(row->hist, &e, 1, e->ev, rw);
		for (int k = 0; k < o->nr_keys; k++)
			if (rw[k] > w[k])
				w[k] = rw[k];
	}
}
