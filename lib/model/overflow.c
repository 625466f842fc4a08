/* Overflow arithmetic of the PMU model: where, within an interval in which
 * an event's count grows, its sampling counter overflows, at a fixed
 * sample_period or in frequency mode (docs/model.md, "Sampling and the user
 * page (pieces)").
 *
 * Invariants: `left` is the kernel's hwc->period_left, the counts still to
 * go before the next overflow, always >= 1; the counter is armed at -left,
 * overflows after `left` more counts and is re-armed at -period. With a
 * fixed period, over a run of D counts the overflows are at left,
 * left + period, ... <= D counts in, independent of how the run is cut in
 * intervals. In freq mode the period moves only at an overflow
 * (__perf_event_account_interrupt) and at a tick
 * (perf_adjust_freq_unthr_context), through perf_adjust_period. Times are
 * linear within an interval (the model's counts grow at a constant rate in
 * a phase), computed in 128 bits and truncated. */
#include "model/sampling.h"

#include <errno.h>
#include <string.h>

int pki_overflow_init(pki_overflow *o, const struct perf_event_attr *a, uint64_t tick_ns,
		      pk_error *err)
{
	memset(o, 0, sizeof(*o));
	if (a->freq && !a->sample_freq)
		return pk_err(err, -EINVAL, "a sampling event needs a sample_freq of 1 Hz or more");
	if (a->freq && !tick_ns)
		return pk_err(err, -EINVAL, "frequency mode needs the kernel's tick length");
	if (!a->freq && !a->sample_period)
		return pk_err(err, -EINVAL, "a sampling event needs a sample_period of 1 or more");
	/* perf_event_alloc: a frequency starts at period 1 */
	o->period = o->left = o->last_period = a->freq ? 1 : a->sample_period;
	o->freq = a->freq ? a->sample_freq : 0;
	o->tick_ns = tick_ns;
	return 0;
}

/* (a x b) / c in 128 bits, truncated; a when c is 0. */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 q = c ? (unsigned __int128)a * b / c : a;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

uint64_t pki_freq_period(uint64_t nsec, uint64_t count, uint64_t freq)
{
	unsigned __int128 divisor = (unsigned __int128)nsec * freq;
	unsigned __int128 dividend = (unsigned __int128)count * 1000000000u;
	unsigned __int128 q = divisor ? dividend / divisor : dividend;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* perf_adjust_period (Linux 6.1): an eighth of the way to the period that
 * gives freq, at least 1; when more than 8 periods are left the counter is
 * re-armed at once at the new period. */
static void adjust(pki_overflow *o, uint64_t nsec, uint64_t count)
{
	uint64_t p = pki_freq_period(nsec, count, o->freq);
	int64_t want = p > (uint64_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)p; /* no overflow below */
	int64_t delta = want - (int64_t)o->period;
	delta = (delta + 7) / 8; /* the low pass filter, truncating toward 0 */
	int64_t period = (int64_t)o->period + delta;
	o->period = period > 0 ? (uint64_t)period : 1;
	if ((o->left - 1) / 8 >= o->period) { /* left > 8 x period */
		o->left = o->period;
		o->last_period = o->period;
	}
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
	*time = t0 + (c1 > c0 ? mul_div(in, t1 - t0, c1 - c0) : 0);
}

int pki_overflow_next(pki_overflow *o, pki_overflow_span *s, pki_overflow_hit *hit)
{
	uint64_t span = s->c1 - s->c0, rest = span - s->done;
	if (rest < o->left) {
		o->left -= rest;
		s->done = span;
		return 0;
	}
	s->done += o->left;
	hit->count = s->c0 + s->done;
	hit->time = s->t0 + (span ? mul_div(s->done, s->t1 - s->t0, span) : 0);
	hit->period = o->last_period;
	/* x86_perf_event_set_period, before perf_event_overflow */
	o->left = o->last_period = o->period;
	if (o->freq) { /* __perf_event_account_interrupt */
		uint64_t delta = hit->time - o->freq_time_stamp;
		o->freq_time_stamp = hit->time;
		if ((int64_t)delta > 0 && delta < 2 * o->tick_ns)
			adjust(o, delta, o->last_period);
	}
	return 1;
}

void pki_overflow_tick(pki_overflow *o, uint64_t count)
{
	if (!o->freq)
		return;
	uint64_t delta = count - o->freq_count_stamp;
	o->freq_count_stamp = count;
	if ((int64_t)delta > 0)
		adjust(o, o->tick_ns, delta);
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

int pki_overflow_set_period(pki_overflow *o, uint64_t value, pk_error *err)
{
	if (!value)
		return pk_err(err, -EINVAL, "PERF_EVENT_IOC_PERIOD: a %s of 0",
			      o->freq ? "frequency" : "period");
	if (o->freq)
		o->freq = value;
	else
		o->period = value;
	o->left = o->last_period = o->period; /* period_left = 0: re-armed in full */
	return 0;
}
