/* The events of a phase (lib/model/events.c and its tables): for every
 * TopDown method family and phases with typical and extreme shares (0 and
 * 1, SMT on and off), each event's count is rate x cycles, and the REAL
 * formulas evaluated over those counts give the phase's shares:
 *  - Intel: every TmaL1/TmaL2 metric of the perfmon metric files
 *    (tests/data/perfmon/{SKL,ICL,SPR,ADL}/metrics), event names resolved to
 *    raw configs through the perfmon events files (EventCode, UMask,
 *    CounterMask, EdgeDetect, Invert, AnyThread), PERF_METRICS.* to the
 *    pseudo events;
 *  - Gracemont, Zen 4, Neoverse: their formulas (topdown.md 2c-2e) as
 *    expression strings, names mapped to the vendors' encodings here.
 * Formulas are parsed and evaluated by the library's expression engine.
 * A formula that divides 0 by 0 (a ratio split of an empty parent) is NaN;
 * that is accepted only where the share it computes is 0, and counted.
 * Also: unknown events are -ENOENT naming the event, node rates sum to the
 * width, every table row evaluates, every Intel row's name has its row's
 * encoding in perfmon, and PERF_METRICS fed with the node rates reads back
 * the shares within one 8-bit unit. */
#include "helpers.h"

#include <errno.h>
#include <jansson.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/metrics.h>

#include "events/pfm.h"
#include "model/events.h"
#include "model/model.h"

/* Shares: the eight PKI_TMA_* nodes, then the Level 2 siblings; NONE: a
 * bucket the scenario does not have (share 0). */
enum { RET, BAD, FE, BE, HEAVY, BRM, FLAT, MEM, LIGHT, CLEARS, FBW, CORE, NONE };

/* Level 1 and the PERF_METRICS Level 2 children (siblings are the rest). */
static const double phases[][PKI_TMA_NR] = {
	{0.30, 0.10, 0.25, 0.35, 0.05, 0.08, 0.15, 0.20},
	{0.50, 0.20, 0.10, 0.20, 0.00, 0.20, 0.00, 0.20},
	{0.07, 0.41, 0.33, 0.19, 0.07, 0.01, 0.30, 0.02},
	{1, 0, 0, 0, 0.4, 0, 0, 0},
	{0, 0, 1, 0, 0, 0, 1, 0},
	{0, 0, 0, 1, 0, 0, 0, 0},
	{0, 1, 0, 0, 0, 0.5, 0, 0},
};
#define NR_PHASES (sizeof(phases) / sizeof(phases[0]))

/* The scenario's optional rates (pki_rate order) and ref_ghz. */
static const double rates[PKI_RATE_NR] = {0.2, 0.03, 0.01, 0.04};
#define REF_GHZ 2.1

static pki_phase make_phase(size_t i)
{
	pki_phase p = {.ms = 100, .ghz = 2.5};
	memcpy(p.tma, phases[i], sizeof(p.tma));
	memcpy(p.rate, rates, sizeof(p.rate));
	p.rates_given = (1u << PKI_RATE_NR) - 1;
	return p;
}

static double share(const pki_phase *p, int node)
{
	if (node == NONE)
		return 0;
	return node < PKI_TMA_NR ? p->tma[node] : p->tma[node - 8] - p->tma[node - 4];
}

static pki_core core_of(const char *cpuid, const char *pmu, bool smt)
{
	pk_cpuid id;
	assert_int_equal(pk_cpuid_parse(cpuid, &id, NULL), 0);
	pk_error err;
	pki_core c = {pki_counters_find(&id, pmu, &err), smt, REF_GHZ};
	if (!c.row)
		fail_msg("%s %s: %s", cpuid, pmu, err.msg);
	return c;
}

static double count_of(const pki_core *c, uint32_t kind, uint64_t config, const pki_phase *ph)
{
	double rate;
	pk_error err;
	pki_event_key key = {kind, config};
	if (pki_event_rate(c, &key, ph, &rate, &err))
		fail_msg("%s: %s: %s", c->row->core, err.where, err.msg);
	return rate * (double)pki_phase_cycles(ph);
}

static int nr_checked, nr_undefined;

static void check(const char *what, double value, double want)
{
	if (isnan(value) && want == 0) {
		nr_undefined++;
		return;
	}
	if (!(fabs(value - want) <= 1e-9))
		fail_msg("%s: %.12g, want %.12g", what, value, want);
	nr_checked++;
}

/* ---- resolving names ------------------------------------------------------ */

typedef struct named {
	const char *name;
	uint64_t config;
} named;

/* Where a formula's names come from: a perfmon events file (Intel), or a
 * table of names; aliases of one perfmon metric; the core and phase. */
typedef struct ctx {
	json_t *events;
	const named *names;
	size_t nr_names;
	json_t *metric;
	const pki_core *core;
	const pki_phase *ph;
} ctx;

static uint64_t num(json_t *e, const char *key)
{
	const char *s = json_string_value(json_object_get(e, key));
	return s ? strtoull(s, NULL, 0) : 0;
}

/* An Intel core PMU (Skylake's cpu) for lib/events' encodings of the
 * fixed-counter events (group setup). */
static pk_pmus *intel_pmus;

static int load_intel_pmu(void **state)
{
	(void)state;
	pk_error err;
	intel_pmus = pk_pmus_load(pk_test_sysfs("skylake"), &err);
	return intel_pmus ? 0 : -1;
}

static int put_intel_pmu(void **state)
{
	(void)state;
	pk_pmus_put(intel_pmus);
	return 0;
}

/* The cpu PMU's sysfs format: event 0-7, umask 8-15, edge 18, any 21,
 * inv 23, cmask 24-31. The fixed-counter events as perf opens them (their
 * general-purpose codes, lib/events), not Intel's pseudo codes. */
static bool intel_config(json_t *events, const char *name, uint64_t *config)
{
	static const char *const pm[] = {"RETIRING", "BAD_SPECULATION", "FRONTEND_BOUND",
					 "BACKEND_BOUND", "HEAVY_OPERATIONS", "BRANCH_MISPREDICTS",
					 "FETCH_LATENCY", "MEMORY_BOUND"};
	char base[128];
	snprintf(base, sizeof(base), "%s", name);
	char *suffix = strchr(base, ':');
	if (suffix)
		*suffix++ = '\0';
	for (size_t i = 0; i < 8; i++)
		if (!strncmp(base, "PERF_METRICS.", 13) && !strcmp(base + 13, pm[i]))
			return *config = 0x8000 + (i << 8), true;
	uint64_t fixed[PK_NR_CONFIGS];
	if (pki_pfm_fixed_encode(pk_pmus_find(intel_pmus, "cpu"), base, fixed))
		return *config = fixed[0], true;
	size_t k;
	json_t *e;
	json_array_foreach(json_object_get(events, "Events"), k, e) {
		if (strcmp(json_string_value(json_object_get(e, "EventName")), base))
			continue;
		uint64_t cmask = num(e, "CounterMask");
		if (suffix && suffix[0] == 'c')
			cmask = strtoull(suffix + 1, NULL, 10);
		else if (suffix && strcmp(suffix, "perf_metrics"))
			fail_msg("%s: unknown suffix", name);
		*config = num(e, "EventCode") | num(e, "UMask") << 8 | num(e, "EdgeDetect") << 18 |
			  num(e, "AnyThread") << 21 | num(e, "Invert") << 23 | cmask << 24;
		return true;
	}
	return false;
}

/* A perfmon alias ("a") to its name, through the metric's Events and
 * Constants lists; other references stay as written. */
static const char *unalias(json_t *metric, const char *ref)
{
	const char *lists[] = {"Events", "Constants"};
	for (size_t l = 0; metric && l < 2; l++) {
		size_t k;
		json_t *x;
		json_array_foreach(json_object_get(metric, lists[l]), k, x)
			if (!strcmp(json_string_value(json_object_get(x, "Alias")), ref))
				return json_string_value(json_object_get(x, "Name"));
	}
	return ref;
}

static double ref_value(const ctx *x, const char *ref)
{
	const char *name = unalias(x->metric, ref);
	if (!strcmp(name, "#smt_on") || !strcmp(name, "HYPERTHREADING_ON"))
		return x->core->smt;
	if (!strcmp(name, "THREADS_PER_CORE"))
		return x->core->smt ? 2 : 1;
	if (!strcmp(name, "#slots"))
		return x->core->row->width;
	uint64_t config;
	if (x->events && intel_config(x->events, name, &config))
		return count_of(x->core, PERF_TYPE_RAW, config, x->ph);
	for (size_t i = 0; i < x->nr_names; i++)
		if (!strcmp(x->names[i].name, name))
			return count_of(x->core, PERF_TYPE_RAW, x->names[i].config, x->ph);
	fail_msg("no event '%s'", name);
	return NAN;
}

static double eval(const ctx *x, const char *text)
{
	pk_error err;
	pk_expr *e = pk_expr_parse(text, &err);
	if (!e)
		fail_msg("%s: %s at %ld", text, err.msg, err.pos);
	double vals[64];
	assert_true(pk_expr_nr_refs(e) <= 64);
	for (size_t i = 0; i < pk_expr_nr_refs(e); i++)
		vals[i] = ref_value(x, pk_expr_ref(e, i));
	double v = pk_expr_eval(e, vals);
	pk_expr_free(e);
	return v;
}

static json_t *load(const char *rel)
{
	json_error_t je;
	json_t *j = json_load_file(pk_test_fixture(rel), 0, &je);
	if (!j)
		fail_msg("%s: %s", rel, je.text);
	return j;
}

/* ---- Intel: the perfmon metric files ------------------------------------------ */

typedef struct intel_cpu {
	const char *events, *metrics, *cpuid, *pmu;
} intel_cpu;

static const intel_cpu intel[] = {
	{"perfmon/SKL/events/skylake_core.json", "perfmon/SKL/metrics/skylake_metrics.json",
	 "GenuineIntel-6-5E-3", "cpu"},
	{"perfmon/ICL/events/icelake_core.json", "perfmon/ICL/metrics/icelake_metrics.json",
	 "GenuineIntel-6-7E-5", "cpu"},
	{"perfmon/SPR/events/sapphirerapids_core.json",
	 "perfmon/SPR/metrics/sapphirerapids_metrics.json", "GenuineIntel-6-8F-8", "cpu"},
	{"perfmon/ADL/events/alderlake_goldencove_core.json",
	 "perfmon/ADL/metrics/alderlake_metrics_goldencove_core.json", "GenuineIntel-6-97-2",
	 "cpu_core"},
};

static const struct {
	const char *metric;
	int node;
} tma_nodes[] = {
	{"Retiring", RET},           {"Bad_Speculation", BAD},   {"Frontend_Bound", FE},
	{"Backend_Bound", BE},       {"Heavy_Operations", HEAVY}, {"Branch_Mispredicts", BRM},
	{"Fetch_Latency", FLAT},     {"Memory_Bound", MEM},      {"Light_Operations", LIGHT},
	{"Machine_Clears", CLEARS},  {"Fetch_Bandwidth", FBW},   {"Core_Bound", CORE},
};

static int tma_node(json_t *m)
{
	const char *name = json_string_value(json_object_get(m, "MetricName"));
	const char *groups = json_string_value(json_object_get(m, "MetricGroup"));
	if (!groups || (!strstr(groups, "TmaL1") && !strstr(groups, "TmaL2")))
		return -1;
	for (size_t i = 0; i < sizeof(tma_nodes) / sizeof(tma_nodes[0]); i++)
		if (!strcmp(tma_nodes[i].metric, name))
			return tma_nodes[i].node;
	return -1;
}

/* Every TmaL1/TmaL2 node of one CPU's file, SMT off and on, every phase. */
static void check_intel_cpu(const intel_cpu *cpu)
{
	json_t *events = load(cpu->events), *metrics = load(cpu->metrics);
	int before = nr_checked + nr_undefined;
	for (int smt = 0; smt < 2; smt++) {
		pki_core core = core_of(cpu->cpuid, cpu->pmu, smt);
		for (size_t p = 0; p < NR_PHASES; p++) {
			pki_phase ph = make_phase(p);
			ctx x = {events, NULL, 0, NULL, &core, &ph};
			size_t i, nodes = 0;
			json_t *m;
			json_array_foreach(json_object_get(metrics, "Metrics"), i, m) {
				int node = tma_node(m);
				if (node < 0)
					continue;
				x.metric = m;
				char what[160];
				snprintf(what, sizeof(what), "%s smt=%d phase %zu %s", cpu->metrics,
					 smt, p, json_string_value(json_object_get(m, "MetricName")));
				const char *f = json_string_value(json_object_get(m, "Formula"));
				check(what, eval(&x, f) / 100, share(&ph, node));
				nodes++;
			}
			assert_int_equal(nodes, 12);
		}
	}
	assert_int_equal(nr_checked + nr_undefined - before, 2 * NR_PHASES * 12);
	json_decref(events);
	json_decref(metrics);
}

static void test_intel_perfmon(void **state)
{
	(void)state;
	nr_checked = nr_undefined = 0;
	for (size_t i = 0; i < sizeof(intel) / sizeof(intel[0]); i++)
		check_intel_cpu(&intel[i]);
	print_message("Intel: %d formula values equal the shares, %d undefined (0/0 with share 0)\n",
		      nr_checked, nr_undefined);
	/* the typical phases define every node: few undefined */
	assert_true(nr_undefined < nr_checked / 4);
}

/* ---- Gracemont, Zen 4, Neoverse: formulas as strings ----------------------------- */

typedef struct formula {
	const char *name;
	int node;
	const char *text;
} formula;

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* Each formula, SMT off and on, every phase, on one core. */
static void check_formulas(const char *cpuid, const char *pmu, const ctx *base,
			   const formula *f, size_t nr)
{
	for (int smt = 0; smt < 2; smt++) {
		pki_core core = core_of(cpuid, pmu, smt);
		for (size_t p = 0; p < NR_PHASES; p++) {
			pki_phase ph = make_phase(p);
			ctx x = *base;
			x.core = &core;
			x.ph = &ph;
			for (size_t i = 0; i < nr; i++) {
				char what[160];
				snprintf(what, sizeof(what), "%s smt=%d phase %zu %s", core.row->core,
					 smt, p, f[i].name);
				check(what, eval(&x, f[i].text), share(&ph, f[i].node));
			}
		}
	}
}

#define GRT_SLOTS "(5 * CPU_CLK_UNHALTED.CORE)"
/* E-core_TMA_Metrics.csv, column GRT (topdown.md 2c); Bad_Speculation
 * also as TOPDOWN_BAD_SPECULATION.ALL / SLOTS (the Crestmont form). */
static const formula gracemont[] = {
	{"Frontend_Bound", FE, "TOPDOWN_FE_BOUND.ALL / " GRT_SLOTS},
	{"IFetch_Latency", FLAT, "TOPDOWN_FE_BOUND.FRONTEND_LATENCY / " GRT_SLOTS},
	{"IFetch_Bandwidth", FBW, "TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH / " GRT_SLOTS},
	{"Bad_Speculation", BAD,
	 "(" GRT_SLOTS " - (TOPDOWN_FE_BOUND.ALL + TOPDOWN_BE_BOUND.ALL + TOPDOWN_RETIRING.ALL))"
	 " / " GRT_SLOTS},
	{"Bad_Speculation.ALL", BAD, "TOPDOWN_BAD_SPECULATION.ALL / " GRT_SLOTS},
	{"Branch_Mispredicts", BRM, "TOPDOWN_BAD_SPECULATION.MISPREDICT / " GRT_SLOTS},
	{"Machine_Clears", CLEARS, "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS / " GRT_SLOTS},
	{"Backend_Bound", BE, "TOPDOWN_BE_BOUND.ALL / " GRT_SLOTS},
	{"Core_Bound", CORE, "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS / " GRT_SLOTS},
	{"Resource_Bound", MEM,
	 "TOPDOWN_BE_BOUND.ALL / " GRT_SLOTS " - TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS / " GRT_SLOTS},
	{"Retiring", RET, "TOPDOWN_RETIRING.ALL / " GRT_SLOTS},
};

static void test_gracemont(void **state)
{
	(void)state;
	nr_checked = nr_undefined = 0;
	json_t *events = load("perfmon/ADL/events/alderlake_gracemont_core.json");
	ctx base = {events, NULL, 0, NULL, NULL, NULL};
	check_formulas("GenuineIntel-6-97-2", "cpu_atom", &base, gracemont, NR(gracemont));
	check_formulas("GenuineIntel-6-BE-0", "cpu", &base, gracemont, NR(gracemont));
	json_decref(events);
	print_message("Gracemont: %d formula values, %d undefined\n", nr_checked, nr_undefined);
	assert_int_equal(nr_checked + nr_undefined, 2 * 2 * NR_PHASES * NR(gracemont));
}

/* AMD's PERF_CTL layout: event select bits 0-7 in config 0-7, bits 8-11 in
 * config 32-35; umask 8-15; cmask 24-31 (topdown.md 2d). */
static uint64_t amd(uint64_t ev, uint64_t umask, uint64_t cmask)
{
	return (ev & 0xff) | (ev >> 8) << 32 | umask << 8 | cmask << 24;
}

#define ZEN_SLOTS "(6 * ls_not_halted_cyc)"
/* perf's amdzen4 pipeline.json, total_dispatch_slots written out. */
static const formula zen4[] = {
	{"frontend_bound", FE, "d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend, " ZEN_SLOTS ")"},
	{"bad_speculation", BAD, "d_ratio(de_src_op_disp.all - ex_ret_ops, " ZEN_SLOTS ")"},
	{"backend_bound", BE, "d_ratio(de_no_dispatch_per_slot.backend_stalls, " ZEN_SLOTS ")"},
	{"retiring", RET, "d_ratio(ex_ret_ops, " ZEN_SLOTS ")"},
	/* the fifth Level 1 bucket: a scenario's four shares leave it nothing */
	{"smt_contention", NONE, "d_ratio(de_no_dispatch_per_slot.smt_contention, " ZEN_SLOTS ")"},
	{"frontend_bound_latency", FLAT,
	 "d_ratio((6 * cpu@de_no_dispatch_per_slot.no_ops_from_frontend\\,cmask\\=0x6@), " ZEN_SLOTS
	 ")"},
	{"frontend_bound_bandwidth", FBW,
	 "d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend - (6 * "
	 "cpu@de_no_dispatch_per_slot.no_ops_from_frontend\\,cmask\\=0x6@), " ZEN_SLOTS ")"},
	{"bad_speculation_mispredicts", BRM,
	 "d_ratio(d_ratio(de_src_op_disp.all - ex_ret_ops, " ZEN_SLOTS ") * ex_ret_brn_misp, "
	 "ex_ret_brn_misp + resyncs_or_nc_redirects)"},
	{"bad_speculation_pipeline_restarts", CLEARS,
	 "d_ratio(d_ratio(de_src_op_disp.all - ex_ret_ops, " ZEN_SLOTS ") * resyncs_or_nc_redirects, "
	 "ex_ret_brn_misp + resyncs_or_nc_redirects)"},
	{"backend_bound_memory", MEM,
	 "d_ratio(de_no_dispatch_per_slot.backend_stalls, " ZEN_SLOTS ") * "
	 "d_ratio(ex_no_retire.load_not_complete, ex_no_retire.not_complete)"},
	{"backend_bound_cpu", CORE,
	 "d_ratio(de_no_dispatch_per_slot.backend_stalls, " ZEN_SLOTS ") * "
	 "(1 - d_ratio(ex_no_retire.load_not_complete, ex_no_retire.not_complete))"},
	{"retiring_fastpath", LIGHT,
	 "d_ratio(ex_ret_ops, " ZEN_SLOTS ") * (1 - d_ratio(ex_ret_ucode_ops, ex_ret_ops))"},
	{"retiring_microcode", HEAVY,
	 "d_ratio(ex_ret_ops, " ZEN_SLOTS ") * d_ratio(ex_ret_ucode_ops, ex_ret_ops)"},
};

static void test_zen4(void **state)
{
	(void)state;
	const named names[] = {
		{"ls_not_halted_cyc", amd(0x76, 0, 0)},
		{"ex_ret_ops", amd(0xc1, 0, 0)},
		{"ex_ret_ucode_ops", amd(0x1c2, 0, 0)},
		{"de_src_op_disp.all", amd(0xaa, 0x07, 0)},
		{"de_no_dispatch_per_slot.no_ops_from_frontend", amd(0x1a0, 0x01, 0)},
		{"cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/", amd(0x1a0, 0x01, 6)},
		{"de_no_dispatch_per_slot.backend_stalls", amd(0x1a0, 0x1e, 0)},
		{"de_no_dispatch_per_slot.smt_contention", amd(0x1a0, 0x60, 0)},
		{"ex_ret_brn_misp", amd(0xc3, 0, 0)},
		{"resyncs_or_nc_redirects", amd(0x96, 0, 0)},
		{"ex_no_retire.not_complete", amd(0xd6, 0x02, 0)},
		{"ex_no_retire.load_not_complete", amd(0xd6, 0xa2, 0)},
	};
	nr_checked = nr_undefined = 0;
	ctx base = {NULL, names, NR(names), NULL, NULL, NULL};
	check_formulas("AuthenticAMD-25-11-1", "cpu", &base, zen4, NR(zen4));
	print_message("Zen 4: %d formula values, %d undefined\n", nr_checked, nr_undefined);
	assert_int_equal(nr_undefined, 0); /* d_ratio: never 0/0 */
	assert_int_equal(nr_checked, 2 * NR_PHASES * NR(zen4));
}

/* Arm's event numbers (topdown.md 2e). */
static const named arm_names[] = {
	{"CPU_CYCLES", 0x11},     {"INST_RETIRED", 0x08},       {"BR_MIS_PRED", 0x10},
	{"STALL_FRONTEND", 0x23}, {"STALL_BACKEND", 0x24},      {"OP_RETIRED", 0x3a},
	{"OP_SPEC", 0x3b},        {"STALL_SLOT_BACKEND", 0x3d}, {"STALL_SLOT_FRONTEND", 0x3e},
	{"STALL_SLOT", 0x3f},
};

#define ARM_S "(#slots * CPU_CYCLES)"
/* perf's sbsa.json (V1, V2). */
static const formula sbsa[] = {
	{"frontend_bound", FE, "STALL_SLOT_FRONTEND / " ARM_S},
	{"backend_bound", BE, "STALL_SLOT_BACKEND / " ARM_S},
	{"bad_speculation", BAD, "(1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / " ARM_S ")"},
	{"retiring", RET, "(OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / " ARM_S ")"},
};
/* perf's neoverse-n2-v2 form when #slots is 5 (N2's erratum). */
static const formula sbsa_n2[] = {
	{"frontend_bound", FE, "(STALL_SLOT_FRONTEND - CPU_CYCLES) / " ARM_S},
	{"backend_bound", BE, "STALL_SLOT_BACKEND / " ARM_S},
	{"bad_speculation", BAD,
	 "(1 - OP_RETIRED / OP_SPEC) * (1 - (STALL_SLOT - CPU_CYCLES) / " ARM_S ")"},
	{"retiring", RET, "(OP_RETIRED / OP_SPEC) * (1 - (STALL_SLOT - CPU_CYCLES) / " ARM_S ")"},
};
/* Arm topdown-tool, per part. */
#define RATIO "OP_RETIRED / OP_SPEC"
static const formula tool_v1[] = {
	{"FE", FE, "STALL_SLOT_FRONTEND / (8 * CPU_CYCLES) - 4 * BR_MIS_PRED / CPU_CYCLES"},
	{"BE", BE, "STALL_SLOT_BACKEND / (8 * CPU_CYCLES)"},
	{"Bad", BAD, "(1 - " RATIO ") * (1 - STALL_SLOT / (8 * CPU_CYCLES)) + "
		     "4 * BR_MIS_PRED / CPU_CYCLES"},
	{"Ret", RET, "(1 - STALL_SLOT / (8 * CPU_CYCLES)) * " RATIO},
};
static const formula tool_n2[] = {
	{"FE", FE, "(STALL_SLOT_FRONTEND - CPU_CYCLES) / (5 * CPU_CYCLES) - BR_MIS_PRED / CPU_CYCLES"},
	{"BE", BE, "STALL_SLOT_BACKEND / (5 * CPU_CYCLES) - 3 * BR_MIS_PRED / CPU_CYCLES"},
	{"Bad", BAD, "(1 - " RATIO ") * (1 - (STALL_SLOT - CPU_CYCLES) / (5 * CPU_CYCLES)) + "
		     "4 * BR_MIS_PRED / CPU_CYCLES"},
	{"Ret", RET, "(1 - (STALL_SLOT - CPU_CYCLES) / (5 * CPU_CYCLES)) * " RATIO},
};
static const formula tool_v2[] = {
	{"FE", FE, "STALL_SLOT_FRONTEND / (8 * CPU_CYCLES) - BR_MIS_PRED / CPU_CYCLES"},
	{"BE", BE, "STALL_SLOT_BACKEND / (8 * CPU_CYCLES) - 3 * BR_MIS_PRED / CPU_CYCLES"},
	{"Bad", BAD, "(1 - " RATIO ") * (1 - STALL_SLOT / (8 * CPU_CYCLES)) + "
		     "4 * BR_MIS_PRED / CPU_CYCLES"},
	{"Ret", RET, "(1 - STALL_SLOT / (8 * CPU_CYCLES)) * " RATIO},
};
/* N1's stage 1, cycle accounting. */
static const formula tool_n1[] = {
	{"frontend_stalled_cycles", FE, "STALL_FRONTEND / CPU_CYCLES"},
	{"backend_stalled_cycles", BE, "STALL_BACKEND / CPU_CYCLES"},
};

#define N1 "0x00000000413fd0c1"
#define V1 "0x00000000411fd401"
#define N2 "0x00000000410fd490"
#define V2 "0x00000000410fd4f0"
#define ARM_PMU "armv8_pmuv3_0"

static void test_neoverse(void **state)
{
	(void)state;
	nr_checked = nr_undefined = 0;
	ctx base = {NULL, arm_names, NR(arm_names), NULL, NULL, NULL};
	check_formulas(N1, ARM_PMU, &base, tool_n1, NR(tool_n1));
	check_formulas(V1, ARM_PMU, &base, sbsa, NR(sbsa));
	check_formulas(V1, ARM_PMU, &base, tool_v1, NR(tool_v1));
	check_formulas(N2, ARM_PMU, &base, sbsa_n2, NR(sbsa_n2));
	check_formulas(N2, ARM_PMU, &base, tool_n2, NR(tool_n2));
	check_formulas(V2, ARM_PMU, &base, sbsa, NR(sbsa));
	check_formulas(V2, ARM_PMU, &base, tool_v2, NR(tool_v2));
	print_message("Neoverse: %d formula values, %d undefined\n", nr_checked, nr_undefined);
	assert_int_equal(nr_checked + nr_undefined, 2 * NR_PHASES * (2 + 6 * 4));
	/* N2's erratum is modeled: the plain sbsa form reads one slot per cycle
	 * too many of frontend stalls */
	pki_core n2 = core_of(N2, ARM_PMU, false);
	pki_phase ph = make_phase(0);
	ctx x = {NULL, arm_names, NR(arm_names), NULL, &n2, &ph};
	check("N2 plain sbsa frontend_bound", eval(&x, sbsa[0].text), share(&ph, FE) + 1.0 / 5);
	/* N1 has no slot events */
	pki_core n1 = core_of(N1, ARM_PMU, false);
	double rate;
	pk_error err;
	pki_event_key key = {PERF_TYPE_RAW, 0x3f};
	assert_int_equal(pki_event_rate(&n1, &key, &ph, &rate, &err), -ENOENT);
}

/* ---- the table itself ---------------------------------------------------------- */

static double rate_of(const pki_core *c, uint32_t kind, uint64_t config, const pki_phase *ph)
{
	return count_of(c, kind, config, ph) / (double)pki_phase_cycles(ph);
}

static const char *const all_cores[][2] = {
	{"GenuineIntel-6-5E-3", "cpu"},      {"GenuineIntel-6-7E-5", "cpu"},
	{"GenuineIntel-6-8F-8", "cpu"},      {"GenuineIntel-6-97-2", "cpu_core"},
	{"GenuineIntel-6-97-2", "cpu_atom"}, {"AuthenticAMD-25-11-1", "cpu"},
	{N1, ARM_PMU},                       {V1, ARM_PMU},
	{N2, ARM_PMU},                       {V2, ARM_PMU},
};

/* Every row of every family gives a finite count >= 0 on every phase; node
 * rates sum to the width over Level 1; the symbolic events agree with the
 * family's own events. */
static void test_rows_and_node_rates(void **state)
{
	(void)state;
	size_t nr_fam, nr_rows = 0;
	const pki_event_family *fam = pki_event_families(&nr_fam);
	for (size_t c = 0; c < NR(all_cores); c++) {
		pki_core core = core_of(all_cores[c][0], all_cores[c][1], c % 2);
		const pki_event_family *f = pki_event_family_find(core.row);
		assert_non_null(f);
		assert_true(f >= fam && f < fam + nr_fam);
		for (size_t p = 0; p < NR_PHASES; p++) {
			pki_phase ph = make_phase(p);
			double node[PKI_TMA_NR], sum = 0;
			pki_phase_node_rates(&core, &ph, node);
			for (int i = 0; i < PKI_TMA_NR; i++) {
				assert_true(node[i] >= 0);
				if (i < PKI_TMA_L1_NR)
					sum += node[i];
				else
					assert_true(node[i] <= node[i - PKI_TMA_L1_NR]);
				check("node rate", node[i], core.row->width * share(&ph, i));
			}
			check("Level 1 node rates", sum, core.row->width);
			for (size_t t = 0; t < PKI_FAMILY_TABLES && f->tables[t]; t++)
				for (size_t r = 0; r < f->tables[t]->nr; r++, nr_rows++) {
					double rate = -1;
					pk_error err;
					const pki_event_row *row = &f->tables[t]->rows[r];
					if (pki_event_row_rate(row, &core, &ph, &rate, &err))
						fail_msg("%s: %s", row->name, err.msg);
					assert_true(rate >= 0 && isfinite(rate));
				}
			check("cycles", rate_of(&core, PERF_TYPE_HARDWARE, 0, &ph), 1);
			check("instructions", rate_of(&core, PERF_TYPE_HARDWARE, 1, &ph),
			      core.row->width * share(&ph, LIGHT));
		}
	}
	print_message("%zu row evaluations\n", nr_rows);
}

/* The raw rows of a table named as perfmon events (not the kernel's
 * lowercase aliases topdown-*) have those events' encodings. */
static size_t match_perfmon(json_t *events, const char *file, const pki_event_table *t)
{
	size_t matched = 0;
	for (size_t r = 0; r < t->nr; r++) {
		const pki_event_row *row = &t->rows[r];
		uint64_t config;
		if (row->kind != PERF_TYPE_RAW || (row->name[0] >= 'a' && row->name[0] <= 'z'))
			continue;
		if (!intel_config(events, row->name, &config))
			fail_msg("%s: no %s", file, row->name);
		if (config != row->config)
			fail_msg("%s: %s is %#llx, the row says %#llx", file, row->name,
				 (unsigned long long)config, (unsigned long long)row->config);
		matched++;
	}
	return matched;
}

/* Every Intel row named as a perfmon event has that event's encoding. */
static void test_intel_rows_match_perfmon(void **state)
{
	(void)state;
	static const char *const files[][3] = {
		{"GenuineIntel-6-5E-3", "cpu", "perfmon/SKL/events/skylake_core.json"},
		{"GenuineIntel-6-7E-5", "cpu", "perfmon/ICL/events/icelake_core.json"},
		{"GenuineIntel-6-8F-8", "cpu", "perfmon/SPR/events/sapphirerapids_core.json"},
		{"GenuineIntel-6-97-2", "cpu_core", "perfmon/ADL/events/alderlake_goldencove_core.json"},
		{"GenuineIntel-6-97-2", "cpu_atom", "perfmon/ADL/events/alderlake_gracemont_core.json"},
	};
	size_t matched = 0;
	for (size_t i = 0; i < NR(files); i++) {
		json_t *events = load(files[i][2]);
		pki_core core = core_of(files[i][0], files[i][1], false);
		const pki_event_family *f = pki_event_family_find(core.row);
		for (size_t t = 0; t < PKI_FAMILY_TABLES && f->tables[t]; t++)
			matched += match_perfmon(events, files[i][2], f->tables[t]);
		json_decref(events);
	}
	assert_true(matched > 60);
}

static void expect_enoent(const pki_core *c, uint32_t kind, uint64_t config, const char *name)
{
	pki_phase ph = make_phase(0);
	pki_event_key key = {kind, config};
	double rate = -1;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pki_event_rate(c, &key, &ph, &rate, &err), -ENOENT);
	assert_true(rate == -1);
	if (!strstr(err.msg, name) || !strstr(err.msg, c->row->core))
		fail_msg("'%s' does not name %s and the core", err.msg, name);
}

/* What a phase does not determine is -ENOENT, naming the event. */
static void test_unknown_events(void **state)
{
	(void)state;
	pki_core skl = core_of("GenuineIntel-6-5E-3", "cpu", true);
	pki_core icl = core_of("GenuineIntel-6-7E-5", "cpu", false);
	pki_core n1 = core_of(N1, ARM_PMU, false);
	expect_enoent(&skl, PERF_TYPE_HARDWARE, 99, "hardware event 0x63");
	expect_enoent(&skl, PERF_TYPE_RAW, 0x412e, "raw event 0x412e"); /* LLC misses */
	expect_enoent(&skl, PERF_TYPE_RAW, 0x0400, "raw event 0x400"); /* no slots */
	expect_enoent(&icl, PERF_TYPE_RAW, 0x8400, "raw event 0x8400"); /* Level 1 only */
	expect_enoent(&icl, PERF_TYPE_RAW, 0x20003c, "raw event 0x20003c"); /* no AnyThread */
	expect_enoent(&n1, PERF_TYPE_RAW, 0x3a, "raw event 0x3a"); /* no slot events */
	expect_enoent(&n1, PERF_TYPE_HW_CACHE, 0x10000, "event type 3 config 0x10000");
}

/* ref-cycles at the nominal frequency whatever the phase's ghz (Intel
 * only: AMD and Arm have none, nor bus-cycles); bus-cycles per cycle;
 * branches and cache events per instruction, on every core. */
static void test_scenario_rates(void **state)
{
	(void)state;
	for (size_t c = 0; c < NR(all_cores); c++) {
		pki_core core = core_of(all_cores[c][0], all_cores[c][1], c % 2);
		bool is_intel = core.row->vendor == PK_VENDOR_INTEL;
		for (size_t p = 0; p < NR_PHASES; p++) {
			pki_phase ph = make_phase(p);
			ph.ghz = 1.0 + (double)p / 2;
			double cycles = (double)pki_phase_cycles(&ph);
			double insns = rate_of(&core, PERF_TYPE_HARDWARE, 1, &ph);
			check("branches", rate_of(&core, PERF_TYPE_HARDWARE, 4, &ph), insns * 0.2);
			check("cache-references", rate_of(&core, PERF_TYPE_HARDWARE, 2, &ph),
			      insns * 0.03);
			check("cache-misses", rate_of(&core, PERF_TYPE_HARDWARE, 3, &ph),
			      insns * 0.01);
			/* misses <= branches where the scenario would accept the
			 * rate (scenario.c's check) */
			if (share(&ph, BRM) / PKI_CLEAR_COST <= share(&ph, LIGHT) * 0.2)
				assert_true(count_of(&core, PERF_TYPE_HARDWARE, 5, &ph) <=
					    count_of(&core, PERF_TYPE_HARDWARE, 4, &ph));
			if (!is_intel) {
				expect_enoent(&core, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
					      "'ref-cycles'");
				expect_enoent(&core, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES,
					      "'bus-cycles'");
				continue;
			}
			/* exact: ms x ref_ghz x 1e6 */
			assert_true(fabs(count_of(&core, PERF_TYPE_HARDWARE,
						  PERF_COUNT_HW_REF_CPU_CYCLES, &ph) -
					 ph.ms * REF_GHZ * 1e6) < 1e-3);
			check("REF_TSC", rate_of(&core, PERF_TYPE_RAW, 0x0300, &ph), REF_GHZ / ph.ghz);
			/* 0x013c: REF_XCLK before Golden Cove, REF_TSC_P from it */
			bool xclk = !strcmp(core.row->core, "Skylake") ||
				    !strcmp(core.row->core, "Sunny Cove");
			double bus = xclk ? cycles * 0.04 : ph.ms * REF_GHZ * 1e6;
			assert_true(fabs(count_of(&core, PERF_TYPE_HARDWARE, 6, &ph) - bus) < 1e-3);
			assert_true(fabs(count_of(&core, PERF_TYPE_RAW, 0x013c, &ph) - bus) < 1e-3);
		}
	}
}

/* Without the scenario's value the event is -ENOENT naming the key to add. */
static void expect_not_given(const pki_core *c, const pki_phase *ph, uint64_t hw,
			     const char *key)
{
	pki_event_key ev = {PERF_TYPE_HARDWARE, hw};
	double rate = -1;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pki_event_rate(c, &ev, ph, &rate, &err), -ENOENT);
	assert_true(rate == -1);
	if (!strstr(err.msg, key) || !strstr(err.msg, "add "))
		fail_msg("'%s' does not say to add %s", err.msg, key);
}

static void test_rates_not_given(void **state)
{
	(void)state;
	pki_core spr = core_of("GenuineIntel-6-8F-8", "cpu", false);
	pki_phase ph = make_phase(0);
	spr.ref_ghz = 0;
	expect_not_given(&spr, &ph, PERF_COUNT_HW_REF_CPU_CYCLES, "\"ref_ghz\"");
	ph.rates_given = 0;
	expect_not_given(&spr, &ph, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "\"branches\"");
	expect_not_given(&spr, &ph, PERF_COUNT_HW_CACHE_REFERENCES, "\"cache_references\"");
	expect_not_given(&spr, &ph, PERF_COUNT_HW_CACHE_MISSES, "\"cache_misses\"");
	pki_core skl = core_of("GenuineIntel-6-5E-3", "cpu", false);
	expect_not_given(&skl, &ph, PERF_COUNT_HW_BUS_CYCLES, "\"bus_cycles\"");
	expect_not_given(&spr, &ph, PERF_COUNT_HW_BUS_CYCLES, "\"ref_ghz\""); /* REF_TSC_P */
	/* one rate given: that one counts, the others stay refused */
	ph.rates_given = 1u << PKI_RATE_CACHE_MISSES;
	assert_true(count_of(&spr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, &ph) > 0);
	expect_not_given(&spr, &ph, PERF_COUNT_HW_CACHE_REFERENCES, "\"cache_references\"");
}

/* AnyThread on Skylake: both threads of the core, the sibling identical;
 * the topdown-* sysfs aliases with their scale (2 with SMT) give the
 * Skylake formulas' slots and recovery bubbles. */
static void test_any_thread(void **state)
{
	(void)state;
	pki_phase ph = make_phase(0);
	for (int smt = 0; smt < 2; smt++) {
		pki_core c = core_of("GenuineIntel-6-5E-3", "cpu", smt);
		double threads = smt ? 2 : 1, scale = smt ? 2 : 4;
		check("THREAD_ANY", rate_of(&c, PERF_TYPE_RAW, 0x20003c, &ph), threads);
		check("topdown-total-slots x scale", scale * rate_of(&c, PERF_TYPE_RAW, 0x20003c, &ph),
		      4);
		check("topdown-recovery-bubbles x scale",
		      scale * rate_of(&c, PERF_TYPE_RAW, 0x120030d, &ph), 4 * share(&ph, BAD) / 2);
	}
}

/* Intel's fixed-counter pseudo codes count what the kernel's constraint
 * tables give them: 0x0100 instructions on fixed counter 0 from Ice Lake on
 * (not Skylake, not Gracemont); 0x0200 no cycles anywhere (no such event). */
static void test_fixed_pseudo_codes(void **state)
{
	(void)state;
	pki_phase ph = make_phase(0);
	static const struct { const char *cpuid, *pmu; bool has_0x100; } cores[] = {
		{"GenuineIntel-6-5E-3", "cpu", false},  {"GenuineIntel-6-7E-5", "cpu", true},
		{"GenuineIntel-6-8F-8", "cpu", true},   {"GenuineIntel-6-97-2", "cpu_core", true},
		{"GenuineIntel-6-97-2", "cpu_atom", false},
	};
	for (size_t i = 0; i < sizeof(cores) / sizeof(cores[0]); i++) {
		pki_core c = core_of(cores[i].cpuid, cores[i].pmu, false);
		double rate;
		pk_error err;
		pki_event_key cyc = {PERF_TYPE_RAW, 0x0200}, ins = {PERF_TYPE_RAW, 0x0100};
		assert_int_equal(pki_event_rate(&c, &cyc, &ph, &rate, &err), -ENOENT);
		int rc = pki_event_rate(&c, &ins, &ph, &rate, &err);
		if (!cores[i].has_0x100) {
			assert_int_equal(rc, -ENOENT);
			continue;
		}
		assert_int_equal(rc, 0);
		check(cores[i].pmu, rate, rate_of(&c, PERF_TYPE_RAW, 0xc0, &ph));
	}
}

/* PERF_METRICS fed with a phase's node rates reads back its shares within
 * one 8-bit unit (the register's bound, docs/model.md). */
static void test_perf_metrics_register(void **state)
{
	(void)state;
	pki_core spr = core_of("GenuineIntel-6-8F-8", "cpu", false);
	for (size_t p = 0; p < NR_PHASES; p++) {
		pki_phase ph = make_phase(p);
		double node[PKI_TMA_NR];
		uint64_t slots[PKI_TMA_NR], count[1 + PKI_TMA_NR] = {0};
		pki_phase_node_rates(&spr, &ph, node);
		for (int i = 0; i < PKI_TMA_NR; i++)
			slots[i] = (uint64_t)llround(node[i] * (double)pki_phase_cycles(&ph));
		pki_pm_regs r = {0};
		pki_pm_run(&r, slots);
		pki_pm_read(&r, count);
		check("slots", (double)count[0], 6.0 * (double)pki_phase_cycles(&ph));
		for (int i = 0; i < PKI_TMA_NR; i++)
			assert_true(fabs((double)count[1 + i] / (double)count[0] - share(&ph, i)) <
				    1.0 / 255);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel_perfmon),
		cmocka_unit_test(test_gracemont),
		cmocka_unit_test(test_zen4),
		cmocka_unit_test(test_neoverse),
		cmocka_unit_test(test_rows_and_node_rates),
		cmocka_unit_test(test_intel_rows_match_perfmon),
		cmocka_unit_test(test_unknown_events),
		cmocka_unit_test(test_scenario_rates),
		cmocka_unit_test(test_rates_not_given),
		cmocka_unit_test(test_any_thread),
		cmocka_unit_test(test_fixed_pseudo_codes),
		cmocka_unit_test(test_perf_metrics_register),
	};
	return cmocka_run_group_tests(tests, load_intel_pmu, put_intel_pmu);
}
