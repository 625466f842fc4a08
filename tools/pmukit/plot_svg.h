/* SVG charts the CLI writes when the user asks for one: `stat --topdown
 * --plot FILE.svg` with -I (drawn by stat_td_plot.c from the intervals stat
 * keeps) and `report --spe-latency --plot FILE.svg` (the Arm SPE total
 * latency histogram, report_spe_print.c). Charts are files a user asks for,
 * so they live in the CLI, not the library. Data in, one complete standalone
 * SVG document out, readable in any browser.
 *
 * plot_timeline_svg: a title, an optional subtitle (the command) and a
 * "modeled, not measured" badge (modeled), then one panel per plot_panel
 * (title cpu_core, cpu_atom, ...; its interval end times in seconds), each
 * with a Level 1 band and, when any series has level 2, a second band. A
 * plot_series is a name, a #rrggbb colour, a level, for level 2 the index of
 * its level-1 parent, and one share 0..1 per time point. Series are stacked
 * in order (level 2 grouped by parent) as steps, one per interval; axes
 * 0-100 % "% of slots" with gridlines and seconds with nice ticks; the legend
 * lists the stack top first.
 *
 * plot_histogram_svg: bins (nr_bins + 1 edges, counts) as bars, a linear or
 * decade (log_y) count axis, labels with units, legend, badge.
 *
 * Both share the pieces (locale-free fixed-decimal numbers, XML escaping,
 * nice ticks, axes, legend, title block), build the document in memory and
 * write it at the end.
 *
 * Invariants: the same data gives the same bytes (numbers are written with
 * fixed decimals and no locale, nothing depends on time or the host); text
 * is XML-escaped; bad input (NaN or infinite values, shares outside 0..1,
 * times not increasing, no series, no points, a Level 2 series whose parent
 * is not a Level 1 series, a colour that is not #rrggbb) is -EINVAL with a
 * pk_error naming the series and index, before anything is written; a failed
 * write is -EIO.
 *
 * Checked by tests/cli/test_plot_svg.c (structure, escaping, determinism,
 * refusals) and by rendering: tests/cli/svg_check.py draws the SVG in
 * headless Chromium (Debian chromium, installed by scripts/setup.sh; the test
 * is skipped with the reason printed without it), decodes the PNG with the
 * standard library and checks that each series' colour covers its share of
 * the plot area and that axes, legend and title are drawn. Kept apart from
 * the commands so tests/cli can check it alone. */
#ifndef PMUKIT_PLOT_SVG_H
#define PMUKIT_PLOT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <pmukit/error.h>

/* One stacked quantity over the panel's time points. */
typedef struct plot_series {
	const char *name;        /* legend text: "Retiring", "Memory bound" */
	const char *color;       /* "#rrggbb" */
	int level;               /* 1: the first band; 2: the second band */
	int parent;              /* level 2: index of its level-1 series in the panel; else -1 */
	const double *values;    /* shares 0..1, one per time point */
} plot_series;

/* One panel (one core type): series over the same time points. */
typedef struct plot_panel {
	const char *title;       /* "cpu_core", "cpu_atom", or NULL */
	const double *times;     /* interval end times in seconds, increasing, > 0 */
	size_t nr_times;
	const plot_series *series;
	size_t nr_series;
} plot_panel;

typedef struct plot_timeline {
	const char *title;       /* "TopDown", printed at the top */
	const char *subtitle;    /* e.g. the measured command; NULL: none */
	bool modeled;            /* the counts come from the PMU model: a "modeled" badge */
	const plot_panel *panels;
	size_t nr_panels;
} plot_timeline;

/* Writes the timeline: per panel, a band for the level-1 series stacked in
 * order (0-100 % of slots) and, when there are level-2 series, a second band
 * with them stacked grouped by parent; each interval (from the previous time
 * point, or 0, to its end) is one step. Returns 0, or a negative errno with
 * err set (-EINVAL for bad data, -EIO when writing fails). */
int plot_timeline_svg(FILE *out, const plot_timeline *t, pk_error *err);

typedef struct plot_histogram {
	const char *title;
	const char *x_label;     /* with its unit: "latency (cycles)" */
	const char *y_label;     /* "samples" */
	const char *series_name; /* legend text */
	const char *color;       /* "#rrggbb" */
	const double *edges;     /* nr_bins + 1 increasing bin edges */
	const double *counts;    /* nr_bins counts >= 0 */
	size_t nr_bins;
	bool log_y;              /* logarithmic count axis (decades) */
	bool modeled;
} plot_histogram;

/* Writes the histogram: one bar per bin. Errors as plot_timeline_svg. */
int plot_histogram_svg(FILE *out, const plot_histogram *h, pk_error *err);

#endif
