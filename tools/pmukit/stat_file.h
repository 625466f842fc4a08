/* pmukit CLI: perf stat record's file, written after stat's run, read by
 * stat report and script (perf 6.1's output), over the library's stat file
 * (pmukit/perfdata.h: pk_pd_stat_*). Printing only; the records are the
 * library's. */
#ifndef PMUKIT_STAT_FILE_H
#define PMUKIT_STAT_FILE_H

#include <stdbool.h>
#include <pmukit/perfdata.h>
#include <pmukit/session.h>

#include "stat_print.h"

/* What stat record writes: the file (NULL: perf.data; "-": a pipe on
 * stdout), the run's aggregation and length, the host's facts for the
 * header (file mode). */
typedef struct stat_record_out {
	const char *path;
	pk_aggr_mode aggr;
	double elapsed_ns;
	const pk_kernel *kernel;
	const pk_pmus *pmus;
	int argc;
	char **argv;               /* the whole command line (CMDLINE) */
} stat_record_out;

/* Marks the evlist's events for a stat file: PERF_FORMAT_ID, so their ids
 * are read at the open (the file's attrs are written without it, as
 * perf's, unless grouped). */
void stat_record_prepare(pk_evlist *l);
/* Writes counting c's last reading; 0, or 1 after saying why not. */
int stat_record_write(const stat_record_out *o, pk_counting *c);

/* stat report -i FILE: the counts of each round as stat prints them,
 * through printer p (its output: stderr, as perf), per CPU with no_aggr
 * (-A), else as the file's STAT_CONFIG says. 0, or 1 (said). */
int stat_report_file(const char *input, bool no_aggr, stat_printer *p);

/* script on a stat file: at each STAT_ROUND, perf script's lines (a
 * header once, then CPU THREAD VAL ENA RUN TIME EVENT per reading). */
typedef struct stat_script {
	pk_pd_stat_data *data;
	bool header_done, failed;
} stat_script;
/* Takes in ev (a session's non-sample record): prints at a round. */
void stat_script_event(stat_script *ss, pk_session *s, const pk_pd_event *ev);
void stat_script_free(stat_script *ss);

#endif
