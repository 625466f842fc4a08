/* Benchmark: how fast the PMU model serves reads, against the real kernel.
 *
 * Issue 8 asks that long `-I` runs on the model stay fast. This program
 * measures, in one run on one machine:
 *   model   - a pk_counting over the model's kernel (pk_model_kernel) with the
 *             TopDown group of a PERF_METRICS machine and two more events,
 *             read after every 1 ms step of virtual time (pk_model_advance +
 *             pk_counting_read): reads of the whole evlist per second, and
 *             the virtual time served per second of CPU;
 *   kernel  - the same number of evsels as software events (task-clock) on the
 *             calling thread through the real kernel, read the same way: the
 *             peer, since a real `stat -I` pays a read(2) per counter.
 * It prints both rates and their ratio. Nothing here is a test: the numbers
 * depend on the machine (bench/model/README.md keeps the last ones).
 *
 *   model-reads SCENARIO [SECONDS]   (SECONDS of CPU per side, default 2) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/model.h>
#include <pmukit/pmu.h>

#define MODEL_EVENTS \
	"{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound},cycles,instructions"
#define KERNEL_EVENTS "task-clock,task-clock,task-clock,task-clock,task-clock,task-clock,task-clock"
#define STEP_NS 1000000ull

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *what, const pk_error *err)
{
	char buf[2048];
	pk_error_render(err, buf, sizeof(buf));
	fprintf(stderr, "model-reads: %s: %s", what, buf);
	return 1;
}

/* Parses events on pmus and opens them on threads through kernel k. */
static pk_counting *open_counting(const pk_pmus *pmus, const char *events, const char *cpuid,
				  const pk_kernel *k, pk_threadmap *threads, pk_error *err)
{
	pk_evlist *evlist = pk_evlist_new();
	pk_parse_opts popts = {.cpuid = cpuid};
	pk_config_opts copts = {.mode = PK_CONFIG_STAT, .no_inherit = true};
	pk_counting *c = NULL;
	if (evlist && pk_evlist_parse(evlist, pmus, events, &popts, err) == 0 &&
	    pk_evlist_config(evlist, &copts, err) == 0) {
		pk_counting_opts opts;
		pk_counting_opts_init(&opts);
		opts.kernel = k;
		opts.threads = threads;
		c = pk_counting_new(evlist, &opts, err);
		if (c && (pk_counting_open(c, err) < 0 || pk_counting_enable(c, err) < 0)) {
			pk_counting_free(c);
			c = NULL;
		}
	}
	pk_evlist_put(evlist);
	return c;
}

/* Reads c until `budget` seconds of CPU are spent; advances the model by
 * one step before each read when m is given. Returns reads per second. */
static double read_rate(pk_counting *c, pk_model *m, double budget, long *reads, pk_error *err)
{
	double t0 = cpu_s(), t = t0;
	long n = 0;
	while (t - t0 < budget) {
		for (int i = 0; i < 256; i++, n++) {
			if (m && !pk_model_advance(m, STEP_NS))
				goto out; /* the scenario ended */
			if (pk_counting_read(c, err) < 0)
				return -1;
		}
		t = cpu_s();
	}
out:
	t = cpu_s();
	*reads = n;
	return (double)n / (t - t0);
}

struct tids {
	pid_t tid[64];
	int nr;
};

static int add_tid(void *arg, pid_t tid)
{
	struct tids *t = arg;
	if (t->nr < 64)
		t->tid[t->nr++] = tid;
	return 0;
}

/* Every task of the model's scenario (its host's task list). */
static pk_threadmap *model_threads(const pk_kernel *k)
{
	struct tids t = {.nr = 0};
	if (k->ops->host.tasks(k, 0, add_tid, &t) < 0 || t.nr == 0)
		return NULL;
	return pk_threadmap_new(t.tid, t.nr);
}

static int bench_model(const char *scenario, double budget, double *rate)
{
	pk_error err;
	pk_error_clear(&err);
	pk_model *m = pk_model_new(scenario, &err);
	if (!m)
		return fail(scenario, &err);
	pk_pmus *pmus = pk_pmus_load(pk_model_sysfs_root(m), &err);
	const pk_kernel *k = pk_model_kernel(m);
	pk_threadmap *threads = pmus ? model_threads(k) : NULL;
	if (pmus && !threads)
		pk_err(&err, -ENOENT, "the model lists no tasks");
	pk_counting *c = NULL;
	if (threads)
		c = open_counting(pmus, MODEL_EVENTS, pk_model_cpuid(m)->str, k, threads, &err);
	long reads = 0;
	int rc = 0;
	if (!c || (*rate = read_rate(c, m, budget, &reads, &err)) < 0)
		rc = fail("model", &err);
	else
		printf("model:  %ld reads of 7 events in %.2f s of virtual time: %.0f reads/s, "
		       "%.0f s of virtual time per CPU second\n",
		       reads, (double)pk_model_now(m) / 1e9, *rate,
		       *rate * (double)STEP_NS / 1e9);
	pk_counting_free(c);
	pk_threadmap_put(threads);
	pk_pmus_put(pmus);
	pk_model_free(m);
	return rc;
}

static int bench_kernel(double budget, double *rate)
{
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *pmus = pk_pmus_load(NULL, &err);
	pid_t self = 0;
	pk_threadmap *threads = pk_threadmap_new(&self, 1);
	pk_counting *c = pmus ? open_counting(pmus, KERNEL_EVENTS, NULL, NULL, threads, &err) : NULL;
	long reads = 0;
	int rc = 0;
	if (!c || (*rate = read_rate(c, NULL, budget, &reads, &err)) < 0)
		rc = fail("kernel", &err);
	else
		printf("kernel: %ld reads of 7 task-clock events: %.0f reads/s\n", reads, *rate);
	pk_counting_free(c);
	pk_threadmap_put(threads);
	pk_pmus_put(pmus);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: model-reads SCENARIO [SECONDS]\n");
		return 2;
	}
	double budget = argc > 2 ? strtod(argv[2], NULL) : 2.0;
	if (!(budget > 0))
		budget = 2.0;
	double model = 0, kernel = 0;
	if (bench_model(argv[1], budget, &model) || bench_kernel(budget, &kernel))
		return 1;
	printf("model/kernel reads per second: %.2f\n", model / kernel);
	return 0;
}
