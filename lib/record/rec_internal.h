/* Internal interfaces between the files of lib/record: the header features
 * written apart from hostfeat.c (memfeat.c: NUMA_TOPOLOGY, CACHE,
 * MEM_TOPOLOGY) and the one way to put a CPU list into a feature.
 * Internal names pki_rec_. */
#ifndef PK_RECORD_REC_INTERNAL_H
#define PK_RECORD_REC_INTERNAL_H

#include "perfdata/pd_internal.h"

#include <pmukit/kernel.h>

/* NUMA_TOPOLOGY, CACHE and MEM_TOPOLOGY from k's optional node, cache and
 * mem_blocks facts (each left out when k has none); nr_avail: CPUs to ask
 * about caches. Fails only when out of memory or the writer fails. */
int pki_rec_mem_features(pk_pd_writer *w, const pk_kernel *k, int nr_avail, pk_error *err);

/* A CPU list as the kernel writes it ("0-3,8"), as a header string. */
void pki_rec_buf_cpulist(pk_pd_buf *b, const pk_cpumap *m);

#endif
