/* TopDown library (issue 9): the method each fixture machine gets, every
 * method table compiles and names only events it encodes, nodes computed
 * from chosen counts equal the formulas' values, and the refusals (no core
 * PMU, unknown CPU, no PERF_METRICS, no caps/slots, a level too high) say
 * why. End to end on the PMU model: tests/topdown/test_topdown_cli.c. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pmukit/topdown.h>

#include "helpers.h"
#include "topdown/td_internal.h"

static pk_topdown *load(const char *machine, const char *cpuid, int level, pk_pmus **pmus,
			pk_error *err)
{
	pk_cpuid id;
	assert_int_equal(pk_cpuid_parse(cpuid, &id, err), 0);
	*pmus = pk_pmus_load(pk_test_sysfs(machine), err);
	assert_non_null(*pmus);
	pk_topdown_opts o;
	pk_topdown_opts_init(&o);
	o.level = level;
	return pk_topdown_new(*pmus, &id, &o, err);
}

/* Each fixture machine gets its method, per core PMU. */
static void test_methods(void **state)
{
	(void)state;
	static const struct {
		const char *machine, *cpuid, *blocks;
	} cases[] = {
		{"skylake", "GenuineIntel-6-5E-3", "cpu:intel-pre-icl"},
		{"icelake", "GenuineIntel-6-7E-5", "cpu:intel-perf-metrics-l1"},
		{"sapphirerapids", "GenuineIntel-6-8F-8", "cpu:intel-perf-metrics-l2"},
		{"alderlake", "GenuineIntel-6-97-2",
		 "cpu_core:intel-perf-metrics-l2 cpu_atom:intel-ecore"},
		{"lunarlake", "GenuineIntel-6-BD-1",
		 "cpu_core:intel-perf-metrics-l2 cpu_atom:intel-ecore-fixed"},
		{"zen4", "AuthenticAMD-25-11-1", "cpu:amd-pipeline"},
		{"zen5", "AuthenticAMD-26-2-0", "cpu:amd-pipeline"},
		{"neoverse-n1-spe", "0x00000000413fd0c1", "armv8_pmuv3_0:arm-cycle-accounting"},
		{"neoverse-n2", "0x00000000410fd490", "armv8_pmuv3_0:arm-slots"},
		{"neoverse-v2", "0x00000000410fd4f0", "armv8_pmuv3_0:arm-slots"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pk_error err;
		pk_error_clear(&err);
		pk_pmus *pmus;
		pk_topdown *td = load(cases[i].machine, cases[i].cpuid, 1, &pmus, &err);
		if (!td)
			fail_msg("%s: %s", cases[i].machine, err.msg);
		char got[256] = "";
		for (size_t b = 0; b < pk_topdown_nr_blocks(td); b++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s:%s",
				 b ? " " : "", pk_topdown_block_pmu(td, b),
				 pk_topdown_block_method(td, b));
		assert_string_equal(got, cases[i].blocks);
		pk_topdown_free(td);
		pk_pmus_put(pmus);
	}
}

/* Every method's table compiles at its highest level and names only events
 * it encodes, each event at most once; rows are in tree order. */
static void test_tables(void **state)
{
	(void)state;
	size_t nr;
	const pki_td_method *const *m = pki_td_methods(&nr);
	for (size_t i = 0; i < nr; i++) {
		const pki_td_table *t = m[i]->table;
		pk_error err;
		pk_metric_table *mt = pk_metric_table_new(t->rows, t->nr_rows, &err);
		if (!mt)
			fail_msg("%s: %s", m[i]->name, err.msg);
		pk_metric_table_free(mt);
		for (size_t a = 0; a < t->nr_events; a++)
			for (size_t b = a + 1; b < t->nr_events; b++)
				assert_string_not_equal(t->events[a].name, t->events[b].name);
		/* depth first: a row's parent is the nearest earlier row one level
		 * up; levels 1 to 6 */
		size_t nl1 = 0;
		for (size_t r = 0; r < t->nr_rows; r++) {
			int lv = pki_td_row_level(&t->rows[r]);
			assert_true(lv >= 1 && lv <= PK_TOPDOWN_MAX_LEVEL);
			if (!t->rows[r].parent) {
				assert_int_equal(lv, 1);
				nl1++;
			} else {
				long p = (long)r - 1;
				while (p >= 0 && pki_td_row_level(&t->rows[p]) >= lv)
					p--;
				assert_true(p >= 0);
				assert_string_equal(t->rows[r].parent, t->rows[p].name);
				assert_int_equal(pki_td_row_level(&t->rows[p]), lv - 1);
			}
			assert_int_equal(strncmp(t->rows[r].name, "tma_", 4), 0);
		}
		assert_true(nl1 >= 2);
	}
}

static pk_metric_count *counts_for(pk_evlist *l, const char *const *names, const double *vals,
				   size_t n)
{
	pk_metric_count *c = calloc(pk_evlist_count(l), sizeof(*c));
	for (size_t i = 0; i < pk_evlist_count(l); i++) {
		const pk_evsel *e = pk_evlist_at(l, i);
		c[i] = (pk_metric_count){.evsel = e, .key = -1, .value = NAN, .counted = true};
		for (size_t k = 0; k < n; k++)
			if (!strcmp(pk_evsel_name(e), names[k]))
				c[i].value = vals[k];
		if (isnan(c[i].value))
			fail_msg("no value for %s", pk_evsel_name(e));
	}
	return c;
}

static double node(const pk_topdown_node *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].computable ? v[i].value : NAN;
	fail_msg("no node %s", name);
	return NAN;
}

/* Sapphire Rapids, Level 2 from the register: slots lead one group with the
 * eight metric events; the nodes are the shares of the chosen counts. */
static void test_compute_spr(void **state)
{
	(void)state;
	pk_error err;
	pk_pmus *pmus;
	pk_topdown *td = load("sapphirerapids", "GenuineIntel-6-8F-8", 2, &pmus, &err);
	assert_non_null(td);
	pk_evlist *l = pk_evlist_new();
	assert_int_equal(pk_topdown_add_events(td, l, &err), 0);
	const pk_evsel *lead = pk_evlist_at(l, 0);
	assert_string_equal(pk_evsel_name(lead), "TOPDOWN.SLOTS:perf_metrics");
	assert_int_equal(pk_evsel_attr(lead)->config, 0x400);
	assert_int_equal(pk_evsel_nr_members(lead), 9);
	/* pinned: it takes fixed counter 3 and the register only, and is never
	 * multiplexed (issue 22); weak like every metric group */
	assert_true(pk_evsel_attr(lead)->pinned);
	assert_string_equal(pk_evsel_name(pk_evlist_at(l, 1)), "PERF_METRICS.RETIRING");
	static const char *const names[] = {
		"TOPDOWN.SLOTS:perf_metrics", "PERF_METRICS.RETIRING", "PERF_METRICS.BAD_SPECULATION",
		"PERF_METRICS.FRONTEND_BOUND", "PERF_METRICS.BACKEND_BOUND",
		"PERF_METRICS.HEAVY_OPERATIONS", "PERF_METRICS.BRANCH_MISPREDICTS",
		"PERF_METRICS.FETCH_LATENCY", "PERF_METRICS.MEMORY_BOUND", "INT_MISC.UOP_DROPPING"};
	static const double vals[] = {6000, 1800, 600, 1500, 2100, 600, 360, 900, 1200, 60};
	pk_metric_count *c = counts_for(l, names, vals, 10);
	pk_metric_counts in = {.v = c, .nr = pk_evlist_count(l)};
	pk_topdown_node v[16];
	size_t n = pk_topdown_compute(td, 0, &in, -1, v, 16);
	assert_int_equal(n, 12);
	assert_string_equal(v[0].name, "tma_frontend_bound");
	assert_null(v[0].parent);
	assert_string_equal(v[1].parent, "tma_frontend_bound");
	/* FE = 1500/6000 - 60/6000 */
	assert_float_equal(node(v, n, "tma_frontend_bound"), 24.0, 1e-9);
	assert_float_equal(node(v, n, "tma_fetch_latency"), 14.0, 1e-9);
	assert_float_equal(node(v, n, "tma_fetch_bandwidth"), 10.0, 1e-9);
	assert_float_equal(node(v, n, "tma_retiring"), 30.0, 1e-9);
	assert_float_equal(node(v, n, "tma_heavy_operations"), 10.0, 1e-9);
	assert_float_equal(node(v, n, "tma_light_operations"), 20.0, 1e-9);
	assert_float_equal(node(v, n, "tma_backend_bound"), 35.0, 1e-9);
	assert_float_equal(node(v, n, "tma_memory_bound"), 20.0, 1e-9);
	assert_float_equal(node(v, n, "tma_core_bound"), 15.0, 1e-9);
	assert_float_equal(node(v, n, "tma_bad_speculation"), 11.0, 1e-9);
	assert_float_equal(node(v, n, "tma_branch_mispredicts"), 6.0, 1e-9);
	assert_true(v[0].has_threshold && v[0].over_threshold); /* FE 24 > 15 */
	/* a count that is missing: that node is not computable, never 0 */
	c[9].counted = false;
	n = pk_topdown_compute(td, 0, &in, -1, v, 16);
	assert_false(v[0].computable);
	assert_true(isnan(v[0].value));
	free(c);
	pk_evlist_put(l);
	pk_topdown_free(td);
	pk_pmus_put(pmus);
}

/* Skylake with SMT: the _ANY forms are in the evlist and #smt_on picks
 * them; without SMT the thread forms give the same shares. */
static void test_compute_skylake_smt(void **state)
{
	(void)state;
	for (int smt = 0; smt <= 1; smt++) {
		pk_error err;
		pk_cpuid id;
		pk_cpuid_parse("GenuineIntel-6-5E-3", &id, &err);
		pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("skylake"), &err);
		pk_topdown_opts o;
		pk_topdown_opts_init(&o);
		o.smt = smt;
		pk_topdown *td = pk_topdown_new(pmus, &id, &o, &err);
		assert_non_null(td);
		pk_evlist *l = pk_evlist_new();
		assert_int_equal(pk_topdown_add_events(td, l, &err), 0);
		/* cycles 1000 per thread, 2000 for the core with SMT */
		static const char *const names[] = {
			"IDQ_UOPS_NOT_DELIVERED.CORE", "CPU_CLK_UNHALTED.THREAD_ANY",
			"CPU_CLK_UNHALTED.THREAD", "UOPS_ISSUED.ANY", "UOPS_RETIRED.RETIRE_SLOTS",
			"INT_MISC.RECOVERY_CYCLES_ANY", "INT_MISC.RECOVERY_CYCLES",
			"INST_RETIRED.ANY"}; /* the pinned reference (td_muxerr.c) */
		double vals[] = {800, smt ? 2000 : 1000, 1000, 1600, 1400, smt ? 100 : 50, 50, 1200};
		pk_metric_count *c = counts_for(l, names, vals, 8);
		pk_metric_counts in = {.v = c, .nr = pk_evlist_count(l)};
		pk_topdown_node v[8];
		size_t n = pk_topdown_compute(td, 0, &in, -1, v, 8);
		assert_int_equal(n, 4);
		assert_float_equal(node(v, n, "tma_frontend_bound"), 20.0, 1e-9);
		assert_float_equal(node(v, n, "tma_retiring"), 35.0, 1e-9);
		assert_float_equal(node(v, n, "tma_bad_speculation"), 10.0, 1e-9);
		assert_float_equal(node(v, n, "tma_backend_bound"), 35.0, 1e-9);
		free(c);
		pk_evlist_put(l);
		pk_topdown_free(td);
		pk_pmus_put(pmus);
	}
}

static bool has_evsel(const pk_evlist *l, const char *name)
{
	for (size_t i = 0; i < pk_evlist_count(l); i++)
		if (!strcmp(pk_evsel_name(pk_evlist_at(l, i)), name))
			return true;
	return false;
}

static const pk_topdown_node *find(const pk_topdown_node *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	fail_msg("no node %s", name);
	return NULL;
}

/* Issue 22: the whole tree. Skylake goes to Level 6 (--td-level all);
 * only the #smt_on branch taken is opened; Level 3 nodes come from their
 * own group's counts (chosen here), thresholds over the nodes' values,
 * the "Sample with" events as event specs. */
/* Arm's Level 1 as the Neoverse metric files write it (the kernel 6.12
 * files in tests/data/perfmon-perf, the same as `stat -M TopdownL1`'s
 * metrics_perf.c rows), with chosen counts and the values computed by hand
 * from the files' formulas: N2 r0p3 and V2 move one slot per mispredicted
 * branch from the frontend and three from the backend to bad speculation;
 * V1 writes 8 slots a cycle and moves four from the frontend (before: the
 * sbsa.json form, without BR_MIS_PRED). */
static void test_neoverse_files(void **state)
{
	(void)state;
	static const char *const names[] = {"CPU_CYCLES", "STALL_SLOT_FRONTEND",
					    "STALL_SLOT_BACKEND", "STALL_SLOT", "OP_RETIRED",
					    "OP_SPEC", "BR_MIS_PRED"};
	const double vals[] = {1000, 1000, 1500, 2500, 2000, 2500, 20};
	static const struct {
		const char *cpuid, *method;
		double fe, bs, be, ret; /* caps/slots 5 (the fixture) */
	} c[] = {
		/* FE 1000/5000 - 20/1000; BS 0.2 x 0.5 + 80/1000; BE 1500/5000 - 60/1000 */
		{"0x00000000410fd493", "arm-slots", 18, 18, 24, 40},
		{"0x00000000410fd4f0", "arm-slots", 18, 18, 24, 40},
		/* FE 1000/8000 - 80/1000; BS 0.2 x (1 - 2500/8000) + 0.08; BE, RET: #slots */
		{"0x00000000410fd400", "arm-slots", 4.5, 21.75, 30, 40},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		pk_error err;
		pk_pmus *pmus;
		pk_topdown *td = load("neoverse-n2", c[i].cpuid, 1, &pmus, &err);
		if (!td)
			fail_msg("%s: %s", c[i].cpuid, err.msg);
		assert_string_equal(pk_topdown_block_method(td, 0), c[i].method);
		pk_evlist *l = pk_evlist_new();
		assert_int_equal(pk_topdown_add_events(td, l, &err), 0);
		pk_metric_count *m = counts_for(l, names, vals, 7);
		pk_metric_counts in = {.v = m, .nr = pk_evlist_count(l)};
		pk_topdown_node v[8];
		assert_int_equal(pk_topdown_compute(td, 0, &in, -1, v, 8), 4);
		assert_float_equal(node(v, 4, "tma_frontend_bound"), c[i].fe, 1e-9);
		assert_float_equal(node(v, 4, "tma_bad_speculation"), c[i].bs, 1e-9);
		assert_float_equal(node(v, 4, "tma_backend_bound"), c[i].be, 1e-9);
		assert_float_equal(node(v, 4, "tma_retiring"), c[i].ret, 1e-9);
		free(m);
		pk_evlist_put(l);
		pk_topdown_free(td);
		pk_pmus_put(pmus);
	}
}

static void test_deep_levels(void **state)
{
	(void)state;
	pk_error err;
	pk_pmus *pmus;
	pk_topdown *td = load("skylake", "GenuineIntel-6-5E-3", PK_TOPDOWN_LEVEL_ALL, &pmus, &err);
	assert_non_null(td);
	assert_int_equal(pk_topdown_block_level(td, 0), 6);
	assert_int_equal(pk_topdown_block_max_level(td, 0), 6);
	pk_topdown_free(td);
	pk_pmus_put(pmus);
	for (int smt = 0; smt <= 1; smt++) { /* Level 1: one branch's events */
		pk_cpuid id;
		pk_cpuid_parse("GenuineIntel-6-5E-3", &id, &err);
		pmus = pk_pmus_load(pk_test_sysfs("skylake"), &err);
		pk_topdown_opts o;
		pk_topdown_opts_init(&o);
		o.smt = smt;
		td = pk_topdown_new(pmus, &id, &o, &err);
		pk_evlist *l = pk_evlist_new();
		assert_int_equal(pk_topdown_add_events(td, l, &err), 0);
		assert_int_equal(has_evsel(l, "CPU_CLK_UNHALTED.THREAD_ANY"), smt);
		assert_int_equal(has_evsel(l, "INT_MISC.RECOVERY_CYCLES"), !smt);
		/* Level 1's four generic events fit one group (Intel's floor: 4) */
		assert_int_equal(pk_topdown_block_groups(td, 0), 1);
		pk_evlist_put(l);
		pk_topdown_free(td);
		pk_pmus_put(pmus);
	}
	td = load("skylake", "GenuineIntel-6-5E-3", 3, &pmus, &err);
	assert_non_null(td);
	pk_evlist *l = pk_evlist_new();
	assert_int_equal(pk_topdown_add_events(td, l, &err), 0);
	pk_metric_count *c = calloc(pk_evlist_count(l), sizeof(*c));
	for (size_t i = 0; i < pk_evlist_count(l); i++) {
		const char *name = pk_evsel_name(pk_evlist_at(l, i));
		double v = !strcmp(name, "CYCLE_ACTIVITY.STALLS_MEM_ANY")    ? 300
			   : !strcmp(name, "CYCLE_ACTIVITY.STALLS_L1D_MISS") ? 200
			   : !strcmp(name, "CYCLE_ACTIVITY.STALLS_L2_MISS")  ? 150
			   : !strcmp(name, "CYCLE_ACTIVITY.STALLS_L3_MISS")  ? 100
			   : !strcmp(name, "IDQ_UOPS_NOT_DELIVERED.CORE")    ? 800
										: 1000;
		c[i] = (pk_metric_count){.evsel = pk_evlist_at(l, i), .key = -1, .value = v,
					 .counted = true, .running = 0.5};
	}
	pk_metric_counts in = {.v = c, .nr = pk_evlist_count(l)};
	pk_topdown_node v[160];
	size_t n = pk_topdown_compute(td, 0, &in, -1, v, 160);
	assert_true(n > 30 && n < 160);
	/* (STALLS_MEM_ANY - STALLS_L1D_MISS) / CLK, (L2_MISS - L3_MISS) / CLK */
	assert_float_equal(find(v, n, "tma_l1_bound")->value, 10.0, 1e-9);
	assert_float_equal(find(v, n, "tma_l3_bound")->value, 5.0, 1e-9);
	assert_int_equal(find(v, n, "tma_l3_bound")->level, 3);
	assert_string_equal(find(v, n, "tma_l3_bound")->parent, "tma_memory_bound");
	/* IDQ_UOPS_NOT_DELIVERED.CORE / (4 x CLK): 20 %, over 15 */
	const pk_topdown_node *fe = find(v, n, "tma_frontend_bound");
	assert_float_equal(fe->value, 20.0, 1e-9);
	assert_true(fe->has_threshold && fe->over_threshold);
	assert_true(fe->grouped);
	assert_float_equal(fe->running, 0.5, 1e-12);
	assert_non_null(strstr(find(v, n, "tma_l2_bound")->sample,
			       "event=0xd1,umask=0x2,name=MEM_LOAD_RETIRED.L2_HIT/pp"));
	free(c);
	pk_evlist_put(l);
	pk_topdown_free(td);
	pk_pmus_put(pmus);
}

static void expect_refusal(const char *machine, const char *cpuid, int level, int code,
			   const char *msg_part)
{
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *pmus;
	pk_topdown *td = load(machine, cpuid, level, &pmus, &err);
	assert_null(td);
	assert_int_equal(err.code, code);
	if (!strstr(err.msg, msg_part))
		fail_msg("%s: '%s' lacks '%s'", machine, err.msg, msg_part);
	pk_pmus_put(pmus);
}

static void test_refusals(void **state)
{
	(void)state;
	expect_refusal("skylake", "GenuineIntel-6-1A-5", 1, -ENODEV,
		       "no TopDown method for CPU 'GenuineIntel-6-1A-5'");
	/* V1 on a tree without caps/slots */
	expect_refusal("neoverse-n1-spe", "0x00000000410fd400", 1, -ENODEV,
		       "publishes no slot count");
	expect_refusal("neoverse-n2", "0x00000000410fd490", 2, -EINVAL, "The max level is 1");
	/* an Ice Lake tree whose cpu PMU lacks the slots event */
	char *root = pk_test_tmpdir();
	pk_test_put_file(root, "bus/event_source/devices/cpu/type", "4\n");
	pk_test_put_file(root, "bus/event_source/devices/cpu/format/event", "config:0-7\n");
	pk_test_put_file(root, "bus/event_source/devices/software/type", "1\n");
	pk_error err;
	pk_cpuid id;
	pk_cpuid_parse("GenuineIntel-6-7E-5", &id, &err);
	pk_pmus *pmus = pk_pmus_load(root, &err);
	assert_non_null(pmus);
	assert_null(pk_topdown_new(pmus, &id, NULL, &err));
	assert_non_null(strstr(err.msg, "does not expose PERF_METRICS"));
	pk_pmus_put(pmus);
	/* no core PMU at all */
	char *bare = pk_test_tmpdir();
	pk_test_put_file(bare, "bus/event_source/devices/software/type", "1\n");
	pmus = pk_pmus_load(bare, &err);
	assert_non_null(pmus);
	assert_null(pk_topdown_new(pmus, &id, NULL, &err));
	assert_int_equal(err.code, -ENODEV);
	assert_non_null(strstr(err.msg, "no core PMU"));
	assert_non_null(strstr(err.hint, "--model"));
	pk_pmus_put(pmus);
	free(root);
	free(bare);
}

static void test_series(void **state)
{
	(void)state;
	pk_topdown_series s = {0};
	pk_topdown_node n[2] = {{.name = "tma_retiring", .level = 1, .value = 40, .computable = true},
				{.name = "tma_heavy_operations", .parent = "tma_retiring",
				 .level = 2, .value = 10, .computable = true}};
	for (int i = 0; i < 100; i++)
		assert_int_equal(pk_topdown_series_add(&s, i * 1e8, 0, n, 2), 0);
	assert_int_equal(s.nr, 200);
	assert_float_equal(s.v[199].t_ns, 99e8, 0);
	assert_string_equal(s.v[199].node.parent, "tma_retiring");
	pk_topdown_series_release(&s);
	assert_null(s.v);
}

/* Intel's fixed-counter events are opened with the general-purpose codes
 * perf gives them (inst_retired.any 0xc0, cpu_clk_unhalted.thread/.core
 * 0x3c, thread_any 0x3c with any), never Intel's pseudo codes 0x100/0x200,
 * which a generic counter does not count as such; on every Intel method. */
static void test_fixed_counter_encodings(void **state)
{
	(void)state;
	static const struct { const char *machine, *cpuid; } cases[] = {
		{"skylake", "GenuineIntel-6-5E-3"},
		{"icelake", "GenuineIntel-6-7E-5"},
		{"sapphirerapids", "GenuineIntel-6-8F-8"},
		{"alderlake", "GenuineIntel-6-97-2"},
	};
	static const struct { const char *name; uint64_t config; } want[] = {
		{"INST_RETIRED.ANY", 0xc0}, {"CPU_CLK_UNHALTED.THREAD", 0x3c},
		{"CPU_CLK_UNHALTED.CORE", 0x3c}, {"CPU_CLK_UNHALTED.THREAD_ANY", 0x20003c},
	};
	size_t seen = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pk_pmus *pmus;
		pk_error err;
		pk_topdown *td = load(cases[i].machine, cases[i].cpuid, 2, &pmus, &err);
		assert_non_null(td);
		pk_evlist *l = pk_evlist_new();
		assert_int_equal(pk_topdown_add_events(td, l, &err), 0);
		for (size_t e = 0; e < pk_evlist_count(l); e++) {
			const pk_evsel *ev = pk_evlist_at(l, e);
			uint64_t c = pk_evsel_attr(ev)->config & ~(1ULL << 21);
			if (c == 0x100 || c == 0x200)
				fail_msg("%s: %s opened as pseudo code %#llx", cases[i].machine,
					 pk_evsel_name(ev), (unsigned long long)c);
			for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++)
				if (!strcmp(pk_evsel_name(ev), want[w].name)) {
					assert_int_equal(pk_evsel_attr(ev)->config, want[w].config);
					seen++;
				}
		}
		pk_evlist_put(l);
		pk_topdown_free(td);
		pk_pmus_put(pmus);
	}
	assert_true(seen >= 4); /* Skylake's three, Gracemont's CORE at least */
}

/* Skymont (Lunar Lake cpu_atom) counts Level 1 with the codes the kernel
 * places on the perfmon v6 TopDown fixed counters (0x0073 on 4, 0x019c on
 * 5, 0x02c2 on 6) and the backend on 0xa4/0x02; Lion Cove's slots lead its
 * metric events although no formula names slots. */
static void test_skymont_lion_cove(void **state)
{
	(void)state;
	static const struct { const char *name; uint64_t config; } want[] = {
		{"TOPDOWN_BAD_SPECULATION.ALL_P", 0x0073}, {"TOPDOWN_FE_BOUND.ALL", 0x019c},
		{"TOPDOWN_RETIRING.ALL", 0x02c2},          {"TOPDOWN_BE_BOUND.ALL_P", 0x02a4},
		{"CPU_CLK_UNHALTED.CORE", 0x3c},           {"TOPDOWN.SLOTS:perf_metrics", 0x0400},
	};
	pk_pmus *pmus;
	pk_error err;
	pk_topdown *td = load("lunarlake", "GenuineIntel-6-BD-1", 1, &pmus, &err);
	if (!td)
		fail_msg("%s", err.msg);
	pk_evlist *l = pk_evlist_new();
	assert_int_equal(pk_topdown_add_events(td, l, &err), 0);
	size_t seen = 0;
	for (size_t e = 0; e < pk_evlist_count(l); e++) {
		const pk_evsel *ev = pk_evlist_at(l, e);
		for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++)
			if (!strcmp(pk_evsel_name(ev), want[w].name)) {
				assert_int_equal(pk_evsel_attr(ev)->config, want[w].config);
				seen |= 1u << w;
			}
		if (!strcmp(pk_evsel_name(ev), "TOPDOWN.SLOTS:perf_metrics"))
			assert_true(pk_evsel_is_leader(ev) && pk_evsel_nr_members(ev) == 5);
	}
	assert_int_equal(seen, (1u << 6) - 1);
	pk_evlist_put(l);
	pk_topdown_free(td);
	pk_pmus_put(pmus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_methods),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_compute_spr),
		cmocka_unit_test(test_compute_skylake_smt),
		cmocka_unit_test(test_neoverse_files),
		cmocka_unit_test(test_deep_levels),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_fixed_counter_encodings),
		cmocka_unit_test(test_skymont_lion_cove),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
