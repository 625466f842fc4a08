/* libpmukit: the Intel PT data of a perf.data for the session: the
 * AUXTRACE_INFO (type 1), the AUXTRACE buffers of each queue (one per
 * AUXTRACE idx: a CPU in per-CPU mode) decoded with lib/intelpt's trace
 * decoder into perf 6.1's synthesized events: `branches` (calls and trace
 * ends, script's default), `cbr` and `psb` samples on synthetic evsels,
 * and instruction trace errors to the error hook, merged by time with the
 * file's records.
 *
 * Invariants: a queue's buffers are decoded in file order, each copied
 * when queued (perf's AUXTRACE data is small beside the file's mapping);
 * a queue's next event is decoded ahead (its perf time known) and the
 * events of all queues come out oldest first, each before the first file
 * record whose time is not earlier. The walker knows no code and follows
 * perf's bookkeeping of dsos whose file it could not read (the traced
 * binaries are taken to be absent): an IP in no map fails with an error
 * each time; in a dso, a walk fails with an error until the dso's file has
 * been tried and a walk met it so, then silently. perf tries a dso's file
 * in a walk, when script reads the instruction at a sample's IP (every
 * sample it prints, when the recording's architecture is the host's) and,
 * at a process's vdso mmap, for every dso with a path in its maps (to tell
 * 32- from 64-bit); pki_ipt_dso keeps that per dso. */
#ifndef PMUKIT_PD_IPT_H
#define PMUKIT_PD_IPT_H

#include <stdbool.h>
#include <stdint.h>
#include <pmukit/intelpt.h>
#include <pmukit/perfdata.h>
#include <pmukit/session.h>

#include "pd_cputask.h"

struct pk_session;
typedef struct pki_ipt_queue pki_ipt_queue;

/* perf's order of its synthetic evsels; transactions (TSX aborts) never
 * gets a sample here (not decoded), but perf makes its evsel and its name
 * is the widest (script's event column) */
/* A dso's data as perf 6.1 keeps it: tried (its file looked for, which
 * fails: perf's DSO_DATA_STATUS_ERROR) and, once tried, met by a walk
 * (DSO_DATA_STATUS_SEEN_ITRACE), after which its walks fail silently. */
typedef struct pki_ipt_dso {
	uint64_t ordinal;            /* pk_addr_loc's dso_ordinal */
	bool tried, seen;
} pki_ipt_dso;

enum { PKI_IPT_BRANCHES, PKI_IPT_TRANSACTIONS, PKI_IPT_CBR, PKI_IPT_PSB, PKI_IPT_NR_SYNTH };

typedef struct pki_ipt {
	bool have_info;              /* an AUXTRACE_INFO of type Intel PT */
	bool itrace_set, report;     /* --itrace given; report's default */
	bool no_decode;              /* the data not decoded (report --stats) */
	unsigned kinds;              /* 1 << PKI_IPT_*: the samples to make */
	bool errors;                 /* errors to the hook */
	bool calls_only;             /* branches: calls and trace ends (c), not all (b) */
	bool callchain;              /* call chains from the thread stack (g) */
	uint64_t chain[2 + 2 * 64];  /* the chain handed out with a sample */
	pk_pd_sample fsmp;           /* a file's sample with its chain (a copy) */
	pk_ipt_params params;
	uint32_t max_nonturbo;
	pk_pd_evsel synth[PKI_IPT_NR_SYNTH];
	int synth_of[PKI_IPT_NR_SYNTH];
	size_t nr_synth;
	pki_ipt_queue **queues;
	size_t nr_queues;
	bool have_tc;
	pk_pd_rec_time_conv tc;
	pki_cpu_tasks cpu_tasks;     /* per CPU: the task switched in */
	pki_ipt_dso *dsos;           /* the dsos perf tried to read */
	size_t nr_dsos, cap_dsos;
	bool read_code;              /* script's reading of each sample's code (native) */
	struct pk_session *s;        /* while a queue decodes: for the walker */
	pki_ipt_queue *walking;
	uint64_t nr_errors, nr_aux, aux_bytes;
	pk_pd_sample smp;
	pk_pd_event sev;
	pk_session_ipt_payload payload;
	pk_session_itrace_error_fn error_fn;
	void *error_arg;
} pki_ipt;

/* An AUXTRACE_INFO of type 1 or an AUXTRACE record while the file's info
 * is Intel PT: 1 (taken), 0 (not Intel PT's), -ENOMEM. */
int pki_ipt_event(pki_ipt *pt, struct pk_session *s, const pk_pd_event *ev);
/* Before a file record of time t (UINT64_MAX: the end): the events older
 * than it; then a context switch sets its CPU's task. fn's nonzero result. */
int pki_ipt_before(pki_ipt *pt, struct pk_session *s, const pk_pd_event *ev, uint64_t t,
		   pk_session_sample_fn fn, void *arg);
/* A record perf sees before the decoder goes on: a vdso mmap makes perf
 * try the files of the process's dsos. Only while Intel PT is decoded. */
void pki_ipt_record(pki_ipt *pt, struct pk_session *s, const pk_pd_event *ev);
/* A sample script prints: perf reads the code at its IP (script's
 * instruction fetch), trying the file of its dso. */
void pki_ipt_read_code(pki_ipt *pt, struct pk_session *s, uint32_t pid, uint64_t ip);
/* The chain of a sample at ip (report's default g): in pt->chain, its
 * length; q NULL: the file's samples (the IP alone). */
size_t pki_ipt_chain(pki_ipt *pt, const pki_ipt_queue *q, uint64_t ip);
/* --itrace for Intel PT (perf's letters; those of other traces ignored). */
int pki_ipt_set_itrace(pki_ipt *pt, const char *arg, pk_error *err);
/* The closing words (the number of instruction trace errors). */
void pki_ipt_finish(pki_ipt *pt, struct pk_session *s);
void pki_ipt_release(pki_ipt *pt);

#endif
