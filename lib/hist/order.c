/* libpmukit: report's output order as perf report 6.1 makes it, for an
 * order that is not transitive.
 *
 * perf orders equal Children of one thread by their chains' depth and
 * entries of two threads by Self and the keys: three entries can then
 * compare a < b < c < a, and the order depends on how it was made. perf
 * makes it by inserting the entries one by one into a red-black tree, each
 * going before a node it sorts before and after a node it ties with, in
 * the order of its table of entries (ascending by the keys' collapse order:
 * names by strcmp, symbols by start address, those without one after); the
 * output is the tree's in-order walk. So here: the same insertions into a
 * red-black tree balanced by the classic rules (red uncle: recolour and go
 * up; else one or two rotations), whose shapes, and so the walk, are
 * perf's. One tree per event (perf's histogram is per event).
 * Invariants: with a transitive order the result is a stable sort of the
 * input order; the array is permuted, nothing is added or lost. */
#include "report.h"

#include <stdlib.h>

#define NIL UINT32_MAX

/* A node; stamp: the insertion (r->ver) that last changed its children. */
typedef struct rb_node {
	uint32_t left, right, parent, stamp;
	bool red;
} rb_node;

/* A look-up's way down to the node it found (pki_hist_rbt_find_again):
 * right turns as bits, at the tree's version ver. */
typedef struct pki_hist_memo {
	uint64_t path;
	uint32_t ver;
	uint8_t depth;
	bool ok;
} pki_hist_memo;

/* x's children or x's parent's link to it changed (insertion r->ver). */
static void touched(pki_hist_rbt *r, uint32_t x)
{
	uint32_t p = r->t[x].parent;
	r->t[x].stamp = r->ver;
	if (p == NIL)
		r->root_stamp = r->ver;
	else
		r->t[p].stamp = r->ver;
}

/* Rotate x down to the left (right: mirror), its child up in its place. */
static void rotate(pki_hist_rbt *r, uint32_t x, bool left)
{
	rb_node *t = r->t;
	touched(r, x);
	uint32_t y = left ? t[x].right : t[x].left;
	uint32_t inner = left ? t[y].left : t[y].right;
	if (left)
		t[x].right = inner;
	else
		t[x].left = inner;
	if (inner != NIL)
		t[inner].parent = x;
	uint32_t p = t[x].parent;
	t[y].parent = p;
	if (p == NIL)
		r->root = y;
	else if (t[p].left == x)
		t[p].left = y;
	else
		t[p].right = y;
	if (left)
		t[y].left = x;
	else
		t[y].right = x;
	t[x].parent = y;
	t[y].stamp = r->ver;
}

/* The red node z's tree balanced again. */
static void fixup(pki_hist_rbt *r, uint32_t z)
{
	rb_node *t = r->t;
	while (t[z].parent != NIL && t[t[z].parent].red) {
		uint32_t p = t[z].parent, g = t[p].parent;
		bool pleft = t[g].left == p;
		uint32_t u = pleft ? t[g].right : t[g].left;
		if (u != NIL && t[u].red) {
			t[p].red = t[u].red = false;
			t[g].red = true;
			z = g;
			continue;
		}
		if (z == (pleft ? t[p].right : t[p].left)) {
			z = p;
			rotate(r, z, pleft);
			p = t[z].parent;
		}
		t[p].red = false;
		t[g].red = true;
		rotate(r, g, !pleft);
	}
	t[r->root].red = false;
}

/* Where e goes down r by cmp: the first node it ties with (when stop_equal,
 * perf's look-up), else NIL with the parent and side to hang it on. */
static uint32_t descend(const pki_hist_rbt *r, const pk_hist_entry *e, pki_hist_entry_cmp *cmp,
			const pk_hist *h, bool stop_equal, uint32_t *parent, bool *left)
{
	*parent = NIL;
	*left = false;
	for (uint32_t x = r->root; x != NIL;) {
		int c = cmp(h, e, r->v[x]);
		if (!c && stop_equal)
			return x;
		*parent = x;
		*left = c < 0; /* before a node it sorts before, else after */
		x = c < 0 ? r->t[x].left : r->t[x].right;
	}
	return NIL;
}

/* e hung on parent's side, the tree balanced again; false when out of memory. */
static bool hang(pki_hist_rbt *r, pk_hist_entry *e, uint32_t parent, bool left)
{
	if (r->n == r->cap) {
		uint32_t nc = r->cap ? r->cap * 2 : 1024;
		rb_node *t = realloc(r->t, nc * sizeof(*t));
		if (t)
			r->t = t;
		pk_hist_entry **v = realloc(r->v, nc * sizeof(*v));
		if (v)
			r->v = v;
		if (!t || !v)
			return false;
		r->cap = nc;
	}
	uint32_t i = r->n++;
	r->ver++;
	r->t[i] = (rb_node){NIL, NIL, parent, r->ver, true};
	r->v[i] = e;
	if (parent == NIL)
		r->root = i;
	else if (left)
		r->t[parent].left = i;
	else
		r->t[parent].right = i;
	touched(r, i);
	fixup(r, i);
	return true;
}

void pki_hist_rbt_init(pki_hist_rbt *r)
{
	*r = (pki_hist_rbt){.root = NIL};
}

void pki_hist_rbt_free(pki_hist_rbt *r)
{
	free(r->t);
	free(r->v);
	free(r->memo);
	pki_hist_rbt_init(r);
}

pk_hist_entry *pki_hist_rbt_find(const pki_hist_rbt *r, const pk_hist_entry *e, pki_hist_entry_cmp *cmp,
				 const pk_hist *h)
{
	uint32_t p;
	bool left;
	uint32_t x = descend(r, e, cmp, h, true, &p, &left);
	return x == NIL ? NULL : r->v[x];
}

/* The node m's way down ends at when no node on it changed since. */
static uint32_t memo_walk(const pki_hist_rbt *r, const pki_hist_memo *m)
{
	if (!m->ok || r->root_stamp > m->ver)
		return NIL;
	uint32_t x = r->root;
	for (unsigned d = 0; d < m->depth; d++) {
		if (r->t[x].stamp > m->ver)
			return NIL;
		x = m->path >> d & 1 ? r->t[x].right : r->t[x].left;
	}
	return x;
}

pk_hist_entry *pki_hist_rbt_find_again(pki_hist_rbt *r, uint32_t self, const pk_hist_entry *e,
				       pki_hist_entry_cmp *cmp, const pk_hist *h)
{
	if (self >= r->n)
		return pki_hist_rbt_find(r, e, cmp, h);
	if (r->memo_cap < r->n) { /* grown with the tree's nodes */
		pki_hist_memo *m = realloc(r->memo, r->cap * sizeof(*m));
		if (!m)
			return pki_hist_rbt_find(r, e, cmp, h);
		memset(m + r->memo_cap, 0, (r->cap - r->memo_cap) * sizeof(*m));
		r->memo = m;
		r->memo_cap = r->cap;
	}
	pki_hist_memo *m = &r->memo[self];
	uint32_t x = memo_walk(r, m);
	if (x != NIL)
		return r->v[x];
	*m = (pki_hist_memo){.ver = r->ver};
	for (x = r->root; x != NIL && m->depth < 64;) {
		int c = cmp(h, e, r->v[x]);
		if (!c) {
			m->ok = true;
			return r->v[x];
		}
		m->path |= (uint64_t)(c > 0) << m->depth++;
		x = c < 0 ? r->t[x].left : r->t[x].right;
	}
	return x == NIL ? NULL : pki_hist_rbt_find(r, e, cmp, h);
}

pk_hist_entry *pki_hist_rbt_add(pki_hist_rbt *r, pk_hist_entry *e, pki_hist_entry_cmp *cmp, const pk_hist *h,
				bool stop_equal, bool *ok)
{
	uint32_t p;
	bool left;
	uint32_t x = descend(r, e, cmp, h, stop_equal, &p, &left);
	*ok = true;
	if (x != NIL)
		return r->v[x];
	*ok = hang(r, e, p, left);
	return NULL;
}

size_t pki_hist_rbt_walk(const pki_hist_rbt *r, pk_hist_entry **out)
{
	uint32_t *stack = malloc((r->n ? r->n : 1) * sizeof(*stack));
	if (!stack)
		return 0;
	size_t k = 0, sp = 0;
	for (uint32_t x = r->root; x != NIL || sp;) { /* in order */
		if (x != NIL) {
			stack[sp++] = x;
			x = r->t[x].left;
			continue;
		}
		x = stack[--sp];
		out[k++] = r->v[x];
		x = r->t[x].right;
	}
	free(stack);
	return k;
}

/* v[0, n) inserted in order into a tree by cmp, written back in its walk. */
static bool tree_order(pk_hist_entry **v, size_t n, pki_hist_entry_cmp *cmp, const pk_hist *h)
{
	pki_hist_rbt r;
	pki_hist_rbt_init(&r);
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++)
		pki_hist_rbt_add(&r, v[i], cmp, h, false, &ok);
	ok = ok && pki_hist_rbt_walk(&r, v) == n;
	pki_hist_rbt_free(&r);
	return ok;
}

bool pki_hist_tree_order(pk_hist_entry **all, size_t n, pki_hist_entry_cmp *cmp, const pk_hist *h)
{
	for (size_t i = 0, j; i < n; i = j) { /* all is by event: a tree each */
		for (j = i + 1; j < n && all[j]->ev == all[i]->ev; j++)
			;
		if (!tree_order(all + i, j - i, cmp, h))
			return false;
	}
	return true;
}
