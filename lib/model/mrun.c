/* A model run as perf stat and record drive it (model.h): the scenario's
 * threads as a thread map, and virtual time advanced to the scenario's end
 * by intervals with a callback after each.
 *
 * Invariants: the run never waits (time is virtual); the last interval
 * ends at the scenario's end, shorter when need be; a callback's error
 * stops the run and is returned as is. */
#include <pmukit/counting.h>
#include <pmukit/model.h>


pk_threadmap *pk_model_threads(pk_model *m, const char *pids, const char *tids, pk_error *err)
{
	pk_targets_opts o = {.size = sizeof(o), .kernel = pk_model_kernel(m), .pids = pids,
			     .tids = tids, .every_task = true};
	pk_cpumap *cpus;
	pk_threadmap *threads;
	return pk_targets_select(&o, &cpus, &threads, err) < 0 ? NULL : threads;
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
