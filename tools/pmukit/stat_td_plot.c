/* pmukit stat --topdown --plot FILE.svg: the per-interval TopDown nodes that
 * stat keeps (stat_td.series, one reading per block per -I interval) drawn
 * as plot_svg's stacked timeline: one panel per block (core type), the
 * Level 1 band and, with --td-level 2, the Level 2 band.
 *
 * Invariants: a block's shares per interval come from the library
 * (pk_topdown_series_table: node values / 100 clamped to 0..1, 0 when not
 * computable; the plot refuses anything else); colours come from one
 * palette, Level 2 nodes are lighter shades of their parent's colour. */
#include "stat_topdown.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_svg.h"

enum { PLOT_MAX_NODES = 32 };

/* Level 1 colours in the order of the method's Level 1 nodes. */
static const unsigned palette[] = {0x4e79a7, 0xe15759, 0xf28e2b, 0x59a14f, 0x76b7b2, 0xb07aa1};

/* A block's panel: its table (pk_topdown_series_table) and series. */
typedef struct td_panel {
	pk_topdown_table t;
	plot_series series[PLOT_MAX_NODES];
	char color[PLOT_MAX_NODES][8];
} td_panel;

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
	for (size_t k = 0; k < d->t.nn; k++) {
		const pk_topdown_node *n = d->t.node[k];
		int parent = -1;
		series_of[k] = -1;
		if (n->level == 1) {
			color_of[k] = palette[nl1++ % npal];
		} else if (n->level == 2) {
			size_t j = 0;
			while (j < k && !(d->t.node[j]->level == 1 && series_of[j] >= 0 && n->parent &&
					  !strcmp(d->t.node[j]->name, n->parent)))
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
					      d->t.shares + k * d->t.nt};
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
		if (pk_topdown_series_table(&t->series, b, PLOT_MAX_NODES, &d[b].t) < 0) {
			r = pk_err(err, -ENOMEM, "out of memory");
			break;
		}
		size_t ns = panel_series(&d[b]);
		if (!d[b].t.nt || !ns)
			continue;
		for (size_t i = 0; i < ns; i++)
			l2 |= d[b].series[i].level == 2;
		panels[np++] = (plot_panel){pk_topdown_block_pmu(t->td, b), d[b].t.times,
					    d[b].t.nt, d[b].series, ns};
	}
	if (r == 0 && np == 0)
		r = pk_err(err, -ENODATA, "--plot '%s': no interval was measured (the run ended "
					  "before the first -I interval)", path);
	if (r == 0) {
		plot_timeline tl = {l2 ? "TopDown Level 1 and 2" : "TopDown Level 1", target,
				    modeled, panels, np};
		r = plot_write(path, &tl, err);
	}
	for (size_t b = 0; d && b < nb; b++)
		pk_topdown_table_release(&d[b].t);
	free(d);
	free(panels);
	return r;
}
