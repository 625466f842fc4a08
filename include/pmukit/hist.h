/* pmukit: histograms of perf.data samples (lib/hist).
 *
 * pk_hist: perf report's table as data. Samples of a session go into
 * entries keyed by the sort keys (pk_hist_key: perf's -s keys as a table);
 * with call chains each entry holds the tree of its chains (pk_hist_cnode),
 * in Children mode every function on a chain gets an entry whose Children
 * value counts the samples it was on (once per sample). Group members share
 * their leader's entries, one value per member. The caller fills the
 * options (pk_hist_options: the keys, the filters, the chain view), runs
 * the session with pk_hist_sample, then collects the entries in perf's
 * order and prints them (the CLI's report_print.c). Invariants: an entry's
 * Children value is at least its Self value; a chain node's cumulative
 * hits are its own hits plus its children's; totals count every sample
 * (filters only hide entries, percentages are of all unless relative).
 * Ownership: the histogram owns its entries and their trees; the keys are
 * the library's static table; the options' lists and CPU array are the
 * caller's (allocated and freed by it, read until pk_hist_free).
 *
 * pk_spe_hist: Arm SPE records grouped by symbol, report's views beyond
 * perf's (`--spe-latency`, `--plot FILE.svg`): per symbol the records, the
 * total, issue and translation latencies' percentiles (p50/p90/p99,
 * nearest rank) and the data sources of its loads and stores; the
 * histogram of total latency in bins. Fed from a session's SPE record hook
 * (pk_session_on_spe_record(s, pk_spe_hist_record, hist)).
 *
 * Invariants: every record handed over is counted once, under the symbol
 * of its PC as the task's maps resolve it at that time; records without a
 * PC go under "[unknown]"; the answers depend only on the records (groups
 * sorted by count, then by text). The histogram owns its groups; a row's
 * texts live as long as the histogram.
 *
 * lib/hist, report's engine: the histogram (report_hist.c: samples into
 * entries by the sort keys, Children, group members, the branch view's
 * entries, a pipe's events and groups settled at its first sample, entries
 * collected in perf's order), the sort keys and -F's value columns as tables
 * (report_keys.c), call-chain trees (chain.c), the Arm SPE latency groups
 * above (report_spe.c). Printing is the CLI's (tools/pmukit/report_print.c,
 * report_chain.c, report_spe_print.c), through this header alone: the
 * histogram's state (hist/report.h) is read from outside through access.c's
 * accessors; what the file decides when the options did not (Children, the
 * chains' order, the group view, the default keys) is settle.c's
 * pk_hist_settle. */
#ifndef PMUKIT_HIST_H
#define PMUKIT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/perfdata.h>
#include <pmukit/session.h>
#include <pmukit/spe.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_spe_hist pk_spe_hist;
typedef struct pk_spe_hist_entry pk_spe_hist_entry;

/* NULL when out of memory. */
pk_spe_hist *pk_spe_hist_new(void);
void pk_spe_hist_free(pk_spe_hist *h);
/* A pk_session_spe_fn (arg: the pk_spe_hist); 0 or -ENOMEM. */
int pk_spe_hist_record(void *arg, pk_session *s, const pk_spe_record *r, int64_t pid,
		       uint32_t midr);
/* The records counted. */
uint64_t pk_spe_hist_nr_records(const pk_spe_hist *h);
/* The groups by count, then text (an array the caller frees, of entries
 * the histogram owns); NULL when out of memory. */
pk_spe_hist_entry **pk_spe_hist_sorted(const pk_spe_hist *h, size_t *n);

/* A group's row: its records, the total, issue and translation latencies'
 * p50/p90/p99, its data sources' text, its symbol (sym_len bytes) and dso. */
typedef struct pk_spe_hist_row {
	size_t nr;
	unsigned lat[3][3];
	char sources[512];
	const char *sym, *dso;
	int sym_len;
} pk_spe_hist_row;
void pk_spe_hist_row_of(const pk_spe_hist_entry *e, pk_spe_hist_row *row);

/* The histogram of total latency: its bins (*width 1, 2 or 5 times a power
 * of ten, at most 40 bins from 0 past the largest total latency) and each
 * bin's records. */
size_t pk_spe_hist_bins(const pk_spe_hist *h, unsigned *width);
uint64_t pk_spe_hist_bin(const pk_spe_hist *h, size_t b, unsigned width);

/* ---- report's histogram ---- */

typedef struct pk_hist pk_hist;             /* opaque */
typedef struct pk_hist_entry pk_hist_entry; /* opaque: one row */

#define PK_HIST_MAX_KEYS 12 /* --mem-mode sorts by 11 */
#define PK_HIST_NAME_MAX 4096 /* a column's text fits (a tracepoint payload) */

/* How equal rows are ordered by a key (perf 6.1's comparisons): COUNT and
 * PERIOD show the entry's samples and period; WEIGHT entries of one sample
 * weight show their summed weights, high first; DESC_TEXT names in
 * reverse, unresolved first (dso_from/to); ADDR resolved first, then by
 * number (symbol_from/to); DESC_NUM numbers high first. */
enum pk_hist_order { PK_HIST_ORD_TEXT, PK_HIST_ORD_NUM, PK_HIST_ORD_SYM, PK_HIST_ORD_COUNT,
		     PK_HIST_ORD_PERIOD, PK_HIST_ORD_DESC_TEXT, PK_HIST_ORD_ADDR,
		     PK_HIST_ORD_DESC_NUM, PK_HIST_ORD_WEIGHT,
		     PK_HIST_ORD_GLOBAL /* by the sample's value, shown times the samples */ };
/* The address a branch key looks at, and what makes it unresolved. */
enum pk_hist_side { PK_HIST_SIDE_ENTRY, PK_HIST_SIDE_FROM, PK_HIST_SIDE_TO };
/* PK_HIST_U_PARENT: the parent key's [other] (no function matched) */
enum pk_hist_unres { PK_HIST_U_NONE, PK_HIST_U_SYM, PK_HIST_U_MAP, PK_HIST_U_PARENT };

/* A sort key (read-only, the library's table; callers never allocate
 * one, so it may grow at its end). */
typedef struct pk_hist_key {
	const char *name, *title;
	enum pk_hist_order order;
	bool pad_last;               /* padded to the width when the last column */
	bool right;                  /* title right-aligned */
	bool branch;                 /* only in the branch view */
	enum pk_hist_side side;
	enum pk_hist_unres unres;
	int fixed_w;                 /* > 0: the column's width whatever its texts */
	bool level;                  /* printed after the entry's "[l] " (not in its text) */
	bool mem;                    /* only in --mem-mode (perf's memory keys) */
	bool arch;                   /* perf 6.1 on x86 drops it when named in full
					(its Power-only keys); a prefix still finds it */
	int entry_w;                 /* > 0: the least width once an entry is listed */
} pk_hist_key;

/* The key of that name, or NULL: perf's match, the first key (in perf's
 * order) that the name begins, in any case ("sym": symbol); the i-th of
 * the table (NULL past it). */
const pk_hist_key *pk_hist_key_find(const char *name);
const pk_hist_key *pk_hist_key_nth(size_t i);
/* The column's least width (the title's, or perf's fixed width). */
int pk_hist_key_width_min(const pk_hist_key *k);

/* Values per group member: self period and samples, children period and
 * samples, the self period by the samples' mode (kernel, user, guest
 * kernel, guest user: -F overhead_sys, ...), the samples' summed weights. */
enum { PK_HIST_SELF, PK_HIST_SELF_NR, PK_HIST_ACC, PK_HIST_ACC_NR, PK_HIST_SYS, PK_HIST_US,
       PK_HIST_GSYS, PK_HIST_GUS, PK_HIST_WEIGHT, PK_HIST_NV };

/* -F/--fields: a column or sort item, a value or a sort key. */
enum pk_hist_val { PK_HIST_V_OVERHEAD, PK_HIST_V_SYS, PK_HIST_V_US, PK_HIST_V_GSYS,
		   PK_HIST_V_GUS, PK_HIST_V_SAMPLE, PK_HIST_V_PERIOD, PK_HIST_V_CHILDREN,
		   PK_HIST_V_KEY,
		   PK_HIST_V_SELF /* a "+list"'s overhead beside Children: titled "Self" */ };
typedef struct pk_hist_field {
	enum pk_hist_val val;
	int key;                     /* PK_HIST_V_KEY: the index in the options' keys */
} pk_hist_field;
#define PK_HIST_MAX_FIELDS (2 * PK_HIST_MAX_KEYS + 8)
/* A value column: -F's name, the title, the entry's value (PK_HIST_SELF,
 * ...), the width. The table: pk_hist_value_nth(i), NULL past its end;
 * pk_hist_value_of(v): the row of v. */
typedef struct pk_hist_value {
	const char *name, *title;
	enum pk_hist_val val;
	int which;
	int width;
} pk_hist_value;
const pk_hist_value *pk_hist_value_nth(size_t i);
const pk_hist_value *pk_hist_value_of(enum pk_hist_val v);

/* A node of a chain tree: one function (or address) on a path; read-only
 * for callers, owned by its entry. Only the library makes nodes, so the
 * struct grows by appending fields (never reordering): a caller built
 * against an older header reads the fields it knows. */
typedef struct pk_hist_cnode {
	const char *sym;             /* NULL: an address, printed as ip */
	const char *dso;
	uint64_t dso_ordinal;        /* the tie order of children (pk_addr_loc's) */
	uint64_t ip, sym_start;
	uint64_t hit, cumul;         /* periods: chains ending here; with the children */
	uint64_t nr, cumul_nr;       /* the same in samples */
	bool has_map;                /* the address is in a map (its dso known) */
	uint32_t nr_child;           /* the children on the child list */
	struct pk_hist_cnode *child, *last, *next;
	struct pki_hist_cindex *index; /* private: the children by function, once many */
	struct pk_hist_cnode *hot;   /* private: the child found or made last */
} pk_hist_cnode;

/* The orders perf report 6.1 prints a chain tree in (chain_order.c).
 * pk_hist_cnode_children: the children of n it prints (cumul >= min_hit)
 * by cumul, the higher first, equal ones in perf's address order (by dso,
 * then symbol start or address); pk_hist_cnode_ends: the nodes of root's
 * tree where chains end (hit >= min_hit, hit > 0) as its flat and folded
 * views list them (each after its children, then by hit). Both put the
 * nodes into *out, an array the caller frees (0 nodes when out of memory).
 * pk_hist_cnode_path: the nodes from root's child down to n into out (at
 * most max); their count, 0 when n is not below root. */
size_t pk_hist_cnode_children(const pk_hist_cnode *n, uint64_t min_hit, const pk_hist_cnode ***out);
size_t pk_hist_cnode_ends(const pk_hist_cnode *root, uint64_t min_hit, const pk_hist_cnode ***out);
size_t pk_hist_cnode_path(const pk_hist_cnode *root, const pk_hist_cnode *n,
			  const pk_hist_cnode **out, size_t max);

enum pk_hist_cg_mode { PK_HIST_CG_GRAPH, PK_HIST_CG_FRACTAL, PK_HIST_CG_FLAT,
		       PK_HIST_CG_FOLDED, PK_HIST_CG_NONE };
typedef struct pk_hist_cg_opts {
	enum pk_hist_cg_mode mode;
	double min_percent;          /* 0.5 */
	bool caller;                 /* root first (caller order) */
	bool order_set;              /* caller/callee given */
	unsigned max_stack;          /* entries of a chain used (0: none) */
	bool show_count;             /* value "count" instead of "percent" */
	bool show_period;            /* value "period" */
	unsigned print_limit;        /* 0: no limit */
	bool by_address;             /* the "address" key: chain entries by address
					(not built: callers refuse it) */
} pk_hist_cg_opts;

typedef struct pk_hist_list {        /* a comma-separated option's items */
	char **items;
	size_t n;
} pk_hist_list;

/* The options: the caller's choices, then what is settled from the file
 * (pk_hist_settle, pk_hist_setup: use_cg, need_chain, branch_view,
 * forced_group). Lives in the histogram (pk_hist_options; callers never
 * allocate one, so it may grow at its end); written before pk_hist_settle,
 * read after. The lists' items and cpus are the caller's. */
typedef struct pk_hist_opts {
	const pk_hist_key *keys[PK_HIST_MAX_KEYS];
	int nr_keys;
	uint32_t hidden_cols;        /* keys not printed (a filter of one item) */
	bool sort_given, show_nr, show_period, quiet, relative, ns, group, group_set;
	/* --group or --no-group on a file without groups: its events are one
	 * group led by the first (perf 6.1's forced leader): with --group
	 * shown side by side, titled without "anon group { }"; with
	 * --no-group the leader's title says "events" (set by pk_hist_setup) */
	bool forced_group;
	bool children, children_set, use_cg, cg_set, inverted, sym_first;
	bool raw_trace;              /* --raw-trace: the trace key's raw fields */
	bool mem_mode, mem_mode_default; /* --mem-mode: weights as periods; its key order */
	bool need_chain;             /* chains resolved: tree, Children or parent key */
	int branch;                  /* -b 1, --no-branch-stack 0, else -1: the file says */
	bool branch_view;            /* entries are branches (period 1 each) */
	pk_hist_cg_opts cg;
	/* -F: the columns, and the order (the -s keys, then the columns) */
	bool fields;
	bool hierarchy;              /* --hierarchy: a tree, a level per key */
	pk_hist_field out[PK_HIST_MAX_FIELDS], sort[PK_HIST_MAX_FIELDS];
	int nr_out, nr_sort;
	double percent_limit;
	pk_hist_list comms, dsos, syms, pids, tids;
	bool *cpus;                  /* -C: NULL for all */
	size_t nr_cpus;
	const char *time_arg;        /* --time (the caller's string; pk_hist_opts_time) */
	/* perf report's further filters and key settings (filters.c) */
	const char *symbol_filter;   /* --symbol-filter: an entry's symbol holds it */
	int socket_filter;           /* --socket-filter N: the sample's socket; -1 none */
	bool hide_unresolved;        /* -U: samples and chain entries without a symbol dropped */
	bool exclude_other;          /* -x: entries without a parent match hidden */
	const char *parent;          /* -p: the parent key's regex; NULL: perf's default */
	const char *ignore_callees;  /* --ignore-callees: a chain's function matching it is
				      * the sample's entry, its callees dropped */
	uint64_t time_quantum;       /* --time-quantum (ns) of the time key; 0: 100 ms */
	bool cpu_util;               /* --show-cpu-utilization: sys and usr columns after Self */
	const char *field_sep;       /* -t: the columns joined by it, unpadded values */
	/* -F's list as given (the caller's string, pk_hist_opts_fields):
	 * a "+list" is made again over a file's own default keys (a file of
	 * tracepoints, the branch view, --mem-mode) by pk_hist_settle */
	const char *fields_list;
	int fields_base;             /* the keys before -F's own (made again over them) */
	/* -s as given (the caller's string): perf's "Sort order" line; the
	 * keys it named; whether it named "symbol" (perf adds ipc_null) or
	 * "ipc" (perf refuses it); the first name no key begins, in the
	 * caller's string (bad_key_len bytes; NULL: none; the caller reports
	 * it once the file is open, as perf does) */
	const char *sort_list;
	int nr_sort_keys;
	bool sort_ipc_null, sort_ipc;
	const char *bad_key;
	size_t bad_key_len;
	/* -v: dso by its path, a symbol after its address and perf's letter
	 * for where its symbols came from (pk_machine_origin) */
	bool verbose;
} pk_hist_opts;

/* perf report's option words into o (opts.c). -s's keys (replacing the
 * defaults; "" leaves none: a row per event): -EINVAL naming the unknown
 * key in err's where, -ENOMEM. */
int pk_hist_opts_sort(pk_hist_opts *o, const char *arg, pk_error *err);
/* -g's words (graph ... none, caller/callee, percent/period/count, then
 * the threshold and the print limit); false, o unchanged, when a word is
 * not one of them. */
bool pk_hist_opts_callgraph(pk_hist_opts *o, const char *arg);
/* Appends a comma-separated list's items (--comms, --pid, -d ...): 0 or
 * -ENOMEM. */
int pk_hist_list_add(pk_hist_list *l, const char *arg);
/* The filter list of key k (--comm for comm, --dsos for dso, --symbols
 * for a symbol's key) and its name in perf's "# what: item" line above the
 * table; NULL for a key without one. */
const pk_hist_list *pk_hist_key_filter(const pk_hist_opts *o, int k, const char **what);
/* -C's CPU list ("0-3,8") and --time's windows (pmukit/timerange.h; arg
 * kept even when refused, made or refused on the file's span by
 * pk_hist_settle): 0 or -EINVAL (-ENOMEM). */
int pk_hist_opts_cpus(pk_hist_opts *o, const char *arg);
int pk_hist_opts_time(pk_hist_opts *o, const char *arg);
/* Whether the file can take -C, as perf 6.1 decides: 0; -ENODATA when its
 * samples carry no CPU; -ERANGE when a CPU asked is past the file's
 * (*cpu: the first such). */
int pk_hist_opts_cpus_fit(const pk_hist_opts *o, pk_session *s, const pk_pd_header *h,
			  size_t *cpu);
/* -F's list, after the other options: the columns (o->out: the list, a
 * "+list" after overhead, then the -s keys not in it) and the order
 * (o->sort: the -s keys, then the columns not among them); keys named are
 * added to o->keys. -EINVAL naming an unknown field in err's where. */
int pk_hist_opts_fields(pk_hist_opts *o, const char *list, pk_error *err);
/* -p's and --ignore-callees' regular expressions (POSIX extended, as
 * perf's): 0, or -EINVAL with the compiler's words in err (where: the
 * pattern). --time-quantum's "N[ns|us|ms|s]" into o: 0, -EINVAL (a bad
 * unit), -ERANGE (zero). */
int pk_hist_opts_regex(pk_hist_opts *o, bool ignore_callees, const char *re, pk_error *err);
int pk_hist_opts_time_quantum(pk_hist_opts *o, const char *arg);
/* Frees the lists' items and the CPU set these functions made. */
void pk_hist_opts_release(pk_hist_opts *o);

/* A histogram with perf report's defaults (comm,dso,sym; the chains'
 * 0.5% and PK_MAX_STACK; the file decides branches); NULL when out of
 * memory. pk_hist_free frees the entries, not the options' lists. */
pk_hist *pk_hist_new(void);
void pk_hist_free(pk_hist *h);
pk_hist_opts *pk_hist_options(pk_hist *h);
const pk_hist_opts *pk_hist_config(const pk_hist *h);
/* What the file decides when the options did not (perf report 6.1's
 * rules): Children and the chains' order from the samples' call chains,
 * the group view from hdr's groups, --mem-mode's and a file of
 * tracepoints' keys, the columns a filter of one item hides, the branch
 * view (-b, or the file's BRANCH_STACK feature: its keys, no chains).
 * After the options, before pk_hist_setup. 0; -ENODATA: -b on samples
 * without branch stacks (perf's words in err); -EINVAL: a branch key outside the branch view
 * (-ENOEXEC: the parent key on a file without call chains, --mem-mode on
 * one without data sources; -ENOTSUP: --mem-mode in the branch view;
 * perf's words in err; -ENODATA with err's where "--time": a percent
 * --time on a file without its first and last sample times)
 * (err's where names it). */
int pk_hist_settle(pk_hist *h, pk_session *s, const pk_pd_header *hdr, pk_error *err);
/* Ready to take s's samples: the group view from hdr (s's header, kept,
 * the caller's, until pk_hist_free). A pipe is settled again at its first
 * sample, once its attrs and features are read: hdr is then read anew.
 * 0 or -ENOMEM. */
int pk_hist_setup(pk_hist *h, pk_session *s, pk_pd_header *hdr);
/* A pk_session_sample_fn (arg: the pk_hist). */
int pk_hist_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp);

/* The session, its header (NULL before setup), the events counted
 * (evsels, synthetic ones included), each event's group leader, its
 * members (leaders: the group's size). */
pk_session *pk_hist_session(const pk_hist *h);
const pk_pd_header *pk_hist_header(const pk_hist *h);
size_t pk_hist_nr_events(const pk_hist *h);
int pk_hist_leader(const pk_hist *h, int ev);
int pk_hist_nr_members(const pk_hist *h, int ev);
/* The samples of event ev, filtered or not (0 past the events). */
uint64_t pk_hist_nr_samples(const pk_hist *h, int ev);
/* The total period (nr: samples) of event ev, of all samples or those
 * shown (--percentage relative). */
uint64_t pk_hist_total_of(const pk_hist *h, int ev, bool nr);

/* Every entry in the output order (late texts made, equal ones merged);
 * NULL when out of memory. The array is the caller's, the entries not. */
pk_hist_entry **pk_hist_collect(pk_hist *h, size_t *n);
/* Whether an entry has a row (not filtered, a value to show); whether it
 * is printed (also above --percent-limit). */
bool pk_hist_listed(const pk_hist *h, const pk_hist_entry *e);
bool pk_hist_shown(const pk_hist *h, const pk_hist_entry *e);
/* An entry's share in percent of member m's total (which: PK_HIST_SELF, ...). */
double pk_hist_pct(const pk_hist *h, const pk_hist_entry *e, int m, int which);
/* The order of two entries by key k (perf's rule for that key), and under -F. */
int pk_hist_cmp_key(const pk_hist *h, int k, const pk_hist_entry *x, const pk_hist_entry *y);
/* The text of key column k of an entry ("[k] name" for symbols). */
void pk_hist_col_text(const pk_hist *h, const pk_hist_entry *e, int k, char *b, size_t n);

/* An entry: its event (group view: the leader's), value `which` of group
 * member m, its thread, its key k's text as made (no level) and number
 * (tid, cpu, address, ...), whether key k found what it names (a symbol,
 * a map), the short name of the dso of the address that made it, its
 * chain tree (root), the branch that made it (branch view), whether the
 * address that made it (side: PK_HIST_SIDE_*: the entry's, a branch's
 * source or target) has no symbol. */
int pk_hist_entry_event(const pk_hist_entry *e);
uint64_t pk_hist_entry_value(const pk_hist_entry *e, int m, int which);
void pk_hist_entry_thread(const pk_hist_entry *e, uint32_t *pid, uint32_t *tid);
const char *pk_hist_entry_text(const pk_hist_entry *e, int k);
uint64_t pk_hist_entry_number(const pk_hist_entry *e, int k);
bool pk_hist_entry_resolved(const pk_hist_entry *e, int k);
const char *pk_hist_entry_dso(const pk_hist_entry *e);
const pk_hist_cnode *pk_hist_entry_chain(const pk_hist_entry *e);
const pk_pd_branch_entry *pk_hist_entry_branch(const pk_hist_entry *e);
bool pk_hist_entry_nosym(const pk_hist_entry *e, enum pk_hist_side side);

/* --hierarchy's nodes at level depth (a key's index) among entries
 * e[0, n) of one event, nm its group members (hier.c): the entries that
 * agree on the keys down to depth make a node, whose v holds their sums
 * (value w of member m at m * PK_HIST_NV + w, at most 8 members); nodes
 * in perf 6.1's order (by values, then the key's order). e is reordered so
 * that a node's entries, its e[0, n), are next to each other. *out (the
 * caller frees it) gets *nr nodes; 0, or -ENOMEM. */
typedef struct pk_hist_hnode {
	pk_hist_entry **e;
	size_t n;
	uint64_t v[PK_HIST_NV * 8];
} pk_hist_hnode;
int pk_hist_hier_level(const pk_hist *h, pk_hist_entry **e, size_t n, int depth, int nm,
		       pk_hist_hnode **out, size_t *nr);

/* The key columns' widths perf 6.1 prints event ev's entries with, into
 * w[nr_keys] (all: every entry of the histogram, any order; widths.c). */
void pk_hist_widths(const pk_hist *h, pk_hist_entry **all, size_t n, int ev, int *w);

/* The width perf 6.1 gives a symbol's text: an inlined function's
 * " (inlined)" (--call-graph dwarf chains) is not counted. */
int pk_hist_sym_width(const char *text);

#ifdef __cplusplus
}
#endif
#endif
