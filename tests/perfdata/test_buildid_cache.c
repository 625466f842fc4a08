/* perf's build-id cache as lib/record/buildid_cache.c keeps it, in a
 * temporary directory: a file added (its folder, the elf copy, probes, the
 * relative id link), the same id from another path (the first link stays),
 * the kernel through a kernel whose seam hands out kallsyms text and its id
 * (kallsyms copy, no probes, listed only while it is the running kernel's),
 * -l's validity (a file rebuilt is not listed, -l all lists it), removal
 * (link and folder; a second one is -ENOENT naming the id), purge of a
 * path that is gone, and files without a build id refused with the reason.
 * perf 6.1's own trees are compared by pd_buildid.py; this checks the
 * library's contract on its own, without perf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/buildid_cache.h>

#define B (3 * PATH_MAX) /* room for any path built here */

static char dir[64], self[PATH_MAX], self_hex[PK_BUILD_ID_HEX];

static const char KALLSYMS[] = "ffffffff81000000 T _text\n";
static const uint8_t KERNEL_ID[20] = {0xab, 0xcd, 1, 2, 3, 4, 5, 6, 7, 8,
				      9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
static const char KERNEL_HEX[] = "abcd0102030405060708090a0b0c0d0e0f101112";
static bool other_kernel; /* the fake kernel now runs another build */

static int fake_copy(const pk_kernel *k, const char *object, char **data, size_t *len)
{
	(void)k;
	if (object)
		return -ENOENT;
	*data = strdup(KALLSYMS);
	*len = strlen(KALLSYMS);
	return *data ? 0 : -ENOMEM;
}

static int fake_id(const pk_kernel *k, const char *object, uint8_t id[20], size_t *len)
{
	(void)k;
	if (object)
		return -ENOENT;
	memcpy(id, KERNEL_ID, 20);
	id[19] ^= other_kernel;
	*len = 20;
	return 0;
}

static pk_kernel_ops fake_ops;
static pk_kernel fake = {.ops = &fake_ops, .name = "fake"};

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pk-bidcache-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_non_null(realpath("/proc/self/exe", self));
	assert_int_equal(pk_buildid_file(self, self_hex, NULL), 0);
	fake_ops = *pk_kernel_linux()->ops;
	fake_ops.host.cache_copy = fake_copy;
	fake_ops.host.build_id = fake_id;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path(char *out, const char *fmt, const char *a, const char *b)
{
	char rest[2 * PATH_MAX];
	snprintf(rest, sizeof(rest), fmt, a, b);
	snprintf(out, B, "%s/%s", dir, rest);
}

static char *link_of(const char *hex, char *buf)
{
	char p[B];
	char two[3] = {hex[0], hex[1], 0};
	path(p, ".build-id/%s/%s", two, hex + 2);
	ssize_t n = readlink(p, buf, B - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

typedef struct seen {
	char text[4096];
} seen;

static int collect(void *arg, const char *hex, const char *name)
{
	seen *s = arg;
	size_t n = strlen(s->text);
	snprintf(s->text + n, sizeof(s->text) - n, "%s %s\n", hex, name);
	return 0;
}

static void test_add_file(void **state)
{
	(void)state;
	char hex[PK_BUILD_ID_HEX], buf[B], want[B], p[B];
	assert_int_equal(pk_buildid_cache_add_file(dir, self, hex, NULL), 0);
	assert_string_equal(hex, self_hex);
	snprintf(want, sizeof(want), "../..%s/%s", self, hex);
	assert_string_equal(link_of(hex, buf), want);
	struct stat a, b;
	path(p, "%s/%s/elf", self + 1, hex);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(stat(self, &b), 0);
	assert_int_equal(a.st_size, b.st_size);
	path(p, "%s/%s/probes", self + 1, hex);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(a.st_size, 0);
	/* the same id from a copy elsewhere: the first link stays */
	char copy[B], cmd[3 * B];
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", self, copy);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pk_buildid_cache_add_file(dir, copy, hex, NULL), 0);
	assert_string_equal(link_of(hex, buf), want);
	seen s = {""};
	assert_int_equal(pk_buildid_cache_list(dir, NULL, false, collect, &s, NULL), 0);
	snprintf(want, sizeof(want), "%s %s\n", hex, self);
	assert_string_equal(s.text, want);
	/* removed: link and folder; a second time it is not there */
	assert_int_equal(pk_buildid_cache_remove(dir, hex, NULL), 0);
	assert_null(link_of(hex, buf));
	path(p, "%s/%s", self + 1, hex);
	assert_int_not_equal(stat(p, &a), 0);
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_buildid_cache_remove(dir, hex, &err), -ENOENT);
	assert_non_null(strstr(err.msg, hex));
}

static void test_kernel(void **state)
{
	(void)state;
	char buf[B], want[B], p[B];
	assert_int_equal(pk_buildid_cache_add(dir, "[kernel.kallsyms]", KERNEL_HEX, &fake, NULL), 0);
	snprintf(want, sizeof(want), "../../[kernel.kallsyms]/%s", KERNEL_HEX);
	assert_string_equal(link_of(KERNEL_HEX, buf), want);
	path(p, "[kernel.kallsyms]/%s/kallsyms", KERNEL_HEX, "");
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	char text[128] = "";
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	assert_string_equal(text, KALLSYMS);
	struct stat st;
	path(p, "[kernel.kallsyms]/%s/probes", KERNEL_HEX, "");
	assert_int_not_equal(stat(p, &st), 0);
	seen s = {""};
	other_kernel = false;
	assert_int_equal(pk_buildid_cache_list(dir, &fake, false, collect, &s, NULL), 0);
	snprintf(want, sizeof(want), "%s [kernel.kallsyms]\n", KERNEL_HEX);
	assert_string_equal(s.text, want);
	/* another kernel runs now: not valid, listed with all only */
	other_kernel = true;
	s.text[0] = '\0';
	assert_int_equal(pk_buildid_cache_list(dir, &fake, false, collect, &s, NULL), 0);
	assert_string_equal(s.text, "");
	assert_int_equal(pk_buildid_cache_list(dir, &fake, true, collect, &s, NULL), 0);
	assert_string_equal(s.text, want);
	other_kernel = false;
	assert_int_equal(pk_buildid_cache_remove(dir, KERNEL_HEX, NULL), 0);
}

/* A file rebuilt (its id changed) is no longer listed; purge of its path
 * after it is gone removes what was cached under it. */
static void test_rebuilt_and_purged(void **state)
{
	(void)state;
	char file[B], cmd[3 * B], hex[PK_BUILD_ID_HEX], buf[B];
	snprintf(file, sizeof(file), "%s/prog", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", self, file);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pk_buildid_cache_add_file(dir, file, hex, NULL), 0);
	seen s = {""};
	assert_int_equal(pk_buildid_cache_list(dir, NULL, false, collect, &s, NULL), 0);
	assert_non_null(strstr(s.text, file));
	FILE *f = fopen(file, "w"); /* "rebuilt": no longer that ELF file */
	assert_non_null(f);
	fputs("not ELF\n", f);
	fclose(f);
	s.text[0] = '\0';
	assert_int_equal(pk_buildid_cache_list(dir, NULL, false, collect, &s, NULL), 0);
	assert_null(strstr(s.text, file));
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_buildid_file(file, hex, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "not an ELF file"));
	unlink(file);
	s.text[0] = '\0';
	assert_int_equal(pk_buildid_cache_purge(dir, file, collect, &s, NULL), 0);
	assert_non_null(strstr(s.text, self_hex));
	assert_null(link_of(self_hex, buf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rebuilt_and_purged, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
