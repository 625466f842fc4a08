/* Inside lib/model: the event table's data types (events.c is the engine,
 * events_<family>.c hold one table of rows per TopDown method family).
 *
 * A row says what one event counts per core cycle of a phase, as a rate
 * expression in the metric language (include/pmukit/metrics.h) over the
 * phase's variables:
 *   width              the core's TopDown slots per cycle (pki_counters.width)
 *   smt                1 when SMT is on, else 0
 *   ghz                the phase's core frequency
 *   clear_cost         slots lost per branch mispredict or machine clear
 *                      (PKI_CLEAR_COST, a model constant)
 *   retiring, bad_speculation, frontend_bound, backend_bound,
 *   heavy_operations, light_operations, branch_mispredicts, machine_clears,
 *   fetch_latency, fetch_bandwidth, memory_bound, core_bound
 *                      the phase's shares of all slots (scenario names)
 *   ref_ghz            the scenario's nominal (TSC) frequency      optional:
 *   branches, cache_references, cache_misses (per instruction),    a row naming
 *   bus_cycles (per core cycle)  the phase's "rates"               one not given
 *                                                                  is -ENOENT
 * Invariants: a row's expression names only those variables and is >= 0 for
 * every valid phase (tests/model/test_events.c walks every row); the first
 * matching row of a family's tables wins; rows are data, never code. */
#ifndef PK_MODEL_EVENTS_H
#define PK_MODEL_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Slots one branch mispredict or machine clear costs: turns a share of
 * slots into a count of events (docs/model.md, "Events of a phase"). */
#define PKI_CLEAR_COST 20

/* Intel's raw config (sysfs format of the cpu PMU): event 0-7, umask 8-15,
 * edge 18, any 21, inv 23, cmask 24-31. */
#define PKI_INTEL(ev, umask, cmask, edge, inv)                                          \
	((uint64_t)(ev) | (uint64_t)(umask) << 8 | (uint64_t)(edge) << 18 |          \
	 (uint64_t)(inv) << 23 | (uint64_t)(cmask) << 24)
#define PKI_INTEL_ANY (1ULL << 21)
/* AMD's raw config: the 12-bit event select split into bits 0-7 and 32-35,
 * umask 8-15, cmask 24-31. */
#define PKI_AMD(ev, umask, cmask)                                                         \
	((uint64_t)((ev) & 0xff) | (uint64_t)(((ev) >> 8) & 0xf) << 32 |              \
	 (uint64_t)(umask) << 8 | (uint64_t)(cmask) << 24)

typedef struct pki_event_row {
	uint32_t kind;      /* PERF_TYPE_HARDWARE or PERF_TYPE_RAW */
	uint64_t config;
	const char *name;   /* the vendor's name, for messages and docs */
	const char *rate;   /* counts per core cycle (see above) */
} pki_event_row;

typedef struct pki_event_table {
	const pki_event_row *rows;
	size_t nr;
	uint64_t fixed_from;       /* Arm erratum rows: not used on this MIDR's part
				    * from its revision on (pki_midr_at_least); 0: always */
} pki_event_table;

#define PKI_EVENT_TABLE(rows) {rows, sizeof(rows) / sizeof((rows)[0])}

/* A method family: the core (pki_counters.core) it serves, the AnyThread
 * bit its events honour (0: none), and its tables in search order. */
#define PKI_FAMILY_TABLES 7
typedef struct pki_event_family {
	const char *core;
	uint64_t any_bit;
	const pki_event_table *tables[PKI_FAMILY_TABLES]; /* NULL-terminated */
} pki_event_family;

/* The tables (events_<family>.c). */
extern const pki_event_table pki_events_hardware;   /* symbolic events, all */
extern const pki_event_table pki_events_intel_core;     /* big cores */
extern const pki_event_table pki_events_intel_ref;      /* ref-cycles (bus-cycles: events.c) */
extern const pki_event_table pki_events_perf_metrics_l1; /* ICL and later */
extern const pki_event_table pki_events_skylake;
extern const pki_event_table pki_events_sunny_cove;
extern const pki_event_table pki_events_golden_cove;
extern const pki_event_table pki_events_gracemont, pki_events_skymont;
extern const pki_event_table pki_events_zen4;
extern const pki_event_table pki_events_zen5;           /* its own rows; then Zen 4's */
extern const pki_event_table pki_events_neoverse;        /* all parts */
extern const pki_event_table pki_events_neoverse_hw;     /* its symbolic events */
extern const pki_event_table pki_events_neoverse_slots;  /* V1, V2 */
extern const pki_event_table pki_events_neoverse_n2;     /* N2's erratum */

/* The family of a core PMU row; NULL when the model has no event table. */
const pki_event_family *pki_event_family_find(const pki_counters *row);
/* Families, for tests and docs. */
const pki_event_family *pki_event_families(size_t *nr);
/* A row's rate for a phase (no AnyThread factor): 0; -ENOENT naming the
 * scenario key to add when the row needs an optional value the scenario
 * does not give; -EINVAL naming the row when its expression is bad (a bug
 * in the table). */
int pki_event_row_rate(const pki_event_row *row, const pki_core *core, const pki_phase *ph,
		       double *rate, pk_error *err);

#endif
