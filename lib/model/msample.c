/* Sampling in the PMU model (issue 8): a sampling event (sample_period, or
 * freq with sample_freq) overflows as virtual time advances, by the
 * overflow arithmetic of overflow.c, and each overflow writes a
 * PERF_RECORD_SAMPLE (lib/perfdata/sample_write.c) into the ring the event
 * writes to (its own mapping or its SET_OUTPUT target's).
 *
 * Invariants: virtual time is cut at every overflow of a running sampling
 * event (pki_mk_sample_bound), so a sample's READ values are the group's
 * counts at that moment, as read(2) would give them; the overflow state has
 * seen exactly ovf_count whole counts of the event (its exact count, acc,
 * rounded to nearest), which never decreases (IOC_RESET zeroes the value,
 * not the count toward the next overflow, as in the kernel); a sample that
 * finds no room is lost and counted (PERF_FORMAT_LOST, and the ring's LOST
 * record); in frequency mode the period is adjusted at each overflow and at
 * each tick (1e9 / MK_HZ ns) while the event runs. What a sample holds:
 * docs/model.md, "Sampling". */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/mkernel.h"
#include "perfdata/sample_write.h"

/* The sample_type bits the model fills; others are refused at open. */
#define MK_SAMPLE_TYPES                                                                         \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |               \
	 PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |          \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_IDENTIFIER)

int pki_mk_sampling_open(pk_model *m, mk_event *e)
{
	pk_error err;
	const struct perf_event_attr *a = &e->attr;
	uint64_t extra = a->sample_type & ~(uint64_t)MK_SAMPLE_TYPES;
	if (!a->sample_period || e->kind == MK_DUMMY || e->kind == MK_SPE)
		return 0; /* counting only (sample_freq shares the field) */
	if (extra)
		return pki_mk_refuse(m, -EOPNOTSUPP, "the model writes no sample_type bits %#llx "
						     "(registers, stacks, branches, raw data, "
						     "addresses are not modeled)",
				     (unsigned long long)extra);
	if (a->freq && a->sample_freq > MK_MAX_SAMPLE_RATE)
		return pki_mk_refuse(m, -EINVAL, "sample_freq %llu is above "
						 "perf_event_max_sample_rate (%d)",
				     (unsigned long long)a->sample_freq, MK_MAX_SAMPLE_RATE);
	if (!a->freq && (a->sample_period >> 63))
		return pki_mk_refuse(m, -EINVAL, "sample_period %#llx has bit 63 set",
				     (unsigned long long)a->sample_period);
	pk_error_clear(&err);
	int r = pki_overflow_init(&e->ovf, a, m->tick_ns, &err);
	if (r < 0)
		return pki_mk_refuse(m, r, "%s", err.msg);
	e->sampling = true;
	return 0;
}

static bool sampling_now(const pk_model *m, const mk_event *e)
{
	return e->open && e->sampling && e->running && pki_mk_counts_now(m, e);
}

uint64_t pki_mk_sample_bound(pk_model *m, uint64_t t0, uint64_t end)
{
	for (size_t i = 0; i < m->nr_ev; i++) {
		mk_event *e = &m->ev[i];
		if (!sampling_now(m, e))
			continue;
		double d = pki_mk_event_delta(m, e, t0, end - t0);
		if (d <= 0)
			continue;
		/* the exact count rounds to the overflow's whole count at need */
		double need = (double)(e->ovf_count + e->ovf.left) - 0.5 - e->acc;
		double at = need <= 0 ? 1 : ceil(need * (double)(end - t0) / d);
		if (at < 1)
			at = 1;
		if (at < (double)(end - t0))
			end = t0 + (uint64_t)at;
	}
	return end;
}

/* The thread a sample of e is taken in (index, or -1 on an idle CPU), its
 * phase and CPU: a task event's thread; for a CPU event, the thread running
 * on that CPU (a step never crosses a context switch). */
static int sample_thread(const pk_model *m, const mk_event *e, const pki_phase **ph, int *cpu)
{
	size_t nthr = m->sc.nr_threads;
	size_t t = (size_t)e->ctx < nthr ? (size_t)e->ctx
		   : (size_t)e->cpu < m->sched.nr_cpu ? m->sched.rq[e->cpu].cur : SIZE_MAX;
	*ph = t < nthr ? pki_mk_phase_now(m, t) : NULL;
	*cpu = e->cpu;
	if (!*ph || !pki_mk_running(m, t)) {
		*ph = NULL;
		return -1;
	}
	*cpu = m->sched.th[t].cpu;
	return (int)t;
}

/* PERF_SAMPLE_READ: a group read (PERF_METRICS brought up to date as the
 * driver does for a sample) or the event's own values. */
static int sample_read(pk_model *m, mk_event *e, uint64_t *vals, size_t cap)
{
	mk_event *l = &m->ev[e->leader];
	if (e->attr.read_format & PERF_FORMAT_GROUP) {
		pki_mk_pm_read(m, l);
		pki_mk_publish_group(m, l);
	}
	return pki_mk_read_values(m, e, vals, cap);
}

/* Writes one sample of e; true when its ring woke its reader. */
static bool write_sample(pk_model *m, mk_event *e, const pki_overflow_hit *hit)
{
	pk_error err;
	const pki_phase *ph;
	int cpu, t = sample_thread(m, e, &ph, &cpu);
	uint32_t tid = t >= 0 ? (uint32_t)m->sc.threads[t].tid : 0;
	uint64_t id = pki_mk_id(m, e), vals[MK_READ_MAX];
	pk_pd_sample s = {.misc = PERF_RECORD_MISC_USER, .identifier = id, .ip = ph ? ph->ip : 0,
			  .pid = tid, .tid = tid, .time = hit->time, .id = id, .stream_id = id,
			  .cpu = cpu >= 0 ? (uint32_t)cpu : 0, .period = hit->period};
	uint64_t chain[2] = {PERF_CONTEXT_USER, s.ip};
	s.callchain = chain;
	s.callchain_nr = 2;
	if (e->attr.sample_type & PERF_SAMPLE_READ) {
		int n = sample_read(m, e, vals, MK_READ_MAX);
		s.read = vals;
		s.read_nr = n > 0 ? (size_t)n : 0;
	}
	pki_ring *r = pki_mk_ring_of(m, e);
	pk_error_clear(&err);
	ssize_t len = pki_pd_sample_write(&e->attr, &s, m->rec, PKI_PD_RECORD_MAX, &err);
	if (!r || len < 0)
		return false; /* no ring: the kernel has nowhere to write it */
	pki_ring_writer w = {.attr = &e->attr, .id = id,
			     .sid = {.fields = e->attr.sample_type, .pid = s.pid, .tid = s.tid,
				     .time = s.time, .id = id, .stream_id = id, .cpu = s.cpu}};
	if (pki_ring_write(r, &w, m->rec, (size_t)len) == -ENOSPC)
		e->lost++;
	return r->pollin;
}

bool pki_mk_sample_step(pk_model *m, uint64_t t0, uint64_t t1)
{
	bool woke = false;
	for (size_t i = 0; i < m->nr_ev; i++) {
		mk_event *e = &m->ev[i];
		if (!e->open || !e->sampling)
			continue;
		uint64_t c1 = pki_mk_whole(e->acc);
		pki_overflow_span span = {.c0 = e->ovf_count, .c1 = c1, .t0 = t0, .t1 = t1};
		pki_overflow_hit hit;
		bool any = false;
		while (pki_overflow_next(&e->ovf, &span, &hit)) {
			woke |= write_sample(m, e, &hit);
			any = true;
		}
		e->ovf_count = c1;
		if (t1 % m->tick_ns == 0 && sampling_now(m, e))
			pki_overflow_tick(&e->ovf, c1);
		if (any)
			pki_mk_publish(m, e);
	}
	return woke;
}
