/* perf stat's counting engine as a library (stat.h, issue 21), without the
 * CLI: a run on the model counts every CPU for the scenario's virtual time
 * (the elapsed time is the model's clock, the rows one per event with
 * enabled = running and the scenario's cycles); -r's accumulation sums the
 * counts and keeps each run's value for the spread; a command that cannot
 * run fails the open with its errno; a real command's run reaps it with its
 * exit status and counts its task-clock; stat -M's metric groups
 * (topdown.h) put a PERF_METRICS metric's events in one group behind a
 * slots leader and refuse an unknown name with perf's message; the model
 * run by intervals (pk_model_run) ticks every interval and the per-CPU
 * rows fold into perf's --per-core and --per-socket buckets
 * (pk_stat_rows_per) with every count kept; pk_model_threads is every
 * scenario thread by default; the rows as the metrics engine's counts give
 * perf stat's lines (pk_metric_stat_lines): the IPC after instructions, a
 * vendor metric under cycles' empty GHz column or in the place of a count
 * without one; pk_targets_select makes stat's and record's -a/-C/-p/-t
 * choice (the model's threads by default, -C refusing an offline CPU);
 * pk_stat_runs_do runs -r's runs and -I's intervals over the model's run
 * (issue 21: moved out of cmd_stat.c); pk_stat_wait ticks -I's intervals and ends a command at --interval-count,
 * or waits for its exit; pk_topdown_buckets finds -A's CPUs among TopDown's
 * rows (one bucket when aggregated) and pk_topdown_compute_bucket computes
 * a bucket's blocks, the aggregated one kept in the --plot series, which
 * pk_topdown_series_table turns into Level shares per interval. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmukit/model.h>
#include <pmukit/pmu.h>
#include <pmukit/stat.h>
#include <pmukit/topdown.h>

#include "helpers.h"

static pk_evlist *stat_events(pk_pmus *pmus, const char *cpuid, const char *events, bool sw)
{
	pk_evlist *l = pk_evlist_new();
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *own = pmus ? NULL : pk_pmus_load(NULL, &err); /* the host's */
	pmus = pmus ? pmus : own;
	pk_parse_opts po = {.cpuid = cpuid};
	assert_int_equal(pk_evlist_parse(l, pmus, events, &po, &err), 0);
	pk_config_opts co = {.mode = PK_CONFIG_STAT, .system_wide = sw, .forked_workload = !sw};
	assert_int_equal(pk_evlist_config(l, &co, &err), 0);
	pk_pmus_put(own);
	return l;
}

static double model_clock(void *arg)
{
	return (double)pk_model_now(arg);
}

/* stat -M's stand-in: one metric on count 0, none elsewhere. */
static int one_vendor_metric(const void *arg, const pk_metric_counts *in, size_t idx, size_t nth,
			     pk_metric_group_value *out)
{
	(void)arg;
	(void)in;
	if (idx != 0 || nth > 0)
		return 0;
	*out = (pk_metric_group_value){.have = true, .value = 42, .style = PK_METRIC_SCALED,
				       .label = "answers", .name = "answer"};
	return 1;
}

/* The metric lines of cycles and instructions rows (runs: 2, summed). */
static void check_metric_lines(const pk_stat_rows *rows)
{
	pk_metric_count *counts;
	pk_metric_literal lit;
	pk_metric_counts in;
	assert_int_equal(pk_metric_counts_from_stat(rows, 1e9, &counts, &lit, &in), 0);
	assert_int_equal(in.nr, 2);
	assert_int_equal(in.nr_lit, 1);
	/* averaged over the runs */
	assert_true(counts[0].value == (double)rows->v[0].counts.val / 2);
	pk_metric_table *t = pk_metric_table_stat(NULL);
	pk_metric_lines ml = {0};
	assert_int_equal(pk_metric_stat_lines(t, &in, 1, one_vendor_metric, NULL, &ml), 0);
	assert_int_equal(ml.nr, 1);
	assert_true(ml.v[0].have);
	assert_string_equal(ml.v[0].unit, "insn per cycle");
	assert_true(fabs(ml.v[0].value - (double)rows->v[1].counts.val /
						 (double)rows->v[0].counts.val) < 1e-9);
	/* cycles without a clock: perf stat's GHz row ends the search without a
	 * value (an empty metric column), the vendor's metric a further line */
	assert_int_equal(pk_metric_stat_lines(t, &in, 0, one_vendor_metric, NULL, &ml), 0);
	assert_int_equal(ml.nr, 2);
	assert_false(ml.v[0].have);
	assert_string_equal(ml.v[0].unit, "Ghz");
	assert_true(ml.v[1].have && ml.v[1].value == 42);
	assert_string_equal(ml.v[1].unit, "answers");
	assert_string_equal(ml.v[1].name, "answer");
	/* without stat -M: the empty metric alone */
	assert_int_equal(pk_metric_stat_lines(t, &in, 0, NULL, NULL, &ml), 0);
	assert_int_equal(ml.nr, 1);
	/* no table (script's view without metrics): one line, perf 6.1's
	 * JSON unit "(null)", the vendor's in the metric's place */
	assert_int_equal(pk_metric_stat_lines(NULL, &in, 0, NULL, NULL, &ml), 0);
	assert_int_equal(ml.nr, 1);
	assert_false(ml.v[0].have);
	assert_string_equal(ml.v[0].unit, "(null)");
	assert_int_equal(pk_metric_stat_lines(NULL, &in, 0, one_vendor_metric, NULL, &ml), 0);
	assert_int_equal(ml.nr, 1);
	assert_true(ml.v[0].have && ml.v[0].value == 42);
	pk_metric_lines_release(&ml);
	pk_metric_table_free(t);
	free(counts);
}

/* A pk_stat of l on every CPU of the model, opened and going. */
static pk_stat *model_stat(pk_model *m, pk_evlist *l, pk_cpumap *cpus, pk_aggr_mode aggr)
{
	pk_error err;
	pk_error_clear(&err);
	assert_non_null(cpus);
	pk_stat_opts o = {.size = sizeof(o), .kernel = pk_model_kernel(m), .cpus = cpus,
			  .aggr = aggr, .clock = model_clock, .clock_arg = m};
	pk_stat *s;
	assert_int_equal(pk_stat_new(l, &o, &s, &err), 0);
	assert_int_equal(pk_stat_open(s, &err), 0);
	assert_int_equal(pk_stat_go(s, &err), 0);
	return s;
}

/* A scenario's machine with its PMUs and every CPU: the tests' setup. */
typedef struct machine_fix {
	pk_model *m;
	const pk_kernel *k;
	pk_pmus *pmus;
	pk_cpumap *cpus;
	pk_error err;
} machine_fix;

static void fix_open(machine_fix *f, const char *scenario)
{
	pk_error_clear(&f->err);
	f->m = pk_test_model(pk_test_example(scenario));
	f->k = pk_model_kernel(f->m);
	f->pmus = pk_pmus_load(pk_model_sysfs_root(f->m), &f->err);
	assert_non_null(f->pmus);
	f->cpus = pk_cpumap_targets(f->k, NULL, &f->err);
	assert_non_null(f->cpus);
}

static void fix_close(machine_fix *f)
{
	pk_cpumap_put(f->cpus);
	pk_pmus_put(f->pmus);
	pk_model_free(f->m);
}

static void test_model_run(void **state)
{
	(void)state;
	machine_fix f;
	fix_open(&f, "skylake.json");
	pk_model *m = f.m;
	pk_evlist *l = stat_events(f.pmus, pk_model_cpuid(m)->str, "cycles,instructions", true);
	pk_stat *s = model_stat(m, l, f.cpus, PK_AGGR_GLOBAL);
	assert_int_equal(pk_stat_pid(s), -1);
	uint64_t start = pk_model_now(m), end = pk_model_end(m);
	pk_model_advance(m, end - start);
	pk_stat_result res;
	pk_stat_stop(s, &res);
	assert_true(res.elapsed_ns == (double)(end - start));
	assert_int_equal(res.status, -1);
	pk_stat_rows rows = {0}, acc = {0};
	assert_int_equal(pk_stat_finish(s, &rows, &f.err), 0);
	assert_int_equal(rows.nr, 2);
	for (size_t i = 0; i < rows.nr; i++) {
		assert_int_equal(rows.v[i].status, PK_OPEN_OK);
		assert_true(rows.v[i].counts.val > 0);
		assert_int_equal(rows.v[i].counts.ena, rows.v[i].counts.run);
	}
	assert_string_equal(rows.v[0].name, "cycles");
	/* -r: two runs summed, each run's value kept for the spread */
	assert_int_equal(pk_stat_rows_accumulate(&acc, &rows), 0);
	assert_int_equal(pk_stat_rows_accumulate(&acc, &rows), 0);
	assert_int_equal(acc.runs, 2);
	assert_int_equal(acc.v[0].counts.val, 2 * rows.v[0].counts.val);
	assert_true(acc.v[0].noise.n == 2);
	assert_true(acc.v[0].noise.mean == (double)rows.v[0].counts.val);
	check_metric_lines(&acc);
	pk_stat_rows_free(&rows);
	pk_stat_rows_free(&acc);
	pk_stat_free(s);
	pk_evlist_put(l);
	fix_close(&f);
}

/* pk_model_run's tick: one -I reading, the cycles of each CPU summed. */
typedef struct ticks {
	pk_stat *s;
	int n;
	double last_ns;
	uint64_t cycles[64];
} ticks;

static int on_tick(void *arg, double t_ns, double len_ns, pk_error *err)
{
	ticks *t = arg;
	pk_stat_rows rows = {0};
	assert_int_equal(pk_stat_interval(t->s, &rows, err), 0);
	assert_true(t_ns - t->last_ns == len_ns);
	t->last_ns = t_ns;
	for (size_t i = 0; i < rows.nr; i++)
		if (!strcmp(rows.v[i].name, "cycles") && rows.v[i].key < 64)
			t->cycles[rows.v[i].key] += rows.v[i].counts.val;
	pk_stat_rows_free(&rows);
	t->n++;
	return 0;
}

/* Folds rows (per CPU) into per's buckets and checks them against the
 * CPU's rows: nr_buckets rows per event of cpus_per CPUs each, every
 * count kept; returns the cycles of bucket 0. */
static uint64_t check_per(const pk_stat_rows *cpu_rows, pk_stat_per per, const pk_kernel *k,
			  int nr_buckets, int cpus_per)
{
	pk_stat_rows rows = {0};
	assert_int_equal(pk_stat_rows_accumulate(&rows, cpu_rows), 0);
	assert_int_equal(pk_stat_rows_per(&rows, per, k), 0);
	assert_int_equal(rows.nr, 2 * (size_t)nr_buckets);
	uint64_t sum = 0, all = 0, first = rows.v[0].counts.val;
	for (size_t i = 0; i < rows.nr; i++) {
		/* bucket-major, events in list order inside a bucket */
		assert_int_equal(rows.v[i].key, (int)(i / 2));
		assert_string_equal(rows.v[i].name, i % 2 ? "instructions" : "cycles");
		assert_int_equal(rows.v[i].nr_cpus, cpus_per);
		assert_int_equal(rows.v[i].socket, 0);
		if (per == PK_STAT_PER_CORE)
			assert_int_equal(rows.v[i].id, (int)(i / 2));
		sum += i % 2 ? 0 : rows.v[i].counts.val;
	}
	for (size_t i = 0; i < cpu_rows->nr; i++)
		all += strcmp(cpu_rows->v[i].name, "cycles") ? 0 : cpu_rows->v[i].counts.val;
	assert_true(sum == all);
	pk_stat_rows_free(&rows);
	return first;
}

static void test_model_intervals_per_core(void **state)
{
	(void)state;
	machine_fix f;
	fix_open(&f, "skylake.json");
	pk_model *m = f.m;
	const pk_kernel *k = f.k;
	pk_cpumap *cpus = f.cpus;
	pk_error err = f.err;
	pk_threadmap *threads = pk_model_threads(m, NULL, NULL, &err);
	assert_non_null(threads);
	assert_int_equal(pk_threadmap_nr(threads), 2); /* skl-a, skl-b */
	pk_threadmap_put(threads);
	pk_evlist *l = stat_events(f.pmus, pk_model_cpuid(m)->str, "cycles,instructions", true);
	int ncpus = pk_cpumap_nr(cpus);
	assert_true(ncpus >= 6 && ncpus <= 64 && ncpus % 2 == 0);
	ticks t = {.s = model_stat(m, l, cpus, PK_AGGR_CPU)};
	/* 1000 ms of scenario by 300 ms: three ticks and a last of 100 ms */
	assert_int_equal(pk_model_run(m, 300, 0, on_tick, &t, &err), 0);
	assert_int_equal(t.n, 4);
	assert_true(t.last_ns == (double)pk_model_end(m));
	assert_true(t.cycles[0] > 0 && t.cycles[4] > 0 && t.cycles[1] == 0);
	pk_stat_result res;
	pk_stat_stop(t.s, &res);
	pk_stat_rows rows = {0};
	assert_int_equal(pk_stat_finish(t.s, &rows, &err), 0);
	assert_int_equal(rows.nr, 2 * (size_t)ncpus);
	/* SMT siblings cpu/2: skl-a's core 0 counted, core 1 not */
	assert_true(check_per(&rows, PK_STAT_PER_CORE, k, ncpus / 2, 2) > 0);
	check_per(&rows, PK_STAT_PER_SOCKET, k, 1, ncpus);
	pk_stat_rows_free(&rows);
	pk_stat_free(t.s);
	pk_evlist_put(l);
	fix_close(&f);
}

/* pk_stat_runs_do's hooks, counted. */
typedef struct runs_seen {
	int opened, stopped, ticks;
	double last_ns;
} runs_seen;

static int seen_opened(void *arg, int rc, pk_error *err)
{
	(void)err;
	((runs_seen *)arg)->opened++;
	return rc;
}

static void seen_stopped(void *arg, const pk_stat_result *res, bool interrupted, bool done)
{
	(void)res, (void)interrupted, (void)done;
	((runs_seen *)arg)->stopped++;
}

static int seen_tick(void *arg, double t_ns, double len_ns, pk_error *err)
{
	(void)len_ns, (void)err;
	((runs_seen *)arg)->ticks++;
	((runs_seen *)arg)->last_ns = t_ns;
	return 0;
}

static int seen_run(void *m, long interval_ms, long count, pk_stat_tick_fn tick, void *arg,
		    pk_error *err)
{
	return pk_model_run(m, interval_ms, count, tick, arg, err);
}

/* perf stat's runs (pk_stat_runs_do) on the model's run: -I's intervals
 * all ticked, none partial after the model's last; -r's runs added up. */
static void test_stat_runs(void **state)
{
	(void)state;
	machine_fix f;
	fix_open(&f, "skylake.json");
	pk_evlist *l = stat_events(f.pmus, pk_model_cpuid(f.m)->str, "cycles", true);
	pk_stat_opts o = {.size = sizeof(o), .kernel = f.k, .cpus = f.cpus, .clock = model_clock,
			  .clock_arg = f.m};
	pk_stat *s;
	assert_int_equal(pk_stat_new(l, &o, &s, &f.err), 0);
	runs_seen seen = {0};
	pk_stat_run_opts ro = {.size = sizeof(ro), .interval_ms = 300, .tick = seen_tick,
			       .arg = &seen, .run = seen_run, .run_arg = f.m,
			       .opened = seen_opened, .stopped = seen_stopped};
	pk_stat_rows acc = {0};
	pk_stat_runs out;
	assert_int_equal(pk_stat_runs_do(s, &ro, &acc, &out, &f.err), 0);
	assert_int_equal(out.runs, 1);
	assert_true(out.intervals_done && !out.interrupted);
	assert_int_equal(seen.ticks, 4); /* 1000 ms by 300 ms: 3 and a last of 100 */
	assert_true(seen.last_ns == (double)pk_model_end(f.m));
	assert_int_equal(acc.nr, 0); /* -I: no totals */
	pk_stat_free(s);
	/* -r 2 without -I: each run read, the totals added up */
	assert_int_equal(pk_stat_new(l, &o, &s, &f.err), 0);
	ro.interval_ms = 0, ro.repeat = 2, seen = (runs_seen){0};
	assert_int_equal(pk_stat_runs_do(s, &ro, &acc, &out, &f.err), 0);
	assert_int_equal(out.runs, 2);
	assert_true(seen.opened == 2 && seen.stopped == 2 && seen.ticks == 0);
	assert_int_equal(acc.runs, 2);
	assert_int_equal(acc.nr, 1);
	assert_int_equal(out.elapsed.n, 2);
	ro.size = 0;
	assert_int_equal(pk_stat_runs_do(s, &ro, &acc, &out, &f.err), -EINVAL);
	pk_stat_rows_free(&acc);
	pk_stat_free(s);
	pk_evlist_put(l);
	fix_close(&f);
}

/* perf stat's exit status (pk_stat_runs_exit_code) and the model's words
 * for what ran (pk_model_label) and for a file it recorded
 * (pk_model_recorded). */
static void test_exit_code_and_label(void **state)
{
	(void)state;
	pk_stat_runs r = {.last = {.status = 3 << 8}};
	assert_int_equal(pk_stat_runs_exit_code(&r), 3);
	r.intervals_done = true; /* ended at --interval-count: as asked */
	assert_int_equal(pk_stat_runs_exit_code(&r), 0);
	r = (pk_stat_runs){.last = {.status = SIGKILL}}; /* another's signal */
	assert_int_equal(pk_stat_runs_exit_code(&r), 0);
	r.interrupted = true;                            /* ours, passed on */
	assert_int_equal(pk_stat_runs_exit_code(&r), 128 + SIGKILL);
	r.last.status = -1;
	assert_int_equal(pk_stat_runs_exit_code(&r), 0);
	machine_fix f;
	fix_open(&f, "skylake.json");
	char buf[512];
	assert_non_null(strstr(pk_model_label(f.m, buf, sizeof(buf)), "' on machine 'skylake'"));
	assert_int_equal(strncmp(buf, "scenario '", 10), 0);
	pk_pd_header h = {.hostname = (char *)PK_MODEL_NODENAME, .osrelease = (char *)PK_MODEL_RELEASE};
	char *d = pk_model_recorded(&h);
	assert_string_equal(d, "the PMU model");
	free(d);
	h.osrelease = (char *)"6.1.0";
	assert_null(pk_model_recorded(&h));
	fix_close(&f);
}

static void test_command_not_found(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	pk_evlist *l = stat_events(NULL, NULL, "task-clock", false);
	char *argv[] = {(char *)"/nonexistent/pmukit-test", NULL};
	pk_stat_opts o = {.cmd = argv};
	pk_stat *s;
	assert_int_equal(pk_stat_new(l, &o, &s, &err), -EINVAL); /* no size */
	o.size = sizeof(o);
	assert_int_equal(pk_stat_new(l, &o, &s, &err), 0);
	assert_true(pk_stat_open(s, &err) < 0);
	assert_int_equal(pk_stat_exec_errno(s), ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/pmukit-test"));
	pk_stat_free(s);
	pk_evlist_put(l);
}

static void test_command_run(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	pk_evlist *l = stat_events(NULL, NULL, "task-clock", false);
	char *argv[] = {(char *)"sh", (char *)"-c", (char *)"exit 3", NULL};
	pk_stat_opts o = {.size = sizeof(o), .cmd = argv};
	pk_stat *s;
	assert_int_equal(pk_stat_new(l, &o, &s, &err), 0);
	assert_int_equal(pk_stat_open(s, &err), 0);
	assert_int_equal(pk_stat_go(s, &err), 0);
	assert_true(pk_stat_pid(s) > 0);
	for (int i = 0; i < 5000 && !pk_stat_reap(s); i++)
		usleep(1000);
	assert_int_equal(pk_stat_pid(s), -1);
	pk_stat_result res;
	pk_stat_stop(s, &res);
	assert_true(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 3);
	assert_true(res.elapsed_ns > 0);
	pk_stat_rows rows = {0};
	assert_int_equal(pk_stat_finish(s, &rows, &err), 0);
	assert_int_equal(rows.nr, 1);
	if (rows.v[0].status == PK_OPEN_OK) /* a kernel refusing perf events: not counted */
		assert_true(rows.v[0].counts.val > 0);
	pk_stat_rows_free(&rows);
	pk_stat_free(s);
	pk_evlist_put(l);
}

/* -a, -C, -t and the default on the model's kernel. */
static void test_targets(void **state)
{
	(void)state;
	pk_model *m = pk_test_model(pk_test_example("skylake.json"));
	pk_error err;
	pk_error_clear(&err);
	pk_targets_opts o = {.size = sizeof(o), .kernel = pk_model_kernel(m)};
	pk_cpumap *cpus;
	pk_threadmap *threads;
	assert_int_equal(pk_targets_select(&o, &cpus, &threads, &err), 0); /* nothing chosen */
	assert_null(cpus);
	assert_null(threads);
	o.every_task = true; /* the scenario's threads: skl-a, skl-b */
	assert_int_equal(pk_targets_select(&o, &cpus, &threads, &err), 0);
	assert_null(cpus);
	assert_int_equal(pk_threadmap_nr(threads), 2);
	char tid[16];
	snprintf(tid, sizeof(tid), "%d", (int)pk_threadmap_tid(threads, 1));
	pk_threadmap_put(threads);
	o.tids = tid; /* -t: that one */
	assert_int_equal(pk_targets_select(&o, &cpus, &threads, &err), 0);
	assert_int_equal(pk_threadmap_nr(threads), 1);
	pk_threadmap_put(threads);
	o.all_cpus = true, o.any_with_cpus = true; /* -a first; threads {-1} */
	assert_int_equal(pk_targets_select(&o, &cpus, &threads, &err), 0);
	assert_true(pk_cpumap_nr(cpus) >= 6);
	assert_int_equal(pk_threadmap_nr(threads), 1);
	assert_int_equal(pk_threadmap_tid(threads, 0), -1);
	pk_cpumap_put(cpus);
	pk_threadmap_put(threads);
	o.cpu_list = "4096";
	assert_int_equal(pk_targets_select(&o, &cpus, &threads, &err), -EINVAL);
	assert_null(cpus);
	assert_null(threads);
	assert_non_null(strstr(err.msg, "-C 4096: CPU 4096 is not online"));
	pk_model_free(m);
}

typedef struct wait_ticks {
	int n;
	double t[8], len[8];
} wait_ticks;

static int wait_tick(void *arg, double t_ns, double len_ns, pk_error *err)
{
	(void)err;
	wait_ticks *w = arg;
	if (w->n < 8)
		w->t[w->n] = t_ns, w->len[w->n] = len_ns;
	w->n++;
	return 0;
}

/* One run waited for by pk_stat_wait: with -I 50 and --interval-count 2 a
 * command that would sleep 10 s is ended after two ticks at 50 ms
 * multiples; without -I the wait ends at the command's exit. */
static void test_stat_wait(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	pk_evlist *l = stat_events(NULL, NULL, "task-clock", false);
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGCHLD);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, &old);
	char *long_cmd[] = {(char *)"sleep", (char *)"10", NULL};
	char *short_cmd[] = {(char *)"sh", (char *)"-c", (char *)"exit 5", NULL};
	for (int with_i = 1; with_i >= 0; with_i--) {
		pk_stat_opts o = {.size = sizeof(o), .cmd = with_i ? long_cmd : short_cmd};
		pk_stat *s;
		assert_int_equal(pk_stat_new(l, &o, &s, &err), 0);
		assert_int_equal(pk_stat_open(s, &err), 0);
		assert_int_equal(pk_stat_go(s, &err), 0);
		wait_ticks t = {0};
		pk_stat_wait_opts wo = {.size = sizeof(wo), .signals = &sigs,
					.interval_ms = with_i ? 50 : 0, .interval_count = 2,
					.tick = wait_tick, .arg = &t};
		pk_stat_waited w;
		assert_int_equal(pk_stat_wait(s, &wo, &w, &err), 0);
		pk_stat_result res;
		pk_stat_stop(s, &res);
		assert_false(w.interrupted);
		assert_int_equal(t.n, with_i ? 2 : 0);
		assert_true(w.intervals_done == with_i);
		if (with_i) {
			assert_true(t.t[0] >= 50e6 && t.t[1] >= 100e6 && res.elapsed_ns < 5e9);
			assert_true(t.len[0] == t.t[0] && t.len[1] == t.t[1] - t.t[0]);
			assert_true(w.last_tick_ns == t.t[1]);
			assert_true(WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGTERM);
		} else {
			assert_true(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 5);
		}
		pk_stat_finish(s, NULL, &err);
		pk_stat_free(s);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	pk_evlist_put(l);
}

/* TopDown on the model per CPU: a bucket per CPU named CPUn, Level 1's
 * shares of each summing to 100; aggregated, one bucket kept for --plot. */
static void test_topdown_buckets(void **state)
{
	(void)state;
	machine_fix f;
	fix_open(&f, "skylake.json");
	pk_model *m = f.m;
	pk_cpumap *cpus = f.cpus;
	pk_error err = f.err;
	pk_stat_events_opts eo = {.size = sizeof(eo), .pmus = f.pmus, .kernel = f.k,
				  .cpuid = pk_model_cpuid(m)->str, .topdown = true,
				  .system_wide = true};
	pk_stat_events ev;
	assert_int_equal(pk_stat_events_build(&eo, &ev, &err), 0);
	pk_stat *s = model_stat(m, ev.evlist, cpus, PK_AGGR_CPU);
	pk_model_advance(m, pk_model_end(m) - pk_model_now(m));
	pk_stat_result res;
	pk_stat_stop(s, &res);
	pk_stat_rows rows = {0};
	assert_int_equal(pk_stat_finish(s, &rows, &err), 0);
	pk_metric_count *counts;
	pk_metric_literal lit;
	pk_metric_counts in;
	assert_int_equal(pk_metric_counts_from_stat(&rows, res.elapsed_ns, &counts, &lit, &in), 0);
	pk_topdown_bucket *b;
	size_t nb;
	assert_int_equal(pk_topdown_buckets(ev.td, &rows, PK_AGGR_CPU, &b, &nb), 0);
	assert_int_equal(nb, (size_t)pk_cpumap_nr(cpus));
	assert_int_equal(b[1].key, pk_cpumap_cpu(cpus, 1));
	char label[16];
	snprintf(label, sizeof(label), "CPU%d", pk_cpumap_cpu(cpus, 1));
	assert_string_equal(b[1].label, label);
	enum { CAP = 64 };
	pk_topdown_node v[8 * CAP];
	size_t n[8] = {0};
	pk_topdown_series series = {0};
	assert_int_equal(pk_topdown_compute_bucket(ev.td, &in, b[0].key, v, CAP, n, 8, &series, 1),
			 0);
	assert_true(n[0] >= 4 && series.nr == 0); /* a CPU's: not kept */
	double l1 = 0;
	for (size_t i = 0; i < n[0]; i++)
		l1 += v[i].level == 1 && v[i].computable ? v[i].value : 0;
	assert_true(fabs(l1 - 100) < 0.5);
	free(b);
	assert_int_equal(pk_topdown_buckets(ev.td, &rows, PK_AGGR_GLOBAL, &b, &nb), 0);
	assert_int_equal(nb, 1);
	assert_int_equal(b[0].key, -1);
	assert_int_equal(pk_topdown_compute_bucket(ev.td, &in, -1, v, CAP, n, 8, &series, 1), 0);
	assert_int_equal(series.nr, n[0]); /* one block: a sample per node */
	assert_true(series.v[0].t_ns == 1 && series.v[0].block == 0);
	/* a second interval at 2 s: the block's table has two columns */
	assert_int_equal(pk_topdown_compute_bucket(ev.td, &in, -1, v, CAP, n, 8, &series, 2e9), 0);
	pk_topdown_table tab;
	assert_int_equal(pk_topdown_series_table(&series, 0, 32, &tab), 0);
	assert_int_equal(tab.nt, 2);
	assert_true(tab.times[0] == 1e-9 && tab.times[1] == 2);
	assert_int_equal(tab.nn, n[0] < 32 ? n[0] : 32);
	double share = 0;
	for (size_t j = 0; j < tab.nn; j++) {
		assert_true(tab.shares[j * 2] == tab.shares[j * 2 + 1]); /* the same counts */
		share += tab.node[j]->level == 1 ? tab.shares[j * 2] : 0;
	}
	assert_true(fabs(share - 1) < 0.005);
	pk_topdown_table_release(&tab);
	pk_topdown_series_release(&series);
	free(b);
	free(counts);
	pk_stat_rows_free(&rows);
	pk_stat_free(s);
	pk_stat_events_release(&ev);
	fix_close(&f);
}

static void test_metric_groups(void **state)
{
	(void)state;
	machine_fix f;
	fix_open(&f, "sapphirerapids.json");
	pk_model *m = f.m;
	pk_pmus *pmus = f.pmus;
	pk_error err = f.err;
	const char *cpuid = pk_model_cpuid(m)->str;
	pk_evlist *l = pk_evlist_new();
	pk_metric_groups *mg = pk_metric_groups_new();
	assert_int_equal(pk_metric_groups_add(mg, "tma_retiring", pmus, pk_model_kernel(m), cpuid,
					      false, l, &err), 0);
	size_t n = pk_evlist_count(l);
	assert_true(n > 1);
	assert_int_equal(pk_evsel_attr(pk_evlist_at(l, 0))->config, 0x0400); /* slots leads */
	for (size_t i = 1; i < n; i++)
		assert_int_equal(pk_evsel_leader(pk_evlist_at(l, i)), 0);
	assert_int_equal(pk_metric_groups_add(mg, "nosuch", pmus, pk_model_kernel(m), cpuid, false,
					      l, &err), -EINVAL);
	assert_string_equal(err.msg, "Cannot find metric or group `nosuch'");
	assert_int_equal(pk_evlist_count(l), n);
	/* a metric of an uncore event: refused, the event named once */
	assert_true(pk_metric_groups_add(mg, "tma_info_system_dram_bw_use", pmus, pk_model_kernel(m),
					 cpuid, false, l, &err) < 0);
	assert_string_equal(err.msg, "metric tma_info_system_dram_bw_use: UNC_M_CAS_COUNT.RD: not a "
				     "core PMU event (uncore, MSR or energy events of metrics are not "
				     "supported yet)");
	assert_int_equal(pk_evlist_count(l), n);
	pk_metric_groups_free(mg);
	pk_evlist_put(l);
	fix_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_run),
		cmocka_unit_test(test_model_intervals_per_core),
		cmocka_unit_test(test_command_not_found),
		cmocka_unit_test(test_command_run),
		cmocka_unit_test(test_metric_groups),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_stat_wait),
		cmocka_unit_test(test_stat_runs),
		cmocka_unit_test(test_exit_code_and_label),
		cmocka_unit_test(test_topdown_buckets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
