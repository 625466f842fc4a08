/* Inside the region library (pmukit/region.h, docs/regions.md): the
 * process-wide state and one thread's counters.
 *
 * Invariants: the process state (pki_rg) is written only under its lock,
 * at init, at fini and when a name or a thread is added; the events, their
 * kinds and the topdown object do not change between init and fini, so the
 * read path reads them without a lock. A thread's state is written only by
 * its thread, except its accumulators being read by pk_region_results
 * (relaxed atomics: a result taken while threads run may mix one call's
 * fields) and its counters being closed by fini. Names are published with
 * a release store of the count after the name is written. */
#ifndef PK_REGION_INTERNAL_H
#define PK_REGION_INTERNAL_H

#include <pthread.h>
#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/region.h>
#include <pmukit/topdown.h>
#include "region/reader.h"

typedef enum pki_rg_kind {
	PKI_RG_COUNT,                /* a lone counter: RDPMC or read(2) */
	PKI_RG_SLOTS,                /* a slots leader: read with its metric events */
	PKI_RG_METRIC,               /* a PERF_METRICS byte of the slots before it */
} pki_rg_kind;

typedef struct pki_rg_event {
	pk_evsel *evsel;
	pki_rg_kind kind;
	int byte;                    /* PKI_RG_METRIC: the register's byte */
	int slots;                   /* PKI_RG_METRIC: the index of its slots event */
	int block;                   /* its topdown block (0 or 1) */
} pki_rg_event;

/* One region's totals in one thread. */
typedef struct pki_rg_acc {
	uint64_t calls, lost;
	uint64_t time_ns;
	uint64_t run[2];
	int64_t v[PK_REGION_MAX_EVENTS];
} pki_rg_acc;

typedef struct pki_rg_open {
	int id;
	pk_region_snap snap;
} pki_rg_open;

/* rplan.c: a thread that reads every event with read(2): one read per
 * group (PERF_FORMAT_GROUP) or lone counter into one buffer of words, and
 * where each event's value and times sit in it. */
enum { PKI_RG_PLAN_WORDS = 6 * PK_REGION_MAX_EVENTS };
typedef struct pki_rg_plan_rd {
	int fd;
	uint16_t base, words;        /* where in the buffer, how many */
} pki_rg_plan_rd;
typedef struct pki_rg_plan_at {
	uint16_t val, ena, run;      /* the event's words in the buffer */
	uint16_t block;              /* its topdown block */
} pki_rg_plan_at;
typedef struct pki_rg_plan {
	uint32_t nr_reads;           /* 0: the thread reads from user pages */
	pki_rg_plan_rd rd[PK_REGION_MAX_EVENTS];
	pki_rg_plan_at at[PK_REGION_MAX_EVENTS];
} pki_rg_plan;

typedef struct pki_rg_thread {
	struct pki_rg_thread *next;  /* the process's list */
	pid_t tid;                   /* the kernel's (a simulated kernel's own task) */
	uint32_t epoch;
	bool open, group_read;       /* counters open; the TopDown group via read(2) */
	/* every event through the plan, on a real kernel: a snapshot is the
	 * plan's reads and the clock (rthread.c's fast path) */
	bool fast;
	pki_rg_plan plan;            /* nr_reads > 0: every event via read(2) */
	pk_counting *c;
	void *page[PK_REGION_MAX_EVENTS];
	size_t nr_pages;             /* pages mapped (0: every reading is read(2)) */
	int fd[PK_REGION_MAX_EVENTS];
	int64_t carry[PK_REGION_MAX_EVENTS];
	uint64_t last_reset_ns;
	int depth;
	pki_rg_open stack[PK_REGION_MAX_DEPTH];
	int16_t name_cache[8];       /* id + 1 of a name by its address (named.c), 0 none */
	pki_rg_acc acc[PK_REGION_MAX_REGIONS];
} pki_rg_thread;

enum { PKI_RG_NAME_SLOTS = 2 * PK_REGION_MAX_REGIONS };
typedef struct pki_rg_state {
	bool ready;
	int failed;                  /* the set-up's error: not retried until fini */
	uint32_t generation;         /* init count: a thread's state of an older init is gone */
	int level;
	const pk_kernel *k;          /* Linux, the caller's, or loaded (own_kernel) */
	bool sim;                    /* k is simulated (kernel.h: ops->now): its clock,
				      * its RDPMC, its tasks, calls under pki_rg_sim_lock */
	bool own_kernel;             /* loaded from a scenario: wall-clock virtual time */
	uint64_t start_ns;           /* the wall clock at init */
	uint64_t ns_mult;            /* TSC clock (pki_rg_now_ns): ns per tick << 32; 0 = CLOCK_MONOTONIC */
	uint64_t tick0, ns0;         /* its origin: a TSC value and its CLOCK_MONOTONIC ns */
	pk_pmus *pmus;
	pk_topdown *td;
	pk_evlist *evlist;
	size_t nr_ev;
	pki_rg_event ev[PK_REGION_MAX_EVENTS];
	size_t nr_blocks;
	char why[600];               /* why no TopDown */
	char fallback[64];
	char method[64], pmu[64];
	char report[4096];           /* the report's file, "" none */
	char scenario[4096];
	char first_error[700];
	uint64_t reset_ns;
	/* the simulated kernel's threads not yet taken */
	pid_t sim_tids[64];
	size_t nr_sim_tids, next_sim_tid;
	/* names */
	char names[PK_REGION_MAX_REGIONS][PK_REGION_NAME_MAX];
	uint64_t name_hash[PK_REGION_MAX_REGIONS];
	int16_t name_slot[PKI_RG_NAME_SLOTS]; /* id + 1 by hash (open addressing), 0 free */
	int nr_names;
	/* threads */
	pki_rg_thread *threads;
	uint32_t epochs;
	bool syscall_reads;
} pki_rg_state;

extern pki_rg_state pki_rg;

/* An empty pk_error without zeroing its 2 KB: the read path's errors are
 * on the stack of every begin/end. */
#define PKI_RG_ERR_INIT(e)                                                                  \
	((e).code = 0, (e).msg[0] = (e).subject[0] = (e).where[0] = (e).hint[0] = 0,       \
	 (e).pos = -1, (e).pos_is_offset = 0)
extern pthread_mutex_t pki_rg_lock;
extern pthread_mutex_t pki_rg_sim_lock; /* a simulated kernel is not thread-safe */

/* setup.c */
int pki_rg_init_default(void);
void pki_rg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t pki_rg_wall_ns(void);
/* A reading's time (ns, monotonic): the calibrated TSC where invariant
 * (setup.c's calibrate_clock), else pki_rg_wall_ns(); only differences of
 * it mean anything. Inline: the read path's clock is a few instructions. */
static inline uint64_t pki_rg_now_ns(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(pki_rg.ns_mult != 0, 1)) {
		uint64_t t = __builtin_ia32_rdtsc();
		if (t < pki_rg.tick0) /* another socket's TSC behind ours: never back */
			return pki_rg.ns0;
		__extension__ unsigned __int128 p = (unsigned __int128)(t - pki_rg.tick0) * pki_rg.ns_mult;
		return pki_rg.ns0 + (uint64_t)(p >> 32);
	}
#endif
	return pki_rg_wall_ns();
}

/* A count scaled for the time it was off the PMU (multiplexing): the
 * value as read when it always ran. */
static inline int64_t pki_rg_scaled(uint64_t val, uint64_t ena, uint64_t run)
{
	if (__builtin_expect(!run || run >= ena, 1))
		return (int64_t)val;
	return (int64_t)((double)val * (double)ena / (double)run);
}

/* rplan.c: the plan of a thread whose every event is read with read(2)
 * (one trial read per group: its members' places by id); a snapshot's
 * counts through it (the caller sets s->time_ns). */
int pki_rg_plan_build(pki_rg_thread *t, pk_error *err);
int pki_rg_plan_read(const pki_rg_thread *t, pk_region_snap *s, pk_error *err);

/* rthread.c: the calling thread's state, opened on first use (NULL on
 * failure, with err). */
pki_rg_thread *pki_rg_self(pk_error *err);
int pki_rg_snapshot(pki_rg_thread *t, pk_region_snap *s, pk_error *err);
void pki_rg_thread_close(pki_rg_thread *t);

/* named.c: a name's id by its text, added when new if add is set
 * (-EINVAL: not 1 to 63 bytes; -ENOENT: unknown and !add; -ENOSPC). */
int pki_rg_name_id(const char *name, bool add);
/* named.c: the calling thread's result of a known name; zeroing the calling
 * thread's totals of it (likwid's GET and RESET). 0, -ENOENT (a name never
 * begun nor registered), -ENODEV (the thread cannot count). */
int pki_rg_thread_result(const char *name, pk_region_result *r);
int pki_rg_thread_reset(const char *name);
/* report.c: the report written to path ("-": stderr; a name ending in
 * .json: JSON), through pki_wfile (no link written through). */
int pki_rg_write_report(const char *path, pk_error *err);
/* named.c: a breakdown from event deltas. */
void pki_rg_compute(const double *d, const double *run, double time_ns,
		    pk_region_breakdown *out);

#endif
