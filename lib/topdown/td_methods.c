/* Which TopDown method each core PMU of a CPU model takes: one table of
 * data (vendor, family, model ranges or Arm part numbers, core PMU name) to
 * methods (a formula table, its width, whether it needs PERF_METRICS).
 * Facts: CPU models as in lib/model/counters.c and perf's mapfile.csv
 * (docs/topdown.md, "Methods").
 *
 * Invariants: the first matching row wins, so specific parts come before a
 * vendor's generic row; a row's pmu is a name or a prefix ending in '*'. */
#include <string.h>

#include "core/util.h"
#include "topdown/td_internal.h"

static const pki_td_method skl = {
	"intel-pre-icl",
	"Intel before Ice Lake: generic counters, width 4, _ANY forms with SMT "
	"(Intel TMA 5.01, skylake_metrics.json TopdownL1/L2)",
	NULL, &pki_td_intel[PKI_TD_SKL], 2, 4, false};
static const pki_td_method icl = {
	"intel-perf-metrics-l1",
	"Intel PERF_METRICS, Level 1 from the register, Level 2 from events "
	"(Intel TMA 5.1, icelake_metrics.json TopdownL1/L2)",
	NULL, &pki_td_intel[PKI_TD_ICL], 2, 5, true};
static const pki_td_method spr = {
	"intel-perf-metrics-l2",
	"Intel PERF_METRICS, Levels 1 and 2 from the register "
	"(Intel TMA 5.2, sapphirerapids_metrics.json TopdownL1/L2)",
	NULL, &pki_td_intel[PKI_TD_SPR], 2, 6, true};
static const pki_td_method adl_glc = {
	"intel-perf-metrics-l2",
	"Intel PERF_METRICS (Golden Cove P-core), Levels 1 and 2 from the register "
	"(Intel TMA 5.1, alderlake_metrics_goldencove_core.json TopdownL1/L2)",
	NULL, &pki_td_intel[PKI_TD_ADL_GLC], 2, 6, true};
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
	"metrics, N2's erratum corrected)",
	NULL, &pki_td_neoverse_n2_v2, 1, 0, false};
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

static const int skylake[] = {0x4E, 0x4E, 0x5E, 0x5E, 0x55, 0x55, 0x8E, 0x8E, 0x9E, 0x9E,
			      0xA5, 0xA6, 0};
static const int icelake[] = {0x6A, 0x6A, 0x6C, 0x6C, 0x7D, 0x7E, 0x8C, 0x8D, 0xA7, 0xA7, 0};
static const int sapphire[] = {0x8F, 0x8F, 0xCF, 0xCF, 0};
static const int hybrid[] = {0x97, 0x97, 0x9A, 0x9A, 0xB7, 0xB7, 0xBA, 0xBA, 0xBF, 0xBF, 0};
static const int adl_n[] = {0xBE, 0xBE, 0};
static const int sierra[] = {0xAF, 0xAF, 0};
/* Lunar Lake (BD), Arrow Lake (C6): the kernel's INTEL_LUNARLAKE_M and
 * INTEL_ARROWLAKE rows (lunarlake_hybrid: Lion Cove + Skymont) */
static const int lunar_arrow[] = {0xBD, 0xBD, 0xC6, 0xC6, 0};
static const int zen4_models[] = {0x10, 0x1F, 0x60, 0x7F, 0xA0, 0xAF, 0};
static const int part_n1[] = {0xd0c, 0xd0c, 0};
static const int part_n2_v2[] = {0xd49, 0xd49, 0xd4f, 0xd4f, 0};

static const pki_td_match matches[] = {
	{PK_VENDOR_INTEL, 6, skylake, "cpu", &skl},
	{PK_VENDOR_INTEL, 6, icelake, "cpu", &icl},
	{PK_VENDOR_INTEL, 6, sapphire, "cpu", &spr},
	{PK_VENDOR_INTEL, 6, hybrid, "cpu_core", &adl_glc},
	{PK_VENDOR_INTEL, 6, hybrid, "cpu_atom", &grt},
	{PK_VENDOR_INTEL, 6, hybrid, "cpu", &adl_glc}, /* E-cores off */
	{PK_VENDOR_INTEL, 6, adl_n, "cpu", &grt},
	{PK_VENDOR_INTEL, 6, sierra, "cpu", &cmt},
	{PK_VENDOR_INTEL, 6, lunar_arrow, "cpu_core", &lnc},
	{PK_VENDOR_INTEL, 6, lunar_arrow, "cpu_atom", &skt},
	{PK_VENDOR_AMD, 25, zen4_models, "cpu", &zen4},
	{PK_VENDOR_AMD, 26, NULL, "cpu", &zen5},
	{PK_VENDOR_ARM, 0x41, part_n1, "armv8_*", &n1},
	{PK_VENDOR_ARM, 0x41, part_n2_v2, "armv8_*", &n2v2},
	/* any other Arm core PMU that publishes caps/slots (checked by the
	 * engine for width 0): V1 and the generic SBSA form */
	{PK_VENDOR_ARM, -1, NULL, "armv8_*", &sbsa},
};

const pki_td_match *pki_td_matches(size_t *nr)
{
	*nr = PK_ARRAY_SIZE(matches);
	return matches;
}

const pki_td_method *pki_td_find(const pk_cpuid *id, const char *pmu)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(matches); i++) {
		const pki_td_match *m = &matches[i];
		if (m->vendor == id->vendor && (m->family < 0 || m->family == id->family) &&
		    pki_in_ranges(m->models, id->model) && pki_name_matches(m->pmu, pmu))
			return m->method;
	}
	return NULL;
}

int pki_td_row_level(const pk_metric_def *row)
{
	return row->parent ? 2 : 1;
}
