/* script -F metric against perf 6.1 on hand-made files: each scenario is a
 * group sampled through its leader ({a,b,...}:S, PERF_SAMPLE_READ with
 * PERF_FORMAT_GROUP) whose samples carry chosen running totals per member
 * (hardware and software events, zero deltas, two CPUs, two threads, an
 * event outside the group).
 * pmukit script with `metric` among the fields must print what perf 6.1
 * prints: the shadow metric lines after the group's last member, from the
 * per-sample deltas (skipped without perf). The delta arithmetic itself is
 * checked without perf on one scenario whose lines are computed here. */
#include "helpers.h"
#include "pd_test.h"
#include "core/util.h"
#include "perfdata/sample_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EV 4
#define MAX_SAMPLES 6

typedef struct ev {
	const char *name;
	uint32_t type;
	uint64_t config;
	bool exclude_kernel;
} ev;

typedef struct scenario {
	const char *file;
	ev ev[MAX_EV];
	size_t nr_ev;
	size_t nr_samples;
	/* each member's running total at each sample */
	uint64_t val[MAX_SAMPLES][MAX_EV];
	uint32_t cpu[MAX_SAMPLES];
	uint32_t tid[MAX_SAMPLES];
	bool no_group_desc;          /* no GROUP_DESC: every event leads itself */
	/* an event outside the group (type, config; 0: none), sampled after
	 * each group sample with these running totals */
	ev solo;
	uint64_t solo_val[MAX_SAMPLES];
} scenario;

#define HW(n, c) {.name = n, .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_##c}
#define SW(n, c) {.name = n, .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_##c}
/* a HW_CACHE event: cache id, op read (0), result access (0) or miss (1) */
#define HC(n, id, miss)                                                        \
	{.name = n, .type = PERF_TYPE_HW_CACHE,                                  \
	 .config = PERF_COUNT_HW_CACHE_##id | (uint64_t)(miss) << 16}

static const scenario scenarios[] = {
	{.file = "ipc", .ev = {HW("cycles", CPU_CYCLES), HW("instructions", INSTRUCTIONS)},
	 .nr_ev = 2, .nr_samples = 4,
	 .val = {{1000, 1500}, {3000, 2500}, {3000, 2600}, {7000, 2600}}},
	{.file = "clock_first",
	 .ev = {SW("task-clock", TASK_CLOCK), HW("cycles", CPU_CYCLES),
		HW("instructions", INSTRUCTIONS)},
	 .nr_ev = 3, .nr_samples = 4,
	 .val = {{2000, 5000, 9000}, {4000, 12000, 9100}, {4000, 12000, 9100},
		 {9000, 12001, 30000}},
	 .cpu = {0, 1, 0, 1}},
	{.file = "clock_last",
	 .ev = {HW("cycles", CPU_CYCLES), HW("instructions", INSTRUCTIONS),
		SW("task-clock", TASK_CLOCK)},
	 .nr_ev = 3, .nr_samples = 3,
	 .val = {{5000, 9000, 2000}, {12000, 9100, 4000}, {20000, 30000, 4500}}},
	{.file = "rates",
	 .ev = {SW("cpu-clock", CPU_CLOCK), SW("context-switches", CONTEXT_SWITCHES),
		SW("page-faults", PAGE_FAULTS), SW("cpu-migrations", CPU_MIGRATIONS)},
	 .nr_ev = 4, .nr_samples = 4,
	 .val = {{1000000, 3, 1500, 0}, {2000000, 3, 9000000, 1}, {2000001, 5000, 9000000, 1},
		 {4000000000ULL, 5001, 9000001, 7}},
	 .tid = {42, 43, 42, 43}},
	{.file = "branches",
	 .ev = {HW("branches", BRANCH_INSTRUCTIONS), HW("branch-misses", BRANCH_MISSES),
		HW("cache-references", CACHE_REFERENCES), HW("cache-misses", CACHE_MISSES)},
	 .nr_ev = 4, .nr_samples = 3,
	 .val = {{1000, 33, 500, 7}, {1000, 34, 900, 7}, {4000, 334, 901, 300}}},
	{.file = "ctx",
	 .ev = {HW("cycles", CPU_CYCLES),
		{.name = "instructions:u", .type = PERF_TYPE_HARDWARE,
		 .config = PERF_COUNT_HW_INSTRUCTIONS, .exclude_kernel = true}},
	 .nr_ev = 2, .nr_samples = 2, .val = {{1000, 1500}, {3000, 2500}}},
	{.file = "no_cycles",
	 .ev = {SW("cpu-clock", CPU_CLOCK), HW("instructions", INSTRUCTIONS),
		HW("branch-misses", BRANCH_MISSES), HW("cache-misses", CACHE_MISSES)},
	 .nr_ev = 4, .nr_samples = 2,
	 .val = {{3000000, 1500, 10, 20}, {9000000, 2500, 30, 40}}},
	{.file = "no_desc", .ev = {HW("cycles", CPU_CYCLES), HW("instructions", INSTRUCTIONS)},
	 .nr_ev = 2, .nr_samples = 3, .val = {{1000, 1500}, {3000, 2500}, {7000, 2600}},
	 .no_group_desc = true},
	{.file = "solo", .ev = {HW("cycles", CPU_CYCLES), HW("instructions", INSTRUCTIONS)},
	 .nr_ev = 2, .nr_samples = 4,
	 .val = {{1000, 700}, {3000, 2100}, {6000, 4200}, {10000, 7000}},
	 .solo = HW("branches", BRANCH_INSTRUCTIONS), .solo_val = {333, 666, 999, 1332}},
	/* the second line under the IPC: the larger stall per instruction */
	{.file = "stalled",
	 .ev = {HW("cycles", CPU_CYCLES), HW("instructions", INSTRUCTIONS),
		HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
		HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND)},
	 .nr_ev = 4, .nr_samples = 3,
	 .val = {{1000, 2000, 300, 400}, {3000, 5000, 900, 500}, {4000, 9000, 1000, 1500}}},
	{.file = "stalled_last",
	 .ev = {HC("L1-icache-loads", L1I, 0), HC("L1-icache-load-misses", L1I, 1),
		HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
		HW("instructions", INSTRUCTIONS)},
	 .nr_ev = 4, .nr_samples = 3,
	 .val = {{1000, 23, 300, 4000}, {1160, 46, 900, 5000}, {5000, 50, 901, 5003}}},
	{.file = "caches",
	 .ev = {HC("L1-dcache-loads", L1D, 0), HC("L1-dcache-load-misses", L1D, 1),
		HC("LLC-loads", LL, 0), HC("LLC-load-misses", LL, 1)},
	 .nr_ev = 4, .nr_samples = 3,
	 .val = {{160, 23, 500, 7}, {320, 46, 900, 8}, {4000, 334, 901, 300}}},
	{.file = "tlbs",
	 .ev = {HC("dTLB-loads", DTLB, 0), HC("dTLB-load-misses", DTLB, 1),
		HC("iTLB-loads", ITLB, 0), HC("iTLB-load-misses", ITLB, 1)},
	 .nr_ev = 4, .nr_samples = 2, .val = {{1000, 33, 500, 7}, {1160, 56, 900, 70}}},
	/* the misses and stalls without their totals */
	{.file = "no_totals",
	 .ev = {SW("cpu-clock", CPU_CLOCK), HC("L1-icache-load-misses", L1I, 1),
		HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
		HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND)},
	 .nr_ev = 4, .nr_samples = 2,
	 .val = {{3000000, 15, 10, 20}, {9000000, 25, 30, 40}}},
};

/* Sample i of the group (solo false: read values of every member, ids
 * 100...) or of the event outside it (id 100 + nr_ev, half a second later). */
static void write_sample(pk_pd_writer *w, const struct perf_event_attr *a, const scenario *s,
			 size_t i, bool solo)
{
	pk_counts c[MAX_EV];
	size_t nc = solo ? 1 : s->nr_ev;
	for (size_t e = 0; e < nc; e++)
		c[e] = solo ? (pk_counts){.val = s->solo_val[i], .id = 100 + s->nr_ev}
			    : (pk_counts){.val = s->val[i][e], .id = 100 + e};
	uint64_t rv[2 + 2 * MAX_EV + 4];
	int nr = pki_pd_read_values(a->read_format, c, nc, rv, PK_ARRAY_SIZE(rv));
	assert_true(nr > 0);
	uint32_t tid = s->tid[i] ? s->tid[i] : 42;
	pk_pd_sample smp = {.misc = PERF_RECORD_MISC_USER, .ip = 0x401000 + i, .pid = tid,
			    .tid = tid, .time = 1000000000ULL * (i + 1) + (solo ? 500000000 : 0),
			    .id = c[0].id, .cpu = s->cpu[i], .period = 1000, .read = rv,
			    .read_nr = (size_t)nr};
	uint8_t buf[512];
	pk_error err;
	ssize_t n = pki_pd_sample_write(a, &smp, buf, sizeof(buf), &err);
	assert_true(n > 0);
	assert_int_equal(pk_pd_writer_write(w, buf, (size_t)n, &err), 0);
}

/* The scenario's file: its events as one group led by the first, then
 * the event outside it when there is one. */
static void make_file(const scenario *s, const char *path)
{
	pk_pd_writer *w;
	pk_error err;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	struct perf_event_attr lead = {0}, solo = {0};
	size_t nr = s->nr_ev + (s->solo.name != NULL);
	for (size_t e = 0; e < nr; e++) {
		const ev *d = e < s->nr_ev ? &s->ev[e] : &s->solo;
		struct perf_event_attr a = {
			.type = d->type, .size = sizeof(a), .config = d->config,
			.sample_period = e && e < s->nr_ev ? 0 : 1000,
			.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				       PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				       PERF_SAMPLE_READ,
			.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID,
			.exclude_kernel = d->exclude_kernel, .sample_id_all = 1};
		if (!e)
			lead = a;
		if (e == s->nr_ev)
			solo = a;
		uint64_t id = 100 + e;
		assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, d->name, &id, 1, &err), 0);
	}
	if (!s->no_group_desc)
		pd_test_group_desc(w, 0, (uint32_t)s->nr_ev);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	for (size_t i = 0; i < s->nr_samples; i++) {
		write_sample(w, &lead, s, i, false);
		if (s->solo.name)
			write_sample(w, &solo, s, i, true);
	}
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
}

static const char *const field_sets[] = {
	"-F event,period,metric",
	"-F comm,tid,cpu,time,event,period,metric",
	"-F metric",
	"-F ip,metric,period",
};

static void test_against_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	for (size_t i = 0; i < PK_ARRAY_SIZE(scenarios); i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s.data", pd_test_dir, scenarios[i].file);
		make_file(&scenarios[i], path);
		for (size_t f = 0; f < PK_ARRAY_SIZE(field_sets); f++)
			pd_test_same_script("", path, field_sets[f]);
	}
}

/* Without perf: the "ipc" scenario's lines from its running totals. Each
 * round's metric is the latest delta over the mean of the cycles deltas
 * of the round; a member whose count did not grow is no sample, so the
 * third sample (instructions only) and the fourth (cycles only) make one
 * round, whose latest delta is the cycles' own (perf's 1.00). */
static void test_deltas(void **state)
{
	(void)state;
	const scenario *s = &scenarios[0];
	char path[1024], cmd[2048], want[1024] = "", line[128];
	snprintf(path, sizeof(path), "%s/ipc_alone.data", pd_test_dir);
	make_file(s, path);
	uint64_t prev[MAX_EV] = {0}, d[MAX_SAMPLES][MAX_EV];
	for (size_t i = 0; i < s->nr_samples; i++)
		for (size_t e = 0; e < 2; e++) {
			d[i][e] = s->val[i][e] - prev[e];
			prev[e] = s->val[i][e];
		}
	assert_true(d[2][0] == 0 && d[3][1] == 0); /* the scenario's shape */
	double ipc[3] = {(double)d[0][1] / (double)d[0][0], (double)d[1][1] / (double)d[1][0],
			 (double)d[3][0] / (double)d[3][0]};
	const char *lines[4] = {"\n\n", "\n\n", "\n", "\n"};
	for (size_t i = 0, r = 0; i < s->nr_samples; i++) {
		strcat(want, lines[i]);
		if (i == 2)
			continue;
		snprintf(line, sizeof(line), "\tmetric: %7.2f  insn per cycle\n", ipc[r++]);
		strcat(want, line);
	}
	snprintf(cmd, sizeof(cmd), "%s script -F metric -i %s", pk_test_pmukit(), path);
	char *out = pd_test_output(cmd);
	assert_string_equal(out, want);
	free(out);
	/* the task, cpu and time fields start each metric line too */
	snprintf(cmd, sizeof(cmd), "%s script -F tid,cpu,time,metric -i %s", pk_test_pmukit(), path);
	out = pd_test_output(cmd);
	assert_non_null(strstr(out, "   42 [000]     1.000000: \n"
				    "   42 [000]     1.000000: \tmetric:    1.50  insn per cycle\n"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deltas),
		cmocka_unit_test(test_against_perf),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
