/* pmukit report: the printers of lib/hist's histogram (pk_hist, through
 * <pmukit/hist.h> only), one file per view: the table (report_print.c),
 * call-chain trees (report_chain.c), -F columns (report_fields.c),
 * --hierarchy (report_hier.c), the branch view (report_branch.c).
 * Invariant: they read the histogram and write stdout; the options they
 * set (-F) are set before pk_hist_settle. */
#ifndef PMUKIT_REPORT_PRINT_H
#define PMUKIT_REPORT_PRINT_H

#include <stdio.h>
#include <pmukit/hist.h>

/* perf report's table of every event with entries, then the branch view's
 * statistics; perf's error on stderr when there is no entry (false: what
 * perf prints after the table, -T's, is left out then). */
bool report_hist_print(pk_hist *h);

/* An entry's key columns, each after two spaces, cut and padded to the
 * widths w as perf prints them (no newline; report's rows, diff's). */
void report_key_cols(const pk_hist *h, const pk_hist_entry *e, const int *w);
/* A percentage as printf("%7.2f%%", p) prints it (the rows' hot path). */
void report_pct(double p);
/* The most of key's text a row prints in a column of width w: perf cuts
 * some keys' texts to the width (in the flat table and --hierarchy alike),
 * the others print whole. */
int report_key_cut(const pk_hist_key *key, int w);

/* Under -t/--field-separator: a cell (sep before it unless first),
 * left-aligned in w; the values of an entry's nm members as perf joins
 * them (each " 1.23%" or " 123", which: PK_HIST_SELF...); key k's text,
 * cut to w, padded to it when pad. */
void report_sep_cell(const pk_hist_opts *o, bool first, int w, const char *text);
void report_sep_values(char *t, size_t n, const pk_hist *h, const pk_hist_entry *e, int nm,
		       int which, bool pct);
void report_sep_key(const pk_hist *h, const pk_hist_entry *e, bool first, int k, int w,
		    bool pad);

/* The tree of one entry: total is what percentages are of in graph mode,
 * parent the entry's own value (its leader's in the group view, whose
 * chains alone it holds): one root holding less (a chain perf dropped) is
 * printed with its percentage; fold_sep joins the folded view's names
 * (-t's separator; NULL: ";"). */
void report_cnode_print(FILE *f, const pk_hist_cnode *root, const pk_hist_cg_opts *o,
			uint64_t total, uint64_t parent, bool skip_first, const char *fold_sep);

/* perf 6.1's "Branch Statistics" after the table: each entry's branch by
 * kind and type, weighted by the entry's samples. */
void report_branch_stats_print(const pk_hist *h, pk_hist_entry **all, size_t n);

/* --hierarchy: the heads, and the tree of event ev's entries (all: every
 * entry, any order). */
void report_hier_heads(const pk_hist *h, int nm, const int *w);
void report_hier_print(const pk_hist *h, pk_hist_entry **all, size_t n, int ev, const int *w);

/* -F (pk_hist_opts_fields): the titles and the row of an entry (nm: the
 * group's members). */
void report_fields_heads(const pk_hist *h, int nm, const int *w);
void report_fields_row(const pk_hist *h, const pk_hist_entry *e, int nm, const int *w);

#endif
