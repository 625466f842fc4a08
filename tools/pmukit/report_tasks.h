/* pmukit report --stats, --tasks, --mmaps (report_tasks.c). */
#ifndef PMUKIT_REPORT_TASKS_H
#define PMUKIT_REPORT_TASKS_H

#include <stdbool.h>

#include "pd_session.h"

/* --tasks (with_maps: --mmaps, each task's process maps under it): reads
 * the session and prints perf's task tree; 0, or 1 after an error. */
int report_tasks_run(pd_session *s, bool with_maps);
/* --stats: reads the session and prints perf's "Aggregated stats" of the
 * file's records, then each event's samples and lost samples. */
int report_stats_run(pd_session *s);

/* -T/--threads: the values of PERF_RECORD_READ records (perf record -s)
 * added up per thread and event, printed after the table as perf does. */
typedef struct report_threads report_threads;
report_threads *report_threads_new(pd_session *s);
void report_threads_free(report_threads *t);
/* pd_session's on_event. */
void report_threads_event(void *arg, struct pd_session *s, const pk_pd_event *ev, bool before);
void report_threads_print(const report_threads *t, FILE *f);

#endif
