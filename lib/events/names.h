/* Internal: perf's symbolic event names (hardware, software, cache). */
#ifndef PK_EVENTS_NAMES_H
#define PK_EVENTS_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/events.h>

/* Finds a symbolic event by any of perf's spellings; sets *type
 * (PERF_TYPE_HARDWARE, _SOFTWARE or _HW_CACHE) and *config. Cache events are
 * checked against perf's table of valid op/result combinations. */
bool pki_symbolic_lookup(const char *name, uint32_t *type, uint64_t *config);

/* "Did you mean": the hardware and software names near word
 * (pk_similar), at most max of them into out; how many. */
size_t pki_symbolic_similar(const char *word, const char **out, size_t max);

/* perf's canonical name for a hardware or cache config id (NULL if none). */
const char *pki_hw_canonical_name(uint64_t config);

/* A cache event's config: cache id, op and result, one byte each. */
#define PK_CACHE_OP_SHIFT 8
#define PK_CACHE_RESULT_SHIFT 16
#define PK_CACHE_FIELD_MASK 0xffu

/* perf's name for any PERF_TYPE_HW_CACHE config ("L1-dcache-load-misses"),
 * including perf's words for impossible ones ("invalid-cache",
 * "unknown-ext-hardware-cache-op" ...): the one table of cache names, also
 * for naming attrs read from perf.data. */
void pki_cache_config_name(uint64_t config, char *buf, size_t size);

/* perf's name for an attr of a hardware or software event that has no stored
 * name ("cycles", "branches", "cpu-clock"), as perf script shows it; NULL
 * where perf says "unknown-hardware"/"unknown-software". */
const char *pki_symbolic_evsel_name(uint32_t type, uint64_t config);

/* The tool event of that name (perf's duration_time, user_time,
 * system_time), PK_TOOL_NONE for any other name. */
pk_tool_event pki_tool_lookup(const char *name);

#endif
