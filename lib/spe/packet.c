/* Arm SPE packets: the header-byte table, the packet decoder and perf's
 * `-D` text of each packet.
 *
 * Invariants: one lookup in a 256-entry constant table (spe_internal.h)
 * gives a header's packet type, payload size, index and what the record
 * loop does with it (no per-bit branching on the hot path); a packet never
 * reads past the buffer (a payload that does not fit is BAD, one byte
 * long); the text follows modern perf's strings (docs/spe.md lists where
 * perf 6.1 differs) and is built without printf, truncated safely to the
 * caller's buffer. No allocation, no I/O. */
#include <pmukit/spe.h>

#include "spe/spe_internal.h"

#include <errno.h>
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
	 CLASS(h, SPE_F_FLOW), CLASS(h, SPE_F_BIT)}
#define STEP(h) CLASS(h, SPE_F_STEP)
#define R4(b, X) X(b), X((b) + 1), X((b) + 2), X((b) + 3)
#define R16(b, X) R4(b, X), R4((b) + 4, X), R4((b) + 8, X), R4((b) + 12, X)
#define R64(b, X) R16(b, X), R16((b) + 16, X), R16((b) + 32, X), R16((b) + 48, X)
#define R256(X) R64(0, X), R64(64, X), R64(128, X), R64(192, X)

const pki_spe_hdr pki_spe_hdr_table[256] = {R256(HDR)};
const uint8_t pki_spe_step_table[256] = {R256(STEP)};
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

/* The text is built without printf: each piece is copied or converted
 * in place (the dump prints tens of millions of lines). Writes stop at
 * size - 1; len counts what the whole text needs; o_end terminates it. */
typedef struct out {
	char *p;
	size_t size, len;
} out;

static inline void put_mem(out *o, const char *s, size_t n)
{
	if (o->len + n < o->size)
		memcpy(o->p + o->len, s, n);
	else if (o->len + 1 < o->size)
		memcpy(o->p + o->len, s, o->size - 1 - o->len);
	o->len += n;
}

static inline void put_s(out *o, const char *s) { put_mem(o, s, strlen(s)); }

static const char hex_digits[] = "0123456789abcdef";

/* v in hex, at least `width` digits (zero-padded), as printf's %0*llx */
static void put_hex(out *o, uint64_t v, int width)
{
	char t[16];
	int i = 16;
	do {
		t[--i] = hex_digits[v & 15];
		v >>= 4;
	} while (v || 16 - i < width);
	put_mem(o, t + i, (size_t)(16 - i));
}

static void put_dec(out *o, uint64_t v)
{
	char t[20];
	int i = 20;
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_mem(o, t + i, (size_t)(20 - i));
}

static void o_end(out *o)
{
	if (o->size)
		o->p[o->len < o->size ? o->len : o->size - 1] = 0;
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
	put_s(o, "EV");
	uint64_t unknown = 0;
	for (uint64_t rest = v; rest; rest &= rest - 1) {
		unsigned bit = (unsigned)__builtin_ctzll(rest);
		const char *name = event_name(midr, bit);
		if (name) {
			put_s(o, " ");
			put_s(o, name);
		} else {
			unknown |= (uint64_t)1 << bit;
		}
	}
	const char *sep = " IMPDEF:";
	for (; unknown; unknown &= unknown - 1) {
		put_s(o, sep);
		put_dec(o, (unsigned)__builtin_ctzll(unknown));
		sep = ",";
	}
}

static void desc_op_other(out *o, unsigned v)
{
	if ((v & 0x89) == 0x08) {
		put_s(o, "SVE-OTHER EVLEN ");
		put_dec(o, 32u << ((v >> 4) & 7));
		put_s(o, v & 2 ? " FP" : "");
		put_s(o, v & 4 ? " PRED" : "");
	} else if ((v & 0x89) == 0x88) {
		put_s(o, "SME-OTHER ETS ");
		put_dec(o, 128u << ((((v >> 4) & 7) << 1) | ((v >> 2) & 1)));
		put_s(o, v & 2 ? " FP" : "");
	} else {
		put_s(o, "OTHER");
		put_s(o, v & 4 ? " ASE" : "");
		put_s(o, v & 2 ? " FP" : "");
		put_s(o, v & 1 ? " COND-SELECT" : " INSN-OTHER");
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
	put_s(o, v & 1 ? "ST" : "LD");
	if ((v & 0xE2) == 0x02) {
		put_s(o, v & 4 ? " AT" : "");
		put_s(o, v & 8 ? " EXCL" : "");
		put_s(o, v & 16 ? " AR" : "");
		return;
	}
	for (size_t i = 0; i < sizeof(ldst_sub) / sizeof(ldst_sub[0]); i++)
		if ((v & 0xFE) == ldst_sub[i].value && (ldst_sub[i].value != 0x24 || v == 0x25)) {
			put_s(o, ldst_sub[i].name);
			return;
		}
	if ((v & 0x0A) == 0x08) {
		put_s(o, " SVE EVLEN ");
		put_dec(o, 32u << ((v >> 4) & 7));
		put_s(o, v & 4 ? " PRED" : "");
		put_s(o, v & 0x80 ? " SG" : "");
	} else if ((v & 0xFA) == 0x40) {
		put_s(o, v & 4 ? " GCS COMM" : " GCS");
	}
}

static void desc_op(out *o, unsigned cls, unsigned v)
{
	static const char *const cr[4] = {"", " BL", " RET", " NON-BL-RET"};
	switch (cls) {
	case PK_SPE_OP_OTHER: desc_op_other(o, v); break;
	case PK_SPE_OP_LDST: desc_op_ldst(o, v); break;
	case PK_SPE_OP_BRANCH:
		put_s(o, "B");
		put_s(o, v & 1 ? " COND" : "");
		put_s(o, v & 2 ? " IND" : "");
		put_s(o, v & 4 ? " GCS" : "");
		put_s(o, cr[(v >> 3) & 3]);
		break;
	default:
		put_s(o, "OP-TYPE 0x");
		put_hex(o, v, 1);
		put_s(o, " (");
		put_dec(o, cls);
		put_s(o, ")");
		break;
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
		put_s(o, names[p->index]);
		put_s(o, " 0x");
		put_hex(o, a, 1);
		put_s(o, " el");
		put_dec(o, (v >> 61) & 3);
		put_s(o, v >> 63 ? " ns=1" : " ns=0");
		break;
	case PK_SPE_ADDR_VA:
		put_s(o, "VA 0x");
		put_hex(o, v, 1);
		break;
	case PK_SPE_ADDR_PA:
		put_s(o, "PA 0x");
		put_hex(o, a, 1);
		put_s(o, v >> 63 ? " ns=1" : " ns=0");
		put_s(o, (v >> 62) & 1 ? " ch=1 pat=" : " ch=0 pat=");
		put_hex(o, (v >> 56) & 15, 1);
		break;
	default:
		put_s(o, "ADDR 0x");
		put_hex(o, v, 1);
		put_s(o, " (");
		put_dec(o, p->index);
		put_s(o, ")");
		break;
	}
}

static void desc(out *o, const pk_spe_packet *p, uint32_t midr)
{
	static const char *const lat[3] = {" TOT", " ISSUE", " XLAT"};
	switch (p->type) {
	case PK_SPE_PAD: put_s(o, "PAD"); break;
	case PK_SPE_END: put_s(o, "END"); break;
	case PK_SPE_TIMESTAMP:
		put_s(o, "TS ");
		put_dec(o, p->payload);
		break;
	case PK_SPE_EVENTS: desc_events(o, p->payload, midr); break;
	case PK_SPE_DATA_SOURCE:
		put_s(o, "DATA-SOURCE ");
		put_dec(o, p->payload);
		break;
	case PK_SPE_CONTEXT:
		put_s(o, "CONTEXT 0x");
		put_hex(o, p->payload, 1);
		put_s(o, " el");
		put_dec(o, p->index + 1u);
		break;
	case PK_SPE_OP_TYPE: desc_op(o, p->index, (unsigned)p->payload); break;
	case PK_SPE_ADDRESS: desc_addr(o, p); break;
	case PK_SPE_COUNTER:
		put_s(o, "LAT ");
		put_dec(o, p->payload);
		put_s(o, p->index < 3 ? lat[p->index] : "");
		break;
	default: put_s(o, "Bad packet!"); break;
	}
}

int pk_spe_packet_desc(const pk_spe_packet *p, uint32_t midr, char *buf, size_t size)
{
	out o = {buf, size, 0};
	desc(&o, p, midr);
	o_end(&o);
	return (int)(o.len < size ? o.len : size ? size - 1 : 0);
}

int pk_spe_dump_line(const uint8_t *buf, size_t len, size_t pos, uint32_t midr, char *line,
		     size_t size)
{
	pk_spe_packet p;
	int n = pk_spe_packet_decode(buf, len, pos, &p, NULL);
	if (n <= 0 || size < 96)
		return n > 0 ? -ENOSPC : 0;
	/* the fixed part, 61 characters, fits the 96 checked above */
	out o = {line, size, 0};
	put_mem(&o, ".  ", 3);
	put_hex(&o, pos, 8);
	put_mem(&o, ": ", 2);
	char *q = line + o.len;
	memset(q, ' ', 48);
	for (int i = 0; i < n; i++, q += 3) {
		uint8_t b = buf[pos + (size_t)i];
		q[1] = hex_digits[b >> 4];
		q[2] = hex_digits[b & 15];
	}
	o.len += 48;
	put_mem(&o, " ", 1);
	if (p.type == PK_SPE_BAD)
		put_s(&o, "Bad packet!");
	else
		desc(&o, &p, midr);
	o_end(&o);
	return n;
}
