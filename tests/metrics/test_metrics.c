/* lib/metrics: the expression language (values, precedence, errors with
 * positions), every formula and threshold of Intel's perfmon metric files
 * for Sapphire Rapids, Ice Lake and Alder Lake (tests/data/perfmon), the
 * TmaL1/TmaL2 nodes evaluated against hand-computed values, metric tables
 * (references between rows, thresholds, cycles refused), and perf stat's
 * shadow metrics evaluated by the engine over counts. */
#include "helpers.h"
#include "perfmon_json.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/metrics.h>
#include <pmukit/pmu.h>

/* ---- expressions ------------------------------------------------------------ */

/* Parses and evaluates with refs taking values[] by name (others NaN). */
static double eval_with(const char *text, const char *const *names, const double *values, size_t n)
{
	pk_error err;
	pk_expr *e = pk_expr_parse(text, &err);
	if (!e)
		fail_msg("%s: %s at %ld", text, err.msg, err.pos);
	double vals[64];
	assert_true(pk_expr_nr_refs(e) <= 64);
	for (size_t i = 0; i < pk_expr_nr_refs(e); i++) {
		vals[i] = NAN;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(pk_expr_ref(e, i), names[k]))
				vals[i] = values[k];
	}
	double v = pk_expr_eval(e, vals);
	pk_expr_free(e);
	return v;
}

static double ev(const char *text)
{
	return eval_with(text, NULL, NULL, 0);
}

static void test_expr_values(void **state)
{
	(void)state;
	assert_true(ev("1 + 2 * 3") == 7);
	assert_true(ev("(1 + 2) * 3") == 9);
	assert_true(ev("10 - 4 - 3") == 3);
	assert_true(ev("2 * 7 % 4") == 2);
	assert_true(ev("-2 * 3") == -6);
	assert_true(ev("- -2") == 2);
	assert_true(ev("1e9 / 1e3") == 1e6);
	assert_true(ev("0x10 + .5") == 16.5);
	assert_true(ev("min(3, 1, 2)") == 1);
	assert_true(ev("max( 0 , 1 - 3 )") == 0);
	assert_true(ev("d_ratio(5, 0)") == 0);
	assert_true(ev("d_ratio(6, 3)") == 2);
	assert_true(isnan(ev("1 / 0")));
	assert_true(ev("2 > 1") == 1 && ev("2 < 1") == 0 && ev("2 <= 2") == 1 && ev("2 >= 3") == 0);
	assert_true(ev("1 == 1") == 1 && ev("1 != 1") == 0);
	assert_true(ev("( 1 > 2 ) | ( 3 > 2 )") == 1);
	assert_true(ev("1 > 2 || 3 > 2 && 0") == 0 + (1 > 2 || (3 > 2 && 0)));
	assert_true(ev("1 < 2 & 2 < 3") == 1);
	assert_true(ev("!0") == 1 && ev("!5") == 0);
	/* if/else: lowest precedence, right-associative, lazy */
	assert_true(ev("1 + 1 if 0 else 5 + 5") == 10);
	assert_true(ev("1 if 0 else 2 if 1 else 3") == 2);
	assert_true(ev("7 if 1 else 1 / 0") == 7);
	const char *names[] = {"#smt_on", "a", "b", "c", "topdown-fe-bound", "#SLOTS",
			       "cpu_core/INST_RETIRED.ANY/", "TOPDOWN.SLOTS:perf_metrics"};
	double vals[] = {1, 10, 4, 5, 30, 6, 100, 600};
	size_t n = sizeof(vals) / sizeof(vals[0]);
	/* Intel's CoreIPC: a / ( b if smt_on else ( c ) ) */
	assert_true(eval_with("a / ( b if smt_on else ( c ) )", names, vals, n) == 2.5);
	vals[0] = 0;
	assert_true(eval_with("a / ( b if #smt_on else ( c ) )", names, vals, n) == 2);
	/* perf's spellings: escapes, pmu@event@, modifiers, literals */
	assert_true(eval_with("topdown\\-fe\\-bound / #SLOTS", names, vals, n) == 5);
	assert_true(eval_with("cpu_core@INST_RETIRED.ANY@ * 2", names, vals, n) == 200);
	assert_true(eval_with("TOPDOWN.SLOTS:perf_metrics / (6 * a)", names, vals, n) == 10);
	/* a missing value propagates */
	assert_true(isnan(eval_with("a + unknown", names, vals, n)));
	assert_true(isnan(eval_with("max(unknown, 1)", names, vals, n)));
	/* has_event: whether its argument has a value (perf's spelling) */
	assert_true(eval_with("has_event(unknown)", names, vals, n) == 0);
	assert_true(eval_with("has_event(a) + has_event(a / 0)", names, vals, n) == 1);
	assert_true(eval_with("max(unknown if has_event(unknown) else 0, b)", names, vals, n) == 4);
}

static void test_expr_refs(void **state)
{
	(void)state;
	pk_error err;
	pk_expr *e = pk_expr_parse("x + y * x - smt_on + #Slots", &err);
	assert_non_null(e);
	assert_int_equal(pk_expr_nr_refs(e), 4);
	assert_string_equal(pk_expr_ref(e, 0), "x");
	assert_string_equal(pk_expr_ref(e, 1), "y");
	assert_string_equal(pk_expr_ref(e, 2), "#smt_on");
	assert_string_equal(pk_expr_ref(e, 3), "#Slots");
	assert_int_equal(pk_expr_ref_pos(e, 1), 4);
	assert_null(pk_expr_ref(e, 4));
	assert_string_equal(pk_expr_text(e), "x + y * x - smt_on + #Slots");
	pk_expr_free(e);
	/* source_count(EV): one reference of its own, beside EV's */
	e = pk_expr_parse("a / (source_count( a ) * 2) + source_count(cha@b\\,c\\=1@)", &err);
	assert_non_null(e);
	assert_int_equal(pk_expr_nr_refs(e), 3);
	assert_string_equal(pk_expr_ref(e, 0), "a");
	assert_string_equal(pk_expr_ref(e, 1), "#source_count(a)");
	assert_string_equal(pk_expr_ref(e, 2), "#source_count(cha/b,c=1/)");
	assert_int_equal(pk_expr_ref_pos(e, 1), 5);
	pk_expr_free(e);
}

static void expect_error(const char *text, long pos, const char *what)
{
	pk_error err;
	pk_error_clear(&err);
	pk_expr *e = pk_expr_parse(text, &err);
	if (e)
		fail_msg("'%s' parsed", text);
	assert_int_equal(err.code, -EINVAL);
	if (err.pos != pos || !strstr(err.msg, what))
		fail_msg("'%s': got '%s' at %ld, want '%s' at %ld", text, err.msg, err.pos, what, pos);
	assert_string_equal(err.subject, "metric expression");
	/* rendered like an event syntax error: a caret under the position */
	char buf[2048];
	pk_error_render(&err, buf, sizeof(buf));
	assert_non_null(strstr(buf, what));
}

static void test_expr_errors(void **state)
{
	(void)state;
	expect_error("", 0, "unexpected end");
	expect_error("1 +", 3, "unexpected end");
	expect_error("(1 + 2", 6, "expected ')'");
	expect_error("1 2", 2, "unexpected text");
	expect_error("a b", 2, "unexpected text");
	expect_error("min(1)", 0, "two or more");
	expect_error("d_ratio(1, 2, 3)", 0, "two arguments");
	expect_error("1 + has_event(a, b)", 4, "one argument");
	expect_error("source_count(1)", 13, "an event's name");
	expect_error("source_count(#a)", 13, "an event's name");
	expect_error("source_count(a, b)", 14, "expected ')'");
	expect_error("max(1, 2", 8, "expected ',' or ')'");
	expect_error("a if b", 6, "expected 'else'");
	expect_error("if a", 0, "before 'if'");
	expect_error("1 < 2 < 3", 6, "unexpected text");
	expect_error("cpu@ev", 3, "closing '@'");
	expect_error("a\\", 1, "nothing to escape");
	expect_error("1 + # 2", 4, "literal's name");
	expect_error("12abc", 0, "malformed number");
	expect_error("3 * $", 4, "expected a number");
	/* nesting and chains are bounded, with an error, not a crash */
	char deep[1200];
	memset(deep, '(', 600);
	strcpy(deep + 600, "1");
	pk_error err;
	assert_null(pk_expr_parse(deep, &err));
	assert_non_null(strstr(err.msg, "nested too deeply"));
	char *chain = malloc(8192);
	size_t o = 0;
	for (int i = 0; i < 2000; i++)
		o += (size_t)sprintf(chain + o, "%s1", i ? "+" : "");
	assert_null(pk_expr_parse(chain, &err));
	assert_non_null(strstr(err.msg, "too long"));
	free(chain);
}

/* ---- Intel perfmon metric files ------------------------------------------------ */

static const char *const perfmon_files[] = {
	"perfmon/SPR/metrics/sapphirerapids_metrics.json",
	"perfmon/ICL/metrics/icelake_metrics.json",
	"perfmon/ADL/metrics/alderlake_metrics_goldencove_core.json",
};

/* Value of an event or constant for the synthetic evaluations: a stable
 * number from the name. */
static double fake_count(const char *name)
{
	unsigned h = 5381;
	for (const char *p = name; *p; p++)
		h = h * 33 + (unsigned char)*p;
	return 1000 + h % 100000;
}

/* Every reference a value: events and constants by name, smt_on 1. */
static double eval_fake(const pk_expr *e, json_t *m, bool aliases)
{
	double vals[128];
	assert_true(pk_expr_nr_refs(e) <= 128);
	for (size_t i = 0; i < pk_expr_nr_refs(e); i++) {
		const char *ref = pk_expr_ref(e, i);
		const char *name = ref;
		if (aliases) {
			const char *lists[] = {"Events", "Constants"};
			for (size_t l = 0; l < 2; l++) {
				size_t k;
				json_t *x;
				json_array_foreach(json_object_get(m, lists[l]), k, x)
					if (!strcmp(json_string_value(json_object_get(x, "Alias")), ref))
						name = json_string_value(json_object_get(x, "Name"));
			}
		}
		vals[i] = !strcmp(ref, "#smt_on") ? 1 : fake_count(name);
	}
	return pk_expr_eval(e, vals);
}

/* Every Formula and threshold Formula of the three files parses; the
 * TmaL1/TmaL2 nodes also in perf's spelling (event names instead of
 * aliases), with the same value. */
static void test_perfmon_parse_all(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(perfmon_files) / sizeof(perfmon_files[0]); f++) {
		json_t *ms = pk_perfmon_metrics(perfmon_files[f]);
		size_t i, nr_formulas = 0, nr_tma = 0;
		json_t *m;
		json_array_foreach(ms, i, m) {
			const char *name = json_string_value(json_object_get(m, "MetricName"));
			const char *fs[] = {json_string_value(json_object_get(m, "Formula")),
					    json_string_value(json_object_get(
						    json_object_get(m, "Threshold"), "Formula"))};
			pk_expr *e[2] = {NULL, NULL};
			for (size_t k = 0; k < 2; k++) {
				if (!fs[k] || !*fs[k])
					continue;
				pk_error err;
				e[k] = pk_expr_parse(fs[k], &err);
				if (!e[k])
					fail_msg("%s %s: %s at %ld: %s", perfmon_files[f], name, err.msg,
						 err.pos, fs[k]);
				nr_formulas++;
			}
			if (pk_perfmon_in_group(m, "TmaL1") || pk_perfmon_in_group(m, "TmaL2")) {
				nr_tma++;
				char *perf = pk_perfmon_perf_style(m, fs[0]);
				pk_error err;
				pk_expr *pe = pk_expr_parse(perf, &err);
				if (!pe)
					fail_msg("%s: %s at %ld: %s", name, err.msg, err.pos, perf);
				double a = eval_fake(e[0], m, true), b = eval_fake(pe, m, false);
				if (!(a == b || (isnan(a) && isnan(b))))
					fail_msg("%s: %g (aliases) != %g (%s)", name, a, b, perf);
				pk_expr_free(pe);
				free(perf);
			}
			pk_expr_free(e[0]);
			pk_expr_free(e[1]);
		}
		/* 16 TmaL1/TmaL2 metrics in each file, hundreds of formulas */
		assert_int_equal(nr_tma, 16);
		assert_true(nr_formulas > 300);
		json_decref(ms);
	}
}

static json_t *find_metric(json_t *ms, const char *name)
{
	size_t i;
	json_t *m;
	json_array_foreach(ms, i, m)
		if (!strcmp(json_string_value(json_object_get(m, "MetricName")), name))
			return m;
	fail_msg("no metric %s", name);
	return NULL;
}

/* A perfmon metric evaluated with events given by name. */
static double perfmon_value(json_t *ms, const char *metric, const char *const *ev,
			    const double *val, size_t n, bool threshold)
{
	json_t *m = find_metric(ms, metric);
	const char *text = json_string_value(
		threshold ? json_object_get(json_object_get(m, "Threshold"), "Formula")
			  : json_object_get(m, "Formula"));
	pk_error err;
	pk_expr *e = pk_expr_parse(text, &err);
	assert_non_null(e);
	double vals[64];
	for (size_t i = 0; i < pk_expr_nr_refs(e); i++) {
		const char *ref = pk_expr_ref(e, i), *name = NULL;
		size_t k;
		json_t *x;
		json_array_foreach(json_object_get(m, "Events"), k, x)
			if (!strcmp(json_string_value(json_object_get(x, "Alias")), ref))
				name = json_string_value(json_object_get(x, "Name"));
		vals[i] = NAN;
		for (size_t j = 0; j < n; j++)
			if ((name && !strcmp(name, ev[j])) || !strcmp(ref, ev[j]))
				vals[i] = val[j];
	}
	double v = pk_expr_eval(e, vals);
	pk_expr_free(e);
	return v;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* Sapphire Rapids level 1 and 2 from PERF_METRICS fractions, by hand:
 * FE 30, BAD 10, RET 40, BE 20 (sum 100), UOP_DROPPING 100 of 10000
 * slots; fetch latency 12, heavy 15, memory 8, branch mispredicts 7. */
static void test_perfmon_values(void **state)
{
	(void)state;
	json_t *ms = pk_perfmon_metrics(perfmon_files[0]);
	const char *ev[] = {"PERF_METRICS.FRONTEND_BOUND", "PERF_METRICS.BAD_SPECULATION",
			    "PERF_METRICS.RETIRING", "PERF_METRICS.BACKEND_BOUND",
			    "INT_MISC.UOP_DROPPING", "TOPDOWN.SLOTS:perf_metrics",
			    "PERF_METRICS.FETCH_LATENCY", "PERF_METRICS.HEAVY_OPERATIONS",
			    "PERF_METRICS.MEMORY_BOUND", "PERF_METRICS.BRANCH_MISPREDICTS",
			    "INST_RETIRED.ANY", "CPU_CLK_UNHALTED.DISTRIBUTED",
			    "CPU_CLK_UNHALTED.THREAD", "#smt_on"};
	double val[] = {30, 10, 40, 20, 100, 10000, 12, 15, 8, 7, 3000, 2000, 1500, 1};
	size_t n = sizeof(val) / sizeof(val[0]);
	/* FE = 100 * (30/100 - 100/10000) = 29 */
	assert_true(near(perfmon_value(ms, "Frontend_Bound", ev, val, n, false), 29));
	/* BAD = 100 * max(1 - (0.29 + 0.20 + 0.40), 0) = 11 */
	assert_true(near(perfmon_value(ms, "Bad_Speculation", ev, val, n, false), 11));
	assert_true(near(perfmon_value(ms, "Retiring", ev, val, n, false), 40));
	assert_true(near(perfmon_value(ms, "Backend_Bound", ev, val, n, false), 20));
	/* fetch latency 12 - 1 = 11; fetch bandwidth max(0, 29 - 11) = 18 */
	assert_true(near(perfmon_value(ms, "Fetch_Latency", ev, val, n, false), 11));
	assert_true(near(perfmon_value(ms, "Fetch_Bandwidth", ev, val, n, false), 18));
	/* light = max(0, 40 - 15) = 25; machine clears = max(0, 11 - 7) = 4 */
	assert_true(near(perfmon_value(ms, "Light_Operations", ev, val, n, false), 25));
	assert_true(near(perfmon_value(ms, "Machine_Clears", ev, val, n, false), 4));
	assert_true(near(perfmon_value(ms, "Core_Bound", ev, val, n, false), 12));
	/* CoreIPC: smt_on picks DISTRIBUTED (3000 / 2000), else THREAD */
	assert_true(near(perfmon_value(ms, "Info_Core_CoreIPC", ev, val, n, false), 1.5));
	val[n - 1] = 0;
	assert_true(near(perfmon_value(ms, "Info_Core_CoreIPC", ev, val, n, false), 2));
	/* thresholds: "a > 15" over the metric's value (a), "(a > 70) | (b > 10)" */
	const char *th[] = {"a", "b"};
	assert_true(perfmon_value(ms, "Frontend_Bound", th, (double[]){29, 0}, 2, true) == 1);
	assert_true(perfmon_value(ms, "Frontend_Bound", th, (double[]){14, 0}, 2, true) == 0);
	assert_true(perfmon_value(ms, "Retiring", th, (double[]){40, 15}, 2, true) == 1);
	assert_true(perfmon_value(ms, "Retiring", th, (double[]){40, 5}, 2, true) == 0);
	json_decref(ms);
}

/* ---- tables and the engine -------------------------------------------------- */

/* perf's TopdownL1/L2 on PERF_METRICS (Ice Lake and later) as rows. */
static const pk_metric_def topdown_rows[] = {
	{.name = "tma_frontend_bound",
	 .formula = "topdown\\-fe\\-bound / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
		    "topdown\\-retiring + topdown\\-be\\-bound)",
	 .threshold = "tma_frontend_bound > 0.15", .groups = "TopdownL1;Default"},
	{.name = "tma_fetch_latency", .parent = "tma_frontend_bound", .groups = "TopdownL2",
	 .formula = "topdown\\-fetch\\-lat / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
		    "topdown\\-retiring + topdown\\-be\\-bound)",
	 .threshold = "tma_fetch_latency > 0.1 & tma_frontend_bound > 0.15"},
	{.name = "tma_fetch_bandwidth", .parent = "tma_frontend_bound", .groups = "TopdownL2",
	 .formula = "max(0, tma_frontend_bound - tma_fetch_latency)"},
	{.name = "tma_retiring", .groups = "TopdownL1",
	 .formula = "topdown\\-retiring / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
		    "topdown\\-retiring + topdown\\-be\\-bound)",
	 .threshold = "tma_retiring > 0.7"},
	{.name = "tma_slots_per_cycle", .formula = "slots / cycles if #smt_on else #SLOTS"},
};

typedef struct bench {
	pk_pmus *pmus;
	pk_evlist *l;
	pk_metric_count c[16];
	size_t n;
} bench;

static void bench_init(bench *b)
{
	pk_error err;
	memset(b, 0, sizeof(*b));
	b->pmus = pk_pmus_load(pk_test_sysfs("alderlake"), &err);
	if (!b->pmus)
		fail_msg("alderlake: %s", err.msg);
	b->l = pk_evlist_new();
}

/* A count of an event on a PMU (hardware events get its type in
 * config[63:32] as on hybrid machines). */
static void bench_add(bench *b, uint32_t type, uint64_t config, const char *name, const char *pmu,
		      int key, double value)
{
	const pk_pmu *p = pmu ? pk_pmus_find(b->pmus, pmu) : NULL;
	if (p && type == PERF_TYPE_HARDWARE)
		config |= (uint64_t)p->type << 32;
	struct perf_event_attr a = {.type = type, .config = config};
	const pk_evsel *e = pk_evlist_add(b->l, &a, name, p);
	assert_non_null(e);
	b->c[b->n++] = (pk_metric_count){.evsel = e, .key = key, .value = value, .counted = true};
}

static void bench_free(bench *b)
{
	pk_evlist_put(b->l);
	pk_pmus_put(b->pmus);
}

static void test_table_topdown(void **state)
{
	(void)state;
	pk_error err;
	pk_metric_table *t = pk_metric_table_new(topdown_rows, 5, &err);
	if (!t)
		fail_msg("%s", err.msg);
	assert_int_equal(pk_metric_table_nr(t), 5);
	assert_int_equal(pk_metric_table_find(t, "TMA_FETCH_BANDWIDTH"), 2);
	assert_int_equal(pk_metric_table_find(t, "nope"), -1);
	assert_string_equal(pk_metric_table_def(t, 1)->parent, "tma_frontend_bound");
	bench b;
	bench_init(&b);
	/* cpu_core: FE 20, BAD 10, RET 50, BE 20; fetch latency 12 */
	static const char *const td[] = {"topdown-fe-bound", "topdown-bad-spec", "topdown-retiring",
					 "topdown-be-bound", "topdown-fetch-lat"};
	double v[] = {20, 10, 50, 20, 12};
	bench_add(&b, PERF_TYPE_RAW, 0x400, "slots", "cpu_core", -1, 600);
	for (size_t i = 0; i < 5; i++) {
		char name[64];
		snprintf(name, sizeof(name), "cpu_core/%s/", td[i]);
		bench_add(&b, PERF_TYPE_RAW, 0x8000 + i, name, "cpu_core", -1, v[i]);
	}
	pk_metric_literal lit[] = {{"#slots", 6}, {"#smt_on", 0}};
	pk_metric_counts in = {.v = b.c, .nr = b.n, .lit = lit, .nr_lit = 2};
	pk_metric_value mv;
	assert_int_equal(pk_metric_eval(t, 0, &in, 0, &mv), 1);
	assert_true(near(mv.value, 0.2));
	assert_true(mv.has_threshold && mv.over_threshold);
	assert_string_equal(mv.def->groups, "TopdownL1;Default");
	assert_int_equal(pk_metric_eval(t, 1, &in, 0, &mv), 1);
	assert_true(near(mv.value, 0.12));
	assert_true(mv.over_threshold);
	/* a row over two other rows */
	assert_int_equal(pk_metric_eval(t, 2, &in, 0, &mv), 1);
	assert_true(near(mv.value, 0.08));
	assert_false(mv.has_threshold);
	assert_int_equal(pk_metric_eval(t, 3, &in, -1, &mv), 1);
	assert_true(near(mv.value, 0.5));
	assert_true(mv.has_threshold && !mv.over_threshold);
	/* literals from the context; without #smt_on, not computable */
	assert_int_equal(pk_metric_eval(t, 4, &in, 0, &mv), 1);
	assert_true(mv.value == 6);
	in.nr_lit = 1;
	assert_int_equal(pk_metric_eval(t, 4, &in, 0, &mv), 0);
	/* the events must be on the anchor's PMU: a cpu_atom anchor finds none */
	bench_add(&b, PERF_TYPE_RAW, 0x400, "slots", "cpu_atom", -1, 600);
	in.nr = b.n;
	assert_int_equal(pk_metric_eval(t, 0, &in, (long)b.n - 1, &mv), 0);
	/* an uncounted event makes the row not computable */
	b.c[1].counted = false;
	assert_int_equal(pk_metric_eval(t, 0, &in, 0, &mv), 0);
	pk_metric_table_free(t);
	bench_free(&b);
}

/* Intel's system metrics on Skylake with the machine's literals (issue 22):
 * SYSTEM_TSC_FREQ in the files is `tsc`, the TSC's ticks in the measured
 * time (#tsc: #tsc_hz times #wall_ns), and DURATIONTIMEINMILLISECONDS the
 * wall time. Two threads at 2.7 GHz for 0.6 s on a 2.1 GHz TSC, 4 CPUs:
 * core frequency 2.7, 2 CPUs utilized, 50% utilization, and 64-byte lines
 * over the time for a fill bandwidth; without the TSC's rate or the wall
 * time, not computable. */
static void test_system_literals(void **state)
{
	(void)state;
	pk_cpuid id;
	pk_error err;
	assert_int_equal(pk_cpuid_parse("GenuineIntel-6-5E-3", &id, &err), 0);
	size_t nr;
	const pk_metric_def *defs = pk_metric_defs_cpu(&id, NULL, &nr, NULL);
	pk_metric_table *t = pk_metric_table_new(defs, nr, &err);
	assert_non_null(t);
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("skylake"), &err);
	assert_non_null(pmus);
	pk_evlist *l = pk_evlist_new();
	static const char *const ev[] = {"CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.REF_TSC",
					 "L1D.REPLACEMENT"};
	const double val[] = {2 * 2.7e9 * 0.6, 2 * 2.1e9 * 0.6, 1e8};
	pk_metric_count c[3];
	for (size_t i = 0; i < 3; i++) {
		uint64_t config;
		assert_int_equal(pk_metric_event_config(&id, NULL, ev[i], &config, &err), 0);
		struct perf_event_attr a = {.type = PERF_TYPE_RAW, .config = config};
		c[i] = (pk_metric_count){.evsel = pk_evlist_add(l, &a, ev[i], pk_pmus_find(pmus, "cpu")),
					 .key = -1, .value = val[i], .counted = true};
		assert_non_null(c[i].evsel);
	}
	pk_metric_literal lit[] = {{"#wall_ns", 0.6e9}, {"#tsc_hz", 2.1e9}, {"#num_cpus", 4}};
	pk_metric_counts in = {.v = c, .nr = 3, .lit = lit, .nr_lit = 3};
	static const struct {
		const char *name;
		double want;
	} m[] = {{"tma_info_system_core_frequency", 2.7}, {"tma_info_system_cpus_utilized", 2},
		 {"tma_info_system_cpu_utilization", 0.5},
		 {"tma_info_memory_l1d_cache_fill_bw", 64 * 1e8 / 1e9 / 0.6}};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		long r = pk_metric_table_find(t, m[i].name);
		assert_true(r >= 0);
		pk_metric_value mv;
		if (pk_metric_eval(t, (size_t)r, &in, -1, &mv) != 1 || !near(mv.value, m[i].want))
			fail_msg("%s: %g, want %g", m[i].name, mv.value, m[i].want);
		in.nr_lit = 1; /* no TSC rate: only the bandwidth, over the wall time */
		assert_int_equal(pk_metric_eval(t, (size_t)r, &in, -1, &mv), i == 3);
		in.nr_lit = 0;
		assert_int_equal(pk_metric_eval(t, (size_t)r, &in, -1, &mv), 0);
		in.nr_lit = 3;
	}
	pk_evlist_put(l);
	pk_pmus_put(pmus);
	pk_metric_table_free(t);
}

static void expect_table_error(const pk_metric_def *defs, size_t n, const char *what, long pos)
{
	pk_error err;
	pk_error_clear(&err);
	pk_metric_table *t = pk_metric_table_new(defs, n, &err);
	if (t)
		fail_msg("table accepted, want '%s'", what);
	if (!strstr(err.msg, what) && !strstr(err.hint, what))
		fail_msg("got '%s' / '%s', want '%s'", err.msg, err.hint, what);
	assert_int_equal(err.pos, pos);
}

static void test_table_errors(void **state)
{
	(void)state;
	expect_table_error((pk_metric_def[]){{.name = "m", .formula = "a + * b"}}, 1,
			   "expected a number", 4);
	expect_table_error((pk_metric_def[]){{.name = "m", .formula = "a + * b"}}, 1, "in metric m",
			   4);
	expect_table_error((pk_metric_def[]){{.name = "m", .formula = "a", .threshold = "m >"}}, 1,
			   "unexpected end", 3);
	expect_table_error((pk_metric_def[]){{.name = "m", .formula = "1 + m"}}, 1,
			   "refers to itself", 4);
	expect_table_error((pk_metric_def[]){{.name = "x", .formula = "y * 2"},
					     {.name = "y", .formula = "1 + x"}},
			   2, "cycle", -1);
	expect_table_error((pk_metric_def[]){{.name = "m", .formula = "#this * 2"}}, 1,
			   "no trigger event", 0);
	expect_table_error((pk_metric_def[]){{.name = "m"}}, 1, "no formula", -1);
}

/* perf stat's rows, over counts; the printed form is tests/cli's. */
static void test_stat_shadow(void **state)
{
	(void)state;
	pk_error err;
	pk_metric_table *t = pk_metric_table_stat(&err);
	assert_non_null(t);
	size_t nr;
	pk_metric_defs_stat(&nr);
	assert_int_equal(pk_metric_table_nr(t), nr);
	bench b;
	bench_init(&b);
	bench_add(&b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock", NULL, -1, 2e9);
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu_core/cycles/", "cpu_core",
		  -1, 4e9);
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu_atom/cycles/", "cpu_atom",
		  -1, 1e9);
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "cpu_atom/instructions/",
		  "cpu_atom", -1, 3e9);
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "cpu_core/branch-misses/",
		  "cpu_core", -1, 5e3);
	bench_add(&b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", NULL, -1, 2e3);
	bench_add(&b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", NULL, 3, 2e3);
	pk_metric_literal lit = {"#wall_ns", 1e9};
	pk_metric_counts in = {.v = b.c, .nr = b.n, .lit = &lit, .nr_lit = 1};
	pk_metric_value mv;
	/* cpu-clock counts as the task clock */
	assert_int_equal(pk_metric_shadow(t, &in, 0, &mv), 1);
	assert_string_equal(mv.def->name, "cpus_utilized");
	assert_true(mv.value == 2);
	assert_int_equal(pk_metric_shadow(t, &in, 1, &mv), 1);
	assert_string_equal(mv.unit, "GHz");
	assert_true(mv.value == 2);
	/* cpu_atom instructions pair with cpu_atom cycles, not cpu_core's */
	assert_int_equal(pk_metric_shadow(t, &in, 3, &mv), 1);
	assert_string_equal(mv.def->name, "insn_per_cycle");
	assert_int_equal(mv.def->style, PK_METRIC_RATIO);
	assert_true(mv.value == 3);
	/* no branches: the miss ratio is final, no rate either (perf 6.1) */
	assert_int_equal(pk_metric_shadow(t, &in, 4, &mv), 0);
	/* a rate of exactly 1000/s stays in /sec (perf steps up past 1000) */
	assert_int_equal(pk_metric_shadow(t, &in, 5, &mv), 1);
	assert_string_equal(mv.def->name, "rate");
	assert_string_equal(mv.unit, "/sec");
	assert_true(mv.value == 1000);
	b.c[5].value = 2002;
	assert_int_equal(pk_metric_shadow(t, &in, 5, &mv), 1);
	assert_string_equal(mv.unit, "K/sec");
	assert_true(near(mv.value, 1.001));
	/* another bucket (CPU 3) has no clock: no rate */
	assert_int_equal(pk_metric_shadow(t, &in, 6, &mv), 0);
	/* without the wall time the clock gets nothing (not a rate either) */
	in.nr_lit = 0;
	assert_int_equal(pk_metric_shadow(t, &in, 0, &mv), 0);
	/* a clock of 0 ns gives rates of 0 (perf's "0.000 /sec"), cycles none */
	b.c[0].value = 0;
	assert_int_equal(pk_metric_shadow(t, &in, 5, &mv), 1);
	assert_true(mv.value == 0);
	assert_string_equal(mv.unit, "/sec");
	assert_int_equal(pk_metric_shadow(t, &in, 1, &mv), 0);
	/* an uncounted event gets no metric */
	b.c[5].counted = false;
	assert_int_equal(pk_metric_shadow(t, &in, 5, &mv), 0);
	assert_int_equal(pk_metric_shadow(t, &in, 99, &mv), 0);
	pk_metric_table_free(t);
	bench_free(&b);
}

/* The value pk_metric_format prints for a shadow metric, or "none" (with
 * the unit of the final row that matched without a value, if any). */
static const char *shadow_text(const pk_metric_table *t, const pk_metric_counts *in, size_t i)
{
	static char buf[128];
	pk_metric_value mv;
	if (!pk_metric_shadow(t, in, i, &mv)) {
		snprintf(buf, sizeof(buf), "none (%s)", mv.def ? mv.unit : "no row");
		return buf;
	}
	int n = pk_metric_format(mv.def->style, mv.value, buf, sizeof(buf));
	snprintf(buf + n, sizeof(buf) - (size_t)n, " %s", mv.unit);
	return buf;
}

/* The stat rows perf 6.1 prints for HW_CACHE misses and stalls, over
 * counts (their printed lines are compared with perf's in tests/cli). */
static void test_stat_cache_stall_rows(void **state)
{
	(void)state;
	pk_metric_table *t = pk_metric_table_stat(NULL);
	assert_non_null(t);
	bench b;
	bench_init(&b);
	enum { L1D = PERF_COUNT_HW_CACHE_L1D, MISS = PERF_COUNT_HW_CACHE_RESULT_MISS << 16 };
	bench_add(&b, PERF_TYPE_HW_CACHE, L1D | MISS, "L1-dcache-load-misses", NULL, -1, 23);
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions", NULL, -1, 7e6);
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
		  "stalled-cycles-frontend", NULL, -1, 1e6);
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
		  "stalled-cycles-backend", NULL, -1, 1.5e6);
	bench_add(&b, PERF_TYPE_HW_CACHE, L1D, "L1-dcache-loads", NULL, -1, 160);
	pk_metric_counts in = {.v = b.c, .nr = 4};
	/* without their totals: the miss ratio and the frontend stall are final
	 * and print nothing, the backend stall prints 0 (perf 6.1) */
	assert_string_equal(shadow_text(t, &in, 0), "none (of all L1-dcache accesses)");
	assert_string_equal(shadow_text(t, &in, 1), "none (insn per cycle)");
	assert_string_equal(shadow_text(t, &in, 2), "none (frontend cycles idle)");
	assert_string_equal(shadow_text(t, &in, 3), "   0.00% backend cycles idle");
	/* with the read accesses: x / y * 100, perf's order (14.37, not 14.38) */
	in.nr = 5;
	assert_string_equal(shadow_text(t, &in, 0), "  14.37% of all L1-dcache accesses");
	b.c[4].value = 0;
	assert_string_equal(shadow_text(t, &in, 0), "   0.00% of all L1-dcache accesses");
	/* stalled cycles per insn: a further line, the larger stall */
	pk_metric_value mv;
	size_t pos = 0;
	assert_int_equal(pk_metric_shadow_line(t, &in, 1, &pos, &mv), 1);
	assert_string_equal(mv.def->name, "stalled_cycles_per_insn");
	assert_true(mv.value == 1.5e6 / 7e6);
	assert_int_equal(pk_metric_shadow_line(t, &in, 1, &pos, &mv), 0);
	pos = 0;
	assert_int_equal(pk_metric_shadow_line(t, &in, 2, &pos, &mv), 0); /* not its trigger */
	b.c[3].counted = false; /* an uncounted stall is 0 */
	pos = 0;
	assert_int_equal(pk_metric_shadow_line(t, &in, 1, &pos, &mv), 1);
	assert_true(mv.value == 1e6 / 7e6);
	b.c[2].value = 0; /* no stall: no line */
	pos = 0;
	assert_int_equal(pk_metric_shadow_line(t, &in, 1, &pos, &mv), 0);
	/* with cycles: a frontend stall of 0 prints nothing, others their share */
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles", NULL, -1, 160);
	in.nr = b.n;
	assert_string_equal(shadow_text(t, &in, 2), "none (frontend cycles idle)");
	b.c[2].value = 23;
	assert_string_equal(shadow_text(t, &in, 2), "  14.37% frontend cycles idle");
	b.c[3].counted = true;
	b.c[3].value = 23;
	assert_string_equal(shadow_text(t, &in, 3), "  14.37% backend cycles idle");
	/* no row at all: a count without a clock to be a rate of */
	bench_add(&b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", NULL, -1, 5);
	in.nr = b.n;
	assert_string_equal(shadow_text(t, &in, b.n - 1), "none (no row)");
	/* a total counts only with the anchor's exclude bits (perf 6.1's stat
	 * context); the clocks pair with any */
	struct perf_event_attr au = {.type = PERF_TYPE_HARDWARE,
				     .config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS, .exclude_kernel = 1};
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses", NULL, -1, 5);
	const pk_evsel *bu = pk_evlist_add(b.l, &au, "branches:u", NULL);
	b.c[b.n++] = (pk_metric_count){.evsel = bu, .key = -1, .value = 50, .counted = true};
	in.nr = b.n;
	assert_string_equal(shadow_text(t, &in, b.n - 2), "none (of all branches)");
	bench_add(&b, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches", NULL, -1, 20);
	in.nr = b.n;
	assert_string_equal(shadow_text(t, &in, b.n - 3), "  25.00% of all branches");
	bench_add(&b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock", NULL, -1, 1e9);
	in.nr = b.n;
	assert_string_equal(shadow_text(t, &in, b.n - 3), "  50.000 /sec"); /* branches:u */
	pk_metric_table_free(t);
	bench_free(&b);
}

/* Row flags: a NEW_LINE row is never the count's metric, only a further
 * line; a NONZERO row's 0 is no value. */
static void test_row_flags(void **state)
{
	(void)state;
	static const pk_metric_def rows[] = {
		{.name = "second", .trigger = "*", .formula = "#this * 2", .unit = "twice",
		 .flags = PK_METRIC_NEW_LINE},
		{.name = "third", .trigger = "*", .formula = "#this * 3", .unit = "thrice",
		 .flags = PK_METRIC_NEW_LINE | PK_METRIC_NONZERO},
		{.name = "first", .trigger = "*", .formula = "#this - 1", .unit = "less",
		 .flags = PK_METRIC_NONZERO},
	};
	pk_metric_table *t = pk_metric_table_new(rows, 3, NULL);
	assert_non_null(t);
	bench b;
	bench_init(&b);
	bench_add(&b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", NULL, -1, 5);
	pk_metric_counts in = {.v = b.c, .nr = 1};
	assert_string_equal(shadow_text(t, &in, 0), "   4.000 less");
	pk_metric_value mv;
	size_t pos = 0;
	assert_int_equal(pk_metric_shadow_line(t, &in, 0, &pos, &mv), 1);
	assert_true(mv.value == 10 && pos == 1);
	assert_int_equal(pk_metric_shadow_line(t, &in, 0, &pos, &mv), 1);
	assert_true(mv.value == 15 && pos == 2);
	assert_int_equal(pk_metric_shadow_line(t, &in, 0, &pos, &mv), 0);
	b.c[0].value = 1;
	assert_string_equal(shadow_text(t, &in, 0), "none (no row)");
	b.c[0].value = 0;
	pos = 0;
	assert_int_equal(pk_metric_shadow_line(t, &in, 0, &pos, &mv), 1);
	assert_true(mv.value == 0 && !strcmp(mv.def->name, "second"));
	assert_int_equal(pk_metric_shadow_line(t, &in, 0, &pos, &mv), 0);
	pk_metric_table_free(t);
	bench_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expr_values),
		cmocka_unit_test(test_expr_refs),
		cmocka_unit_test(test_expr_errors),
		cmocka_unit_test(test_perfmon_parse_all),
		cmocka_unit_test(test_perfmon_values),
		cmocka_unit_test(test_table_topdown),
		cmocka_unit_test(test_system_literals),
		cmocka_unit_test(test_table_errors),
		cmocka_unit_test(test_stat_shadow),
		cmocka_unit_test(test_stat_cache_stall_rows),
		cmocka_unit_test(test_row_flags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
