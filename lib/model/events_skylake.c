/* Events of a phase on Skylake-era Intel cores (SKL, SKX, KBL, CFL, CML;
 * width 4): the generic-counter TopDown events of topdown.md 2a, the perf
 * sysfs topdown-* aliases of the skylake tree (the same raw events), and the
 * fixed-counter pseudo encodings of perfmon's skylake_core.json.
 *
 * Derivations (docs/model.md, "Events of a phase"): half of the
 * bad-speculation slots are recovery bubbles (INT_MISC.RECOVERY_CYCLES x
 * width), the other half issued uops that did not retire; the backend's
 * memory slots are stall cycles (CYCLE_ACTIVITY.STALLS_TOTAL and
 * STALLS_MEM_ANY), its core slots cycles with one port used
 * (EXE_ACTIVITY.1_PORTS_UTIL); mispredicts and machine clears cost
 * clear_cost slots each; MACRO_FUSED is 0. The AnyThread forms (_ANY,
 * bit 21) are the engine's rule (events.c), not rows. The rows Skylake
 * shares with the later big cores are in events_intel.c. */
#include <linux/perf_event.h>

#include "model/events.h"

#define R(ev, umask, cmask, edge, name, rate)                                              \
	{PERF_TYPE_RAW, PKI_INTEL(ev, umask, cmask, edge, 0), name, rate}

static const pki_event_row rows[] = {
	R(0x0d, 0x01, 0, 0, "INT_MISC.RECOVERY_CYCLES", "bad_speculation / 2"),
	/* topdown-recovery-bubbles: event=0xd,umask=0x3,cmask=1 (the kernel's
	 * alias for the recovery cycles) */
	R(0x0d, 0x03, 1, 0, "topdown-recovery-bubbles", "bad_speculation / 2"),
	R(0x0e, 0x01, 0, 0, "UOPS_ISSUED.ANY", "width * (retiring + bad_speculation / 2)"),
	R(0x9c, 0x01, 4, 0, "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", "fetch_latency"),
	R(0xa3, 0x14, 20, 0, "CYCLE_ACTIVITY.STALLS_MEM_ANY", "memory_bound"),
	R(0xa6, 0x40, 0, 0, "EXE_ACTIVITY.BOUND_ON_STORES", "0"),
	R(0xc2, 0x02, 0, 0, "UOPS_RETIRED.RETIRE_SLOTS", "width * retiring"),
	R(0xc2, 0x04, 0, 0, "UOPS_RETIRED.MACRO_FUSED", "0"),
};
const pki_event_table pki_events_skylake = PKI_EVENT_TABLE(rows);
