/* perf.data reader and writer on hand-built byte buffers: both byte orders,
 * file and pipe mode, ordering, compression, damage with error offsets. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include <pmukit/perfdata.h>
#include <pmukit/record.h>

#include "pd_build.h"

/* Reads all samples; returns how many, fills times/ips. */
static int read_samples(pk_pd_reader *r, uint64_t *times, uint64_t *ips, int max, int *rc_out,
			pk_error *err)
{
	pk_pd_event ev;
	int n = 0, rc;
	while ((rc = pk_pd_next(r, &ev, err)) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		pk_pd_sample s = PK_PD_SAMPLE_INIT;
		assert_int_equal(pk_pd_parse_sample(&ev, &s, NULL), 0);
		if (n < max) {
			times[n] = s.time;
			ips[n] = s.ip;
		}
		assert_int_equal(s.pid, 42);
		n++;
	}
	*rc_out = rc;
	return n;
}

static void check_file(bool be, uint32_t attr_size)
{
	layout l;
	bb b = build_file(be, attr_size, &l);
	pk_pd_reader *r;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pd_reader_open_mem(b.p, b.len, NULL, &r, &err), 0);
	assert_int_equal(pk_pd_needs_swap(r), be);
	assert_int_equal(pk_pd_nr_evsels(r), 1);
	const pk_pd_evsel *e = pk_pd_evsel_at(r, 0);
	assert_int_equal(e->attr.sample_type, ST);
	assert_true(e->attr.sample_id_all);
	assert_true(e->attr.freq);
	assert_true(e->attr.disabled);
	assert_false(e->attr.inherit);
	assert_int_equal(e->attr.sample_freq, 4000);
	assert_int_equal(e->nr_ids, 1);
	assert_int_equal(e->ids[0], 7);
	/* no EVENT_DESC: the attr's name, with the modifiers perf adds */
	assert_string_equal(pk_pd_evsel_name(e), "cpu-clock:HG");
	uint64_t t[8], ip[8];
	int rc;
	int n = read_samples(r, t, ip, 8, &rc, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(n, 4);
	/* time order, though the file holds 3000, 1000, 2000, 4000 */
	assert_int_equal(t[0], 1000);
	assert_int_equal(t[1], 2000);
	assert_int_equal(t[2], 3000);
	assert_int_equal(t[3], 4000);
	assert_int_equal(ip[0], 0x400200);
	pk_pd_header h;
	assert_int_equal(pk_pd_header_read(r, &h, &err), 0);
	assert_non_null(h.hostname);
	assert_string_equal(h.hostname, "testhost");
	pk_pd_header_release(&h);
	assert_int_equal(pk_pd_get_stats(r)->nr_records[PERF_RECORD_SAMPLE], 4);
	pk_pd_reader_close(r);
	free(b.p);
}

static void test_file_le(void **state)
{
	(void)state;
	check_file(false, 128);
}

static void test_file_be(void **state)
{
	(void)state;
	check_file(true, 128);
}

static void test_attr_sizes(void **state)
{
	(void)state;
	/* VER0 (64) up to sizes newer than any perf knows */
	uint32_t sizes[] = {64, 72, 80, 96, 104, 112, 120, 128, 136, 144, 168};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		check_file(false, sizes[i]);
		check_file(true, sizes[i]);
	}
}

static void test_no_order(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	pk_pd_reader *r;
	pk_pd_open_opts o = {.no_order = true};
	assert_int_equal(pk_pd_reader_open_mem(b.p, b.len, &o, &r, NULL), 0);
	uint64_t t[8], ip[8];
	int rc;
	assert_int_equal(read_samples(r, t, ip, 8, &rc, NULL), 4);
	assert_int_equal(t[0], 3000);
	assert_int_equal(t[1], 1000);
	pk_pd_reader_close(r);
	free(b.p);
}

static void test_truncated(void **state)
{
	(void)state;
	layout l;
	bb full = build_file(false, 128, &l);
	/* cut in the middle of the third sample */
	size_t cut = l.sample_off[2] + 12;
	pk_pd_reader *r;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pd_reader_open_mem(full.p, cut, NULL, &r, &err), 0);
	uint64_t t[8], ip[8];
	int rc;
	int n = read_samples(r, t, ip, 8, &rc, &err);
	/* the two whole samples, in order, then the error at the cut record */
	assert_int_equal(n, 2);
	assert_int_equal(t[0], 1000);
	assert_int_equal(t[1], 3000);
	assert_true(rc < 0);
	assert_int_equal(err.pos, (long)l.sample_off[2]);
	assert_true(err.pos_is_offset);
	assert_non_null(strstr(err.msg, "truncated"));
	/* and after the error, the end */
	pk_pd_event ev;
	assert_int_equal(pk_pd_next(r, &ev, &err), 0);
	pk_pd_reader_close(r);
	free(full.p);
}

static void test_bad_record_size(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(true, 128, &l);
	/* header.size of the second sample: 4, less than the header */
	size_t at = l.sample_off[1] + 6;
	b.p[at] = 0;
	b.p[at + 1] = 4;
	pk_pd_reader *r;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pd_reader_open_mem(b.p, b.len, NULL, &r, &err), 0);
	uint64_t t[8], ip[8];
	int rc;
	int n = read_samples(r, t, ip, 8, &rc, &err);
	assert_int_equal(n, 1);
	assert_int_equal(t[0], 3000);
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(err.pos, (long)l.sample_off[1]);
	char buf[1024];
	pk_error_render(&err, buf, sizeof(buf));
	assert_non_null(strstr(buf, "offset"));
	pk_pd_reader_close(r);
	free(b.p);
}

static void test_bad_header(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	pk_pd_reader *r;
	pk_error err;
	pk_error_clear(&err);
	/* header size 50 */
	b.p[8] = 50;
	assert_int_equal(pk_pd_reader_open_mem(b.p, b.len, NULL, &r, &err), -EINVAL);
	assert_int_equal(err.pos, 8);
	b.p[8] = 104;
	/* data section past the end of the file */
	bb_put64(&b, 40, b.len + 100);
	pk_error_clear(&err);
	assert_int_equal(pk_pd_reader_open_mem(b.p, b.len, NULL, &r, &err), -EINVAL);
	assert_int_equal(err.pos, 40);
	/* not a perf.data at all */
	pk_error_clear(&err);
	assert_int_equal(pk_pd_reader_open_mem("hello world, not perf", 21, NULL, &r, &err), -EINVAL);
	assert_int_equal(err.pos, 0);
	free(b.p);
}

static void test_bad_feature(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	/* HOSTNAME's section points past the end: a warning, data still read */
	bb_put64(&b, l.data_end, b.len + 1000);
	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open_mem(b.p, b.len, NULL, &r, NULL), 0);
	pk_pd_header h;
	assert_int_equal(pk_pd_header_read(r, &h, NULL), 0);
	assert_null(h.hostname);
	pk_pd_header_release(&h);
	assert_true(pk_pd_nr_warnings(r) >= 1);
	uint64_t t[8], ip[8];
	int rc;
	assert_int_equal(read_samples(r, t, ip, 8, &rc, NULL), 4);
	assert_int_equal(rc, 0);
	pk_pd_reader_close(r);
	free(b.p);
}

/* A pipe-mode stream: header, HEADER_ATTR (VER0 attr), an unknown record,
 * the data, and a COMPRESSED record holding two more samples. */
static bb build_pipe(bool be, uint32_t attr_size)
{
	bb b = {.be = be};
	bb_bytes(&b, be ? "2ELIFREP" : "PERFILE2", 8);
	U64(&b, 16);
	U32(&b, PK_RECORD_HEADER_ATTR);
	U16(&b, 0);
	U16(&b, (uint16_t)(8 + attr_size + 8));
	put_attr(&b, attr_size, ST);
	U64(&b, 7);
	/* unknown type 200 with 8 payload bytes */
	U32(&b, 200);
	U16(&b, 0);
	U16(&b, 16);
	U64(&b, 0);
	layout l;
	put_data(&b, &l);
	/* two samples, compressed */
	bb inner = {.be = be};
	put_sample(&inner, 0x500000, 42, 5000, 1);
	put_sample(&inner, 0x500010, 42, 6000, 1);
	size_t cap = ZSTD_compressBound(inner.len);
	uint8_t *z = malloc(cap);
	size_t zl = ZSTD_compress(z, cap, inner.p, inner.len, 1);
	assert_false(ZSTD_isError(zl));
	U32(&b, PK_RECORD_COMPRESSED);
	U16(&b, 0);
	U16(&b, (uint16_t)(8 + zl));
	bb_bytes(&b, z, zl);
	free(z);
	free(inner.p);
	return b;
}

static void check_pipe(bool be, uint32_t attr_size)
{
	bb b = build_pipe(be, attr_size);
	pk_pd_reader *r;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pd_reader_open_mem(b.p, b.len, NULL, &r, &err), 0);
	assert_true(pk_pd_is_pipe(r));
	uint64_t t[8], ip[8];
	int rc;
	int n = read_samples(r, t, ip, 8, &rc, &err);
	assert_int_equal(rc, 0);
	assert_int_equal(n, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(t[i], (uint64_t)(i + 1) * 1000);
	assert_int_equal(ip[5], 0x500010);
	assert_int_equal(pk_pd_nr_evsels(r), 1);
	assert_int_equal(pk_pd_get_stats(r)->drops[PK_PD_DROP_UNKNOWN_TYPE].count, 1);
	pk_pd_reader_close(r);
	free(b.p);
}

static void test_pipe(void **state)
{
	(void)state;
	check_pipe(false, 128);
	check_pipe(true, 128);
	check_pipe(false, 64);
	check_pipe(true, 64);
}

static void test_pipe_fd(void **state)
{
	(void)state;
	/* the same stream through a real pipe, read in small chunks */
	bb b = build_pipe(false, 128);
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		size_t off = 0;
		while (off < b.len) {
			ssize_t k = write(p[1], b.p + off, b.len - off > 7 ? 7 : b.len - off);
			if (k <= 0)
				_exit(1);
			off += (size_t)k;
		}
		_exit(0);
	}
	close(p[1]);
	pk_pd_reader *r;
	pk_pd_open_opts o = {.chunk_size = 16};
	assert_int_equal(pk_pd_reader_open_fd(p[0], "pipe", &o, &r, NULL), 0);
	uint64_t t[8], ip[8];
	int rc;
	assert_int_equal(read_samples(r, t, ip, 8, &rc, NULL), 6);
	assert_int_equal(rc, 0);
	pk_pd_reader_close(r);
	close(p[0]);
	free(b.p);
}

static void test_writer_roundtrip(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	assert_non_null(dir);
	char path[512];
	/* file, pipe, and file compressed (-z: one zstd stream over two flushes) */
	for (int mode = 0; mode < 3; mode++) {
		bool pipe_mode = mode == 1, zstd = mode == 2;
		snprintf(path, sizeof(path), "%s/w%d.data", dir, mode);
		pk_pd_writer *w;
		pk_error err;
		pk_error_clear(&err);
		assert_int_equal(pk_pd_writer_open(path, pipe_mode, &w, &err), 0);
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		a.sample_type = ST;
		a.sample_id_all = 1;
		a.sample_period = 1000;
		uint64_t ids[2] = {11, 12};
		assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "task-clock", ids, 2, &err), 0);
		assert_int_equal(pk_pd_writer_host_features(w, NULL, NULL, 0, NULL, &err), 0);
		assert_int_equal(pk_pd_writer_begin(w, &err), 0);
		if (zstd)
			assert_int_equal(pk_pd_writer_compress(w, 3, 528384, &err), 0);
		else /* compression is for files, after the header */
			assert_int_equal(pk_pd_writer_compress(w, 0, 0, &err), -EINVAL);
		bb d = {.be = false};
		layout l;
		put_data(&d, &l);
		size_t off = 0;
		for (int nrec = 0; off < d.len; nrec++) {
			size_t sz = (size_t)d.p[off + 6] | (size_t)d.p[off + 7] << 8;
			assert_int_equal(pk_pd_writer_write(w, d.p + off, sz, &err), 0);
			if (nrec == 2)
				assert_int_equal(pk_pd_writer_flush(w, &err), 0);
			off += sz;
		}
		free(d.p);
		assert_int_equal(pk_pd_writer_close(w, &err), 0);
		pk_pd_reader *r;
		assert_int_equal(pk_pd_reader_open(path, NULL, &r, &err), 0);
		assert_int_equal(pk_pd_is_pipe(r), pipe_mode);
		uint64_t t[8], ip[8];
		int rc;
		assert_int_equal(read_samples(r, t, ip, 8, &rc, &err), 4);
		assert_int_equal(rc, 0);
		/* in pipe mode the attrs arrive as records: check after reading */
		const pk_pd_evsel *e = pk_pd_evsel_at(r, 0);
		assert_non_null(e);
		assert_int_equal(e->file_attr_size, 128);
		assert_int_equal(e->nr_ids, 2);
		assert_string_equal(pk_pd_evsel_name(e), "task-clock");
		pk_pd_header h;
		pk_pd_header_read(r, &h, &err);
		assert_non_null(h.hostname);
		assert_non_null(h.osrelease);
		assert_true(h.has_nrcpus);
		assert_true(h.nr_event_desc == 1);
		assert_int_equal(h.has_compressed, zstd);
		if (zstd)
			assert_true(h.comp_type == 1 && h.comp_level == 3 && h.comp_mmap_len == 528384);
		pk_pd_header_release(&h);
		pk_pd_reader_close(r);
		unlink(path);
	}
	rmdir(dir);
	free(dir);
}

static void test_parse_sample_fields(void **state)
{
	(void)state;
	/* every fixed-size field plus a callchain and raw data */
	pk_pd_evsel e;
	memset(&e, 0, sizeof(e));
	e.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
			     PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			     PERF_SAMPLE_PHYS_ADDR;
	bb b = {.be = false};
	U64(&b, 99);
	U64(&b, 0x1234);
	U32(&b, 5);
	U32(&b, 6);
	U64(&b, 777);
	U64(&b, 0xdead);
	U64(&b, 99);
	U64(&b, 98);
	U32(&b, 3);
	U32(&b, 0);
	U64(&b, 1000);
	U64(&b, 2);
	U64(&b, 0xaaa);
	U64(&b, 0xbbb);
	U32(&b, 4);
	U32(&b, 0x01020304);
	U64(&b, 55);
	U64(&b, 0x68100142);
	U64(&b, 0x81234000);
	pk_pd_sample s = PK_PD_SAMPLE_INIT;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pd_parse_sample_body(&e, b.p, b.len, &s, &err), 0);
	assert_int_equal(s.identifier, 99);
	assert_int_equal(s.ip, 0x1234);
	assert_int_equal(s.tid, 6);
	assert_int_equal(s.addr, 0xdead);
	assert_int_equal(s.stream_id, 98);
	assert_int_equal(s.cpu, 3);
	assert_int_equal(s.callchain_nr, 2);
	assert_int_equal(s.callchain[1], 0xbbb);
	assert_int_equal(s.raw_size, 4);
	assert_int_equal(s.weight, 55);
	assert_int_equal(s.data_src, 0x68100142);
	assert_int_equal(s.phys_addr, 0x81234000);
	/* one byte short: the last field is named */
	assert_int_equal(pk_pd_parse_sample_body(&e, b.p, b.len - 1, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "PHYS_ADDR"));
	/* a sample declared without its size is refused, never written past */
	pk_pd_sample bare = {.ip = 7};
	assert_int_equal(pk_pd_parse_sample_body(&e, b.p, b.len, &bare, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "PK_PD_SAMPLE_INIT"));
	assert_int_equal(bare.ip, 7);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_le),
		cmocka_unit_test(test_file_be),
		cmocka_unit_test(test_attr_sizes),
		cmocka_unit_test(test_no_order),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_record_size),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_bad_feature),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_pipe_fd),
		cmocka_unit_test(test_writer_roundtrip),
		cmocka_unit_test(test_parse_sample_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
