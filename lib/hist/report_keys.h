/* libpmukit: report's sort keys (perf report -s) as a table; see report_keys.c. */
#ifndef PMUKIT_REPORT_KEYS_H
#define PMUKIT_REPORT_KEYS_H

#include "report.h"

/* What a key looks at for one entry. */
typedef struct pki_hist_ctx {
	pk_machine *m;
	const pk_pd_sample *smp;
	const pki_hist_loc *loc;           /* the entry's address: the sample's or a caller's */
	const pki_hist_loc *chain;         /* the sample's chain, callee first */
	size_t nr_chain;
	const pk_pd_header *hdr;     /* CPU topology for socket; may be NULL */
	uint64_t time_quantum;       /* ns; 0: 100 ms */
	char level;                  /* the sample's "[k]" letter */
	bool ns;
	bool raw_trace;               /* the trace key: raw fields */
	bool verbose;                 /* -v: the dso key by its path */
	bool chain_made;              /* loc is a chain's address (not the sample's own) */
	struct pk_session *s;         /* the trace key: the session's tracing data */
	const pk_pd_evsel *evsel;     /* the sample's event */
	const pk_hist *hist;          /* the parent key: its pattern */
	/* the branch view (-b): the branch entry and its two ends */
	const pk_pd_branch_entry *br;
	const pki_hist_loc *from, *to;
} pki_hist_ctx;

/* A row of the key table: the public description, then how the key's
 * text and number are made for a sample. */
typedef struct pki_hist_keydef {
	pk_hist_key k;
	void (*fill)(const pki_hist_ctx *c, char *buf, size_t n, uint64_t *num);
} pki_hist_keydef;

extern const pki_hist_keydef pki_hist_keys[];
#define PKI_HIST_KEY_COMM 1 /* pki_hist_keys[PKI_HIST_KEY_COMM] is comm */
#define PKI_HIST_KEY_DSO 2 /* pki_hist_keys[PKI_HIST_KEY_DSO] is dso */

/* The fill of a key of the table (every pk_hist_key is one's first member). */
static inline void pki_hist_key_fill(const pk_hist_key *k, const pki_hist_ctx *c, char *buf,
				     size_t n, uint64_t *num)
{
	((const pki_hist_keydef *)(const void *)k)->fill(c, buf, n, num);
}

/* Whether perf 6.1's Children pass never finds a chain function's entry
 * equal to one made earlier for the same sample: its temporary entry lacks
 * the key's value (socket, time), so the sample's period is added once per
 * chain function even when they all fall into one row. */
bool pki_hist_key_children_repeat(const pk_hist_key *k);
/* "name", "0x00000000000012ab": the symbol column's text after its "[k] "
 * (the level is the entry's: the cpumode of the sample that made it). */
void pki_hist_sym_text(const pki_hist_loc *l, char *b, size_t n);

/* filters.c: the patterns compiled (0) and freed; the chain's first
 * function matching the parent pattern (NULL: none); the index of the one
 * --ignore-callees makes the root (n: none); the sample's socket (-1: no
 * CPU or topology); whether --socket-filter or -x hide the sample; whether
 * --symbol-filter hides an entry of l of event ev. */
int pki_hist_filters_setup(pk_hist *rp);
void pki_hist_filters_free(pk_hist *rp);
const char *pki_hist_parent_of(const pk_hist *rp, const pki_hist_loc *chain, size_t n);
size_t pki_hist_ignore_at(const pk_hist *rp, const pki_hist_loc *chain, size_t n);
int pki_hist_socket_of(const pki_hist_ctx *c);
bool pki_hist_sample_hidden(const pk_hist *rp, const pki_hist_ctx *c);
bool pki_hist_sym_filtered(const pk_hist *rp, const pki_hist_loc *l, int ev);

#endif
