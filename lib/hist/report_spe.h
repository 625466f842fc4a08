/* libpmukit: report's views of Arm SPE records beyond perf's (`--spe-latency`,
 * `--plot FILE.svg`): per symbol the records, the total, issue and
 * translation latencies' percentiles (p50/p90/p99, nearest rank) and the
 * data sources of its loads and stores; the histogram of total latency,
 * as text and as an SVG chart (plot_svg.c).
 *
 * Invariants: every record pki_spe hands over is counted once, under the
 * symbol of its PC as the task's maps resolve it at that time; records
 * without a PC go under "[unknown]"; the output depends only on the
 * records (rows sorted by count, then by text). */
#ifndef PMUKIT_REPORT_SPE_H
#define PMUKIT_REPORT_SPE_H

#include <stdint.h>
#include <stdio.h>
#include <pmukit/error.h>
#include <pmukit/spe.h>

struct pk_session;
typedef struct report_spe report_spe;

report_spe *report_spe_new(void);
void report_spe_free(report_spe *rs);
/* pki_spe's record hook (arg: the report_spe); 0 or -ENOMEM. */
int report_spe_record(void *arg, struct pk_session *s, const pk_spe_record *r, int64_t pid,
		      uint32_t midr);
typedef struct rs_entry rs_entry;
/* A group's row: its records, the total, issue and translation latencies'
 * p50/p90/p99, its data sources' text, its symbol (sym_len bytes) and dso. */
typedef struct report_spe_row {
	size_t nr;
	unsigned lat[3][3];
	char sources[512];
	const char *sym, *dso;
	int sym_len;
} report_spe_row;
uint64_t report_spe_nr_records(const report_spe *rs);
/* The groups by count, then text (an array the caller frees); NULL when
 * out of memory. */
rs_entry **report_spe_sorted(const report_spe *rs, size_t *n);
void report_spe_row_of(const rs_entry *e, report_spe_row *row);
/* The histogram: its bins (*width 1, 2 or 5 times a power of ten, at most
 * 40 bins from 0 past the largest total latency) and each bin's records. */
size_t report_spe_bins(const report_spe *rs, unsigned *width);
uint64_t report_spe_bin(const report_spe *rs, size_t b, unsigned width);

/* Printed by tools/pmukit/report_spe_print.c: the table and the histogram's text. */
void report_spe_print(report_spe *rs, FILE *out);
/* The histogram of total latency as an SVG file; 0 or a negative errno
 * with err set. */
int report_spe_plot(report_spe *rs, const char *path, pk_error *err);

#endif
