/* Intel PT's trace decoder: the packets of one queue -> the events perf
 * 6.1's decoder gives (include/pmukit/intelpt.h, docs/intelpt.md).
 *
 * Invariants: packets are decoded by pk_ipt_decode (one source of packet
 * facts); the state is one of NO_PSB (nothing known: wait for a PSB),
 * RESYNC (after a failed walk or an error: the next packet with an IP
 * sets it, no walk), OFF (TIP.PGD: tracing stopped, TIP.PGE starts it),
 * SYNC (ip is where execution is: every packet that says where it went
 * next needs a walk from ip). A walk that fails gives an error (NOINSN)
 * or, when the walker says SKIP, nothing, and RESYNC either way. Times
 * are TSC ticks: a TSC packet sets the time; TMA ties the CTC to it and
 * each MTC moves it on by the CTC ticks passed times TSC:CTC. Events wait
 * in a small ring (a PSB gives two); no allocation after _new. */
#include <pmukit/intelpt.h>

#include <stdlib.h>
#include <string.h>

enum st { NO_PSB, IN_PSB, RESYNC, OFF, SYNC };
enum { MAX_STEPS = 100000, EVQ = 4 };

struct pk_ipt_decoder {
	pk_ipt_params p;
	const uint8_t *buf;
	size_t len, pos;
	uint64_t base;      /* the offset of buf[0] in the queue */
	pk_ipt_ctx ctx;
	enum st st, before_psb;
	uint64_t ip;        /* SYNC: where execution is */
	uint64_t last_ip;   /* the IP compression's reference */
	bool have_last_ip;  /* false after a failure: compressed IPs are no use */
	uint64_t psb_off, psb_fup;
	bool fup_pending;   /* a FUP reached: the next TIP/TIP.PGD is async */
	uint64_t fup_ip;
	uint32_t cbr;
	/* timing */
	uint64_t ts, tsc_ts, ctc_ts;
	uint64_t ctc_delta, ctc_rem;
	uint32_t last_mtc;
	bool have_tma;
	bool cbr_changed;   /* in this PSB+ */
	/* the packet being walked to (TNT, TIP, FUP, TIP.PGD), resumed by
	 * each pk_ipt_next: one walker call a step */
	bool busy, cur_has_ip;
	pk_ipt_pkt_type cur;
	uint64_t cur_ip, cur_off, tnt_bits;
	unsigned tnt_left, steps;
	pk_ipt_event q[EVQ];
	unsigned qh, qn;
};

static const char *const err_texts[] = {
	[PK_IPT_ERR_NOMEM] = "Memory allocation failed",
	[PK_IPT_ERR_INTERN] = "Internal error",
	[PK_IPT_ERR_BADPKT] = "Bad packet",
	[PK_IPT_ERR_NODATA] = "No more data",
	[PK_IPT_ERR_NOINSN] = "Failed to get instruction",
	[PK_IPT_ERR_MISMAT] = "Trace doesn't match instruction",
	[PK_IPT_ERR_OVR] = "Overflow packet",
	[PK_IPT_ERR_LOST] = "Lost trace data",
	[PK_IPT_ERR_UNK] = "Unknown error!",
	[PK_IPT_ERR_NELOOP] = "Never-ending loop",
};

const char *pk_ipt_err_text(int code)
{
	if (code <= 0 || (size_t)code >= sizeof err_texts / sizeof err_texts[0])
		return "Unknown error!";
	return err_texts[code];
}

void pk_ipt_params_from_info(pk_ipt_params *p, const uint64_t *w, size_t n, uint64_t config)
{
	memset(p, 0, sizeof *p);
	uint64_t mtc_bits = n > PK_IPT_MTC_FREQ_BITS ? w[PK_IPT_MTC_FREQ_BITS] : 0;
	if (mtc_bits) {
		unsigned shift = 0;
		while (!(mtc_bits >> shift & 1))
			shift++;
		p->mtc_period = (unsigned)((config & mtc_bits) >> shift);
	}
	p->tsc_ctc_n = n > PK_IPT_TSC_CTC_N ? (uint32_t)w[PK_IPT_TSC_CTC_N] : 0;
	p->tsc_ctc_d = n > PK_IPT_TSC_CTC_D ? (uint32_t)w[PK_IPT_TSC_CTC_D] : 0;
}

pk_ipt_decoder *pk_ipt_decoder_new(const pk_ipt_params *p)
{
	pk_ipt_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->p = *p;
	if (d->p.mtc_period > 15)
		d->p.mtc_period = 15;
	d->st = NO_PSB;
	return d;
}

void pk_ipt_decoder_free(pk_ipt_decoder *d)
{
	free(d);
}

void pk_ipt_feed(pk_ipt_decoder *d, const uint8_t *buf, size_t len)
{
	d->base += d->len;
	d->buf = buf;
	d->len = len;
	d->pos = 0;
	d->ctx = PK_IPT_NO_CTX;
}

static pk_ipt_event *push(pk_ipt_decoder *d, pk_ipt_ev_type type, uint64_t off)
{
	pk_ipt_event *e = &d->q[(d->qh + d->qn++) % EVQ];
	memset(e, 0, sizeof *e);
	e->type = type;
	e->tsc = d->ts;
	e->offset = off;
	return e;
}

/* After a failure: the IP is found again at the next packet with a full
 * IP (the compressed ones build on an IP that may be wrong). */
static void lose_sync(pk_ipt_decoder *d)
{
	d->st = RESYNC;
	d->fup_pending = false;
	d->have_last_ip = false;
}

static void error(pk_ipt_decoder *d, int code, uint64_t ip, uint64_t off)
{
	pk_ipt_event *e = push(d, PK_IPT_EV_ERROR, off);
	e->code = code;
	e->ip = ip;
	lose_sync(d);
}

/* A TIP/FUP's IP from its compressed bytes and the last IP. */
static bool packet_ip(pk_ipt_decoder *d, const pk_ipt_packet *k, uint64_t *ip)
{
	uint64_t v = k->payload, last = d->last_ip;
	if (!d->have_last_ip && (k->count == 1 || k->count == 2 || k->count == 4))
		return false;
	switch (k->count) {
	case 1: v = (last & ~0xffffull) | (v & 0xffff); break;
	case 2: v = (last & ~0xffffffffull) | (v & 0xffffffff); break;
	case 3: v = (v & 0x800000000000ull) ? v | 0xffff000000000000ull : v & 0xffffffffffffull; break;
	case 4: v = (last & ~0xffffffffffffull) | (v & 0xffffffffffffull); break;
	case 6: break;
	default: return false; /* no IP (suppressed) */
	}
	d->last_ip = v;
	d->have_last_ip = true;
	*ip = v;
	return true;
}

static void on_tsc(pk_ipt_decoder *d, uint64_t v)
{
	uint64_t t = (d->ts & ~0xffffffffffffffull) | v;
	if (d->ts && t + (1ull << 55) < d->ts)
		t += 1ull << 56; /* the 56 bits wrapped */
	d->ts = d->tsc_ts = t;
	d->have_tma = false;
}

static void on_tma(pk_ipt_decoder *d, const pk_ipt_packet *k)
{
	if (!d->tsc_ts)
		return;
	uint64_t ctc = k->payload & 0xffff;
	d->ctc_ts = d->tsc_ts - k->count;
	d->last_mtc = (uint32_t)(ctc >> d->p.mtc_period) & 0xff;
	d->ctc_rem = ctc & ((1ull << d->p.mtc_period) - 1);
	d->ctc_delta = 0;
	d->have_tma = true;
}

static void on_mtc(pk_ipt_decoder *d, uint32_t mtc)
{
	if (!d->have_tma || !d->p.tsc_ctc_d)
		return;
	d->ctc_delta += (uint64_t)((mtc - d->last_mtc) & 0xff) << d->p.mtc_period;
	d->last_mtc = mtc;
	uint64_t ticks = (d->ctc_delta - d->ctc_rem) * d->p.tsc_ctc_n / d->p.tsc_ctc_d;
	if (d->ctc_ts + ticks > d->ts)
		d->ts = d->ctc_ts + ticks;
}

/* The packets every state reads for time and frequency. */
static void on_timing(pk_ipt_decoder *d, const pk_ipt_packet *k, uint64_t off, bool in_psb)
{
	if (k->type == PK_IPT_TSC)
		on_tsc(d, k->payload);
	else if (k->type == PK_IPT_TMA)
		on_tma(d, k);
	else if (k->type == PK_IPT_MTC)
		on_mtc(d, (uint32_t)k->payload & 0xff);
	else if (k->type == PK_IPT_CBR && (uint32_t)k->payload != d->cbr) {
		d->cbr = (uint32_t)k->payload;
		if (in_psb)
			d->cbr_changed = true;
		else
			push(d, PK_IPT_EV_CBR, off)->cbr = d->cbr;
	}
}

static void branch(pk_ipt_decoder *d, uint64_t from, uint64_t to, uint32_t flags)
{
	pk_ipt_event *e = push(d, PK_IPT_EV_BRANCH, d->cur_off);
	e->ip = from;
	e->to = to;
	e->flags = flags;
}

/* The end of a walk to d->cur: where execution went. */
static void arrive(pk_ipt_decoder *d, uint64_t from, bool call)
{
	d->busy = false;
	if (d->cur == PK_IPT_TIP_PGD) {
		branch(d, from, d->cur_has_ip ? d->cur_ip : 0, PK_IPT_BR_TRACE_END);
		d->st = OFF;
		return;
	}
	if (!d->cur_has_ip) { /* an IP suppressed: not known */
		d->st = RESYNC;
		return;
	}
	branch(d, from, d->cur_ip, call ? PK_IPT_BR_CALL : 0);
	d->ip = d->cur_ip;
}

/* One walker call towards d->cur (SYNC, d->busy). */
static void step(pk_ipt_decoder *d)
{
	bool fup = d->cur == PK_IPT_FUP;
	if (fup && d->ip == d->cur_ip) {
		d->busy = false;
		d->fup_pending = true;
		d->fup_ip = d->cur_ip;
		return;
	}
	pk_ipt_insn in = {0};
	int r = d->p.walk ? d->p.walk(d->p.walk_arg, d->ip, fup ? d->cur_ip : 0, &in)
			  : PK_IPT_WALK_NOINSN;
	if (r || ++d->steps > MAX_STEPS) {
		d->busy = false;
		if (r == PK_IPT_WALK_SKIP)
			lose_sync(d);
		else
			error(d, r ? PK_IPT_ERR_NOINSN : PK_IPT_ERR_NELOOP, d->ip, d->cur_off);
		return;
	}
	switch (in.kind) {
	case PK_IPT_INSN_STOP:
		if (!fup)
			break;
		d->ip = d->cur_ip;
		return step(d);
	case PK_IPT_INSN_DIRECT:
		branch(d, in.ip, in.target, in.call ? PK_IPT_BR_CALL : 0);
		d->ip = in.target;
		return;
	case PK_IPT_INSN_COND:
		if (d->cur != PK_IPT_TNT)
			break;
		bool taken = d->tnt_bits >> 63;
		d->tnt_bits <<= 1;
		if (taken)
			branch(d, in.ip, in.target, PK_IPT_BR_COND);
		d->ip = taken ? in.target : in.next;
		if (!--d->tnt_left)
			d->busy = false;
		return;
	case PK_IPT_INSN_INDIRECT:
		if (d->cur == PK_IPT_TNT || fup)
			break;
		return arrive(d, in.ip, in.call);
	}
	d->busy = false;
	error(d, PK_IPT_ERR_MISMAT, in.ip, d->cur_off);
}

static void psb_end(pk_ipt_decoder *d)
{
	/* perf 6.1: the PSB+'s FUP is the event's from-IP when tracing was
	 * off, its to-IP (the sample's addr) when it ran through */
	bool was_off = d->before_psb == NO_PSB;
	uint64_t ip = was_off ? d->psb_fup : 0, to = was_off ? 0 : d->psb_fup;
	pk_ipt_event *e = push(d, PK_IPT_EV_PSB, d->psb_off);
	e->ip = ip, e->to = to;
	if (d->cbr_changed) {
		e = push(d, PK_IPT_EV_CBR, d->psb_off);
		e->ip = ip, e->to = to;
		e->cbr = d->cbr;
	}
	d->st = d->psb_fup ? SYNC : d->before_psb == NO_PSB ? OFF : d->before_psb;
	if (d->psb_fup)
		d->ip = d->psb_fup;
}

/* A packet inside PSB+. */
static void in_psb(pk_ipt_decoder *d, const pk_ipt_packet *k, uint64_t off)
{
	uint64_t ip;
	switch (k->type) {
	case PK_IPT_FUP:
		if (packet_ip(d, k, &ip))
			d->psb_fup = ip;
		break;
	case PK_IPT_PSBEND:
		psb_end(d);
		break;
	case PK_IPT_OVF:
		error(d, PK_IPT_ERR_OVR, 0, off);
		break;
	default:
		on_timing(d, k, off, true);
	}
}

/* A packet with an IP where the IP is not known (RESYNC) or tracing is off. */
static void find_ip(pk_ipt_decoder *d, const pk_ipt_packet *k, bool has, uint64_t ip)
{
	if (k->type == PK_IPT_TIP_PGD) {
		d->st = OFF;
	} else if (d->st == RESYNC && has && (k->type == PK_IPT_TIP || k->type == PK_IPT_FUP)) {
		d->st = SYNC;
		d->ip = ip;
		branch(d, 0, ip, PK_IPT_BR_TRACE_BEGIN); /* perf's "0 => ip" (b) */
	}
}

/* A packet in the states after a PSB. */
static void packet(pk_ipt_decoder *d, const pk_ipt_packet *k, uint64_t off)
{
	uint64_t ip = 0;
	bool has = false;
	switch (k->type) {
	case PK_IPT_TIP: case PK_IPT_FUP: case PK_IPT_TIP_PGE: case PK_IPT_TIP_PGD:
		has = packet_ip(d, k, &ip);
		break;
	case PK_IPT_OVF:
		error(d, PK_IPT_ERR_OVR, d->st == SYNC ? d->ip : 0, off);
		return;
	case PK_IPT_TRACESTOP:
		d->st = OFF;
		return;
	default:
		on_timing(d, k, off, false);
		if (k->type != PK_IPT_TNT || d->st != SYNC)
			return;
	}
	d->cur_off = off;
	if (k->type == PK_IPT_TIP_PGE) {
		if (has) {
			d->st = SYNC;
			d->ip = ip;
			d->fup_pending = false;
			branch(d, 0, ip, PK_IPT_BR_TRACE_BEGIN);
		}
		return;
	}
	if (d->st != SYNC)
		return find_ip(d, k, has, ip);
	if (d->fup_pending && (k->type == PK_IPT_TIP || k->type == PK_IPT_TIP_PGD)) {
		d->fup_pending = false;
		bool end = k->type == PK_IPT_TIP_PGD;
		branch(d, d->fup_ip, has ? ip : 0,
		       end ? PK_IPT_BR_TRACE_END : PK_IPT_BR_CALL | PK_IPT_BR_ASYNC);
		d->st = end ? OFF : has ? SYNC : RESYNC;
		d->ip = ip;
		return;
	}
	d->busy = true;
	d->steps = 0;
	d->cur = k->type;
	d->cur_ip = ip;
	d->cur_has_ip = has;
	d->tnt_bits = k->payload;
	d->tnt_left = k->type == PK_IPT_TNT ? k->count : 0;
	if (k->type == PK_IPT_TNT && !k->count)
		d->busy = false;
}

int pk_ipt_next(pk_ipt_decoder *d, pk_ipt_event *ev)
{
	for (;;) {
		if (d->qn) {
			*ev = d->q[d->qh];
			d->qh = (d->qh + 1) % EVQ;
			d->qn--;
			return 1;
		}
		if (d->busy) {
			step(d);
			continue;
		}
		if (d->pos >= d->len)
			return 0;
		pk_ipt_packet k;
		uint64_t off = d->base + d->pos;
		d->pos += pk_ipt_decode(d->buf + d->pos, d->len - d->pos, &d->ctx, &k);
		if (k.type == PK_IPT_PSB) {
			d->before_psb = d->st == IN_PSB ? RESYNC : d->st;
			d->st = IN_PSB;
			d->psb_off = off;
			d->psb_fup = 0;
			d->last_ip = 0;
			d->have_last_ip = true;
			d->cbr_changed = false;
			d->fup_pending = false;
		} else if (k.type == PK_IPT_BAD) {
			if (d->st != NO_PSB)
				error(d, PK_IPT_ERR_BADPKT, d->st == SYNC ? d->ip : 0, off);
			d->st = NO_PSB;
		} else if (d->st == IN_PSB) {
			in_psb(d, &k, off);
		} else if (d->st != NO_PSB) {
			packet(d, &k, off);
		}
	}
}
