/* PERF_SAMPLE_DATA_SRC as text, in perf 6.1's words (checked against
 * `perf script -F data_src` on hand-made files covering every bit). */
#include <pmukit/datasrc.h>

#include <stdio.h>
#include <string.h>

/* Field positions of union perf_mem_data_src. */
#define FIELD(v, shift, bits) ((unsigned)(((v) >> (shift)) & ((1u << (bits)) - 1)))
#define OP(v) FIELD(v, 0, 5)
#define LVL(v) FIELD(v, 5, 14)
#define SNOOP(v) FIELD(v, 19, 5)
#define LOCK(v) FIELD(v, 24, 2)
#define DTLB(v) FIELD(v, 26, 7)
#define LVL_NUM(v) FIELD(v, 33, 4)
#define REMOTE(v) FIELD(v, 37, 1)
#define SNOOPX(v) FIELD(v, 38, 2)
#define BLK(v) FIELD(v, 40, 3)
#define HOPS(v) FIELD(v, 43, 3)

/* mem_lvl bits from bit 0; bits 1 and 2 (hit, miss) are suffixes */
static const char *const lvl_names[14] = {
	"N/A", NULL, NULL, "L1", "LFB/MAB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
	"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
};
/* mem_lvl_num values; 1..8 print as "L<n>" */
static const char *const lvl_num_names[16] = {
	[9] = "CXL", [10] = "I/O", [11] = "Any cache", [12] = "LFB/MAB", [13] = "RAM",
	[14] = "PMEM", [15] = "N/A",
};
/* mem_hops 1..4; perf prints the missing names of 5..7 as "(null)" */
static const char *const hops_names[8] = {
	NULL, "core, same node", "node, same socket", "socket, same board", "board",
	"(null)", "(null)", "(null)",
};
static const char *const snoop_names[5] = {"N/A", "None", "Hit", "Miss", "HitM"};
static const char *const snoopx_names[2] = {"Fwd", "Peer"};
/* mem_dtlb bits; bits 1 and 2 (hit, miss) are suffixes */
static const char *const tlb_names[7] = {"N/A", NULL, NULL, "L1", "L2", "Walker", "Fault"};

/* A bounded string builder that still counts what did not fit. */
typedef struct sbuf {
	char *p;
	size_t size, len;
} sbuf;

static void put(sbuf *b, const char *s)
{
	size_t n = strlen(s);
	if (b->len < b->size) {
		size_t room = b->size - 1 - b->len;
		size_t k = n < room ? n : room;
		memcpy(b->p + b->len, s, k);
		b->p[b->len + k] = '\0';
	}
	b->len += n;
}

/* Names of the set bits of mask, joined by " or "; returns how many. */
static int put_bits(sbuf *b, unsigned mask, const char *const *names, size_t nr, int printed)
{
	for (size_t i = 0; i < nr; i++) {
		if (!(mask >> i & 1) || !names[i])
			continue;
		if (printed++)
			put(b, " or ");
		put(b, names[i]);
	}
	return printed;
}

/* mem_lvl and mem_dtlb share bit 1 (hit) and bit 2 (miss), shown last */
static void put_hit_miss(sbuf *b, unsigned mask)
{
	if (mask & 2)
		put(b, " hit");
	if (mask & 4)
		put(b, " miss");
}

static void part(sbuf *b, uint64_t v, pk_data_src_part which)
{
	switch (which) {
	case PK_DATA_SRC_OP: {
		static const char *const ops[5] = {"N/A", "LOAD", "STORE", "PFETCH", "EXEC"};
		unsigned op = OP(v);
		put(b, op ? ops[__builtin_ctz(op)] : "No");
		break;
	}
	case PK_DATA_SRC_LVL: {
		size_t start = b->len;
		if (REMOTE(v))
			put(b, "Remote ");
		if (HOPS(v)) {
			put(b, hops_names[HOPS(v)]);
			put(b, " ");
		}
		/* with hops, perf leaves the mem_lvl bits out */
		int printed = HOPS(v) ? 0 : put_bits(b, LVL(v), lvl_names, 14, 0);
		unsigned num = LVL_NUM(v);
		if (num) {
			if (printed++)
				put(b, " or ");
			if (lvl_num_names[num]) {
				put(b, lvl_num_names[num]);
			} else {
				char l[8];
				snprintf(l, sizeof(l), "L%u", num);
				put(b, l);
			}
		}
		if (b->len == start)
			put(b, "N/A");
		put_hit_miss(b, LVL(v));
		break;
	}
	case PK_DATA_SRC_SNOOP: {
		int printed = put_bits(b, SNOOP(v), snoop_names, 5, 0);
		if (!put_bits(b, SNOOPX(v), snoopx_names, 2, printed))
			put(b, "N/A");
		break;
	}
	case PK_DATA_SRC_TLB:
		if (!put_bits(b, DTLB(v), tlb_names, 7, 0))
			put(b, "N/A");
		put_hit_miss(b, DTLB(v));
		break;
	case PK_DATA_SRC_LOCK:
		put(b, LOCK(v) & 1 ? "N/A" : LOCK(v) & 2 ? "Yes" : "No");
		break;
	case PK_DATA_SRC_BLK:
		if (!BLK(v) || (BLK(v) & 1)) {
			put(b, " N/A");
		} else {
			if (BLK(v) & 2)
				put(b, " Data");
			if (BLK(v) & 4)
				put(b, " Addr");
		}
		break;
	}
}

size_t pk_data_src_part_format(uint64_t data_src, pk_data_src_part which, char *buf, size_t size)
{
	sbuf b = {buf, size, 0};
	if (size)
		buf[0] = '\0';
	part(&b, data_src, which);
	return b.len;
}

size_t pk_data_src_format(uint64_t data_src, char *buf, size_t size)
{
	static const char *const labels[] = {"|OP ", "|LVL ", "|SNP ", "|TLB ", "|LCK ", "|BLK "};
	sbuf b = {buf, size, 0};
	if (size)
		buf[0] = '\0';
	for (int i = 0; i <= PK_DATA_SRC_BLK; i++) {
		put(&b, labels[i]);
		part(&b, data_src, (pk_data_src_part)i);
	}
	return b.len;
}
