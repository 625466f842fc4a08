/* pmukit: metrics, numbers computed from counts by formulas kept as data.
 *
 * A metric is a row (pk_metric_def): a name, the formula over events, other
 * metrics and context literals, how perf labels and prints the value, an
 * optional threshold, a description, groups and a parent (for trees such as
 * TopDown). Rows are compiled once into a pk_metric_table (every formula
 * parsed, every reference classified); one engine evaluates any row over a
 * set of counts (pk_metric_counts), as often as needed.
 *
 *   rows (data)  --pk_metric_table_new-->  compiled table
 *   counts + literals (a pk_metric_counts)
 *       --pk_metric_shadow-->  the metric perf stat prints after an event
 *       --pk_metric_eval--->   any row for one anchor (PMU and bucket)
 *
 * Formulas are a small expression language (docs/metrics.md): numbers,
 * + - * / %, parentheses, comparisons, & and |, `a if cond else b`, min(),
 * max(), d_ratio(), has_event(), event names (perf spellings, `\` escapes, `pmu@...@`),
 * other rows' names, and literals `#name` supplied by the caller (#slots,
 * #smt_on, #wall_ns, ...). Parse errors carry the byte position.
 *
 * How an event name meets a count: a perf symbolic name ("cycles",
 * "branch-misses", "task-clock") matches by attr type and config (the PMU
 * type in config[63:32] of hybrid hardware events ignored); "task-clock"
 * also matches "cpu-clock" (both are the clock rates are per); any other
 * name matches an evsel called that (also "<pmu>/<name>/" or "<name>:<mod>").
 * Only counts of the anchor's bucket (same CPU for -A, same thread for
 * --per-thread) are used, and a non-software event must be on the anchor's
 * PMU (on hybrid machines cpu_core instructions pair with cpu_core cycles)
 * and have its exclude bits (perf 6.1: branch-misses with branches, not
 * with branches:u).
 * The first matching count, in the order given, is used. */
#ifndef PMUKIT_METRICS_H
#define PMUKIT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/cpuid.h>
#include <pmukit/error.h>
#include <pmukit/events.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Expressions ------------------------------------------------------- */

/* A parsed formula. References (events, metrics, literals) are numbered in
 * the order of first appearance; evaluation takes one value per reference. */
typedef struct pk_expr pk_expr;

/* Parses text; NULL on error with err naming the position (subject
 * "metric expression"). */
pk_expr *pk_expr_parse(const char *text, pk_error *err);
void pk_expr_free(pk_expr *expr);
/* The text it was parsed from. */
const char *pk_expr_text(const pk_expr *expr);
size_t pk_expr_nr_refs(const pk_expr *expr);
/* Reference i as written, unescaped ("topdown-fe-bound", "#slots");
 * the bare word smt_on is the literal "#smt_on". */
const char *pk_expr_ref(const pk_expr *expr, size_t i);
/* Byte offset of reference i's first appearance. */
long pk_expr_ref_pos(const pk_expr *expr, size_t i);
/* The value for values[0..nr_refs). NaN propagates; x/0 is NaN; d_ratio(x, 0)
 * is 0; comparisons, & and | give 1 or 0; `if` evaluates only the branch it
 * takes. */
double pk_expr_eval(const pk_expr *expr, const double *values);

/* ---- Metric rows --------------------------------------------------------- */

/* How perf prints the value in its eight human columns. */
typedef enum pk_metric_style {
	PK_METRIC_PLAIN = 0,       /* "%8.3f": CPUs utilized, GHz, rates */
	PK_METRIC_RATIO,           /* "%7.2f ": insn per cycle */
	PK_METRIC_PERCENT,         /* "%7.2f%%": miss ratios, stalled cycles */
	PK_METRIC_PERCENT_WIDE,    /* "%8.3f %%": cache misses */
	PK_METRIC_SCALED,          /* "%8.1f": a vendor metric with a unit (stat -M) */
	PK_METRIC_UNSCALED,        /* "%8.2f": a vendor metric without one */
	PK_METRIC_PERCENT_SHARE,   /* "%8.1f%%": a bare topdown-* event's share */
} pk_metric_style;

/* The value as perf prints it in style `style` (the eight human columns,
 * no unit) into buf (len bytes); returns snprintf's count. */
int pk_metric_format(pk_metric_style style, double value, char *buf, size_t len);

enum {
	/* The unit steps through perf's G/M/K prefixes by the value's size
	 * ("G/sec", "M/sec", "K/sec", "/sec"); the value is divided to match. */
	PK_METRIC_SI_STEPS = 1 << 0,
	/* As a shadow metric: when this row matches its trigger but cannot be
	 * computed, the event gets no metric (later rows are not tried). */
	PK_METRIC_FINAL = 1 << 1,
	/* A zero value counts as not computable (perf prints nothing then). */
	PK_METRIC_NONZERO = 1 << 2,
	/* As a shadow metric: a line of its own under the count's metric
	 * (perf's "stalled cycles per insn" under IPC), given by
	 * pk_metric_shadow_line, never by pk_metric_shadow. */
	PK_METRIC_NEW_LINE = 1 << 3,
};

typedef struct pk_metric_def {
	const char *name;          /* "insn_per_cycle", "tma_retiring" */
	/* The events this metric is printed after in perf stat (shadow
	 * metrics), by perf name, ' ' between alternatives; "*": any event;
	 * NULL: printed on its own (metric groups). A formula reference to a
	 * trigger name (or "#this") is the triggering count itself. */
	const char *trigger;
	const char *formula;
	const char *unit;          /* as perf prints it: "insn per cycle", "GHz", "/sec" */
	pk_metric_style style;
	unsigned flags;            /* PK_METRIC_* */
	/* A condition over this and other metrics of the table ("tma_retiring
	 * > 0.7 | tma_heavy_operations > 0.1"); NULL: none. */
	const char *threshold;
	const char *description;
	const char *groups;        /* ';'-separated: "TopdownL1;Default" */
	const char *parent;        /* the parent row's name in a tree, or NULL */
	/* The unit perf names (JSON's metric-unit) when the row matched but
	 * has no value; NULL: `unit` (perf 6.1 says "Ghz" for cycles then). */
	const char *blank_unit;
} pk_metric_def;

/* perf stat's shadow metrics (CPUs utilized, GHz, IPC and stalled cycles
 * per insn, miss ratios of branches, caches and TLBs, stalled cycles,
 * rates), in the order they are tried. */
const pk_metric_def *pk_metric_defs_stat(size_t *nr);

/* ---- Tables --------------------------------------------------------------- */

typedef struct pk_metric_table pk_metric_table;

/* Compiles rows: parses every formula and threshold (errors name the row
 * and the position), binds references to rows of the same table, and
 * refuses cycles between rows. The rows are copied (pointers inside them
 * must outlive the table). */
pk_metric_table *pk_metric_table_new(const pk_metric_def *defs, size_t nr, pk_error *err);
/* The table of pk_metric_defs_stat(). */
pk_metric_table *pk_metric_table_stat(pk_error *err);
void pk_metric_table_free(pk_metric_table *table);
size_t pk_metric_table_nr(const pk_metric_table *table);
const pk_metric_def *pk_metric_table_def(const pk_metric_table *table, size_t idx);
/* Index of the row called name, or -1. */
long pk_metric_table_find(const pk_metric_table *table, const char *name);

/* ---- Evaluation ------------------------------------------------------------ */

/* One count: an evsel summed over one aggregation bucket. */
typedef struct pk_metric_count {
	const pk_evsel *evsel;
	int key;                   /* the bucket: CPU (-A), tid (--per-thread), -1 */
	double value;              /* scaled (and averaged over -r runs) */
	bool counted;              /* opened and ran; false: never used */
	double running;            /* the share of its enabled time it ran (run/ena):
				    * below 1 it was multiplexed; 0: not known */
} pk_metric_count;

/* A context literal, referenced as #name (case does not matter). */
typedef struct pk_metric_literal {
	const char *name;          /* with the '#': "#wall_ns", "#slots" */
	double value;
} pk_metric_literal;

typedef struct pk_metric_counts {
	const pk_metric_count *v;
	size_t nr;
	const pk_metric_literal *lit;
	size_t nr_lit;
} pk_metric_counts;

typedef struct pk_metric_value {
	const pk_metric_def *def;  /* the row */
	double value;              /* the formula's value (after SI steps) */
	const char *unit;          /* the row's unit, or the stepped one ("M/sec") */
	bool has_threshold;
	bool over_threshold;       /* the threshold condition holds */
} pk_metric_value;

/* The metric perf stat prints after count `idx`: the first row whose
 * trigger matches it and whose value can be computed (every reference
 * found, the value not NaN). Returns 1 with *out filled, 0 when none; then
 * out->def is the PK_METRIC_FINAL row that ended the search without a
 * value (its blank_unit or unit in out->unit, the value NaN), or NULL when no row
 * matched. */
int pk_metric_shadow(const pk_metric_table *table, const pk_metric_counts *counts, size_t idx,
		     pk_metric_value *out);
/* The further lines perf stat prints under count `idx`'s metric: rows
 * flagged PK_METRIC_NEW_LINE whose trigger matches it and whose value can be
 * computed, in table order, starting at row *pos (0 at first). Returns 1
 * with *out filled and *pos past that row, 0 when there is no more. */
int pk_metric_shadow_line(const pk_metric_table *table, const pk_metric_counts *counts, size_t idx,
			  size_t *pos, pk_metric_value *out);
/* Row `row` with count `anchor` giving the bucket and PMU (anchor < 0: the
 * first count of any bucket and PMU). Returns 1 with *out filled, 0 when
 * an event or literal is missing or the value is NaN (or 0 in a
 * PK_METRIC_NONZERO row). */
int pk_metric_eval(const pk_metric_table *table, size_t row, const pk_metric_counts *counts,
		   long anchor, pk_metric_value *out);

/* ---- The vendors' metrics of a CPU (stat -M, list metric) ------------------ */

/* The metric rows of this CPU's core PMU `pmu` (NULL: "cpu", or the P-core
 * "cpu_core" on a hybrid part), sorted by name, from the vendor's metric
 * files (docs/metrics.md); NULL with *nr 0 when pmukit has none. *source
 * (may be NULL) names the file. */
const pk_metric_def *pk_metric_defs_cpu(const pk_cpuid *id, const char *pmu, size_t *nr,
					const char **source);
/* Whether `name` names the row itself or one of its groups, compared
 * without case as perf does ("topdownl1" is TopdownL1). */
bool pk_metric_named(const pk_metric_def *row, const char *name);
/* The raw config on the core PMU of an event a CPU's metrics name (as the
 * formulas write it, "INT_MISC.RECOVERY_CYCLES:c1:e1"). 0 with *config;
 * -ENOENT when no metric of the CPU names it; -EOPNOTSUPP when it is no
 * core event (uncore, MSR, energy: err says which). */
int pk_metric_event_config(const pk_cpuid *id, const char *pmu, const char *event,
			   uint64_t *config, pk_error *err);

#ifdef __cplusplus
}
#endif
#endif
