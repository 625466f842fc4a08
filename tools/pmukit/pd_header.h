/* pmukit CLI: perf.data's header as `perf report --header` and `perf
 * script --header` print it (perf 6.1's layout): file facts, host
 * features, one line per event with its attr fields by name, then the
 * other features in feature order. Shared by report and script. */
#ifndef PMUKIT_PD_HEADER_H
#define PMUKIT_PD_HEADER_H

#include <stdbool.h>
#include <stdio.h>
#include <pmukit/perfdata.h>

/* The "# ========" block, then "#" (input: the path, "-" for a pipe). */
void pd_header_print(pk_pd_reader *r, const char *input, FILE *f);
/* When the file was recorded on the PMU model (HOSTNAME and OSRELEASE
 * are the model's): its CPU description ("pmukit model of ..."); else NULL
 * (also when the header cannot be read, e.g. a pipe). */
char *pd_header_modeled(pk_pd_reader *r);
/* A modeled file's note: report's "#" line on stdout (ignored by tools
 * that read perf's output), script's on stderr; nothing for other files. */
void pd_header_note_modeled(pk_pd_reader *r, const char *cmd, bool comment, FILE *f);
/* An attr's non-zero fields in perf's order, each as
 * "<sep><name><eq><value>" (perf's perf_event_attr__fprintf: sep ", " and
 * eq " = " in headers; evlist -v uses ": "). */
void pd_attr_print(FILE *f, const struct perf_event_attr *a, const char *sep, const char *eq);

#endif
