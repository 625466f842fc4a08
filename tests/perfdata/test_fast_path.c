/* The fast read path (pk_pd_next_parsed, perfdata.h) against the plain
 * one (pk_pd_next and pk_pd_reader_parse_sample): on a file of two events
 * with many head fields, call chains and raw data, samples in interleaved
 * per-CPU streams, out of order, at equal times, over rounds, with a
 * sample of an unknown id and a damaged one, the two events' ids sharing a
 * slot of the reader's id memo, both give the same events in
 * the same order, every event and sample field equal (a sample's id fields
 * are the public event's), and the same counters; the names version moves when a name changes. The order itself is checked too: by time, ties in file order,
 * a round's records not before the previous round's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "perfdata/pd_internal.h"
#include "perfdata/sample_write.h"

#define ST_A                                                                                      \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define ST_B                                                                                      \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define ID_A 11
#define ID_B (ID_A + PD_ID_MEMO) /* the reader's id memo slot of ID_A */
#define ROUNDS 6
#define PER_CPU 40              /* samples per CPU stream and round */
#define LATE_TIME 1503          /* in round 2, older than round 0's last */

static struct perf_event_attr attr_of(uint64_t st)
{
	struct perf_event_attr a = {0};
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000;
	a.sample_type = st;
	a.sample_id_all = 1;
	return a;
}

static void put(pk_pd_writer *w, const void *rec, size_t len)
{
	assert_int_equal(pk_pd_writer_write(w, rec, len, NULL), 0);
}

/* A sample whose ip is its place in the file (the order check reads it). */
static void put_sample(pk_pd_writer *w, uint64_t seq, uint64_t time, uint32_t cpu)
{
	static const uint64_t chain[] = {PERF_CONTEXT_USER, 0x401000, 0x401100};
	static const uint8_t raw[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	bool a = seq % 3 != 0;
	struct perf_event_attr at = attr_of(a ? ST_A : ST_B);
	pk_pd_sample s = {.misc = PERF_RECORD_MISC_USER, .ip = seq, .pid = 40 + cpu,
			  .tid = 50 + cpu, .time = time, .addr = 0xa000 + seq, .cpu = cpu,
			  .period = 1000 + seq, .stream_id = 0x5d};
	s.identifier = s.id = a ? ID_A : ID_B;
	s.callchain = chain;
	s.callchain_nr = 3;
	s.raw = raw;
	s.raw_size = sizeof(raw) - seq % 4;
	uint8_t buf[512];
	ssize_t n = pki_pd_sample_write(&at, &s, buf, sizeof(buf), NULL);
	assert_true(n > 0);
	put(w, buf, (size_t)n);
}

static void put_comm(pk_pd_writer *w, uint64_t time)
{
	uint8_t rec[128] = {0};
	pk_pd_sample_id id = {.pid = 40, .tid = 50, .time = time, .id = ID_A, .cpu = 0};
	size_t n = 8 + 8 + 16;
	pd_st32(rec, PERF_RECORD_COMM);
	pd_st32(rec + 8, 40);
	pd_st32(rec + 12, 50);
	memcpy(rec + 16, "worker", 6);
	n += pki_pd_write_trailer(rec + n, ST_A, &id);
	pd_st16(rec + 6, (uint16_t)n);
	put(w, rec, n);
}

/* A sample of id 99 (no such event), and one of event A whose call chain
 * claims more entries than the record holds. */
static void put_bad_samples(pk_pd_writer *w, uint64_t time)
{
	uint8_t rec[128] = {0};
	pd_st32(rec, PERF_RECORD_SAMPLE);
	pd_st16(rec + 6, 8 + 8 * 8);
	pd_st64(rec + 8, 99);
	put(w, rec, 8 + 8 * 8);
	memset(rec, 0, sizeof(rec));
	pd_st32(rec, PERF_RECORD_SAMPLE);
	pd_st16(rec + 6, 8 + 10 * 8);
	pd_st64(rec + 8, ID_A);
	pd_st64(rec + 8 + 3 * 8, time);   /* TIME: the fourth of 8 head fields */
	pd_st64(rec + 8 + 8 * 8, 1000);   /* PERIOD */
	pd_st64(rec + 8 + 9 * 8, 500);    /* CALLCHAIN nr: far too many */
	put(w, rec, 8 + 10 * 8);
}

/* EVENT_UPDATE: event B's name becomes "renamed". */
static void put_rename(pk_pd_writer *w)
{
	uint8_t rec[40] = {0};
	pd_st32(rec, PK_RECORD_EVENT_UPDATE);
	pd_st16(rec + 6, sizeof(rec));
	pd_st64(rec + 8, PD_EVENT_UPDATE_NAME);
	pd_st64(rec + 16, ID_B);
	memcpy(rec + 24, "renamed", 7);
	put(w, rec, sizeof(rec));
}

static const uint8_t round_rec[8] = {PK_RECORD_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0};

/* Each round: two CPU streams, each in time order, written interleaved,
 * some times equal across and within streams, one stream's first record
 * older than the previous round's last (out of order). */
static void write_file(const char *path)
{
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, false, &w, NULL), 0);
	struct perf_event_attr a = attr_of(ST_A), b = attr_of(ST_B);
	uint64_t ida = ID_A, idb = ID_B;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "a", &ida, 1, NULL), 0);
	assert_int_equal(pk_pd_writer_add_evsel(w, &b, 0, "b", &idb, 1, NULL), 0);
	assert_int_equal(pk_pd_writer_begin(w, NULL), 0);
	put_comm(w, 5);
	uint64_t seq = 0;
	for (uint64_t r = 0; r < ROUNDS; r++) {
		uint64_t base = 1000 + r * 1000;
		for (uint64_t i = 0; i < PER_CPU; i++) {
			put_sample(w, seq++, base + i * 20, 0);
			put_sample(w, seq++, base + i * 20 + (i % 4 ? 5 : 0), 1);
			if (i % 7 == 0) /* a tie inside one stream */
				put_sample(w, seq++, base + i * 20, 0);
		}
		if (r == 2)
			put_sample(w, seq++, LATE_TIME, 1); /* out of order */
		if (r == 3)
			put_bad_samples(w, base + 3);
		if (r == 4)
			put_rename(w);
		put(w, round_rec, sizeof(round_rec));
	}
	assert_int_equal(pk_pd_writer_close(w, NULL), 0);
}

static void read_whole(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	*buf = malloc(*len);
	assert_non_null(*buf);
	assert_int_equal(fread(*buf, 1, *len, f), *len);
	fclose(f);
}

/* A sample's id fields: the public event's, or the fast path's sample's
 * where it left them unread. */
static void assert_same_id(const pk_pd_event *x, const pk_pd_event *y, const pk_pd_sample *ys)
{
	if (y->type == PERF_RECORD_SAMPLE && !y->id.fields) {
		uint64_t st = ys->type;
		assert_int_equal(x->id.fields, st & PD_SAMPLE_HEAD_FIELDS);
		assert_int_equal(x->id.pid, ys->pid);
		assert_int_equal(x->id.tid, ys->tid);
		assert_int_equal(x->id.time, ys->time);
		assert_int_equal(x->id.id, st & PERF_SAMPLE_ID ? ys->id : ys->identifier);
		assert_int_equal(x->id.stream_id, st & PERF_SAMPLE_STREAM_ID ? ys->stream_id : 0);
		assert_int_equal(x->id.cpu, ys->cpu);
		return;
	}
	assert_int_equal(x->id.fields, y->id.fields);
	assert_int_equal(x->id.pid, y->id.pid);
	assert_int_equal(x->id.tid, y->id.tid);
	assert_int_equal(x->id.time, y->id.time);
	assert_int_equal(x->id.id, y->id.id);
	assert_int_equal(x->id.stream_id, y->id.stream_id);
	assert_int_equal(x->id.cpu, y->id.cpu);
}

static void assert_same_event(const pk_pd_event *x, const pk_pd_event *y, const pk_pd_sample *ys)
{
	assert_int_equal(x->type, y->type);
	assert_int_equal(x->misc, y->misc);
	assert_int_equal(x->size, y->size);
	assert_memory_equal(x->data, y->data, x->size);
	assert_int_equal(x->offset, y->offset);
	assert_int_equal(x->in_compressed, y->in_compressed);
	assert_int_equal(!x->evsel, !y->evsel); /* each reader has its own */
	if (x->evsel)
		assert_int_equal(x->evsel->idx, y->evsel->idx);
	assert_int_equal(x->has_time, y->has_time);
	assert_same_id(x, y, ys);
	assert_ptr_equal(x->aux, y->aux);
	assert_int_equal(x->aux_size, y->aux_size);
}

/* Every field: both parse the same bytes (one buffer), so even the
 * pointers into the record are equal. */
static void assert_same_sample(const pk_pd_sample *x, const pk_pd_sample *y)
{
	assert_memory_equal(x, y, sizeof(*x));
}

/* The public path's next sample or other event, as the CLI loop skipped. */
static int public_next(pk_pd_reader *r, pk_pd_event *ev, pk_pd_sample *s)
{
	int rc;
	while ((rc = pk_pd_next(r, ev, NULL)) > 0) {
		if (ev->type != PERF_RECORD_SAMPLE)
			return rc;
		*s = (pk_pd_sample)PK_PD_SAMPLE_INIT;
		if (ev->evsel && pk_pd_reader_parse_sample(r, ev, s, NULL) == 0)
			return rc;
	}
	return rc;
}

/* Time order, ties in file order (the ip is the place in the file). */
static void check_order(const pk_pd_event *ev, const pk_pd_sample *s, uint64_t *last_time,
			uint64_t *last_seq)
{
	if (ev->type != PERF_RECORD_SAMPLE || s->time == LATE_TIME)
		return;
	if (s->time < *last_time)
		fail_msg("sample %llu at %llu after %llu", (unsigned long long)s->ip,
			 (unsigned long long)s->time, (unsigned long long)*last_time);
	if (s->time == *last_time)
		assert_true(s->ip > *last_seq);
	*last_time = s->time;
	*last_seq = s->ip;
}

/* The names version moves at the EVENT_UPDATE, and only there. */
static void check_names_version(const pk_pd_reader *r, const pk_pd_event *ev, uint64_t *version)
{
	uint64_t now = pk_pd_names_version(r);
	if (ev->type != PK_RECORD_EVENT_UPDATE) {
		assert_int_equal(now, *version);
		return;
	}
	assert_int_not_equal(now, *version);
	assert_string_equal(pk_pd_evsel_name(pk_pd_evsel_at(r, 1)), "renamed");
	*version = now;
}

static void compare_paths(pk_pd_reader *pub, pk_pd_reader *fast, bool same_buffer)
{
	uint64_t version = pk_pd_names_version(fast), start_version = version;
	pk_pd_event e1, e2;
	pk_pd_sample s1 = PK_PD_SAMPLE_INIT, s2 = PK_PD_SAMPLE_INIT;
	uint64_t last_time = 0, last_seq = 0, samples = 0;
	int rc1, rc2;
	do {
		rc1 = public_next(pub, &e1, &s1);
		/* s2 stays as the last call left it (perfdata.h): a sample of
		 * the same event is then written over, not cleared */
		rc2 = pk_pd_next_parsed(fast, &e2, &s2, NULL);
		assert_int_equal(rc1, rc2);
		if (rc1 <= 0)
			break;
		if (same_buffer)
			assert_same_event(&e1, &e2, &s2);
		else
			assert_int_equal(e1.offset, e2.offset);
		check_names_version(fast, &e2, &version);
		if (e1.type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		if (same_buffer)
			assert_same_sample(&s1, &s2);
		else
			assert_int_equal(s1.ip, s2.ip);
		check_order(&e2, &s2, &last_time, &last_seq);
	} while (rc1 > 0);
	assert_int_equal(samples, ROUNDS * (2 * PER_CPU + (PER_CPU + 6) / 7) + 1);
	assert_int_not_equal(version, start_version); /* the EVENT_UPDATE came */
	const pk_pd_stats *a = pk_pd_get_stats(pub), *b = pk_pd_get_stats(fast);
	for (int k = 0; k < PK_PD_DROP_MAX; k++) {
		assert_int_equal(a->drops[k].count, b->drops[k].count);
		assert_int_equal(a->drops[k].first_offset, b->drops[k].first_offset);
		assert_string_equal(a->drops[k].first_detail ? a->drops[k].first_detail : "",
				    b->drops[k].first_detail ? b->drops[k].first_detail : "");
	}
	assert_int_equal(b->drops[PK_PD_DROP_UNKNOWN_ID].count, 1);
	assert_int_equal(b->drops[PK_PD_DROP_BAD_SAMPLE].count, 1);
	assert_int_equal(a->nr_out_of_order, b->nr_out_of_order);
	assert_int_equal(b->nr_out_of_order, 1);
}

static void test_fast_equals_public(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char path[1024];
	snprintf(path, sizeof(path), "%s/fast.data", dir);
	write_file(path);
	uint8_t *buf;
	size_t len;
	read_whole(path, &buf, &len);
	/* memory: one buffer, every pointer comparable */
	pk_pd_reader *pub, *fast;
	assert_int_equal(pk_pd_reader_open_mem(buf, len, NULL, &pub, NULL), 0);
	assert_int_equal(pk_pd_reader_open_mem(buf, len, NULL, &fast, NULL), 0);
	compare_paths(pub, fast, true);
	pk_pd_reader_close(pub);
	pk_pd_reader_close(fast);
	/* the mapped file; and read in small chunks (records copied, not held) */
	pk_pd_open_opts small = {.chunk_size = 4096};
	assert_int_equal(pk_pd_reader_open(path, NULL, &pub, NULL), 0);
	assert_int_equal(pk_pd_reader_open(path, &small, &fast, NULL), 0);
	compare_paths(pub, fast, false);
	pk_pd_reader_close(pub);
	pk_pd_reader_close(fast);
	free(buf);
	unlink(path);
	rmdir(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_equals_public),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
