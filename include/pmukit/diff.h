/* pmukit: perf diff's engine (lib/hist/diff.c): report's histograms of
 * several perf.data files paired entry by entry, as perf diff 6.1 pairs
 * them.
 *
 * The caller makes one pk_hist per file (the baseline first) with the
 * same sort keys (perf diff's default dso,sym), no chains, no groups, and
 * runs each file's session through it; pk_diff_new then collects every
 * histogram and, for each event of the baseline, pairs the entries of each
 * other file's event of the same attr type and config with the
 * baseline's entry of equal keys (symbols by name and start, addresses
 * without one by address: perf's match of a dso and symbol). An entry of
 * another file with no baseline entry becomes a row of its own (perf's
 * "dummy": no baseline value), shared by later files' equal entries
 * (unless -b, baseline_only: then only baseline entries paired in some
 * file are rows, and no dummy is made). Each pair gets the value of the
 * computation (-c): delta, the change of share in points; ratio, new
 * period over old (1 for none); wdiff, new * w2 - old * w1. The rows are
 * in perf's output order: by the value of file `order` (-o; those paired
 * there first), the baseline period, each file's value, then the keys.
 *
 * Invariants: rows, their cells and entries live as long as the pk_diff,
 * which does not own the histograms (they must outlive it); the engine
 * never prints (the CLI's cmd_diff.c does); a value depends only on the
 * periods and totals, never on the order the files were read in. */
#ifndef PMUKIT_DIFF_H
#define PMUKIT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/hist.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pk_diff_compute { PK_DIFF_DELTA, PK_DIFF_DELTA_ABS, PK_DIFF_RATIO, PK_DIFF_WDIFF };

/* The caller's choices; size: sizeof(pk_diff_opts) (PK_DIFF_OPTS_INIT). */
typedef struct pk_diff_opts {
	size_t size;
	enum pk_diff_compute compute; /* -c, default delta-abs */
	int64_t w1, w2;              /* -c wdiff:W1,W2 */
	unsigned order;              /* -o: the file whose values sort first (1) */
	bool baseline_only;          /* -b */
} pk_diff_opts;
#define PK_DIFF_OPTS_INIT {sizeof(pk_diff_opts), PK_DIFF_DELTA_ABS, 0, 0, 1, false}

/* -c's words: delta, delta-abs, ratio, wdiff:W1,W2 (both nonzero); 0 or
 * -EINVAL naming the word (err's where) and why. */
int pk_diff_opts_compute(pk_diff_opts *o, const char *arg, pk_error *err);

/* One file's side of a row: whether the file has the entry, its period,
 * the file's event total, and the computation's value against the
 * baseline (the one -c chose; the others 0). */
typedef struct pk_diff_cell {
	bool paired;
	uint64_t period, total;
	double delta, ratio;
	int64_t wdiff;
} pk_diff_cell;

/* A row: the entry whose key texts it prints (the baseline's, or the
 * first other file's for a dummy) and its histogram, whether it is a
 * dummy, the baseline period, a cell per file (cell[0]: the baseline's,
 * never paired). */
typedef struct pk_diff_row {
	const pk_hist *hist;
	const pk_hist_entry *entry;
	bool dummy;
	uint64_t period;
	const pk_diff_cell *cell;
} pk_diff_row;

typedef struct pk_diff pk_diff;

/* Pairs hists[0, n) (n >= 2, hists[0] the baseline, each set up and fed);
 * 0, -EINVAL (n, o->order >= n, keys that differ), -ENOMEM. */
int pk_diff_new(pk_hist *const *hists, size_t n, const pk_diff_opts *o, pk_diff **out,
		pk_error *err);
void pk_diff_free(pk_diff *d);

/* The baseline's events (its evsels, in the file's order). */
size_t pk_diff_nr_events(const pk_diff *d);
/* Event i's rows in output order (*n of them). */
const pk_diff_row *pk_diff_rows(const pk_diff *d, size_t i, size_t *n);
/* The baseline total the printed shares are of (perf's, once the rows
 * are made: with -b the rows' sum, else the event's total). */
uint64_t pk_diff_base_total(const pk_diff *d, size_t i);
/* The key columns' widths of event i's rows into w[nr_keys]. */
void pk_diff_widths(const pk_diff *d, size_t i, int *w);

#ifdef __cplusplus
}
#endif
#endif
