/* The orders report prints a chain tree in (lib/hist/chain_order.c, issue
 * 21: moved out of tools/pmukit/report_chain.c): a node's children kept
 * above a threshold by cumul, ties in perf's address order (a mapped dso
 * before none, the later dso first, then the higher symbol start, else
 * address), the same on a wide node (the merge sort); the nodes where
 * chains end, each after its children, then by hit; the path to a node.
 * The trees are made here by hand, as the library makes them (a child list
 * in the order first seen); perf's outputs on real trees are checked by
 * perfdata_report_diff and perfdata_brstack. */
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include <pmukit/hist.h>

static void add(pk_hist_cnode *parent, pk_hist_cnode *c)
{
	if (parent->last)
		parent->last->next = c;
	else
		parent->child = c;
	parent->last = c;
	parent->nr_child++;
}

static pk_hist_cnode node(uint64_t ip, uint64_t hit, uint64_t cumul)
{
	return (pk_hist_cnode){.ip = ip, .hit = hit, .cumul = cumul, .has_map = true,
			       .dso_ordinal = 1};
}

static void test_children(void **state)
{
	(void)state;
	pk_hist_cnode root = node(0, 0, 100), c[5];
	c[0] = node(0x10, 0, 30);
	c[1] = node(0x30, 0, 30); /* same cumul, higher address: first */
	c[2] = node(0x20, 0, 35);
	c[3] = node(0x40, 0, 4);  /* below the threshold */
	c[4] = node(0x50, 0, 30);
	c[4].dso_ordinal = 2;     /* a later dso: first among equals */
	for (int i = 0; i < 5; i++)
		add(&root, &c[i]);
	const pk_hist_cnode **v;
	size_t k = pk_hist_cnode_children(&root, 5, &v);
	assert_int_equal(k, 4);
	assert_ptr_equal(v[0], &c[2]);
	assert_ptr_equal(v[1], &c[4]);
	assert_ptr_equal(v[2], &c[1]);
	assert_ptr_equal(v[3], &c[0]);
	free(v);
	/* a symbol's start decides over the address when both have one */
	c[0].sym = c[1].sym = "f";
	c[0].sym_start = 0x100;
	c[1].sym_start = 0x50;
	k = pk_hist_cnode_children(&root, 5, &v);
	assert_ptr_equal(v[2], &c[0]);
	assert_ptr_equal(v[3], &c[1]);
	free(v);
}

/* A wide node (64 children and more) sorts the same, stably. */
static void test_wide(void **state)
{
	(void)state;
	enum { N = 100 };
	pk_hist_cnode root = node(0, 0, 0), *c = calloc(N, sizeof(*c));
	assert_non_null(c);
	for (int i = 0; i < N; i++) {
		c[i] = node((uint64_t)(i * 7 % N), 0, (uint64_t)(i % 3));
		add(&root, &c[i]);
	}
	const pk_hist_cnode **v;
	size_t k = pk_hist_cnode_children(&root, 1, &v);
	assert_int_equal(k, N - (N + 2) / 3);
	for (size_t i = 1; i < k; i++)
		assert_true(v[i - 1]->cumul > v[i]->cumul ||
			    (v[i - 1]->cumul == v[i]->cumul && v[i - 1]->ip > v[i]->ip));
	free(v);
	free(c);
}

/* Chains' ends in the flat view's order, and the path to each. */
static void test_ends_and_path(void **state)
{
	(void)state;
	pk_hist_cnode root = node(0, 0, 10), a = node(0x10, 2, 10), b = node(0x20, 5, 5),
		      d = node(0x30, 3, 3);
	add(&root, &a);
	add(&a, &b);
	add(&a, &d);
	const pk_hist_cnode **v;
	size_t k = pk_hist_cnode_ends(&root, 1, &v);
	assert_int_equal(k, 3);
	assert_ptr_equal(v[0], &b); /* by hit: 5, 3, 2 */
	assert_ptr_equal(v[1], &d);
	assert_ptr_equal(v[2], &a);
	free(v);
	k = pk_hist_cnode_ends(&root, 3, &v); /* a's 2 is below */
	assert_int_equal(k, 2);
	free(v);
	const pk_hist_cnode *path[4];
	assert_int_equal(pk_hist_cnode_path(&root, &d, path, 4), 2);
	assert_ptr_equal(path[0], &a);
	assert_ptr_equal(path[1], &d);
	assert_int_equal(pk_hist_cnode_path(&root, &d, path, 1), 0); /* deeper than max */
	assert_int_equal(pk_hist_cnode_path(&b, &d, path, 4), 0);    /* not below */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_ends_and_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
