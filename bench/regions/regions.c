/* bench/regions: what a region reading costs (issue 10, bench/regions/
 * README.md). Prints one line per measure, nanoseconds per operation, and
 * the ratios the issue sets targets for:
 *   snapshot-model      pk_region_snapshot on the PMU model's RDPMC path
 *                       (emulated: the model's lock and its RDPMC)
 *   snapshot-read       pk_region_snapshot on this kernel's read(2)
 *                       fallback (a software event, task-clock)
 *   bare-read           read(2) of a task-clock fd opened the same way
 *   papi-read           PAPI_read of perf::TASK-CLOCK (when built with PAPI)
 *   pair-*-1t / -2t     a begin/end pair, one thread / two threads at once
 * A ratio is an A/B in one process: blocks of 100 operations of A and of B
 * alternate (A B, then B A: neither always goes first) over thousands of
 * block pairs; the line gives the medians and minima over the blocks of
 * each and the median of the pairs' own ratios (a pair's two blocks run
 * within microseconds of each other, so the machine's load moves both).
 * usage: region-bench [DIR]   (bench/regions: spr2.json there, two
 *                              Sapphire Rapids threads)
 *        region-bench --count OP N   only N operations of OP (snapshot,
 *                              bare, pair, papi) after the set-up: for
 *                              counting instructions (run.sh, callgrind) */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/kernel.h>
#include <pmukit/model.h>
#include <pmukit/region.h>
#ifdef HAVE_PAPI
#include <papi.h>
#endif


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

/* One operation alone: the median and the minimum over blocks of 100
 * (ns per operation); a block takes tens of microseconds, so most run
 * unpreempted even on a loaded machine. */
typedef struct one {
	double med, min;
} one;

static one measure(op_fn op, void *arg, long blocks)
{
	enum { BATCH = 100, MAXB = 4000 };
	double *v = malloc(MAXB * sizeof(double));
	if (!v)
		abort();
	long nb = blocks < MAXB ? blocks : MAXB;
	op(arg, 10 * BATCH); /* warm */
	for (long r = 0; r < nb; r++) {
		double t = now_ns();
		op(arg, BATCH);
		v[r] = (now_ns() - t) / BATCH;
	}
	qsort(v, (size_t)nb, sizeof(v[0]), cmp);
	one o = {v[nb / 2], v[0]};
	free(v);
	return o;
}

static void print_one(const char *name, one o)
{
	printf("%s %.1f (min %.1f)\n", name, o.med, o.min);
}

/* A/B: the medians and minima (ns per operation) over the blocks of each,
 * and the median of the block pairs' ratios a/b. */
typedef struct ab {
	double med[2], min[2], ratio;
	long pairs;
} ab;

static void measure_ab(op_fn a, void *aa, op_fn b, void *ba, long pairs, ab *out)
{
	enum { BATCH = 100, MAXB = 8000 };
	static double v[2][MAXB], q[MAXB];
	op_fn f[2] = {a, b};
	void *arg[2] = {aa, ba};
	long nb = pairs < MAXB ? pairs : MAXB;
	a(aa, 10 * BATCH), b(ba, 10 * BATCH);
	for (long r = 0; r < nb; r++) {
		for (int k = 0; k < 2; k++) {
			int w = (int)(r & 1) ^ k; /* A B, then B A */
			double t = now_ns();
			f[w](arg[w], BATCH);
			v[w][r] = (now_ns() - t) / BATCH;
		}
		q[r] = v[0][r] / v[1][r];
	}
	for (int w = 0; w < 2; w++) {
		qsort(v[w], (size_t)nb, sizeof(double), cmp);
		out->med[w] = v[w][nb / 2];
		out->min[w] = v[w][0];
	}
	qsort(q, (size_t)nb, sizeof(double), cmp);
	out->ratio = q[nb / 2];
	out->pairs = nb;
}

static void print_ab(const char *an, const char *bn, const ab *r)
{
	printf("%s %.1f (min %.1f)\n", an, r->med[0], r->min[0]);
	printf("%s %.1f (min %.1f)\n", bn, r->med[1], r->min[1]);
	printf("ratio %s/%s %.3f (medians %.3f, minima %.3f; %ld block pairs)\n", an, bn, r->ratio,
	       r->med[0] / r->med[1], r->min[0] / r->min[1], r->pairs);
}

static __attribute__((noinline)) void op_snapshot(void *arg, long n)
{
	(void)arg;
	pk_region_snap s;
	for (long i = 0; i < n; i++)
		if (pk_region_snapshot(&s, NULL) < 0)
			abort();
}

static __attribute__((noinline)) void op_pair(void *arg, long n)
{
	(void)arg;
	for (long i = 0; i < n; i++)
		if (pk_region_begin("bench") < 0 || pk_region_end("bench") < 0)
			abort();
}

static __attribute__((noinline)) void op_read(void *arg, long n)
{
	int fd = *(int *)arg;
	unsigned long long buf[3];
	for (long i = 0; i < n; i++)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			abort();
}

/* Two threads doing begin/end pairs at once: ns per pair per thread
 * (the mean of the two threads' medians and minima). */
typedef struct two {
	long n;
	one o;
	pthread_barrier_t *bar;
} two;

static void *pair_thread(void *arg)
{
	two *t = arg;
	if (pk_region_thread_init(NULL) < 0)
		abort();
	pthread_barrier_wait(t->bar);
	t->o = measure(op_pair, NULL, t->n);
	pk_region_thread_fini();
	return NULL;
}

static one pairs_2t(long n)
{
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, 2);
	two t[2] = {{n, {0, 0}, &bar}, {n, {0, 0}, &bar}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, pair_thread, &t[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
	return (one){(t[0].o.med + t[1].o.med) / 2, (t[0].o.min + t[1].o.min) / 2};
}

static int init(pk_model *m, pk_error *err)
{
	pk_region_opts o;
	pk_region_opts_init(&o);
	o.kernel = pk_model_kernel(m);
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
	print_one("snapshot-model", measure(op_snapshot, NULL, 2000));
	print_one("pair-model-1t", measure(op_pair, NULL, 1000));
	pk_region_fini();
	if (init(m, &err) < 0)
		return 1;
	print_one("pair-model-2t", pairs_2t(1000));
	pk_region_fini();
	pk_model_free(m);
	return 0;
}

/* task-clock opened bare through the kernel seam, as the fallback opens
 * it (times in the read): what a snapshot is compared with. */
static int bare_fd(void)
{
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_TASK_CLOCK,
				    .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
						   PERF_FORMAT_TOTAL_TIME_RUNNING};
	const pk_kernel *k = pk_kernel_linux();
	int fd = k->ops->open(k, &a, 0, -1, -1, 0);
	if (fd < 0)
		fprintf(stderr, "region-bench: task-clock: %s\n", strerror(-fd));
	return fd;
}

#ifdef HAVE_PAPI
/* PAPI's event set counting perf::TASK-CLOCK, started; -1 without. */
static int papi_set(void)
{
	int es = PAPI_NULL;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
	    PAPI_create_eventset(&es) != PAPI_OK ||
	    PAPI_add_named_event(es, "perf::TASK-CLOCK") != PAPI_OK || PAPI_start(es) != PAPI_OK)
		return -1;
	return es;
}

static __attribute__((noinline)) void op_papi(void *arg, long n)
{
	int es = *(int *)arg;
	long long v[1];
	for (long i = 0; i < n; i++)
		if (PAPI_read(es, v) != PAPI_OK)
			abort();
}
#endif

/* The fallback snapshot against a bare read(2), then against PAPI_read. */
static int snapshot_ab(void)
{
	int fd = bare_fd();
	if (fd < 0)
		return 1;
	ab r;
	measure_ab(op_snapshot, NULL, op_read, &fd, 4000, &r);
	print_ab("snapshot-read", "bare-read", &r);
	pk_kernel_linux()->ops->close(pk_kernel_linux(), fd);
#ifdef HAVE_PAPI
	int es = papi_set();
	if (es < 0) {
		printf("# papi: perf::TASK-CLOCK cannot be counted here\n");
		return 0;
	}
	measure_ab(op_snapshot, NULL, op_papi, &es, 2000, &r);
	print_ab("snapshot-read", "papi-read", &r);
#else
	printf("# papi: not built (no libpapi-dev when configured; run.sh installs it)\n");
#endif
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
	int r = snapshot_ab();
	print_one("pair-read-1t", measure(op_pair, NULL, 2000));
	pk_region_fini();
	if (init(NULL, &err) < 0)
		return 1;
	print_one("pair-read-2t", pairs_2t(2000));
	pk_region_fini();
	return r;
}

/* --count OP N: N operations of OP alone, after the set-up. */
static int count_only(const char *op, long n)
{
	pk_error err = {0};
	if (init(NULL, &err) < 0)
		return fprintf(stderr, "region-bench: %s\n", err.msg), 1;
	int fd = bare_fd();
	if (fd < 0)
		return 1;
	if (!strcmp(op, "snapshot"))
		op_snapshot(NULL, n);
	else if (!strcmp(op, "bare"))
		op_read(&fd, n);
	else if (!strcmp(op, "pair"))
		op_pair(NULL, n);
#ifdef HAVE_PAPI
	else if (!strcmp(op, "papi")) {
		int es = papi_set();
		if (es < 0)
			return fprintf(stderr, "region-bench: no PAPI perf::TASK-CLOCK\n"), 2;
		op_papi(&es, n);
	}
#endif
	else
		return fprintf(stderr, "region-bench: --count %s: not an operation here\n", op), 2;
	pk_region_fini();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--count"))
		return count_only(argv[2], atol(argv[3]));
	const char *dir = argc > 1 ? argv[1] : "bench/regions";
	double l[3] = {0};
	if (getloadavg(l, 3) == 3)
		printf("# load average %.2f %.2f %.2f, %ld CPUs online\n", l[0], l[1], l[2],
		       sysconf(_SC_NPROCESSORS_ONLN));
	int r = model_part(dir) || kernel_part();
	if (getloadavg(l, 3) == 3)
		printf("# load average at the end %.2f %.2f %.2f\n", l[0], l[1], l[2]);
	return r;
}
