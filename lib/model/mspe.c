/* The PMU model's SPE unit in its kernel (issue 11; docs/model.md "The SPE
 * unit"): an arm_spe event opens with the driver's checks, maps its AUX
 * area at the user page's aux_offset, and while it runs samples one
 * operation every `period` operations of the threads it follows (the
 * phase's instructions, in virtual time), writing a record per kept sample
 * into the AUX buffer and PERF_RECORD_AUX records into its ring.
 *
 * Invariants:
 *  - what is written is the driver's "handle": it starts at aux_head and
 *    ends (a PERF_RECORD_AUX {offset, size, flags}) when it holds the AUX
 *    watermark (attr.aux_watermark, else half the buffer), when the event
 *    stops (disable), or when a record finds no room: then it ends with
 *    PERF_AUX_FLAG_TRUNCATED and records are dropped (counted) until the
 *    reader frees room (aux_tail), when a new handle starts;
 *  - aux_head in the user page is moved only by whole records; a record
 *    never wraps (PKI_SPE_REC_SIZE divides the buffer);
 *  - discard mode writes nothing and needs no AUX area; samples are still
 *    taken and filtered (counted);
 *  - the same scenario and calls give the same bytes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <pmukit/spe_record.h>

#include "model/mkernel.h"
#include "model/mspe.h"
#include "perfdata/pd_internal.h"

#define MK_PAGE 4096

typedef struct mk_spe {
	const pk_pmu *pmu;
	pki_spe_cfg cfg;
	pki_spe_gen gen;
	uint64_t period;
	double ops;                /* operations since the last sample */
	uint8_t *aux;
	size_t aux_len;
	uint64_t head, handle;     /* aux_head; the open handle's start */
	bool stopped;              /* the last handle ended TRUNCATED: no room */
	uint64_t watermark;
	uint64_t samples, filtered, written, dropped, discarded;
	uint64_t busy_until;       /* ns: the last sampled operation is in flight */
	uint64_t collisions;
	bool collided;             /* a collision since the last AUX record */
} mk_spe;

/* The core PMU's SPE events (Arm ARM: SAMPLE_POP 0x4000 ... SAMPLE_FEED_LAT
 * 0x4009), counted by the unit (pki_mk_spe_event). */
enum { SPE_POP, SPE_FEED, SPE_FILTRATE, SPE_COLLISION, SPE_FEED_BR, SPE_FEED_LD, SPE_FEED_ST,
       SPE_FEED_OP, SPE_FEED_EVENT, SPE_FEED_LAT, SPE_NR_EVENTS };
static const char *const spe_event_names[SPE_NR_EVENTS] = {
	"sample_pop", "sample_feed", "sample_filtrate", "sample_collision", "sample_feed_br",
	"sample_feed_ld", "sample_feed_st", "sample_feed_op", "sample_feed_event",
	"sample_feed_lat"};
#define SPE_EVENT_BASE 0x4000

int pki_mk_spe_event(pk_model *m, const pk_pmu *core, uint64_t config)
{
	bool spe = false;
	for (size_t i = 0; i < pk_pmus_count(m->pmus); i++)
		spe |= pk_spe_pmu_is(pk_pmus_at(m->pmus, i));
	if (!spe || config < SPE_EVENT_BASE || config >= SPE_EVENT_BASE + SPE_NR_EVENTS ||
	    strncmp(core->name, "armv", 4))
		return 0;
	const char *name = spe_event_names[config - SPE_EVENT_BASE];
	/* the four of SPEv1 always; the FEED_* of later SPEs where the tree lists them */
	if (config - SPE_EVENT_BASE > SPE_COLLISION && !pk_pmu_alias(core, name))
		return pki_mk_refuse(m, -ENOENT, "%s does not list %s (%#llx): the model's SPE "
						 "counts it only where the PMU has it",
				     core->name, name, (unsigned long long)config);
	return 1;
}

/* n more of SPE event ev for thread t on cpu: into every counting
 * MK_SPE_COUNT event of that thread or CPU. */
static void spe_count(pk_model *m, size_t t, int cpu, int ev, double n)
{
	for (size_t i = 0; i < m->nr_ev; i++) {
		mk_event *e = &m->ev[i];
		if (!e->open || e->kind != MK_SPE_COUNT || e->key.config != SPE_EVENT_BASE + (uint64_t)ev ||
		    !e->running || !pki_mk_counts_now(m, e) || e->attr.exclude_user)
			continue;
		if ((size_t)e->ctx == t || (size_t)e->ctx == m->sc.nr_threads + (size_t)cpu)
			e->acc += n;
	}
}

/* Every phase the event may sample has an "spe" object, and what the
 * configuration needs of it (pa_enable: data_phys_addr). */
static int check_phases(pk_model *m, const mk_event *e, const mk_spe *s)
{
	for (size_t t = 0; t < m->sc.nr_threads; t++) {
		if ((size_t)e->ctx < m->sc.nr_threads && (size_t)e->ctx != t)
			continue;
		for (size_t p = 0; p < m->sc.threads[t].nr_phases; p++) {
			const pki_phase *ph = &m->sc.threads[t].phases[p];
			if (e->cpu >= 0 && pki_mk_cpu_of(m, t, ph) != e->cpu)
				continue;
			const pki_spe_phase *sp = &ph->spe;
			if (!sp->given)
				return pki_mk_refuse(m, -ENOENT, "the PMU model has no SPE operations for "
								 "threads[%zu].phases[%zu]: the scenario gives no "
								 "\"spe\"; add \"spe\" (loads, stores, branches, "
								 "load_sources, latency, ...) to the phase",
						     t, p);
			bool mem = sp->share[PKI_SPE_LOAD] > 0 || sp->share[PKI_SPE_STORE] > 0;
			if (s->cfg.pa && mem && !sp->data_phys_given)
				return pki_mk_refuse(m, -ENOENT, "pa_enable: the scenario gives no physical "
								 "address for threads[%zu].phases[%zu]; add "
								 "\"data_phys_addr\" to its \"spe\"",
						     t, p);
		}
	}
	return 0;
}

static void program(mk_spe *s, const pk_spe_config *c, bool privileged)
{
	const char *cs = pk_pmu_cap(s->pmu, "count_size");
	unsigned bits = cs ? (unsigned)atoi(cs) : 16;
	s->cfg.ts = c->ts_enable;
	s->cfg.pa = c->pa_enable;
	s->cfg.context = privileged; /* the driver sets PMSCR.CX when perfmon_capable() */
	s->cfg.discard = c->discard;
	s->cfg.type_filter[PKI_SPE_LOAD] = c->load_filter;
	s->cfg.type_filter[PKI_SPE_STORE] = c->store_filter;
	s->cfg.type_filter[PKI_SPE_BRANCH] = c->branch_filter;
	s->cfg.event_filter = c->event_filter;
	s->cfg.inv_event_filter = c->inv_event_filter;
	s->cfg.min_latency = (unsigned)c->min_latency;
	s->cfg.count_max = bits >= 1 && bits <= 16 ? (1u << bits) - 1 : 0xffff;
}

int pki_mk_spe_open(pk_model *m, mk_event *e, const pk_pmu *pmu)
{
	pk_error err;
	pk_spe_config c;
	int64_t priv = pk_host_number(&m->k, PK_HOST_PERFMON_CAPABLE, 0);
	uint64_t cfg[PK_NR_CONFIGS] = {e->attr.config, e->attr.config1, e->attr.config2, e->config3};
	pk_error_clear(&err);
	if (e->cpu >= 0 && pmu->cpus && !pk_cpumap_has(pmu->cpus, e->cpu))
		return pki_mk_refuse(m, -ENODEV, "%s has no SPE on CPU %d", pmu->name, e->cpu);
	int r = pk_spe_check(pmu, &e->attr, e->config3, priv > 0, &err);
	if (r < 0)
		return pki_mk_refuse(m, r, "%s (the SPE driver)", err.msg);
	mk_spe *s = calloc(1, sizeof(*s));
	if (!s)
		return pki_mk_refuse(m, -ENOMEM, "out of memory");
	s->pmu = pmu;
	pk_spe_config_read(pmu, cfg, &c);
	program(s, &c, priv > 0);
	s->period = pk_spe_period(pmu, e->attr.sample_period); /* as the driver programs it */
	r = check_phases(m, e, s);
	if (r < 0) {
		free(s);
		return r;
	}
	e->kind = MK_SPE;
	e->spe = s;
	e->fixed = -1;
	e->field = -1;
	return 0;
}

void pki_mk_spe_free(mk_event *e)
{
	if (e->spe)
		free(e->spe->aux);
	free(e->spe);
	e->spe = NULL;
}

int pki_mk_spe_mmap(pk_model *m, mk_event *e, size_t len, int prot, uint64_t offset, void **addr)
{
	mk_spe *s = e->spe;
	if (e->kind != MK_SPE)
		return pki_mk_refuse(m, -EINVAL, "only an arm_spe event has an AUX area (offset %llu)",
				     (unsigned long long)offset);
	if (!e->map)
		return pki_mk_refuse(m, -EINVAL, "map the ring first: the AUX area is placed by its "
						 "user page (aux_offset, aux_size)");
	const struct perf_event_mmap_page *pg = e->map;
	if (s->aux)
		return pki_mk_refuse(m, -EINVAL, "the AUX area is mapped already");
	if (offset != pg->aux_offset || len != pg->aux_size || offset < e->map_len)
		return pki_mk_refuse(m, -EINVAL, "the AUX mmap (offset %llu, %zu bytes) must match the "
						 "user page's aux_offset %llu and aux_size %llu, past "
						 "the ring",
				     (unsigned long long)offset, len,
				     (unsigned long long)pg->aux_offset,
				     (unsigned long long)pg->aux_size);
	size_t pages = len / MK_PAGE;
	if (len % MK_PAGE || pages < 2 || (pages & (pages - 1)) || pages > ((size_t)1 << 18))
		return pki_mk_refuse(m, -EINVAL, "the SPE AUX area needs 2^n pages, n >= 1 (%zu "
						 "bytes given)", len);
	if (!(prot & PROT_WRITE))
		return pki_mk_refuse(m, -EOPNOTSUPP, "a read-only AUX area is snapshot mode, which "
						     "the model does not serve");
	s->aux = aligned_alloc(MK_PAGE, len);
	if (!s->aux)
		return pki_mk_refuse(m, -ENOMEM, "out of memory for an AUX area of %zu bytes", len);
	s->aux_len = len; /* not cleared: only [aux_tail, aux_head) is ever read */
	s->watermark = e->attr.aux_watermark ? e->attr.aux_watermark : len / 2;
	s->head = s->handle = 0;
	*addr = s->aux;
	return 0;
}

bool pki_mk_spe_munmap(pk_model *m, void *addr, size_t len)
{
	for (size_t i = 0; addr && i < m->nr_ev; i++) {
		mk_spe *s = m->ev[i].spe;
		if (!s || s->aux != addr)
			continue;
		if (len == s->aux_len) {
			free(s->aux);
			s->aux = NULL;
			s->aux_len = 0;
		}
		return true;
	}
	return false;
}

/* Who a record or sample is about: the thread, its CPU, the time. */
typedef struct spe_ctx {
	uint32_t tid;
	int cpu;
	uint64_t time;
} spe_ctx;

/* Ends the open handle: a PERF_RECORD_AUX {offset, size, flags} into the
 * event's ring, which wakes its reader. */
static void end_handle(pk_model *m, mk_event *e, uint64_t flags, const spe_ctx *who)
{
	mk_spe *s = e->spe;
	uint8_t rec[40 + 64];
	uint64_t id = pki_mk_id(m, e);
	pk_pd_sample_id sid = {.fields = e->attr.sample_type, .pid = who->tid, .tid = who->tid,
			       .time = who->time, .id = id, .stream_id = id,
			       .cpu = who->cpu >= 0 ? (uint32_t)who->cpu : 0};
	if (s->collided) /* the driver: PMBSR_EL1.COLL */
		flags |= PERF_AUX_FLAG_COLLISION;
	if (s->head == s->handle && !flags)
		return; /* nothing written since the last one */
	s->collided = false;
	memset(rec, 0, sizeof(rec));
	pd_st32(rec, PERF_RECORD_AUX);
	pd_st64(rec + 8, s->handle);
	pd_st64(rec + 16, s->head - s->handle);
	pd_st64(rec + 24, flags);
	size_t t = e->attr.sample_id_all ? pki_pd_write_trailer(rec + 32, e->attr.sample_type, &sid)
					 : 0;
	pd_st16(rec + 6, (uint16_t)(32 + t));
	s->handle = s->head;
	m->spe_handles++;
	pki_ring *r = pki_mk_ring_of(m, e);
	pki_ring_writer w = {.attr = &e->attr, .id = id, .sid = sid};
	if (!r)
		return;
	if (pki_ring_write(r, &w, rec, 32 + t) == -ENOSPC)
		e->lost++;
	r->pollin = true; /* perf_aux_output_end wakes the reader */
}

/* One record into the AUX buffer, or dropped (TRUNCATED) when the reader
 * has left no room. */
static void aux_write(pk_model *m, mk_event *e, const uint8_t *rec, const spe_ctx *who)
{
	mk_spe *s = e->spe;
	struct perf_event_mmap_page *pg = e->map;
	uint64_t tail = __atomic_load_n(&pg->aux_tail, __ATOMIC_ACQUIRE);
	bool room = s->aux_len - (s->head - tail) >= PKI_SPE_REC_SIZE;
	if (!room) {
		if (!s->stopped)
			end_handle(m, e, PERF_AUX_FLAG_TRUNCATED, who);
		s->stopped = true;
		s->dropped++;
		return;
	}
	s->stopped = false;
	memcpy(s->aux + (s->head & (s->aux_len - 1)), rec, PKI_SPE_REC_SIZE);
	s->head += PKI_SPE_REC_SIZE;
	s->written++;
	__atomic_store_n(&pg->aux_head, s->head, __ATOMIC_RELEASE);
	if (s->head - s->handle >= s->watermark)
		end_handle(m, e, 0, who);
}

/* The core PMU's SAMPLE_FEED_* of a taken sample: its kind, and each
 * filter it passes on its own. */
static void count_feed(pk_model *m, size_t t, const mk_spe *s, const pki_spe_op *op, int cpu)
{
	static const int kind_ev[PKI_SPE_OP_NR] = {SPE_FEED_LD, SPE_FEED_ST, SPE_FEED_BR, -1};
	pki_spe_cfg one = {.count_max = s->cfg.count_max};
	spe_count(m, t, cpu, SPE_FEED, 1);
	if (kind_ev[op->op] >= 0)
		spe_count(m, t, cpu, kind_ev[op->op], 1);
	memcpy(one.type_filter, s->cfg.type_filter, sizeof(one.type_filter));
	spe_count(m, t, cpu, SPE_FEED_OP, pki_spe_keep(&one, op));
	one = (pki_spe_cfg){.event_filter = s->cfg.event_filter,
			    .inv_event_filter = s->cfg.inv_event_filter};
	spe_count(m, t, cpu, SPE_FEED_EVENT, pki_spe_keep(&one, op));
	one = (pki_spe_cfg){.min_latency = s->cfg.min_latency};
	spe_count(m, t, cpu, SPE_FEED_LAT, pki_spe_keep(&one, op));
}

/* The sample at operation `at` of a span: a collision while the last
 * sampled operation is in flight (its total latency), else chosen,
 * filtered, written. */
static void take_sample(pk_model *m, mk_event *e, const pki_phase *ph, const spe_ctx *who,
			size_t t)
{
	mk_spe *s = e->spe;
	pki_spe_op op;
	uint8_t rec[PKI_SPE_REC_SIZE];
	if (who->time < s->busy_until) {
		s->collisions++;
		s->collided = true;
		spe_count(m, t, who->cpu, SPE_COLLISION, 1);
		return;
	}
	pki_spe_next_op(&s->gen, &ph->spe, &op);
	s->samples++;
	s->busy_until = who->time + (uint64_t)((double)op.latency / ph->ghz);
	count_feed(m, t, s, &op, who->cpu);
	if (!pki_spe_keep(&s->cfg, &op)) {
		s->filtered++;
		return;
	}
	spe_count(m, t, who->cpu, SPE_FILTRATE, 1);
	if (s->cfg.discard) {
		s->discarded++;
		return;
	}
	if (!s->aux) {
		s->dropped++; /* no AUX area: nowhere to write */
		return;
	}
	pki_spe_where w = {.pc = ph->ip, .ts = who->time, .tid = who->tid};
	pki_spe_encode(&s->cfg, &ph->spe, &op, &w, rec);
	aux_write(m, e, rec, who);
}

/* Operations per core cycle of a phase: its instructions (the event table). */
static double ops_per_cycle(pk_model *m, const pki_phase *ph)
{
	const pk_pmu *pmu = pki_mk_pmu_of(m, ph->core_type);
	pki_core core = {.smt = m->sc.smt, .ref_ghz = m->sc.ref_ghz, .midr = m->sc.cpuid.midr};
	pki_event_key key = {.kind = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_INSTRUCTIONS};
	double rate = 0;
	core.row = pmu ? pki_counters_find(&m->sc.cpuid, pmu->name, NULL) : NULL;
	if (!core.row || pki_event_rate(&core, &key, ph, &rate, NULL) < 0)
		return 0;
	return rate;
}

/* Thread t's operations over [t0, t1) and the samples among them. */
static void spe_span(pk_model *m, mk_event *e, size_t t, const pki_phase *ph, uint64_t t0,
		     uint64_t t1)
{
	mk_spe *s = e->spe;
	double ops = ops_per_cycle(m, ph) * ph->ghz * (double)(t1 - t0);
	double at = (double)s->period - s->ops; /* operations to the next sample */
	int cpu = m->sched.th[t].cpu;
	if (ops <= 0)
		return;
	spe_count(m, t, cpu, SPE_POP, ops);
	for (; at <= ops; at += (double)s->period) {
		spe_ctx who = {.tid = (uint32_t)m->sc.threads[t].tid, .cpu = cpu,
			       .time = t0 + (uint64_t)(at * (double)(t1 - t0) / ops)};
		take_sample(m, e, ph, &who, t);
	}
	s->ops = ops - (at - (double)s->period);
}

bool pki_mk_spe_step(pk_model *m, uint64_t t0, uint64_t t1)
{
	uint64_t before = m->spe_handles;
	for (size_t i = 0; i < m->nr_ev; i++) {
		mk_event *e = &m->ev[i];
		if (!e->open || e->kind != MK_SPE || !pki_mk_counts_now(m, e))
			continue;
		size_t nthr = m->sc.nr_threads;
		size_t t = (size_t)e->ctx < nthr ? (size_t)e->ctx
			   : (size_t)e->cpu < m->sched.nr_cpu ? m->sched.rq[e->cpu].cur : SIZE_MAX;
		const pki_phase *ph = t < nthr && pki_mk_running(m, t) ? pki_mk_phase_now(m, t) : NULL;
		if (ph && (e->cpu < 0 || m->sched.th[t].cpu == e->cpu))
			spe_span(m, e, t, ph, t0, t1);
	}
	return m->spe_handles != before;
}

void pki_mk_spe_sync(pk_model *m)
{
	for (size_t i = 0; i < m->nr_ev; i++) {
		mk_event *e = &m->ev[i];
		if (e->kind != MK_SPE || !e->spe || !e->spe->aux || pki_mk_counts_now(m, e))
			continue;
		size_t t = (size_t)e->ctx < m->sc.nr_threads ? (size_t)e->ctx : 0;
		spe_ctx who = {.tid = (size_t)e->ctx < m->sc.nr_threads
					      ? (uint32_t)m->sc.threads[t].tid : 0,
			       .cpu = e->cpu >= 0 ? e->cpu : m->sc.threads[t].cpu, .time = m->now};
		end_handle(m, e, 0, &who); /* the driver's stop: perf_aux_output_end */
	}
}

void pki_mk_spe_stats(const mk_event *e, uint64_t out[6])
{
	const mk_spe *s = e->spe;
	uint64_t v[6] = {s->samples, s->filtered, s->written, s->dropped, s->discarded,
			 s->collisions};
	memcpy(out, v, sizeof(v));
}
