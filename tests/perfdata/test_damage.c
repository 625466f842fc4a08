/* Damaged perf.data files lose nothing silently: the reader counts what it
 * drops (per kind, with the first file offset), `script` and `report` say
 * it on stderr and fail when no sample is left. Also the messages of the
 * read commands (an unopenable file, `-F ''`, `-s ''`). Every file is made
 * by hand (pd_build.c) and damaged the way the issue found it. */
#include "helpers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>

#include "pd_build.h"
#include "pd_test.h"

/* Header fields (perf_file_header) and attr fields the tests damage. */
#define HDR_ATTR_SIZE 16
#define HDR_ATTRS_SIZE 32
#define ATTR_SIZE 4
#define ATTR_SAMPLE_TYPE 24

static void save(const bb *b, const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", pd_test_dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b->p, 1, b->len, f), b->len);
	assert_int_equal(fclose(f), 0);
}

/* Runs `pmukit <args>`; returns the exit status, *err the standard error
 * and *nout the number of lines on standard output. */
static int run(const char *args, char **err, size_t *nout)
{
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", pk_test_pmukit(), args);
	int rc = pk_test_run(cmd, &out, 0);
	*nout = out ? pd_test_lines(out) : 0;
	free(out);
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1 >/dev/null", pk_test_pmukit(), args);
	assert_int_equal(pk_test_run(cmd, err, 0), rc);
	assert_non_null(*err);
	return rc;
}

/* Saves b as name in the test directory and runs `pmukit <cmd> -i <it>`. */
static int run_on(const bb *b, const char *name, const char *cmd, char **err, size_t *nout)
{
	char path[1024], args[1400];
	save(b, name, path, sizeof(path));
	snprintf(args, sizeof(args), "%s -i %s", cmd, path);
	return run(args, err, nout);
}

/* All events of a file in file order, samples parsed through the reader;
 * returns how many samples parsed. */
static int read_all(const bb *b, pk_pd_reader **out)
{
	pk_pd_open_opts o = {.no_order = true};
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pd_reader_open_mem(b->p, b->len, &o, out, &err), 0);
	pk_pd_event ev;
	int n = 0, rc;
	while ((rc = pk_pd_next(*out, &ev, &err)) > 0) {
		pk_pd_sample s = PK_PD_SAMPLE_INIT;
		if (ev.type == PERF_RECORD_SAMPLE && ev.evsel &&
		    pk_pd_reader_parse_sample(*out, &ev, &s, NULL) == 0)
			n++;
	}
	assert_int_equal(rc, 0);
	return n;
}

static void assert_has(const char *s, const char *want)
{
	if (!strstr(s, want))
		fprintf(stderr, "missing '%s' in:\n%s\n", want, s);
	assert_non_null(strstr(s, want));
}

/* One bit more in sample_type (PHYS_ADDR, which perf 6.1 reads past the
 * record end without a check): every sample is unparsable. */
static void test_extra_sample_type_bit(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	bb_put64(&b, l.attrs_off + ATTR_SAMPLE_TYPE, ST | PERF_SAMPLE_PHYS_ADDR);
	pk_pd_reader *r;
	assert_int_equal(read_all(&b, &r), 0);
	const pk_pd_drop *d = &pk_pd_get_stats(r)->drops[PK_PD_DROP_BAD_SAMPLE];
	assert_int_equal(d->count, 4);
	assert_int_equal(d->first_offset, l.sample_off[0]);
	assert_string_equal(d->first_detail, "PHYS_ADDR");
	pk_pd_reader_close(r);

	char want[128], *err;
	size_t nout;
	assert_int_equal(run_on(&b, "st.data", "script", &err, &nout), 1);
	assert_int_equal(nout, 0);
	assert_has(err, "4 unparsable samples skipped");
	assert_has(err, "PHYS_ADDR");
	snprintf(want, sizeof(want), "first at file offset %zu", l.sample_off[0]);
	assert_has(err, want);
	assert_has(err, "none of the 4 samples");
	free(err);
	assert_int_equal(run_on(&b, "st.data", "report", &err, &nout), 1);
	assert_has(err, "4 unparsable samples skipped");
	free(err);
	free(b.p);
}

/* attrs.size = 0 in the header: no event to decode the samples with. */
static void test_no_attrs(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	bb_put64(&b, HDR_ATTRS_SIZE, 0);
	pk_pd_reader *r;
	assert_int_equal(read_all(&b, &r), 0);
	assert_int_equal(pk_pd_nr_evsels(r), 0);
	const pk_pd_drop *d = &pk_pd_get_stats(r)->drops[PK_PD_DROP_NO_EVENT];
	assert_int_equal(d->count, 4);
	assert_int_equal(d->first_offset, l.sample_off[0]);
	assert_true(pk_pd_nr_warnings(r) >= 1);
	pk_pd_reader_close(r);

	char *err;
	size_t nout;
	assert_int_equal(run_on(&b, "noattrs.data", "script", &err, &nout), 1);
	assert_has(err, "4 samples without event attributes skipped");
	assert_has(err, "none of the 4 samples");
	free(err);
	free(b.p);
}

/* attr_size = 4096 in the header (perf 6.1 then finds no attr): the attrs
 * carry their own sizes, so everything is read, with a warning. */
static void test_bad_header_attr_size(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	bb_put64(&b, HDR_ATTR_SIZE, 4096);
	pk_pd_reader *r;
	assert_int_equal(read_all(&b, &r), 4);
	assert_int_equal(pk_pd_nr_evsels(r), 1);
	assert_int_equal(pk_pd_nr_warnings(r), 1);
	assert_non_null(strstr(pk_pd_warning(r, 0), "attr_size 4096"));
	pk_pd_reader_close(r);

	char *err;
	size_t nout;
	assert_int_equal(run_on(&b, "asz.data", "script", &err, &nout), 0);
	assert_int_equal(nout, 4);
	assert_has(err, "attr_size 4096");
	free(err);
	free(b.p);
}

/* The attr's own size damaged (4096), the header's attr_size right: read
 * with the header's size, with a warning. */
static void test_bad_attr_size_field(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	uint32_t big = 4096;
	memcpy(b.p + l.attrs_off + ATTR_SIZE, &big, sizeof(big));
	pk_pd_reader *r;
	assert_int_equal(read_all(&b, &r), 4);
	assert_int_equal(pk_pd_evsel_at(r, 0)->file_attr_size, 128);
	assert_int_equal(pk_pd_nr_warnings(r), 1);
	assert_non_null(strstr(pk_pd_warning(r, 0), "declares size 4096"));
	pk_pd_reader_close(r);
	free(b.p);
}

/* A sample too short for its TIME, among good ones: the good ones print,
 * the bad one is counted and said. */
static void put_short_sample(bb *b)
{
	U32(b, PERF_RECORD_SAMPLE);
	U16(b, PERF_RECORD_MISC_USER);
	U16(b, 8 + 16);
	U64(b, 0x400500);
	U32(b, 42);
	U32(b, 42);
}

static void test_one_bad_sample(void **state)
{
	(void)state;
	layout l;
	bb b = build_file_ex(false, 128, put_short_sample, &l);
	pk_pd_reader *r;
	assert_int_equal(read_all(&b, &r), 4);
	const pk_pd_drop *d = &pk_pd_get_stats(r)->drops[PK_PD_DROP_BAD_SAMPLE];
	assert_int_equal(d->count, 1);
	assert_string_equal(d->first_detail, "TIME");
	assert_true(d->first_offset > l.sample_off[3]);
	pk_pd_reader_close(r);

	char *err;
	size_t nout;
	assert_int_equal(run_on(&b, "short.data", "script", &err, &nout), 0);
	assert_int_equal(nout, 4);
	assert_has(err, "1 unparsable samples skipped (field TIME");
	free(err);
	free(b.p);
}

/* An unknown record type is skipped, and said. */
static void put_unknown(bb *b)
{
	put_typed(b, 200);
}

static void test_unknown_record(void **state)
{
	(void)state;
	layout l;
	bb b = build_file_ex(false, 128, put_unknown, &l);
	pk_pd_reader *r;
	assert_int_equal(read_all(&b, &r), 4);
	const pk_pd_drop *d = &pk_pd_get_stats(r)->drops[PK_PD_DROP_UNKNOWN_TYPE];
	assert_int_equal(d->count, 1);
	assert_int_equal(d->first_type, 200);
	pk_pd_reader_close(r);

	char *err;
	size_t nout;
	assert_int_equal(run_on(&b, "unknown.data", "script", &err, &nout), 0);
	assert_int_equal(nout, 4);
	assert_has(err, "1 records of unknown types skipped (first of type 200)");
	free(err);
	free(b.p);
}

/* Two events (ids 7 and 8, IDENTIFIER first in the samples), written with
 * the writer; a sample with id 9 belongs to neither: counted, said. */
static void put_id_sample(pk_pd_writer *w, uint64_t id, uint64_t time)
{
	uint64_t rec[5] = {0, id, 0x400100, 42 | (uint64_t)42 << 32, time};
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(rec)};
	memcpy(rec, &h, sizeof(h));
	assert_int_equal(pk_pd_writer_write(w, rec, sizeof(rec), NULL), 0);
}

static void test_unknown_id(void **state)
{
	(void)state;
	char path[1024];
	snprintf(path, sizeof(path), "%s/ids.data", pd_test_dir);
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, false, &w, NULL), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .sample_period = 1000,
				    .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						   PERF_SAMPLE_TID | PERF_SAMPLE_TIME};
	uint64_t id7 = 7, id8 = 8;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "cpu-clock", &id7, 1, NULL), 0);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "task-clock", &id8, 1, NULL), 0);
	assert_int_equal(pk_pd_writer_begin(w, NULL), 0);
	put_id_sample(w, 7, 1000);
	put_id_sample(w, 9, 2000);
	put_id_sample(w, 8, 3000);
	assert_int_equal(pk_pd_writer_close(w, NULL), 0);
	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, NULL), 0);
	pk_pd_event ev;
	int n = 0;
	while (pk_pd_next(r, &ev, NULL) > 0)
		n += ev.type == PERF_RECORD_SAMPLE && ev.evsel;
	assert_int_equal(n, 2);
	const pk_pd_drop *d = &pk_pd_get_stats(r)->drops[PK_PD_DROP_UNKNOWN_ID];
	assert_int_equal(d->count, 1);
	pk_pd_layout lay;
	pk_pd_get_layout(r, &lay);
	assert_int_equal(d->first_offset, lay.data_offset + 40);
	pk_pd_reader_close(r);

	char args[1200], *err;
	size_t nout;
	snprintf(args, sizeof(args), "script -i %s", path);
	assert_int_equal(run(args, &err, &nout), 0);
	assert_int_equal(nout, 2);
	assert_has(err, "1 samples of unknown events skipped (their id matches no event");
	free(err);
}

/* A good file: nothing on stderr. */
static void test_good_file_quiet(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	char *err;
	size_t nout;
	assert_int_equal(run_on(&b, "good.data", "script", &err, &nout), 0);
	assert_int_equal(nout, 4);
	assert_string_equal(err, "");
	free(err);
	free(b.p);
}

/* The name once, with the reason and perf's hint; perf: "failed to open X:
 * <strerror>  (try 'perf record' first)". */
static void test_cannot_open(void **state)
{
	(void)state;
	char args[1200], *err;
	size_t nout;
	snprintf(args, sizeof(args), "script -i %s/none.data", pd_test_dir);
	assert_int_equal(run(args, &err, &nout), 255); /* perf's status */
	char want[1200];
	snprintf(want, sizeof(want), "pmukit script: cannot open %s/none.data: %s\n"
				     "(try 'pmukit record' first)\n", pd_test_dir, strerror(ENOENT));
	assert_string_equal(err, want);
	free(err);
}

/* -F '' is refused as perf 6.1 refuses it (status 129, a message). */
static void test_script_empty_fields(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	char *err;
	size_t nout;
	assert_int_equal(run_on(&b, "f.data", "script -F ''", &err, &nout), 129);
	assert_has(err, "cannot set fields to 'none' for all event types");
	free(err);
	free(b.p);
}

/* -s '': perf 6.1 prints one total per event, no sort columns, status 0. */
static void test_report_empty_sort(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 128, &l);
	char path[1024], args[1200], *err, *out = NULL;
	size_t nout;
	save(&b, "s.data", path, sizeof(path));
	snprintf(args, sizeof(args), "report -s '' -i %s", path);
	assert_int_equal(run(args, &err, &nout), 0);
	assert_string_equal(err, "");
	free(err);
	char cmd[1400];
	snprintf(cmd, sizeof(cmd), "%s report -s '' -i %s", pk_test_pmukit(), path);
	assert_int_equal(pk_test_run(cmd, &out, 0), 0);
	assert_has(out, "# Overhead\n# ........\n#\n   100.00%\n");
	free(out);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extra_sample_type_bit),
		cmocka_unit_test(test_no_attrs),
		cmocka_unit_test(test_bad_header_attr_size),
		cmocka_unit_test(test_bad_attr_size_field),
		cmocka_unit_test(test_one_bad_sample),
		cmocka_unit_test(test_unknown_record),
		cmocka_unit_test(test_unknown_id),
		cmocka_unit_test(test_good_file_quiet),
		cmocka_unit_test(test_cannot_open),
		cmocka_unit_test(test_script_empty_fields),
		cmocka_unit_test(test_report_empty_sort),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
