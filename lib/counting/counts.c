/* Counter values: the read(2) layouts, multiplex scaling, run statistics. */
#include <pmukit/counting.h>

#include <errno.h>
#include <math.h>
#include <string.h>

void pk_counts_scale(const pk_counts *c, pk_scaled *out)
{
	memset(out, 0, sizeof(*out));
	if (c->run == 0) {
		/* never on the PMU: there is no value to show, not even 0 */
		out->running_pct = 0;
		return;
	}
	out->counted = true;
	if (c->ena > c->run) {
		out->scaled = true;
		out->value = (double)c->val * (double)c->ena / (double)c->run;
		out->running_pct = 100.0 * (double)c->run / (double)c->ena;
	} else {
		out->value = (double)c->val;
		out->running_pct = 100.0;
	}
}

/* The read layouts (include/uapi/linux/perf_event.h, "read_format"):
 *   single: value, [time_enabled], [time_running], [id], [lost]
 *   group:  nr, [time_enabled], [time_running], nr x {value, [id], [lost]} */
int pk_counts_parse(uint64_t rf, const void *buf, size_t len, pk_counts *out, size_t max)
{
	const uint64_t *w = buf;
	size_t nw = len / sizeof(uint64_t), i = 0;
	if (len % sizeof(uint64_t))
		return -EINVAL;
#define TAKE(dst)                           \
	do {                                \
		if (i >= nw)                \
			return -EINVAL;     \
		(dst) = w[i++];             \
	} while (0)
	if (!(rf & PERF_FORMAT_GROUP)) {
		if (max < 1)
			return -EINVAL;
		memset(out, 0, sizeof(*out));
		TAKE(out->val);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			TAKE(out->ena);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			TAKE(out->run);
		if (rf & PERF_FORMAT_ID)
			TAKE(out->id);
		if (rf & PERF_FORMAT_LOST)
			TAKE(out->lost);
		return 1;
	}
	uint64_t nr, ena = 0, run = 0;
	TAKE(nr);
	if (nr > max)
		return -EINVAL;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		TAKE(ena);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		TAKE(run);
	for (uint64_t k = 0; k < nr; k++) {
		pk_counts *c = &out[k];
		memset(c, 0, sizeof(*c));
		c->ena = ena;
		c->run = run;
		TAKE(c->val);
		if (rf & PERF_FORMAT_ID)
			TAKE(c->id);
		if (rf & PERF_FORMAT_LOST)
			TAKE(c->lost);
	}
#undef TAKE
	return (int)nr;
}

void pk_runstats_add(pk_runstats *s, double v)
{
	s->n += 1;
	double d = v - s->mean;
	s->mean += d / s->n;
	s->m2 += d * (v - s->mean);
}

double pk_runstats_stddev_mean(const pk_runstats *s)
{
	if (s->n < 2)
		return 0;
	double variance = s->m2 / (s->n - 1);
	return sqrt(variance / s->n);
}

double pk_runstats_rel_pct(const pk_runstats *s)
{
	return s->mean != 0 ? 100.0 * pk_runstats_stddev_mean(s) / fabs(s->mean) : 0;
}
