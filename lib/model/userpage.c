/* The PMU model's user page (struct perf_event_mmap_page) for
 * self-monitoring, and the RDPMC index encodings (topdown.md 1.1 and 5).
 *
 * Invariants: every update of the page is inside the seqlock: lock
 * incremented, barrier, fields, barrier, lock incremented (as
 * perf_event_update_userpage), so a reader that sees the same even lock
 * before and after read one consistent update. ECX encodings: generic n is
 * n, fixed n is n | 1 << 30, PERF_METRICS is 1 << 29; the page's index is
 * ECX + 1 and 0 means "not on a counter" (read(2) instead). */
#include "model/sampling.h"

#include <errno.h>

#include "topdown/perf_metrics.h"

#define RDPMC_FIXED PKI_PM_ECX_FIXED
#define RDPMC_METRICS PKI_PM_ECX
#define RDPMC_FAST (1u << 31)

uint32_t pki_rdpmc_ecx(pki_pmc_kind kind, unsigned n)
{
	switch (kind) {
	case PKI_PMC_FIXED: return n | RDPMC_FIXED;
	case PKI_PMC_METRICS: return RDPMC_METRICS;
	default: return n;
	}
}

uint32_t pki_userpage_index(pki_pmc_kind kind, unsigned n)
{
	return pki_rdpmc_ecx(kind, n) + 1;
}

int pki_rdpmc_decode(uint32_t ecx, const pki_counters *row, bool smt, pki_pmc_kind *kind,
		     unsigned *n, pk_error *err)
{
	unsigned idx = ecx & (RDPMC_METRICS - 1);
	const char *why = NULL;
	if (ecx & RDPMC_FAST)
		why = "bit 31 is not modeled";
	else if ((ecx & RDPMC_FIXED) && (ecx & RDPMC_METRICS))
		why = "bits 29 and 30 together select no counter";
	else if (ecx & RDPMC_METRICS)
		why = idx ? "PERF_METRICS (bit 29) takes no index"
		    : !row->perf_metrics ? "this core has no PERF_METRICS"
					 : NULL;
	else if (ecx & RDPMC_FIXED)
		why = idx >= 32 || !(row->fixed & (1u << idx)) ? "no such fixed counter" : NULL;
	else
		why = idx >= (unsigned)pki_counters_generic(row, smt) ? "no such generic counter"
								       : NULL;
	if (why)
		return pk_err(err, -EINVAL, "rdpmc ecx 0x%x on %s: %s (the hardware's #GP)", ecx,
			      row->core, why);
	*kind = (ecx & RDPMC_METRICS)	? PKI_PMC_METRICS
		: (ecx & RDPMC_FIXED) ? PKI_PMC_FIXED
				      : PKI_PMC_GENERIC;
	*n = idx;
	return 0;
}

void pki_userpage_vtime(pki_userpage *u, uint64_t now_ns)
{
	u->cap_user_time = true;
	u->cap_user_time_zero = true;
	u->time_mult = 1;
	u->time_shift = 0;
	u->time_offset = 0 - now_ns;
	u->time_zero = 0;
}

/* A store the compiler neither drops nor moves across the barriers. */
#define PUT(field, v) __atomic_store_n(&pg->field, (v), __ATOMIC_RELAXED)

void pki_userpage_update(struct perf_event_mmap_page *pg, const pki_userpage *u)
{
	struct perf_event_mmap_page caps = {0};
	caps.cap_bit0_is_deprecated = 1;
	caps.cap_user_rdpmc = u->cap_user_rdpmc;
	caps.cap_user_time = u->cap_user_time;
	caps.cap_user_time_zero = u->cap_user_time_zero;
	PUT(lock, pg->lock + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	PUT(index, u->index);
	PUT(offset, u->offset);
	PUT(time_enabled, u->time_enabled);
	PUT(time_running, u->time_running);
	PUT(capabilities, caps.capabilities);
	PUT(pmc_width, u->pmc_width);
	PUT(time_shift, u->time_shift);
	PUT(time_mult, u->time_mult);
	PUT(time_offset, u->time_offset);
	PUT(time_zero, u->time_zero);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	PUT(lock, pg->lock + 1);
}
