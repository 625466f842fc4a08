/* The one table of CPU models: vendor, family, model ranges (and stepping)
 * and core PMU -> the core (pki_uarch) and libpfm4's PMU names. TopDown
 * methods, the PMU model's counters and named events all look a CPU up
 * here (cpu_models.h), so a range is written once.
 *
 * Invariants: the first matching row wins, so specific rows (a stepping, a
 * PMU name) come before general ones; model ranges end with -1 (model 0 is
 * a model); a row's pmu is a sysfs core PMU name or a prefix ending in '*'.
 *
 * AMD's ranges are the Linux kernel's (arch/x86/kernel/cpu/amd.c,
 * bsp_init_amd, which sets X86_FEATURE_ZEN1..ZEN6 by family and model):
 * family 19h Zen 3 is models 00-0F and 20-5F, Zen 4 10-1F and 60-AF
 * (libpfm4's amd64_get_revision agrees below B0h); family 1Ah Zen 5 is
 * 00-2F, 40-4F and 60-7F, the others (50-5F, 80-AF, C0-CF) being Zen 6,
 * which has neither a method nor a counter table here. perf's mapfile.csv
 * takes every family 1Ah model as amdzen5, which would give Zen 6 Zen 5's
 * TopDown width. */
#include "pmu/cpu_models.h"

#include <string.h>

#include "core/util.h"

#define ANY (-1)
/* Intel family 6, one model, core PMU "cpu": libpfm4's name, perf's directory */
#define INTEL(m, pmu, dir)                                                              \
	{PK_VENDOR_INTEL, 6, (const int[]){m, m, ANY}, 0, "cpu", PKI_UARCH_NONE, {pmu, NULL, NULL}, dir}
#define INTEL_U(m, uarch, pmu, dir)                                                     \
	{PK_VENDOR_INTEL, 6, (const int[]){m, m, ANY}, 0, "cpu", uarch, {pmu, NULL, NULL}, dir}
#define INTEL_R(r, pmu, uarch, pfm1, pfm2, dir)                                         \
	{PK_VENDOR_INTEL, 6, r, 0, pmu, uarch, {pfm1, pfm2, NULL}, dir}

static const int haswell[] = {0x3C, 0x3C, 0x45, 0x46, ANY};
static const int skylake[] = {0x4E, 0x4E, 0x5E, 0x5E, 0x8E, 0x8E, 0x9E, 0x9E, 0xA5, 0xA6, ANY};
static const int icelake[] = {0x7D, 0x7E, ANY};
static const int tigerlake[] = {0x8C, 0x8D, ANY};
static const int icelakex[] = {0x6A, 0x6A, 0x6C, 0x6C, ANY};
static const int hybrid[] = {0x97, 0x97, 0x9A, 0x9A, 0xB7, 0xB7, 0xBA, 0xBA, 0xBF, 0xBF, ANY};
/* Meteor Lake (AA, AC): Redwood Cove P-cores, Crestmont E-cores */
static const int meteor[] = {0xAA, 0xAA, 0xAC, 0xAC, ANY};
/* Lunar Lake (BD), Arrow Lake (C5, C6): the kernel's INTEL_LUNARLAKE_M,
 * INTEL_ARROWLAKE_H and INTEL_ARROWLAKE rows (Lion Cove + Skymont) */
static const int lunar[] = {0xBD, 0xBD, ANY};
static const int arrow[] = {0xC5, 0xC6, ANY};
static const int granite[] = {0xAD, 0xAE, ANY};
static const int zen3[] = {0x00, 0x0F, 0x20, 0x5F, ANY};
static const int zen4[] = {0x10, 0x1F, 0x60, 0xAF, ANY};
static const int zen5[] = {0x00, 0x2F, 0x40, 0x4F, 0x60, 0x7F, ANY};

/* Intel's rows: the models are the kernel's arch/x86/include/asm/
 * intel-family.h, the directories perf's tools/perf/pmu-events/arch/x86/
 * mapfile.csv (Linux 6.12; lunarlake, arrowlake: intel/perfmon's) */
static const pki_cpu_model table[] = {
	/* Sandy Bridge .. Broadwell */
	INTEL(0x2A, "snb", "sandybridge"), INTEL(0x2D, "snb_ep", "jaketown"),
	INTEL(0x3A, "ivb", "ivybridge"), INTEL(0x3E, "ivb_ep", "ivytown"),
	INTEL_R(haswell, "cpu", PKI_UARCH_NONE, "hsw", NULL, "haswell"),
	INTEL(0x3F, "hsw_ep", "haswellx"), INTEL(0x3D, "bdw", "broadwell"),
	INTEL(0x47, "bdw", "broadwell"), INTEL(0x4F, "bdw_ep", "broadwellx"),
	INTEL(0x56, "bdw_ep", "broadwellde"),
	/* Skylake client and its refreshes (Kaby/Coffee/Comet Lake) */
	INTEL_R(skylake, "cpu", PKI_UARCH_SKYLAKE, "skl", NULL, "skylake"),
	/* Skylake-X; stepping 5 and later are Cascade Lake */
	{PK_VENDOR_INTEL, 6, (const int[]){0x55, 0x55, ANY}, 5, "cpu", PKI_UARCH_SKYLAKE,
	 {"clx", "skx", NULL}, "cascadelakex"},
	INTEL_U(0x55, PKI_UARCH_SKYLAKE, "skx", "skylakex"),
	/* Ice Lake / Tiger Lake (Willow Cove) / Rocket Lake (Cypress Cove)
	 * client, Ice Lake server: Sunny Cove's PMU, each its own metric files */
	INTEL_R(icelake, "cpu", PKI_UARCH_SUNNY_COVE, "icl", NULL, "icelake"),
	INTEL_R(tigerlake, "cpu", PKI_UARCH_SUNNY_COVE, "icl", NULL, "tigerlake"),
	INTEL_U(0xA7, PKI_UARCH_SUNNY_COVE, "icl", "rocketlake"),
	INTEL_R(icelakex, "cpu", PKI_UARCH_SUNNY_COVE, "icx", NULL, "icelakex"),
	/* Sapphire Rapids, Emerald Rapids (Golden Cove / Raptor Cove cores) */
	INTEL_U(0x8F, PKI_UARCH_GOLDEN_COVE_SRV, "spr", "sapphirerapids"),
	{PK_VENDOR_INTEL, 6, (const int[]){0xCF, 0xCF, ANY}, 0, "cpu", PKI_UARCH_GOLDEN_COVE_SRV,
	 {"emr", "spr", NULL}, "emeraldrapids"},
	/* Granite Rapids (Redwood Cove) */
	INTEL_R(granite, "cpu", PKI_UARCH_REDWOOD_COVE, NULL, NULL, "graniterapids"),
	/* Atom cores (non-hybrid) */
	INTEL(0x37, "slm", "silvermont"), INTEL(0x4D, "slm", "silvermont"),
	INTEL(0x5C, "glm", "goldmont"), INTEL(0x5F, "glm", "goldmont"),
	INTEL(0x86, "tmt", "snowridgex"), INTEL(0x96, "tmt", "elkhartlake"),
	INTEL(0x9C, "tmt", "elkhartlake"),
	/* Alder Lake-N (Gracemont only); Sierra Forest, Grand Ridge (Crestmont) */
	INTEL_U(0xBE, PKI_UARCH_GRACEMONT, NULL, "alderlaken"),
	INTEL_U(0xAF, PKI_UARCH_CRESTMONT, NULL, "sierraforest"),
	INTEL_U(0xB6, PKI_UARCH_CRESTMONT, NULL, "grandridge"),
	/* Alder Lake / Raptor Lake hybrid: Golden Cove P-cores, Gracemont
	 * E-cores. libpfm4 before 4.14 has no adl_glc; Golden Cove is also
	 * SPR's core, whose table then stands in. There is no stand-in for
	 * Gracemont. With the E-cores off the P-cores' PMU is "cpu". */
	INTEL_R(hybrid, "cpu_core", PKI_UARCH_GOLDEN_COVE, "adl_glc", "spr", "alderlake"),
	INTEL_R(hybrid, "cpu_atom", PKI_UARCH_GRACEMONT, "adl_grt", NULL, "alderlake"),
	INTEL_R(hybrid, "cpu", PKI_UARCH_GOLDEN_COVE, NULL, NULL, "alderlake"),
	/* Meteor Lake: Redwood Cove P-cores, Crestmont E-cores */
	INTEL_R(meteor, "cpu_core", PKI_UARCH_REDWOOD_COVE, NULL, NULL, "meteorlake"),
	INTEL_R(meteor, "cpu_atom", PKI_UARCH_CRESTMONT, NULL, NULL, "meteorlake"),
	INTEL_R(meteor, "cpu", PKI_UARCH_REDWOOD_COVE, NULL, NULL, "meteorlake"),
	/* Lunar Lake, Arrow Lake: Lion Cove P-cores, Skymont E-cores */
	INTEL_R(lunar, "cpu_core", PKI_UARCH_LION_COVE, NULL, NULL, "lunarlake"),
	INTEL_R(lunar, "cpu_atom", PKI_UARCH_SKYMONT, NULL, NULL, "lunarlake"),
	INTEL_R(arrow, "cpu_core", PKI_UARCH_LION_COVE, NULL, NULL, "arrowlake"),
	INTEL_R(arrow, "cpu_atom", PKI_UARCH_SKYMONT, NULL, NULL, "arrowlake"),
	/* AMD (family is the display family, 0x17 = 23 ...) */
	{PK_VENDOR_AMD, 0x17, (const int[]){0x00, 0x2F, ANY}, 0, "cpu", PKI_UARCH_ZEN1,
	 {"amd64_fam17h_zen1", NULL, NULL}, "amdzen1"},
	{PK_VENDOR_AMD, 0x17, (const int[]){0x30, 0xFF, ANY}, 0, "cpu", PKI_UARCH_ZEN2,
	 {"amd64_fam17h_zen2", NULL, NULL}, "amdzen2"},
	{PK_VENDOR_AMD, 0x19, zen3, 0, "cpu", PKI_UARCH_ZEN3, {"amd64_fam19h_zen3", NULL, NULL},
	 "amdzen3"},
	{PK_VENDOR_AMD, 0x19, zen4, 0, "cpu", PKI_UARCH_ZEN4, {"amd64_fam19h_zen4", NULL, NULL},
	 "amdzen4"},
	{PK_VENDOR_AMD, 0x1A, zen5, 0, "cpu", PKI_UARCH_ZEN5, {"amd64_fam1ah_zen5", NULL, NULL},
	 "amdzen5"},
	/* Arm device-tree systems name each PMU after its core; on big.LITTLE
	 * that beats the MIDR, which is only cpu0's */
	{PK_VENDOR_ARM, ANY, NULL, 0, "armv8_cortex_a53", PKI_UARCH_CORTEX_A53, {"arm_ac53", NULL, NULL},
	 NULL},
	{PK_VENDOR_ARM, ANY, NULL, 0, "armv8_cortex_a57", PKI_UARCH_CORTEX_A57, {"arm_ac57", NULL, NULL},
	 NULL},
	{PK_VENDOR_ARM, ANY, NULL, 0, "armv8_cortex_a72", PKI_UARCH_CORTEX_A72, {"arm_ac72", NULL, NULL},
	 NULL},
	/* Arm servers (ACPI: armv8_pmuv3_N): implementer 0x41, part from MIDR */
#define ARM(part, uarch, pfm, dir)                                                      \
	{PK_VENDOR_ARM, 0x41, (const int[]){part, part, ANY}, 0, "armv8_*", uarch, {pfm, NULL, NULL}, dir}
	ARM(0xD03, PKI_UARCH_CORTEX_A53, "arm_ac53", NULL),
	ARM(0xD07, PKI_UARCH_CORTEX_A57, "arm_ac57", NULL),
	ARM(0xD08, PKI_UARCH_CORTEX_A72, "arm_ac72", NULL),
	ARM(0xD0C, PKI_UARCH_NEOVERSE_N1, "arm_n1", "neoverse-n1"),
	ARM(0xD40, PKI_UARCH_NEOVERSE_V1, "arm_v1", "neoverse-v1"),
	ARM(0xD49, PKI_UARCH_NEOVERSE_N2, "arm_n2", "neoverse-n2-v2"),
	ARM(0xD4F, PKI_UARCH_NEOVERSE_V2, NULL, "neoverse-n2-v2"),
#undef ARM
};

static bool in_ranges(const int *r, int v)
{
	if (!r)
		return true;
	for (; r[0] != ANY; r += 2)
		if (v >= r[0] && v <= r[1])
			return true;
	return false;
}

const pki_cpu_model *pki_cpu_model_find(const pk_cpuid *id, const char *pmu)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(table); i++) {
		const pki_cpu_model *m = &table[i];
		if (m->vendor == id->vendor && (m->family == ANY || m->family == id->family) &&
		    in_ranges(m->models, id->model) && id->stepping >= m->min_stepping && pmu &&
		    pki_name_matches(m->pmu, pmu))
			return m;
	}
	return NULL;
}

const pki_cpu_model *pki_cpu_models(size_t *nr)
{
	*nr = PK_ARRAY_SIZE(table);
	return table;
}
