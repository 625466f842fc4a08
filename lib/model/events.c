/* The events of a phase: one engine over the method families' tables
 * (events_<family>.c). For an event key and a phase, the engine finds the
 * core's family (by pki_counters.core), walks its tables in order, takes the
 * first row with the key's kind and config, and evaluates the row's rate
 * expression (the metric language, include/pmukit/metrics.h) over the
 * phase's variables (events.h). Nothing here knows an event: PMU knowledge
 * is the tables' data.
 *
 * Invariants: the shares the rows see are the phase's, normalized so that
 * Level 1 sums to exactly 1 (Level 2 scaled alike), the same shares
 * pki_phase_node_rates feeds to PERF_METRICS, so every event agrees with
 * the register; an AnyThread form (the family's any_bit set in the key)
 * counts both threads of the core, the sibling modeled as running the same
 * phase: twice the row's rate with SMT on, the row's rate with SMT off;
 * rates are finite and >= 0 (tiny negative rounding is clamped to 0). An
 * event no row knows is -ENOENT: the model never invents a count. */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <pmukit/metrics.h>

#include "core/util.h"
#include "events/names.h"
#include "model/events.h"
#include "pmu/cpuid_internal.h"

/* The symbolic hardware events every family counts (a family's own tables
 * come first and may override them). */
static const pki_event_row hardware[] = {
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles", "1"},
	/* instructions = retired slots minus heavy slots: one slot per light
	 * instruction (Skylake's Heavy_Operations with MACRO_FUSED = 0) */
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions", "width * light_operations"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses",
	 "width * branch_mispredicts / clear_cost"},
	/* the scenario's optional per-instruction rates */
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches",
	 "width * light_operations * branches"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references",
	 "width * light_operations * cache_references"},
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses",
	 "width * light_operations * cache_misses"},
};
const pki_event_table pki_events_hardware = PKI_EVENT_TABLE(hardware);

/* Intel's reference clocks (every Intel family; the kernel's
 * intel_perfmon_event_map, sysfs.md 1.2): ref-cycles is fixed counter 2
 * (CPU_CLK_UNHALTED.REF_TSC, pseudo code 0x0300), counting at the nominal
 * (TSC) frequency while the thread runs. AMD (perf 6.1's Zen map) and Arm
 * have no ref-cycles: no row, so -ENOENT. */
static const pki_event_row intel_ref[] = {
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles", "ref_ghz / ghz"},
	{PERF_TYPE_RAW, PKI_INTEL(0x00, 0x03, 0, 0, 0), "CPU_CLK_UNHALTED.REF_TSC",
	 "ref_ghz / ghz"},
};
const pki_event_table pki_events_intel_ref = PKI_EVENT_TABLE(intel_ref);

/* bus-cycles is 0x013c: on Skylake and Sunny Cove CPU_CLK_UNHALTED.REF_XCLK
 * (the bus/crystal clock: the scenario's bus_cycles per core cycle), on
 * Golden Cove and Gracemont CPU_CLK_UNHALTED.REF_TSC_P (perfmon: the TSC
 * rate, so the same count as ref-cycles). */
static const pki_event_row intel_xclk[] = {
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus-cycles", "bus_cycles"},
	{PERF_TYPE_RAW, PKI_INTEL(0x3c, 0x01, 0, 0, 0), "CPU_CLK_UNHALTED.REF_XCLK",
	 "bus_cycles"},
};
static const pki_event_table intel_xclk_table = PKI_EVENT_TABLE(intel_xclk);
static const pki_event_row intel_tsc_p[] = {
	{PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus-cycles", "ref_ghz / ghz"},
	{PERF_TYPE_RAW, PKI_INTEL(0x3c, 0x01, 0, 0, 0), "CPU_CLK_UNHALTED.REF_TSC_P",
	 "ref_ghz / ghz"},
};
static const pki_event_table intel_tsc_p_table = PKI_EVENT_TABLE(intel_tsc_p);

static const pki_event_family families[] = {
	{"Skylake", PKI_INTEL_ANY,
	 {&pki_events_skylake, &pki_events_intel_core, &pki_events_intel_ref,
	  &intel_xclk_table, &pki_events_hardware}},
	{"Sunny Cove", 0,
	 {&pki_events_sunny_cove, &pki_events_perf_metrics_l1, &pki_events_intel_core,
	  &pki_events_intel_ref, &intel_xclk_table, &pki_events_hardware}},
	{"Golden Cove", 0,
	 {&pki_events_golden_cove, &pki_events_perf_metrics_l1, &pki_events_intel_core,
	  &pki_events_intel_ref, &intel_tsc_p_table, &pki_events_hardware}},
	{"Gracemont", 0,
	 {&pki_events_gracemont, &pki_events_intel_ref, &intel_tsc_p_table, &pki_events_hardware}},
	{"Lion Cove", 0,
	 {&pki_events_golden_cove, &pki_events_perf_metrics_l1, &pki_events_intel_core,
	  &pki_events_intel_ref, &intel_tsc_p_table, &pki_events_hardware}},
	{"Skymont", 0,
	 {&pki_events_skymont, &pki_events_intel_ref, &intel_tsc_p_table, &pki_events_hardware}},
	{"Zen 4", 0, {&pki_events_zen4, &pki_events_hardware}},
	{"Zen 5", 0, {&pki_events_zen5, &pki_events_zen4, &pki_events_hardware}},
	{"Neoverse N1", 0, {&pki_events_neoverse_hw, &pki_events_neoverse, &pki_events_hardware}},
	{"Neoverse V1", 0,
	 {&pki_events_neoverse_hw, &pki_events_neoverse_slots, &pki_events_neoverse,
	  &pki_events_hardware}},
	/* N2's erratum rows first: they override two slot rows */
	{"Neoverse N2", 0,
	 {&pki_events_neoverse_hw, &pki_events_neoverse_n2, &pki_events_neoverse_slots,
	  &pki_events_neoverse, &pki_events_hardware}},
	{"Neoverse V2", 0,
	 {&pki_events_neoverse_hw, &pki_events_neoverse_slots, &pki_events_neoverse,
	  &pki_events_hardware}},
};

const pki_event_family *pki_event_families(size_t *nr)
{
	*nr = PK_ARRAY_SIZE(families);
	return families;
}

const pki_event_family *pki_event_family_find(const pki_counters *row)
{
	for (size_t i = 0; row && i < PK_ARRAY_SIZE(families); i++)
		if (!strcmp(families[i].core, row->core))
			return &families[i];
	return NULL;
}

/* The variables of a rate expression, in this order: the scenario's
 * optional values (ref_ghz, then the phase's rates, pki_rate order) come
 * last, and a row naming one the scenario does not give is refused. */
enum { V_WIDTH, V_SMT, V_CLEAR_COST, V_GHZ, V_SHARES, V_REF_GHZ = V_SHARES + 12, V_RATES,
       V_NR = V_RATES + PKI_RATE_NR };
static const char *const var_names[V_NR] = {
	"width", "smt", "clear_cost", "ghz",
	/* PKI_TMA_* order, then the Level 2 siblings of nodes 4-7 */
	"retiring", "bad_speculation", "frontend_bound", "backend_bound",
	"heavy_operations", "branch_mispredicts", "fetch_latency", "memory_bound",
	"light_operations", "machine_clears", "fetch_bandwidth", "core_bound",
	"ref_ghz", "branches", "cache_references", "cache_misses", "bus_cycles",
};
const char *const pki_rate_names[PKI_RATE_NR] = {"branches", "cache_references", "cache_misses",
						 "bus_cycles"};
/* What to add to the scenario for an optional variable v >= V_REF_GHZ. */
static const char *const var_hints[V_NR - V_REF_GHZ] = {
	"add \"ref_ghz\" (the CPU's nominal, TSC frequency in GHz) at the scenario's top level",
	"add \"rates\": {\"branches\": N} (per instruction) to the phase",
	"add \"rates\": {\"cache_references\": N} (per instruction) to the phase",
	"add \"rates\": {\"cache_misses\": N} (per instruction) to the phase",
	"add \"rates\": {\"bus_cycles\": N} (per core cycle) to the phase",
};

/* The phase's shares, Level 1 normalized to sum 1, Level 2 alike, and the
 * Level 2 siblings (parent - child, never below 0). */
void pki_phase_shares(const pki_phase *ph, double share[12])
{
	double sum = 0;
	for (int i = 0; i < PKI_TMA_L1_NR; i++)
		sum += ph->tma[i];
	for (int i = 0; i < PKI_TMA_NR; i++)
		share[i] = sum > 0 ? ph->tma[i] / sum : 0;
	for (int i = PKI_TMA_L1_NR; i < PKI_TMA_NR; i++) {
		if (share[i] > share[i - PKI_TMA_L1_NR])
			share[i] = share[i - PKI_TMA_L1_NR];
		share[i + PKI_TMA_L1_NR] = share[i - PKI_TMA_L1_NR] - share[i];
	}
}

long pki_tma_key(const char *name)
{
	for (long k = 0; k < 12; k++)
		if (!strcmp(var_names[V_SHARES + k], name))
			return k;
	return -1;
}

double pki_phase_node_given(const pki_phase *ph, const char *node)
{
	for (size_t i = 0; i < ph->nr_deep; i++)
		if (!strcmp(ph->deep[i].name, node))
			return ph->deep[i].share;
	return NAN;
}

void pki_phase_node_rates(const pki_core *core, const pki_phase *ph, double out[PKI_TMA_NR])
{
	double share[12];
	pki_phase_shares(ph, share);
	for (int i = 0; i < PKI_TMA_NR; i++)
		out[i] = core->row->width * share[i];
}

static int row_error(pk_error *err, const pki_event_row *row, const char *why, const char *what)
{
	return pk_err_at(err, -EINVAL, "model event table", row->rate, -1,
			 "row %s (config %#llx): %s%s", row->name, (unsigned long long)row->config,
			 why, what);
}

/* A row needs an optional value the scenario does not give: -ENOENT. */
static int not_given(pk_error *err, const pki_event_row *row, size_t v)
{
	return pk_err_at(err, -ENOENT, "model", row->name, -1,
			 "the PMU model has no count for %s: the scenario gives no %s; %s",
			 row->name, var_names[v], var_hints[v - V_REF_GHZ]);
}

int pki_event_row_rate(const pki_event_row *row, const pki_core *core, const pki_phase *ph,
		       double *rate, pk_error *err)
{
	double vars[V_NR], vals[V_NR];
	vars[V_WIDTH] = core->row->width;
	vars[V_SMT] = core->smt ? 1 : 0;
	vars[V_CLEAR_COST] = PKI_CLEAR_COST;
	vars[V_GHZ] = ph->ghz;
	pki_phase_shares(ph, vars + V_SHARES);
	vars[V_REF_GHZ] = core->ref_ghz > 0 ? core->ref_ghz : NAN;
	for (int i = 0; i < PKI_RATE_NR; i++)
		vars[V_RATES + i] = ph->rates_given & (1u << i) ? ph->rate[i] : NAN;
	pk_error perr;
	pk_expr *e = pk_expr_parse(row->rate, &perr);
	if (!e)
		return row_error(err, row, "", perr.msg);
	int rc = 0;
	size_t nr = pk_expr_nr_refs(e);
	for (size_t i = 0; i < nr && !rc; i++) {
		size_t v = 0;
		while (v < V_NR && strcmp(pk_expr_ref(e, i), var_names[v]))
			v++;
		if (v == V_NR || i >= V_NR)
			rc = row_error(err, row, "unknown name ", pk_expr_ref(e, i));
		else if (isnan(vars[v]))
			rc = not_given(err, row, v);
		else
			vals[i] = vars[v];
	}
	double r = rc ? 0 : pk_expr_eval(e, vals);
	pk_expr_free(e);
	if (rc)
		return rc;
	if (!isfinite(r) || r < -1e-9)
		return row_error(err, row, "rate is not a finite count >= 0", "");
	*rate = r > 0 ? r : 0;
	return 0;
}

/* "hardware event 'cycles'", "raw event 0x1c2" or "event type 3 config
 * 0x10000" for messages. */
static void key_name(const pki_event_key *ev, char *buf, size_t len)
{
	unsigned long long config = ev->config;
	const char *hw = ev->kind == PERF_TYPE_HARDWARE ? pki_hw_canonical_name(config) : NULL;
	if (hw)
		snprintf(buf, len, "hardware event '%s'", hw);
	else if (ev->kind == PERF_TYPE_HARDWARE || ev->kind == PERF_TYPE_RAW)
		snprintf(buf, len, "%s event %#llx",
			 ev->kind == PERF_TYPE_HARDWARE ? "hardware" : "raw", config);
	else
		snprintf(buf, len, "event type %u config %#llx", (unsigned)ev->kind, config);
}

static const pki_event_row *find_row(const pki_event_family *f, const pki_core *core,
				     uint32_t kind, uint64_t config)
{
	for (size_t t = 0; t < PKI_FAMILY_TABLES && f->tables[t]; t++)
		for (size_t i = 0; i < f->tables[t]->nr; i++) {
			if (f->tables[t]->fixed_from &&
			    pki_midr_at_least(core->midr, f->tables[t]->fixed_from))
				break;
			const pki_event_row *r = &f->tables[t]->rows[i];
			if (r->kind == kind && r->config == config)
				return r;
		}
	return NULL;
}

int pki_event_rate(const pki_core *core, const pki_event_key *ev, const pki_phase *ph,
		   double *rate, pk_error *err)
{
	int rc = pki_event_rate_rows(core, ev, ph, rate, err);
	if (rc != -ENOENT || !core->tree)
		return rc;
	pk_error terr;
	if (pki_tree_rate(core, ev, ph, rate, &terr) == 0) {
		pk_error_clear(err);
		return 0;
	}
	return rc;
}

int pki_event_rate_rows(const pki_core *core, const pki_event_key *ev, const pki_phase *ph,
			double *rate, pk_error *err)
{
	char name[64];
	key_name(ev, name, sizeof(name));
	const pki_event_family *f = pki_event_family_find(core->row);
	uint64_t config = ev->config;
	double threads = 1;
	if (f && ev->kind == PERF_TYPE_RAW && f->any_bit && (config & f->any_bit)) {
		config &= ~f->any_bit;
		threads = core->smt ? 2 : 1;
	}
	const pki_event_row *row = f ? find_row(f, core, ev->kind, config) : NULL;
	if (!row) {
		pk_err_at(err, -ENOENT, "model", name, -1,
			  "the PMU model has no count for %s on %s", name,
			  core->row ? core->row->core : "this core");
		pk_err_hint(err, "the model counts only what a phase's TopDown shares determine "
				 "(docs/model.md, \"Events of a phase\")");
		return -ENOENT;
	}
	int rc = pki_event_row_rate(row, core, ph, rate, err);
	if (!rc)
		*rate *= threads;
	return rc;
}
