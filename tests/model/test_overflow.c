/* Overflow arithmetic of the PMU model (lib/model/overflow.c): how many
 * samples fire while a count grows, at which counts and times, carried
 * across intervals (period_left), and the attrs it refuses. */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "model/sampling.h"

static void test_fixed_period(void **state)
{
	(void)state;
	struct perf_event_attr a = {.sample_period = 100};
	pki_overflow o;
	assert_int_equal(pki_overflow_init(&o, &a, NULL), 0);
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
	assert_int_equal(pki_overflow_init(&whole, &a, NULL), 0);
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
	struct perf_event_attr a = {.freq = 1, .sample_freq = 4000};
	assert_int_equal(pki_overflow_init(&o, &a, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "4000 Hz"));
	a = (struct perf_event_attr){.sample_period = 0};
	assert_int_equal(pki_overflow_init(&o, &a, &err), -EINVAL);
	a.sample_period = 1;
	assert_int_equal(pki_overflow_init(&o, &a, NULL), 0);
	assert_int_equal(pki_overflow_fires(&o, 10), 10); /* period 1: every count */
	pki_overflow_advance(&o, 3);
	assert_int_equal(pki_overflow_set_period(&o, 0, &err), -EINVAL);
	assert_int_equal(pki_overflow_set_period(&o, 50, &err), 0);
	assert_true(o.left == 50 && o.period == 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_period),
		cmocka_unit_test(test_split_invariance),
		cmocka_unit_test(test_refused_and_ioc_period),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
