/* TopDown's decisions over a block's nodes through the public API
 * (topdown.h, td_tree.c), without the CLI: toplev's bottleneck path (the
 * largest crossed node per level, only through crossed ones), its
 * drill-down (a child shown below a shown parent that crossed or has no
 * threshold; all: every node), the node whose "Sample with" events to use
 * (the nearest ancestor that has some), the multiplexing summary; and on a
 * model machine, pk_topdown_new_host with its events in an evlist beside
 * another event (pk_topdown_has_evsel tells them apart); the multiplexing
 * estimate (pk_topdown_windows, td_muxerr.c) on readings made by hand. The
 * nodes are a hand-made tree in pk_topdown_compute's order (depth first). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/model.h>
#include <pmukit/pmu.h>
#include <pmukit/topdown.h>

#include "helpers.h"

#define NODE(n, p, l, v, thr, over) \
	{.name = n, .parent = p, .level = l, .value = v, .computable = true, \
	 .has_threshold = thr, .over_threshold = over, .grouped = true, .running = 1}

/* frontend 30 crossed > fetch_latency 20 crossed > icache 5 below (sample),
 * fetch_bandwidth 10 crossed; backend 40 crossed > memory 25 below, core 15
 * below; retiring 30 below > heavy 10 crossed (its parent is below). */
static pk_topdown_node tree[] = {
	NODE("fe", NULL, 1, 30, true, true),
	NODE("fe_lat", "fe", 2, 20, true, true),
	NODE("icache", "fe_lat", 3, 5, true, false),
	NODE("fe_bw", "fe", 2, 10, true, true),
	NODE("be", NULL, 1, 40, true, true),
	NODE("mem", "be", 2, 25, true, false),
	NODE("core", "be", 2, 15, true, false),
	NODE("ret", NULL, 1, 30, true, false),
	NODE("heavy", "ret", 2, 10, true, true),
};
#define NR (sizeof(tree) / sizeof(tree[0]))

static void test_bottleneck_path(void **state)
{
	(void)state;
	bool path[NR] = {0};
	/* be is the largest crossed Level 1 node; none of its children crossed */
	assert_int_equal(pk_topdown_bottleneck(tree, NR, path), 4);
	for (size_t i = 0; i < NR; i++)
		assert_int_equal(path[i], i == 4);
	/* be uncounted: fe, then its largest crossed child */
	pk_topdown_node v[NR];
	memcpy(v, tree, sizeof(v));
	v[4].computable = false;
	memset(path, 0, sizeof(path));
	assert_int_equal(pk_topdown_bottleneck(v, NR, path), 1);
	assert_true(path[0] && path[1] && !path[2] && !path[3]);
	/* nothing crossed at Level 1: no path */
	for (size_t i = 0; i < NR; i++)
		v[i].over_threshold = false;
	memset(path, 0, sizeof(path));
	assert_int_equal(pk_topdown_bottleneck(v, NR, path), -1);
}

static void test_drill_down(void **state)
{
	(void)state;
	bool show[NR];
	/* hidden: the children of below nodes (mem's and core's have none
	 * here): icache (fe_lat crossed: shown), heavy (ret below) */
	assert_int_equal(pk_topdown_drill_down(tree, NR, false, show), 1);
	for (size_t i = 0; i < NR; i++)
		assert_int_equal(show[i], strcmp(tree[i].name, "heavy") != 0);
	/* a parent without a threshold opens its children */
	pk_topdown_node v[NR];
	memcpy(v, tree, sizeof(v));
	v[7].has_threshold = false;
	assert_int_equal(pk_topdown_drill_down(v, NR, false, show), 0);
	/* a hidden parent hides its crossed children too */
	memcpy(v, tree, sizeof(v));
	v[0].over_threshold = false;
	assert_int_equal(pk_topdown_drill_down(v, NR, false, show), 4);
	assert_false(show[1] || show[2] || show[3]);
	assert_int_equal(pk_topdown_drill_down(v, NR, true, show), 0);
}

static void test_sample_node_and_mux(void **state)
{
	(void)state;
	pk_topdown_node v[NR];
	memcpy(v, tree, sizeof(v));
	v[1].sample = "event=0x9c,umask=0x1";
	assert_int_equal(pk_topdown_sample_node(v, NR, 2), 1); /* icache -> fe_lat */
	assert_int_equal(pk_topdown_sample_node(v, NR, 1), 1);
	assert_int_equal(pk_topdown_sample_node(v, NR, 6), -1); /* core, be: none */
	assert_int_equal(pk_topdown_find(v, NR, "mem"), 5);
	assert_int_equal(pk_topdown_find(v, NR, NULL), -1);
	pk_topdown_mux m;
	pk_topdown_mux_summary(v, NR, &m);
	assert_true(m.multiplexed == 0 && m.split == 0 && m.computable == NR && m.least == 1);
	v[2].running = 0.25;
	v[3].running = 0.5;
	v[5].grouped = false;
	v[6].computable = false;
	v[6].running = 0.1; /* not computable: not counted as multiplexed */
	pk_topdown_mux_summary(v, NR, &m);
	assert_int_equal(m.multiplexed, 2);
	assert_true(m.least == 0.25);
	assert_int_equal(m.split, 1);
	assert_int_equal(m.computable, NR - 1);
}

/* TopDown's Level 1 on the machine of a bundled scenario's model (*m and
 * *pmus to free). */
static pk_topdown *model_td(const char *scenario, pk_model **m, pk_pmus **pmus)
{
	*m = pk_test_model(pk_test_example(scenario));
	pk_error err;
	pk_error_clear(&err);
	*pmus = pk_pmus_load(pk_model_sysfs_root(*m), &err);
	assert_non_null(*pmus);
	pk_topdown_opts o;
	pk_topdown_opts_init(&o);
	o.mux_reference = true; /* the windows' estimate is made */
	pk_topdown *td = pk_topdown_new_host(*pmus, pk_model_kernel(*m), pk_model_cpuid(*m)->str,
					     &o, &err);
	assert_non_null(td);
	return td;
}

static void test_new_host_events(void **state)
{
	(void)state;
	pk_model *m;
	pk_pmus *pmus;
	pk_topdown *td = model_td("icelake.json", &m, &pmus);
	pk_error err;
	pk_error_clear(&err);
	pk_topdown_opts o;
	pk_topdown_opts_init(&o);
	assert_int_equal(pk_topdown_nr_blocks(td), 1);
	pk_evlist *l = pk_evlist_new();
	assert_int_equal(pk_topdown_add_events(td, l, &err), 0);
	size_t nr_td = pk_evlist_count(l);
	assert_true(nr_td >= 5); /* slots and the four Level 1 metrics */
	pk_parse_opts po = {.cpuid = pk_model_cpuid(m)->str};
	assert_int_equal(pk_evlist_parse(l, pmus, "task-clock", &po, &err), 0);
	for (size_t i = 0; i < nr_td; i++)
		assert_true(pk_topdown_has_evsel(td, pk_evlist_at(l, i)));
	assert_false(pk_topdown_has_evsel(td, pk_evlist_at(l, nr_td)));
	/* a CPU the tables do not know: the error says so */
	pk_topdown *none = pk_topdown_new_host(pmus, pk_model_kernel(m), "GenuineIntel-6-01-1", &o,
					       &err);
	assert_null(none);
	assert_true(err.code < 0);
	pk_evlist_put(l);
	pk_topdown_free(td);
	pk_pmus_put(pmus);
	pk_model_free(m);
}

/* Window k's phase: A (even) or B (odd); the reference (instructions)
 * counts 2 per ns in A, 1 in B; every TopDown event 10 + 5 x that (20, 15);
 * event `partial` runs in windows 0-6 only (4 A, 3 B), `aliased` in A windows only. */
static void window_totals(pk_stat_rows *r, const pk_evlist *l, size_t k, size_t partial,
			  size_t aliased)
{
	const double len = 4e6;
	for (size_t i = 0; i < r->nr; i++) {
		pk_counts *c = &r->v[i].counts;
		bool ref = i == r->nr - 1, a = k % 2 == 0;
		bool on = i == partial ? k < 7 : i == aliased ? a : true;
		double rate = ref ? (a ? 2 : 1) : (a ? 20 : 15);
		r->v[i].evsel = pk_evlist_at(l, i);
		r->v[i].status = PK_OPEN_OK;
		c->ena += (uint64_t)len;
		c->run += on ? (uint64_t)len : 0;
		c->val += on ? (uint64_t)(rate * len) : 0;
	}
}

/* Skylake's Level 1 with its pinned instructions (the last event): a count
 * whose group ran in windows of both phases is predicted exactly where it
 * did not run (bound 0; enabled/running's scaling is 2% high); one
 * that ran in phase A only cannot be bounded, and the nodes it feeds say so. */
static void test_windows(void **state)
{
	(void)state;
	pk_model *m;
	pk_pmus *pmus;
	pk_topdown *td = model_td("skylake.json", &m, &pmus);
	pk_error err;
	pk_error_clear(&err);
	pk_evlist *l = pk_evlist_new();
	assert_int_equal(pk_topdown_add_events(td, l, &err), 0);
	size_t nr = pk_evlist_count(l);
	assert_string_equal(pk_evsel_name(pk_evlist_at(l, nr - 1)), "INST_RETIRED.ANY");
	pk_stat_rows r = {.v = calloc(nr, sizeof(pk_stat_row)), .nr = nr, .runs = 1};
	pk_topdown_windows *w = pk_topdown_windows_new(td);
	for (size_t k = 0; k < 16; k++) {
		window_totals(&r, l, k, 0, 1);
		assert_int_equal(pk_topdown_windows_add(w, &r), 0);
	}
	assert_int_equal(pk_topdown_windows_nr(w), 16);
	pk_metric_count *c;
	pk_metric_literal lit;
	pk_metric_counts in;
	assert_int_equal(pk_metric_counts_from_stat(&r, 64e6, &c, &lit, &in), 0);
	assert_float_equal(c[0].value, 5e8 * 16 / 7, 1); /* scaled: 2% high */
	double delta[64];
	assert_int_equal(pk_topdown_windows_correct(w, c, nr, delta), 0);
	assert_float_equal(c[0].value, 1.12e9, 1); /* 8 x 4 ms x (20 + 15) */
	assert_float_equal(delta[0], 0, 1e-6);
	assert_true(isinf(delta[1]));
	pk_topdown_node v[8];
	size_t n = pk_topdown_compute(td, 0, &in, -1, v, 8);
	assert_int_equal(n, 4);
	pk_topdown_windows_bound(td, 0, &in, delta, v, n);
	size_t unbounded = 0;
	for (size_t i = 0; i < n; i++) {
		assert_true(isinf(v[i].error) == (v[i].error_why != NULL));
		unbounded += isinf(v[i].error);
	}
	assert_true(unbounded >= 1);
	assert_float_equal(pk_topdown_error_limit(2), 1.0, 0);
	assert_float_equal(pk_topdown_error_limit(3), 2.0, 0);
	free(c);
	free(r.v);
	pk_topdown_windows_free(w);
	pk_evlist_put(l);
	pk_topdown_free(td);
	pk_pmus_put(pmus);
	pk_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bottleneck_path),
		cmocka_unit_test(test_drill_down),
		cmocka_unit_test(test_sample_node_and_mux),
		cmocka_unit_test(test_new_host_events),
		cmocka_unit_test(test_windows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
