/* Events of a phase on Intel cores with PERF_METRICS: Sunny Cove (ICL, ICX,
 * TGL, RKL; width 5, Level 1 in the register) and Golden Cove (SPR, EMR,
 * ADL/RPL P-cores; width 6, Levels 1-2). Facts: topdown.md 1.1 (the pseudo
 * events: slots 0x0400, metrics 0x8000-0x8700) and 2b; encodings from
 * perfmon's icelake_core.json, sapphirerapids_core.json and
 * alderlake_goldencove_core.json.
 *
 * Decision (the lead's, docs/model.md): the scenario's shares are the TMA
 * truth of Intel's current formulas; INT_MISC.UOP_DROPPING and
 * INT_MISC.CLEARS_COUNT count 0 (the model's front end drops no uops, no
 * clear-resteer cycles), so the register's shares equal the scenario's and
 * perf 6.1's raw --topdown arithmetic and the newer formulas agree.
 * Derivations shared with Skylake: memory slots are stall cycles, core
 * slots one-port cycles, clear_cost slots per mispredict or clear. Sunny
 * Cove's Heavy_Operations: microcode-sequencer uops 0, decoder 0's extra
 * uops (UOPS_DECODED.DEC0 minus its cycles, cmask 1) are the heavy slots,
 * IDQ.MITE_UOPS the retired slots. The rows both share with Skylake, and
 * the Level 1 PERF_METRICS rows, are in events_intel.c. */
#include <linux/perf_event.h>

#include "model/events.h"

#define R(ev, umask, cmask, edge, name, rate)                                              \
	{PERF_TYPE_RAW, PKI_INTEL(ev, umask, cmask, edge, 0), name, rate}

static const pki_event_row sunny_cove[] = {
	R(0x0d, 0x01, 1, 1, "INT_MISC.CLEARS_COUNT", "0"),
	R(0x0d, 0x10, 0, 0, "INT_MISC.UOP_DROPPING", "0"),
	R(0x0e, 0x01, 0, 0, "UOPS_ISSUED.ANY", "width * (retiring + bad_speculation)"),
	R(0x56, 0x01, 0, 0, "UOPS_DECODED.DEC0", "retiring + width * heavy_operations"),
	R(0x56, 0x01, 1, 0, "UOPS_DECODED.DEC0:c1", "retiring"),
	R(0x79, 0x04, 0, 0, "IDQ.MITE_UOPS", "width * retiring"),
	R(0x79, 0x30, 0, 0, "IDQ.MS_UOPS", "0"),
	R(0x9c, 0x01, 5, 0, "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", "fetch_latency"),
	R(0xa3, 0x14, 20, 0, "CYCLE_ACTIVITY.STALLS_MEM_ANY", "memory_bound"),
	R(0xa6, 0x40, 2, 0, "EXE_ACTIVITY.BOUND_ON_STORES", "0"),
};
const pki_event_table pki_events_sunny_cove = PKI_EVENT_TABLE(sunny_cove);

static const pki_event_row golden_cove[] = {
	R(0x00, 0x84, 0, 0, "topdown-heavy-ops", "width * heavy_operations"),
	R(0x00, 0x85, 0, 0, "topdown-br-mispredict", "width * branch_mispredicts"),
	R(0x00, 0x86, 0, 0, "topdown-fetch-lat", "width * fetch_latency"),
	R(0x00, 0x87, 0, 0, "topdown-mem-bound", "width * memory_bound"),
	R(0xa4, 0x04, 0, 0, "TOPDOWN.BAD_SPEC_SLOTS", "width * bad_speculation"),
	R(0xa4, 0x08, 0, 0, "TOPDOWN.BR_MISPREDICT_SLOTS", "width * branch_mispredicts"),
	R(0xa4, 0x10, 0, 0, "TOPDOWN.MEMORY_BOUND_SLOTS", "width * memory_bound"),
	R(0xad, 0x01, 1, 1, "INT_MISC.CLEARS_COUNT", "0"),
	R(0xad, 0x10, 0, 0, "INT_MISC.UOP_DROPPING", "0"),
	R(0xae, 0x01, 0, 0, "UOPS_ISSUED.ANY", "width * (retiring + bad_speculation)"),
	R(0xc2, 0x01, 0, 0, "UOPS_RETIRED.HEAVY", "width * heavy_operations"),
	R(0x9c, 0x01, 6, 0, "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", "fetch_latency"),
	R(0xa6, 0x40, 2, 0, "EXE_ACTIVITY.BOUND_ON_STORES", "0"),
};
const pki_event_table pki_events_golden_cove = PKI_EVENT_TABLE(golden_cove);
