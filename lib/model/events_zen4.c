/* Events of a phase on AMD Zen 4 (width 6) and Zen 5 (width 8, its own rows at the end): the pipeline events of perf's
 * amdzen4 pipeline.json (topdown.md 2d), the 12-bit event select split into
 * config bits 0-7 and 32-35 (PKI_AMD).
 *
 * Derivations (docs/model.md): dispatched ops are the retired plus the
 * bad-speculation slots; no_ops_from_frontend with cmask 6 (cycles with no
 * op from the front end) is the fetch_latency share; microcode ops are the
 * heavy slots; ex_no_retire.not_complete cycles are the backend share, its
 * load_not_complete part the memory share; mispredicts and resyncs cost
 * clear_cost slots each. The smt_contention bucket counts 0: a scenario's
 * four Level 1 shares cover all of a thread's slots (the sibling, when SMT
 * is on, is modeled as taking none of them). */
#include <linux/perf_event.h>

#include "model/events.h"

#define R(ev, umask, cmask, name, rate) {PERF_TYPE_RAW, PKI_AMD(ev, umask, cmask), name, rate}

static const pki_event_row rows[] = {
	R(0x076, 0x00, 0, "ls_not_halted_cyc", "1"),
	R(0x0c0, 0x00, 0, "ex_ret_instr", "width * light_operations"),
	R(0x0c1, 0x00, 0, "ex_ret_ops", "width * retiring"),
	R(0x1c2, 0x00, 0, "ex_ret_ucode_ops", "width * heavy_operations"),
	R(0x0aa, 0x07, 0, "de_src_op_disp.all", "width * (retiring + bad_speculation)"),
	R(0x1a0, 0x01, 0, "de_no_dispatch_per_slot.no_ops_from_frontend", "width * frontend_bound"),
	R(0x1a0, 0x01, 6, "de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6",
	  "fetch_latency"),
	R(0x1a0, 0x1e, 0, "de_no_dispatch_per_slot.backend_stalls", "width * backend_bound"),
	R(0x1a0, 0x60, 0, "de_no_dispatch_per_slot.smt_contention", "0"),
	R(0x0c3, 0x00, 0, "ex_ret_brn_misp", "width * branch_mispredicts / clear_cost"),
	R(0x096, 0x00, 0, "resyncs_or_nc_redirects", "width * machine_clears / clear_cost"),
	R(0x0d6, 0x02, 0, "ex_no_retire.not_complete", "backend_bound"),
	R(0x0d6, 0xa2, 0, "ex_no_retire.load_not_complete", "memory_bound"),
};
const pki_event_table pki_events_zen4 = PKI_EVENT_TABLE(rows);

/* Zen 5 (width 8, perf's amdzen5 pipeline.json): the same events as Zen 4
 * but the frontend-latency form with cmask 8 and bp_redirects.resync
 * (0x9F/0x01) for the pipeline restarts; the rest is Zen 4's table. */
static const pki_event_row zen5[] = {
	R(0x1a0, 0x01, 8, "de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x8",
	  "fetch_latency"),
	R(0x09f, 0x01, 0, "bp_redirects.resync", "width * machine_clears / clear_cost"),
};
const pki_event_table pki_events_zen5 = PKI_EVENT_TABLE(zen5);
