/* JIT symbols from /tmp/perf-<pid>.map (lib/symbols/perfmap.c) and the
 * source-line answers for memory that is no ELF file: the line parser on
 * good and bad lines, and the whole path through pk_machine (an anonymous
 * executable MMAP record, the map file written here, lookups). The
 * comparison with perf 6.1 is the differential test perfdata_sym_diff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include "symbols/sy_internal.h"

static bool line(dso *d, const char *text)
{
	return pki_sy_perfmap_line(d, text, strlen(text));
}

static void test_lines(void **state)
{
	(void)state;
	dso d = {0};
	assert_true(line(&d, "1000 10 plain\n"));
	assert_true(line(&d, "0x2000 0x8 with spaces  inside\r\n"));
	assert_true(line(&d, "3000 0 empty"));
	/* not lines of the format: skipped */
	assert_false(line(&d, ""));
	assert_false(line(&d, "4000 10"));
	assert_false(line(&d, "4000 10 "));
	assert_false(line(&d, "zz 10 name"));
	assert_false(line(&d, "4000 garbage name"));
	assert_false(line(&d, "4000\t10 name"));
	assert_false(line(&d, "ffffffffffffffff 10 wraps"));
	pki_sy_syms_finish(&d);
	assert_int_equal(d.nr_syms, 3);
	const sym *s = pki_sy_sym_find(&d, 0x100f);
	assert_non_null(s);
	assert_string_equal(s->name, "plain");
	assert_null(pki_sy_sym_find(&d, 0x1010)); /* exactly its size */
	s = pki_sy_sym_find(&d, 0x2007);
	assert_non_null(s);
	assert_string_equal(s->name, "with spaces  inside");
	s = pki_sy_sym_find(&d, 0x3000);
	assert_non_null(s);
	assert_string_equal(s->name, "empty"); /* size 0: its first byte only */
	assert_null(pki_sy_sym_find(&d, 0x3001));
	free(d.syms);
	free(d.strs);
}

/* An MMAP record of anonymous executable memory for pid. */
static void mmap_anon(pk_machine *m, uint32_t pid, uint64_t addr, uint64_t len)
{
	union {
		uint8_t b[64];
		uint64_t align;
	} r = {{0}};
	uint16_t size = 8 + 8 + 24 + 8;
	struct perf_event_header h = {PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, size};
	memcpy(r.b, &h, sizeof(h));
	memcpy(r.b + 8, &pid, 4);
	memcpy(r.b + 12, &pid, 4);
	memcpy(r.b + 16, &addr, 8);
	memcpy(r.b + 24, &len, 8);
	memcpy(r.b + 40, "//anon", 7);
	pk_pd_event ev = {.type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_USER, .size = size,
			  .data = r.b};
	assert_int_equal(pk_machine_event(m, &ev), 0);
}

static void test_machine(void **state)
{
	(void)state;
	/* our own pid: the map file is ours, nobody else writes it now */
	uint32_t pid = (uint32_t)getpid();
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", (unsigned)pid);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "7f0000001000 40 jit::first(int)\nnonsense\n7f0000001040 20 _Zsecond\n");
	fclose(f);
	pk_machine *m = pk_machine_new(&(pk_machine_opts){.kallsyms = ""});
	assert_non_null(m);
	mmap_anon(m, pid, 0x7f0000000000, 0x10000);
	const pk_addr_loc *l = pk_machine_lookup(m, pid, PERF_RECORD_MISC_USER, 0x7f0000001044);
	assert_string_equal(l->dso, path);
	assert_non_null(l->sym);
	assert_string_equal(l->sym, "_Zsecond"); /* JIT names as written */
	assert_int_equal(l->symoff, 4);
	l = pk_machine_lookup(m, pid, PERF_RECORD_MISC_USER, 0x7f0000001000);
	assert_string_equal(l->sym, "jit::first(int)");
	l = pk_machine_lookup(m, pid, PERF_RECORD_MISC_USER, 0x7f0000001060);
	assert_null(l->sym);
	/* no line tables in JIT code, nor where no map is */
	const char *file;
	unsigned ln;
	assert_int_equal(pk_machine_srcline(m, pid, PERF_RECORD_MISC_USER, 0x7f0000001000, &file, &ln), -1);
	assert_null(file);
	assert_int_equal(pk_machine_srcline(m, pid, PERF_RECORD_MISC_USER, 0x1000, &file, &ln), -1);
	assert_int_equal(pk_machine_srcline(m, pid + 1, PERF_RECORD_MISC_USER, 0x7f0000001000, &file, &ln), -1);
	pk_machine_free(m);
	unlink(path);
	/* the file gone: the map keeps its name, no symbols */
	m = pk_machine_new(&(pk_machine_opts){.kallsyms = ""});
	assert_non_null(m);
	mmap_anon(m, pid, 0x7f0000000000, 0x10000);
	l = pk_machine_lookup(m, pid, PERF_RECORD_MISC_USER, 0x7f0000001000);
	assert_string_equal(l->dso, path);
	assert_null(l->sym);
	pk_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_machine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
