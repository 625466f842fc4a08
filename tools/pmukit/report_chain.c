/* pmukit report: the call-chain tree of an entry (lib/hist/chain.c)
 * printed as perf report --stdio shows it (-g graph, fractal, flat,
 * folded), in the orders the library gives (pk_hist_cnode_children,
 * pk_hist_cnode_ends). perf stores runs of nodes without a branch as one
 * node; here a run is walked when printing: a node with one child and no
 * chain ending at it goes on the same run. */
#include "report_print.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct cg_print {
	FILE *f;
	const pk_hist_cg_opts *o;
	uint64_t min_hit;
	int margin;
	uint64_t whole;              /* the entry's value: one root holding it prints no percentage */
	const char *fold_sep;        /* between the folded view's names */
} cg_print;

static void put_name(FILE *f, const pk_hist_cnode *n)
{
	if (n->sym)
		fputs(n->sym, f);
	else
		fprintf(f, "%#" PRIx64, n->ip);
}

static void put_value(const cg_print *p, uint64_t v, uint64_t nr, uint64_t total)
{
	if (p->o->show_count)
		fprintf(p->f, "%" PRIu64, nr);
	else if (p->o->show_period)
		fprintf(p->f, "%" PRIu64, v);
	else
		fprintf(p->f, "%.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
}

/* The children kept (pk_hist_cnode_children: perf's order); fractal's
 * threshold is of the parent's children, level by level. */
static size_t kept_children(const cg_print *p, const pk_hist_cnode *n, const pk_hist_cnode ***out)
{
	uint64_t min_hit = p->min_hit;
	if (p->o->mode == PK_HIST_CG_FRACTAL)
		min_hit = (uint64_t)((double)(n->cumul - n->hit) * p->o->min_percent / 100.0);
	return pk_hist_cnode_children(n, min_hit, out);
}

static void margin(const cg_print *p)
{
	fprintf(p->f, "%*s", 12 + p->margin, "");
}

static void graph_line(const cg_print *p, int depth, unsigned mask)
{
	margin(p);
	for (int i = 0; i < depth; i++)
		fputs(mask & (1u << i) ? "|          " : "           ", p->f);
	fputc('\n', p->f);
}

/* Prints the children of n at depth; whether it printed anything. */
static bool graph_level(const cg_print *p, const pk_hist_cnode *n, uint64_t total, int depth,
			unsigned mask)
{
	const pk_hist_cnode **kids;
	size_t k = kept_children(p, n, &kids);
	uint64_t remaining = total;
	bool rel = p->o->mode == PK_HIST_CG_FRACTAL, printed = k > 0;
	for (size_t ci = 0; ci < k && depth < 32; ci++) {
		const pk_hist_cnode *c = kids[ci];
		remaining -= c->cumul;
		unsigned nmask = mask;
		if (ci + 1 == k && (!rel || !remaining))
			nmask &= ~(1u << (depth - 1));
		graph_line(p, depth, mask);
		const pk_hist_cnode *e = c;
		for (int j = 0;; j++) {
			margin(p);
			for (int i = 0; i < depth; i++) {
				fputc(nmask & (1u << i) ? '|' : ' ', p->f);
				if (!j && i == depth - 1) {
					fputs("--", p->f);
					put_value(p, c->cumul, c->cumul_nr, total);
					fputs("--", p->f);
				} else {
					fputs("          ", p->f);
				}
			}
			put_name(p->f, e);
			fputc('\n', p->f);
			if (e->hit || !e->child || e->child->next)
				break;
			e = e->child;
		}
		graph_level(p, e, rel ? e->cumul - e->hit : total, depth + 1, nmask | (1u << depth));
	}
	if (rel && remaining && remaining != total) {
		margin(p);
		for (int i = 0; i < depth; i++) {
			fputc(i < depth - 1 && (mask & (1u << i)) ? '|' : ' ', p->f);
			if (i == depth - 1) {
				fputs("--", p->f);
				put_value(p, remaining, 0, total);
				fputs("--", p->f);
			} else {
				fputs("          ", p->f);
			}
		}
		fputs("[...] (inlined)\n", p->f); /* perf 6.1's words */
		printed = true;
	}
	free(kids);
	return printed;
}

static bool print_graph(cg_print *p, const pk_hist_cnode *root, uint64_t total, uint64_t parent,
			bool skip_first)
{
	const pk_hist_cnode **kids;
	size_t k = kept_children(p, root, &kids);
	free(kids);
	if (!k)
		return false;
	const pk_hist_cnode *top = root;
	bool first = true;
	/* one root holding all of the entry's period: no percentage, one level
	 * less (perf 6.1: a sample whose chain was dropped, a corrupt context
	 * marker, leaves the entry's period above its one root's) */
	if (root->child && !root->child->next && root->child->cumul == p->whole) {
		const pk_hist_cnode *e = root->child;
		for (int j = 0;; j++) {
			if (!(j == 0 && skip_first)) {
				margin(p);
				if (first) {
					fputs("|\n", p->f);
					margin(p);
					fputs("---", p->f);
					p->margin += 3;
					first = false;
				}
				put_name(p->f, e);
				fputc('\n', p->f);
			}
			if (e->hit || !e->child || e->child->next)
				break;
			e = e->child;
		}
		top = e;
	}
	if (p->o->mode == PK_HIST_CG_FRACTAL)
		total = parent; /* of the entry, one root or not */
	/* nothing at all (-s sym with a one-entry chain): no blank line */
	bool below = graph_level(p, top, total, 1, 1);
	return !first || below;
}

static bool print_flat(cg_print *p, const pk_hist_cnode *root, uint64_t total)
{
	const pk_hist_cnode **v;
	size_t k = pk_hist_cnode_ends(root, p->min_hit, &v); /* perf's order */
	const pk_hist_cnode *path[PK_MAX_STACK + 2];
	for (size_t i = 0; i < k; i++) {
		size_t np = pk_hist_cnode_path(root, v[i], path, PK_MAX_STACK + 2);
		if (p->o->mode == PK_HIST_CG_FOLDED) {
			put_value(p, v[i]->hit, v[i]->nr, total);
			fputc(' ', p->f);
			for (size_t j = 0; j < np; j++) {
				if (j)
					fputs(p->fold_sep, p->f);
				put_name(p->f, path[j]);
			}
			fputc('\n', p->f);
			continue;
		}
		fputs("           ", p->f);
		put_value(p, v[i]->cumul, v[i]->cumul_nr, total); /* flat: with what lies below */
		fputc('\n', p->f);
		for (size_t j = 0; j < np; j++) {
			fputs("                ", p->f);
			put_name(p->f, path[j]);
			fputc('\n', p->f);
		}
		fputc('\n', p->f);
	}
	free(v);
	return false; /* flat ends each chain with its blank line; folded has none */
}

void report_cnode_print(FILE *f, const pk_hist_cnode *root, const pk_hist_cg_opts *o, uint64_t total,
		    uint64_t parent, bool skip_first, const char *fold_sep)
{
	cg_print p = {.f = f, .o = o, .whole = parent, .fold_sep = fold_sep ? fold_sep : ";"};
	double base = o->mode == PK_HIST_CG_FRACTAL ? (double)parent : (double)total;
	p.min_hit = (uint64_t)(base * o->min_percent / 100.0);
	bool printed = false;
	switch (o->mode) {
	case PK_HIST_CG_GRAPH:
	case PK_HIST_CG_FRACTAL:
		printed = print_graph(&p, root, total, parent, skip_first);
		break;
	case PK_HIST_CG_FLAT:
	case PK_HIST_CG_FOLDED:
		printed = print_flat(&p, root, total);
		break;
	case PK_HIST_CG_NONE:
		break;
	}
	if (printed)
		fputc('\n', f);
}

