/* pmukit record with Arm SPE (issue 11): what perf record sets up for an
 * arm_spe event (docs/spe.md "Recording"), kept apart from cmd_record.c's
 * general flow. Each function prints its own errors and returns 0 or the
 * exit status. */
#ifndef PMUKIT_RECORD_SPE_H
#define PMUKIT_RECORD_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/perfdata.h>
#include <pmukit/record.h>

typedef struct record_spe {
	bool on;                     /* the first event is an arm_spe event */
	bool discard;                /* discard mode: no AUX area, no tracking */
	bool privileged;             /* CAP_PERFMON or root: CONTEXT packets, pa/pct */
	const pk_pmu *pmu;
	size_t aux_pages;            /* for pk_record_opts.aux_pages */
	int meta_version;            /* AUXTRACE_INFO v1 or v2 */
} record_spe;

/* The record options that matter to SPE. */
typedef struct record_spe_opts {
	const pk_kernel *kernel;     /* NULL: the real one */
	bool system_wide;
	uint64_t period;             /* -c; 0: caps/min_interval */
	bool freq_given;             /* -F */
	size_t aux_pages;            /* -m ,N; 0: perf's default */
	int meta_version;            /* --spe-meta; 0: 1 (what perf 6.1 reads) */
} record_spe_opts;

/* A dummy software event's attr (record's tracking events): period 1,
 * sample_id_all, these sample_type bits. */
void record_dummy_attr(struct perf_event_attr *a, uint64_t sample_type);

/* Whether the list has an arm_spe event (then record_spe_setup adds the
 * tracking event). */
bool record_spe_wanted(const pk_evlist *l);
/* After pk_evlist_config: finds the arm_spe event, checks it (first in
 * the list, the driver's rules with the document's messages), sets its
 * period, timestamps in per-CPU mode, the sample bits perf sets, and adds
 * the dummy:u tracking event (unless discard). */
int record_spe_setup(pk_evlist *l, const record_spe_opts *o, record_spe *out);
/* PERF_RECORD_AUXTRACE_INFO for the recording's CPUs (NULL: online). */
int record_spe_info(const record_spe *sp, pk_pd_writer *w, const pk_kernel *k, pk_cpumap *cpus);
/* The AUX summary at the end of record (stderr). */
void record_spe_summary(const record_spe *sp, const pk_record_stats *st);

#endif
