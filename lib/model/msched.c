/* The PMU model in virtual time (issue 8): runs the scenario forward in
 * steps, so within a step each thread runs one phase, each CPU one thread
 * and each context's schedule is fixed.
 *
 * Contexts: a scenario thread (events opened with its tid) or a CPU (pid
 * -1). When it changes, a context schedules its groups on the
 * counters of the core PMU it is on (the thread's phase core type; the
 * CPU's PMU): pinned groups first, then flexible ones from the context's
 * rotation point; the first flexible group that does not fit stops the
 * others (Linux merge_sched_in: can_add_hw) and marks the context for
 * rotation, done at the next mux tick (perf_rotate_context). Contexts do not
 * compete for counters (docs/model.md "Multiplexing"). A thread's context
 * is on the PMU only while the thread runs (mthreads.c time-slices threads
 * that share a CPU): switched out, its groups leave the PMU, so PERF_METRICS
 * is saved and restored as the driver does.
 *
 * Cost: a step ends only where something changes (a phase, a quantum, a
 * rotation that is due, a tick of a frequency-mode sampling event, an
 * overflow, the caller's time); a step reschedules only the contexts whose
 * thread changed, each walking its own events (m->cev), so the cost grows
 * with reads, phase changes and context switches, not with virtual time.
 *
 * Times: an enabled event of a running thread (or of a CPU) gains time_enabled;
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

/* The PMU context ctx is on now; NULL when its thread has ended. */
static const pk_pmu *ctx_pmu(const pk_model *m, int ctx, const pki_phase **ph)
{
	*ph = NULL;
	if ((size_t)ctx >= m->sc.nr_threads)
		return pki_mk_pmu_on_cpu(m, ctx - (int)m->sc.nr_threads);
	*ph = pki_mk_phase_now(m, (size_t)ctx);
	return *ph ? pki_mk_pmu_of(m, (*ph)->core_type) : NULL;
}

/* Takes the counters a group needs from *fixed / *generic and notes each
 * event's counter (RDPMC's ECX); false when it does not fit (nothing taken).
 * Generic counters are handed out from 0 up. */
static bool fit_group(pk_model *m, const mk_event *l, const pk_pmu *pmu, uint32_t *fixed,
		      int *generic, int nr_generic)
{
	const mk_ctx_ev *c = &m->cev[l->ctx];
	uint32_t f = *fixed;
	int g = *generic;
	for (size_t j = 0; j < c->n; j++) {
		const mk_event *e = &m->ev[c->idx[j]];
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
	for (size_t j = 0; j < c->n; j++) { /* it fits: the same walk, noting counters */
		mk_event *e = &m->ev[c->idx[j]];
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
	const mk_ctx_ev *c = &m->cev[l->ctx];
	if (l->kind == MK_PM_SLOTS && l->running && !on)
		pki_pm_save(&l->regs, l->pmcount); /* scheduled out: the driver saves */
	for (size_t j = 0, k = 0; j < c->n; j++) {
		mk_event *e = &m->ev[c->idx[j]];
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
	const mk_ctx_ev *c = &m->cev[l->ctx];
	for (size_t i = 0; i < MK_MAX_MEMBERS; i++)
		out[i] = UINT32_MAX;
	for (size_t j = 0, k = 0; j < c->n && k < MK_MAX_MEMBERS; j++) {
		const mk_event *e = &m->ev[c->idx[j]];
		if (e->open && &m->ev[e->leader] == l)
			out[k++] = e->running ? e->pmc_ecx : UINT32_MAX;
	}
}

/* The group leaders of ctx that count, pinned ones first, flexible ones
 * from the rotation point; returns how many (at most cap). */
static size_t ctx_groups(const pk_model *m, int ctx, mk_event **out, size_t cap)
{
	const mk_ctx_ev *c = &m->cev[ctx];
	size_t n = 0, nflex = 0, first_flex = 0;
	for (int pinned = 1; pinned >= 0; pinned--) {
		if (!pinned)
			first_flex = n;
		for (size_t j = 0; j < c->n && n < cap; j++) {
			mk_event *e = &m->ev[c->idx[j]];
			if (e->leader == (int)c->idx[j] && pki_mk_counts_now(m, e) &&
			    (bool)e->attr.pinned == (bool)pinned)
				out[n++] = e, nflex += !pinned;
		}
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
	const mk_ctx_ev *c = &m->cev[l->ctx];
	for (size_t j = 0; j < c->n; j++) {
		const mk_event *e = &m->ev[c->idx[j]];
		if (e->open && &m->ev[e->leader] == l && e->pmu)
			return e->pmu;
	}
	return NULL;
}

/* Groups of ctx that do not count now (disabled, or their leader is) leave
 * the PMU. */
static void unschedule_idle(pk_model *m, int ctx)
{
	const mk_ctx_ev *c = &m->cev[ctx];
	for (size_t j = 0; j < c->n; j++) {
		mk_event *l = &m->ev[c->idx[j]];
		if (l->leader == (int)c->idx[j] && l->running && !pki_mk_counts_now(m, l))
			set_group_running(m, l, false, NULL);
	}
}

/* Schedules ctx's groups now; *rotate: a flexible group did not fit. */
static void schedule_ctx(pk_model *m, int ctx, bool *rotate)
{
	const pki_phase *ph;
	const pk_pmu *pmu = ctx_pmu(m, ctx, &ph);
	bool task = (size_t)ctx < m->sc.nr_threads;
	bool live = !task || (ph && pki_mk_running(m, (size_t)ctx)); /* switched out: off */
	int cpu_now = task && ph ? m->sched.th[ctx].cpu : -1;
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

void pki_mk_schedule(pk_model *m, int ctx)
{
	bool rotate = false;
	schedule_ctx(m, ctx, &rotate);
	m->want_rot[ctx] = rotate;
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
		if (e->rate_ph != ph) { /* the table's rate, once per phase met */
			if (pki_event_rate(&e->core, &e->key, ph, &e->rate, NULL) < 0)
				e->rate = 0;
			e->rate_ph = ph;
		}
		rate = e->rate;
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
 * times move only when applied. A thread's event gains time only while
 * the thread runs (a task context's time, as in the kernel); a CPU event
 * counts the thread running on its CPU. */
static double run_event(pk_model *m, mk_event *e, uint64_t t0, uint64_t dt, bool apply)
{
	size_t nthr = m->sc.nr_threads;
	bool task = (size_t)e->ctx < nthr;
	(void)t0;
	if (!pki_mk_counts_now(m, e) || (task && !pki_mk_running(m, (size_t)e->ctx)))
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
	size_t t = task ? (size_t)e->ctx : (size_t)e->cpu < m->sched.nr_cpu ? m->sched.rq[e->cpu].cur
									   : SIZE_MAX;
	const pki_phase *ph = t < nthr ? pki_mk_phase_now(m, t) : NULL;
	if (!ph || (e->cpu >= 0 && m->sched.th[t].cpu != e->cpu))
		return 0;
	if (task && pki_mk_pmu_of(m, ph->core_type) != e->pmu)
		return 0;
	return count_phase(e, &m->ev[e->leader], ph, (double)dt * ph->ghz, apply);
}

double pki_mk_event_delta(pk_model *m, mk_event *e, uint64_t t0, uint64_t dt)
{
	return run_event(m, e, t0, dt, false);
}

/* True when a frequency-mode sampling event runs: its period moves at
 * every tick. */
static bool freq_running(const pk_model *m)
{
	for (size_t i = 0; i < m->nr_ev; i++) {
		const mk_event *e = &m->ev[i];
		if (e->open && e->sampling && e->attr.freq && e->running)
			return true;
	}
	return false;
}

/* The end of the step starting at t: the next scheduler change (a phase or
 * a quantum ends), mux tick when a context waits for a rotation, kernel
 * tick when a frequency-mode event runs, or `to`. */
static uint64_t step_end(const pk_model *m, uint64_t t, uint64_t to, size_t nctx)
{
	uint64_t end = pki_sched_next(&m->sched, t);
	if (to < end)
		end = to;
	for (size_t c = 0; c < nctx; c++)
		if (m->want_rot[c]) {
			uint64_t tick = (t / m->mux_ns + 1) * m->mux_ns;
			end = tick < end ? tick : end;
			break;
		}
	if (freq_running(m)) {
		uint64_t tick = (t / m->tick_ns + 1) * m->tick_ns;
		end = tick < end ? tick : end;
	}
	return end;
}

/* Contexts whose thread the scheduler changed are scheduled again. */
static void schedule_changed(pk_model *m)
{
	mk_sched *s = &m->sched;
	for (size_t i = 0; i < s->nr_dirty; i++) {
		size_t t = s->dirty[i];
		s->th[t].dirty = false;
		pki_mk_schedule(m, (int)t);
	}
	s->nr_dirty = 0;
}

/* At a mux tick: each context waiting for a rotation rotates (a thread's
 * only while it runs, as the CPU's timer rotates the running task's). */
static void rotate_due(pk_model *m, size_t nctx)
{
	for (size_t c = 0; c < nctx; c++) {
		if (!m->want_rot[c] || (c < m->sc.nr_threads && !pki_mk_running(m, c)))
			continue;
		m->rot[c]++;
		pki_mk_schedule(m, (int)c);
	}
}

bool pki_mk_run_to(pk_model *m, uint64_t to, bool until_wakeup)
{
	size_t nctx = pki_mk_nr_ctx(m);
	bool woke = false;
	while (m->now < to && !(until_wakeup && woke)) {
		uint64_t t0 = m->now;
		schedule_changed(m);
		uint64_t end = step_end(m, t0, to, nctx);
		if (end == UINT64_MAX)
			end = to; /* every thread has ended */
		uint64_t cut = pki_mk_sample_bound(m, t0, end);
		for (size_t i = 0; i < m->nr_ev; i++)
			run_event(m, &m->ev[i], t0, cut - t0, true);
		m->now = cut;
		/* samples of the step are the step's threads' and phases' */
		woke |= pki_mk_sample_step(m, t0, cut);
		woke |= pki_mk_spe_step(m, t0, cut);
		pki_sched_advance(m, &m->sched, t0, cut);
		schedule_changed(m);
		if (cut % m->mux_ns == 0)
			rotate_due(m, nctx);
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
