/* pmukit: perf's --time option (report, script): time windows of a
 * perf.data file's samples, as perf 6.1 documents them.
 *
 * Forms: "start,end" in seconds (either side may be empty), several
 * separated by spaces ("1.5,1.6 1.8,"); or percentages of the span from the
 * file's first to its last sample (its SAMPLE_TIME header feature), several
 * separated by commas, all of one kind: "10%/2" (the second 10% slice),
 * "0%-10%" (from 0% to 10%), "10%" (the first 10%). A sample is kept when
 * its time is inside any window (bounds included). Plain data: the caller
 * owns the array. */
#ifndef PMUKIT_TIMERANGE_H
#define PMUKIT_TIMERANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmukit/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_time_window {
	uint64_t start, end;         /* ns; 0: open on that side */
} pk_time_window;

/* Whether arg is of the percent forms (they need the file's span). */
bool pk_time_is_percent(const char *arg);

/* arg's windows into *out (n of them; free() it). first and last: the
 * file's first and last sample times (used by percentages; has_span false
 * when the file has none: -ENODATA for a percent form). -EINVAL naming arg
 * when it is none of the forms, -ENOMEM. */
int pk_time_windows_parse(const char *arg, bool has_span, uint64_t first, uint64_t last,
			  pk_time_window **out, size_t *n, pk_error *err);

/* Whether time t is outside every window (n 0: nothing is). */
bool pk_time_windows_skip(const pk_time_window *w, size_t n, uint64_t t);

#ifdef __cplusplus
}
#endif
#endif
