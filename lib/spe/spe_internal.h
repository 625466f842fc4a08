/* lib/spe internals: the header-byte table (packet.c) and the inline fast
 * path of the packet decoder that the record loop uses: one table lookup,
 * one unaligned 8-byte load masked to the payload size when 9 bytes are
 * left; every other case goes to pk_spe_packet_decode. */
#ifndef PMUKIT_SPE_INTERNAL_H
#define PMUKIT_SPE_INTERNAL_H

#include <string.h>

#include <pmukit/spe.h>

#define T_EXT 15 /* extended header prefix: the table's marker, never returned */

/* entry: type in bits 0-3, payload bytes in bits 4-7, index in bits 8-10 */
extern const uint16_t pki_spe_hdr_table[256];

/* Whether a MIDR uses the common data-source encoding (record.c). */
bool pki_spe_common_source(uint32_t midr);

static inline int pki_spe_decode_fast(const uint8_t *buf, size_t len, size_t pos,
				      pk_spe_packet *pkt, const char **why)
{
	uint8_t h = buf[pos];
	uint16_t e = pki_spe_hdr_table[h];
	unsigned t = e & 15, n = (e >> 4) & 15;
	if (__builtin_expect(t > PK_SPE_PAD && t != T_EXT && len - pos >= 9, 1)) {
		uint64_t v;
		memcpy(&v, buf + pos + 1, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = __builtin_bswap64(v);
#endif
		/* n is 0, 1, 2, 4 or 8: keep its low 8n bits */
		pkt->payload = n == 8 ? v : v & ((1ull << (8 * n)) - 1);
		pkt->type = (uint8_t)t;
		pkt->hdr = h;
		pkt->index = (uint8_t)(e >> 8);
		pkt->payload_len = (uint8_t)n;
		pkt->len = (uint8_t)(1 + n);
		return pkt->len;
	}
	return pk_spe_packet_decode(buf, len, pos, pkt, why);
}

#endif
