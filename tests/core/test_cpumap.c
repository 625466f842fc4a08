/* CPU lists: parsing, formatting, set operations, bad input. */
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include <pmukit/cpumap.h>
#include <pmukit/kernel.h>

static void roundtrip(const char *in, const char *want, int nr)
{
	pk_error err;
	pk_error_clear(&err);
	pk_cpumap *m = pk_cpumap_parse(in, &err);
	assert_non_null(m);
	assert_int_equal(pk_cpumap_nr(m), nr);
	char buf[128];
	pk_cpumap_format(m, buf, sizeof(buf));
	assert_string_equal(buf, want);
	pk_cpumap_put(m);
}

static void test_parse_format(void **state)
{
	(void)state;
	roundtrip("0-3,8\n", "0-3,8", 5);
	roundtrip("5,1,3,2", "1-3,5", 4);
	roundtrip("0,0,1", "0-1", 2);
	roundtrip("", "", 0);
	roundtrip("  7  ", "7", 1);
	roundtrip("16-23", "16-23", 8);
}

static void test_bad(void **state)
{
	(void)state;
	static const char *const bad[] = {"a", "1-", "3-1", "1,,2", "1;2", "-1", "99999999", "0-70000"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pk_error err;
		pk_error_clear(&err);
		assert_null(pk_cpumap_parse(bad[i], &err));
		assert_int_equal(err.code, -EINVAL);
		assert_true(err.pos >= 0);
	}
}

static void test_ops(void **state)
{
	(void)state;
	pk_cpumap *a = pk_cpumap_parse("0-7", NULL), *b = pk_cpumap_parse("4-11", NULL);
	pk_cpumap *c = pk_cpumap_intersect(a, b);
	char buf[64];
	pk_cpumap_format(c, buf, sizeof(buf));
	assert_string_equal(buf, "4-7");
	assert_true(pk_cpumap_has(c, 5));
	assert_false(pk_cpumap_has(c, 3));
	assert_int_equal(pk_cpumap_idx(c, 6), 2);
	assert_int_equal(pk_cpumap_idx(c, 9), -1);
	assert_int_equal(pk_cpumap_cpu(c, 0), 4);
	assert_int_equal(pk_cpumap_cpu(c, 9), -1);
	assert_false(pk_cpumap_equal(a, b));
	pk_cpumap *a2 = pk_cpumap_get(a);
	assert_ptr_equal(a2, a);
	pk_cpumap_put(a2);
	assert_true(pk_cpumap_equal(a, a));
	pk_cpumap *any = pk_cpumap_any();
	assert_int_equal(pk_cpumap_nr(any), 1);
	assert_int_equal(pk_cpumap_cpu(any, 0), -1);
	pk_cpumap *online = pk_host_cpus(NULL, PK_HOST_CPUS_ONLINE, NULL);
	assert_non_null(online);
	assert_true(pk_cpumap_nr(online) >= 1);
	pk_cpumap_put(online);
	pk_cpumap_put(any);
	pk_cpumap_put(a);
	pk_cpumap_put(b);
	pk_cpumap_put(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_parse_format), cmocka_unit_test(test_bad),
					   cmocka_unit_test(test_ops)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
