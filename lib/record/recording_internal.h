/* Internal to a whole recording (recording.c: the setup, recording_run.c:
 * the run): the object's state, shared by the two files. */
#ifndef PK_RECORD_RECORDING_INTERNAL_H
#define PK_RECORD_RECORDING_INTERNAL_H

#include <pmukit/recording.h>
#include <pmukit/workload.h>

#include <time.h>

#include "rec_internal.h"

struct pk_recording {
	pk_recording_opts o;
	const char *output;
	pk_pmus *pmus;
	pk_evlist *evlist;
	pk_cpumap *cpus;
	pk_threadmap *threads;
	pk_recorder *rec;
	pk_pd_writer *w;
	pk_workload wl;
	pki_rec_spe spe;             /* an arm_spe event's setup (rec_spe.c) */
	bool system_wide, traced, pipe_mode, dummy, refused;
	bool old_kept;               /* the previous output was renamed to <output>.old */
	bool child_done;
	bool switched;               /* the output was switched: the command runs */
	int child_status;            /* its wait status once child_done */
	unsigned cache_failed;       /* objects not put in the build-id cache */
	bool delayed;                /* -D: the events not enabled yet */
	struct timespec t0;          /* when the delay began */
	pk_recording_totals stats;
};

/* The caller's note callback, when it set one. */
void pki_recording_note(const pk_recording *r, pk_recording_note n, uint64_t a, uint64_t b,
			const char *text);

#endif
