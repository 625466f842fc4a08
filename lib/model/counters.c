/* Counters per CPU model: how many generic and which fixed counters each
 * core PMU has, whether PERF_METRICS exists (and with how many metric
 * bytes), and the TopDown slot width. One row per core type; the sources of
 * each number are cited in docs/model.md ("Counters per CPU model").
 *
 * Invariants: which core a CPU's core PMU is comes from the one table of CPU
 * models (lib/pmu/cpu_models.c), shared with TopDown's methods and
 * libpfm4's names; this file only says what each core has. */
#include <errno.h>
#include <string.h>

#include "core/util.h"
#include "model/model.h"
#include "pmu/cpu_models.h"

/* One row per core (lib/pmu/cpu_models.c says which core a core PMU of a
 * CPU is). Skylake-era cores: 8 generic per core, shared by the two
 * threads. Lion Cove P-cores: 10 generic counters, perfmon's Counter "0-9";
 * PERF_METRICS 8 bytes; width 8. Skymont E-cores: 8 generic, "0-7"; fixed
 * counters 0-2 and the perfmon v6 TopDown counters 4-6, the kernel's
 * intel_skt_event_constraints; width 8. Neoverse N1 has no slot events (its
 * TopDown is cycle accounting); the width is Arm's num_slots, which only
 * its instructions rate uses. */
static const pki_counters skylake = {PK_VENDOR_INTEL, "Skylake", 8, 4, 0x7, 0, 4};
static const pki_counters sunny_cove = {PK_VENDOR_INTEL, "Sunny Cove", 8, 8, 0xf, 4, 5};
static const pki_counters golden_cove = {PK_VENDOR_INTEL, "Golden Cove", 8, 8, 0xf, 8, 6};
static const pki_counters gracemont = {PK_VENDOR_INTEL, "Gracemont", 6, 6, 0x7, 0, 5};
static const pki_counters lion_cove = {PK_VENDOR_INTEL, "Lion Cove", 10, 10, 0xf, 8, 8};
static const pki_counters skymont = {PK_VENDOR_INTEL, "Skymont", 8, 8, 0x77, 0, 8};
static const pki_counters zen4 = {PK_VENDOR_AMD, "Zen 4", 6, 6, 0, 0, 6};
static const pki_counters zen5 = {PK_VENDOR_AMD, "Zen 5", 6, 6, 0, 0, 8};
static const pki_counters neoverse_n1 = {PK_VENDOR_ARM, "Neoverse N1", 6, 6, 0x1, 0, 5};
static const pki_counters neoverse_v1 = {PK_VENDOR_ARM, "Neoverse V1", 6, 6, 0x1, 0, 8};
static const pki_counters neoverse_n2 = {PK_VENDOR_ARM, "Neoverse N2", 6, 6, 0x1, 0, 5};
static const pki_counters neoverse_v2 = {PK_VENDOR_ARM, "Neoverse V2", 6, 6, 0x1, 0, 8};

static const pki_counters *const by_uarch[PKI_UARCH_NR] = {
	[PKI_UARCH_SKYLAKE] = &skylake,         [PKI_UARCH_SUNNY_COVE] = &sunny_cove,
	[PKI_UARCH_GOLDEN_COVE] = &golden_cove, [PKI_UARCH_GOLDEN_COVE_SRV] = &golden_cove,
	[PKI_UARCH_GRACEMONT] = &gracemont,     [PKI_UARCH_LION_COVE] = &lion_cove,
	[PKI_UARCH_SKYMONT] = &skymont,         [PKI_UARCH_ZEN4] = &zen4,
	[PKI_UARCH_ZEN5] = &zen5,               [PKI_UARCH_NEOVERSE_N1] = &neoverse_n1,
	[PKI_UARCH_NEOVERSE_V1] = &neoverse_v1, [PKI_UARCH_NEOVERSE_N2] = &neoverse_n2,
	[PKI_UARCH_NEOVERSE_V2] = &neoverse_v2,
};

const pki_counters *pki_counters_find(const pk_cpuid *id, const char *pmu, pk_error *err)
{
	const pki_cpu_model *m = pki_cpu_model_find(id, pmu);
	if (m && by_uarch[m->uarch])
		return by_uarch[m->uarch];
	pk_err_at(err, -ENOENT, "cpuid", id->str, -1,
		  "no counter table for core PMU '%s' of CPU '%s'", pmu, id->str);
	pk_err_hint(err, "the model knows Skylake, Ice Lake, Golden Cove, Gracemont, Lion Cove, "
			 "Skymont, Zen 4, Zen 5 "
			 "and Neoverse N1, V1, N2 and V2 cores (docs/model.md)");
	return NULL;
}

int pki_counters_generic(const pki_counters *c, bool smt)
{
	return smt ? c->generic_smt : c->generic;
}
