/* libpmukit: tracepoint payloads for the session. The tracing data
 * comes from the TRACING_DATA feature (file) or the HEADER_TRACING_DATA
 * record (pipe) and is loaded into a pk_trace; samples of tracepoint events
 * print their payload through it. A file with tracepoint samples but no
 * usable tracing data is said once (a session message: never silent), and those
 * events fall back to the numeric fields. */
#ifndef PMUKIT_PD_TRACE_H
#define PMUKIT_PD_TRACE_H

#include <stdbool.h>
#include <pmukit/perfdata.h>
#include <pmukit/symbols.h>
#include <pmukit/tracedata.h>

typedef struct pki_trace {
	pk_trace *trace;             /* NULL: no tracing data (yet) */
	bool tried;                  /* the feature was looked at */
	bool warned;                 /* the missing-data line was printed */
	pk_machine *machine;         /* kernel symbols for %pS and friends */
} pki_trace;

struct pk_session;
/* Loads the TRACING_DATA feature when the file has one; warnings and
 * damage are the session's messages. */
void pki_trace_open(pki_trace *t, struct pk_session *s);
/* A HEADER_TRACING_DATA record (pipe mode): loads its data. */
void pki_trace_record(pki_trace *t, struct pk_session *s, const pk_pd_event *ev);
/* Whether samples of e can print their payload; says once (a message) why
 * not when e is a tracepoint event without tracing data. */
bool pki_trace_usable(pki_trace *t, struct pk_session *s, const pk_pd_evsel *e);
/* The payload's text (*len bytes) of a tracepoint sample, NULL when none. */
const char *pki_trace_text(pki_trace *t, const pk_pd_evsel *e, const pk_pd_sample *smp,
			  pk_trace_mode mode, size_t *len);
void pki_trace_release(pki_trace *t);

#endif
