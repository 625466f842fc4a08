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
#include "model/mspe.h"

/* Groups one context schedules; more are never scheduled (a limit of the
 * model, docs/model.md). */
#define MK_MAX_GROUPS 256
/* Members of a group whose counters a move is checked for. */
#define MK_MAX_MEMBERS 64

bool pki_mk_counts_now(const pk_model *m, const mk_event *e)
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

/* Takes the counters a group needs from *fixed / *generic and notes each
 * event's counter (RDPMC's ECX); false when it does not fit (nothing taken).
 * Generic counters are handed out from 0 up. */
static bool fit_group(pk_model *m, const mk_event *l, const pk_pmu *pmu, uint32_t *fixed,
		      int *generic, int nr_generic)
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
	for (size_t i = 0; i < m->nr_ev; i++) { /* it fits: the same walk, noting counters */
		mk_event *e = &m->ev[i];
		if (!e->open || &m->ev[e->leader] != l || !e->pmu)
			continue;
		e->on_pmc = e->kind != MK_PM_METRIC;
		if (e->kind == MK_PM_METRIC) {
			e->pmc_ecx = pki_rdpmc_ecx(PKI_PMC_METRICS, 0);
		} else if (e->fixed >= 0 && (*fixed >> e->fixed & 1)) {
			*fixed &= ~(1u << e->fixed);
			e->pmc_ecx = pki_rdpmc_ecx(PKI_PMC_FIXED, (unsigned)e->fixed);
		} else {
			e->pmc_ecx = pki_rdpmc_ecx(PKI_PMC_GENERIC, (unsigned)(nr_generic - *generic));
			(*generic)--;
		}
	}
	return true;
}

/* Scheduling a group in or out: the driver saves PERF_METRICS when it
 * leaves, a counter is programmed (from 0) when it comes in or moves, and
 * the user pages say so. ecx_before: the members' counters before. */
static void set_group_running(pk_model *m, mk_event *l, bool on, const uint32_t *ecx_before)
{
	if (l->kind == MK_PM_SLOTS && l->running && !on)
		pki_pm_save(&l->regs, l->pmcount); /* scheduled out: the driver saves */
	for (size_t i = 0, k = 0; i < m->nr_ev; i++) {
		mk_event *e = &m->ev[i];
		if (!e->open || &m->ev[e->leader] != l)
			continue;
		bool moved = on && k < MK_MAX_MEMBERS && ecx_before[k] != e->pmc_ecx;
		bool changed = e->running != on || moved;
		k++;
		e->running = on;
		if (on && changed)
			pki_mk_program(m, e);
		if (changed)
			pki_mk_publish(m, e);
	}
}

/* The ECX of each running member of l, in index order (UINT32_MAX: not on
 * a counter), into out[MK_MAX_MEMBERS]. */
static void group_ecx(const pk_model *m, const mk_event *l, uint32_t *out)
{
	for (size_t i = 0; i < MK_MAX_MEMBERS; i++)
		out[i] = UINT32_MAX;
	for (size_t i = 0, k = 0; i < m->nr_ev && k < MK_MAX_MEMBERS; i++)
		if (m->ev[i].open && &m->ev[m->ev[i].leader] == l)
			out[k++] = m->ev[i].running ? m->ev[i].pmc_ecx : UINT32_MAX;
}

/* The group leaders of ctx that count, pinned ones first, flexible ones
 * from the rotation point; returns how many (at most cap). */
static size_t ctx_groups(const pk_model *m, int ctx, mk_event **out, size_t cap)
{
	size_t n = 0, nflex = 0, first_flex;
	for (size_t i = 0; i < m->nr_ev && n < cap; i++) {
		mk_event *e = &m->ev[i];
		if (e->ctx == ctx && e->leader == (int)i && pki_mk_counts_now(m, e) && e->attr.pinned)
			out[n++] = e;
	}
	first_flex = n;
	for (size_t i = 0; i < m->nr_ev && n < cap; i++) {
		mk_event *e = &m->ev[i];
		if (e->ctx == ctx && e->leader == (int)i && pki_mk_counts_now(m, e) && !e->attr.pinned)
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

/* Groups of ctx that do not count now (disabled, or their leader is) leave
 * the PMU. */
static void unschedule_idle(pk_model *m, int ctx)
{
	for (size_t i = 0; i < m->nr_ev; i++) {
		mk_event *l = &m->ev[i];
		if (l->ctx == ctx && l->leader == (int)i && l->running && !pki_mk_counts_now(m, l))
			set_group_running(m, l, false, NULL);
	}
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
	unschedule_idle(m, ctx);
	for (size_t i = 0; i < n && !row; i++)
		row = groups[i]->core.row && groups[i]->pmu == pmu ? groups[i]->core.row : NULL;
	uint32_t fixed = row ? row->fixed : 0;
	int nr_generic = row ? pki_counters_generic(row, m->sc.smt) : 0, generic = nr_generic;
	bool can_add_hw = true;
	for (size_t i = 0; i < n; i++) {
		mk_event *l = groups[i];
		const pk_pmu *gp = group_pmu(m, l);
		uint32_t before[MK_MAX_MEMBERS];
		bool on;
		bool away = !live || (gp && gp != pmu) || (ph && l->cpu >= 0 && l->cpu != cpu_now);
		group_ecx(m, l, before);
		if (away)
			on = false; /* ended, or its PMU or CPU is not where the thread runs */
		else if (!gp)
			on = true; /* software groups always go */
		else if (!(l->attr.pinned || can_add_hw))
			on = false;
		else
			on = fit_group(m, l, pmu, &fixed, &generic, nr_generic);
		if (gp && !away && !on && !l->attr.pinned && can_add_hw) {
			can_add_hw = false;
			*rotate = true;
		}
		set_group_running(m, l, on, before);
	}
}

void pki_mk_schedule(pk_model *m)
{
	bool rotate;
	for (size_t c = 0; c < pki_mk_nr_ctx(m); c++)
		schedule_ctx(m, (int)c, m->now, &rotate);
}

size_t pki_mk_nr_ctx(const pk_model *m)
{
	return m->sc.nr_threads + (size_t)pk_cpumap_cpu(m->cpus, pk_cpumap_nr(m->cpus) - 1) + 1;
}

/* What a phase adds to e over `cycles` core cycles: returned (the counts
 * that drive its overflows), and applied when `apply`. */
static double count_phase(mk_event *e, mk_event *l, const pki_phase *ph, double cycles, bool apply)
{
	double rates[PKI_TMA_NR], rate = 0, slots = 0;
	uint64_t feed[PKI_TMA_NR];
	if (e->attr.exclude_user) /* the scenario's threads run in user space */
		return 0;
	if (e->kind == MK_RATE) {
		if (pki_event_rate(&e->core, &e->key, ph, &rate, NULL) < 0)
			return 0;
		if (apply)
			e->acc += rate * cycles;
		return rate * cycles;
	}
	if (e->kind != MK_PM_SLOTS || e != l)
		return 0;
	pki_phase_node_rates(&e->core, ph, rates);
	for (int i = 0; i < PKI_TMA_L1_NR; i++)
		slots += rates[i] * cycles;
	if (!apply)
		return slots;
	for (int i = 0; i < PKI_TMA_NR; i++) {
		e->node_exact[i] += rates[i] * cycles;
		uint64_t whole = (uint64_t)llround(e->node_exact[i]);
		feed[i] = whole - e->node_fed[i];
		e->node_fed[i] = whole;
	}
	pki_pm_run(&e->regs, feed);
	for (int i = 0; i < PKI_TMA_L1_NR; i++)
		e->acc += (double)feed[i]; /* whole slots: what a sampling slots event counts */
	return slots;
}

/* The counts of e over [t0, t0 + dt) while it runs (applied when apply);
 * times move only when applied. */
static double run_event(pk_model *m, mk_event *e, uint64_t t0, uint64_t dt, bool apply)
{
	size_t nthr = m->sc.nr_threads;
	bool task = (size_t)e->ctx < nthr;
	double sum = 0;
	if (!pki_mk_counts_now(m, e) || (task && !pki_mk_phase_at(m, (size_t)e->ctx, t0, NULL)))
		return 0;
	if (apply)
		e->ena += dt;
	if (!e->running)
		return 0;
	if (apply)
		e->run += dt;
	if (e->kind == MK_TASK_CLOCK || e->kind == MK_CPU_CLOCK) {
		if (apply)
			e->acc += (double)dt;
		return (double)dt;
	}
	mk_event *l = &m->ev[e->leader];
	for (size_t t = task ? (size_t)e->ctx : 0; t < (task ? (size_t)e->ctx + 1 : nthr); t++) {
		const pki_phase *ph = pki_mk_phase_at(m, t, t0, NULL);
		int cpu = ph ? pki_mk_cpu_of(m, t, ph) : -1;
		if (!ph || (e->cpu >= 0 && cpu != e->cpu))
			continue;
		if (task && pki_mk_pmu_of(m, ph->core_type) != e->pmu)
			continue;
		double n = count_phase(e, l, ph, (double)dt * ph->ghz, apply);
		if (apply && e->credit)
			e->credit[t] += n; /* whose counts a CPU event's sample takes */
		sum += n;
	}
	return sum;
}

double pki_mk_event_delta(pk_model *m, mk_event *e, uint64_t t0, uint64_t dt)
{
	return run_event(m, e, t0, dt, false);
}

/* The end of the step starting at t: the next mux tick, kernel tick, phase
 * boundary or `to`. */
static uint64_t step_end(const pk_model *m, uint64_t t, uint64_t to)
{
	uint64_t end = (t / m->mux_ns + 1) * m->mux_ns;
	uint64_t tick = (t / m->tick_ns + 1) * m->tick_ns;
	if (tick < end)
		end = tick;
	if (to < end)
		end = to;
	for (size_t i = 0; i < m->sc.nr_threads; i++) {
		uint64_t pe;
		if (pki_mk_phase_at(m, i, t, &pe) && pe < end)
			end = pe;
	}
	return end;
}

bool pki_mk_run_to(pk_model *m, uint64_t to, bool until_wakeup)
{
	size_t nctx = pki_mk_nr_ctx(m);
	bool woke = false;
	while (m->now < to && !(until_wakeup && woke)) {
		uint64_t t0 = m->now, end = step_end(m, t0, to);
		for (size_t c = 0; c < nctx; c++) {
			bool rotate = false;
			schedule_ctx(m, (int)c, t0, &rotate);
			m->want_rot[c] = rotate;
		}
		uint64_t cut = pki_mk_sample_bound(m, t0, end);
		for (size_t c = 0; c < nctx; c++) /* at the tick, for the next step */
			m->rot[c] += m->want_rot[c] && cut == end && end % m->mux_ns == 0;
		for (size_t i = 0; i < m->nr_ev; i++)
			run_event(m, &m->ev[i], t0, cut - t0, true);
		m->now = cut;
		woke |= pki_mk_sample_step(m, t0, cut);
		woke |= pki_mk_spe_step(m, t0, cut);
	}
	return woke;
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
