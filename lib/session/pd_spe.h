/* libpmukit: the Arm SPE data of a perf.data for the session: the
 * AUXTRACE_INFO metadata (v1, v2), the AUXTRACE buffers decoded with
 * lib/spe into perf's synthetic samples (events of synthetic evsels,
 * handed to the command's sample callback interleaved by time with the
 * file's records), hooks for perf's `-D` packet dump and the record
 * export (--csv, --jsonl), and the closing words on what was decoded and what was not
 * (never a silent loss).
 *
 * Invariants: one queue per AUXTRACE idx (a CPU in per-CPU mode), its
 * buffers decoded in file order; a queue's pending record is the next to
 * give samples, and records of all queues come out in timestamp order,
 * each before the first file record whose time (through TIME_CONV) is
 * later, as perf's auxtrace heap does. */
#ifndef PMUKIT_PD_SPE_H
#define PMUKIT_PD_SPE_H

#include <stdbool.h>
#include <stdint.h>
#include <pmukit/perfdata.h>
#include <pmukit/session.h>
#include <pmukit/spe.h>

#include "pd_cputask.h"

typedef struct pki_spe_queue pki_spe_queue;
enum { PKI_SPE_PIDS = 64 };
struct pk_session;


typedef struct pki_spe {
	bool dump;                   /* -D: the packets to dump_fn, no samples */
	void (*dump_fn)(void *arg, const pk_pd_event *ev, const pk_pd_rec_auxtrace *a,
			uint32_t midr);
	void *dump_arg;
	int export_fmt;              /* nonzero: each record to export_fn, no samples */
	int (*export_fn)(void *arg, uint32_t cpu, uint64_t time, int64_t pid, int64_t tid,
			 const pk_spe_record *r, uint32_t midr);
	void *export_arg;
	bool have_info;              /* an AUXTRACE_INFO of type Arm SPE */
	uint32_t info_type;          /* the AUXTRACE_INFO's type (0: none seen) */
	pk_spe_info info;            /* its metadata */
	uint32_t midr_all;           /* v1 files: the CPUID feature's MIDR */
	bool header_read;
	uint64_t nr_aux, aux_bytes;  /* AUXTRACE records and their data */
	uint64_t nr_foreign, foreign_bytes, foreign_offset; /* AUX data not of SPE */
	uint64_t nr_empty, empty_offset; /* AUXTRACE records of size 0 (nothing queued) */
	uint64_t nr_records, nr_unclosed, nr_bad, first_bad;
	uint64_t nr_cut;             /* records cut by a bad byte (sampled, as perf 6.1) */
	pk_spe_itrace itrace;        /* the kinds to make (set: from --itrace) */
	bool itrace_set;
	uint64_t kinds[PK_SPE_NR_KINDS]; /* synthetic samples made, per kind */
	char info_error[512];        /* a damaged AUXTRACE_INFO */
	/* synthetic evsels, one per kind --itrace selects, after the file's */
	pk_pd_evsel synth[PK_SPE_NR_KINDS];
	int synth_of[PK_SPE_NR_KINDS]; /* index in synth, -1: not made */
	size_t nr_synth;
	bool no_spe_evsel;           /* no event of the SPE PMU type: no samples */
	pki_spe_queue **queues;
	size_t nr_queues;
	size_t nr_set_up;            /* queues put on the heap once (their first record) */
	struct pki_spe_heap {         /* queues with a pending record, by time */
		uint64_t ts;         /* the queue's time (fixed while it is here) */
		pki_spe_queue *q;
	} *heap;
	size_t nr_heap, cap_heap;
	pki_cpu_tasks cpu_tasks;     /* per CPU: the task switched in */
	bool ctx_seen;               /* a record had a CONTEXT packet */
	/* the pids of tids, valid at comm version + 1 (0: free), by tid */
	struct pki_spe_pid {
		int64_t tid, pid;
		uint64_t version;
	} pids[PKI_SPE_PIDS];
	/* every record with packets, as it comes out (report's SPE views) */
	pk_session_spe_fn record_fn;
	void *record_arg;
	bool no_time_conv;           /* timestamps used as perf times */
	bool have_tc;                /* tc: the file's TIME_CONV, once read */
	pk_pd_rec_time_conv tc;
	pk_pd_reader *reader;        /* where in-place buffers live */
	pk_pd_sample smp;            /* the synthetic sample and its event, */
	pk_pd_event sev;             /* kept between records (zeroed once) */
	/* while one record's samples go to the callback: whether a sample of
	 * the same record went before / follows. They share the task, cpu,
	 * time, ip and event offset, and nothing happens between them: a
	 * command may reuse the text it made of the previous one. */
	bool same_before, same_after;
	/* the synthetic samples' callback, when not the command's for all */
	pk_session_sample_fn sample_fn;
} pki_spe;

/* An AUXTRACE_INFO or AUXTRACE record; -ENOMEM or 0. */
int pki_spe_event(pki_spe *sp, struct pk_session *s, const pk_pd_event *ev);
/* Before a file record with time t (perf time): the samples of every
 * record older than it go to fn (UINT64_MAX: all that remain). Then a
 * context switch sets its CPU's task. Returns fn's nonzero result. */
int pki_spe_before(pki_spe *sp, struct pk_session *s, const pk_pd_event *ev, uint64_t t,
		  pk_session_sample_fn fn, void *arg);
/* Says what was decoded and what not (the session's messages); -ENOMSG
 * when, not failed before, the file's SPE records gave no sample. */
int pki_spe_finish(pki_spe *sp, struct pk_session *s, bool failed, pk_error *err);
void pki_spe_release(pki_spe *sp);
/* --itrace ARG for SPE; -EINVAL when bad. */
int pki_spe_set_itrace(pki_spe *sp, const char *arg, pk_error *err);

#endif
