/* Error objects and their perf-style rendering. */
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include <pmukit/error.h>

static void test_caret(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_err_at(&err, -EINVAL, "event syntax error", "cpu_core/event=0x3c,any=1/", 20,
				   "unknown term '%s' for pmu '%s'", "any", "cpu_core"),
			 -EINVAL);
	pk_err_hint(&err, "valid terms: %s", "event,umask");
	char buf[512];
	pk_error_render(&err, buf, sizeof(buf));
	const char *want = "event syntax error: 'cpu_core/event=0x3c,any=1/'\n"
			   "                                         \\___ unknown term 'any' for pmu 'cpu_core'\n"
			   "valid terms: event,umask\n";
	assert_string_equal(buf, want);
	/* the caret sits under the failing character */
	const char *line2 = strchr(buf, '\n') + 1;
	const char *caret = strchr(line2, '\\');
	assert_int_equal(caret - line2, (long)strlen("event syntax error: '") + 20);
}

static void test_offset_and_plain(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	pk_err_at(&err, -EIO, "perf.data", "x.data", 4096, "record size 0 is too small");
	err.pos_is_offset = 1;
	char buf[256];
	pk_error_render(&err, buf, sizeof(buf));
	assert_string_equal(buf, "perf.data x.data: offset 4096 (0x1000): record size 0 is too small\n");
	pk_error_clear(&err);
	pk_err(&err, -ENOMEM, "out of %s", "memory");
	pk_error_render(&err, buf, sizeof(buf));
	assert_string_equal(buf, "out of memory\n");
	/* a NULL error object is allowed everywhere */
	assert_int_equal(pk_err(NULL, -EINVAL, "x"), -EINVAL);
	pk_err_hint(NULL, "y");
	/* tiny buffers truncate but report the full length */
	char tiny[4];
	int n = pk_error_render(&err, tiny, sizeof(tiny));
	assert_int_equal(n, (int)strlen("out of memory\n"));
	assert_string_equal(tiny, "out");
}

static void test_long_string_window(void **state)
{
	(void)state;
	char s[400];
	memset(s, 'a', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	pk_error err;
	pk_error_clear(&err);
	pk_err_at(&err, -EINVAL, "event syntax error", s, 390, "bad");
	char buf[1024];
	pk_error_render(&err, buf, sizeof(buf));
	const char *line2 = strchr(buf, '\n') + 1;
	/* the first line shows a window that starts with "..", and the caret
	 * stays within a screen width */
	assert_non_null(strstr(buf, "'.."));
	assert_true(strchr(line2, '\\') - line2 < 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_caret), cmocka_unit_test(test_offset_and_plain),
					   cmocka_unit_test(test_long_string_window)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
