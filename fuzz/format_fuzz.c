/* Fuzz target: PMU format fields ("config1:0-7,32-35"). A parsed field must
 * round-trip every value it can hold through apply/extract, touch no bit
 * outside its ranges, and refuse values wider than itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include <pmukit/pmu.h>

static uint64_t field_mask(const pk_format *f)
{
	uint64_t m = 0;
	for (int i = 0; i < f->nr_ranges; i++) {
		unsigned lo = f->ranges[i].lo, hi = f->ranges[i].hi;
		uint64_t part = (hi - lo + 1) >= 64 ? ~0ULL : ((1ULL << (hi - lo + 1)) - 1);
		m |= part << lo;
	}
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the first 8 bytes (when there are more) pick the value to apply */
	uint64_t value = 0;
	if (size > 8) {
		memcpy(&value, data, 8);
		data += 8;
		size -= 8;
	}
	char *str = fuzz_cstr(data, size, 512);
	if (!str)
		return 0;
	pk_format f;
	pk_error err;
	pk_error_clear(&err);
	if (pk_format_parse(str, &f, &err) == 0) {
		if (f.word < 0 || f.word >= PK_NR_CONFIGS || f.nr_ranges < 1 ||
		    f.nr_ranges > PK_FORMAT_MAX_RANGES || f.width < 1 || f.width > 64)
			abort();
		uint64_t max = pk_format_max(&f);
		uint64_t v = value & max;
		uint64_t config[PK_NR_CONFIGS] = {0};
		if (pk_format_apply(&f, v, config) != 0 || pk_format_extract(&f, config) != v)
			abort();
		for (int w = 0; w < PK_NR_CONFIGS; w++)
			if ((w != f.word && config[w]) || (w == f.word && (config[w] & ~field_mask(&f))))
				abort();
		/* other bits already set stay set */
		uint64_t full[PK_NR_CONFIGS] = {~0ULL, ~0ULL, ~0ULL, ~0ULL};
		if (pk_format_apply(&f, v, full) != 0 || pk_format_extract(&f, full) != v ||
		    (full[f.word] | field_mask(&f)) != ~0ULL)
			abort();
		if (max != ~0ULL && pk_format_apply(&f, max + 1 + (value >> f.width), config) == 0)
			abort();
	} else if (err.code == 0) {
		abort();
	}
	free(str);
	return 0;
}
