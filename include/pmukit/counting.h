/* pmukit: counting, the open/read/scale/aggregate layer under `pmukit stat`
 * (lib/counting).
 *
 * Shaped like libperf: a thread map (tasks to follow), per-evsel CPU maps, and
 * a pk_counting object that opens every evsel of an evlist on each
 * (cpu, thread) pair through the kernel seam (pk_kernel), with group members
 * tied to their leader's fd, reads them (plain or PERF_FORMAT_GROUP), and
 * enables, disables, resets and closes them.
 *
 *   pk_evlist (configured with pk_evlist_config)
 *     + target (cpus for -a/-C, threads for a command / -p / -t)
 *     --pk_counting_open-->  fds[evsel][cpu][thread]
 *     --pk_counting_read-->  pk_counts per fd (value, enabled, running, id)
 *     --pk_counting_aggr-->  sums per global / CPU / thread
 *     --pk_counts_scale-->   value * enabled / running, running share
 *
 * Above it, perf stat's run is a pk_stat (stat.h, stat.c: the runs of -r,
 * -I's deltas, rows per bucket), the measured command is forked and held
 * before exec by workload.h (workload.c), and -a/-C's CPUs come from
 * pk_cpumap_targets, the whole -a/-C/-p/-t choice from pk_targets_select
 * (targets.c).
 *
 * `pmukit record` reuses the open step: configure the evlist with
 * PK_CONFIG_RECORD (or tweak each attr through pk_counting_opts.tweak), open,
 * then take the fds with pk_counting_fd() to mmap ring buffers.
 *
 * Changes for an open are made on a copy. The evsel's attr is what the parser
 * and pk_evlist_config made of the event; a command may replace it before
 * opening (pk_evsel_set_attr, record's tracking bits). At open, pk_counting
 * packs a copy per evsel and applies what the session decides there: a member
 * counted apart from its leader starts as the leader would, the user-space
 * fallback sets exclude_kernel and renames cycles to cycles:u. That copy is
 * pk_counting_attr(), the name pk_counting_name(); the tweak callback gets a
 * further copy per (cpu, thread) (record's ring watermark). The evsel is never
 * written by an open, so the same evlist opens the same way twice. A
 * pk_counting holds references on its evlist, target CPU map and thread map.
 *
 * Files: counting.c (open, read, aggregate, enable, close, the fallbacks and
 * their messages, pk_counting_explain), counts.c (the read(2) layouts, group
 * reads included, multiplex scaling, run statistics), threadmap.c
 * (thread maps; a task's comm through the seam), default_events.c (perf
 * stat's default event set), selfread.c (the self-monitoring read of a user
 * page with RDPMC: the documented loop with injected rdpmc/rdtsc, internal
 * counting/selfread.h, for the model and the region library). */
#ifndef PMUKIT_COUNTING_H
#define PMUKIT_COUNTING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmukit/cpumap.h>
#include <pmukit/error.h>
#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/pmu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Thread maps ------------------------------------------------------- */

/* Tasks (thread ids) to count, reference counted. Entry -1 means "every
 * task" (system-wide counting on CPUs). */
typedef struct pk_threadmap pk_threadmap;

pk_threadmap *pk_threadmap_new(const pid_t *tids, int nr);
/* The map {-1}: system-wide, one fd per CPU. */
pk_threadmap *pk_threadmap_any(void);
/* -p "PID[,PID...]": every thread of each process, as kernel k (NULL: the
 * real one) lists them (host.tasks). A process that does not exist is an
 * error (-ESRCH) naming it. The map asks k for the threads' names. */
pk_threadmap *pk_threadmap_from_pids(const pk_kernel *k, const char *list, pk_error *err);
/* -t "TID[,TID...]": exactly these threads (each must exist in k). */
pk_threadmap *pk_threadmap_from_tids(const pk_kernel *k, const char *list, pk_error *err);
/* The CPUs of -a (cpu_list NULL: every online CPU of kernel k, NULL: the
 * real one) or -C cpu_list: every CPU listed must be online (else -EINVAL
 * naming it and the online CPUs), and an empty list is refused. */
pk_cpumap *pk_cpumap_targets(const pk_kernel *k, const char *cpu_list, pk_error *err);

/* What stat and record count: -a/-C's CPUs (pk_cpumap_targets), -p's or
 * -t's threads, else every_task's default or nothing. Set size to
 * sizeof(pk_targets_opts); new fields go at the end. */
typedef struct pk_targets_opts {
	size_t size;
	const pk_kernel *kernel;   /* NULL: the real one */
	bool all_cpus;             /* -a */
	const char *cpu_list;      /* -C */
	const char *pids, *tids;   /* -p, -t */
	bool every_task;           /* none of them: every task of kernel (a model's threads) */
	bool any_with_cpus;        /* with CPUs, threads {-1} too (record's rings per CPU) */
} pk_targets_opts;
/* Sets *cpus and *threads (each NULL when not chosen; both NULL when
 * nothing was and every_task is not set). 0, or a negative errno with err
 * set and nothing returned. */
int pk_targets_select(const pk_targets_opts *o, pk_cpumap **cpus, pk_threadmap **threads,
		      pk_error *err);
/* Every task kernel k (NULL: the real one) lists (host.tasks of pid 0),
 * in its order, without checking each: one that exits before its counter
 * is opened is dropped then (pk_counting_opts.drop_exited_threads); perf
 * stat -a --per-thread's threads, a model's scenario threads. */
pk_threadmap *pk_threadmap_every_task(const pk_kernel *k, pk_error *err);
pk_threadmap *pk_threadmap_get(pk_threadmap *map);
void pk_threadmap_put(pk_threadmap *map);
int pk_threadmap_nr(const pk_threadmap *map);
pid_t pk_threadmap_tid(const pk_threadmap *map, int idx);
/* The thread's command name (host.task of the map's kernel; the real one
 * for pk_threadmap_new/any), asked once and cached; "?" when the thread is
 * gone. Not thread-safe. */
const char *pk_threadmap_comm(pk_threadmap *map, int idx);

/* ---- Counts and scaling ------------------------------------------------ */

/* One reading of one counter (or a sum of several). */
typedef struct pk_counts {
	uint64_t val;              /* raw count */
	uint64_t ena;              /* time enabled, ns */
	uint64_t run;              /* time running on the PMU, ns */
	uint64_t id;               /* kernel event id (PERF_FORMAT_ID), 0 if unknown */
	uint64_t lost;             /* PERF_FORMAT_LOST, 0 if not asked */
} pk_counts;

typedef struct pk_scaled {
	double value;              /* val * ena / run when multiplexed, else val */
	double running_pct;        /* 100 * run / ena (100 when ena is 0 but run is not) */
	bool counted;              /* false when the counter never ran (run == 0) */
	bool scaled;               /* true when run < ena: the value is an estimate */
} pk_scaled;

/* perf's scaling: a multiplexed counter's value is extrapolated to the whole
 * enabled time. */
void pk_counts_scale(const pk_counts *counts, pk_scaled *out);

/* Parses what read(2) returned for an fd with this read_format: one counter
 * (no PERF_FORMAT_GROUP) into out[0], or a group into out[0..n). Returns the
 * number of counters parsed, or -EINVAL when len is short or malformed. */
int pk_counts_parse(uint64_t read_format, const void *buf, size_t len, pk_counts *out,
		    size_t max);

/* ---- Counting ---------------------------------------------------------- */

/* What happened when an evsel was opened. */
typedef enum pk_open_status {
	PK_OPEN_NONE = 0,          /* not opened (yet) */
	PK_OPEN_OK,                /* open on every (cpu, thread) it should be */
	PK_OPEN_UNSUPPORTED,       /* the kernel rejected it: ENOENT, EOPNOTSUPP, EINVAL, ... */
	PK_OPEN_NO_CPUS,           /* none of the target CPUs is one its PMU counts on */
	PK_OPEN_GROUP_FAILED,      /* its group leader could not be opened */
} pk_open_status;

/* Called for every open, on a copy of the attr as opened (pk_counting_attr):
 * the caller may change it for this (cpu, thread) before the syscall; the
 * evsel is not changed. Return 0 to go
 * on, or a negative errno to fail the open with it. */
typedef int (*pk_attr_tweak_fn)(void *arg, const pk_evsel *evsel, int cpu, pid_t tid,
				struct perf_event_attr *attr);

typedef struct pk_counting_opts {
	/* Kernel interface; NULL: pk_kernel_linux(). */
	const pk_kernel *kernel;
	/* -a / -C: the CPUs to count on; each evsel uses these intersected with
	 * its PMU's CPUs. NULL: per-thread counting (cpu -1), except PMUs that
	 * only count per CPU (cpumask, e.g. uncore), which use their mask. */
	pk_cpumap *cpus;
	/* Tasks to follow; NULL: pk_threadmap_any() (requires cpus). */
	pk_threadmap *threads;
	/* Extra perf_event_open flags; PERF_FLAG_FD_CLOEXEC is always set. */
	unsigned long open_flags;
	/* perf stat's rule: an evsel the kernel rejects (ENOENT, EOPNOTSUPP,
	 * EINVAL, ENXIO, ENODEV, ENOSYS) is marked PK_OPEN_UNSUPPORTED and the
	 * others go on. false: the first failure fails pk_counting_open. */
	bool skip_unsupported;
	/* On EACCES/EPERM for an event that counts the kernel while
	 * perf_event_paranoid > 1, retry it user-space only (exclude_kernel,
	 * exclude_hv) and add ":u" to its name, as perf does. */
	bool exclude_kernel_fallback;
	/* perf_event_paranoid for messages and the fallback; INT_MIN: ask the
	 * kernel (PK_HOST_PARANOID of its host facts) when needed. */
	int paranoid;
	/* 1: the process has CAP_PERFMON or CAP_SYS_ADMIN, so perf_event_paranoid
	 * does not limit it (no fallback, other advice); 0: it has neither;
	 * -1: read the effective capabilities when needed. */
	int perfmon_capable;
	/* A thread that exits between listing and opening (ESRCH) is dropped
	 * instead of failing the open, when more than one thread is followed. */
	bool drop_exited_threads;
	/* Called before every open; may be NULL. */
	pk_attr_tweak_fn tweak;
	void *tweak_arg;
} pk_counting_opts;

/* Fills opts with perf stat's defaults (skip_unsupported,
 * exclude_kernel_fallback, drop_exited_threads, paranoid INT_MIN,
 * perfmon_capable -1). */
void pk_counting_opts_init(pk_counting_opts *opts);

typedef struct pk_counting pk_counting;

/* Prepares counting of every evsel of evlist (configured with
 * pk_evlist_config) on the target. Holds references on evlist, cpus, threads.
 * Computes each evsel's CPU map; opens nothing. */
pk_counting *pk_counting_new(pk_evlist *evlist, const pk_counting_opts *opts, pk_error *err);
/* Closes and frees. */
void pk_counting_free(pk_counting *c);

/* Opens every evsel on its (cpu, thread) pairs. Group members pass their
 * leader's fd on the same pair as group_fd. Errors that stop everything
 * (EACCES/EPERM, EMFILE/ENFILE, EBUSY, ESRCH for the only thread, or any
 * failure without skip_unsupported) close what was opened and return a
 * negative errno with an actionable message in err. Rejected evsels get
 * PK_OPEN_UNSUPPORTED and their errno (pk_counting_errno); that is not an
 * error of the open as a whole (perf stat prints them <not supported>).
 * Returns 0 or the negative errno of a failure that stops everything. */
int pk_counting_open(pk_counting *c, pk_error *err);
/* Closes every fd; the object can be opened again (a new run). */
void pk_counting_close(pk_counting *c);

/* ioctl on every open leader (group members follow their leader). */
int pk_counting_enable(pk_counting *c, pk_error *err);
int pk_counting_disable(pk_counting *c, pk_error *err);
int pk_counting_reset(pk_counting *c, pk_error *err);

/* Reads every open counter (a group with one read of its leader when the
 * leader's read_format has PERF_FORMAT_GROUP). The previous readings are kept
 * for deltas (interval printing). A tool event (pk_evsel_tool) is not read:
 * its first open slot takes the value set by pk_counting_set_tool (as its
 * count, time enabled and running, as perf's), the others 0; a group it
 * leads reads nothing (perf 6.1: <not counted>). */
int pk_counting_read(pk_counting *c, pk_error *err);
/* The value (ns, cumulative since the start) the next reads give tool event
 * t; 0 until set. */
void pk_counting_set_tool(pk_counting *c, pk_tool_event t, uint64_t ns);

pk_evlist *pk_counting_evlist(const pk_counting *c);
const pk_kernel *pk_counting_kernel(const pk_counting *c);
pk_threadmap *pk_counting_threads(const pk_counting *c);
/* The CPUs evsel idx is opened on; the map {-1} in per-thread counting. */
pk_cpumap *pk_counting_cpus(const pk_counting *c, size_t evsel_idx);
pk_open_status pk_counting_status(const pk_counting *c, size_t evsel_idx);
/* The evsel index of the leader evsel idx is opened with (its own when
 * counted alone: a lone event, a member counted apart, a weak group (:W)
 * the kernel refused and that was opened as lone events); -1: no such. */
long pk_counting_leader(const pk_counting *c, size_t evsel_idx);
/* The name evsel idx is counted under: the evsel's, with ":u" after the
 * user-space fallback (exclude_kernel_fallback); NULL when it has none. */
const char *pk_counting_name(const pk_counting *c, size_t evsel_idx);
/* The attr as opened (before the per-open tweak), packed into buf (at least
 * PK_ATTR_SIZE_CONFIG3 bytes) like pk_evsel_pack_attr: the evsel's attr with
 * what counting changed for the open on a copy (the user-space fallback, a
 * member counted apart from its leader). Returns attr.size, 0 for no such
 * evsel. */
size_t pk_counting_attr(const pk_counting *c, size_t evsel_idx, void *buf);
/* The errno (positive) that made an evsel unsupported, 0 otherwise. */
int pk_counting_errno(const pk_counting *c, size_t evsel_idx);
/* The fd for (evsel, cpu index, thread index), -1 when not open. */
int pk_counting_fd(const pk_counting *c, size_t evsel_idx, int cpu_idx, int thread_idx);
/* Kernel id of that fd (PERF_EVENT_IOC_ID at open), 0 when not open. */
uint64_t pk_counting_id(const pk_counting *c, size_t evsel_idx, int cpu_idx, int thread_idx);
/* Last reading of that fd (zeros before the first read or when not open). */
const pk_counts *pk_counting_counts(const pk_counting *c, size_t evsel_idx, int cpu_idx,
				    int thread_idx);

/* Why evsel idx could not be opened, as an actionable message (what the
 * errno means for this event, the attr field most likely at fault, what to
 * change) in err; returns its negative errno, or 0 when it is open. pmus
 * (may be NULL) tells apart "no core PMU at all" (a VM without PMU
 * virtualization) from an event this PMU lacks. */
int pk_counting_explain(const pk_counting *c, size_t evsel_idx, const pk_pmus *pmus,
			pk_error *err);

/* One reason events could not be counted. */
typedef struct pk_counting_note {
	pk_error why;              /* pk_counting_explain's message and hint */
	size_t nr_events;          /* the events it explains */
} pk_counting_note;
/* The reasons the events of c that are unsupported or on no CPU of their
 * PMU could not be counted, each message once, in the order of its first
 * event (*out to free; none: NULL, 0). 0 or -ENOMEM. */
int pk_counting_notes(const pk_counting *c, const pk_pmus *pmus, pk_counting_note **out,
		      size_t *nr);

/* How counts are summed for printing. */
typedef enum pk_aggr_mode {
	PK_AGGR_GLOBAL = 0,        /* one sum per evsel */
	PK_AGGR_CPU,               /* one per CPU (-A) */
	PK_AGGR_THREAD,            /* one per thread (--per-thread) */
} pk_aggr_mode;

/* Number of buckets of evsel idx in this mode: 1, its CPUs, or the threads. */
int pk_counting_nr_aggr(const pk_counting *c, size_t evsel_idx, pk_aggr_mode mode);
/* Sum of val/ena/run over the fds in bucket b. delta: since the previous
 * read instead of since open. *key gets the CPU number (PK_AGGR_CPU), the
 * tid (PK_AGGR_THREAD), or -1. */
int pk_counting_aggr(const pk_counting *c, size_t evsel_idx, pk_aggr_mode mode, int bucket,
		     bool delta, pk_counts *out, int *key);

/* ---- Default event set --------------------------------------------------- */

/* Appends perf stat's default events: task-clock, context-switches,
 * cpu-migrations, page-faults; then cycles, [stalled-cycles-frontend,
 * stalled-cycles-backend when the core PMU has those aliases,] instructions,
 * branches, branch-misses. On a hybrid machine each hardware event once per
 * core PMU (cpu_core first), named "cpu_core/cycles/", with the PMU type in
 * config's upper bits. With no core PMU in sysfs only the software events
 * are added (pmus may be NULL: the same). */
int pk_evlist_add_default_stat(pk_evlist *evlist, const pk_pmus *pmus, pk_error *err);
/* The same for a target: cpus (system-wide, -a or -C) counts cpu-clock in
 * place of task-clock, as perf 6.1. */
int pk_evlist_add_default_stat_on(pk_evlist *evlist, const pk_pmus *pmus, bool cpus,
				  pk_error *err);
/* Appends perf stat's detailed events of -d (level 1: L1-dcache-loads and
 * misses, LLC-loads and misses), -dd (2: the L1-icache, dTLB and iTLB pairs
 * too) or -ddd (3: and the L1-dcache prefetch pair), each once per core PMU
 * on a hybrid machine, whether or not a PMU counts them (perf's
 * <not supported>). */
int pk_evlist_add_detailed_stat(pk_evlist *evlist, const pk_pmus *pmus, int level, pk_error *err);

/* ---- Repeated runs (-r) -------------------------------------------------- */

/* Running mean and variance (Welford), for perf's "+- x.xx%" lines. */
typedef struct pk_runstats {
	double n, mean, m2;
} pk_runstats;

void pk_runstats_add(pk_runstats *s, double value);
/* Standard deviation of the mean (0 with fewer than two values). */
double pk_runstats_stddev_mean(const pk_runstats *s);
/* That as a percentage of the mean (0 when the mean is 0). */
double pk_runstats_rel_pct(const pk_runstats *s);

#ifdef __cplusplus
}
#endif
#endif
