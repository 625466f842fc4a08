/* bench/regions: what a region reading costs (issue 10, bench/regions/
 * README.md). Prints one line per measure, nanoseconds per operation
 * (the median of 7 runs), and the ratios the issue sets targets for:
 *   snapshot-model      pk_region_snapshot on the PMU model's RDPMC path
 *                       (emulated: the model's lock and its RDPMC)
 *   snapshot-read       pk_region_snapshot on this kernel's read(2)
 *                       fallback (a software event, task-clock)
 *   bare-read           read(2) of a task-clock fd opened the same way
 *   papi-read           PAPI_read of perf::TASK-CLOCK (when built with PAPI)
 *   pair-*-1t / -2t     a begin/end pair, one thread / two threads at once
 * usage: region-bench [DIR]   (bench/regions: spr2.json there, two
 * Sapphire Rapids threads) */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/kernel.h>
#include <pmukit/region.h>
#ifdef HAVE_PAPI
#include <papi.h>
#endif

enum { RUNS = 7 };

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

typedef void (*op_fn)(void *arg, long n);

/* The median over RUNS runs of n operations, ns per operation. */
static double measure(op_fn op, void *arg, long n)
{
	double v[RUNS];
	op(arg, n / 10); /* warm */
	for (int r = 0; r < RUNS; r++) {
		double t = now_ns();
		op(arg, n);
		v[r] = (now_ns() - t) / (double)n;
	}
	qsort(v, RUNS, sizeof(v[0]), cmp);
	return v[RUNS / 2];
}

/* Two operations measured in alternating short batches of 100 (a batch
 * takes tens of microseconds, so most run without being preempted even on
 * a loaded machine, and the load moves both alike): the medians over the
 * batches. */
static void measure2(op_fn a, void *aa, op_fn b, void *ba, long n, double *ra, double *rb)
{
	enum { BATCH = 100, MAXB = 4001 };
	static double va[MAXB], vb[MAXB];
	long nb = n / BATCH < MAXB ? n / BATCH : MAXB;
	a(aa, n / 10), b(ba, n / 10);
	for (long r = 0; r < nb; r++) {
		double t = now_ns();
		a(aa, BATCH);
		va[r] = (now_ns() - t) / BATCH;
		t = now_ns();
		b(ba, BATCH);
		vb[r] = (now_ns() - t) / BATCH;
	}
	qsort(va, (size_t)nb, sizeof(va[0]), cmp);
	qsort(vb, (size_t)nb, sizeof(vb[0]), cmp);
	*ra = va[nb / 2], *rb = vb[nb / 2];
}

static void op_snapshot(void *arg, long n)
{
	(void)arg;
	pk_region_snap s;
	for (long i = 0; i < n; i++)
		if (pk_region_snapshot(&s, NULL) < 0)
			abort();
}

static void op_pair(void *arg, long n)
{
	(void)arg;
	for (long i = 0; i < n; i++)
		if (pk_region_begin("bench") < 0 || pk_region_end("bench") < 0)
			abort();
}

static void op_read(void *arg, long n)
{
	int fd = *(int *)arg;
	unsigned long long buf[3];
	for (long i = 0; i < n; i++)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			abort();
}

/* Two threads doing begin/end pairs at once: ns per pair per thread. */
typedef struct two {
	long n;
	double ns;
	pthread_barrier_t *bar;
} two;

static void *pair_thread(void *arg)
{
	two *t = arg;
	if (pk_region_thread_init(NULL) < 0)
		abort();
	pthread_barrier_wait(t->bar);
	t->ns = measure(op_pair, NULL, t->n);
	pk_region_thread_fini();
	return NULL;
}

static double pairs_2t(long n)
{
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, 2);
	two t[2] = {{n, 0, &bar}, {n, 0, &bar}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, pair_thread, &t[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
	return (t[0].ns + t[1].ns) / 2;
}

static int init(pk_model *m, pk_error *err)
{
	pk_region_opts o;
	pk_region_opts_init(&o);
	o.model = m;
	o.report = "";
	return pk_region_init(&o, err);
}

static int model_part(const char *dir)
{
	char path[4096];
	pk_error err = {0};
	snprintf(path, sizeof(path), "%s/spr2.json", dir);
	pk_model *m = pk_model_new(path, &err);
	if (!m || init(m, &err) < 0) {
		fprintf(stderr, "region-bench: %s %s\n", err.msg, err.where);
		return 1;
	}
	pk_model_advance(m, 1000000);
	printf("snapshot-model %.1f\n", measure(op_snapshot, NULL, 200000));
	printf("pair-model-1t %.1f\n", measure(op_pair, NULL, 100000));
	pk_region_fini();
	if (init(m, &err) < 0)
		return 1;
	printf("pair-model-2t %.1f\n", pairs_2t(100000));
	pk_region_fini();
	pk_model_free(m);
	return 0;
}

static int kernel_part(void)
{
	pk_error err = {0};
	if (init(NULL, &err) < 0) {
		fprintf(stderr, "region-bench: %s\n", err.msg);
		return 1;
	}
	pk_region_info in;
	pk_region_get_info(&in);
	printf("# kernel: %s\n", in.topdown ? in.method : in.fallback);
	printf("pair-read-1t %.1f\n", measure(op_pair, NULL, 100000));
	pk_region_fini();
	if (init(NULL, &err) < 0)
		return 1;
	printf("pair-read-2t %.1f\n", pairs_2t(100000));
	pk_region_fini();
	if (init(NULL, &err) < 0)
		return 1;
	/* the same event, opened bare through the kernel seam, read(2) alone */
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_TASK_CLOCK,
				    .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
						   PERF_FORMAT_TOTAL_TIME_RUNNING};
	const pk_kernel *k = pk_kernel_linux();
	int fd = k->ops->open(k, &a, 0, -1, -1, 0);
	if (fd < 0)
		return fprintf(stderr, "region-bench: task-clock: %s\n", strerror(-fd)), 1;
	double snap, bare;
	measure2(op_snapshot, NULL, op_read, &fd, 200000, &snap, &bare);
	printf("snapshot-read %.1f\n", snap);
	printf("bare-read %.1f\n", bare);
	printf("ratio snapshot-read/bare-read %.3f\n", snap / bare);
	k->ops->close(k, fd);
	pk_region_fini();
#ifdef HAVE_PAPI
	int es = PAPI_NULL;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
	    PAPI_create_eventset(&es) != PAPI_OK ||
	    PAPI_add_named_event(es, "perf::TASK-CLOCK") != PAPI_OK || PAPI_start(es) != PAPI_OK) {
		printf("# papi: perf::TASK-CLOCK not available\n");
		return 0;
	}
	long long v[1];
	double t0 = 0, vv[RUNS];
	for (int r = 0; r < RUNS; r++) {
		t0 = now_ns();
		for (int i = 0; i < 200000; i++)
			PAPI_read(es, v);
		vv[r] = (now_ns() - t0) / 200000;
	}
	qsort(vv, RUNS, sizeof(vv[0]), cmp);
	printf("papi-read %.1f\n", vv[RUNS / 2]);
	printf("ratio snapshot-read/papi-read %.3f\n", snap / vv[RUNS / 2]);
#endif
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "bench/regions";
	return model_part(dir) || kernel_part();
}
