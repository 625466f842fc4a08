/* pmukit: small utilities of the library that its users share (the CLI's
 * "did you mean" and its growable arrays), so that each fact has one place.
 * Stateless; no allocation but what the caller hands over. */
#ifndef PMUKIT_UTIL_H
#define PMUKIT_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "Did you mean": whether candidate is near enough to word to suggest it
 * (Damerau-Levenshtein distance at most 1 + len/4, at most 3; case
 * ignored; the first 63 bytes of each word count). */
bool pk_similar(const char *word, const char *candidate);

/* Grows the array *pptr (of elem-byte elements, *cap of them allocated) to
 * hold at least want: the capacity doubles (from 8); the new elements are
 * not initialized. 0, or -ENOMEM with the array as it was. */
int pk_grow(void *pptr, size_t *cap, size_t want, size_t elem);

#ifdef __cplusplus
}
#endif
#endif
