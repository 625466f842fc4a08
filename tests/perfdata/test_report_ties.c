/* The order of report rows of equal Children against perf report 6.1
 * (issue 23): perf orders equal Children of one thread by chain depth and
 * rows of two threads by Self and the keys, an order that is not
 * transitive, so the rows come out as perf's red-black tree of them makes
 * them (lib/hist/order.c). The fixture is a `perf record -g -e cpu-clock
 * -c 50000` of a shell loop starting short processes (readlink, env true),
 * whose many rows of one or two samples tie; both tools read it with the
 * binaries of this machine (no build-id cache: HOME and PERF_BUILDID_DIR
 * in the test's folder), so they resolve alike wherever it runs. */
#include "helpers.h"
#include "pd_test.h"

#include <stdio.h>
#include <stdlib.h>

static char data[1024];

static void unpack(void)
{
	pd_test_unpack_xz("perfdata-ties/ties.data.xz", "ties.data", data, sizeof(data));
}

/* The default view: Children and the call graph. */
static void test_ties_default(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("xz");
	unpack();
	char args[1200];
	snprintf(args, sizeof(args), "report --stdio -i %s", data);
	pd_test_same_as_perf(args);
}

/* The same keys named, and the table without the graph. */
static void test_ties_keys(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("xz");
	unpack();
	char args[1200];
	snprintf(args, sizeof(args), "report --stdio --sort comm,dso,sym -i %s", data);
	pd_test_same_as_perf(args);
	snprintf(args, sizeof(args), "report --stdio -g none -i %s", data);
	pd_test_same_as_perf(args);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ties_default),
		cmocka_unit_test(test_ties_keys),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
