/* pmukit report: the Arm SPE latency views of a pk_spe_hist printed
 * (report_spe_print.c): `--spe-latency`'s table and histogram text,
 * `--plot FILE.svg`'s chart. */
#ifndef PMUKIT_REPORT_SPE_PRINT_H
#define PMUKIT_REPORT_SPE_PRINT_H

#include <stdio.h>
#include <pmukit/error.h>
#include <pmukit/hist.h>

/* The table and the histogram's text. */
void report_spe_print(pk_spe_hist *rs, FILE *out);
/* The histogram of total latency as an SVG file; 0 or a negative errno
 * with err set. */
int report_spe_plot(pk_spe_hist *rs, const char *path, pk_error *err);

#endif
