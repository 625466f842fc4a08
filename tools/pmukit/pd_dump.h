/* pmukit CLI: perf 6.1's raw trace dump of every record, `report -D` and
 * `script -D` (pd_dump.c). */
#ifndef PMUKIT_PD_DUMP_H
#define PMUKIT_PD_DUMP_H

#include "session_cli.h"

enum {
	PD_DUMP_STATS = 1,        /* report: perf's stats blocks at the end */
	PD_DUMP_BRANCHES = 2,     /* report shows branches: its stats count each one */
	PD_DUMP_ROUNDS_SHOWN = 4, /* script --show-round-events: FINISHED_ROUND's line */
};

/* Reads the session (pk_session_spe_dump set: Arm SPE data dumped, no synthetic
 * samples) printing every record as perf's -D does, with flags PD_DUMP_*;
 * 0, or 1 after printing an error. then (script), when not NULL, is
 * called after each sample's dump with the sample as script reads it (its
 * output follows: stdout is flushed first), and the event hook in place, when set,
 * after each record's dump (and after the record, as usual). */
int pd_dump_run(pk_session *s, unsigned flags, pk_session_sample_fn then, void *then_arg);
/* perf's first line of a dump when the file's first event has no
 * sample_id_all (stat record's files): it then reads in file order. */
void pd_dump_unordered_note(const pk_session *s);

#endif
