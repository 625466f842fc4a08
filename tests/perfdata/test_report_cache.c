/* report's sample cache (lib/hist/report_hist.c: a sample's raw IP, mode,
 * pid, tid and event with the maps and comm versions to its own entry, no
 * resolving on a hit) must give every sample the entry resolving gives: a
 * hand-made file samples one address of one task again and again while
 * the task's map there changes file (liba.so, then libb.so), the task
 * changes its name, and a second thread of it samples the same address.
 * Each change must start new rows: the rows of `pmukit report` under the
 * cached keys (comm, pid, dso, sym) must be perf 6.1's, byte for byte
 * (skipped without perf), and both files must have their samples (which
 * a cache keyed without the maps version would give to liba.so alone). */
#include "helpers.h"
#include "pd_test.h"
#include "perfdata/sample_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>

#define PID 4343
#define AT 0x400000ULL
#define IP (AT + 0x1040)
#define T0 1000000000ULL

static void put_comm(pk_pd_writer *w, const struct perf_event_attr *a, pk_pd_buf *b,
		     const char *name, uint64_t t)
{
	pk_pd_buf_u64(b, 0); /* header, set by pd_test_put_record_at */
	pk_pd_buf_u32(b, PID);
	pk_pd_buf_u32(b, PID);
	pk_pd_buf_name(b, name);
	pd_test_put_record_at(w, a, b, PERF_RECORD_COMM, 0, PID, t);
}

static void put_map(pk_pd_writer *w, const struct perf_event_attr *a, pk_pd_buf *b,
		    const char *file, uint64_t t)
{
	pk_pd_buf_u64(b, 0);
	pk_pd_buf_u32(b, PID);
	pk_pd_buf_u32(b, PID);
	uint64_t v[] = {AT, 0x10000, 0, 0, 0, 0}; /* start, len, pgoff, dev, ino */
	pk_pd_buf_bytes(b, v, sizeof(v));
	pk_pd_buf_u32(b, 5); /* PROT_READ | PROT_EXEC */
	pk_pd_buf_u32(b, 2); /* MAP_PRIVATE */
	pk_pd_buf_name(b, file);
	pd_test_put_record_at(w, a, b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, PID, t);
}

/* n samples of tid at IP from time t on. */
static void put_samples(pk_pd_writer *w, const struct perf_event_attr *a, uint32_t tid, int n,
			uint64_t t)
{
	for (int i = 0; i < n; i++) {
		pk_pd_sample s = {.misc = PERF_RECORD_MISC_USER, .ip = IP, .pid = PID, .tid = tid,
				  .time = t + (uint64_t)i, .period = 1000};
		uint8_t buf[256];
		pk_error err;
		ssize_t len = pki_pd_sample_write(a, &s, buf, sizeof(buf), &err);
		assert_true(len > 0);
		assert_int_equal(pk_pd_writer_write(w, buf, (size_t)len, &err), 0);
	}
}

static const char *make_file(void)
{
	static char path[1024];
	snprintf(path, sizeof(path), "%s/cache.data", pd_test_dir);
	struct perf_event_attr a;
	pk_pd_writer *w = pd_test_clock_writer(path, &a);
	pk_error err;
	pk_pd_buf b = {0};
	put_comm(w, &a, &b, "first", T0);
	put_map(w, &a, &b, "/nonexistent/liba.so", T0 + 10);
	put_samples(w, &a, PID, 3, T0 + 100);
	put_map(w, &a, &b, "/nonexistent/libb.so", T0 + 200);
	put_samples(w, &a, PID, 5, T0 + 300);
	put_comm(w, &a, &b, "second", T0 + 400);
	put_samples(w, &a, PID, 7, T0 + 500);
	put_samples(w, &a, PID + 1, 11, T0 + 600);
	pk_pd_buf_release(&b);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	return path;
}

static void test_sample_cache_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	const char *file = make_file();
	static const char *const views[] = {
		"report --stdio -n -s comm,dso,sym", "report --stdio -n -s dso",
		"report --stdio -n -s pid,dso", "report --stdio -n -s comm,sym",
		"report --stdio -n -s dso,sym",
	};
	pd_test_views_as_perf(file, views, sizeof(views) / sizeof(views[0]));
	char o[2048];
	snprintf(o, sizeof(o), "%s report --stdio -n -s dso -i %s 2>/dev/null", pk_test_pmukit(), file);
	char *ours = pd_test_output(o);
	/* liba.so: the first 3 samples; libb.so: the 5 + 7 + 11 after the map changed */
	assert_non_null(strstr(ours, "  11.54%             3  liba.so"));
	assert_non_null(strstr(ours, "  88.46%            23  libb.so"));
	free(ours);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_cache_vs_perf),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
