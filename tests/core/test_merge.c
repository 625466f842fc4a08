/* The natural merge pass shared by the perf.data ordering queue and the
 * symbol tables (PKI_DEFINE_MERGE_PASS, lib/core/util.h): passes until one
 * run is left sort any array, stably (equal keys keep their order), and the
 * run count it returns is that of its output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

typedef struct item {
	uint32_t key, pos; /* pos: the place before sorting */
} item;

static inline int item_less(const item *a, const item *b)
{
	return a->key < b->key;
}

PKI_DEFINE_MERGE_PASS(merge_items, item, item_less)

/* Sorts a (n items) by passes; returns the passes it took. */
static int sort_items(item *a, item *tmp, size_t n)
{
	int passes = 0;
	item *src = a, *dst = tmp;
	for (;;) {
		size_t runs = merge_items(src, dst, n);
		passes++;
		item *t = src;
		src = dst;
		dst = t;
		if (runs <= 1)
			break;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	return passes;
}

static void check_sorted(const item *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		assert_true(a[i - 1].key <= a[i].key);
		if (a[i - 1].key == a[i].key)
			assert_true(a[i - 1].pos < a[i].pos); /* stable */
	}
}

static void test_random(void **state)
{
	(void)state;
	static const size_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 4097};
	static const uint32_t ranges[] = {1, 3, 100, 1u << 30};
	srand(12345);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
			size_t n = sizes[s];
			item *a = calloc(n + 1, sizeof(*a)), *t = calloc(n + 1, sizeof(*t));
			assert_non_null(a);
			assert_non_null(t);
			uint64_t sum = 0;
			for (size_t i = 0; i < n; i++) {
				a[i] = (item){(uint32_t)rand() % ranges[r], (uint32_t)i};
				sum += a[i].key;
			}
			sort_items(a, t, n);
			check_sorted(a, n);
			for (size_t i = 0; i < n; i++)
				sum -= a[i].key; /* the same keys, none lost */
			assert_true(sum == 0);
			free(a);
			free(t);
		}
	}
}

static void test_runs(void **state)
{
	(void)state;
	/* two sorted runs (as two ring buffers): one pass, two runs read */
	item a[8], t[8];
	for (uint32_t i = 0; i < 4; i++) {
		a[i] = (item){i * 2, i};
		a[i + 4] = (item){i * 2 + 1, i + 4};
	}
	assert_int_equal(merge_items(a, t, 8), 1);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(t[i].key, i);
	/* sorted already: one run, copied as it is */
	assert_int_equal(merge_items(t, a, 8), 1);
	assert_memory_equal(a, t, sizeof(a));
	/* descending: 8 runs of one, merged two by two into 4 */
	for (uint32_t i = 0; i < 8; i++)
		a[i] = (item){8 - i, i};
	assert_int_equal(merge_items(a, t, 8), 4);
	assert_int_equal(sort_items(a, t, 8), 3);
	check_sorted(a, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
