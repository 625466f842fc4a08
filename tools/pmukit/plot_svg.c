/* SVG charts (plot_svg.h): a stacked timeline of shares and a histogram,
 * sharing one set of pieces: locale-free numbers, escaped text, "nice" axis
 * ticks, axes with gridlines, legends, the title block and the badge.
 *
 * The document is built in memory and written at the end, so a refused
 * input or a failed allocation writes nothing. Coordinates are CSS pixels
 * with two decimals; the size is fixed by the data (number of panels and
 * bands), so the output is the same bytes for the same data. */
#include "plot_svg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"
#define WIDTH 960.0
#define LEFT 84.0            /* y tick labels and the axis title */
#define RIGHT 220.0          /* the legend */
#define PLOT_W (WIDTH - LEFT - RIGHT)
#define TITLE_H 64.0
#define PANEL_TITLE_H 30.0
#define BAND_LABEL_H 22.0
#define BAND_PLOT_H 190.0
#define BAND_AXIS_H 46.0
#define BAND_H (BAND_LABEL_H + BAND_PLOT_H + BAND_AXIS_H)
#define BOTTOM 16.0
#define TEXT_DARK "#222222"
#define TEXT_MUTED "#555555"
#define GRID "#d9d9d9"
#define FRAME "#888888"
#define MAX_SERIES 64
/* Beyond this magnitude times, edges and counts are refused: labels are
 * printed through a 64-bit integer with up to three decimals. */
#define MAX_VALUE 1e15

typedef struct box {
	double x, y, w, h;
} box;

/* ---- numbers and text ------------------------------------------------------- */

/* v with `dec` decimals (0..3), without the locale's decimal point. */
static const char *fmt_fixed(char *buf, size_t len, double v, int dec)
{
	static const long long scale[] = {1, 10, 100, 1000};
	long long s = scale[dec < 0 ? 0 : dec > 3 ? 3 : dec];
	long long r = llround(fabs(v) * (double)s);
	const char *sign = v < 0 && r ? "-" : "";
	if (s == 1)
		snprintf(buf, len, "%s%lld", sign, r);
	else
		snprintf(buf, len, "%s%lld.%0*lld", sign, r / s, dec, r % s);
	return buf;
}

/* A coordinate: two decimals. */
#define NUMBUF 40
#define N(buf, v) fmt_fixed(buf, sizeof(buf), v, 2)

/* Writes text with &, <, >, " and ' as entities and control characters
 * (not allowed in XML 1.0) as '?'. */
static void put_escaped(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(c < 0x20 && c != '\t' && c != '\n' ? '?' : c, f); break;
		}
	}
}

/* <text> at (x, y); anchor "start", "middle" or "end"; rotate: -90 or 0. */
static void text(FILE *f, double x, double y, const char *anchor, int size, const char *weight,
		 const char *fill, int rotate, const char *s)
{
	char a[NUMBUF], b[NUMBUF];
	fprintf(f, "<text x=\"%s\" y=\"%s\" text-anchor=\"%s\" font-size=\"%d\" font-weight=\"%s\" "
		   "fill=\"%s\"", N(a, x), N(b, y), anchor, size, weight, fill);
	if (rotate)
		fprintf(f, " transform=\"rotate(%d %s %s)\"", rotate, a, b);
	fputc('>', f);
	put_escaped(f, s);
	fputs("</text>\n", f);
}

static void rect(FILE *f, box r, const char *fill, const char *stroke, const char *cls)
{
	char a[NUMBUF], b[NUMBUF], c[NUMBUF], d[NUMBUF];
	fprintf(f, "<rect%s%s%s x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"",
		cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "", N(a, r.x), N(b, r.y),
		N(c, r.w), N(d, r.h), fill);
	if (stroke)
		fprintf(f, " stroke=\"%s\" stroke-width=\"1\"", stroke);
	fputs("/>\n", f);
}

static void line(FILE *f, double x1, double y1, double x2, double y2, const char *stroke)
{
	char a[NUMBUF], b[NUMBUF], c[NUMBUF], d[NUMBUF];
	fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"1\"/>\n",
		N(a, x1), N(b, y1), N(c, x2), N(d, y2), stroke);
}

/* ---- checks ----------------------------------------------------------------------- */

static bool is_color(const char *c)
{
	if (!c || c[0] != '#' || strlen(c) != 7)
		return false;
	for (int i = 1; i < 7; i++)
		if (!strchr("0123456789abcdefABCDEF", c[i]))
			return false;
	return true;
}

static int bad(pk_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(pk_error *err, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pk_err(err, -EINVAL, "plot: %s", msg);
}

/* ---- axes and legends ------------------------------------------------------------ */

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks. */
static double nice_step(double range, int n)
{
	double raw = range / n, mag = pow(10, floor(log10(raw))), r = raw / mag;
	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* Decimals that show a step: 0 for >= 1, 1 for >= 0.1, ... (at most 3). */
static int step_decimals(double step)
{
	int d = 0;
	while (d < 3 && step * pow(10, d) < 0.999)
		d++;
	return d;
}

/* The x axis over [0, xmax] (or [xmin, xmax]) below plot p: ticks, labels,
 * vertical gridlines, the title. */
static void axis_x(FILE *f, box p, double xmin, double xmax, const char *title)
{
	double step = nice_step(xmax - xmin, 8);
	int dec = step_decimals(step);
	char lab[NUMBUF];
	for (long k = (long)ceil(xmin / step - 1e-9); k * step <= xmax + step * 1e-9; k++) {
		double v = (double)k * step;
		double x = p.x + (v - xmin) / (xmax - xmin) * p.w;
		line(f, x, p.y, x, p.y + p.h, GRID);
		line(f, x, p.y + p.h, x, p.y + p.h + 5, FRAME);
		text(f, x, p.y + p.h + 18, "middle", 11, "normal", TEXT_MUTED, 0,
		     fmt_fixed(lab, sizeof(lab), v, dec));
	}
	text(f, p.x + p.w / 2, p.y + p.h + 38, "middle", 12, "normal", TEXT_DARK, 0, title);
}

/* A y tick at value label, height y: gridline, tick, label. */
static void y_tick(FILE *f, box p, double y, const char *label)
{
	line(f, p.x, y, p.x + p.w, y, GRID);
	line(f, p.x - 5, y, p.x, y, FRAME);
	text(f, p.x - 8, y + 4, "end", 11, "normal", TEXT_MUTED, 0, label);
}

static void axis_y_title(FILE *f, box p, const char *title)
{
	text(f, 20, p.y + p.h / 2, "middle", 12, "normal", TEXT_DARK, -90, title);
}

/* The y axis 0-100 % with gridlines every 20 %. */
static void axis_y_percent(FILE *f, box p, const char *title)
{
	char lab[NUMBUF];
	for (int v = 0; v <= 100; v += 20)
		y_tick(f, p, p.y + p.h - v / 100.0 * p.h, fmt_fixed(lab, sizeof(lab), v, 0));
	axis_y_title(f, p, title);
}

/* A legend at (x, y): a swatch and a name a line. */
static void legend(FILE *f, double x, double y, const char *const *names,
		   const char *const *colors, size_t n)
{
	fputs("<g class=\"legend\">\n", f);
	for (size_t i = 0; i < n; i++) {
		double ly = y + (double)i * 20;
		rect(f, (box){x, ly, 12, 12}, colors[i], "#ffffff", NULL);
		text(f, x + 18, ly + 10.5, "start", 12, "normal", TEXT_DARK, 0, names[i]);
	}
	fputs("</g>\n", f);
}

/* The document's start: size, background, title, subtitle, badge. */
static void head(FILE *f, double height, const char *title, const char *subtitle, bool modeled)
{
	char h[NUMBUF];
	N(h, height);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%s\" "
		   "viewBox=\"0 0 %d %s\" font-family=\"%s\">\n",
		(int)WIDTH, h, (int)WIDTH, h, FONT);
	fputs("<title>", f);
	put_escaped(f, title);
	fputs("</title>\n", f);
	rect(f, (box){0, 0, WIDTH, height}, "#ffffff", NULL, "background");
	text(f, LEFT, 30, "start", 18, "bold", TEXT_DARK, 0, title);
	if (subtitle)
		text(f, LEFT, 50, "start", 12, "normal", TEXT_MUTED, 0, subtitle);
	if (modeled) {
		fputs("<g class=\"modeled\">\n", f);
		rect(f, (box){WIDTH - 16 - 176, 14, 176, 24}, "#fff4e0", "#d08c00", NULL);
		text(f, WIDTH - 16 - 88, 30.5, "middle", 12, "bold", "#8a5a00", 0,
		     "modeled, not measured");
		fputs("</g>\n", f);
	}
}

/* Writes the finished document (NULL: building it ran out of memory). */
static int finish(FILE *out, char *doc, size_t len, pk_error *err)
{
	int rc = 0;
	if (!doc)
		rc = pk_err(err, -ENOMEM, "plot: out of memory");
	else if (fwrite(doc, 1, len, out) != len)
		rc = pk_err(err, -EIO, "plot: cannot write the SVG: %s", strerror(errno));
	free(doc);
	return rc;
}

/* ---- the timeline ----------------------------------------------------------------- */

static int check_panel(const plot_panel *p, size_t pi, pk_error *err)
{
	if (!p->nr_times || !p->times)
		return bad(err, "panel %zu has no time points", pi);
	if (!p->nr_series || !p->series)
		return bad(err, "panel %zu has no series", pi);
	if (p->nr_series > MAX_SERIES)
		return bad(err, "panel %zu has %zu series, at most %d are drawn", pi, p->nr_series,
			   MAX_SERIES);
	for (size_t i = 0; i < p->nr_times; i++)
		if (!isfinite(p->times[i]) || p->times[i] <= (i ? p->times[i - 1] : 0) ||
		    p->times[i] > MAX_VALUE)
			return bad(err, "panel %zu: time point %zu (%g s) is not after the one before",
				   pi, i, p->times[i]);
	for (size_t s = 0; s < p->nr_series; s++) {
		const plot_series *x = &p->series[s];
		if (!x->name || !x->values)
			return bad(err, "panel %zu series %zu has no name or no values", pi, s);
		if (!is_color(x->color))
			return bad(err, "series '%s': colour '%s' is not #rrggbb", x->name,
				   x->color ? x->color : "(none)");
		if (x->level != 1 && x->level != 2)
			return bad(err, "series '%s': level %d is not 1 or 2", x->name, x->level);
		if (x->level == 2 && (x->parent < 0 || (size_t)x->parent >= p->nr_series ||
				      p->series[x->parent].level != 1))
			return bad(err, "series '%s': parent %d is not a level-1 series", x->name,
				   x->parent);
		for (size_t i = 0; i < p->nr_times; i++)
			if (!isfinite(x->values[i]) || x->values[i] < -1e-9 ||
			    x->values[i] > 1 + 1e-9)
				return bad(err, "series '%s': value %zu (%g) is not a share in 0..1",
					   x->name, i, x->values[i]);
	}
	return 0;
}

/* The series of one band in stacking order: level 1 as given; level 2
 * grouped by parent, in the parents' order. Returns how many. */
static size_t band_order(const plot_panel *p, int level, size_t *order)
{
	size_t n = 0;
	for (size_t s = 0; s < p->nr_series; s++) {
		if (level == 1 && p->series[s].level == 1)
			order[n++] = s;
		for (size_t c = 0; level == 2 && p->series[s].level == 1 && c < p->nr_series; c++)
			if (p->series[c].level == 2 && p->series[c].parent == (int)s)
				order[n++] = c;
	}
	return n;
}

/* One series' area as steps between the cumulative shares below (lo) and
 * with it (hi), clipped to 100 %. */
static void area(FILE *f, box b, const plot_panel *p, const double *lo, const double *hi,
		 const plot_series *s)
{
	char a[NUMBUF], c[NUMBUF], d[NUMBUF];
	double tmax = p->times[p->nr_times - 1];
	fprintf(f, "<path class=\"area\" fill=\"%s\" d=\"", s->color);
	for (size_t i = 0; i < p->nr_times; i++) { /* the top edge, left to right */
		double x0 = b.x + (i ? p->times[i - 1] : 0) / tmax * b.w;
		double x1 = b.x + p->times[i] / tmax * b.w, y = b.y + b.h - fmin(hi[i], 1) * b.h;
		fprintf(f, "%s%s %s L%s %s ", i ? "L" : "M", N(a, x0), N(c, y), N(d, x1), N(c, y));
	}
	for (size_t k = p->nr_times; k-- > 0;) { /* the bottom edge, back */
		double x0 = b.x + (k ? p->times[k - 1] : 0) / tmax * b.w;
		double x1 = b.x + p->times[k] / tmax * b.w, y = b.y + b.h - fmin(lo[k], 1) * b.h;
		fprintf(f, "L%s %s L%s %s ", N(a, x1), N(c, y), N(d, x0), N(c, y));
	}
	fputs("Z\">\n<title>", f);
	put_escaped(f, s->name);
	fputs("</title></path>\n", f);
}

/* One band: frame, gridlines, stacked areas, axes, legend. */
static int band(FILE *f, double y, const plot_panel *p, int level, size_t pi)
{
	size_t order[MAX_SERIES], n = band_order(p, level, order);
	box b = {LEFT, y + BAND_LABEL_H, PLOT_W, BAND_PLOT_H};
	text(f, LEFT, y + 15, "start", 13, "bold", TEXT_DARK, 0,
	     level == 1 ? "Level 1" : "Level 2 (grouped by Level 1 parent)");
	fprintf(f, "<g class=\"band\" id=\"panel%zu-level%d\">\n", pi, level);
	rect(f, b, "#ffffff", NULL, "plot-area");
	axis_y_percent(f, b, "% of slots");
	double *lo = calloc(p->nr_times, sizeof(double)), *hi = calloc(p->nr_times, sizeof(double));
	if (!lo || !hi) {
		free(lo);
		free(hi);
		return -ENOMEM;
	}
	const char *names[MAX_SERIES], *colors[MAX_SERIES];
	for (size_t k = 0; k < n; k++) {
		const plot_series *s = &p->series[order[k]];
		for (size_t i = 0; i < p->nr_times; i++)
			hi[i] = lo[i] + fmax(s->values[i], 0);
		area(f, b, p, lo, hi, s);
		memcpy(lo, hi, p->nr_times * sizeof(double));
		/* the legend lists the top of the stack first, as it is drawn */
		names[n - 1 - k] = s->name;
		colors[n - 1 - k] = s->color;
	}
	free(lo);
	free(hi);
	rect(f, b, "none", FRAME, NULL);
	axis_x(f, b, 0, p->times[p->nr_times - 1], "time (s)");
	legend(f, b.x + b.w + 20, b.y + 4, names, colors, n);
	fputs("</g>\n", f);
	return 0;
}

static bool has_level2(const plot_panel *p)
{
	for (size_t s = 0; s < p->nr_series; s++)
		if (p->series[s].level == 2)
			return true;
	return false;
}

int plot_timeline_svg(FILE *out, const plot_timeline *t, pk_error *err)
{
	if (!t || !t->nr_panels || !t->panels)
		return bad(err, "no panels to draw");
	double height = TITLE_H + BOTTOM;
	for (size_t pi = 0; pi < t->nr_panels; pi++) {
		int rc = check_panel(&t->panels[pi], pi, err);
		if (rc)
			return rc;
		height += PANEL_TITLE_H + BAND_H * (has_level2(&t->panels[pi]) ? 2 : 1);
	}
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);
	if (!f)
		return pk_err(err, -ENOMEM, "plot: out of memory");
	head(f, height, t->title ? t->title : "TopDown", t->subtitle, t->modeled);
	double y = TITLE_H;
	int rc = 0;
	for (size_t pi = 0; pi < t->nr_panels && !rc; pi++) {
		const plot_panel *p = &t->panels[pi];
		if (p->title)
			text(f, 16, y + 20, "start", 15, "bold", TEXT_DARK, 0, p->title);
		y += PANEL_TITLE_H;
		rc = band(f, y, p, 1, pi);
		y += BAND_H;
		if (!rc && has_level2(p)) {
			rc = band(f, y, p, 2, pi);
			y += BAND_H;
		}
	}
	fputs("</svg>\n", f);
	fclose(f);
	if (rc) {
		free(doc);
		return pk_err(err, rc, "plot: out of memory");
	}
	return finish(out, doc, len, err);
}

/* ---- the histogram ------------------------------------------------------------------ */

static int check_histogram(const plot_histogram *h, pk_error *err)
{
	if (!h->nr_bins || !h->edges || !h->counts)
		return bad(err, "histogram has no bins");
	if (!is_color(h->color))
		return bad(err, "histogram colour '%s' is not #rrggbb", h->color ? h->color : "(none)");
	for (size_t i = 0; i <= h->nr_bins; i++)
		if (!isfinite(h->edges[i]) || fabs(h->edges[i]) > MAX_VALUE ||
		    (i && h->edges[i] <= h->edges[i - 1]))
			return bad(err, "bin edge %zu (%g) is not after the one before", i, h->edges[i]);
	for (size_t i = 0; i < h->nr_bins; i++)
		if (!isfinite(h->counts[i]) || h->counts[i] < 0 || h->counts[i] > MAX_VALUE)
			return bad(err, "bin %zu: count %g is not a count", i, h->counts[i]);
	return 0;
}

/* The count axis: linear from 0 to a nice maximum, or decades from 1. Sets
 * *top (linear: the axis maximum; log: the exponent of the top decade). */
static void axis_counts(FILE *f, box p, const plot_histogram *h, double max, double *top)
{
	char lab[NUMBUF];
	if (h->log_y) {
		*top = fmax(1, ceil(log10(fmax(max, 10))));
		for (int d = 0; d <= (int)*top; d++) {
			if (d <= 6)
				fmt_fixed(lab, sizeof(lab), pow(10, d), 0);
			else
				snprintf(lab, sizeof(lab), "1e%d", d);
			y_tick(f, p, p.y + p.h - d / *top * p.h, lab);
		}
	} else {
		double step = nice_step(fmax(max, 1), 5);
		*top = ceil(fmax(max, 1) / step - 1e-9) * step;
		for (long k = 0; (double)k * step <= *top + step * 1e-9; k++)
			y_tick(f, p, p.y + p.h - (double)k * step / *top * p.h,
			       fmt_fixed(lab, sizeof(lab), (double)k * step, step_decimals(step)));
	}
	axis_y_title(f, p, h->y_label ? h->y_label : "count");
}

int plot_histogram_svg(FILE *out, const plot_histogram *h, pk_error *err)
{
	if (!h)
		return bad(err, "no histogram to draw");
	int rc = check_histogram(h, err);
	if (rc)
		return rc;
	double max = 0, height = TITLE_H + BAND_H + BOTTOM;
	for (size_t i = 0; i < h->nr_bins; i++)
		max = fmax(max, h->counts[i]);
	char *doc = NULL, a[NUMBUF], b2[NUMBUF], c[NUMBUF], d[NUMBUF];
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);
	if (!f)
		return pk_err(err, -ENOMEM, "plot: out of memory");
	head(f, height, h->title ? h->title : "Histogram", NULL, h->modeled);
	box p = {LEFT, TITLE_H + BAND_LABEL_H, PLOT_W, BAND_PLOT_H};
	fputs("<g class=\"band\" id=\"histogram\">\n", f);
	rect(f, p, "#ffffff", NULL, "plot-area");
	double top, x0 = h->edges[0], x1 = h->edges[h->nr_bins];
	axis_counts(f, p, h, max, &top);
	for (size_t i = 0; i < h->nr_bins; i++) {
		double v = h->counts[i];
		double frac = h->log_y ? (v >= 1 ? log10(v) / top : 0) : v / top;
		if (frac <= 0)
			continue;
		double bx = p.x + (h->edges[i] - x0) / (x1 - x0) * p.w;
		double bw = (h->edges[i + 1] - h->edges[i]) / (x1 - x0) * p.w;
		fprintf(f, "<rect class=\"bar\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" "
			   "fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>\n",
			N(a, bx), N(b2, p.y + p.h - frac * p.h), N(c, bw), N(d, frac * p.h), h->color);
	}
	rect(f, p, "none", FRAME, NULL);
	axis_x(f, p, x0, x1, h->x_label ? h->x_label : "value");
	const char *name = h->series_name ? h->series_name : "samples";
	legend(f, p.x + p.w + 20, p.y + 4, &name, &h->color, 1);
	fputs("</g>\n</svg>\n", f);
	fclose(f);
	return finish(out, doc, len, err);
}
