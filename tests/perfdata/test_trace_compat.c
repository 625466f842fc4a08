/* Tracepoint recordings against Linux perf 6.1 (issue 12): perf's own
 * recordings of sched:sched_switch and syscalls read by pmukit (default
 * script output with the payload, -F trace, report --sort trace and
 * --raw-trace rows), and pmukit's recordings read by perf (perf script
 * prints the same as pmukit script; perf report's trace rows the same as
 * ours), in file and pipe mode; the tracing data both write for one event,
 * part for part. Skipped with the reason when perf, root or
 * a readable tracefs is absent. */
#include "helpers.h"
#include "pd_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/perfdata.h>
#include <pmukit/tracedata.h>
#include <pmukit/tracepoint.h>

static void need_tracing(void)
{
	PD_TEST_NEED("perf");
	const char *dir = pk_tracefs_dir(NULL);
	char path[4096];
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", dir ? dir : "/nonexistent");
	if (!dir || access(path, R_OK) != 0 || geteuid() != 0) {
		fprintf(stderr, "tracefs not readable or not root: skipping\n");
		skip();
	}
}

static void run(const char *fmt, const char *tool, const char *args)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), fmt, pd_test_dir, tool, args);
	int rc = pk_test_run(cmd, NULL, 0);
	if (rc)
		fprintf(stderr, "failed: %s\n", cmd);
	assert_int_equal(rc, 0);
}

/* A workload with context switches and reads on both CPUs. */
#define WORK "sh -c 'for i in 1 2 3 4 5 6 7 8; do head -c 2000 /dev/zero | od >/dev/null; done; sleep 0.05'"

static void record(const char *tool, const char *file, const char *events)
{
	char args[1024];
	snprintf(args, sizeof(args), "-a %s -o %s -- " WORK, events, file);
	run("cd %s && %s record %s >/dev/null 2>&1", tool, args);
}

/* The table rows of report (no '#' or empty lines, trailing blanks cut:
 * perf pads its last column), sorted (ties may be ordered apart). */
static char *report_rows(const char *tool, const char *file, const char *args)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd),
		 "%s report --stdio -i %s/%s %s 2>/dev/null | grep -v '^#' | grep -v '^$' | "
		 "sed 's/ *$//' | LC_ALL=C sort",
		 tool, pd_test_dir, file, args);
	return pd_test_output(cmd);
}

static void same_report(const char *file, const char *args)
{
	char *ours = report_rows(pk_test_pmukit(), file, args);
	char *theirs = report_rows("perf", file, args);
	/* perf 6.1 cuts the trace text of some tables at the column title's
	 * width (docs/perfdata.md, "Differences from perf 6.1") */
	if (pd_test_report_cut_agrees(ours, theirs)) {
		assert_true(pd_test_lines(ours) >= 2);
		free(ours);
		free(theirs);
		return;
	}
	if (strcmp(ours, theirs))
		fprintf(stderr, "report %s %s differs:\n--- pmukit\n%.600s\n--- perf\n%.600s\n", file,
			args, ours, theirs);
	assert_string_equal(ours, theirs);
	assert_true(pd_test_lines(ours) >= 2);
	free(ours);
	free(theirs);
}

static void same_script(const char *file, const char *args, size_t min_lines)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", pd_test_dir, file);
	assert_true(pd_test_same_script("", path, args) >= min_lines);
}

static void both_read(const char *file)
{
	same_script(file, "", 10);
	same_script(file, "-F trace", 10);
	same_script(file, "-F comm,tid,time,event,trace,ip,sym", 10);
	same_report(file, "--sort trace");
	same_report(file, "--sort comm,trace --raw-trace");
	same_report(file, "--sort dso,trace -n");
}

static const char events[] = "-e sched:sched_switch -e syscalls:sys_enter_read "
			     "-e sched:sched_wakeup";

static void test_perf_recordings(void **state)
{
	(void)state;
	need_tracing();
	record("perf", "perf.data", events);
	both_read("perf.data");
	run("cd %s && %s record -o - %s > perf.pipe 2>/dev/null", "perf",
	    "-a -e sched:sched_switch -- " WORK);
	same_script("perf.pipe", "", 10);
}

static void test_pmukit_recordings(void **state)
{
	(void)state;
	need_tracing();
	record(pk_test_pmukit(), "pk.data", events);
	both_read("pk.data");
	run("cd %s && %s record -o - %s > pk.pipe 2>/dev/null", pk_test_pmukit(),
	    "-a -e sched:sched_switch -- " WORK);
	same_script("pk.pipe", "", 10);
}

/* The layout parts of a file's TRACING_DATA (malloc'd blob in *blob). */
static void tracing_parts(const char *file, uint8_t **blob, pk_trace_data *td)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", pd_test_dir, file);
	pk_pd_reader *r;
	pk_error err;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, &err), 0);
	const uint8_t *data;
	size_t len;
	assert_int_equal(pk_pd_feature_raw(r, PK_FEAT_TRACING_DATA, &data, &len, &err), 0);
	*blob = malloc(len);
	memcpy(*blob, data, len);
	pk_pd_reader_close(r);
	assert_int_equal(pk_trace_data_parse(*blob, len, td, &err), 0);
}

static void same_text(pk_trace_text a, pk_trace_text b)
{
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
}

/* perf's and pmukit's tracing data for one event: the same parts, byte
 * for byte (saved_cmdlines aside: the kernel's list changes as tasks run). */
static void test_same_tracing_data(void **state)
{
	(void)state;
	need_tracing();
	record("perf", "one-perf.data", "-e sched:sched_switch");
	record(pk_test_pmukit(), "one-pk.data", "-e sched:sched_switch");
	uint8_t *ba, *bb;
	pk_trace_data a, b;
	tracing_parts("one-perf.data", &ba, &a);
	tracing_parts("one-pk.data", &bb, &b);
	assert_string_equal(a.version, b.version);
	assert_int_equal(a.big_endian, b.big_endian);
	assert_int_equal(a.long_size, b.long_size);
	assert_int_equal(a.page_size, b.page_size);
	same_text(a.header_page, b.header_page);
	same_text(a.header_event, b.header_event);
	assert_int_equal(a.nr_ftrace, b.nr_ftrace);
	assert_int_equal(a.nr_formats, b.nr_formats);
	for (size_t i = 0; i < a.nr_formats; i++) {
		assert_string_equal(a.formats[i].sys, b.formats[i].sys);
		same_text(a.formats[i].text, b.formats[i].text);
	}
	same_text(a.kallsyms, b.kallsyms);
	same_text(a.printk, b.printk);
	pk_trace_data_release(&a);
	pk_trace_data_release(&b);
	free(ba);
	free(bb);
}

/* Without tracing data: numeric fields and one warning, never silence. */
static void test_no_tracing_data(void **state)
{
	(void)state;
	need_tracing();
	/* a tracefs with the tracepoint's id and no formats: record goes on
	 * without TRACING_DATA and says so */
	char cmd[4096];
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdir -p tfs/events/sched/sched_switch && "
		 "cp %s/events/sched/sched_switch/id tfs/events/sched/sched_switch/ && "
		 "PMUKIT_TRACEFS=$PWD/tfs %s record -e sched:sched_switch -o nt2.data -- sleep 0.01 "
		 "2>rec.err >/dev/null && grep -q 'no tracing data written' rec.err",
		 pd_test_dir, pk_tracefs_dir(NULL), pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	snprintf(cmd, sizeof(cmd), "%s script -i %s/nt2.data 2>&1 >/dev/null", pk_test_pmukit(),
		 pd_test_dir);
	char *err = pd_test_output(cmd);
	assert_non_null(strstr(err, "no tracing data"));
	assert_int_equal(pd_test_lines(err), 1);
	free(err);
	snprintf(cmd, sizeof(cmd), "%s script -i %s/nt2.data 2>/dev/null | head -1", pk_test_pmukit(),
		 pd_test_dir);
	char *out = pd_test_output(cmd);
	assert_non_null(strstr(out, " sched:sched_switch: ")); /* period, then the address */
	assert_null(strstr(out, "prev_comm="));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_recordings),
		cmocka_unit_test(test_pmukit_recordings),
		cmocka_unit_test(test_same_tracing_data),
		cmocka_unit_test(test_no_tracing_data),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
