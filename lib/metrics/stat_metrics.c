/* perf stat's shadow metrics as rows: the number perf prints after an
 * event's count ("#    1.23  insn per cycle"). Rows are tried in order for
 * each printed count; the first whose trigger matches and whose value can
 * be computed is printed. A FINAL row ends the search for its trigger
 * events even when it has no value (a clock without wall time gets no
 * rate; cycles without a clock get no rate either; instructions without
 * cycles, branch and cache misses without their totals get nothing, as in
 * perf 6.1's stat and script). Every other counted event falls through to
 * its rate per second of task-clock.
 *
 * As in perf's MetricExpr, a '-' inside an event name is escaped ("task\\-clock");
 * a bare '-' subtracts.
 *
 * The arithmetic is written in the order perf's output depends on:
 * 100 * x / y, not x / y * 100 (the last printed digit can differ). */
#include <pmukit/metrics.h>

#include "core/util.h"

static const pk_metric_def stat_defs[] = {
	{.name = "cpus_utilized", .trigger = "task-clock", .formula = "task\\-clock / #wall_ns",
	 .unit = "CPUs utilized", .style = PK_METRIC_PLAIN, .flags = PK_METRIC_FINAL,
	 .description = "CPUs busy on average: task time over wall-clock time (#wall_ns)"},
	{.name = "insn_per_cycle", .trigger = "instructions", .formula = "instructions / cycles",
	 .unit = "insn per cycle", .style = PK_METRIC_RATIO, .flags = PK_METRIC_FINAL,
	 .description = "Instructions retired per core cycle (same PMU)"},
	{.name = "branch_miss_ratio", .trigger = "branch-misses",
	 .formula = "100 * branch\\-misses / branches", .unit = "of all branches",
	 .style = PK_METRIC_PERCENT, .flags = PK_METRIC_FINAL,
	 .description = "Mispredicted branches, in percent of branches"},
	{.name = "cache_miss_ratio", .trigger = "cache-misses",
	 .formula = "100 * cache\\-misses / cache\\-references", .unit = "of all cache refs",
	 .style = PK_METRIC_PERCENT_WIDE, .flags = PK_METRIC_FINAL,
	 .description = "Cache misses, in percent of cache references"},
	{.name = "frontend_cycles_idle", .trigger = "stalled-cycles-frontend",
	 .formula = "100 * stalled\\-cycles\\-frontend / cycles", .unit = "frontend cycles idle",
	 .style = PK_METRIC_PERCENT,
	 .description = "Cycles the frontend delivered nothing, in percent of cycles"},
	{.name = "backend_cycles_idle", .trigger = "stalled-cycles-backend",
	 .formula = "100 * stalled\\-cycles\\-backend / cycles", .unit = "backend cycles idle",
	 .style = PK_METRIC_PERCENT,
	 .description = "Cycles the backend executed nothing, in percent of cycles"},
	{.name = "ghz", .trigger = "cycles", .formula = "cycles / task\\-clock", .unit = "GHz",
	 .style = PK_METRIC_PLAIN, .flags = PK_METRIC_FINAL,
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
