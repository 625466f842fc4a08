/* Vendor metrics in the CLI against Linux perf 6.1 (issue 22): `list
 * metric` and `list metricgroup` for the same PERF_CPUID, on the metrics
 * both define the same way (docs/metrics.md lists why others differ: perf
 * 6.1's tables are TMA 4.x, ours 5.x). Skipped when perf is absent. */
#include "helpers.h"

#include <pmukit/cpuid.h>
#include <pmukit/metrics.h>

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

/* Every "  name\n       [desc]" entry of name in a listing, in order, one
 * after another (a hybrid part lists a name once per core PMU's table). */
static char *entries(const char *listing, const char *name)
{
	char key[128], *all = calloc(1, strlen(listing) + 1);
	snprintf(key, sizeof(key), "\n  %s\n", name);
	for (const char *p = strstr(listing, key); p; p = strstr(p + 1, key)) {
		const char *end = strchr(p + strlen(key), '\n');
		strncat(all, p, (size_t)(end - p));
	}
	return all;
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
	snprintf(cmd, sizeof(cmd), "PERF_CPUID=GenuineIntel-6-2A-7 %s stat -M TopdownL1 -- true 2>&1",
		 pk_test_pmukit());
	assert_int_not_equal(pk_test_run(cmd, &out, 0), 0);
	assert_non_null(strstr(out, "Cannot find metric or group `TopdownL1'"));
	assert_non_null(strstr(out, "no metric table for this CPU (GenuineIntel-6-2A-7)"));
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

/* Alder Lake (hybrid): both core types' tables, each description followed
 * by perf 6.1's ". Unit: cpu_core " or ". Unit: cpu_atom ", a name both
 * have listed twice in perf's order (by the description as printed). The
 * entries compared are those whose text is the same in perf 6.1's files and
 * ours (both tables' tma_bad_speculation and tma_machine_clears; the
 * C-state metrics, which count no core event: no PMU); for
 * tma_retiring and tma_backend_bound (perf 6.1's E-core descriptions
 * differ: a typo fixed since) both list the two PMUs in the same order. */
static void test_list_metric_hybrid(void **state)
{
	(void)state;
	if (!have_perf())
		skip();
	char *perf = run("PERF_CPUID=GenuineIntel-6-97-2 perf list metric 2>&1");
	char *pk = run("PERF_CPUID=GenuineIntel-6-97-2 %s list metric", pk_test_pmukit());
	assert_memory_equal(perf, pk, strlen("\nMetrics:\n\n  "));
	const char *same_text[] = {"tma_bad_speculation", "tma_machine_clears",
				   "C10_Pkg_Residency", "C6_Core_Residency"};
	for (size_t i = 0; i < sizeof(same_text) / sizeof(same_text[0]); i++) {
		char *a = entries(perf, same_text[i]), *b = entries(pk, same_text[i]);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	const char *units[] = {"tma_retiring", "tma_backend_bound", "tma_bad_speculation"};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		char *e[2] = {entries(perf, units[i]), entries(pk, units[i])};
		for (int t = 0; t < 2; t++) {
			const char *atom = strstr(e[t], ". Unit: cpu_atom ]");
			const char *core = strstr(e[t], ". Unit: cpu_core ]");
			if (!atom || !core || atom > core) /* perf 6.1: the E-core's first */
				fail_msg("%s: %s lists '%s'", units[i], t ? "pmukit" : "perf", e[t]);
		}
		free(e[0]);
		free(e[1]);
	}
	free(perf);
	free(pk);
	/* the groups: the E-core table's too (tma_resource_bound_group is
	 * Gracemont's only) */
	perf = run("PERF_CPUID=GenuineIntel-6-97-2 perf list metricgroup 2>&1");
	pk = run("PERF_CPUID=GenuineIntel-6-97-2 %s list metricgroup", pk_test_pmukit());
	assert_non_null(strstr(perf, "\ntma_resource_bound_group\n"));
	assert_non_null(strstr(pk, "\ntma_resource_bound_group\n"));
	assert_non_null(strstr(pk, "\nTopdownL1\n"));
	free(perf);
	free(pk);
}

/* The n-th line (0: the name's) of each entry of name, '|' between entries. */
static char *entry_lines(const char *listing, const char *name, int n)
{
	char key[128], *all = calloc(1, strlen(listing) + 2);
	snprintf(key, sizeof(key), "\n  %s\n", name);
	for (const char *p = strstr(listing, key); p; p = strstr(p + 1, key)) {
		const char *l = p + 1;
		for (int i = 0; i < n && l; i++)
			l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
		if (l) {
			strncat(all, l, strcspn(l, "\n"));
			strcat(all, "|");
		}
	}
	return all;
}

/* list --details metric: perf 6.1's layout (the name, "       [desc]",
 * "       [formula]"), the formula pmukit's table as generated (perf 6.1
 * prints its files' own, with references to other metrics: not compared),
 * on Skylake and on the hybrid Alder Lake (each core type's formula). */
static void test_list_details(void **state)
{
	(void)state;
	if (!have_perf())
		skip();
	const char *cpuid[] = {"GenuineIntel-6-5E-3", "GenuineIntel-6-97-2"};
	for (size_t c = 0; c < 2; c++) {
		char *perf = run("PERF_CPUID=%s perf list --details metric 2>&1", cpuid[c]);
		char *pk = run("PERF_CPUID=%s %s list --details metric", cpuid[c], pk_test_pmukit());
		pk_cpuid id;
		pk_error err = {0};
		assert_int_equal(pk_cpuid_parse(cpuid[c], &id, &err), 0);
		char want[4096] = "";
		const char *pmus[] = {c ? "cpu_atom" : NULL, c ? "cpu_core" : NULL};
		for (size_t t = 0; t < 1 + c; t++) { /* Alder Lake: the E-core's first */
			size_t nr;
			const pk_metric_def *rows = pk_metric_defs_cpu(&id, pmus[t], &nr, NULL);
			for (size_t i = 0; i < nr; i++)
				if (!strcmp(rows[i].name, "tma_retiring"))
					snprintf(want + strlen(want), sizeof(want) - strlen(want),
						 "       [%s]|", rows[i].formula);
		}
		char *a = entry_lines(pk, "tma_retiring", 2), *b = entry_lines(perf, "tma_retiring", 2);
		assert_string_equal(a, want);
		for (int n = 1; n <= 3; n++) { /* the same shape: [desc], [formula], next name */
			const char *prefix = n < 3 ? "       [" : "  ";
			char *x[2] = {entry_lines(perf, "tma_retiring", n),
				      entry_lines(pk, "tma_retiring", n)};
			for (int t = 0; t < 2; t++) {
				assert_int_equal(strlen(x[t]) > 0, 1);
				for (const char *l = x[t]; *l; l = strchr(l, '|') + 1)
					if (strncmp(l, prefix, strlen(prefix)) || l[strlen(prefix)] == ' ')
						fail_msg("%s line %d: '%s'", t ? "pmukit" : "perf", n, x[t]);
			}
			free(x[0]);
			free(x[1]);
		}
		free(a);
		free(b);
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
	/* a CPU without tables (Sandy Bridge: its files are not copied): the
	 * section's header alone, as perf */
	char *pk = run("PERF_CPUID=GenuineIntel-6-2A-7 %s list metricgroup", pk_test_pmukit());
	assert_string_equal(pk, "\nMetric Groups:\n\n");
	free(pk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_metric),
		cmocka_unit_test(test_list_metric),
		cmocka_unit_test(test_list_metricgroup),
		cmocka_unit_test(test_list_metric_hybrid),
		cmocka_unit_test(test_list_details),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
