/* pmukit: histograms of perf.data samples (lib/hist).
 *
 * pk_spe_hist: Arm SPE records grouped by symbol, report's views beyond
 * perf's (`--spe-latency`, `--plot FILE.svg`): per symbol the records, the
 * total, issue and translation latencies' percentiles (p50/p90/p99,
 * nearest rank) and the data sources of its loads and stores; the
 * histogram of total latency in bins. Fed from a session's SPE record hook
 * (pk_session_on_spe_record(s, pk_spe_hist_record, hist)).
 *
 * Invariants: every record handed over is counted once, under the symbol
 * of its PC as the task's maps resolve it at that time; records without a
 * PC go under "[unknown]"; the answers depend only on the records (groups
 * sorted by count, then by text). The histogram owns its groups; a row's
 * texts live as long as the histogram.
 *
 * lib/hist, report's engine: the histogram (report_hist.c: samples into
 * entries by the sort keys, Children, group members, the branch view's
 * entries, a pipe's events and groups settled at its first sample, entries
 * collected in perf's order), the sort keys and -F's value columns as tables
 * (report_keys.c), call-chain trees (chain.c), the Arm SPE latency groups
 * above (report_spe.c). Printing is the CLI's (tools/pmukit/report_print.c,
 * report_chain.c, report_spe_print.c). The histogram itself is still
 * internal (hist/report.h, hist/report_keys.h, read in place by the CLI),
 * not exported; only pk_spe_hist is. */
#ifndef PMUKIT_HIST_H
#define PMUKIT_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <pmukit/session.h>
#include <pmukit/spe.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_spe_hist pk_spe_hist;
typedef struct pk_spe_hist_entry pk_spe_hist_entry;

/* NULL when out of memory. */
pk_spe_hist *pk_spe_hist_new(void);
void pk_spe_hist_free(pk_spe_hist *h);
/* A pk_session_spe_fn (arg: the pk_spe_hist); 0 or -ENOMEM. */
int pk_spe_hist_record(void *arg, pk_session *s, const pk_spe_record *r, int64_t pid,
		       uint32_t midr);
/* The records counted. */
uint64_t pk_spe_hist_nr_records(const pk_spe_hist *h);
/* The groups by count, then text (an array the caller frees, of entries
 * the histogram owns); NULL when out of memory. */
pk_spe_hist_entry **pk_spe_hist_sorted(const pk_spe_hist *h, size_t *n);

/* A group's row: its records, the total, issue and translation latencies'
 * p50/p90/p99, its data sources' text, its symbol (sym_len bytes) and dso. */
typedef struct pk_spe_hist_row {
	size_t nr;
	unsigned lat[3][3];
	char sources[512];
	const char *sym, *dso;
	int sym_len;
} pk_spe_hist_row;
void pk_spe_hist_row_of(const pk_spe_hist_entry *e, pk_spe_hist_row *row);

/* The histogram of total latency: its bins (*width 1, 2 or 5 times a power
 * of ten, at most 40 bins from 0 past the largest total latency) and each
 * bin's records. */
size_t pk_spe_hist_bins(const pk_spe_hist *h, unsigned *width);
uint64_t pk_spe_hist_bin(const pk_spe_hist *h, size_t b, unsigned width);

#ifdef __cplusplus
}
#endif
#endif
