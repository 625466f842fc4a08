/* The counting layer driven by a fake kernel: opens on (cpu, thread) pairs,
 * groups, reads and scaling, aggregation, failures and their explanations,
 * the default event set and hybrid rows on the alderlake fixture; stat's
 * notes (pk_counting_notes: one per reason, with its events counted). (The stat
 * printer is the CLI's: tests/cli; the metrics are lib/metrics':
 * tests/metrics.) */
#include "helpers.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/counting.h>

#include "fake_kernel.h"

static fake_kernel fk;

static int setup(void **state)
{
	(void)state;
	fake_kernel_init(&fk);
	return 0;
}

static pk_evsel *add_sw(pk_evlist *l, uint64_t config, const char *name)
{
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .config = config};
	return pk_evlist_add(l, &a, name, NULL);
}

static pk_evsel *add_hw(pk_evlist *l, uint64_t config, const char *name, const pk_pmu *pmu)
{
	struct perf_event_attr a = {.type = PERF_TYPE_HARDWARE, .config = config};
	return pk_evlist_add(l, &a, name, pmu);
}

static void config_stat(pk_evlist *l, bool system_wide, bool forked)
{
	pk_config_opts co = {.mode = PK_CONFIG_STAT, .system_wide = system_wide,
			     .forked_workload = forked};
	assert_int_equal(pk_evlist_config(l, &co, NULL), 0);
}

/* What most tests set up: software events on tasks or CPUs of the fake
 * kernel, with stat's attrs. */
typedef struct fixture {
	pk_evlist *l;
	pk_cpumap *cpus;
	pk_threadmap *t;
	pk_counting *c;
	pk_counting_opts opts;
	pk_error err;
} fixture;

static const char *sw_name(uint64_t config)
{
	switch (config) {
	case PERF_COUNT_SW_TASK_CLOCK: return "task-clock";
	case PERF_COUNT_SW_PAGE_FAULTS: return "page-faults";
	case PERF_COUNT_SW_CONTEXT_SWITCHES: return "context-switches";
	case PERF_COUNT_SW_CPU_MIGRATIONS: return "cpu-migrations";
	default: return "cpu-clock";
	}
}

/* Software events by config; a group of all of them when group is set. */
static void fx_events(fixture *f, const uint64_t *configs, size_t n, bool group)
{
	memset(f, 0, sizeof(*f));
	pk_error_clear(&f->err);
	f->l = pk_evlist_new();
	for (size_t i = 0; i < n; i++)
		assert_non_null(add_sw(f->l, configs[i], sw_name(configs[i])));
	if (group)
		pk_evlist_group(f->l, 0, n);
	pk_counting_opts_init(&f->opts);
	f->opts.kernel = &fk.k;
	f->opts.paranoid = 2;
	f->opts.perfmon_capable = 0; /* not the host's: tests run as root or not */
}

/* One tracepoint event (the fake kernel does not care about the id). */
static void fx_tracepoint(fixture *f, const char *name)
{
	memset(f, 0, sizeof(*f));
	pk_error_clear(&f->err);
	f->l = pk_evlist_new();
	struct perf_event_attr a = {.type = PERF_TYPE_TRACEPOINT, .config = 1};
	assert_non_null(pk_evlist_add(f->l, &a, name, NULL));
	pk_counting_opts_init(&f->opts);
	f->opts.kernel = &fk.k;
	f->opts.paranoid = 2;
	f->opts.perfmon_capable = 0;
}

static void fx_new(fixture *f)
{
	config_stat(f->l, f->cpus != NULL, false);
	f->opts.cpus = f->cpus;
	f->opts.threads = f->t;
	f->c = pk_counting_new(f->l, &f->opts, &f->err);
	assert_non_null(f->c);
}

/* On these tasks (cpu -1); returns what the open returned. */
static int fx_open_tasks(fixture *f, const pid_t *tids, int n)
{
	f->t = pk_threadmap_new(tids, n);
	fx_new(f);
	return pk_counting_open(f->c, &f->err);
}

/* System-wide on these CPUs. */
static int fx_open_cpus(fixture *f, const int *cpus, int n)
{
	f->cpus = pk_cpumap_from_array(cpus, n);
	fx_new(f);
	return pk_counting_open(f->c, &f->err);
}

static void fx_free(fixture *f)
{
	pk_counting_free(f->c);
	assert_int_equal(fk.nr_open, 0); /* freeing closes every fd */
	pk_cpumap_put(f->cpus);
	pk_threadmap_put(f->t);
	pk_evlist_put(f->l);
}

static void fail_config(int err, uint64_t config)
{
	fk.fail_errno = err;
	fk.fail_config_set = true;
	fk.fail_config = config;
}

/* ---- counts -------------------------------------------------------------- */

/* The unit stat shows: clocks in msec of their ns, else the alias's. */
static void test_display_unit(void **state)
{
	(void)state;
	pk_evlist *l = pk_evlist_new();
	pk_evsel *tc = add_sw(l, PERF_COUNT_SW_TASK_CLOCK, "task-clock");
	pk_evsel *cc = add_sw(l, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	pk_evsel *cs = add_sw(l, PERF_COUNT_SW_CONTEXT_SWITCHES, "cs");
	double scale = 0;
	assert_string_equal(pk_evsel_display_unit(tc, &scale), "msec");
	assert_true(scale == 1e-6);
	assert_string_equal(pk_evsel_display_unit(cc, &scale), "msec");
	assert_string_equal(pk_evsel_display_unit(cs, &scale), "");
	assert_true(scale == 1.0);
	pk_evlist_put(l);
}

static void test_parse_single(void **state)
{
	(void)state;
	uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
		      PERF_FORMAT_ID | PERF_FORMAT_LOST;
	uint64_t buf[] = {42, 1000, 500, 77, 3};
	pk_counts c;
	assert_int_equal(pk_counts_parse(rf, buf, sizeof(buf), &c, 1), 1);
	assert_int_equal(c.val, 42);
	assert_int_equal(c.ena, 1000);
	assert_int_equal(c.run, 500);
	assert_int_equal(c.id, 77);
	assert_int_equal(c.lost, 3);
	/* one word short */
	assert_int_equal(pk_counts_parse(rf, buf, sizeof(buf) - 8, &c, 1), -EINVAL);
	/* not a whole number of words */
	assert_int_equal(pk_counts_parse(rf, buf, 7, &c, 1), -EINVAL);
}

static void test_parse_group(void **state)
{
	(void)state;
	uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
		      PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	uint64_t buf[] = {2, 900, 300, 11, 101, 22, 102};
	pk_counts c[4];
	assert_int_equal(pk_counts_parse(rf, buf, sizeof(buf), c, 4), 2);
	assert_int_equal(c[0].val, 11);
	assert_int_equal(c[0].id, 101);
	assert_int_equal(c[1].val, 22);
	assert_int_equal(c[1].id, 102);
	assert_int_equal(c[1].ena, 900);
	assert_int_equal(c[1].run, 300);
	/* more counters than room */
	assert_int_equal(pk_counts_parse(rf, buf, sizeof(buf), c, 1), -EINVAL);
	/* nr says 3 but only 2 are there */
	buf[0] = 3;
	assert_int_equal(pk_counts_parse(rf, buf, sizeof(buf), c, 4), -EINVAL);
}

static void test_scale(void **state)
{
	(void)state;
	pk_scaled s;
	pk_counts full = {.val = 1000, .ena = 50, .run = 50};
	pk_counts_scale(&full, &s);
	assert_true(s.counted);
	assert_false(s.scaled);
	assert_true(s.value == 1000.0);
	assert_true(s.running_pct == 100.0);
	pk_counts half = {.val = 1000, .ena = 400, .run = 100};
	pk_counts_scale(&half, &s);
	assert_true(s.scaled);
	assert_true(s.value == 4000.0);
	assert_true(s.running_pct == 25.0);
	pk_counts never = {.val = 0, .ena = 400, .run = 0};
	pk_counts_scale(&never, &s);
	assert_false(s.counted);
}

static void test_runstats(void **state)
{
	(void)state;
	pk_runstats s = {0};
	assert_true(pk_runstats_stddev_mean(&s) == 0);
	pk_runstats_add(&s, 1);
	assert_true(pk_runstats_stddev_mean(&s) == 0);
	pk_runstats_add(&s, 2);
	pk_runstats_add(&s, 3);
	pk_runstats_add(&s, 4);
	assert_true(s.mean == 2.5);
	/* sample variance 5/3; of the mean: /4 */
	double want = sqrt(5.0 / 3.0 / 4.0);
	assert_true(fabs(pk_runstats_stddev_mean(&s) - want) < 1e-12);
	assert_true(fabs(pk_runstats_rel_pct(&s) - 100 * want / 2.5) < 1e-9);
}

/* ---- thread maps -------------------------------------------------------------- */

static void *idle_thread(void *arg)
{
	int *fd = arg;
	char c;
	ssize_t r = read(*fd, &c, 1); /* until the test closes the pipe */
	(void)r;
	return NULL;
}

static void test_threadmap_pids(void **state)
{
	(void)state;
	int p[2];
	pthread_t th;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pthread_create(&th, NULL, idle_thread, &p[0]), 0);
	char list[32];
	snprintf(list, sizeof(list), "%d", (int)getpid());
	pk_error err;
	pk_threadmap *m = pk_threadmap_from_pids(NULL, list, &err);
	assert_non_null(m);
	/* the main thread and the idle one, sorted */
	assert_int_equal(pk_threadmap_nr(m), 2);
	assert_int_equal(pk_threadmap_tid(m, 0), getpid());
	assert_true(pk_threadmap_tid(m, 1) > 0);
	assert_string_equal(pk_threadmap_comm(m, 0), "test_counting");
	pk_threadmap_put(m);
	close(p[1]);
	pthread_join(th, NULL);
	close(p[0]);

	m = pk_threadmap_from_tids(NULL, list, &err);
	assert_non_null(m);
	assert_int_equal(pk_threadmap_nr(m), 1);
	pk_threadmap_put(m);
}

static void test_threadmap_errors(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	assert_null(pk_threadmap_from_pids(NULL, "1,x2", &err));
	assert_int_equal(err.code, -EINVAL);
	assert_int_equal(err.pos, 2);
	assert_non_null(strstr(err.msg, "'x2'"));
	/* perf 6.1: "perf stat -p 0x10" -> "Problems finding threads of monitor";
	 * pmukit attached to pid 16 */
	pk_error_clear(&err);
	assert_null(pk_threadmap_from_pids(NULL, "0x1", &err));
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.msg, "'0x1' is not a process id"));
	pk_error_clear(&err);
	assert_null(pk_threadmap_from_tids(NULL, "1,0X1", &err));
	assert_int_equal(err.pos, 2);
	pk_error_clear(&err);
	assert_null(pk_threadmap_from_pids(NULL, "", &err));
	assert_int_equal(err.code, -EINVAL);
	/* pid_max is at most 2^22: this one cannot exist */
	pk_error_clear(&err);
	assert_null(pk_threadmap_from_pids(NULL, "2147483000", &err));
	assert_int_equal(err.code, -ESRCH);
	assert_non_null(strstr(err.msg, "2147483000"));
	pk_error_clear(&err);
	assert_null(pk_threadmap_from_tids(NULL, "2147483000", &err));
	assert_int_equal(err.code, -ESRCH);
}

/* ---- opening ------------------------------------------------------------------- */

static const uint64_t clock_faults[] = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS};
static const uint64_t clock_faults_cs[] = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
					   PERF_COUNT_SW_CONTEXT_SWITCHES};

static void test_open_per_thread(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults, 2, false);
	config_stat(f.l, false, true); /* a forked command */
	f.t = pk_threadmap_new((pid_t[]){4242}, 1);
	f.opts.threads = f.t;
	f.c = pk_counting_new(f.l, &f.opts, &f.err);
	assert_int_equal(pk_counting_open(f.c, &f.err), 0);
	assert_int_equal(fk.nr, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(fk.ev[i].pid, 4242);
		assert_int_equal(fk.ev[i].cpu, -1);
		assert_int_equal(fk.ev[i].group_fd, -1);
		assert_true(fk.ev[i].flags & PERF_FLAG_FD_CLOEXEC);
		/* stat's attr for a forked command */
		assert_int_equal(fk.ev[i].attr.enable_on_exec, 1);
		assert_int_equal(fk.ev[i].attr.disabled, 1);
		assert_int_equal(fk.ev[i].attr.inherit, 1);
	}
	assert_int_equal(pk_cpumap_nr(pk_counting_cpus(f.c, 0)), 1);
	assert_int_equal(pk_cpumap_cpu(pk_counting_cpus(f.c, 0), 0), -1);
	assert_int_equal(pk_counting_fd(f.c, 1, 0, 0), FAKE_FD_BASE + 1);
	/* plain counting asks no ids (saves an ioctl per fd) */
	assert_int_equal(pk_counting_id(f.c, 1, 0, 0), 0);
	assert_int_equal(pk_counting_status(f.c, 0), PK_OPEN_OK);

	assert_int_equal(pk_counting_read(f.c, &f.err), 0);
	const pk_counts *v = pk_counting_counts(f.c, 1, 0, 0);
	assert_int_equal(v->val, fake_value(&fk.ev[1], 1));
	assert_int_equal(v->ena, 1000000);
	fx_free(&f);
}

static void test_open_system_wide_and_aggr(void **state)
{
	(void)state;
	fixture f;
	const int cpus[] = {0, 1, 3};
	fx_events(&f, clock_faults, 1, false);
	assert_int_equal(fx_open_cpus(&f, cpus, 3), 0);
	assert_int_equal(fk.nr, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fk.ev[i].pid, -1);
		assert_int_equal(fk.ev[i].cpu, cpus[i]);
		assert_int_equal(fk.ev[i].attr.enable_on_exec, 0);
	}
	assert_int_equal(pk_counting_enable(f.c, &f.err), 0);
	assert_int_equal(fk.enables, 3);

	assert_int_equal(pk_counting_read(f.c, &f.err), 0);
	pk_counts sum;
	int key;
	assert_int_equal(pk_counting_nr_aggr(f.c, 0, PK_AGGR_GLOBAL), 1);
	assert_int_equal(pk_counting_aggr(f.c, 0, PK_AGGR_GLOBAL, 0, false, &sum, &key), 0);
	assert_int_equal(key, -1);
	uint64_t want = 0;
	for (int i = 0; i < 3; i++)
		want += fake_value(&fk.ev[i], 1);
	assert_int_equal(sum.val, want);
	assert_int_equal(sum.ena, 3 * 1000000);

	assert_int_equal(pk_counting_nr_aggr(f.c, 0, PK_AGGR_CPU), 3);
	assert_int_equal(pk_counting_aggr(f.c, 0, PK_AGGR_CPU, 2, false, &sum, &key), 0);
	assert_int_equal(key, 3);
	assert_int_equal(sum.val, fake_value(&fk.ev[2], 1));
	assert_int_equal(pk_counting_aggr(f.c, 0, PK_AGGR_CPU, 3, false, &sum, &key), -EINVAL);

	/* a second read: the delta is one read's worth */
	assert_int_equal(pk_counting_read(f.c, &f.err), 0);
	assert_int_equal(pk_counting_aggr(f.c, 0, PK_AGGR_CPU, 1, true, &sum, &key), 0);
	assert_int_equal(sum.val, fake_value(&fk.ev[1], 2) - fake_value(&fk.ev[1], 1));
	assert_int_equal(sum.ena, 1000000);

	assert_int_equal(pk_counting_disable(f.c, &f.err), 0);
	assert_int_equal(fk.disables, 3);
	assert_int_equal(pk_counting_reset(f.c, &f.err), 0);
	assert_int_equal(fk.resets, 3);
	fx_free(&f);
}

static void test_per_thread_aggr(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults + 1, 1, false);
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){100, 101, 102}, 3), 0);
	assert_int_equal(fk.nr, 3);
	assert_int_equal(pk_counting_read(f.c, &f.err), 0);
	assert_int_equal(pk_counting_nr_aggr(f.c, 0, PK_AGGR_THREAD), 3);
	pk_counts sum;
	int key;
	assert_int_equal(pk_counting_aggr(f.c, 0, PK_AGGR_THREAD, 1, false, &sum, &key), 0);
	assert_int_equal(key, 101);
	assert_int_equal(sum.val, fake_value(&fk.ev[1], 1));
	fx_free(&f);
}

static void test_group_open_and_read(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults_cs, 3, true);
	fk.mux_num = 1;
	fk.mux_den = 4;
	assert_int_equal(fx_open_cpus(&f, (int[]){0, 1}, 2), 0);
	pk_counting *c = f.c;
	/* evsel-major: leader on cpu 0, 1, then members tied to the leader of
	 * their own CPU */
	assert_int_equal(fk.nr, 6);
	assert_int_equal(fk.ev[2].cpu, 0);
	assert_int_equal(fk.ev[2].group_fd, pk_counting_fd(c, 0, 0, 0));
	assert_int_equal(fk.ev[3].cpu, 1);
	assert_int_equal(fk.ev[3].group_fd, pk_counting_fd(c, 0, 1, 0));
	assert_true(fk.ev[0].attr.read_format & PERF_FORMAT_GROUP);
	/* group reads carry ids: fetched at open to match them */
	assert_int_equal(pk_counting_id(c, 1, 1, 0), 0x10000u + (uint64_t)pk_counting_fd(c, 1, 1, 0));
	/* enabling the group is enabling its leaders */
	assert_int_equal(pk_counting_enable(c, &f.err), 0);
	assert_int_equal(fk.enables, 2);

	assert_int_equal(pk_counting_read(c, &f.err), 0);
	for (size_t e = 0; e < 3; e++) {
		for (int ci = 0; ci < 2; ci++) {
			const pk_counts *v = pk_counting_counts(c, e, ci, 0);
			fake_event *fe = fake_event_of(&fk, pk_counting_fd(c, e, ci, 0));
			assert_non_null(fe);
			assert_int_equal(v->val, fake_value(fe, 1));
			assert_int_equal(v->ena, 1000000);
			assert_int_equal(v->run, 250000);
		}
	}
	/* one read per leader fd, none for members */
	assert_int_equal(fk.ev[0].reads, 1);
	assert_int_equal(fk.ev[2].reads, 0);

	pk_counts sum;
	pk_scaled s;
	assert_int_equal(pk_counting_aggr(c, 1, PK_AGGR_GLOBAL, 0, false, &sum, NULL), 0);
	pk_counts_scale(&sum, &s);
	assert_true(s.scaled);
	assert_true(fabs(s.running_pct - 25.0) < 1e-9);
	assert_true(fabs(s.value - 4.0 * (double)sum.val) < 1e-6);
	fx_free(&f);
}

static void test_group_member_refused(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults_cs, 3, true);
	fail_config(EINVAL, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){7}, 1), 0);
	assert_int_equal(pk_counting_status(f.c, 1), PK_OPEN_UNSUPPORTED);
	assert_int_equal(pk_counting_errno(f.c, 1), EINVAL);
	assert_int_equal(pk_counting_status(f.c, 2), PK_OPEN_OK);
	/* the group read has two counters; ids put them in the right place */
	assert_int_equal(pk_counting_read(f.c, &f.err), 0);
	fake_event *third = fake_event_of(&fk, pk_counting_fd(f.c, 2, 0, 0));
	assert_int_equal(pk_counting_counts(f.c, 2, 0, 0)->val, fake_value(third, 1));
	assert_int_equal(pk_counting_counts(f.c, 1, 0, 0)->val, 0);
	/* explained with the group as the likely cause */
	pk_error why;
	pk_error_clear(&why);
	assert_int_equal(pk_counting_explain(f.c, 1, NULL, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "page-faults"));
	assert_non_null(strstr(why.hint, "group"));
	fx_free(&f);
}

/* A weak group (perf's :W) whose member the kernel refuses in the group
 * is opened one by one: every event counted, read alone (no group read),
 * and the event list says so in perf's words. */
static void test_weak_group_fallback(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults_cs, 3, false);
	pk_evlist_group_weak(f.l, 0, 3);
	fail_config(EINVAL, PERF_COUNT_SW_PAGE_FAULTS);
	fk.fail_grouped_only = true;
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){7}, 1), 0);
	assert_int_equal(fk.nr_open, 3);
	assert_int_equal(pk_counting_read(f.c, &f.err), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(pk_counting_status(f.c, i), PK_OPEN_OK);
		fake_event *e = fake_event_of(&fk, pk_counting_fd(f.c, i, 0, 0));
		assert_int_equal(e->group_fd, -1);
		assert_int_equal(e->attr.read_format & PERF_FORMAT_GROUP, 0);
		assert_int_equal(pk_counting_counts(f.c, i, 0, 0)->val, fake_value(e, 1));
	}
	assert_int_equal(pk_evlist_nr_warnings(f.l), 1);
	assert_string_equal(pk_evlist_warning(f.l, 0), "Weak group for task-clock/3 failed");
	fx_free(&f);
}

/* The weak fallback keeps Intel's metric events with their slots leader
 * (they count only in its group: perf's evlist__reset_weak_group on a
 * PERF_METRICS group): on Ice Lake's tree, {slots, topdown-retiring,
 * topdown-be-bound, cycles}:W with cycles refused in the group reopens as
 * slots with both metric events grouped under it and cycles alone, the
 * group read only for the kept group; with no other member to take apart,
 * a refused metric event is not counted and the group is not split (no
 * "Weak group ... failed"). */
static void test_weak_group_keeps_slots(void **state)
{
	(void)state;
	pk_error err;
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("icelake"), &err);
	assert_non_null(pmus);
	for (int only_metrics = 0; only_metrics <= 1; only_metrics++) {
		fixture f;
		memset(&f, 0, sizeof(f));
		pk_error_clear(&f.err);
		f.l = pk_evlist_new();
		pk_parse_opts po = {.cpuid = "GenuineIntel-6-7E-5"};
		const char *ev = only_metrics ? "{slots,topdown-retiring}:W"
					      : "{slots,topdown-retiring,topdown-be-bound,cycles}:W";
		assert_int_equal(pk_evlist_parse(f.l, pmus, ev, &po, &f.err), 0);
		pk_counting_opts_init(&f.opts);
		f.opts.kernel = &fk.k;
		f.opts.paranoid = 2;
		f.opts.perfmon_capable = 0;
		size_t n = pk_evlist_count(f.l);
		/* refused in a group: cycles (PERF_COUNT_HW_CPU_CYCLES, 0), else
		 * topdown-retiring (0x8000) */
		fail_config(EINVAL, only_metrics ? 0x8000 : 0);
		fk.fail_grouped_only = true;
		int r = fx_open_tasks(&f, (pid_t[]){7}, 1);
		if (only_metrics) { /* no split: the refused event is not counted */
			assert_true(r == 0 || r == -EINVAL);
			assert_int_not_equal(pk_counting_status(f.c, 1), PK_OPEN_OK);
			assert_int_equal(pk_evlist_nr_warnings(f.l), 0);
			fx_free(&f);
			continue;
		}
		assert_int_equal(r, 0);
		assert_int_equal(n, 4);
		int lead = pk_counting_fd(f.c, 0, 0, 0);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(pk_counting_status(f.c, i), PK_OPEN_OK);
			fake_event *e = fake_event_of(&fk, pk_counting_fd(f.c, i, 0, 0));
			if (i == 0 || i == 3) /* the leader, and cycles taken apart */
				assert_int_equal(e->group_fd, -1);
			else /* metric events: still in the slots group */
				assert_int_equal(e->group_fd, lead);
		}
		assert_int_not_equal(fake_event_of(&fk, lead)->attr.read_format & PERF_FORMAT_GROUP, 0);
		assert_int_equal(fake_event_of(&fk, pk_counting_fd(f.c, 3, 0, 0))->attr.read_format &
				 PERF_FORMAT_GROUP, 0);
		assert_int_equal(pk_evlist_nr_warnings(f.l), 1);
		assert_string_equal(pk_evlist_warning(f.l, 0), "Weak group for slots/4 failed");
		fx_free(&f);
	}
	pk_pmus_put(pmus);
}

static void test_group_leader_refused(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults, 2, true);
	add_sw(f.l, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations");
	fail_config(ENOENT, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){7}, 1), 0);
	assert_int_equal(pk_counting_status(f.c, 0), PK_OPEN_UNSUPPORTED);
	assert_int_equal(pk_counting_status(f.c, 1), PK_OPEN_GROUP_FAILED);
	assert_int_equal(pk_counting_status(f.c, 2), PK_OPEN_OK);
	pk_error why;
	pk_error_clear(&why);
	assert_true(pk_counting_explain(f.c, 1, NULL, &why) < 0);
	assert_non_null(strstr(why.msg, "group leader 'task-clock'"));
	fx_free(&f);
}

/* ---- failures --------------------------------------------------------------- */

static pk_pmus *pmus_without_core(char **dir)
{
	*dir = pk_test_tmpdir();
	char path[512];
	snprintf(path, sizeof(path), "mkdir -p '%s/bus/event_source/devices/software' && "
				     "echo 1 > '%s/bus/event_source/devices/software/type'",
		 *dir, *dir);
	assert_int_equal(pk_test_run(path, NULL, 0), 0);
	pk_error err;
	pk_pmus *p = pk_pmus_load(*dir, &err);
	assert_non_null(p);
	assert_int_equal(pk_pmus_nr_core(p), 0);
	return p;
}

static void remove_tree(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
}

static void test_no_core_pmu(void **state)
{
	(void)state;
	char *dir;
	pk_pmus *pmus = pmus_without_core(&dir);
	fixture f;
	fx_events(&f, NULL, 0, false);
	assert_int_equal(pk_evlist_add_default_stat(f.l, pmus, NULL), 0);
	/* with no core PMU the default set is the four software events */
	assert_int_equal(pk_evlist_count(f.l), 4);
	static const char *const names[] = {"task-clock", "context-switches", "cpu-migrations",
					    "page-faults"};
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(pk_evsel_name(pk_evlist_at(f.l, i)), names[i]);
	/* a hardware event the user asks for anyway */
	struct perf_event_attr cyc = {.type = PERF_TYPE_HARDWARE, .size = PK_ATTR_SIZE,
				      .config = PERF_COUNT_HW_CPU_CYCLES};
	assert_non_null(pk_evlist_add(f.l, &cyc, "cycles", NULL));
	assert_non_null(pk_evlist_add(f.l, &cyc, "cycles2", NULL));
	/* the kernel of a VM without a PMU: no hardware events */
	fail_config(ENOENT, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){9}, 1), 0);
	assert_int_equal(pk_counting_status(f.c, 0), PK_OPEN_OK);
	assert_int_equal(pk_counting_status(f.c, 4), PK_OPEN_UNSUPPORTED);
	pk_error why;
	pk_error_clear(&why);
	assert_int_equal(pk_counting_explain(f.c, 4, pmus, &why), -ENOENT);
	assert_non_null(strstr(why.msg, "no core PMU"));
	assert_non_null(strstr(why.msg, "VM without PMU virtualization"));
	assert_null(strchr(why.msg, '\n'));
	/* stat's notes: both events' one reason, said once; the open events
	 * have none */
	pk_counting_note *notes;
	size_t nr;
	assert_int_equal(pk_counting_notes(f.c, pmus, &notes, &nr), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(notes[0].nr_events, 2);
	assert_string_equal(notes[0].why.msg, why.msg);
	free(notes);
	/* the same explanation without knowing the PMUs is about the event */
	pk_error_clear(&why);
	pk_counting_explain(f.c, 4, NULL, &why);
	assert_null(strstr(why.msg, "no core PMU"));
	assert_non_null(strstr(why.msg, "cycles"));
	fx_free(&f);
	pk_pmus_put(pmus);
	remove_tree(dir);
	free(dir);
}

static void test_eacces_fallback_to_user(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults, 1, false);
	fk.fail_unless_exclude_kernel = true;
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){5}, 1), 0); /* paranoid 2 */
	assert_int_equal(pk_counting_status(f.c, 0), PK_OPEN_OK);
	assert_string_equal(pk_counting_name(f.c, 0), "task-clock:u");
	/* the fallback changed a copy: the evsel is as configured */
	assert_string_equal(pk_evsel_name(pk_evlist_at(f.l, 0)), "task-clock");
	assert_int_equal(pk_evsel_attr(pk_evlist_at(f.l, 0))->exclude_kernel, 0);
	uint8_t buf[PK_ATTR_SIZE_CONFIG3];
	assert_int_equal(pk_counting_attr(f.c, 0, buf), PK_ATTR_SIZE);
	assert_int_equal(((struct perf_event_attr *)buf)->exclude_kernel, 1);
	assert_int_equal(fk.ev[0].attr.exclude_kernel, 1);
	assert_int_equal(fk.ev[0].attr.exclude_hv, 1);
	fx_free(&f);
}

static void test_eacces_fatal_with_paranoid(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults, 1, false);
	f.opts.paranoid = 1; /* no user-space fallback below 2 */
	fk.fail_errno = EACCES;
	fk.fail_after = 0;
	assert_int_equal(fx_open_cpus(&f, (int[]){0}, 1), -EACCES);
	assert_non_null(strstr(f.err.msg, "perf_event_paranoid is 1"));
	assert_non_null(strstr(f.err.msg, "system-wide"));
	/* system-wide counting needs 0 */
	assert_non_null(strstr(f.err.hint, "kernel.perf_event_paranoid=0"));
	assert_int_equal(fk.nr_open, 0);
	fx_free(&f);
}

/* Issue 7: "stat -e ftrace:function" as root said "no permission to count
 * 'ftrace:functionu'" and advised "sysctl -w kernel.perf_event_paranoid=2",
 * the value it already had. perf 6.1 says "No permission to enable
 * ftrace:function event." and nothing more. As root (CAP_PERFMON) paranoid
 * does not apply: no user-space retry, no paranoid advice. */
static void test_eperm_when_capable(void **state)
{
	(void)state;
	fixture f;
	fx_tracepoint(&f, "ftrace:function");
	f.opts.perfmon_capable = 1;
	fk.fail_errno = EPERM;
	fk.fail_after = 0;
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){5}, 1), -EPERM);
	assert_string_equal(pk_counting_name(f.c, 0), "ftrace:function");
	assert_int_equal(fk.nr, 0);
	assert_non_null(strstr(f.err.msg, "no permission to count 'ftrace:function'"));
	assert_non_null(strstr(f.err.msg, "perf_event_paranoid does not apply"));
	assert_non_null(strstr(f.err.hint, "refuses function tracing"));
	assert_null(strstr(f.err.hint, "sysctl"));
	fx_free(&f);
}

/* Unprivileged, ftrace:function needs paranoid -1 (or CAP_PERFMON), not 2;
 * the user-space retry names it "ftrace:function:u" (a tracepoint's ':' is
 * not a modifier separator). */
static void test_eperm_tracepoint_names(void **state)
{
	(void)state;
	fixture f;
	fx_tracepoint(&f, "ftrace:function");
	fk.fail_errno = EPERM;
	fk.fail_after = 0;
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){5}, 1), -EPERM);
	assert_string_equal(pk_counting_name(f.c, 0), "ftrace:function:u");
	assert_non_null(strstr(f.err.hint, "kernel.perf_event_paranoid=-1"));
	assert_null(strstr(f.err.hint, "paranoid=2"));
	fx_free(&f);

	fake_kernel_init(&fk);
	fx_tracepoint(&f, "sched:sched_switch");
	fk.fail_unless_exclude_kernel = true;
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){5}, 1), 0);
	assert_string_equal(pk_counting_name(f.c, 0), "sched:sched_switch:u");
	fx_free(&f);

	fake_kernel_init(&fk);
	fx_tracepoint(&f, "cycles:k");
	fk.fail_unless_exclude_kernel = true;
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){5}, 1), 0);
	assert_string_equal(pk_counting_name(f.c, 0), "cycles:ku");
	fx_free(&f);
}

/* Issue 7: a fifth breakpoint gave the raw "No space left on device". perf
 * 6.1: "The sys_perf_event_open() syscall returned with 28 (No space left on
 * device) for event (mem:0x1020:w)." */
static void test_enospc_breakpoints(void **state)
{
	(void)state;
	fixture f;
	memset(&f, 0, sizeof(f));
	pk_error_clear(&f.err);
	f.l = pk_evlist_new();
	for (int k = 0; k < 5; k++) {
		struct perf_event_attr a = {.type = PERF_TYPE_BREAKPOINT, .bp_type = 2,
					    .bp_addr = 0x1000u + 8u * (unsigned)k, .bp_len = 8};
		assert_non_null(pk_evlist_add(f.l, &a, "mem:0x1000:w", NULL));
	}
	pk_counting_opts_init(&f.opts);
	f.opts.kernel = &fk.k;
	f.opts.skip_unsupported = false;
	fk.fail_errno = ENOSPC;
	fk.fail_after = 4;
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){5}, 1), -ENOSPC);
	assert_non_null(strstr(f.err.msg, "no free breakpoint slot for 'mem:0x1000:w'"));
	assert_non_null(strstr(f.err.msg, "4 breakpoints of this session"));
	assert_null(strstr(f.err.msg, "No space left"));
	fx_free(&f);
}

static void test_emfile_closes_everything(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults, 2, false);
	fk.fail_errno = EMFILE;
	fk.fail_after = 5;
	assert_int_equal(fx_open_cpus(&f, (int[]){0, 1, 2, 3}, 4), -EMFILE);
	assert_non_null(strstr(f.err.msg, "8 fds"));
	assert_non_null(strstr(f.err.msg, "ulimit -n"));
	assert_int_equal(fk.nr_open, 0);
	fx_free(&f);
}

static void test_einval_names_field(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, NULL, 0, false);
	struct perf_event_attr a = {.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES,
				    .precise_ip = 3};
	assert_non_null(pk_evlist_add(f.l, &a, "cycles:ppp", NULL));
	f.opts.skip_unsupported = false;
	fk.fail_errno = EINVAL;
	fk.fail_after = 0;
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){5}, 1), -EINVAL);
	assert_non_null(strstr(f.err.msg, "cycles:ppp"));
	assert_non_null(strstr(f.err.hint, "precise_ip=3"));
	fx_free(&f);
}

static void test_exited_thread_dropped(void **state)
{
	(void)state;
	fixture f;
	fx_events(&f, clock_faults, 2, false);
	fk.fail_errno = ESRCH;
	fk.fail_tid = 11;
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){10, 11, 12}, 3), 0);
	assert_int_equal(fk.nr, 4); /* 2 events x 2 live threads */
	assert_int_equal(pk_counting_fd(f.c, 0, 0, 1), -1);
	assert_true(pk_counting_fd(f.c, 1, 0, 2) >= FAKE_FD_BASE);
	fx_free(&f);

	/* with only that thread it is an error naming it */
	fx_events(&f, clock_faults, 2, false);
	assert_int_equal(fx_open_tasks(&f, (pid_t[]){11}, 1), -ESRCH);
	assert_non_null(strstr(f.err.msg, "task 11"));
	fx_free(&f);
}

static int tweak_calls;
static int tweak_sample(void *arg, const pk_evsel *e, int cpu, pid_t tid,
			struct perf_event_attr *attr)
{
	(void)arg, (void)e, (void)tid;
	tweak_calls++;
	attr->sample_period = 1000 + (uint64_t)cpu;
	return cpu == 2 ? -ENODEV : 0;
}

static void test_attr_tweak(void **state)
{
	(void)state;
	pk_evlist *l = pk_evlist_new();
	add_sw(l, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	pk_config_opts co = {.mode = PK_CONFIG_RECORD, .system_wide = true, .period = 5};
	assert_int_equal(pk_evlist_config(l, &co, NULL), 0);
	int arr[] = {0, 1, 2};
	pk_cpumap *cpus = pk_cpumap_from_array(arr, 3);
	pk_counting_opts o;
	pk_counting_opts_init(&o);
	o.kernel = &fk.k;
	o.cpus = cpus;
	o.tweak = tweak_sample;
	o.skip_unsupported = false;
	tweak_calls = 0;
	pk_error err;
	pk_error_clear(&err);
	pk_counting *c = pk_counting_new(l, &o, &err);
	/* the tweak's error on cpu 2 fails the open and everything is closed */
	assert_int_equal(pk_counting_open(c, &err), -ENODEV);
	assert_int_equal(tweak_calls, 3);
	assert_int_equal(fk.ev[1].attr.sample_period, 1001);
	assert_int_equal(fk.nr_open, 0);
	pk_counting_free(c);
	pk_cpumap_put(cpus);
	pk_evlist_put(l);
}

/* ---- hybrid ---------------------------------------------------------------- */

static pk_pmus *alderlake(void)
{
	pk_error err;
	pk_pmus *p = pk_pmus_load(pk_test_sysfs("alderlake"), &err);
	if (!p)
		fail_msg("alderlake fixture: %s", err.msg);
	assert_true(pk_pmus_is_hybrid(p));
	return p;
}

static void test_default_set_hybrid(void **state)
{
	(void)state;
	pk_pmus *pmus = alderlake();
	const pk_pmu *core = pk_pmus_find(pmus, "cpu_core");
	const pk_pmu *atom = pk_pmus_find(pmus, "cpu_atom");
	assert_non_null(core);
	assert_non_null(atom);
	pk_evlist *l = pk_evlist_new();
	assert_int_equal(pk_evlist_add_default_stat(l, pmus, NULL), 0);
	static const char *const names[] = {
		"task-clock", "context-switches", "cpu-migrations", "page-faults",
		"cpu_core/cycles/", "cpu_atom/cycles/", "cpu_core/instructions/",
		"cpu_atom/instructions/", "cpu_core/branches/", "cpu_atom/branches/",
		"cpu_core/branch-misses/", "cpu_atom/branch-misses/"};
	assert_int_equal(pk_evlist_count(l), 12);
	for (size_t i = 0; i < 12; i++)
		assert_string_equal(pk_evsel_name(pk_evlist_at(l, i)), names[i]);
	/* the PMU type from sysfs in config[63:32] */
	pk_evsel *e = pk_evlist_at(l, 5);
	assert_int_equal(pk_evsel_attr(e)->type, PERF_TYPE_HARDWARE);
	assert_int_equal(pk_evsel_attr(e)->config, ((uint64_t)atom->type << 32) | PERF_COUNT_HW_CPU_CYCLES);
	e = pk_evlist_at(l, 6);
	assert_int_equal(pk_evsel_attr(e)->config, ((uint64_t)core->type << 32) | PERF_COUNT_HW_INSTRUCTIONS);
	assert_ptr_equal(pk_evsel_pmu(e), core);
	pk_evlist_put(l);
	pk_pmus_put(pmus);
}

/* An evlist outlives the PMU snapshot it was parsed against: its evsels
 * point into that snapshot (PMU, sysfs alias), so they hold a reference on
 * it. Before they did, counting read freed PMU data (ASan: use after free). */
static void test_evlist_outlives_pmus(void **state)
{
	(void)state;
	pk_pmus *pmus = alderlake();
	pk_evlist *l = pk_evlist_new();
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_evlist_parse(l, pmus, "cycles,cpu_core/slots/", NULL, &err), 0);
	config_stat(l, false, false);
	pk_pmus_put(pmus); /* the caller is done with it; the evlist is not */
	pid_t tid = 4242;
	pk_threadmap *t = pk_threadmap_new(&tid, 1);
	pk_counting_opts o;
	pk_counting_opts_init(&o);
	o.kernel = &fk.k;
	o.threads = t;
	pk_counting *c = pk_counting_new(l, &o, &err);
	assert_non_null(c);
	assert_int_equal(pk_counting_open(c, &err), 0);
	assert_int_equal(pk_evlist_count(l), 3);
	const pk_evsel *e = pk_evlist_at(l, 2);
	assert_string_equal(pk_evsel_pmu(e)->name, "cpu_core");
	assert_string_equal(pk_evsel_name(e), "cpu_core/slots/");
	pk_counting_free(c);
	pk_threadmap_put(t);
	pk_evlist_put(l);
}

/* A group across cpu_core and cpu_atom cannot be one kernel group: the
 * member is counted on its own CPUs, started like its leader, with perf's
 * warning. */
static void test_group_cpus_mismatch(void **state)
{
	(void)state;
	pk_pmus *pmus = alderlake();
	const pk_pmu *core = pk_pmus_find(pmus, "cpu_core");
	const pk_pmu *atom = pk_pmus_find(pmus, "cpu_atom");
	fixture f;
	fx_events(&f, NULL, 0, false);
	add_hw(f.l, ((uint64_t)core->type << 32) | PERF_COUNT_HW_CPU_CYCLES, "cpu_core/cycles/", core);
	add_hw(f.l, ((uint64_t)atom->type << 32) | PERF_COUNT_HW_CPU_CYCLES, "cpu_atom/cycles/", atom);
	pk_evlist_group(f.l, 0, 2);
	assert_int_equal(fx_open_cpus(&f, (int[]){0, 16}, 2), 0);
	assert_int_equal(fk.nr, 2);
	assert_int_equal(fk.ev[0].cpu, 0);
	assert_int_equal(fk.ev[1].cpu, 16);
	assert_int_equal(fk.ev[1].group_fd, -1);
	assert_int_equal(fk.ev[1].attr.disabled, 1);
	bool warned = false;
	for (size_t i = 0; i < pk_evlist_nr_warnings(f.l); i++)
		warned |= strstr(pk_evlist_warning(f.l, i), "cpus do not match") != NULL;
	assert_true(warned);
	/* both are enabled: each leads itself now */
	assert_int_equal(pk_counting_enable(f.c, &f.err), 0);
	assert_int_equal(fk.enables, 2);
	assert_int_equal(pk_counting_read(f.c, &f.err), 0);
	assert_int_equal(pk_counting_counts(f.c, 1, 0, 0)->val, fake_value(&fk.ev[1], 1));
	fx_free(&f);
	pk_pmus_put(pmus);
}

/* A hybrid -a run on all 24 CPUs of the fixture, multiplexed to 50%. */
static void test_hybrid_rows(void **state)
{
	(void)state;
	pk_pmus *pmus = alderlake();
	fixture f;
	fx_events(&f, NULL, 0, false);
	pk_evlist *l = f.l;
	assert_int_equal(pk_evlist_add_default_stat(l, pmus, NULL), 0);
	fk.mux_num = 1;
	fk.mux_den = 2;
	int all[24];
	for (int i = 0; i < 24; i++)
		all[i] = i;
	assert_int_equal(fx_open_cpus(&f, all, 24), 0);
	pk_counting *c = f.c;
	/* cpu_core counts on 0-15, cpu_atom on 16-23 */
	assert_int_equal(pk_cpumap_nr(pk_counting_cpus(c, 4)), 16);
	assert_int_equal(pk_cpumap_nr(pk_counting_cpus(c, 5)), 8);
	assert_int_equal(pk_cpumap_cpu(pk_counting_cpus(c, 5), 0), 16);
	assert_int_equal(pk_cpumap_nr(pk_counting_cpus(c, 0)), 24);
	int atom_opens = 0;
	for (int i = 0; i < fk.nr; i++)
		if (fk.ev[i].attr.config == pk_evsel_attr(pk_evlist_at(l, 5))->config) {
			atom_opens++;
			assert_true(fk.ev[i].cpu >= 16);
		}
	assert_int_equal(atom_opens, 8);
	assert_int_equal(pk_counting_read(c, &f.err), 0);

	/* one global bucket per evsel, each scaled from 50% running */
	for (size_t i = 0; i < pk_evlist_count(l); i++) {
		assert_int_equal(pk_counting_nr_aggr(c, i, PK_AGGR_GLOBAL), 1);
		pk_counts sum;
		pk_scaled sc;
		int key;
		assert_int_equal(pk_counting_aggr(c, i, PK_AGGR_GLOBAL, 0, false, &sum, &key), 0);
		pk_counts_scale(&sum, &sc);
		assert_true(sc.scaled);
		assert_true(sc.running_pct == 50.0);
	}
	/* -A: cpu_core buckets are CPUs 0-15, cpu_atom's 16-23 */
	assert_int_equal(pk_counting_nr_aggr(c, 4, PK_AGGR_CPU), 16);
	assert_int_equal(pk_counting_nr_aggr(c, 5, PK_AGGR_CPU), 8);
	for (int b = 0; b < 8; b++) {
		pk_counts sum;
		int key;
		assert_int_equal(pk_counting_aggr(c, 5, PK_AGGR_CPU, b, false, &sum, &key), 0);
		assert_int_equal(key, 16 + b);
	}
	fx_free(&f);
	pk_pmus_put(pmus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_parse_single, setup),
		cmocka_unit_test_setup(test_display_unit, setup),
		cmocka_unit_test_setup(test_parse_group, setup),
		cmocka_unit_test_setup(test_scale, setup),
		cmocka_unit_test_setup(test_runstats, setup),
		cmocka_unit_test_setup(test_threadmap_pids, setup),
		cmocka_unit_test_setup(test_threadmap_errors, setup),
		cmocka_unit_test_setup(test_open_per_thread, setup),
		cmocka_unit_test_setup(test_open_system_wide_and_aggr, setup),
		cmocka_unit_test_setup(test_per_thread_aggr, setup),
		cmocka_unit_test_setup(test_group_open_and_read, setup),
		cmocka_unit_test_setup(test_group_member_refused, setup),
		cmocka_unit_test_setup(test_weak_group_fallback, setup),
		cmocka_unit_test_setup(test_weak_group_keeps_slots, setup),
		cmocka_unit_test_setup(test_group_leader_refused, setup),
		cmocka_unit_test_setup(test_no_core_pmu, setup),
		cmocka_unit_test_setup(test_eacces_fallback_to_user, setup),
		cmocka_unit_test_setup(test_eacces_fatal_with_paranoid, setup),
		cmocka_unit_test_setup(test_eperm_when_capable, setup),
		cmocka_unit_test_setup(test_enospc_breakpoints, setup),
		cmocka_unit_test_setup(test_eperm_tracepoint_names, setup),
		cmocka_unit_test_setup(test_emfile_closes_everything, setup),
		cmocka_unit_test_setup(test_einval_names_field, setup),
		cmocka_unit_test_setup(test_exited_thread_dropped, setup),
		cmocka_unit_test_setup(test_attr_tweak, setup),
		cmocka_unit_test_setup(test_default_set_hybrid, setup),
		cmocka_unit_test_setup(test_evlist_outlives_pmus, setup),
		cmocka_unit_test_setup(test_group_cpus_mismatch, setup),
		cmocka_unit_test_setup(test_hybrid_rows, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
