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

#endif
