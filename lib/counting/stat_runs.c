/* perf stat's runs (pmukit/stat.h, pk_stat_runs_do): -r N runs of one
 * pk_stat, each opened, started, waited for (pk_stat_wait, or the caller's
 * run: the PMU model's virtual time), stopped and read; with -I the
 * intervals go to the caller's tick as they end, the last partial one too
 * unless --interval-count ended the run; without, each run's totals are
 * folded (--per-*) and added up over the runs.
 *
 * Invariants: nothing here prints or touches signals (the caller blocks
 * the set it passes, and says what its hooks say); a run that fails ends
 * the runs with its error, the runs done so far counted in out; an
 * interruption (a signal of the set) ends the runs after the current one;
 * the exit status perf stat 6.1 gives (pk_stat_runs_exit_code); the
 * caller's before and after hooks (--pre, --post) around each run. */
#include <pmukit/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#include <pmukit/workload.h>

typedef struct run_ctx {
	const pk_stat_run_opts *o;
	double last_tick_ns;         /* the last interval's end */
} run_ctx;

/* The caller's run's intervals, their ends noted. */
static int run_tick(void *arg, double t_ns, double len_ns, pk_error *err)
{
	run_ctx *c = arg;
	c->last_tick_ns = t_ns;
	return c->o->tick(c->o->arg, t_ns, len_ns, err);
}

/* The wait of one run: pk_stat_wait, or the caller's run (every interval
 * ticked, none left partial). */
static int wait_one(pk_stat *s, const pk_stat_run_opts *o, run_ctx *c, pk_stat_runs *out,
		    pk_error *err)
{
	if (o->run) {
		out->intervals_done = o->interval_ms != 0;
		return o->run(o->run_arg, o->interval_ms, o->interval_count, o->tick ? run_tick : NULL,
			      c, err);
	}
	pk_stat_wait_opts wo = {.size = sizeof(wo), .signals = o->signals,
				.interval_ms = o->interval_ms, .interval_count = o->interval_count,
				.tick = o->tick, .arg = o->arg, .timeout_ms = o->timeout_ms,
				.idle = o->idle, .idle_ms = o->idle_ms};
	pk_stat_waited w;
	int r = pk_stat_wait(s, &wo, &w, err);
	out->interrupted |= w.interrupted;
	out->intervals_done |= w.intervals_done;
	c->last_tick_ns = w.last_tick_ns;
	return r;
}

/* -D: the counters enabled delay_ms after the start (a signal of the set
 * that comes meanwhile waits for pk_stat_wait). */
static int enable_late(pk_stat *s, const pk_stat_run_opts *o, pk_error *err)
{
	struct timespec ts = {.tv_sec = o->delay_ms / 1000,
			      .tv_nsec = (o->delay_ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	int r = pk_stat_enable(s, err);
	if (r == 0 && o->events)
		o->events(o->arg, true);
	return r;
}

/* One run: open, start, wait, stop, read; rows get the totals (with -I
 * only when asked: o->totals; -I ends with the last partial interval). */
static int run_once(pk_stat *s, const pk_stat_run_opts *o, pk_stat_rows *rows, pk_stat_runs *out,
		    pk_error *err)
{
	run_ctx c = {.o = o};
	out->last.status = -1;
	int r = o->before ? o->before(o->arg, err) : 0;
	if (r < 0)
		return r;
	r = pk_stat_open(s, err);
	if (o->opened)
		r = o->opened(o->arg, r, err);
	if (r == 0 && o->delay_ms && o->events)
		o->events(o->arg, false);
	if (r == 0)
		r = pk_stat_go(s, err);
	if (r == 0 && o->delay_ms > 0)
		r = enable_late(s, o, err);
	if (r < 0)
		return r;
	r = wait_one(s, o, &c, out, err);
	pk_stat_stop(s, &out->last);
	if (o->stopped)
		o->stopped(o->arg, &out->last, out->interrupted, out->intervals_done);
	if (r < 0)
		return r;
	if (o->interval_ms) { /* the last, partial interval; the totals too for --summary */
		if (!o->totals)
			pk_stat_finish(s, NULL, err);
		else if ((r = pk_stat_finish(s, rows, err)) < 0)
			return r;
		else if (pk_stat_rows_per(rows, o->per, o->kernel) < 0)
			return pk_err(err, -ENOMEM, "out of memory");
		return out->intervals_done || !o->tick
			       ? 0
			       : o->tick(o->arg, out->last.elapsed_ns,
					 out->last.elapsed_ns - c.last_tick_ns, err);
	}
	r = pk_stat_finish(s, rows, err);
	if (r == 0 && pk_stat_rows_per(rows, o->per, o->kernel) < 0)
		r = pk_err(err, -ENOMEM, "out of memory");
	return r;
}

int pk_stat_runs_do(pk_stat *s, const pk_stat_run_opts *o, pk_stat_rows *acc, pk_stat_runs *out,
		    pk_error *err)
{
	*out = (pk_stat_runs){.last = {.status = -1}};
	if (!o || o->size < sizeof(*o))
		return pk_err(err, -EINVAL, "pk_stat_run_opts.size is not set");
	pk_stat_rows rows = {0};
	int r = 0;
	for (long run = 0; run < (o->repeat > 0 ? o->repeat : 1) && !out->interrupted; run++) {
		r = run_once(s, o, &rows, out, err);
		if (r == 0 && o->after)
			r = o->after(o->arg, err);
		if (r < 0)
			break;
		out->runs++;
		pk_runstats_add(&out->elapsed, out->last.elapsed_ns / 1e9);
		if ((!o->interval_ms || o->totals) && pk_stat_rows_accumulate(acc, &rows) < 0) {
			r = pk_err(err, -ENOMEM, "out of memory");
			break;
		}
	}
	pk_stat_rows_free(&rows);
	return r;
}

int pk_stat_runs_exit_code(const pk_stat_runs *r)
{
	int status = r->intervals_done ? -1 : r->last.status; /* ended as asked */
	if (status < 0 || (WIFSIGNALED(status) && !r->interrupted))
		return 0;
	return pk_workload_exit_code(status);
}
