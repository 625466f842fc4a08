/* Thread names through pk_machine (lib/symbols/thread.c): the names COMM
 * and FORK records set, perf's names for unknown tasks, and the comm
 * version, which must change whenever any answer of pk_machine_comm may
 * (a name set) and stay put otherwise: pmukit script keeps
 * formatted task fields while it stays the same. And the frames of
 * user-space addresses (pk_machine_frame, symbols.h): one
 * dso and offset for the same place of a file in two processes, and the
 * same lookup answer for the same frame, which script keeps its chain
 * lines under. Lookups in damaged ELF files (tests/data/elf). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <pmukit/symbols.h>

#include "helpers.h"

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

/* A user-space MMAP of file (at most 23 characters) in process pid. */
static void mmap_rec(pk_machine *m, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		     const char *file)
{
	rec r = {{0}};
	uint64_t f[3] = {addr, len, pgoff};
	memcpy(r.b + 8, &pid, 4);
	memcpy(r.b + 12, &pid, 4);
	memcpy(r.b + 16, f, sizeof(f));
	strncpy((char *)r.b + 40, file, 23);
	struct perf_event_header h = {PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, 64};
	memcpy(r.b, &h, sizeof(h));
	pk_pd_event ev = {.type = PERF_RECORD_MMAP, .misc = h.misc, .size = 64, .data = r.b};
	assert_int_equal(pk_machine_event(m, &ev), 0);
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
	/* a thread never seen is ":<tid>" even in a named process: perf 6.1
	 * printed ":8518" for such a sample (pid 22299 "meson", tid 8518 in
	 * no COMM or FORK record) of a `record -C 0` file */
	assert_string_equal(pk_machine_comm(m, 7, 8), ":8");
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

static void test_frame(void **state)
{
	(void)state;
	pk_machine *m = machine();
	const unsigned user = PERF_RECORD_MISC_USER;
	/* one file at two places, from two file offsets; another file */
	mmap_rec(m, 10, 0x400000, 0x10000, 0x1000, "/nonexistent/a.so");
	mmap_rec(m, 11, 0x7f0000, 0x10000, 0x3000, "/nonexistent/a.so");
	mmap_rec(m, 11, 0x900000, 0x10000, 0x1000, "/nonexistent/b.so");
	uint64_t o1 = 0, o2 = 0, o3 = 0;
	const void *d1 = pk_machine_frame(m, 10, user, 0x402345, &o1);
	const void *d2 = pk_machine_frame(m, 11, user, 0x7f0345, &o2);
	const void *d3 = pk_machine_frame(m, 11, user, 0x901345, &o3);
	assert_non_null(d1);
	assert_ptr_equal(d1, d2);
	assert_true(o1 == 0x3345 && o2 == 0x3345 && o3 == 0x2345);
	assert_non_null(d3);
	assert_ptr_not_equal(d1, d3);
	/* the same frame: the same answer, in either process */
	pk_addr_loc a, b;
	pk_machine_resolve(m, 10, user, 0x402345, &a);
	pk_machine_resolve(m, 11, user, 0x7f0345, &b);
	assert_string_equal(a.dso, "/nonexistent/a.so");
	assert_string_equal(b.dso, a.dso);
	assert_true(a.dso_addr == o1 && b.dso_addr == o1 && a.has_map && b.has_map);
	/* no map, no process, a kernel mode: no frame */
	assert_null(pk_machine_frame(m, 10, user, 0x500000, &o1));
	assert_null(pk_machine_frame(m, 99, user, 0x402345, &o1));
	assert_null(pk_machine_frame(m, 10, PERF_RECORD_MISC_KERNEL, 0x402345, &o1));
	pk_machine_free(m);
}

/* ELF files whose section headers claim tables far larger than the file
 * (tests/data/elf, found by elf_fuzz): the symbols come from the bytes
 * there are; a lookup answers without a symbol and without asking for
 * terabytes (which the ASan suite aborts on). */
static void test_damaged_elf(void **state)
{
	(void)state;
	for (int i = 1; i <= 3; i++) {
		char rel[64], link[24];
		snprintf(rel, sizeof(rel), "elf/damaged-%d.so", i);
		snprintf(link, sizeof(link), "/tmp/pkelf%d-%d", (int)getpid() % 100000, i);
		unlink(link);
		assert_int_equal(symlink(pk_test_fixture(rel), link), 0);
		pk_machine *m = machine();
		mmap_rec(m, 10, 0x400000, 0x10000, 0, link);
		for (uint64_t ip = 0x400000; ip < 0x410000; ip += 0x400) {
			const pk_addr_loc *loc = pk_machine_lookup(m, 10, PERF_RECORD_MISC_USER, ip);
			assert_true(loc->has_map);
			assert_string_equal(loc->dso, link);
		}
		pk_machine_free(m);
		unlink(link);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_damaged_elf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
