/* Arm SPE records as perf's synthetic samples: which kinds a record gives
 * (l1d-miss ... instructions, in perf's order), the --itrace options that
 * select them, and each sample's fields: ip, addr, phys_addr, weight (the
 * total latency), perf_mem_data_src (the Neoverse/Cortex table by MIDR,
 * else the generic fallback from the events) and the TID of a CONTEXT
 * packet. Pure functions over a record; no allocation, no I/O. */
#include <pmukit/spe.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "spe/spe_internal.h"

static const char *const kind_names[PK_SPE_NR_KINDS] = {
	"l1d-miss", "l1d-access", "llc-miss", "llc-access", "tlb-miss", "tlb-access",
	"branch-miss", "remote-access", "memory", "instructions",
};

const char *pk_spe_kind_name(unsigned kind)
{
	return kind < PK_SPE_NR_KINDS ? kind_names[kind] : NULL;
}

/* The kind an EVENTS bit gives (0: none): kinds 0 to 7 are event-driven
 * (memory is decided by the op, instructions is every record). */
#define KIND_OF_EVENT(b)                                                                       \
	((b) == PK_SPE_EV_L1D_REFILL      ? 1u << PK_SPE_K_L1D_MISS                          \
	 : (b) == PK_SPE_EV_L1D_ACCESS    ? 1u << PK_SPE_K_L1D_ACCESS                        \
	 : (b) == PK_SPE_EV_LLC_MISS      ? 1u << PK_SPE_K_LLC_MISS                          \
	 : (b) == PK_SPE_EV_LLC_ACCESS    ? 1u << PK_SPE_K_LLC_ACCESS                        \
	 : (b) == PK_SPE_EV_TLB_WALK      ? 1u << PK_SPE_K_TLB_MISS                          \
	 : (b) == PK_SPE_EV_TLB_ACCESS    ? 1u << PK_SPE_K_TLB_ACCESS                        \
	 : (b) == PK_SPE_EV_MISPRED       ? 1u << PK_SPE_K_BRANCH_MISS                       \
	 : (b) == PK_SPE_EV_REMOTE_ACCESS ? 1u << PK_SPE_K_REMOTE_ACCESS                     \
					  : 0u)
_Static_assert(PK_SPE_K_MEMORY == 8 && PK_SPE_K_INSTRUCTIONS == 9 && PK_SPE_EV_L1D_ACCESS < 16 &&
		       PK_SPE_EV_LLC_MISS < 16 && PK_SPE_EV_REMOTE_ACCESS < 16 &&
		       PK_SPE_EV_LLC_ACCESS < 16 && PK_SPE_EV_TLB_WALK < 16 &&
		       PK_SPE_EV_MISPRED < 16 && PK_SPE_EV_L1D_REFILL < 16 &&
		       PK_SPE_EV_TLB_ACCESS < 16,
	       "the event-driven kinds come first, from the low 16 EVENTS bits");

/* The kinds of byte v of the EVENTS payload at bit lo (0 or 8): one table
 * lookup per byte, no branch per kind (a record's events are data). */
#define KB(v, lo, i) ((v) >> (i) & 1 ? KIND_OF_EVENT((lo) + (i)) : 0u)
#define KBYTE(v, lo)                                                                           \
	(uint16_t)(KB(v, lo, 0) | KB(v, lo, 1) | KB(v, lo, 2) | KB(v, lo, 3) | KB(v, lo, 4) |      \
		   KB(v, lo, 5) | KB(v, lo, 6) | KB(v, lo, 7))
#define KLO(v) KBYTE(v, 0)
#define KHI(v) KBYTE(v, 8)
#define R4(b, X) X(b), X((b) + 1), X((b) + 2), X((b) + 3)
#define R16(b, X) R4(b, X), R4((b) + 4, X), R4((b) + 8, X), R4((b) + 12, X)
#define R64(b, X) R16(b, X), R16((b) + 16, X), R16((b) + 32, X), R16((b) + 48, X)
#define R256(X) R64(0, X), R64(64, X), R64(128, X), R64(192, X)
static const uint16_t kinds_lo[256] = {R256(KLO)}, kinds_hi[256] = {R256(KHI)};

uint32_t pk_spe_record_kinds(const pk_spe_record *r)
{
	uint64_t ev = r->events;
	uint32_t k = kinds_lo[ev & 0xff] | kinds_hi[ev >> 8 & 0xff] | 1u << PK_SPE_K_INSTRUCTIONS;
	bool mem = (r->present & PK_SPE_HAS_OP) && r->op_class == PK_SPE_OP_LDST;
	return k | (uint32_t)mem << PK_SPE_K_MEMORY;
}

/* --itrace letters: the kinds each selects. */
static const struct {
	char letter;
	uint32_t kinds;
} letters[] = {
	{'f', 1u << PK_SPE_K_L1D_MISS | 1u << PK_SPE_K_L1D_ACCESS},
	{'m', 1u << PK_SPE_K_LLC_MISS | 1u << PK_SPE_K_LLC_ACCESS},
	{'t', 1u << PK_SPE_K_TLB_MISS | 1u << PK_SPE_K_TLB_ACCESS},
	{'b', 1u << PK_SPE_K_BRANCH_MISS},
	{'a', 1u << PK_SPE_K_REMOTE_ACCESS},
	{'M', 1u << PK_SPE_K_MEMORY},
	{'i', 1u << PK_SPE_K_INSTRUCTIONS},
};

void pk_spe_itrace_default(pk_spe_itrace *it)
{
	/* perf's default letters; instructions need an i<N>i period */
	memset(it, 0, sizeof(*it));
	it->kinds = ((1u << PK_SPE_NR_KINDS) - 1) & ~(1u << PK_SPE_K_INSTRUCTIONS);
	it->period = 1;
}

int pk_spe_itrace_parse(const char *s, pk_spe_itrace *it, pk_error *err)
{
	memset(it, 0, sizeof(*it));
	it->period = 1;
	for (const char *p = s; *p; p++) {
		size_t i = 0;
		while (i < sizeof letters / sizeof letters[0] && letters[i].letter != *p)
			i++;
		if (*p == 'l') {
			it->last_branch = true;
		} else if (i < sizeof letters / sizeof letters[0]) {
			it->kinds |= letters[i].kinds;
			if (*p == 'i' && p[1] >= '0' && p[1] <= '9') { /* i<N>i: the period */
				char *end;
				unsigned long long n = strtoull(p + 1, &end, 10);
				if (*end != 'i' || !n)
					return pk_err_at(err, -EINVAL, "--itrace", s, (long)(end - s), "Arm SPE "
							 "--itrace period must be i<N>i with N > 0 "
							 "instructions (e.g. i100i)");
				it->period = n;
				p = end;
			}
		} else if (!strchr("xwpoecr", *p)) { /* letters of other traces: ignored */
			return pk_err_at(err, -EINVAL, "--itrace", s, (long)(p - s),
					 "unknown --itrace letter '%c' for Arm SPE (f m t b a M i l, "
					 "i<N>i)", *p);
		}
	}
	return 0;
}

/* Data source encodings: the common one of Arm's cores by MIDR. */
enum { SRC_L1D = 0x0, SRC_L2 = 0x8, SRC_PEER_CORE = 0x9, SRC_LOCAL_CLUSTER = 0xa,
       SRC_SYS_CACHE = 0xb, SRC_PEER_CLUSTER = 0xc, SRC_REMOTE = 0xd, SRC_DRAM = 0xe };

static void common_source(union perf_mem_data_src *d, uint64_t src)
{
	switch (src) {
	case SRC_L1D: d->mem_lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT; d->mem_lvl_num = PERF_MEM_LVLNUM_L1; d->mem_snoop = PERF_MEM_SNOOP_NONE; break;
	case SRC_L2: d->mem_lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT; d->mem_lvl_num = PERF_MEM_LVLNUM_L2; d->mem_snoop = PERF_MEM_SNOOP_NONE; break;
	case SRC_PEER_CORE: d->mem_lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT; d->mem_lvl_num = PERF_MEM_LVLNUM_L2; d->mem_snoopx = PERF_MEM_SNOOPX_PEER; break;
	case SRC_LOCAL_CLUSTER:
	case SRC_PEER_CLUSTER: d->mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT; d->mem_lvl_num = PERF_MEM_LVLNUM_L3; d->mem_snoopx = PERF_MEM_SNOOPX_PEER; break;
	case SRC_SYS_CACHE: d->mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT; d->mem_lvl_num = PERF_MEM_LVLNUM_L3; d->mem_snoop = PERF_MEM_SNOOP_HIT; break;
	/* perf 6.1 (observed): level and level number N/A, remote, peer snoop */
	case SRC_REMOTE: d->mem_lvl = PERF_MEM_LVL_NA; d->mem_lvl_num = PERF_MEM_LVLNUM_NA; d->mem_remote = PERF_MEM_REMOTE_REMOTE; d->mem_snoopx = PERF_MEM_SNOOPX_PEER; break;
	case SRC_DRAM: d->mem_lvl = PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT; d->mem_lvl_num = PERF_MEM_LVLNUM_RAM; d->mem_snoop = PERF_MEM_SNOOP_NONE; break;
	default: break;
	}
}

/* Unknown cores: the level from the events (LLC before L1D), remote. */
static void generic_source(union perf_mem_data_src *d, uint64_t ev)
{
	if (ev & (1ull << PK_SPE_EV_LLC_ACCESS | 1ull << PK_SPE_EV_LLC_MISS))
		d->mem_lvl = PERF_MEM_LVL_L3 |
			     (ev & 1ull << PK_SPE_EV_LLC_MISS ? PERF_MEM_LVL_MISS : PERF_MEM_LVL_HIT);
	else if (ev & (1ull << PK_SPE_EV_L1D_ACCESS | 1ull << PK_SPE_EV_L1D_REFILL))
		d->mem_lvl = PERF_MEM_LVL_L1 |
			     (ev & 1ull << PK_SPE_EV_L1D_REFILL ? PERF_MEM_LVL_MISS : PERF_MEM_LVL_HIT);
	if (ev & 1ull << PK_SPE_EV_REMOTE_ACCESS)
		d->mem_lvl |= PERF_MEM_LVL_REM_CCE1;
}

uint64_t pk_spe_data_src(const pk_spe_record *r, uint32_t midr)
{
	if (!(r->present & PK_SPE_HAS_OP) || r->op_class != PK_SPE_OP_LDST)
		return 0;
	union perf_mem_data_src d = {.val = 0};
	bool store = r->op & 1;
	d.mem_op = store ? PERF_MEM_OP_STORE : PERF_MEM_OP_LOAD;
	if (pki_spe_common_source(midr)) {
		if (store) {
			d.mem_lvl = PERF_MEM_LVL_NA;
			d.mem_lvl_num = PERF_MEM_LVLNUM_NA;
			d.mem_snoop = PERF_MEM_SNOOP_NA;
		} else {
			/* no DATA SOURCE packet: perf's zeroed record says 0, L1D */
			common_source(&d, r->present & PK_SPE_HAS_SOURCE ? r->source : 0);
		}
	} else {
		generic_source(&d, r->events);
	}
	if (r->events & (1ull << PK_SPE_EV_TLB_ACCESS | 1ull << PK_SPE_EV_TLB_WALK))
		d.mem_dtlb = PERF_MEM_TLB_WK | (r->events & 1ull << PK_SPE_EV_TLB_WALK
							? PERF_MEM_TLB_MISS : PERF_MEM_TLB_HIT);
	return d.val;
}

void pk_spe_sample_fill(const pk_spe_record *r, unsigned kind, uint32_t midr, pk_spe_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->ip = r->pc;
	s->kernel = (r->present & PK_SPE_HAS_PC) && r->pc_el != 0;
	s->time = r->timestamp;
	s->weight = r->lat_total;
	s->has_tid = r->present & PK_SPE_HAS_CONTEXT;
	s->tid = r->context;
	/* perf 6.1: the data address but for branch-miss (the target) */
	s->addr = kind != PK_SPE_K_BRANCH_MISS ? r->va : r->tgt;
	if (kind != PK_SPE_K_BRANCH_MISS) {
		s->phys_addr = r->pa;
		s->data_src = pk_spe_data_src(r, midr);
	}
}
