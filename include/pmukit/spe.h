/* pmukit: the Arm Statistical Profiling Extension (SPE) packet decoder.
 *
 * A pure decoder over a byte buffer (an AUX area as the kernel filled it,
 * the data of a perf.data AUXTRACE record, a raw WindowsPerf buffer):
 * bytes -> packets -> records. No I/O, no allocation, never prints; what
 * cannot be decoded comes back as data (a warning with its offset) and
 * decoding goes on one byte further, as the hardware's stream allows.
 *
 * Packets are classified by a 256-entry table on the header byte (the
 * encodings of docs/spe.md); a record is every packet up to and including
 * the TIMESTAMP or END that closes it.
 *
 * lib/spe (docs/spe.md), the decoder: packet.c (the 256-entry table on the
 * header byte, packets, perf's -D text and dump lines); record.c (packets
 * gathered into records ended by TIMESTAMP or END, PAD skipped, undecodable
 * bytes returned as warnings with their offset); info.c (AUXTRACE_INFO
 * metadata v1/v2); synth.c (perf 6.1's synthetic sample kinds, --itrace,
 * sample fields and perf_mem_data_src); export.c (a record's fields as
 * spe-parser's named columns for CSV/JSONL). No I/O, no allocation per
 * packet. Internal spe/spe_internal.h: the header table, each entry's type,
 * size, index and the record loop's mask, tag, slot, step, flow.
 *
 * Recording (spe_rec.c, pmukit/spe_record.h): an arm_spe event's terms read
 * back through the PMU's formats, the driver's rules (pk_spe_check:
 * filterable events, privilege, frequency; pk_spe_period: the interval the
 * driver programs, raised to caps/min_interval), the AUXTRACE_INFO writer;
 * used by `record` and by the model's SPE unit. The AUX data of a perf.data
 * becomes samples in lib/session (pd_spe.c). */
#ifndef PMUKIT_SPE_H
#define PMUKIT_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmukit/error.h>

typedef enum pk_spe_pkt_type {
	PK_SPE_BAD = 0,          /* undecodable header byte, or a payload past the end */
	PK_SPE_PAD,
	PK_SPE_END,
	PK_SPE_TIMESTAMP,
	PK_SPE_EVENTS,
	PK_SPE_DATA_SOURCE,
	PK_SPE_CONTEXT,
	PK_SPE_OP_TYPE,
	PK_SPE_ADDRESS,
	PK_SPE_COUNTER,
} pk_spe_pkt_type;

/* ADDRESS indices */
enum { PK_SPE_ADDR_PC = 0, PK_SPE_ADDR_TGT = 1, PK_SPE_ADDR_VA = 2, PK_SPE_ADDR_PA = 3,
       PK_SPE_ADDR_PBT = 4 };
/* COUNTER indices */
enum { PK_SPE_CNT_TOTAL = 0, PK_SPE_CNT_ISSUE = 1, PK_SPE_CNT_XLAT = 2 };
/* OPERATION TYPE classes */
enum { PK_SPE_OP_OTHER = 0, PK_SPE_OP_LDST = 1, PK_SPE_OP_BRANCH = 2 };

/* EVENTS packet bits */
enum {
	PK_SPE_EV_EXCEPTION_GEN = 0, PK_SPE_EV_RETIRED = 1, PK_SPE_EV_L1D_ACCESS = 2,
	PK_SPE_EV_L1D_REFILL = 3, PK_SPE_EV_TLB_ACCESS = 4, PK_SPE_EV_TLB_WALK = 5,
	PK_SPE_EV_NOT_TAKEN = 6, PK_SPE_EV_MISPRED = 7, PK_SPE_EV_LLC_ACCESS = 8,
	PK_SPE_EV_LLC_MISS = 9, PK_SPE_EV_REMOTE_ACCESS = 10, PK_SPE_EV_ALIGNMENT = 11,
	PK_SPE_EV_TXN = 16, PK_SPE_EV_SVE_PARTIAL_PRED = 17, PK_SPE_EV_SVE_EMPTY_PRED = 18,
	PK_SPE_EV_L2D_ACCESS = 19, PK_SPE_EV_L2D_MISS = 20, PK_SPE_EV_HITM = 21,
	PK_SPE_EV_LFB = 22, PK_SPE_EV_SNOOPED = 23, PK_SPE_EV_STREAMING_SVE = 24,
	PK_SPE_EV_SMCU = 25,
};

/* MIDR values (implementer, part; variant/revision masked) the decoder knows. */
#define PK_SPE_MIDR_MASK 0xff0ffff0u
#define PK_SPE_MIDR_NEOVERSE_N1 0x410fd0c0u

typedef struct pk_spe_packet {
	uint8_t type;            /* pk_spe_pkt_type */
	uint8_t index;           /* address/counter index, op class, context EL index */
	uint8_t len;             /* bytes, headers included */
	uint8_t payload_len;     /* bytes of payload (0, 1, 2, 4, 8) */
	uint8_t hdr;             /* the (last) header byte */
	uint64_t payload;        /* little-endian payload, zero-extended */
} pk_spe_packet;

/* Decodes the packet at buf[pos] (pos is the offset in the whole buffer,
 * for the alignment of extended PAD headers). Returns its length (> 0),
 * or 0 when pos == len. A BAD packet has len 1 (resync by byte) and the
 * decoder says why in *why when why is not NULL. */
int pk_spe_packet_decode(const uint8_t *buf, size_t len, size_t pos, pk_spe_packet *pkt,
			 const char **why);
/* perf's `-D` text of a packet ("LD GP-REG", "PC 0x... el2 ns=1"); midr
 * selects IMPLEMENTATION DEFINED names (0: none). Returns the length
 * written (truncated to size - 1, always terminated). */
int pk_spe_packet_desc(const pk_spe_packet *pkt, uint32_t midr, char *buf, size_t size);

/* One line of perf's `-D` dump (".  %08x:  bytes...   text", no newline)
 * for the packet at buf[pos]; size >= 96 (a line's text fits in 256).
 * Returns the packet's length (bytes to advance), 0 at the end. */
int pk_spe_dump_line(const uint8_t *buf, size_t len, size_t pos, uint32_t midr, char *line,
		     size_t size);

/* Fields present in a record (pk_spe_record.present). */
enum {
	PK_SPE_HAS_PC = 1u << 0, PK_SPE_HAS_TGT = 1u << 1, PK_SPE_HAS_VA = 1u << 2,
	PK_SPE_HAS_PA = 1u << 3, PK_SPE_HAS_PBT = 1u << 4, PK_SPE_HAS_TS = 1u << 5,
	PK_SPE_HAS_CONTEXT = 1u << 6, PK_SPE_HAS_OP = 1u << 7, PK_SPE_HAS_EVENTS = 1u << 8,
	PK_SPE_HAS_SOURCE = 1u << 9, PK_SPE_HAS_TOT = 1u << 10, PK_SPE_HAS_ISSUE = 1u << 11,
	PK_SPE_HAS_XLAT = 1u << 12,
};

/* One sampled operation. Addresses are as perf stores them: PC/TGT/PBT
 * bits [55:0] with the top byte 0xff for NS=1 at EL1/EL2; VA without its
 * tag, top byte 0xff when bits [55:52] are all ones; PA bits [55:0]. */
typedef struct pk_spe_record {
	uint64_t offset;         /* of its first packet in the buffer */
	uint64_t end;            /* one past its last packet */
	uint32_t present;        /* PK_SPE_HAS_* */
	bool closed;             /* ended by TIMESTAMP or END (else: data ran out) */
	uint64_t pc, tgt, pbt, va, pa;
	uint8_t pc_el, tgt_el, pbt_el;
	bool pc_ns, tgt_ns, pbt_ns, pa_ns, pa_ch;
	uint8_t va_tag, pa_pat;
	uint64_t timestamp;
	uint32_t context;
	uint8_t context_idx;     /* 0: CONTEXTIDR_EL1, 1: CONTEXTIDR_EL2 */
	uint8_t op_class;        /* PK_SPE_OP_* */
	uint8_t op;              /* the operation type payload */
	uint64_t events;         /* EVENTS payload */
	uint64_t source;         /* DATA SOURCE payload */
	uint16_t lat_total, lat_issue, lat_xlat;
	uint32_t nr_packets, nr_bad;
} pk_spe_record;

/* The record decoder: a cursor over one buffer. */
typedef struct pk_spe_decoder {
	const uint8_t *buf;
	size_t len, pos;
	uint64_t base;           /* added to offsets in warnings and records */
	/* the last warning (set when pk_spe_next returns PK_SPE_WARN) */
	uint64_t warn_offset;
	const char *warn;
	uint64_t nr_bad;         /* undecodable bytes so far */
} pk_spe_decoder;

enum { PK_SPE_DONE = 0, PK_SPE_RECORD = 1, PK_SPE_WARN = 2 };

void pk_spe_decoder_init(pk_spe_decoder *d, const uint8_t *buf, size_t len, uint64_t base);
/* The next record: PK_SPE_RECORD (rec filled; rec->closed false for a
 * last, unterminated record), PK_SPE_WARN (d->warn, d->warn_offset: a byte
 * skipped; call again to go on), PK_SPE_DONE at the end. */
int pk_spe_next(pk_spe_decoder *d, pk_spe_record *rec);

/* Name of a data source value for a MIDR (spe-parser's names: "L1D",
 * "L2D", "DRAM", ...); NULL when the MIDR's encoding is unknown or the
 * value has no name. */
const char *pk_spe_source_name(uint32_t midr, uint64_t source);

/* ---- Synthetic samples (perf's, from records) ---- */

/* Sample kinds, in the order perf makes them from one record. */
enum {
	PK_SPE_K_L1D_MISS, PK_SPE_K_L1D_ACCESS, PK_SPE_K_LLC_MISS, PK_SPE_K_LLC_ACCESS,
	PK_SPE_K_TLB_MISS, PK_SPE_K_TLB_ACCESS, PK_SPE_K_BRANCH_MISS, PK_SPE_K_REMOTE_ACCESS,
	PK_SPE_K_MEMORY, PK_SPE_K_INSTRUCTIONS, PK_SPE_NR_KINDS
};
/* "l1d-miss", ..., "instructions"; NULL out of range. */
const char *pk_spe_kind_name(unsigned kind);
/* The kinds (bit per PK_SPE_K_*) a record gives, by perf 6.1's rules:
 * the events (branch-miss: MISPRED), memory for a load/store, and
 * instructions for every record. */
uint32_t pk_spe_record_kinds(const pk_spe_record *r);

/* --itrace for SPE: f (l1d) m (llc) t (tlb) b (branch-miss) a (remote) M
 * (memory) i (instructions) l (last branch), i<N>i: every Nth record. */
typedef struct pk_spe_itrace {
	uint32_t kinds;
	uint64_t period;             /* instructions: every period-th record */
	bool last_branch;
} pk_spe_itrace;
/* perf's default (no --itrace): every kind but instructions. */
void pk_spe_itrace_default(pk_spe_itrace *it);
/* Letters of other traces (x w p o e) are accepted and ignored; an unknown
 * letter or a bad period is an error with its position. */
int pk_spe_itrace_parse(const char *s, pk_spe_itrace *it, pk_error *err);

typedef struct pk_spe_sample {
	unsigned kind;
	uint64_t ip, addr, phys_addr, weight, data_src, time;
	uint32_t tid;                /* from CONTEXT, when has_tid */
	bool has_tid, kernel;
} pk_spe_sample;
/* union perf_mem_data_src of a load/store record (0 otherwise): the
 * common table of Arm's cores by MIDR, else perf's generic fallback from
 * the events; the TLB part from TLB-ACCESS/TLB-REFILL. */
uint64_t pk_spe_data_src(const pk_spe_record *r, uint32_t midr);
/* One sample of a kind: ip = PC, addr = VA (memory kinds) or branch target,
 * weight = total latency, phys_addr and data_src but for branch-miss. */
void pk_spe_sample_fill(const pk_spe_record *r, unsigned kind, uint32_t midr, pk_spe_sample *s);

/* ---- Records as table rows (CSV, JSON Lines exports) ---- */

/* Columns, named as Arm's spe-parser names them. */
enum {
	PK_SPE_COL_OP, PK_SPE_COL_PC, PK_SPE_COL_EL, PK_SPE_COL_CONDITION, PK_SPE_COL_INDIRECT,
	PK_SPE_COL_EVENT, PK_SPE_COL_ISSUE_LAT, PK_SPE_COL_TOTAL_LAT, PK_SPE_COL_XLAT_LAT,
	PK_SPE_COL_BR_TGT, PK_SPE_COL_BR_TGT_LVL, PK_SPE_COL_PBT, PK_SPE_COL_PBT_LVL,
	PK_SPE_COL_VADDR, PK_SPE_COL_PADDR, PK_SPE_COL_DATA_SOURCE, PK_SPE_COL_CONTEXT,
	PK_SPE_COL_TS, PK_SPE_NR_COLUMNS
};
/* "op", "pc", ... "ts"; NULL out of range. */
const char *pk_spe_column_name(unsigned col);
/* Whether the column's values are numbers (JSON numbers, not strings). */
bool pk_spe_column_numeric(unsigned col);
/* A record's value in a column as spe-parser prints it ("LD", "0x...",
 * "RETIRED:L1D-ACCESS", "DRAM"); the empty text when the record lacks the
 * field. Returns snprintf's count. */
int pk_spe_record_column(const pk_spe_record *r, unsigned col, uint32_t midr, char *out,
			 size_t size);

/* ---- perf.data: PERF_RECORD_AUXTRACE_INFO of type Arm SPE ---- */

struct pk_pd_event;

typedef struct pk_spe_cpu_info {
	uint32_t cpu;
	uint32_t midr;
	uint64_t pmu_type;           /* UINT64_MAX: this CPU has no SPE */
	uint64_t min_interval;
} pk_spe_cpu_info;

typedef struct pk_spe_info {
	int version;                 /* 1 (<= perf 6.12) or 2 (per-CPU metadata) */
	uint64_t pmu_type;
	bool per_cpu_mmaps;          /* v1 only */
	pk_spe_cpu_info *cpus;       /* v2 only */
	size_t nr_cpus;
} pk_spe_info;

#define PK_AUXTRACE_ARM_SPE 4

/* Parses an AUXTRACE_INFO record: 0, -ENOENT when its type is not Arm SPE,
 * -EINVAL when damaged (err says where), -ENOMEM. */
int pk_spe_info_parse(const struct pk_pd_event *ev, pk_spe_info *out, pk_error *err);
/* The MIDR of a CPU (v2), else fallback (v1 files: the CPUID feature). */
uint32_t pk_spe_info_midr(const pk_spe_info *info, uint32_t cpu, uint32_t fallback);
void pk_spe_info_release(pk_spe_info *info);

#endif
