/* Events of a phase on Intel's E-cores: Gracemont (ADL/RPL cpu_atom, ADL-N;
 * width 5): the TOPDOWN_*.ALL events and their Level 2 umasks (topdown.md
 * 2c, perfmon alderlake_gracemont_core.json, E-core_TMA_Metrics.csv column
 * GRT). Each counts the slots of its node; RETIRING.ALL is 0xC2/0 on
 * Gracemont. Level 2 mapping (docs/model.md): IFetch_Latency and
 * IFetch_Bandwidth are the scenario's fetch_latency and fetch_bandwidth,
 * Branch_Mispredicts and Machine_Clears theirs, Core_Bound
 * (ALLOC_RESTRICTIONS) is core_bound and Resource_Bound (the rest of the
 * backend) memory_bound. Skymont's table follows. */
#include <linux/perf_event.h>

#include "model/events.h"

#define R(ev, umask, name, rate) {PERF_TYPE_RAW, PKI_INTEL(ev, umask, 0, 0, 0), name, rate}
/* The Level 2 rows every E-core here shares (Gracemont's umasks, the same on
 * Skymont: lunarlake pipeline.json cpu_atom) and the mispredicts. */
#define ECORE_L2                                                                            \
	R(0x71, 0x72, "TOPDOWN_FE_BOUND.FRONTEND_LATENCY", "width * fetch_latency"),         \
	R(0x71, 0x8d, "TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH", "width * fetch_bandwidth"),     \
	R(0x73, 0x03, "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS", "width * machine_clears"),   \
	R(0x73, 0x04, "TOPDOWN_BAD_SPECULATION.MISPREDICT", "width * branch_mispredicts"),   \
	R(0x74, 0x01, "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", "width * core_bound"),          \
	R(0xc5, 0x00, "BR_MISP_RETIRED.ALL_BRANCHES", "width * branch_mispredicts / clear_cost")

static const pki_event_row rows[] = {
	/* INST_RETIRED.ANY and CPU_CLK_UNHALTED.CORE as perf encodes them; the
	 * kernel's Gracemont constraints know no pseudo code 0x0100 or 0x0200 */
	R(0xc0, 0x00, "INST_RETIRED.ANY_P", "width * light_operations"),
	R(0x3c, 0x00, "CPU_CLK_UNHALTED.CORE_P", "1"),
	R(0x71, 0x00, "TOPDOWN_FE_BOUND.ALL", "width * frontend_bound"),
	R(0x73, 0x00, "TOPDOWN_BAD_SPECULATION.ALL", "width * bad_speculation"),
	R(0x74, 0x00, "TOPDOWN_BE_BOUND.ALL", "width * backend_bound"),
	R(0xc2, 0x00, "TOPDOWN_RETIRING.ALL", "width * retiring"),
	ECORE_L2,
};
const pki_event_table pki_events_gracemont = PKI_EVENT_TABLE(rows);

/* Skymont (LNL/ARL cpu_atom, width 8): Level 1 on the perfmon v6 TopDown
 * fixed counters with the kernel's codes (0x0073 fixed counter 4, 0x019c 5,
 * 0x02c2 6; mkernel.c places them), backend 0xa4/0x02 (lunarlake
 * pipeline.json cpu_atom); Level 2 umasks as Gracemont's. */
static const pki_event_row skymont_rows[] = {
	R(0xc0, 0x00, "INST_RETIRED.ANY_P", "width * light_operations"),
	R(0x3c, 0x00, "CPU_CLK_UNHALTED.CORE_P", "1"),
	R(0x9c, 0x01, "TOPDOWN_FE_BOUND.ALL", "width * frontend_bound"),
	R(0x73, 0x00, "TOPDOWN_BAD_SPECULATION.ALL", "width * bad_speculation"),
	R(0xa4, 0x02, "TOPDOWN_BE_BOUND.ALL_P", "width * backend_bound"),
	R(0xc2, 0x02, "TOPDOWN_RETIRING.ALL", "width * retiring"),
	ECORE_L2,
};
const pki_event_table pki_events_skymont = PKI_EVENT_TABLE(skymont_rows);
