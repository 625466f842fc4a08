/* The PMU model's SPE unit, the pure part (docs/model.md "The SPE unit"):
 * which operation each sample is, whether the configured filters keep it,
 * and the bytes of its record, as Arm SPE hardware writes them into the AUX
 * buffer. No kernel, no time, no memory of its own.
 *
 * Invariants:
 *  - the choice of operation is deterministic: a smooth weighted
 *    round-robin over the phase's shares (loads, stores, branches, other),
 *    then over the loads' sources and the branches' mispredicts, so after
 *    N samples each kind has N x share within one sample;
 *  - a record is exactly PKI_SPE_REC_SIZE bytes: PC, CONTEXT (when the
 *    driver collects it), OPERATION TYPE, EVENTS (2 bytes, as Neoverse N1),
 *    LAT TOT (saturated at the counter width), VA / PA / DATA SOURCE for
 *    memory operations, TGT for branches, TS or END, then PAD (spe.md 1);
 *  - the filters are the driver's: type filters OR-ed (PMSFCR.FT), the
 *    event filter needs every bit (PMSEVFR), the inverse filter drops a
 *    record with any of its bits (PMSNEVFR), min_latency compares the total
 *    latency (PMSLATFR). */
#include <string.h>

#include <pmukit/spe.h>

#include "model/mspe.h"

/* EVENTS packet bits (the decoder's names, pmukit/spe.h). */
#define EV_RETIRED (1ull << PK_SPE_EV_RETIRED)
#define EV_L1D_ACCESS (1ull << PK_SPE_EV_L1D_ACCESS)
#define EV_L1D_REFILL (1ull << PK_SPE_EV_L1D_REFILL)
#define EV_TLB_ACCESS (1ull << PK_SPE_EV_TLB_ACCESS)
#define EV_MISPRED (1ull << PK_SPE_EV_MISPRED)
#define EV_LLC_ACCESS (1ull << PK_SPE_EV_LLC_ACCESS)
#define EV_LLC_REFILL (1ull << PK_SPE_EV_LLC_MISS)
#define EV_REMOTE (1ull << PK_SPE_EV_REMOTE_ACCESS)

/* One step of a smooth weighted round-robin: each weight is added to its
 * accumulator, the largest wins and pays the total. */
static int swrr(double *acc, const double *w, int n)
{
	int best = -1;
	double total = 0;
	for (int i = 0; i < n; i++) {
		if (w[i] <= 0)
			continue;
		acc[i] += w[i];
		total += w[i];
		if (best < 0 || acc[i] > acc[best])
			best = i;
	}
	if (best >= 0)
		acc[best] -= total;
	return best;
}

/* The events a load from a source sets (the model's reading of the common
 * encoding: beyond the L1D is a refill, the system cache and memory are LLC
 * accesses, memory an LLC refill, REMOTE a remote access). */
static uint64_t load_events(int src)
{
	uint64_t ev = EV_RETIRED | EV_L1D_ACCESS | EV_TLB_ACCESS;
	if (src != PKI_SPE_L1D)
		ev |= EV_L1D_REFILL;
	if (src == PKI_SPE_LL_CACHE || src == PKI_SPE_REMOTE || src == PKI_SPE_DRAM)
		ev |= EV_LLC_ACCESS;
	if (src == PKI_SPE_REMOTE || src == PKI_SPE_DRAM)
		ev |= EV_LLC_REFILL;
	if (src == PKI_SPE_REMOTE)
		ev |= EV_REMOTE;
	return ev;
}

void pki_spe_next_op(pki_spe_gen *g, const pki_spe_phase *p, pki_spe_op *out)
{
	memset(out, 0, sizeof(*out));
	out->op = swrr(g->op_acc, p->share, PKI_SPE_OP_NR);
	out->src = -1;
	switch (out->op) {
	case PKI_SPE_LOAD:
		out->src = swrr(g->src_acc, p->source, PKI_SPE_SRC_NR);
		out->events = load_events(out->src);
		out->latency = p->src_latency[out->src];
		break;
	case PKI_SPE_STORE:
		out->events = EV_RETIRED | EV_L1D_ACCESS | EV_TLB_ACCESS;
		out->latency = p->op_latency[PKI_SPE_STORE];
		break;
	case PKI_SPE_BRANCH: {
		double w[2] = {p->mispredicts, 1 - p->mispredicts};
		out->mispred = swrr(g->misp_acc, w, 2) == 0;
		out->events = EV_RETIRED | (out->mispred ? EV_MISPRED : 0);
		out->latency = p->op_latency[PKI_SPE_BRANCH];
		break;
	}
	default:
		out->op = PKI_SPE_OTHER;
		out->events = EV_RETIRED;
		out->latency = p->op_latency[PKI_SPE_OTHER];
		break;
	}
	g->n++;
}

bool pki_spe_keep(const pki_spe_cfg *c, const pki_spe_op *r)
{
	bool any_type = c->type_filter[PKI_SPE_LOAD] || c->type_filter[PKI_SPE_STORE] ||
			c->type_filter[PKI_SPE_BRANCH];
	if (any_type && (r->op == PKI_SPE_OTHER || !c->type_filter[r->op]))
		return false;
	if ((r->events & c->event_filter) != c->event_filter)
		return false;
	if (r->events & c->inv_event_filter)
		return false;
	return r->latency >= c->min_latency;
}

static uint8_t *put(uint8_t *p, uint8_t hdr, uint64_t v, int bytes)
{
	*p++ = hdr;
	for (int i = 0; i < bytes; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

#define ADDR_MASK 0x00ffffffffffffffull
#define ADDR_NS (1ull << 63)

void pki_spe_encode(const pki_spe_cfg *c, const pki_spe_phase *ph, const pki_spe_op *r,
		    const pki_spe_where *w, uint8_t out[PKI_SPE_REC_SIZE])
{
	static const uint8_t op_hdr[PKI_SPE_OP_NR] = {0x49, 0x49, 0x4a, 0x48};
	static const uint8_t op_val[PKI_SPE_OP_NR] = {0x00, 0x01, 0x01, 0x00};
	uint8_t *p = out;
	unsigned lat = r->latency > c->count_max ? c->count_max : r->latency;
	memset(out, 0, PKI_SPE_REC_SIZE); /* PAD */
	p = put(p, 0xb0, (w->pc & ADDR_MASK) | ADDR_NS, 8);           /* PC, EL0, NS */
	if (c->context)
		p = put(p, 0x64, w->tid, 4);                           /* CONTEXT el1 */
	p = put(p, op_hdr[r->op], op_val[r->op], 1);                   /* OPERATION TYPE */
	p = put(p, 0x52, r->events, 2);                                /* EVENTS */
	p = put(p, 0x98, lat, 2);                                      /* LAT TOT */
	if (r->op == PKI_SPE_LOAD || r->op == PKI_SPE_STORE) {
		p = put(p, 0xb2, ph->data_addr, 8);                    /* VA */
		if (c->pa)
			p = put(p, 0xb3, (ph->data_phys_addr & ADDR_MASK) | ADDR_NS, 8);
		if (r->op == PKI_SPE_LOAD)
			p = put(p, 0x43, pki_spe_src_codes[r->src], 1); /* DATA SOURCE */
	} else if (r->op == PKI_SPE_BRANCH) {
		p = put(p, 0xb1, (ph->branch_target & ADDR_MASK) | ADDR_NS, 8); /* TGT */
	}
	if (c->ts)
		put(p, 0x71, w->ts, 8);                                /* TS */
	else
		*p = 0x01;                                             /* END */
}
