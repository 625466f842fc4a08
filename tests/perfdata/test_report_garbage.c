/* report against perf report 6.1 on a recording full of garbage call-chain
 * addresses (frames of programs built without frame pointers: cc1, bash,
 * python3): perf keys the entries of addresses without a map by the
 * address, compared by a signed difference that wraps for addresses 2^63
 * or more apart, so its look-ups miss and make a second entry of the same
 * keys, its collapse merges some, and the table order its output tree is
 * built from is that of its red-black trees (lib/hist/order.c); a sample
 * whose chain perf drops (a corrupt context marker) keeps its entry's call
 * graph out of the one-root form. The fixture is `perf record -g -e
 * cpu-clock -c 50000` (perf 6.1, this project's VM) of gcc -O2 compiling
 * while shell loops run find, sha1sum, gzip, python3; one sample's last
 * chain entry was made an invalid context marker (tests/data/README.md).
 * Both tools read it with this machine's binaries and no build-id cache
 * (HOME and PERF_BUILDID_DIR in the test's folder). */
#include "helpers.h"
#include "pd_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char data[1024];

static void unpack(void)
{
	pd_test_unpack_xz("perfdata-garbage/garbage.data.xz", "garbage.data", data, sizeof(data));
}

/* The two outputs the same, else the first line that differs (the whole
 * outputs are megabytes). */
static void same_as_perf(const char *view)
{
	char args[1400], t[2048], o[2048];
	snprintf(args, sizeof(args), "report --stdio %s -i %s", view, data);
	snprintf(t, sizeof(t), "perf %s 2>/dev/null", args);
	snprintf(o, sizeof(o), "%s %s 2>/dev/null", pk_test_pmukit(), args);
	char *theirs = pd_test_output(t), *ours = pd_test_output(o);
	pd_test_drop_tip(theirs);
	if (strcmp(ours, theirs)) {
		size_t i = 0, line = 1, bol = 0;
		for (; ours[i] && ours[i] == theirs[i]; i++)
			if (ours[i] == '\n') {
				line++;
				bol = i + 1;
			}
		fail_msg("report --stdio %s: line %zu differs\n--- pmukit:\n%.300s\n--- perf:\n%.300s", view,
			 line, ours + bol, theirs + bol);
	}
	free(theirs);
	free(ours);
}

static void test_children(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("xz");
	unpack();
	same_as_perf("");
	same_as_perf("-g caller");
	same_as_perf("--sort comm,dso,sym");
}

static void test_self(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("xz");
	unpack();
	same_as_perf("--no-children");
	same_as_perf("-g none --no-children");
	same_as_perf("--sort dso");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_self),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
