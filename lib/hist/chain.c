/* libpmukit: the call-chain tree of a report entry (report.h).
 *
 * The tree is a trie: one node per function on a path (an address when no
 * symbol is known), children in the order they were first seen, which is
 * the order perf keeps for equal values. perf stores runs of nodes without
 * a branch as one node; here a run is walked when printing
 * (tools/pmukit/report_chain.c): a node with one child and no chain ending
 * at it goes on the same run. A node's cumul is its hit plus its
 * children's cumul. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static bool same_fn(const pk_hist_cnode *n, const pki_hist_loc *l)
{
	if (n->sym && l->sym)
		return n->sym_start == l->sym_start && n->dso == l->dso;
	if (n->sym || l->sym)
		return false;
	return n->ip == l->ip;
}

static pk_hist_cnode *child_for(pk_hist_cnode *parent, const pki_hist_loc *l)
{
	for (pk_hist_cnode *c = parent->child; c; c = c->next)
		if (same_fn(c, l))
			return c;
	pk_hist_cnode *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->sym = l->sym;
	c->dso = l->dso;
	c->dso_ordinal = l->dso_ordinal;
	c->ip = l->ip;
	c->sym_start = l->sym_start;
	c->has_map = l->has_map;
	if (parent->last)
		parent->last->next = c;
	else
		parent->child = c;
	parent->last = c;
	return c;
}

void pki_hist_cnode_add(pk_hist_cnode *root, const pki_hist_loc *locs, size_t n, bool caller, uint64_t period)
{
	pk_hist_cnode *cur = root;
	root->cumul += period;
	root->cumul_nr++;
	for (size_t i = 0; i < n; i++) {
		pk_hist_cnode *c = child_for(cur, &locs[caller ? n - 1 - i : i]);
		if (!c)
			return; /* out of memory: the chain stops here */
		c->cumul += period;
		c->cumul_nr++;
		cur = c;
	}
	if (cur != root) {
		cur->hit += period;
		cur->nr++;
	}
}

void pki_hist_cnode_merge(pk_hist_cnode *into, pk_hist_cnode *from)
{
	into->hit += from->hit;
	into->nr += from->nr;
	into->cumul += from->cumul;
	into->cumul_nr += from->cumul_nr;
	for (pk_hist_cnode *c = from->child; c; c = c->next) {
		pki_hist_loc l = {.sym = c->sym, .dso = c->dso, .ip = c->ip, .sym_start = c->sym_start,
			    .has_map = c->has_map, .dso_ordinal = c->dso_ordinal};
		pk_hist_cnode *t = child_for(into, &l);
		if (t)
			pki_hist_cnode_merge(t, c);
	}
}

void pki_hist_cnode_free(pk_hist_cnode *root)
{
	pk_hist_cnode *c = root->child;
	while (c) {
		pk_hist_cnode *nx = c->next;
		pki_hist_cnode_free(c);
		free(c);
		c = nx;
	}
	root->child = root->last = NULL;
}

