/* The metric tables generated from the kernel's perf JSON files
 * (lib/metrics/metrics_perf.c: AMD Zen, Arm Neoverse, Intel)
 * evaluated by the engine over chosen counts, each value computed by hand
 * from the files' formulas (the comments give the arithmetic): AMD's
 * PipelineL1/L2 (perf's metric references and ScaleUnit "100%"),
 * Neoverse's TopdownL1 (the #slots literal, the N2 r0p0 erratum form that
 * strcmp_cpuid_str picks, and V2's without it), a few ratios, and
 * Gracemont's tma_backend_bound with its threshold (perf's thresholds
 * name unscaled values), and a few metrics of each Intel platform of the
 * kernel's files (Haswell to Emerald Rapids, Sierra Forest, Grand Ridge,
 * Meteor Lake's P-core and E-core tables by PMU; intel/perfmon's
 * Granite Rapids, Lunar Lake and Arrow Lake).
 *
 * Invariants: every event is resolved through pk_metric_event_config, so a
 * name the table lacks or refuses fails the test; counts sit on the
 * fixture's core PMU. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <linux/perf_event.h>
#include <pmukit/metrics.h>
#include <pmukit/pmu.h>

typedef struct count {
	const char *event;
	double value;
} count;

typedef struct want {
	const char *metric;
	double value;              /* as printed: scaled (100 * a fraction) */
} want;

/* Evaluates each wanted metric of cpuid's table over counts on the core
 * PMU pmu of sysfs fixture machine, with #slots when slots > 0. */
static void check(const char *cpuid, const char *machine, const char *pmu, const count *c, size_t nc,
		  double slots, const want *w, size_t nw)
{
	pk_error err;
	pk_cpuid id;
	assert_int_equal(pk_cpuid_parse(cpuid, &id, &err), 0);
	size_t nr;
	const pk_metric_def *defs = pk_metric_defs_cpu(&id, pmu, &nr, NULL);
	if (!defs)
		fail_msg("%s: no table", cpuid);
	pk_metric_table *t = pk_metric_table_new(defs, nr, &err);
	assert_non_null(t);
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs(machine), &err);
	assert_non_null(pmus);
	pk_evlist *l = pk_evlist_new();
	pk_metric_count v[24];
	assert_true(nc <= 24);
	for (size_t i = 0; i < nc; i++) {
		uint64_t config;
		if (pk_metric_event_config(&id, pmu, c[i].event, &config, &err) < 0)
			fail_msg("%s: %s", cpuid, err.msg);
		struct perf_event_attr a = {.type = PERF_TYPE_RAW, .config = config};
		v[i] = (pk_metric_count){.evsel = pk_evlist_add(l, &a, c[i].event, pk_pmus_find(pmus, pmu)),
					 .key = -1, .value = c[i].value, .counted = true};
		assert_non_null(v[i].evsel);
	}
	/* #midr as stat -M gives it: the files' strcmp_cpuid_str branches */
	/* and Intel's #core_wide and #smt_on as perf gives them for -a on a
	 * machine without SMT (the thread's own cycles are the core's) */
	/* and #has_pmem as on a machine without persistent memory */
	pk_metric_literal lit[] = {{"#midr", (double)id.midr}, {"#core_wide", 1}, {"#smt_on", 0},
				   {"#has_pmem", 0}, {"#slots", slots}};
	pk_metric_counts in = {.v = v, .nr = nc, .lit = lit, .nr_lit = 4 + (slots > 0)};
	for (size_t i = 0; i < nw; i++) {
		long r = pk_metric_table_find(t, w[i].metric);
		if (r < 0)
			fail_msg("%s: no metric %s", cpuid, w[i].metric);
		pk_metric_value mv;
		if (pk_metric_eval(t, (size_t)r, &in, -1, &mv) != 1 || fabs(mv.value - w[i].value) > 1e-9)
			fail_msg("%s: %s = %g, want %g", cpuid, w[i].metric, mv.value, w[i].value);
	}
	pk_evlist_put(l);
	pk_pmus_put(pmus);
	pk_metric_table_free(t);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* amdzen4 pipeline.json: total_dispatch_slots = 6 * ls_not_halted_cyc =
 * 6000; every Level 2 metric names its Level 1 parent by reference. */
static void test_zen4_pipeline(void **state)
{
	(void)state;
	static const count c[] = {
		{"ls_not_halted_cyc", 1000}, {"ex_ret_ops", 2400}, {"de_src_op_disp.all", 3000},
		{"de_no_dispatch_per_slot.no_ops_from_frontend", 1500},
		{"de_no_dispatch_per_slot.no_ops_from_frontend:c6", 100},
		{"de_no_dispatch_per_slot.backend_stalls", 1500},
		{"de_no_dispatch_per_slot.smt_contention", 0},
		{"ex_no_retire.load_not_complete", 300}, {"ex_no_retire.not_complete", 400},
		{"ex_ret_brn_misp", 30}, {"resyncs_or_nc_redirects", 10}, {"ex_ret_ucode_ops", 240},
		{"ex_ret_brn", 300}};
	static const want w[] = {
		{"retiring", 40},                       /* 2400 / 6000 */
		{"bad_speculation", 10},                /* (3000 - 2400) / 6000 */
		{"frontend_bound", 25},                 /* 1500 / 6000 */
		{"backend_bound", 25},                  /* 1500 / 6000 */
		{"smt_contention", 0},
		{"frontend_bound_latency", 10},         /* 6 * 100 / 6000 */
		{"frontend_bound_bandwidth", 15},       /* (1500 - 600) / 6000 */
		{"backend_bound_memory", 18.75},        /* 0.25 * 300 / 400 */
		{"backend_bound_cpu", 6.25},            /* 0.25 * (1 - 0.75) */
		{"bad_speculation_mispredicts", 7.5},   /* 0.1 * 30 / 40 */
		{"bad_speculation_pipeline_restarts", 2.5},
		{"retiring_microcode", 4},              /* 0.4 * 240 / 2400 */
		{"retiring_fastpath", 36},
		{"branch_misprediction_ratio", 10},     /* 30 / 300 */
		{"total_dispatch_slots", 6000},         /* no ScaleUnit: the value */
	};
	check("AuthenticAMD-25-11-1", "zen4", "cpu", c, N(c), 0, w, N(w));
}

/* Neoverse N2 before r0p3 (#slots 5): STALL_SLOT and STALL_SLOT_FRONTEND
 * count one slot more per cycle, which the file's strcmp_cpuid_str branch
 * takes off (minus CPU_CYCLES); N2 from r0p3 on and V2 take nothing off. */
static const count neoverse[] = {
	{"CPU_CYCLES", 1000}, {"STALL_SLOT_FRONTEND", 2000}, {"STALL_SLOT_BACKEND", 1500},
	{"STALL_SLOT", 3500}, {"OP_RETIRED", 1800}, {"OP_SPEC", 2000}, {"BR_MIS_PRED", 10},
	{"INST_RETIRED", 1500}};

static void test_neoverse_topdown(void **state)
{
	(void)state;
	static const want n2[] = {
		{"frontend_bound", 19},  /* (2000 - 1000) / 5000 - 10 / 1000 */
		{"backend_bound", 27},   /* 1500 / 5000 - 3 * 10 / 1000 */
		{"retiring", 45},        /* 1800 / 2000 * (1 - (3500 - 1000) / 5000) */
		{"bad_speculation", 9},  /* (1 - 0.9) * 0.5 + 4 * 10 / 1000 */
		{"ipc", 1.5},            /* 1500 / 1000 */
	};
	/* r0p0 and r0p2: the erratum */
	check("0x00000000410fd490", "neoverse-n2", "armv8_pmuv3_0", neoverse, N(neoverse), 5, n2,
	      N(n2));
	check("0x00000000410fd492", "neoverse-n2", "armv8_pmuv3_0", neoverse, N(neoverse), 5, n2,
	      N(n2));
	static const want v2[] = {
		{"frontend_bound", 39},  /* 2000 / 5000 - 10 / 1000 */
		{"retiring", 27},        /* 0.9 * (1 - 3500 / 5000) */
	};
	check("0x00000000410fd4f0", "neoverse-n2", "armv8_pmuv3_0", neoverse, N(neoverse), 5, v2,
	      N(v2));
	/* N2 r0p3 and r1p0: fixed, as V2 */
	check("0x00000000410fd493", "neoverse-n2", "armv8_pmuv3_0", neoverse, N(neoverse), 5, v2,
	      N(v2));
	check("0x00000000411fd490", "neoverse-n2", "armv8_pmuv3_0", neoverse, N(neoverse), 5, v2,
	      N(v2));
}

/* Neoverse N1: cycle accounting and an MPKI ("1MPKI": factor 1). */
static void test_neoverse_n1_ratios(void **state)
{
	(void)state;
	static const count c[] = {{"CPU_CYCLES", 1000}, {"STALL_FRONTEND", 250},
				  {"BR_MIS_PRED_RETIRED", 5}, {"INST_RETIRED", 1000}};
	static const want w[] = {{"frontend_stalled_cycles", 25}, {"branch_mpki", 5}};
	check("0x00000000410fd0c0", "neoverse-n2", "armv8_pmuv3_0", c, N(c), 0, w, N(w));
}

/* Gracemont (adln-metrics.json): tma_backend_bound = TOPDOWN_BE_BOUND.ALL
 * / (5 * CPU_CLK_UNHALTED.CORE); its threshold "> 0.1" is on the fraction. */
static void test_gracemont(void **state)
{
	(void)state;
	static const count c[] = {{"TOPDOWN_BE_BOUND.ALL", 1000}, {"CPU_CLK_UNHALTED.CORE", 1000},
				  {"TOPDOWN_RETIRING.ALL", 2000}};
	static const want w[] = {{"tma_backend_bound", 20}, {"tma_retiring", 40}};
	check("GenuineIntel-6-BE-0", "skylake", "cpu", c, N(c), 0, w, N(w));
	pk_error err;
	pk_cpuid id;
	assert_int_equal(pk_cpuid_parse("GenuineIntel-6-BE-0", &id, &err), 0);
	size_t nr;
	const pk_metric_def *defs = pk_metric_defs_cpu(&id, NULL, &nr, NULL);
	pk_metric_table *t = pk_metric_table_new(defs, nr, &err);
	assert_non_null(t);
	long r = pk_metric_table_find(t, "tma_backend_bound");
	assert_true(r >= 0);
	assert_string_equal(pk_metric_table_def(t, (size_t)r)->threshold, "( tma_backend_bound / 100 ) > 0.1");
	pk_metric_table_free(t);
}

/* Skylake-X, Cascade Lake, Haswell: tma_info_thread_slots = 4 *
 * tma_info_core_core_clks, which is CPU_CLK_UNHALTED.THREAD when
 * #core_wide and not #SMT_on: slots 4000. skx tma_retiring = 100 *
 * RETIRE_SLOTS 2000 / 4000 = 50; clx tma_frontend_bound = 100 *
 * IDQ_UOPS_NOT_DELIVERED.CORE 1000 / 4000 = 25. Haswell-X and the
 * Broadwells: tma_info_thread_ipc = INST_RETIRED.ANY 3000 / THREAD 1000. */
static void test_intel_before_icl(void **state)
{
	(void)state;
	static const count c[] = {{"UOPS_RETIRED.RETIRE_SLOTS", 2000}, {"CPU_CLK_UNHALTED.THREAD", 1000},
				  {"IDQ_UOPS_NOT_DELIVERED.CORE", 1000}, {"INST_RETIRED.ANY", 3000}};
	static const want skx[] = {{"tma_retiring", 50}, {"tma_info_thread_ipc", 3}};
	static const want clx[] = {{"tma_frontend_bound", 25}, {"tma_retiring", 50}};
	static const want ipc[] = {{"tma_info_thread_ipc", 3}};
	check("GenuineIntel-6-55-4", "skylake", "cpu", c, N(c), 0, skx, N(skx));
	check("GenuineIntel-6-55-7", "skylake", "cpu", c, N(c), 0, clx, N(clx));
	check("GenuineIntel-6-3C-3", "skylake", "cpu", c, N(c), 0, skx, N(skx));
	const char *more[] = {"GenuineIntel-6-3F-2", "GenuineIntel-6-3D-4", "GenuineIntel-6-4F-1",
			      "GenuineIntel-6-56-2"};
	for (size_t i = 0; i < N(more); i++)
		check(more[i], "skylake", "cpu", c, N(c), 0, ipc, N(ipc));
}

/* PERF_METRICS (perf's topdown-* events) over FE 30, BS 10, RET 40, BE 20
 * (sum 100), TOPDOWN.SLOTS 1000: Ice Lake-X and Meteor Lake's P-core
 * tma_retiring = 100 * 40 / 100 (+ 0 * slots) = 40; Emerald Rapids
 * tma_heavy_operations = 100 * HEAVY 15 / 100 = 15. Tiger Lake
 * tma_bad_speculation = 100 * max(1 - (fe + be + ret), 0) with fe = 0.3 -
 * INT_MISC.UOP_DROPPING 50 / 1000 = 0.25, be = 0.2 + 5 *
 * INT_MISC.CLEARS_COUNT 20 / 1000 = 0.3, ret 0.4: 100 * 0.05 = 5. Rocket
 * Lake tma_info_thread_ipc = INST_RETIRED.ANY 3000 / THREAD 1000 = 3. */
static void test_intel_perf_metrics(void **state)
{
	(void)state;
	static const count c[] = {{"TOPDOWN.SLOTS", 1000}, {"PERF_METRICS.FRONTEND_BOUND", 30},
				  {"PERF_METRICS.BAD_SPECULATION", 10}, {"PERF_METRICS.RETIRING", 40},
				  {"PERF_METRICS.BACKEND_BOUND", 20}, {"INST_RETIRED.ANY", 3000},
				  {"CPU_CLK_UNHALTED.THREAD", 1000}};
	static const count tgl[] = {{"TOPDOWN.SLOTS", 1000}, {"PERF_METRICS.FRONTEND_BOUND", 30},
				    {"PERF_METRICS.BAD_SPECULATION", 10}, {"PERF_METRICS.RETIRING", 40},
				    {"PERF_METRICS.BACKEND_BOUND", 20}, {"INT_MISC.UOP_DROPPING", 50},
				    {"INT_MISC.CLEARS_COUNT", 20}};
	static const count emr[] = {{"TOPDOWN.SLOTS", 1000}, {"PERF_METRICS.FRONTEND_BOUND", 30},
				    {"PERF_METRICS.BAD_SPECULATION", 10}, {"PERF_METRICS.RETIRING", 40},
				    {"PERF_METRICS.BACKEND_BOUND", 20}, {"PERF_METRICS.HEAVY_OPERATIONS", 15}};
	static const want ret[] = {{"tma_retiring", 40}, {"tma_info_thread_ipc", 3}};
	static const want bad[] = {{"tma_bad_speculation", 5}};
	static const want heavy[] = {{"tma_heavy_operations", 15}, {"tma_retiring", 40}};
	check("GenuineIntel-6-6A-6", "icelake", "cpu", c, N(c), 0, ret, N(ret));
	check("GenuineIntel-6-A7-1", "icelake", "cpu", c, N(c), 0, ret, N(ret));
	check("GenuineIntel-6-8C-1", "icelake", "cpu", tgl, N(tgl), 0, bad, N(bad));
	check("GenuineIntel-6-CF-2", "sapphirerapids", "cpu", emr, N(emr), 0, heavy, N(heavy));
	check("GenuineIntel-6-AA-4", "alderlake", "cpu_core", c, N(c), 0, ret, N(ret));
}

/* Crestmont, 6 slots a cycle: Sierra Forest tma_retiring = 100 *
 * TOPDOWN_RETIRING.ALL_P 3000 / (6 * CPU_CLK_UNHALTED.CORE 1000) = 50;
 * Grand Ridge tma_backend_bound = 100 * TOPDOWN_BE_BOUND.ALL_P 1200 / 6000
 * = 20; Meteor Lake's E-core (cpu_atom: the Unit cpu_atom metrics)
 * tma_frontend_bound = 100 * TOPDOWN_FE_BOUND.ALL_P 1500 / 6000 = 25 and
 * tma_info_core_ipc = INST_RETIRED.ANY 3000 / CORE 1000 = 3. */
static void test_crestmont(void **state)
{
	(void)state;
	static const count c[] = {{"TOPDOWN_RETIRING.ALL_P", 3000}, {"TOPDOWN_BE_BOUND.ALL_P", 1200},
				  {"TOPDOWN_FE_BOUND.ALL_P", 1500}, {"CPU_CLK_UNHALTED.CORE", 1000},
				  {"INST_RETIRED.ANY", 3000}};
	static const want srf[] = {{"tma_retiring", 50}, {"tma_backend_bound", 20}};
	static const want mtl[] = {{"tma_frontend_bound", 25}, {"tma_info_core_ipc", 3},
				   {"tma_retiring", 50}};
	check("GenuineIntel-6-AF-3", "skylake", "cpu", c, N(c), 0, srf, N(srf));
	check("GenuineIntel-6-B6-1", "skylake", "cpu", c, N(c), 0, srf, N(srf));
	check("GenuineIntel-6-AA-4", "alderlake", "cpu_atom", c, N(c), 0, mtl, N(mtl));
}

/* The intel/perfmon files: Granite Rapids' and Lunar/Arrow Lake's P-core
 * (cpu_core) tma_retiring = 100 * RET 40 / (FE 30 + BS 10 + RET 40 + BE 20)
 * = 40, tma_info_thread_ipc = INST_RETIRED.ANY 3000 / THREAD 1000 = 3;
 * Skymont (cpu_atom, 8 slots a cycle) tma_frontend_bound = 100 *
 * TOPDOWN_FE_BOUND.ALL 2000 / (8 * CPU_CLK_UNHALTED.CORE 1000) = 25,
 * tma_retiring = 100 * 3200 / 8000 = 40, tma_info_core_ipc = 3. Granite
 * Rapids' tma_l3_miss_bound without persistent memory (#has_pmem 0) =
 * 100 * MEMORY_ACTIVITY.STALLS_L3_MISS 250 / THREAD 1000 = 25. */
static void test_lion_cove_skymont(void **state)
{
	(void)state;
	static const count c[] = {{"TOPDOWN.SLOTS", 1000}, {"PERF_METRICS.FRONTEND_BOUND", 30},
				  {"PERF_METRICS.BAD_SPECULATION", 10}, {"PERF_METRICS.RETIRING", 40},
				  {"PERF_METRICS.BACKEND_BOUND", 20}, {"INST_RETIRED.ANY", 3000},
				  {"CPU_CLK_UNHALTED.THREAD", 1000}};
	static const count skt[] = {{"TOPDOWN_FE_BOUND.ALL", 2000}, {"TOPDOWN_RETIRING.ALL", 3200},
				    {"CPU_CLK_UNHALTED.CORE", 1000}, {"INST_RETIRED.ANY", 3000}};
	static const want ret[] = {{"tma_retiring", 40}, {"tma_info_thread_ipc", 3}};
	static const want atom[] = {{"tma_frontend_bound", 25}, {"tma_retiring", 40},
				    {"tma_info_core_ipc", 3}};
	check("GenuineIntel-6-AD-1", "sapphirerapids", "cpu", c, N(c), 0, ret, N(ret));
	static const count l3[] = {{"MEMORY_ACTIVITY.STALLS_L3_MISS", 250},
				   {"CPU_CLK_UNHALTED.THREAD", 1000}};
	static const want l3m[] = {{"tma_l3_miss_bound", 25}};
	check("GenuineIntel-6-AD-1", "sapphirerapids", "cpu", l3, N(l3), 0, l3m, N(l3m));
	check("GenuineIntel-6-BD-1", "alderlake", "cpu_core", c, N(c), 0, ret, N(ret));
	check("GenuineIntel-6-C6-2", "alderlake", "cpu_core", c, N(c), 0, ret, N(ret));
	check("GenuineIntel-6-BD-1", "alderlake", "cpu_atom", skt, N(skt), 0, atom, N(atom));
	check("GenuineIntel-6-C5-2", "alderlake", "cpu_atom", skt, N(skt), 0, atom, N(atom));
}

/* Uncore metrics over four CHA instances (uncore_cha_0..3, as sysfs shows a
 * socket's CHAs), CLOCKTICKS 1e9..4e9 (sum 1e10), TOR occupancy 100..400
 * (1000), TOR inserts 10..40 (100), 2 s (#wall_ns 2e9), one package: perf
 * sums an uncore event over its instances and source_count(EV) is their
 * number, 4. Cascade Lake uncore_frequency = 1e10 / (4 * 1) / 1e9 / 2 s =
 * 1.25 GHz; Emerald Rapids llc_demand_data_read_miss_latency = 1e9 *
 * (1000 / 100) / (1e10 / (4 * 1)) * 2 s = 8 ns; evaluated for an anchor on
 * the core PMU (the uncore counts pair with any anchor of the bucket) and
 * without one. duration_time is seconds in perf's metrics: Cascade Lake
 * tma_info_memory_l1d_cache_fill_bw = 64 * L1D.REPLACEMENT 1e9 / 1e9 / 2 s
 * = 32 GB/sec. */
static void test_uncore_sources(void **state)
{
	(void)state;
	static const struct { const char *event; double v[4]; } unc[] = {
		{"UNC_CHA_CLOCKTICKS", {1e9, 2e9, 3e9, 4e9}},
		{"UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD", {100, 200, 300, 400}},
		{"UNC_CHA_TOR_INSERTS.IA_MISS_DRD", {10, 20, 30, 40}}};
	static const struct { const char *cpuid, *metric; double value; } w[] = {
		{"GenuineIntel-6-55-7", "uncore_frequency", 1.25},
		{"GenuineIntel-6-CF-2", "llc_demand_data_read_miss_latency", 8},
		{"GenuineIntel-6-55-7", "tma_info_memory_l1d_cache_fill_bw", 32}};
	pk_error err;
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("skylake"), &err);
	assert_non_null(pmus);
	pk_pmu cha[4];
	char names[4][16];
	pk_evlist *l = pk_evlist_new();
	pk_metric_count v[2 + 3 * 4];
	struct perf_event_attr core = {.type = PERF_TYPE_RAW, .config = 0xc0};
	v[0] = (pk_metric_count){.evsel = pk_evlist_add(l, &core, "INST_RETIRED.ANY", pk_pmus_find(pmus, "cpu")),
				 .value = 3000, .counted = true};
	core.config = 0x151;
	v[1] = (pk_metric_count){.evsel = pk_evlist_add(l, &core, "L1D.REPLACEMENT", pk_pmus_find(pmus, "cpu")),
				 .value = 1e9, .counted = true};
	size_t n = 2;
	for (int i = 0; i < 4; i++) {
		snprintf(names[i], sizeof(names[i]), "uncore_cha_%d", i);
		cha[i] = (pk_pmu){.name = names[i], .type = 30 + (uint32_t)i, .kind = PK_PMU_OTHER};
		for (size_t e = 0; e < N(unc); e++) {
			struct perf_event_attr a = {.type = cha[i].type};
			v[n++] = (pk_metric_count){.evsel = pk_evlist_add(l, &a, unc[e].event, &cha[i]),
						   .value = unc[e].v[i], .counted = true};
		}
	}
	for (size_t i = 0; i < n; i++)
		assert_non_null(v[i].evsel);
	pk_metric_literal lit[] = {{"#num_packages", 1}, {"#wall_ns", 2e9}};
	pk_metric_counts in = {.v = v, .nr = n, .lit = lit, .nr_lit = N(lit)};
	for (size_t i = 0; i < N(w); i++) {
		pk_cpuid id;
		assert_int_equal(pk_cpuid_parse(w[i].cpuid, &id, &err), 0);
		size_t nr;
		const pk_metric_def *defs = pk_metric_defs_cpu(&id, "cpu", &nr, NULL);
		assert_non_null(defs);
		pk_metric_table *t = pk_metric_table_new(defs, nr, &err);
		assert_non_null(t);
		long r = pk_metric_table_find(t, w[i].metric);
		assert_true(r >= 0);
		for (long anchor = -1; anchor <= 0; anchor++) {
			pk_metric_value mv;
			if (pk_metric_eval(t, (size_t)r, &in, anchor, &mv) != 1 ||
			    fabs(mv.value - w[i].value) > 1e-9 * w[i].value)
				fail_msg("%s %s (anchor %ld) = %g, want %g", w[i].cpuid, w[i].metric,
					 anchor, mv.value, w[i].value);
		}
		pk_metric_table_free(t);
	}
	pk_evlist_put(l);
	pk_pmus_put(pmus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zen4_pipeline),
		cmocka_unit_test(test_neoverse_topdown),
		cmocka_unit_test(test_neoverse_n1_ratios),
		cmocka_unit_test(test_gracemont),
		cmocka_unit_test(test_intel_before_icl),
		cmocka_unit_test(test_intel_perf_metrics),
		cmocka_unit_test(test_crestmont),
		cmocka_unit_test(test_lion_cove_skymont),
		cmocka_unit_test(test_uncore_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
