/* Memory without a file (issue 21: one anon/JIT map rule): a hand-made
 * file whose task maps //anon, /dev/zero, huge pages, its stack, its heap
 * and SysV shared memory, executable and not, with a sample in each.
 * perf 6.1 names executable fileless memory after the JIT's symbol map
 * (/tmp/perf-<pid>.map); report --mmaps (the machine's task table as
 * recorded) and script's dso field (the machine's lookups) must both print
 * what perf prints: one rule, pk_mmap_dso_name (skipped without perf). */
#include "helpers.h"
#include "pd_test.h"
#include "perfdata/sample_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>

#define PID 4242

static const struct {
	const char *name;
	uint32_t prot;
} maps[] = {
	{"//anon", 5}, {"//anon", 3}, {"/dev/zero (deleted)", 5}, {"/anon_hugepage (deleted)", 5},
	{"[stack]", 7}, {"[heap]", 3}, {"/SYSV00001234 (deleted)", 5}, {"/SYSV00005678 (deleted)", 3},
};
#define NR_MAPS (sizeof(maps) / sizeof(maps[0]))
#define MAP_AT(i) (0x7f0000000000ULL + (uint64_t)(i) * 0x100000)

static const char *make_file(void)
{
	static char path[1024];
	snprintf(path, sizeof(path), "%s/anon.data", pd_test_dir);
	struct perf_event_attr a;
	pk_pd_writer *w = pd_test_clock_writer(path, &a);
	pk_error err;
	pk_pd_buf b = {0};
	pk_pd_buf_u64(&b, 0); /* header, set by pd_test_put_record */
	pk_pd_buf_u32(&b, PID);
	pk_pd_buf_u32(&b, PID);
	pk_pd_buf_name(&b, "anonprog");
	pd_test_put_record(w, &a, &b, PERF_RECORD_COMM, 0, PID);
	for (size_t i = 0; i < NR_MAPS; i++) {
		pk_pd_buf_u64(&b, 0);
		pk_pd_buf_u32(&b, PID);
		pk_pd_buf_u32(&b, PID);
		uint64_t v[] = {MAP_AT(i), 0x10000, 0, 0, 0, 0}; /* start, len, pgoff, dev, ino */
		pk_pd_buf_bytes(&b, v, sizeof(v));
		pk_pd_buf_u32(&b, maps[i].prot);
		pk_pd_buf_u32(&b, 0x22); /* MAP_PRIVATE | MAP_ANONYMOUS */
		pk_pd_buf_name(&b, maps[i].name);
		pd_test_put_record(w, &a, &b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, PID);
	}
	for (size_t i = 0; i < NR_MAPS; i++) {
		pk_pd_sample s = {.misc = PERF_RECORD_MISC_USER, .ip = MAP_AT(i) + 0x40, .pid = PID,
				  .tid = PID, .time = 1000000000ULL + i, .period = 1000};
		uint8_t buf[512];
		ssize_t n = pki_pd_sample_write(&a, &s, buf, sizeof(buf), &err);
		assert_true(n > 0);
		assert_int_equal(pk_pd_writer_write(w, buf, (size_t)n, &err), 0);
	}
	pk_pd_buf_release(&b);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	return path;
}

static void test_fileless_maps_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	const char *file = make_file();
	char a[1200], o[2048];
	snprintf(a, sizeof(a), "report --stdio --mmaps -i %s", file);
	pd_test_same_as_perf(a);
	snprintf(o, sizeof(o), "%s %s 2>/dev/null", pk_test_pmukit(), a);
	char *ours = pd_test_output(o);
	/* the executable SysV segment is the JIT's map, the other one is not */
	char jit[64];
	snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", PID);
	assert_non_null(strstr(ours, jit));
	assert_non_null(strstr(ours, "/SYSV00005678"));
	assert_null(strstr(ours, "/SYSV00001234"));
	free(ours);
	snprintf(a, sizeof(a), "script -F ip,dso -i %s", file);
	pd_test_same_as_perf(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fileless_maps_vs_perf),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
