/* pmukit CLI: perf 6.1's raw trace dump of every record, `report -D` and
 * `script -D` (pd_dump.c). */
#ifndef PMUKIT_PD_DUMP_H
#define PMUKIT_PD_DUMP_H

#include "session_cli.h"

/* Reads the session (s->spe.dump set: Arm SPE data dumped, no synthetic
 * samples) printing every record as perf's -D does, then with stats
 * (report) perf's stats blocks, each event's samples counted per branch
 * when report shows branches (branch_view); 0, or 1 after printing an
 * error. */
int pd_dump_run(pk_session *s, bool stats, bool branch_view);

#endif
