/* pmukit: TopDown of code regions, measured in-process (issue 10,
 * docs/regions.md).
 *
 * The calling thread counts the TopDown events of its core PMU (the method
 * `stat --topdown` chooses, pmukit/topdown.h) and reads them itself: SLOTS
 * and the PERF_METRICS register with RDPMC from the events' user pages
 * when the kernel allows it, else with read(2), never both on the metric
 * events. A region's breakdown is computed from two snapshots with the
 * documents' delta arithmetic (each metric field x slots at both points,
 * the differences, the ratios; Level 2 by the method's formulas).
 *
 *   pk_region_init(&opts, &err)          once per process (or implicitly,
 *                                        from the environment, at the first
 *                                        call below)
 *   pk_region_begin("solve") ... pk_region_end("solve")
 *   pk_region_results(out, cap)          per region: calls, time, slots,
 *                                        Level 1/2 nodes, summed over calls
 *                                        and threads
 *   pk_region_fini()                     the report when one was asked
 *
 * Environment (read by an implicit init, and by pk_region_init for what
 * opts leaves unset): PMUKIT_REGION_REPORT=FILE (JSON when FILE ends in
 * .json, else a text table; "-" stderr) writes the report at exit;
 * PMUKIT_MODEL=SCENARIO counts on the PMU model (the numbers are modeled,
 * the report says so); PMUKIT_REGION_LEVEL=1|2; PMUKIT_REGION_RESET_S=SECONDS
 * (the reset period). None is read in a privileged process (setuid, file
 * capabilities: secure_getenv); the report is never written through a
 * symbolic link of another user (docs/regions.md "Security").
 *
 * A region is its name's text: names written into one buffer are as many
 * regions as texts.
 *
 * Threads: every function may be called from any thread; each thread opens
 * its own counters at its first begin/snapshot (pk_region_thread_init does
 * it ahead). Begin, end and snapshot make no allocation and, on the RDPMC
 * path, no system call except PERF_EVENT_IOC_RESET at most once per reset
 * period (opts.reset_s) per thread. Without a PMU (or with TopDown refused)
 * the library counts a software event with read(2) and says why.
 * The library prints nothing except the report the user asked for.
 *
 * lib/region's files: the reader (reader.c, internal region/reader.h: RDPMC
 * over lib/counting's pki_selfread or read(2), SLOTS with PERF_METRICS in
 * one lock pass, the real instructions or a simulated kernel's rdpmc entry
 * of the seam; the metric bytes decoded by lib/topdown/perf_metrics.c); the
 * process state and its events (setup.c: the TopDown method's events or a
 * software event with the reason, the environment through pki_env, none
 * read when privileged, the report asked for at exit, a reading's time from
 * the calibrated TSC); one thread's counters (rthread.c: pinned slots
 * group, user pages, one read mode per thread, the reset policy with carried
 * values, a simulated kernel's virtual time through the seam's now and
 * run_to); the read(2) path (rplan.c: a plan made at open, one read per
 * group or lone counter, each event's words; no allocation, lock or reset
 * per reading); named regions (named.c: by their text, a hash table with
 * per-thread caches checked against it; breakdowns through
 * pk_topdown_compute; likwid's per-thread GET/RESET); the report (report.c:
 * the only code of the library that prints, to the file asked for through
 * pki_wfile, or stderr for "-"). Internal state in region/region_internal.h;
 * likwid's marker API in pmukit/likwid/likwid-marker.h.
 *
 * lib/region imports no lib/model: the kernel is the caller's opts.kernel,
 * Linux, or the one PMUKIT_MODEL loads through lib/kernel's loader. */
#ifndef PMUKIT_REGION_H
#define PMUKIT_REGION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <pmukit/error.h>
#include <pmukit/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	PK_REGION_MAX_EVENTS = 32,   /* events one thread counts */
	PK_REGION_MAX_NODES = 16,    /* nodes of a breakdown (Level 1 + 2) */
	PK_REGION_MAX_REGIONS = 256, /* distinct region names */
	PK_REGION_MAX_DEPTH = 32,    /* open regions per thread */
	PK_REGION_NAME_MAX = 64,     /* bytes of a name, with its NUL */
};

typedef struct pk_region_opts {
	int level;                   /* TopDown level, 1 or 2 (0: PMUKIT_REGION_LEVEL, else 1) */
	/* Count on this kernel (NULL: Linux, or the scenario below). A
	 * simulated one (the PMU model's pk_model_kernel) is the caller's, who
	 * runs its virtual time (pk_model_advance); every thread that opens
	 * takes its next thread (host.tasks), in its order. */
	const pk_kernel *kernel;
	/* Else load this PMU model scenario (NULL: PMUKIT_MODEL); virtual time
	 * then follows the wall clock since pk_region_init (docs/regions.md). */
	const char *model_scenario;
	/* PERF_EVENT_IOC_RESET period, seconds (0: PMUKIT_REGION_RESET_S, else 2;
	 * < 0: never). */
	double reset_s;
	/* Without TopDown: this software event (NULL: "task-clock"). */
	const char *fallback_event;
	/* The report at pk_region_fini / exit (NULL: PMUKIT_REGION_REPORT). */
	const char *report;
} pk_region_opts;

void pk_region_opts_init(pk_region_opts *opts);

/* Sets the library up for the process. -EALREADY when it already is;
 * -ENODEV etc. with err when the model cannot load or no event can be
 * counted at all (no TopDown is not an error: the fallback event counts). */
int pk_region_init(const pk_region_opts *opts, pk_error *err);
/* Writes the report when one was asked, closes every thread's counters,
 * forgets the regions. Call it when no other thread uses the library. */
void pk_region_fini(void);
/* pk_region_fini that says whether the report asked for was written: 0 or
 * -errno with err (the path named; a symbolic link owned by another user is
 * never written through, docs/regions.md "Security"). */
int pk_region_finish(pk_error *err);

/* Opens the calling thread's counters now (else at its first use). */
int pk_region_thread_init(pk_error *err);
/* Closes them; the thread's totals stay in the results. */
void pk_region_thread_fini(void);

/* ---- snapshots ----------------------------------------------------------- */

enum {
	PK_REGION_SNAP_SYSCALL = 1,  /* read with read(2) (no RDPMC) */
	PK_REGION_SNAP_STALE = 2,    /* the TopDown group was off the PMU: no values */
};

/* One reading of the calling thread's counters: cumulative since the
 * thread opened (resets are carried, so a difference spans them). */
typedef struct pk_region_snap {
	int64_t v[PK_REGION_MAX_EVENTS];
	uint64_t run[2];             /* time running per core-PMU block, ns */
	uint64_t time_ns;            /* the clock (virtual on the model) */
	uint32_t nr;                 /* events */
	uint32_t flags;
	uint32_t epoch;              /* the thread's open (snapshots of different opens do not mix) */
} pk_region_snap;

int pk_region_snapshot(pk_region_snap *s, pk_error *err);

typedef struct pk_region_node {
	const char *name;            /* "tma_backend_bound" */
	const char *parent;          /* NULL at Level 1 */
	int level;
	double value;                /* percent; NaN when not computable */
	bool computable;
} pk_region_node;

typedef struct pk_region_breakdown {
	bool topdown;                /* false: only the fallback event counted */
	double slots;                /* slots in the region (0 when the method has no slots event) */
	double time_ns;
	double count;                /* the fallback event's count (topdown false) */
	size_t nr;
	pk_region_node node[PK_REGION_MAX_NODES];
} pk_region_breakdown;

/* The breakdown between two snapshots of one thread (a before b). -EINVAL
 * for snapshots of different opens; -ENODATA when one is stale. */
int pk_region_breakdown_of(const pk_region_snap *a, const pk_region_snap *b,
			   pk_region_breakdown *out, pk_error *err);

/* ---- named regions ------------------------------------------------------- */

/* Begin and end a region of the calling thread. Regions nest (an inner
 * region counts inside its outer one too); end must name the innermost
 * open region. 0, or a negative errno: -EINVAL (end without begin, or of
 * another region), -ENOSPC (too many names, too deep), or the open's. The
 * first error is kept for the report (pk_region_info). */
int pk_region_begin(const char *name);
int pk_region_end(const char *name);

typedef struct pk_region_result {
	const char *name;
	uint64_t calls;              /* completed begin/end pairs, all threads */
	uint64_t threads;            /* threads that completed one */
	uint64_t lost;               /* pairs not counted (a stale snapshot) */
	pk_region_breakdown bd;      /* summed over calls and threads */
} pk_region_result;

/* Fills at most cap results, in the order the names were first seen;
 * returns the number of regions. Names and node names stay valid until
 * pk_region_fini (so do pk_region_info's strings). */
size_t pk_region_results(pk_region_result *out, size_t cap);

typedef struct pk_region_info {
	bool topdown;                /* a TopDown method counts */
	bool modeled;                /* on the PMU model */
	bool syscall_reads;          /* some thread reads with read(2) */
	int level;
	const char *method;          /* "intel-perf-metrics-l2", or NULL */
	const char *pmu;             /* its core PMU(s), "cpu_core+cpu_atom" */
	const char *fallback;        /* the event counted without TopDown, or NULL */
	const char *why;             /* why TopDown does not count, or NULL */
	const char *scenario;        /* the model's scenario, or NULL */
	const char *first_error;     /* the first begin/end error, or NULL */
} pk_region_info;

void pk_region_get_info(pk_region_info *out);

/* The report: a text table, or JSON. */
int pk_region_report(FILE *f, bool json, pk_error *err);

/* likwid-marker.h's calls (pmukit/likwid/likwid-marker.h): init from the
 * environment; a name made known ahead (0 or -ENOSPC/-EINVAL); close
 * (report, then fini); GET: the calling thread's results of a tag, as
 * likwid's likwid_markerGetRegion: its nodes in percent (at most *nevents,
 * *nevents set to how many), time in seconds and calls; RESET: zero the
 * calling thread's results of a tag (likwid_markerResetRegion). Both
 * -ENOENT for a tag never begun nor registered. */
void pk_region_likwid_init(void);
int pk_region_likwid_register(const char *tag);
void pk_region_likwid_close(void);
int pk_region_likwid_get(const char *tag, int *nevents, double *events, double *time,
			 int *count);
int pk_region_likwid_reset(const char *tag);

#ifdef __cplusplus
}
#endif
#endif
