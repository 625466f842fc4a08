/* The PERF_METRICS arithmetic of the PMU model (lib/model/perf_metrics.c):
 * quantization of the register, the driver's value and delta per read,
 * reset, and a context switch's save. The bound checked: after N reads of a
 * period split in reads, each metric count is within slots/255 + N of
 * slots x share (one 8-bit unit per read's slots, one count of truncation
 * per read). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "helpers.h"
#include "model/model.h"

/* Node slots for `slots` slots split by shares (Level 2 as slots of all). */
static void split(uint64_t slots, const double share[PKI_TMA_NR], uint64_t node[PKI_TMA_NR])
{
	uint64_t used = 0;
	for (int i = 0; i < PKI_TMA_NR; i++)
		node[i] = (uint64_t)floor((double)slots * share[i]);
	for (int i = 0; i < PKI_TMA_L1_NR; i++)
		used += node[i];
	node[PKI_TMA_BE_BOUND] += slots - used; /* Level 1 sums to slots */
}

static const double spr[PKI_TMA_NR] = {0.30, 0.10, 0.25, 0.35, 0.05, 0.08, 0.15, 0.20};

static void test_encode_sums_to_ff(void **state)
{
	(void)state;
	uint64_t node[PKI_TMA_NR];
	split(1000000, spr, node);
	uint64_t reg = pki_pm_encode(node);
	unsigned sum = 0;
	for (int i = 0; i < PKI_TMA_L1_NR; i++)
		sum += pki_pm_field(reg, i);
	assert_int_equal(sum, 0xff);
	/* 0.30 x 255 = 76.5, 0.10 -> 25.5, 0.25 -> 63.75, 0.35 -> 89.25: the two
	 * units left go to 63.75 and then the first 0.5 (retiring). */
	assert_int_equal(pki_pm_field(reg, PKI_TMA_RETIRING), 77);
	assert_int_equal(pki_pm_field(reg, PKI_TMA_BAD_SPEC), 25);
	assert_int_equal(pki_pm_field(reg, PKI_TMA_FE_BOUND), 64);
	assert_int_equal(pki_pm_field(reg, PKI_TMA_BE_BOUND), 89);
	/* Level 2 rounds to nearest: 12.75, 20.4, 38.25, 51 */
	assert_int_equal(pki_pm_field(reg, PKI_TMA_HEAVY_OPS), 13);
	assert_int_equal(pki_pm_field(reg, PKI_TMA_BR_MISPREDICT), 20);
	assert_int_equal(pki_pm_field(reg, PKI_TMA_FETCH_LAT), 38);
	assert_int_equal(pki_pm_field(reg, PKI_TMA_MEM_BOUND), 51);
}

static void test_encode_edges(void **state)
{
	(void)state;
	uint64_t zero[PKI_TMA_NR] = {0};
	assert_int_equal(pki_pm_encode(zero), 0);
	/* all retiring, all of it heavy: 0xff in bytes 0 and 4 */
	uint64_t all[PKI_TMA_NR] = {7, 0, 0, 0, 7, 0, 0, 0};
	assert_int_equal(pki_pm_encode(all), 0xff000000ffULL);
	/* a child equal to its parent never rounds above it */
	uint64_t odd[PKI_TMA_NR] = {1, 1, 1, 0, 1, 1, 1, 0};
	uint64_t reg = pki_pm_encode(odd);
	for (int i = PKI_TMA_L1_NR; i < PKI_TMA_NR; i++)
		assert_true(pki_pm_field(reg, i) <= pki_pm_field(reg, i - PKI_TMA_L1_NR));
	assert_int_equal(pki_pm_field(reg, 0) + pki_pm_field(reg, 1) + pki_pm_field(reg, 2), 0xff);
	/* huge counts do not overflow the 8-bit arithmetic */
	uint64_t big[PKI_TMA_NR] = {UINT64_MAX / 4, UINT64_MAX / 4, 0, 0, 0, 0, 0, 0};
	reg = pki_pm_encode(big);
	assert_int_equal(pki_pm_field(reg, 0) + pki_pm_field(reg, 1), 0xff);
}

static void test_value_is_mul_div(void **state)
{
	(void)state;
	assert_int_equal(pki_mul_u64_u32_div(1000, 77, 0xff), 301); /* 301.96 truncated */
	assert_int_equal(pki_pm_value(1000, 0x4d, PKI_TMA_RETIRING), 301);
	assert_int_equal(pki_pm_value(1000, 0x4d, -1), 1000);
	/* 128-bit intermediate: no overflow for the largest slots */
	assert_int_equal(pki_mul_u64_u32_div(UINT64_MAX, 0xff, 0xff), UINT64_MAX);
}

static void within(uint64_t got, double want, double bound)
{
	if (fabs((double)got - want) > bound)
		fail_msg("count %llu, slots x share %.1f, bound %.1f", (unsigned long long)got, want,
			 bound);
}

/* Many reads (each clears the registers): the sums stay within the bound. */
static void test_reads_accumulate(void **state)
{
	(void)state;
	pki_pm_regs r = {0};
	uint64_t count[1 + PKI_TMA_NR] = {0}, total = 0;
	int reads = 1000;
	for (int k = 0; k < reads; k++) {
		uint64_t slots = 100000 + 7919u * (uint64_t)k, node[PKI_TMA_NR];
		split(slots, spr, node);
		pki_pm_run(&r, node);
		total += slots;
		pki_pm_read(&r, count);
		assert_int_equal(pki_pm_slots(&r), 0);
	}
	assert_int_equal(count[0], total);
	for (int i = 0; i < PKI_TMA_NR; i++)
		within(count[1 + i], (double)total * spr[i], (double)total / 255 + reads);
}

/* Without the kernel's clear (a context switch saves and restores), the
 * deltas telescope to the value of the final registers. */
static void test_save_is_continuous(void **state)
{
	(void)state;
	pki_pm_regs r = {0};
	uint64_t count[1 + PKI_TMA_NR] = {0}, node[PKI_TMA_NR];
	for (int k = 0; k < 10; k++) {
		split(50000, spr, node);
		pki_pm_run(&r, node);
		pki_pm_save(&r, count);
	}
	assert_int_equal(pki_pm_slots(&r), 500000);
	assert_int_equal(count[0], 500000);
	uint64_t reg = pki_pm_metrics(&r);
	for (int i = 0; i < PKI_TMA_NR; i++)
		assert_int_equal(count[1 + i], pki_pm_value(500000, reg, i));
	/* a read adds only what is new since the save: nothing */
	pki_pm_read(&r, count);
	assert_int_equal(count[0], 500000);
	assert_int_equal(count[1], pki_pm_value(500000, reg, 0));
}

/* A fraction that drops after a save adds nothing (the driver's guard). */
static void test_delta_never_negative(void **state)
{
	(void)state;
	pki_pm_regs r = {0};
	uint64_t count[1 + PKI_TMA_NR] = {0};
	uint64_t bad[PKI_TMA_NR] = {0, 100, 0, 0, 0, 0, 0, 0};
	uint64_t ret[PKI_TMA_NR] = {100000, 0, 0, 0, 0, 0, 0, 0};
	pki_pm_run(&r, bad);
	pki_pm_save(&r, count);
	assert_int_equal(count[1 + PKI_TMA_BAD_SPEC], 100);
	pki_pm_run(&r, ret); /* bad_spec's byte falls to 0 */
	assert_int_equal(pki_pm_delta(&r, PKI_TMA_BAD_SPEC), 0);
	pki_pm_read(&r, count);
	assert_int_equal(count[1 + PKI_TMA_BAD_SPEC], 100);
}

/* The first Ice Lake TopDown patch (2019, "kernel": "icl-patch-2019"):
 * 16-bit fixed point, ((field x 0xffff) >> 8) x slots >> 16, 0.39 % below
 * slots x field / 0xff at field 0xff, and a delta taken as it comes: a
 * fraction that drops after a save takes the count down (issue 26). */
static void test_patch_2019(void **state)
{
	(void)state;
	const pki_pm_driver p = PKI_PM_PATCH_2019;
	assert_int_equal(pki_pm_value_of(p, 1000000, 0xff, 0), 1000000ull * 65279 >> 16);
	assert_int_equal(pki_pm_value_of(PKI_PM_CURRENT, 1000000, 0xff, 0), 1000000);
	double gap = 1 - (double)pki_pm_value_of(p, 1ull << 40, 0xff, 0) / (double)(1ull << 40);
	assert_true(fabs(gap - 257.0 / 65536) < 1e-9); /* 0.392 % */
	assert_int_equal(pki_pm_value_of(p, 1000000, 0x80, 0), (((0x80ull * 0xffff) >> 8) * 1000000) >> 16);
	assert_int_equal(pki_pm_value_of(p, 12345, 0x80, -1), 12345); /* slots itself */
	pki_pm_regs r = {.driver = p};
	uint64_t count[1 + PKI_TMA_NR] = {0};
	uint64_t bad[PKI_TMA_NR] = {0, 100, 0, 0, 0, 0, 0, 0};
	uint64_t ret[PKI_TMA_NR] = {100000, 0, 0, 0, 0, 0, 0, 0};
	pki_pm_run(&r, bad);
	pki_pm_save(&r, count);
	assert_int_equal(count[1 + PKI_TMA_BAD_SPEC], 99); /* 100 x 65279 >> 16 */
	pki_pm_run(&r, ret);
	pki_pm_read(&r, count);
	assert_int_equal(count[1 + PKI_TMA_BAD_SPEC], 0); /* 99 + (0 - 99) */
	assert_int_equal(count[0], 100100);
	pki_pm_reset(&r);
	assert_int_equal(r.driver, p); /* a reset keeps the driver */
}

/* PERF_EVENT_IOC_RESET starts a new period: the register holds only what
 * ran after it. */
static void test_reset_starts_period(void **state)
{
	(void)state;
	pki_pm_regs r = {0};
	uint64_t count[1 + PKI_TMA_NR] = {0};
	uint64_t fe[PKI_TMA_NR] = {0, 0, 900, 100, 0, 0, 900, 0};
	uint64_t ret[PKI_TMA_NR] = {1000, 0, 0, 0, 500, 0, 0, 0};
	pki_pm_run(&r, fe);
	pki_pm_save(&r, count);
	pki_pm_reset(&r);
	memset(count, 0, sizeof(count));
	pki_pm_run(&r, ret);
	assert_int_equal(pki_pm_metrics(&r), 0x80000000ffULL); /* 127.5 -> 128 */
	pki_pm_read(&r, count);
	assert_int_equal(count[0], 1000);
	assert_int_equal(count[1 + PKI_TMA_RETIRING], 1000);
	assert_int_equal(count[1 + PKI_TMA_FE_BOUND], 0);
	assert_int_equal(count[1 + PKI_TMA_HEAVY_OPS], 501); /* 1000 x 128 / 255 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_sums_to_ff),
		cmocka_unit_test(test_encode_edges),
		cmocka_unit_test(test_value_is_mul_div),
		cmocka_unit_test(test_reads_accumulate),
		cmocka_unit_test(test_save_is_continuous),
		cmocka_unit_test(test_delta_never_negative),
		cmocka_unit_test(test_patch_2019),
		cmocka_unit_test(test_reset_starts_period),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
