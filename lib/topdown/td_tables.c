/* TopDown method tables that are not generated: Intel's E-cores, AMD Zen 4
 * and Zen 5, Arm Neoverse. Facts (formulas, widths, event codes) from
 * docs/topdown.md's sources: Intel's E-core_TMA_Metrics.csv (GRT and CMT
 * columns), perf's amdzen4/amdzen5 pipeline.json, perf's arm64 sbsa.json
 * and arm/neoverse-n2-v2 metrics, Arm's topdown-tool data (N1 stage 1).
 *
 * Invariants (td_internal.h): rows in tree order, values in percent, every
 * event a formula names listed once with its raw config. AMD configs put the
 * 12-bit event select in bits 0-7 and 32-35, the umask in 8-15, the counter
 * mask in 24-31; Intel's event in 0-7, umask 8-15, cmask 24-31; Arm's config
 * is the event number. */
#include "topdown/td_internal.h"

#define PCT PK_METRIC_PERCENT
#define ROW(n, f, thr, desc, par)                                                         \
	{.name = n, .formula = f, .unit = "%", .style = PCT, .threshold = thr,           \
	 .description = desc, .groups = par ? "TopdownL2" : "TopdownL1", .parent = par}
#define AMD(ev, umask, cmask)                                                             \
	((uint64_t)((ev) & 0xff) | (uint64_t)(((ev) >> 8) & 0xf) << 32 |              \
	 (uint64_t)(umask) << 8 | (uint64_t)(cmask) << 24)
#define INTEL(ev, umask) ((uint64_t)(ev) | (uint64_t)(umask) << 8)

/* ---- Intel E-core Level 2 (Gracemont's events, also Crestmont's and
 * Skymont's: 0x71/0x72, 0x71/0x8d, 0x73/0x04, 0x73/0x03, 0x74/0x01) ------- */

/* The Level 2 rows of an E-core of width slots S (perf's srf-metrics.json
 * and lnl-metrics.json cpu_atom rows; E-core_TMA_Metrics.csv). */
#define ECORE_L2_FE(S)                                                                     \
	ROW("tma_ifetch_latency", "100 * TOPDOWN_FE_BOUND.FRONTEND_LATENCY / " S,          \
	    "tma_ifetch_latency > 15 & tma_frontend_bound > 20",                            \
	    "Slots not delivered because of frontend latency (icache, itlb, branch detection, resteers).", \
	    "tma_frontend_bound"),                                                          \
	ROW("tma_ifetch_bandwidth", "100 * TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH / " S,      \
	    "tma_ifetch_bandwidth > 10 & tma_frontend_bound > 20",                          \
	    "Slots not delivered because of frontend bandwidth (decode, predecode, cisc).", \
	    "tma_frontend_bound")
#define ECORE_L2_BAD(S)                                                                    \
	ROW("tma_branch_mispredicts", "100 * TOPDOWN_BAD_SPECULATION.MISPREDICT / " S,      \
	    "tma_branch_mispredicts > 5 & tma_bad_speculation > 15",                        \
	    "Slots not consumed by the backend because of branch mispredicts.",             \
	    "tma_bad_speculation"),                                                         \
	ROW("tma_machine_clears", "100 * TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS / " S,      \
	    "tma_machine_clears > 5 & tma_bad_speculation > 15",                            \
	    "Slots not consumed by the backend because of machine clears (nukes).",         \
	    "tma_bad_speculation")
#define ECORE_L2_BE(S)                                                                     \
	ROW("tma_core_bound", "100 * TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS / " S,              \
	    "tma_core_bound > 10 & tma_backend_bound > 10",                                 \
	    "Backend stalls bounded by core restrictions (allocation restrictions).",       \
	    "tma_backend_bound"),                                                           \
	ROW("tma_resource_bound", "tma_backend_bound - tma_core_bound",                    \
	    "tma_resource_bound > 20 & tma_backend_bound > 10",                             \
	    "Backend stalls because of a resource limitation.", "tma_backend_bound")
#define ECORE_L2_EVENTS                                                                     \
	{"TOPDOWN_FE_BOUND.FRONTEND_LATENCY", INTEL(0x71, 0x72), false},                     \
	{"TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH", INTEL(0x71, 0x8d), false},                   \
	{"TOPDOWN_BAD_SPECULATION.MISPREDICT", INTEL(0x73, 0x04), false},                    \
	{"TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS", INTEL(0x73, 0x03), false},                \
	{"TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", INTEL(0x74, 0x01), false}

/* ---- Intel Gracemont (ADL/RPL E-cores, ADL-N): width 5 ------------------- */

#define GRT_SLOTS "( 5 * CPU_CLK_UNHALTED.CORE )"
static const pk_metric_def grt_rows[] = {
	ROW("tma_frontend_bound", "100 * TOPDOWN_FE_BOUND.ALL / " GRT_SLOTS,
	    "tma_frontend_bound > 20",
	    "Issue slots not delivered by the frontend.", NULL),
	ECORE_L2_FE(GRT_SLOTS),
	ROW("tma_bad_speculation",
	    "100 * ( " GRT_SLOTS " - ( TOPDOWN_FE_BOUND.ALL + TOPDOWN_BE_BOUND.ALL + "
	    "TOPDOWN_RETIRING.ALL ) ) / " GRT_SLOTS,
	    "tma_bad_speculation > 15",
	    "Issue slots wasted by incorrect speculation.", NULL),
	ECORE_L2_BAD(GRT_SLOTS),
	ROW("tma_backend_bound", "100 * TOPDOWN_BE_BOUND.ALL / " GRT_SLOTS,
	    "tma_backend_bound > 10",
	    "Issue slots not consumed because of backend stalls.", NULL),
	ECORE_L2_BE(GRT_SLOTS),
	ROW("tma_retiring", "100 * TOPDOWN_RETIRING.ALL / " GRT_SLOTS, "tma_retiring > 75",
	    "Issue slots used by uops that retired.", NULL),
};
static const pki_td_event grt_events[] = {
	{"CPU_CLK_UNHALTED.CORE", INTEL(0x00, 0x02), false},
	{"TOPDOWN_FE_BOUND.ALL", INTEL(0x71, 0x00), false},
	{"TOPDOWN_BE_BOUND.ALL", INTEL(0x74, 0x00), false},
	{"TOPDOWN_RETIRING.ALL", INTEL(0xc2, 0x00), false},
	ECORE_L2_EVENTS,
};
const pki_td_table pki_td_gracemont = PKI_TD_TABLE(grt_rows, grt_events);

/* ---- Intel Crestmont (Sierra Forest): width 6 ---------------------------- */

#define CMT_SLOTS "( 6 * CPU_CLK_UNHALTED.CORE )"
static const pk_metric_def cmt_rows[] = {
	ROW("tma_frontend_bound", "100 * TOPDOWN_FE_BOUND.ALL_P / " CMT_SLOTS,
	    "tma_frontend_bound > 20", "Issue slots not delivered by the frontend.", NULL),
	ECORE_L2_FE(CMT_SLOTS),
	ROW("tma_bad_speculation", "100 * TOPDOWN_BAD_SPECULATION.ALL_P / " CMT_SLOTS,
	    "tma_bad_speculation > 15", "Issue slots wasted by incorrect speculation.", NULL),
	ECORE_L2_BAD(CMT_SLOTS),
	ROW("tma_backend_bound", "100 * TOPDOWN_BE_BOUND.ALL_P / " CMT_SLOTS,
	    "tma_backend_bound > 10", "Issue slots not consumed because of backend stalls.", NULL),
	ECORE_L2_BE(CMT_SLOTS),
	ROW("tma_retiring", "100 * TOPDOWN_RETIRING.ALL_P / " CMT_SLOTS, "tma_retiring > 75",
	    "Issue slots used by uops that retired.", NULL),
};
static const pki_td_event cmt_events[] = {
	{"CPU_CLK_UNHALTED.CORE", INTEL(0x00, 0x02), false},
	{"TOPDOWN_FE_BOUND.ALL_P", INTEL(0x71, 0x00), false},
	{"TOPDOWN_BAD_SPECULATION.ALL_P", INTEL(0x73, 0x00), false},
	{"TOPDOWN_BE_BOUND.ALL_P", INTEL(0x74, 0x00), false},
	{"TOPDOWN_RETIRING.ALL_P", INTEL(0x72, 0x00), false},
	ECORE_L2_EVENTS,
};
const pki_td_table pki_td_crestmont = PKI_TD_TABLE(cmt_rows, cmt_events);

/* ---- Intel Skymont (Lunar Lake / Arrow Lake cpu_atom): width 8 ----------- */

/* Level 1 as perf's lnl-metrics.json cpu_atom rows: frontend and retiring
 * from TOPDOWN_FE_BOUND.ALL and TOPDOWN_RETIRING.ALL, bad speculation and
 * backend from the _P forms. The kernel (intel_skt_event_constraints, "perf/
 * x86: Add Lunar Lake and Arrow Lake support") places 0x0073 (TOPDOWN_BAD_
 * SPECULATION.ALL) on fixed counter 4, 0x019c (TOPDOWN_FE_BOUND.ALL) on 5 and
 * 0x02c2 (TOPDOWN_RETIRING.ALL) on 6, the architectural perfmon v6 TopDown
 * counters; perfmon's files write those three as pseudo umasks 0x05-0x07 of
 * event 0, which no counter counts, so the table keeps the kernel's codes.
 * TOPDOWN_BE_BOUND.ALL_P is 0xa4/0x02 (generic counters). */
#define SKT_SLOTS "( 8 * CPU_CLK_UNHALTED.CORE )"
static const pk_metric_def skt_rows[] = {
	ROW("tma_frontend_bound", "100 * TOPDOWN_FE_BOUND.ALL / " SKT_SLOTS,
	    "tma_frontend_bound > 20", "Issue slots not delivered by the frontend.", NULL),
	ECORE_L2_FE(SKT_SLOTS),
	ROW("tma_bad_speculation", "100 * TOPDOWN_BAD_SPECULATION.ALL_P / " SKT_SLOTS,
	    "tma_bad_speculation > 15", "Issue slots wasted by incorrect speculation.", NULL),
	ECORE_L2_BAD(SKT_SLOTS),
	ROW("tma_backend_bound", "100 * TOPDOWN_BE_BOUND.ALL_P / " SKT_SLOTS,
	    "tma_backend_bound > 10", "Issue slots not consumed because of backend stalls.", NULL),
	ECORE_L2_BE(SKT_SLOTS),
	ROW("tma_retiring", "100 * TOPDOWN_RETIRING.ALL / " SKT_SLOTS, "tma_retiring > 75",
	    "Issue slots used by uops that retired.", NULL),
};
static const pki_td_event skt_events[] = {
	{"CPU_CLK_UNHALTED.CORE", INTEL(0x00, 0x02), false},
	{"TOPDOWN_FE_BOUND.ALL", INTEL(0x9c, 0x01), false},         /* fixed counter 5 */
	{"TOPDOWN_BAD_SPECULATION.ALL_P", INTEL(0x73, 0x00), false}, /* fixed counter 4 */
	{"TOPDOWN_BE_BOUND.ALL_P", INTEL(0xa4, 0x02), false},
	{"TOPDOWN_RETIRING.ALL", INTEL(0xc2, 0x02), false},         /* fixed counter 6 */
	ECORE_L2_EVENTS,
};
const pki_td_table pki_td_skymont = PKI_TD_TABLE(skt_rows, skt_events);

/* ---- Intel Lion Cove (Lunar Lake / Arrow Lake cpu_core): width 8 --------- */

/* Golden Cove's PERF_METRICS form without the INT_MISC.UOP_DROPPING terms
 * (perf's lnl-metrics.json cpu_core rows: `topdown-X / (sum) + 0 * slots`);
 * slots joins the group as the metric events' leader (topdown.c). */
#define PM_SUM                                                                              \
	"( PERF_METRICS.FRONTEND_BOUND + PERF_METRICS.BAD_SPECULATION + "                  \
	"PERF_METRICS.RETIRING + PERF_METRICS.BACKEND_BOUND )"
#define PM(x) "( PERF_METRICS." x " / " PM_SUM " )"
static const pk_metric_def lnc_rows[] = {
	ROW("tma_frontend_bound", "100 * " PM("FRONTEND_BOUND"), "tma_frontend_bound > 15",
	    "Slots where the Frontend undersupplies the Backend.", NULL),
	ROW("tma_fetch_latency", "100 * " PM("FETCH_LATENCY"),
	    "tma_fetch_latency > 10 & tma_frontend_bound > 15",
	    "Slots the CPU was stalled by Frontend latency.", "tma_frontend_bound"),
	ROW("tma_fetch_bandwidth",
	    "100 * max( 0 , " PM("FRONTEND_BOUND") " - " PM("FETCH_LATENCY") " )",
	    "tma_fetch_bandwidth > 20", "Slots the CPU was stalled by Frontend bandwidth.",
	    "tma_frontend_bound"),
	ROW("tma_bad_speculation",
	    "100 * max( 1 - ( " PM("FRONTEND_BOUND") " + " PM("BACKEND_BOUND") " + "
	    PM("RETIRING") " ) , 0 )", "tma_bad_speculation > 15",
	    "Slots wasted by incorrect speculation.", NULL),
	ROW("tma_branch_mispredicts", "100 * " PM("BRANCH_MISPREDICTS"),
	    "tma_branch_mispredicts > 10 & tma_bad_speculation > 15",
	    "Slots wasted by branch mispredictions.", "tma_bad_speculation"),
	ROW("tma_machine_clears", "max( 0 , tma_bad_speculation - tma_branch_mispredicts )",
	    "tma_machine_clears > 10 & tma_bad_speculation > 15",
	    "Slots wasted by machine clears.", "tma_bad_speculation"),
	ROW("tma_backend_bound", "100 * " PM("BACKEND_BOUND"), "tma_backend_bound > 20",
	    "Slots where the Backend could not accept new uops.", NULL),
	ROW("tma_memory_bound", "100 * " PM("MEMORY_BOUND"),
	    "tma_memory_bound > 20 & tma_backend_bound > 20",
	    "Slots where the memory subsystem was a bottleneck.", "tma_backend_bound"),
	ROW("tma_core_bound", "max( 0 , tma_backend_bound - tma_memory_bound )",
	    "tma_core_bound > 10 & tma_backend_bound > 20",
	    "Slots where core non-memory issues were a bottleneck.", "tma_backend_bound"),
	ROW("tma_retiring", "100 * " PM("RETIRING"),
	    "tma_retiring > 70 | tma_heavy_operations > 10",
	    "Slots used by uops that eventually retired.", NULL),
	ROW("tma_light_operations", "max( 0 , tma_retiring - tma_heavy_operations )",
	    "tma_light_operations > 60",
	    "Slots retiring light-weight operations (one uop).", "tma_retiring"),
	ROW("tma_heavy_operations", "100 * " PM("HEAVY_OPERATIONS"), "tma_heavy_operations > 10",
	    "Slots retiring heavy-weight operations (two or more uops, microcode).",
	    "tma_retiring"),
};
static const pki_td_event lnc_events[] = {
	{"TOPDOWN.SLOTS:perf_metrics", 0x0400, true},
	{"PERF_METRICS.RETIRING", 0x8000, true},
	{"PERF_METRICS.BAD_SPECULATION", 0x8100, true},
	{"PERF_METRICS.FRONTEND_BOUND", 0x8200, true},
	{"PERF_METRICS.BACKEND_BOUND", 0x8300, true},
	{"PERF_METRICS.HEAVY_OPERATIONS", 0x8400, true},
	{"PERF_METRICS.BRANCH_MISPREDICTS", 0x8500, true},
	{"PERF_METRICS.FETCH_LATENCY", 0x8600, true},
	{"PERF_METRICS.MEMORY_BOUND", 0x8700, true},
};
const pki_td_table pki_td_lion_cove = PKI_TD_TABLE(lnc_rows, lnc_events);

/* ---- AMD Zen 4 (width 6) and Zen 5 (width 8): PipelineL1/L2 -------------- */

/* One table per width: the formulas of perf's pipeline.json, the dispatch
 * slots width x ls_not_halted_cyc; smt_contention is a Level 1 bucket of its
 * own (slots given to the other thread). */
#define ZEN_L1(W, FE_LAT)                                                                  \
	ROW("tma_frontend_bound",                                                          \
	    "100 * d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend, " W                \
	    " * ls_not_halted_cyc)", NULL,                                                  \
	    "Dispatch slots unused because the frontend did not supply ops.", NULL),        \
	ROW("tma_frontend_bound_latency",                                                  \
	    "100 * d_ratio(" W " * " FE_LAT ", " W " * ls_not_halted_cyc)", NULL,            \
	    "Unused slots from a frontend latency bottleneck (cycles with no op).",         \
	    "tma_frontend_bound"),                                                          \
	ROW("tma_frontend_bound_bandwidth",                                                \
	    "100 * d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend - " W " * " FE_LAT   \
	    ", " W " * ls_not_halted_cyc)", NULL,                                           \
	    "Unused slots from a frontend bandwidth bottleneck.", "tma_frontend_bound"),   \
	ROW("tma_bad_speculation",                                                         \
	    "100 * d_ratio(de_src_op_disp.all - ex_ret_ops, " W " * ls_not_halted_cyc)",     \
	    NULL, "Dispatched ops that did not retire.", NULL)
#define ZEN_REST(W, RESYNC)                                                                \
	ROW("tma_bad_speculation_mispredicts",                                             \
	    "100 * d_ratio(de_src_op_disp.all - ex_ret_ops, " W " * ls_not_halted_cyc) * "   \
	    "d_ratio(ex_ret_brn_misp, ex_ret_brn_misp + " RESYNC ")", NULL,                  \
	    "Dispatched ops flushed by branch mispredicts.", "tma_bad_speculation"),        \
	ROW("tma_bad_speculation_pipeline_restarts",                                       \
	    "100 * d_ratio(de_src_op_disp.all - ex_ret_ops, " W " * ls_not_halted_cyc) * "   \
	    "d_ratio(" RESYNC ", ex_ret_brn_misp + " RESYNC ")", NULL,                       \
	    "Dispatched ops flushed by pipeline restarts (resyncs).", "tma_bad_speculation"), \
	ROW("tma_backend_bound",                                                           \
	    "100 * d_ratio(de_no_dispatch_per_slot.backend_stalls, " W " * ls_not_halted_cyc)", \
	    NULL, "Dispatch slots unused because of backend stalls.", NULL),                \
	ROW("tma_backend_bound_memory",                                                    \
	    "tma_backend_bound * d_ratio(ex_no_retire.load_not_complete, "                  \
	    "ex_no_retire.not_complete)", NULL,                                             \
	    "Unused slots from stalls in the memory subsystem.", "tma_backend_bound"),     \
	ROW("tma_backend_bound_cpu",                                                       \
	    "tma_backend_bound * ( 1 - d_ratio(ex_no_retire.load_not_complete, "            \
	    "ex_no_retire.not_complete) )", NULL,                                           \
	    "Unused slots from stalls not related to memory.", "tma_backend_bound"),        \
	ROW("tma_smt_contention",                                                          \
	    "100 * d_ratio(de_no_dispatch_per_slot.smt_contention, " W " * ls_not_halted_cyc)", \
	    NULL, "Dispatch slots unused because the other SMT thread was selected (not a "  \
	    "bottleneck of this thread).", NULL),                                            \
	ROW("tma_retiring", "100 * d_ratio(ex_ret_ops, " W " * ls_not_halted_cyc)", NULL,     \
	    "Dispatch slots used by ops that retired.", NULL),                              \
	ROW("tma_retiring_fastpath",                                                       \
	    "tma_retiring * ( 1 - d_ratio(ex_ret_ucode_ops, ex_ret_ops) )", NULL,           \
	    "Slots used by fastpath ops that retired.", "tma_retiring"),                    \
	ROW("tma_retiring_microcode", "tma_retiring * d_ratio(ex_ret_ucode_ops, ex_ret_ops)", \
	    NULL, "Slots used by microcode ops that retired.", "tma_retiring")

static const pk_metric_def zen4_rows[] = {
	ZEN_L1("6", "de_no_dispatch_per_slot.no_ops_from_frontend:c6"),
	ZEN_REST("6", "resyncs_or_nc_redirects"),
};
#define ZEN_EVENTS                                                                          \
	{"ls_not_halted_cyc", AMD(0x076, 0, 0), false},                                     \
	{"de_no_dispatch_per_slot.no_ops_from_frontend", AMD(0x1a0, 0x01, 0), false},       \
	{"de_no_dispatch_per_slot.backend_stalls", AMD(0x1a0, 0x1e, 0), false},             \
	{"de_no_dispatch_per_slot.smt_contention", AMD(0x1a0, 0x60, 0), false},             \
	{"de_src_op_disp.all", AMD(0x0aa, 0x07, 0), false},                                  \
	{"ex_ret_ops", AMD(0x0c1, 0, 0), false},                                             \
	{"ex_ret_brn_misp", AMD(0x0c3, 0, 0), false},                                        \
	{"ex_no_retire.load_not_complete", AMD(0x0d6, 0xa2, 0), false},                      \
	{"ex_no_retire.not_complete", AMD(0x0d6, 0x02, 0), false},                           \
	{"ex_ret_ucode_ops", AMD(0x1c2, 0, 0), false}
static const pki_td_event zen4_events[] = {
	ZEN_EVENTS,
	{"de_no_dispatch_per_slot.no_ops_from_frontend:c6", AMD(0x1a0, 0x01, 6), false},
	{"resyncs_or_nc_redirects", AMD(0x096, 0, 0), false},
};
const pki_td_table pki_td_zen4 = PKI_TD_TABLE(zen4_rows, zen4_events);

static const pk_metric_def zen5_rows[] = {
	ZEN_L1("8", "de_no_dispatch_per_slot.no_ops_from_frontend:c8"),
	ZEN_REST("8", "bp_redirects.resync"),
};
static const pki_td_event zen5_events[] = {
	ZEN_EVENTS,
	{"de_no_dispatch_per_slot.no_ops_from_frontend:c8", AMD(0x1a0, 0x01, 8), false},
	{"bp_redirects.resync", AMD(0x09f, 0x01, 0), false},
};
const pki_td_table pki_td_zen5 = PKI_TD_TABLE(zen5_rows, zen5_events);

/* ---- Arm: slot events (SBSA form, Neoverse N2/V2 errata form), N1 -------- */

#define ARM_S "( #slots * CPU_CYCLES )"
#define ARM_EVENTS                                                                          \
	{"CPU_CYCLES", 0x11, false}, {"OP_RETIRED", 0x3a, false}, {"OP_SPEC", 0x3b, false},  \
	{"STALL_SLOT_BACKEND", 0x3d, false}, {"STALL_SLOT_FRONTEND", 0x3e, false},           \
	{"STALL_SLOT", 0x3f, false}
/* The four Level 1 rows: FE and ST the frontend and all stalled slots, S
 * the slots of the frontend and bad speculation rows (the Neoverse V1
 * file writes 8 there, sbsa.json's #slots), FEX, BSX, BEX the terms the
 * Neoverse files add (mispredicted branches moved from frontend and
 * backend to bad speculation; sbsa.json: none). */
#define ARM_ROWS(FE, ST, S, FEX, BSX, BEX)                                                  \
	ROW("tma_frontend_bound", "100 * ( " FE " / " S FEX " )", NULL,                     \
	    "Slots stalled because the frontend delivered no operation.", NULL),            \
	ROW("tma_bad_speculation",                                                         \
	    "100 * ( ( 1 - OP_RETIRED / OP_SPEC ) * ( 1 - " ST " / " S " )" BSX " )", NULL, \
	    "Slots used by operations that did not retire.", NULL),                          \
	ROW("tma_backend_bound", "100 * ( STALL_SLOT_BACKEND / " ARM_S BEX " )", NULL,      \
	    "Slots stalled because the backend could not accept operations.", NULL),       \
	ROW("tma_retiring", "100 * ( OP_RETIRED / OP_SPEC ) * ( 1 - " ST " / " ARM_S " )",   \
	    NULL, "Slots used by operations that retired.", NULL)

static const pk_metric_def sbsa_rows[] = {
	ARM_ROWS("STALL_SLOT_FRONTEND", "STALL_SLOT", ARM_S, "", "", ""),
};
static const pki_td_event arm_events[] = {ARM_EVENTS};
const pki_td_table pki_td_arm_sbsa = PKI_TD_TABLE(sbsa_rows, arm_events);
/* The Neoverse files' forms name BR_MIS_PRED too. */
static const pki_td_event arm_bmp_events[] = {ARM_EVENTS, {"BR_MIS_PRED", 0x10, false}};

/* perf's neoverse-v1 metrics: frontend_bound and bad_speculation over 8
 * slots a cycle, four slots per mispredicted branch moved from the
 * frontend to bad speculation; backend_bound and retiring sbsa.json's. */
static const pk_metric_def v1_rows[] = {
	ARM_ROWS("STALL_SLOT_FRONTEND", "STALL_SLOT", "( CPU_CYCLES * 8 )",
		 " - BR_MIS_PRED * 4 / CPU_CYCLES", " + BR_MIS_PRED * 4 / CPU_CYCLES", ""),
};
const pki_td_table pki_td_neoverse_v1 = PKI_TD_TABLE(v1_rows, arm_bmp_events);

/* perf's neoverse-n2-v2 form: on N2 before r0p3 STALL_SLOT_FRONTEND and
 * STALL_SLOT count one slot too many per cycle (an erratum; the files'
 * strcmp_cpuid_str(0x410fd493) branch, from the CPU's #midr); per
 * mispredicted branch one slot moved from the frontend and three from the
 * backend to bad speculation. */
#define N2_ERRATUM "#midr_ge_0x410fd490 > #midr_ge_0x410fd493"
static const pk_metric_def n2v2_rows[] = {
	ARM_ROWS("( STALL_SLOT_FRONTEND - CPU_CYCLES if " N2_ERRATUM " else STALL_SLOT_FRONTEND )",
		 "( STALL_SLOT - CPU_CYCLES if " N2_ERRATUM " else STALL_SLOT )", ARM_S,
		 " - BR_MIS_PRED / CPU_CYCLES", " + BR_MIS_PRED * 4 / CPU_CYCLES",
		 " - BR_MIS_PRED * 3 / CPU_CYCLES"),
};
const pki_td_table pki_td_neoverse_n2_v2 = PKI_TD_TABLE(n2v2_rows, arm_bmp_events);

/* N1 has no slot events: Arm's stage 1 is cycle accounting. */
static const pk_metric_def n1_rows[] = {
	ROW("tma_frontend_stalled_cycles", "100 * STALL_FRONTEND / CPU_CYCLES", NULL,
	    "Cycles with no operation issued because the frontend had none (cycle "
	    "accounting, not slots).", NULL),
	ROW("tma_backend_stalled_cycles", "100 * STALL_BACKEND / CPU_CYCLES", NULL,
	    "Cycles with no operation issued because the backend could not take one "
	    "(cycle accounting, not slots).", NULL),
};
static const pki_td_event n1_events[] = {
	{"CPU_CYCLES", 0x11, false},
	{"STALL_FRONTEND", 0x23, false},
	{"STALL_BACKEND", 0x24, false},
};
const pki_td_table pki_td_neoverse_n1 = PKI_TD_TABLE(n1_rows, n1_events);
