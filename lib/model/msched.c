/* The PMU model in virtual time (issue 8): runs the scenario forward in
 * steps that end at every mux tick and every phase boundary, so within a
 * step each thread runs one phase and each context's schedule is fixed.
 *
 * Contexts: a scenario thread (events opened with its tid) or a CPU (pid
 * -1). At the start of a step each context schedules its groups on the
 * counters of the core PMU it is on (the thread's phase core type; the
 * CPU's PMU): pinned groups first, then flexible ones from the context's
 * rotation point; the first flexible group that does not fit stops the
 * others (Linux merge_sched_in: can_add_hw) and marks the context for
 * rotation, done at the next mux tick (perf_rotate_context). Contexts do not
 * compete for counters (docs/model.md "Multiplexing").
 *
 * Times: an enabled event of a live thread (or of a CPU) gains time_enabled;
 * when scheduled it gains time_running and counts: rate x core cycles
 * (pki_event_rate) or, for PERF_METRICS, its slots leader's registers are
 * fed the phase's node slots (pki_pm_run), saved when the group leaves the
 * PMU (pki_pm_save) and read and cleared by a read (pki_pm_read). */
#include <math.h>
#include <string.h>

#include "model/mkernel.h"

/* Groups one context schedules; more are never scheduled (a limit of the
 * model, docs/model.md). */
#define MK_MAX_GROUPS 256

static bool counts_now(const pk_model *m, const mk_event *e)
{
	const mk_event *l = &m->ev[e->leader];
	return e->open && e->enabled && l->open && l->enabled;
}

/* The PMU context ctx is on at time t; NULL when it is not running. */
static const pk_pmu *ctx_pmu(const pk_model *m, int ctx, uint64_t t, const pki_phase **ph)
{
	*ph = NULL;
	if ((size_t)ctx >= m->sc.nr_threads)
		return pki_mk_pmu_on_cpu(m, ctx - (int)m->sc.nr_threads);
	*ph = pki_mk_phase_at(m, (size_t)ctx, t, NULL);
	return *ph ? pki_mk_pmu_of(m, (*ph)->core_type) : NULL;
}

/* Takes the counters a group needs from *fixed / *generic; false when it
 * does not fit (nothing taken). */
static bool fit_group(const pk_model *m, const mk_event *l, const pk_pmu *pmu, uint32_t *fixed,
		      int *generic)
{
	uint32_t f = *fixed;
	int g = *generic;
	for (size_t i = 0; i < m->nr_ev; i++) {
		const mk_event *e = &m->ev[i];
		if (!e->open || &m->ev[e->leader] != l || !e->pmu)
			continue;
		if (e->pmu != pmu)
			return false;
		if (e->kind == MK_PM_METRIC)
			continue; /* rides PERF_METRICS with its slots leader */
		if (e->fixed >= 0 && (f >> e->fixed & 1))
			f &= ~(1u << e->fixed);
		else if (e->kind == MK_PM_SLOTS || g == 0)
			return false; /* slots has only fixed counter 3 */
		else
			g--;
	}
	*fixed = f;
	*generic = g;
	return true;
}

static void set_group_running(pk_model *m, mk_event *l, bool on)
{
	if (l->kind == MK_PM_SLOTS && l->running && !on)
		pki_pm_save(&l->regs, l->pmcount); /* scheduled out: the driver saves */
	for (size_t i = 0; i < m->nr_ev; i++)
		if (m->ev[i].open && &m->ev[m->ev[i].leader] == l)
			m->ev[i].running = on;
}

/* The group leaders of ctx that count, pinned ones first, flexible ones
 * from the rotation point; returns how many (at most cap). */
static size_t ctx_groups(const pk_model *m, int ctx, mk_event **out, size_t cap)
{
	size_t n = 0, nflex = 0, first_flex;
	for (size_t i = 0; i < m->nr_ev && n < cap; i++) {
		mk_event *e = &m->ev[i];
		if (e->ctx == ctx && e->leader == (int)i && counts_now(m, e) && e->attr.pinned)
			out[n++] = e;
	}
	first_flex = n;
	for (size_t i = 0; i < m->nr_ev && n < cap; i++) {
		mk_event *e = &m->ev[i];
		if (e->ctx == ctx && e->leader == (int)i && counts_now(m, e) && !e->attr.pinned)
			out[n++] = e, nflex++;
	}
	if (nflex > 1) {
		size_t rot = m->rot[ctx] % nflex;
		mk_event *tmp[MK_MAX_GROUPS];
		for (size_t i = 0; i < nflex; i++)
			tmp[i] = out[first_flex + (i + rot) % nflex];
		memcpy(out + first_flex, tmp, nflex * sizeof(*tmp));
	}
	return n;
}

/* The core PMU of a group: its first hardware event's; NULL for software. */
static const pk_pmu *group_pmu(const pk_model *m, const mk_event *l)
{
	for (size_t j = 0; j < m->nr_ev; j++)
		if (m->ev[j].open && &m->ev[m->ev[j].leader] == l && m->ev[j].pmu)
			return m->ev[j].pmu;
	return NULL;
}

static void schedule_ctx(pk_model *m, int ctx, uint64_t t, bool *rotate)
{
	const pki_phase *ph;
	const pk_pmu *pmu = ctx_pmu(m, ctx, t, &ph);
	bool live = (size_t)ctx >= m->sc.nr_threads || ph;
	int cpu_now = ph ? pki_mk_cpu_of(m, (size_t)ctx, ph) : -1;
	mk_event *groups[MK_MAX_GROUPS];
	size_t n = ctx_groups(m, ctx, groups, MK_MAX_GROUPS);
	const pki_counters *row = NULL;
	for (size_t i = 0; i < n && !row; i++)
		row = groups[i]->core.row && groups[i]->pmu == pmu ? groups[i]->core.row : NULL;
	uint32_t fixed = row ? row->fixed : 0;
	int generic = row ? pki_counters_generic(row, m->sc.smt) : 0;
	bool can_add_hw = true;
	for (size_t i = 0; i < n; i++) {
		mk_event *l = groups[i];
		const pk_pmu *gp = group_pmu(m, l);
		bool on;
		bool away = !live || (gp && gp != pmu) || (ph && l->cpu >= 0 && l->cpu != cpu_now);
		if (away)
			on = false; /* ended, or its PMU or CPU is not where the thread runs */
		else if (!gp)
			on = true; /* software groups always go */
		else if (!(l->attr.pinned || can_add_hw))
			on = false;
		else
			on = fit_group(m, l, pmu, &fixed, &generic);
		if (gp && !away && !on && !l->attr.pinned && can_add_hw) {
			can_add_hw = false;
			*rotate = true;
		}
		set_group_running(m, l, on);
	}
}

/* The events a thread's phase adds to e over cycles core cycles. */
static void count_phase(mk_event *e, mk_event *l, const pki_phase *ph, double cycles)
{
	if (e->attr.exclude_user) /* the scenario's threads run in user space */
		return;
	if (e->kind == MK_RATE) {
		double rate = 0;
		if (pki_event_rate(&e->core, &e->key, ph, &rate, NULL) == 0)
			e->acc += rate * cycles;
	} else if (e->kind == MK_PM_SLOTS && e == l) {
		double rates[PKI_TMA_NR];
		uint64_t feed[PKI_TMA_NR];
		pki_phase_node_rates(&e->core, ph, rates);
		for (int i = 0; i < PKI_TMA_NR; i++) {
			e->node_exact[i] += rates[i] * cycles;
			uint64_t whole = (uint64_t)llround(e->node_exact[i]);
			feed[i] = whole - e->node_fed[i];
			e->node_fed[i] = whole;
		}
		pki_pm_run(&e->regs, feed);
	}
}

/* One event over [t0, t0 + dt): times, and counts of what runs under it. */
static void step_event(pk_model *m, mk_event *e, uint64_t t0, uint64_t dt)
{
	size_t nthr = m->sc.nr_threads;
	bool task = (size_t)e->ctx < nthr;
	if (!counts_now(m, e) || (task && !pki_mk_phase_at(m, (size_t)e->ctx, t0, NULL)))
		return;
	e->ena += dt;
	if (!e->running)
		return;
	e->run += dt;
	if (e->kind == MK_TASK_CLOCK || e->kind == MK_CPU_CLOCK) {
		e->acc += (double)dt;
		return;
	}
	mk_event *l = &m->ev[e->leader];
	for (size_t t = task ? (size_t)e->ctx : 0; t < (task ? (size_t)e->ctx + 1 : nthr); t++) {
		const pki_phase *ph = pki_mk_phase_at(m, t, t0, NULL);
		int cpu = ph ? pki_mk_cpu_of(m, t, ph) : -1;
		if (!ph || (e->cpu >= 0 && cpu != e->cpu))
			continue;
		if (task && pki_mk_pmu_of(m, ph->core_type) != e->pmu)
			continue;
		count_phase(e, l, ph, (double)dt * ph->ghz);
	}
}

/* The end of the step starting at t: the next mux tick, phase boundary or
 * `to`. */
static uint64_t step_end(const pk_model *m, uint64_t t, uint64_t to)
{
	uint64_t end = (t / m->mux_ns + 1) * m->mux_ns;
	if (to < end)
		end = to;
	for (size_t i = 0; i < m->sc.nr_threads; i++) {
		uint64_t pe;
		if (pki_mk_phase_at(m, i, t, &pe) && pe < end)
			end = pe;
	}
	return end;
}

void pki_mk_run_to(pk_model *m, uint64_t to)
{
	size_t nctx = m->sc.nr_threads + (size_t)pk_cpumap_cpu(m->cpus, pk_cpumap_nr(m->cpus) - 1) + 1;
	while (m->now < to) {
		uint64_t end = step_end(m, m->now, to);
		for (size_t c = 0; c < nctx; c++) {
			bool rotate = false;
			schedule_ctx(m, (int)c, m->now, &rotate);
			if (rotate && end % m->mux_ns == 0)
				m->rot[c]++; /* takes effect at the next step */
		}
		for (size_t i = 0; i < m->nr_ev; i++)
			step_event(m, &m->ev[i], m->now, end - m->now);
		m->now = end;
	}
}

void pki_mk_pm_read(pk_model *m, mk_event *l)
{
	(void)m;
	if (l->kind == MK_PM_SLOTS && l->running)
		pki_pm_read(&l->regs, l->pmcount);
}

uint64_t pki_mk_value(const pk_model *m, const mk_event *e)
{
	if (e->kind == MK_PM_SLOTS)
		return e->pmcount[0];
	if (e->kind == MK_PM_METRIC)
		return m->ev[e->leader].pmcount[1 + e->field];
	return pki_mk_whole(e->acc) - e->base;
}

uint64_t pki_mk_whole(double exact)
{
	return (uint64_t)llround(exact);
}
