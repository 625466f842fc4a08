/* The one table of CPU models (lib/pmu/cpu_models.c) and its three users:
 * TopDown's methods (pki_td_find), the PMU model's counters
 * (pki_counters_find) and libpfm4's names (pki_pfm_model_pmus) agree on
 * every row, and AMD's Zen 4 and Zen 5 ranges are the Linux kernel's
 * (arch/x86/kernel/cpu/amd.c, bsp_init_amd: family 19h Zen 4 models 10-1F,
 * 60-AF; family 1Ah Zen 5 models 00-2F, 40-4F, 60-7F, Zen 6 the others). */
#include "helpers.h"

#include <stdio.h>
#include <string.h>

#include <pmukit/cpuid.h>

#include "events/pfm_internal.h"
#include "model/model.h"
#include "pmu/cpu_models.h"
#include "topdown/td_internal.h"

struct answers {
	const pki_td_method *td;
	const pki_counters *counters;
	const char *pfm; /* the best libpfm4 name, or NULL */
};

static struct answers ask(const pk_cpuid *id, const char *pmu)
{
	struct answers a = {pki_td_find(id, pmu), pki_counters_find(id, pmu, NULL), NULL};
	const char *names[3];
	if (pki_pfm_model_pmus(id, pmu, names, 3) > 0)
		a.pfm = names[0];
	return a;
}

static pk_cpuid amd(int family, int model)
{
	pk_cpuid id = {.vendor = PK_VENDOR_AMD, .family = family, .model = model, .stepping = 0};
	snprintf(id.str, sizeof(id.str), "AuthenticAMD-%d-%X-0", family, model);
	return id;
}

/* Zen 4 and Zen 5 models: all three users name the core; other models of
 * the family: none does (Zen 3 only has libpfm4's table). */
static void expect_zen(int family, const int *models, const char *core, int width,
		       const char *pfm)
{
	for (; *models >= 0; models++) {
		pk_cpuid id = amd(family, *models);
		struct answers a = ask(&id, "cpu");
		if (!core) {
			assert_null(a.td);
			assert_null(a.counters);
			if (pfm)
				assert_string_equal(a.pfm, pfm);
			else
				assert_null(a.pfm);
			continue;
		}
		if (!a.td || !a.counters || !a.pfm)
			fail_msg("%s: method %p, counters %p, libpfm4 %s", id.str, (void *)a.td,
				 (void *)a.counters, a.pfm ? a.pfm : "none");
		assert_string_equal(a.counters->core, core);
		assert_int_equal(a.td->width, width);
		assert_int_equal(a.counters->width, width);
		assert_string_equal(a.pfm, pfm);
	}
}

static void test_zen_ranges(void **state)
{
	(void)state;
	expect_zen(0x19, (const int[]){0x10, 0x1F, 0x60, 0x7F, 0x80, 0x9F, 0xA0, 0xAF, -1},
		   "Zen 4", 6, "amd64_fam19h_zen4");
	expect_zen(0x19, (const int[]){0x00, 0x0F, 0x20, 0x5F, -1}, NULL, 0, "amd64_fam19h_zen3");
	expect_zen(0x19, (const int[]){0xB0, 0xFF, -1}, NULL, 0, NULL);
	expect_zen(0x1A, (const int[]){0x00, 0x02, 0x2F, 0x40, 0x4F, 0x60, 0x7F, -1}, "Zen 5", 8,
		   "amd64_fam1ah_zen5");
	/* Zen 6 and unassigned models */
	expect_zen(0x1A, (const int[]){0x30, 0x3F, 0x50, 0x5F, 0x80, 0xAF, 0xC0, 0xCF, -1}, NULL, 0,
		   NULL);
}

/* A PMU name the row's pattern takes. */
static const char *pmu_of(const pki_cpu_model *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s", m->pmu);
	size_t n = strlen(buf);
	if (n && buf[n - 1] == '*')
		snprintf(buf + n - 1, len - (n - 1), "pmuv3_0");
	return buf;
}

/* Every row, at both ends of each range: the lookup answers this row or an
 * earlier one; the PMU model's counters and TopDown's method describe the
 * same core (same vendor, same width where the method fixes one); a core
 * with counters has a method. */
static void test_users_agree(void **state)
{
	(void)state;
	size_t nr;
	const pki_cpu_model *rows = pki_cpu_models(&nr);
	for (size_t i = 0; i < nr; i++) {
		const pki_cpu_model *m = &rows[i];
		char pmu[64];
		pmu_of(m, pmu, sizeof(pmu));
		const int *r = m->models ? m->models : (const int[]){0x10, 0x10, -1};
		for (; r[0] >= 0; r += 2)
			for (int end = 0; end < 2; end++) {
				pk_cpuid id = {.vendor = m->vendor,
					       .family = m->family < 0 ? 0x41 : m->family,
					       .model = r[end],
					       .stepping = m->min_stepping};
				snprintf(id.str, sizeof(id.str), "row %zu model %#x", i, r[end]);
				const pki_cpu_model *got = pki_cpu_model_find(&id, pmu);
				assert_non_null(got);
				assert_true(got <= m);
				struct answers a = ask(&id, pmu);
				if (a.counters) {
					if (!a.td)
						fail_msg("%s (%s): counters, no method", id.str, pmu);
					assert_int_equal(a.counters->vendor, m->vendor);
					if (a.td->width)
						assert_int_equal(a.td->width, a.counters->width);
				}
				if (got->pfm[0])
					assert_string_equal(a.pfm, got->pfm[0]);
				else
					assert_null(a.pfm);
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zen_ranges),
		cmocka_unit_test(test_users_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
