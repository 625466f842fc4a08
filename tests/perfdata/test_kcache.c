/* The kallsyms cache (lib/symbols/kcache.c), through pk_machine: the kernel
 * symbols come from a kallsyms-format file (opts.kallsyms) whose key is
 * its path, size, mtime and inode, so a test can change the file under a
 * kept key (same size, mtime restored) and see whether the cache answered.
 * Cases: a miss writes the cache, a hit reads it, another key is a miss
 * (and rewrites it), a damaged cache is ignored, a table that is not one
 * the loader makes is refused even behind a valid checksum, and "" (the
 * option or $PMUKIT_KALLSYMS_CACHE) turns the cache off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <pmukit/symbols.h>

#include "pd_test.h"
#include "symbols/sy_internal.h"

#define TEXT 0xffffffff81000000ULL

static char src[512], cache[512];

/* The source file: one symbol, the name given (same length for all, so
 * that the size stays), with a fixed mtime. */
static void write_src(const char *name, long mtime)
{
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fprintf(f, "%016llx T %s\n%016llx T pk_zend\n", (unsigned long long)TEXT, name,
		(unsigned long long)TEXT + 0x1000);
	assert_int_equal(fclose(f), 0);
	struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};
	assert_int_equal(utimensat(AT_FDCWD, src, ts, 0), 0);
}

/* The symbol pmukit finds at TEXT + 0x10 through the kernel text map,
 * with the cache option given (NULL: the environment's). */
static char *kernel_sym(const char *cache_opt)
{
	pk_machine_opts o = {.kallsyms = src, .kallsyms_cache = cache_opt};
	pk_machine *m = pk_machine_new(&o);
	assert_non_null(m);
	/* no reference symbol ("_text"): the table's addresses as they are */
	static const char fname[] = "[kernel.kallsyms]";
	union {
		uint8_t b[8 + 32 + 32];
		uint64_t align;
	} rec;
	memset(&rec, 0, sizeof(rec));
	struct perf_event_header h = {PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, sizeof(rec.b)};
	uint32_t pid = (uint32_t)-1;
	uint64_t addr = TEXT, len = 0x100000;
	memcpy(rec.b, &h, 8);
	memcpy(rec.b + 8, &pid, 4);
	memcpy(rec.b + 12, &pid, 4);
	memcpy(rec.b + 16, &addr, 8);
	memcpy(rec.b + 24, &len, 8);
	memcpy(rec.b + 32, &addr, 8);
	memcpy(rec.b + 40, fname, sizeof(fname));
	pk_pd_event ev = {.type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL,
			  .size = sizeof(rec.b), .data = rec.b};
	assert_int_equal(pk_machine_event(m, &ev), 0);
	pk_addr_loc loc;
	pk_machine_resolve(m, (uint32_t)-1, PERF_RECORD_MISC_KERNEL, TEXT + 0x10, &loc);
	char *name = strdup(loc.sym ? loc.sym : "(none)");
	pk_machine_free(m);
	return name;
}

static void expect_sym(const char *cache_opt, const char *want)
{
	char *got = kernel_sym(cache_opt);
	assert_string_equal(got, want);
	free(got);
}

static int setup(void **state)
{
	if (pd_test_setup(state))
		return -1;
	snprintf(src, sizeof(src), "%s/kallsyms", pd_test_dir);
	snprintf(cache, sizeof(cache), "%s/cache/sub/kallsyms", pd_test_dir);
	unsetenv("PMUKIT_KALLSYMS_CACHE");
	return 0;
}

/* A miss writes the cache (directories made, mode 0600), a hit answers
 * from it though the file changed under the same key. */
static void test_hit(void **state)
{
	(void)state;
	unlink(cache);
	write_src("pk_first", 1000);
	expect_sym(cache, "pk_first");
	struct stat st;
	assert_int_equal(stat(cache, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	write_src("pk_other", 1000);
	expect_sym(cache, "pk_first");
}

/* Another key (here the mtime): the source is read, the cache rewritten. */
static void test_miss_other_key(void **state)
{
	(void)state;
	unlink(cache);
	write_src("pk_first", 1000);
	expect_sym(cache, "pk_first");
	write_src("pk_other", 2000);
	expect_sym(cache, "pk_other");
	write_src("pk_first", 2000); /* the rewritten cache, under the new key */
	expect_sym(cache, "pk_other");
}

/* Overwrites bytes of the cache file at off (from the end when < 0), or
 * truncates it to len when data is NULL. */
static void damage(long off, const char *data, off_t len)
{
	if (!data) {
		assert_int_equal(truncate(cache, len), 0);
		return;
	}
	FILE *f = fopen(cache, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, off, off < 0 ? SEEK_END : SEEK_SET), 0);
	assert_int_equal(fwrite(data, 1, strlen(data), f), strlen(data));
	assert_int_equal(fclose(f), 0);
}

/* A damaged cache (body, header, size) is not used: the source answers. */
static void test_corrupt_ignored(void **state)
{
	(void)state;
	for (int i = 0; i < 5; i++) {
		unlink(cache);
		write_src("pk_first", 1000);
		expect_sym(cache, "pk_first");
		struct stat st;
		assert_int_equal(stat(cache, &st), 0);
		if (i == 0)
			damage(-20, "pk_evil", 0);         /* body: checksum */
		else if (i == 1)
			damage(0, "PMUKIT", 0);            /* magic */
		else if (i == 2)
			damage(0, NULL, st.st_size - 5);   /* short */
		else if (i == 3)
			damage(0, NULL, 10);               /* header cut */
		else
			damage(st.st_size, "ffffffff81000000 T pk_evil\n", 0); /* longer */
		write_src("pk_other", 1000);
		expect_sym(cache, "pk_other");
	}
}

/* The bytes of the cache file (*len of them). */
static uint8_t *read_cache(size_t *len)
{
	FILE *f = fopen(cache, "rb");
	assert_non_null(f);
	uint8_t *b = malloc(1 << 16);
	assert_non_null(b);
	*len = fread(b, 1, 1 << 16, f);
	assert_int_equal(fclose(f), 0);
	return b;
}

/* Whether pki_sy_kcache_parse takes buf (sealed first) under key; the
 * first symbol's name when it does. */
static bool parses(uint8_t *buf, size_t len, const char *key, char *name, size_t size)
{
	dso d;
	memset(&d, 0, sizeof(d));
	pki_sy_kcache_seal(buf, len);
	bool ok = pki_sy_kcache_parse(&d, buf, len, key);
	if (ok) {
		assert_true(d.nr_syms >= 1);
		snprintf(name, size, "%s", d.syms[0].name);
	}
	free(d.syms);
	return ok;
}

/* Symbol records start after the 64-byte header and the key (padded). */
static size_t rec_off(const char *key, size_t i)
{
	return 64 + ((strlen(key) + 7) & ~(size_t)7) + i * 24;
}

/* A table the loader would not make is refused though its checksum holds:
 * a name outside the names, starts out of order, an empty symbol, an
 * unknown binding; the table as written is taken. */
static void test_table_checked(void **state)
{
	(void)state;
	unlink(cache);
	write_src("pk_first", 1000);
	expect_sym(cache, "pk_first");
	char key[1024], name[64];
	assert_true(pki_sy_kcache_key(src, key, sizeof(key)));
	size_t len;
	uint8_t *orig = read_cache(&len), *b = malloc(len);
	assert_non_null(b);
	memcpy(b, orig, len);
	assert_true(parses(b, len, key, name, sizeof(name)));
	assert_string_equal(name, "pk_first");
	assert_false(parses(b, len, "another key", name, sizeof(name)));
	for (int i = 0; i < 4; i++) {
		memcpy(b, orig, len);
		uint8_t *r0 = b + rec_off(key, 0), *r1 = b + rec_off(key, 1);
		uint32_t big = 1u << 20;
		if (i == 0)
			memcpy(r0 + 16, &big, 4);       /* name offset */
		else if (i == 1)
			memcpy(r1, r0, 8);              /* second start == first */
		else if (i == 2)
			memcpy(r0 + 8, r0, 8);          /* end == start */
		else
			r0[20] = 9;                     /* binding */
		assert_false(parses(b, len, key, name, sizeof(name)));
	}
	free(b);
	free(orig);
}

/* "" turns the cache off, as the option or as $PMUKIT_KALLSYMS_CACHE
 * (which also names the file when set). */
static void test_disabled(void **state)
{
	(void)state;
	unlink(cache);
	write_src("pk_first", 1000);
	expect_sym(cache, "pk_first");
	write_src("pk_other", 1000);
	expect_sym("", "pk_other");
	assert_int_equal(setenv("PMUKIT_KALLSYMS_CACHE", "", 1), 0);
	expect_sym(NULL, "pk_other");
	assert_int_equal(setenv("PMUKIT_KALLSYMS_CACHE", cache, 1), 0);
	expect_sym(NULL, "pk_first");
	unsetenv("PMUKIT_KALLSYMS_CACHE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit),
		cmocka_unit_test(test_miss_other_key),
		cmocka_unit_test(test_corrupt_ignored),
		cmocka_unit_test(test_table_checked),
		cmocka_unit_test(test_disabled),
	};
	return cmocka_run_group_tests(tests, setup, pd_test_teardown);
}
