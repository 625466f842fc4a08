/* One thread's counters: opened at its first use (the process's events on
 * this thread, the TopDown group pinned so it stays on the PMU, every
 * event's user page mapped), read into snapshots, reset on a period.
 *
 * Invariants: a thread reads its TopDown group one way for its whole life:
 * RDPMC (SLOTS + PERF_METRICS in one pass, reader.c) when the slots page
 * allows it at open, else read(2) of every event through the plan made at
 * open (rplan.c; on a real kernel, the fast path: no lock, no reset); the
 * metric events are never read both ways. Snapshots are cumulative since
 * the open: on the user-page path, before each PERF_EVENT_IOC_RESET the
 * values are carried, so a
 * region open across a reset keeps its totals (the few events between the
 * reading and the reset are the only loss). On a simulated kernel (the
 * PMU model, through the seam's rdpmc and now) every reading holds its
 * lock; one loaded from PMUKIT_MODEL is first run forward to the
 * wall-clock time since init (docs/regions.md). */
#include "region/region_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* initial-exec: the read path finds its thread without a __tls_get_addr
 * call (a few bytes of the static TLS surplus, as allocators do) */
#define PKI_TLS _Thread_local __attribute__((tls_model("initial-exec")))
static PKI_TLS pki_rg_thread *self;
static PKI_TLS uint32_t self_gen;
static PKI_TLS uint32_t failed_gen; /* this thread's open failed in that set-up */
static PKI_TLS int failed_code;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* A simulated kernel's RDPMC and TSC, through the seam. */
static uint64_t sim_rdpmc(void *arg, uint32_t ecx)
{
	const pki_rg_thread *t = arg;
	const pk_kernel *k = pki_rg.k;
	uint64_t v = 0;
	if (!k->ops->rdpmc || k->ops->rdpmc(k, t->tid, ecx, &v) < 0)
		return 0;
	return v;
}

static uint64_t sim_rdtsc(void *arg)
{
	(void)arg;
	return pki_rg.k->ops->now(pki_rg.k);
}

static pki_rd_ops ops_of(pki_rg_thread *t)
{
	/* times moved on to now: each core type's running time weighs its block */
	if (pki_rg.sim)
		return (pki_rd_ops){{sim_rdpmc, sim_rdtsc, t, true}, pki_rg.k};
	return (pki_rd_ops){{pki_rd_hw_rdpmc, pki_rd_hw_rdtsc, NULL, true}, pki_rg.k};
}

/* A slots group is pinned: it never rotates out, so RDPMC always finds it. */
static int pin_groups(void *arg, const pk_evsel *evsel, int cpu, pid_t tid,
		      struct perf_event_attr *attr)
{
	(void)arg, (void)cpu, (void)tid;
	if (pk_evsel_is_leader(evsel) && pk_evsel_nr_members(evsel) > 1)
		attr->pinned = 1;
	return 0;
}

static bool rdpmc_page(const struct perf_event_mmap_page *pg)
{
	return pg && pg->cap_user_rdpmc && pg->index;
}

/* Maps each event's user page; a page that cannot be mapped means read(2). */
static void map_pages(pki_rg_thread *t)
{
	for (size_t i = 0; i < pki_rg.nr_ev; i++) {
		t->fd[i] = pk_counting_fd(t->c, i, 0, 0);
		void *p = NULL;
		/* a software or tracepoint event is never on a counter: read(2) */
		uint32_t type = pk_evsel_attr(pki_rg.ev[i].evsel)->type;
		bool hw = type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
			  type == PERF_TYPE_RAW || type >= PERF_TYPE_MAX;
		bool user = hw && (pki_rg.sim || pki_rd_hw_available());
		if (user && t->fd[i] >= 0 &&
		    pki_rg.k->ops->mmap(pki_rg.k, t->fd[i], 4096, PROT_READ, 0, &p) == 0)
			t->page[i] = p, t->nr_pages++;
	}
	for (size_t i = 0; i < pki_rg.nr_ev; i++)
		if (pki_rg.ev[i].kind == PKI_RG_SLOTS && !rdpmc_page(t->page[i]))
			t->group_read = true;
	/* hybrid: on the other core type the slots group is off the PMU and
	 * its PERF_METRICS cannot be read with RDPMC; read(2) sees both */
	if (pki_rg.nr_blocks > 1)
		t->group_read = true;
}

static int open_counters(pki_rg_thread *t, pk_error *err)
{
	pk_threadmap *tm = pk_threadmap_new(&t->tid, 1);
	if (!tm)
		return pk_err(err, -ENOMEM, "out of memory");
	pk_counting_opts o;
	pk_counting_opts_init(&o);
	o.kernel = pki_rg.k;
	o.threads = tm;
	o.skip_unsupported = false;
	o.tweak = pin_groups;
	t->c = pk_counting_new(pki_rg.evlist, &o, err);
	pk_threadmap_put(tm);
	if (!t->c)
		return err && err->code ? err->code : -ENOMEM;
	int r = pk_counting_open(t->c, err);
	if (r == 0)
		r = pk_counting_enable(t->c, err);
	if (r < 0)
		return r;
	map_pages(t);
	/* every event with read(2): the plan's reads (rplan.c) */
	if (t->group_read || t->nr_pages == 0) {
		r = pki_rg_plan_build(t, err);
		if (r < 0)
			return r;
		t->fast = !pki_rg.sim;
	}
	t->open = true;
	return 0;
}

void pki_rg_thread_close(pki_rg_thread *t)
{
	for (size_t i = 0; i < PK_REGION_MAX_EVENTS; i++)
		if (t->page[i]) {
			pki_rg.k->ops->munmap(pki_rg.k, t->page[i], 4096);
			t->page[i] = NULL;
			t->nr_pages--;
		}
	pk_counting_free(t->c);
	t->c = NULL;
	t->open = t->fast = false;
	t->plan.nr_reads = 0;
}

/* At thread exit: close its counters if the state is still the process's. */
static void destructor(void *arg)
{
	pthread_mutex_lock(&pki_rg_lock);
	for (pki_rg_thread *t = pki_rg.threads; t; t = t->next)
		if (t == arg && t->open)
			pki_rg_thread_close(t);
	pthread_mutex_unlock(&pki_rg_lock);
}

static void make_key(void)
{
	pthread_key_create(&key, destructor);
}

static int new_thread(pki_rg_thread **out, pk_error *err)
{
	pki_rg_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return pk_err(err, -ENOMEM, "out of memory");
	if (pki_rg.sim) {
		if (pki_rg.next_sim_tid >= pki_rg.nr_sim_tids) {
			free(t);
			return pk_err(err, -ESRCH, "%s: the scenario has %zu threads, all taken",
				      pki_rg.scenario, pki_rg.nr_sim_tids);
		}
		t->tid = pki_rg.sim_tids[pki_rg.next_sim_tid++];
	} else {
		t->tid = gettid();
	}
	int r = open_counters(t, err);
	if (r < 0) {
		pki_rg_thread_close(t);
		free(t);
		return r;
	}
	t->epoch = ++pki_rg.epochs;
	t->next = pki_rg.threads;
	pki_rg.threads = t;
	pki_rg.syscall_reads |= t->group_read;
	*out = t;
	return 0;
}

/* The calling thread's open state of the current set-up, or NULL: the
 * generation first (a state of an older set-up is freed), then open. */
static inline pki_rg_thread *cached_self(void)
{
	pki_rg_thread *t = self;
	if (t && self_gen == __atomic_load_n(&pki_rg.generation, __ATOMIC_ACQUIRE) && t->open)
		return t;
	return NULL;
}

pki_rg_thread *pki_rg_self(pk_error *err)
{
	pki_rg_thread *t = cached_self();
	if (t)
		return t;
	pk_error local;
	if (!err)
		PKI_RG_ERR_INIT(local), err = &local;
	int r = pki_rg_init_default();
	if (r < 0) {
		pk_err(err, r, "%s", pki_rg.first_error);
		return NULL;
	}
	if (failed_gen && failed_gen == __atomic_load_n(&pki_rg.generation, __ATOMIC_ACQUIRE)) {
		pk_err(err, failed_code, "this thread's counters could not be opened");
		return NULL; /* not retried at every call */
	}
	pthread_once(&key_once, make_key);
	pthread_mutex_lock(&pki_rg_lock);
	if (pki_rg.sim)
		pthread_mutex_lock(&pki_rg_sim_lock);
	r = pki_rg.ready ? new_thread(&t, err) : pk_err(err, -ENODEV, "not set up");
	if (pki_rg.sim)
		pthread_mutex_unlock(&pki_rg_sim_lock);
	self_gen = pki_rg.generation;
	if (r < 0)
		failed_gen = pki_rg.generation, failed_code = r;
	pthread_mutex_unlock(&pki_rg_lock);
	if (r < 0) {
		pki_rg_error("opening a thread's counters: %s", err->msg);
		return NULL;
	}
	self = t;
	pthread_setspecific(key, t);
	return t;
}

int pk_region_thread_init(pk_error *err)
{
	pk_error local;
	if (!err)
		PKI_RG_ERR_INIT(local), err = &local;
	return pki_rg_self(err) ? 0 : err->code ? err->code : -ENODEV;
}

void pk_region_thread_fini(void)
{
	if (self && self_gen == pki_rg.generation)
		destructor(self);
	self = NULL;
}

/* Every event from user space, lone counters falling back one by one. */
static int read_user(pki_rg_thread *t, pk_region_snap *s, pk_error *err)
{
	pki_rd_ops ops = {.k = pki_rg.k};
	if (t->nr_pages) /* the user-page readers only where a page is mapped */
		ops = ops_of(t);
	uint64_t raw[PK_REGION_MAX_EVENTS], m[PK_REGION_MAX_EVENTS];
	for (size_t i = 0; i < pki_rg.nr_ev; i++) {
		const pki_rg_event *e = &pki_rg.ev[i];
		pk_counts c = {0};
		int r = 0;
		if (e->kind == PKI_RG_METRIC) {
			s->v[i] = t->carry[i] +
				  (int64_t)pki_pm_value(raw[e->slots], m[e->slots], e->byte);
			continue;
		}
		if (e->kind == PKI_RG_SLOTS)
			r = pki_rd_topdown(&ops, t->page[i], &c, &raw[i], &m[i], err);
		else
			r = pki_rd_count(&ops, t->page[i], t->fd[i], &c, err);
		if (r < 0)
			return r;
		if (r == PKI_SELFREAD_FALLBACK && e->kind == PKI_RG_SLOTS) {
			s->flags |= PK_REGION_SNAP_STALE;
			raw[i] = m[i] = 0;
		} else if (r == 1) {
			s->flags |= PK_REGION_SNAP_SYSCALL;
		}
		s->v[i] = t->carry[i] + pki_rg_scaled(c.val, c.ena, c.run);
		s->run[e->block] = c.run;
	}
	return 0;
}

/* PERF_EVENT_IOC_RESET once per period: the values carried first. */
static void maybe_reset(pki_rg_thread *t, const pk_region_snap *s)
{
	if (!pki_rg.reset_ns || t->group_read || (s->flags & PK_REGION_SNAP_STALE))
		return;
	if (!t->last_reset_ns)
		t->last_reset_ns = s->time_ns;
	if (s->time_ns - t->last_reset_ns < pki_rg.reset_ns)
		return;
	memcpy(t->carry, s->v, sizeof(t->carry));
	for (size_t i = 0; i < pki_rg.nr_ev; i++)
		if (pk_evsel_is_leader(pki_rg.ev[i].evsel))
			pki_rg.k->ops->ioctl(pki_rg.k, t->fd[i], PERF_EVENT_IOC_RESET,
					     PERF_IOC_FLAG_GROUP);
	t->last_reset_ns = s->time_ns;
}

static int snapshot(pki_rg_thread *t, pk_region_snap *s, pk_error *err)
{
	s->nr = (uint32_t)pki_rg.nr_ev;
	s->flags = 0;
	s->epoch = t->epoch;
	s->run[0] = s->run[1] = 0;
	const pk_kernel *k = pki_rg.k;
	if (pki_rg.sim && pki_rg.own_kernel && k->ops->run_to)
		/* the wall clock since init, stopping 1 ns before the scenario ends
		 * (its threads stay alive: later regions count nothing) */
		k->ops->run_to(k, pki_rg_wall_ns() - pki_rg.start_ns);
	s->time_ns = pki_rg.sim ? k->ops->now(k) : pki_rg_now_ns();
	if (t->plan.nr_reads) /* read(2) never touches PERF_METRICS: no reset */
		return pki_rg_plan_read(t, s, err);
	int r = read_user(t, s, err);
	if (r == 0)
		maybe_reset(t, s);
	return r;
}

int pki_rg_snapshot(pki_rg_thread *t, pk_region_snap *s, pk_error *err)
{
	if (t->fast) { /* the read(2) path: the clock and the plan's reads */
		s->time_ns = pki_rg_now_ns();
		return pki_rg_plan_read(t, s, err);
	}
	if (!pki_rg.sim)
		return snapshot(t, s, err);
	pthread_mutex_lock(&pki_rg_sim_lock);
	int r = snapshot(t, s, err);
	pthread_mutex_unlock(&pki_rg_sim_lock);
	return r;
}

int pk_region_snapshot(pk_region_snap *s, pk_error *err)
{
	pki_rg_thread *t = cached_self();
	if (t && t->fast) /* err may be NULL: the fast path only passes it on */
		return pki_rg_snapshot(t, s, err);
	pk_error local;
	if (!err)
		PKI_RG_ERR_INIT(local), err = &local;
	t = pki_rg_self(err);
	return t ? pki_rg_snapshot(t, s, err) : err->code ? err->code : -ENODEV;
}
