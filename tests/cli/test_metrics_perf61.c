/* Vendor metrics in the CLI against Linux perf 6.1 (issue 22): `list
 * metric` and `list metricgroup` for the same PERF_CPUID, on the metrics
 * both define the same way (docs/metrics.md lists why others differ: perf
 * 6.1's tables are TMA 4.x, ours 5.x). Skipped when perf is absent. */
#include "helpers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool have_perf(void)
{
	char *out = NULL;
	int rc = pk_test_run("perf --version 2>/dev/null", &out, 0);
	bool ok = rc == 0 && out && strstr(out, "perf version 6.1");
	free(out);
	return ok;
}

static char *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	char *out = NULL;
	assert_int_equal(pk_test_run(cmd, &out, 0), 0);
	return out;
}

/* The "  name" line of a listing and the description line after it. */
static char *entry(const char *listing, const char *name)
{
	char key[128];
	snprintf(key, sizeof(key), "\n  %s\n", name);
	const char *p = strstr(listing, key);
	if (!p)
		return NULL;
	const char *end = strchr(p + strlen(key), '\n');
	return strndup(p, (size_t)(end - p));
}

static const char *const cpus[] = {"GenuineIntel-6-5E-3", "GenuineIntel-6-7E-5",
				   "GenuineIntel-6-8F-4"};
/* TMA nodes whose first sentence is the same in perf 6.1's files and ours */
static const char *const same[] = {"tma_retiring", "tma_frontend_bound", "tma_backend_bound",
				   "tma_bad_speculation", "tma_memory_bound", "tma_core_bound",
				   "tma_x87_use"};

/* An unknown name: perf's error; on a CPU pmukit has no table for, a hint
 * naming the CPU and the tables it has (not perf's: perf has other tables). */
static void test_unknown_metric(void **state)
{
	(void)state;
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "PERF_CPUID=GenuineIntel-6-5E-3 %s stat -M tma_nonesuch -- true 2>&1",
		 pk_test_pmukit());
	assert_int_not_equal(pk_test_run(cmd, &out, 0), 0);
	assert_non_null(strstr(out, "Cannot find metric or group `tma_nonesuch'"));
	assert_null(strstr(out, "no metric table"));
	free(out);
	snprintf(cmd, sizeof(cmd), "PERF_CPUID=GenuineIntel-6-AD-1 %s stat -M TopdownL1 -- true 2>&1",
		 pk_test_pmukit());
	assert_int_not_equal(pk_test_run(cmd, &out, 0), 0);
	assert_non_null(strstr(out, "Cannot find metric or group `TopdownL1'"));
	assert_non_null(strstr(out, "no metric table for this CPU (GenuineIntel-6-AD-1)"));
	free(out);
}

static void test_list_metric(void **state)
{
	(void)state;
	if (!have_perf())
		skip();
	for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
		char *perf = run("PERF_CPUID=%s perf list metric 2>&1", cpus[c]);
		char *pk = run("PERF_CPUID=%s %s list metric", cpus[c], pk_test_pmukit());
		assert_memory_equal(perf, pk, strlen("\nMetrics:\n\n  "));
		for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
			char *a = entry(perf, same[i]), *b = entry(pk, same[i]);
			if (!a || !b || strcmp(a, b))
				fail_msg("%s %s: perf '%s', pmukit '%s'", cpus[c], same[i], a, b);
			free(a);
			free(b);
		}
		free(perf);
		free(pk);
	}
}

static void test_list_metricgroup(void **state)
{
	(void)state;
	if (!have_perf())
		skip();
	const char *groups[] = {"\nTopdownL1\n", "\nTopdownL2\n", "\ntma_L1_group\n",
				"\ntma_backend_bound_group\n", "\nMemoryBound\n"};
	for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
		char *perf = run("PERF_CPUID=%s perf list metricgroup 2>&1", cpus[c]);
		char *pk = run("PERF_CPUID=%s %s list metricgroup", cpus[c], pk_test_pmukit());
		assert_memory_equal(perf, pk, strlen("\nMetric Groups:\n\n"));
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
			assert_non_null(strstr(perf, groups[g]));
			assert_non_null(strstr(pk, groups[g]));
		}
		free(perf);
		free(pk);
	}
	/* a CPU without tables (Granite Rapids: no metric file in Linux 6.12):
	 * the section's header alone, as perf */
	char *pk = run("PERF_CPUID=GenuineIntel-6-AD-1 %s list metricgroup", pk_test_pmukit());
	assert_string_equal(pk, "\nMetric Groups:\n\n");
	free(pk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_metric),
		cmocka_unit_test(test_list_metric),
		cmocka_unit_test(test_list_metricgroup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
