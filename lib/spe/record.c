/* Arm SPE records: packets gathered into one sampled operation, and the
 * data-source names by core.
 *
 * Invariants: a record ends with the TIMESTAMP or END that closes it (the
 * timestamp is the last packet of its record); PAD is skipped anywhere; an
 * undecodable byte is skipped and reported as a warning with its offset,
 * and the partial record before it is dropped (perf's rule: the next
 * record starts after the bad byte). Addresses are normalized as perf
 * stores them. The loop keeps each packet's raw payload in the slot of
 * its field (one table lookup, no branch on the packet kind) and turns the
 * slots into fields once, when the record ends; packets without 8 bytes
 * after their header, PAD, extended headers and bad bytes take the slow
 * path through pk_spe_packet_decode. No allocation, no I/O. */
#include <pmukit/spe.h>

#include <string.h>

#include "spe/spe_internal.h"

#define hdr_table pki_spe_hdr_table

void pk_spe_decoder_init(pk_spe_decoder *d, const uint8_t *buf, size_t len, uint64_t base)
{
	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->len = len;
	d->base = base;
}

/* PC/TGT/PBT: bits [55:0], top byte 0xff for NS=1 at EL1 or EL2; without
 * branches (the bits are data: a branch on them mispredicts). */
static inline uint64_t code_addr(uint64_t v, uint8_t *el, bool *ns)
{
	unsigned e = (unsigned)(v >> 61) & 3, n = (unsigned)(v >> 63);
	*el = (uint8_t)e;
	*ns = n;
	uint64_t top = (uint64_t)0 - (n & (e - 1u <= 1u)); /* all ones when kernel-half */
	return (v & 0x00ffffffffffffffull) | (top & 0xff00000000000000ull);
}

/* The slots are the PK_SPE_HAS_* bits: a packet sets bit `slot` of present. */
_Static_assert(PK_SPE_HAS_PBT == 1u << PK_SPE_ADDR_PBT && PK_SPE_HAS_PA == 1u << PK_SPE_ADDR_PA &&
		       PK_SPE_HAS_TS == 1u << S_TS && PK_SPE_HAS_CONTEXT == 1u << S_CONTEXT &&
		       PK_SPE_HAS_OP == 1u << S_OP && PK_SPE_HAS_EVENTS == 1u << S_EVENTS &&
		       PK_SPE_HAS_SOURCE == 1u << S_SOURCE && PK_SPE_HAS_TOT == 1u << S_TOT &&
		       PK_SPE_HAS_XLAT == 1u << (S_TOT + PK_SPE_CNT_XLAT),
	       "record slots follow the PK_SPE_HAS_* bits");

/* The record's fields from the raw payloads by slot (zero when absent:
 * only the slots present were written; no zeroing per record), addresses
 * normalized as perf stores them. */
static void finish(pk_spe_record *r, const uint64_t *v, uint32_t present)
{
#define S(k) (present >> (k) & 1 ? v[k] : 0) /* slots not seen are never written */
	r->present = present;
	r->pc = code_addr(S(PK_SPE_ADDR_PC), &r->pc_el, &r->pc_ns);
	r->tgt = code_addr(S(PK_SPE_ADDR_TGT), &r->tgt_el, &r->tgt_ns);
	r->pbt = code_addr(S(PK_SPE_ADDR_PBT), &r->pbt_el, &r->pbt_ns);
	uint64_t va = S(PK_SPE_ADDR_VA), pa = S(PK_SPE_ADDR_PA);
	r->va_tag = (uint8_t)(va >> 56);
	uint64_t va_top = (uint64_t)0 - (((va >> 52) & 0xf) == 0xf);
	r->va = (va & 0x00ffffffffffffffull) | (va_top & 0xff00000000000000ull);
	r->pa = pa & 0x00ffffffffffffffull;
	r->pa_ns = pa >> 63;
	r->pa_ch = (pa >> 62) & 1;
	r->pa_pat = (uint8_t)((pa >> 56) & 15);
	r->timestamp = S(S_TS);
	r->context = (uint32_t)S(S_CONTEXT);
	r->context_idx = (uint8_t)(S(S_CONTEXT) >> 32);
	r->op = (uint8_t)S(S_OP);
	r->op_class = (uint8_t)(S(S_OP) >> 32);
	r->events = S(S_EVENTS);
	r->source = S(S_SOURCE);
	r->lat_total = (uint16_t)S(S_TOT + PK_SPE_CNT_TOTAL);
	r->lat_issue = (uint16_t)S(S_TOT + PK_SPE_CNT_ISSUE);
	r->lat_xlat = (uint16_t)S(S_TOT + PK_SPE_CNT_XLAT);
	r->nr_bad = 0;
#undef S
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

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* The record being gathered: raw payloads by slot (v[S_NONE] takes what
 * no field keeps; a slot is valid only when its bit is in present), the
 * slots seen, packets, position. */
typedef struct gather {
	uint64_t v[S_COUNT];
	uint32_t present, nr_packets;
	size_t pos;
} gather;

/* The fast loop: packets with 8 bytes after their header byte, until one
 * that closes the record or needs the slow path (its entry returned; the
 * slow one not consumed), or the end of the fast zone; returns the flow. Per
 * packet: one lookup, one load, one store; no branch on the packet kind. */
static inline unsigned gather_fast(gather *g, const uint8_t *buf, size_t lim)
{
	size_t pos = g->pos;
	uint32_t present = g->present, npk = g->nr_packets;
	unsigned flow = F_DATA;
	while (pos < lim) {
		uint8_t h = buf[pos];
		const pki_spe_hdr *e = &hdr_table[h];
		g->v[e->slot] = (load64(buf + pos + 1) & e->keep) | e->tag;
		present |= e->bit;
		npk++;
		pos += pki_spe_step_table[h];
		flow = e->flow;
		if (flow != F_DATA)
			break;
	}
	g->pos = pos;
	g->present = present;
	g->nr_packets = npk - (flow == F_SLOW);
	return flow;
}

/* One packet by pk_spe_packet_decode: 1 when it closed the record, 0 to
 * go on, -1 for an undecodable byte (why set, not consumed). */
static int gather_slow(gather *g, const uint8_t *buf, size_t len, const char **why)
{
	if (buf[g->pos] == 0) { /* padding, any length */
		g->pos = skip_zeros(buf, len, g->pos);
		return 0;
	}
	pk_spe_packet p;
	int n = pk_spe_packet_decode(buf, len, g->pos, &p, why);
	if (p.type == PK_SPE_BAD)
		return -1;
	g->pos += (size_t)n;
	if (p.type == PK_SPE_PAD)
		return 0;
	/* p.hdr is the header after an extended prefix, whose index may be
	 * one no field takes */
	const pki_spe_hdr *e = &hdr_table[p.hdr];
	unsigned slot = p.index > 7 ? S_NONE : e->slot;
	g->v[slot] = p.payload | e->tag;
	g->present |= slot == S_NONE ? 0 : 1u << slot;
	g->nr_packets++;
	return e->flow == F_CLOSE;
}

int pk_spe_next(pk_spe_decoder *d, pk_spe_record *rec)
{
	const uint8_t *buf = d->buf;
	size_t len = d->len, lim = len > 8 ? len - 8 : 0;
	/* leading padding belongs to no record */
	gather g;
	g.pos = skip_zeros(buf, len, d->pos);
	g.present = g.nr_packets = 0;
	if (g.pos >= len) {
		d->pos = g.pos;
		memset(rec, 0, sizeof(*rec));
		return PK_SPE_DONE;
	}
	size_t start = g.pos;
	bool closed = false;
	for (;;) {
		if (gather_fast(&g, buf, lim) == F_CLOSE) {
			closed = true;
			break;
		}
		if (g.pos >= len)
			break; /* the data ran out: the record is not closed */
		const char *why = NULL;
		int rc = gather_slow(&g, buf, len, &why);
		if (rc > 0) {
			closed = true;
			break;
		}
		if (rc < 0) { /* the partial record is dropped */
			d->warn_offset = d->base + g.pos;
			d->warn = why;
			d->nr_bad++;
			d->pos = g.pos + 1;
			memset(rec, 0, sizeof(*rec));
			return PK_SPE_WARN;
		}
	}
	finish(rec, g.v, g.present);
	rec->offset = d->base + start;
	rec->end = d->base + g.pos;
	rec->nr_packets = g.nr_packets;
	rec->closed = closed;
	d->pos = g.pos;
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
