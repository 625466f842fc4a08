/* Overflow arithmetic of the PMU model (lib/model/overflow.c): how many
 * samples fire while a count grows, at which counts and times, carried
 * across intervals (period_left); frequency mode converging to the period
 * of the asked rate with the kernel's adjustment; the attrs it refuses. */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "model/sampling.h"

#define TICK 4000000 /* HZ 250 */

static void test_fixed_period(void **state)
{
	(void)state;
	struct perf_event_attr a = {.sample_period = 100};
	pki_overflow o;
	assert_int_equal(pki_overflow_init(&o, &a, 0, NULL), 0);
	/* count 1000 -> 1350 during [0, 3500] ns: overflows at +100, +200, +300 */
	assert_int_equal(pki_overflow_fires(&o, 350), 3);
	uint64_t c, t;
	for (uint64_t k = 0; k < 3; k++) {
		pki_overflow_at(&o, 1000, 1350, 0, 3500, k, &c, &t);
		assert_true(c == 1100 + 100 * k);
		assert_true(t == 1000 + 1000 * k);
	}
	pki_overflow_advance(&o, 350);
	assert_true(o.left == 50);
	/* the next interval: 60 counts, one overflow 50 counts in */
	assert_int_equal(pki_overflow_fires(&o, 60), 1);
	pki_overflow_at(&o, 1350, 1410, 3500, 4100, 0, &c, &t);
	assert_true(c == 1400 && t == 4000);
	pki_overflow_advance(&o, 60);
	assert_true(o.left == 90);
	assert_int_equal(pki_overflow_fires(&o, 89), 0);
	assert_int_equal(pki_overflow_fires(&o, 90), 1); /* exactly at the period */
	/* times truncate: 1 count over 3 ns, overflow 1 count in */
	o.left = 1;
	pki_overflow_at(&o, 0, 3, 10, 11, 0, &c, &t);
	assert_true(c == 1 && t == 10);
}

/* The same overflow counts however a run is cut in intervals. */
static void test_split_invariance(void **state)
{
	(void)state;
	struct perf_event_attr a = {.sample_period = 997};
	pki_overflow whole, parts;
	assert_int_equal(pki_overflow_init(&whole, &a, 0, NULL), 0);
	parts = whole;
	uint64_t total = 0, fired = 0, at = 0, last = 0;
	uint64_t x = 12345;
	for (int i = 0; i < 5000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t d = (x >> 33) % 3000;
		uint64_t n = pki_overflow_fires(&parts, d);
		for (uint64_t k = 0; k < n; k++) {
			uint64_t c, t;
			pki_overflow_at(&parts, at, at + d, 0, 1, k, &c, &t);
			assert_true(c == last + 997); /* every period, never skipped */
			last = c;
		}
		fired += n;
		pki_overflow_advance(&parts, d);
		at += d;
		total += d;
	}
	assert_true(fired == pki_overflow_fires(&whole, total));
	assert_true(fired == total / 997);
	pki_overflow_advance(&whole, total);
	assert_true(whole.left == parts.left);
}

static void test_refused_and_ioc_period(void **state)
{
	(void)state;
	pk_error err = {0};
	pki_overflow o;
	struct perf_event_attr a = {.freq = 1, .sample_freq = 0};
	assert_int_equal(pki_overflow_init(&o, &a, TICK, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "sample_freq"));
	a.sample_freq = 4000;
	assert_int_equal(pki_overflow_init(&o, &a, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "tick"));
	a = (struct perf_event_attr){.sample_period = 0};
	assert_int_equal(pki_overflow_init(&o, &a, 0, &err), -EINVAL);
	a.sample_period = 1;
	assert_int_equal(pki_overflow_init(&o, &a, 0, NULL), 0);
	assert_int_equal(pki_overflow_fires(&o, 10), 10); /* period 1: every count */
	pki_overflow_advance(&o, 3);
	assert_int_equal(pki_overflow_set_period(&o, 0, &err), -EINVAL);
	assert_int_equal(pki_overflow_set_period(&o, 50, &err), 0);
	assert_true(o.left == 50 && o.period == 50);
}

/* Runs a freq event for `ms` ms of virtual time at `per_ms` counts per ms,
 * in 1 ms intervals, with a tick every 4 ms; checks that every sample's
 * PERIOD is the counts since the previous one. Returns the samples. */
static uint64_t run_freq(pki_overflow *o, uint64_t *count, uint64_t *t, int ms, uint64_t per_ms,
			 uint64_t *first_ms)
{
	uint64_t n = 0, prev = *count - (o->last_period - o->left);
	for (int i = 0; i < ms; i++) {
		pki_overflow_span s = {*count, *count + per_ms, *t, *t + 1000000, 0};
		pki_overflow_hit h;
		while (pki_overflow_next(o, &s, &h)) {
			assert_true(h.count - prev == h.period);
			assert_true(h.time >= *t && h.time <= *t + 1000000);
			prev = h.count;
			n++;
			if (i == 0 && first_ms)
				(*first_ms)++;
		}
		*count += per_ms;
		*t += 1000000;
		if (*t % TICK == 0)
			pki_overflow_tick(o, *count);
	}
	return n;
}

/* 4000 Hz on a 3 GHz cycles count: the period starts at 1 and converges to
 * 3e9 / 4000 = 750000 through perf_adjust_period's eighth steps; about 4000
 * samples in a second, a few more while it ramps up. Then the rate halves:
 * the period follows down to 375000. */
static void test_freq_converges(void **state)
{
	(void)state;
	struct perf_event_attr a = {.freq = 1, .sample_freq = 4000};
	pki_overflow o;
	assert_int_equal(pki_overflow_init(&o, &a, TICK, NULL), 0);
	assert_true(o.period == 1 && o.left == 1);
	uint64_t count = 0, t = 0, first = 0;
	uint64_t n = run_freq(&o, &count, &t, 1000, 3000000, &first);
	assert_true(n >= 4000 && n <= 4020);
	assert_true(first >= 2 && first <= 16); /* the ramp from period 1 */
	assert_true(o.period >= 749250 && o.period <= 750750);
	n = run_freq(&o, &count, &t, 1000, 1500000, NULL);
	assert_true(n >= 3990 && n <= 4010);
	assert_true(o.period >= 374625 && o.period <= 375375);
}

static void test_freq_arithmetic(void **state)
{
	(void)state;
	assert_true(pki_freq_period(1000000, 3000000, 4000) == 750000);
	assert_true(pki_freq_period(0, 5, 4000) == 5000000000ULL); /* no divisor */
	assert_true(pki_freq_period(1, UINT64_MAX, 1) == UINT64_MAX); /* clamped */
	/* a tick that finds more than 8 periods left re-arms at the new period */
	struct perf_event_attr a = {.freq = 1, .sample_freq = 1000};
	pki_overflow o;
	assert_int_equal(pki_overflow_init(&o, &a, TICK, NULL), 0);
	o.period = 100;
	o.left = o.last_period = 10000;
	pki_overflow_tick(&o, 400); /* 400 counts in 4 ms at 1000 Hz: period 100 */
	assert_true(o.period == 100 && o.left == 100 && o.last_period == 100);
	o.left = o.last_period = 800; /* exactly 8 periods: kept */
	pki_overflow_tick(&o, 800);
	assert_true(o.left == 800);
	/* an overflow more than 2 ticks after the last one does not adjust */
	pki_overflow_span s = {0, 800, 0, 3 * TICK, 0};
	pki_overflow_hit h;
	assert_int_equal(pki_overflow_next(&o, &s, &h), 1);
	assert_true(h.time == 3 * TICK && h.period == 800 && o.period == 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_period),
		cmocka_unit_test(test_split_invariance),
		cmocka_unit_test(test_refused_and_ioc_period),
		cmocka_unit_test(test_freq_converges),
		cmocka_unit_test(test_freq_arithmetic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
