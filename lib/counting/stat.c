/* perf stat's counting engine (stat.h): one run after another of a command
 * or of targets, each with its own pk_counting, read into rows aggregated
 * per bucket; -r's runs summed with each value's spread.
 *
 * Invariants: a run's counting lives from pk_stat_open to the next open
 * (or free); the command is forked before its counters open (they need its
 * pid) and is never left behind: stop and free end it (SIGTERM) and reap
 * it. Nothing here prints or installs a signal handler; only pk_stat_wait
 * blocks, in sigtimedwait on the signals its caller blocked, and signals
 * no process but the run's own command. */
#include <pmukit/stat.h>
#include <pmukit/workload.h>

#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

struct pk_stat {
	pk_stat_opts o;
	pk_evlist *evlist;
	pk_counting *counting;
	pk_workload wl;
	bool counts_child;         /* the counters follow the forked command */
	double t0;                 /* the run's start on the clock */
	int status;                /* the command's wait status, -1: none yet */
	struct rusage ru;
	double stop_ns;            /* the run's length at its stop, < 0: running */
};

/* ---- Rows ---------------------------------------------------------------- */

static int rows_grow(pk_stat_row **v, size_t n, size_t *cap)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 16;
	pk_stat_row *nv = realloc(*v, ncap * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

int pk_stat_rows_collect(pk_stat_rows *rows, pk_counting *c, pk_aggr_mode aggr, bool delta)
{
	pk_evlist *l = pk_counting_evlist(c);
	size_t n = 0, cap = 0;
	pk_stat_row *v = NULL;
	for (size_t i = 0; i < pk_evlist_count(l); i++) {
		int nb = pk_counting_nr_aggr(c, i, aggr);
		for (int b = 0; b < nb; b++) {
			if (rows_grow(&v, n, &cap) < 0) {
				free(v);
				return -ENOMEM;
			}
			pk_stat_row *r = &v[n++];
			memset(r, 0, sizeof(*r));
			r->evsel = pk_evlist_at(l, i);
			r->name = pk_counting_name(c, i);
			r->status = pk_counting_status(c, i);
			pk_counting_aggr(c, i, aggr, b, delta, &r->counts, &r->key);
			if (aggr == PK_AGGR_THREAD)
				snprintf(r->comm, sizeof(r->comm), "%s",
					 pk_threadmap_comm(pk_counting_threads(c), b));
		}
	}
	pk_stat_rows_free(rows);
	rows->v = v;
	rows->nr = n;
	rows->runs = 1;
	return 0;
}

static int by_value_desc(const void *a, const void *b)
{
	const pk_stat_row *x = a, *y = b;
	if (x->counts.val != y->counts.val)
		return x->counts.val < y->counts.val ? 1 : -1;
	return x < y ? -1 : x > y; /* qsort is not stable: collected order */
}

void pk_stat_rows_threads_by_value(pk_stat_rows *rows)
{
	size_t n = 0;
	for (size_t i = 0; i < rows->nr;) {
		size_t j = i;
		while (j < rows->nr && rows->v[j].evsel == rows->v[i].evsel)
			j++;
		qsort(rows->v + i, j - i, sizeof(*rows->v), by_value_desc);
		for (size_t k = i; k < j; k++)
			if (rows->v[k].counts.val)
				rows->v[n++] = rows->v[k];
		i = j;
	}
	rows->nr = n;
}

/* The accumulator's shape from the first run, its counts zero. */
static int acc_init(pk_stat_rows *acc, const pk_stat_rows *run)
{
	acc->v = calloc(run->nr ? run->nr : 1, sizeof(*acc->v));
	if (!acc->v)
		return -ENOMEM;
	acc->nr = run->nr;
	for (size_t i = 0; i < run->nr; i++) {
		acc->v[i] = run->v[i];
		memset(&acc->v[i].counts, 0, sizeof(acc->v[i].counts));
	}
	return 0;
}

int pk_stat_rows_accumulate(pk_stat_rows *acc, const pk_stat_rows *run)
{
	if (!acc->v && acc_init(acc, run) < 0)
		return -ENOMEM;
	if (acc->nr != run->nr)
		return -EINVAL;
	for (size_t i = 0; i < run->nr; i++) {
		pk_stat_row *a = &acc->v[i];
		const pk_stat_row *r = &run->v[i];
		pk_scaled s;
		a->counts.val += r->counts.val;
		a->counts.ena += r->counts.ena;
		a->counts.run += r->counts.run;
		/* an event that failed in any run is shown as failed */
		if (r->status != PK_OPEN_OK)
			a->status = r->status;
		pk_counts_scale(&r->counts, &s);
		pk_runstats_add(&a->noise, s.value);
	}
	acc->runs++;
	return 0;
}

double pk_stat_row_value(const pk_stat_row *r, int runs)
{
	pk_scaled s;
	pk_counts_scale(&r->counts, &s);
	return s.value / (runs > 1 ? runs : 1);
}

void pk_stat_rows_free(pk_stat_rows *rows)
{
	free(rows->v);
	rows->v = NULL;
	rows->nr = 0;
	rows->runs = 0;
}

/* ---- Runs ---------------------------------------------------------------- */

static double clock_ns(const pk_stat *s)
{
	if (s->o.clock)
		return s->o.clock(s->o.clock_arg);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int pk_stat_new(pk_evlist *l, const pk_stat_opts *opts, pk_stat **out, pk_error *err)
{
	*out = NULL;
	if (opts->size < offsetof(pk_stat_opts, kernel) + sizeof(opts->kernel))
		return pk_err(err, -EINVAL, "pk_stat_opts.size is not set");
	pk_stat *s = calloc(1, sizeof(*s));
	if (!s)
		return pk_err(err, -ENOMEM, "out of memory");
	memcpy(&s->o, opts, opts->size < sizeof(s->o) ? opts->size : sizeof(s->o));
	s->evlist = pk_evlist_get(l);
	s->o.cpus = s->o.cpus ? pk_cpumap_get(s->o.cpus) : NULL;
	s->o.threads = s->o.threads ? pk_threadmap_get(s->o.threads) : NULL;
	s->wl = (pk_workload)PK_WORKLOAD_INIT;
	s->counts_child = s->o.cmd && s->o.cmd[0] && !s->o.cpus && !s->o.threads;
	s->status = -1;
	s->stop_ns = -1;
	*out = s;
	return 0;
}

void pk_stat_free(pk_stat *s)
{
	if (!s)
		return;
	pk_workload_stop(&s->wl, NULL);
	pk_counting_free(s->counting);
	pk_evlist_put(s->evlist);
	pk_cpumap_put(s->o.cpus);
	pk_threadmap_put(s->o.threads);
	free(s);
}

/* This run's counting: on the command's pid, or on the targets. */
static int new_counting(pk_stat *s, pk_error *err)
{
	pk_counting_opts co;
	pk_counting_opts_init(&co);
	co.kernel = s->o.kernel;
	co.cpus = s->o.cpus;
	pk_threadmap *child = s->counts_child ? pk_threadmap_new(&s->wl.pid, 1) : NULL;
	co.threads = s->counts_child ? child : s->o.threads;
	pk_counting_free(s->counting);
	s->counting = pk_counting_new(s->evlist, &co, err);
	pk_threadmap_put(child);
	if (!s->counting)
		return err && err->code ? err->code : -ENOMEM;
	return 0;
}

int pk_stat_open(pk_stat *s, pk_error *err)
{
	s->status = -1;
	s->stop_ns = -1;
	memset(&s->ru, 0, sizeof(s->ru));
	int r = s->o.cmd && s->o.cmd[0] ? pk_workload_prepare(s->o.cmd, &s->wl, err) : 0;
	if (r == 0)
		r = new_counting(s, err);
	if (r == 0)
		r = pk_counting_open(s->counting, err);
	if (r < 0)
		pk_workload_stop(&s->wl, NULL);
	return r;
}

pk_counting *pk_stat_counting(pk_stat *s)
{
	return s->counting;
}

int pk_stat_go(pk_stat *s, pk_error *err)
{
	/* counters of a command start at its exec (enable_on_exec); others now */
	int r = s->counts_child || s->o.delayed ? 0 : pk_counting_enable(s->counting, err);
	if (r < 0) {
		pk_workload_stop(&s->wl, NULL);
		return r;
	}
	s->t0 = clock_ns(s);
	if (s->o.cmd && s->o.cmd[0] && (r = pk_workload_start(&s->wl, s->o.cmd[0], err)) < 0)
		pk_workload_stop(&s->wl, NULL);
	return r;
}

int pk_stat_enable(pk_stat *s, pk_error *err)
{
	s->t0 = clock_ns(s);
	return pk_counting_enable(s->counting, err);
}

int pk_stat_exec_errno(const pk_stat *s)
{
	return s->wl.exec_errno;
}

pid_t pk_stat_pid(const pk_stat *s)
{
	return s->wl.pid > 0 ? s->wl.pid : -1;
}

bool pk_stat_reap(pk_stat *s)
{
	int st;
	if (s->wl.pid <= 0)
		return true;
	if (wait4(s->wl.pid, &st, WNOHANG, &s->ru) != s->wl.pid)
		return false;
	s->status = st;
	s->wl.pid = -1;
	return true;
}

bool pk_stat_targets_alive(const pk_stat *s)
{
	pk_threadmap *t = s->o.threads;
	for (int i = 0; t && i < pk_threadmap_nr(t); i++)
		if (kill(pk_threadmap_tid(t, i), 0) == 0 || errno == EPERM)
			return true;
	return false;
}

double pk_stat_now(const pk_stat *s)
{
	return clock_ns(s) - s->t0;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

/* The tool events' values for the next read: the time since the start
 * (to the stop once stopped) and, for the run's totals, the command's
 * CPU times (perf 6.1 has none in its intervals). */
static void tool_values(pk_stat *s, bool totals)
{
	double t = s->stop_ns >= 0 ? s->stop_ns : pk_stat_now(s);
	pk_counting_set_tool(s->counting, PK_TOOL_DURATION, t > 0 ? (uint64_t)(t + 0.5) : 0);
	pk_counting_set_tool(s->counting, PK_TOOL_USER, totals ? tv_ns(&s->ru.ru_utime) : 0);
	pk_counting_set_tool(s->counting, PK_TOOL_SYSTEM, totals ? tv_ns(&s->ru.ru_stime) : 0);
}

int pk_stat_interval(pk_stat *s, pk_stat_rows *rows, pk_error *err)
{
	tool_values(s, false);
	int r = pk_counting_read(s->counting, err);
	if (r == 0 && pk_stat_rows_collect(rows, s->counting, s->o.aggr, true) < 0)
		r = pk_err(err, -ENOMEM, "out of memory");
	return r;
}

void pk_stat_stop(pk_stat *s, pk_stat_result *res)
{
	res->elapsed_ns = pk_stat_now(s);
	s->stop_ns = res->elapsed_ns;
	if (s->wl.pid > 0) {
		/* stopped early (an error, an interval count): the command too */
		int st;
		kill(s->wl.pid, SIGTERM);
		if (wait4(s->wl.pid, &st, 0, &s->ru) == s->wl.pid)
			s->status = st;
		s->wl.pid = -1;
	}
	res->status = s->status;
	res->ru = s->ru;
}

int pk_stat_finish(pk_stat *s, pk_stat_rows *rows, pk_error *err)
{
	if (!s->counts_child || s->o.delayed)
		pk_counting_disable(s->counting, NULL);
	if (!rows)
		return 0;
	tool_values(s, true);
	int r = pk_counting_read(s->counting, err);
	if (r == 0 && pk_stat_rows_collect(rows, s->counting, s->o.aggr, false) < 0)
		r = pk_err(err, -ENOMEM, "out of memory");
	return r;
}

/* ---- Waiting ------------------------------------------------------------- */

/* How long to wait for a signal: to the next interval's end (-I), a
 * quarter second when polling -p/-t targets, else (NULL) for ever. */
static struct timespec *wait_for(const pk_stat *s, double next, bool poll, struct timespec *ts)
{
	if (next > 0) {
		double wait = next - pk_stat_now(s);
		if (wait < 0)
			wait = 0;
		ts->tv_sec = (time_t)(wait / 1e9);
		ts->tv_nsec = (long)(wait - (double)ts->tv_sec * 1e9);
		return ts;
	}
	if (!poll)
		return NULL;
	*ts = (struct timespec){.tv_nsec = 250 * 1000 * 1000};
	return ts;
}

/* -I: an interval ended at now; 1 when --interval-count says the run is
 * over (a command is sent SIGTERM and waited for), 0 to go on, < 0 the
 * tick's error. */
static int tick(pk_stat *s, const pk_stat_wait_opts *o, pk_stat_waited *w, long *ticks,
		pk_error *err)
{
	double t = pk_stat_now(s);
	int r = o->tick(o->arg, t, t - w->last_tick_ns, err);
	if (r < 0)
		return r;
	w->last_tick_ns = t;
	if (++*ticks < o->interval_count || !o->interval_count)
		return 0;
	w->intervals_done = true;
	if (s->wl.pid <= 0)
		return 1;
	kill(s->wl.pid, SIGTERM);
	return 0;
}

/* The wait cut to idle_ms when the caller has an idle hook. */
static struct timespec *idle_cap(const pk_stat_wait_opts *o, struct timespec *tsp,
				 struct timespec *ts)
{
	if (!o->idle || o->idle_ms <= 0)
		return tsp;
	struct timespec cap = {.tv_sec = o->idle_ms / 1000, .tv_nsec = (o->idle_ms % 1000) * 1000000L};
	if (!tsp || tsp->tv_sec > cap.tv_sec ||
	    (tsp->tv_sec == cap.tv_sec && tsp->tv_nsec > cap.tv_nsec))
		*ts = cap;
	return ts;
}

int pk_stat_wait(pk_stat *s, const pk_stat_wait_opts *o, pk_stat_waited *w, pk_error *err)
{
	double interval = (double)o->interval_ms * 1e6;
	long ticks = 0;
	bool poll = s->o.threads && s->wl.pid < 0;
	*w = (pk_stat_waited){0};
	for (;;) {
		struct timespec ts;
		double next = interval > 0 ? interval * (double)(ticks + 1)
					   : (double)o->timeout_ms * 1e6;
		struct timespec *tsp = idle_cap(o, wait_for(s, next, poll, &ts), &ts);
		siginfo_t si;
		int sig = tsp ? sigtimedwait(o->signals, &si, tsp) : sigwaitinfo(o->signals, &si);
		int e = errno;
		int r = o->idle ? o->idle(o->arg, err) : 0;
		if (r < 0)
			return r;
		errno = e;
		pid_t pid = s->wl.pid;
		if (sig == SIGCHLD && pid > 0) {
			if (pk_stat_reap(s))
				return 0;
		} else if (sig > 0 && sig != SIGCHLD) {
			w->interrupted = true;
			if (pid <= 0)
				return 0;
			/* A terminal's Ctrl-C reached the command too; a kill aimed
			 * at the caller alone is passed on. */
			if (si.si_code == SI_USER || si.si_code == SI_QUEUE)
				kill(pid, sig);
		} else if (sig < 0 && errno == EAGAIN) {
			if (interval > 0 && pk_stat_now(s) >= next) {
				r = tick(s, o, w, &ticks, err);
				if (r)
					return r < 0 ? r : 0;
			}
			if (!interval && o->timeout_ms && pk_stat_now(s) >= next) {
				w->timed_out = true;
				return 0;
			}
			if (poll && !pk_stat_targets_alive(s))
				return 0;
		}
	}
}
