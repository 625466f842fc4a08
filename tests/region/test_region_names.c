/* A region is its name's text (issue 26): names written with snprintf
 * into one buffer are as many regions as texts, whether in sequence or
 * nested 32 deep; the same text at two addresses is one region; an end
 * without a begin, and a begin refused (too deep), return their error and
 * leave no row in the results; likwid's GET and RESET find a name by its
 * text. On the PMU model (opts.kernel = pk_model_kernel(m)), so the counts do not depend on this
 * machine's kernel; its virtual time is never advanced: these tests count
 * calls, not slots. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/model.h>
#include <pmukit/region.h>
#include "helpers.h"

static pk_model *model;

static int setup(void **state)
{
	(void)state;
	model = pk_test_region_model("sapphirerapids.json", "");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pk_region_fini();
	pk_model_free(model);
	return 0;
}

/* The calls of region name in the results (-1: no row); *rows: how many. */
static long long calls_of(const char *name, size_t *rows)
{
	static pk_region_result r[PK_REGION_MAX_REGIONS];
	size_t n = pk_region_results(r, PK_REGION_MAX_REGIONS);
	if (rows)
		*rows = n;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].name, name))
			return (long long)r[i].calls;
	return -1;
}

static void test_one_buffer(void **state)
{
	(void)state;
	char buf[32];
	for (int i = 0; i < 10; i++) {
		snprintf(buf, sizeof(buf), "iter-%d", i);
		assert_int_equal(pk_region_begin(buf), 0);
		assert_int_equal(pk_region_end(buf), 0);
	}
	size_t rows;
	for (int i = 0; i < 10; i++) {
		snprintf(buf, sizeof(buf), "iter-%d", i);
		if (calls_of(buf, &rows) != 1)
			fail_msg("%s: %lld calls, expected 1 (a region is its text)", buf,
				 calls_of(buf, NULL));
	}
	assert_int_equal(rows, 10);
	/* the same text at another address is the same region */
	char other[32] = "iter-3";
	assert_int_equal(pk_region_begin(other), 0);
	assert_int_equal(pk_region_end("iter-3"), 0);
	assert_int_equal(calls_of("iter-3", &rows), 2);
	assert_int_equal(rows, 10);
}

static void test_nested_one_buffer(void **state)
{
	(void)state;
	char buf[32];
	for (int i = 0; i < PK_REGION_MAX_DEPTH; i++) {
		snprintf(buf, sizeof(buf), "level-%d", i);
		assert_int_equal(pk_region_begin(buf), 0);
	}
	/* one more is refused and adds no name */
	assert_int_equal(pk_region_begin("too-deep"), -ENOSPC);
	/* ends in the wrong order are refused: level-0 is not the innermost */
	assert_int_equal(pk_region_end("level-0"), -EINVAL);
	for (int i = PK_REGION_MAX_DEPTH - 1; i >= 0; i--) {
		snprintf(buf, sizeof(buf), "level-%d", i);
		assert_int_equal(pk_region_end(buf), 0);
	}
	size_t rows;
	for (int i = 0; i < PK_REGION_MAX_DEPTH; i++) {
		snprintf(buf, sizeof(buf), "level-%d", i);
		if (calls_of(buf, &rows) != 1)
			fail_msg("%s: %lld calls, expected 1", buf, calls_of(buf, NULL));
	}
	assert_int_equal(rows, PK_REGION_MAX_DEPTH);
	assert_int_equal(calls_of("too-deep", NULL), -1);
}

static void test_end_without_begin(void **state)
{
	(void)state;
	assert_int_equal(pk_region_end("nope"), -EINVAL);
	assert_int_equal(pk_region_begin("real"), 0);
	assert_int_equal(pk_region_end("nope2"), -EINVAL);
	assert_int_equal(pk_region_end("real"), 0);
	size_t rows;
	assert_int_equal(calls_of("nope", &rows), -1);
	assert_int_equal(calls_of("nope2", NULL), -1);
	assert_int_equal(calls_of("real", NULL), 1);
	assert_int_equal(rows, 1);
	pk_region_info in;
	pk_region_get_info(&in);
	assert_non_null(strstr(in.first_error, "end of region 'nope': no region is open"));
	/* likwid: an unknown tag is not found, a buffer's text is */
	int nev = 4;
	double ev[4], t;
	int count;
	assert_int_equal(pk_region_likwid_get("nope", &nev, ev, &t, &count), -ENOENT);
	char buf[16];
	snprintf(buf, sizeof(buf), "%s", "real");
	nev = 4;
	assert_int_equal(pk_region_likwid_get(buf, &nev, ev, &t, &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(pk_region_likwid_reset(buf), 0);
	assert_int_equal(calls_of("real", NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_one_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_without_begin, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
