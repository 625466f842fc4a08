/* Inside the library: the PMU model's foundations (issue 8), pure functions
 * with no kernel, no files but the scenario, no printing.
 *
 *  - scenarios (scenario.c, scenario_tma.c): the JSON contract of the tests,
 *    parsed and validated into plain structs; every error names the key by
 *    its JSON path (threads[0].phases[1].tma.retiring) and the value;
 *  - PERF_METRICS (perf_metrics.c): Intel's fixed counter 3 (SLOTS) and the
 *    packed 8 x 8-bit metrics register, quantized as the hardware does, and
 *    the kernel driver's arithmetic on them (value, delta per read, reset);
 *  - counters per CPU model (counters.c): generic and fixed counters of each
 *    core PMU, looked up by pk_cpuid and PMU name;
 *  - the events of a phase (events.c, one table per method family in
 *    events_*.c, types in events.h): what each event counts per cycle.
 *
 * Facts and choices are in docs/model.md. Names are pki_ (pki_scenario_,
 * pki_pm_, pki_counters_, ...); nothing here is exported. */
#ifndef PK_MODEL_MODEL_H
#define PK_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/cpuid.h>
#include <pmukit/error.h>
#include "topdown/perf_metrics.h"

/* TopDown nodes in PERF_METRICS byte order: Level 1 in bytes 0-3, the Level 2
 * node the register holds in bytes 4-7 (topdown.md 1.4). The parent of
 * Level 2 node i is node i - 4. */
enum pki_tma_node {
	PKI_TMA_RETIRING,
	PKI_TMA_BAD_SPEC,
	PKI_TMA_FE_BOUND,
	PKI_TMA_BE_BOUND,
	PKI_TMA_HEAVY_OPS,
	PKI_TMA_BR_MISPREDICT,
	PKI_TMA_FETCH_LAT,
	PKI_TMA_MEM_BOUND,
	PKI_TMA_NR,
};
#define PKI_TMA_L1_NR 4
/* |sum of Level 1 - 1| and |children - parent| allowed in a scenario. */
#define PKI_TMA_TOLERANCE 1e-6

/* ---- scenarios ---- */

typedef enum pki_core_type { PKI_CORE_BIG, PKI_CORE_ATOM } pki_core_type;

/* A phase's optional event rates ("rates" in the scenario): branches,
 * cache references and cache misses per instruction, bus cycles per core
 * cycle; each in [0, 1]. */
enum pki_rate {
	PKI_RATE_BRANCHES,
	PKI_RATE_CACHE_REFS,
	PKI_RATE_CACHE_MISSES,
	PKI_RATE_BUS_CYCLES,
	PKI_RATE_NR,
};
/* Their scenario keys, which are also the rate variables of events.h. */
extern const char *const pki_rate_names[PKI_RATE_NR];

/* A phase's optional Arm SPE description ("spe" in the scenario,
 * scenario_spe.c): what the operations the SPE unit samples are. Shares
 * are fractions of the sampled operations (loads + stores + branches <= 1,
 * the rest "other" operations); load sources are fractions of the loads by
 * the common data-source encoding of Neoverse N1/N2/V1/V2; latencies are
 * total latencies in cycles per load source and per other kind.
 * Addresses: the data address of the loads and stores, its physical address
 * (only needed for pa_enable), the branches' target. */
enum pki_spe_kind { PKI_SPE_LOAD, PKI_SPE_STORE, PKI_SPE_BRANCH, PKI_SPE_OTHER, PKI_SPE_OP_NR };
enum pki_spe_src {
	PKI_SPE_L1D, PKI_SPE_L2D, PKI_SPE_PEER_CPU, PKI_SPE_LOCAL_CLUSTER, PKI_SPE_LL_CACHE,
	PKI_SPE_PEER_CLUSTER, PKI_SPE_REMOTE, PKI_SPE_DRAM, PKI_SPE_SRC_NR
};
/* The source names (scenario keys, spe-parser's names) and their DATA
 * SOURCE payloads (the common encoding). */
extern const char *const pki_spe_src_names[PKI_SPE_SRC_NR];
extern const uint8_t pki_spe_src_codes[PKI_SPE_SRC_NR];
extern const char *const pki_spe_op_names[PKI_SPE_OP_NR];

typedef struct pki_spe_phase {
	bool given;
	double share[PKI_SPE_OP_NR];        /* other = 1 - the rest */
	double source[PKI_SPE_SRC_NR];      /* of the loads; sums to 1 when loads > 0 */
	unsigned src_latency[PKI_SPE_SRC_NR]; /* cycles, for sources with a share */
	unsigned op_latency[PKI_SPE_OP_NR]; /* store, branch, other (load: by source) */
	double mispredicts;                 /* of the branches; 0 when not given */
	uint64_t data_addr, data_phys_addr, branch_target;
	bool data_phys_given;
} pki_spe_phase;

/* A node of a TopDown tree below Level 2 the phase gives (its "tma"
 * object's other keys). */
typedef struct pki_tma_deep {
	const char *name;     /* "tma_l2_bound": the name of a method table's row */
	double share;         /* of all slots, in [0, 1] */
} pki_tma_deep;

struct pki_tree_rates;

typedef struct pki_phase {
	double ms;            /* virtual time, > 0 */
	double ghz;           /* cycles = ms x ghz x 1e6 */
	double rate[PKI_RATE_NR]; /* meaningful where rates_given has bit i */
	unsigned rates_given;
	pki_core_type core_type;
	uint64_t ip;          /* for samples; 0 when not given */
	double tma[PKI_TMA_NR]; /* shares of all slots; Level 2 filled in */
	pki_spe_phase spe;    /* the optional "spe" object */
	pki_tma_deep *deep;   /* nodes below Level 2 the scenario gives */
	size_t nr_deep;
	struct pki_tree_rates *tree; /* the deeper events' solved rates (events_tree.c) */
	const struct pki_phase *same_tma; /* an earlier phase with the same shares, or NULL */
} pki_phase;

typedef struct pki_thread {
	int tid;
	char comm[16];        /* TASK_COMM_LEN */
	int cpu;
	pki_phase *phases;
	size_t nr_phases;
} pki_thread;

/* Whose PERF_METRICS arithmetic (described with pki_pm_value_of, below). */
typedef enum pki_pm_driver { PKI_PM_CURRENT, PKI_PM_PATCH_2019 } pki_pm_driver;

typedef struct pki_scenario {
	char machine[256];    /* a bundled machine name or a path */
	bool machine_is_path; /* holds a '/' */
	pk_cpuid cpuid;       /* given, or the bundled machine's */
	bool smt;
	double ref_ghz;       /* the nominal (TSC) frequency; 0: not given */
	pki_pm_driver kernel; /* "kernel": whose PERF_METRICS arithmetic */
	double quantum_ms;    /* "quantum_ms": threads sharing a CPU; 0: the default */
	bool unprivileged;    /* "privileged": false: the recorder is not root */
	pki_thread *threads;
	size_t nr_threads;
} pki_scenario;

/* Parses and validates a scenario. `where` names the input in errors (a
 * path). On failure *out is empty and err names the JSON path and value. */
int pki_scenario_parse(const char *text, size_t len, const char *where, pki_scenario *out,
		       pk_error *err);
/* Reads the file and parses it. */
int pki_scenario_load(const char *path, pki_scenario *out, pk_error *err);
void pki_scenario_release(pki_scenario *s);
/* A phase's core cycles: ms x ghz x 1e6, rounded to nearest. */
uint64_t pki_phase_cycles(const pki_phase *p);

/* The bundled machines (tests/data/sysfs for now): name, CPUID, hybrid. */
typedef struct pki_machine {
	const char *name;
	const char *cpuid;
	bool hybrid;
} pki_machine;
const pki_machine *pki_machine_find(const char *name);

/* A "tma" object (scenario_tma.c) into ph: Levels 1 and 2 (ph->tma) and
 * the deeper nodes it gives (ph->deep, any node of an Intel method's tree,
 * Levels 3-6). `obj` is a jansson json_t; `path` its JSON path for errors. */
struct json_t;
int pki_scenario_tma(const struct json_t *obj, const char *path, const char *where, pki_phase *ph,
		     pk_error *err);
/* Every key of obj is one of known[] (NULL-terminated); else the error
 * names the first other key by its path. */
int pki_scenario_keys(const struct json_t *obj, const char *const known[], const char *path,
		      const char *where, pk_error *err);
/* A phase's "spe" object into p->spe (scenario_spe.c). */
int pki_scenario_spe(const struct json_t *obj, const char *path, const char *where,
		     pki_spe_phase *p, pk_error *err);
/* A JSON path for errors: path.key, or path[idx] when idx >= 0; cut to
 * len - 1 bytes. */
#define PKI_PATH_MAX 160
void pki_json_path(char *buf, size_t len, const char *path, const char *key, long idx);
/* The error of a bad value: "<path>: <value>: <why>". */
int pki_scenario_bad(pk_error *err, const char *where, const char *path, const struct json_t *v,
		     const char *why);

/* ---- PERF_METRICS (fixed counter 3 and the metrics register) ---- */

/* The register from the slots spent in each node since the last reset:
 * slots[0..3] are the Level 1 nodes (their sum is fixed counter 3),
 * slots[4..7] the Level 2 nodes. Level 1 bytes sum to 0xff (largest
 * remainder); Level 2 bytes round to nearest and never exceed their parent's
 * byte. Zero slots give 0. */
uint64_t pki_pm_encode(const uint64_t slots[PKI_TMA_NR]);
/* pki_pm_field, pki_pm_value (the driver's decoding): topdown/perf_metrics.h */
/* Which driver's arithmetic the model runs (the scenario's "kernel"):
 *  - PKI_PM_CURRENT: Linux 5.9 and later (icl_get_metrics_event_value,
 *    pki_pm_value), a delta only when positive;
 *  - PKI_PM_PATCH_2019: the first Ice Lake TopDown series (LKML, Kan Liang,
 *    2019-05-21, "[PATCH 4/9] perf/x86/intel: Support hardware TopDown
 *    metrics", icl_metric_update_event): 16-bit fixed point,
 *    ((field x 0xffff) >> 8) x slots >> 16 in 64 bits (0.39 % under
 *    slots x field / 0xff for field 0xff; wraps past 48-bit slots), and the
 *    delta new - last taken as it comes (a u64 difference: a count can go
 *    down). docs/model.md "PERF_METRICS". pki_pm_driver is above pki_scenario. */
/* The scenario names of the drivers, by enum value. */
extern const char *const pki_pm_driver_names[2];
/* pki_pm_value of driver d. */
uint64_t pki_pm_value_of(pki_pm_driver d, uint64_t slots, uint64_t metrics, int field);

/* The registers of one CPU and what the driver saved at the last reset or
 * context switch. */
typedef struct pki_pm_regs {
	uint64_t node[PKI_TMA_NR]; /* slots per node since the last reset */
	uint64_t last_slots;       /* saved_slots */
	uint64_t last_metrics;     /* saved_metric */
	pki_pm_driver driver;      /* kept by pki_pm_reset */
} pki_pm_regs;
/* The hardware counts `slots` more slots split as node[] (Level 1 summing
 * to slots). */
void pki_pm_run(pki_pm_regs *r, const uint64_t node[PKI_TMA_NR]);
/* Fixed counter 3 and PERF_METRICS as rdpmc would read them now. */
uint64_t pki_pm_slots(const pki_pm_regs *r);
uint64_t pki_pm_metrics(const pki_pm_regs *r);
/* The driver's delta for one event (field -1: slots): new value minus the
 * value at the saved registers; PKI_PM_CURRENT: 0 when not above it,
 * PKI_PM_PATCH_2019: the u64 difference. */
uint64_t pki_pm_delta(const pki_pm_regs *r, int field);
/* A read through the kernel interface: adds each event's delta to
 * count[0] (slots) and count[1 + field], then clears both registers. */
void pki_pm_read(pki_pm_regs *r, uint64_t count[1 + PKI_TMA_NR]);
/* PERF_EVENT_IOC_RESET / the start of a period: both registers and the
 * saved values to 0 (the caller zeroes its counts). */
void pki_pm_reset(pki_pm_regs *r);
/* A context switch: the driver adds each event's delta to count[] and saves
 * the registers, which keep running (written back at switch-in), so the
 * next delta subtracts what was already counted. */
void pki_pm_save(pki_pm_regs *r, uint64_t count[1 + PKI_TMA_NR]);

/* ---- counters per CPU model ---- */

typedef struct pki_counters {
	pk_vendor vendor;
	const char *core;         /* microarchitecture, for messages and docs */
	int generic;              /* generic counters per thread, SMT off */
	int generic_smt;          /* per thread with SMT on */
	uint32_t fixed;           /* fixed counters: bit n = fixed counter n */
	int perf_metrics;         /* metric bytes in PERF_METRICS: 0, 4 or 8 */
	int width;                /* TopDown slots per cycle */
} pki_counters;

/* The row for a CPU and core PMU; NULL with -ENOENT in err when there is none. */
const pki_counters *pki_counters_find(const pk_cpuid *id, const char *pmu, pk_error *err);
/* Generic counters one thread sees. */
int pki_counters_generic(const pki_counters *c, bool smt);

/* ---- events of a phase (events.c: what each event counts) ----
 *
 * The contract between the model's kernel and its event table. A phase
 * runs `pki_phase_cycles` core cycles; each event the model knows
 * accumulates `rate` counts per core cycle of that phase, chosen so that the
 * counts of one phase satisfy every TopDown method's formulas for the
 * phase's shares (docs/model.md, "Events of a phase"). */

/* The core an event is counted on. */
struct pki_td_table;

typedef struct pki_core {
	const pki_counters *row;   /* the CPU model's core PMU row */
	bool smt;                  /* SMT on (the _ANY forms count both threads) */
	double ref_ghz;            /* the scenario's ref_ghz; 0: not given */
	uint64_t midr;             /* Arm: the scenario's MIDR (errata), else 0 */
	const struct pki_td_table *tree; /* the TopDown method's table (deeper nodes), or NULL */
} pki_core;

/* How an event reaches the table: PERF_TYPE_HARDWARE with config a
 * PERF_COUNT_HW_* id (the hybrid PMU type in config[63:32] already removed),
 * or PERF_TYPE_RAW with config the core PMU's raw config word as its sysfs
 * format lays it out (Intel: event 0-7, umask 8-15, edge 18, any 21, inv 23,
 * cmask 24-31; AMD: event select 0-7 and 32-35; Arm: the event number). The
 * kernel maps a core PMU's own sysfs type to PERF_TYPE_RAW before asking. */
typedef struct pki_event_key {
	uint32_t kind;             /* PERF_TYPE_HARDWARE or PERF_TYPE_RAW */
	uint64_t config;
} pki_event_key;

/* The count per core cycle of `ev` while phase `ph` runs on `core`: 0 and
 * *rate (>= 0), or -ENOENT with err naming the event when the model has no
 * count for it (the kernel then refuses the open: never an invented count).
 * For the PERF_METRICS pseudo events (slots, config 0x0400; metrics
 * 0x8000..0x8700) *rate is the exact slots of that node per cycle; the
 * kernel reads them through the register (pki_pm_*). */
int pki_event_rate(const pki_core *core, const pki_event_key *ev, const pki_phase *ph,
		   double *rate, pk_error *err);
/* The same from the family's rows only (no deeper node's solved event). */
int pki_event_rate_rows(const pki_core *core, const pki_event_key *ev, const pki_phase *ph,
			double *rate, pk_error *err);
/* An event only a deeper node's formula names (Levels 3-6), solved from
 * the phase's shares (events_tree.c); -ENOENT when none names it. */
int pki_tree_rate(const pki_core *core, const pki_event_key *ev, const pki_phase *ph,
		  double *rate, pk_error *err);
void pki_tree_release(pki_phase *ph);
/* The phase's shares, Level 1 normalized to sum 1, Level 2 alike, then the
 * Level 2 siblings (light operations, machine clears, fetch bandwidth,
 * core bound): the events' view (events.c). */
void pki_phase_shares(const pki_phase *ph, double share[12]);
/* The index in pki_phase_shares of a Level 1-2 node named without tma_
 * ("memory_bound"), or -1. */
long pki_tma_key(const char *name);
/* The share the scenario gives node (tma_ name) below Level 2, or NaN. */
double pki_phase_node_given(const pki_phase *ph, const char *node);
/* The phase's slots per node per core cycle (width x share): what
 * pki_pm_run is fed with, per cycle. */
void pki_phase_node_rates(const pki_core *core, const pki_phase *ph, double out[PKI_TMA_NR]);

#endif
