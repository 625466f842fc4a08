/* Internal: perf's symbolic event names (hardware, software, cache). */
#ifndef PK_EVENTS_NAMES_H
#define PK_EVENTS_NAMES_H

#include <stdbool.h>
#include <stdint.h>

/* Finds a symbolic event by any of perf's spellings; sets *type
 * (PERF_TYPE_HARDWARE, _SOFTWARE or _HW_CACHE) and *config. Cache events are
 * checked against perf's table of valid op/result combinations. */
bool pki_symbolic_lookup(const char *name, uint32_t *type, uint64_t *config);

/* perf's canonical name for a hardware or cache config id (NULL if none). */
const char *pki_hw_canonical_name(uint64_t config);

#endif
