/* The one table of CPU models (cpu_models.c): which core a core PMU of an
 * identified CPU is, and libpfm4's tables for it. The TopDown methods
 * (lib/topdown/td_methods.c), the PMU model's counters (lib/model/
 * counters.c) and libpfm4's named events (lib/events/pfm.c) key their own
 * data by the core it names, so the three cannot drift apart; the vendors'
 * metric tables (lib/metrics/metric_find.c) by the core and the platform
 * (perf's pmu-events directory). Internal, pki_ names. */
#ifndef PK_PMU_CPU_MODELS_H
#define PK_PMU_CPU_MODELS_H

#include <stddef.h>

#include <pmukit/cpuid.h>

typedef enum pki_uarch {
	PKI_UARCH_NONE, /* no core data of pmukit's own (libpfm4's, metrics only) */
	PKI_UARCH_SKYLAKE,
	PKI_UARCH_SUNNY_COVE,
	PKI_UARCH_GOLDEN_COVE,     /* Alder/Raptor Lake P-core */
	PKI_UARCH_GOLDEN_COVE_SRV, /* Sapphire/Emerald Rapids */
	PKI_UARCH_REDWOOD_COVE,    /* Meteor Lake P-core, Granite Rapids */
	PKI_UARCH_GRACEMONT,
	PKI_UARCH_CRESTMONT,
	PKI_UARCH_LION_COVE,
	PKI_UARCH_SKYMONT,
	PKI_UARCH_ZEN1,
	PKI_UARCH_ZEN2,
	PKI_UARCH_ZEN3,
	PKI_UARCH_ZEN4,
	PKI_UARCH_ZEN5,
	PKI_UARCH_CORTEX_A53,
	PKI_UARCH_CORTEX_A57,
	PKI_UARCH_CORTEX_A72,
	PKI_UARCH_NEOVERSE_N1,
	PKI_UARCH_NEOVERSE_V1,
	PKI_UARCH_NEOVERSE_N2,
	PKI_UARCH_NEOVERSE_V2,
	PKI_UARCH_NR
} pki_uarch;

/* x86: vendor, display family, display model ranges, first stepping; Arm:
 * implementer (family) and part numbers (models). */
typedef struct pki_cpu_model {
	pk_vendor vendor;
	int family;           /* -1: any */
	const int *models;    /* inclusive lo, hi pairs ending with -1; NULL: any */
	int min_stepping;
	const char *pmu;      /* core PMU name, or a prefix ending in '*' */
	pki_uarch uarch;
	const char *pfm[3];   /* libpfm4 PMU names, best first */
	const char *platform; /* perf's pmu-events directory (its mapfile.csv), which keys
				 the vendors' metric tables with uarch; NULL: none */
} pki_cpu_model;

/* The first row matching this CPU and core PMU, or NULL. */
const pki_cpu_model *pki_cpu_model_find(const pk_cpuid *id, const char *pmu);
/* Every row, for the tests that check the users agree. */
const pki_cpu_model *pki_cpu_models(size_t *nr);

#endif
