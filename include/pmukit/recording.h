/* pmukit: a whole recording into perf.data, what `pmukit record` runs.
 *
 * A pk_recording is perf record's engine above pk_recorder (record.h): the
 * events parsed (perf's default when none), the tracking event (a dummy in
 * system-wide mode, with a delay, on hybrid machines), sample_type and the
 * rest of each attr from the options, an Arm SPE event's setup and its
 * AUX area, the targets (CPUs, threads, a command forked and held before
 * exec), the output begun with its header features, the state before the
 * recording synthesized, passes over the rings until the caller stops or
 * the targets are gone, the BUILD_ID pass and the file closed, with the
 * numbers of the closing lines.
 *
 * Steps, in this order (each returns 0 or a negative errno with err set):
 *   pk_recording_new        events parsed; pk_recording_evlist to inspect
 *   pk_recording_configure  attrs as perf 6.1 sets them for the options
 *   pk_recording_open       targets resolved, command forked, rings mapped
 *   pk_recording_begin      output opened with its header features
 *   pk_recording_start      synthesized state, events enabled, command let go
 *   pk_recording_step       one pass (repeat while it returns 1)
 *   pk_recording_finish     last pass, lost counts, BUILD_ID, file closed
 *   pk_recording_free       the command stopped if still held or running
 * It never prints and installs no signal handler: the caller stops the
 * loop (its own signal flag) and words what the notes and stats say. */
#ifndef PMUKIT_RECORDING_H
#define PMUKIT_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/record.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the recording notes on the way, for the caller to word (perf says
 * these on stderr); a and b as given per kind, text may be NULL. */
typedef enum pk_recording_note {
	PK_RECNOTE_FREQ_MAX = 1,     /* -F max: a = the kernel's maximum rate */
	PK_RECNOTE_FREQ_LOWERED,     /* a = the maximum, b = the rate asked (0: the default) */
	PK_RECNOTE_DWARF_REGS,       /* --call-graph dwarf with a user register subset */
	PK_RECNOTE_SPE_PERIOD,       /* text = the PMU, a = -c, b = the driver's period */
	PK_RECNOTE_SPE_NO_CONTEXT,   /* SPE without CAP_PERFMON: no CONTEXT packets */
	PK_RECNOTE_NO_TRACING_DATA,  /* text = why (no tracefs): perf will refuse the file */
	PK_RECNOTE_EVENTS_DISABLED,  /* a delay: the events wait */
	PK_RECNOTE_EVENTS_ENABLED,   /* the delay has passed */
	PK_RECNOTE_SIZE_LIMIT,       /* a = the file's data size: the recording stops */
	PK_RECNOTE_BUILDID_CACHE,    /* text = why an object is not in the build-id
	                              * cache (a = how many are not) */
	PK_RECNOTE_CLOCK_RES,        /* -k: the clock's resolution unknown (a = the clock) */
} pk_recording_note;

typedef void (*pk_recording_note_fn)(void *arg, pk_recording_note note, uint64_t a, uint64_t b,
				     const char *text);

/* --synth's words (perf 6.1's): what record synthesizes of the state
 * before it. mmap implies task; NONE: only the kernel map and a forked
 * command's name. */
enum {
	PK_SYNTH_TASK = 1, PK_SYNTH_MMAP = 2, PK_SYNTH_CGROUP = 4, PK_SYNTH_NONE = 8,
};

/* The options, perf record's. Set size to sizeof(pk_recording_opts) (new
 * fields go at the end; zero is every field's default). */
typedef struct pk_recording_opts {
	size_t size;
	const pk_kernel *kernel;     /* NULL: the real one */
	const char *sysfs_root;      /* the PMUs' sysfs (NULL: /sys) */
	const char *cpuid;           /* the CPU for event tables (NULL: the host's) */
	const char *const *events;   /* -e strings; none: cycles, or cpu-clock */
	size_t nr_events;
	uint64_t freq, period;       /* -F, -c; neither: 4000 Hz */
	bool freq_max;               /* -F max */
	int call_graph;              /* PK_CALL_GRAPH_*, 0: none */
	uint32_t stack_dump;         /* dwarf,SIZE (0: 8192) */
	uint16_t max_stack;          /* fp,N */
	/* targets: cpu_list or system_wide (-a), pids, tids, a command */
	bool system_wide;
	const char *cpu_list, *pids, *tids;
	char **cmd;                  /* NULL-terminated argv, or NULL */
	size_t mmap_pages, aux_pages; /* -m PAGES,AUX (0: 128, the AUX PMU's default) */
	int spe_meta;                /* AUXTRACE_INFO version for arm_spe (0: 1) */
	bool sample_addr, sample_cpu, inherit_stat, sample_period, weight, raw;
	bool no_inherit, per_thread, sample_identifier, all_user, all_kernel;
	bool namespaces, all_cgroups, switch_events;
	uint64_t sample_extra;       /* PHYS_ADDR, DATA/CODE_PAGE_SIZE */
	uint64_t user_regs, intr_regs;
	uint64_t branch;             /* branch_sample_type */
	int64_t delay_ms;            /* -D */
	uint64_t max_size;           /* stop at this data size (0: none) */
	int compress;                /* zstd level (0: none) */
	bool no_buildid;             /* -B: no BUILD_ID pass */
	const char *output;          /* "-": pipe mode on stdout; NULL: perf.data */
	int argc;                    /* CMDLINE feature */
	char *const *argv;
	pk_recording_note_fn note;
	void *note_arg;
	/* a model's kernel: the targets as pk_targets_select chooses them
	 * there (-a/-C: its CPUs, every task; else a ring per thread: -p/-t, or
	 * every task of the kernel), no command */
	bool every_task;
	/* the BUILD_ID pass: every object mapped, hit or not (--buildid-all);
	 * its objects kept in perf's build-id cache (buildid_cache.h) unless
	 * no_buildid_cache (-N), in buildid_dir (NULL: the default) */
	bool buildid_all, no_buildid_cache;
	const char *buildid_dir;
	/* -k: the events' clock (attr use_clockid, clockid), the CLOCKID and
	 * CLOCK_DATA features written (its resolution, a reference time) */
	bool use_clockid;
	int clockid;
	/* --user-callchains / --kernel-callchains: the other side's chain
	 * left out (exclude_callchain_kernel / _user) */
	bool user_callchains, kernel_callchains;
	bool running_time;           /* read_format's TOTAL_TIME_ENABLED|RUNNING */
	bool no_samples;             /* no sampling: sample_freq/period 0 */
	bool no_buffering;           /* a wakeup per event (wakeup_events 1) */
	bool strict_freq;            /* -F above the kernel's maximum: refused, not lowered */
	/* --synth: the state synthesized before the recording, PK_SYNTH_*
	 * bits (0: all of it); tail_synth: synthesized at the end instead */
	unsigned synth;
	bool tail_synth;
} pk_recording_opts;

typedef struct pk_recording pk_recording;

/* --call-graph MODE[,SIZE] into o as perf 6.1 takes it: fp (SIZE: at most
 * that many entries, max_stack; 127 and more: the kernel's), dwarf (SIZE:
 * the user stack dump, rounded up to 8 bytes, 8..65528; sample_addr set,
 * as perf's record does for the data maps), lbr. -EINVAL with err quoting
 * arg (o unchanged). */
int pk_recording_call_graph(pk_recording_opts *o, const char *arg, pk_error *err);
/* --max-size SIZE into o->max_size: a number with an optional unit (B, K,
 * M, G, T: perf's). -EINVAL with err quoting arg (o unchanged). */
int pk_recording_max_size(pk_recording_opts *o, const char *arg, pk_error *err);
/* -k NAME|NUMBER into o (use_clockid, clockid) as perf 6.1 takes it: a
 * number, or monotonic, monotonic_raw, realtime, boottime, tai (mono, raw,
 * real, boot; case and a CLOCK_ prefix ignored). -EINVAL with err quoting
 * arg (o unchanged). */
int pk_recording_clockid(pk_recording_opts *o, const char *arg, pk_error *err);
/* -u USER (a name or a number): the processes USER runs now on kernel k
 * (NULL: the real one; their effective user, pk_host_task.uid; the
 * caller's own left out), as a -p list "PID,PID..." into buf. -EINVAL: no
 * such user (perf's words), -ESRCH: none running, -ENOSPC: buf too small;
 * err says which. */
int pk_recording_uid_pids(const pk_kernel *k, const char *user, char *buf, size_t n,
			  pk_error *err);
/* --synth WORD[,WORD...] into o->synth: no, all, task, mmap (with task),
 * cgroup. -EINVAL with perf's words quoting arg (o unchanged). */
int pk_recording_synth(pk_recording_opts *o, const char *arg, pk_error *err);
/* The options together, as perf record 6.1 takes them: -F or -c, one kind
 * of target, -z not to a pipe, a command or targets (model: the scenario's
 * threads, no command). 0, or -EINVAL with err saying which rule. */
int pk_recording_opts_check(const pk_recording_opts *o, bool model, pk_error *err);

/* What the closing lines say. */
typedef struct pk_recording_totals {
	uint64_t wakeups;            /* passes after which data was ready */
	uint64_t bytes;              /* the data written to the output */
	uint64_t samples;            /* the samples that reached the output */
	const pk_record_stats *rings; /* what the rings gave */
} pk_recording_totals;

/* Loads the PMUs and parses the events (-ENOMEM, or the parser's error;
 * -EINVAL when opts->size is not set). */
int pk_recording_new(const pk_recording_opts *opts, pk_recording **out, pk_error *err);
void pk_recording_free(pk_recording *r);
/* The events (their warnings: pk_evlist_warning). */
pk_evlist *pk_recording_evlist(pk_recording *r);
/* Tracking, sample bits, periods, the AUX event's rules. On failure,
 * pk_recording_refused says whether the options were refused by an AUX
 * PMU's rules (a usage error) rather than failing. */
int pk_recording_configure(pk_recording *r, pk_error *err);
bool pk_recording_refused(const pk_recording *r);
/* Targets chosen by the caller (a model's threads) instead of the options':
 * threads, and cpus (NULL: per thread); references taken. Before open. */
void pk_recording_set_targets(pk_recording *r, pk_cpumap *cpus, pk_threadmap *threads);
/* Targets, the command forked (pk_recording_exec_errno when it cannot
 * run), the events opened with their rings. */
int pk_recording_open(pk_recording *r, pk_error *err);
int pk_recording_exec_errno(const pk_recording *r);
/* The output begun (an existing file kept as <output>.old) with the
 * header's features. On failure, no finish: free drops the output. */
int pk_recording_begin(pk_recording *r, pk_error *err);
/* The state before the recording written, events on, the command let go.
 * When the command could not run after all, the output is removed (the old
 * file back) and the exec errno is set: no finish then. Other failures:
 * finish with ok false. */
int pk_recording_start(pk_recording *r, pk_error *err);
/* One pass: waits up to 100 ms, copies the rings out. 1: go on; 0: done
 * (the command ended, every target is gone, the size limit); <0: error. */
int pk_recording_step(pk_recording *r, pk_error *err);
/* With ok, the last pass, the lost counts and the BUILD_ID pass; then the
 * file closed. Returns the first error; the stats are set either way. */
int pk_recording_finish(pk_recording *r, bool ok, pk_error *err);
/* The events on or off (a control command's enable/disable; on ends -D's
 * wait). 0, or a negative errno with err set. */
int pk_recording_enable(pk_recording *r, bool on, pk_error *err);
/* --switch-output: the output finished as pk_recording_finish finishes it
 * (its last records, BUILD_ID), renamed to dump, and a new one begun under
 * the output's name with the state synthesized again (the running command's
 * task and maps). The stats are the dumped file's. Not in a pipe (-EINVAL).
 * On failure the recording has no output: finish with ok false. */
int pk_recording_switch(pk_recording *r, const char *dump, pk_error *err);
const pk_recording_totals *pk_recording_stats(const pk_recording *r);
/* The data written to the current output so far (--switch-output=SIZE's
 * measure; 0 without an output). */
uint64_t pk_recording_output_size(const pk_recording *r);
/* The command's wait status once it ended during the recording. */
bool pk_recording_child_status(const pk_recording *r, int *status);
/* The AUX PMU's name (NULL: none); *discard: its data was discarded. */
const char *pk_recording_aux_pmu(const pk_recording *r, bool *discard);
bool pk_recording_pipe(const pk_recording *r);

#ifdef __cplusplus
}
#endif
#endif
