/* The user page for self-monitoring: the model's side (lib/model/
 * userpage.c: the seqlock update, RDPMC index encodings and their decoding
 * on a CPU model's counters) read through the reader's documented loop
 * (lib/counting/selfread.c) with an RDPMC emulation over modeled registers:
 * retry on a lock that moves during the read, the fallback of index 0, the
 * 48-bit sign extension, times advanced by the TSC, scaling. */
#include <errno.h>
#include <string.h>

#include "counting/selfread.h"
#include "helpers.h"
#include "model/sampling.h"

#define MASK48 ((1ULL << 48) - 1)

/* Modeled registers behind RDPMC, and a hook that runs inside the read. */
typedef struct regs {
	const pki_counters *row;
	uint64_t generic[8], fixed[4], metrics;
	uint64_t tsc;
	int calls, tsc_calls;
	struct perf_event_mmap_page *pg;
	int updates_left;          /* updates of the page made inside rdpmc */
	pki_userpage next;         /* what they publish */
} regs;

static uint64_t emu_rdpmc(void *arg, uint32_t ecx)
{
	regs *r = arg;
	r->calls++;
	if (r->updates_left > 0) {
		r->updates_left--;
		r->next.offset += 10;
		pki_userpage_update(r->pg, &r->next);
	}
	pki_pmc_kind kind;
	unsigned n;
	assert_int_equal(pki_rdpmc_decode(ecx, r->row, false, &kind, &n, NULL), 0);
	if (kind == PKI_PMC_METRICS)
		return r->metrics;
	return (kind == PKI_PMC_FIXED ? r->fixed[n] : r->generic[n]) & MASK48;
}

static uint64_t emu_rdtsc(void *arg)
{
	regs *r = arg;
	r->tsc_calls++;
	return r->tsc;
}

static const pki_counters *row_of(const char *cpuid)
{
	pk_cpuid id;
	assert_int_equal(pk_cpuid_parse(cpuid, &id, NULL), 0);
	const pki_counters *row = pki_counters_find(&id, "cpu", NULL);
	assert_non_null(row);
	return row;
}

static struct perf_event_mmap_page page;

static void test_index_encodings(void **state)
{
	(void)state;
	/* topdown.md 1.1: fixed n -> n | 1 << 30, metrics 1 << 29, page index + 1 */
	assert_int_equal(pki_rdpmc_ecx(PKI_PMC_FIXED, 3), 0x40000003);
	assert_int_equal(pki_rdpmc_ecx(PKI_PMC_METRICS, 0), 0x20000000);
	assert_int_equal(pki_rdpmc_ecx(PKI_PMC_GENERIC, 5), 5);
	assert_int_equal(pki_userpage_index(PKI_PMC_FIXED, 1), 0x40000002);
	assert_int_equal(pki_userpage_index(PKI_PMC_METRICS, 0), 0x20000001);
	assert_int_equal(pki_userpage_index(PKI_PMC_GENERIC, 0), 1);

	const pki_counters *spr = row_of("GenuineIntel-6-8F-8");
	pki_pmc_kind kind;
	unsigned n;
	pk_error err = {0};
	assert_int_equal(pki_rdpmc_decode(0x40000003, spr, false, &kind, &n, &err), 0);
	assert_true(kind == PKI_PMC_FIXED && n == 3);
	assert_int_equal(pki_rdpmc_decode(0x20000000, spr, false, &kind, &n, &err), 0);
	assert_true(kind == PKI_PMC_METRICS);
	assert_int_equal(pki_rdpmc_decode(7, spr, true, &kind, &n, &err), 0);
	assert_true(kind == PKI_PMC_GENERIC && n == 7);
	const uint32_t bad[] = {8, 0x40000004, 0x20000001, 0x60000000, 0x80000000};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pki_rdpmc_decode(bad[i], spr, false, &kind, &n, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "#GP"));
	}
	const pki_counters *skl = row_of("GenuineIntel-6-55-4");
	assert_int_equal(pki_rdpmc_decode(0x20000000, skl, false, &kind, &n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no PERF_METRICS"));
	assert_int_equal(pki_rdpmc_decode(0x40000003, skl, false, &kind, &n, &err), -EINVAL);
	assert_int_equal(pki_rdpmc_decode(4, skl, true, &kind, &n, &err), -EINVAL); /* 4 with SMT */
	assert_int_equal(pki_rdpmc_decode(4, skl, false, &kind, &n, &err), 0);
}

/* A sampling counter armed at -256: raw 0xffffffffff00. The page's offset
 * is count - the sign-extended value; a reader that did not sign-extend
 * would be 2^48 off. */
static void test_sign_extension(void **state)
{
	(void)state;
	regs r = {.row = row_of("GenuineIntel-6-8F-8")};
	r.generic[2] = (uint64_t)-256 & MASK48;
	pki_userpage u = {.index = pki_userpage_index(PKI_PMC_GENERIC, 2),
			  .offset = 5000 + 256, .pmc_width = 48, .cap_user_rdpmc = true,
			  .time_enabled = 100, .time_running = 100};
	memset(&page, 0, sizeof(page));
	pki_userpage_update(&page, &u);
	assert_int_equal(page.lock, 2); /* incremented before and after */
	pki_selfread_ops ops = {emu_rdpmc, emu_rdtsc, &r};
	pk_counts c;
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), 0);
	assert_true(c.val == 5000);
	r.generic[2] += 100; /* 100 more events, still below zero */
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), 0);
	assert_true(c.val == 5100);
	assert_int_equal(r.tsc_calls, 0); /* enabled == running: no clock needed */
	page.pmc_width = 0;
	pk_error err = {0};
	assert_int_equal(pki_selfread(&page, &ops, &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "pmc_width"));
}

/* The page changes while it is read (the callback publishes an update
 * between the two reads of the lock): the loop retries and returns the
 * last update's values; a lock that never settles is -EAGAIN. */
static void test_retry_on_changing_lock(void **state)
{
	(void)state;
	regs r = {.row = row_of("GenuineIntel-6-8F-8"), .pg = &page};
	r.fixed[1] = 1000;
	r.next = (pki_userpage){.index = pki_userpage_index(PKI_PMC_FIXED, 1), .offset = 50,
				.pmc_width = 48, .cap_user_rdpmc = true};
	memset(&page, 0, sizeof(page));
	pki_userpage_update(&page, &r.next);
	r.updates_left = 3;
	pki_selfread_ops ops = {emu_rdpmc, NULL, &r};
	pk_counts c;
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), 0);
	assert_int_equal(r.calls, 4); /* three retries */
	assert_true(c.val == 1000 + 50 + 30);
	assert_int_equal(page.lock, 8);

	r.updates_left = 1 << 30;
	pk_error err = {0};
	assert_int_equal(pki_selfread(&page, &ops, &c, &err), -EAGAIN);
	assert_non_null(strstr(err.msg, "lock"));
}

/* An odd lock seen at the start is retried even when it does not move. */
static void test_odd_lock_not_trusted(void **state)
{
	(void)state;
	regs r = {.row = row_of("GenuineIntel-6-8F-8")};
	pki_userpage u = {.index = 1, .offset = 1, .pmc_width = 48, .cap_user_rdpmc = true};
	memset(&page, 0, sizeof(page));
	pki_userpage_update(&page, &u);
	page.lock = 3;
	pki_selfread_ops ops = {emu_rdpmc, NULL, &r};
	pk_counts c;
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), -EAGAIN);
	page.lock = 4;
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), 0);
}

/* index 0 (not on a counter) or no cap_user_rdpmc: read(2) instead. */
static void test_fallback(void **state)
{
	(void)state;
	regs r = {.row = row_of("GenuineIntel-6-8F-8"), .tsc = 1300};
	pki_userpage u = {.index = 0, .offset = 777, .pmc_width = 48, .cap_user_rdpmc = true,
			  .time_enabled = 1000, .time_running = 500};
	pki_userpage_vtime(&u, 1000);
	memset(&page, 0, sizeof(page));
	pki_userpage_update(&page, &u);
	pki_selfread_ops ops = {emu_rdpmc, emu_rdtsc, &r};
	pk_counts c;
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), PKI_SELFREAD_FALLBACK);
	assert_int_equal(r.calls, 0);
	assert_true(c.ena == 1300 && c.run == 500); /* not running: only enabled moves */
	u.index = 3;
	u.cap_user_rdpmc = false;
	pki_userpage_update(&page, &u);
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), PKI_SELFREAD_FALLBACK);
	assert_int_equal(r.calls, 0);
}

/* A multiplexed counter: enabled 1000, running 500 at the update (virtual
 * time 1000); the TSC reads 1300: both times move by 300, and the count
 * scales by enabled / running. */
static void test_times_and_scaling(void **state)
{
	(void)state;
	regs r = {.row = row_of("GenuineIntel-6-8F-8"), .tsc = 1300};
	r.generic[0] = 400;
	pki_userpage u = {.index = pki_userpage_index(PKI_PMC_GENERIC, 0), .offset = 0,
			  .pmc_width = 48, .cap_user_rdpmc = true, .time_enabled = 1000,
			  .time_running = 500};
	pki_userpage_vtime(&u, 1000);
	memset(&page, 0, sizeof(page));
	pki_userpage_update(&page, &u);
	assert_true(page.cap_user_time && page.cap_user_time_zero && !page.cap_user_time_short);
	pki_selfread_ops ops = {emu_rdpmc, emu_rdtsc, &r};
	pk_counts c;
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), 0);
	assert_true(c.val == 400 && c.ena == 1300 && c.run == 800);
	pk_scaled sc;
	pk_counts_scale(&c, &sc);
	assert_true(sc.scaled);
	assert_true(sc.value > 649.99 && sc.value < 650.01); /* 400 x 1300 / 800 */

	/* cap_user_time_short: the TSC folded into time_cycles + (.. & mask) */
	page.cap_user_time_short = 1;
	page.time_cycles = 0x1000;
	page.time_mask = 0xff;
	page.time_offset = 0;
	r.tsc = 0x12345;
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), 0);
	assert_true(c.ena == 1000 + 0x1045);
}

/* A PERF_METRICS index reads the packed register (topdown.md 5). */
static void test_metrics_index(void **state)
{
	(void)state;
	regs r = {.row = row_of("GenuineIntel-6-8F-8"), .metrics = 0x40201f80};
	pki_userpage u = {.index = pki_userpage_index(PKI_PMC_METRICS, 0), .pmc_width = 64,
			  .cap_user_rdpmc = true};
	memset(&page, 0, sizeof(page));
	pki_userpage_update(&page, &u);
	pki_selfread_ops ops = {emu_rdpmc, NULL, &r};
	pk_counts c;
	assert_int_equal(pki_selfread(&page, &ops, &c, NULL), 0);
	assert_true(c.val == 0x40201f80);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_encodings),
		cmocka_unit_test(test_sign_extension),
		cmocka_unit_test(test_retry_on_changing_lock),
		cmocka_unit_test(test_odd_lock_not_trusted),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_times_and_scaling),
		cmocka_unit_test(test_metrics_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
