/* The library's one reference count (lib/core/refcount.h) under threads:
 * gets and puts from several threads at once lose no update, exactly one
 * put sees the last reference go, and the shared objects built on it
 * (pk_cpumap, pk_pmus, pk_evlist, pk_threadmap) survive concurrent
 * get/put pairs and are freed once (ASan/valgrind builds see a double free
 * or a leak). */
#include "helpers.h"

#include <pthread.h>
#include <stdatomic.h>

#include <pmukit/counting.h>
#include <pmukit/cpumap.h>
#include <pmukit/events.h>
#include <pmukit/pmu.h>

#include "core/refcount.h"

#define THREADS 4
#define ROUNDS 200000

static pki_ref shared;
static atomic_int lasts;
static pthread_barrier_t start;

/* get/put pairs, all threads started at once so that they overlap */
static void *hammer(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS * 5; i++) {
		pki_ref_get(&shared);
		if (pki_ref_put(&shared))
			atomic_fetch_add(&lasts, 1);
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *), void *arg)
{
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, fn, arg), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
}

static void test_no_lost_update(void **state)
{
	(void)state;
	pki_ref_init(&shared);
	pthread_barrier_init(&start, NULL, THREADS);
	run_threads(hammer, NULL);
	pthread_barrier_destroy(&start);
	/* every thread's gets matched its puts: the creator's reference is
	 * the last one, and no put on the way dropped it */
	assert_int_equal(atomic_load(&lasts), 0);
	assert_true(pki_ref_put(&shared));
}

struct objects {
	pk_cpumap *cpus;
	pk_pmus *pmus;
	pk_evlist *evlist;
	pk_threadmap *threads;
};

static void *share(void *arg)
{
	struct objects *o = arg;
	for (int i = 0; i < ROUNDS / 10; i++) {
		pk_cpumap_put(pk_cpumap_get(o->cpus));
		pk_pmus_put(pk_pmus_get(o->pmus));
		pk_evlist_put(pk_evlist_get(o->evlist));
		pk_threadmap_put(pk_threadmap_get(o->threads));
	}
	return NULL;
}

static void test_shared_objects(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	struct objects o = {pk_cpumap_parse("0-3", &err), pk_pmus_load(pk_test_sysfs("icelake"), &err),
			    pk_evlist_new(), pk_threadmap_new((pid_t[]){1}, 1)};
	assert_non_null(o.cpus);
	assert_non_null(o.pmus);
	assert_non_null(o.evlist);
	assert_non_null(o.threads);
	run_threads(share, &o);
	assert_int_equal(pk_cpumap_nr(o.cpus), 4);
	assert_true(pk_pmus_count(o.pmus) > 0);
	pk_cpumap_put(o.cpus);
	pk_pmus_put(o.pmus);
	pk_evlist_put(o.evlist);
	pk_threadmap_put(o.threads);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_lost_update),
		cmocka_unit_test(test_shared_objects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
