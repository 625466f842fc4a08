/* Arm SPE records: packets gathered into one sampled operation, and the
 * data-source names by core.
 *
 * Invariants: a record ends with the TIMESTAMP or END that closes it (the
 * timestamp is the last packet of its record); PAD is skipped anywhere; an
 * undecodable byte is skipped and reported as a warning with its offset,
 * and the partial record before it is dropped (perf's rule: the next
 * record starts after the bad byte). Addresses are normalized as perf
 * stores them. No allocation, no I/O. */
#include <pmukit/spe.h>

#include <string.h>

#include "spe/spe_internal.h"

void pk_spe_decoder_init(pk_spe_decoder *d, const uint8_t *buf, size_t len, uint64_t base)
{
	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->len = len;
	d->base = base;
}

/* PC/TGT/PBT: bits [55:0], top byte 0xff for NS=1 at EL1 or EL2. */
static uint64_t code_addr(uint64_t v, uint8_t *el, bool *ns)
{
	uint64_t a = v & 0x00ffffffffffffffull;
	*el = (uint8_t)((v >> 61) & 3);
	*ns = v >> 63;
	if (*ns && (*el == 1 || *el == 2))
		a |= 0xff00000000000000ull;
	return a;
}

static void add_address(pk_spe_record *r, const pk_spe_packet *p)
{
	uint64_t v = p->payload;
	switch (p->index) {
	case PK_SPE_ADDR_PC: r->pc = code_addr(v, &r->pc_el, &r->pc_ns); r->present |= PK_SPE_HAS_PC; break;
	case PK_SPE_ADDR_TGT: r->tgt = code_addr(v, &r->tgt_el, &r->tgt_ns); r->present |= PK_SPE_HAS_TGT; break;
	case PK_SPE_ADDR_PBT: r->pbt = code_addr(v, &r->pbt_el, &r->pbt_ns); r->present |= PK_SPE_HAS_PBT; break;
	case PK_SPE_ADDR_VA:
		r->va_tag = (uint8_t)(v >> 56);
		r->va = v & 0x00ffffffffffffffull;
		if (((r->va >> 52) & 0xf) == 0xf)
			r->va |= 0xff00000000000000ull;
		r->present |= PK_SPE_HAS_VA;
		break;
	case PK_SPE_ADDR_PA:
		r->pa = v & 0x00ffffffffffffffull;
		r->pa_ns = v >> 63;
		r->pa_ch = (v >> 62) & 1;
		r->pa_pat = (uint8_t)((v >> 56) & 15);
		r->present |= PK_SPE_HAS_PA;
		break;
	default: break; /* unknown index: perf ignores it too */
	}
}

static void add_counter(pk_spe_record *r, const pk_spe_packet *p)
{
	uint16_t v = (uint16_t)p->payload;
	switch (p->index) {
	case PK_SPE_CNT_TOTAL: r->lat_total = v; r->present |= PK_SPE_HAS_TOT; break;
	case PK_SPE_CNT_ISSUE: r->lat_issue = v; r->present |= PK_SPE_HAS_ISSUE; break;
	case PK_SPE_CNT_XLAT: r->lat_xlat = v; r->present |= PK_SPE_HAS_XLAT; break;
	default: break;
	}
}

/* Folds one packet into r; true when it closes the record. */
static bool add_packet(pk_spe_record *r, const pk_spe_packet *p)
{
	switch (p->type) {
	case PK_SPE_END: return true;
	case PK_SPE_TIMESTAMP:
		r->timestamp = p->payload;
		r->present |= PK_SPE_HAS_TS;
		return true;
	case PK_SPE_EVENTS: r->events = p->payload; r->present |= PK_SPE_HAS_EVENTS; break;
	case PK_SPE_DATA_SOURCE: r->source = p->payload; r->present |= PK_SPE_HAS_SOURCE; break;
	case PK_SPE_CONTEXT:
		r->context = (uint32_t)p->payload;
		r->context_idx = p->index;
		r->present |= PK_SPE_HAS_CONTEXT;
		break;
	case PK_SPE_OP_TYPE:
		r->op_class = p->index;
		r->op = (uint8_t)p->payload;
		r->present |= PK_SPE_HAS_OP;
		break;
	case PK_SPE_ADDRESS: add_address(r, p); break;
	case PK_SPE_COUNTER: add_counter(r, p); break;
	default: break;
	}
	return false;
}

/* The first non-zero byte at or after pos (len if none), 8 bytes a step. */
static inline size_t skip_zeros(const uint8_t *buf, size_t len, size_t pos)
{
	while (len - pos >= 8) {
		uint64_t v;
		memcpy(&v, buf + pos, 8);
		if (v) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			return pos + (size_t)(__builtin_clzll(v) / 8);
#else
			return pos + (size_t)(__builtin_ctzll(v) / 8);
#endif
		}
		pos += 8;
	}
	while (pos < len && buf[pos] == 0)
		pos++;
	return pos;
}

int pk_spe_next(pk_spe_decoder *d, pk_spe_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	/* leading padding belongs to no record */
	d->pos = skip_zeros(d->buf, d->len, d->pos);
	if (d->pos >= d->len)
		return PK_SPE_DONE;
	rec->offset = d->base + d->pos;
	pk_spe_packet p;
	const char *why = NULL;
	int n;
	while (d->pos < d->len) {
		if (d->buf[d->pos] == 0) { /* padding, any length */
			d->pos = skip_zeros(d->buf, d->len, d->pos);
			continue;
		}
		n = pki_spe_decode_fast(d->buf, d->len, d->pos, &p, &why);
		if (p.type == PK_SPE_BAD) {
			d->warn_offset = d->base + d->pos;
			d->warn = why;
			d->nr_bad++;
			d->pos++;
			return PK_SPE_WARN;
		}
		d->pos += (size_t)n;
		if (p.type == PK_SPE_PAD)
			continue;
		rec->nr_packets++;
		if (add_packet(rec, &p)) {
			rec->closed = true;
			break;
		}
	}
	rec->end = d->base + d->pos;
	return PK_SPE_RECORD;
}

/* Data-source encodings: the common one of Arm's cores (Neoverse N1, N2,
 * V1, V2, Cortex-A720/A725/X1C/X3/X925) with spe-parser's names. */
static const uint32_t common_source_midrs[] = {
	0x410fd0c0u, /* Neoverse N1 */
	0x410fd490u, /* Neoverse N2 */
	0x410fd400u, /* Neoverse V1 */
	0x410fd4f0u, /* Neoverse V2 */
	0x410fd810u, /* Cortex-A720 */
	0x410fd870u, /* Cortex-A725 */
	0x410fd4c0u, /* Cortex-X1C */
	0x410fd4e0u, /* Cortex-X3 */
	0x410fd850u, /* Cortex-X925 */
};

static const char *const common_source_names[16] = {
	[0x0] = "L1D", [0x8] = "L2D", [0x9] = "PEER-CPU", [0xa] = "LOCAL-CLUSTER",
	[0xb] = "LL-CACHE", [0xc] = "PEER-CLUSTER", [0xd] = "REMOTE", [0xe] = "DRAM",
};

bool pki_spe_common_source(uint32_t midr)
{
	for (size_t i = 0; i < sizeof(common_source_midrs) / sizeof(common_source_midrs[0]); i++)
		if ((midr & PK_SPE_MIDR_MASK) == common_source_midrs[i])
			return true;
	return false;
}

const char *pk_spe_source_name(uint32_t midr, uint64_t source)
{
	if (!pki_spe_common_source(midr) || source >= 16)
		return NULL;
	return common_source_names[source];
}
