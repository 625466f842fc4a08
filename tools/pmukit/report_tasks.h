/* pmukit report --stats, --tasks, --mmaps (report_tasks.c). */
#ifndef PMUKIT_REPORT_TASKS_H
#define PMUKIT_REPORT_TASKS_H

#include <stdbool.h>

#include "session_cli.h"

/* --tasks (with_maps: --mmaps, each task's process maps under it): reads
 * the session and prints perf's task tree; 0, or 1 after an error. */
int report_tasks_run(pk_session *s, bool with_maps);
/* --stats: reads the session and prints perf's "Aggregated stats" of the
 * file's records, then each event's samples and lost samples. */
int report_stats_run(pk_session *s);
/* For a reader that prints the stats after its own pass (-D): the counts
 * begun (pk_session_stats_begin: 0, or -1 after printing the error), then
 * the blocks. */
int report_stats_begin(pk_session_stats *c, pk_session *s);
/* features: the names perf gives when its tool took in a pipe's
 * HEADER_FEATURE and EVENT_UPDATE records (-D), not --stats' attr names. */
void report_stats_print(pk_session *s, const uint64_t *samples, const uint64_t *lost,
			bool features, FILE *f);

/* -T/--threads: the values of PERF_RECORD_READ records (perf record -s)
 * added up per thread and event (pk_session_reads), printed after the
 * table as perf does. */
void report_threads_print(pk_session *s, const pk_session_reads *t, FILE *f);

#endif
