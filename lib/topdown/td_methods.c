/* Which TopDown method each core PMU of a CPU model takes: the methods (a
 * formula table, its width, whether it needs PERF_METRICS) per core, the
 * core being the one table of CPU models' (lib/pmu/cpu_models.c, shared
 * with the PMU model's counters and libpfm4's names; docs/topdown.md,
 * "Methods").
 *
 * Invariants: every method is in methods[]; an Arm core PMU without a
 * method of its own takes the generic SBSA one. */
#include <string.h>

#include "core/util.h"
#include "pmu/cpu_models.h"
#include <pmukit/topdown.h>

#include "topdown/td_internal.h"

static const pki_td_method skl = {
	"intel-pre-icl",
	"Intel before Ice Lake: generic counters, width 4, _ANY forms with SMT "
	"(Intel TMA 5.01, skylake_metrics.json, Levels 1-6)",
	NULL, &pki_td_intel[PKI_TD_SKL], PK_TOPDOWN_MAX_LEVEL, 4, false};
static const pki_td_method icl = {
	"intel-perf-metrics-l1",
	"Intel PERF_METRICS, Level 1 from the register, Level 2 from events "
	"(Intel TMA 5.1, icelake_metrics.json, Levels 1-6)",
	NULL, &pki_td_intel[PKI_TD_ICL], PK_TOPDOWN_MAX_LEVEL, 5, true};
static const pki_td_method spr = {
	"intel-perf-metrics-l2",
	"Intel PERF_METRICS, Levels 1 and 2 from the register "
	"(Intel TMA 5.2, sapphirerapids_metrics.json, Levels 1-6)",
	NULL, &pki_td_intel[PKI_TD_SPR], PK_TOPDOWN_MAX_LEVEL, 6, true};
static const pki_td_method adl_glc = {
	"intel-perf-metrics-l2",
	"Intel PERF_METRICS (Golden Cove P-core), Levels 1 and 2 from the register "
	"(Intel TMA 5.1, alderlake_metrics_goldencove_core.json, Levels 1-6)",
	NULL, &pki_td_intel[PKI_TD_ADL_GLC], PK_TOPDOWN_MAX_LEVEL, 6, true};
static const pki_td_method grt = {
	"intel-ecore",
	"Intel E-core (Gracemont), TOPDOWN_*.ALL events, width 5 "
	"(E-core_TMA_Metrics.csv, GRT)",
	NULL, &pki_td_gracemont, 2, 5, false};
static const pki_td_method cmt = {
	"intel-ecore",
	"Intel E-core (Crestmont), TOPDOWN_*.ALL_P events, width 6 "
	"(perf srf-metrics.json TopdownL1/L2)",
	NULL, &pki_td_crestmont, 2, 6, false};
static const pki_td_method skt = {
	"intel-ecore-fixed",
	"Intel E-core (Skymont), TopDown on fixed counters 4-6 (perfmon v6), width 8 "
	"(perf lnl-metrics.json cpu_atom TopdownL1/L2)",
	NULL, &pki_td_skymont, 2, 8, false};
static const pki_td_method lnc = {
	"intel-perf-metrics-l2",
	"Intel PERF_METRICS (Lion Cove P-core), Levels 1 and 2 from the register, no "
	"UOP_DROPPING term (perf lnl-metrics.json cpu_core TopdownL1/L2)",
	NULL, &pki_td_lion_cove, 2, 8, true};
static const pki_td_method zen4 = {
	"amd-pipeline",
	"AMD Zen 4 pipeline utilization, width 6 (perf amdzen4 PipelineL1/L2); "
	"smt_contention: slots the other thread took",
	NULL, &pki_td_zen4, 2, 6, false};
static const pki_td_method zen5 = {
	"amd-pipeline",
	"AMD Zen 5 pipeline utilization, width 8 (perf amdzen5 PipelineL1/L2); "
	"smt_contention: slots the other thread took",
	NULL, &pki_td_zen5, 2, 8, false};
static const pki_td_method n2v2 = {
	"arm-slots",
	"Arm Neoverse slot events, #slots from caps/slots (perf neoverse-n2-v2 "
	"metrics, N2's erratum corrected, mispredicts moved to bad speculation)",
	NULL, &pki_td_neoverse_n2_v2, 1, 0, false};
static const pki_td_method v1 = {
	"arm-slots",
	"Arm Neoverse V1 slot events (perf neoverse-v1 metrics: 8 slots a cycle, "
	"mispredicts moved to bad speculation; backend and retiring sbsa.json's)",
	NULL, &pki_td_neoverse_v1, 1, 0, false};
static const pki_td_method sbsa = {
	"arm-slots",
	"Arm slot events, #slots from caps/slots (perf sbsa.json TopdownL1)",
	NULL, &pki_td_arm_sbsa, 1, 0, false};
static const pki_td_method n1 = {
	"arm-cycle-accounting",
	"Arm Neoverse N1 cycle accounting (Arm topdown-tool stage 1)",
	"cycle accounting: Neoverse N1 has no slot events, so these are shares of "
	"cycles, not of slots, and do not sum to 100%",
	&pki_td_neoverse_n1, 1, 5, false};

/* The method of each core (lib/pmu/cpu_models.c says which core a core
 * PMU of a CPU is); cores without one take none. */
static const pki_td_method *const by_uarch[PKI_UARCH_NR] = {
	[PKI_UARCH_SKYLAKE] = &skl,         [PKI_UARCH_SUNNY_COVE] = &icl,
	[PKI_UARCH_GOLDEN_COVE_SRV] = &spr, [PKI_UARCH_GOLDEN_COVE] = &adl_glc,
	[PKI_UARCH_GRACEMONT] = &grt,       [PKI_UARCH_CRESTMONT] = &cmt,
	[PKI_UARCH_LION_COVE] = &lnc,       [PKI_UARCH_SKYMONT] = &skt,
	[PKI_UARCH_ZEN4] = &zen4,           [PKI_UARCH_ZEN5] = &zen5,
	[PKI_UARCH_NEOVERSE_N1] = &n1,      [PKI_UARCH_NEOVERSE_N2] = &n2v2,
	[PKI_UARCH_NEOVERSE_V2] = &n2v2,    [PKI_UARCH_NEOVERSE_V1] = &v1,
};

static const pki_td_method *const methods[] = {&skl, &icl,  &spr, &adl_glc, &grt,  &cmt, &skt,
					       &lnc, &zen4, &zen5, &n2v2,   &v1, &sbsa, &n1};

const pki_td_method *const *pki_td_methods(size_t *nr)
{
	*nr = PK_ARRAY_SIZE(methods);
	return methods;
}

const pki_td_method *pki_td_find(const pk_cpuid *id, const char *pmu)
{
	const pki_cpu_model *m = pki_cpu_model_find(id, pmu);
	const pki_td_method *td = m ? by_uarch[m->uarch] : NULL;
	/* any other Arm core PMU that publishes caps/slots (checked by the
	 * engine for width 0): the generic SBSA form */
	if (!td && id->vendor == PK_VENDOR_ARM && pmu && pki_name_matches("armv8_*", pmu))
		td = &sbsa;
	return td;
}

int pki_td_row_level(const pk_metric_def *row)
{
	const char *g = row->groups ? strstr(row->groups, "TopdownL") : NULL;
	if (g && g[8] >= '1' && g[8] <= '9')
		return g[8] - '0';
	return row->parent ? 2 : 1;
}
