/* libpmukit: report's histogram, internal (include/pmukit/hist.h is its
 * public face: the options, the keys, the chain nodes, accessors).
 *
 * Samples go into entries keyed by the sort keys (report_keys.c: one table
 * row per key with its title, its column text, how ties are ordered); with
 * call chains each entry holds the tree of its chains (report_chain.c), and
 * in Children mode every function on a chain gets an entry of its own whose
 * Children value counts the samples it was on (once per sample, recursion
 * or not). Group members share their leader's entries, one value per
 * member. Invariants: an entry's Children value is at least its Self value;
 * a chain node's cumulative hits are its own hits plus its children's. */
#ifndef PMUKIT_HIST_REPORT_H
#define PMUKIT_HIST_REPORT_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pmukit/perfdata.h>
#include <pmukit/symbols.h>
#include <pmukit/hist.h>
#include <pmukit/timerange.h>

#include "core/strmap.h"

/* One address of a chain, resolved. */
typedef struct pki_hist_loc {
	const char *sym;             /* NULL when unresolved */
	const char *dso;
	const char *dso_short;       /* perf's short name (pk_addr_loc's); NULL: dso's base name */
	const char *dso_long;        /* perf's long name (-v's); NULL: dso */
	uint64_t ip, sym_start, dso_addr, sym_size, map_size;
	uint64_t dso_ordinal;        /* pk_addr_loc's */
	char level;                  /* 'k', '.', 'H', 'g', 'u' */
	bool has_map;
} pki_hist_loc;

/* The dso's name as report shows it: perf's short name ("[i915]" for a
 * kernel module), a hand-made location's base name. */
static inline const char *pki_hist_dso_short(const pki_hist_loc *l)
{
	if (l->dso_short)
		return l->dso_short;
	const char *s = strrchr(l->dso, '/');
	return s && s[1] ? s + 1 : l->dso;
}

/* s into b (n bytes), cut to fit as snprintf(b, n, "%s", s) does:
 * the hot texts' copy, without printf. */
static inline void pki_hist_put(char *b, size_t n, const char *s)
{
	if (!n)
		return;
	size_t l = strlen(s);
	if (l >= n)
		l = n - 1;
	memcpy(b, s, l);
	b[l] = '\0';
}

/* Where a histogram's chain nodes come from (chain.c): blocks freed
 * together by pki_hist_arena_free, nothing freed alone. */
typedef struct pki_hist_arena {
	struct pki_hist_ablock *blocks;
	char *at;
	size_t left;
} pki_hist_arena;
void pki_hist_arena_free(pki_hist_arena *a);

void pki_hist_cnode_add(pki_hist_arena *a, pk_hist_cnode *root, const pki_hist_loc *locs, size_t n,
			bool caller, uint64_t period);
void pki_hist_cnode_merge(pki_hist_arena *a, pk_hist_cnode *into, pk_hist_cnode *from);

/* Children's chains (chain.c): one trie per thread of its samples'
 * chains, each entry's tree made from it at the end. */
typedef struct pki_hist_tnode pki_hist_tnode;
struct pki_hist_tnode {
	pk_hist_cnode n;             /* the function (a tree node's fields) */
	pki_hist_tnode *up;          /* the parent; NULL: a thread's node */
	struct pki_hist_credit *credits;
	/* the entry of the function under the entry cache's keys (a thread's
	 * trie: the function decides it), valid for this comm version and
	 * event */
	struct pk_hist_entry *e;
	uint64_t comm_version;
	int ev;
};
typedef struct pki_hist_trie {
	pki_hist_arena a;            /* its nodes and credits */
	pk_hist_cnode root;          /* a child per thread */
	struct pki_hist_credit *first, **tail; /* the credits in the order made */
} pki_hist_trie;
struct pk_hist_entry;
/* The chain's walk of the thread's trie: path[i] the node of chain[i]
 * (leaf_first: caller order's trees); false when out of memory. */
bool pki_hist_trie_walk(pki_hist_trie *t, uint32_t pid, uint32_t tid, const pki_hist_loc *chain,
			size_t n, bool leaf_first, pki_hist_tnode **path);
/* One sample of period credited to e at node (e's tree takes node's path). */
bool pki_hist_trie_credit(pki_hist_trie *t, pki_hist_tnode *node, struct pk_hist_entry *e,
			  uint64_t period);
/* Every credit's path added to its entry's tree (nodes from into), in the
 * order made; the trie freed. */
void pki_hist_trie_build(pki_hist_trie *t, pki_hist_arena *into);

struct pk_hist_entry {
	struct pk_hist_entry *hnext;  /* the next made (pk_hist's first) */
	char *id;                    /* the keys' texts and numbers: what makes the entry
					(the entries table's copy, shared by dups) */
	int ev;                      /* evsel index (group view: the leader's) */
	const char *cols[PK_HIST_MAX_KEYS]; /* interned (pk_hist's texts): equal texts, one pointer */
	uint64_t nums[PK_HIST_MAX_KEYS];
	uint32_t pid, tid;           /* texts made at the end: pid, a relabeled comm */
	uint32_t in_at;              /* its node in pk_hist's in (when in_live) */
	uint64_t thread;             /* the thread that made it (perf's struct thread:
					a tid used again is another), for the order */
	bool filtered;               /* hidden by --comm, --dsos, ... (still in totals) */
	char level;                  /* "[k]": the cpumode of the sample that made it */
	uint8_t unresolved;          /* per key: a symbol key without a symbol */
	bool nosym;                  /* made by an address without a symbol */
	bool nosym_end[2];           /* a branch's source / target without one */
	const char *dso;             /* the dso of the address that made it (short name) */
	bool has_map;                /* that address is in a map (dso: its map's) */
	uint64_t *v;                 /* PK_HIST_NV values per member */
	size_t max_depth;            /* the longest chain added */
	uint64_t seen;               /* the last Children pass that counted it (pk_hist's) */
	pk_pd_branch_entry br;       /* branch view: the branch that made it */
	uint64_t vip;                /* -v: the address that made it (perf's he->ip) */
	char origin;                 /* -v: perf's letter for its symbols' source */
	pk_hist_cnode chain;
	pk_hist_entry *dnext;        /* the next of pk_hist's dups */
};

/* A red-black tree of entries as perf keeps its histogram (order.c). */
typedef struct pki_hist_rbt {
	struct rb_node *t;
	pk_hist_entry **v;
	uint32_t root, n, cap;
	uint32_t ver, root_stamp;     /* insertions so far; the last that changed the root */
	struct pki_hist_memo *memo;   /* per node, its entry's last look-up (find_again) */
	uint32_t memo_cap;
} pki_hist_rbt;

struct pk_hist {
	pk_hist_opts o;
	/* what was seen */
	pki_strmap entries;           /* the entries by id (report_hist.c) */
	pki_strmap texts;             /* the entries' column texts, interned */
	pk_hist_entry *first, **last; /* the same in the order made (by hnext) */
	size_t nr_entries;
	size_t nr_ev;
	int *leader, *member, *nr_members;  /* per evsel (group view) */
	uint64_t *tot_period, *tot_nr, *nf_period, *nf_nr;  /* per evsel: all, not filtered */
	const pk_pd_header *hdr;
	pk_pd_header *pipe_hdr;       /* a pipe's header, until its first sample */
	struct pk_session *s;
	bool synth_checked;           /* the session's made chains looked at (first sample) */
	struct pki_hist_fast *fast;   /* the entry cache (report_hist.c), when the keys allow */
	int fast_state;               /* 0 not decided, 1 on, -1 off */
	struct pki_hist_direct *direct; /* the sample cache (report_hist.c), when it applies */
	int direct_state;             /* 0 not decided, 1 on, -1 off */
	int repeat_state;             /* a key repeats Children (add_callers): 0 not decided, 1, -1 */
	uint64_t nr_passes;           /* Children passes so far: a sample's stamp */
	pki_hist_arena nodes;         /* every entry's chain nodes */
	pki_hist_trie trie;           /* Children's chains until pk_hist_collect */
	pki_hist_tnode **path;        /* the sample's walk of it (Children), else NULL */
	pki_hist_rbt in;              /* perf's tree of entries as made (entries_in), made at
					 the first look-up that needs it (in_live), else at the end
					 when the entries' order is not transitive */
	bool in_live;                 /* in holds every entry made so far */
	pk_hist_entry *dups;          /* entries perf's look-up made again (by dnext) */
	bool in_broken;               /* in is not whole (out of memory): sorted instead */
	regex_t parent_re, ignore_re; /* -p (or perf's default), --ignore-callees (filters.c) */
	pk_time_window *tw;           /* --time's windows, made by pk_hist_settle */
	size_t nr_tw;
	int re_state;                 /* compiled: 1 parent_re, 2 ignore_re */
};

/* An address of process pid resolved as the sample's cpumode says. */
void pki_hist_resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t ip,
		      pki_hist_loc *l);
/* The entry of c's keys (made when new; hid: the sample is filtered). */
struct pki_hist_ctx;
pk_hist_entry *pki_hist_entry_for(pk_hist *rp, const struct pki_hist_ctx *c, int ev, bool hid);
/* Whether --comm, --pid, --tid, --dsos, --symbols hide c's address. */
bool pki_hist_hidden(pk_hist *rp, const struct pki_hist_ctx *c);
/* One entry per branch of the sample (ctx c has its sample fields). */
int pki_hist_branch_sample(pk_hist *rp, struct pki_hist_ctx *c, int ei, int lead, int mi);
/* Whether the session's events sample call chains; sets use_cg and
 * need_chain from them and the options (settle.c, a pipe's first sample). */
bool pki_hist_settle_chains(pk_hist *rp, pk_session *s);
/* Chains the session makes (Intel PT's report): the graph and Children as
 * for a file whose events sample chains (settle.c, at the first sample). */
void pki_hist_synth_chains(pk_hist *h);
/* An order of entries: < 0 when x comes first. */
typedef int pki_hist_entry_cmp(const pk_hist *h, const pk_hist_entry *x, const pk_hist_entry *y);
/* all (grouped by event, each group in perf's table order) put in the
 * order perf's red-black tree of cmp makes (order.c); false when out of
 * memory (all then unchanged or partly ordered). */
bool pki_hist_tree_order(pk_hist_entry **all, size_t n, pki_hist_entry_cmp *cmp, const pk_hist *h);
/* A red-black tree of entries as perf keeps its histogram (order.c):
 * entries hung in the order they come, each before a node it sorts before
 * and after one it ties with (an order that need not be transitive, so a
 * look-up can miss an equal entry, as perf's does). */
void pki_hist_rbt_init(pki_hist_rbt *r);
void pki_hist_rbt_free(pki_hist_rbt *r);
/* The first node on e's way down that ties with it, or NULL. */
pk_hist_entry *pki_hist_rbt_find(const pki_hist_rbt *r, const pk_hist_entry *e, pki_hist_entry_cmp *cmp,
				 const pk_hist *h);
/* pki_hist_rbt_find of e, the entry of node self, again: the node its last
 * look-up found when no node on that way changed since (the same
 * comparisons would be made), else found anew. */
pk_hist_entry *pki_hist_rbt_find_again(pki_hist_rbt *r, uint32_t self, const pk_hist_entry *e,
				       pki_hist_entry_cmp *cmp, const pk_hist *h);
/* e hung where its way down ends; with stop_equal, not hung when a node on
 * the way ties with it: that node is returned. *ok false: out of memory. */
pk_hist_entry *pki_hist_rbt_add(pki_hist_rbt *r, pk_hist_entry *e, pki_hist_entry_cmp *cmp, const pk_hist *h,
				bool stop_equal, bool *ok);
/* The entries in order into out (room for r->n); 0 when out of memory. */
size_t pki_hist_rbt_walk(const pki_hist_rbt *r, pk_hist_entry **out);
/* perf's table order of two entries by their keys alone (report_hist.c;
 * the histogram's keys; x and y may be of two histograms with the same
 * keys: perf diff's rows). */
int pki_hist_table_cmp_keys(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y);
/* One key's output order (tree: perf's, where symbols of one name and
 * addresses without one tie), and all keys'. */
int pki_hist_out_key_cmp(const pk_hist *rp, int k, const pk_hist_entry *x, const pk_hist_entry *y,
			 bool tree);
int pki_hist_out_keys_cmp(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y, bool tree);
/* -F's columns and order from o->fields_list over the first
 * o->fields_base keys and o->children (opts.c; pk_hist_opts_fields, and
 * again when pk_hist_settle changes them); no_children: a "+list" drops
 * overhead_children (perf cancelled the Children it meant to show: no
 * chains): 0, -EINVAL, -ENOMEM. */
int pki_hist_fields_apply(pk_hist_opts *o, bool no_children, pk_error *err);
/* Whether -F's order is the output's: not for a "+list" beside Children,
 * which keeps the default's (Children, chain depth, Self, the keys). */
bool pki_hist_fields_order(const pk_hist_opts *o);
/* The output order of two entries under -F (report_keys.c). */
int pki_hist_fields_cmp(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y);

#endif
