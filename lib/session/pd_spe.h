/* pmukit CLI: the Arm SPE data of a perf.data for script and report: the
 * AUXTRACE_INFO metadata (v1, v2), the AUXTRACE buffers decoded with
 * lib/spe into perf's synthetic samples (events of synthetic evsels,
 * handed to the command's sample callback interleaved by time with the
 * file's records), perf's `-D` packet dump, the record export (--csv,
 * --jsonl), and the closing words on what was decoded and what was not
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
#include <pmukit/spe.h>

typedef struct pd_spe_queue pd_spe_queue;
enum { PD_SPE_PIDS = 64 };
struct pd_session;

enum pd_spe_export { PD_SPE_EXPORT_NONE, PD_SPE_EXPORT_CSV, PD_SPE_EXPORT_JSONL };

typedef struct pd_spe {
	bool dump;                   /* -D: print the packets */
	int export_fmt;              /* pd_spe_export: one line per record, no samples */
	bool export_header;          /* the CSV header is out */
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
	pd_spe_queue **queues;
	size_t nr_queues;
	size_t nr_set_up;            /* queues put on the heap once (their first record) */
	struct pd_spe_heap {         /* queues with a pending record, by time */
		uint64_t ts;         /* the queue's time (fixed while it is here) */
		pd_spe_queue *q;
	} *heap;
	size_t nr_heap, cap_heap;
	int64_t *cpu_tid;            /* per CPU: the task switched in (-1: none) */
	size_t nr_cpu_tid;
	bool ctx_seen;               /* a record had a CONTEXT packet */
	/* the pids of tids, valid at comm version + 1 (0: free), by tid */
	struct pd_spe_pid {
		int64_t tid, pid;
		uint64_t version;
	} pids[PD_SPE_PIDS];
	/* every record with packets, as it comes out (report's SPE views) */
	int (*record_fn)(void *arg, struct pd_session *s, const pk_spe_record *r, int64_t pid,
			 uint32_t midr);
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
	int (*sample_fn)(void *arg, struct pd_session *s, const pk_pd_event *ev,
			 const pk_pd_sample *sample);
} pd_spe;

struct pd_session;
/* An AUXTRACE_INFO or AUXTRACE record; -ENOMEM or 0. */
int pd_spe_event(pd_spe *sp, struct pd_session *s, const pk_pd_event *ev);
/* Before a file record with time t (perf time): the samples of every
 * record older than it go to fn (UINT64_MAX: all that remain). Then a
 * context switch sets its CPU's task. Returns fn's nonzero result. */
typedef int (*pd_spe_sample_fn)(void *arg, struct pd_session *s, const pk_pd_event *ev,
				const pk_pd_sample *sample);
int pd_spe_before(pd_spe *sp, struct pd_session *s, const pk_pd_event *ev, uint64_t t,
		  pd_spe_sample_fn fn, void *arg);
/* Prints what was decoded and what not (stderr); returns status, or 1 when
 * the file's only data was SPE data that gave nothing. */
int pd_spe_finish(pd_spe *sp, struct pd_session *s, int status);
void pd_spe_release(pd_spe *sp);
/* --itrace ARG for SPE; prints the error and returns 129 when bad. */
int pd_spe_set_itrace(pd_spe *sp, const char *cmd, const char *arg);

#endif
