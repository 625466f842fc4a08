/* Fuzz target: perf's --time windows (pk_time_windows_parse). Whatever
 * parses gives at least one window, each window keeps its own bounds (a
 * backward percent window none), a percent form stays inside the span,
 * windows in seconds come in order and apart; a refusal says why. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include <pmukit/timerange.h>

#define FIRST 1000000000000ULL
#define LAST 1000500000000ULL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *str = fuzz_cstr(data, size, 512);
	if (!str)
		return 0;
	pk_error err;
	pk_error_clear(&err);
	pk_time_window *w = NULL;
	size_t n = 0;
	int rc = pk_time_windows_parse(str, true, FIRST, LAST, &w, &n, &err);
	if (rc) {
		if (err.code != rc || w || n || (rc != -EINVAL && rc != -ENOMEM))
			abort();
		free(str);
		return 0;
	}
	if (!n || !w)
		abort();
	bool pct = pk_time_is_percent(str);
	for (size_t i = 0; i < n; i++) {
		if (w[i].start > w[i].end && w[i].end) {
			if (!pct || !pk_time_windows_skip(&w[i], 1, w[i].start))
				abort(); /* only a backward percent window, keeping nothing */
			continue;
		}
		if (pct && (w[i].start < FIRST || w[i].end > LAST))
			abort();
		if (!pct && i && (!w[i - 1].end || w[i].start <= w[i - 1].end))
			abort(); /* seconds: in order, apart */
		if (pk_time_windows_skip(&w[i], 1, w[i].start))
			abort(); /* a window keeps its own start */
	}
	free(w);
	free(str);
	return 0;
}
