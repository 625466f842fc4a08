/* pmukit: the Intel Processor Trace (Intel PT) packet decoder.
 *
 * A pure decoder over a byte buffer (the data of a perf.data AUXTRACE
 * record whose AUXTRACE_INFO is of type 1): bytes -> packets, each with
 * perf 6.1's `-D` text. No I/O, no allocation, never prints. The packet
 * formats are those of the Intel SDM Vol. 3, chapter "Intel Processor
 * Trace"; docs/intelpt.md lists them.
 *
 * Packets are classified by a 256-entry table on the header byte (and a
 * second one on the byte after the 0x02 extended header). A decoder keeps
 * one piece of state, the block context (BBP ... BEP: which header bytes
 * are BIP packets, and their payload size).
 *
 * lib/intelpt's files: packet.c (the two tables give each packet's kind,
 * type, length and payload bytes; the irregular ones, TNT, CYC, MODE, PSB,
 * TMA, MNT, BBP, CFE, EVD, have code of their own; the block context for
 * BIP; reserved and cut encodings are BAD, one byte; the zero bytes after a
 * packet are shown on its line, as perf does); desc.c (perf 6.1's packet
 * texts and -D lines); info.c (the AUXTRACE_INFO (type 1) fields as perf's
 * -D prints them). The CLI's -D prints them (tools/pmukit/pd_ipt.c). */
#ifndef PMUKIT_INTELPT_H
#define PMUKIT_INTELPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum pk_ipt_pkt_type {
	PK_IPT_BAD = 0, /* undecodable bytes, or a packet cut by the end of the data */
	PK_IPT_PAD,
	PK_IPT_TNT,       /* short (1 byte) or long (8 bytes) */
	PK_IPT_TIP_PGD,
	PK_IPT_TIP_PGE,
	PK_IPT_TSC,
	PK_IPT_TMA,
	PK_IPT_MODE_EXEC,
	PK_IPT_MODE_TSX,
	PK_IPT_MTC,
	PK_IPT_TIP,
	PK_IPT_FUP,
	PK_IPT_CYC,
	PK_IPT_VMCS,
	PK_IPT_PSB,
	PK_IPT_PSBEND,
	PK_IPT_CBR,
	PK_IPT_TRACESTOP,
	PK_IPT_PIP,
	PK_IPT_OVF,
	PK_IPT_MNT,
	PK_IPT_PTWRITE,
	PK_IPT_PTWRITE_IP,
	PK_IPT_EXSTOP,
	PK_IPT_EXSTOP_IP,
	PK_IPT_MWAIT,
	PK_IPT_PWRE,
	PK_IPT_PWRX,
	PK_IPT_BBP,
	PK_IPT_BIP,
	PK_IPT_BEP,
	PK_IPT_BEP_IP,
	PK_IPT_CFE,
	PK_IPT_CFE_IP,
	PK_IPT_EVD,
	PK_IPT_NR_TYPES
} pk_ipt_pkt_type;

/* The block context: outside a block, or in one whose BIP packets carry
 * 4 or 8 payload bytes. */
typedef enum pk_ipt_ctx { PK_IPT_NO_CTX = 0, PK_IPT_BLK4_CTX, PK_IPT_BLK8_CTX } pk_ipt_ctx;

/* One packet. `len` counts the packet's own bytes; `span` adds the zero
 * bytes (PAD) right after it that perf's dump shows on the same line (up
 * to 8 bytes in all). `payload`: TNT: the taken/not-taken bits, first at
 * bit 63; TIP/FUP: the IP bytes as stored (not decompressed); TMA: CTC;
 * MODE.Exec: 16, 32 or 64; otherwise the packet's value. `count`: TNT: the
 * number of bits; TIP/FUP: the IPBytes field; TMA: FC; MODE.Exec: its
 * byte; BBP: SZ; BIP: ID; CFE/EVD: the type. */
typedef struct pk_ipt_packet {
	pk_ipt_pkt_type type;
	uint8_t len;
	uint8_t span;
	uint32_t count;
	uint64_t payload;
} pk_ipt_packet;

/* Decodes the packet at buf[0..len) in block context *ctx and moves *ctx
 * on. Returns the packet's bytes (>= 1); a BAD packet is one byte long
 * (the stream goes on at the next byte). len must be >= 1. */
size_t pk_ipt_decode(const uint8_t *buf, size_t len, pk_ipt_ctx *ctx, pk_ipt_packet *pkt);

/* The packet's name as perf prints it ("TIP.PGE", "MODE.Exec", ...). */
const char *pk_ipt_pkt_name(pk_ipt_pkt_type type);

/* The packet's text in perf's dump ("TNT TTNT (4)", "TIP 0x4005d0"),
 * truncated to size bytes (NUL-terminated when size > 0). Returns the
 * length of the full text. */
size_t pk_ipt_pkt_desc(const pk_ipt_packet *pkt, char *out, size_t size);

/* One line of perf's `-D` dump of the data at buf[pos..len): ".  OFFSET:",
 * the bytes padded to 16 columns and the packet text, no newline, into
 * line (size >= PK_IPT_LINE_MAX). Returns the bytes the line covers (0 at
 * the end of the data). */
enum { PK_IPT_LINE_MAX = 320 };
size_t pk_ipt_dump_line(const uint8_t *buf, size_t len, size_t pos, pk_ipt_ctx *ctx,
			char *line, size_t size);

/* AUXTRACE_INFO of type 1 (Intel PT): the u64 words after the record's
 * type and reserved fields, as perf writes them. */
enum { PK_IPT_AUXTRACE_TYPE = 1 };
enum pk_ipt_info_word {
	PK_IPT_PMU_TYPE, PK_IPT_TIME_SHIFT, PK_IPT_TIME_MULT, PK_IPT_TIME_ZERO,
	PK_IPT_CAP_USER_TIME_ZERO, PK_IPT_TSC_BIT, PK_IPT_NORETCOMP_BIT,
	PK_IPT_HAVE_SCHED_SWITCH, PK_IPT_SNAPSHOT_MODE, PK_IPT_PER_CPU_MMAPS,
	PK_IPT_MTC_BIT, PK_IPT_MTC_FREQ_BITS, PK_IPT_TSC_CTC_N, PK_IPT_TSC_CTC_D,
	PK_IPT_CYC_BIT, PK_IPT_MAX_NONTURBO_RATIO, PK_IPT_FILTER_STR_LEN,
	PK_IPT_INFO_WORDS
};

/* perf's `-D` text of an Intel PT AUXTRACE_INFO's words w[0..n) (and the
 * filter string after them, from w[n..] bytes raw_len): one "  NAME VALUE"
 * line per field perf prints, each ending in '\n', into out (truncated to
 * size). Returns the full text's length, or 0 when the record is too short
 * for perf to print any (fewer than PK_IPT_PER_CPU_MMAPS + 1 words). */
size_t pk_ipt_info_text(const uint64_t *w, size_t n, const char *filter, size_t filter_len,
			char *out, size_t size);

#endif
