/* Events of a phase on Arm Neoverse N1, V1, N2 and V2 (topdown.md 2e:
 * perf's sbsa.json and neoverse-n2-v2 metrics, Arm's topdown-tool formulas;
 * event numbers from telemetry-solution's neoverse JSON). The raw config is
 * the event number.
 *
 * Derivations (docs/model.md): N1 has no slot events, its stage 1 is cycle
 * accounting: STALL_FRONTEND and STALL_BACKEND cycles are the frontend and
 * backend shares of the cycles (stalls are whole cycles). V1, N2 and V2
 * count STALL_SLOT_* slots per node, OP_RETIRED the retired slots and
 * OP_SPEC the retired plus the bad-speculation slots. N2's erratum (the
 * n2-v2 metrics subtract cpu_cycles before r0p3): STALL_SLOT_FRONTEND
 * and STALL_SLOT count one slot more per cycle. Decision, as Intel's
 * UOP_DROPPING: BR_MIS_PRED counts 0 (and so the retired form), so that
 * perf's formulas and the topdown-tool's mispredict corrections agree; the
 * model's branch-misses on Neoverse is therefore 0. The erratum is fixed in
 * N2 r0p3: from there the rows are not used (the scenario's cpuid MIDR). */
#include <linux/perf_event.h>

#include "model/events.h"

#define R(ev, name, rate) {PERF_TYPE_RAW, ev, name, rate}
#define HW(id, name, rate) {PERF_TYPE_HARDWARE, id, name, rate}

static const pki_event_row hw[] = {
	HW(PERF_COUNT_HW_BRANCH_MISSES, "branch-misses", "0"),
	HW(PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend", "frontend_bound"),
	HW(PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend", "backend_bound"),
};
const pki_event_table pki_events_neoverse_hw = PKI_EVENT_TABLE(hw);

static const pki_event_row all[] = {
	R(0x11, "CPU_CYCLES", "1"),
	R(0x08, "INST_RETIRED", "width * light_operations"),
	R(0x23, "STALL_FRONTEND", "frontend_bound"),
	R(0x24, "STALL_BACKEND", "backend_bound"),
	R(0x10, "BR_MIS_PRED", "0"),
	R(0x22, "BR_MIS_PRED_RETIRED", "0"),
};
const pki_event_table pki_events_neoverse = PKI_EVENT_TABLE(all);

static const pki_event_row slots[] = {
	R(0x3a, "OP_RETIRED", "width * retiring"),
	R(0x3b, "OP_SPEC", "width * (retiring + bad_speculation)"),
	R(0x3d, "STALL_SLOT_BACKEND", "width * backend_bound"),
	R(0x3e, "STALL_SLOT_FRONTEND", "width * frontend_bound"),
	R(0x3f, "STALL_SLOT", "width * (frontend_bound + backend_bound)"),
};
const pki_event_table pki_events_neoverse_slots = PKI_EVENT_TABLE(slots);

static const pki_event_row n2[] = {
	R(0x3e, "STALL_SLOT_FRONTEND", "width * frontend_bound + 1"),
	R(0x3f, "STALL_SLOT", "width * (frontend_bound + backend_bound) + 1"),
};
const pki_event_table pki_events_neoverse_n2 = {n2, sizeof(n2) / sizeof(n2[0]), 0x410fd493};
