/* `report -D` and `script -D` (perf's raw trace dump of every record; script
 * adds its own lines for each record after its dump) against perf 6.1 on
 * real files recorded elsewhere (tests/data/perfdata-real, decompressed
 * into the group's directory at test time) and on small recordings made
 * here: file and pipe mode, kernel and
 * perf's own records (MMAP/MMAP2, COMM, FORK/EXIT, SWITCH, NAMESPACES,
 * LOST_SAMPLES, TIME_CONV, THREAD_MAP, CPU_MAP, EVENT_UPDATE, ID_INDEX,
 * FEATURE, FINISHED_ROUND, THROTTLE), samples with call chains, branch
 * stacks (the branch view's stats), LBR call stacks, user registers and
 * stacks (script: unwound), weights.
 * The files chosen are ones where nothing here depends on this machine
 * (no vDSO temporary names, no kernel modules). Skipped without perf or xz. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_test.h"

/* perf and pmukit `cmd -D` (report or script, with options) on the corpus
 * file rel print the same. */
static void same_cmd_dump(const char *cmd_opts, const char *rel)
{
	PD_TEST_NEED("perf");
	PD_TEST_NEED("xz");
	char *path = NULL, *cmd = NULL;
	const char *base = strrchr(rel, '/');
	assert_true(asprintf(&path, "%s/%s", pd_test_dir, base ? base + 1 : rel) > 0);
	assert_true(asprintf(&cmd, "xz -dc '%s.xz' > '%s'", pk_test_fixture(rel), path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	char *theirs = NULL, *ours = NULL;
	assert_true(asprintf(&cmd, "cd '%s' && HOME=. PERF_BUILDID_DIR=./.debug perf %s -f -D "
				   "-i '%s' 2>/dev/null", pd_test_dir, cmd_opts, path) > 0);
	pk_test_run(cmd, &theirs, 0);
	free(cmd);
	assert_true(asprintf(&cmd, "cd '%s' && HOME=. %s %s -f -D -i '%s' 2>/dev/null",
			     pd_test_dir, pk_test_pmukit(), cmd_opts, path) > 0);
	pk_test_run(cmd, &ours, 0);
	free(cmd);
	assert_non_null(theirs);
	assert_non_null(ours);
	assert_true(pd_test_lines(theirs) > 100);
	if (strcmp(ours, theirs)) {
		size_t line = 1, i = 0;
		for (; ours[i] && ours[i] == theirs[i]; i++)
			line += ours[i] == '\n';
		fprintf(stderr, "%s: %s -D differs from perf's at line %zu\n", rel, cmd_opts, line);
	}
	assert_string_equal(ours, theirs);
	free(ours);
	free(theirs);
	free(path);
}

/* A loop the recordings sample. */
#define LOOP "'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done'"

/* perf 6.1 names a [vdso] sample's dso by the temporary file it copies
 * this host's vDSO into ("/tmp/perf-vdso.so-" and 6 random characters):
 * that line put back to "[vdso]" (only that). */
static void vdso_name_back(char *s)
{
	static const char line[] = " ...... dso: /tmp/perf-vdso.so-";
	const size_t n = sizeof(line) - 1;
	for (char *p = strstr(s, line); p; p = strstr(p, line)) {
		char *tail = p + n + 6;
		if (strlen(p + n) < 6 || (*tail && *tail != '\n')) {
			p += n;
			continue;
		}
		memcpy(p + 13, "[vdso]", 6);
		memmove(p + 19, tail, strlen(tail) + 1);
		p += 19;
	}
}

/* perf and pmukit `cmd -D opts` on the file recorded here print the same. */
static void same_local_dump(const char *cmd_name, const char *file, const char *opts)
{
	char *cmd, *out[2];
	const char *tools[2] = {"perf", pk_test_pmukit()};
	for (int i = 0; i < 2; i++) {
		assert_true(asprintf(&cmd, "cd '%s' && HOME=. PERF_BUILDID_DIR=./.debug %s %s -D %s "
					   "-i %s 2>/dev/null",
				     pd_test_dir, tools[i], cmd_name, opts, file) > 0);
		out[i] = pd_test_output(cmd);
		free(cmd);
	}
	vdso_name_back(out[0]);
	assert_true(pd_test_lines(out[0]) > 100);
	if (strcmp(out[1], out[0]))
		fprintf(stderr, "%s -D %s -i %s differs from perf's\n", cmd_name, opts, file);
	assert_string_equal(out[1], out[0]);
	free(out[0]);
	free(out[1]);
}

static void same_dump(const char *rel)
{
	same_cmd_dump("report", rel);
}

static void test_branch_file(void **state)
{
	(void)state;
	same_dump("perfdata-real/quipper/perf.data.branch-4.14");
}

static void test_lbr_regs_stack(void **state)
{
	(void)state;
	same_dump("perfdata-real/perfparser/vector_static_gcc_perf.lbr.data");
}

static void test_pipe_features(void **state)
{
	(void)state;
	same_dump("perfdata-real/quipper/perf.data.piped.header_features-4.16");
}

static void test_switch_namespaces(void **state)
{
	(void)state;
	same_dump("perfdata-real/quipper/perf.data.ctx_switch_namespaces-4.14");
}

static void test_lost_samples(void **state)
{
	(void)state;
	same_dump("perfdata-real/quipper/perf.data.lost_samples-4.4");
}

/* A pipe's stats blocks after the dump name its events as its EVENT_DESC
 * feature does ("cycles:u stats:"), not --stats' names made from the attrs
 * ("cycles:uH"): perf's -D tool takes in HEADER_FEATURE records. */
static void test_pipe_stats_names(void **state)
{
	(void)state;
	same_dump("perfdata-real/quipper/perf.data.piped.header_feautres_group_desc-6.8");
	PD_TEST_NEED("perf");
	char *cmd = NULL;
	assert_true(asprintf(&cmd, "cd '%s' && perf record -q -e cpu-clock:u -c 20000 -o - -- sh -c "
				   "'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done' > names.pipe "
				   "2>/dev/null", pd_test_dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	const char *tools[2] = {"perf", pk_test_pmukit()};
	char *out[2];
	for (int i = 0; i < 2; i++) {
		assert_true(asprintf(&cmd, "cd '%s' && HOME=. PERF_BUILDID_DIR=./.debug %s report -D -i "
					   "names.pipe 2>/dev/null | sed -n '/^Aggregated stats:/,$p'",
				     pd_test_dir, tools[i]) > 0);
		out[i] = pd_test_output(cmd);
		free(cmd);
	}
	assert_non_null(strstr(out[0], "\ncpu-clock:u stats:\n"));
	assert_string_equal(out[1], out[0]);
	free(out[0]);
	free(out[1]);
}

/* script -D: script's line after each sample's dump (its chain unwound
 * from the user stack: contentsize's DWARF samples), thread and CPU maps
 * and THROTTLE records taken in by script's tool, side events' lines after
 * their record's (an EXIT's amid it; the record's text the dump's, MMAP2's
 * build id in <>), on corpus files and recordings. */
static void test_script_dump(void **state)
{
	(void)state;
	same_cmd_dump("script", "perfdata-real/perfparser/contentsize.data");
	same_cmd_dump("script", "perfdata-real/quipper/perf.data.piped.header_features-4.16");
	same_cmd_dump("script", "perfdata-real/quipper/perf.data.branch_stack_spec");
	PD_TEST_NEED("perf");
	pd_test_record("perf", "-e cpu-clock:u -c 20000 -o sd.data -- sh -c " LOOP);
	same_local_dump("script", "sd.data", "");
	same_local_dump("script", "sd.data",
			"--show-task-events --show-mmap-events --show-round-events");
	same_local_dump("script", "sd.data", "-F comm,tid,ip,sym,dso --show-task-events");
	/* MMAP2 records with build ids: " <id>" in -D's line and script's alike */
	pd_test_record("perf", "--buildid-mmap -e cpu-clock:u -c 20000 -o bm.data -- sh -c " LOOP);
	same_local_dump("script", "bm.data", "--show-mmap-events");
}

/* PERF_SAMPLE_READ: each sample's values dumped (group or one counter,
 * with the times), then its thread and dso once per counter that grew (the
 * samples perf hands out), report's stats counting those. */
static void test_sample_read(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	pd_test_record("perf", "-s -e '{cpu-clock,task-clock}:S' -c 20000 -o rg.data -- sh -c " LOOP);
	pd_test_record("perf", "-s -e cpu-clock:S -c 20000 -o r1.data -- sh -c " LOOP);
	pd_test_record("perf", "-e '{cpu-clock:u,task-clock:u}:S' -c 20000 -o rn.data -- sh -c " LOOP);
	static const char *const files[] = {"rg.data", "r1.data", "rn.data"};
	for (size_t i = 0; i < 3; i++) {
		same_local_dump("report", files[i], "");
		same_local_dump("script", files[i], "");
	}
}

static void test_weight_hw_index(void **state)
{
	(void)state;
	same_dump("perfdata-real/quipper/perf.data.weight_struct");
	same_dump("perfdata-real/quipper/perf.data.branch_stack_hw_index");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_branch_file),
		cmocka_unit_test(test_lbr_regs_stack),
		cmocka_unit_test(test_pipe_features),
		cmocka_unit_test(test_switch_namespaces),
		cmocka_unit_test(test_lost_samples),
		cmocka_unit_test(test_weight_hw_index),
		cmocka_unit_test(test_pipe_stats_names),
		cmocka_unit_test(test_script_dump),
		cmocka_unit_test(test_sample_read),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
