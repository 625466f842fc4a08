/* pmukit CLI: perf script's --show-task-events, --show-mmap-events,
 * --show-switch-events, --show-namespace-events, --show-cgroup-events
 * --show-lost-events and --show-round-events: the non-sample records
 * printed as perf 6.1 prints them, after the same prefix as a sample's
 * (comm, tid, cpu, time). Called by the session only when one is asked
 * for (pk_session.on_event), so reading costs nothing otherwise. */
#ifndef PMUKIT_SCRIPT_SIDE_EVENTS_H
#define PMUKIT_SCRIPT_SIDE_EVENTS_H

#include <stdbool.h>

#include "session_cli.h"

enum {
	SIDE_TASK = 1 << 0,    /* COMM, FORK, EXIT */
	SIDE_MMAP = 1 << 1,    /* MMAP, MMAP2 */
	SIDE_SWITCH = 1 << 2,  /* SWITCH, SWITCH_CPU_WIDE */
	SIDE_LOST = 1 << 3,    /* LOST */
	SIDE_NAMESPACES = 1 << 4,
	SIDE_CGROUP = 1 << 5,
	SIDE_ROUND = 1 << 6,   /* FINISHED_ROUND: perf then reads in file order */
};

/* Prints the prefix of a record's line (the script's own layout for the
 * evsel: comm, tid, cpu, time and ": "), for the task comm and ids. */
typedef void (*side_prefix_fn)(void *arg, pk_session *s, const pk_pd_event *ev, const char *comm,
			       uint32_t pid, uint32_t tid);

typedef struct side_events {
	unsigned kinds;              /* SIDE_ bits asked for */
	side_prefix_fn prefix;
	void *prefix_arg;
	pd_out *out;
} side_events;

/* Whether the record is one of the kinds asked for, and when: before the
 * task state is updated (EXIT: the task as it was), or after (COMM, FORK,
 * MMAP: the state they make). */
bool side_events_wants(const side_events *se, const pk_pd_event *ev, bool before);
/* Prints the record's line. */
void side_events_print(side_events *se, pk_session *s, const pk_pd_event *ev);
/* The text after "PERF_RECORD_<NAME>" of a MMAP, MMAP2, COMM, FORK, EXIT,
 * SWITCH, SWITCH_CPU_WIDE, NAMESPACES or CGROUP record, the same in these
 * lines and -D's dump (perf_event__fprintf's); false for another type or
 * a damaged record (nothing written). */
bool pd_record_text(pd_out *o, const pk_pd_event *ev);

#endif
