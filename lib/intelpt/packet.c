/* Intel PT packets: the header-byte tables and the packet decoder.
 *
 * Invariants: one lookup in a 256-entry constant table on the header byte
 * (and, after the 0x02 extended header, one in a second table on the next
 * byte) gives the packet's kind, type, length and where its little-endian
 * payload is; only the few irregular packets (TNT, CYC, MODE, PSB, TMA,
 * MNT, BBP, CFE, EVD) have code of their own. A packet never reads past
 * the buffer: one that does not fit, or an encoding the SDM reserves, is
 * BAD and one byte long. The only state is the block context (BIP packets
 * exist only between BBP and the packet that ends the block). No
 * allocation, no I/O. */
#include <pmukit/intelpt.h>

#include <string.h>

enum kind {
	K_BAD, K_GEN, K_IP, K_EXT, K_TNT, K_LTNT, K_CYC, K_MODE, K_PSB, K_TMA, K_MNT,
	K_BBP, K_CFE, K_EVD
};

/* An entry: kind, type, packet length, payload offset and byte count. */
#define E(k, t, l, o, n) ((uint32_t)(k) | (uint32_t)(t) << 4 | (uint32_t)(l) << 10 | \
			  (uint32_t)(o) << 15 | (uint32_t)(n) << 18)
#define E_KIND(e) ((e) & 15u)
#define E_TYPE(e) ((pk_ipt_pkt_type)(((e) >> 4) & 63u))
#define E_LEN(e) (((e) >> 10) & 31u)
#define E_OFF(e) (((e) >> 15) & 7u)
#define E_N(e) (((e) >> 18) & 15u)

/* TIP/FUP's IPBytes field (bits 7:5) -> the packet: 0, 2, 4, 6, 6 or 8 IP
 * bytes; 5 and 7 are reserved. */
#define IPB(h, t)                                                                      \
	((h) >> 5 == 0   ? E(K_IP, t, 1, 1, 0)                                         \
	 : (h) >> 5 == 1 ? E(K_IP, t, 3, 1, 2)                                         \
	 : (h) >> 5 == 2 ? E(K_IP, t, 5, 1, 4)                                         \
	 : (h) >> 5 == 3 || (h) >> 5 == 4 ? E(K_IP, t, 7, 1, 6)                        \
	 : (h) >> 5 == 6 ? E(K_IP, t, 9, 1, 8)                                         \
			 : E(K_BAD, PK_IPT_BAD, 1, 0, 0))
#define HDR(h)                                                                         \
	((h) == 0x00              ? E(K_GEN, PK_IPT_PAD, 1, 0, 0)                      \
	 : (h) == 0x02            ? E(K_EXT, PK_IPT_BAD, 2, 0, 0)                      \
	 : !((h) & 1)             ? E(K_TNT, PK_IPT_TNT, 1, 0, 0)                      \
	 : ((h) & 2)              ? E(K_CYC, PK_IPT_CYC, 1, 0, 0)                      \
	 : ((h) & 0x1F) == 0x0D   ? IPB(h, PK_IPT_TIP)                                 \
	 : ((h) & 0x1F) == 0x11   ? IPB(h, PK_IPT_TIP_PGE)                             \
	 : ((h) & 0x1F) == 0x01   ? IPB(h, PK_IPT_TIP_PGD)                             \
	 : ((h) & 0x1F) == 0x1D   ? IPB(h, PK_IPT_FUP)                                 \
	 : (h) == 0x99            ? E(K_MODE, PK_IPT_MODE_EXEC, 2, 0, 0)               \
	 : (h) == 0x19            ? E(K_GEN, PK_IPT_TSC, 8, 1, 7)                      \
	 : (h) == 0x59            ? E(K_GEN, PK_IPT_MTC, 2, 1, 1)                      \
				  : E(K_BAD, PK_IPT_BAD, 1, 0, 0))
/* The byte after 0x02. PTWRITE: bits 4:0 = 0x12, bits 6:5 the payload
 * size (4 or 8 bytes), bit 7 IP. */
#define EXT(b)                                                                         \
	((b) == 0x12   ? E(K_GEN, PK_IPT_PTWRITE, 6, 2, 4)                             \
	 : (b) == 0x32 ? E(K_GEN, PK_IPT_PTWRITE, 10, 2, 8)                            \
	 : (b) == 0x92 ? E(K_GEN, PK_IPT_PTWRITE_IP, 6, 2, 4)                          \
	 : (b) == 0xB2 ? E(K_GEN, PK_IPT_PTWRITE_IP, 10, 2, 8)                         \
	 : (b) == 0xA3 ? E(K_LTNT, PK_IPT_TNT, 8, 0, 0)                                \
	 : (b) == 0x43 ? E(K_GEN, PK_IPT_PIP, 8, 2, 6)                                 \
	 : (b) == 0x83 ? E(K_GEN, PK_IPT_TRACESTOP, 2, 0, 0)                           \
	 : (b) == 0x03 ? E(K_GEN, PK_IPT_CBR, 4, 2, 2)                                 \
	 : (b) == 0xC8 ? E(K_GEN, PK_IPT_VMCS, 7, 2, 5)                                \
	 : (b) == 0xF3 ? E(K_GEN, PK_IPT_OVF, 2, 0, 0)                                 \
	 : (b) == 0x82 ? E(K_PSB, PK_IPT_PSB, 16, 0, 0)                                \
	 : (b) == 0x23 ? E(K_GEN, PK_IPT_PSBEND, 2, 0, 0)                              \
	 : (b) == 0x73 ? E(K_TMA, PK_IPT_TMA, 7, 0, 0)                                 \
	 : (b) == 0xC3 ? E(K_MNT, PK_IPT_MNT, 11, 3, 8)                                \
	 : (b) == 0x62 ? E(K_GEN, PK_IPT_EXSTOP, 2, 0, 0)                              \
	 : (b) == 0xE2 ? E(K_GEN, PK_IPT_EXSTOP_IP, 2, 0, 0)                           \
	 : (b) == 0xC2 ? E(K_GEN, PK_IPT_MWAIT, 10, 2, 8)                              \
	 : (b) == 0x22 ? E(K_GEN, PK_IPT_PWRE, 4, 2, 2)                                \
	 : (b) == 0xA2 ? E(K_GEN, PK_IPT_PWRX, 7, 2, 5)                                \
	 : (b) == 0x63 ? E(K_BBP, PK_IPT_BBP, 3, 0, 0)                                 \
	 : (b) == 0x33 ? E(K_GEN, PK_IPT_BEP, 2, 0, 0)                                 \
	 : (b) == 0xB3 ? E(K_GEN, PK_IPT_BEP_IP, 2, 0, 0)                              \
	 : (b) == 0x13 ? E(K_CFE, PK_IPT_CFE, 4, 0, 0)                                 \
	 : (b) == 0x53 ? E(K_EVD, PK_IPT_EVD, 11, 0, 0)                                \
		       : E(K_BAD, PK_IPT_BAD, 1, 0, 0))
#define R4(b, X) X(b), X((b) + 1), X((b) + 2), X((b) + 3)
#define R16(b, X) R4(b, X), R4((b) + 4, X), R4((b) + 8, X), R4((b) + 12, X)
#define R64(b, X) R16(b, X), R16((b) + 16, X), R16((b) + 32, X), R16((b) + 48, X)
#define R256(X) R64(0, X), R64(64, X), R64(128, X), R64(192, X)

static const uint32_t hdr_table[256] = {R256(HDR)};
static const uint32_t ext_table[256] = {R256(EXT)};

/* What a packet does to the block context: 0 keeps it, 1 ends the block,
 * 2 (BBP) starts one. */
static const uint8_t ctx_effect[PK_IPT_NR_TYPES] = {
	[PK_IPT_TNT] = 1, [PK_IPT_TIP] = 1, [PK_IPT_TIP_PGD] = 1, [PK_IPT_TIP_PGE] = 1,
	[PK_IPT_MODE_EXEC] = 1, [PK_IPT_MODE_TSX] = 1, [PK_IPT_PIP] = 1, [PK_IPT_OVF] = 1,
	[PK_IPT_VMCS] = 1, [PK_IPT_TRACESTOP] = 1, [PK_IPT_PSB] = 1, [PK_IPT_PSBEND] = 1,
	[PK_IPT_PTWRITE] = 1, [PK_IPT_PTWRITE_IP] = 1, [PK_IPT_MWAIT] = 1, [PK_IPT_BEP] = 1,
	[PK_IPT_BEP_IP] = 1, [PK_IPT_CFE] = 1, [PK_IPT_CFE_IP] = 1, [PK_IPT_EVD] = 1,
	[PK_IPT_BBP] = 2,
};

static uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* TNT bits below the stop bit (the highest set bit at h, lowest TNT bit
 * at `low`) go to the payload's top, first bit at bit 63. */
static size_t tnt(pk_ipt_packet *pkt, uint64_t v, unsigned low, size_t len)
{
	unsigned h = v >> low ? 63u - (unsigned)__builtin_clzll(v) : low;
	pkt->count = h - low;
	pkt->payload = h ? v << (64 - h) : 0;
	return len;
}

/* CYC: 5 counter bits in the header, then 7 bits a byte while the lowest
 * bit (Exp) is set; at most 9 more bytes. */
static size_t cyc(const uint8_t *buf, size_t len, pk_ipt_packet *pkt)
{
	uint64_t v = buf[0] >> 3;
	unsigned shift = 5;
	size_t pos = 1;
	for (uint8_t b = (uint8_t)(buf[0] >> 2); b & 1; shift += 7) {
		if (pos > 9 || pos >= len)
			return 0;
		b = buf[pos++];
		v |= (uint64_t)(b >> 1) << shift;
	}
	pkt->payload = v;
	return pos;
}

/* MODE: bits 7:5 of its byte pick Exec (CS.L, CS.D, IF) or TSX (InTX,
 * TXAbort); a value with both low bits set is reserved. */
static size_t mode(const uint8_t *buf, pk_ipt_packet *pkt)
{
	static const uint8_t bits[3] = {16, 64, 32};
	uint8_t b = buf[1];
	if ((b & 3) == 3 || b >> 5 > 1)
		return 0;
	if (b >> 5) {
		pkt->type = PK_IPT_MODE_TSX;
		pkt->payload = b & 3;
	} else {
		pkt->count = b;
		pkt->payload = bits[b & 3];
	}
	return 2;
}

static size_t irregular(uint32_t e, const uint8_t *buf, size_t len, pk_ipt_packet *pkt)
{
	switch (E_KIND(e)) {
	case K_TNT: return tnt(pkt, buf[0], 1, 1);
	case K_LTNT: return tnt(pkt, load_le(buf, 8), 16, 8);
	case K_CYC: return cyc(buf, len, pkt);
	case K_MODE: return mode(buf, pkt);
	case K_PSB:
		for (size_t i = 2; i < 16; i += 2)
			if (buf[i] != 0x02 || buf[i + 1] != 0x82)
				return 0;
		return 16;
	case K_TMA:
		pkt->payload = load_le(buf + 2, 2);
		pkt->count = buf[5] | (uint32_t)(buf[6] & 1) << 8;
		return 7;
	case K_BBP:
		pkt->count = buf[2] >> 7;
		pkt->payload = buf[2] & 0x1F;
		return 3;
	case K_CFE:
		pkt->type = buf[2] & 0x80 ? PK_IPT_CFE_IP : PK_IPT_CFE;
		pkt->count = buf[2] & 0x1F;
		pkt->payload = buf[3];
		return 4;
	case K_EVD:
		pkt->count = buf[2] & 0x3F;
		pkt->payload = load_le(buf + 3, 8);
		return 11;
	default: return 0;
	}
}

/* The packet a table entry describes, or 0 when it is BAD or cut. */
static size_t by_entry(uint32_t e, const uint8_t *buf, size_t len, pk_ipt_packet *pkt)
{
	unsigned kind = E_KIND(e);
	if (kind == K_BAD)
		return 0;
	if (kind == K_MNT && (len < 3 || buf[2] != 0x88))
		return 0;
	if (len < E_LEN(e) && kind != K_CYC)
		return 0;
	pkt->type = E_TYPE(e);
	if (kind == K_GEN || kind == K_IP || kind == K_MNT) {
		pkt->payload = load_le(buf + E_OFF(e), E_N(e));
		if (kind == K_IP)
			pkt->count = buf[0] >> 5;
		return E_LEN(e);
	}
	return irregular(e, buf, len, pkt);
}

/* BIP (in a block): header bits 2:0 = 100, bits 7:3 the ID. */
static size_t bip(const uint8_t *buf, size_t len, pk_ipt_ctx ctx, pk_ipt_packet *pkt)
{
	size_t n = ctx == PK_IPT_BLK4_CTX ? 4 : 8;
	if (len < n + 1)
		return 0;
	pkt->type = PK_IPT_BIP;
	pkt->count = buf[0] >> 3;
	pkt->payload = load_le(buf + 1, (unsigned)n);
	return n + 1;
}

size_t pk_ipt_decode(const uint8_t *buf, size_t len, pk_ipt_ctx *ctx, pk_ipt_packet *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	size_t n;
	if (*ctx != PK_IPT_NO_CTX && (buf[0] & 7) == 4) {
		n = bip(buf, len, *ctx, pkt);
	} else {
		uint32_t e = hdr_table[buf[0]];
		if (E_KIND(e) == K_EXT)
			e = len < 2 ? E(K_BAD, PK_IPT_BAD, 1, 0, 0) : ext_table[buf[1]];
		n = by_entry(e, buf, len, pkt);
	}
	if (!n) {
		memset(pkt, 0, sizeof(*pkt));
		pkt->len = pkt->span = 1;
		return 1;
	}
	pkt->len = (uint8_t)n;
	while (n < 8 && n < len && !buf[n])
		n++;
	pkt->span = (uint8_t)n;
	if (ctx_effect[pkt->type] == 1)
		*ctx = PK_IPT_NO_CTX;
	else if (ctx_effect[pkt->type] == 2)
		*ctx = pkt->count ? PK_IPT_BLK4_CTX : PK_IPT_BLK8_CTX;
	return pkt->len;
}
