/* perf record --threads' directory (lib/perfdata/dirfmt.c) on directories
 * this test writes: the header file's records come first, then the parts'
 * records in time order, records of equal time in perf's turn order (the
 * directory's listing order of the data.N files, empty ones skipped); the
 * layout and features are the header file's; a broken part is an error
 * naming the file and offset; a directory without `data` is refused. */
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/perfdata.h>

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

typedef struct sample_rec {
	uint32_t type;
	uint16_t misc, size;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
} sample_rec;

static sample_rec sample(uint64_t ip, uint64_t time)
{
	return (sample_rec){PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(sample_rec), ip, 7,
			    7, time};
}

/* <dir>/data: the header, one event, one COMM, DIR_FORMAT version 1. */
static void write_header_file(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/data", dir);
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, false, &w, NULL), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .sample_period = 1000, .sample_type = ST};
	uint64_t id = 1, version = 1;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "cpu-clock", &id, 1, NULL), 0);
	assert_int_equal(pk_pd_writer_set_feature(w, PK_FEAT_DIR_FORMAT, &version, 8, NULL), 0);
	assert_int_equal(pk_pd_writer_begin(w, NULL), 0);
	struct {
		uint32_t type;
		uint16_t misc, size;
		uint32_t pid, tid;
		char comm[16];
	} comm = {PERF_RECORD_COMM, 0, sizeof(comm), 7, 7, "prog"};
	assert_int_equal(pk_pd_writer_write(w, &comm, sizeof(comm), NULL), 0);
	assert_int_equal(pk_pd_writer_close(w, NULL), 0);
}

static void write_part(const char *dir, const char *name, const sample_rec *s, size_t n,
		       size_t cut)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, n * sizeof(*s) - cut, f), n * sizeof(*s) - cut);
	fclose(f);
}

/* The parts' names in the directory's listing order. */
static int listing(const char *dir, char names[][16], int max)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)) && n < max)
		if (!strncmp(de->d_name, "data.", 5))
			snprintf(names[n++], 16, "%.15s", de->d_name);
	closedir(d);
	return n;
}

static void remove_dir(char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

static void test_order(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	write_header_file(dir);
	/* data.0 and data.1 each hold a sample at time 200 (a tie) */
	sample_rec p0[] = {sample(0x1000, 100), sample(0x1001, 200), sample(0x1002, 400)};
	sample_rec p1[] = {sample(0x2000, 150), sample(0x2001, 200), sample(0x2002, 300)};
	write_part(dir, "data.0", p0, 3, 0);
	write_part(dir, "data.1", p1, 3, 0);
	write_part(dir, "data.2", p1, 0, 0); /* empty: skipped */
	char names[3][16];
	int n = listing(dir, names, 3);
	assert_int_equal(n, 3);
	int first_zero = -1; /* which of data.0 / data.1 is listed first */
	for (int i = 0; i < n && first_zero < 0; i++)
		if (!strcmp(names[i], "data.0") || !strcmp(names[i], "data.1"))
			first_zero = !strcmp(names[i], "data.0");
	pk_pd_reader *r;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pd_reader_open(dir, NULL, &r, &err), 0);
	assert_string_equal(pk_pd_path(r), dir);
	assert_true(pk_pd_has_feature(r, PK_FEAT_DIR_FORMAT));
	uint64_t version = 0;
	assert_int_equal(pk_pd_dir_format(r, &version), 0); /* the header's --header line */
	assert_int_equal(version, 1);
	/* perf's clock names, for CLOCK_DATA's line */
	assert_string_equal(pk_pd_clockid_name(CLOCK_MONOTONIC_RAW), "monotonic_raw");
	assert_string_equal(pk_pd_clockid_name(CLOCK_TAI), "tai");
	assert_null(pk_pd_clockid_name(CLOCK_PROCESS_CPUTIME_ID));
	pk_pd_layout l;
	pk_pd_get_layout(r, &l);
	assert_int_equal(l.data_size, 8 + 4 + 4 + 16); /* the header file's COMM only */
	uint64_t want[] = {0x1000, 0x2000, 0, 0, 0x2002, 0x1002};
	want[2] = first_zero ? 0x1001 : 0x2001;
	want[3] = first_zero ? 0x2001 : 0x1001;
	pk_pd_event ev;
	int got = 0, comm_at = -1, i = 0;
	while (pk_pd_next(r, &ev, &err) == 1) {
		pk_pd_sample s = PK_PD_SAMPLE_INIT;
		if (ev.type == PERF_RECORD_COMM)
			comm_at = i;
		if (ev.type == PERF_RECORD_SAMPLE) {
			assert_int_equal(pk_pd_parse_sample(&ev, &s, &err), 0);
			assert_true(got < 6);
			assert_int_equal(s.ip, want[got]);
			got++;
		}
		i++;
	}
	assert_int_equal(got, 6);
	assert_int_equal(comm_at, 0);
	assert_int_equal(pk_pd_get_stats(r)->nr_out_of_order, 0);
	pk_pd_reader_close(r);
	remove_dir(dir);
}

static void test_broken(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	pk_pd_reader *r = NULL;
	pk_error err;
	pk_error_clear(&err);
	/* no header file */
	assert_int_equal(pk_pd_reader_open(dir, NULL, &r, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "without a perf.data header file"));
	write_header_file(dir);
	sample_rec p0[] = {sample(0x1000, 100), sample(0x1001, 200)};
	write_part(dir, "data.0", p0, 2, 8); /* the last record cut short */
	pk_error_clear(&err);
	assert_true(pk_pd_reader_open(dir, NULL, &r, &err) < 0);
	assert_null(r);
	assert_non_null(strstr(err.msg, "data.0: offset 32"));
	remove_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_broken),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
