/* Counters per CPU model: how many generic and which fixed counters each
 * core PMU has, whether PERF_METRICS exists (and with how many metric
 * bytes), and the TopDown slot width. One row per core type; the sources of
 * each number are cited in docs/model.md ("Counters per CPU model").
 *
 * Invariants: x86 rows match on vendor, display family and display model;
 * Arm rows on implementer (family) and part number (model). A row's `pmu` is
 * the core PMU's sysfs name, or a prefix ending in '*' (Arm core PMUs are
 * named armv8_pmuv3_0, armv8_cortex_a72, ...). */
#include <errno.h>
#include <string.h>

#include "core/util.h"
#include "model/model.h"

/* Model lists are inclusive ranges: lo, hi pairs ending with 0. */
/* Skylake-era cores: 8 generic per core, shared by the two threads. */
static const int skylake[] = {0x4E, 0x4E, 0x5E, 0x5E, 0x55, 0x55, 0x8E, 0x8E, 0x9E, 0x9E,
			      0xA5, 0xA6, 0};
static const int icelake[] = {0x6A, 0x6A, 0x6C, 0x6C, 0x7D, 0x7E, 0x8C, 0x8D, 0xA7, 0xA7, 0};
static const int hybrid[] = {0x97, 0x97, 0x9A, 0x9A, 0xB7, 0xB7, 0xBA, 0xBA, 0xBF, 0xBF, 0};
static const int goldencove[] = {0x8F, 0x8F, 0xCF, 0xCF, 0x97, 0x97, 0x9A, 0x9A, 0xB7, 0xB7,
				 0xBA, 0xBA, 0xBF, 0xBF, 0};
static const int gracemont[] = {0xBE, 0xBE, 0};
/* Lunar Lake (BD) and Arrow Lake (C6): Lion Cove P-cores (10 generic
 * counters, perfmon's Counter "0-9"; PERF_METRICS 8 bytes; width 8) and
 * Skymont E-cores (8 generic, "0-7"; fixed counters 0-2 and the perfmon v6
 * TopDown counters 4-6, the kernel's intel_skt_event_constraints; width 8) */
static const int lunar_arrow[] = {0xBD, 0xBD, 0xC6, 0xC6, 0};
static const int zen4[] = {0x10, 0x1F, 0x60, 0x7F, 0xA0, 0xAF, 0};
/* Zen 5: family 1Ah, every model from 1 (perf's mapfile takes the whole
 * family; model 0 cannot open a range in this list) */
static const int zen5[] = {0x01, 0xFF, 0};
/* Neoverse part numbers: N1, V1, N2, V2. */
static const int neoverse_n1[] = {0xd0c, 0xd0c, 0};
static const int neoverse_v1[] = {0xd40, 0xd40, 0};
static const int neoverse_n2[] = {0xd49, 0xd49, 0};
static const int neoverse_v2[] = {0xd4f, 0xd4f, 0};

static const pki_counters table[] = {
	{PK_VENDOR_INTEL, 6, skylake, "cpu", "Skylake", 8, 4, 0x7, 0, 4},
	{PK_VENDOR_INTEL, 6, icelake, "cpu", "Sunny Cove", 8, 8, 0xf, 4, 5},
	{PK_VENDOR_INTEL, 6, hybrid, "cpu_core", "Golden Cove", 8, 8, 0xf, 8, 6},
	{PK_VENDOR_INTEL, 6, hybrid, "cpu_atom", "Gracemont", 6, 6, 0x7, 0, 5},
	{PK_VENDOR_INTEL, 6, goldencove, "cpu", "Golden Cove", 8, 8, 0xf, 8, 6},
	{PK_VENDOR_INTEL, 6, gracemont, "cpu", "Gracemont", 6, 6, 0x7, 0, 5},
	{PK_VENDOR_INTEL, 6, lunar_arrow, "cpu_core", "Lion Cove", 10, 10, 0xf, 8, 8},
	{PK_VENDOR_INTEL, 6, lunar_arrow, "cpu_atom", "Skymont", 8, 8, 0x77, 0, 8},
	{PK_VENDOR_AMD, 25, zen4, "cpu", "Zen 4", 6, 6, 0, 0, 6},
	{PK_VENDOR_AMD, 26, zen5, "cpu", "Zen 5", 6, 6, 0, 0, 8},
	/* N1 has no slot events (its TopDown is cycle accounting); the width
	 * is Arm's num_slots, which only its instructions rate uses */
	{PK_VENDOR_ARM, 0x41, neoverse_n1, "armv8_*", "Neoverse N1", 6, 6, 0x1, 0, 5},
	{PK_VENDOR_ARM, 0x41, neoverse_v1, "armv8_*", "Neoverse V1", 6, 6, 0x1, 0, 8},
	{PK_VENDOR_ARM, 0x41, neoverse_n2, "armv8_*", "Neoverse N2", 6, 6, 0x1, 0, 5},
	{PK_VENDOR_ARM, 0x41, neoverse_v2, "armv8_*", "Neoverse V2", 6, 6, 0x1, 0, 8},
};

const pki_counters *pki_counters_find(const pk_cpuid *id, const char *pmu, pk_error *err)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(table); i++) {
		const pki_counters *c = &table[i];
		if (c->vendor == id->vendor && c->family == id->family &&
		    pki_in_ranges(c->models, id->model) && pki_name_matches(c->pmu, pmu))
			return c;
	}
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
