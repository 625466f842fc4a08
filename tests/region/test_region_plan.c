/* The region library's read(2) path on this kernel (lib/region/rplan.c):
 * without TopDown, every event is read with read(2) through the plan made
 * at the thread's open: one read for a group ({task-clock,page-faults},
 * PERF_FORMAT_GROUP with ids), one for a lone counter (context-switches);
 * each event's value lands in its own place (page faults after touching
 * fresh pages, context switches after a sleep, task-clock bounded by the
 * thread's CPU time and the wall time); two threads read their own fds at
 * once; a snapshot after pk_region_fini sets up again and never touches
 * the freed thread state (ASan). Skipped where TopDown counts (a PMU): the
 * fallback events are then not the ones counted. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <pmukit/region.h>
#include "helpers.h"

static bool init(const char *fallback)
{
	pk_region_opts o;
	pk_region_opts_init(&o);
	o.fallback_event = fallback;
	o.report = "";
	pk_error err = {0};
	if (pk_region_init(&o, &err) < 0)
		fail_msg("%s", err.msg);
	pk_region_info in;
	pk_region_get_info(&in);
	return !in.topdown;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Work the events see: n fresh pages touched, a 2 ms sleep, 2 ms of CPU. */
static void work(size_t pages)
{
	char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	assert_true(p != MAP_FAILED);
	for (size_t i = 0; i < pages; i++)
		((volatile char *)p)[i * 4096] = 1;
	munmap(p, pages * 4096);
	struct timespec ms2 = {0, 2000000};
	nanosleep(&ms2, NULL);
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0 < 2000000)
		;
}

static void test_group_and_lone(void **state)
{
	(void)state;
	if (!init("{task-clock,page-faults},context-switches"))
		skip();
	pk_region_snap a, b;
	pk_error err = {0};
	assert_int_equal(pk_region_snapshot(&a, &err), 0);
	uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	work(64);
	uint64_t c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	assert_int_equal(pk_region_snapshot(&b, &err), 0);
	assert_int_equal(a.nr, 3);
	assert_true(a.flags & b.flags & PK_REGION_SNAP_SYSCALL);
	int64_t task = b.v[0] - a.v[0], faults = b.v[1] - a.v[1], cs = b.v[2] - a.v[2];
	uint64_t wall = b.time_ns - a.time_ns, run = b.run[0] - a.run[0];
	if (faults < 64 || faults > 1000)
		fail_msg("page-faults %lld after touching 64 fresh pages", (long long)faults);
	if (cs < 1 || cs > 100)
		fail_msg("context-switches %lld after a sleep", (long long)cs);
	if (task < (int64_t)(c1 - c0) * 9 / 10 || (uint64_t)task > wall)
		fail_msg("task-clock %lld ns: the thread ran %llu ns in %llu ns", (long long)task,
			 (unsigned long long)(c1 - c0), (unsigned long long)wall);
	/* the group's running time is the times read with it */
	assert_true(run > 0 && run <= wall);
	pk_region_breakdown bd;
	assert_int_equal(pk_region_breakdown_of(&a, &b, &bd, &err), 0);
	assert_false(bd.topdown);
	assert_true(bd.count == (double)task);
}

/* 1000 begin/end pairs; *arg gets the wall time of the whole loop, which
 * bounds the task-clock its regions count (not the thread's CPU time: in
 * a VM the kernel takes steal time out of that clock, not out of
 * task-clock's, and a loaded CI machine showed 4.2 ms against 3.2 ms). */
static void *pairs(void *arg)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < 1000; i++)
		if (pk_region_begin("both") < 0 || pk_region_end("both") < 0)
			return (void *)1;
	*(uint64_t *)arg = clock_ns(CLOCK_MONOTONIC) - t0;
	pk_region_thread_fini();
	return NULL;
}

static void test_two_threads(void **state)
{
	(void)state;
	if (!init(NULL))
		skip();
	pthread_t th[2];
	uint64_t loop[2] = {0, 0};
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, pairs, &loop[i]), 0);
	for (int i = 0; i < 2; i++) {
		void *rv;
		pthread_join(th[i], &rv);
		assert_null(rv);
	}
	pk_region_result r[2];
	assert_int_equal(pk_region_results(r, 2), 1);
	assert_int_equal(r[0].calls, 2000);
	assert_int_equal(r[0].threads, 2);
	assert_int_equal(r[0].lost, 0);
	/* task-clock counts the threads' running time inside their regions:
	 * at most the wall time of their loops (2% and 20 us for the two
	 * clocks; not the sum of the 1 us regions' wall times, which a loaded
	 * machine's clock reads skew against the counter's reads) */
	double loop_ns = (double)(loop[0] + loop[1]);
	assert_true(r[0].bd.count > 0);
	if (r[0].bd.count > loop_ns * 1.02 + 20000)
		fail_msg("task-clock %.0f ns over the threads' loops, %.0f ns", r[0].bd.count,
			 loop_ns);
}

/* fini frees the thread's state; the next snapshot sets up again from the
 * environment and opens a new one. */
static void test_after_fini(void **state)
{
	(void)state;
	bool fallback = init(NULL);
	pk_region_snap a, b;
	assert_int_equal(pk_region_snapshot(&a, NULL), 0);
	pk_region_fini();
	assert_int_equal(pk_region_snapshot(&b, NULL), 0);
	assert_int_not_equal(a.epoch, b.epoch);
	pk_error err = {0};
	pk_region_breakdown bd;
	assert_int_equal(pk_region_breakdown_of(&a, &b, &bd, &err), -EINVAL);
	if (fallback)
		assert_int_equal(b.nr, 1);
}

static int teardown(void **state)
{
	(void)state;
	pk_region_fini();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_group_and_lone, teardown),
		cmocka_unit_test_teardown(test_two_threads, teardown),
		cmocka_unit_test_teardown(test_after_fini, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
