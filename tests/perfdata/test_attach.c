/* pmukit record attached to running tasks (-p, -t), with a command that
 * only sets the duration, as perf allows: samples are taken, and perf script
 * reads the file as pmukit script does. */
#include "helpers.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t start_spinner(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		volatile unsigned long x = 0;
		for (;;)
			x++;
	}
	return pid;
}

static void record_attached(const char *opt)
{
	pid_t spinner = start_spinner();
	assert_true(spinner > 0);
	char *dir = pk_test_tmpdir();
	char cmd[2048], *out = NULL;
	snprintf(cmd, sizeof(cmd), "cd %s && %s record %s %d -e task-clock -o a.data -- sleep 0.5 2>&1",
		 dir, pk_test_pmukit(), opt, (int)spinner);
	int rc = pk_test_run(cmd, &out, 0);
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);
	if (rc != 0)
		fail_msg("%s: %s", cmd, out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s script -F tid,event -i %s/a.data", pk_test_pmukit(), dir);
	assert_int_equal(pk_test_run(cmd, &out, 0), 0);
	/* a task spinning for 0.5 s at 4 kHz: far more than 100 samples, all its own */
	size_t lines = 0, own = 0;
	char want[32];
	snprintf(want, sizeof(want), "%d ", (int)spinner);
	for (char *l = out; *l; l = strchr(l, '\n') + 1) {
		lines++;
		own += strstr(l, want) && strstr(l, want) < strchr(l, '\n');
		if (!strchr(l, '\n'))
			break;
	}
	assert_true(lines > 100);
	assert_int_equal(own, lines);
	if (pk_test_run("perf version >/dev/null 2>&1", NULL, 0) == 0) {
		char *theirs = NULL;
		snprintf(cmd, sizeof(cmd), "perf script -F tid,event -i %s/a.data 2>/dev/null", dir);
		assert_int_equal(pk_test_run(cmd, &theirs, 0), 0);
		assert_string_equal(out, theirs);
		free(theirs);
	}
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	pk_test_run(cmd, NULL, 0);
	free(dir);
}

static void test_record_pid(void **state)
{
	(void)state;
	record_attached("-p");
}

static void test_record_tid(void **state)
{
	(void)state;
	record_attached("-t");
}

/* Option numbers go through the CLI's one number parser. perf 6.1: "perf
 * record -c -1" -> "switch `c' expects an unsigned numerical value" (129);
 * "-p 0x1" -> "Problems finding threads of monitor". pmukit took -c -1 as
 * 2^64-1 and -p 0x1 as pid 1. */
static void test_record_number_options(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char cmd[2048], *out = NULL;
	snprintf(cmd, sizeof(cmd), "cd %s && %s record -c -1 -e task-clock -o n.data -- true 2>&1",
		 dir, pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 129);
	assert_non_null(strstr(out, "-c: '-1' is not a number"));
	free(out);
	snprintf(cmd, sizeof(cmd), "cd %s && %s record -m 3 -e task-clock -o n.data -- true 2>&1",
		 dir, pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 129);
	assert_non_null(strstr(out, "power of 2"));
	free(out);
	snprintf(cmd, sizeof(cmd), "cd %s && %s record -p 0x1 -e task-clock -o n.data -- true 2>&1",
		 dir, pk_test_pmukit());
	assert_int_not_equal(pk_test_run(cmd, &out, 1), 0);
	assert_non_null(strstr(out, "'0x1' is not a process id"));
	free(out);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_record_pid),
					   cmocka_unit_test(test_record_tid),
					   cmocka_unit_test(test_record_number_options)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
