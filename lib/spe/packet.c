/* Arm SPE packets: the header-byte table, the packet decoder and perf's
 * `-D` text of each packet.
 *
 * Invariants: one lookup in a 256-entry constant table gives a header's
 * packet type, payload size and index (no per-bit branching on the hot
 * path); a packet never reads past the buffer (a payload that does not fit
 * is BAD, one byte long); the text follows modern perf's strings
 * (docs/spe.md lists where perf 6.1 differs). No allocation, no I/O. */
#include <pmukit/spe.h>

#include "spe/spe_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>


/* The header encodings: F(type, payload bytes, index) of header byte h. */
#define SZ(h) (1 << (((h) >> 4) & 3))
#define CLASS(h, F)                                                                   \
	((h) == 0x00                ? F(PK_SPE_PAD, 0, 0)                             \
	 : (h) == 0x01              ? F(PK_SPE_END, 0, 0)                             \
	 : (h) == 0x71              ? F(PK_SPE_TIMESTAMP, 8, 0)                       \
	 : ((h) & 0xCF) == 0x42     ? F(PK_SPE_EVENTS, SZ(h), 0)                      \
	 : ((h) & 0xCF) == 0x43     ? F(PK_SPE_DATA_SOURCE, SZ(h), 0)                 \
	 : ((h) & 0xFC) == 0x64     ? F(PK_SPE_CONTEXT, 4, (h) & 3)                   \
	 : ((h) & 0xFC) == 0x48     ? F(PK_SPE_OP_TYPE, 1, (h) & 3)                   \
	 : ((h) & 0xFC) == 0x20     ? F(T_EXT, 0, (h) & 3)                            \
	 : ((h) & 0xF8) == 0xB0     ? F(PK_SPE_ADDRESS, 8, (h) & 7)                   \
	 : ((h) & 0xF8) == 0x98     ? F(PK_SPE_COUNTER, 2, (h) & 7)                   \
				    : F(PK_SPE_BAD, 0, 0))
#define HDR(h)                                                                        \
	{CLASS(h, SPE_F_KEEP), CLASS(h, SPE_F_TAG), CLASS(h, SPE_F_TYPE),             \
	 CLASS(h, SPE_F_SIZE), CLASS(h, SPE_F_INDEX), CLASS(h, SPE_F_SLOT),           \
	 CLASS(h, SPE_F_FLOW), CLASS(h, SPE_F_STEP), CLASS(h, SPE_F_BIT)}
#define R4(b) HDR(b), HDR((b) + 1), HDR((b) + 2), HDR((b) + 3)
#define R16(b) R4(b), R4((b) + 4), R4((b) + 8), R4((b) + 12)
#define R64(b) R16(b), R16((b) + 16), R16((b) + 32), R16((b) + 48)

const pki_spe_hdr pki_spe_hdr_table[256] = {R64(0), R64(64), R64(128), R64(192)};
#define hdr_table pki_spe_hdr_table

static inline uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	if (n == 8) {
		memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = __builtin_bswap64(v);
#endif
		return v;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int bad(pk_spe_packet *pkt, uint8_t hdr, const char **why, const char *what)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->type = PK_SPE_BAD;
	pkt->len = 1;
	pkt->hdr = hdr;
	if (why)
		*why = what;
	return 1;
}

/* The second byte of an extended header: an address or counter header,
 * or 0x00 (alignment padding up to a 2 << (h0 & 0xf) byte boundary). */
static int decode_ext(const uint8_t *buf, size_t len, size_t pos, pk_spe_packet *pkt,
		      const char **why)
{
	uint8_t h0 = buf[pos];
	if (len - pos < 2)
		return bad(pkt, h0, why, "extended header cut by the end of the data");
	uint8_t h1 = buf[pos + 1];
	if (h1 == 0) {
		size_t align = (size_t)2 << (h0 & 0xf);
		size_t n = align - (pos & (align - 1));
		if (n > len - pos)
			n = len - pos;
		memset(pkt, 0, sizeof(*pkt));
		pkt->type = PK_SPE_PAD;
		pkt->len = (uint8_t)n;
		return (int)n;
	}
	const pki_spe_hdr *e = &hdr_table[h1];
	unsigned t = e->type;
	if (t != PK_SPE_ADDRESS && t != PK_SPE_COUNTER)
		return bad(pkt, h0, why, "extended header not followed by an address or counter header");
	unsigned n = e->size;
	if (len - pos < 2 + (size_t)n)
		return bad(pkt, h0, why, "payload cut by the end of the data");
	pkt->type = (uint8_t)t;
	pkt->hdr = h1;
	pkt->index = (uint8_t)(((h0 & 3) << 3) | (h1 & 7));
	pkt->payload_len = (uint8_t)n;
	pkt->len = (uint8_t)(2 + n);
	pkt->payload = load_le(buf + pos + 2, n);
	return pkt->len;
}

int pk_spe_packet_decode(const uint8_t *buf, size_t len, size_t pos, pk_spe_packet *pkt,
			 const char **why)
{
	if (pos >= len)
		return 0;
	uint8_t h = buf[pos];
	const pki_spe_hdr *e = &hdr_table[h];
	unsigned t = e->type, n = e->size;
	if (t == T_EXT)
		return decode_ext(buf, len, pos, pkt, why);
	if (t == PK_SPE_BAD)
		return bad(pkt, h, why, "unknown packet header");
	if (t == PK_SPE_PAD) {
		/* a run of padding is one packet of at most 16 bytes */
		size_t end = len - pos > 16 ? pos + 16 : len, q = pos + 1;
		while (q < end && buf[q] == 0)
			q++;
		memset(pkt, 0, sizeof(*pkt));
		pkt->type = PK_SPE_PAD;
		pkt->len = (uint8_t)(q - pos);
		return pkt->len;
	}
	if (len - pos < 1 + (size_t)n)
		return bad(pkt, h, why, "payload cut by the end of the data");
	pkt->type = (uint8_t)t;
	pkt->hdr = h;
	pkt->index = e->index;
	pkt->payload_len = (uint8_t)n;
	pkt->len = (uint8_t)(1 + n);
	pkt->payload = n ? load_le(buf + pos + 1, n) : 0;
	return pkt->len;
}

/* ---- text ---- */

typedef struct out {
	char *p;
	size_t size, len;
} out;

__attribute__((format(printf, 2, 3))) static void put(out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = o->len < o->size ? o->size - o->len : 0;
	int n = vsnprintf(o->p + (o->len < o->size ? o->len : 0), room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static const char *const ev_names[64] = {
	[PK_SPE_EV_EXCEPTION_GEN] = "EXCEPTION-GEN", [PK_SPE_EV_RETIRED] = "RETIRED",
	[PK_SPE_EV_L1D_ACCESS] = "L1D-ACCESS", [PK_SPE_EV_L1D_REFILL] = "L1D-REFILL",
	[PK_SPE_EV_TLB_ACCESS] = "TLB-ACCESS", [PK_SPE_EV_TLB_WALK] = "TLB-REFILL",
	[PK_SPE_EV_NOT_TAKEN] = "NOT-TAKEN", [PK_SPE_EV_MISPRED] = "MISPRED",
	[PK_SPE_EV_LLC_ACCESS] = "LLC-ACCESS", [PK_SPE_EV_LLC_MISS] = "LLC-REFILL",
	[PK_SPE_EV_REMOTE_ACCESS] = "REMOTE-ACCESS", [PK_SPE_EV_ALIGNMENT] = "ALIGNMENT",
	[PK_SPE_EV_TXN] = "TXN", [PK_SPE_EV_SVE_PARTIAL_PRED] = "SVE-PARTIAL-PRED",
	[PK_SPE_EV_SVE_EMPTY_PRED] = "SVE-EMPTY-PRED", [PK_SPE_EV_L2D_ACCESS] = "L2D-ACCESS",
	[PK_SPE_EV_L2D_MISS] = "L2D-MISS", [PK_SPE_EV_HITM] = "HITM", [PK_SPE_EV_LFB] = "LFB",
	[PK_SPE_EV_SNOOPED] = "SNOOPED", [PK_SPE_EV_STREAMING_SVE] = "STREAMING-SVE",
	[PK_SPE_EV_SMCU] = "SMCU",
};

/* IMPLEMENTATION DEFINED event names by core: (midr, bit, name). */
static const struct {
	uint32_t midr;
	uint8_t bit;
	const char *name;
} impdef_events[] = {
	{PK_SPE_MIDR_NEOVERSE_N1, 12, "LATE-PREFETCH"},
};

static const char *event_name(uint32_t midr, unsigned bit)
{
	if (ev_names[bit])
		return ev_names[bit];
	for (size_t i = 0; i < sizeof(impdef_events) / sizeof(impdef_events[0]); i++)
		if (impdef_events[i].bit == bit && impdef_events[i].midr == (midr & PK_SPE_MIDR_MASK))
			return impdef_events[i].name;
	return NULL;
}

static void desc_events(out *o, uint64_t v, uint32_t midr)
{
	put(o, "EV");
	uint64_t unknown = 0;
	for (uint64_t rest = v; rest; rest &= rest - 1) {
		unsigned bit = (unsigned)__builtin_ctzll(rest);
		const char *name = event_name(midr, bit);
		if (name)
			put(o, " %s", name);
		else
			unknown |= (uint64_t)1 << bit;
	}
	const char *sep = " IMPDEF:";
	for (; unknown; unknown &= unknown - 1) {
		put(o, "%s%d", sep, __builtin_ctzll(unknown));
		sep = ",";
	}
}

static void desc_op_other(out *o, unsigned v)
{
	if ((v & 0x89) == 0x08) {
		put(o, "SVE-OTHER EVLEN %d", 32 << ((v >> 4) & 7));
		if (v & 2)
			put(o, " FP");
		if (v & 4)
			put(o, " PRED");
	} else if ((v & 0x89) == 0x88) {
		put(o, "SME-OTHER ETS %d", 128 << ((((v >> 4) & 7) << 1) | ((v >> 2) & 1)));
		if (v & 2)
			put(o, " FP");
	} else {
		put(o, "OTHER%s%s %s", v & 4 ? " ASE" : "", v & 2 ? " FP" : "",
		    v & 1 ? "COND-SELECT" : "INSN-OTHER");
	}
}

/* Load/store subclasses by v & 0xfe, first match. */
static const struct {
	uint8_t value;
	const char *name;
} ldst_sub[] = {
	{0x04, " SIMD-FP"}, {0x00, " GP-REG"}, {0x10, " UNSPEC-REG"}, {0x30, " NV-SYSREG"},
	{0x14, " MTE-TAG"}, {0x20, " MEMCPY"}, {0x24, " MEMSET"},
};

static void desc_op_ldst(out *o, unsigned v)
{
	put(o, "%s", v & 1 ? "ST" : "LD");
	if ((v & 0xE2) == 0x02) {
		put(o, "%s%s%s", v & 4 ? " AT" : "", v & 8 ? " EXCL" : "", v & 16 ? " AR" : "");
		return;
	}
	for (size_t i = 0; i < sizeof(ldst_sub) / sizeof(ldst_sub[0]); i++)
		if ((v & 0xFE) == ldst_sub[i].value && (ldst_sub[i].value != 0x24 || v == 0x25)) {
			put(o, "%s", ldst_sub[i].name);
			return;
		}
	if ((v & 0x0A) == 0x08) {
		put(o, " SVE EVLEN %d%s%s", 32 << ((v >> 4) & 7), v & 4 ? " PRED" : "",
		    v & 0x80 ? " SG" : "");
	} else if ((v & 0xFA) == 0x40) {
		put(o, " GCS%s", v & 4 ? " COMM" : "");
	}
}

static void desc_op(out *o, unsigned cls, unsigned v)
{
	static const char *const cr[4] = {"", " BL", " RET", " NON-BL-RET"};
	switch (cls) {
	case PK_SPE_OP_OTHER: desc_op_other(o, v); break;
	case PK_SPE_OP_LDST: desc_op_ldst(o, v); break;
	case PK_SPE_OP_BRANCH:
		put(o, "B%s%s%s%s", v & 1 ? " COND" : "", v & 2 ? " IND" : "", v & 4 ? " GCS" : "",
		    cr[(v >> 3) & 3]);
		break;
	default: put(o, "OP-TYPE 0x%x (%u)", v, cls); break;
	}
}

static void desc_addr(out *o, const pk_spe_packet *p)
{
	static const char *const names[5] = {"PC", "TGT", "VA", "PA", "PBT"};
	uint64_t v = p->payload, a = v & 0x00ffffffffffffffull;
	switch (p->index) {
	case PK_SPE_ADDR_PC:
	case PK_SPE_ADDR_TGT:
	case PK_SPE_ADDR_PBT:
		put(o, "%s 0x%llx el%u ns=%u", names[p->index], (unsigned long long)a,
		    (unsigned)((v >> 61) & 3), (unsigned)(v >> 63));
		break;
	case PK_SPE_ADDR_VA: put(o, "VA 0x%llx", (unsigned long long)v); break;
	case PK_SPE_ADDR_PA:
		put(o, "PA 0x%llx ns=%u ch=%u pat=%x", (unsigned long long)a, (unsigned)(v >> 63),
		    (unsigned)((v >> 62) & 1), (unsigned)((v >> 56) & 15));
		break;
	default: put(o, "ADDR 0x%llx (%u)", (unsigned long long)v, p->index); break;
	}
}

int pk_spe_packet_desc(const pk_spe_packet *p, uint32_t midr, char *buf, size_t size)
{
	static const char *const lat[3] = {" TOT", " ISSUE", " XLAT"};
	out o = {buf, size, 0};
	if (size)
		buf[0] = 0;
	switch (p->type) {
	case PK_SPE_PAD: put(&o, "PAD"); break;
	case PK_SPE_END: put(&o, "END"); break;
	case PK_SPE_TIMESTAMP: put(&o, "TS %llu", (unsigned long long)p->payload); break;
	case PK_SPE_EVENTS: desc_events(&o, p->payload, midr); break;
	case PK_SPE_DATA_SOURCE: put(&o, "DATA-SOURCE %llu", (unsigned long long)p->payload); break;
	case PK_SPE_CONTEXT:
		put(&o, "CONTEXT 0x%lx el%u", (unsigned long)p->payload, p->index + 1u);
		break;
	case PK_SPE_OP_TYPE: desc_op(&o, p->index, (unsigned)p->payload); break;
	case PK_SPE_ADDRESS: desc_addr(&o, p); break;
	case PK_SPE_COUNTER:
		put(&o, "LAT %u%s", (unsigned)p->payload, p->index < 3 ? lat[p->index] : "");
		break;
	default: put(&o, "Bad packet!"); break;
	}
	return (int)(o.len < size ? o.len : size ? size - 1 : 0);
}

int pk_spe_dump_line(const uint8_t *buf, size_t len, size_t pos, uint32_t midr, char *line,
		     size_t size)
{
	pk_spe_packet p;
	int n = pk_spe_packet_decode(buf, len, pos, &p, NULL);
	if (n <= 0 || size < 96)
		return n > 0 ? -ENOSPC : 0;
	out o = {line, size, 0};
	put(&o, ".  %08zx: ", pos);
	for (int i = 0; i < 16; i++) {
		if (i < n)
			put(&o, " %02x", buf[pos + (size_t)i]);
		else
			put(&o, "   ");
	}
	if (p.type == PK_SPE_BAD) {
		put(&o, " Bad packet!");
	} else {
		put(&o, " ");
		size_t at = o.len < size ? o.len : size - 1;
		o.len = at + (size_t)pk_spe_packet_desc(&p, midr, line + at, size - at);
	}
	return n;
}
