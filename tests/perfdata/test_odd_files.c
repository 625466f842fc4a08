/* Old and odd perf.data files, and records that used to be lost without a
 * word (issue 20, classes 6 and 7), each made by hand (pd_build.c): the v1
 * `PERFFILE` magic, a pipe whose tail is not a record (perf record's own
 * messages appended to it), a record of type 0, PERF_RECORD_AUX flags
 * (TRUNCATED, PARTIAL, COLLISION), a gzip'ed file. pmukit must read what perf 6.1 reads,
 * print what it prints and exit as it does, and say on stderr what it
 * skipped and where; perf 6.1 is compared where installed. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>
#include <pmukit/perfdata.h>

#include "pd_build.h"
#include "pd_test.h"

static char *save(const bb *b, const char *name)
{
	char *path = NULL;
	assert_true(asprintf(&path, "%s/%s", pd_test_dir, name) > 0);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b->p, 1, b->len, f), b->len);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* `tool args -i path`: the exit status, *out stdout, *err stderr. */
static int run_tool(const char *tool, const char *args, const char *path, char **out, char **err)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "%s %s -i '%s' 2>/dev/null", tool, args, path);
	int rc = pk_test_run(cmd, out, 0);
	snprintf(cmd, sizeof(cmd), "%s %s -i '%s' 2>&1 >/dev/null", tool, args, path);
	assert_int_equal(pk_test_run(cmd, err, 0), rc);
	assert_non_null(*out);
	assert_non_null(*err);
	return rc;
}

static void assert_has(const char *s, const char *want)
{
	if (!strstr(s, want))
		fprintf(stderr, "missing '%s' in:\n%s\n", want, s);
	assert_non_null(strstr(s, want));
}

/* pmukit and perf 6.1 print the same and exit alike (when perf is here);
 * returns pmukit's stderr. */
static char *same_as_perf(const char *args, const char *path, int want_rc)
{
	char *out, *err, *pout, *perr;
	assert_int_equal(run_tool(pk_test_pmukit(), args, path, &out, &err), want_rc);
	if (pd_test_have("perf")) {
		int prc = run_tool("perf", args, path, &pout, &perr);
		pd_test_drop_tip(pout);
		if (strcmp(out, pout))
			fprintf(stderr, "%s: pmukit:\n%s\nperf:\n%s\n", args, out, pout);
		assert_string_equal(out, pout);
		assert_int_equal(prc, want_rc);
		free(pout);
		free(perr);
	}
	free(out);
	return err;
}

/* The v1 format: the `PERFFILE` magic, perf's header version 0, attrs of
 * that time (72 bytes: PERF_ATTR_SIZE_VER1); one of 128 bytes is refused
 * as perf 6.1 refuses it (status 255), the header's field named. */
static void test_v1_magic(void **state)
{
	(void)state;
	layout l;
	bb b = build_file(false, 72, &l);
	memcpy(b.p, "PERFFILE", 8);
	char *path = save(&b, "v1.data");
	free(same_as_perf("script -F comm,tid,time,ip,period", path, 0));
	free(same_as_perf("report --stdio -s comm,pid", path, 0));
	char *out, *err;
	assert_int_equal(run_tool(pk_test_pmukit(), "report --header-only", path, &out, &err), 0);
	assert_has(out, "# header version : 0\n");
	free(out);
	free(err);
	free(path);
	free(b.p);
	b = build_file(false, 128, &l);
	memcpy(b.p, "PERFFILE", 8);
	path = save(&b, "v1-128.data");
	err = same_as_perf("script", path, 255);
	assert_has(err, "offset 16 (0x10): a v1 perf.data (PERFFILE magic) with attrs of 128 bytes");
	free(err);
	free(path);
	free(b.p);
}

/* A pipe file: its header, the attr in a HEADER_ATTR record, the data. */
static bb build_pipe(void)
{
	bb b = {0};
	bb_bytes(&b, "PERFILE2", 8);
	U64(&b, 16);
	U32(&b, PK_RECORD_HEADER_ATTR);
	U16(&b, 0);
	U16(&b, 8 + 128 + 8);
	put_attr(&b, 128, ST);
	U64(&b, 7);
	layout l;
	put_data(&b, &l);
	return b;
}

/* perf record's messages appended to a pipe file: the samples before are
 * printed, the tail skipped with its offset, exit 0 (perf: "unexpected end
 * of event stream"). */
static void test_pipe_tail(void **state)
{
	(void)state;
	bb b = build_pipe();
	size_t tail = b.len;
	const char *msg = "[ perf record: Woken up 1 times to write data ]\n"
			  "[ perf record: Captured and wrote 0.002 MB - ]\n";
	bb_bytes(&b, msg, strlen(msg));
	char *path = save(&b, "tail.pipe.data");
	char want[128];
	snprintf(want, sizeof(want), "%zu bytes at offset %zu (%#zx) skipped", strlen(msg), tail,
		 tail);
	char *err = same_as_perf("script -F comm,tid,time,ip,period", path, 0);
	assert_has(err, want);
	free(err);
	err = same_as_perf("report --stats", path, 0);
	assert_has(err, want);
	free(err);
	free(path);
	free(b.p);
}

static void put_type0(bb *b)
{
	put_typed(b, 0);
}

/* A record of type 0 (no such record type): skipped and said, with its
 * offset; perf 6.1 stops there ("failed to process type: 0", "Found 1
 * unknown events!"), pmukit reads on. */
static void test_type0(void **state)
{
	(void)state;
	layout l;
	bb b = build_file_ex(false, 128, put_type0, &l);
	char *path = save(&b, "type0.data");
	char *out, *err, want[160];
	assert_int_equal(run_tool(pk_test_pmukit(), "script", path, &out, &err), 0);
	assert_int_equal(pd_test_lines(out), 4);
	snprintf(want, sizeof(want), "1 records of unknown types skipped (first of type 0); "
		 "first at file offset %zu", l.data_end - 16);
	assert_has(err, want);
	free(out);
	free(err);
	if (pd_test_have("perf")) {
		assert_int_not_equal(run_tool("perf", "script", path, &out, &err), 0);
		assert_has(err, "Found 1 unknown events!");
		free(out);
		free(err);
	}
	free(path);
	free(b.p);
}

/* PERF_RECORD_AUX records (aux_offset, aux_size, flags, sample_id). */
static void put_aux(bb *b, uint64_t flags, uint64_t time)
{
	U32(b, PERF_RECORD_AUX);
	U16(b, 0);
	U16(b, 8 + 24 + 16);
	U64(b, 0);
	U64(b, 4096);
	U64(b, flags);
	put_trailer(b, 42, 42, time);
}

static void put_auxes(bb *b)
{
	put_aux(b, PERF_AUX_FLAG_TRUNCATED, 5000);
	put_aux(b, PERF_AUX_FLAG_PARTIAL, 5100);
	put_aux(b, PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_COLLISION, 5200);
}

/* AUX data lost, with gaps, collided: said by script and report in perf's
 * words, the samples printed as perf prints them. */
static void test_aux_flags(void **state)
{
	(void)state;
	layout l;
	bb b = build_file_ex(false, 128, put_auxes, &l);
	char *path = save(&b, "auxflags.data");
	const char *args[] = {"script -F comm,tid,time,ip,period", "report --stdio -s comm,pid"};
	for (size_t i = 0; i < 2; i++) {
		char *err = same_as_perf(args[i], path, 0);
		assert_has(err, "AUX data lost 2 times out of 3!");
		assert_has(err, "AUX data had gaps in it 1 times out of 3!");
		assert_has(err, "AUX data detected collision 1 times out of 3!");
		free(err);
		if (pd_test_have("perf")) {
			char *out;
			run_tool("perf", args[i], path, &out, &err);
			assert_has(err, "AUX data lost 2 times out of 3!");
			assert_has(err, "AUX data had gaps in it 1 times out of 3!");
			assert_has(err, "AUX data detected collision  1 times out of 3!");
			free(out);
			free(err);
		}
	}
	free(path);
	free(b.p);
}

/* A gzip'ed perf.data (hotspot ships one): refused with status 255 as perf
 * refuses it, the reason named. */
static void test_gzip(void **state)
{
	(void)state;
	bb b = {0};
	bb_bytes(&b, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
	bb_zero(&b, 22);
	char *path = save(&b, "perf.data.gz");
	char *err = same_as_perf("script", path, 255);
	assert_has(err, "offset 0 (0x0): a gzip file, not a perf.data file: gunzip it first");
	free(err);
	err = same_as_perf("report --stdio", path, 255);
	free(err);
	free(path);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1_magic),
		cmocka_unit_test(test_pipe_tail),
		cmocka_unit_test(test_type0),
		cmocka_unit_test(test_aux_flags),
		cmocka_unit_test(test_gzip),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
