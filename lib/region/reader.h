/* Inside the library: how the region library reads one thread's counters
 * (docs/regions.md "Reading"). One concern: given a counter's user page
 * (struct perf_event_mmap_page) and its fd, produce a count, through RDPMC
 * when the page allows it, else through read(2) on the fd.
 *
 * The seqlock loop, index/offset, pmc_width sign extension,
 * cap_user_rdpmc and the times are pki_selfread's (lib/counting/selfread.c,
 * one implementation); this file adds what a region needs on top:
 *   - the read(2) fallback of a lone counter through the kernel seam;
 *   - SLOTS (fixed counter 3, ECX 1 << 30 | 3) and PERF_METRICS (ECX 1 << 29)
 *     read inside the same lock pass, so the packed register belongs to
 *     the slots value it is scaled by; the metric register is never read
 *     with read(2) (the kernel clears it on read: the caller picks one way
 *     for the whole group, pki_rd_topdown says which);
 *   - the real instructions (x86-64 inline asm), used only when a page says
 *     cap_user_rdpmc, and an injectable counter-read function: a kernel
 *     seam's rdpmc entry (the PMU model's) or a test's.
 * A metric byte's count is pki_pm_value (lib/topdown/perf_metrics.c).
 * Nothing here allocates; only the fallback makes a system call. */
#ifndef PK_REGION_READER_H
#define PK_REGION_READER_H

#include <stdbool.h>
#include <stdint.h>
#include "counting/selfread.h"
#include "topdown/perf_metrics.h" /* RDPMC's ECX of PERF_METRICS, its decoding */
#include <pmukit/kernel.h>

typedef struct pki_rd_ops {
	pki_selfread_ops sr;       /* rdpmc / rdtsc: the instructions or an emulation */
	const pk_kernel *k;        /* for the read(2) fallback */
} pki_rd_ops;

/* The real instructions; rdpmc faults unless the page allowed it. */
uint64_t pki_rd_hw_rdpmc(void *arg, uint32_t ecx);
uint64_t pki_rd_hw_rdtsc(void *arg);
/* Whether this build can execute RDPMC (x86-64). */
bool pki_rd_hw_available(void);

/* One counter: its count and times through RDPMC (returns 0) or, when the
 * page says index 0 or no cap_user_rdpmc (or pg is NULL), through read(2)
 * of fd with read_format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING (returns
 * 1). Negative errno with err on a lock that never settles or a failed
 * read. */
int pki_rd_count(const pki_rd_ops *ops, const struct perf_event_mmap_page *pg, int fd,
		 pk_counts *out, pk_error *err);

/* SLOTS and PERF_METRICS of one slots-led group, from the slots event's
 * page: *slots the slots count (offset + counter), *raw the sign-extended
 * fixed counter 3 alone (what the metric fields are shares of), *metrics
 * the packed register read right after it in the same lock pass. Returns
 * 0, or PKI_SELFREAD_FALLBACK when the page cannot be read from user space
 * (nothing read: the caller reads the whole group with read(2) instead,
 * never one member), or a negative errno. */
int pki_rd_topdown(const pki_rd_ops *ops, const struct perf_event_mmap_page *slots_pg,
		   pk_counts *slots, uint64_t *raw, uint64_t *metrics, pk_error *err);

#endif
