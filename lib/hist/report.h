/* pmukit report: the histogram of a perf.data file as perf report builds it.
 *
 * Samples go into entries keyed by the sort keys (report_keys.c: one table
 * row per key with its title, its column text, how ties are ordered); with
 * call chains each entry holds the tree of its chains (report_chain.c), and
 * in Children mode every function on a chain gets an entry of its own whose
 * Children value counts the samples it was on (once per sample, recursion
 * or not). Group members share their leader's entries, one value per
 * member. Invariants: an entry's Children value is at least its Self value;
 * a chain node's cumulative hits are its own hits plus its children's. */
#ifndef PMUKIT_REPORT_H
#define PMUKIT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pmukit/perfdata.h>
#include <pmukit/symbols.h>

#define RP_MAX_KEYS 12 /* --mem-mode sorts by 11 */
#define RP_NAME_MAX 4096 /* a tracepoint payload's text fits */

/* One address of a chain, resolved. */
typedef struct rp_loc {
	const char *sym;             /* NULL when unresolved */
	const char *dso;
	const char *dso_short;       /* perf's short name (pk_addr_loc's); NULL: dso's base name */
	uint64_t ip, sym_start, dso_addr, sym_size, map_size;
	uint64_t dso_ordinal;        /* pk_addr_loc's */
	char level;                  /* 'k', '.', 'H', 'g', 'u' */
	bool has_map;
} rp_loc;

/* The dso's name as report shows it: perf's short name ("[i915]" for a
 * kernel module), a hand-made location's base name. */
static inline const char *rp_dso_short(const rp_loc *l)
{
	if (l->dso_short)
		return l->dso_short;
	const char *s = strrchr(l->dso, '/');
	return s && s[1] ? s + 1 : l->dso;
}

/* The width perf 6.1 gives a symbol's text: an inlined function's
 * " (inlined)" (--call-graph dwarf chains) is not counted. */
static inline int rp_sym_width(const char *text)
{
	static const char tail[] = " (inlined)";
	size_t l = strlen(text), t = sizeof(tail) - 1;
	return (int)(l > t && !strcmp(text + l - t, tail) ? l - t : l);
}

/* A node of a chain tree: one function (or address) on a path. */
typedef struct rp_cnode {
	const char *sym;             /* NULL: an address, printed as ip */
	const char *dso;
	uint64_t dso_ordinal;        /* the tie order of children (pk_addr_loc's) */
	uint64_t ip, sym_start;
	uint64_t hit, cumul;         /* periods: chains ending here; with the children */
	uint64_t nr, cumul_nr;       /* the same in samples */
	bool has_map;                /* the address is in a map (its dso known) */
	struct rp_cnode *child, *last, *next;
} rp_cnode;

enum rp_cg_mode { RP_CG_GRAPH, RP_CG_FRACTAL, RP_CG_FLAT, RP_CG_FOLDED, RP_CG_NONE };

typedef struct rp_cg_opts {
	enum rp_cg_mode mode;
	double min_percent;          /* 0.5 */
	bool caller;                 /* root first (caller order) */
	bool order_set;              /* caller/callee given */
	unsigned max_stack;          /* entries of a chain used */
	bool show_count;             /* value "count" instead of "percent" */
	bool show_period;            /* value "period" */
	unsigned print_limit;        /* 0: no limit */
} rp_cg_opts;

void rp_cnode_add(rp_cnode *root, const rp_loc *locs, size_t n, bool caller, uint64_t period);
void rp_cnode_merge(rp_cnode *into, rp_cnode *from);
void rp_cnode_free(rp_cnode *root);
/* Prints the tree of one entry (tools/pmukit/report_chain.c); total is what percentages are of in graph
 * mode, parent the entry's own value (fractal). */
void rp_cnode_print(FILE *f, const rp_cnode *root, const rp_cg_opts *o, uint64_t total,
		    uint64_t parent, bool skip_first);


/* ---- the histogram (report_hist.c) ---- */

/* Values per group member: self period and samples, children period and
 * samples, the self period by the samples' mode (kernel, user, guest
 * kernel, guest user: -F overhead_sys, ...), the samples' summed weights
 * (the weight key's column). */
enum { RP_SELF, RP_SELF_NR, RP_ACC, RP_ACC_NR, RP_SYS, RP_US, RP_GSYS, RP_GUS, RP_WEIGHT, RP_NV };

/* -F/--fields: a column or sort item, a value or a sort key. */
enum rp_val { RP_V_OVERHEAD, RP_V_SYS, RP_V_US, RP_V_GSYS, RP_V_GUS, RP_V_SAMPLE, RP_V_PERIOD,
	      RP_V_CHILDREN, RP_V_KEY };
typedef struct rp_field {
	enum rp_val val;
	int key;                     /* RP_V_KEY: the index in report.keys */
} rp_field;
#define RP_MAX_FIELDS (2 * RP_MAX_KEYS + 8)
/* The value columns: -F's name, the title, the entry's value (RP_SELF,
 * ...), the width (report_keys.c). */
typedef struct rp_value {
	const char *name, *title;
	enum rp_val val;
	int which;
	int width;
} rp_value;
extern const rp_value rp_values[];
extern const size_t rp_nr_values;
int rp_value_at(enum rp_val v);

typedef struct rp_entry {
	struct rp_entry *hnext;
	char *id;                    /* the keys' texts and numbers: what makes the entry */
	int ev;                      /* evsel index (group view: the leader's) */
	char *cols[RP_MAX_KEYS];
	uint64_t nums[RP_MAX_KEYS];
	uint32_t pid, tid;           /* texts made at the end: pid, a relabeled comm */
	bool filtered;               /* hidden by --comm, --dsos, ... (still in totals) */
	char level;                  /* "[k]": the cpumode of the sample that made it */
	uint8_t unresolved;          /* per key: a symbol key without a symbol */
	bool nosym;                  /* made by an address without a symbol */
	bool nosym_end[2];           /* a branch's source / target without one */
	const char *dso;             /* the dso of the address that made it (short name) */
	uint64_t *v;                 /* RP_NV values per member */
	size_t max_depth;            /* the longest chain added */
	pk_pd_branch_entry br;       /* branch view: the branch that made it */
	rp_cnode chain;
} rp_entry;

typedef struct rp_list {             /* a comma-separated option */
	char **items;
	size_t n;
} rp_list;

typedef struct report {
	const struct rp_key *keys[RP_MAX_KEYS];
	int nr_keys;
	uint32_t hidden_cols;        /* keys not printed (a filter of one item) */
	bool sort_given, show_nr, show_period, quiet, relative, ns, group, group_set;
	/* --group or --no-group on a file without groups: its events are one
	 * group led by the first (perf 6.1's forced leader): with --group
	 * shown side by side, titled without "anon group { }"; with
	 * --no-group the leader's title says "events" */
	bool forced_group;
	bool children, children_set, use_cg, cg_set, inverted, sym_first;
	bool synth_checked;          /* the session's made chains looked at (first sample) */
	bool raw_trace;              /* --raw-trace: the trace key's raw fields */
	bool mem_mode, mem_mode_default; /* --mem-mode: weights as periods; its key order */
	bool need_chain;             /* chains resolved: tree, Children or parent key */
	int branch;                  /* -b 1, --no-branch-stack 0, else -1: the file says */
	bool branch_view;            /* entries are branches (period 1 each) */
	rp_cg_opts cg;
	/* -F: the columns, and the order (the -s keys, then the columns) */
	bool fields;
	bool hierarchy;              /* --hierarchy: a tree, a level per key */
	rp_field out[RP_MAX_FIELDS], sort[RP_MAX_FIELDS];
	int nr_out, nr_sort;
	double percent_limit;
	rp_list comms, dsos, syms, pids, tids;
	bool *cpus;                  /* -C: NULL for all */
	size_t nr_cpus;
	uint64_t time_start, time_end;  /* --time; 0: open */
	/* what was seen */
	rp_entry **buckets;
	size_t nr_entries;
	size_t nr_ev;
	int *leader, *member, *nr_members;  /* per evsel (group view) */
	uint64_t *tot_period, *tot_nr, *nf_period, *nf_nr;  /* per evsel: all, not filtered */
	const pk_pd_header *hdr;
	pk_pd_header *pipe_hdr;       /* a pipe's header, until its first sample */
	struct pk_session *s;
} report;

int rp_hist_setup(report *rp, struct pk_session *s, const pk_pd_header *hdr);
/* A pipe's events and groups once its attrs and features are read (at its
 * first sample): hdr read again, the group view as its GROUP_DESC says. */
int rp_hist_pipe_settle(report *rp, struct pk_session *s, pk_pd_header *hdr);
/* The call graph and chain resolution from the events' sample types
 * (cmd_report.c); true when an event samples call chains. */
void rp_synth_chains(report *rp);
bool rp_settle_chains(report *rp, struct pk_session *s);
/* An address of process pid resolved as the sample's cpumode says. */
void rp_resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t ip, rp_loc *l);
/* The entry of c's keys (made when new; hid: the sample is filtered). */
struct rp_ctx;
rp_entry *rp_entry_for(report *rp, const struct rp_ctx *c, int ev, bool hid);
/* Whether --comm, --pid, --tid, --dsos, --symbols hide c's address. */
bool rp_hidden(report *rp, const struct rp_ctx *c);
int rp_hist_sample(void *arg, struct pk_session *s, const pk_pd_event *ev,
		   const pk_pd_sample *smp);
/* Every entry in the output order (late texts made, equal ones merged);
 * NULL when out of memory. The array is the caller's, the entries not. */
rp_entry **rp_hist_collect(report *rp, size_t *n);
void rp_hist_print(report *rp);
void rp_hist_free(report *rp);
/* The total period (nr: samples) of evsel ev, all or those shown
 * (--percentage relative). */
uint64_t rp_total_of(const report *rp, int ev, bool nr);
/* Whether an entry's row is printed (listed, above --percent-limit). */
bool rp_shown(const report *rp, const rp_entry *e);
/* An entry's share in percent of member m's total (which: RP_SELF, ...). */
double rp_pct(const report *rp, const rp_entry *e, int m, int which);
/* The total period (or of those shown, --percentage relative) of evsel ev. */
uint64_t rp_total(const report *rp, int ev);
/* Whether an entry has a row (not filtered, a value to show). */
bool rp_listed(const report *rp, const rp_entry *e);
/* The order of two entries by key k (perf's rule for that key). */
int rp_cmp_key(const report *rp, int k, const rp_entry *x, const rp_entry *y);
/* The text of key column k of an entry ("[k] name" for symbols). */
void rp_col_text(const report *rp, const rp_entry *e, int k, char *b, size_t n);

/* ---- the branch view (report_branch.c) ---- */

/* Whether the file's samples are shown as branches: -b, or perf's own
 * choice for a file with the BRANCH_STACK feature (not under
 * --no-branch-stack); sets the view's default keys. 0, or -EINVAL after
 * printing perf's error for a branch key outside the view. */
int rp_branch_settle(report *rp, struct pk_session *s);
/* One entry per branch of the sample (ctx c has its sample fields). */
int rp_branch_sample(report *rp, struct rp_ctx *c, int ei, int lead, int mi);
/* perf 6.1's "Branch Statistics" after the table: each entry's branch by
 * kind and type, weighted by the entry's samples. */
void rp_branch_stats_print(const report *rp, rp_entry **all, size_t n);

/* ---- --hierarchy (report_hier.c) ---- */

void rp_hier_heads(const report *rp, int nm, const int *w);
/* The tree of evsel ev's entries (all: every entry, any order). */
void rp_hier_print(const report *rp, rp_entry **all, size_t n, int ev, const int *w);

/* ---- -F/--fields (report_fields.c) ---- */

/* (tools/pmukit/report_fields.c) Sets the columns and order from -F's list (after the other options);
 * 0, or -EINVAL after printing perf's error for an unknown field. */
int rp_fields_setup(report *rp, const char *list);
/* The output order of two entries under -F (report_keys.c). */
int rp_fields_cmp(const report *rp, const rp_entry *x, const rp_entry *y);
/* The titles and the row of an entry (nm: the group's members). */
void rp_fields_heads(const report *rp, int nm, const int *w);
void rp_fields_row(const report *rp, const rp_entry *e, int nm, const int *w);
bool rp_list_has(const rp_list *l, const char *s);

#endif
