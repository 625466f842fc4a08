/* libpmukit: Intel PT's synthesized events for the session (pd_ipt.h):
 * AUXTRACE buffers queued per idx, decoded by lib/intelpt's trace decoder,
 * its events turned into perf 6.1's samples and errors in time order.
 *
 * Invariants: see pd_ipt.h. The synthetic sample and event are kept in pt
 * (zeroed once): every field a synthetic sample has is set per event. */
#include "pd_ipt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/util.h>

#include "pd_session.h"

struct pki_ipt_queue {
	uint32_t idx, cpu;
	pk_ipt_decoder *dec;
	struct { uint8_t *data; size_t len; } *bufs;
	size_t nr_bufs, fed;         /* fed: buffers given to the decoder */
	uint64_t stack[64];          /* the thread stack: calls' from IPs, the last on top */
	unsigned depth;
	bool has;                    /* ev: the next event, at perf time `time` */
	pk_ipt_event ev;
	uint64_t time;
};

/* perf 6.1's default kinds: script's calls (with trace ends), power events
 * (cbr, psb) and errors; report's without the branches. */
static void set_default(pki_ipt *pt)
{
	pt->kinds = 1u << PKI_IPT_TRANSACTIONS | 1u << PKI_IPT_CBR | 1u << PKI_IPT_PSB;
	if (!pt->report)
		pt->kinds |= 1u << PKI_IPT_BRANCHES;
	pt->errors = true;
	pt->calls_only = true;
	pt->callchain = pt->report; /* report's: chains, the file's samples' too */
}

int pki_ipt_set_itrace(pki_ipt *pt, const char *arg, pk_error *err)
{
	(void)err;
	pt->itrace_set = true;
	pt->kinds = 0;
	pt->errors = false;
	pt->calls_only = !strchr(arg, 'b');
	for (const char *p = arg; *p; p++) {
		if (*p == 'b' || *p == 'c')
			pt->kinds |= 1u << PKI_IPT_BRANCHES;
		else if (*p == 'p')
			pt->kinds |= 1u << PKI_IPT_CBR | 1u << PKI_IPT_PSB;
		else if (*p == 'e')
			pt->errors = true;
		else if (*p == 'x')
			pt->kinds |= 1u << PKI_IPT_TRANSACTIONS;
		else if (*p == 'g')
			pt->callchain = true;
		/* other letters (instructions, which need the code; Arm SPE's):
		 * nothing to make here */
	}
	return 0;
}

/* The task CPU cpu runs: its tid and pid as the last switch named them
 * (perf's Intel PT way), the pid else from the thread table. */
static void cpu_task(const pki_ipt *pt, pk_session *s, uint32_t cpu, int64_t *pid, int64_t *tid)
{
	*tid = pki_cpu_task(&pt->cpu_tasks, cpu);
	*pid = pki_cpu_task_pid(&pt->cpu_tasks, cpu);
	if (*pid < 0 && *tid >= 0)
		*pid = pk_machine_pid_of(s->machine, (uint32_t)*tid);
}

/* The state of the dso at ip in pid's maps (kernel space from bit 63, as
 * perf's x86_64 kernel start); NULL when ip is in no map (or no memory). */
static pki_ipt_dso *dso_at(pki_ipt *pt, pk_session *s, uint32_t pid, uint64_t ip)
{
	pk_addr_loc loc;
	pk_machine_locate(s->machine, pid,
			  ip >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, ip, &loc);
	if (!loc.has_map)
		return NULL;
	for (size_t i = 0; i < pt->nr_dsos; i++)
		if (pt->dsos[i].ordinal == loc.dso_ordinal)
			return &pt->dsos[i];
	if (pk_grow(&pt->dsos, &pt->cap_dsos, pt->nr_dsos + 1, sizeof(*pt->dsos)))
		return NULL;
	pt->dsos[pt->nr_dsos] = (pki_ipt_dso){.ordinal = loc.dso_ordinal};
	return &pt->dsos[pt->nr_dsos++];
}

/* The walker: no code is read (pmukit has no x86 instruction decoder), so
 * every walk fails as perf's does without the traced binaries: with an
 * error, but silently in a dso tried before and met so by a walk. */
static int walk(void *arg, uint64_t ip, uint64_t stop, pk_ipt_insn *insn)
{
	(void)stop, (void)insn;
	pki_ipt *pt = arg;
	int64_t pid, tid;
	cpu_task(pt, pt->s, pt->walking->cpu, &pid, &tid);
	pki_ipt_dso *d = dso_at(pt, pt->s, pid >= 0 ? (uint32_t)pid : 0, ip);
	if (!d)
		return PK_IPT_WALK_NOINSN;
	if (d->tried && d->seen)
		return PK_IPT_WALK_SKIP;
	d->seen = d->tried;
	d->tried = true;
	return PK_IPT_WALK_NOINSN;
}

void pki_ipt_read_code(pki_ipt *pt, pk_session *s, uint32_t pid, uint64_t ip)
{
	pki_ipt_dso *d = pt->read_code && ip ? dso_at(pt, s, pid, ip) : NULL;
	if (d)
		d->tried = true;
}

/* perf's vdso mmap: to pick a 32- or 64-bit vdso it tries the files of the
 * process's dsos named by a path, in address order, until one opens
 * (none does here). */
static void tried_all(pki_ipt *pt, pk_session *s, uint32_t pid)
{
	pk_frame_map fm;
	for (uint64_t a = 0; a < UINT64_MAX; a = fm.end) {
		if (pk_machine_frame_map(s->machine, pid, PERF_RECORD_MISC_USER, a, &fm)) {
			pk_addr_loc loc;
			pk_machine_locate(s->machine, pid, PERF_RECORD_MISC_USER, fm.start, &loc);
			pki_ipt_dso *d = loc.dso_long[0] == '/' ? dso_at(pt, s, pid, fm.start) : NULL;
			if (d)
				d->tried = true;
		}
		if (fm.end <= a)
			break;
	}
}

void pki_ipt_record(pki_ipt *pt, pk_session *s, const pk_pd_event *ev)
{
	pk_pd_rec_mmap r;
	if ((ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2) &&
	    pk_pd_rec_mmap_parse(ev, &r, NULL) == 0 && !strcmp(r.filename, "[vdso]"))
		tried_all(pt, s, r.pid);
}

static uint64_t perf_time(pki_ipt *pt, pk_session *s, uint64_t tsc)
{
	if (!pt->have_tc)
		pt->have_tc = pk_pd_time_conv(s->reader, &pt->tc) && pt->tc.time_mult;
	return pt->have_tc ? pk_pd_tsc_to_time(&pt->tc, tsc) : tsc;
}

/* The queue's next event into q->ev (q->has false at the end of its data). */
static void queue_next(pki_ipt *pt, pk_session *s, pki_ipt_queue *q)
{
	pt->s = s;
	pt->walking = q;
	for (;;) {
		if (pk_ipt_next(q->dec, &q->ev)) {
			q->has = true;
			q->time = perf_time(pt, s, q->ev.tsc);
			return;
		}
		if (q->fed == q->nr_bufs) {
			q->has = false;
			return;
		}
		if (q->fed) {
			free(q->bufs[q->fed - 1].data);
			q->bufs[q->fed - 1].data = NULL;
		}
		pk_ipt_feed(q->dec, q->bufs[q->fed].data, q->bufs[q->fed].len);
		q->fed++;
	}
}

static pki_ipt_queue *queue_of(pki_ipt *pt, const pk_pd_rec_auxtrace *a)
{
	for (size_t i = 0; i < pt->nr_queues; i++)
		if (pt->queues[i]->idx == a->idx)
			return pt->queues[i];
	pki_ipt_queue **nq = realloc(pt->queues, (pt->nr_queues + 1) * sizeof(*nq));
	if (!nq)
		return NULL;
	pt->queues = nq;
	pki_ipt_queue *q = calloc(1, sizeof(*q));
	if (!q || !(q->dec = pk_ipt_decoder_new(&pt->params))) {
		free(q);
		return NULL;
	}
	q->idx = a->idx;
	q->cpu = a->cpu;
	pt->queues[pt->nr_queues++] = q;
	return q;
}

/* Queues a copy of an AUXTRACE buffer; a queue with no event pending
 * decodes on into it. */
static int queue_add(pki_ipt *pt, pk_session *s, const pk_pd_event *ev,
		     const pk_pd_rec_auxtrace *a)
{
	pki_ipt_queue *q = queue_of(pt, a);
	if (!q)
		return -ENOMEM;
	void *nb = realloc(q->bufs, (q->nr_bufs + 1) * sizeof(*q->bufs));
	uint8_t *copy = nb ? malloc(ev->aux_size) : NULL;
	if (nb)
		q->bufs = nb;
	if (!copy)
		return -ENOMEM;
	memcpy(copy, ev->aux, ev->aux_size);
	q->bufs[q->nr_bufs].data = copy;
	q->bufs[q->nr_bufs++].len = ev->aux_size;
	if (!q->has)
		queue_next(pt, s, q);
	return 0;
}

/* The synthetic evsels --itrace asks for, after the file's. */
static void make_evsels(pki_ipt *pt, pk_session *s)
{
	static const char *const names[PKI_IPT_NR_SYNTH] = {"branches", "transactions", "cbr",
							    "psb"};
	size_t n = pk_pd_nr_evsels(s->reader);
	for (unsigned k = 0; k < PKI_IPT_NR_SYNTH; k++) {
		pt->synth_of[k] = -1;
		if (!(pt->kinds >> k & 1))
			continue;
		pk_pd_evsel *e = &pt->synth[pt->nr_synth];
		memset(e, 0, sizeof(*e));
		e->attr.size = sizeof(e->attr);
		e->attr.sample_period = 1;
		e->attr.sample_id_all = 1;
		e->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		if (k == PKI_IPT_BRANCHES || k == PKI_IPT_TRANSACTIONS) {
			/* branches: perf's BTS-like event (ip => addr) */
			e->attr.type = PERF_TYPE_HARDWARE;
			e->attr.config = k == PKI_IPT_BRANCHES ? PERF_COUNT_HW_BRANCH_INSTRUCTIONS
							       : PERF_COUNT_HW_INSTRUCTIONS;
			e->attr.sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD;
		} else {
			e->attr.type = PK_SESSION_SYNTH_TYPE;
			e->attr.config = k == PKI_IPT_CBR ? PK_SESSION_SYNTH_CBR : PK_SESSION_SYNTH_PSB;
			e->attr.sample_type |= PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
		}
		e->name = (char *)(uintptr_t)names[k];
		e->idx = (int)(n + pt->nr_synth);
		pt->synth_of[k] = (int)pt->nr_synth++;
	}
}

static void parse_info(pki_ipt *pt, pk_session *s, const pk_pd_event *ev)
{
	uint64_t w[PK_IPT_INFO_WORDS];
	size_t n = pk_ipt_info_words(ev->data, ev->size, w);
	uint64_t config = 0;
	for (size_t i = 0; i < pk_pd_nr_evsels(s->reader); i++)
		if (pk_pd_evsel_at(s->reader, i)->attr.type == w[PK_IPT_PMU_TYPE])
			config = pk_pd_evsel_at(s->reader, i)->attr.config;
	pk_ipt_params_from_info(&pt->params, w, n, config);
	pt->params.walk = walk;
	pt->params.walk_arg = pt;
	pt->read_code = !pt->report && pk_machine_arch_is_host(s->machine);
	pt->max_nonturbo = (uint32_t)w[PK_IPT_MAX_NONTURBO_RATIO];
	if (!pt->itrace_set)
		set_default(pt);
	memset(&pt->smp, 0, sizeof(pt->smp));
	pt->sev = (pk_pd_event){.type = PERF_RECORD_SAMPLE, .has_time = true};
	make_evsels(pt, s);
	pt->have_info = true;
}

int pki_ipt_event(pki_ipt *pt, pk_session *s, const pk_pd_event *ev)
{
	if (ev->type == PK_RECORD_AUXTRACE_INFO) {
		if ((uint32_t)pk_pd_rec_u64(ev, 0) == PK_IPT_AUXTRACE_TYPE && !pt->have_info &&
		    !s->spe.dump && !pt->no_decode)
			parse_info(pt, s, ev);
		return 0; /* the Arm SPE part notes the trace type too */
	}
	pk_pd_rec_auxtrace a;
	if (!pt->have_info || ev->type != PK_RECORD_AUXTRACE ||
	    pk_pd_rec_auxtrace_parse(ev, &a, NULL) < 0)
		return 0;
	pt->nr_aux++;
	pt->aux_bytes += ev->aux_size;
	if (ev->aux_size && queue_add(pt, s, ev, &a) < 0)
		return -ENOMEM;
	return 1;
}

/* The thread stack perf keeps from the branches: a call pushes its from
 * IP, an error empties it (the trace is broken there). */
static void track_stack(pki_ipt_queue *q, const pk_ipt_event *e)
{
	if (e->type == PK_IPT_EV_ERROR)
		q->depth = 0;
	else if (e->type == PK_IPT_EV_BRANCH && (e->flags & PK_IPT_BR_CALL) &&
		 q->depth < sizeof q->stack / sizeof q->stack[0])
		q->stack[q->depth++] = e->ip;
}

static uint64_t chain_context(uint64_t ip)
{
	return ip >> 63 || !ip ? (uint64_t)PERF_CONTEXT_KERNEL : (uint64_t)PERF_CONTEXT_USER;
}

/* The chain of a sample at ip: ip, then the stack from its top, each
 * address after a context marker where the context changes. */
size_t pki_ipt_chain(pki_ipt *pt, const pki_ipt_queue *q, uint64_t ip)
{
	size_t n = 0;
	uint64_t ctx = chain_context(ip);
	pt->chain[n++] = ctx;
	pt->chain[n++] = ip;
	for (unsigned i = q ? q->depth : 0; i-- > 0;) {
		if (chain_context(q->stack[i]) != ctx)
			pt->chain[n++] = ctx = chain_context(q->stack[i]);
		pt->chain[n++] = q->stack[i];
	}
	return n;
}

/* One decoder event: a sample of its kind, an error to the hook. */
static int emit(pki_ipt *pt, pk_session *s, pki_ipt_queue *q, pk_session_sample_fn fn, void *arg)
{
	const pk_ipt_event *e = &q->ev;
	int64_t pid, tid;
	cpu_task(pt, s, q->cpu, &pid, &tid);
	track_stack(q, e);
	if (e->type == PK_IPT_EV_ERROR) {
		pt->nr_errors++;
		if (!pt->errors || !pt->error_fn)
			return 0;
		pk_session_itrace_error er = {1, (uint32_t)e->code, q->cpu, (int32_t)pid,
					      (int32_t)tid, e->ip, q->time,
					      pk_ipt_err_text(e->code)};
		return pt->error_fn(pt->error_arg, s, &er);
	}
	unsigned k = e->type == PK_IPT_EV_PSB ? PKI_IPT_PSB
		     : e->type == PK_IPT_EV_CBR ? PKI_IPT_CBR
						: PKI_IPT_BRANCHES;
	/* "c": calls (async branches) and trace ends; "b": every branch */
	if (pt->synth_of[k] < 0 || !fn ||
	    (k == PKI_IPT_BRANCHES && pt->calls_only &&
	     !(e->flags & (PK_IPT_BR_CALL | PK_IPT_BR_TRACE_END))))
		return 0;
	const pk_pd_evsel *ev_sel = &pt->synth[pt->synth_of[k]];
	pk_pd_sample *smp = &pt->smp;
	pk_pd_event *ev = &pt->sev;
	smp->type = ev_sel->attr.sample_type;
	/* a psb without IP is the kernel's for perf 6.1 (report's [k]) */
	ev->misc = smp->misc = e->ip >> 63 || !e->ip ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	ev->id.time = smp->time = q->time;
	ev->id.cpu = smp->cpu = q->cpu;
	ev->offset = e->offset;
	smp->pid = (uint32_t)pid;
	smp->tid = (uint32_t)tid;
	smp->ip = e->ip;
	smp->addr = e->to;
	smp->period = 1;
	pt->payload = (pk_session_ipt_payload){e->offset, e->cbr, pt->max_nonturbo};
	smp->raw = (const uint8_t *)&pt->payload;
	smp->raw_size = sizeof(pt->payload);
	smp->callchain = pt->callchain ? pt->chain : NULL;
	smp->callchain_nr = pt->callchain ? pki_ipt_chain(pt, q, e->ip) : 0;
	ev->evsel = ev_sel;
	s->nr_samples++;
	pki_ipt_read_code(pt, s, smp->pid, smp->ip);
	return fn(arg, s, ev, smp);
}

int pki_ipt_before(pki_ipt *pt, pk_session *s, const pk_pd_event *ev, uint64_t t,
		   pk_session_sample_fn fn, void *arg)
{
	for (;;) {
		pki_ipt_queue *q = NULL;
		for (size_t i = 0; i < pt->nr_queues; i++)
			if (pt->queues[i]->has && (!q || pt->queues[i]->time < q->time))
				q = pt->queues[i];
		if (!q || q->time >= t)
			break;
		int rc = emit(pt, s, q, fn, arg);
		if (rc)
			return rc;
		queue_next(pt, s, q);
	}
	return ev ? pki_cpu_task_switch(&pt->cpu_tasks, ev) : 0;
}

void pki_ipt_finish(pki_ipt *pt, pk_session *s)
{
	if (pt->nr_errors)
		pki_session_msg(s, PK_SESSION_WARNING, "%" PRIu64 " instruction trace errors",
				pt->nr_errors);
}

void pki_ipt_release(pki_ipt *pt)
{
	for (size_t i = 0; i < pt->nr_queues; i++) {
		pki_ipt_queue *q = pt->queues[i];
		for (size_t b = 0; b < q->nr_bufs; b++)
			free(q->bufs[b].data);
		free(q->bufs);
		pk_ipt_decoder_free(q->dec);
		free(q);
	}
	free(pt->queues);
	pki_cpu_tasks_release(&pt->cpu_tasks);
	free(pt->dsos);
	pt->queues = NULL;
	pt->nr_queues = 0;
}
