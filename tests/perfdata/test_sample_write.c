/* The sample writer (lib/perfdata/sample_write.c) against the parser
 * (sample.c) and against records laid out by hand from the layout facts
 * (perfdata.md 1.5 and 1.6): round trips over many sample_type /
 * read_format / branch_sample_type combinations (build, parse, compare
 * every field the sample_type has), byte-exact records, the READ values
 * against pk_counts_parse, the LOST record and trailer, and the errors. */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "perfdata/pd_internal.h"
#include "perfdata/sample_write.h"

#define BR_HW_INDEX (1ULL << 17)
#define BR_COUNTERS (1ULL << 19)

static uint8_t buf[PKI_PD_RECORD_MAX + 8];

/* An input with a distinct value in every field; the arrays are static. */
static const uint64_t ips[] = {0x401000, 0x401010, (uint64_t)-512, 0x7f0000001234};
static const uint8_t raw_bytes[] = {1, 2, 3, 4, 5};
static const pk_pd_branch_entry branches[] = {{0x10, 0x20, 1}, {0x30, 0x40, 2}, {0x50, 0x60, 3}};
static const uint64_t br_counters[] = {7, 8, 9};
static const uint64_t uregs[] = {11, 12, 13};
static const uint64_t iregs[] = {21, 22};
static const uint8_t stack[16] = {0xaa, 0xbb, 0xcc};
static const uint8_t aux[] = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04, 0x05};
static uint64_t read_vals[32];

/* Every field, each a different value. */
static const pk_pd_sample full = {
	.misc = PERF_RECORD_MISC_USER, .identifier = 0x1d, .ip = 0x401234, .pid = 1001,
	.tid = 1002, .time = 123456789, .addr = 0xdead000, .id = 0x1d, .stream_id = 0x5d,
	.cpu = 3, .period = 100003, .read = read_vals,
	.callchain = ips, .callchain_nr = 4, .raw = raw_bytes, .raw_size = sizeof(raw_bytes),
	.branch = branches, .branch_nr = 3, .branch_hw_idx = 2, .branch_counters = br_counters,
	.user_abi = 2, .user_regs = uregs, .user_regs_nr = 3,
	.stack = stack, .stack_size = sizeof(stack), .stack_dyn_size = 12,
	.weight = 77, .weight_var2 = 5, .weight_var3 = 6, .data_src = 0x68100142,
	.transaction = 0x4, .intr_abi = 2, .intr_regs = iregs, .intr_regs_nr = 2,
	.phys_addr = 0x12345000, .cgroup = 0x77, .data_page_size = 4096,
	.code_page_size = 2097152, .aux = aux, .aux_size = sizeof(aux),
};

/* `full`, with the READ values of the attr's read_format. */
static void fill(pk_pd_sample *s, const struct perf_event_attr *a)
{
	*s = full;
	pk_counts c[3] = {{1000, 500, 400, 0x1d, 1}, {2000, 500, 400, 0x1e, 2},
			  {3000, 500, 400, 0x1f, 3}};
	size_t nr = a->read_format & PERF_FORMAT_GROUP ? 3 : 1;
	int n = pki_pd_read_values(a->read_format, c, nr, read_vals, 32);
	assert_true(n > 0);
	s->read_nr = (size_t)n;
}

#define EQ(field) assert_true(in->field == got->field)

static void compare_arrays(const pk_pd_sample *in, const pk_pd_sample *got, uint64_t st,
			   uint64_t bst)
{
	if (st & PERF_SAMPLE_READ) {
		assert_int_equal(got->read_nr, in->read_nr);
		assert_memory_equal(got->read, in->read, in->read_nr * 8);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		EQ(callchain_nr);
		assert_memory_equal(got->callchain, in->callchain, in->callchain_nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) { /* u32 + data padded to 8: 4 + 5 -> 16 */
		assert_int_equal(got->raw_size, 12);
		assert_memory_equal(got->raw, in->raw, in->raw_size);
		for (uint32_t i = in->raw_size; i < got->raw_size; i++)
			assert_int_equal(got->raw[i], 0);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		EQ(branch_nr);
		assert_memory_equal(got->branch, in->branch, in->branch_nr * 24);
		assert_int_equal(got->has_branch_hw_idx, !!(bst & BR_HW_INDEX));
		if (bst & BR_HW_INDEX)
			EQ(branch_hw_idx);
		if (bst & BR_COUNTERS)
			assert_memory_equal(got->branch_counters, in->branch_counters, 24);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		EQ(user_abi);
		EQ(user_regs_nr);
		assert_memory_equal(got->user_regs, in->user_regs, in->user_regs_nr * 8);
	}
	if (st & PERF_SAMPLE_REGS_INTR) {
		EQ(intr_abi);
		EQ(intr_regs_nr);
		assert_memory_equal(got->intr_regs, in->intr_regs, in->intr_regs_nr * 8);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		EQ(stack_size);
		EQ(stack_dyn_size);
		assert_memory_equal(got->stack, in->stack, in->stack_size);
	}
	if (st & PERF_SAMPLE_AUX) { /* padded to 8: 9 -> 16 */
		assert_int_equal(got->aux_size, 16);
		assert_memory_equal(got->aux, in->aux, in->aux_size);
	}
}

static void compare(const pk_pd_sample *in, const pk_pd_sample *got, uint64_t st, uint64_t bst)
{
	const struct { uint64_t bit; uint64_t a, b; } u64s[] = {
		{PERF_SAMPLE_IDENTIFIER, in->identifier, got->identifier},
		{PERF_SAMPLE_IP, in->ip, got->ip},
		{PERF_SAMPLE_TID, (uint64_t)in->pid << 32 | in->tid, (uint64_t)got->pid << 32 | got->tid},
		{PERF_SAMPLE_TIME, in->time, got->time},
		{PERF_SAMPLE_ADDR, in->addr, got->addr},
		{PERF_SAMPLE_ID, in->id, got->id},
		{PERF_SAMPLE_STREAM_ID, in->stream_id, got->stream_id},
		{PERF_SAMPLE_CPU, in->cpu, got->cpu},
		{PERF_SAMPLE_PERIOD, in->period, got->period},
		{PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, in->weight, got->weight},
		{PERF_SAMPLE_DATA_SRC, in->data_src, got->data_src},
		{PERF_SAMPLE_TRANSACTION, in->transaction, got->transaction},
		{PERF_SAMPLE_PHYS_ADDR, in->phys_addr, got->phys_addr},
		{PERF_SAMPLE_CGROUP, in->cgroup, got->cgroup},
		{PERF_SAMPLE_DATA_PAGE_SIZE, in->data_page_size, got->data_page_size},
		{PERF_SAMPLE_CODE_PAGE_SIZE, in->code_page_size, got->code_page_size},
	};
	for (size_t i = 0; i < sizeof(u64s) / sizeof(u64s[0]); i++)
		if (st & u64s[i].bit)
			assert_true(u64s[i].a == u64s[i].b);
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		EQ(weight_var2);
		EQ(weight_var3);
	}
	compare_arrays(in, got, st, bst);
}

/* Builds, parses and compares one combination; returns the record size. */
static size_t round_trip(uint64_t st, uint64_t rf, uint64_t bst)
{
	pk_pd_evsel ev;
	memset(&ev, 0, sizeof(ev));
	ev.attr.sample_type = st;
	ev.attr.read_format = rf;
	ev.attr.branch_sample_type = bst;
	ev.attr.sample_regs_user = 0x7;    /* 3 registers */
	ev.attr.sample_regs_intr = 0x300;  /* 2 registers */
	ev.attr.sample_period = 1;
	pk_pd_sample in = PK_PD_SAMPLE_INIT, got = PK_PD_SAMPLE_INIT;
	fill(&in, &ev.attr);
	pk_error err = {0};
	ssize_t n = pki_pd_sample_write(&ev.attr, &in, buf, sizeof(buf), &err);
	if (n < 0)
		fail_msg("st 0x%llx rf 0x%llx: %s", (unsigned long long)st, (unsigned long long)rf,
			 err.msg);
	assert_int_equal(n % 8, 0);
	assert_int_equal(pd_ld32(buf), PERF_RECORD_SAMPLE);
	assert_int_equal(pd_ld16(buf + 4), in.misc);
	assert_int_equal(pd_ld16(buf + 6), n);
	if (pk_pd_parse_sample_body(&ev, buf + 8, (size_t)n - 8, &got, &err) < 0)
		fail_msg("st 0x%llx: parse: %s", (unsigned long long)st, err.msg);
	compare(&in, &got, st, bst);
	return (size_t)n;
}

static void test_each_bit_alone(void **state)
{
	(void)state;
	for (int b = 0; b < 25; b++)
		round_trip(1ULL << b, PERF_FORMAT_ID, 0);
}

/* Deterministic pseudo-random subsets of every bit (never WEIGHT and
 * WEIGHT_STRUCT together), with every read_format and branch flags. */
static void test_combinations(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t total = 0;
	for (int i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t st = x & PKI_PD_SAMPLE_KNOWN;
		if ((st & PERF_SAMPLE_WEIGHT) && (st & PERF_SAMPLE_WEIGHT_STRUCT))
			st &= ~PERF_SAMPLE_WEIGHT;
		uint64_t rf = (x >> 40) & 0x1f;
		uint64_t bst = (x >> 50 & 1 ? BR_HW_INDEX : 0) | (x >> 51 & 1 ? BR_COUNTERS : 0);
		total += round_trip(st, rf, bst);
	}
	round_trip(PKI_PD_SAMPLE_KNOWN & ~PERF_SAMPLE_WEIGHT, 0x1f, BR_HW_INDEX | BR_COUNTERS);
	assert_true(total > 2000 * 64); /* the combinations carried real bodies */
}

/* perfdata.md 1.6, "observed order in g.data: ip, pid/tid, time, period". */
static void test_bytes_ip_tid_time_period(void **state)
{
	(void)state;
	struct perf_event_attr a = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						   PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD};
	pk_pd_sample s = {.misc = PERF_RECORD_MISC_USER, .ip = 0x401000, .pid = 7, .tid = 8,
			  .time = 0x1122334455, .period = 4000};
	const uint64_t want[] = {9ULL | 2ULL << 32 | 40ULL << 48, 0x401000, 8ULL << 32 | 7,
				 0x1122334455, 4000};
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), NULL), 40);
	assert_memory_equal(buf, want, sizeof(want));
}

/* IDENTIFIER first, CPU as {u32 cpu, res}, a group READ
 * {nr, ena, run, {value, id, lost} x nr}. */
static void test_bytes_group_read(void **state)
{
	(void)state;
	struct perf_event_attr a = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_ID |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_READ,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_LOST};
	pk_counts c[2] = {{10, 300, 200, 41, 0}, {20, 999, 999, 42, 5}};
	uint64_t vals[16];
	assert_int_equal(pki_pd_read_values(a.read_format, c, 2, vals, 16), 9);
	pk_pd_sample s = {.identifier = 41, .ip = 0xabc, .id = 41, .cpu = 2, .cpu_res = 0,
			  .read = vals, .read_nr = 9};
	const uint64_t want[] = {9ULL | 112ULL << 48, 41, 0xabc, 41, 2, 2, 300, 200, 10, 41, 0,
				 20, 42, 5};
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), NULL), 112);
	assert_memory_equal(buf, want, sizeof(want));
}

/* RAW {u32 size; data} padded so the record stays 8-aligned, the size being
 * the padded one; WEIGHT_STRUCT {u32 var1; u16 var2, var3}. */
static void test_bytes_raw_weight_struct(void **state)
{
	(void)state;
	struct perf_event_attr a = {.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT_STRUCT};
	pk_pd_sample s = {.raw = raw_bytes, .raw_size = 5, .weight = 0x11223344,
			  .weight_var2 = 0x5566, .weight_var3 = 0x7788};
	const uint8_t want[] = {9, 0, 0, 0, 0, 0, 32, 0,    12, 0, 0, 0, 1, 2, 3, 4,
				5, 0, 0, 0, 0, 0, 0, 0,     0x44, 0x33, 0x22, 0x11, 0x66, 0x55,
				0x88, 0x77};
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), NULL), 32);
	assert_memory_equal(buf, want, sizeof(want));
}

/* LOST {u64 id, lost} + the sample_id trailer TID, TIME, ID, STREAM_ID,
 * CPU, IDENTIFIER (perfdata.md 1.5, 1.6). */
static void test_bytes_lost_with_trailer(void **state)
{
	(void)state;
	struct perf_event_attr a = {.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
						   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IP,
				    .sample_id_all = 1};
	pk_pd_sample_id sid = {.pid = 5, .tid = 6, .time = 777, .cpu = 1, .id = 99};
	uint8_t rec[PKI_PD_LOST_MAX];
	const uint64_t want[] = {2ULL | 56ULL << 48, 99, 3, 6ULL << 32 | 5, 777, 1, 99};
	assert_int_equal(pki_pd_lost_record(rec, &a, &sid, 99, 3), 56);
	assert_memory_equal(rec, want, sizeof(want));
	a.sample_id_all = 0;
	assert_int_equal(pki_pd_lost_record(rec, &a, &sid, 99, 3), 24);
	assert_int_equal(pd_ld16(rec + 6), 24);
}

/* The READ values parse back with pk_counts_parse, for every read_format. */
static void test_read_values_vs_counts_parse(void **state)
{
	(void)state;
	pk_counts c[3] = {{1, 10, 9, 101, 4}, {2, 10, 9, 102, 5}, {3, 10, 9, 103, 6}};
	for (uint64_t rf = 0; rf < 32; rf++) {
		size_t nr = rf & PERF_FORMAT_GROUP ? 3 : 1;
		uint64_t v[32];
		int n = pki_pd_read_values(rf, c, nr, v, 32);
		assert_true(n > 0);
		pk_counts got[3];
		assert_int_equal(pk_counts_parse(rf, v, (size_t)n * 8, got, 3), (int)nr);
		for (size_t i = 0; i < nr; i++) {
			assert_true(got[i].val == c[i].val);
			if (rf & PERF_FORMAT_ID)
				assert_true(got[i].id == c[i].id);
			if (rf & PERF_FORMAT_LOST)
				assert_true(got[i].lost == c[i].lost);
		}
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			assert_true(got[0].ena == 10);
	}
	uint64_t v[4];
	assert_int_equal(pki_pd_read_values(PERF_FORMAT_ID, c, 2, v, 4), -EINVAL);
	assert_int_equal(pki_pd_read_values(PERF_FORMAT_GROUP | PERF_FORMAT_ID, c, 3, v, 4),
			 -E2BIG);
}

static void test_errors(void **state)
{
	(void)state;
	pk_error err = {0};
	struct perf_event_attr a = {.sample_type = PERF_SAMPLE_IP | (1ULL << 25)};
	pk_pd_sample s = PK_PD_SAMPLE_INIT;
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "bit 25"));

	a.sample_type = PERF_SAMPLE_READ;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
	uint64_t one = 5;
	s.read = &one;
	s.read_nr = 1;
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "READ"));

	a.sample_type = PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = 0xf;
	s.user_abi = 2;
	s.user_regs = uregs;
	s.user_regs_nr = 3;
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "REGS_USER"));
	s.user_abi = 0; /* no registers with abi 0 */
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), &err), 16);

	a.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), &err), -EINVAL);

	a.sample_type = PERF_SAMPLE_CALLCHAIN;
	s.callchain_nr = 2;
	s.callchain = NULL;
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "CALLCHAIN"));
	static uint64_t many[9000];
	s.callchain = many;
	s.callchain_nr = 9000; /* 72016 bytes: more than a record holds */
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, sizeof(buf), &err), -E2BIG);
	assert_non_null(strstr(err.msg, "72016"));
	s.callchain_nr = 2;
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, 24, &err), -E2BIG);
	assert_int_equal(pki_pd_sample_write(&a, &s, buf, 32, &err), 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_bit_alone),
		cmocka_unit_test(test_combinations),
		cmocka_unit_test(test_bytes_ip_tid_time_period),
		cmocka_unit_test(test_bytes_group_read),
		cmocka_unit_test(test_bytes_raw_weight_struct),
		cmocka_unit_test(test_bytes_lost_with_trailer),
		cmocka_unit_test(test_read_values_vs_counts_parse),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
