/* The machine's one thread table (lib/symbols/thread.c; issue 21: report
 * --tasks/--mmaps list it through lib/symbols' iterator, tasks.c, and
 * samples resolve against it): a hand-made file whose records take perf's
 * rules (a FORK of a known tid into a parent without a name, a FORK's
 * parent of another process made anew, maps copied into a child process, a
 * fileless map and a vdso with their recorded offsets) and samples after
 * them. report --tasks, --mmaps and script must print what perf 6.1 prints
 * (skipped without perf); the iterator must give the table in perf's order
 * with the recorded values, the lookups the same names and pids. */
#include "helpers.h"
#include "pd_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/session.h>
#include <pmukit/symbols.h>

static const struct perf_event_attr attr = {
	.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr), .config = PERF_COUNT_SW_CPU_CLOCK,
	.sample_period = 1000, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
	.sample_id_all = 1, .mmap = 1, .comm = 1, .task = 1};

static void comm(pk_pd_writer *w, pk_pd_buf *b, uint32_t pid, uint32_t tid, const char *name)
{
	pk_pd_buf_u64(b, 0); /* header, set by pd_test_put_record */
	pk_pd_buf_u32(b, pid);
	pk_pd_buf_u32(b, tid);
	pk_pd_buf_name(b, name);
	pd_test_put_record(w, &attr, b, PERF_RECORD_COMM, 0, pid);
}

static void fork_(pk_pd_writer *w, pk_pd_buf *b, uint32_t pid, uint32_t ppid, uint32_t tid,
		  uint32_t ptid)
{
	pk_pd_buf_u64(b, 0);
	uint32_t v[] = {pid, ppid, tid, ptid};
	pk_pd_buf_bytes(b, v, sizeof(v));
	pk_pd_buf_u64(b, 1000000000ULL);
	pd_test_put_record(w, &attr, b, PERF_RECORD_FORK, 0, pid);
}

static void mmap2(pk_pd_writer *w, pk_pd_buf *b, uint32_t pid, uint64_t start, uint64_t pgoff,
		  uint64_t ino, const char *name)
{
	pk_pd_buf_u64(b, 0);
	pk_pd_buf_u32(b, pid);
	pk_pd_buf_u32(b, pid);
	uint64_t v[] = {start, 0x10000, pgoff, 0, ino, 0}; /* start, len, pgoff, dev, ino, gen */
	pk_pd_buf_bytes(b, v, sizeof(v));
	pk_pd_buf_u32(b, 5);    /* PROT_READ | PROT_EXEC */
	pk_pd_buf_u32(b, 0x22); /* MAP_PRIVATE | MAP_ANONYMOUS */
	pk_pd_buf_name(b, name);
	pd_test_put_record(w, &attr, b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, pid);
}

static void sample(pk_pd_writer *w, uint32_t pid, uint32_t tid, uint64_t ip)
{
	struct {
		uint32_t type;
		uint16_t misc, size;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
	} r = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r), ip, pid, tid, 2000000000ULL};
	pk_error err;
	assert_int_equal(pk_pd_writer_write(w, &r, sizeof(r), &err), 0);
}

/* A file at pd_test_dir/name (path: room for 1024) with the one evsel,
 * begun: records go next. */
static pk_pd_writer *writer_at(const char *name, char *path)
{
	snprintf(path, 1024, "%s/%s", pd_test_dir, name);
	pk_pd_writer *w;
	pk_error err;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	assert_int_equal(pk_pd_writer_add_evsel(w, &attr, 0, "cpu-clock", NULL, 0, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	return w;
}

static const char *make_file(void)
{
	static char path[1024];
	pk_pd_writer *w = writer_at("tasks.data", path);
	pk_error err;
	pk_pd_buf b = {0};
	comm(w, &b, 100, 100, "parent");
	mmap2(w, &b, 100, 0x10000, 0x1234, 0, "//anon");
	mmap2(w, &b, 100, 0x30000, 0x30000, 0, "[vdso]");
	mmap2(w, &b, 100, 0x50000, 0x2000, 77, "/usr/bin/true");
	fork_(w, &b, 200, 100, 200, 100); /* a child process: the parent's maps copied */
	comm(w, &b, 200, 200, "child");
	fork_(w, &b, 300, 300, 301, 300); /* a thread of an unnamed process */
	comm(w, &b, 300, 301, "worker");
	fork_(w, &b, 300, 300, 301, 300); /* again: a new task, no name from the parent */
	comm(w, &b, 401, 402, "named");
	mmap2(w, &b, 900, 0x10000, 0, 0, "/no/such/t900"); /* a task for --mmaps only */
	fork_(w, &b, 700, 700, 701, 402); /* 402 is not of process 700: made anew */
	/* samples resolve against the same table: the replaced thread's name
	 * is gone; the remade parent's and its child's are their tids; the
	 * child's copy of the fileless map and of the file's */
	sample(w, 300, 301, 0x50040);
	sample(w, 401, 402, 0x50040);
	sample(w, 700, 701, 0x50040);
	sample(w, 200, 200, 0x10040);
	sample(w, 200, 200, 0x50040);
	sample(w, 100, 100, 0x30040);
	pk_pd_buf_release(&b);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	return path;
}

static void test_views_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	const char *file = make_file();
	char args[1200];
	snprintf(args, sizeof(args), "report --stdio --tasks -i %s", file);
	pd_test_same_as_perf(args);
	snprintf(args, sizeof(args), "report --stdio --mmaps -i %s", file);
	pd_test_same_as_perf(args);
	snprintf(args, sizeof(args), "script -i %s -F comm,pid,tid,ip,sym,dso", file);
	pd_test_same_as_perf(args);
}

static void check_task(pk_machine *m, size_t i, int32_t pid, int32_t tid, int32_t ppid,
		       const char *comm_)
{
	const pk_task *t = pk_machine_task_at(m, i);
	assert_non_null(t);
	assert_int_equal(t->pid, pid);
	assert_int_equal(t->tid, tid);
	assert_int_equal(t->ppid, ppid);
	assert_string_equal(t->comm, comm_);
	assert_int_equal(t->idx, i);
	assert_ptr_equal(pk_machine_task_find(m, tid), t);
}

static void test_iterator(void **state)
{
	(void)state;
	pk_session *s;
	pk_error err;
	assert_int_equal(pk_session_open(make_file(), NULL, &s, &err), 0);
	pk_machine *m = pk_session_machine(s);
	size_t n;
	assert_int_equal(pk_machine_tasks(m, &n), -EINVAL); /* not kept */
	assert_null(pk_machine_task_at(m, 0));
	assert_int_equal(pk_machine_keep_tasks(m, true), 0);
	assert_int_equal(pk_session_run(s, NULL, NULL, &err), 0);
	assert_int_equal(pk_machine_tasks(m, &n), 0);
	assert_int_equal(n, 10);
	/* perf's order: tid modulo 256, then tid */
	check_task(m, 0, 0, 0, -1, "swapper");
	check_task(m, 1, 300, 300, -1, ":300");
	check_task(m, 2, 300, 301, 300, ":301");
	check_task(m, 3, 100, 100, -1, "parent");
	check_task(m, 4, 900, 900, -1, ":900");
	check_task(m, 5, 401, 401, -1, ":401");
	check_task(m, 6, 700, 402, -1, ":402"); /* made anew for the FORK */
	check_task(m, 7, 700, 700, -1, ":700");
	check_task(m, 8, 700, 701, 402, ":701");
	check_task(m, 9, 200, 200, 100, "child");
	assert_null(pk_machine_task_at(m, 10));
	/* lookups read the same table: the FORK's new task has no name */
	assert_string_equal(pk_machine_comm(m, 300, 301), ":301");
	assert_int_equal(pk_machine_pid_of(m, 402), 700);
	/* the child's copy of the parent's maps, as recorded */
	const pk_task_map *v = pk_machine_task_maps(m, pk_machine_task_find(m, 200), &n);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].start, 0x10000);
	assert_int_equal(v[0].pgoff, 0x1234);
	assert_string_equal(v[0].name, "/tmp/perf-100.map");
	assert_int_equal(v[1].pgoff, 0); /* a vdso's, as perf keeps it */
	assert_int_equal(v[2].ino, 77);
	assert_int_equal(v[2].prot, 5);
	assert_int_equal(v[2].flags, 0x22);
	/* the lookups rewrite the fileless map's and the vdso's offsets */
	pk_frame_map fm;
	assert_non_null(pk_machine_frame_map(m, 200, PERF_RECORD_MISC_USER, 0x10040, &fm));
	assert_int_equal(fm.pgoff, 0x10000);
	assert_non_null(pk_machine_frame_map(m, 200, PERF_RECORD_MISC_USER, 0x30040, &fm));
	assert_int_equal(fm.pgoff, 0);
	/* --tasks' tree (pk_machine_task_tree): tops in the order reached, a
	 * task under its parent, depth first (the view perf prints above) */
	pk_task_place *tp;
	assert_int_equal(pk_machine_task_tree(m, &tp, &n), 0);
	static const size_t idx[] = {0, 1, 2, 3, 9, 4, 5, 6, 8, 7};
	static const int level[] = {0, 0, 1, 0, 1, 0, 0, 0, 1, 0};
	assert_int_equal(n, 10);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(tp[i].idx, idx[i]);
		assert_int_equal(tp[i].level, level[i]);
	}
	free(tp);
	pk_session_close(s);
}

static void read_rec(pk_pd_writer *w, pk_pd_buf *b, uint32_t pid, uint32_t tid, uint64_t value)
{
	pk_pd_buf_u64(b, 0);
	pk_pd_buf_u32(b, pid);
	pk_pd_buf_u32(b, tid);
	pk_pd_buf_u64(b, value);
	pd_test_put_record(w, &attr, b, PERF_RECORD_READ, 0, pid);
}

/* report -T's sums (pk_session_reads): READ records' values added up per
 * thread and event, threads in the order first seen. */
static void test_reads(void **state)
{
	(void)state;
	char path[1024];
	pk_pd_writer *w = writer_at("reads.data", path);
	pk_error err;
	pk_pd_buf b = {0};
	read_rec(w, &b, 100, 101, 5);
	read_rec(w, &b, 100, 100, 7);
	read_rec(w, &b, 100, 101, 10);
	pk_pd_buf_release(&b);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	pk_session *s;
	assert_int_equal(pk_session_open(path, NULL, &s, &err), 0);
	pk_session_reads *r = pk_session_reads_new();
	assert_non_null(r);
	pk_session_on_event(s, pk_session_reads_event, r);
	assert_int_equal(pk_session_run(s, NULL, NULL, &err), 0);
	size_t nth, nev;
	assert_int_equal(pk_session_reads_size(r, &nth, &nev), 0);
	assert_int_equal(nth, 2);
	assert_int_equal(nev, 1);
	int32_t pid, tid;
	pk_session_reads_thread(r, 0, &pid, &tid);
	assert_int_equal(tid, 101);
	pk_session_reads_thread(r, 1, &pid, &tid);
	assert_int_equal(pid, 100);
	assert_int_equal(tid, 100);
	assert_int_equal(pk_session_reads_evsel(r, 0), 0);
	assert_int_equal(pk_session_reads_value(r, 0, 0), 15);
	assert_int_equal(pk_session_reads_value(r, 1, 0), 7);
	assert_int_equal(pk_session_reads_value(r, 2, 0), 0); /* past the table */
	pk_session_reads_free(r);
	pk_session_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_views_vs_perf),
		cmocka_unit_test(test_iterator),
		cmocka_unit_test(test_reads),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
