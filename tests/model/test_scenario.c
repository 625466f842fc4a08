/* Scenarios of the PMU model (lib/model/scenario.c, scenario_tma.c): the
 * bundled examples parse; defaults (cpuid, Level 2 split in half, a
 * complement's sibling); and each refusal names the JSON path and value. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/model.h"

static void load_example(const char *name, pki_scenario *s)
{
	char path[4096];
	const char *src = getenv("PK_SRCDIR");
	snprintf(path, sizeof(path), "%s/examples/model/%s", src ? src : ".", name);
	pk_error err;
	pk_error_clear(&err);
	if (pki_scenario_load(path, s, &err) < 0)
		fail_msg("%s: %s", path, err.msg);
}

static void test_examples_parse(void **state)
{
	(void)state;
	static const char *const names[] = {"sapphirerapids.json", "icelake.json", "skylake.json",
					    "alderlake-hybrid.json", "zen4.json", "neoverse-n1.json"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		pki_scenario s;
		load_example(names[i], &s);
		assert_true(s.nr_threads > 0);
		pki_scenario_release(&s);
	}
}

static void test_sapphirerapids(void **state)
{
	(void)state;
	pki_scenario s;
	load_example("sapphirerapids.json", &s);
	assert_string_equal(s.machine, "sapphirerapids");
	assert_false(s.machine_is_path);
	assert_int_equal(s.cpuid.model, 0x8F);
	assert_int_equal(s.nr_threads, 1);
	const pki_thread *t = &s.threads[0];
	assert_int_equal(t->tid, 1001);
	assert_string_equal(t->comm, "worker");
	assert_int_equal(t->nr_phases, 2);
	assert_int_equal(pki_phase_cycles(&t->phases[0]), 1200000000ULL);
	assert_int_equal(t->phases[0].ip, 0x401000);
	assert_int_equal(t->phases[0].core_type, PKI_CORE_BIG);
	assert_true(t->phases[0].tma[PKI_TMA_BR_MISPREDICT] == 0.08);
	/* phase 1: memory_bound given, the other parents split in half */
	const double *tma = t->phases[1].tma;
	assert_true(tma[PKI_TMA_MEM_BOUND] == 0.05);
	assert_true(fabs(tma[PKI_TMA_HEAVY_OPS] - 0.30) < 1e-12);
	assert_true(fabs(tma[PKI_TMA_BR_MISPREDICT] - 0.025) < 1e-12);
	assert_true(fabs(tma[PKI_TMA_FETCH_LAT] - 0.05) < 1e-12);
	pki_scenario_release(&s);
}

static void test_defaults_and_complements(void **state)
{
	(void)state;
	pki_scenario s;
	load_example("skylake.json", &s); /* no cpuid: the bundled machine's */
	assert_string_equal(s.cpuid.str, "GenuineIntel-6-5E-3");
	assert_true(s.smt);
	const double *tma = s.threads[0].phases[0].tma;
	assert_true(fabs(tma[PKI_TMA_MEM_BOUND] - 0.20) < 1e-12); /* 0.30 - core_bound 0.10 */
	assert_true(fabs(tma[PKI_TMA_BR_MISPREDICT] - 0.12) < 1e-12);
	assert_int_equal(s.threads[0].phases[0].ip, 0x401000);
	pki_scenario_release(&s);
	load_example("alderlake-hybrid.json", &s);
	assert_int_equal(s.threads[0].phases[1].core_type, PKI_CORE_ATOM);
	pki_scenario_release(&s);
}

#define PHASE(tma) "{\"ms\": 10, \"ghz\": 2, \"tma\": {" tma "}}"
#define L1 "\"retiring\": 0.3, \"bad_speculation\": 0.1, \"frontend_bound\": 0.25, " \
	   "\"backend_bound\": 0.35"
#define SCEN(top, thread, phase) \
	"{\"machine\": \"sapphirerapids\"" top ", \"threads\": [{\"tid\": 1, \"comm\": \"a\", " \
	"\"cpu\": 0" thread ", \"phases\": [" PHASE(L1) ", " phase "]}]}"

/* The text is refused with -EINVAL and a message holding each of want[]. */
static void refused(const char *text, const char *want1, const char *want2)
{
	pki_scenario s;
	pk_error err;
	pk_error_clear(&err);
	int rc = pki_scenario_parse(text, strlen(text), "t.json", &s, &err);
	if (rc != -EINVAL || !strstr(err.msg, want1) || (want2 && !strstr(err.msg, want2)))
		fail_msg("rc %d, message '%s'; wanted '%s' and '%s' in:\n%s", rc, err.msg, want1,
			 want2 ? want2 : "", text);
	assert_string_equal(err.where, "t.json");
	assert_int_equal(s.nr_threads, 0);
}

static void test_good_template(void **state)
{
	(void)state;
	const char *text = SCEN("", "", PHASE(L1 ", \"light_operations\": 0.3"));
	pki_scenario s;
	assert_int_equal(pki_scenario_parse(text, strlen(text), NULL, &s, NULL), 0);
	assert_true(s.threads[0].phases[1].tma[PKI_TMA_HEAVY_OPS] < 1e-12);
	pki_scenario_release(&s);
}

static void test_bad_shares(void **state)
{
	(void)state;
	refused(SCEN("", "", PHASE(L1 ", \"retiring\": 0.3")), "not valid JSON", "duplicate");
	refused(SCEN("", "", PHASE("\"retiring\": 0.3, \"bad_speculation\": 0.1, "
				   "\"frontend_bound\": 0.25, \"backend_bound\": 0.3")),
		"threads[0].phases[1].tma: Level 1 sums to 0.95", "tolerance 1e-06");
	refused(SCEN("", "", PHASE("\"retiring\": 1.5, \"bad_speculation\": 0.1, "
				   "\"frontend_bound\": 0.25, \"backend_bound\": 0.35")),
		"threads[0].phases[1].tma.retiring: 1.5", "[0, 1]");
	refused(SCEN("", "", PHASE("\"retiring\": 0.3, \"bad_speculation\": -0.1, "
				   "\"frontend_bound\": 0.25, \"backend_bound\": 0.35")),
		"tma.bad_speculation: -0.1", NULL);
	refused(SCEN("", "", PHASE("\"retiring\": 0.3, \"frontend_bound\": 0.25")),
		"threads[0].phases[1].tma.bad_speculation: missing", NULL);
	refused(SCEN("", "", PHASE(L1 ", \"heavy_operations\": 0.4")),
		"tma.heavy_operations: 0.4: above its parent retiring (0.3)", NULL);
	refused(SCEN("", "", PHASE(L1 ", \"core_bound\": 0.5")),
		"tma.core_bound: 0.5: above its parent backend_bound", NULL);
	refused(SCEN("", "", PHASE(L1 ", \"fetch_latency\": 0.2, \"fetch_bandwidth\": 0.1")),
		"tma.fetch_bandwidth: 0.1: plus its sibling", "frontend_bound (0.25)");
	refused(SCEN("", "", PHASE(L1 ", \"retiring_fast\": 0.1")),
		"threads[0].phases[1].tma.retiring_fast: 0.1: unknown TopDown node", NULL);
	refused(SCEN("", "", PHASE(L1 ", \"memory_bound\": \"high\"")),
		"tma.memory_bound: \"high\"", NULL);
}

static void test_bad_keys(void **state)
{
	(void)state;
	refused(SCEN(", \"sm\": true", "", PHASE(L1)), "sm: true: unknown key", NULL);
	refused(SCEN("", ", \"prio\": 3", PHASE(L1)), "threads[0].prio: 3: unknown key", NULL);
	refused(SCEN("", "", "{\"ms\": 10, \"ghz\": 2, \"mhz\": 1, \"tma\": {" L1 "}}"),
		"threads[0].phases[1].mhz: 1: unknown key", NULL);
	/* an empty key is shown as "" (issue 26) */
	refused(SCEN(", \"\": 1", "", PHASE(L1)), "\"\": 1: unknown key", NULL);
	refused(SCEN("", "", PHASE(L1 ", \"\": 0")),
		"threads[0].phases[1].tma.\"\": 0: unknown TopDown node", NULL);
	refused(SCEN(", \"smt\": 1", "", PHASE(L1)), "smt: 1: expected true or false", NULL);
	refused(SCEN(", \"cpuid\": \"Intel-6\"", "", PHASE(L1)), "cpuid: \"Intel-6\"", NULL);
}

static void test_bad_values(void **state)
{
	(void)state;
	refused(SCEN("", "", "{\"ms\": 0, \"ghz\": 2, \"tma\": {" L1 "}}"),
		"threads[0].phases[1].ms: 0: expected a number in (0, 1e+07]", NULL);
	refused(SCEN("", "", "{\"ms\": 5, \"ghz\": 99, \"tma\": {" L1 "}}"),
		"threads[0].phases[1].ghz: 99", NULL);
	refused(SCEN("", "", "{\"ms\": 5, \"tma\": {" L1 "}}"), "threads[0].phases[1].ghz: missing",
		NULL);
	refused(SCEN("", "", "{\"ms\": 5, \"ghz\": 1, \"core_type\": \"atom\", \"tma\": {" L1 "}}"),
		"core_type: \"atom\": the machine is not hybrid", NULL);
	refused(SCEN("", "", "{\"ms\": 5, \"ghz\": 1, \"core_type\": \"big\", \"tma\": {" L1 "}}"),
		"core_type: \"big\": expected \"core\" or \"atom\"", NULL);
	refused(SCEN("", "", "{\"ms\": 5, \"ghz\": 1, \"ip\": \"401000\", \"tma\": {" L1 "}}"),
		"threads[0].phases[1].ip: \"401000\"", NULL);
	refused(SCEN("", "", "{\"ms\": 5, \"ghz\": 1}"), "threads[0].phases[1].tma: missing", NULL);
	refused(SCEN("", ", \"tid\": 0", PHASE(L1)), "not valid JSON", "duplicate");
	refused("{\"machine\": \"sapphirerapids\", \"threads\": [{\"tid\": -4, \"comm\": \"a\", "
		"\"cpu\": 0, \"phases\": []}]}",
		"threads[0].tid: -4: expected an integer", NULL);
	refused("{\"machine\": \"sapphirerapids\", \"threads\": [{\"tid\": 4, \"comm\": "
		"\"a-very-long-command-name\", \"cpu\": 0, \"phases\": []}]}",
		"threads[0].comm: \"a-very-long-command-name\": longer than 15 bytes", NULL);
	refused("{\"machine\": \"sapphirerapids\", \"threads\": [{\"tid\": 4, \"comm\": \"a\", "
		"\"cpu\": 0, \"phases\": []}]}",
		"threads[0].phases: []: expected a non-empty array", NULL);
}

#define RPHASE(rates) "{\"ms\": 10, \"ghz\": 2, \"tma\": {" L1 "}, \"rates\": " rates "}"

/* ref_ghz and a phase's rates: kept as given, refused out of range, with
 * unknown keys, misses above references or branches below mispredicts. */
static void test_rates(void **state)
{
	(void)state;
	pki_scenario s;
	load_example("sapphirerapids.json", &s);
	assert_true(s.ref_ghz == 2.0);
	assert_int_equal(s.threads[0].phases[0].rates_given, (1u << PKI_RATE_NR) - 1);
	assert_true(s.threads[0].phases[0].rate[PKI_RATE_BRANCHES] == 0.18);
	assert_true(s.threads[0].phases[1].rate[PKI_RATE_CACHE_MISSES] == 0.0005);
	pki_scenario_release(&s);
	const char *text = SCEN("", "", RPHASE("{\"cache_misses\": 0.25}"));
	assert_int_equal(pki_scenario_parse(text, strlen(text), NULL, &s, NULL), 0);
	assert_true(s.ref_ghz == 0);
	assert_int_equal(s.threads[0].phases[0].rates_given, 0);
	assert_int_equal(s.threads[0].phases[1].rates_given, 1u << PKI_RATE_CACHE_MISSES);
	pki_scenario_release(&s);
	refused(SCEN(", \"ref_ghz\": 0", "", PHASE(L1)), "ref_ghz: 0: expected a number in (0, 10]",
		NULL);
	refused(SCEN(", \"ref_ghz\": \"fast\"", "", PHASE(L1)), "ref_ghz: \"fast\"", NULL);
	refused(SCEN("", "", RPHASE("[0.1]")), "threads[0].phases[1].rates: [0.1]: expected an object",
		NULL);
	refused(SCEN("", "", RPHASE("{\"loads\": 0.1}")),
		"threads[0].phases[1].rates.loads: 0.1: unknown key", NULL);
	refused(SCEN("", "", RPHASE("{\"branches\": 1.5}")),
		"threads[0].phases[1].rates.branches: 1.5: expected a number in [0, 1]", NULL);
	refused(SCEN("", "", RPHASE("{\"bus_cycles\": -0.1}")), "rates.bus_cycles: -0.1", NULL);
	refused(SCEN("", "", RPHASE("{\"cache_references\": 0.01, \"cache_misses\": 0.02}")),
		"threads[0].phases[1].rates.cache_misses: 0.02",
		"more cache misses than cache_references");
	/* L1: retiring 0.3, light 0.15 (half), branch_mispredicts 0.05: 0.05 / 20 =
	 * 0.0025 > 0.15 x 0.01 */
	refused(SCEN("", "", RPHASE("{\"branches\": 0.01}")),
		"threads[0].phases[1].rates.branches: 0.01", "fewer branches than branch mispredicts");
	text = SCEN("", "", RPHASE("{\"branches\": 0.017}"));
	assert_int_equal(pki_scenario_parse(text, strlen(text), NULL, &s, NULL), 0);
	pki_scenario_release(&s);
}

static void test_bad_top(void **state)
{
	(void)state;
	refused("[]", "(top level): []: expected an object", NULL);
	refused("{\"machine\": \"pentium\", \"threads\": []}", "machine: \"pentium\"",
		"not a bundled machine");
	refused("{\"machine\": \"./my/tree\", \"threads\": []}", "cpuid: missing", NULL);
	refused("{\"machine\": \"skylake\"}", "threads: missing", NULL);
	refused("{\"machine\": \"skylake\", \"threads\": {}}", "threads: {}", NULL);
	refused("{\"machine\": \"skylake\", \"threads\": [{\"tid\": 5, \"comm\": \"a\", "
		"\"cpu\": 0, \"phases\": [" PHASE(L1) "]}, {\"tid\": 5, \"comm\": \"b\", "
		"\"cpu\": 1, \"phases\": [" PHASE(L1) "]}]}",
		"threads[1].tid: 5: the same tid as an earlier thread", NULL);
	pki_scenario s;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pki_scenario_parse("{\"machine\": ", 12, "x", &s, &err), -EINVAL);
	assert_int_equal(err.pos_is_offset, 1);
	assert_int_equal(pki_scenario_load("/nonexistent/s.json", &s, &err), -ENOENT);
	assert_non_null(strstr(err.where, "/nonexistent/s.json"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples_parse),
		cmocka_unit_test(test_sapphirerapids),
		cmocka_unit_test(test_defaults_and_complements),
		cmocka_unit_test(test_good_template),
		cmocka_unit_test(test_bad_shares),
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_bad_top),
		cmocka_unit_test(test_rates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
