/* Overflow arithmetic of the PMU model: where, within an interval in which
 * an event's count grows, its sampling counter overflows at a fixed
 * sample_period (docs/model.md, "Sampling and the user page (pieces)").
 *
 * Invariants: `left` is the kernel's hwc->period_left, the counts still to
 * go before the next overflow, always in [1, period]; the counter is armed
 * at -left, overflows after `left` more counts and is re-armed at -period.
 * So over a run of D counts the overflows are at left, left + period, ...
 * <= D counts in, independent of how the run is cut in intervals. Times are
 * linear within an interval (the model's counts grow at a constant rate in
 * a phase), computed in 128 bits and truncated. */
#include "model/sampling.h"

#include <errno.h>
#include <string.h>

int pki_overflow_init(pki_overflow *o, const struct perf_event_attr *a, pk_error *err)
{
	memset(o, 0, sizeof(*o));
	if (a->freq)
		return pk_err(err, -EOPNOTSUPP,
			      "sampling at a frequency (freq=1, %llu Hz) is not modeled: give a period",
			      (unsigned long long)a->sample_freq);
	if (!a->sample_period)
		return pk_err(err, -EINVAL, "a sampling event needs a sample_period of 1 or more");
	o->period = o->left = a->sample_period;
	return 0;
}

uint64_t pki_overflow_fires(const pki_overflow *o, uint64_t delta)
{
	if (delta < o->left)
		return 0;
	return 1 + (delta - o->left) / o->period;
}

void pki_overflow_at(const pki_overflow *o, uint64_t c0, uint64_t c1, uint64_t t0, uint64_t t1,
		     uint64_t k, uint64_t *count, uint64_t *time)
{
	uint64_t in = o->left + k * o->period; /* counts into the interval */
	*count = c0 + in;
	uint64_t span = c1 - c0;
	*time = span ? t0 + (uint64_t)((unsigned __int128)in * (t1 - t0) / span) : t0;
}

void pki_overflow_advance(pki_overflow *o, uint64_t delta)
{
	if (delta < o->left) {
		o->left -= delta;
		return;
	}
	uint64_t past = (delta - o->left) % o->period; /* counts since the last overflow */
	o->left = o->period - past;
}

int pki_overflow_set_period(pki_overflow *o, uint64_t period, pk_error *err)
{
	if (!period)
		return pk_err(err, -EINVAL, "PERF_EVENT_IOC_PERIOD: a period of 0");
	o->period = o->left = period;
	return 0;
}
