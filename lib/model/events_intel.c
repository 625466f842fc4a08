/* Events of a phase shared by Intel's big cores (Skylake, Sunny Cove,
 * Golden Cove): the rows whose encoding and rate are the same on the three
 * (perfmon skylake_core.json, icelake_core.json, sapphirerapids_core.json,
 * alderlake_goldencove_core.json), and the PERF_METRICS Level 1 rows of
 * Sunny Cove and Golden Cove (topdown.md 1.1). A family's own table comes
 * first in its search order (events.c).
 *
 * Derivations (docs/model.md, "Events of a phase"): instructions are the
 * light slots; memory-bound slots are stall cycles, core-bound slots cycles
 * with one port used; mispredicts and machine clears cost clear_cost slots
 * each. */
#include <linux/perf_event.h>

#include "model/events.h"

#define R(ev, umask, cmask, edge, name, rate)                                              \
	{PERF_TYPE_RAW, PKI_INTEL(ev, umask, cmask, edge, 0), name, rate}

static const pki_event_row core[] = {
	/* INST_RETIRED.ANY and CPU_CLK_UNHALTED.THREAD are these codes (perf's
	 * encodings); Intel's fixed-counter pseudo codes are no events of a
	 * generic counter: 0x0200 counts no cycles anywhere, 0x0100 only where
	 * the kernel's constraints map it to fixed counter 0 (below) */
	R(0xc0, 0x00, 0, 0, "INST_RETIRED.ANY_P", "width * light_operations"),
	R(0x3c, 0x00, 0, 0, "CPU_CLK_UNHALTED.THREAD_P", "1"),
	R(0x9c, 0x01, 0, 0, "IDQ_UOPS_NOT_DELIVERED.CORE", "width * frontend_bound"),
	R(0xa3, 0x04, 4, 0, "CYCLE_ACTIVITY.STALLS_TOTAL", "memory_bound"),
	R(0xa6, 0x02, 0, 0, "EXE_ACTIVITY.1_PORTS_UTIL", "core_bound"),
	R(0xa6, 0x04, 0, 0, "EXE_ACTIVITY.2_PORTS_UTIL", "0"),
	R(0xc3, 0x01, 1, 1, "MACHINE_CLEARS.COUNT", "width * machine_clears / clear_cost"),
	R(0xc5, 0x00, 0, 0, "BR_MISP_RETIRED.ALL_BRANCHES", "width * branch_mispredicts / clear_cost"),
};
const pki_event_table pki_events_intel_core = PKI_EVENT_TABLE(core);

/* Fixed counter 3 and the metric pseudo events of Level 1 (event 0x00,
 * umask 0x80-0x83), with their generic-counter forms; and 0x0100
 * (INST_RETIRED.PREC_DIST), which the kernel's constraints put on fixed
 * counter 0 from Ice Lake on (Sunny Cove, Golden Cove: the cores of this
 * table), not on Skylake or Gracemont. */
static const pki_event_row perf_metrics[] = {
	R(0x00, 0x01, 0, 0, "INST_RETIRED.PREC_DIST", "width * light_operations"),
	R(0x00, 0x04, 0, 0, "TOPDOWN.SLOTS", "width"),
	R(0xa4, 0x01, 0, 0, "TOPDOWN.SLOTS_P", "width"),
	R(0x00, 0x80, 0, 0, "topdown-retiring", "width * retiring"),
	R(0x00, 0x81, 0, 0, "topdown-bad-spec", "width * bad_speculation"),
	R(0x00, 0x82, 0, 0, "topdown-fe-bound", "width * frontend_bound"),
	R(0x00, 0x83, 0, 0, "topdown-be-bound", "width * backend_bound"),
	R(0xa4, 0x02, 0, 0, "TOPDOWN.BACKEND_BOUND_SLOTS", "width * backend_bound"),
	R(0xc2, 0x02, 0, 0, "UOPS_RETIRED.SLOTS", "width * retiring"),
};
const pki_event_table pki_events_perf_metrics_l1 = PKI_EVENT_TABLE(perf_metrics);
