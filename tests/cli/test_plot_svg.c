/* tools/pmukit/plot_svg.c: the SVG timeline and histogram. Structure (one
 * band per level, one area per series, legends, axes, title, the modeled
 * badge), escaping, byte-for-byte determinism (also under another numeric
 * locale), bad input refused with an error that names it and nothing
 * written, and a real rendering: tests/cli/svg_check.py renders the SVG with
 * headless Chromium to PNG, decodes the PNG and checks that each series'
 * colour covers its share of the plot area and that axes, legend and title
 * are drawn (skipped, with the reason printed, when Chromium is absent).
 * PK_PLOT_KEEP=DIR keeps the SVGs and PNGs there to look at. */
#include "helpers.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/pmukit/plot_svg.h"

#define NT 10

/* A TopDown run of NT intervals of 0.5 s: Level 1 shares that change over
 * time and sum to 1, Level 2 splitting each parent at a fixed ratio. */
typedef struct sample {
	double times[NT];
	double l1[4][NT], l2[8][NT], atom[4][NT];
	plot_series core[12], atom_s[4];
	plot_panel panels[2];
	plot_timeline t;
} sample;

static const char *const l1_names[4] = {"Retiring", "Bad speculation", "Frontend bound",
					"Backend bound"};
static const char *const l1_colors[4] = {"#59a14f", "#e15759", "#4e79a7", "#f28e2b"};
static const char *const l2_names[8] = {"Light operations", "Heavy operations",
					"Branch mispredicts", "Machine clears", "Fetch latency",
					"Fetch bandwidth", "Memory bound", "Core bound"};
static const char *const l2_colors[8] = {"#2e6b28", "#a6d99f", "#a8262d", "#f5b3b5",
					 "#24507f", "#a9c6e8", "#b35c0b", "#fbd3a6"};
static const double l2_split[4] = {0.75, 0.7, 0.6, 0.55};

static void sample_init(sample *s, bool two_panels, bool modeled)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < NT; i++) {
		s->times[i] = 0.5 * (i + 1);
		s->l1[0][i] = 0.30 + 0.02 * i;
		s->l1[1][i] = 0.15 - 0.01 * i;
		s->l1[2][i] = 0.25;
		s->l1[3][i] = 1 - s->l1[0][i] - s->l1[1][i] - s->l1[2][i];
		for (int k = 0; k < 4; k++) {
			s->l2[2 * k][i] = s->l1[k][i] * l2_split[k];
			s->l2[2 * k + 1][i] = s->l1[k][i] - s->l2[2 * k][i];
			s->atom[k][i] = k == 0 ? 0.4 : 0.2;
		}
	}
	for (int k = 0; k < 4; k++) {
		s->core[k] = (plot_series){l1_names[k], l1_colors[k], 1, -1, s->l1[k]};
		s->atom_s[k] = (plot_series){l1_names[k], l1_colors[k], 1, -1, s->atom[k]};
	}
	for (int k = 0; k < 8; k++)
		s->core[4 + k] = (plot_series){l2_names[k], l2_colors[k], 2, k / 2, s->l2[k]};
	s->panels[0] = (plot_panel){"cpu_core", s->times, NT, s->core, 12};
	s->panels[1] = (plot_panel){"cpu_atom", s->times, NT, s->atom_s, 4};
	s->t = (plot_timeline){"TopDown: Level 1 and 2 over time", "pmukit stat --topdown -I 500 ./app",
			       modeled, s->panels, two_panels ? 2 : 1};
}

/* What writer wrote for x, in a malloc'd string; rc gets its return code. */
typedef int (*svg_writer)(FILE *f, const void *x, pk_error *err);

static char *capture(svg_writer w, const void *x, int *rc, pk_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	*rc = w(f, x, err);
	fclose(f);
	return buf;
}

static int timeline_writer(FILE *f, const void *x, pk_error *err)
{
	return plot_timeline_svg(f, x, err);
}

static int histogram_writer(FILE *f, const void *x, pk_error *err)
{
	return plot_histogram_svg(f, x, err);
}

static char *render(const plot_timeline *t, int *rc, pk_error *err)
{
	return capture(timeline_writer, t, rc, err);
}

static char *render_hist(const plot_histogram *h, int *rc, pk_error *err)
{
	return capture(histogram_writer, h, rc, err);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_structure(void **state)
{
	(void)state;
	static sample s;
	sample_init(&s, true, true);
	pk_error err;
	int rc;
	char *svg = render(&s.t, &rc, &err);
	assert_int_equal(rc, 0);
	assert_true(!strncmp(svg, "<?xml", 5));
	assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	assert_string_equal(svg + strlen(svg) - 7, "</svg>\n");
	/* cpu_core: two bands; cpu_atom: one; an area per series */
	assert_int_equal(count(svg, "class=\"plot-area\""), 3);
	assert_non_null(strstr(svg, "id=\"panel0-level1\""));
	assert_non_null(strstr(svg, "id=\"panel0-level2\""));
	assert_non_null(strstr(svg, "id=\"panel1-level1\""));
	assert_null(strstr(svg, "id=\"panel1-level2\""));
	assert_int_equal(count(svg, "class=\"area\""), 16);
	assert_int_equal(count(svg, "class=\"legend\""), 3);
	for (int k = 0; k < 8; k++)
		assert_int_equal(count(svg, l2_names[k]), 2); /* the legend and the area's title */
	assert_int_equal(count(svg, ">Retiring<"), 4);
	/* axes: 0..100 % every 20, seconds 0..5 every second, titles and units */
	assert_int_equal(count(svg, ">% of slots</text>"), 3);
	assert_int_equal(count(svg, ">time (s)</text>"), 3);
	assert_int_equal(count(svg, ">100</text>"), 3);
	assert_int_equal(count(svg, ">3</text>"), 3);
	assert_int_equal(count(svg, ">0</text>"), 6);
	assert_non_null(strstr(svg, ">cpu_core</text>"));
	assert_non_null(strstr(svg, ">cpu_atom</text>"));
	assert_non_null(strstr(svg, "TopDown: Level 1 and 2 over time"));
	assert_non_null(strstr(svg, "class=\"modeled\""));
	free(svg);
	sample_init(&s, false, false);
	svg = render(&s.t, &rc, &err);
	assert_int_equal(rc, 0);
	assert_null(strstr(svg, "modeled"));
	assert_int_equal(count(svg, "class=\"plot-area\""), 2);
	free(svg);
}

static void test_escaping(void **state)
{
	(void)state;
	static sample s;
	sample_init(&s, false, false);
	s.core[0].name = "<R&D> \"x\" 'y'\x01";
	s.t.title = "a<b";
	s.t.subtitle = "./app --flag=\"1&2\"";
	pk_error err;
	int rc;
	char *svg = render(&s.t, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, "&lt;R&amp;D&gt; &quot;x&quot; &#39;y&#39;?"));
	assert_null(strstr(svg, "<R&D>"));
	assert_null(strstr(svg, "\x01"));
	assert_non_null(strstr(svg, ">a&lt;b</text>"));
	assert_non_null(strstr(svg, "--flag=&quot;1&amp;2&quot;"));
	free(svg);
}

static void test_deterministic(void **state)
{
	(void)state;
	static sample s;
	sample_init(&s, true, true);
	pk_error err;
	int rc;
	char *a = render(&s.t, &rc, &err), *b = render(&s.t, &rc, &err);
	assert_string_equal(a, b);
	/* a locale with a decimal comma changes nothing */
	const char *locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", NULL};
	for (size_t i = 0; locales[i]; i++) {
		if (!setlocale(LC_NUMERIC, locales[i]))
			continue;
		char *c = render(&s.t, &rc, &err);
		setlocale(LC_NUMERIC, "C");
		assert_string_equal(a, c);
		free(c);
		break;
	}
	/* different data, different bytes */
	s.l1[0][3] += 0.01;
	s.l1[3][3] -= 0.01;
	char *d = render(&s.t, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_not_equal(a, d);
	free(a);
	free(b);
	free(d);
}

/* t is refused with -EINVAL, an error naming `what`, and nothing written. */
static void expect_refused(const plot_timeline *t, const char *what)
{
	pk_error err;
	pk_error_clear(&err);
	int rc;
	char *svg = render(t, &rc, &err);
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	if (!strstr(err.msg, what))
		fail_msg("error '%s' does not name '%s'", err.msg, what);
	assert_string_equal(svg, "");
	free(svg);
}

static void test_bad_input(void **state)
{
	(void)state;
	static sample s;
	sample_init(&s, true, false);
	s.l1[1][4] = NAN;
	expect_refused(&s.t, "series 'Bad speculation': value 4 (nan)");
	sample_init(&s, true, false);
	s.l2[0][0] = INFINITY;
	expect_refused(&s.t, "'Light operations': value 0 (inf)");
	sample_init(&s, true, false);
	s.l1[0][2] = 1.5;
	expect_refused(&s.t, "not a share in 0..1");
	sample_init(&s, true, false);
	s.panels[1].nr_times = 0;
	expect_refused(&s.t, "panel 1 has no time points");
	sample_init(&s, true, false);
	s.panels[0].nr_series = 0;
	expect_refused(&s.t, "panel 0 has no series");
	sample_init(&s, true, false);
	s.times[5] = s.times[4];
	expect_refused(&s.t, "time point 5 (2.5 s) is not after");
	sample_init(&s, true, false);
	s.times[0] = NAN;
	expect_refused(&s.t, "time point 0");
	sample_init(&s, true, false);
	s.times[9] = 1e300;
	expect_refused(&s.t, "time point 9");
	sample_init(&s, true, false);
	s.core[2].color = "blue\" onload=\"x";
	expect_refused(&s.t, "is not #rrggbb");
	sample_init(&s, true, false);
	s.core[5].parent = 6;
	expect_refused(&s.t, "'Heavy operations': parent 6 is not a level-1 series");
	sample_init(&s, true, false);
	s.core[0].level = 3;
	expect_refused(&s.t, "level 3");
	s.t.nr_panels = 0;
	expect_refused(&s.t, "no panels");
}

static const double h_edges[] = {0, 50, 100, 150, 200, 300, 400, 600, 800};
static const double h_counts[] = {5, 1200, 30000, 4000, 0, 150, 12, 1};

static void test_histogram(void **state)
{
	(void)state;
	plot_histogram h = {"Load latency", "latency (cycles)", "samples", "loads", "#4e79a7",
			    h_edges, h_counts, 8, true, false};
	pk_error err;
	int rc;
	char *svg = render_hist(&h, &rc, &err);
	assert_int_equal(rc, 0);
	/* the empty bin and the bin of one count (on the log axis from 1) draw
	 * nothing */
	assert_int_equal(count(svg, "class=\"bar\""), 6);
	assert_non_null(strstr(svg, ">10000</text>"));
	assert_non_null(strstr(svg, ">100000</text>"));
	assert_non_null(strstr(svg, ">latency (cycles)</text>"));
	assert_non_null(strstr(svg, ">samples</text>"));
	assert_non_null(strstr(svg, ">loads</text>"));
	char *again = render_hist(&h, &rc, &err);
	assert_string_equal(svg, again);
	free(again);
	free(svg);
	h.log_y = false;
	svg = render_hist(&h, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, ">30000</text>"));
	assert_null(strstr(svg, ">100000</text>"));
	free(svg);
	double bad_counts[8];
	memcpy(bad_counts, h_counts, sizeof(bad_counts));
	bad_counts[3] = NAN;
	h.counts = bad_counts;
	svg = render_hist(&h, &rc, &err);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(err.msg, "bin 3: count nan"));
	assert_string_equal(svg, "");
	free(svg);
	h.counts = h_counts;
	double bad_edges[9];
	memcpy(bad_edges, h_edges, sizeof(bad_edges));
	bad_edges[4] = 120;
	h.edges = bad_edges;
	svg = render_hist(&h, &rc, &err);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(err.msg, "bin edge 4"));
	free(svg);
	h.edges = h_edges;
	h.nr_bins = 0;
	svg = render_hist(&h, &rc, &err);
	assert_int_equal(rc, -EINVAL);
	free(svg);
}

/* ---- the browser check ------------------------------------------------------------ */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* " COLOR=SHARE" for each series of a band: the time-weighted mean share
 * (the intervals are equally long). */
static size_t expect_args(char *buf, size_t len, const plot_panel *p, int level)
{
	size_t o = 0;
	for (size_t k = 0; k < p->nr_series; k++) {
		if (p->series[k].level != level)
			continue;
		double sum = 0;
		for (size_t i = 0; i < p->nr_times; i++)
			sum += p->series[k].values[i];
		o += (size_t)snprintf(buf + o, len - o, " '%s=%.4f'", p->series[k].color,
				      sum / (double)p->nr_times);
	}
	return o;
}

static void test_browser_render(void **state)
{
	(void)state;
	static sample s;
	sample_init(&s, true, true);
	const char *keep = getenv("PK_PLOT_KEEP");
	char *tmp = pk_test_tmpdir(), dir[1024], path[1200], hpath[1200], cmd[8192];
	snprintf(dir, sizeof(dir), "%s", keep && *keep ? keep : tmp);
	snprintf(path, sizeof(path), "%s/topdown.svg", dir);
	snprintf(hpath, sizeof(hpath), "%s/histogram.svg", dir);
	pk_error err;
	int rc;
	char *svg = render(&s.t, &rc, &err);
	assert_int_equal(rc, 0);
	write_file(path, svg);
	free(svg);
	plot_histogram h = {"Load latency", "latency (cycles)", "samples", "loads", "#4e79a7",
			    h_edges, h_counts, 8, true, true};
	svg = render_hist(&h, &rc, &err);
	write_file(hpath, svg);
	free(svg);
	const char *src = getenv("PK_SRCDIR");
	int o = snprintf(cmd, sizeof(cmd), "python3 '%s/tests/cli/svg_check.py' '%s' '%s'",
			 src ? src : ".", path, dir);
	const char *bands[] = {"panel0-level1", "panel0-level2", "panel1-level1"};
	const plot_panel *ps[] = {&s.panels[0], &s.panels[0], &s.panels[1]};
	for (int b = 0; b < 3; b++) {
		o += snprintf(cmd + o, sizeof(cmd) - (size_t)o, " --band %s", bands[b]);
		o += (int)expect_args(cmd + o, sizeof(cmd) - (size_t)o, ps[b], b == 1 ? 2 : 1);
	}
	snprintf(cmd + o, sizeof(cmd) - (size_t)o, " 2>&1");
	char *out = NULL;
	rc = pk_test_run(cmd, &out, 0);
	printf("%s", out ? out : "");
	if (rc == 77) {
		printf("SKIP: browser rendering: %s", out ? out : "\n");
		free(out);
		free(tmp);
		skip();
	}
	if (rc != 0)
		fail_msg("the rendered timeline is wrong (svg_check.py exit %d)", rc);
	free(out);
	/* the histogram: the bars cover the width-weighted mean of their
	 * heights, log10(count) / 5 on this data's axis (1 .. 1e5) */
	double cover = 0;
	for (size_t i = 0; i < h.nr_bins; i++)
		if (h_counts[i] >= 1)
			cover += (h_edges[i + 1] - h_edges[i]) * log10(h_counts[i]) / 5;
	cover /= h_edges[h.nr_bins] - h_edges[0];
	snprintf(cmd, sizeof(cmd),
		 "python3 '%s/tests/cli/svg_check.py' '%s' '%s' --band histogram '#4e79a7=%.4f' 2>&1",
		 src ? src : ".", hpath, dir, cover);
	rc = pk_test_run(cmd, &out, 0);
	printf("%s", out ? out : "");
	if (rc != 0)
		fail_msg("the rendered histogram is wrong (svg_check.py exit %d)", rc);
	free(out);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_browser_render),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
