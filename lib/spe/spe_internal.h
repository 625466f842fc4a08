/* lib/spe internals: the header-byte table that both the packet decoder
 * (packet.c) and the record loop (record.c) walk.
 *
 * One entry per header byte says everything the decoders need, each field
 * a byte or a mask the loop uses as it is, so the record loop's common
 * packet is one lookup, one unaligned 8-byte load, an AND, an OR and one
 * store, with no branch on the packet's kind:
 *   keep   the payload's bits of the 8 bytes after the header
 *   tag    the index kept above the payload (op class, CONTEXT EL) at bit 32
 *   type   pk_spe_pkt_type, or T_EXT for the extended prefix 0x20-0x23
 *   size   payload bytes (0, 1, 2, 4, 8); index: address/counter index,
 *          op class, CONTEXT EL
 *   slot   the PK_SPE_HAS_* bit the packet sets and the raw value it fills
 *          (S_NONE: none: END, indices no field takes)
 *   flow   F_DATA, F_CLOSE (TIMESTAMP and END end the record) or F_SLOW
 *          (PAD, the extended prefix, bad headers: pk_spe_packet_decode)
 *   bit    1 << slot (0 for S_NONE)
 * Every field is derived from (type, payload bytes, index) by the macros
 * below, which packet.c applies to its one list of header encodings. */
#ifndef PMUKIT_SPE_INTERNAL_H
#define PMUKIT_SPE_INTERNAL_H

#include <pmukit/spe.h>

#define T_EXT 15 /* extended header prefix: the table's marker, never returned */

enum { S_TS = 5, S_CONTEXT, S_OP, S_EVENTS, S_SOURCE, S_TOT, S_NONE = 15, S_COUNT = 16 };
enum { F_DATA = 0, F_CLOSE = 1, F_SLOW = 2 };

#define SPE_SLOT(t, i)                                                                         \
	((t) == PK_SPE_ADDRESS ? ((i) <= PK_SPE_ADDR_PBT ? (i) : S_NONE)                       \
	 : (t) == PK_SPE_COUNTER ? ((i) <= PK_SPE_CNT_XLAT ? S_TOT + (i) : S_NONE)             \
	 : (t) == PK_SPE_TIMESTAMP    ? S_TS                                                    \
	 : (t) == PK_SPE_CONTEXT      ? S_CONTEXT                                               \
	 : (t) == PK_SPE_OP_TYPE      ? S_OP                                                    \
	 : (t) == PK_SPE_EVENTS       ? S_EVENTS                                                \
	 : (t) == PK_SPE_DATA_SOURCE  ? S_SOURCE                                                \
				      : S_NONE)
#define SPE_FLOW(t)                                                                            \
	((t) == PK_SPE_END || (t) == PK_SPE_TIMESTAMP                    ? F_CLOSE               \
	 : (t) == PK_SPE_PAD || (t) == PK_SPE_BAD || (t) == T_EXT ? F_SLOW                \
								   : F_DATA)
#define SPE_TAG(t, i) ((t) == PK_SPE_OP_TYPE || (t) == PK_SPE_CONTEXT ? (i) : 0)

typedef struct pki_spe_hdr {
	_Alignas(32) uint64_t keep;
	uint64_t tag;
	uint8_t type, size, index, slot, flow;
	uint16_t bit;
} pki_spe_hdr;

/* Field makers of (type t, payload bytes n, index i) */
#define SPE_F_KEEP(t, n, i) ((n) != 0 ? ~0ull >> ((64 - 8 * (n)) & 63) : 0)
#define SPE_F_TAG(t, n, i) ((uint64_t)SPE_TAG(t, i) << 32)
#define SPE_F_TYPE(t, n, i) (t)
#define SPE_F_SIZE(t, n, i) (n)
#define SPE_F_INDEX(t, n, i) (i)
#define SPE_F_SLOT(t, n, i) SPE_SLOT(t, i)
#define SPE_F_FLOW(t, n, i) SPE_FLOW(t)
#define SPE_F_STEP(t, n, i) (SPE_FLOW(t) == F_SLOW ? 0 : 1 + (n))
#define SPE_F_BIT(t, n, i) (SPE_SLOT(t, i) == S_NONE ? 0 : 1u << SPE_SLOT(t, i))

extern const pki_spe_hdr pki_spe_hdr_table[256] __attribute__((visibility("hidden")));
/* Bytes the record loop steps over (0 for F_SLOW), a table of its own: the
 * step is on the loop's critical path (header byte -> step -> next header),
 * and a byte table is one load indexed by the header, no address arithmetic. */
extern const uint8_t pki_spe_step_table[256] __attribute__((visibility("hidden")));

/* Whether a MIDR uses the common data-source encoding (record.c). */
bool pki_spe_common_source(uint32_t midr);

#endif
