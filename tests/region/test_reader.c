/* The region library's reader (lib/region/reader.c) on fake user pages:
 * RDPMC when the page allows it, read(2) through the kernel seam when the
 * index is 0 or cap_user_rdpmc is off (and then never RDPMC); SLOTS and
 * PERF_METRICS read in one lock pass, retried together when the lock
 * changes; the 48-bit sign extension of fixed counter 3 before its fields
 * are scaled; times advanced by the TSC and the count scaled by them. */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "model/sampling.h"
#include "region/reader.h"

#define MASK48 ((1ULL << 48) - 1)

/* Registers behind the fake RDPMC, and a page to disturb from inside. */
typedef struct fake {
	uint64_t fixed3, generic0, metrics, tsc;
	int rdpmc_calls, reads, bumps_left;
	struct perf_event_mmap_page *pg;
	pki_userpage next;
	uint64_t read_val, read_ena, read_run;
} fake;

static fake F;
static struct perf_event_mmap_page page;

static uint64_t f_rdpmc(void *arg, uint32_t ecx)
{
	fake *f = arg;
	f->rdpmc_calls++;
	if (f->bumps_left > 0 && ecx != PKI_PM_ECX) {
		f->bumps_left--;
		f->fixed3 += 1000; /* the counter moved with the update */
		pki_userpage_update(f->pg, &f->next);
	}
	if (ecx == PKI_PM_ECX)
		return f->metrics;
	if (ecx == (PKI_PM_ECX_FIXED | 3))
		return f->fixed3 & MASK48;
	assert_int_equal(ecx, 0);
	return f->generic0 & MASK48;
}

static uint64_t f_rdtsc(void *arg)
{
	return ((fake *)arg)->tsc;
}

static ssize_t f_read(const pk_kernel *k, int fd, void *buf, size_t len)
{
	(void)k;
	assert_int_equal(fd, 7);
	assert_true(len >= 24);
	F.reads++;
	uint64_t v[3] = {F.read_val, F.read_ena, F.read_run};
	memcpy(buf, v, sizeof(v));
	return 24;
}

static const pk_kernel_ops f_ops = {.read = f_read};
static const pk_kernel f_kernel = {&f_ops, NULL, "fake"};

static pki_rd_ops ops_of(fake *f)
{
	return (pki_rd_ops){{f_rdpmc, f_rdtsc, f}, &f_kernel};
}

static void setup_page(uint32_t index, int64_t offset, bool rdpmc)
{
	memset(&F, 0, sizeof(F));
	memset(&page, 0, sizeof(page));
	F.pg = &page;
	F.next = (pki_userpage){.index = index, .offset = offset, .pmc_width = 48,
				.cap_user_rdpmc = rdpmc, .time_enabled = 1000, .time_running = 1000};
	pki_userpage_update(&page, &F.next);
}

static void test_rdpmc_and_fallback(void **state)
{
	(void)state;
	pki_rd_ops ops = ops_of(&F);
	pk_counts c;
	setup_page(1, 500, true);
	F.generic0 = 42;
	assert_int_equal(pki_rd_count(&ops, &page, 7, &c, NULL), 0);
	assert_true(c.val == 542);
	assert_int_equal(F.reads, 0);
	/* index 0: not on a counter, read(2) and no RDPMC at all */
	setup_page(0, 500, true);
	F.read_val = 9999, F.read_ena = 20, F.read_run = 10;
	assert_int_equal(pki_rd_count(&ops, &page, 7, &c, NULL), 1);
	assert_true(c.val == 9999 && c.ena == 20 && c.run == 10);
	assert_int_equal(F.reads, 1);
	assert_int_equal(F.rdpmc_calls, 0);
	/* RDPMC not allowed: the same */
	setup_page(1, 500, false);
	F.read_val = 5;
	assert_int_equal(pki_rd_count(&ops, &page, 7, &c, NULL), 1);
	assert_int_equal(F.rdpmc_calls, 0);
	/* no page (a software event never mapped) */
	assert_int_equal(pki_rd_count(&ops, NULL, 7, &c, NULL), 1);
	/* and the TopDown pair refuses to read half a group */
	uint64_t raw, m;
	setup_page(0, 0, true);
	assert_int_equal(pki_rd_topdown(&ops, &page, &c, &raw, &m, NULL), PKI_SELFREAD_FALLBACK);
	assert_int_equal(F.reads, 0);
	assert_int_equal(F.rdpmc_calls, 0);
}

/* A failed read is an error naming the fd, not a zero. */
static ssize_t bad_read(const pk_kernel *k, int fd, void *buf, size_t len)
{
	(void)k, (void)fd, (void)buf, (void)len;
	return -EBADF;
}

static void test_read_error(void **state)
{
	(void)state;
	pk_kernel_ops o = {.read = bad_read};
	pk_kernel k = {&o, NULL, "fake"};
	pki_rd_ops ops = {{f_rdpmc, NULL, &F}, &k};
	pk_counts c;
	pk_error err = {0};
	assert_int_equal(pki_rd_count(&ops, NULL, 3, &c, &err), -EBADF);
	assert_non_null(strstr(err.msg, "fd 3"));
}

/* SLOTS is 48 bits: a value above 2^47 reads negative after sign
 * extension; a slots counter is never negative in use, but the width must
 * be applied before scaling the fields (a raw 2^48 - 10 would otherwise
 * scale the fields by 2^48). Below 2^47 the raw value is the count. */
static void test_topdown_pair_sign_extension(void **state)
{
	(void)state;
	pki_rd_ops ops = ops_of(&F);
	setup_page(PKI_PM_ECX_FIXED | 4, 0, true);
	F.fixed3 = 255000;
	F.metrics = 0x1020304050607080ULL;
	pk_counts c;
	uint64_t raw, m;
	assert_int_equal(pki_rd_topdown(&ops, &page, &c, &raw, &m, NULL), 0);
	assert_true(raw == 255000 && c.val == 255000 && m == F.metrics);
	/* byte 0 = 0x80 = 128: 255000 x 128 / 255 */
	assert_true(pki_pm_value(raw, m, 0) == 128000);
	assert_true(pki_pm_value(raw, m, 7) == 16000);
	/* a counter bit 63..48 set by the emulation is ignored by the width */
	F.fixed3 = (0xabcdULL << 48) | 1000;
	assert_int_equal(pki_rd_topdown(&ops, &page, &c, &raw, &m, NULL), 0);
	assert_true(raw == 1000);
	F.fixed3 = MASK48 - 9; /* -10 in 48 bits */
	assert_int_equal(pki_rd_topdown(&ops, &page, &c, &raw, &m, NULL), 0);
	assert_true(raw == 0);
	assert_true((int64_t)c.val == -10);
}

/* The page is updated while the pair is read: both registers are read
 * again, and the values kept are those of the last, consistent pass. */
static void test_topdown_pair_retry(void **state)
{
	(void)state;
	pki_rd_ops ops = ops_of(&F);
	setup_page(PKI_PM_ECX_FIXED | 4, 0, true);
	F.fixed3 = 1000;
	F.metrics = 0xff;
	F.bumps_left = 3;
	pk_counts c;
	uint64_t raw, m;
	assert_int_equal(pki_rd_topdown(&ops, &page, &c, &raw, &m, NULL), 0);
	assert_int_equal(F.rdpmc_calls, 8); /* 4 passes x (slots, metrics) */
	assert_true(raw == 4000 && c.val == 4000);
	/* a lock that never settles */
	F.bumps_left = 1 << 30;
	pk_error err = {0};
	assert_int_equal(pki_rd_topdown(&ops, &page, &c, &raw, &m, &err), -EAGAIN);
	assert_non_null(strstr(err.msg, "lock"));
}

/* Multiplexed: enabled and running move on with the TSC (running only on
 * a counter), and the count scales by enabled / running. */
static void test_times_and_scaling(void **state)
{
	(void)state;
	pki_rd_ops ops = ops_of(&F);
	setup_page(1, 0, true);
	F.next.time_enabled = 2000;
	F.next.time_running = 1000;
	F.next.cap_user_time = true;
	pki_userpage_vtime(&F.next, 5000); /* the update at t = 5000 ns */
	pki_userpage_update(&page, &F.next);
	F.tsc = 6000;
	F.generic0 = 300;
	pk_counts c;
	assert_int_equal(pki_rd_count(&ops, &page, 7, &c, NULL), 0);
	assert_true(c.ena == 3000 && c.run == 2000 && c.val == 300);
	pk_scaled s;
	pk_counts_scale(&c, &s);
	assert_true(s.scaled);
	assert_float_equal(s.value, 450.0, 1e-9);
	/* not multiplexed: libperf's loop leaves the times of the update; the
	 * region reader asks for them now (each core type's running time) */
	F.next.time_enabled = F.next.time_running = 1000;
	pki_userpage_update(&page, &F.next);
	assert_int_equal(pki_rd_count(&ops, &page, 7, &c, NULL), 0);
	assert_true(c.ena == 1000 && c.run == 1000);
	ops.sr.times_now = true;
	assert_int_equal(pki_rd_count(&ops, &page, 7, &c, NULL), 0);
	assert_true(c.ena == 2000 && c.run == 2000);
	/* and through the TopDown pair */
	uint64_t raw, m;
	assert_int_equal(pki_rd_topdown(&ops, &page, &c, &raw, &m, NULL), 0);
	assert_true(c.ena == 2000 && c.run == 2000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rdpmc_and_fallback),
		cmocka_unit_test(test_read_error),
		cmocka_unit_test(test_topdown_pair_sign_extension),
		cmocka_unit_test(test_topdown_pair_retry),
		cmocka_unit_test(test_times_and_scaling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
