/* Thread names through pk_machine (lib/symbols/thread.c): the names COMM
 * and FORK records set, perf's names for unknown tasks, and the comm
 * version, which must change whenever any answer of pk_machine_comm may
 * (a name set, a thread made) and stay put otherwise: pmukit script keeps
 * formatted task fields while it stays the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <linux/perf_event.h>
#include <pmukit/symbols.h>

/* A record's bytes, 8-byte aligned, as pk_pd_next hands them out. */
typedef union rec {
	uint8_t b[64];
	uint64_t align;
} rec;

static void feed(pk_machine *m, rec *r, uint32_t type, uint16_t size)
{
	struct perf_event_header h = {type, 0, size};
	memcpy(r->b, &h, sizeof(h));
	pk_pd_event ev = {.type = type, .size = size, .data = r->b};
	assert_int_equal(pk_machine_event(m, &ev), 0);
}

static void comm(pk_machine *m, uint32_t pid, uint32_t tid, const char *name)
{
	rec r = {{0}};
	memcpy(r.b + 8, &pid, 4);
	memcpy(r.b + 12, &tid, 4);
	strncpy((char *)r.b + 16, name, 15);
	feed(m, &r, PERF_RECORD_COMM, 8 + 8 + 16);
}

static void fork_rec(pk_machine *m, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	rec r = {{0}};
	uint32_t f[4] = {pid, ppid, tid, ptid};
	memcpy(r.b + 8, f, sizeof(f));
	feed(m, &r, PERF_RECORD_FORK, 8 + 16 + 8);
}

static pk_machine *machine(void)
{
	pk_machine_opts o = {.kallsyms = "", .kallsyms_cache = ""};
	pk_machine *m = pk_machine_new(&o);
	assert_non_null(m);
	return m;
}

static void test_names(void **state)
{
	(void)state;
	pk_machine *m = machine();
	assert_string_equal(pk_machine_comm(m, 7, 7), ":7");
	assert_string_equal(pk_machine_comm(m, 0, 0), "swapper");
	assert_string_equal(pk_machine_comm(m, (uint32_t)-1, (uint32_t)-1), ":-1");
	comm(m, 7, 7, "leader");
	assert_string_equal(pk_machine_comm(m, 7, 7), "leader");
	/* a thread never seen: its process's name */
	assert_string_equal(pk_machine_comm(m, 7, 8), "leader");
	fork_rec(m, 7, 7, 9, 7);
	assert_string_equal(pk_machine_comm(m, 7, 9), "leader");
	comm(m, 7, 9, "worker");
	assert_string_equal(pk_machine_comm(m, 7, 9), "worker");
	assert_string_equal(pk_machine_comm(m, 7, 7), "leader");
	pk_machine_free(m);
}

static void test_version(void **state)
{
	(void)state;
	pk_machine *m = machine();
	uint64_t v = pk_machine_comm_version(m);
	(void)pk_machine_comm(m, 7, 8);
	assert_true(pk_machine_comm_version(m) == v); /* asking changes nothing */
	comm(m, 7, 7, "leader");
	assert_true(pk_machine_comm_version(m) != v);
	v = pk_machine_comm_version(m);
	/* a name replaced */
	comm(m, 7, 7, "other");
	assert_true(pk_machine_comm_version(m) != v);
	v = pk_machine_comm_version(m);
	/* a new thread: tid 8's answer was its process's name, now its own */
	fork_rec(m, 7, 7, 8, 7);
	assert_true(pk_machine_comm_version(m) != v);
	v = pk_machine_comm_version(m);
	fork_rec(m, 20, 7, 20, 7);
	assert_true(pk_machine_comm_version(m) != v);
	assert_string_equal(pk_machine_comm(m, 20, 20), "other");
	pk_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
