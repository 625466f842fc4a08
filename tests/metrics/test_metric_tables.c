/* The vendors' metric tables (lib/metrics/metrics_intel.c, generated from
 * tests/data/perfmon; metrics_perf.c from tests/data/perfmon-perf): every row of every CPU compiles (formula and
 * threshold parse, references to other rows bind, no cycles); every event
 * reference resolves to a core encoding or is refused as no core event;
 * rows are sorted; lookups by CPU, by name and by group (without case) as
 * perf's; encodings checked against Intel's events files by hand; list's
 * view (pk_metric_listing): rows in strcmp order, each group name once and
 * sorted, every row under each of its groups but not under its own name. */
#include "helpers.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <pmukit/metrics.h>

#include "metrics/metric_tables.h"

static pk_cpuid cpu(const char *s)
{
	pk_cpuid id;
	assert_int_equal(pk_cpuid_parse(s, &id, NULL), 0);
	return id;
}

static void check_table(const pki_metric_cpu_table *t)
{
	pk_error err;
	for (size_t i = 0; i < t->nr_rows; i++) {
		pk_expr *e = pk_expr_parse(t->rows[i].formula, &err);
		if (!e)
			fail_msg("%s: %s: %s at %ld", t->source, t->rows[i].name, err.msg, err.pos);
		pk_expr_free(e);
	}
	pk_metric_table *mt = pk_metric_table_new(t->rows, t->nr_rows, &err);
	if (!mt)
		fail_msg("%s: %s", t->source, err.msg);
	for (size_t i = 0; i + 1 < t->nr_rows; i++)
		assert_true(strcasecmp(t->rows[i].name, t->rows[i + 1].name) < 0);
	for (size_t i = 0; i < t->nr_rows; i++) {
		pk_expr *e = pk_expr_parse(t->rows[i].formula, &err);
		assert_non_null(e);
		for (size_t r = 0; r < pk_expr_nr_refs(e); r++) {
			const char *ref = pk_expr_ref(e, r);
			bool found = ref[0] == '#' || pk_metric_table_find(mt, ref) >= 0;
			for (size_t k = 0; !found && k < t->nr_events; k++)
				found = !strcmp(t->events[k].name, ref);
			if (!found)
				fail_msg("%s: %s: %s in no events entry", t->source, t->rows[i].name, ref);
		}
		pk_expr_free(e);
	}
	pk_metric_table_free(mt);
}

static void test_every_table_compiles(void **state)
{
	(void)state;
	assert_int_equal(pki_metric_intel_nr, 4);
	for (size_t i = 0; i < pki_metric_intel_nr; i++)
		check_table(&pki_metric_intel[i]);
	assert_int_equal(pki_metric_perf_nr, 30);
	for (size_t i = 0; i < pki_metric_perf_nr; i++)
		check_table(&pki_metric_perf[i]);
}

static void test_lookup(void **state)
{
	(void)state;
	size_t nr;
	const char *src;
	pk_cpuid skl = cpu("GenuineIntel-6-5E-3"), adl = cpu("GenuineIntel-6-97-2");
	pk_cpuid skx = cpu("GenuineIntel-6-55-4");
	const pk_metric_def *rows = pk_metric_defs_cpu(&skl, NULL, &nr, &src);
	assert_int_equal(nr, 207); /* skylake_metrics.json's 207 metrics */
	assert_string_equal(src, "SKL: skylake_metrics.json");
	rows = pk_metric_defs_cpu(&adl, NULL, &nr, &src);
	assert_string_equal(src, "ADL: alderlake_metrics_goldencove_core.json");
	assert_non_null(pk_metric_defs_cpu(&adl, "cpu_core", &nr, NULL));
	/* the E-cores: Gracemont's table (perf's alderlaken files) */
	assert_non_null(pk_metric_defs_cpu(&adl, "cpu_atom", &nr, &src));
	assert_string_equal(src, "perf alderlaken");
	/* Skylake-X: perf's skylakex files, not Skylake client's */
	assert_non_null(pk_metric_defs_cpu(&skx, NULL, &nr, &src));
	assert_string_equal(src, "perf skylakex");
	/* Tiger Lake, Rocket Lake: their own files, though Sunny Cove's PMU
	 * (TopDown and the model take Ice Lake's) */
	pk_cpuid tgl = cpu("GenuineIntel-6-8C-1");
	assert_non_null(pk_metric_defs_cpu(&tgl, NULL, &nr, &src));
	assert_string_equal(src, "perf tigerlake");
	/* Meteor Lake: the P-core's by default, the E-core's by cpu_atom */
	pk_cpuid mtl = cpu("GenuineIntel-6-AA-4");
	assert_non_null(pk_metric_defs_cpu(&mtl, "cpu_atom", &nr, &src));
	assert_string_equal(src, "perf meteorlake cpu_atom");
	assert_int_equal(nr, 84);
	/* Lunar Lake, Arrow Lake (intel/perfmon's perf files): Skymont's
	 * table by cpu_atom, each its own (Unit cpu_atom) */
	pk_cpuid lnl = cpu("GenuineIntel-6-BD-1"), arl = cpu("GenuineIntel-6-C5-2");
	assert_non_null(pk_metric_defs_cpu(&lnl, "cpu_atom", &nr, &src));
	assert_string_equal(src, "perf lunarlake cpu_atom");
	assert_int_equal(nr, 87);
	assert_non_null(pk_metric_defs_cpu(&arl, "cpu_atom", &nr, &src));
	assert_string_equal(src, "perf arrowlake cpu_atom");
	assert_int_equal(nr, 91);
	/* Zen 1, Cortex: no metric file */
	pk_cpuid zen1 = cpu("AuthenticAMD-23-01-0");
	assert_null(pk_metric_defs_cpu(&zen1, NULL, &nr, NULL));
	assert_int_equal(nr, 0);
	/* perf's JSON tables: the entries with a MetricName (amdzen4's
	 * recommended.json repeats umc_cas_cmd_read_ratio: once here) */
	static const struct {
		const char *cpuid, *source;
		size_t nr;
	} perf[] = {{"AuthenticAMD-23-31-0", "perf amdzen2", 11},
		    {"AuthenticAMD-25-01-1", "perf amdzen3", 13},
		    {"AuthenticAMD-25-11-1", "perf amdzen4", 73},
		    {"AuthenticAMD-26-02-0", "perf amdzen5", 63},
		    {"0x00000000410fd0c0", "perf neoverse-n1", 31},
		    {"0x00000000410fd400", "perf neoverse-v1", 35},
		    {"0x00000000410fd490", "perf neoverse-n2-v2", 45},
		    {"0x00000000410fd4f0", "perf neoverse-n2-v2", 45},
		    {"GenuineIntel-6-BE-0", "perf alderlaken", 93},
		    {"GenuineIntel-6-3C-3", "perf haswell", 118},
		    {"GenuineIntel-6-3F-2", "perf haswellx", 158},
		    {"GenuineIntel-6-3D-4", "perf broadwell", 142},
		    {"GenuineIntel-6-4F-1", "perf broadwellx", 182},
		    {"GenuineIntel-6-56-2", "perf broadwellde", 141},
		    {"GenuineIntel-6-55-4", "perf skylakex", 259},
		    {"GenuineIntel-6-55-7", "perf cascadelakex", 268},
		    {"GenuineIntel-6-6A-6", "perf icelakex", 272},
		    {"GenuineIntel-6-8D-1", "perf tigerlake", 222},
		    {"GenuineIntel-6-A7-1", "perf rocketlake", 239},
		    {"GenuineIntel-6-CF-2", "perf emeraldrapids", 296},
		    {"GenuineIntel-6-AF-3", "perf sierraforest", 146},
		    {"GenuineIntel-6-B6-1", "perf grandridge", 133},
		    /* Meteor Lake's P-core: Unit cpu_core and none (C-states) */
		    {"GenuineIntel-6-AC-4", "perf meteorlake cpu_core", 211 + 12},
		    {"GenuineIntel-6-AD-1", "perf graniterapids", 325},
		    {"GenuineIntel-6-AE-1", "perf graniterapids", 325},
		    /* Lion Cove: Unit cpu_core and none (C-states, SMI) */
		    {"GenuineIntel-6-BD-1", "perf lunarlake cpu_core", 238 + 8},
		    {"GenuineIntel-6-C6-2", "perf arrowlake cpu_core", 238 + 10},
		    {"GenuineIntel-6-C5-2", "perf arrowlake cpu_core", 238 + 10}};
	for (size_t i = 0; i < sizeof(perf) / sizeof(perf[0]); i++) {
		pk_cpuid id = cpu(perf[i].cpuid);
		if (!pk_metric_defs_cpu(&id, NULL, &nr, &src) || strcmp(src, perf[i].source) ||
		    nr != perf[i].nr)
			fail_msg("%s: %s, %zu rows", perf[i].cpuid, src ? src : "no table", nr);
	}
	rows = pk_metric_defs_cpu(&skl, NULL, &nr, NULL);
	size_t l1 = 0;
	for (size_t i = 0; i < nr; i++) {
		if (pk_metric_named(&rows[i], "topdownl1")) {
			l1++;
			assert_true(pk_metric_named(&rows[i], "TMA_L1_GROUP"));
		}
	}
	assert_int_equal(l1, 4);
	long r = -1;
	for (size_t i = 0; i < nr; i++)
		if (pk_metric_named(&rows[i], "TMA_RETIRING"))
			r = (long)i;
	assert_true(r >= 0);
	assert_string_equal(rows[r].name, "tma_retiring");
	assert_string_equal(rows[r].unit, "%");
	assert_false(pk_metric_named(&rows[r], "tma_retir"));
}

static void test_event_config(void **state)
{
	(void)state;
	pk_cpuid skl = cpu("GenuineIntel-6-5E-3");
	uint64_t c = 0;
	pk_error err;
	/* skylake_core.json: ICACHE_16B.IFDATA_STALL 0x80 umask 0x04, :c1:e1 */
	assert_int_equal(pk_metric_event_config(&skl, NULL, "ICACHE_16B.IFDATA_STALL:c1:e1", &c, &err), 0);
	assert_int_equal(c, 0x80 | 0x04 << 8 | 1 << 18 | 1u << 24);
	/* UOPS_ISSUED.ANY 0x0E umask 0x01 */
	assert_int_equal(pk_metric_event_config(&skl, NULL, "UOPS_ISSUED.ANY", &c, &err), 0);
	assert_int_equal(c, 0x010E);
	assert_int_equal(pk_metric_event_config(&skl, NULL, "UNC_CLOCK.SOCKET", &c, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "UNC_CLOCK.SOCKET: not a core PMU event"));
	assert_int_equal(pk_metric_event_config(&skl, NULL, "NO.SUCH", &c, &err), -ENOENT);
	/* amdzen4 (perf JSON): de_no_dispatch_per_slot EventCode 0x1a0 (bits 0-7,
	 * 32-35), umask 0x01, the metric's cmask=0x6 (24-31) */
	pk_cpuid zen4 = cpu("AuthenticAMD-25-11-1");
	assert_int_equal(pk_metric_event_config(&zen4, NULL,
			 "de_no_dispatch_per_slot.no_ops_from_frontend:c6", &c, &err), 0);
	assert_int_equal(c, 0xa0 | 1ull << 32 | 0x01 << 8 | 6u << 24);
	assert_int_equal(pk_metric_event_config(&zen4, NULL, "l3_lookup_state.l3_miss", &c, &err),
			 -EOPNOTSUPP); /* Unit L3PMC */
	/* Neoverse N2: STALL_SLOT_FRONTEND is the common event 0x3E */
	pk_cpuid n2 = cpu("0x00000000410fd490");
	assert_int_equal(pk_metric_event_config(&n2, "armv8_pmuv3_0", "STALL_SLOT_FRONTEND", &c, &err), 0);
	assert_int_equal(c, 0x3e);
	/* Gracemont: TOPDOWN_BE_BOUND.ALL EventCode 0x74 (UMask left out: 0) */
	pk_cpuid grt = cpu("GenuineIntel-6-BE-0");
	assert_int_equal(pk_metric_event_config(&grt, NULL, "TOPDOWN_BE_BOUND.ALL", &c, &err), 0);
	assert_int_equal(c, 0x74);
	/* Granite Rapids: MEMORY_ACTIVITY.STALLS_L3_MISS 0x47 umask 0x09 cmask 9 */
	pk_cpuid gnr = cpu("GenuineIntel-6-AD-1");
	assert_int_equal(pk_metric_event_config(&gnr, NULL, "MEMORY_ACTIVITY.STALLS_L3_MISS", &c, &err), 0);
	assert_int_equal(c, 0x47 | 0x09 << 8 | 9u << 24);
	/* Lunar Lake: Lion Cove's UOPS_ISSUED.ANY 0xae umask 0x01; Skymont's
	 * TOPDOWN_FE_BOUND.ALL is fixed counter 5 (UMask 0x6, no EventCode:
	 * the kernel's pseudo encoding 0x0600) */
	pk_cpuid lnl = cpu("GenuineIntel-6-BD-1");
	assert_int_equal(pk_metric_event_config(&lnl, "cpu_core", "UOPS_ISSUED.ANY", &c, &err), 0);
	assert_int_equal(c, 0x01ae);
	assert_int_equal(pk_metric_event_config(&lnl, "cpu_atom", "TOPDOWN_FE_BOUND.ALL", &c, &err), 0);
	assert_int_equal(c, 0x0600);
}

static void test_listing(void **state)
{
	(void)state;
	pk_cpuid id = cpu("GenuineIntel-6-8F-8");
	pk_metric_listing l;
	assert_int_equal(pk_metric_listing_new(&id, &l), 0);
	size_t nr;
	pk_metric_defs_cpu(&id, NULL, &nr, NULL);
	assert_int_equal(l.nr, nr);
	assert_true(nr > 10 && l.nr_groups > 5);
	assert_null(l.pmus[0]); /* not hybrid: no PMU, the description alone */
	assert_string_equal(l.descs[0], l.rows[0]->description);
	for (size_t i = 1; i < l.nr; i++)
		assert_true(strcmp(l.rows[i - 1]->name, l.rows[i]->name) < 0);
	for (size_t g = 1; g < l.nr_groups; g++)
		assert_true(strcmp(l.groups[g - 1], l.groups[g]) < 0); /* sorted, once */
	/* every row is in a group, and each group holds a row */
	for (size_t i = 0; i < l.nr; i++) {
		size_t in = 0;
		for (size_t g = 0; g < l.nr_groups; g++)
			in += pk_metric_in_group(l.rows[i], l.groups[g]);
		assert_true(in >= 1);
		assert_false(pk_metric_in_group(l.rows[i], l.rows[i]->name));
	}
	pk_metric_def lone = {.name = "lone", .groups = ""};
	assert_true(pk_metric_in_group(&lone, "No_group"));
	assert_false(pk_metric_in_group(&lone, "TopdownL1"));
	pk_metric_listing_release(&l);
	/* Alder Lake: the P-core's rows and the E-core's (Gracemont), each
	 * with its PMU, a name of both by its description with the PMU */
	id = cpu("GenuineIntel-6-97-2");
	assert_int_equal(pk_metric_listing_new(&id, &l), 0);
	size_t nc, na;
	pk_metric_defs_cpu(&id, "cpu_core", &nc, NULL);
	pk_metric_defs_cpu(&id, "cpu_atom", &na, NULL);
	assert_true(nc > 100 && na > 50);
	assert_int_equal(l.nr, nc + na);
	size_t atom = 0;
	for (size_t i = 0; i < l.nr; i++) {
		atom += !strcmp(l.pmus[i], "cpu_atom");
		if (i && !strcmp(l.rows[i - 1]->name, l.rows[i]->name))
			assert_true(strcmp(l.descs[i - 1], l.descs[i]) < 0);
	}
	assert_int_equal(atom, na);
	for (size_t i = 0; i < l.nr; i++)
		if (!strcmp(l.rows[i]->name, "tma_retiring")) {
			assert_string_equal(l.descs[i], "Counts the number of issue slots that result "
					    "in retirement slots. Unit: cpu_atom ");
			assert_string_equal(l.pmus[i + 1], "cpu_core");
			break;
		}
	pk_metric_listing_release(&l);
	/* a CPU without tables: an empty listing */
	id = cpu("GenuineIntel-6-01-1");
	assert_int_equal(pk_metric_listing_new(&id, &l), 0);
	assert_int_equal(l.nr, 0);
	assert_int_equal(l.nr_groups, 0);
	pk_metric_listing_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_table_compiles),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_event_config),
		cmocka_unit_test(test_listing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
