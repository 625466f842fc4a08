/* pmukit stat --topdown --plot FILE.svg: the per-interval TopDown nodes that
 * stat keeps (stat_td.series, one reading per block per -I interval) drawn
 * as plot_svg's stacked timeline: one panel per block (core type), the
 * Level 1 band and, with --td-level 2, the Level 2 band.
 *
 * Invariants: every reading of a block lists its nodes in the same order
 * (pk_topdown_compute's), so a node is its position in a reading; shares
 * are node values / 100, clamped to 0..1, 0 when not computable (the plot
 * refuses anything else); colours come from one palette, Level 2 nodes are
 * lighter shades of their parent's colour. */
#include "stat_topdown.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_svg.h"

enum { PLOT_MAX_NODES = 32 };

/* Level 1 colours in the order of the method's Level 1 nodes. */
static const unsigned palette[] = {0x4e79a7, 0xe15759, 0xf28e2b, 0x59a14f, 0x76b7b2, 0xb07aa1};

typedef struct td_panel {
	double *times;             /* seconds */
	size_t nt;
	const pk_topdown_node *node[PLOT_MAX_NODES]; /* from the first reading */
	size_t nn;
	double *vals;              /* nn x nt shares */
	plot_series series[PLOT_MAX_NODES];
	char color[PLOT_MAX_NODES][8];
} td_panel;

/* The block's interval times and node list (first pass). */
static int panel_times(const pk_topdown_series *s, size_t b, td_panel *d)
{
	d->times = calloc(s->nr ? s->nr : 1, sizeof(*d->times));
	if (!d->times)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr; i++) {
		const pk_topdown_sample *x = &s->v[i];
		if (x->block != b || x->t_ns < 0)
			continue;
		if (d->nt == 0 || x->t_ns / 1e9 != d->times[d->nt - 1])
			d->times[d->nt++] = x->t_ns / 1e9;
		if (d->nt == 1 && d->nn < PLOT_MAX_NODES)
			d->node[d->nn++] = &x->node;
	}
	return 0;
}

static double share_of(const pk_topdown_node *n)
{
	if (!n->computable || !isfinite(n->value))
		return 0;
	double v = n->value / 100;
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* The shares of every reading (second pass). */
static int panel_values(const pk_topdown_series *s, size_t b, td_panel *d)
{
	d->vals = calloc(d->nn * d->nt + 1, sizeof(*d->vals));
	if (!d->vals)
		return -ENOMEM;
	size_t ti = 0, k = 0;
	double last = -1;
	for (size_t i = 0; i < s->nr; i++) {
		const pk_topdown_sample *x = &s->v[i];
		if (x->block != b || x->t_ns < 0)
			continue;
		if (last >= 0 && x->t_ns != last) {
			ti++;
			k = 0;
		}
		last = x->t_ns;
		if (ti < d->nt && k < d->nn)
			d->vals[k * d->nt + ti] = share_of(&x->node);
		k++;
	}
	return 0;
}

/* A Level 2 colour: the parent's lightened by f (0..1). */
static unsigned lighter(unsigned rgb, double f)
{
	unsigned c = 0;
	for (int sh = 0; sh <= 16; sh += 8) {
		unsigned ch = rgb >> sh & 0xff;
		c |= (unsigned)(ch + (255 - ch) * f) << sh;
	}
	return c;
}

/* A series per node: Level 1 in palette order, Level 2 a shade of its
 * parent (each further child lighter). Returns how many. */
static size_t panel_series(td_panel *d)
{
	size_t ns = 0, nl1 = 0, npal = sizeof(palette) / sizeof(palette[0]);
	int series_of[PLOT_MAX_NODES], children[PLOT_MAX_NODES] = {0};
	unsigned color_of[PLOT_MAX_NODES];
	for (size_t k = 0; k < d->nn; k++) {
		const pk_topdown_node *n = d->node[k];
		int parent = -1;
		series_of[k] = -1;
		if (n->level == 1) {
			color_of[k] = palette[nl1++ % npal];
		} else if (n->level == 2) {
			size_t j = 0;
			while (j < k && !(d->node[j]->level == 1 && series_of[j] >= 0 && n->parent &&
					  !strcmp(d->node[j]->name, n->parent)))
				j++;
			if (j == k)
				continue; /* no Level 1 parent drawn: nothing to stack on */
			parent = series_of[j];
			color_of[k] = lighter(color_of[j], 0.3 + 0.25 * (double)(children[j]++ % 3));
		} else {
			continue;
		}
		series_of[k] = (int)ns;
		snprintf(d->color[ns], sizeof(d->color[ns]), "#%06x", color_of[k] & 0xffffff);
		const char *name = strncmp(n->name, "tma_", 4) ? n->name : n->name + 4;
		d->series[ns] = (plot_series){name, d->color[ns], n->level, parent,
					      d->vals + k * d->nt};
		ns++;
	}
	return ns;
}

/* Writes the chart of every block's intervals to path. title_sub: the
 * target (the command or the scenario). */
static int plot_write(const char *path, const plot_timeline *tl, pk_error *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return pk_err(err, -errno, "cannot write the plot '%s': %s", path, strerror(errno));
	int r = plot_timeline_svg(f, tl, err);
	if (fclose(f) != 0 && r == 0)
		r = pk_err(err, -EIO, "cannot write the plot '%s': %s", path, strerror(errno));
	return r;
}

int stat_td_plot(const stat_td *t, const char *path, const char *target, bool modeled,
		 pk_error *err)
{
	size_t nb = pk_topdown_nr_blocks(t->td);
	td_panel *d = calloc(nb ? nb : 1, sizeof(*d));
	plot_panel *panels = calloc(nb ? nb : 1, sizeof(*panels));
	int r = d && panels ? 0 : pk_err(err, -ENOMEM, "out of memory");
	size_t np = 0;
	bool l2 = false;
	for (size_t b = 0; b < nb && r == 0; b++) {
		if (panel_times(&t->series, b, &d[b]) < 0 || panel_values(&t->series, b, &d[b]) < 0) {
			r = pk_err(err, -ENOMEM, "out of memory");
			break;
		}
		size_t ns = panel_series(&d[b]);
		if (!d[b].nt || !ns)
			continue;
		for (size_t i = 0; i < ns; i++)
			l2 |= d[b].series[i].level == 2;
		panels[np++] = (plot_panel){pk_topdown_block_pmu(t->td, b), d[b].times, d[b].nt,
					    d[b].series, ns};
	}
	if (r == 0 && np == 0)
		r = pk_err(err, -ENODATA, "--plot '%s': no interval was measured (the run ended "
					  "before the first -I interval)", path);
	if (r == 0) {
		plot_timeline tl = {l2 ? "TopDown Level 1 and 2" : "TopDown Level 1", target,
				    modeled, panels, np};
		r = plot_write(path, &tl, err);
	}
	for (size_t b = 0; d && b < nb; b++) {
		free(d[b].times);
		free(d[b].vals);
	}
	free(d);
	free(panels);
	return r;
}
