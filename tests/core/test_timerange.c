/* perf's --time windows (pmukit/timerange.h) against the forms perf 6.1
 * documents: "start,end" seconds, several separated by spaces; percent
 * slices "p%/n", ranges "a%-b%" and "p%", several separated by commas, one
 * kind per list; what perf refuses ("Invalid time string"). The span used
 * here is 0..10 s after 100 s, so 10% is one second. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <pmukit/timerange.h>

#define S 1000000000ULL
#define FIRST (100 * S)
#define LAST (110 * S)

static size_t parse(const char *arg, pk_time_window **w)
{
	size_t n = 0;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_time_windows_parse(arg, true, FIRST, LAST, w, &n, &err), 0);
	return n;
}

static int refused(const char *arg)
{
	pk_time_window *w = NULL;
	size_t n = 7;
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_time_windows_parse(arg, true, FIRST, LAST, &w, &n, &err);
	assert_null(w);
	assert_int_equal(n, 0);
	if (rc == -EINVAL)
		assert_string_equal(err.where, arg);
	return rc;
}

static void test_seconds(void **state)
{
	(void)state;
	pk_time_window *w;
	assert_int_equal(parse("101.5,102", &w), 1);
	assert_true(w[0].start == 101 * S + S / 2 && w[0].end == 102 * S);
	assert_true(pk_time_windows_skip(w, 1, 101 * S) && !pk_time_windows_skip(w, 1, 102 * S));
	free(w);
	assert_int_equal(parse("101,102 105,", &w), 2); /* spaces: several windows */
	assert_true(!pk_time_windows_skip(w, 2, 106 * S) && pk_time_windows_skip(w, 2, 103 * S));
	free(w);
	assert_int_equal(parse(",101.000000001", &w), 1);
	assert_true(w[0].start == 0 && w[0].end == 101 * S + 1);
	free(w);
	assert_int_equal(refused("102,101"), -EINVAL);          /* backwards */
	assert_int_equal(refused("101,103 102,104"), -EINVAL);  /* overlapping */
	assert_int_equal(refused("103,104 101,102"), -EINVAL);  /* out of order */
	assert_int_equal(refused("101, 103,"), -EINVAL);        /* open before another */
	assert_int_equal(refused("101,102 102,103"), -EINVAL);  /* touching */
	assert_int_equal(refused("101,102 ,103"), -EINVAL);
	assert_int_equal(parse(",101 102,", &w), 2);
	free(w);
	assert_int_equal(refused("1,2,3"), -EINVAL);
	assert_int_equal(refused("1.5"), -EINVAL);
	assert_int_equal(refused("abc"), -EINVAL);
	assert_int_equal(refused(""), -EINVAL);
}

static void test_percent(void **state)
{
	(void)state;
	pk_time_window *w;
	assert_int_equal(parse("10%/2", &w), 1); /* the second 10% slice */
	assert_true(w[0].start == 101 * S && w[0].end == 102 * S);
	free(w);
	assert_int_equal(parse("0%-10%,30%-40%", &w), 2);
	assert_true(w[1].start == 103 * S && w[1].end == 104 * S);
	assert_true(pk_time_windows_skip(w, 2, 102 * S) && !pk_time_windows_skip(w, 2, 103 * S + 5));
	free(w);
	assert_int_equal(parse("10%", &w), 1); /* as 0%-10% */
	assert_true(w[0].start == FIRST && w[0].end == 101 * S);
	free(w);
	assert_int_equal(parse("20%-10%", &w), 1); /* backwards: nothing kept */
	assert_true(pk_time_windows_skip(w, 1, 101 * S) && pk_time_windows_skip(w, 1, 105 * S));
	free(w);
	assert_int_equal(refused("10%/2,20%-30%"), -EINVAL); /* kinds mixed */
	assert_int_equal(refused("10%/11"), -EINVAL);       /* past 100% */
	assert_int_equal(refused("10%/0"), -EINVAL);
	assert_int_equal(refused("110%/1"), -EINVAL);
	assert_int_equal(refused("x%/1"), -EINVAL);
	pk_time_window *none = NULL;
	size_t n = 0;
	assert_int_equal(pk_time_windows_parse("10%/2", false, 0, 0, &none, &n, NULL), -ENODATA);
	assert_true(pk_time_is_percent("1%") && !pk_time_is_percent("1,2"));
	assert_false(pk_time_windows_skip(NULL, 0, 5)); /* no windows: all kept */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_percent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
