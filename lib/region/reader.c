/* The region library's reader (reader.h): a count through RDPMC or
 * read(2), and SLOTS with PERF_METRICS in one lock pass.
 *
 * Invariants: read(2) is used only when the page says the counter cannot
 * be read from user space; the metric register is read only with RDPMC,
 * inside the same seqlock pass as fixed counter 3 (a retry reads both
 * again, the last pass wins); nothing allocates. */
#include "region/reader.h"

#include <errno.h>
#include <string.h>

uint64_t pki_rd_hw_rdpmc(void *arg, uint32_t ecx)
{
	(void)arg;
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
	return (uint64_t)hi << 32 | lo;
#else
	(void)ecx;
	return 0;
#endif
}

uint64_t pki_rd_hw_rdtsc(void *arg)
{
	(void)arg;
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#else
	return 0;
#endif
}

bool pki_rd_hw_available(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;
#endif
}

/* read(2) of one counter with its two times (read_format
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING: value, enabled, running). */
static int read_fd(const pk_kernel *k, int fd, pk_counts *out, pk_error *err)
{
	uint64_t buf[3];
	ssize_t n = k->ops->read(k, fd, buf, sizeof(buf));
	if (n < 0)
		return pk_err(err, (int)n, "reading counter fd %d", fd);
	if (n != sizeof(buf))
		return pk_err(err, -EIO, "reading counter fd %d: %zd bytes, not a count", fd, n);
	*out = (pk_counts){.val = buf[0], .ena = buf[1], .run = buf[2]};
	return 1;
}

int pki_rd_count(const pki_rd_ops *ops, const struct perf_event_mmap_page *pg, int fd,
		 pk_counts *out, pk_error *err)
{
	if (pg) {
		int r = pki_selfread(pg, &ops->sr, out, err);
		if (r != PKI_SELFREAD_FALLBACK)
			return r;
	}
	return read_fd(ops->k, fd, out, err);
}

/* The pass's registers: fixed counter 3, then PERF_METRICS right after. */
typedef struct td_pass {
	const pki_selfread_ops *inner;
	uint64_t raw, metrics;
} td_pass;

static uint64_t td_rdpmc(void *arg, uint32_t ecx)
{
	td_pass *p = arg;
	p->raw = p->inner->rdpmc(p->inner->arg, ecx);
	p->metrics = p->inner->rdpmc(p->inner->arg, PKI_PM_ECX);
	return p->raw;
}

static uint64_t td_rdtsc(void *arg)
{
	const td_pass *p = arg;
	return p->inner->rdtsc(p->inner->arg);
}

int pki_rd_topdown(const pki_rd_ops *ops, const struct perf_event_mmap_page *slots_pg,
		   pk_counts *slots, uint64_t *raw, uint64_t *metrics, pk_error *err)
{
	td_pass p = {.inner = &ops->sr};
	pki_selfread_ops sr = {td_rdpmc, ops->sr.rdtsc ? td_rdtsc : NULL, &p, ops->sr.times_now};
	int r = pki_selfread(slots_pg, &sr, slots, err);
	if (r != 0)
		return r;
	unsigned w = __atomic_load_n(&slots_pg->pmc_width, __ATOMIC_RELAXED);
	unsigned sh = 64 - w;  /* 1..64 checked by pki_selfread */
	int64_t v = (int64_t)(p.raw << sh) >> sh;
	*raw = v < 0 ? 0 : (uint64_t)v;
	*metrics = p.metrics;
	return 0;
}
