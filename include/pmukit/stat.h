/* pmukit: perf stat's counting engine, above pk_counting.
 *
 * A pk_stat counts an evlist (configured with PK_CONFIG_STAT) on targets:
 * CPUs (-a/-C), threads (-p/-t), or a command it forks, held before exec
 * until the counters are open (its counters start at its exec through
 * enable_on_exec; the others when the run goes). One run is
 *   pk_stat_open   the command forked, the counters opened
 *   pk_stat_go     enabled, the clock started, the command let go
 *   pk_stat_wait   until the command's exit, a signal, the -p/-t targets'
 *                  exit or --interval-count, -I's ticks on the way (or
 *                  the caller's own wait: pk_stat_reap when the command may
 *                  have ended, pk_stat_interval for -I's deltas,
 *                  pk_stat_targets_alive for -p/-t)
 *   pk_stat_stop   the command ended (SIGTERM when still running), the
 *                  elapsed time, its wait status and resource usage
 *   pk_stat_finish disabled; the totals read into rows
 * and -r repeats it (pk_stat_rows_accumulate sums the runs, with each
 * value's spread). Rows are the counts aggregated per bucket (global, per
 * CPU with -A, per thread), each with running/enabled for the scaling.
 * It never prints, installs no signal handler and signals no process but
 * its own command (SIGTERM to end it, a Ctrl-C sent to pk_stat_wait's
 * caller alone passed on); which signals end a wait is the caller's. */
#ifndef PMUKIT_STAT_H
#define PMUKIT_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/select.h> /* sigset_t (POSIX) */
#include <sys/types.h>
#include <pmukit/counting.h>
#include <pmukit/error.h>
#include <pmukit/events.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One line of output: an evsel summed over one aggregation bucket. Only
 * the library fills rows, but callers index pk_stat_rows.v with this
 * struct's size: a field added after a release changes the ABI (the
 * soname's major version moves with it). Until 1.0, fields are appended. */
typedef struct pk_stat_row {
	const pk_evsel *evsel;
	const char *name;          /* as counted (pk_counting_name: "cycles:u" after the fallback) */
	pk_open_status status;
	int key;                   /* CPU (PK_AGGR_CPU), tid (PK_AGGR_THREAD), -1 */
	char comm[32];             /* PK_AGGR_THREAD: the thread's command name */
	pk_counts counts;          /* summed over the bucket (over -r runs: summed) */
	pk_runstats noise;         /* the scaled value over -r runs */
	/* A topology bucket's (pmukit stat --per-core/die/socket/node, whose
	 * folding of per-CPU rows sets them; 0 in the rows collected here). */
	int socket, die, id;       /* the bucket (id: core or node; -1: not of the mode) */
	int nr_cpus;               /* the CPUs summed */
} pk_stat_row;

typedef struct pk_stat_rows {
	pk_stat_row *v;
	size_t nr;
	int runs;                  /* how many runs were added */
} pk_stat_rows;

/* The rows of one reading of c (delta: since the previous read); 0 or
 * -ENOMEM (rows unchanged). */
int pk_stat_rows_collect(pk_stat_rows *rows, pk_counting *c, pk_aggr_mode aggr, bool delta);
/* A row's scaled value (pk_counts_scale) averaged over runs (-r). */
double pk_stat_row_value(const pk_stat_row *r, int runs);
/* Adds one run's rows into an accumulator of the same shape (-r): the
 * counts summed, the scaled value into noise, a failure in any run kept. */
int pk_stat_rows_accumulate(pk_stat_rows *acc, const pk_stat_rows *run);
void pk_stat_rows_free(pk_stat_rows *rows);

/* perf stat's topology buckets (--per-core, --per-die, --per-socket,
 * --per-node). */
typedef enum pk_stat_per {
	PK_STAT_PER_NONE = 0,
	PK_STAT_PER_CORE,
	PK_STAT_PER_DIE,
	PK_STAT_PER_SOCKET,
	PK_STAT_PER_NODE,
} pk_stat_per;

/* Folds per-CPU rows (PK_AGGR_CPU: keys are CPUs) into per's buckets from
 * k's topology (NULL: the real kernel), in perf 6.1's order: bucket-major
 * (socket, die, then core or node ascending), events in list order inside
 * a bucket; a folded row's key is its bucket's index, socket/die/id name
 * the bucket, nr_cpus counts its CPUs; an event no CPU of a bucket counted
 * has no row there. Nothing for PK_STAT_PER_NONE. 0 or -ENOMEM (rows
 * unchanged). */
int pk_stat_rows_per(pk_stat_rows *rows, pk_stat_per per, const pk_kernel *k);

/* perf 6.1's system-wide --per-thread rows (stat -a --per-thread): each
 * event's rows (consecutive, as collected) sorted by value, largest first,
 * equal values in collected order, the rows of value 0 dropped (every
 * thread of the system has one). */
void pk_stat_rows_threads_by_value(pk_stat_rows *rows);

/* Set size to sizeof(pk_stat_opts); new fields go at the end. */
typedef struct pk_stat_opts {
	size_t size;
	const pk_kernel *kernel;   /* NULL: the real one */
	pk_cpumap *cpus;           /* -a/-C; NULL: none */
	pk_threadmap *threads;     /* -p/-t; NULL: none */
	char **cmd;                /* the command's argv (NULL-terminated), or NULL */
	pk_aggr_mode aggr;
	/* The clock of the elapsed time and intervals in ns (a model's virtual
	 * time); NULL: CLOCK_MONOTONIC. */
	double (*clock)(void *arg);
	void *clock_arg;
	/* -D: the counters wait for pk_stat_enable (pk_stat_go starts the
	 * command alone; the evlist has no enable_on_exec) */
	bool delayed;
} pk_stat_opts;

typedef struct pk_stat pk_stat;

/* References the evlist and the targets (-EINVAL when opts->size is not
 * set). */
int pk_stat_new(pk_evlist *l, const pk_stat_opts *opts, pk_stat **out, pk_error *err);
/* Stops a command still held or running (SIGTERM) and frees s. */
void pk_stat_free(pk_stat *s);

/* A run's start: the command forked (when it cannot run:
 * pk_stat_exec_errno), the counters of the run opened. */
int pk_stat_open(pk_stat *s, pk_error *err);
/* This run's counters (after pk_stat_open). */
pk_counting *pk_stat_counting(pk_stat *s);
/* Enables the counters (a command's at its exec), starts the clock and
 * lets the command go. */
int pk_stat_go(pk_stat *s, pk_error *err);
/* -D: the counters enabled now, the run's clock started again (after
 * pk_stat_go). */
int pk_stat_enable(pk_stat *s, pk_error *err);
int pk_stat_exec_errno(const pk_stat *s);
/* The command's pid while it runs, else -1. */
pid_t pk_stat_pid(const pk_stat *s);
/* Whether the command ended (reaped now or before). */
bool pk_stat_reap(pk_stat *s);
/* Whether any thread of the -p/-t targets still exists. */
bool pk_stat_targets_alive(const pk_stat *s);
/* The clock now, from the run's start (ns). */
double pk_stat_now(const pk_stat *s);
/* -I: the counts since the previous reading, as rows. */
int pk_stat_interval(pk_stat *s, pk_stat_rows *rows, pk_error *err);

/* -I's callback: an interval ended at t_ns (the run's clock), len_ns long
 * (the same shape as pk_model_tick_fn); < 0 ends the wait with it. */
typedef int (*pk_stat_tick_fn)(void *arg, double t_ns, double len_ns, pk_error *err);

/* Set size to sizeof(pk_stat_wait_opts); new fields go at the end. */
typedef struct pk_stat_wait_opts {
	size_t size;
	/* Blocked by the caller: SIGCHLD (the command's end) and those that
	 * end a run (SIGINT, SIGTERM, SIGHUP: passed on to a command when
	 * sent to the caller alone). */
	const sigset_t *signals;
	long interval_ms;          /* -I; 0: none */
	long interval_count;       /* --interval-count; 0: no limit */
	pk_stat_tick_fn tick;      /* after each interval (with interval_ms) */
	void *arg;
	long timeout_ms;           /* --timeout: the run ends then (without -I); 0: none */
	/* called after every wake-up, at least every idle_ms (--control's
	 * commands): < 0 (err set) ends the wait with that error */
	int (*idle)(void *arg, pk_error *err);
	long idle_ms;
} pk_stat_wait_opts;

typedef struct pk_stat_waited {
	bool interrupted;          /* a signal of the set (not SIGCHLD) came */
	bool intervals_done;       /* --interval-count reached (a command got SIGTERM) */
	double last_tick_ns;       /* the last interval's end; 0: none */
	bool timed_out;            /* timeout_ms reached (pk_stat_stop ends a command) */
} pk_stat_waited;

/* Waits for the run's end (after pk_stat_go): the command's exit, a
 * signal of the set (the command, if any, goes on to its end), -p/-t
 * targets all gone (polled 4 times a second), interval_count ticks or
 * timeout_ms.
 * Intervals end at interval_ms multiples of the run's clock. 0, or the
 * tick's error. */
int pk_stat_wait(pk_stat *s, const pk_stat_wait_opts *o, pk_stat_waited *w, pk_error *err);

typedef struct pk_stat_result {
	double elapsed_ns;
	int status;                /* the command's wait status, -1 without one */
	struct rusage ru;          /* its resource usage (zero without one) */
} pk_stat_result;

/* The run's end: the command ended if still running (SIGTERM), the clock
 * stopped. */
void pk_stat_stop(pk_stat *s, pk_stat_result *res);
/* The counters disabled and, with rows, their totals read. */
int pk_stat_finish(pk_stat *s, pk_stat_rows *rows, pk_error *err);

/* ---- perf stat's runs (stat_runs.c) ---- */

/* Set size to sizeof(pk_stat_run_opts); new fields go at the end. */
typedef struct pk_stat_run_opts {
	size_t size;
	long repeat;               /* -r: the runs (0: 1); an interruption ends them */
	const sigset_t *signals;   /* as pk_stat_wait_opts' */
	long interval_ms, interval_count; /* -I, --interval-count */
	pk_stat_tick_fn tick;      /* -I: each interval, then the last partial one */
	void *arg;                 /* tick's and the hooks' */
	/* the run itself instead of pk_stat_wait (the PMU model's pk_model_run
	 * over virtual time: every interval ticked, none left partial); NULL:
	 * pk_stat_wait */
	int (*run)(void *run_arg, long interval_ms, long interval_count, pk_stat_tick_fn tick,
		   void *tick_arg, pk_error *err);
	void *run_arg;
	/* after each pk_stat_open with its result (0 or < 0), before the
	 * counters go (TopDown's check): the run's result from there */
	int (*opened)(void *arg, int rc, pk_error *err);
	/* after each run stopped, before its counts are read (so far over the
	 * runs: interrupted, intervals_done) */
	void (*stopped)(void *arg, const pk_stat_result *res, bool interrupted,
			bool intervals_done);
	pk_stat_per per;           /* each run's rows folded so (pk_stat_rows_per) */
	const pk_kernel *kernel;   /* for per: the topology's */
	bool totals;               /* with -I too, the runs' totals into acc (--summary) */
	long timeout_ms;           /* --timeout: each run's (pk_stat_wait_opts') */
	/* before each run's open (--pre, -S) and after its counts are read
	 * (--post): < 0 (err set) ends the runs with that error; NULL: none */
	int (*before)(void *arg, pk_error *err);
	int (*after)(void *arg, pk_error *err);
	/* -D (with pk_stat_opts.delayed): the counters enabled delay_ms after
	 * the run started, never when < 0; events says so (on: false before
	 * the start, true at the enabling) */
	long delay_ms;
	void (*events)(void *arg, bool on);
	int (*idle)(void *arg, pk_error *err); /* pk_stat_wait_opts' (with arg) */
	long idle_ms;
} pk_stat_run_opts;

typedef struct pk_stat_runs {
	int runs;                  /* the runs done */
	pk_runstats elapsed;       /* their elapsed seconds */
	pk_stat_result last;       /* the last run's end */
	bool interrupted;          /* a signal of the set came */
	bool intervals_done;       /* --interval-count (or the caller's run) ended the intervals */
} pk_stat_runs;

/* Every run of s (perf stat -r): open, go, wait, stop, read; without -I
 * (or with totals) the counts of all runs added up into acc. 0, or < 0 with err set (the
 * runs done so far in out; pk_stat_exec_errno says when the command could
 * not run). */
int pk_stat_runs_do(pk_stat *s, const pk_stat_run_opts *o, pk_stat_rows *acc, pk_stat_runs *out,
		    pk_error *err);
/* perf stat 6.1's exit status after the runs: the command's (its exit
 * code; 128+N for signal N that the caller passed on, SIGINT or SIGTERM, as
 * perf raising it again); 0 for a command killed by another's signal, one
 * ended at --interval-count, or none. */
int pk_stat_runs_exit_code(const pk_stat_runs *r);

#ifdef __cplusplus
}
#endif
#endif
