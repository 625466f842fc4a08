/* pmukit CLI: perf.data's header as `perf report --header` and `perf
 * script --header` print it (perf 6.1's layout): file facts, host
 * features, one line per event with its attr fields by name, then the
 * other features in feature order. Shared by report and script. */
#ifndef PMUKIT_PD_HEADER_H
#define PMUKIT_PD_HEADER_H

#include <stdio.h>
#include <pmukit/perfdata.h>

/* The "# ========" block, then "#" (input: the path, "-" for a pipe). */
void pd_header_print(pk_pd_reader *r, const char *input, FILE *f);
/* An attr's non-zero fields in perf's order, each as
 * "<sep><name><eq><value>" (perf's perf_event_attr__fprintf: sep ", " and
 * eq " = " in headers; evlist -v uses ": "). */
void pd_attr_print(FILE *f, const struct perf_event_attr *a, const char *sep, const char *eq);

#endif
