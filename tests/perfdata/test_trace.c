/* Tracing data (issue 12): the blob built from a fixture tracefs through
 * the kernel seam (tests/data/tracefs as $PMUKIT_TRACEFS), read back part
 * for part; payloads decoded in both modes against perf 6.1's text for the
 * same values, repeated payloads' kept texts; damaged blobs refused with the part and offset; payloads
 * whose dynamic arrays point far away read zeros, never past the copy
 * (checked under ASan); big-endian blobs; the pipe-mode record. */
#include "helpers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/pmu.h>
#include <pmukit/record.h>
#include <pmukit/tracedata.h>

#include "perfdata/pd_internal.h"

static char *fixture_file(const char *rel, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", pk_test_fixture("tracefs"), rel);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = malloc(1 << 16);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

static uint64_t fixture_id(const char *sys, const char *name)
{
	char rel[256];
	size_t n;
	snprintf(rel, sizeof(rel), "events/%s/%s/id", sys, name);
	char *s = fixture_file(rel, &n);
	s[n] = '\0';
	uint64_t id = strtoull(s, NULL, 10);
	free(s);
	return id;
}

/* A path for name in a fresh temporary directory (drop_path removes both). */
static void tmp_path(char *path, size_t size, const char *name)
{
	char *dir = pk_test_tmpdir();
	assert_non_null(dir);
	snprintf(path, size, "%s/%s", dir, name);
	free(dir);
}

static void drop_path(char *path)
{
	unlink(path);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	rmdir(path);
}

/* Begins w's data, writes one record (so that the data size is not 0: a
 * file cut short), closes it and opens the file. */
static pk_pd_reader *finish_and_open(pk_pd_writer *w, const char *path)
{
	pk_error err;
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	static const uint8_t round[8] = {PK_RECORD_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0};
	assert_int_equal(pk_pd_writer_write(w, round, sizeof(round), &err), 0);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, &err), 0);
	return r;
}

/* The TRACING_DATA feature of a file recorded with events, written in
 * file mode (pipe: the HEADER_TRACING_DATA record's data instead). */
static uint8_t *build_blob(const char *events, const pk_kernel *k, size_t *len, int *rc_out)
{
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("alderlake"), &err);
	assert_non_null(pmus);
	pk_evlist *l = pk_evlist_new();
	assert_int_equal(pk_evlist_parse(l, pmus, events, NULL, &err), 0);
	char path[4096];
	tmp_path(path, sizeof(path), "t.data");
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	int rc = pk_pd_writer_tracing_data(w, k, l, &err);
	*rc_out = rc;
	if (rc < 0)
		assert_true(strlen(err.msg) > 10);
	pk_pd_reader *r = finish_and_open(w, path);
	uint8_t *copy = NULL;
	*len = 0;
	const uint8_t *data;
	if (pk_pd_has_feature(r, PK_FEAT_TRACING_DATA) &&
	    pk_pd_feature_raw(r, PK_FEAT_TRACING_DATA, &data, len, &err) == 0) {
		copy = malloc(*len);
		memcpy(copy, data, *len);
	}
	pk_pd_reader_close(r);
	pk_evlist_put(l);
	pk_pmus_put(pmus);
	drop_path(path);
	return copy;
}

static void assert_text(pk_trace_text t, const char *rel)
{
	size_t n;
	char *want = fixture_file(rel, &n);
	assert_int_equal(t.len, n);
	assert_memory_equal(t.data, want, n);
	free(want);
}

static void test_build_from_tracefs(void **state)
{
	(void)state;
	size_t len;
	int rc;
	uint8_t *blob = build_blob("sched:sched_switch,syscalls:sys_enter_openat,"
				   "sched:sched_wakeup,sched:sched_switch",
				   NULL, &len, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(blob);
	assert_memory_equal(blob, "\x17\x08\x44tracing0.6", 14);
	pk_trace_data td;
	pk_error err;
	assert_int_equal(pk_trace_data_parse(blob, len, &td, &err), 0);
	assert_string_equal(td.version, "0.6");
	assert_int_equal(td.long_size, sizeof(long));
	assert_int_equal(td.page_size, (uint32_t)sysconf(_SC_PAGESIZE));
	assert_text(td.header_page, "events/header_page");
	assert_text(td.header_event, "events/header_event");
	assert_int_equal(td.nr_ftrace, 0);
	/* sched_switch once; systems together, in first-seen order */
	assert_int_equal(td.nr_formats, 3);
	assert_string_equal(td.formats[0].sys, "sched");
	assert_text(td.formats[0].text, "events/sched/sched_switch/format");
	assert_string_equal(td.formats[1].sys, "sched");
	assert_text(td.formats[1].text, "events/sched/sched_wakeup/format");
	assert_string_equal(td.formats[2].sys, "syscalls");
	assert_text(td.formats[2].text, "events/syscalls/sys_enter_openat/format");
	assert_int_equal(td.kallsyms.len, 0); /* as perf 6.1 writes it */
	assert_text(td.printk, "printk_formats");
	assert_text(td.cmdlines, "saved_cmdlines");
	/* written back, the same bytes */
	pk_pd_buf b = {0};
	assert_int_equal(pk_trace_data_write(&td, &b, &err), 0);
	assert_int_equal(b.len, len);
	assert_memory_equal(b.data, blob, len);
	pk_pd_buf_release(&b);
	pk_trace_data_release(&td);
	free(blob);
	/* no tracepoints: no feature */
	blob = build_blob("cpu-clock", NULL, &len, &rc);
	assert_int_equal(rc, 0);
	assert_null(blob);
}

static int no_file(const pk_kernel *k, const char *name, char **data, size_t *len)
{
	(void)k, (void)name, (void)data, (void)len;
	return -ENOENT;
}

static void test_no_tracefs(void **state)
{
	(void)state;
	/* a kernel without the op, and one whose tracefs lacks the files */
	pk_kernel_ops ops = *pk_kernel_linux()->ops;
	ops.host.tracefs_file = NULL;
	pk_kernel k = {&ops, NULL, "fake"};
	size_t len;
	int rc;
	assert_null(build_blob("sched:sched_switch", &k, &len, &rc));
	assert_int_equal(rc, -ENOENT);
	ops.host.tracefs_file = no_file;
	assert_null(build_blob("sched:sched_switch", &k, &len, &rc));
	assert_int_equal(rc, -ENOENT);
}

static uint8_t *fixture_blob(size_t *len)
{
	int rc;
	uint8_t *blob = build_blob("sched:sched_switch,sched:sched_wakeup,syscalls:sys_enter_openat",
				   NULL, len, &rc);
	assert_non_null(blob);
	return blob;
}

static void put(uint8_t *p, size_t off, uint64_t v, size_t n)
{
	memcpy(p + off, &v, n); /* little-endian host */
}

static void test_decode(void **state)
{
	(void)state;
	size_t len;
	uint8_t *blob = fixture_blob(&len);
	pk_trace *t;
	pk_error err;
	assert_int_equal(pk_trace_new(blob, len, &t, &err), 0);
	free(blob); /* copied */
	uint64_t sw = fixture_id("sched", "sched_switch"), op = fixture_id("syscalls", "sys_enter_openat");
	assert_string_equal(pk_trace_event_name(t, sw), "sched:sched_switch");
	assert_string_equal(pk_trace_event_name(t, op), "syscalls:sys_enter_openat");
	assert_null(pk_trace_event_name(t, 999999));
	uint8_t p[64] = {0};
	put(p, 0, sw, 2);
	memcpy(p + 8, "perf", 4);
	put(p, 24, 42, 4);
	put(p, 28, 120, 4);
	put(p, 32, 2, 8); /* D */
	memcpy(p + 40, "swapper/0", 9);
	put(p, 60, 120, 4);
	size_t n;
	const char *s = pk_trace_print(t, sw, p, sizeof(p), 0, PK_TRACE_PRETTY, &n);
	assert_non_null(s);
	assert_string_equal(s, "prev_comm=perf prev_pid=42 prev_prio=120 prev_state=D ==> "
			       "next_comm=swapper/0 next_pid=0 next_prio=120");
	assert_int_equal(n, strlen(s));
	/* a repeated payload's text is kept; one byte changed is another text */
	char first[256];
	snprintf(first, sizeof(first), "%s", s);
	put(p, 24, 43, 4);
	s = pk_trace_print(t, sw, p, sizeof(p), 0, PK_TRACE_PRETTY, &n);
	assert_non_null(strstr(s, "prev_pid=43 "));
	put(p, 24, 42, 4);
	assert_string_equal(pk_trace_print(t, sw, p, sizeof(p), 0, PK_TRACE_PRETTY, &n), first);
	assert_int_equal(n, strlen(first));
	s = pk_trace_print(t, sw, p, sizeof(p), 0, PK_TRACE_RAW, &n);
	assert_string_equal(s, " prev_comm=perf prev_pid=42 prev_prio=120 prev_state=2 "
			       "next_comm=swapper/0 next_pid=0 next_prio=120");
	/* syscalls: unsigned 8-byte ints in decimal, the pointer in hex */
	uint8_t q[48] = {0};
	put(q, 0, op, 2);
	put(q, 8, 257, 4);
	put(q, 16, 0xffffff9c, 8);
	put(q, 24, 0x7ffd1234, 8);
	put(q, 32, 0x80000, 8);
	s = pk_trace_print(t, op, q, sizeof(q), 1, PK_TRACE_PRETTY, &n);
	assert_string_equal(s, "dfd: 0xffffff9c, filename: 0x7ffd1234, flags: 0x00080000, "
			       "mode: 0x00000000");
	s = pk_trace_print(t, op, q, sizeof(q), 1, PK_TRACE_RAW, &n);
	assert_string_equal(s, " __syscall_nr=257 dfd=4294967196 filename=0x7ffd1234 flags=524288 mode=0");
	/* a payload cut short reads zeros past its end */
	s = pk_trace_print(t, sw, p, 12, 0, PK_TRACE_RAW, &n);
	assert_string_equal(s, " prev_comm=perf prev_pid=0 prev_prio=0 prev_state=0 next_comm= "
			       "next_pid=0 next_prio=0");
	/* no format: no text */
	assert_null(pk_trace_print(t, 999999, p, sizeof(p), 0, PK_TRACE_PRETTY, &n));
	pk_trace_free(t);
}

/* A blob with one hand-written format: a dynamic string and an array. */
static const char dyn_format[] =
	"name: dyn\nID: 7\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned char raw[4];\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"name=%s\", __get_str(name)\n";

/* A decoder over td with one format text (version, sizes filled in). */
static pk_trace *trace_of(pk_trace_data *td, const char *text)
{
	pk_trace_format f = {"test", {text, strlen(text)}};
	td->formats = &f;
	td->nr_formats = 1;
	td->long_size = 8;
	td->page_size = 4096;
	strcpy(td->version, "0.6");
	pk_pd_buf b = {0};
	assert_int_equal(pk_trace_data_write(td, &b, NULL), 0);
	td->formats = NULL;
	pk_trace *t;
	pk_error err;
	assert_int_equal(pk_trace_new(b.data, b.len, &t, &err), 0);
	pk_pd_buf_release(&b);
	return t;
}

static pk_trace *dyn_trace(void)
{
	pk_trace_data td = {0};
	return trace_of(&td, dyn_format);
}

/* The text parts reach libtraceevent only as lines of their kernel form;
 * others are counted in a warning (a printk line ending at its colon made
 * libtraceevent 1.7 read past its buffer: found by fuzz/trace_fuzz.c). */
static void test_text_parts(void **state)
{
	(void)state;
	static const char printk[] = "0xffffffff81000000 :\n0x1 : \"ok text\"\n0x2 : \"\n";
	static const char cmdlines[] = "junk\n1 init\n";
	static const char kallsyms[] = "ffffffff81000000 T _text\nbad\n";
	pk_trace_data td = {.printk = {printk, sizeof(printk) - 1},
			    .cmdlines = {cmdlines, sizeof(cmdlines) - 1},
			    .kallsyms = {kallsyms, sizeof(kallsyms) - 1}};
	pk_trace *t = trace_of(&td, dyn_format);
	assert_string_equal(pk_trace_warning(t, 0),
			    "tracing data: 2 malformed printk_formats lines skipped");
	assert_string_equal(pk_trace_warning(t, 1), "tracing data: 1 malformed kallsyms lines skipped");
	assert_string_equal(pk_trace_warning(t, 2),
			    "tracing data: 1 malformed saved_cmdlines lines skipped");
	assert_null(pk_trace_warning(t, 3));
	pk_trace_free(t);
}

/* Formats reach libtraceevent only in the kernel's shape (a brace never
 * opened, or an undeclared field in __print_symbolic, made its parser
 * follow a NULL pointer: found by fuzz/trace_fuzz.c);
 * the kernel's own formats, multi-line print formats included, pass. */
static void test_format_shape(void **state)
{
	(void)state;
	assert_null(pki_trace_format_check(dyn_format, sizeof(dyn_format) - 1));
	static const char multi[] = "name: m\nID: 9\nformat:\n"
				    "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
				    "print fmt: \"x %d\nnext line\", REC->x\n";
	assert_null(pki_trace_format_check(multi, sizeof(multi) - 1));
	static const char *const bad[][2] = {
		{"name: b\nID: 9\nformat:\n\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		 "print fmt: \"%s\", __print_symbolic(REC->x 0, \"HI\" }, { 1, \"T\" })\n",
		 "not balanced"},
		{"name: b\nID: x\nformat:\n", "'ID:'"},
		{"name: b\nID: 9\nformat:\n\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		 "print fmt: \"%s\", __print_symbolic(REC->y >> 1, { 0, \"HI\" })\n",
		 "undeclared field"},
		{"name: b\nID: 9\nformat:\n\tfield:int x;\toffset:;\tsize:4;\tsigned:1;\n",
		 "field line"},
		{"name: b\nID: 9\nformat:\n\n", "no 'print fmt:'"},
		{"name: b\nID: 9\nformat:\nprint fmt: x, REC->x\n", "string"},
		{"name: b\nID: 9\nformat:\nprint fmt: \"open\n", "string"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = pki_trace_format_check(bad[i][0], strlen(bad[i][0]));
		assert_non_null(why);
		assert_non_null(strstr(why, bad[i][1]));
	}
	/* a blob with the first: loaded, the event left out with a warning */
	pk_trace_data td = {0};
	pk_trace *t = trace_of(&td, bad[0][0]);
	assert_null(pk_trace_event_name(t, 9));
	assert_non_null(strstr(pk_trace_warning(t, 0), "not balanced"));
	pk_trace_free(t);
}

static void test_dynamic_bounds(void **state)
{
	(void)state;
	pk_trace *t = dyn_trace();
	uint8_t p[24] = {0};
	put(p, 0, 7, 2);
	put(p, 8, (5u << 16) | 16u, 4); /* "hello" at 16 */
	memcpy(p + 12, "\x01\x02\x03\x04", 4);
	memcpy(p + 16, "hello", 5);
	size_t n;
	assert_string_equal(pk_trace_print(t, 7, p, sizeof(p), 0, PK_TRACE_PRETTY, &n), "name=hello");
	assert_string_equal(pk_trace_print(t, 7, p, sizeof(p), 0, PK_TRACE_RAW, &n),
			    " name=hello raw=ARRAY[01, 02, 03, 04]");
	/* offset and length at their largest: zeros, not memory past the copy */
	put(p, 8, 0xffffffffu, 4);
	assert_string_equal(pk_trace_print(t, 7, p, sizeof(p), 0, PK_TRACE_PRETTY, &n), "name=");
	assert_string_equal(pk_trace_print(t, 7, p, sizeof(p), 0, PK_TRACE_RAW, &n),
			    " name= raw=ARRAY[01, 02, 03, 04]");
	/* a string that is not printable is shown as its 64 KiB of bytes */
	put(p, 8, (0xffffu << 16) | 16u, 4);
	p[16] = 1;
	const char *s = pk_trace_print(t, 7, p, sizeof(p), 0, PK_TRACE_RAW, &n);
	assert_non_null(s);
	assert_int_equal(n, strlen(" name=ARRAY[01") + 65534 * 4 + strlen("] raw=ARRAY[01, 02, 03, 04]"));
	/* and from then on that field is no string (perf 6.1's libtraceevent) */
	put(p, 8, (5u << 16) | 16u, 4);
	memcpy(p + 16, "hello", 5);
	assert_string_equal(pk_trace_print(t, 7, p, sizeof(p), 0, PK_TRACE_RAW, &n),
			    " name=ARRAY[68, 65, 6c, 6c, 6f] raw=ARRAY[01, 02, 03, 04]");
	/* and a payload larger than a record can hold is refused */
	assert_null(pk_trace_print(t, 7, p, 70000, 0, PK_TRACE_RAW, &n));
	pk_trace_free(t);
}

static void test_damaged(void **state)
{
	(void)state;
	size_t len;
	uint8_t *blob = fixture_blob(&len);
	pk_trace_data td;
	pk_error err;
	/* every cut is refused, naming a part and an offset inside the blob */
	for (size_t cut = 0; cut < len; cut += (cut < 64 ? 1 : 97)) {
		pk_error_clear(&err);
		int rc = pk_trace_data_parse(blob, cut, &td, &err);
		if (rc == 0) { /* only the optional cmdlines may go */
			assert_true(cut >= len - 8 - 32);
			pk_trace_data_release(&td);
			continue;
		}
		assert_int_equal(rc, -EINVAL);
		assert_true(err.pos >= 0 && (size_t)err.pos <= cut);
		assert_non_null(strstr(err.msg, "tracing data"));
	}
	blob[0] ^= 1;
	assert_int_equal(pk_trace_data_parse(blob, len, &td, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "magic"));
	blob[0] ^= 1;
	/* the ftrace count (after magic, version, flags, page size and the
	 * two headers) made huge */
	size_t off = 10 + 4 + 2 + 4;
	for (int i = 0; i < 2; i++) {
		uint64_t n;
		off += strlen((char *)blob + off) + 1;
		memcpy(&n, blob + off, 8);
		off += 8 + n;
	}
	uint32_t huge = 0x7fffffff;
	memcpy(blob + off, &huge, 4);
	assert_int_equal(pk_trace_data_parse(blob, len, &td, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "cannot fit"));
	pk_trace *t;
	assert_int_equal(pk_trace_new(blob, len, &t, &err), -EINVAL);
	free(blob);
}

/* A big-endian blob, laid out by hand. */
static void be_put(uint8_t *p, size_t *o, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[*o + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	*o += n;
}

static void test_big_endian(void **state)
{
	(void)state;
	uint8_t b[1024] = {0};
	size_t o = 0;
	memcpy(b, "\x17\x08\x44tracing0.6", 14);
	o = 14;
	b[o++] = 1; /* big endian */
	b[o++] = 8;
	be_put(b, &o, 65536, 4);
	memcpy(b + o, "header_page", 12), o += 12;
	be_put(b, &o, 3, 8);
	memcpy(b + o, "abc", 3), o += 3;
	memcpy(b + o, "header_event", 13), o += 13;
	be_put(b, &o, 0, 8);
	be_put(b, &o, 0, 4); /* ftrace */
	be_put(b, &o, 1, 4); /* systems */
	memcpy(b + o, "s", 2), o += 2;
	be_put(b, &o, 1, 4);
	be_put(b, &o, 5, 8);
	memcpy(b + o, "fmt\n\n", 5), o += 5;
	be_put(b, &o, 0, 4);
	be_put(b, &o, 2, 4);
	memcpy(b + o, "pk", 2), o += 2;
	be_put(b, &o, 1, 8);
	b[o++] = '\n';
	pk_trace_data td;
	pk_error err;
	assert_int_equal(pk_trace_data_parse(b, o, &td, &err), 0);
	assert_true(td.big_endian);
	assert_int_equal(td.page_size, 65536);
	assert_int_equal(td.header_page.len, 3);
	assert_int_equal(td.nr_formats, 1);
	assert_string_equal(td.formats[0].sys, "s");
	assert_int_equal(td.formats[0].text.len, 5);
	assert_int_equal(td.printk.len, 2);
	assert_int_equal(td.cmdlines.len, 1);
	pk_trace_data_release(&td);
}

static void test_pipe_record(void **state)
{
	(void)state;
	size_t len;
	uint8_t *blob = fixture_blob(&len);
	pk_error err;
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("alderlake"), &err);
	pk_evlist *l = pk_evlist_new();
	assert_int_equal(pk_evlist_parse(l, pmus, "sched:sched_switch,sched:sched_wakeup,"
						  "syscalls:sys_enter_openat", NULL, &err), 0);
	char path[4096];
	tmp_path(path, sizeof(path), "p.pipe");
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, true, &w, &err), 0);
	assert_int_equal(pk_pd_writer_tracing_data(w, NULL, l, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, &err), 0);
	pk_pd_event ev;
	int seen = 0;
	while (pk_pd_next(r, &ev, &err) > 0) {
		if (ev.type != PK_RECORD_HEADER_TRACING_DATA)
			continue;
		seen++;
		uint32_t size;
		memcpy(&size, ev.data + 8, 4);
		assert_int_equal(ev.size, 16);
		assert_int_equal(size, (len + 7) & ~(size_t)7);
		assert_non_null(ev.aux);
		assert_memory_equal(ev.aux, blob, len);
	}
	assert_int_equal(seen, 1);
	pk_pd_reader_close(r);
	pk_evlist_put(l);
	pk_pmus_put(pmus);
	drop_path(path);
	free(blob);
}

/* A file without EVENT_DESC: the tracepoint event takes its name from the
 * tracing data, "sys:name" as perf shows it. */
static void test_name_evsels(void **state)
{
	(void)state;
	size_t len;
	uint8_t *blob = fixture_blob(&len);
	pk_error err;
	char path[4096];
	tmp_path(path, sizeof(path), "n.data");
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_TRACEPOINT, .size = sizeof(a),
				    .config = fixture_id("sched", "sched_switch"),
				    .sample_type = PERF_SAMPLE_RAW};
	uint64_t id = 1;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, NULL, &id, 1, &err), 0);
	assert_int_equal(pk_pd_writer_set_feature(w, PK_FEAT_TRACING_DATA, blob, len, &err), 0);
	pk_pd_reader *r = finish_and_open(w, path);
	const pk_pd_evsel *e = pk_pd_evsel_at(r, 0);
	assert_null(strstr(pk_pd_evsel_name(e), "sched_switch"));
	pk_trace *t;
	assert_int_equal(pk_trace_new(blob, len, &t, &err), 0);
	assert_int_equal(pk_trace_name_evsels(t, r), 1);
	assert_string_equal(pk_pd_evsel_name(e), "sched:sched_switch");
	pk_trace_free(t);
	pk_pd_reader_close(r);
	drop_path(path);
	free(blob);
}

int main(void)
{
	setenv("PMUKIT_TRACEFS", pk_test_fixture("tracefs"), 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_from_tracefs),
		cmocka_unit_test(test_no_tracefs),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_dynamic_bounds),
		cmocka_unit_test(test_text_parts),
		cmocka_unit_test(test_format_shape),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_pipe_record),
		cmocka_unit_test(test_name_evsels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
