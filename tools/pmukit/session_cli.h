/* pmukit CLI: script's and report's way into the perf.data session of
 * libpmukit (lib/session): open, run and finish it with its messages and
 * errors printed as perf prints them ("pmukit CMD: warning: ...") and
 * perf's exit statuses; the Arm SPE packet dump (-D) and record export
 * (--csv, --jsonl) printed from the session's hooks. */
#ifndef PMUKIT_SESSION_CLI_H
#define PMUKIT_SESSION_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <pmukit/session.h>
#include <pmukit/script.h>

#include "pd_out.h"

enum pd_spe_export { PD_SPE_EXPORT_NONE, PD_SPE_EXPORT_CSV, PD_SPE_EXPORT_JSONL };

/* A pk_session (*s) with options from the command line; 0, 255 (perf's
 * status for a file it cannot open or read) or 1 after printing the
 * error (*s NULL). rounds (-D): FINISHED_ROUND records to the event hook
 * too. */
int pd_session_open(pk_session **s, const char *cmd, const char *input, bool no_order, bool force,
		    bool rounds);
/* A machine with options (--kallsyms FILE, --no-demangle) in place of the
 * default one (before the run); 0, or 1 after printing an error. */
int pd_session_machine(pk_session *s, const pk_machine_opts *o);
/* --switch-on/--switch-off (NULL: not given), --show-on-off-events; 0, or
 * perf's 254 after its words for an event the file lacks. */
int pd_session_switch(pk_session *s, const char *on, const char *off, bool show);
/* perf's status for a --time it refuses (-EINVAL as a byte). */
#define PD_TIME_STATUS 234
/* A --time refused (err from pk_time_windows_parse and its users): its
 * words, and for a percent form on a file without its span, perf's hint;
 * returns PD_TIME_STATUS. */
int pd_time_error(const char *cmd, const pk_error *err);
/* script's percent --time made on the file's span (filter NULL: none);
 * 0, or PD_TIME_STATUS after the error. */
int pd_session_time_span(pk_session *s, const char *cmd, pk_script_filter *filter);
/* --itrace ARG; 0, or 129 after printing the error. */
int pd_session_itrace(pk_session *s, const char *arg);
/* -D: Arm SPE's AUXTRACE packets printed in perf's layout. */
void pd_session_spe_dump(pk_session *s);
/* --csv/--jsonl: one line per Arm SPE record, no samples. */
void pd_session_spe_export(pk_session *s, enum pd_spe_export fmt);
/* The command the session was opened for ("script", "report"). */
const char *pd_session_cmd(const pk_session *s);
/* Runs to the end; returns 0, the callback's result, or 1 after printing
 * an error (the samples before the damage have been handed out). */
int pd_session_run(pk_session *s, pk_session_sample_fn fn, void *arg);
/* --header of a pipe: its features printed to f as their records are
 * read (perf prints them while it reads). */
void pd_session_pipe_features(pk_session *s, FILE *f);
/* Prints the session's closing words (stderr); returns status, or 1 when
 * samples were there and none could be decoded. */
int pd_session_finish(pk_session *s, int status);
/* perf's warnings for PERF_RECORD_AUX flags, printed (stderr). */
void pd_aux_flags_warn(uint64_t truncated, uint64_t partial, uint64_t collision, uint64_t nr_aux,
		       const char *lost_hint, const char *collision_hint);

#endif
