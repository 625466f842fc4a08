/* SVG charts the CLI writes when the user asks for one (`stat --topdown
 * --plot FILE.svg` with -I; later SPE latency histograms): a stacked
 * timeline of shares (TopDown Level 1, and Level 2 in a second band, one
 * panel per core type on hybrid machines) and a histogram. Data in, a
 * complete standalone SVG document out, readable in any browser: title,
 * axes with ticks, gridlines and units, legend, an optional "modeled" badge.
 *
 * Invariants: the same data gives the same bytes (numbers are written with
 * fixed decimals and no locale, nothing depends on time or the host); text
 * is XML-escaped; bad input (NaN or infinite values, shares outside 0..1,
 * times not increasing, no series, no points, a Level 2 series whose parent
 * is not a Level 1 series, a colour that is not #rrggbb) is refused with a
 * pk_error naming what and where, before anything is written. Kept apart
 * from the commands so tests/cli can check it alone. */
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
