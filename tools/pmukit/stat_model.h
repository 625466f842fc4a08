/* pmukit stat --model: counting on the PMU model (issue 8). The scenario's
 * threads are the workload, time is virtual: the run advances the model by
 * each -I interval (or to the scenario's end) at once, with no waiting.
 * Kept out of cmd_stat.c, which only branches here. */
#ifndef PMUKIT_STAT_MODEL_H
#define PMUKIT_STAT_MODEL_H

#include <stdbool.h>
#include <stdio.h>
#include <pmukit/counting.h>
#include <pmukit/model.h>

#include "stat_print.h"

/* "scenario 'S' on machine 'M'" into buf: what every output names. */
const char *stat_model_label(const pk_model *m, char *buf, size_t len);
/* The first output line saying the numbers are modeled: a human line or a
 * CSV comment (JSON rows carry a "modeled" field instead). */
void stat_model_print_label(FILE *out, stat_format fmt, const char *label);
/* -p/-t, or by default every thread of the scenario. */
pk_threadmap *stat_model_threads(pk_model *m, const char *pids, const char *tids, pk_error *err);

/* Called after each interval with its end and length (virtual ns). */
typedef int (*stat_model_tick_fn)(void *arg, double t_ns, double len_ns, pk_error *err);
/* Runs the model to the scenario's end; with interval_ms, tick after each
 * interval (the last one ends at the end, shorter if need be) until the end
 * or interval_count ticks. Returns 0 or the tick's error. */
int stat_model_run(pk_model *m, long interval_ms, long interval_count, stat_model_tick_fn tick,
		   void *arg, pk_error *err);

#endif
