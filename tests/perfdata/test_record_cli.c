/* pmukit record (and stat, which shares its command launcher) end to end on
 * the real kernel with software events: what a kill, a full disk, a closed
 * pipe, a command that cannot run or an impossible rate leave behind. Each
 * case was a silent loss or a wrong message (issue 7, section 5). Waits are
 * bounded by `timeout` so that a regression fails instead of hanging; no
 * assertion is about speed. */
#include "helpers.h"
#include "pd_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs cmd with stderr into *out (never NULL); the exit status. */
static int run_out(const char *cmd, char **out)
{
	*out = NULL;
	int rc = pk_test_run(cmd, out, 1);
	assert_non_null(*out);
	return rc;
}

static bool exists(const char *dir, const char *name)
{
	char p[1024];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

/* Samples pmukit script reads from dir/name. */
static long nr_samples(const char *dir, const char *name)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "%s script -F event -i %s/%s 2>/dev/null | grep -c :", pk_test_pmukit(),
		 dir, name);
	char *out = NULL;
	pk_test_run(cmd, &out, 0);
	long n = out ? atol(out) : -1;
	free(out);
	return n;
}

/* The number in "Captured and wrote ... (N samples)". */
static long captured(const char *out)
{
	const char *p = strstr(out, "Captured and wrote");
	p = p ? strchr(p, '(') : NULL;
	return p ? atol(p + 1) : -1;
}

/* Bug 3: a command that cannot run stops record before perf.data is
 * touched, with the shell's exit codes (stat's too). */
static void test_cannot_run(void **state)
{
	(void)state;
	static const struct {
		const char *cmd;
		int rc;
	} cases[] = {{"/nonexistent/cmd", 127}, {"/tmp", 126}, {"./notexec", 126},
		     {"''", 127}, {"no-such-command-xyz", 127}};
	char *dir = pk_test_tmpdir();
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "cd %s && touch notexec && echo previous > perf.data", dir);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *sub[] = {"record -e cpu-clock", "stat -e task-clock"};
		for (int k = 0; k < 2; k++) {
			int rc;
			snprintf(cmd, sizeof(cmd), "cd %s && %s %s -- %s", dir, pk_test_pmukit(), sub[k],
				 cases[i].cmd);
			char *out;
			rc = run_out(cmd, &out);
			if (rc != cases[i].rc || !strstr(out, "cannot run"))
				fail_msg("%s: exit %d, want %d: %s", cmd, rc, cases[i].rc, out);
			assert_null(strstr(out, "Captured"));
			free(out);
		}
		assert_false(exists(dir, "perf.data.old"));
		snprintf(cmd, sizeof(cmd), "grep -qx previous %s/perf.data", dir);
		assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	pk_test_run(cmd, NULL, 0);
	free(dir);
}

/* A signal mask line of /proc/PID/status; all ones when absent. */
static unsigned long long sig_mask(const char *status, const char *field)
{
	const char *p = strstr(status, field);
	return p ? strtoull(p + strlen(field), NULL, 16) : ~0ull;
}

/* Bug 4: the command starts with default dispositions and nothing blocked,
 * whatever pmukit ignores (SIGPIPE, SIGXFSZ) or blocks for itself. */
static void test_child_signals(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	const char *sub[] = {"stat -e task-clock", "record -e cpu-clock -o r.data"};
	for (int k = 0; k < 2; k++) {
		char cmd[2048];
		int rc;
		snprintf(cmd, sizeof(cmd), "cd %s && %s %s -- grep -E '^Sig(Ign|Blk)' /proc/self/status",
			 dir, pk_test_pmukit(), sub[k]);
		char *out;
		rc = run_out(cmd, &out);
		assert_int_equal(rc, 0);
		/* signals 1-31 (glibc keeps 32 and 33 for itself) */
		if ((sig_mask(out, "SigBlk:") | sig_mask(out, "SigIgn:")) & 0x7fffffffull)
			fail_msg("%s: %s", cmd, out);
		free(out);
		snprintf(cmd, sizeof(cmd), "cd %s && %s %s -- sh -c 'yes | head -1'", dir,
			 pk_test_pmukit(), sub[k]);
		rc = run_out(cmd, &out);
		assert_int_equal(rc, 0);
		if (strstr(out, "Broken pipe"))
			fail_msg("%s: %s", cmd, out);
		free(out);
	}
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	pk_test_run(cmd, NULL, 0);
	free(dir);
}

/* Bug 5: counts or text that cannot be written are an error. */
static void test_write_errors(void **state)
{
	(void)state;
	char cmd[1024];
	int rc;
	snprintf(cmd, sizeof(cmd), "%s stat -o /dev/full -e task-clock true", pk_test_pmukit());
	char *out;
	rc = run_out(cmd, &out);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "cannot write '/dev/full'"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s list 2>&1 >/dev/full", pk_test_pmukit());
	rc = pk_test_run(cmd, &out, 0);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "cannot write the standard output"));
	free(out);
}

/* Bug 1: each pass is written through: data reaches the file while
 * recording (not in 1 MiB lumps), and a kill -9 leaves them readable, by
 * perf too (the header's data size follows the data). At 100 Hz on each CPU
 * the old 1 MiB buffer took minutes to fill. */
static void test_kill_keeps_data(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "cd %s && { %s record -a -F 100 -e cpu-clock -o k.data -- sleep 60 >/dev/null 2>&1 & "
		 "echo $! > rec.pid; }; for i in $(seq 50); do sleep 0.2; "
		 "n=$(%s script -F event -i k.data 2>/dev/null | grep -c :); "
		 "[ \"$n\" -ge 20 ] && break; done; c=$(pgrep -P $(cat rec.pid)); "
		 "kill -9 $(cat rec.pid); kill $c; echo $n",
		 dir, pk_test_pmukit(), pk_test_pmukit());
	char *out = NULL;
	assert_int_equal(pk_test_run(cmd, &out, 0), 0);
	long seen = atol(out);
	free(out);
	if (seen < 20)
		fail_msg("after up to 10 s of recording, the file held %ld samples", seen);
	assert_true(nr_samples(dir, "k.data") >= 20);
	if (pd_test_have("perf")) {
		snprintf(cmd, sizeof(cmd), "perf script -i %s/k.data 2>/dev/null | grep -c cpu-clock", dir);
		out = NULL;
		pk_test_run(cmd, &out, 0);
		assert_true(out && atol(out) >= 20);
		free(out);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	pk_test_run(cmd, NULL, 0);
	free(dir);
}

/* Bug 6: a full output (here a file size limit: EFBIG) stops recording,
 * ends the command instead of waiting for it, counts only the samples the
 * file holds, and never prints a wrapped-around size. */
static void test_full_output(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	static const char *limits[] = {"0", "4096"};
	for (int i = 0; i < 2; i++) {
		char cmd[2048];
		int rc;
		snprintf(cmd, sizeof(cmd),
			 "cd %s && rm -f f.data && ulimit -f %s && timeout 100 %s record -a -F 20000 -e cpu-clock "
			 "-o f.data -- sleep 1000",
			 dir, limits[i], pk_test_pmukit());
		char *out;
		rc = run_out(cmd, &out);
		if (rc != 1 || !strstr(out, "no space left") || strstr(out, "1844674"))
			fail_msg("%s: exit %d: %s", cmd, rc, out);
		long file = nr_samples(dir, "f.data");
		if (i == 1 && (captured(out) != file || file <= 0))
			fail_msg("claims %ld samples, the file holds %ld: %s", captured(out), file, out);
		free(out);
	}
	char cmd[2048];
	/* a reader that goes away: the same */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && { timeout 100 %s record -a -e cpu-clock -o - -- sleep 1000 2>err; "
		 "echo $? > rc; } | head -c 1000 >/dev/null; cat rc err",
		 dir, pk_test_pmukit());
	char *out = NULL;
	pk_test_run(cmd, &out, 0);
	assert_non_null(out);
	if (atoi(out) != 1 || !strstr(out, "Broken pipe"))
		fail_msg("%s: %s", cmd, out);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	pk_test_run(cmd, NULL, 0);
	free(dir);
}

/* Bug 7: rates over kernel.perf_event_max_sample_rate are lowered with a
 * warning, as perf does; -F -1 and -c -1 are refused as perf refuses -c -1.
 * Bug 8: -C '' is refused, as stat refuses it. */
static void test_rates_and_cpus(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char cmd[2048];
	int rc;
	snprintf(cmd, sizeof(cmd), "cd %s && %s record -F 1000000000 -e cpu-clock -o a.data -- true",
		 dir, pk_test_pmukit());
	char *out;
	rc = run_out(cmd, &out);
	if (rc != 0 || !strstr(out, "perf_event_max_sample_rate") || strstr(out, "exclude_"))
		fail_msg("%s: exit %d: %s", cmd, rc, out);
	free(out);
	static const char *bad[] = {"-F -1", "-c -1", "-F 0", "-c 9223372036854775808"};
	for (int i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), "cd %s && %s record %s -e cpu-clock -o b.data -- true", dir,
			 pk_test_pmukit(), bad[i]);
		rc = run_out(cmd, &out);
		if (rc != 129)
			fail_msg("%s: exit %d: %s", cmd, rc, out);
		free(out);
	}
	snprintf(cmd, sizeof(cmd), "cd %s && %s record -C '' -e cpu-clock -o c.data -- true", dir,
		 pk_test_pmukit());
	rc = run_out(cmd, &out);
	if (rc != 1 || !strstr(out, "no CPU given"))
		fail_msg("%s: exit %d: %s", cmd, rc, out);
	free(out);
	assert_false(exists(dir, "b.data"));
	assert_false(exists(dir, "c.data"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	pk_test_run(cmd, NULL, 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cannot_run),      cmocka_unit_test(test_child_signals),
		cmocka_unit_test(test_write_errors),    cmocka_unit_test(test_kill_keeps_data),
		cmocka_unit_test(test_full_output),     cmocka_unit_test(test_rates_and_cpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
