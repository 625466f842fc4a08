/* The string-keyed hash table (lib/core/strmap.c): 100,000 keys added
 * through many growths are all found with their values, absent keys are
 * not, a key added twice keeps one slot and its value, interning returns
 * one stable address per string, and free calls back once per value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strmap.h"

static size_t freed;

static void count_free(void *v)
{
	freed += v != NULL;
}

static void test_put_get(void **state)
{
	(void)state;
	pki_strmap m = {0};
	char k[32];
	assert_null(pki_strmap_get(&m, "none"));
	enum { N = 100000 };
	for (uintptr_t i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "key-%lu", (unsigned long)i);
		pki_strmap_slot *s = pki_strmap_put(&m, k);
		assert_non_null(s);
		assert_null(s->val);
		s->val = (void *)(i + 1);
	}
	assert_int_equal(m.nr, N);
	assert_true(m.cap >= 2 * N);
	for (uintptr_t i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "key-%lu", (unsigned long)i);
		assert_ptr_equal(pki_strmap_get(&m, k), (void *)(i + 1));
		snprintf(k, sizeof(k), "key-%lu!", (unsigned long)i);
		assert_null(pki_strmap_get(&m, k));
	}
	assert_ptr_equal(pki_strmap_put(&m, "key-7")->val, (void *)8);
	assert_int_equal(m.nr, N);
	assert_non_null(pki_strmap_put(&m, ""));
	assert_int_equal(m.nr, N + 1);
	freed = 0;
	pki_strmap_free(&m, count_free);
	assert_int_equal(freed, N);
	assert_int_equal(m.nr, 0);
	assert_null(pki_strmap_get(&m, "key-1"));
}

static void test_intern(void **state)
{
	(void)state;
	pki_strmap m = {0};
	char buf[] = "inlined";
	const char *a = pki_strmap_intern(&m, buf);
	assert_ptr_not_equal(a, buf);
	for (int i = 0; i < 1000; i++) { /* growths move slots, not keys */
		char k[16];
		snprintf(k, sizeof(k), "%d", i);
		pki_strmap_intern(&m, k);
	}
	assert_ptr_equal(pki_strmap_intern(&m, "inlined"), a);
	assert_string_equal(a, "inlined");
	pki_strmap_free(&m, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get),
		cmocka_unit_test(test_intern),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
