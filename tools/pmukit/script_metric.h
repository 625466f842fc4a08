/* pmukit CLI: script's `metric` field, perf script 6.1's shadow metrics
 * under group samples. perf keeps one running state for the whole file:
 * a count of the samples printed since the last metric lines (gnum) and
 * the period of the latest one (val), each period scaled as perf scales
 * the event (the software clocks by 1e-6, the product truncated to an
 * integer). The first sample of a round clears the store of counts; each
 * sample adds its scaled period to the store under its event's kind, the
 * CPU of the sample and its exclude bits (a mean when one kind comes more
 * than once). When the round has as many samples as the sample's group
 * has members, every member but the leader gets the metric the stat table
 * (lib/metrics) gives it, evaluated with the latest period as its own
 * count and the store's means as the others (same CPU, same exclude
 * bits), then the further lines of the table's NEW_LINE rows ("stalled
 * cycles per insn" under the IPC, started twice as perf starts them);
 * then the round starts over. An event outside a group has no
 * members (perf 6.1: nr_members 0): its samples count in the round but
 * never end it, so once one comes into a round, no later round of any
 * group prints (what perf does on such files). */
#ifndef PMUKIT_SCRIPT_METRIC_H
#define PMUKIT_SCRIPT_METRIC_H

#include <stddef.h>
#include <stdint.h>
#include <pmukit/events.h>
#include <pmukit/metrics.h>

#include "session_cli.h"

typedef struct sm_slot sm_slot;

/* A metric line: its text ("value unit") and how many times the sample's
 * start and "\tmetric: " come before it: 1, or 2 for a further line (a
 * PK_METRIC_NEW_LINE row: perf script's new_line prints them once more). */
typedef struct sm_line {
	char text[96];
	unsigned starts;
} sm_line;

typedef struct script_metric {
	pk_metric_table *table;
	pk_evlist *evlist;           /* one evsel per session evsel, for the engine */
	uint32_t *leader;            /* per session evsel: its group's leader */
	uint32_t *nr_members;        /* per session evsel: its group's size (leaders) */
	size_t nr_evsels;
	unsigned gnum;               /* samples of the current round */
	uint64_t val;                /* the latest sample's scaled period */
	sm_slot *slots;
	size_t nr_slots, cap_slots;
	sm_line *lines;              /* the metric lines of the last round */
	size_t nr_lines;
} script_metric;

/* The groups and events of the session's file; returns 0 or prints why
 * not (out of memory, an unreadable header) and returns 1. */
int script_metric_open(script_metric *m, pk_session *s);
void script_metric_close(script_metric *m);

/* One printed sample of e; returns the number of metric lines the round
 * ends with (0 while it goes on), each "value unit" as perf prints them
 * after "\tmetric: ", read with script_metric_line. */
size_t script_metric_sample(script_metric *m, const pk_pd_evsel *e, const pk_pd_sample *smp);
const sm_line *script_metric_line(const script_metric *m, size_t i);

#endif
