/* pk_inject (lib/record/inject.c) on a file made here: a map of this test's
 * own executable and a sample in it. -b puts the executable's build id
 * (its ELF note) in a HEADER_BUILD_ID record between the map and the
 * sample and in the BUILD_ID feature; --buildid-all puts the record before
 * the map and no feature (the input has none); no option copies the
 * records alone; a pipe output has no features; every input record comes
 * out once, in order. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/inject.h>

#include "helpers.h"
#include "record/rec_internal.h"

static char exe[PATH_MAX];

static void put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The input: cpu-clock sampling IP and TID, an MMAP2 of exe at 0x400000,
 * a sample at 0x400100 in it. */
static void make_input(const char *path)
{
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, false, &w, NULL), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_CPU_CLOCK,
				    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID};
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "cpu-clock", NULL, 0, NULL), 0);
	assert_int_equal(pk_pd_writer_begin(w, NULL), 0);
	uint8_t mm[8 + 64 + PATH_MAX + 8] = {0};
	size_t len = (8 + 64 + strlen(exe) + 1 + 7) / 8 * 8;
	put_u32(mm, PERF_RECORD_MMAP2);
	mm[4] = PERF_RECORD_MISC_USER;
	mm[6] = (uint8_t)len;
	mm[7] = (uint8_t)(len >> 8);
	put_u32(mm + 8, 42);
	put_u32(mm + 12, 42);
	put_u64(mm + 16, 0x400000);
	put_u64(mm + 24, 0x100000);
	put_u32(mm + 64, 5); /* r-x */
	memcpy(mm + 72, exe, strlen(exe));
	assert_int_equal(pk_pd_writer_write(w, mm, len, NULL), 0);
	uint8_t s[24] = {0};
	put_u32(s, PERF_RECORD_SAMPLE);
	s[4] = PERF_RECORD_MISC_USER;
	s[6] = sizeof(s);
	put_u64(s + 8, 0x400100);
	put_u32(s + 16, 42);
	put_u32(s + 20, 42);
	assert_int_equal(pk_pd_writer_write(w, s, sizeof(s), NULL), 0);
	assert_int_equal(pk_pd_writer_close(w, NULL), 0);
}

/* The output's record types in order (at most 8) and, of a build id
 * record, that it names exe with exe's id. */
static size_t read_types(const char *path, uint32_t *types, bool *feature)
{
	uint8_t id[20];
	size_t id_len = 0, n = 0;
	assert_int_equal(pki_rec_file_build_id(exe, id, &id_len), 0);
	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, NULL), 0);
	pk_pd_event ev;
	while (pk_pd_next(r, &ev, NULL) == 1 && n < 8) {
		types[n++] = ev.type;
		if (ev.type != PK_RECORD_HEADER_BUILD_ID)
			continue;
		pk_pd_rec_build_id b;
		assert_true(pk_pd_build_id_parse(ev.data, ev.size, false, &b) > 0);
		assert_string_equal(b.filename, exe);
		assert_int_equal(b.id_len, id_len);
		assert_memory_equal(b.id, id, id_len);
	}
	*feature = pk_pd_has_feature(r, PK_FEAT_BUILD_ID);
	pk_pd_reader_close(r);
	return n;
}

static void check(bool build_ids, bool all, bool pipe, const uint32_t *want, size_t nwant,
		  bool want_feature)
{
	char *dir = pk_test_tmpdir(), in[PATH_MAX], out[PATH_MAX];
	snprintf(in, sizeof(in), "%s/in.data", dir);
	snprintf(out, sizeof(out), "%s/out.data", dir);
	make_input(in);
	pk_inject_opts o = {.size = sizeof(o), .build_ids = build_ids, .buildid_all = all};
	pk_inject_stats st;
	int fd = -1, saved = -1;
	if (pipe) { /* standard output into the file */
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		saved = dup(1);
		assert_true(fd >= 0 && saved >= 0 && dup2(fd, 1) == 1);
	}
	int rc = pk_inject(in, pipe ? "-" : out, &o, &st, NULL);
	if (pipe) {
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
		close(fd);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(st.records, 2);
	assert_int_equal(st.build_ids, build_ids || all ? 1 : 0);
	uint32_t types[8];
	bool feature;
	size_t n = read_types(out, types, &feature);
	size_t at = 0;
	for (size_t i = 0; i < n; i++) /* a pipe's header records first */
		if (types[i] < PK_RECORD_HEADER_ATTR || types[i] == PK_RECORD_HEADER_BUILD_ID)
			types[at++] = types[i];
	assert_int_equal(at, nwant);
	assert_memory_equal(types, want, nwant * sizeof(*want));
	assert_int_equal(feature, want_feature);
	pk_test_rmtree(dir);
}

static void test_build_ids(void **state)
{
	(void)state;
	static const uint32_t want[] = {PERF_RECORD_MMAP2, PK_RECORD_HEADER_BUILD_ID, PERF_RECORD_SAMPLE};
	check(true, false, false, want, 3, true);
	check(true, false, true, want, 3, false);
}

static void test_buildid_all(void **state)
{
	(void)state;
	static const uint32_t want[] = {PK_RECORD_HEADER_BUILD_ID, PERF_RECORD_MMAP2, PERF_RECORD_SAMPLE};
	check(false, true, false, want, 3, false);
}

static void test_plain(void **state)
{
	(void)state;
	static const uint32_t want[] = {PERF_RECORD_MMAP2, PERF_RECORD_SAMPLE};
	check(false, false, false, want, 2, false);
	check(false, false, true, want, 2, false);
}

static void test_errors(void **state)
{
	(void)state;
	pk_inject_opts o = {.size = sizeof(o) - 1};
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_inject("x", "y", &o, NULL, &err), -EINVAL);
	o.size = sizeof(o);
	assert_true(pk_inject("/nonexistent/in.data", "/nonexistent/out.data", &o, NULL, &err) < 0);
}

int main(void)
{
	ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (l <= 0)
		return 77;
	exe[l] = '\0';
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_ids),
		cmocka_unit_test(test_buildid_all),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
