/* libFuzzer target: the kallsyms cache's checks (lib/symbols/kcache.c) on
 * arbitrary bytes taken as a cache file. An odd first byte has the
 * checksum sealed first, so that the table checks behind it are reached
 * too; a table that passes is searched, its names read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sy_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (size && (data[0] & 1))
		pki_sy_kcache_seal(buf, size);
	dso d;
	memset(&d, 0, sizeof(d));
	if (pki_sy_kcache_parse(&d, buf, size, "fuzz")) {
		size_t sum = 0;
		for (size_t i = 0; i < d.nr_syms; i++) {
			const sym *s = pki_sy_sym_find(&d, d.syms[i].start);
			sum += s ? strlen(s->name) : 0;
		}
		(void)sum;
	}
	free(d.syms);
	free(buf);
	return 0;
}
