/* perf stat's shadow metrics as rows: the number perf prints after an
 * event's count ("#    1.23  insn per cycle"). Rows are tried in order for
 * each printed count; the first whose trigger matches and whose value can
 * be computed is printed. A FINAL row ends the search for its trigger
 * events even when it has no value (a clock without wall time gets no
 * rate; cycles without a clock get no rate either; instructions without
 * cycles, branch, cache and HW_CACHE misses without their totals,
 * frontend stalls without cycles get nothing, as in perf 6.1's stat and
 * script). Every other counted event falls through to its rate per second
 * of task-clock. A NEW_LINE row is a further line under the count's
 * metric (perf's "stalled cycles per insn" under the IPC).
 *
 * Each row is perf 6.1's behaviour as measured (tests/cli/test_stat_perf61.c
 * and tests/perfdata/test_script_metric.c compare them with perf), quirks
 * included: a miss ratio whose total was counted as 0 prints 0, a frontend
 * stall ratio that is 0 (or has cycles 0) prints nothing, the backend's
 * prints 0.00% without cycles.
 *
 * As in perf's MetricExpr, a '-' inside an event name is escaped ("task\\-clock");
 * a bare '-' subtracts.
 *
 * The arithmetic is written in the order perf's output depends on (the last
 * printed digit can differ): cache misses are 100 * x / y, the other
 * percentages x / y * 100 (23 of 160 is 14.37%, not 14.38%). */
#include <pmukit/metrics.h>

#include "core/util.h"

/* The miss ratio of a HW_CACHE event over its access event (perf counts
 * only the read access, config op 0 result 0, as the total): printed when
 * the access event was counted (0 when it counted 0), nothing otherwise. */
#define CACHE_MISS_ROW(id, miss, access, what)                                          \
	{.name = id, .trigger = miss, .formula = "d_ratio(#this, " access ") * 100",      \
	 .unit = "of all " what " accesses", .style = PK_METRIC_PERCENT,                  \
	 .flags = PK_METRIC_FINAL,                                                         \
	 .description = "Misses of " miss ", in percent of " access}

/* A bare Intel TopDown metric event's share of the four Level 1 events
 * (perf 6.1's stat-shadow: "#     30.2% Retiring"), printed when all four
 * were counted and their sum is not 0 (a count of 0 is a share of 0.0%,
 * four 0s print nothing, as perf 6.1 on served counts); else the event
 * gets the rate. */
#define TD_SUM "(topdown\\-retiring + topdown\\-bad\\-spec + topdown\\-fe\\-bound + topdown\\-be\\-bound)"
#define TD_FULL                                                                        \
	"has_event(topdown\\-retiring) & has_event(topdown\\-bad\\-spec) & "             \
	"has_event(topdown\\-fe\\-bound) & has_event(topdown\\-be\\-bound)"
#define TD_SHARE_ROW(id, event, escaped, label)                                          \
	{.name = id, .trigger = event,                                                    \
	 .formula = escaped " / " TD_SUM " * 100 if " TD_FULL " else 0 / 0",              \
	 .unit = label, .style = PK_METRIC_PERCENT_SHARE,                                 \
	 .description = label ": " event " in percent of the four Level 1 TopDown events"}

static const pk_metric_def stat_defs[] = {
	{.name = "cpus_utilized", .trigger = "task-clock", .formula = "task\\-clock / #wall_ns",
	 .unit = "CPUs utilized", .style = PK_METRIC_PLAIN, .flags = PK_METRIC_FINAL,
	 .description = "CPUs busy on average: task time over wall-clock time (#wall_ns)"},
	{.name = "insn_per_cycle", .trigger = "instructions", .formula = "instructions / cycles",
	 .unit = "insn per cycle", .style = PK_METRIC_RATIO, .flags = PK_METRIC_FINAL,
	 .description = "Instructions retired per core cycle (same PMU)"},
	{.name = "stalled_cycles_per_insn", .trigger = "instructions",
	 .formula = "max(stalled\\-cycles\\-frontend if has_event(stalled\\-cycles\\-frontend) else 0, "
		    "stalled\\-cycles\\-backend if has_event(stalled\\-cycles\\-backend) else 0) "
		    "/ instructions",
	 .unit = "stalled cycles per insn", .style = PK_METRIC_RATIO,
	 .flags = PK_METRIC_NEW_LINE | PK_METRIC_NONZERO,
	 .description = "The larger of the frontend and backend stalled cycles per instruction, "
			"on a line of its own under the IPC (an uncounted one is 0)"},
	{.name = "branch_miss_ratio", .trigger = "branch-misses",
	 .formula = "d_ratio(branch\\-misses, branches) * 100", .unit = "of all branches",
	 .style = PK_METRIC_PERCENT, .flags = PK_METRIC_FINAL,
	 .description = "Mispredicted branches, in percent of branches"},
	CACHE_MISS_ROW("l1d_miss_ratio", "L1-dcache-load-misses", "L1\\-dcache\\-loads", "L1-dcache"),
	CACHE_MISS_ROW("l1i_miss_ratio", "L1-icache-load-misses", "L1\\-icache\\-loads", "L1-icache"),
	CACHE_MISS_ROW("dtlb_miss_ratio", "dTLB-load-misses", "dTLB\\-loads", "dTLB cache"),
	CACHE_MISS_ROW("itlb_miss_ratio", "iTLB-load-misses", "iTLB\\-loads", "iTLB cache"),
	CACHE_MISS_ROW("llc_miss_ratio", "LLC-load-misses", "LLC\\-loads", "LL-cache"),
	{.name = "cache_miss_ratio", .trigger = "cache-misses",
	 .formula = "d_ratio(cache\\-misses * 100, cache\\-references)", .unit = "of all cache refs",
	 .style = PK_METRIC_PERCENT_WIDE, .flags = PK_METRIC_FINAL,
	 .description = "Cache misses, in percent of cache references"},
	{.name = "frontend_cycles_idle", .trigger = "stalled-cycles-frontend",
	 .formula = "stalled\\-cycles\\-frontend / cycles * 100", .unit = "frontend cycles idle",
	 .style = PK_METRIC_PERCENT, .flags = PK_METRIC_FINAL | PK_METRIC_NONZERO,
	 .description = "Cycles the frontend delivered nothing, in percent of cycles"},
	{.name = "backend_cycles_idle", .trigger = "stalled-cycles-backend",
	 .formula = "d_ratio(stalled\\-cycles\\-backend, cycles) * 100 if has_event(cycles) else 0",
	 .unit = "backend cycles idle", .style = PK_METRIC_PERCENT, .flags = PK_METRIC_FINAL,
	 .description = "Cycles the backend executed nothing, in percent of cycles "
			"(0 without cycles, as perf 6.1 prints it)"},
	TD_SHARE_ROW("td_retiring", "topdown-retiring", "topdown\\-retiring", "Retiring"),
	TD_SHARE_ROW("td_bad_spec", "topdown-bad-spec", "topdown\\-bad\\-spec", "Bad Speculation"),
	TD_SHARE_ROW("td_fe_bound", "topdown-fe-bound", "topdown\\-fe\\-bound", "Frontend Bound"),
	TD_SHARE_ROW("td_be_bound", "topdown-be-bound", "topdown\\-be\\-bound", "Backend Bound"),
	{.name = "ghz", .trigger = "cycles", .formula = "cycles / task\\-clock", .unit = "GHz",
	 .style = PK_METRIC_PLAIN, .flags = PK_METRIC_FINAL, .blank_unit = "Ghz",
	 .description = "Cycles per nanosecond of task time: the average clock rate"},
	{.name = "rate", .trigger = "*", .formula = "d_ratio(#this * 1e9, task\\-clock)",
	 .unit = "/sec", .style = PK_METRIC_PLAIN, .flags = PK_METRIC_SI_STEPS,
	 .description = "Events per second of task time, in G/M/K steps"},
};

const pk_metric_def *pk_metric_defs_stat(size_t *nr)
{
	*nr = PK_ARRAY_SIZE(stat_defs);
	return stat_defs;
}
