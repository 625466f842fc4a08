/* perf.data headers and statistics against perf 6.1, on hand-made files
 * (the shapes of files recorded elsewhere: old perf, other machines, pipe
 * mode). Each test writes a file with the library's writer, runs the same
 * view with perf and with pmukit and wants the same bytes (perf's random
 * tip cut off). Skipped without perf.
 *
 * The files: events with and without ids, branch stacks (branch_sample_type
 * by name, the BRANCH_STACK feature), sample_type bits perf prints out of
 * bit order, CLOCKID and CLOCK_DATA, HYBRID_TOPOLOGY (a line perf shows only
 * with -I), PMU mappings without entries; in pipe mode the same features
 * as HEADER_FEATURE records, printed as they are read, the event names
 * perf's --stats makes from the attrs there, the group view its GROUP_DESC
 * asks for; the AUXTRACE feature's note in
 * --stats. The report's comm column: sized by each thread's last name, a
 * sample's earlier name cut to it ("perf-ex"). A recording of tracepoints
 * alone (perfparser's probe.data.file from tests/data/perfdata-real):
 * sorted by the trace output, cut to its title's width. BPF_PROG_INFO and
 * BPF_BTF: programs in id order named by their BTF function, their own name
 * or "F", sub-programs, a duplicate id (a program whose arrays are absent
 * crashes perf 6.1: not compared). */
#include "helpers.h"
#include "pd_test.h"
#include "perfdata/sample_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/bpf.h>
#include <pmukit/perfdata.h>

/* Whether `perf <view> -i path` and `pmukit <view> -i path` print the same
 * (stdout; perf's tip cut off); shows where they part. */
static void same_view(const char *path, const char *view)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "perf %s -i '%s' 2>/dev/null", view, path);
	char *theirs = pd_test_output(cmd);
	pd_test_drop_tip(theirs);
	snprintf(cmd, sizeof(cmd), "%s %s -i '%s' 2>/dev/null", pk_test_pmukit(), view, path);
	char *ours = pd_test_output(cmd);
	if (strcmp(ours, theirs))
		fprintf(stderr, "%s of %s:\n--- perf\n%s--- pmukit\n%s", view, path, theirs, ours);
	assert_string_equal(ours, theirs);
	free(ours);
	free(theirs);
}

static void feature(pk_pd_writer *w, int feat, const pk_pd_buf *b)
{
	static const uint8_t none[1];
	pk_error err;
	assert_false(b->oom);
	assert_int_equal(pk_pd_writer_set_feature(w, feat, b->len ? b->data : none, b->len, &err),
			 0);
}

/* HOSTNAME, CLOCKID, CLOCK_DATA (monotonic, a reference time),
 * HYBRID_TOPOLOGY (two core PMUs), BRANCH_STACK (no payload; with
 * branches), PMU_MAPPINGS of two PMUs. */
static void host_features(pk_pd_writer *w, bool branches)
{
	pk_pd_buf b = {0};
	pk_pd_buf_string(&b, "elsewhere");
	feature(w, PK_FEAT_HOSTNAME, &b);
	b.len = 0;
	pk_pd_buf_u64(&b, 1); /* clock resolution, ns */
	feature(w, PK_FEAT_CLOCKID, &b);
	b.len = 0;
	pk_pd_buf_u32(&b, 1);
	pk_pd_buf_u32(&b, CLOCK_MONOTONIC);
	pk_pd_buf_u64(&b, 1767545218014657123ULL);
	pk_pd_buf_u64(&b, 405068949598ULL);
	feature(w, PK_FEAT_CLOCK_DATA, &b);
	b.len = 0;
	pk_pd_buf_u32(&b, 2);
	pk_pd_buf_string(&b, "cpu_core");
	pk_pd_buf_string(&b, "0-3");
	pk_pd_buf_string(&b, "cpu_atom");
	pk_pd_buf_string(&b, "4-11");
	feature(w, PK_FEAT_HYBRID_TOPOLOGY, &b);
	b.len = 0;
	if (branches) /* perf then reports branches, which the samples lack */
		feature(w, PK_FEAT_BRANCH_STACK, &b);
	/* two entries: with none, perf 6.1.187 prints this host's PMUs (an
	 * older 6.1 "not available", as pmukit; docs/perfdata-differences.md) */
	pk_pd_buf_u32(&b, 2);
	pk_pd_buf_u32(&b, 4);
	pk_pd_buf_string(&b, "cpu");
	pk_pd_buf_u32(&b, 1);
	pk_pd_buf_string(&b, "software");
	feature(w, PK_FEAT_PMU_MAPPINGS, &b);
	pk_pd_buf_release(&b);
}

/* cpu-clock:u with ids and a branch stack filter, sample_type bits perf
 * names out of bit order (IDENTIFIER, REGS_INTR before DATA_SRC; no name for
 * TRANSACTION); task-clock without ids. */
static void two_events(pk_pd_writer *w, struct perf_event_attr *a, bool branches)
{
	*a = (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(*a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 4000, .freq = 1, .exclude_kernel = 1, .exclude_hv = 1,
		.exclude_guest = 1, .sample_id_all = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC |
			       PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_TRANSACTION,
		.sample_regs_intr = 1,
		.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY |
				      PERF_SAMPLE_BRANCH_HW_INDEX};
	if (!branches) { /* a plain file for the report's views */
		a->branch_sample_type = 0;
		a->sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_DATA_SRC |
					      PERF_SAMPLE_TRANSACTION);
		a->sample_regs_intr = 0;
	}
	struct perf_event_attr b = *a;
	b.config = PERF_COUNT_SW_TASK_CLOCK;
	b.branch_sample_type = 0;
	uint64_t ids[2] = {101, 102};
	pk_error err;
	assert_int_equal(pk_pd_writer_add_evsel(w, a, 0, "cpu-clock:u", ids, 2, &err), 0);
	assert_int_equal(pk_pd_writer_add_evsel(w, &b, 0, "task-clock:u", NULL, 0, &err), 0);
	assert_int_equal(pk_pd_writer_event_desc(w, &err), 0);
}

static void put_comm(pk_pd_writer *w, const char *name, bool exec, uint64_t time)
{
	pk_pd_buf b = {0};
	pk_pd_buf_u32(&b, PERF_RECORD_COMM);
	pk_pd_buf_u16(&b, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	pk_pd_buf_u16(&b, 0);
	pk_pd_buf_u32(&b, 42);
	pk_pd_buf_u32(&b, 42);
	pk_pd_buf_name(&b, name);
	/* sample_id_all: the trailer of the first event, IDENTIFIER last */
	pk_pd_buf_u32(&b, 42);
	pk_pd_buf_u32(&b, 42);
	pk_pd_buf_u64(&b, time);
	pk_pd_buf_u64(&b, 101);
	assert_false(b.oom);
	b.data[6] = (uint8_t)b.len;
	b.data[7] = (uint8_t)(b.len >> 8);
	pk_error err;
	assert_int_equal(pk_pd_writer_write(w, b.data, b.len, &err), 0);
	pk_pd_buf_release(&b);
}

/* perf-exec's sample, then python3's two (after the exec). */
static void write_samples(pk_pd_writer *w, const struct perf_event_attr *a)
{
	put_comm(w, "perf-exec", false, 500000000ULL);
	for (int i = 0; i < 3; i++) {
		if (i == 1)
			put_comm(w, "python3", true, 1500000000ULL);
		pk_pd_sample s = {.misc = PERF_RECORD_MISC_USER, .ip = 0x401000 + (uint64_t)i,
				  .pid = 42, .tid = 42, .time = 1000000000ULL * (uint64_t)(i + 1),
				  .id = 101, .identifier = 101, .period = 4000};
		uint8_t buf[512];
		pk_error err;
		struct perf_event_attr plain = *a;
		uint64_t odd = PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION;
		plain.sample_type &= ~odd;
		ssize_t n = pki_pd_sample_write(&plain, &s, buf, sizeof(buf), &err);
		assert_true(n > 0);
		if (a->sample_type & odd) {
			/* the fields the plain layout left out, zero: data_src,
			 * transaction after the period, then regs_intr's abi 0 */
			memset(buf + n, 0, 24);
			n += 24;
			((struct perf_event_header *)buf)->size = (uint16_t)n;
		}
		assert_int_equal(pk_pd_writer_write(w, buf, (size_t)n, &err), 0);
	}
}

/* with: BRANCHES (the odd attr bits, BRANCH_STACK), AUX (the AUXTRACE
 * feature, file mode: perf sends none down a pipe; perf's report then
 * shows Children), GROUP (the two events one group) */
enum { BRANCHES = 1, AUX = 2, GROUP = 4 };

/* A program entry: one sub-program per name (NULL: none in BTF), tags
 * 0x11.., addresses 0xffffffffc0001000 + 0x100 i, sizes 64 + i; func_info
 * type ids 2 + i; arrays (the bits perf sets) may leave some out. */
static void bpf_prog(pk_pd_buf *b, uint32_t id, uint32_t btf_id, const char *name, uint32_t cnt,
		     uint64_t arrays)
{
	struct bpf_prog_info in = {.id = id, .btf_id = btf_id, .nr_jited_ksyms = cnt,
				   .nr_jited_func_lens = cnt, .nr_prog_tags = cnt,
				   .nr_func_info = cnt, .func_info_rec_size = 8};
	snprintf(in.name, sizeof(in.name), "%s", name);
	pk_pd_buf d = {0};
	in.jited_ksyms = d.len;
	for (uint32_t i = 0; i < cnt; i++)
		pk_pd_buf_u64(&d, 0xffffffffc0001000ULL + 0x100 * i);
	in.jited_func_lens = d.len;
	for (uint32_t i = 0; i < cnt; i++)
		pk_pd_buf_u32(&d, 64 + i);
	pk_pd_buf_pad8(&d);
	in.func_info = d.len;
	for (uint32_t i = 0; i < cnt; i++) {
		pk_pd_buf_u32(&d, 0);
		pk_pd_buf_u32(&d, 2 + i);
	}
	in.prog_tags = d.len;
	for (uint32_t i = 0; i < cnt * BPF_TAG_SIZE; i++)
		pk_pd_buf_bytes(&d, &(uint8_t){(uint8_t)(0x11 * (id + i / BPF_TAG_SIZE))}, 1);
	pk_pd_buf_pad8(&d);
	pk_pd_buf_u32(b, sizeof(in));
	pk_pd_buf_u32(b, (uint32_t)d.len);
	pk_pd_buf_u64(b, arrays);
	pk_pd_buf_bytes(b, &in, sizeof(in));
	pk_pd_buf_bytes(b, d.data, d.len);
	pk_pd_buf_release(&d);
}

/* A BTF blob: [1] FUNC_PROTO, [2] FUNC "fentry_start", [3] FUNC "__helper". */
static void bpf_btf(pk_pd_buf *b, uint32_t id)
{
	static const char str[] = "\0fentry_start\0__helper";
	pk_pd_buf t = {0};
	uint32_t types[][3] = {{0, 13u << 24, 0}, {1, 12u << 24, 1}, {14, 12u << 24, 1}};
	pk_pd_buf_bytes(&t, types, sizeof(types));
	pk_pd_buf_u32(b, id);
	pk_pd_buf_u32(b, (uint32_t)(24 + t.len + sizeof(str)));
	pk_pd_buf_u32(b, 0xeb9f | 1u << 16); /* magic, version 1, flags 0 */
	pk_pd_buf_u32(b, 24);
	pk_pd_buf_u32(b, 0);
	pk_pd_buf_u32(b, (uint32_t)t.len);
	pk_pd_buf_u32(b, (uint32_t)t.len);
	pk_pd_buf_u32(b, sizeof(str));
	pk_pd_buf_bytes(b, t.data, t.len);
	pk_pd_buf_bytes(b, str, sizeof(str));
	pk_pd_buf_release(&t);
}

static void bpf_features(pk_pd_writer *w)
{
	uint64_t all = 1u << 3 | 1u << 4 | 1u << 5 | 1u << 8; /* ksyms, lens, func_info, tags */
	pk_pd_buf b = {0};
	pk_pd_buf_u32(&b, 5);
	bpf_prog(&b, 7, 10, "fentry_start", 1, all); /* the BTF's name */
	bpf_prog(&b, 3, 0, "", 2, all);              /* two sub-programs: "F" */
	bpf_prog(&b, 5, 0, "own_name", 1, all);      /* its own name */
	bpf_prog(&b, 7, 0, "again", 1, all);         /* a duplicate id: left out */
	bpf_prog(&b, 9, 10, "", 2, all);             /* sub-programs named by BTF */
	feature(w, PK_FEAT_BPF_PROG_INFO, &b);
	b.len = 0;
	pk_pd_buf_u32(&b, 2);
	bpf_btf(&b, 12);
	bpf_btf(&b, 10);
	feature(w, PK_FEAT_BPF_BTF, &b);
	pk_pd_buf_release(&b);
}

static void make_file(const char *path, bool pipe, int with)
{
	bool branches = with & BRANCHES;
	pk_pd_writer *w;
	pk_error err;
	struct perf_event_attr a;
	assert_int_equal(pk_pd_writer_open(path, pipe, &w, &err), 0);
	two_events(w, &a, branches);
	host_features(w, branches);
	if (branches)
		bpf_features(w);
	if (with & GROUP)
		pd_test_group_desc(w, 0, 2);
	if (with & AUX) { /* AUXTRACE: an empty index */
		pk_pd_buf b = {0};
		pk_pd_buf_u64(&b, 0);
		feature(w, PK_FEAT_AUXTRACE, &b);
		pk_pd_buf_release(&b);
	}
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	write_samples(w, &a);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
}

static void test_file_header(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	char path[1024];
	snprintf(path, sizeof(path), "%s/file.data", pd_test_dir);
	make_file(path, false, BRANCHES | AUX);
	same_view(path, "report --header-only");
	make_file(path, false, AUX);
	same_view(path, "report --stats");
	make_file(path, false, 0);
	same_view(path, "report -s comm,pid --stdio");
	same_view(path, "report --stdio");
}

static void test_pipe_header(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	char path[1024];
	snprintf(path, sizeof(path), "%s/pipe.data", pd_test_dir);
	make_file(path, true, BRANCHES);
	same_view(path, "report --header-only");
	same_view(path, "script --header-only"); /* the file facts alone */
	same_view(path, "script --header -F comm,tid,event"); /* the features, then the lines */
	make_file(path, true, GROUP);
	same_view(path, "report --stats");
	same_view(path, "report --stdio"); /* the group view from the stream's GROUP_DESC */
	same_view(path, "report --header --stdio"); /* the features, then the table */
}

static void test_tracepoints_only(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("xz");
	char cmd[2048], path[1024];
	snprintf(path, sizeof(path), "%s/probe.data", pd_test_dir);
	snprintf(cmd, sizeof(cmd), "xz -dc '%s/perfdata-real/perfparser/probe.data.file.xz' > '%s'",
		 PK_TEST_DATA_DIR, path);
	free(pd_test_output(cmd));
	same_view(path, "report --stdio");
	same_view(path, "report -s trace,comm --stdio");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_header),
		cmocka_unit_test(test_pipe_header),
		cmocka_unit_test(test_tracepoints_only),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
