/* libpmukit: Arm SPE data in perf.data (see pd_spe.h). The metadata gives
 * the CPUs' MIDRs (v2 per CPU; v1 files fall back to the CPUID header
 * feature, as perf does); every AUXTRACE buffer is queued (in place when
 * the reader keeps it, a mapped file: its pages given back as the decoder
 * passes them; else a copy), handed to the caller's dump hook with -D, and decoded
 * lazily: records come out as perf 6.1's synthetic samples, in time order
 * with the file's records, on synthetic evsels the commands' field logic
 * treats as the file's own. Per record, what its samples share (time,
 * task, the fields of sample_fill, the sample) is made once; per sample
 * only what its kind changes. The end of the run says how much SPE data
 * there was and what became of it. */
#include "pd_spe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/intelpt.h>
#include <pmukit/spe.h>

#include "pd_session.h"

struct pki_spe_queue {
	uint32_t idx, cpu;
	int64_t aux_tid;             /* the AUXTRACE record's tid (-1: per CPU) */
	struct qbuf {
		const uint8_t *data;
		size_t len;
		uint64_t base;       /* file offset of the data */
		bool owned;          /* a copy (else the reader's mapped file) */
	} *bufs;
	size_t nr_bufs, cur;         /* cur: the buffer being decoded */
	size_t given;                /* of the current buffer: bytes given back */
	uint32_t midr;               /* the CPU's MIDR */
	pk_spe_decoder dec;
	pk_spe_record rec;           /* the pending record (has_rec) */
	bool has_rec;
	uint64_t ts;                 /* the latest timestamp so far: its place in time */
	int64_t pid, tid;
	bool task_due;               /* pid, tid to be set before the next use (queue_task) */
	uint64_t nr_instr;           /* records since the last instructions sample */
};

static int parse_info(pki_spe *sp, pk_session *s, const pk_pd_event *ev)
{
	sp->info_type = (uint32_t)pk_pd_rec_u64(ev, 0);
	pk_spe_info_release(&sp->info);
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_spe_info_parse(ev, &sp->info, &err);
	if (rc == -ENOMEM)
		return rc;
	sp->have_info = rc == 0;
	if (rc == -EINVAL)
		snprintf(sp->info_error, sizeof sp->info_error, "%s", err.msg);
	if (!sp->have_info || sp->nr_synth)
		return 0;
	memset(&sp->smp, 0, sizeof(sp->smp));
	sp->smp.size = sizeof(sp->smp);
	sp->sev = (pk_pd_event){.type = PERF_RECORD_SAMPLE, .has_time = true};
	/* perf's synthetic events: one per kind asked for, after the file's,
	 * sampling what the SPE event samples (its ids + 1000000000) */
	const pk_pd_evsel *spe = NULL;
	size_t n = pk_pd_nr_evsels(s->reader);
	for (size_t i = 0; i < n && !spe; i++)
		if (pk_pd_evsel_at(s->reader, i)->attr.type == sp->info.pmu_type)
			spe = pk_pd_evsel_at(s->reader, i);
	sp->no_spe_evsel = !spe;
	for (unsigned k = 0; k < PK_SPE_NR_KINDS; k++) {
		sp->synth_of[k] = -1;
		if (!spe || !(sp->itrace.kinds >> k & 1))
			continue;
		pk_pd_evsel *e = &sp->synth[sp->nr_synth];
		memset(e, 0, sizeof(*e));
		e->attr.size = sizeof(e->attr);
		e->attr.type = PERF_TYPE_HARDWARE;
		e->attr.config = k == PK_SPE_K_INSTRUCTIONS ? PERF_COUNT_HW_INSTRUCTIONS : 0;
		e->attr.sample_type =
			(spe->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
						  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
						  PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_PHYS_ADDR)) |
			PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_WEIGHT | PERF_SAMPLE_ADDR | PERF_SAMPLE_TIME;
		e->attr.sample_period = 1;
		e->attr.sample_id_all = spe->attr.sample_id_all;
		e->attr.exclude_user = spe->attr.exclude_user;
		e->attr.exclude_kernel = spe->attr.exclude_kernel;
		e->attr.exclude_hv = spe->attr.exclude_hv;
		e->name = (char *)(uintptr_t)pk_spe_kind_name(k);
		e->idx = (int)(n + sp->nr_synth);
		sp->synth_of[k] = (int)sp->nr_synth++;
	}
	return 0;
}

/* v1 files: the MIDR of the CPUID header feature (hex), perf's fallback. */
static void read_header_midr(pki_spe *sp, pk_session *s)
{
	sp->header_read = true;
	pk_pd_header h;
	if (pk_pd_header_read(s->reader, &h, NULL) < 0)
		return;
	if (h.cpuid)
		sp->midr_all = (uint32_t)strtoull(h.cpuid, NULL, 16);
	pk_pd_header_release(&h);
}

static uint32_t midr_of(pki_spe *sp, pk_session *s, uint32_t cpu)
{
	if (sp->info.nr_cpus)
		return pk_spe_info_midr(&sp->info, cpu, 0);
	if (!sp->header_read)
		read_header_midr(sp, s);
	return sp->midr_all;
}

/* In-place data the decoder has passed goes back to the reader every
 * GIVE_BACK bytes (memory bounded by the queues, not the file); a buffer
 * done is freed or given back whole. */
enum { GIVE_BACK = 4 << 20 };
static void give_back(pki_spe *sp, pki_spe_queue *q, bool done)
{
	struct qbuf *b = &q->bufs[q->cur];
	size_t to = done ? b->len : q->dec.pos;
	if (b->owned && done)
		free((void *)(uintptr_t)b->data);
	else if (!b->owned)
		pk_pd_reader_unneeded(sp->reader, b->data + q->given, to - q->given);
	if (done)
		b->data = NULL;
	q->given = done ? 0 : to;
}

/* The queue's next closed record into q->rec (has_rec false at the end),
 * counting what is skipped: undecodable bytes, records cut by the end of
 * their buffer (perf drops them). A buffer done is freed. */
static void queue_next(pki_spe *sp, pki_spe_queue *q)
{
	q->has_rec = false;
	if (q->dec.pos - q->given >= GIVE_BACK)
		give_back(sp, q, false);
	while (q->cur < q->nr_bufs) {
		int rc = pk_spe_next(&q->dec, &q->rec);
		if (rc == PK_SPE_DONE) {
			give_back(sp, q, true);
			if (++q->cur < q->nr_bufs)
				pk_spe_decoder_init(&q->dec, q->bufs[q->cur].data, q->bufs[q->cur].len,
						    q->bufs[q->cur].base);
			continue;
		}
		if (rc == PK_SPE_WARN) {
			if (!sp->nr_bad++)
				sp->first_bad = q->dec.warn_offset;
			/* perf 6.1 samples what the bad byte cut (nothing, between
			 * records: an instructions sample at ip 0, time 0) */
			sp->nr_cut++;
			q->has_rec = true;
			return;
		}
		sp->nr_records++;
		if (!q->rec.closed) {
			sp->nr_unclosed++;
			continue;
		}
		if (q->rec.timestamp > q->ts)
			q->ts = q->rec.timestamp;
		q->has_rec = true;
		return;
	}
}

static pki_spe_queue *queue_of(pki_spe *sp, pk_session *s, const pk_pd_rec_auxtrace *a)
{
	for (size_t i = 0; i < sp->nr_queues; i++)
		if (sp->queues[i]->idx == a->idx)
			return sp->queues[i];
	pki_spe_queue **nq = realloc(sp->queues, (sp->nr_queues + 1) * sizeof(*nq));
	if (!nq)
		return NULL;
	sp->queues = nq;
	pki_spe_queue *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->idx = a->idx;
	q->cpu = a->cpu;
	q->aux_tid = (int32_t)a->tid;
	q->pid = q->tid = -1;
	q->midr = midr_of(sp, s, a->cpu);
	sp->queues[sp->nr_queues++] = q;
	return q;
}

/* Queues an AUXTRACE buffer, in place when the reader keeps it (else a
 * copy); its queue's first record is decoded now when it had none. */
static int queue_add(pki_spe *sp, pk_session *s, const pk_pd_event *ev,
		     const pk_pd_rec_auxtrace *a)
{
	pki_spe_queue *q = queue_of(sp, s, a);
	struct qbuf *nb = q ? realloc(q->bufs, (q->nr_bufs + 1) * sizeof(*nb)) : NULL;
	if (!nb)
		return -ENOMEM;
	q->bufs = nb;
	bool in_place = pk_pd_event_stable(s->reader, ev);
	const uint8_t *data = ev->aux;
	if (!in_place) {
		uint8_t *copy = malloc(ev->aux_size ? ev->aux_size : 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, ev->aux, ev->aux_size);
		data = copy;
	}
	q->bufs[q->nr_bufs++] = (struct qbuf){data, ev->aux_size, ev->offset + ev->size, !in_place};
	if (q->has_rec)
		return 0;
	if (q->cur == q->nr_bufs - 1)
		pk_spe_decoder_init(&q->dec, data, ev->aux_size, ev->offset + ev->size);
	queue_next(sp, q);
	return 0;
}

int pki_spe_event(pki_spe *sp, pk_session *s, const pk_pd_event *ev)
{
	if (!sp->itrace_set) {
		pk_spe_itrace_default(&sp->itrace);
		sp->itrace_set = true;
	}
	sp->reader = s->reader;
	if (ev->type == PK_RECORD_AUXTRACE_INFO)
		return parse_info(sp, s, ev);
	pk_pd_rec_auxtrace a;
	if (ev->type != PK_RECORD_AUXTRACE || pk_pd_rec_auxtrace_parse(ev, &a, NULL) < 0)
		return 0;
	sp->nr_aux++;
	sp->aux_bytes += ev->aux_size;
	if (!sp->have_info) {
		if (!sp->nr_foreign++)
			sp->foreign_offset = ev->offset;
		sp->foreign_bytes += ev->aux_size;
		return 0;
	}
	if (sp->dump && sp->dump_fn)
		sp->dump_fn(sp->dump_arg, ev, &a, midr_of(sp, s, a.cpu));
	if (!ev->aux_size) { /* no data: nothing to queue (ev->aux may be NULL) */
		if (!sp->nr_empty++)
			sp->empty_offset = ev->offset;
		return 0;
	}
	return queue_add(sp, s, ev, &a);
}

static int64_t cpu_task(const pki_spe *sp, uint32_t cpu)
{
	return pki_cpu_task(&sp->cpu_tasks, cpu);
}

/* The queue's task when it is picked (perf's arm_spe_set_pid_tid_cpu):
 * the task its CPU runs (a CONTEXT packet's, else the last switch's),
 * else the AUXTRACE record's; the pid from the thread table. */
static void queue_task(pki_spe *sp, pk_session *s, pki_spe_queue *q)
{
	if (q->aux_tid == -1)
		q->tid = cpu_task(sp, q->cpu);
	if (q->tid == -1)
		q->tid = q->aux_tid;
	if (q->tid == -1)
		return;
	/* a thread's pid changes only with a COMM or a new thread, which
	 * change the comm version: looked up again only then (a CPU's tasks
	 * alternate: a small table of the tids seen, by tid) */
	uint64_t v = pk_machine_comm_version(s->machine) + 1; /* 0: a free slot */
	struct pki_spe_pid *c = &sp->pids[(uint64_t)q->tid % PKI_SPE_PIDS];
	if (c->tid != q->tid || c->version != v)
		*c = (struct pki_spe_pid){q->tid, pk_machine_pid_of(s->machine, (uint32_t)q->tid), v};
	q->pid = c->pid;
}

static inline int set_cpu_task(pki_spe *sp, uint32_t cpu, int64_t tid)
{
	return pki_cpu_task_set(&sp->cpu_tasks, cpu, -1, tid);
}

/* Whether the file has a TIME_CONV (kept once read: a file has one);
 * without it, timestamps are used as perf times (said at the end). */
static bool have_time_conv(pki_spe *sp, pk_session *s)
{
	if (!sp->have_tc)
		sp->have_tc = pk_pd_time_conv(s->reader, &sp->tc) && sp->tc.time_mult;
	if (!sp->have_tc)
		sp->no_time_conv = true;
	return sp->have_tc;
}

static uint64_t perf_time(pki_spe *sp, pk_session *s, uint64_t ts)
{
	return have_time_conv(sp, s) ? pk_pd_tsc_to_time(&sp->tc, ts) : ts;
}

/* The kinds of the queue's pending record --itrace asks for, counting
 * the instructions period (perf's i<N>i: every period-th record of the
 * queue). */
static uint32_t record_kinds(pki_spe *sp, pki_spe_queue *q)
{
	uint32_t k = pk_spe_record_kinds(&q->rec) & sp->itrace.kinds;
	if (k >> PK_SPE_K_INSTRUCTIONS & 1) {
		if (++q->nr_instr < sp->itrace.period)
			k &= ~(1u << PK_SPE_K_INSTRUCTIONS);
		else
			q->nr_instr = 0;
	}
	return k;
}

/* The samples of kinds k of the queue's record at time `time`, in perf's
 * order of kinds. What they share is set once: the sample (only addr,
 * phys_addr, data_src and period depend on the kind) and sample_fill's
 * fields, made at most twice: sample_fill's fields differ by kind only
 * between branch-miss and the others. */
static int emit_samples(pki_spe *sp, pk_session *s, pki_spe_queue *q, uint32_t k, uint64_t time,
			pk_session_sample_fn fn, void *arg)
{
	const pk_spe_record *r = &q->rec;
	pk_spe_sample ss[2];
	bool filled[2] = {false, false};
	/* the sample and its event are kept between records: every field a
	 * synthetic sample has is set below, the others stay zero */
	pk_pd_sample *smp = &sp->smp;
	pk_pd_event *ev = &sp->sev;
	ev->offset = r->offset;
	ev->id.time = smp->time = time;
	ev->id.cpu = smp->cpu = q->cpu;
	smp->pid = (uint32_t)q->pid;
	smp->tid = (uint32_t)q->tid;
	int rc = 0;
	if (sp->sample_fn && fn)
		fn = sp->sample_fn;
	for (; k; k &= k - 1) {
		unsigned kind = (unsigned)__builtin_ctz(k);
		sp->kinds[kind]++;
		if (sp->synth_of[kind] < 0 || sp->dump || !fn)
			continue;
		unsigned br = kind == PK_SPE_K_BRANCH_MISS;
		if (!filled[br]) {
			pk_spe_sample_fill(r, kind, q->midr, &ss[br]);
			filled[br] = true;
		}
		const pk_spe_sample *f = &ss[br];
		const pk_pd_evsel *e = &sp->synth[sp->synth_of[kind]];
		smp->type = e->attr.sample_type;
		ev->misc = smp->misc = f->ip >= 1ull << 63 ? PERF_RECORD_MISC_KERNEL
							    : PERF_RECORD_MISC_USER;
		smp->ip = f->ip;
		smp->addr = f->addr;
		smp->period = kind == PK_SPE_K_INSTRUCTIONS ? sp->itrace.period : 1;
		smp->weight = f->weight;
		smp->data_src = f->data_src;
		smp->phys_addr = f->phys_addr;
		ev->evsel = e;
		s->nr_samples++;
		sp->same_after = (k & (k - 1)) != 0;
		rc = fn(arg, s, ev, smp);
		sp->same_before = true;
		if (rc)
			break;
	}
	sp->same_before = sp->same_after = false;
	return rc;
}

/* The queue's pending record: its task, then its samples (or its export
 * line, or report's record hook). A record that gives nothing (most, with
 * perf's default kinds) needs neither its task nor its time: the task is
 * set when first needed after the queue was picked or a CONTEXT packet
 * changed it (nothing else changes it in between). */
static int emit_record(pki_spe *sp, pk_session *s, pki_spe_queue *q, pk_session_sample_fn fn,
		       void *arg)
{
	const pk_spe_record *r = &q->rec;
	if (r->present & PK_SPE_HAS_CONTEXT) {
		sp->ctx_seen = true;
		if (cpu_task(sp, q->cpu) != (int64_t)r->context &&
		    set_cpu_task(sp, q->cpu, r->context) < 0)
			return -ENOMEM;
		q->task_due = true;
	}
	uint32_t k = sp->export_fmt ? 0 : record_kinds(sp, q);
	if (!k && !sp->record_fn && !sp->export_fmt) {
		if (!sp->have_tc)
			have_time_conv(sp, s);
		return 0;
	}
	if (q->task_due) {
		queue_task(sp, s, q);
		q->task_due = false;
	}
	uint64_t time = perf_time(sp, s, r->timestamp);
	if (sp->record_fn && r->nr_packets) {
		int rc = sp->record_fn(sp->record_arg, s, r, q->pid, q->midr);
		if (rc)
			return rc;
	}
	if (sp->export_fmt) {
		if (r->nr_packets && sp->export_fn) /* not the nothing a bad byte cut
							 between records */
			return sp->export_fn(sp->export_arg, q->cpu, time, q->pid, q->tid, r, q->midr);
		return 0;
	}
	return emit_samples(sp, s, q, k, time, fn, arg);
}

/* ---- the queues' heap: perf's order, ties included (a binary heap keyed
 * on each queue's time; adding stops below a parent of equal time; taking
 * the top moves the hole down to the smaller child, the right one on ties,
 * the last entry among them, then fills it with the last entry) ---- */

static int heap_add(pki_spe *sp, pki_spe_queue *q)
{
	if (sp->nr_heap == sp->cap_heap) {
		size_t cap = sp->cap_heap ? 2 * sp->cap_heap : 8;
		struct pki_spe_heap *n = realloc(sp->heap, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		sp->heap = n;
		sp->cap_heap = cap;
	}
	size_t pos = sp->nr_heap++;
	while (pos && sp->heap[(pos - 1) / 2].ts > q->ts) {
		sp->heap[pos] = sp->heap[(pos - 1) / 2];
		pos = (pos - 1) / 2;
	}
	sp->heap[pos] = (struct pki_spe_heap){q->ts, q};
	return 0;
}

static void heap_pop(pki_spe *sp)
{
	size_t n = sp->nr_heap--, pos = 0;
	for (;;) {
		size_t l = 2 * pos + 1, r = l + 1;
		if (l >= n)
			break;
		size_t c = r >= n || sp->heap[l].ts < sp->heap[r].ts ? l : r;
		sp->heap[pos] = sp->heap[c];
		pos = c;
		if (r >= n)
			break;
	}
	sp->heap[pos] = sp->heap[n - 1];
}

/* One queue's records from the top of the heap until its time reaches
 * limit (the next queue's time + 1, or the file record's): back on the
 * heap then, dropped when it has no more. */
static int run_queue(pki_spe *sp, pk_session *s, uint64_t limit, pk_session_sample_fn fn, void *arg)
{
	pki_spe_queue *q = sp->heap[0].q;
	heap_pop(sp);
	if (sp->nr_heap && sp->heap[0].ts + 1 < limit)
		limit = sp->heap[0].ts + 1;
	q->task_due = true; /* perf sets the task when it picks the queue */
	for (;;) {
		int rc = emit_record(sp, s, q, fn, arg);
		if (rc)
			return rc;
		queue_next(sp, q);
		if (!q->has_rec)
			return 0;
		if (q->ts >= limit)
			return heap_add(sp, q);
	}
}

int pki_spe_before(pki_spe *sp, pk_session *s, const pk_pd_event *ev, uint64_t t,
		  pk_session_sample_fn fn, void *arg)
{
	uint64_t limit = t;
	pk_pd_rec_time_conv tc;
	if (t != UINT64_MAX && pk_pd_time_conv(s->reader, &tc))
		limit = pk_pd_time_to_tsc(&tc, t);
	for (size_t i = sp->nr_set_up; i < sp->nr_queues; i++, sp->nr_set_up++)
		if (sp->queues[i]->has_rec && heap_add(sp, sp->queues[i]) < 0)
			return -ENOMEM;
	while (sp->nr_heap && sp->heap[0].ts < limit) {
		int rc = run_queue(sp, s, limit, fn, arg);
		if (rc)
			return rc;
	}
	/* a switch out names the task coming in: the CPU's task until the
	 * next, while no CONTEXT packet gave one (perf's rule) */
	if (ev && !sp->ctx_seen && pki_cpu_task_switch(&sp->cpu_tasks, ev) < 0)
		return -ENOMEM;
	return 0;
}

/* The closing words on what was decoded (pki_spe_finish). */
static void finish_decoded(pki_spe *sp, pk_session *s)
{
	if (sp->nr_records && !sp->ctx_seen && !sp->export_fmt)
		pki_session_msg(s, PK_SESSION_WARNING,
				"Arm SPE CONTEXT packets not found in the traces.\n"
				"Matching of TIDs to SPE events could be inaccurate.");
	if (sp->no_time_conv && sp->nr_records)
		pki_session_msg(s, PK_SESSION_WARNING,
				"no TIME_CONV record: Arm SPE timestamps shown as perf times");
	if (sp->no_spe_evsel)
		pki_session_msg(s, PK_SESSION_WARNING,
				"%" PRIu64 " Arm SPE records (%" PRIu64 " bytes in %" PRIu64
				" AUXTRACE buffers) decoded but not shown: no event of the file has "
				"the SPE PMU's type %" PRIu64, sp->nr_records, sp->aux_bytes, sp->nr_aux,
				sp->info.pmu_type);
	else if (!sp->export_fmt && !s->nr_samples && sp->nr_records)
		pki_session_msg(s, PK_SESSION_WARNING,
				"%" PRIu64 " Arm SPE records gave no sample of the kinds --itrace "
				"asks for", sp->nr_records);
}

int pki_spe_finish(pki_spe *sp, pk_session *s, bool failed, pk_error *err)
{
	if (sp->info_error[0])
		pki_session_msg(s, PK_SESSION_WARNING, "%s", sp->info_error);
	if (sp->nr_foreign)
		pki_session_msg(s, PK_SESSION_WARNING,
				"%" PRIu64 " AUXTRACE buffers (%" PRIu64 " bytes, first at file "
				"offset %#" PRIx64 ") not decoded: %s", sp->nr_foreign,
				sp->foreign_bytes, sp->foreign_offset,
				sp->info_type == PK_IPT_AUXTRACE_TYPE
					? "they hold Intel PT, whose samples are made by script "
					  "and report, not with -D (it prints the packets), "
					  "--stats or --tasks (as perf 6.1)"
				: sp->info_type ? "their trace type is not Arm SPE (the only one "
						  "pmukit decodes)"
						: "no AUXTRACE_INFO says what trace they hold");
	if (sp->nr_bad)
		pki_session_msg(s, PK_SESSION_WARNING,
				"%" PRIu64 " undecodable bytes skipped in the Arm SPE data, first at "
				"file offset %#" PRIx64 "; the %" PRIu64 " records they cut were "
				"sampled as they stood (as perf 6.1 does)", sp->nr_bad, sp->first_bad,
				sp->nr_cut);
	if (sp->nr_empty)
		pki_session_msg(s, PK_SESSION_WARNING,
				"%" PRIu64 " AUXTRACE records of size 0 (no Arm SPE data) skipped, "
				"first at file offset %#" PRIx64, sp->nr_empty, sp->empty_offset);
	if (sp->nr_unclosed)
		pki_session_msg(s, PK_SESSION_WARNING,
				"%" PRIu64 " Arm SPE records cut by the end of their buffer (no TS or "
				"END) skipped", sp->nr_unclosed);
	if (!sp->have_info || !sp->nr_aux || sp->dump)
		return 0;
	finish_decoded(sp, s);
	/* no sample from SPE records is an error; no SPE data at all is not (perf) */
	if (!failed && !s->nr_samples && sp->nr_records && !sp->export_fmt)
		return pk_err(err, -ENOMSG, "%" PRIu64 " Arm SPE records gave no sample",
			      sp->nr_records);
	return 0;
}

int pki_spe_set_itrace(pki_spe *sp, const char *arg, pk_error *err)
{
	int rc = pk_spe_itrace_parse(arg, &sp->itrace, err);
	if (rc < 0)
		return rc;
	sp->itrace_set = true;
	return 0;
}

void pki_spe_release(pki_spe *sp)
{
	pk_spe_info_release(&sp->info);
	for (size_t i = 0; i < sp->nr_queues; i++) {
		for (size_t b = 0; b < sp->queues[i]->nr_bufs; b++)
			if (sp->queues[i]->bufs[b].owned)
				free((void *)(uintptr_t)sp->queues[i]->bufs[b].data);
		free(sp->queues[i]->bufs);
		free(sp->queues[i]);
	}
	free(sp->queues);
	free(sp->heap);
	pki_cpu_tasks_release(&sp->cpu_tasks);
	sp->queues = NULL;
	sp->nr_queues = 0;
}
