/* Differential tests against Linux perf: perf's files read by pmukit script,
 * pmukit's files read by perf script and perf report, full disk and Ctrl-C
 * leaving valid files. Skipped (with a message) when perf is absent. */
#include "helpers.h"
#include "pd_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *run_out(const char *fmt, const char *a, const char *b)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return pd_test_output(cmd);
}

/* Both tools print the same text for file f (fields: perf script -F, or
 * the default set when fields is ""). */
static void same_script(const char *f, const char *fields, size_t min_lines)
{
	char file[1024], opt[256];
	snprintf(file, sizeof(file), "%s/%s", pd_test_dir, f);
	snprintf(opt, sizeof(opt), "%s%s", fields[0] ? "-F " : "", fields);
	assert_true(pd_test_same_script("", file, opt) >= min_lines);
}

#define LOOP "sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'"

static void test_perf_files(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	pd_test_record("perf", "-e cpu-clock -o cc.data -- " LOOP);
	same_script("cc.data", "", 5);
	pd_test_record("perf", "-g -e cpu-clock -o g.data -- " LOOP);
	same_script("g.data", "", 5);
	pd_test_record("perf", "-z -g -e cpu-clock -o z.data -- " LOOP);
	same_script("z.data", "", 5);
	pd_test_record("perf", "-e task-clock -c 100000 -o tc.data -- " LOOP);
	same_script("tc.data", "", 5);
	pd_test_record("perf", "-e page-faults -c 1 -d -o pf.data -- " LOOP);
	same_script("pf.data", "comm,tid,time,period,event,ip,sym,dso", 5);
	/* pipe mode */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "cd %s && perf record -o - -e cpu-clock -- " LOOP " > p.pipe 2>/dev/null",
		 pd_test_dir);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	same_script("p.pipe", "", 5);
	/* and through standard input */
	char *a = run_out("cat %2$s/p.pipe | %1$s script", pk_test_pmukit(), pd_test_dir);
	char *b = run_out("%s script -i %s/p.pipe", pk_test_pmukit(), pd_test_dir);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_pmukit_files(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	const char *p = pk_test_pmukit();
	pd_test_record(p, "-e cpu-clock -o pc.data -- " LOOP);
	same_script("pc.data", "", 5);
	pd_test_record(p, "-g -e cpu-clock -o pg.data -- " LOOP);
	same_script("pg.data", "", 5);
	pd_test_record(p, "-e page-faults -c 1 -o pf.data -- " LOOP);
	same_script("pf.data", "", 5);
	pd_test_record(p, "-e task-clock -c 200000 -o pp.data -- " LOOP);
	same_script("pp.data", "", 5);
	/* system-wide: whatever runs, C++ programs included */
	pd_test_record(p, "-a -e cpu-clock -o pa.data -- sleep 0.3");
	char pa[1024];
	snprintf(pa, sizeof(pa), "%s/pa.data", pd_test_dir);
	assert_true(pd_test_same_script_sys("", pa, "") >= 10);
	/* pipe mode written by us */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "cd %s && %s record -o - -e cpu-clock -- " LOOP " > pp.pipe 2>/dev/null",
		 pd_test_dir, p);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	same_script("pp.pipe", "", 5);
	/* perf report rows equal ours (sorted: ties may be ordered apart) */
	char file[1024];
	snprintf(file, sizeof(file), "%s/pc.data", pd_test_dir);
	char *ours = run_out("%s report --stdio -i %s | grep -v '^#' | grep -v '^$' | sort",
			     p, file);
	char *theirs = run_out("perf report --stdio -i %s 2>/dev/null | grep -v '^#' | "
			       "grep -v '^$' | sort%s",
			       file, "");
	assert_string_equal(ours, theirs);
	assert_true(pd_test_lines(ours) >= 1);
	free(ours);
	free(theirs);
	char *hdr = run_out("perf report --header-only -i %s 2>&1%s", file, "");
	assert_non_null(strstr(hdr, "# event : name = cpu-clock"));
	assert_non_null(strstr(hdr, "# nrcpus online"));
	free(hdr);
}

/* The system-wide check's allowance: perf's "[unknown]" for a PLT entry
 * pmukit names, and nothing else. */
static void test_plt_allowance(void **state)
{
	(void)state;
	const char *ours = "  chrome 10 [000] 1.0: 1 cpu-clock: 7f01 memcpy@plt+0x4 (/x/chrome)\n"
			   "  chrome 10 [000] 1.1: 1 cpu-clock: 7f02 main+0x1 (/x/chrome)\n";
	const char *theirs = "  chrome 10 [000] 1.0: 1 cpu-clock: 7f01 [unknown] (/x/chrome)\n"
			     "  chrome 10 [000] 1.1: 1 cpu-clock: 7f02 main+0x1 (/x/chrome)\n";
	assert_true(pd_test_plt_agrees(ours, theirs));
	assert_true(pd_test_plt_agrees(theirs, theirs));
	assert_false(pd_test_plt_agrees(theirs, ours)); /* perf naming it, pmukit not */
	const char *other = "  chrome 10 [000] 1.0: 1 cpu-clock: 7f01 memcpy (/x/chrome)\n"
			    "  chrome 10 [000] 1.1: 1 cpu-clock: 7f02 main+0x1 (/x/chrome)\n";
	assert_false(pd_test_plt_agrees(other, theirs));
	assert_false(pd_test_plt_agrees(ours, "  chrome 10 [000] 1.0: 1 cpu-clock: 7f01 [unknown] (/x/chrome)\n"));
}

static void test_full_disk(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	/* a file size limit (1000 blocks of dash's 512 bytes) stands in for a full
	 * disk; room for the tasks synthesized on a busy machine and samples */
	char cmd[4096], *out = NULL;
	snprintf(cmd, sizeof(cmd),
		 "cd %s && (ulimit -f 1000; %s record -a -e cpu-clock -c 20000 -o full.data -- sleep 3) 2>&1",
		 pd_test_dir, pk_test_pmukit());
	int rc = pk_test_run(cmd, &out, 0);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(out, "no space left"));
	free(out);
	/* the file is valid: perf and pmukit read every record in it */
	char file[1024];
	snprintf(file, sizeof(file), "%s/full.data", pd_test_dir);
	char *ours = run_out("%s script -F comm,tid,cpu,time,period,event,ip -i %s", pk_test_pmukit(),
			     file);
	char *theirs = run_out("perf script -F comm,tid,cpu,time,period,event,ip -i %s 2>/dev/null%s",
			       file, "");
	assert_string_equal(ours, theirs);
	assert_true(pd_test_lines(ours) > 100);
	free(ours);
	free(theirs);
}

static void test_ctrl_c(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	char cmd[4096];
	snprintf(cmd, sizeof(cmd),
		 /* SIGINT once the file holds samples (each pass is written through):
		  * a slow start (sanitizers, a loaded machine synthesizing every
		  * task for seconds) must not leave the run too short to test */
		 "cd %s && rm -f int.data && (%s record -a -e cpu-clock -o int.data & pid=$!; "
		 "for i in $(seq 300); do [ $(%s script -F ip -i int.data 2>/dev/null | wc -l) -gt 20 ] "
		 "&& break; sleep 0.1; done; "
		 "kill -INT $pid; "
		 "wait $pid) >/dev/null 2>&1",
		 pd_test_dir, pk_test_pmukit(), pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	char file[1024];
	snprintf(file, sizeof(file), "%s/int.data", pd_test_dir);
	char *ours = run_out("%s script -F comm,tid,cpu,time,period,event,ip -i %s", pk_test_pmukit(),
			     file);
	char *theirs = run_out("perf script -F comm,tid,cpu,time,period,event,ip -i %s 2>/dev/null%s",
			       file, "");
	assert_string_equal(ours, theirs);
	assert_true(pd_test_lines(ours) > 10);
	char *hdr = run_out("perf report --header-only -i %s 2>&1%s", file, "");
	assert_non_null(strstr(hdr, "# hostname"));
	free(hdr);
	free(ours);
	free(theirs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plt_allowance),
		cmocka_unit_test(test_perf_files),
		cmocka_unit_test(test_pmukit_files),
		cmocka_unit_test(test_full_disk),
		cmocka_unit_test(test_ctrl_c),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
