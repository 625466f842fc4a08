/* Internal: named hardware events through libpfm4 ("inst_retired.any",
 * "INT_MISC.RECOVERY_CYCLES", "icl::TOPDOWN:SLOTS") for sysfs core PMUs. */
#ifndef PK_EVENTS_PFM_H
#define PK_EVENTS_PFM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/cpuid.h>
#include <pmukit/error.h>
#include <pmukit/events.h>
#include <pmukit/pmu.h>

typedef struct pk_pfm_match {
	const pk_pmu *pmu;                 /* the sysfs PMU the encoding is for */
	uint64_t config[PK_NR_CONFIGS];    /* config, config1, config2, config3 */
	char name[160];                    /* libpfm4's canonical name, "adl_glc::INST_RETIRED:ANY" */
} pk_pfm_match;

/* Looks up a named event for the core PMUs of this machine (CPU model from
 * cpuid). only_pmu non-NULL restricts to that PMU (cpu_core/inst_retired.any/).
 * A fully qualified name (libpfm "pmu::EVENT") picks its own PMU. Returns the
 * number of matches written to out (0: unknown name), or a negative errno. */
int pki_pfm_lookup(const pk_pmus *pmus, const pk_cpuid *cpuid, const char *event,
		  const pk_pmu *only_pmu, pk_pfm_match *out, size_t max, pk_error *err);

/* Intel's fixed-counter events (inst_retired.any, cpu_clk_unhalted.thread,
 * .core, .thread_any, .ref) under the general-purpose encodings perf gives
 * them (event=0xc0, event=0x3c, event=0x3c,any=1, umask=0x03), applied
 * through `pmu`'s format fields: never Intel's fixed-counter pseudo codes
 * (0x100, 0x200), which a general-purpose counter does not count as such.
 * The one place of that fact (pfm.c's fixed_names); TopDown encodes its
 * tables' fixed-counter events through it. Returns true and fills config
 * when `event` (any case) is one of them and the PMU has the fields. */
bool pki_pfm_fixed_encode(const pk_pmu *pmu, const char *event, uint64_t config[PK_NR_CONFIGS]);

#endif
