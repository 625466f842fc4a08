/* libpmukit: the call-chain tree of a report entry (report.h).
 *
 * The tree is a trie: one node per function on a path (an address when no
 * symbol is known), children in the order they were first seen, which is
 * the order perf keeps for equal values. perf stores runs of nodes without
 * a branch as one node; here a run is walked when printing
 * (tools/pmukit/report_chain.c): a node with one child and no chain ending
 * at it goes on the same run. A node's cumul is its hit plus its
 * children's cumul.
 *
 * Finding a child is a walk of the list while a node has few children;
 * from INDEX_FROM on, the node also keeps an index (open addressing, at
 * most half full) of its children by function, so a wide node (a dso's
 * root under --sort dso: every function it calls) costs one probe, not a
 * walk of thousands. The list stays the order; the index only finds.
 * Before either, the child found or made last (hot) is tried: samples of
 * a loop repeat their chains, so most steps of a path are that child. */
#include "report.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline bool same_fn(const pk_hist_cnode *n, const pki_hist_loc *l)
{
	if (n->sym && l->sym)
		return n->sym_start == l->sym_start && n->dso == l->dso;
	if (n->sym || l->sym)
		return false;
	return n->ip == l->ip;
}

/* ---- the arena: a histogram's nodes and indexes, freed all at once ----
 * Nodes are never freed one by one (an entry's tree lives as long as the
 * histogram; a merged entry's tree is left unreachable), so they come
 * from blocks cut in order: no allocator header per node, and the end
 * frees a block list, not a walk of every tree. A doubled index leaves
 * its old one in the arena (at most as much again). */
#define ARENA_BLOCK (256u * 1024u)

struct pki_hist_ablock {
	struct pki_hist_ablock *next;
	max_align_t data[];
};

/* n zeroed bytes (rounded up to 16), NULL when out of memory. */
static void *arena_get(pki_hist_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n > a->left) {
		size_t sz = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		struct pki_hist_ablock *b = calloc(1, sizeof(*b) + sz);
		if (!b)
			return NULL;
		b->next = a->blocks;
		a->blocks = b;
		a->at = (char *)b->data;
		a->left = sz;
	}
	void *p = a->at;
	a->at += n;
	a->left -= n;
	return p;
}

void pki_hist_arena_free(pki_hist_arena *a)
{
	while (a->blocks) {
		struct pki_hist_ablock *nx = a->blocks->next;
		free(a->blocks);
		a->blocks = nx;
	}
	a->at = NULL;
	a->left = 0;
}

#define INDEX_FROM 8u

struct pki_hist_cindex {
	uint32_t mask;               /* slots - 1, slots a power of 2 */
	pk_hist_cnode *slot[];       /* NULL: free */
};

/* Equal by same_fn, equal hash: a symbol by its start and dso, else the
 * address. */
static uint32_t fn_hash(const char *sym, const char *dso, uint64_t sym_start, uint64_t ip)
{
	uint64_t h = sym ? sym_start ^ ((uint64_t)(uintptr_t)dso * 0x9e3779b97f4a7c15ULL) : ~ip;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (uint32_t)h;
}

static void index_put(struct pki_hist_cindex *x, pk_hist_cnode *c)
{
	uint32_t i = fn_hash(c->sym, c->dso, c->sym_start, c->ip) & x->mask;
	while (x->slot[i])
		i = (i + 1) & x->mask;
	x->slot[i] = c;
}

/* The parent's index made (or doubled) for its nr_child children; false
 * when out of memory (the list still finds them all). */
static bool index_grow(pki_hist_arena *a, pk_hist_cnode *parent)
{
	uint32_t slots = 4 * INDEX_FROM;
	while (slots < 4 * parent->nr_child)
		slots *= 2;
	struct pki_hist_cindex *x = arena_get(a, sizeof(*x) + slots * sizeof(x->slot[0]));
	if (!x) { /* the list alone from here: a smaller index would fill */
		parent->index = NULL;
		return false;
	}
	x->mask = slots - 1;
	for (pk_hist_cnode *c = parent->child; c; c = c->next)
		index_put(x, c);
	parent->index = x;
	return true;
}

/* same_fn, and (strict: the Children trie's nodes, whose fields the trees
 * copy and whose entries they keep) the same symbol, dso and map. */
static inline bool same(const pk_hist_cnode *n, const pki_hist_loc *l, bool strict)
{
	if (strict)
		return n->sym == l->sym && n->dso == l->dso && n->has_map == l->has_map &&
		       (n->sym ? n->sym_start == l->sym_start : n->ip == l->ip);
	return same_fn(n, l);
}

static pk_hist_cnode *find_child(const pk_hist_cnode *parent, const pki_hist_loc *l, bool strict)
{
	if (parent->hot && same(parent->hot, l, strict)) /* chains of a loop repeat */
		return parent->hot;
	const struct pki_hist_cindex *x = parent->index;
	if (!x) {
		for (pk_hist_cnode *c = parent->child; c; c = c->next)
			if (same(c, l, strict))
				return c;
		return NULL;
	}
	for (uint32_t i = fn_hash(l->sym, l->dso, l->sym_start, l->ip) & x->mask; x->slot[i];
	     i = (i + 1) & x->mask)
		if (same(x->slot[i], l, strict))
			return x->slot[i];
	return NULL;
}

/* parent's child of l, made (size bytes, a pk_hist_cnode first) when new. */
static pk_hist_cnode *child_for(pki_hist_arena *a, pk_hist_cnode *parent, const pki_hist_loc *l,
				size_t size, bool strict)
{
	pk_hist_cnode *c = find_child(parent, l, strict);
	if (c)
		return parent->hot = c;
	c = arena_get(a, size);
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
	parent->hot = c;
	parent->nr_child++;
	/* at most half full: (re)made at INDEX_FROM, 2x, 4x, ... children */
	if (parent->nr_child >= INDEX_FROM && !(parent->nr_child & (parent->nr_child - 1)))
		index_grow(a, parent);
	else if (parent->index)
		index_put(parent->index, c);
	return c;
}

void pki_hist_cnode_add(pki_hist_arena *a, pk_hist_cnode *root, const pki_hist_loc *locs, size_t n,
			bool caller, uint64_t period)
{
	pk_hist_cnode *cur = root;
	root->cumul += period;
	root->cumul_nr++;
	for (size_t i = 0; i < n; i++) {
		const pki_hist_loc *l = &locs[caller ? n - 1 - i : i];
		pk_hist_cnode *c = cur->hot; /* chains of a loop repeat: no call */
		if (!c || !same_fn(c, l))
			c = child_for(a, cur, l, sizeof(*c), false);
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

/* The function of node n as a location (what child_for copies). */
static pki_hist_loc loc_of(const pk_hist_cnode *n)
{
	return (pki_hist_loc){.sym = n->sym, .dso = n->dso, .ip = n->ip, .sym_start = n->sym_start,
			      .has_map = n->has_map, .dso_ordinal = n->dso_ordinal};
}

void pki_hist_cnode_merge(pki_hist_arena *a, pk_hist_cnode *into, pk_hist_cnode *from)
{
	into->hit += from->hit;
	into->nr += from->nr;
	into->cumul += from->cumul;
	into->cumul_nr += from->cumul_nr;
	for (pk_hist_cnode *c = from->child; c; c = c->next) {
		pki_hist_loc l = loc_of(c);
		pk_hist_cnode *t = child_for(a, into, &l, sizeof(*t), false);
		if (t)
			pki_hist_cnode_merge(a, t, c);
	}
}

/* ---- Children's trie: every sample's chain once, the trees at the end ----
 * In Children mode a sample adds a path to the tree of every entry on its
 * chain: the function's caller-order path down to the leaf, or its
 * callee-order path up to the root, O(depth^2) nodes a sample. Instead each
 * thread keeps one trie of its samples' chains, walked once a sample, in
 * the order that makes every entry's path a trie node's path back to its
 * thread: leaf first for caller order (chain[i] .. chain[0]), root first
 * for callee order (chain[i] .. chain[n-1]). A sample credits an entry at
 * a trie node (its period and count summed there: one credit per node and
 * entry); the credits, kept in the order they were made, add their paths
 * to the entries' trees at the end. That order makes the trees' children
 * in the order the samples made them: a tree node is made by the first
 * sample through it, whose credit is the first made to pass it (a later
 * credit of an earlier sample would have passed it earlier). Trie nodes
 * match as tree nodes do and also by the symbol, dso and map (the tree
 * copies the trie node's fields; the node keeps its entry, report_hist.c). */
typedef struct pki_hist_credit {
	pk_hist_entry *e;
	pki_hist_tnode *node;
	uint64_t period, nr;
	struct pki_hist_credit *here, *next; /* the node's others; the next made */
} pki_hist_credit;

bool pki_hist_trie_walk(pki_hist_trie *t, uint32_t pid, uint32_t tid, const pki_hist_loc *chain,
			size_t n, bool leaf_first, pki_hist_tnode **path)
{
	/* a thread's node: a bare address no chain node matches (level 1) */
	pki_hist_loc th = {.ip = ((uint64_t)pid << 32) | tid};
	pk_hist_cnode *cur = child_for(&t->a, &t->root, &th, sizeof(pki_hist_tnode), true);
	for (size_t k = 0; cur && k < n; k++) {
		size_t i = leaf_first ? k : n - 1 - k;
		pk_hist_cnode *c = cur->hot; /* the path of the last sample: no call */
		if (!c || !same(c, &chain[i], true)) {
			c = child_for(&t->a, cur, &chain[i], sizeof(pki_hist_tnode), true);
			if (c)
				((pki_hist_tnode *)c)->up = (pki_hist_tnode *)cur;
		}
		path[i] = (pki_hist_tnode *)c;
		cur = c;
	}
	return cur != NULL;
}

bool pki_hist_trie_credit(pki_hist_trie *t, pki_hist_tnode *node, pk_hist_entry *e, uint64_t period)
{
	pki_hist_credit *c = node->credits;
	while (c && c->e != e)
		c = c->here;
	if (!c) {
		c = arena_get(&t->a, sizeof(*c));
		if (!c)
			return false;
		c->e = e;
		c->node = node;
		c->here = node->credits;
		node->credits = c;
		if (!t->tail)
			t->tail = &t->first;
		*t->tail = c;
		t->tail = &c->next;
	}
	c->period += period;
	c->nr++;
	return true;
}

/* The credit's path into its entry's tree, as pki_hist_cnode_add adds a
 * chain (nr samples of period in all). */
static void credit_add(pki_hist_arena *a, const pki_hist_credit *cr)
{
	pk_hist_cnode *root = &cr->e->chain, *cur = root;
	root->cumul += cr->period;
	root->cumul_nr += cr->nr;
	for (const pki_hist_tnode *tn = cr->node; tn->up; tn = tn->up) {
		pki_hist_loc l = loc_of(&tn->n);
		pk_hist_cnode *c = child_for(a, cur, &l, sizeof(*c), false);
		if (!c)
			return; /* out of memory: the chain stops here */
		c->cumul += cr->period;
		c->cumul_nr += cr->nr;
		cur = c;
	}
	if (cur != root) {
		cur->hit += cr->period;
		cur->nr += cr->nr;
	}
}

void pki_hist_trie_build(pki_hist_trie *t, pki_hist_arena *into)
{
	for (const pki_hist_credit *c = t->first; c; c = c->next)
		credit_add(into, c);
	pki_hist_arena_free(&t->a);
	*t = (pki_hist_trie){0};
}
