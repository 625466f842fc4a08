/* pmukit CLI: tracepoint payloads for script and report. The tracing data
 * comes from the TRACING_DATA feature (file) or the HEADER_TRACING_DATA
 * record (pipe) and is loaded into a pk_trace; samples of tracepoint events
 * print their payload through it. A file with tracepoint samples but no
 * usable tracing data is said once on stderr (never silent), and those
 * events fall back to the numeric fields. */
#ifndef PMUKIT_PD_TRACE_H
#define PMUKIT_PD_TRACE_H

#include <stdbool.h>
#include <pmukit/perfdata.h>
#include <pmukit/symbols.h>
#include <pmukit/tracedata.h>

typedef struct pd_trace {
	pk_trace *trace;             /* NULL: no tracing data (yet) */
	bool tried;                  /* the feature was looked at */
	bool warned;                 /* the missing-data line was printed */
	pk_machine *machine;         /* kernel symbols for %pS and friends */
} pd_trace;

struct pd_session;
/* Loads the TRACING_DATA feature when the file has one; warnings and
 * damage are printed (stderr). */
void pd_trace_open(pd_trace *t, struct pd_session *s);
/* A HEADER_TRACING_DATA record (pipe mode): loads its data. */
void pd_trace_record(pd_trace *t, struct pd_session *s, const pk_pd_event *ev);
/* Whether samples of e can print their payload; says once (stderr) why
 * not when e is a tracepoint event without tracing data. */
bool pd_trace_usable(pd_trace *t, struct pd_session *s, const pk_pd_evsel *e);
/* The payload's text (*len bytes) of a tracepoint sample, NULL when none. */
const char *pd_trace_text(pd_trace *t, const pk_pd_evsel *e, const pk_pd_sample *smp,
			  pk_trace_mode mode, size_t *len);
void pd_trace_release(pd_trace *t);

#endif
