/* Self-monitoring read of one counter from its user page: the documented
 * loop (topdown.md 5; libperf's perf_mmap__read_self), with the instruction
 * reads injected (selfread.h).
 *
 * Invariants: every field of the page is loaded between two loads of the
 * same even lock, with acquire fences between, or the reading is retried
 * (at most PKI_SELFREAD_RETRIES times); rdpmc is called inside the lock
 * (the counter must be the one the index names); the counter is
 * sign-extended from pmc_width bits before it is added to offset; times
 * move on by time_offset + (tsc x time_mult) >> time_shift, the TSC first
 * folded into time_cycles/time_mask when cap_user_time_short. */
#include "counting/selfread.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define LD(field) __atomic_load_n(&pg->field, __ATOMIC_RELAXED)

/* A capability bit as the UAPI header lays it out. */
static uint64_t cap_bit(int which)
{
	struct perf_event_mmap_page m = {0};
	if (which == 0)
		m.cap_user_rdpmc = 1;
	else if (which == 1)
		m.cap_user_time = 1;
	else
		m.cap_user_time_short = 1;
	return m.capabilities;
}

/* One consistent copy of what the loop needs. */
typedef struct snap {
	uint64_t ena, run, caps;
	uint32_t idx;
	int64_t offset;
	uint64_t pmc;
	uint16_t width, shift;
	uint32_t mult;
	uint64_t time_offset, time_cycles, time_mask;
	uint64_t cyc;
	bool has_cyc;
} snap;

/* The fields inside the lock; false when the lock moved (or was odd). */
static bool read_once(const struct perf_event_mmap_page *pg, const pki_selfread_ops *ops, snap *s)
{
	uint32_t seq = LD(lock);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s->ena = LD(time_enabled);
	s->run = LD(time_running);
	s->caps = LD(capabilities);
	s->has_cyc = false;
	if ((s->caps & cap_bit(1)) && (s->ena != s->run || ops->times_now) && ops->rdtsc) {
		s->cyc = ops->rdtsc(ops->arg);
		s->has_cyc = true;
		s->mult = LD(time_mult);
		s->shift = LD(time_shift);
		s->time_offset = LD(time_offset);
		if (s->caps & cap_bit(2)) {
			s->time_cycles = LD(time_cycles);
			s->time_mask = LD(time_mask);
		}
	}
	s->idx = LD(index);
	s->offset = LD(offset);
	s->width = LD(pmc_width);
	s->pmc = 0;
	bool rdpmc = (s->caps & cap_bit(0)) && s->idx;
	if (rdpmc && s->width >= 1 && s->width <= 64)
		s->pmc = ops->rdpmc(ops->arg, s->idx - 1);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return !(seq & 1) && LD(lock) == seq;
}

/* (a x mult) >> shift in 128 bits: the kernel's mul_u64_u32_shr. */
static uint64_t mul_shr(uint64_t a, uint32_t mult, unsigned shift)
{
	return (uint64_t)(((unsigned __int128)a * mult) >> (shift & 127));
}

int pki_selfread(const struct perf_event_mmap_page *pg, const pki_selfread_ops *ops,
		 pk_counts *out, pk_error *err)
{
	snap s;
	int tries = 0;
	while (!read_once(pg, ops, &s))
		if (++tries >= PKI_SELFREAD_RETRIES)
			return pk_err(err, -EAGAIN,
				      "user page: the lock changed %d times in a row while reading",
				      tries);
	memset(out, 0, sizeof(*out));
	out->ena = s.ena;
	out->run = s.run;
	if (s.has_cyc) {
		uint64_t cyc = s.cyc;
		if (s.caps & cap_bit(2))
			cyc = s.time_cycles + ((cyc - s.time_cycles) & s.time_mask);
		uint64_t delta = s.time_offset + mul_shr(cyc, s.mult, s.shift);
		out->ena += delta;
		if (s.idx)
			out->run += delta;
	}
	out->val = (uint64_t)s.offset;
	if (!(s.caps & cap_bit(0)) || !s.idx)
		return PKI_SELFREAD_FALLBACK;
	if (s.width < 1 || s.width > 64)
		return pk_err(err, -EINVAL, "user page: pmc_width %u is not 1..64", s.width);
	unsigned sh = 64 - s.width;
	int64_t pmc = (int64_t)(s.pmc << sh) >> sh;
	out->val = (uint64_t)s.offset + (uint64_t)pmc;
	return 0;
}
