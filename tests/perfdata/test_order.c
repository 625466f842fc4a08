/* The ordering queue (lib/perfdata/order.c) alone: records added as runs in
 * time order (one per ring buffer in a round, as perf writes them), from one
 * run to more than the queue merges in one pass (PD_QRUNS), with many equal
 * times across runs, come out by time and, on equal times, in the order
 * they were added; partial flushes (perf's round rule) and new runs
 * added between them keep that. */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "perfdata/pd_internal.h"

static const uint8_t rec[8] = {PERF_RECORD_SAMPLE, 0, 0, 0, 0, 0, 8, 0};
/* the time each record was added at, by arrival */
static uint64_t added_time[(PD_QRUNS + 4) * 3 * 40];

/* Adds one run of len records from time t0, steps of 0-2 (ties inside the
 * run too); the arrival number rides in the event's offset. */
static void add_run(pd_queue *q, uint64_t t0, size_t len, uint64_t *arrival, unsigned *seed)
{
	uint64_t t = t0;
	for (size_t i = 0; i < len; i++) {
		pk_pd_event ev = {.type = PERF_RECORD_SAMPLE, .size = 8, .data = rec,
				  .offset = (*arrival)++, .has_time = true};
		added_time[ev.offset] = t;
		assert_int_equal(pki_pd_queue_add(q, &ev, t, false), 0);
		t += (uint64_t)(rand_r(seed) % 3);
	}
}

/* Pops what is ready: by time, ties by arrival; counts them. */
static void drain(pd_queue *q, uint64_t *last_t, uint64_t *last_a, size_t *got)
{
	pk_pd_event ev;
	int rc;
	while ((rc = pki_pd_queue_pop(q, &ev)) > 0) {
		uint64_t t = added_time[ev.offset];
		assert_int_equal(rc, 1);
		assert_true(t >= *last_t);
		if (t == *last_t && *got)
			assert_true(ev.offset > *last_a);
		*last_t = t;
		*last_a = ev.offset;
		(*got)++;
	}
}

static void run_case(size_t runs, unsigned seed)
{
	pd_queue q;
	pki_pd_queue_init(&q, 0, NULL);
	uint64_t arrival = 0, last_t = 0, last_a = 0;
	size_t got = 0;
	/* round 1: runs over the same time span */
	for (size_t r = 0; r < runs; r++)
		add_run(&q, 100, 1 + (size_t)(rand_r(&seed) % 40), &arrival, &seed);
	uint64_t round1_max = q.max_time;
	/* nothing is ready before the round's end is known */
	drain(&q, &last_t, &last_a, &got);
	assert_int_equal(got, 0);
	/* round 2 overlaps round 1; then the flush of round 1's span */
	for (size_t r = 0; r < runs; r++)
		add_run(&q, round1_max - 5, 1 + (size_t)(rand_r(&seed) % 40), &arrival, &seed);
	pki_pd_queue_flush(&q, round1_max);
	drain(&q, &last_t, &last_a, &got);
	assert_true(got > 0);
	assert_true(last_t <= round1_max);
	/* round 3, then everything */
	for (size_t r = 0; r < runs; r++)
		add_run(&q, last_t, 1 + (size_t)(rand_r(&seed) % 40), &arrival, &seed);
	pki_pd_queue_flush(&q, UINT64_MAX);
	drain(&q, &last_t, &last_a, &got);
	assert_int_equal(got, arrival);
	pki_pd_queue_free(&q);
}

static void test_runs(void **state)
{
	(void)state;
	for (size_t runs = 1; runs <= PD_QRUNS + 4; runs++)
		for (unsigned seed = 1; seed <= 20; seed++)
			run_case(runs, seed * 7919u + (unsigned)runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
