/* The region library's process state: init from options and the
 * environment, the events every thread counts (the TopDown method's, or a
 * software event when TopDown cannot run, with the reason), the report at
 * exit, fini.
 *
 * Invariants: init runs once (under the lock) and fixes the events and
 * their kinds; the kernel is the seam's (kernel.h) and nothing else: a
 * kernel given by the caller is never run forward or freed here; a kernel
 * loaded from PMUKIT_MODEL (through lib/kernel's loader, which the PMU
 * model registers) is ours (virtual time follows the wall clock since
 * init, docs/regions.md); the report at exit is written only when asked
 * (opts.report or PMUKIT_REGION_REPORT). */
#include "region/region_internal.h"
#include "core/util.h"
#include "kernel/loader.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "region/reader.h"

pki_rg_state pki_rg;
pthread_mutex_t pki_rg_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t pki_rg_sim_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t pki_rg_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The readings' clock without the vDSO's clock_gettime on the read path:
 * where the TSC is invariant (x86-64, CPUID 0x80000007 EDX bit 8), its
 * rate against CLOCK_MONOTONIC is measured over 1 ms at set-up and a
 * reading's time is the TSC scaled by it (about 2.5e-5 relative error:
 * the two clocks' read jitter over the 1 ms); elsewhere, or when the
 * measure fails, or with PMUKIT_REGION_CLOCK=monotonic, CLOCK_MONOTONIC
 * itself. Regions only take differences. */
static void calibrate_clock(void)
{
	pki_rg.ns_mult = 0;
	const char *ck = pki_env("PMUKIT_REGION_CLOCK");
	if (ck && !strcmp(ck, "monotonic"))
		return; /* asked for: CLOCK_MONOTONIC at every reading */
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
		return;
	uint64_t n0 = pki_rg_wall_ns(), t0 = pki_rd_hw_rdtsc(NULL), n1, t1;
	do {
		n1 = pki_rg_wall_ns();
		t1 = pki_rd_hw_rdtsc(NULL);
	} while (n1 - n0 < 1000000 && n1 >= n0);
	if (t1 <= t0 || n1 <= n0)
		return;
	/* ns per tick in 32.32 fixed point: a TSC of 1 GHz or more gives
	 * a multiplier below 2^32, 1e-9 relative steps */
	double mult = (double)(n1 - n0) / (double)(t1 - t0) * 4294967296.0;
	if (mult < 1 || mult >= 18446744073709551615.0)
		return;
	pki_rg.ns_mult = (uint64_t)(mult + 0.5);
	pki_rg.tick0 = t1;
	pki_rg.ns0 = n1;
#endif
}

void pki_rg_error(const char *fmt, ...)
{
	pthread_mutex_lock(&pki_rg_lock);
	if (!pki_rg.first_error[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(pki_rg.first_error, sizeof(pki_rg.first_error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&pki_rg_lock);
}

void pk_region_opts_init(pk_region_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
}

/* The kind of each event: Intel's slots (0x0400) leading metric events
 * (0x8000-0x8700, byte = config >> 8 - 0x80) on a core PMU, else a count. */
static void classify(void)
{
	int slots = -1;
	for (size_t i = 0; i < pki_rg.nr_ev; i++) {
		pki_rg_event *e = &pki_rg.ev[i];
		const struct perf_event_attr *a = pk_evsel_attr(e->evsel);
		bool core = a->type == PERF_TYPE_RAW || a->type >= PERF_TYPE_MAX;
		uint64_t c = a->config & 0xffff;
		e->kind = PKI_RG_COUNT;
		if (core && c == 0x0400 && pk_evsel_nr_members(e->evsel) > 1) {
			e->kind = PKI_RG_SLOTS;
			slots = (int)i;
		} else if (core && c >= 0x8000 && c <= 0x8700 && !(c & 0xff) && slots >= 0 &&
			   pk_evsel_leader(e->evsel) == slots) {
			e->kind = PKI_RG_METRIC;
			e->byte = (int)(c >> 8) - 0x80;
			e->slots = slots;
		}
	}
}

/* The block of each event: the topdown block whose PMU it counts on. */
static void blocks(void)
{
	for (size_t i = 0; i < pki_rg.nr_ev; i++) {
		const char *p = pk_evsel_pmu_name(pki_rg.ev[i].evsel);
		for (size_t b = 0; pki_rg.td && b < pki_rg.nr_blocks; b++)
			if (p && !strcmp(p, pk_topdown_block_pmu(pki_rg.td, b)))
				pki_rg.ev[i].block = (int)b;
	}
}

/* The kernel's CPU: a simulated kernel's is its own (no PMUKIT_CPUID). */
static int kernel_cpuid(pk_cpuid *id, pk_error *why)
{
	if (!pki_rg.sim)
		return pk_host_cpuid(pki_rg.k, id, why);
	pk_host_cpu c;
	int r = pki_rg.k->ops->host.cpu(pki_rg.k, &c);
	if (r < 0)
		return pk_err(why, r, "cannot identify the CPU of the %s kernel", pki_rg.k->name);
	*id = c.id;
	return 0;
}

/* The TopDown events, or the fallback event with the reason. */
static int choose_events(const char *fallback, pk_error *err)
{
	pk_cpuid id;
	pk_error why = {0};
	int r = kernel_cpuid(&id, &why);
	if (r == 0) {
		pk_topdown_opts o;
		pk_topdown_opts_init(&o);
		o.level = pki_rg.level;
		o.smt = pk_topdown_host_smt(pki_rg.k);
		pki_rg.td = pk_topdown_new(pki_rg.pmus, &id, &o, &why);
	}
	if (pki_rg.td && pk_topdown_add_events(pki_rg.td, pki_rg.evlist, &why) == 0) {
		pki_rg.nr_blocks = pk_topdown_nr_blocks(pki_rg.td);
		if (pki_rg.nr_blocks > 2)
			pki_rg.nr_blocks = 2;
		snprintf(pki_rg.method, sizeof(pki_rg.method), "%s",
			 pk_topdown_block_method(pki_rg.td, 0));
		for (size_t b = 0; b < pki_rg.nr_blocks; b++)
			snprintf(pki_rg.pmu + strlen(pki_rg.pmu),
				 sizeof(pki_rg.pmu) - strlen(pki_rg.pmu), "%s%s", b ? "+" : "",
				 pk_topdown_block_pmu(pki_rg.td, b));
		return 0;
	}
	pk_topdown_free(pki_rg.td);
	pki_rg.td = NULL;
	snprintf(pki_rg.why, sizeof(pki_rg.why), "%s", why.msg[0] ? why.msg : "no TopDown method");
	snprintf(pki_rg.fallback, sizeof(pki_rg.fallback), "%s", fallback ? fallback : "task-clock");
	return pk_evlist_parse(pki_rg.evlist, pki_rg.pmus, pki_rg.fallback, NULL, err);
}

/* A simulated kernel's threads, in its order: each opening thread takes one. */
static int add_tid(void *arg, pid_t tid)
{
	(void)arg;
	if (pki_rg.nr_sim_tids < sizeof(pki_rg.sim_tids) / sizeof(pki_rg.sim_tids[0]))
		pki_rg.sim_tids[pki_rg.nr_sim_tids++] = tid;
	return 0;
}

/* The caller's kernel, else one loaded from the scenario, else Linux. */
static int load_kernel(const pk_region_opts *o, pk_error *err)
{
	const char *sc = o->model_scenario ? o->model_scenario : pki_env("PMUKIT_MODEL");
	pki_rg.k = o->kernel;
	if (!pki_rg.k && sc && *sc) {
		pki_rg.k = pki_kernel_load(sc, err);
		if (!pki_rg.k)
			return err && err->code ? err->code : -EINVAL;
		pki_rg.own_kernel = true;
	}
	if (!pki_rg.k)
		pki_rg.k = pk_kernel_linux();
	pki_rg.sim = pki_rg.k->ops->now != NULL;
	if (!pki_rg.sim)
		return 0;
	const char *src = pki_rg.k->ops->source ? pki_rg.k->ops->source(pki_rg.k) : NULL;
	snprintf(pki_rg.scenario, sizeof(pki_rg.scenario), "%s", src ? src : pki_rg.k->name);
	return pki_rg.k->ops->host.tasks(pki_rg.k, 0, add_tid, NULL);
}

static void at_exit(void)
{
	pk_region_finish(NULL);
}

static void report_at_exit(void)
{
	static bool registered;
	if (pki_rg.report[0] && !registered && atexit(at_exit) == 0)
		registered = true;
}

static int init_locked(const pk_region_opts *o, pk_error *err)
{
	const char *rep = o->report ? o->report : pki_env("PMUKIT_REGION_REPORT");
	snprintf(pki_rg.report, sizeof(pki_rg.report), "%s", rep ? rep : "");
	const char *lv = pki_env("PMUKIT_REGION_LEVEL");
	pki_rg.level = o->level ? o->level : lv && *lv ? atoi(lv) : 1;
	if (pki_rg.level != 1 && pki_rg.level != 2)
		return pk_err(err, -EINVAL, "TopDown level %d (opts.level or PMUKIT_REGION_LEVEL): 1 or 2", pki_rg.level);
	const char *re = pki_env("PMUKIT_REGION_RESET_S");
	double rs = o->reset_s ? o->reset_s : re && *re ? strtod(re, NULL) : 2.0;
	if (isnan(rs) || rs == 0)
		return pk_err(err, -EINVAL, "PMUKIT_REGION_RESET_S=%s: seconds, > 0 (< 0: never)", re);
	pki_rg.reset_ns = rs < 0 ? 0 : (uint64_t)(rs * 1e9);
	int r = load_kernel(o, err);
	if (r < 0)
		return r;
	pki_rg.start_ns = pki_rg_wall_ns();
	if (!pki_rg.sim)
		calibrate_clock();
	const pk_kernel *k = pki_rg.k;
	pki_rg.pmus = pk_pmus_load(k->ops->sysfs_root ? k->ops->sysfs_root(k) : NULL, err);
	pki_rg.evlist = pk_evlist_new();
	if (!pki_rg.pmus || !pki_rg.evlist)
		return err && err->code ? err->code : -ENOMEM;
	r = choose_events(o->fallback_event, err);
	pk_config_opts cfg = {.mode = PK_CONFIG_STAT, .no_inherit = true};
	if (r == 0)
		r = pk_evlist_config(pki_rg.evlist, &cfg, err);
	if (r < 0)
		return r;
	pki_rg.nr_ev = pk_evlist_count(pki_rg.evlist);
	if (pki_rg.nr_ev > PK_REGION_MAX_EVENTS)
		return pk_err(err, -E2BIG, "%zu events to count: at most %d", pki_rg.nr_ev,
			      PK_REGION_MAX_EVENTS);
	for (size_t i = 0; i < pki_rg.nr_ev; i++)
		pki_rg.ev[i] = (pki_rg_event){.evsel = pk_evlist_at(pki_rg.evlist, i)};
	classify();
	blocks();
	pki_rg.generation++;
	__atomic_store_n(&pki_rg.ready, true, __ATOMIC_RELEASE);
	report_at_exit();
	return 0;
}

static void release_locked(void)
{
	for (pki_rg_thread *t = pki_rg.threads, *n; t; t = n) {
		n = t->next;
		pki_rg_thread_close(t);
		free(t);
	}
	pk_topdown_free(pki_rg.td);
	pk_evlist_put(pki_rg.evlist);
	pk_pmus_put(pki_rg.pmus);
	if (pki_rg.own_kernel)
		pki_kernel_unload(pki_rg.k);
	uint32_t epochs = pki_rg.epochs, gen = pki_rg.generation;
	memset(&pki_rg, 0, sizeof(pki_rg));
	pki_rg.epochs = epochs;
	/* a thread's cached state (rthread.c) is gone: never dereferenced again */
	pki_rg.generation = gen + 1;
}

int pk_region_init(const pk_region_opts *opts, pk_error *err)
{
	pk_region_opts dflt;
	pk_region_opts_init(&dflt);
	pk_error mine = {0};
	if (!err) /* the report still names the error (likwid's INIT passes none) */
		err = &mine;
	pthread_mutex_lock(&pki_rg_lock);
	int r = pki_rg.ready ? pk_err(err, -EALREADY, "the region library is already set up")
			     : init_locked(opts ? opts : &dflt, err);
	if (r < 0 && r != -EALREADY) {
		/* a report asked for still says why nothing was counted */
		char rep[sizeof(pki_rg.report)];
		snprintf(rep, sizeof(rep), "%s", pki_rg.report);
		release_locked();
		snprintf(pki_rg.report, sizeof(pki_rg.report), "%s", rep);
		snprintf(pki_rg.first_error, sizeof(pki_rg.first_error), "setting up: %.300s%s%.300s",
			 err->msg[0] ? err->msg : "failed", err->where[0] ? ": " : "", err->where);
		pki_rg.failed = r;
		report_at_exit();
	}
	pthread_mutex_unlock(&pki_rg_lock);
	return r;
}

int pki_rg_init_default(void)
{
	if (__atomic_load_n(&pki_rg.ready, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&pki_rg_lock);
	int failed = pki_rg.failed;
	pthread_mutex_unlock(&pki_rg_lock);
	if (failed)
		return failed; /* once: a failed set-up is not retried at every call */
	pk_error err = {0};
	int r = pk_region_init(NULL, &err);
	if (r == -EALREADY)
		return 0;
	return r;
}

int pk_region_finish(pk_error *err)
{
	pthread_mutex_lock(&pki_rg_lock);
	bool ready = pki_rg.ready;
	char rep[sizeof(pki_rg.report)];
	snprintf(rep, sizeof(rep), "%s", pki_rg.report);
	bool failed = pki_rg.failed;
	pthread_mutex_unlock(&pki_rg_lock);
	int r = (ready || failed) && rep[0] ? pki_rg_write_report(rep, err) : 0;
	pthread_mutex_lock(&pki_rg_lock);
	if (pki_rg.ready || pki_rg.failed)
		release_locked();
	pthread_mutex_unlock(&pki_rg_lock);
	return r;
}

void pk_region_fini(void)
{
	pk_region_finish(NULL);
}
