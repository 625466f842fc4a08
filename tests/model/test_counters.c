/* Counters per CPU model (lib/model/counters.c): the table's rows for the
 * bundled machines' CPUIDs and core PMUs, SMT on Skylake, and the error for
 * a CPU or PMU the table does not know. */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "model/model.h"

static const pki_counters *find(const char *cpuid, const char *pmu, pk_error *err)
{
	pk_cpuid id;
	assert_int_equal(pk_cpuid_parse(cpuid, &id, NULL), 0);
	return pki_counters_find(&id, pmu, err);
}

static void test_skylake_smt(void **state)
{
	(void)state;
	const pki_counters *c = find("GenuineIntel-6-5E-3", "cpu", NULL);
	assert_non_null(c);
	assert_int_equal(pki_counters_generic(c, true), 4);
	assert_int_equal(pki_counters_generic(c, false), 8);
	assert_int_equal(c->fixed, 0x7);
	assert_int_equal(c->perf_metrics, 0);
	assert_int_equal(c->width, 4);
}

static void test_icelake_and_spr(void **state)
{
	(void)state;
	const pki_counters *icl = find("GenuineIntel-6-7E-5", "cpu", NULL);
	assert_non_null(icl);
	assert_int_equal(pki_counters_generic(icl, true), 8);
	assert_int_equal(icl->fixed, 0xf);
	assert_int_equal(icl->perf_metrics, 4); /* Level 1 only */
	const pki_counters *spr = find("GenuineIntel-6-8F-8", "cpu", NULL);
	assert_non_null(spr);
	assert_int_equal(spr->generic, 8);
	assert_int_equal(spr->fixed, 0xf);
	assert_int_equal(spr->perf_metrics, 8);
	assert_int_equal(spr->width, 6);
}

static void test_alderlake_hybrid(void **state)
{
	(void)state;
	const pki_counters *big = find("GenuineIntel-6-97-2", "cpu_core", NULL);
	const pki_counters *atom = find("GenuineIntel-6-97-2", "cpu_atom", NULL);
	assert_non_null(big);
	assert_non_null(atom);
	assert_string_equal(big->core, "Golden Cove");
	assert_int_equal(big->perf_metrics, 8);
	assert_string_equal(atom->core, "Gracemont");
	assert_int_equal(atom->generic, 6);
	assert_int_equal(atom->fixed, 0x7);
	assert_int_equal(atom->perf_metrics, 0);
	assert_int_equal(atom->width, 5);
}

static void test_zen4_and_neoverse(void **state)
{
	(void)state;
	const pki_counters *zen = find("AuthenticAMD-25-11-1", "cpu", NULL);
	assert_non_null(zen);
	assert_int_equal(zen->generic, 6);
	assert_int_equal(zen->fixed, 0);
	const pki_counters *n1 = find("0x00000000413fd0c1", "armv8_pmuv3_0", NULL);
	assert_non_null(n1);
	assert_int_equal(n1->generic, 6);
	assert_int_equal(n1->fixed, 0x1); /* the cycle counter */
	/* one row per part: Arm's num_slots (N1 has no slot events) */
	static const struct {
		const char *midr, *core;
		int width;
	} parts[] = {
		{"0x00000000413fd0c1", "Neoverse N1", 5},
		{"0x00000000411fd401", "Neoverse V1", 8},
		{"0x00000000410fd490", "Neoverse N2", 5},
		{"0x00000000410fd4f0", "Neoverse V2", 8},
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const pki_counters *c = find(parts[i].midr, "armv8_pmuv3_0", NULL);
		assert_non_null(c);
		assert_string_equal(c->core, parts[i].core);
		assert_int_equal(c->width, parts[i].width);
		assert_int_equal(c->generic, 6);
	}
}

static void test_unknown(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	assert_null(find("AuthenticAMD-25-1-1", "cpu", &err)); /* Zen 3 */
	assert_int_equal(err.code, -ENOENT);
	assert_non_null(strstr(err.msg, "AuthenticAMD-25-1-1"));
	assert_null(find("AuthenticAMD-25-11-1", "cpu_atom", &err));
	assert_non_null(strstr(err.msg, "cpu_atom"));
	assert_null(find("GenuineIntel-6-8F-8", "cpu_core", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skylake_smt),
		cmocka_unit_test(test_icelake_and_spr),
		cmocka_unit_test(test_alderlake_hybrid),
		cmocka_unit_test(test_zen4_and_neoverse),
		cmocka_unit_test(test_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
