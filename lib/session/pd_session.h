/* libpmukit: the perf.data session's state (include/pmukit/session.h),
 * internal: lib/hist reads its fields (the CLI only the accessors). Invariant:
 * reader and machine live as long as the session; every message goes to
 * msg_fn at once (or into warnings), in the order perf says it. */
#ifndef PMUKIT_PD_SESSION_H
#define PMUKIT_PD_SESSION_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <pmukit/perfdata.h>
#include <pmukit/session.h>
#include <pmukit/symbols.h>

#include "core/strmap.h"
#include "core/util.h"
#include "pd_ipt.h"
#include "pd_spe.h"
#include "pd_trace.h"

struct pk_session {
	char *input;
	pk_pd_reader *reader;
	pk_machine *machine;
	uint64_t nr_samples;         /* samples handed to the callback */
	bool ran;                    /* pki_session_run was called */
	pki_spe spe;                 /* Arm SPE data; spe.dump (-D): dump, no samples */
	pki_ipt ipt;                 /* Intel PT data (not with -D) */
	pki_trace trace;             /* tracepoint payloads (tracing data) */
	/* spe.have_info || ipt.have_info, kept after each side record: the
	 * one test a sample pays for the trace decoders */
	bool aux_samples;
	/* PERF_SAMPLE_READ: each counter's last value, by id, for the deltas
	 * handed out as one sample per group member (perf's way) */
	struct pd_read_prev { uint64_t id, value; bool used; } *read_prev;
	size_t read_cap, read_used;
	/* Non-sample records for a command that shows them (script's
	 * --show-*-events), called before and after the task state takes
	 * each one; NULL: none, at no cost. */
	pk_session_event_fn on_event;
	void *event_arg;
	/* -D with script's lines: each sample, once dumped, handed here as
	 * without -D (its call chain unwound or stitched); NULL: not */
	pk_session_sample_fn after_dump;
	void *after_dump_arg;
	/* HEADER_FEATURE records of a pipe, before on_event (--header of a
	 * pipe: perf prints them while it reads); NULL: none */
	void (*on_feature)(void *arg, pk_session *s, const pk_pd_event *ev);
	void *feature_arg;
	bool refused;                /* the owner check refused the file */
	pk_session_msg_fn msg_fn;    /* NULL: messages into warnings */
	void *msg_arg;
	pki_warnings warnings;
	/* --call-graph dwarf samples: the chain handed out (the kernel's part,
	 * then the user stack unwound, pk_session.c), the file's ARCH, how many
	 * samples gave the IP alone and why the first did */
	uint64_t *uw_chain;
	const char **uw_inl;         /* per entry: "name (inlined)", or NULL */
	size_t uw_cap;
	pki_strmap uw_names;         /* the texts uw_inl points at, kept to the end
					(report's trees keep them) */
	char *uw_arch;
	bool uw_arch_read;
	uint64_t uw_failed;
	pk_error uw_err;
	/* --switch-on/--switch-off: the events (NULL: none), whether samples
	 * are being dropped, whether the switching ones are shown */
	const pk_pd_evsel *sw_on, *sw_off;
	bool sw_discarding, sw_show;
};

/* A message of the session (printf-style): to msg_fn, else kept. */
void pki_session_msg(pk_session *s, pk_session_msg kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A session in place (s zeroed first); pk_session_open's work. The
 * opened input is kept in s->input even when opening failed. */
int pki_session_init(pk_session *s, const char *input, const pk_session_opts *o, pk_error *err);
/* A machine with options (--kallsyms FILE, --no-demangle) in place of
 * the default one (before the run). */
int pki_session_set_machine(pk_session *s, const pk_machine_opts *o, pk_error *err);
/* pk_session_run's work (its negative errno, or the callback's stop). */
int pki_session_run(pk_session *s, pk_session_sample_fn fn, void *arg, pk_error *err);
/* The closing words as messages; failed: the command failed already (no
 * error for files that gave nothing). 0, -ENODATA (no sample could be
 * decoded: err says how many were there) or -ENOMSG (the SPE data gave no
 * sample: said by a warning). */
int pki_session_finish(pk_session *s, bool failed, pk_error *err);
/* Frees what s holds (not s). */
void pki_session_release(pk_session *s);

/* The inlined function perf 6.1 shows at entry i of a --call-graph dwarf
 * chain, as "name (inlined)" (script prints "name+off (inlined)", off from
 * the symbol the address is in), or NULL for an address shown as usual;
 * pki_chain_inlines: the array of them by entry, NULL when there are none.
 * The text lives as long as the session. */
static inline const char *const *pki_chain_inlines(const pk_session *s, const pk_pd_sample *smp)
{
	return smp->callchain == s->uw_chain && s->uw_chain ? (const char *const *)s->uw_inl : NULL;
}
static inline const char *pki_chain_inlined(const pk_session *s, const pk_pd_sample *smp,
					   uint64_t i)
{
	const char *const *inl = pki_chain_inlines(s, smp);
	return inl ? inl[i] : NULL;
}

#endif
