/* The encoder from libpfm4's tables (used for PMUs libpfm4 did not detect on
 * this host) against libpfm4's own encoder, over every event and umask of
 * every x86 table the CPU-model table can pick. This process sets
 * LIBPFM_ENCODE_INACTIVE=1 before libpfm4 starts, so libpfm4 encodes for all
 * its tables; the library itself never sets it. */
#include "helpers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

#include "events/pfm_internal.h"

struct tally {
	size_t same, refused, both_fail;
};

static void compare(const char *pmu, pk_vendor vendor, const char *name, struct tally *t)
{
	uint64_t ours[PK_NR_CONFIGS] = {0}, theirs[PK_NR_CONFIGS] = {0};
	pk_error e1, e2;
	pk_error_clear(&e1);
	pk_error_clear(&e2);
	int rt = pki_pfm_encode_tables(pmu, name, vendor, ours, &e1);
	int rl = pki_pfm_encode_libpfm(pmu, name, theirs, &e2);
	if (rt == -EOPNOTSUPP) {
		t->refused++;
		return;
	}
	if (rt == 0 && rl == 0) {
		if (memcmp(ours, theirs, sizeof(ours)) != 0)
			fail_msg("%s::%s: tables 0x%llx/0x%llx, libpfm4 0x%llx/0x%llx", pmu, name,
				 (unsigned long long)ours[0], (unsigned long long)ours[1],
				 (unsigned long long)theirs[0], (unsigned long long)theirs[1]);
		t->same++;
		return;
	}
	if (rt < 0 && rl < 0) {
		t->both_fail++;
		return;
	}
	fail_msg("%s::%s: tables %d (%s), libpfm4 %d (%s)", pmu, name, rt, e1.msg, rl, e2.msg);
}

static void compare_pmu(const char *pmu, pk_vendor vendor, size_t min_same)
{
	bool present;
	if (!pki_pfm_has_pmu(pmu, &present)) {
		printf("SKIP %s: not in this libpfm4\n", pmu);
		return;
	}
	pfm_pmu_t p;
	struct tally t = {0};
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || strcmp(pi.name, pmu) != 0)
			continue;
		for (int i = pi.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t ei;
			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			assert_int_equal(pfm_get_event_info(i, PFM_OS_NONE, &ei), PFM_SUCCESS);
			compare(pmu, vendor, ei.name, &t);
			for (int a = 0; a < ei.nattrs; a++) {
				pfm_event_attr_info_t ai;
				memset(&ai, 0, sizeof(ai));
				ai.size = sizeof(ai);
				assert_int_equal(pfm_get_event_attr_info(i, a, PFM_OS_NONE, &ai),
						 PFM_SUCCESS);
				if (ai.type != PFM_ATTR_UMASK)
					continue;
				char name[256];
				snprintf(name, sizeof(name), "%s:%s", ei.name, ai.name);
				compare(pmu, vendor, name, &t);
				/* modifiers in the name are left to libpfm4 */
				snprintf(name, sizeof(name), "%s:%s:c=2", ei.name, ai.name);
				compare(pmu, vendor, name, &t);
			}
		}
	}
	printf("%s: %zu encodings equal to libpfm4's, %zu left to libpfm4, %zu rejected by "
	       "both\n",
	       pmu, t.same, t.refused, t.both_fail);
	assert_true(t.same >= min_same);
}

static void test_intel(void **state)
{
	(void)state;
	const char *pmus[] = {"snb", "ivb", "hsw", "bdw", "skl", "skx", "clx", "icl",
			      "icx", "spr", "slm", "glm", "tmt", "adl_glc", "adl_grt", "emr"};
	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++)
		compare_pmu(pmus[i], PK_VENDOR_INTEL, 25);
}

static void test_amd(void **state)
{
	(void)state;
	const char *pmus[] = {"amd64_fam17h_zen1", "amd64_fam17h_zen2", "amd64_fam19h_zen3",
			      "amd64_fam19h_zen4", "amd64_fam1ah_zen5"};
	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++)
		compare_pmu(pmus[i], PK_VENDOR_AMD, 100);
}

int main(void)
{
	/* before anything starts libpfm4 */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_amd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
