/* The machine's literals of metric formulas (pk_topdown_host_literals,
 * issue 22), read through the kernel seam: on the model they are the
 * scenario's own facts (SMT, the CPUs its threads name rounded to whole
 * cores, ref_ghz as the TSC's rate; no ref_ghz: no #tsc_hz, never guessed);
 * on this machine they agree with sysfs' present CPUs and the brand
 * string's "@ N.NNGHz" (when the CPU gives no CPUID leaf 0x15). Then the
 * formulas over them on the model: Intel's tma_info_system_core_frequency
 * (THREAD / REF_TSC * tsc / 1e9 / time) is the scenario's core clock in a
 * whole run and in each -I interval, blank without ref_ghz, and a latency
 * node that scales by it (tma_contested_accesses) reproduces the share the
 * scenario gives. The formulas alone: tests/metrics (test_system_literals). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <pmukit/metrics.h>
#include <pmukit/model.h>
#include <pmukit/pmu.h>
#include <pmukit/topdown.h>

#include "helpers.h"

/* A Skylake scenario, SMT on, threads on CPUs 0 and 2 at 2.7 GHz for 0.6 s,
 * 5% L3 bound of which 2% contested accesses; ref_ghz given when ref > 0.
 * Returns its path (to free). */
static char *scenario(const char *dir, double ref)
{
	char *path = malloc(strlen(dir) + 32);
	sprintf(path, "%s/lit-%g.json", dir, ref);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	char refs[64] = "";
	if (ref > 0)
		snprintf(refs, sizeof(refs), "\"ref_ghz\": %g, ", ref);
	const char *phase = "\"phases\": [{\"ms\": 600, \"ghz\": 2.7, \"tma\": {\"retiring\": 0.4, "
			    "\"bad_speculation\": 0.1, \"frontend_bound\": 0.2, "
			    "\"backend_bound\": 0.3, \"memory_bound\": 0.15, \"l3_bound\": 0.05, "
			    "\"contested_accesses\": 0.02}}]";
	fprintf(f, "{\"machine\": \"skylake\", \"smt\": true, %s\"threads\": ["
		   "{\"tid\": 10, \"comm\": \"a\", \"cpu\": 0, %s}, "
		   "{\"tid\": 11, \"comm\": \"b\", \"cpu\": 2, %s}]}\n", refs, phase, phase);
	fclose(f);
	return path;
}

static bool literal(const pk_metric_literal *v, size_t n, const char *name, double *out)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name)) {
			*out = v[i].value;
			return true;
		}
	return false;
}

static void test_model_literals(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	static const struct {
		const char *name;
		double value;
	} want[] = {{"#smt_on", 1}, {"#threads", 2}, {"#num_cpus", 4}, {"#num_cores", 2},
		    {"#num_dies", 1}, {"#num_packages", 1}, {"#sockets", 1}, {"#tsc_hz", 2.1e9},
		    {"#system_tsc_freq", 2.1e9}, {"#num_cpus_online", 4}, {"#has_pmem", 0}};
	for (int with_ref = 1; with_ref >= 0; with_ref--) {
		char *path = scenario(dir, with_ref ? 2.1 : 0);
		pk_model *m = pk_test_model(path);
		pk_metric_literal lit[PK_TOPDOWN_HOST_LITERALS];
		size_t n = pk_topdown_host_literals(pk_model_kernel(m), lit, PK_TOPDOWN_HOST_LITERALS);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			double v;
			if (strstr(want[i].name, "tsc") && !with_ref) {
				assert_false(literal(lit, n, want[i].name, &v));
				continue;
			}
			if (!literal(lit, n, want[i].name, &v))
				fail_msg("%s missing", want[i].name);
			if (v != want[i].value)
				fail_msg("%s = %g, want %g", want[i].name, v, want[i].value);
		}
		/* the cap is kept */
		assert_int_equal(pk_topdown_host_literals(pk_model_kernel(m), lit, 3), 3);
		pk_model_free(m);
		free(path);
	}
	pk_test_rmtree(dir);
}

/* The highest CPU of a sysfs CPU list ("0-3,8"), -1 if none. */
static int list_max(const char *text)
{
	int max = -1;
	for (const char *p = text; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		max = (int)v > max ? (int)v : max;
		p = *end ? end + 1 : end;
	}
	return max;
}

static void test_host_literals(void **state)
{
	(void)state;
	pk_metric_literal lit[PK_TOPDOWN_HOST_LITERALS];
	size_t n = pk_topdown_host_literals(NULL, lit, PK_TOPDOWN_HOST_LITERALS);
	double v = 0;
	char *present = pk_test_read_text("/sys/devices/system/cpu/present");
	if (present) {
		assert_true(literal(lit, n, "#num_cpus", &v));
		assert_int_equal((int)v, list_max(present) + 1);
		free(present);
	}
	char *cpuinfo = pk_test_read_text("/proc/cpuinfo");
	const char *name = cpuinfo ? strstr(cpuinfo, "model name") : NULL;
	const char *at = name ? strchr(name, '@') : NULL, *eol = name ? strchr(name, '\n') : NULL;
	if (at && eol && at < eol && strstr(at, "GHz") && strstr(at, "GHz") < eol &&
	    literal(lit, n, "#tsc_hz", &v)) {
		/* leaf 0x15 may state the exact rate; the brand string rounds */
		double ghz = strtod(at + 1, NULL);
		assert_true(fabs(v / 1e9 - ghz) < 0.05 * ghz);
		assert_true(literal(lit, n, "#system_tsc_freq", &v));
	} else {
		printf("note: this CPU's name states no rate: #tsc_hz not checked\n");
	}
	free(cpuinfo);
	/* #num_cpus_online: the CPUs of sysfs' online list; #has_pmem: its
	 * ACPI NFIT table is there (perf's test) */
	char *online = pk_test_read_text("/sys/devices/system/cpu/online");
	if (online) {
		pk_error err;
		pk_cpumap *m = pk_cpumap_parse(online, &err);
		assert_non_null(m);
		assert_true(literal(lit, n, "#num_cpus_online", &v));
		assert_int_equal((int)v, pk_cpumap_nr(m));
		pk_cpumap_put(m);
		free(online);
	}
	assert_true(literal(lit, n, "#has_pmem", &v));
	assert_int_equal((int)v, access("/sys/firmware/acpi/tables/NFIT", F_OK) == 0);
}

/* The files' metrics over the model's literals, by hand: Skylake-X's
 * tma_info_system_cpu_utilization = CPU_CLK_UNHALTED.REF_TSC 3000 / TSC
 * 4000 / #num_cpus_online 4 (the scenario's CPUs 0-3) = 0.1875 (TSC is
 * given as a count: stat -M refuses it, an MSR event). */
static void test_model_cpu_utilization(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char *path = scenario(dir, 2.1);
	pk_model *m = pk_test_model(path);
	pk_metric_literal lit[PK_TOPDOWN_HOST_LITERALS];
	size_t nl = pk_topdown_host_literals(pk_model_kernel(m), lit, PK_TOPDOWN_HOST_LITERALS);
	pk_error err;
	pk_cpuid id;
	assert_int_equal(pk_cpuid_parse("GenuineIntel-6-55-4", &id, &err), 0);
	size_t nr;
	const pk_metric_def *defs = pk_metric_defs_cpu(&id, NULL, &nr, NULL);
	pk_metric_table *t = pk_metric_table_new(defs, nr, &err);
	assert_non_null(t);
	pk_evlist *l = pk_evlist_new();
	struct perf_event_attr a = {.type = PERF_TYPE_RAW, .config = 0x0300};
	pk_metric_count v[2] = {
		{.evsel = pk_evlist_add(l, &a, "CPU_CLK_UNHALTED.REF_TSC", NULL), .key = -1,
		 .value = 3000, .counted = true},
		{.evsel = pk_evlist_add(l, &a, "TSC", NULL), .key = -1, .value = 4000, .counted = true}};
	pk_metric_counts in = {.v = v, .nr = 2, .lit = lit, .nr_lit = nl};
	long r = pk_metric_table_find(t, "tma_info_system_cpu_utilization");
	assert_true(r >= 0);
	pk_metric_value mv;
	assert_int_equal(pk_metric_eval(t, (size_t)r, &in, -1, &mv), 1);
	assert_true(fabs(mv.value - 0.1875) < 1e-12);
	pk_evlist_put(l);
	pk_metric_table_free(t);
	pk_model_free(m);
	free(path);
	pk_test_rmtree(dir);
}

/* The value of metric name on the lines of out: the number after '#' on each
 * line naming it, into v (at most max); how many. */
static int values(const char *out, const char *name, double *v, int max)
{
	int n = 0;
	for (const char *l = strstr(out, name); l && n < max; l = strstr(l + 1, name)) {
		const char *hash = l;
		while (hash > out && hash[-1] != '\n' && *hash != '#')
			hash--;
		if (*hash == '#')
			v[n++] = strtod(hash + 1, NULL);
	}
	return n;
}

static void test_model_core_frequency(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char *path = scenario(dir, 2.1), *out;
	assert_int_equal(pk_test_pmukit_run(&out, "stat --model %s -M tma_info_system_core_frequency,"
						  "tma_info_system_cpus_utilized,"
						  "tma_info_system_cpu_utilization 2>&1", path), 0);
	double v[16];
	assert_int_equal(values(out, "tma_info_system_core_frequency", v, 16), 1);
	assert_true(fabs(v[0] - 2.7) < 0.005);
	/* two threads busy the whole time, of four CPUs */
	assert_int_equal(values(out, "tma_info_system_cpus_utilized", v, 16), 1);
	assert_true(fabs(v[0] - 2.0) < 0.005);
	assert_int_equal(values(out, "tma_info_system_cpu_utilization", v, 16), 1);
	assert_true(fabs(v[0] - 0.5) < 0.005);
	free(out);
	assert_int_equal(pk_test_pmukit_run(&out, "stat --model %s -I 200 -M "
						  "tma_info_system_core_frequency 2>&1", path), 0);
	int n = values(out, "tma_info_system_core_frequency", v, 16);
	assert_true(n >= 2);
	for (int i = 0; i < n; i++)
		if (fabs(v[i] - 2.7) >= 0.005)
			fail_msg("interval %d: %g GHz, the scenario's is 2.7\n%s", i, v[i], out);
	free(out);
	free(path);
	/* no ref_ghz: the TSC's rate is unknown, the metric is not computed */
	path = scenario(dir, 0);
	assert_int_equal(pk_test_pmukit_run(&out, "stat --model %s -M "
						  "tma_info_system_core_frequency 2>&1", path), 0);
	assert_int_equal(values(out, "tma_info_system_core_frequency", v, 16), 0);
	free(out);
	free(path);
	pk_test_rmtree(dir);
}

/* A node that scales by the core clock (#tsc over the time) reproduces the
 * scenario's share: contested accesses 2% (Level 4, Skylake). */
static void test_model_latency_node(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char *path = scenario(dir, 2.1), *out;
	assert_int_equal(pk_test_pmukit_run(&out, "stat --model %s --topdown --td-level 4 -v -x, "
						  "2>&1", path), 0);
	const char *l = strstr(out, "tma_contested_accesses");
	assert_non_null(l);
	while (l > out && l[-1] != '\n')
		l--;
	double v = strtod(l, NULL);
	if (fabs(v - 2.0) > 0.1)
		fail_msg("tma_contested_accesses %g%%, the scenario's is 2%%\n%s", v, out);
	free(out);
	free(path);
	pk_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_literals),
		cmocka_unit_test(test_host_literals),
		cmocka_unit_test(test_model_cpu_utilization),
		cmocka_unit_test(test_model_core_frequency),
		cmocka_unit_test(test_model_latency_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
