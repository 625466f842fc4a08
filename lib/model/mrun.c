/* A model run as perf stat and record drive it (model.h): the scenario's
 * threads as a thread map, and virtual time advanced to the scenario's end
 * by intervals with a callback after each.
 *
 * Invariants: the run never waits (time is virtual); the last interval
 * ends at the scenario's end, shorter when need be; a callback's error
 * stops the run and is returned as is. */
#include <pmukit/counting.h>
#include <pmukit/model.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The scenario's tids as "a,b,c" (grown as needed: a scenario may have
 * thousands of threads). */
typedef struct tid_list {
	char *s;
	size_t len, cap;
} tid_list;

static int add_tid(void *arg, pid_t tid)
{
	tid_list *l = arg;
	if (l->len + 16 > l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		char *s = realloc(l->s, cap);
		if (!s)
			return -ENOMEM;
		l->s = s, l->cap = cap;
	}
	l->len += (size_t)snprintf(l->s + l->len, l->cap - l->len, "%s%d", l->len ? "," : "",
				   (int)tid);
	return 0;
}

pk_threadmap *pk_model_threads(pk_model *m, const char *pids, const char *tids, pk_error *err)
{
	const pk_kernel *k = pk_model_kernel(m);
	if (pids)
		return pk_threadmap_from_pids(k, pids, err);
	if (tids)
		return pk_threadmap_from_tids(k, tids, err);
	tid_list all = {0};
	if (k->ops->host.tasks(k, 0, add_tid, &all) < 0 || !all.s) {
		free(all.s);
		pk_err(err, -ENOMEM, "out of memory");
		return NULL;
	}
	pk_threadmap *map = pk_threadmap_from_tids(k, all.s, err);
	free(all.s);
	return map;
}

int pk_model_run(pk_model *m, long interval_ms, long interval_count, pk_model_tick_fn tick,
		 void *arg, pk_error *err)
{
	uint64_t end = pk_model_end(m);
	if (!interval_ms) {
		pk_model_advance(m, end - pk_model_now(m));
		return 0;
	}
	uint64_t step = (uint64_t)interval_ms * 1000000u;
	for (long n = 0; pk_model_now(m) < end && (!interval_count || n < interval_count); n++) {
		uint64_t len = end - pk_model_now(m) < step ? end - pk_model_now(m) : step;
		pk_model_advance(m, len);
		int r = tick(arg, (double)pk_model_now(m), (double)len, err);
		if (r < 0)
			return r;
	}
	return 0;
}
