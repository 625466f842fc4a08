/* pmukit stat --per-core, --per-die, --per-socket, --per-node: per-CPU rows
 * summed into perf 6.1's topology buckets (stat_aggr.c). */
#ifndef PK_STAT_AGGR_H
#define PK_STAT_AGGR_H
#include <pmukit/kernel.h>

#include "stat_print.h"

/* Folds per-CPU rows (keys: CPUs) into per's buckets, in perf's order;
 * nothing for STAT_PER_NONE. k NULL: the real kernel. 0 or -ENOMEM. */
int stat_rows_per(stat_rows *rows, stat_per per, const pk_kernel *k);
#endif
