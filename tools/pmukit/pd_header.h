/* pmukit CLI: perf.data's header as `perf report --header` and `perf
 * script --header` print it (perf 6.1's layout): file facts, host
 * features, one line per event with its attr fields by name, then the
 * other features in feature order. Shared by report and script. */
#ifndef PMUKIT_PD_HEADER_H
#define PMUKIT_PD_HEADER_H

#include <stdbool.h>
#include <stdio.h>
#include <pmukit/events.h>
#include <pmukit/perfdata.h>

/* The "# ========" block, then "#" (input: the path, "-" for a pipe). In
 * pipe mode only the file facts: perf prints the features as it reads
 * their HEADER_FEATURE records (pd_header_feature). */
void pd_header_print(pk_pd_reader *r, const char *input, FILE *f);
/* -I/--show-info: the features perf shows only then, printed in full
 * (pd_header_info.c). */
void pd_header_set_info(bool on);
bool pd_header_info_print(pk_pd_reader *r, const pk_pd_header *h, int feat, FILE *f);
/* When the file was recorded on the PMU model (HOSTNAME and OSRELEASE
 * are the model's): its CPU description ("pmukit model of ..."); else NULL
 * (also when the header cannot be read, e.g. a pipe). */
char *pd_header_modeled(pk_pd_reader *r);
/* A modeled file's note: report's "#" line on stdout (ignored by tools
 * that read perf's output), script's on stderr; nothing for other files. */
void pd_header_note_modeled(pk_pd_reader *r, const char *cmd, bool comment, FILE *f);
/* ev, from pk_pd_next, printed as perf prints a feature read from a pipe
 * when it is a HEADER_FEATURE record (the reader has taken it in); 1 when
 * it is the features' end marker, else 0. */
int pd_header_feature(pk_pd_reader *r, const pk_pd_event *ev, FILE *f);
/* report --header-only of a pipe: the records read up to the features' end
 * marker (or the end), each feature printed; 0 or the reader's error. */
int pd_header_pipe_features(pk_pd_reader *r, FILE *f);
/* An attr's non-zero fields in perf's order, each as
 * "<sep><name><eq><value>" (perf's perf_event_attr__fprintf: sep ", " and
 * eq " = " in headers; evlist -v uses ": "). */
void pd_attr_print(FILE *f, const struct perf_event_attr *a, const char *sep, const char *eq);
/* A field's value as text (header and encode): names for masks, hex with
 * 0x, signed or unsigned decimal. */
const char *pd_attr_field_str(const pk_attr_field *f, char *buf, size_t len);


#endif
