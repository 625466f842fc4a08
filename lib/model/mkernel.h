/* Inside the library: the PMU model's kernel (issue 8), shared by its files:
 *  - mkernel.c: pk_model_new/free, the perf calls (open, read, ioctl,
 *    close, poll) and the attr's resolution to a PMU and counter row;
 *  - mrules.c: the Intel driver's TopDown rules, as the errors it returns;
 *  - msched.c: virtual time: scheduling groups on the counters of each
 *    context, rotation (multiplexing), hybrid placement, counting;
 *  - mhost.c: the host facts of the modeled machine;
 *  - machines.c: where the bundled machines' sysfs trees are.
 *
 * Invariants: an event is open iff ev[fd - MK_FD_BASE].open; a member's
 * leader is open while it is (closing a leader closes nothing else, as in
 * the kernel, but its members stop counting); every refusal sets
 * m->reason, which pk_kernel_ops.explain hands out. Counts are exact
 * doubles per event (acc), except the PERF_METRICS events,
 * which go through the register arithmetic (pki_pm_*) of their slots leader;
 * exact values become counts rounded to nearest (pki_mk_whole). */
#ifndef PK_MODEL_MKERNEL_H
#define PK_MODEL_MKERNEL_H

#include <limits.h>
#include <pmukit/model.h>
#include <pmukit/pmu.h>

#include "model/model.h"
#include "model/sampling.h"

#define MK_FD_BASE 5000
/* The kernel's default mux interval when the tree has none: PERF_CPU_HRTIMER
 * = 1000 / HZ ms, HZ = 250 (docs/model.md). */
#define MK_MUX_DEFAULT_MS 4
/* The modeled kernel's HZ (the same default): the tick of frequency mode. */
#define MK_HZ 250
/* perf_event_max_sample_rate and perf_event_mlock_kb: the kernel's defaults. */
#define MK_MAX_SAMPLE_RATE 100000
#define MK_MLOCK_KB 516
/* u64s of the largest read(2) or PERF_SAMPLE_READ the model builds. */
#define MK_READ_MAX 1024

typedef enum mk_kind {
	MK_TASK_CLOCK,   /* software: ns while the task runs / the CPU is counted */
	MK_CPU_CLOCK,
	MK_DUMMY,        /* software dummy: counts nothing, carries side-band bits */
	MK_RATE,         /* counts rate x core cycles (pki_event_rate) */
	MK_PM_SLOTS,     /* fixed counter 3 on a PERF_METRICS CPU */
	MK_PM_METRIC,    /* a metric pseudo event: field of the leader's register */
	MK_SPE,          /* an arm_spe event: the SPE unit (mspe.c), counts nothing */
	MK_SPE_COUNT,    /* a core PMU's SPE event (SAMPLE_FEED ...): counted by the unit */
} mk_kind;

typedef struct mk_event {
	bool open;
	struct perf_event_attr attr;
	uint64_t config3;          /* attr.size >= 136 (Linux 6.3+), whatever the headers hold */
	pid_t pid;
	int cpu;
	int leader;             /* index of the group leader (itself for a leader) */
	int ctx;                /* thread index, or nr_threads + cpu */
	mk_kind kind;
	const pk_pmu *pmu;      /* core PMU; NULL for software events */
	pki_core core;
	pki_event_key key;
	const pki_phase *rate_ph; /* MK_RATE: the phase `rate` is of (a cache) */
	double rate;
	int field;              /* MK_PM_METRIC: 0-7 */
	int fixed;              /* fixed counter it uses, -1: a generic one */
	bool enabled;
	bool running;           /* on a counter in the current step */
	double acc;             /* exact count since open (MK_RATE, clocks) */
	uint64_t base;          /* (uint64_t)acc at the last reset */
	uint64_t ena, run;      /* ns */
	/* MK_PM_SLOTS: the group's registers and counts (pki_pm_read order) */
	pki_pm_regs regs;
	uint64_t pmcount[1 + PKI_TMA_NR];
	double node_exact[PKI_TMA_NR];
	uint64_t node_fed[PKI_TMA_NR];
	/* the counter it is on while running (mmap.c publishes it): RDPMC's ECX */
	uint32_t pmc_ecx;
	bool on_pmc;            /* on a fixed or generic counter (not PERF_METRICS) */
	int64_t pmc_off;        /* counting events: value - raw counter value */
	/* mmap.c: its mapping (the user page and its ring), its SET_OUTPUT target */
	void *map;
	size_t map_len;
	pki_ring ring;
	int output;             /* index of the event whose ring it writes to, -1: none */
	uint64_t lost;          /* samples lost (PERF_FORMAT_LOST) */
	/* msample.c: a sampling event's overflow state and the count it consumed */
	bool sampling;
	pki_overflow ovf;
	uint64_t ovf_count;     /* whole counts the overflow state has seen */
	struct mk_spe *spe;     /* MK_SPE: the unit's state and AUX area (mspe.c) */
} mk_event;

/* The model's CPU scheduler (mthreads.c): one per thread, one per CPU. */
typedef struct mk_thread {
	size_t ph;              /* current phase (nr_phases: ended) */
	uint64_t own;           /* ns it has run */
	uint64_t ph_end;        /* own ns at the end of phase ph */
	int cpu;                /* the CPU it runs or waits on; -1: ended */
	bool running;           /* on its CPU now */
	bool dirty;             /* listed in mk_sched.dirty */
	size_t next;            /* next in its CPU's queue (SIZE_MAX: none) */
	uint64_t end;           /* virtual ns it ended (UINT64_MAX: not yet) */
} mk_thread;
typedef struct mk_cpu_rq {
	size_t cur;             /* the running thread (SIZE_MAX: idle) */
	size_t head, tail;      /* the waiting threads, in order */
	uint64_t slice_end;     /* when the running thread's quantum ends */
} mk_cpu_rq;
typedef struct mk_sched {
	mk_thread *th;
	size_t nr_th, nr_alive;
	mk_cpu_rq *rq;          /* per CPU number, 0 .. the highest */
	size_t nr_cpu;
	uint64_t quantum;       /* ns */
	size_t *dirty, nr_dirty; /* threads changed since the caller last looked */
} mk_sched;
/* The default quantum: one tick at HZ 250 (docs/model.md "Time and
 * scheduling"). */
#define MK_QUANTUM_MS 4

typedef struct mk_ctx_ev mk_ctx_ev;

struct pk_model {
	pk_kernel k;
	pk_kernel_ops ops;      /* k.ops: each model its own, no shared state */
	char scenario_path[PATH_MAX];
	pki_scenario sc;
	char root[PATH_MAX];    /* the machine's sysfs root */
	pk_pmus *pmus;
	pk_cpumap *cpus;        /* the machine's CPUs */
	uint64_t now, end, mux_ns;
	uint64_t *thread_end;   /* per thread: when it ends, ns (mthreads.c, ahead) */
	mk_event *ev;
	size_t nr_ev, cap_ev;
	unsigned *rot;          /* per context: rotations so far */
	bool *want_rot;         /* per context: rotate at the next mux tick */
	struct mk_ctx_ev {      /* per context: its events' indices, in order */
		size_t *idx, n, cap;
	} *cev;
	char reason[400];       /* the last refusal */
	uint64_t tick_ns;       /* the modeled kernel's tick (HZ 250) */
	uint64_t wakeups;       /* ring wakeups so far (poll in virtual time) */
	uint8_t *rec;           /* a record being built (PKI_PD_RECORD_MAX + 1) */
	uint64_t spe_handles;   /* AUX handles ended so far (mspe.c) */
	mk_sched sched;         /* who runs where (mthreads.c) */
	/* the first phase of the scenario with each set of given rates */
	const pki_phase *rates_ph[1u << PKI_RATE_NR];
};

#define MK(k) ((pk_model *)(k)->ctx)

/* An event's id (PERF_FORMAT_ID, PERF_EVENT_IOC_ID): its index + 1. */
static inline uint64_t pki_mk_id(const pk_model *m, const mk_event *e)
{
	return (uint64_t)(e - m->ev) + 1;
}

/* The core PMU a phase's core type runs on. */
const pk_pmu *pki_mk_pmu_of(const pk_model *m, pki_core_type ct);
/* The CPU thread t runs on during phase ph (docs/model.md "Hybrid"). */
int pki_mk_cpu_of(const pk_model *m, size_t t, const pki_phase *ph);
/* The core PMU that counts on cpu (NULL: none). */
const pk_pmu *pki_mk_pmu_on_cpu(const pk_model *m, int cpu);
/* Records the reason of a refusal and returns code. */
int pki_mk_refuse(pk_model *m, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* mthreads.c: the scheduler. init: every thread on its first phase's CPU
 * at time 0; -ENOMEM. */
int pki_sched_init(const pk_model *m, mk_sched *s, uint64_t quantum);
void pki_sched_free(mk_sched *s);
/* The next time after now at which a running thread's phase or quantum
 * ends (UINT64_MAX: every thread has ended). */
uint64_t pki_sched_next(const mk_sched *s, uint64_t now);
/* Runs the scheduler from now to t1 (at most pki_sched_next(now)): the
 * running threads' own time moves, phases end, threads switch, move, end;
 * each thread changed is listed in s->dirty. */
void pki_sched_advance(const pk_model *m, mk_sched *s, uint64_t now, uint64_t t1);
/* Thread t's current phase, NULL once it has ended; whether it runs now. */
static inline const pki_phase *pki_mk_phase_now(const pk_model *m, size_t t)
{
	const mk_thread *th = &m->sched.th[t];
	return th->ph < m->sc.threads[t].nr_phases ? &m->sc.threads[t].phases[th->ph] : NULL;
}
static inline bool pki_mk_running(const pk_model *m, size_t t)
{
	return m->sched.th[t].running;
}

/* mrules.c: the driver's TopDown checks for a new event; 0 or -EINVAL. */
int pki_mk_check_topdown(pk_model *m, const mk_event *e, const mk_event *leader);
/* True when e is the slots event / a metric pseudo event (raw config). */
bool pki_mk_is_slots(const mk_event *e);
int pki_mk_metric_field(const mk_event *e); /* 0-7, or -1 */

/* msched.c: runs the model to time `to`; with until_wakeup, stops early
 * after the step in which a ring woke its reader. True when one did. */
bool pki_mk_run_to(pk_model *m, uint64_t to, bool until_wakeup);
/* Schedules context ctx now (after an open, ENABLE or DISABLE). */
void pki_mk_schedule(pk_model *m, int ctx);
/* Contexts: the threads, then one per CPU number up to the highest. */
size_t pki_mk_nr_ctx(const pk_model *m);
/* True when e and its leader are open and enabled. */
bool pki_mk_counts_now(const pk_model *m, const mk_event *e);
/* What e would count over [t0, t0 + dt) (nothing applied). */
double pki_mk_event_delta(pk_model *m, mk_event *e, uint64_t t0, uint64_t dt);
/* A read through the kernel: brings the PERF_METRICS counts of leader l up
 * to date (and clears its registers when it is on the PMU). */
void pki_mk_pm_read(pk_model *m, mk_event *l);
/* A count from its exact value: rounded to nearest (docs/model.md). */
uint64_t pki_mk_whole(double exact);
/* The value an event reports. */
uint64_t pki_mk_value(const pk_model *m, const mk_event *e);

/* mmap.c: the mapping, the user page, SET_OUTPUT, the counters. */
int pki_mk_mmap(pk_model *m, mk_event *e, size_t len, int prot, uint64_t offset, void **addr);
int pki_mk_munmap(pk_model *m, void *addr, size_t len);
/* target NULL: back to no redirection. */
int pki_mk_set_output(pk_model *m, mk_event *e, mk_event *target);
/* The ring e writes into (its own or its SET_OUTPUT target's); NULL: none. */
pki_ring *pki_mk_ring_of(pk_model *m, mk_event *e);
/* The user page of e (and of every event of l's group) brought up to date. */
void pki_mk_publish(pk_model *m, mk_event *e);
void pki_mk_publish_group(pk_model *m, const mk_event *l);
/* A counter programmed from 0 (scheduled in). */
void pki_mk_program(pk_model *m, mk_event *e);
/* The raw value of the counter e is on (pmc_width bits). */
uint64_t pki_mk_raw(const pk_model *m, const mk_event *e);
/* True when e runs on a counter RDPMC can read (or PERF_METRICS). */
bool pki_mk_on_counter(const pk_model *m, const mk_event *e);

/* msample.c: sampling events. */
/* At open: checks a sampling attr, arms its overflow state. */
int pki_mk_sampling_open(pk_model *m, mk_event *e);
/* The end of a step from t0 cut at the next overflow of a running
 * sampling event (at most end, at least t0 + 1). */
uint64_t pki_mk_sample_bound(pk_model *m, uint64_t t0, uint64_t end);
/* After the step [t0, t1): the overflows and their samples; the freq
 * tick at a tick boundary. True when a ring woke its reader. */
bool pki_mk_sample_step(pk_model *m, uint64_t t0, uint64_t t1);
/* The read_format u64s of e as read(2) gives them now, into out (cap u64s):
 * the count or -errno. */
int pki_mk_read_values(pk_model *m, mk_event *e, uint64_t *out, size_t cap);

/* mkernel.c: fills a model's table (the host facts from mhost.c). */
void pki_mk_ops(pk_kernel_ops *ops);
extern const pk_host_ops pki_mk_host_ops;

/* machines.c: the sysfs root of a bundled machine into buf; -ENOENT with
 * err naming every folder looked in. */
int pki_machine_root(const char *name, char *buf, size_t len, pk_error *err);

#endif
