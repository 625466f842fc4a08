/* The PMU model's ring buffer (lib/model/ring.c) read the way pmukit's
 * recorder reads a real one: the mapping length rule, records across the
 * wrap, data_head published, a full ring losing records and the
 * PERF_RECORD_LOST (id, count, trailer) before the next record that fits,
 * POLLIN from the watermark and from wakeup_events, the
 * PERF_EVENT_IOC_SET_OUTPUT checks, and samples from the sample writer
 * through the ring back to the parser. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/sampling.h"
#include "perfdata/pd_internal.h"
#include "perfdata/sample_write.h"

#define PAGE 4096

static uint64_t mapping[(1 + 4) * PAGE / 8];

/* A record of `len` bytes of type `type` whose payload words are `tag`. */
static void make(uint8_t *rec, uint32_t type, size_t len, uint64_t tag)
{
	memset(rec, 0, len);
	pd_st32(rec, type);
	pd_st16(rec + 6, (uint16_t)len);
	for (size_t o = 8; o < len; o += 8)
		pd_st64(rec + o, tag);
}

/* The reader's side (as lib/record/recorder.c): copies the next record out
 * of [data_tail, data_head) into rec and moves data_tail; 0 when empty. */
static size_t take(pki_ring *r, uint8_t *rec)
{
	struct perf_event_mmap_page *pg = r->page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail, mask = pg->data_size - 1;
	if (head == tail)
		return 0;
	const uint8_t *data = (const uint8_t *)pg + pg->data_offset;
	for (size_t i = 0; i < 8; i++)
		rec[i] = data[(tail + i) & mask];
	size_t size = pd_ld16(rec + 6);
	assert_true(size >= 8 && size <= head - tail);
	for (size_t i = 0; i < size; i++)
		rec[i] = data[(tail + i) & mask];
	__atomic_store_n(&pg->data_tail, tail + size, __ATOMIC_RELEASE);
	return size;
}

static const struct perf_event_attr plain = {.sample_type = PERF_SAMPLE_IP};

static void test_init_lengths(void **state)
{
	(void)state;
	pki_ring r;
	pk_error err = {0};
	assert_int_equal(pki_ring_init(&r, mapping, 5 * PAGE, PAGE, true, &plain, &err), 0);
	assert_true(r.page->data_offset == PAGE);
	assert_true(r.page->data_size == 4 * PAGE);
	assert_true(r.page->cap_bit0_is_deprecated);
	assert_true(r.watermark == 2 * PAGE); /* half the data without a watermark */
	/* the user page alone: self-monitoring */
	assert_int_equal(pki_ring_init(&r, mapping, PAGE, PAGE, false, &plain, &err), 0);
	assert_true(r.page->data_size == 0);
	const size_t bad[] = {0, 4 * PAGE, 3 * PAGE + 8, PAGE / 2};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pki_ring_init(&r, mapping, bad[i], PAGE, true, &plain, &err),
				 -EINVAL);
		assert_non_null(strstr(err.msg, "1 + 2^n pages"));
	}
	assert_int_equal(pki_ring_init(&r, mapping, 5 * PAGE, PAGE, false, &plain, &err),
			 -EOPNOTSUPP);
	assert_int_equal(pki_ring_init(&r, mapping, 3 * 1000, 1000, true, &plain, &err), -EINVAL);
}

/* 24-byte records do not divide the ring: many straddle its end. */
static void test_wraps_and_publishes(void **state)
{
	(void)state;
	pki_ring r;
	assert_int_equal(pki_ring_init(&r, mapping, 2 * PAGE, PAGE, true, &plain, NULL), 0);
	pki_ring_writer w = {.attr = &plain, .id = 7};
	uint8_t rec[64], got[64];
	for (uint64_t i = 0; i < 2000; i++) {
		make(rec, PERF_RECORD_SAMPLE, 24, i);
		assert_int_equal(pki_ring_write(&r, &w, rec, 24), 0);
		assert_true(r.page->data_head == (i + 1) * 24);
		assert_int_equal(take(&r, got), 24);
		assert_memory_equal(got, rec, 24);
	}
	assert_true(r.page->data_head > 10 * PAGE); /* wrapped many times */
	make(rec, PERF_RECORD_SAMPLE, 24, 0);
	pd_st16(rec + 6, 16); /* size not the length */
	assert_int_equal(pki_ring_write(&r, &w, rec, 24), -EINVAL);
}

/* Fills a 1-page ring with 64-byte records: 63 fit (4095 bytes of space). */
static void fill_full(pki_ring *r, const pki_ring_writer *w)
{
	uint8_t rec[64];
	for (uint64_t i = 0; i < 63; i++) {
		make(rec, PERF_RECORD_SAMPLE, 64, i);
		assert_int_equal(pki_ring_write(r, w, rec, 64), 0);
	}
	make(rec, PERF_RECORD_SAMPLE, 64, 63);
	assert_int_equal(pki_ring_write(r, w, rec, 64), -ENOSPC);
}

static void test_lost_then_lost_record(void **state)
{
	(void)state;
	struct perf_event_attr a = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						   PERF_SAMPLE_TIME | PERF_SAMPLE_ID,
				    .sample_id_all = 1};
	pki_ring r;
	assert_int_equal(pki_ring_init(&r, mapping, 2 * PAGE, PAGE, true, &a, NULL), 0);
	pki_ring_writer w = {.attr = &a, .id = 42, .sid = {.pid = 1, .tid = 2, .time = 3, .id = 42}};
	fill_full(&r, &w);
	uint8_t rec[128], got[256];
	make(rec, PERF_RECORD_SAMPLE, 16, 99);
	assert_int_equal(pki_ring_write(&r, &w, rec, 16), -ENOSPC);
	assert_true(r.lost == 2);
	uint64_t head = r.page->data_head;
	assert_true(head == 63 * 64); /* nothing of the lost ones was written */
	/* the reader frees one record: 64 + 63 bytes of space; the LOST record
	 * (48 with its trailer) and an 80-byte one do not fit together: lost too */
	assert_int_equal(take(&r, got), 64);
	make(rec, PERF_RECORD_SAMPLE, 80, 100);
	assert_int_equal(pki_ring_write(&r, &w, rec, 80), -ENOSPC);
	assert_true(r.lost == 3);
	while (take(&r, got))
		;
	make(rec, PERF_RECORD_SAMPLE, 64, 101);
	assert_int_equal(pki_ring_write(&r, &w, rec, 64), 0);
	assert_true(r.lost == 0);
	assert_int_equal(take(&r, got), 24 + 24);
	assert_int_equal(pd_ld32(got), PERF_RECORD_LOST);
	assert_true(pd_ld64(got + 8) == 42 && pd_ld64(got + 16) == 3);
	pk_pd_sample_id sid;
	pki_pd_parse_trailer(got, 48, a.sample_type, &sid);
	assert_true(sid.pid == 1 && sid.tid == 2 && sid.time == 3 && sid.id == 42);
	assert_int_equal(take(&r, got), 64);
	assert_true(pd_ld64(got + 8) == 101);
	assert_int_equal(take(&r, got), 0);
}

static void test_user_page_only_drops(void **state)
{
	(void)state;
	pki_ring r;
	assert_int_equal(pki_ring_init(&r, mapping, PAGE, PAGE, true, &plain, NULL), 0);
	pki_ring_writer w = {.attr = &plain};
	uint8_t rec[16];
	make(rec, PERF_RECORD_SAMPLE, 16, 1);
	/* ring_buffer_init pauses a ring without data pages: dropped, not
	 * counted (perf_output_begin counts only when nr_pages) */
	assert_int_equal(pki_ring_write(&r, &w, rec, 16), -ENOBUFS);
	assert_true(r.lost == 0);
}

static void test_watermark_wakes(void **state)
{
	(void)state;
	struct perf_event_attr a = {.watermark = 1, .wakeup_watermark = 256};
	pki_ring r;
	assert_int_equal(pki_ring_init(&r, mapping, 2 * PAGE, PAGE, true, &a, NULL), 0);
	pki_ring_writer w = {.attr = &a};
	uint8_t rec[64], got[64];
	int wakeups = 0;
	for (int i = 1; i <= 40; i++) { /* 40 x 64 = 2560 bytes */
		make(rec, PERF_RECORD_SAMPLE, 64, (uint64_t)i);
		assert_int_equal(pki_ring_write(&r, &w, rec, 64), 0);
		short ev = pki_ring_revents(&r);
		/* head passes wakeup + 256 at 320, 576, ...: every 4th record from the 5th */
		assert_int_equal(ev, i >= 5 && (i - 5) % 4 == 0 ? POLLIN : 0);
		wakeups += ev == POLLIN;
		take(&r, got);
	}
	assert_int_equal(wakeups, 9);
	assert_int_equal(pki_ring_revents(&r), 0); /* read by the poll */
	/* a watermark above the data size is capped at it */
	a.wakeup_watermark = 1 << 20;
	assert_int_equal(pki_ring_init(&r, mapping, 2 * PAGE, PAGE, true, &a, NULL), 0);
	assert_true(r.watermark == PAGE);
}

static void test_wakeup_events(void **state)
{
	(void)state;
	struct perf_event_attr a = {.wakeup_events = 3};
	pki_ring r;
	assert_int_equal(pki_ring_init(&r, mapping, 5 * PAGE, PAGE, true, &a, NULL), 0);
	pki_ring_writer w = {.attr = &a};
	uint8_t rec[16];
	short seen[7];
	for (int i = 0; i < 7; i++) {
		/* a COMM record between samples does not count */
		make(rec, i == 3 ? PERF_RECORD_COMM : PERF_RECORD_SAMPLE, 16, 0);
		assert_int_equal(pki_ring_write(&r, &w, rec, 16), 0);
		seen[i] = pki_ring_revents(&r);
	}
	const short want[7] = {0, 0, POLLIN, 0, 0, 0, POLLIN};
	assert_memory_equal(seen, want, sizeof(want));
}

static void test_set_output_rules(void **state)
{
	(void)state;
	pk_error err = {0};
	pki_output_event ev = {.id = 1, .cpu = 0, .task = -1, .clockid = -1};
	pki_output_event out = ev;
	out.id = 2;
	assert_int_equal(pki_ring_output_check(&ev, &out, &err), 0);
	assert_int_equal(pki_ring_output_check(&ev, &ev, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "own ring"));
	out.cpu = 1;
	assert_int_equal(pki_ring_output_check(&ev, &out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "different CPUs"));
	ev.cpu = out.cpu = -1;
	ev.task = 10;
	out.task = 11;
	assert_int_equal(pki_ring_output_check(&ev, &out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "different tasks"));
	out.task = 10;
	out.clockid = 1;
	assert_int_equal(pki_ring_output_check(&ev, &out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "clocks"));
	out.clockid = -1;
	ev.mapped = true;
	assert_int_equal(pki_ring_output_check(&ev, &out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "mapped"));
	ev.mapped = false;
	assert_int_equal(pki_ring_output_check(&ev, &out, &err), 0);
}

/* SET_OUTPUT in use: two events write samples into one ring; the LOST
 * record carries the id of the event that writes next (the kernel's
 * event->id of perf_output_begin). */
static void test_two_writers_one_ring(void **state)
{
	(void)state;
	struct perf_event_attr a = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ID};
	pki_ring r;
	assert_int_equal(pki_ring_init(&r, mapping, 2 * PAGE, PAGE, true, &a, NULL), 0);
	pki_ring_writer w1 = {.attr = &a, .id = 1}, w2 = {.attr = &a, .id = 2};
	fill_full(&r, &w1);
	uint8_t rec[64], got[64];
	while (take(&r, got))
		;
	make(rec, PERF_RECORD_SAMPLE, 16, 5);
	assert_int_equal(pki_ring_write(&r, &w2, rec, 16), 0);
	assert_int_equal(take(&r, got), 24); /* no trailer without sample_id_all */
	assert_true(pd_ld32(got) == PERF_RECORD_LOST && pd_ld64(got + 8) == 2 &&
		    pd_ld64(got + 16) == 1);
}

/* The pieces together, as the model's record path will use them: samples
 * built by the sample writer go through the ring across its wrap, and what
 * a reader takes parses back to the same fields. */
static void test_samples_through_the_ring(void **state)
{
	(void)state;
	pk_pd_evsel ev;
	memset(&ev, 0, sizeof(ev));
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_ID | PERF_SAMPLE_READ | PERF_SAMPLE_PERIOD;
	ev.attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	ev.attr.sample_period = 1000;
	pki_ring r;
	assert_int_equal(pki_ring_init(&r, mapping, 2 * PAGE, PAGE, true, &ev.attr, NULL), 0);
	pki_ring_writer w = {.attr = &ev.attr, .id = 11};
	uint8_t rec[256], got[256];
	for (uint64_t i = 0; i < 500; i++) {
		pk_counts c[2] = {{1000 * (i + 1), 10 * i, 10 * i, 11, 0},
				  {3000 * (i + 1), 10 * i, 10 * i, 12, 0}};
		uint64_t vals[8];
		pk_pd_sample s = {.ip = 0x401000 + i, .pid = 1001, .tid = 1001, .time = 10 * i,
				  .id = 11, .period = 1000, .read = vals};
		s.read_nr = (size_t)pki_pd_read_values(ev.attr.read_format, c, 2, vals, 8);
		ssize_t n = pki_pd_sample_write(&ev.attr, &s, rec, sizeof(rec), NULL);
		assert_true(n > 0);
		assert_int_equal(pki_ring_write(&r, &w, rec, (size_t)n), 0);
		assert_int_equal(take(&r, got), n);
		pk_pd_sample p = PK_PD_SAMPLE_INIT;
		assert_int_equal(pk_pd_parse_sample_body(&ev, got + 8, (size_t)n - 8, &p, NULL), 0);
		assert_true(p.ip == 0x401000 + i && p.time == 10 * i && p.id == 11);
		/* {nr, ena, {value, id} x 2} */
		assert_true(p.read_nr == 6 && p.read[0] == 2 && p.read[1] == 10 * i &&
			    p.read[2] == 1000 * (i + 1) && p.read[4] == 3000 * (i + 1) &&
			    p.read[5] == 12);
	}
	assert_true(r.page->data_head > 4 * PAGE); /* wrapped */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_lengths),
		cmocka_unit_test(test_wraps_and_publishes),
		cmocka_unit_test(test_lost_then_lost_record),
		cmocka_unit_test(test_user_page_only_drops),
		cmocka_unit_test(test_watermark_wakes),
		cmocka_unit_test(test_wakeup_events),
		cmocka_unit_test(test_set_output_rules),
		cmocka_unit_test(test_two_writers_one_ring),
		cmocka_unit_test(test_samples_through_the_ring),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
