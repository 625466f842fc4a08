/* Shared by the fuzz targets: the input as a C string. */
#ifndef PK_FUZZ_INPUT_H
#define PK_FUZZ_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A NUL-terminated copy of the input, or NULL when it is longer than max
 * (longer inputs only slow the search) or memory runs out. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size, size_t max)
{
	if (size > max)
		return NULL;
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
