/* The PMU model's CPU scheduler (issue 26): threads that share a CPU take
 * turns (round robin, a quantum of MK_QUANTUM_MS or the scenario's
 * quantum_ms), so a CPU never runs more than one thread's cycles at a
 * time; a thread's events count and gain time only while it runs; its
 * PERF_METRICS are saved and restored across its context switches (an
 * RDPMC reader sees its registers continue), and each thread's TopDown
 * shares are its own. Truths come from the scenario written here: two
 * threads on CPU 0 of Sapphire Rapids (width 6), 100 ms each at 3 GHz. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"
#include "counting/selfread.h"
#include "model/mkernel.h"

#define MS 1000000ull
#define A 11
#define B 12

static const double share[2][4] = {{0.50, 0.10, 0.20, 0.20}, {0.20, 0.10, 0.30, 0.40}};
static char *tmp;

/* Two threads on CPU 0; quantum_ms when > 0. */
static pk_model *two_on_cpu0(double quantum_ms)
{
	char text[2048], path[4200], q[64] = "";
	if (quantum_ms > 0)
		snprintf(q, sizeof(q), "\"quantum_ms\": %g, ", quantum_ms);
	snprintf(text, sizeof(text),
		 "{\"machine\": \"sapphirerapids\", %s\"threads\": ["
		 "{\"tid\": %d, \"comm\": \"a\", \"cpu\": 0, \"phases\": [{\"ms\": 100, \"ghz\": 3, "
		 "\"tma\": {\"retiring\": %g, \"bad_speculation\": %g, \"frontend_bound\": %g, "
		 "\"backend_bound\": %g}}]}, "
		 "{\"tid\": %d, \"comm\": \"b\", \"cpu\": 0, \"phases\": [{\"ms\": 100, \"ghz\": 3, "
		 "\"tma\": {\"retiring\": %g, \"bad_speculation\": %g, \"frontend_bound\": %g, "
		 "\"backend_bound\": %g}}]}]}",
		 q, A, share[0][0], share[0][1], share[0][2], share[0][3], B, share[1][0],
		 share[1][1], share[1][2], share[1][3]);
	pk_test_put_file(tmp, "two.json", text);
	snprintf(path, sizeof(path), "%s/two.json", tmp);
	return pk_test_model(path);
}

static const uint64_t RF = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
static const uint64_t GRF = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;

static int open_on(pk_model *m, uint32_t type, uint64_t config, pid_t pid, int cpu, int group,
		   uint64_t rf)
{
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = {.type = type, .size = sizeof(a), .config = config,
				    .read_format = rf};
	int fd = k->ops->open(k, &a, pid, cpu, group, 0);
	assert_true(fd >= 0);
	return fd;
}

/* value, enabled, running of a non-group event */
static void read3(pk_model *m, int fd, uint64_t v[3])
{
	const pk_kernel *k = pk_model_kernel(m);
	assert_int_equal(k->ops->read(k, fd, v, 3 * sizeof(*v)), 24);
}

/* A CPU's cycles never run ahead of its clock: read every 3 ms (not a
 * multiple of the quantum), each interval's cycles are at most 3 GHz x its
 * time; the whole run is 600 M cycles in 200 ms. */
static void test_cpu_not_overcommitted(void **state)
{
	(void)state;
	pk_model *m = two_on_cpu0(0);
	int cyc = open_on(m, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, -1, 0, -1, RF);
	uint64_t v[3], last_v = 0, last_t = 0;
	while (pk_model_now(m) < pk_model_end(m)) {
		uint64_t left = pk_model_end(m) - pk_model_now(m);
		pk_model_advance(m, left < 3 * MS ? left : 3 * MS);
		read3(m, cyc, v);
		assert_true(v[0] - last_v <= 3 * (v[1] - last_t) + 1);
		last_v = v[0], last_t = v[1];
	}
	assert_int_equal(pk_model_end(m), 200 * MS);
	assert_int_equal(v[0], 600000000ull);
	assert_int_equal(v[1], 200 * MS);
	pk_model_free(m);
}

/* Each thread's counts and times are its own run's, and they add up to the
 * CPU's; halfway, the two have split the CPU by quanta of 4 ms (A first). */
static void test_per_thread_add_up(void **state)
{
	(void)state;
	pk_model *m = two_on_cpu0(0);
	int cyc[2], clk[2];
	const pid_t tid[2] = {A, B};
	for (int i = 0; i < 2; i++) {
		cyc[i] = open_on(m, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, tid[i], -1, -1, RF);
		clk[i] = open_on(m, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, tid[i], -1, -1, RF);
	}
	int cpu = open_on(m, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, -1, 0, -1, RF);
	uint64_t v[3], w[3];
	pk_model_advance(m, 50 * MS);
	read3(m, clk[0], v);
	read3(m, clk[1], w);
	assert_int_equal(v[0], 26 * MS); /* 0-4, 8-12, ..., 48-50 */
	assert_int_equal(w[0], 24 * MS);
	assert_int_equal(v[1], v[0]);    /* a task's time runs while it runs */
	pk_model_advance(m, pk_model_end(m) - pk_model_now(m));
	uint64_t sum = 0;
	for (int i = 0; i < 2; i++) {
		read3(m, cyc[i], v);
		assert_int_equal(v[0], 300000000ull); /* 100 ms x 3 GHz: its phase */
		assert_int_equal(v[1], 100 * MS);
		assert_int_equal(v[2], 100 * MS);
		read3(m, clk[i], w);
		assert_int_equal(w[0], 100 * MS);
		sum += v[0];
	}
	read3(m, cpu, v);
	assert_int_equal(v[0], sum);
	pk_model_free(m);
}

/* The scenario's quantum: 10 ms turns. */
static void test_quantum(void **state)
{
	(void)state;
	pk_model *m = two_on_cpu0(10);
	int a = open_on(m, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, A, -1, -1, RF);
	int b = open_on(m, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, B, -1, -1, RF);
	uint64_t v[3];
	pk_model_advance(m, 15 * MS);
	read3(m, a, v);
	assert_int_equal(v[0], 10 * MS);
	read3(m, b, v);
	assert_int_equal(v[0], 5 * MS);
	pk_model_free(m);
	pk_error err;
	pki_scenario s;
	const char *bad = "{\"machine\": \"sapphirerapids\", \"quantum_ms\": 0, \"threads\": []}";
	assert_int_equal(pki_scenario_parse(bad, strlen(bad), NULL, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "quantum_ms: 0: expected a number in [0.001, 1000]"));
}

/* {slots,topdown-*} per thread: through some 25 context switches each,
 * each thread's metric counts over its slots are its own shares (within
 * one 8-bit unit plus a count per switch); the CPU's group sees both. */
static void test_topdown_own_shares(void **state)
{
	(void)state;
	pk_model *m = two_on_cpu0(0);
	const pk_kernel *k = pk_model_kernel(m);
	const pid_t tid[3] = {A, B, -1};
	int lead[3];
	for (int i = 0; i < 3; i++) {
		lead[i] = open_on(m, PERF_TYPE_RAW, 0x0400, tid[i], i < 2 ? -1 : 0, -1, GRF);
		for (int f = 0; f < 4; f++)
			open_on(m, PERF_TYPE_RAW, 0x8000 + 0x100u * (unsigned)f, tid[i],
				i < 2 ? -1 : 0, lead[i], GRF);
	}
	pk_model_advance(m, pk_model_end(m));
	for (int i = 0; i < 3; i++) {
		uint64_t g[16];
		assert_int_equal(k->ops->read(k, lead[i], g, sizeof(g)), 8 * 8);
		double slots = (double)g[3];
		assert_true(fabs(slots - 6.0 * 3e6 * (i < 2 ? 100 : 200)) <= 4);
		for (int f = 0; f < 4; f++) {
			double want = i < 2 ? share[i][f] : (share[0][f] + share[1][f]) / 2;
			double got = (double)g[4 + f] / slots;
			if (fabs(got - want) > 1.0 / 255 + 30 / slots)
				fail_msg("group %d field %d: %.5f, want %.5f", i, f, got, want);
		}
	}
	pk_model_free(m);
}

static uint64_t rdpmc_of(pk_model *m, pid_t tid, uint32_t ecx)
{
	uint64_t v = 0;
	pk_error err;
	pk_error_clear(&err);
	if (pk_model_rdpmc(m, tid, ecx, &v, &err) < 0)
		fail_msg("rdpmc 0x%x: %s", ecx, err.msg);
	return v;
}

static uint64_t emu_rdpmc(void *arg, uint32_t ecx)
{
	return rdpmc_of(arg, A, ecx);
}

static uint64_t emu_rdtsc(void *arg)
{
	return pk_model_now(arg);
}

/* Thread A's slots through its user page: FIXED_CTR3 and PERF_METRICS
 * are restored when A comes back (they continue, not restart), the page is
 * off the counter while A waits, and a self-read every 1 ms never goes
 * back and always equals read(2). */
static void test_rdpmc_continuous(void **state)
{
	(void)state;
	pk_model *m = two_on_cpu0(0);
	const pk_kernel *k = pk_model_kernel(m);
	int l = open_on(m, PERF_TYPE_RAW, 0x0400, A, -1, -1, RF);
	open_on(m, PERF_TYPE_RAW, 0x8000, A, -1, l, RF);
	void *p = NULL;
	assert_int_equal(k->ops->mmap(k, l, 4096, PROT_READ | PROT_WRITE, 0, &p), 0);
	const struct perf_event_mmap_page *pg = p;
	const uint32_t fixed3 = 3u | 1u << 30, metrics = 1u << 29;
	pk_model_advance(m, 3 * MS); /* A runs 0-4 */
	assert_int_equal(pg->index, fixed3 + 1);
	assert_int_equal(rdpmc_of(m, A, fixed3), 6 * 3 * 3 * MS);
	uint64_t pm = rdpmc_of(m, A, metrics);
	pk_model_advance(m, 3 * MS); /* B runs 4-8: A's page is off the counter */
	assert_int_equal(pg->index, 0);
	pk_model_advance(m, 3 * MS); /* A back at 8: its registers restored */
	assert_int_equal(pg->index, fixed3 + 1);
	assert_int_equal(rdpmc_of(m, A, fixed3), 6 * 3 * 5 * MS); /* 0-4 and 8-9 */
	assert_int_equal(rdpmc_of(m, A, metrics), pm);            /* one phase: same bytes */
	pki_selfread_ops ops = {emu_rdpmc, emu_rdtsc, m};
	uint64_t last = 0, v[3];
	while (pk_model_now(m) < pk_model_end(m)) {
		pk_counts c;
		int r = pki_selfread(pg, &ops, &c, NULL);
		assert_true(r == 0 || r == PKI_SELFREAD_FALLBACK);
		read3(m, l, v);
		if (r == 0)
			assert_int_equal(c.val, v[0]);
		assert_true(v[0] >= last);
		last = v[0];
		pk_model_advance(m, 1 * MS);
	}
	read3(m, l, v);
	assert_int_equal(v[0], 6 * 3 * 100 * MS);
	pk_model_free(m);
}

int main(void)
{
	tmp = pk_test_tmpdir();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_not_overcommitted),
		cmocka_unit_test(test_per_thread_add_up),
		cmocka_unit_test(test_quantum),
		cmocka_unit_test(test_topdown_own_shares),
		cmocka_unit_test(test_rdpmc_continuous),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	char path[4200];
	snprintf(path, sizeof(path), "%s/two.json", tmp);
	unlink(path);
	rmdir(tmp);
	free(tmp);
	return r;
}
