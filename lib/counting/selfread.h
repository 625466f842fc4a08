/* Inside the library: reading a counter from its user page
 * (struct perf_event_mmap_page) with RDPMC, the documented loop of
 * topdown.md 5 (libperf's perf_mmap__read_self). Pure: the instruction
 * reads (rdpmc, rdtsc) are callbacks, so the PMU model's RDPMC emulation,
 * tests and, later, the region library (issue 10) with the real
 * instructions all use the same loop. Internal for now (pki_). */
#ifndef PK_COUNTING_SELFREAD_H
#define PK_COUNTING_SELFREAD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <pmukit/counting.h>
#include <pmukit/error.h>

typedef struct pki_selfread_ops {
	/* RDPMC with this ECX (the page's index - 1): the raw counter. */
	uint64_t (*rdpmc)(void *arg, uint32_t ecx);
	/* RDTSC; NULL: enabled and running are those of the last update. */
	uint64_t (*rdtsc)(void *arg);
	void *arg;
	/* Move the times on to now even when enabled == running (libperf does
	 * only when multiplexed, needing just the ratio; the region library
	 * needs each core type's running time). */
	bool times_now;
} pki_selfread_ops;

/* Retries of a lock that keeps changing before giving up. */
#define PKI_SELFREAD_RETRIES 1000
/* pki_selfread's answer when the counter cannot be read from user space. */
#define PKI_SELFREAD_FALLBACK 1

/* One reading: out->val = offset + the sign-extended counter (pmc_width
 * bits), out->ena and out->run the page's times, advanced by the time since
 * the update when cap_user_time and enabled != running (running only when
 * on a counter). Returns 0; PKI_SELFREAD_FALLBACK when cap_user_rdpmc is
 * off or index is 0 (read(2) the fd instead; out holds the page's times);
 * -EAGAIN when the lock changed PKI_SELFREAD_RETRIES times; -EINVAL when
 * pmc_width is not 1..64. An odd lock (an update in progress) is retried
 * too. A PERF_METRICS index (bit 29) reads the packed register, not a
 * count (topdown.md 5): callers read metrics with rdpmc directly. */
int pki_selfread(const struct perf_event_mmap_page *pg, const pki_selfread_ops *ops,
		 pk_counts *out, pk_error *err);

#endif
