/* pmukit: a perf.data session, the engine of `pmukit script` and `report`.
 *
 * A pk_session reads a perf.data (a file, a pipe "-", or perf record
 * --threads' directory) in time order and hands each sample to a callback
 * after the task state (comm, maps) has taken every earlier record, so
 * the sample's thread, map and symbol resolve as perf resolves them
 * (pk_session_machine, pk_machine_lookup). On the way it makes what perf
 * makes of the raw records: one sample per counter of a PERF_SAMPLE_READ
 * group (the counter's growth since its last sample), the user stack of a
 * --call-graph dwarf sample unwound, the call stack of a --call-graph lbr
 * sample stitched, Arm SPE's and Intel PT's AUXTRACE data decoded into
 * synthetic samples merged by time with the file's records, tracepoint
 * payloads.
 *
 * Nothing is lost without a word: what the reader skipped (per kind, how
 * many, the first file offset), what could not be unwound or decoded, is
 * said through the message callback (or kept, pk_session_warning) when the
 * session finishes. The library never prints.
 *
 * Ownership: pk_session_open gives a session the caller closes; the reader
 * and the machine belong to it. Events and samples handed to callbacks are
 * borrowed for the call.
 *
 * lib/session (issue 21, docs/perfdata.md "The session"): pd_session.c, the
 * read loop (perf's owner check unless forced; PERF_SAMPLE_READ samples
 * handed out per counter with their deltas; --call-graph dwarf samples with
 * their unwound chains and inlined functions; --call-graph lbr samples with
 * their user chains stitched from the LBR call stack; the closing words: the
 * reader's warnings, what it dropped per kind with the first file offset,
 * what was not unwound, an error when nothing could be decoded); messages go
 * to the caller's callback as they arise (pk_session_msg_fn), errors are
 * returned. pd_spe.c, Arm SPE's AUX data: AUXTRACE buffers queued per CPU,
 * decoded lazily into perf 6.1's synthetic samples on synthetic evsels,
 * merged by time with the file's records through perf's heap order and
 * TIME_CONV, CPU to task from CONTEXT packets and switches, hooks for -D's
 * dump and --csv/--jsonl. pd_ipt.c, Intel PT's the same way: each queue's
 * packets through lib/intelpt's trace decoder into perf 6.1's psb, cbr,
 * branches samples and instruction trace errors, with the --itrace
 * defaults of script and report. pd_cputask.c, each CPU's task from context
 * switches, shared by both. pd_trace.c, tracepoint payloads. session.c, the
 * public face: opaque with accessors, the hooks the CLI sets
 * (pk_session_after_dump, pk_session_on_feature, pk_session_spe_dump,
 * pk_session_spe_export, pk_session_on_spe_sample) and the views it reads
 * per sample (pk_session_spe_same, pk_session_chain_inlines,
 * pk_session_trace_text). Internal state in session/pd_session.h (lib/hist
 * reads it). */
#ifndef PMUKIT_SESSION_H
#define PMUKIT_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/perfdata.h>
#include <pmukit/spe.h>
#include <pmukit/symbols.h>
#include <pmukit/tracedata.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_session pk_session;

/* A message for the user: a warning (a command prints it after its own
 * "warning: " prefix) or a note whose text is complete as it stands. */
typedef enum pk_session_msg { PK_SESSION_WARNING, PK_SESSION_NOTE } pk_session_msg;
typedef void (*pk_session_msg_fn)(void *arg, pk_session_msg kind, const char *text);

typedef struct pk_session_opts {
	size_t size;                 /* sizeof(pk_session_opts), set by _init: fields are
					only ever added at the end */
	bool no_order;               /* records as they are in the file, not by time */
	bool force;                  /* read a file another user owns (perf's -f) */
	bool rounds;                 /* FINISHED_ROUND records to the event callback too */
	const pk_machine_opts *machine; /* the symbol options; NULL: the defaults */
	pk_session_msg_fn msg_fn;    /* NULL: messages kept, pk_session_warning */
	void *msg_arg;
} pk_session_opts;
void pk_session_opts_init(pk_session_opts *o);

/* input NULL: stdin when it is a pipe, else "perf.data" (perf's rule).
 * Without force, a file owned by neither the effective user nor root is
 * refused (-EPERM) as perf refuses it. */
int pk_session_open(const char *input, const pk_session_opts *o, pk_session **out, pk_error *err);
void pk_session_close(pk_session *s);

/* Each sample, in time order, after the task state took the records
 * before it. A nonzero result stops the run and is returned by it. */
typedef int (*pk_session_sample_fn)(void *arg, pk_session *s, const pk_pd_event *ev,
				    const pk_pd_sample *sample);
/* Each other record, before (before true) and after the task state took it. */
typedef void (*pk_session_event_fn)(void *arg, pk_session *s, const pk_pd_event *ev, bool before);
/* Each Arm SPE record with packets, as it comes out: its task's pid and
 * its CPU's MIDR. A nonzero result stops the run. */
typedef int (*pk_session_spe_fn)(void *arg, pk_session *s, const pk_spe_record *r, int64_t pid,
				 uint32_t midr);
void pk_session_on_event(pk_session *s, pk_session_event_fn fn, void *arg);
void pk_session_on_spe_record(pk_session *s, pk_session_spe_fn fn, void *arg);
/* Arm SPE's synthetic samples: the kinds --itrace names (perf's syntax). */
int pk_session_set_itrace(pk_session *s, const char *itrace, pk_error *err);

/* Runs to the end of the data (fn NULL: the records are walked, the
 * task state kept, no sample handed out): 0, the callback's nonzero
 * result, or a negative errno (err says what and where; the samples
 * before the damage have been handed out). */
int pk_session_run(pk_session *s, pk_session_sample_fn fn, void *arg, pk_error *err);
/* The closing words: what the reader warned about and dropped, what was
 * not unwound or decoded, as messages. Returns 0, -ENODATA (err says so)
 * when samples were there and none could be decoded, or -ENOMSG when the
 * file's Arm SPE records gave no sample of the kinds asked for. */
int pk_session_finish(pk_session *s, pk_error *err);

/* The parts, borrowed: the reader (header, features, events) and the
 * machine (threads, maps, symbols as of the current record). */
pk_pd_reader *pk_session_reader(const pk_session *s);
pk_machine *pk_session_machine(const pk_session *s);
const char *pk_session_input(const pk_session *s);
/* Samples handed out so far. */
uint64_t pk_session_nr_samples(const pk_session *s);
/* The file's events, then the synthetic ones of its AUX data (Arm SPE's
 * l1d-miss, ...): evsel->idx is the index here. */
size_t pk_session_nr_evsels(const pk_session *s);
const pk_pd_evsel *pk_session_evsel_at(const pk_session *s, size_t idx);
/* Whether some event of the file samples with those sample_type bits (all
 * of them: PERF_SAMPLE_CPU, ...), as perf's checks of -C and the like ask. */
bool pk_session_samples_with(const pk_session *s, uint64_t sample_type);
/* The inlined function shown at entry i of a sample's chain ("name
 * (inlined)", --call-graph dwarf), or NULL; it lives as long as s. */
const char *pk_session_chain_inlined(const pk_session *s, const pk_pd_sample *smp, uint64_t i);
/* The same for the whole chain: the array of them by entry (NULL entries
 * for addresses shown as usual), or NULL when the chain has none. */
const char *const *pk_session_chain_inlines(const pk_session *s, const pk_pd_sample *smp);
/* Messages kept when the options gave no callback (NULL past the end). */
const char *pk_session_warning(const pk_session *s, size_t idx);

/* ---- Intel PT (docs/intelpt.md) ----
 * Its synthesized samples come on synthetic evsels after the file's:
 * `branches` (PERF_TYPE_HARDWARE, branch instructions, period 1: perf's
 * BTS-like layout, ip => addr), `cbr` and `psb` (attr.type
 * PK_SESSION_SYNTH_TYPE, config PK_SESSION_SYNTH_CBR / _PSB) whose sample's
 * raw data is a pk_session_ipt_payload. Errors go to the error hook. */
#define PK_SESSION_SYNTH_TYPE 0x80000000u
enum { PK_SESSION_SYNTH_CBR = 5, PK_SESSION_SYNTH_PSB = 6 };
typedef struct pk_session_ipt_payload {
	uint64_t psb_offset;         /* psb: the PSB's offset in its queue's data */
	uint32_t cbr;                /* cbr: the core:bus ratio (x 100 MHz) */
	uint32_t max_nonturbo;       /* cbr: the AUXTRACE_INFO's max non-turbo ratio */
} pk_session_ipt_payload;
/* An instruction trace error (perf's AUXTRACE_ERROR, type 1), in time order
 * with the samples; msg is perf's text of code. */
typedef struct pk_session_itrace_error {
	uint32_t type, code, cpu;
	int32_t pid, tid;
	uint64_t ip, time;
	const char *msg;
} pk_session_itrace_error;
typedef int (*pk_session_itrace_error_fn)(void *arg, pk_session *s,
					  const pk_session_itrace_error *e);
void pk_session_on_itrace_error(pk_session *s, pk_session_itrace_error_fn fn, void *arg);
/* Intel PT's default --itrace: script's (calls and trace ends, power
 * events, errors: the default), report's (power events and errors, no
 * branches), or none (perf 6.1's report --stats and --tasks decode nothing). */
typedef enum pk_session_itrace_for {
	PK_ITRACE_SCRIPT = 0, PK_ITRACE_REPORT, PK_ITRACE_NONE
} pk_session_itrace_for;
void pk_session_itrace_default(pk_session *s, pk_session_itrace_for which);
/* Whether samples get call chains made by the session (Intel PT's report
 * default: the IP and the calls the trace showed), known once the run read
 * the AUXTRACE_INFO (before the first sample). */
bool pk_session_synth_chains(const pk_session *s);

/* ---- hooks and views of the pmukit CLI (perf's -D, --header, --csv) ---- */

/* The event hook in place (NULL: none) and its arg: a hook put in front
 * of it calls it on. */
pk_session_event_fn pk_session_event_hook(const pk_session *s, void **arg);
/* With a dump (-D) that takes the records: each sample, once dumped,
 * handed to fn as without the dump (its chain unwound or stitched); NULL:
 * none. */
void pk_session_after_dump(pk_session *s, pk_session_sample_fn fn, void *arg);
/* A pipe's HEADER_FEATURE records as they are read, before the event
 * hook (perf's --header of a pipe prints them while it reads); NULL: none. */
typedef void (*pk_session_feature_fn)(void *arg, pk_session *s, const pk_pd_event *ev);
void pk_session_on_feature(pk_session *s, pk_session_feature_fn fn, void *arg);
/* Arm SPE's AUXTRACE records to fn (perf's -D packet dump) instead of
 * samples: the record, its auxtrace header, its CPU's MIDR. */
typedef void (*pk_session_spe_dump_fn)(void *arg, const pk_pd_event *ev,
				       const pk_pd_rec_auxtrace *a, uint32_t midr);
void pk_session_spe_dump(pk_session *s, pk_session_spe_dump_fn fn, void *arg);
/* Arm SPE records, each with its CPU, time, task and MIDR, to fn instead
 * of samples (--csv, --jsonl); fn NULL: samples again. */
typedef int (*pk_session_spe_export_fn)(void *arg, uint32_t cpu, uint64_t time, int64_t pid,
					int64_t tid, const pk_spe_record *r, uint32_t midr);
void pk_session_spe_export(pk_session *s, pk_session_spe_export_fn fn, void *arg);
/* Arm SPE's synthetic samples to fn (with the run's arg) in place of the
 * run's callback, which keeps the file's samples; NULL: the run's. */
void pk_session_on_spe_sample(pk_session *s, pk_session_sample_fn fn);
/* Whether the file has an AUXTRACE_INFO of type Arm SPE, and the SPE
 * records (with packets) decoded so far. */
bool pk_session_has_spe(const pk_session *s);
/* The trace type of the file's AUXTRACE_INFO record (PK_IPT_AUXTRACE_TYPE:
 * Intel PT; Arm SPE's), 0 before one was read or without one. */
uint32_t pk_session_aux_type(const pk_session *s);
uint64_t pk_session_spe_nr_records(const pk_session *s);
/* While one SPE record's synthetic samples go to the sample callback:
 * whether a sample of the same record went before (*before) / follows
 * (*after). Such samples share the task, cpu, time, ip and event offset
 * and nothing happens between them: a caller may reuse what it made of
 * the previous one. Both false for samples of the file. */
void pk_session_spe_same(const pk_session *s, bool *before, bool *after);
/* Tracepoint payloads: whether samples of e can show theirs (says once,
 * as a session message, why not when e is a tracepoint event and the file
 * has no usable tracing data), and the payload's text (*len bytes) of a
 * tracepoint sample, NULL when none. */
bool pk_session_trace_usable(pk_session *s, const pk_pd_evsel *e);
const char *pk_session_trace_text(pk_session *s, const pk_pd_evsel *e, const pk_pd_sample *smp,
				  pk_trace_mode mode, size_t *len);
/* A number field of a tracepoint sample's payload (pk_trace_field, from
 * the file's tracing data): 0, -ENOENT (no tracing data, no such event or
 * field), -ERANGE (payload too short). */
int pk_session_trace_field(pk_session *s, const pk_pd_evsel *e, const pk_pd_sample *smp,
			   const char *name, uint64_t *val);
/* Another machine, with options (--kallsyms FILE, --no-demangle), in place
 * of the session's (before the run); 0 or -ENOMEM. */
int pk_session_set_machine(pk_session *s, const pk_machine_opts *o, pk_error *err);
/* perf 6.1's --switch-on/--switch-off (its evswitch), before the run: the
 * samples handed to the callback start after the first sample of the
 * event named on and stop at a sample of the event named off, until one of
 * on again; those switching samples are dropped too unless show (perf's
 * --show-on-off-events). Names as pk_pd_evsel_name gives them; NULL: not
 * set. 0, or -ENOENT naming the event the file lacks (err's where). */
int pk_session_set_switch(pk_session *s, const char *on, const char *off, bool show,
			  pk_error *err);
/* pk_session_finish after the command failed already: no error for files
 * that gave nothing, only the closing words (messages). */
int pk_session_finish_failed(pk_session *s, pk_error *err);

/* perf's words for PERF_RECORD_AUX flags (TRUNCATED: lost, PARTIAL: gaps,
 * COLLISION) out of nr_aux records, each hint after its sentence, as
 * notes to fn. */
void pk_session_aux_flags(pk_session_msg_fn fn, void *arg, uint64_t truncated, uint64_t partial,
			  uint64_t collision, uint64_t nr_aux, const char *lost_hint,
			  const char *collision_hint);

/* ---- report --stats' counts (stats.c) ---- */

/* Samples and lost samples (LOST_SAMPLES records) per evsel index (n:
 * the file's evsels and SPE's synthetic ones). Begin (0 or -ENOMEM), run
 * the session with pk_session_stats_sample and pk_session_stats_event
 * (arg: the counts), end frees them. */
typedef struct pk_session_stats {
	uint64_t *samples, *lost;
	size_t n;
} pk_session_stats;
int pk_session_stats_begin(pk_session_stats *c, pk_session *s);
int pk_session_stats_sample(void *arg, pk_session *s, const pk_pd_event *ev,
			    const pk_pd_sample *smp);
void pk_session_stats_event(void *arg, pk_session *s, const pk_pd_event *ev, bool before);
/* The branch view's count (report -b, -D): a sample once per branch. */
int pk_session_stats_branches(void *arg, pk_session *s, const pk_pd_event *ev,
			      const pk_pd_sample *smp);
/* The name perf gives evsel i's stats block: --stats reads a pipe with a
 * tool that takes in neither HEADER_FEATURE nor EVENT_UPDATE records, so
 * the name made from the attr ("cycles:uH"); a file's from its header, and
 * a pipe's when its tool took those records in (features: -D's). */
const char *pk_session_stats_name(pk_session *s, size_t i, bool features);
void pk_session_stats_end(pk_session_stats *c);
/* The records of type t as perf 6.1 counts them (COMPRESSED2 as
 * COMPRESSED; 0 for types past FINISHED_INIT or unnamed), and their total. */
uint64_t pk_session_stats_records(const pk_pd_stats *st, uint32_t t);
uint64_t pk_session_stats_total(const pk_pd_stats *st);

/* ---- report -T's counts (stats.c) ---- */

/* The values of PERF_RECORD_READ records (perf record -s: a thread's
 * counts at its exit) added up per thread and event, threads and events
 * in the order first seen. Made by pk_session_reads_new (NULL: no
 * memory), filled by running the session with pk_session_reads_event as
 * its on_event (arg: the reads). pk_session_reads_size: the threads and
 * events (0, or -ENOMEM when a record could not be counted); then thread
 * i's pid and tid, event column c's evsel index, thread i's sum in c. */
typedef struct pk_session_reads pk_session_reads;
pk_session_reads *pk_session_reads_new(void);
void pk_session_reads_free(pk_session_reads *r);
void pk_session_reads_event(void *arg, pk_session *s, const pk_pd_event *ev, bool before);
int pk_session_reads_size(const pk_session_reads *r, size_t *nr_threads, size_t *nr_events);
void pk_session_reads_thread(const pk_session_reads *r, size_t i, int32_t *pid, int32_t *tid);
int pk_session_reads_evsel(const pk_session_reads *r, size_t c);
uint64_t pk_session_reads_value(const pk_session_reads *r, size_t i, size_t c);

#ifdef __cplusplus
}
#endif

#endif
