/* The PMU model's mappings (issue 8): mmap and munmap of an event fd (the
 * user page alone, or the user page and a ring of 2^n data pages), the user
 * page kept up to date as the kernel does, PERF_EVENT_IOC_SET_OUTPUT, and
 * the RDPMC emulation (pk_model_rdpmc) that reads the modeled counters.
 *
 * Invariants:
 *  - a mapping belongs to one event (e->map); the memory is the model's,
 *    zeroed, page aligned, freed by munmap or when the model is freed; a
 *    second mmap of a mapped event is refused (-EINVAL), as one ring per
 *    event in the kernel;
 *  - the page is rewritten under its seqlock (pki_userpage_update) on mmap,
 *    enable, disable, reset, a read, scheduling in and out, and each
 *    overflow: after any of them, offset + the sign-extended counter that
 *    pk_model_rdpmc returns is the count read(2) gives at the same time;
 *  - the raw counter of a counting event is value - pmc_off (pmc_off set
 *    when it is scheduled in, so the counter starts at 0); of a sampling
 *    event -left (armed at -period, overflowing at 0); of SLOTS the fixed
 *    counter 3 register (pki_pm_slots), and PERF_METRICS the packed
 *    register, both since the last read through the kernel or reset,
 *    continuous across a context switch (the driver saves and restores
 *    them); a counter not in use by the thread's events reads 0. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/mkernel.h"
#include "model/mspe.h"

/* Counter bits on x86 (Intel and AMD: 48); Arm does not give user access
 * (perf_user_access is 0 by default), so its pages say read(2). */
#define MK_PMC_WIDTH 48
#define MK_PMC_MASK ((1ull << MK_PMC_WIDTH) - 1)

static int64_t sext(uint64_t raw)
{
	return (int64_t)(raw << (64 - MK_PMC_WIDTH)) >> (64 - MK_PMC_WIDTH);
}

static bool user_rdpmc(const mk_event *e)
{
	return e->pmu && e->core.row && e->core.row->vendor != PK_VENDOR_ARM;
}

uint64_t pki_mk_raw(const pk_model *m, const mk_event *e)
{
	const mk_event *l = &m->ev[e->leader];
	if (e->kind == MK_PM_SLOTS)
		return pki_pm_slots(&e->regs) & MK_PMC_MASK;
	if (e->kind == MK_PM_METRIC)
		return pki_pm_metrics(&l->regs);
	if (e->sampling)
		return (0 - e->ovf.left) & MK_PMC_MASK;
	return (pki_mk_value(m, e) - (uint64_t)e->pmc_off) & MK_PMC_MASK;
}

void pki_mk_program(pk_model *m, mk_event *e)
{
	e->pmc_off = (int64_t)pki_mk_value(m, e);
}

void pki_mk_publish(pk_model *m, mk_event *e)
{
	if (!e->map)
		return;
	pki_userpage u = {.time_enabled = e->ena, .time_running = e->run,
			  .pmc_width = MK_PMC_WIDTH, .cap_user_rdpmc = user_rdpmc(e)};
	pki_userpage_vtime(&u, m->now);
	if (pki_mk_on_counter(m, e) && u.cap_user_rdpmc)
		u.index = e->pmc_ecx + 1;
	if (!u.index)
		u.offset = (int64_t)pki_mk_value(m, e);
	else if (e->kind == MK_PM_SLOTS) /* the driver's count less the saved register */
		u.offset = (int64_t)(e->pmcount[0] - e->regs.last_slots);
	else if (e->kind != MK_PM_METRIC) /* metrics: the packed register, no count */
		u.offset = (int64_t)pki_mk_value(m, e) - sext(pki_mk_raw(m, e));
	pki_userpage_update(e->map, &u);
}

void pki_mk_publish_group(pk_model *m, const mk_event *l)
{
	const mk_ctx_ev *c = &m->cev[l->ctx];
	for (size_t j = 0; j < c->n; j++) {
		mk_event *e = &m->ev[c->idx[j]];
		if (e->open && &m->ev[e->leader] == l)
			pki_mk_publish(m, e);
	}
}

int pki_mk_mmap(pk_model *m, mk_event *e, size_t len, int prot, uint64_t offset, void **addr)
{
	pk_error err;
	const size_t page = 4096; /* the model's page size (mhost.c) */
	if (offset)
		return pki_mk_spe_mmap(m, e, len, prot, offset, addr);
	if (e->map || e->output >= 0)
		return pki_mk_refuse(m, -EINVAL, "the event has a mapping or writes into another "
						 "event's ring already");
	if (len / page > ((size_t)1 << 20))
		return pki_mk_refuse(m, -ENOMEM, "a mapping of %zu bytes is past the model's "
						 "limit (2^20 pages)", len);
	bool whole = len >= page && len % page == 0;
	void *base = whole ? aligned_alloc(page, len) : NULL;
	if (!base && whole)
		return pki_mk_refuse(m, -ENOMEM, "out of memory for a mapping of %zu bytes", len);
	pk_error_clear(&err);
	/* a length that is not whole pages fails here, before base is used */
	int r = pki_ring_init(&e->ring, base, len, page, prot & PROT_WRITE, &e->attr, &err);
	if (r < 0) {
		free(base);
		return pki_mk_refuse(m, r, "%s (perf_mmap)", err.msg);
	}
	if (e->ring.data)
		memset(e->ring.data, 0, e->ring.size);
	e->map = base;
	e->map_len = len;
	pki_mk_publish(m, e);
	*addr = base;
	return 0;
}

int pki_mk_munmap(pk_model *m, void *addr, size_t len)
{
	if (pki_mk_spe_munmap(m, addr, len))
		return 0;
	for (size_t i = 0; addr && i < m->nr_ev; i++) {
		mk_event *e = &m->ev[i];
		if (e->map != addr)
			continue;
		if (len != e->map_len)
			return pki_mk_refuse(m, -EINVAL, "munmap of %zu bytes: the mapping has %zu "
							 "(the model unmaps whole mappings)",
					     len, e->map_len);
		free(e->map);
		e->map = NULL;
		memset(&e->ring, 0, sizeof(e->ring));
		for (size_t j = 0; j < m->nr_ev; j++)
			if (m->ev[j].output == (int)i)
				m->ev[j].output = -1; /* the kernel detaches them too */
		return 0;
	}
	return pki_mk_refuse(m, -EINVAL, "munmap: %p is not a mapping of the model", addr);
}

static pki_output_event output_desc(const pk_model *m, const mk_event *e)
{
	pki_output_event d = {.id = (uint64_t)(e - m->ev) + 1, .cpu = e->cpu, .task = e->pid,
			      .clockid = e->attr.use_clockid ? e->attr.clockid : -1,
			      .mapped = e->map != NULL};
	return d;
}

int pki_mk_set_output(pk_model *m, mk_event *e, mk_event *target)
{
	pk_error err;
	if (!target) { /* arg -1: back to the event's own ring (none) */
		e->output = -1;
		return 0;
	}
	pki_output_event a = output_desc(m, e), b = output_desc(m, target);
	pk_error_clear(&err);
	int r = pki_ring_output_check(&a, &b, &err);
	if (r < 0)
		return pki_mk_refuse(m, r, "%s", err.msg);
	while (target->output >= 0) /* the kernel follows the target's redirection */
		target = &m->ev[target->output];
	e->output = (int)(target - m->ev);
	return 0;
}

pki_ring *pki_mk_ring_of(pk_model *m, mk_event *e)
{
	mk_event *o = e->output >= 0 ? &m->ev[e->output] : e;
	return o->map ? &o->ring : NULL;
}

/* The thread's context at the model's time, and where it runs. */
static int rdpmc_context(pk_model *m, pid_t tid, const pki_counters **row, pk_error *err)
{
	for (size_t t = 0; t < m->sc.nr_threads; t++) {
		if (m->sc.threads[t].tid != tid)
			continue;
		const pki_phase *ph = pki_mk_phase_now(m, t);
		if (!ph)
			return pk_err(err, -ESRCH, "rdpmc: thread %d has ended at %llu ns", (int)tid,
				      (unsigned long long)m->now);
		const pk_pmu *pmu = pki_mk_pmu_of(m, ph->core_type);
		*row = pmu ? pki_counters_find(&m->sc.cpuid, pmu->name, err) : NULL;
		return *row ? (int)t : (err && err->code ? err->code : -ENOENT);
	}
	return pk_err(err, -ESRCH, "rdpmc: no thread %d in the scenario", (int)tid);
}

int pk_model_rdpmc(pk_model *m, pid_t tid, uint32_t ecx, uint64_t *value, pk_error *err)
{
	const pki_counters *row = NULL;
	pki_pmc_kind kind;
	unsigned n;
	int t = rdpmc_context(m, tid, &row, err);
	if (t < 0)
		return t;
	if (row->vendor == PK_VENDOR_ARM)
		return pk_err(err, -EINVAL, "rdpmc on %s: Arm has no RDPMC (the hardware's #UD)",
			      row->core);
	int r = pki_rdpmc_decode(ecx, row, m->sc.smt, &kind, &n, err);
	if (r < 0)
		return r;
	*value = 0;
	const mk_ctx_ev *c = &m->cev[t];
	for (size_t j = 0; j < c->n; j++) { /* the thread's events only */
		const mk_event *e = &m->ev[c->idx[j]];
		bool on = pki_mk_on_counter(m, e) && e->pmc_ecx == ecx;
		if (on) {
			*value = pki_mk_raw(m, e);
			break;
		}
	}
	return 0;
}

bool pki_mk_on_counter(const pk_model *m, const mk_event *e)
{
	return e->open && e->pmu && e->running && pki_mk_counts_now(m, e) &&
	       (e->on_pmc || e->kind == MK_PM_METRIC);
}
