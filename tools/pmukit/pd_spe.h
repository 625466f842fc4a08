/* pmukit CLI: the Arm SPE data of a perf.data for script and report: the
 * AUXTRACE_INFO metadata (v1, v2), the AUXTRACE buffers decoded with
 * lib/spe, perf's `-D` packet dump, and the closing words on what was
 * decoded and what was not (never a silent loss). */
#ifndef PMUKIT_PD_SPE_H
#define PMUKIT_PD_SPE_H

#include <stdbool.h>
#include <stdint.h>
#include <pmukit/perfdata.h>
#include <pmukit/spe.h>

typedef struct pd_spe {
	bool dump;                   /* -D: print the packets */
	bool have_info;              /* an AUXTRACE_INFO of type Arm SPE */
	uint32_t info_type;          /* the AUXTRACE_INFO's type (0: none seen) */
	pk_spe_info info;            /* its metadata */
	uint32_t midr_all;           /* v1 files: the CPUID feature's MIDR */
	bool header_read;
	uint64_t nr_aux, aux_bytes;  /* AUXTRACE records and their data */
	uint64_t nr_foreign, foreign_bytes, foreign_offset; /* AUX data not of SPE */
	uint64_t nr_records, nr_unclosed, nr_bad, first_bad;
	pk_spe_itrace itrace;        /* the kinds to count (set: from --itrace) */
	bool itrace_set;
	uint64_t kinds[PK_SPE_NR_KINDS]; /* synthetic samples the records give */
	char info_error[512];        /* a damaged AUXTRACE_INFO */
} pd_spe;

struct pd_session;
/* An AUXTRACE_INFO or AUXTRACE record; -ENOMEM or 0. */
int pd_spe_event(pd_spe *sp, struct pd_session *s, const pk_pd_event *ev);
/* Prints what was decoded and what not (stderr); returns status, or 1 when
 * the file's only data was SPE data that gave nothing. */
int pd_spe_finish(pd_spe *sp, struct pd_session *s, int status);
void pd_spe_release(pd_spe *sp);
/* --itrace ARG for SPE; prints the error and returns 129 when bad. */
int pd_spe_set_itrace(pd_spe *sp, const char *cmd, const char *arg);

#endif
