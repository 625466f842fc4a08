/* pmukit report: the sort keys (perf report -s) as a table; see report_keys.c. */
#ifndef PMUKIT_REPORT_KEYS_H
#define PMUKIT_REPORT_KEYS_H

#include "report.h"

/* What a key looks at for one entry. */
typedef struct rp_ctx {
	pk_machine *m;
	const pk_pd_sample *smp;
	const rp_loc *loc;           /* the entry's address: the sample's or a caller's */
	const rp_loc *chain;         /* the sample's chain, callee first */
	size_t nr_chain;
	const pk_pd_header *hdr;     /* CPU topology for socket; may be NULL */
	uint64_t time_quantum;       /* ns; 0: 100 ms */
	char level;                  /* the sample's "[k]" letter */
	bool ns;
	bool raw_trace;               /* the trace key: raw fields */
	struct pk_session *s;         /* the trace key: the session's tracing data */
	const pk_pd_evsel *evsel;     /* the sample's event */
	/* the branch view (-b): the branch entry and its two ends */
	const pk_pd_branch_entry *br;
	const rp_loc *from, *to;
} rp_ctx;

/* COUNT and PERIOD columns show the entry's samples and period; WEIGHT
 * (perf 6.1's global weight) entries of one sample weight showing their
 * summed weights, high first. The
 * branch keys' orders (perf 6.1's comparisons): DESC_TEXT names in reverse,
 * unresolved first (dso_from/to); ADDR resolved first, then by number
 * (symbol_from/to: symbol start or address); DESC_NUM numbers high first. */
enum rp_order { RP_ORD_TEXT, RP_ORD_NUM, RP_ORD_SYM, RP_ORD_COUNT, RP_ORD_PERIOD,
		RP_ORD_DESC_TEXT, RP_ORD_ADDR, RP_ORD_DESC_NUM, RP_ORD_WEIGHT };

/* The address a branch key looks at, and what makes it unresolved. */
enum rp_side { RP_SIDE_ENTRY, RP_SIDE_FROM, RP_SIDE_TO };
enum rp_unres { RP_U_NONE, RP_U_SYM, RP_U_MAP };

typedef struct rp_key {
	const char *name, *title;
	enum rp_order order;         /* how equal rows are ordered */
	bool pad_last;               /* padded to the width when the last column */
	bool right;                  /* title right-aligned */
	void (*fill)(const rp_ctx *c, char *buf, size_t n, uint64_t *num);
	bool branch;                 /* only in the branch view */
	enum rp_side side;
	enum rp_unres unres;
	int fixed_w;                 /* > 0: the column's width whatever its texts */
	bool level;                  /* printed after the entry's "[l] " (not in its text) */
} rp_key;

extern const rp_key rp_keys[];
#define RP_KEY_COMM 0 /* rp_keys[RP_KEY_COMM] is comm */
#define RP_KEY_DSO 2 /* rp_keys[RP_KEY_DSO] is dso */
#define RP_KEY_TRACE 16 /* rp_keys[RP_KEY_TRACE] is trace */
const rp_key *rp_key_find(const char *name);
/* Whether perf 6.1's Children pass never finds a chain function's entry
 * equal to one made earlier for the same sample: its temporary entry lacks
 * the key's value (socket, time), so the sample's period is added once per
 * chain function even when they all fall into one row. */
bool rp_key_children_repeat(const rp_key *k);
/* The column's least width (the title's, or perf's fixed width). */
int rp_key_width_min(const rp_key *k);
/* "name", "0x00000000000012ab": the symbol column's text after its "[k] "
 * (the level is the entry's: the cpumode of the sample that made it). */
void rp_sym_text(const rp_loc *l, char *b, size_t n);

#endif
