/* pmukit: TopDown (TMA), where a CPU's pipeline slots go, Levels 1 to 6.
 *
 * The computation newer perf's `stat --topdown` makes, for callers: choose
 * the method of each core PMU from the loaded PMU tree and the CPU model,
 * add its events to an evlist, and compute the nodes from counts.
 *
 *   pk_topdown_new(pmus, cpuid, opts)   one block per core PMU with a method
 *                                       (hybrid: cpu_core and cpu_atom), or
 *                                       an error saying why none can run
 *   pk_topdown_add_events(td, evlist)   the events, grouped as the kernel
 *                                       wants (PERF_METRICS: slots first)
 *   pk_topdown_compute(td, b, counts)   the nodes of block b, in percent
 *
 * Methods are data (lib/topdown/td_*.c): per method the nodes (tma_* name,
 * parent, level, formula, threshold, description) as pk_metric_def rows
 * evaluated by the metrics engine (pmukit/metrics.h), and the raw encoding
 * of every event the formulas name. Intel's rows are generated from Intel's
 * TMA metric files (TmaL1/TmaL2, i.e. perf's TopdownL1/TopdownL2); AMD's
 * from perf's PipelineL1/L2; Arm's from perf's sbsa and Neoverse metrics.
 * docs/topdown.md lists them and their sources.
 *
 * Values are percent of the core's slots (Neoverse N1: of its cycles, the
 * method says so). A value is never invented: a node whose formula lacks a
 * count (not counted, multiplexed out) is not computable. */
#ifndef PMUKIT_TOPDOWN_H
#define PMUKIT_TOPDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <pmukit/counting.h>
#include <pmukit/cpuid.h>
#include <pmukit/error.h>
#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/metrics.h>
#include <pmukit/pmu.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_topdown pk_topdown;

/* Levels: Intel's trees go to 6 (Levels 3-6 from the metric files). */
#define PK_TOPDOWN_MAX_LEVEL 6
/* opts.level for every level each block's method has (--td-level all). */
#define PK_TOPDOWN_LEVEL_ALL 99

typedef struct pk_topdown_opts {
	int level;                 /* 1 to PK_TOPDOWN_MAX_LEVEL, or _ALL (0: 1) */
	bool smt;                  /* SMT on: the #smt_on forms (pre-Ice Lake _ANY events) */
	const char *only_pmu;      /* one core PMU only (--cputype); NULL: all */
} pk_topdown_opts;

void pk_topdown_opts_init(pk_topdown_opts *opts);
/* Whether the kernel's CPU 0 has thread siblings (SMT on); k NULL: the real
 * kernel. False when the topology is not published. */
bool pk_topdown_host_smt(const pk_kernel *k);

/* The methods for every core PMU of pmus on CPU cpuid. Errors (-ENODEV with
 * a message saying why and what is possible instead): no core PMU; no core
 * PMU with a method for this CPU model; a level above what the method has
 * (-EINVAL). */
pk_topdown *pk_topdown_new(const pk_pmus *pmus, const pk_cpuid *cpuid,
			   const pk_topdown_opts *opts, pk_error *err);
void pk_topdown_free(pk_topdown *td);

/* Blocks: one per core PMU with a method, cpu_core before cpu_atom. */
size_t pk_topdown_nr_blocks(const pk_topdown *td);
const char *pk_topdown_block_pmu(const pk_topdown *td, size_t b);
/* The method's name ("intel-perf-metrics-l2") and one line saying what it
 * is and where its formulas come from. */
const char *pk_topdown_block_method(const pk_topdown *td, size_t b);
const char *pk_topdown_block_title(const pk_topdown *td, size_t b);
/* A caveat to print with the block (N1's cycle accounting), or NULL. */
const char *pk_topdown_block_note(const pk_topdown *td, size_t b);
/* The highest level the block's method computes (1 to 6). */
int pk_topdown_block_max_level(const pk_topdown *td, size_t b);
/* The level this block computes (the chosen one; its deepest for _ALL). */
int pk_topdown_block_level(const pk_topdown *td, size_t b);
/* How many event groups the block's events form: one per metric of the
 * chosen levels, merged where one holds another's events, every one led
 * by slots when it reads PERF_METRICS (docs/topdown.md, "Grouping"). */
size_t pk_topdown_block_groups(const pk_topdown *td, size_t b);

/* Appends every block's events to evlist: one weak group (:W) per metric
 * of the chosen levels (a metric that reads PERF_METRICS in the one group
 * led by slots, slots first, metric events after it). Remembers which
 * evsels are the block's (the evlist must outlive td's use of counts). */
int pk_topdown_add_events(pk_topdown *td, pk_evlist *evlist, pk_error *err);
/* After the open: which of the block's groups were opened as groups (a
 * weak group the PMU could never schedule is opened as lone events, and
 * its nodes' ratios then mix time slices: pk_topdown_node.grouped). */
void pk_topdown_opened(pk_topdown *td, const pk_counting *c);
/* The PERF_METRICS byte (0-7) an Intel core PMU's metric event reads
 * (topdown-retiring ...: config 0x8000 + 0x100 x byte), -1 for any other
 * config. Such events count only in a group led by slots (0x0400). */
int pk_topdown_metric_field(uint64_t config);

/* One node's value. */
typedef struct pk_topdown_node {
	const char *pmu;           /* the block's core PMU */
	const char *name;          /* "tma_frontend_bound" */
	const char *parent;        /* NULL at Level 1 */
	int level;
	const char *description;
	const char *threshold;     /* the condition, in percent ("tma_retiring > 70"), or NULL */
	double value;              /* percent; NaN when not computable */
	bool computable;
	bool has_threshold;
	bool over_threshold;       /* Intel's threshold (a bottleneck flag) */
	bool grouped;              /* its events were counted as one group (false:
				    * more than the PMU's counters, the weak
				    * group fell back to lone events) */
	double running;            /* the least share of its enabled time any
				    * event of the node's group counted: 1 all
				    * the time, below 1 the group was multiplexed */
	const char *sample;        /* Intel's "Sample with" events as PMU event
				    * specs ("event=0xd1,umask=0x2,name=X/pp"),
				    * separated by spaces, or NULL */
} pk_topdown_node;

/* The nodes of block b up to the chosen level, in the method's order
 * (depth first: each node followed by its children) from counts of one
 * reading, for the bucket `key` (-1: aggregated); each node's value from
 * its own group's counts, its threshold over the nodes' values. Fills at most cap nodes
 * and returns how many the block has (0 when none of its counts is in
 * counts). */
size_t pk_topdown_compute(const pk_topdown *td, size_t b, const pk_metric_counts *counts,
			  int key, pk_topdown_node *out, size_t cap);

/* ---- A run's nodes as data (plots, regions) ------------------------------ */

/* One node of one block at one interval. */
typedef struct pk_topdown_sample {
	double t_ns;               /* the interval's end (ns since the start) */
	size_t block;
	pk_topdown_node node;
} pk_topdown_sample;

typedef struct pk_topdown_series {
	pk_topdown_sample *v;
	size_t nr, cap;
} pk_topdown_series;

/* Appends nodes of block b at time t_ns; -ENOMEM. */
int pk_topdown_series_add(pk_topdown_series *s, double t_ns, size_t block,
			  const pk_topdown_node *nodes, size_t nr);
void pk_topdown_series_release(pk_topdown_series *s);

#ifdef __cplusplus
}
#endif
#endif
