/* pmukit: the Intel Processor Trace (Intel PT) packet and trace decoders.
 *
 * A pure decoder over a byte buffer (the data of a perf.data AUXTRACE
 * record whose AUXTRACE_INFO is of type 1): bytes -> packets, each with
 * perf 6.1's `-D` text; and the trace decoder above it (second half of
 * this header): a queue's packets -> perf's synthesized events. No I/O,
 * never prints; the trace decoder's object is the only allocation. The packet
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

/* The words of an AUXTRACE_INFO record (rec: the record, header included,
 * native order, size bytes) into w (zeros past the record's): how many it
 * has, at most PK_IPT_INFO_WORDS. */
size_t pk_ipt_info_words(const uint8_t *rec, size_t size, uint64_t w[PK_IPT_INFO_WORDS]);

/* perf's `-D` text of an Intel PT AUXTRACE_INFO's words w[0..n) (and the
 * filter string after them, from w[n..] bytes raw_len): one "  NAME VALUE"
 * line per field perf prints, each ending in '\n', into out (truncated to
 * size). Returns the full text's length, or 0 when the record is too short
 * for perf to print any (fewer than PK_IPT_PER_CPU_MMAPS + 1 words). */
size_t pk_ipt_info_text(const uint64_t *w, size_t n, const char *filter, size_t filter_len,
			char *out, size_t size);

/* ---- The trace decoder: a queue's packets -> perf's synthesized events ----
 *
 * Walks the packets of one AUXTRACE queue (one CPU's buffers, in order)
 * and yields the events perf 6.1's Intel PT decoder gives: a PSB (with the
 * CBR of its PSB+ when it changed), branches perf samples (asynchronous
 * FUP -> TIP, trace ends FUP -> TIP.PGD), errors (with perf's codes) and,
 * with an instruction walker, the branches walked. Timestamps are in TSC
 * ticks: the TSC packets, moved on by MTC packets through TMA and the
 * TSC:CTC ratio (docs/intelpt.md, "Timing").
 *
 * Knowing where execution goes between packets needs the code of the
 * traced binaries: the walker hook reads it. pmukit has no x86 instruction
 * decoder yet, so a NULL walker means "the code is not there", which is
 * the case of a perf.data from another machine: every walk fails as perf's
 * does ("Failed to get instruction"). A walker returns PK_IPT_WALK_SKIP
 * where perf stays silent (code it already failed to read). */

/* perf's error codes ("instruction trace error type 1 ... code N: TEXT") */
enum pk_ipt_err_code {
	PK_IPT_ERR_NOMEM = 1, PK_IPT_ERR_INTERN, PK_IPT_ERR_BADPKT, PK_IPT_ERR_NODATA,
	PK_IPT_ERR_NOINSN, PK_IPT_ERR_MISMAT, PK_IPT_ERR_OVR, PK_IPT_ERR_LOST,
	PK_IPT_ERR_UNK, PK_IPT_ERR_NELOOP,
};
/* perf's text of an error code ("Failed to get instruction"). */
const char *pk_ipt_err_text(int code);

/* One instruction the walker stopped at. */
typedef enum pk_ipt_insn_kind {
	PK_IPT_INSN_STOP = 0, /* reached the stop IP (a FUP's) without a branch */
	PK_IPT_INSN_COND,     /* conditional branch: takes a TNT bit */
	PK_IPT_INSN_DIRECT,   /* jump or call to a known target */
	PK_IPT_INSN_INDIRECT, /* indirect jump or call, return: takes a TIP */
} pk_ipt_insn_kind;

typedef struct pk_ipt_insn {
	pk_ipt_insn_kind kind;
	uint64_t ip;     /* the instruction */
	uint64_t next;   /* the one after it (not taken) */
	uint64_t target; /* COND, DIRECT: where it goes when taken */
	bool call;       /* a call (DIRECT, INDIRECT) */
} pk_ipt_insn;

/* What a walk gives: 0 (insn filled), or: */
enum {
	PK_IPT_WALK_NOINSN = 1, /* the code at ip is not there: error NOINSN */
	PK_IPT_WALK_SKIP = 2,   /* not walkable, said before: resync silently */
};
/* Walks from ip to the first branch, or to stop (stop 0: none). */
typedef int (*pk_ipt_walk_fn)(void *arg, uint64_t ip, uint64_t stop, pk_ipt_insn *insn);

/* The AUXTRACE_INFO's timing parameters. */
typedef struct pk_ipt_params {
	unsigned mtc_period;          /* the MTC's CTC bit: 2^mtc_period CTC a step */
	uint32_t tsc_ctc_n, tsc_ctc_d; /* TSC ticks per CTC tick: n / d */
	pk_ipt_walk_fn walk;          /* NULL: no code (every walk fails) */
	void *walk_arg;
} pk_ipt_params;

/* The params from an AUXTRACE_INFO's words (pk_ipt_info_word) and the
 * intel_pt event's config (its MTC period field, bits 17:14). */
void pk_ipt_params_from_info(pk_ipt_params *p, const uint64_t *w, size_t n, uint64_t config);

typedef enum pk_ipt_ev_type {
	PK_IPT_EV_PSB = 1, /* a PSB: offset, ip (0 when unknown) */
	PK_IPT_EV_CBR,     /* the core:bus ratio changed: cbr */
	PK_IPT_EV_BRANCH,  /* ip -> to (to 0: trace end); flags */
	PK_IPT_EV_ERROR,   /* code at ip */
} pk_ipt_ev_type;

enum {
	PK_IPT_BR_CALL = 1 << 0,
	PK_IPT_BR_ASYNC = 1 << 1,      /* FUP -> TIP: interrupt, exception, syscall */
	PK_IPT_BR_TRACE_BEGIN = 1 << 2,
	PK_IPT_BR_TRACE_END = 1 << 3,
	PK_IPT_BR_COND = 1 << 4,
};

typedef struct pk_ipt_event {
	pk_ipt_ev_type type;
	uint64_t tsc;    /* the trace's time (TSC ticks); 0: no timestamp yet */
	uint64_t offset; /* the packet's offset in the queue's data */
	uint64_t ip, to;
	uint32_t flags;  /* BRANCH: PK_IPT_BR_* */
	uint32_t cbr;    /* CBR: the ratio */
	int code;        /* ERROR: pk_ipt_err_code */
} pk_ipt_event;

typedef struct pk_ipt_decoder pk_ipt_decoder;

/* A decoder at the start of a queue; NULL when out of memory. */
pk_ipt_decoder *pk_ipt_decoder_new(const pk_ipt_params *p);
void pk_ipt_decoder_free(pk_ipt_decoder *d);
/* The queue's next data (an AUXTRACE buffer): buf stays the caller's until
 * pk_ipt_next returns 0; offsets go on from the data given before. */
void pk_ipt_feed(pk_ipt_decoder *d, const uint8_t *buf, size_t len);
/* The next event: 1 (ev filled), 0 when the data fed is used up. */
int pk_ipt_next(pk_ipt_decoder *d, pk_ipt_event *ev);

#endif
