/* pmukit: CPU maps, sorted sets of CPU numbers, reference counted. The
 * machine's CPU sets are host facts of the kernel seam (pk_host_cpus in
 * kernel.h). */
#ifndef PMUKIT_CPUMAP_H
#define PMUKIT_CPUMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <pmukit/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_cpumap pk_cpumap;

/* Parses a Linux cpulist ("0-3,8,10-11"), tolerant of surrounding white space
 * and a trailing newline. An empty string gives an empty map. */
pk_cpumap *pk_cpumap_parse(const char *list, pk_error *err);
/* A map holding only -1: "any CPU", used for per-thread events. */
pk_cpumap *pk_cpumap_any(void);
pk_cpumap *pk_cpumap_from_array(const int *cpus, int nr);
/* CPUs present in both maps. */
pk_cpumap *pk_cpumap_intersect(const pk_cpumap *a, const pk_cpumap *b);

pk_cpumap *pk_cpumap_get(pk_cpumap *map);
void pk_cpumap_put(pk_cpumap *map);

int pk_cpumap_nr(const pk_cpumap *map);
int pk_cpumap_cpu(const pk_cpumap *map, int idx);
bool pk_cpumap_has(const pk_cpumap *map, int cpu);
int pk_cpumap_idx(const pk_cpumap *map, int cpu); /* -1 when absent */
bool pk_cpumap_equal(const pk_cpumap *a, const pk_cpumap *b);
/* Writes the map as a cpulist ("0-3,8"); returns the length as snprintf does. */
int pk_cpumap_format(const pk_cpumap *map, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
