/* The PMU model's CPU scheduler (issue 26): threads that share a CPU take
 * turns on it, round robin, one quantum each (the scenario's "quantum_ms",
 * default MK_QUANTUM_MS); a thread alone on its CPU runs without a break.
 * A phase's `ms` is the thread's own run time, so a thread that shares its
 * CPU ends later in virtual time than its phases add up to.
 *
 * State (mk_sched): per thread its own time, its phase (a cursor: the
 * phase at a time is found in O(1) as time only moves forward) and the
 * CPU it is on (a hybrid thread moves when its core type does: to its own
 * CPU when that has the type, else to an idle CPU of the type); per CPU the running thread, the threads waiting in
 * order and the end of the running thread's quantum.
 *
 * Invariants: a live thread is either its CPU's `cur` or in that CPU's
 * queue, exactly once; an ended thread is in neither (cpu -1); a CPU with
 * waiting threads runs one (work conserving); only the running threads'
 * own time moves. The scheduler only changes state at pki_sched_next's
 * times, so the model's steps never cross a context switch or a phase
 * change. Each change lists the thread in `dirty` (the kernel layer then
 * reschedules its context and its CPUs' contexts, and nothing else). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/mkernel.h"

#define NONE SIZE_MAX

static uint64_t phase_ns(const pki_phase *p)
{
	return (uint64_t)llround(p->ms * 1e6);
}

static void mark(mk_sched *s, size_t t)
{
	if (!s->th[t].dirty) {
		s->th[t].dirty = true;
		s->dirty[s->nr_dirty++] = t;
	}
}

/* Thread t starts a quantum on its CPU at time now. */
static void dispatch(mk_sched *s, size_t t, uint64_t now)
{
	mk_cpu_rq *q = &s->rq[s->th[t].cpu];
	q->cur = t;
	q->slice_end = now + s->quantum;
	s->th[t].running = true;
	mark(s, t);
}

/* The next waiting thread of cpu (if any) runs. */
static void run_next(mk_sched *s, int cpu, uint64_t now)
{
	mk_cpu_rq *q = &s->rq[cpu];
	q->cur = NONE;
	if (q->head == NONE)
		return;
	size_t t = q->head;
	q->head = s->th[t].next;
	if (q->head == NONE)
		q->tail = NONE;
	s->th[t].next = NONE;
	dispatch(s, t, now);
}

/* Thread t joins cpu: it runs at once on an idle CPU, else waits at the
 * tail; a thread that ran alone gets a full quantum from now. */
static void join(mk_sched *s, size_t t, int cpu, uint64_t now)
{
	mk_cpu_rq *q = &s->rq[cpu];
	s->th[t].cpu = cpu;
	s->th[t].running = false;
	mark(s, t);
	if (q->cur == NONE) {
		dispatch(s, t, now);
		return;
	}
	if (q->head == NONE)
		q->slice_end = now + s->quantum;
	s->th[t].next = NONE;
	if (q->tail == NONE)
		q->head = t;
	else
		s->th[q->tail].next = t;
	q->tail = t;
}

/* Where thread t runs phase ph: its own `cpu` when that CPU has the
 * phase's core type, else the first idle CPU of that type (a moving
 * thread goes where nothing runs, as Linux's wake-up placement prefers an
 * idle CPU), else the first CPU of the type (pki_mk_cpu_of). */
static int place(const pk_model *m, const mk_sched *s, size_t t, const pki_phase *ph)
{
	int cpu = pki_mk_cpu_of(m, t, ph);
	const pk_pmu *p = pki_mk_pmu_of(m, ph->core_type);
	if (cpu == m->sc.threads[t].cpu || !p || !p->cpus)
		return cpu;
	for (int i = 0; i < pk_cpumap_nr(p->cpus); i++) {
		int c = pk_cpumap_cpu(p->cpus, i);
		if ((size_t)c < s->nr_cpu && s->rq[c].cur == NONE && s->rq[c].head == NONE)
			return c;
	}
	return cpu;
}

int pki_sched_init(const pk_model *m, mk_sched *s, uint64_t quantum)
{
	size_t nthr = m->sc.nr_threads;
	memset(s, 0, sizeof(*s));
	s->nr_cpu = pki_mk_nr_ctx(m) - nthr;
	s->quantum = quantum;
	s->th = calloc(nthr, sizeof(*s->th));
	s->rq = calloc(s->nr_cpu, sizeof(*s->rq));
	s->dirty = calloc(nthr, sizeof(*s->dirty));
	if (!s->th || !s->rq || !s->dirty)
		return -ENOMEM;
	s->nr_th = nthr;
	for (size_t c = 0; c < s->nr_cpu; c++)
		s->rq[c] = (mk_cpu_rq){.cur = NONE, .head = NONE, .tail = NONE};
	for (size_t t = 0; t < nthr; t++) {
		const pki_phase *ph = &m->sc.threads[t].phases[0];
		s->th[t].ph_end = phase_ns(ph);
		s->th[t].end = UINT64_MAX;
		join(s, t, place(m, s, t, ph), 0);
	}
	s->nr_alive = nthr;
	return 0;
}

void pki_sched_free(mk_sched *s)
{
	free(s->th);
	free(s->rq);
	free(s->dirty);
	memset(s, 0, sizeof(*s));
}

uint64_t pki_sched_next(const mk_sched *s, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	for (size_t c = 0; c < s->nr_cpu; c++) {
		const mk_cpu_rq *q = &s->rq[c];
		if (q->cur == NONE)
			continue;
		const mk_thread *th = &s->th[q->cur];
		uint64_t at = now + (th->ph_end - th->own);
		if (q->head != NONE && q->slice_end < at)
			at = q->slice_end;
		if (at < next)
			next = at;
	}
	return next;
}

/* Thread t, running, has reached the end of its phase at now: the next
 * phase (skipping empty ones), a move to another CPU, or its end. */
static void next_phase(const pk_model *m, mk_sched *s, size_t t, uint64_t now)
{
	mk_thread *th = &s->th[t];
	const pki_thread *st = &m->sc.threads[t];
	while (th->own >= th->ph_end && ++th->ph < st->nr_phases)
		th->ph_end += phase_ns(&st->phases[th->ph]);
	mark(s, t);
	int cpu = th->cpu;
	if (th->ph >= st->nr_phases) {
		th->running = false;
		th->cpu = -1;
		th->end = now;
		s->nr_alive--;
		run_next(s, cpu, now);
		return;
	}
	const pki_phase *ph = &st->phases[th->ph];
	if (pki_mk_pmu_of(m, ph->core_type) == pki_mk_pmu_on_cpu(m, cpu))
		return; /* the same core type: it stays */
	run_next(s, cpu, now);
	join(s, t, place(m, s, t, ph), now);
}

void pki_sched_advance(const pk_model *m, mk_sched *s, uint64_t now, uint64_t t1)
{
	uint64_t dt = t1 - now;
	for (size_t c = 0; c < s->nr_cpu; c++)
		if (s->rq[c].cur != NONE)
			s->th[s->rq[c].cur].own += dt;
	/* a thread that moves to a later CPU in this pass starts a phase and a
	 * quantum there: neither ends at t1, so it is not handled twice */
	for (size_t c = 0; c < s->nr_cpu; c++) {
		mk_cpu_rq *q = &s->rq[c];
		size_t t = q->cur;
		if (t == NONE)
			continue;
		if (s->th[t].own >= s->th[t].ph_end) {
			next_phase(m, s, t, t1);
		} else if (q->head != NONE && t1 >= q->slice_end) {
			size_t first = q->head;
			join(s, t, (int)c, t1); /* to the tail (the queue is not empty) */
			q->head = s->th[first].next; /* pop the first */
			s->th[first].next = NONE;
			dispatch(s, first, t1);
		}
	}
}
