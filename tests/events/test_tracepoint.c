/* Tracepoints from tracefs: a fake tree in a temporary directory, and the
 * real tracefs when we may mount it in a private mount namespace. */
#include "helpers.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/tracepoint.h>

static char *fake;

static void write_file(const char *rel, const char *text)
{
	pk_test_put_file(fake, rel, text);
}

static int setup(void **state)
{
	(void)state;
	fake = pk_test_tmpdir();
	assert_non_null(fake);
	write_file("events/sched/sched_switch/id", "316\n");
	write_file("events/sched/sched_wakeup/id", "317"); /* no newline, as some kernels */
	write_file("events/sched/enable", "0\n");
	write_file("events/sched/filter", "none\n");
	write_file("events/irq/irq_handler_entry/id", "42\n");
	write_file("events/irq/softirq_entry/id", "43\n");
	write_file("events/header_page", "x\n");
	write_file("events/ftrace/function/format", "no id here\n");
	write_file("events/bad/garbage/id", "12abc\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake);
	pk_test_run(cmd, NULL, 0);
	free(fake);
	return 0;
}

static void test_id(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	uint64_t id = 0;
	assert_int_equal(pk_tracepoint_id(fake, "sched", "sched_switch", &id, &err), 0);
	assert_int_equal(id, 316);
	assert_int_equal(pk_tracepoint_id(fake, "sched", "sched_wakeup", &id, &err), 0);
	assert_int_equal(id, 317);
	assert_int_equal(pk_tracepoint_id(fake, "irq", "softirq_entry", &id, &err), 0);
	assert_int_equal(id, 43);
}

static void test_unknown_names_the_tracepoint(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	uint64_t id;
	assert_int_equal(pk_tracepoint_id(fake, "sched", "sched_nope", &id, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "sched:sched_nope"));
	pk_error_clear(&err);
	assert_int_equal(pk_tracepoint_id(fake, "nosys", "x", &id, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "nosys:x"));
	assert_non_null(strstr(err.hint, "no subsystem 'nosys'"));
	/* a directory without an id file is not a tracepoint */
	pk_error_clear(&err);
	assert_int_equal(pk_tracepoint_id(fake, "ftrace", "function", &id, &err), -ENOENT);
}

static void test_rejects_paths_and_garbage(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	uint64_t id;
	assert_int_equal(pk_tracepoint_id(fake, "..", "sched", &id, &err), -EINVAL);
	assert_int_equal(pk_tracepoint_id(fake, "sched", "../irq", &id, &err), -EINVAL);
	assert_int_equal(pk_tracepoint_id(fake, "", "x", &id, &err), -EINVAL);
	pk_error_clear(&err);
	assert_true(pk_tracepoint_id(fake, "bad", "garbage", &id, &err) < 0);
	assert_non_null(strstr(err.msg, "garbage/id"));
}

static void test_unreadable_tracefs(void **state)
{
	(void)state;
	char *empty = pk_test_tmpdir();
	pk_error err;
	pk_error_clear(&err);
	uint64_t id;
	/* an unmounted tracefs looks like an empty directory */
	assert_int_equal(pk_tracepoint_id(empty, "sched", "sched_switch", &id, &err), -EACCES);
	assert_non_null(strstr(err.msg, "not readable"));
	assert_non_null(strstr(err.hint, "root"));
	assert_non_null(strstr(err.hint, "mount -t tracefs"));
	rmdir(empty);
	free(empty);
}

struct seen {
	char names[16][64];
	uint64_t ids[16];
	int n, stop_after;
};

static int collect(const char *sys, const char *name, uint64_t id, void *arg)
{
	struct seen *s = arg;
	if (s->n < 16) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s:%s", sys, name);
		s->ids[s->n] = id;
	}
	s->n++;
	return s->stop_after && s->n >= s->stop_after ? 7 : 0;
}

static void test_foreach_sorted_and_globbed(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	struct seen s = {0};
	assert_int_equal(pk_tracepoint_foreach(fake, "sched", NULL, collect, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.names[0], "sched:sched_switch");
	assert_string_equal(s.names[1], "sched:sched_wakeup");
	assert_int_equal(s.ids[1], 317);

	memset(&s, 0, sizeof(s));
	assert_int_equal(pk_tracepoint_foreach(fake, "*", "*_entry", collect, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.names[0], "irq:irq_handler_entry");
	assert_string_equal(s.names[1], "irq:softirq_entry");

	/* the garbage id is reported, not skipped */
	memset(&s, 0, sizeof(s));
	pk_error_clear(&err);
	assert_true(pk_tracepoint_foreach(fake, NULL, NULL, collect, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "bad/garbage"));

	/* the callback's non-zero value stops the walk and is returned */
	memset(&s, 0, sizeof(s));
	s.stop_after = 1;
	assert_int_equal(pk_tracepoint_foreach(fake, "irq", NULL, collect, &s, &err), 7);
	assert_int_equal(s.n, 1);
}

static void test_env_override(void **state)
{
	(void)state;
	setenv("PMUKIT_TRACEFS", fake, 1);
	assert_string_equal(pk_tracefs_dir(NULL), fake);
	pk_error err;
	pk_error_clear(&err);
	uint64_t id;
	assert_int_equal(pk_tracepoint_id(NULL, "irq", "irq_handler_entry", &id, &err), 0);
	assert_int_equal(id, 42);
	assert_string_equal(pk_tracefs_dir("/elsewhere"), "/elsewhere");
	unsetenv("PMUKIT_TRACEFS");
}

/* The real tracefs: mounted here only inside a private mount namespace of
 * this test process, so the host is not changed. */
static void test_real_tracefs(void **state)
{
	(void)state;
	const char *dir = "/sys/kernel/tracing";
	char path[256];
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir);
	if (access(path, R_OK) != 0) {
		if (unshare(CLONE_NEWNS) != 0 ||
		    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    mount("nodev", dir, "tracefs", 0, NULL) != 0 || access(path, R_OK) != 0) {
			printf("SKIP: tracefs is not readable and cannot be mounted here\n");
			skip();
		}
	}
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	unsigned long long want = 0;
	assert_int_equal(fscanf(f, "%llu", &want), 1);
	fclose(f);
	unsetenv("PMUKIT_TRACEFS");
	assert_non_null(pk_tracefs_dir(NULL));
	pk_error err;
	pk_error_clear(&err);
	uint64_t id = 0;
	assert_int_equal(pk_tracepoint_id(NULL, "sched", "sched_switch", &id, &err), 0);
	assert_int_equal(id, want);
	struct seen s = {0};
	assert_int_equal(pk_tracepoint_foreach(NULL, "sched", "sched_switch", collect, &s, &err),
			 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ids[0], want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id),
		cmocka_unit_test(test_unknown_names_the_tracepoint),
		cmocka_unit_test(test_rejects_paths_and_garbage),
		cmocka_unit_test(test_unreadable_tracefs),
		cmocka_unit_test(test_foreach_sorted_and_globbed),
		cmocka_unit_test(test_env_override),
		cmocka_unit_test(test_real_tracefs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
