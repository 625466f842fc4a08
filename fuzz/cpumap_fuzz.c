/* Fuzz target: cpulist parsing. Whatever parses must format back to a list
 * that parses to the same map, be sorted and unique, and index consistently. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include <pmukit/cpumap.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *str = fuzz_cstr(data, size, 1024);
	if (!str)
		return 0;
	pk_error err;
	pk_error_clear(&err);
	pk_cpumap *map = pk_cpumap_parse(str, &err);
	if (!map) {
		if (err.code == 0)
			abort();
		free(str);
		return 0;
	}
	int nr = pk_cpumap_nr(map);
	for (int i = 0; i < nr; i++) {
		int cpu = pk_cpumap_cpu(map, i);
		if (i && cpu <= pk_cpumap_cpu(map, i - 1))
			abort(); /* sorted, no duplicates */
		if (pk_cpumap_idx(map, cpu) != i || !pk_cpumap_has(map, cpu))
			abort();
	}
	int len = pk_cpumap_format(map, NULL, 0);
	if (len < 0)
		abort();
	char *text = malloc((size_t)len + 1);
	if (text) {
		if (pk_cpumap_format(map, text, (size_t)len + 1) != len)
			abort();
		pk_cpumap *again = pk_cpumap_parse(text, &err);
		if (!again || !pk_cpumap_equal(map, again))
			abort();
		pk_cpumap *both = pk_cpumap_intersect(map, again);
		if (both && !pk_cpumap_equal(both, map))
			abort();
		pk_cpumap_put(both);
		pk_cpumap_put(again);
		free(text);
	}
	pk_cpumap_put(map);
	free(str);
	return 0;
}
