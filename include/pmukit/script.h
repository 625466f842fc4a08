/* pmukit: the engine of perf script 6.1 on a pk_session (lib/session),
 * what another program printing a perf.data's samples would need; the
 * printing stays with the caller.
 *
 * - Sample filters (pk_script_filter, script_filter.c): perf script's
 *   --comms, --pid, --tid, --time, -C, -S and --dsos, each list parsed once
 *   when added; pk_script_filter_keep only compares (the thread's name and
 *   the address's symbol and dso come from the session's machine).
 * - The `metric` field (pk_script_metric, script_metric.c): perf script's
 *   running state for the shadow metrics of group samples, the formulas
 *   being lib/metrics' stat table (the rules in script_metric.c). */
#ifndef PMUKIT_SCRIPT_H
#define PMUKIT_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sample filters ---------------------------------------------------- */

typedef struct pk_script_filter pk_script_filter;

/* The filters, as perf script's options name them. */
typedef enum pk_script_filter_kind {
	PK_SF_COMMS,  /* --comms a,b: the thread's name */
	PK_SF_PIDS,   /* --pid 1,2 */
	PK_SF_TIDS,   /* --tid 1,2 */
	PK_SF_TIME,   /* --time start,end: seconds, either side may be empty */
	PK_SF_CPUS,   /* -C 0-3,8 */
	PK_SF_SYMS,   /* -S a,b: the symbol of the sample's address */
	PK_SF_DSOS,   /* --dsos a,b: its dso, as a path or a file name */
} pk_script_filter_kind;

/* An empty filter (keeps every sample); NULL when out of memory. */
pk_script_filter *pk_script_filter_new(void);
/* Adds one option's list: 0, -EINVAL (err says what is wrong, in perf
 * script's words after "pmukit script: ") or -ENOMEM. */
int pk_script_filter_add(pk_script_filter *f, pk_script_filter_kind kind, const char *arg,
			 pk_error *err);
/* Whether the sample passes every filter added. */
bool pk_script_filter_keep(const pk_script_filter *f, pk_session *s, const pk_pd_event *ev,
			   const pk_pd_sample *smp);
void pk_script_filter_free(pk_script_filter *f);

/* ---- The metric field ---------------------------------------------------- */

typedef struct pk_script_metric pk_script_metric;

/* A metric line: its text ("value unit", as perf prints it after
 * "\tmetric: ") and how many times the sample's start and "\tmetric: " come
 * before it: 1, or 2 for a further line (a PK_METRIC_NEW_LINE row: perf
 * script's new_line prints them once more). */
typedef struct pk_script_metric_line {
	char text[96];
	unsigned starts;
} pk_script_metric_line;

/* The running state for the session's file (its events and groups); NULL
 * with err set (its message begins "metric: ", or the header's error). */
pk_script_metric *pk_script_metric_new(pk_session *s, pk_error *err);
void pk_script_metric_free(pk_script_metric *m);
/* One printed sample of e; returns the number of metric lines the round
 * ends with (0 while it goes on), read with pk_script_metric_line_at. */
size_t pk_script_metric_sample(pk_script_metric *m, const pk_pd_evsel *e,
			       const pk_pd_sample *smp);
/* Line i of the last round's (an empty one past them). */
const pk_script_metric_line *pk_script_metric_line_at(const pk_script_metric *m, size_t i);

#ifdef __cplusplus
}
#endif

#endif
