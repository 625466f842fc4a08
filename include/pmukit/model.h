/* pmukit: the PMU model, a second implementation of the kernel seam.
 *
 * A pk_model plays a machine with a core PMU and the Linux perf driver in
 * user space, over a scenario (docs/model.md: threads running phases of
 * virtual time with given TopDown shares on a bundled or given machine).
 * Its pk_kernel (pk_model_kernel) serves perf_event_open, read, ioctl,
 * mmap (the user page and ring buffers, with samples written in virtual
 * time), close and poll (waiting in virtual time), and the host facts, so pk_counting and `pmukit stat` run
 * on it unchanged; the machine's sysfs tree (pk_model_sysfs_root) gives the
 * pk_pmus to parse events with.
 *
 * Time is virtual: nothing counts until pk_model_advance runs the scenario
 * forward. Runs are deterministic: the same scenario and the same calls give
 * the same counts, byte for byte. Every number is modeled, never measured;
 * callers that print them say so.
 *
 * Single owner: pk_model_new -> pk_model_free. The kernel returned by
 * pk_model_kernel lives as long as the model. Not thread-safe.
 *
 * lib/model (issue 8, docs/model.md), the data: scenarios (scenario.c,
 * scenario_tma.c: the JSON contract of the model's tests, strict
 * validation with JSON paths in errors); Intel's SLOTS and PERF_METRICS
 * arithmetic (perf_metrics.c: quantization, delta, reset, save; the
 * driver's value is lib/topdown/perf_metrics.c's); counters per CPU model
 * as a table (counters.c); the events of a phase (what every event counts
 * per cycle: one table of rate expressions per TopDown method family,
 * events_<family>.c, walked by one engine, events.c; rows over the
 * scenario's optional ref_ghz and per-phase rates are refused with the key
 * to add when it is absent). Internal headers model/model.h,
 * model/events.h.
 *
 * The second implementation of the kernel seam over them (model/mkernel.h):
 * the perf calls, the seam's simulated-kernel entries (rdpmc, now, run_to,
 * sysfs_root, source) and the driver's TopDown rules (mkernel.c, mrules.c),
 * virtual time with scheduling, multiplexing and hybrid placement
 * (msched.c), the CPU scheduler (threads that share a CPU time-slice;
 * phases by cursor; mthreads.c), the modeled host facts (mhost.c), the
 * bundled machines' trees (machines.c), the model object (mmodel.c, which
 * also registers the model as lib/kernel's loader of scenario files).
 *
 * The SPE unit (docs/model.md "The SPE unit"): the scenario's optional
 * per-phase spe (scenario_spe.c), the pure choice of operations, filters and
 * record bytes (spe_unit.c), the driver in the kernel (mspe.c, internal
 * model/mspe.h): open checks, the AUX area, records every period operations
 * into it, collisions (COLLISION on the next PERF_RECORD_AUX), the core
 * PMU's SAMPLE_POP/FEED/FILTRATE/COLLISION events, PERF_RECORD_AUX with
 * TRUNCATED, discard.
 *
 * Sampling and self-monitoring (model/sampling.h): ring.c (the ring buffer
 * as the kernel writes it, LOST records, wakeups, SET_OUTPUT checks),
 * userpage.c (the user page's seqlock update and the RDPMC index
 * encodings), overflow.c (samples at a fixed period or frequency), wired
 * into the kernel by mmap.c (mmap/munmap, the user page kept up to date,
 * SET_OUTPUT, the RDPMC emulation pk_model_rdpmc) and msample.c (overflows
 * in virtual time, samples into the rings; poll waits in virtual time).
 * Nothing in lib/ but lib/model imports lib/model. */
#ifndef PMUKIT_MODEL_H
#define PMUKIT_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmukit/counting.h>
#include <pmukit/cpuid.h>
#include <pmukit/error.h>
#include <pmukit/kernel.h>
#include <pmukit/perfdata.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_model pk_model;

/* Loads the scenario (a JSON file) and its machine: a bundled machine name
 * (looked up in $PMUKIT_MACHINES, the source tree of an uninstalled build,
 * then <datadir>/pmukit/machines) or a path to a folder holding
 * bus/event_source/devices. NULL with err naming the file, the key or the
 * folders looked in. */
/* The host a model recording names in HOSTNAME and OSRELEASE: how report
 * and script tell a modeled perf.data from a measured one. */
#define PK_MODEL_NODENAME "pmukit-model"
#define PK_MODEL_RELEASE "model"

pk_model *pk_model_new(const char *scenario_path, pk_error *err);
void pk_model_free(pk_model *m);

/* The kernel table over the model. */
const pk_kernel *pk_model_kernel(pk_model *m);
/* The machine's sysfs root (for pk_pmus_load). */
const char *pk_model_sysfs_root(const pk_model *m);
/* The machine as the scenario names it ("sapphirerapids", or the path). */
const char *pk_model_machine(const pk_model *m);
/* The scenario's file, as given to pk_model_new. */
const char *pk_model_scenario(const pk_model *m);
/* The CPU identification of the scenario. */
const pk_cpuid *pk_model_cpuid(const pk_model *m);
/* "scenario 'S' on machine 'M'" into buf: what every output of a run on
 * the model names (stat and record --model). */
const char *pk_model_label(const pk_model *m, char *buf, size_t len);
/* A perf.data header recorded on the model (HOSTNAME and OSRELEASE are
 * PK_MODEL_NODENAME and PK_MODEL_RELEASE): its CPU description (a copy,
 * "the PMU model" without one); NULL for a measured file or no memory. */
char *pk_model_recorded(const pk_pd_header *h);

/* Virtual time since the start of the scenario, ns. */
uint64_t pk_model_now(const pk_model *m);
/* When the last thread ends, ns. */
uint64_t pk_model_end(const pk_model *m);
/* The counters' rotation interval (ns): the core PMU's
 * perf_event_mux_interval_ms, else 4 ms. */
uint64_t pk_model_mux_ns(const pk_model *m);
/* Runs the scenario forward by ns: every enabled event counts what its
 * thread or CPU does meanwhile. Returns true while a thread is still
 * running at the new time. */
bool pk_model_advance(pk_model *m, uint64_t ns);

/* RDPMC emulation: executes "rdpmc" with this ECX as thread tid of the
 * scenario would, at the model's current virtual time: generic counter n
 * (ECX n), fixed counter n (n | 1 << 30), PERF_METRICS (1 << 29: the
 * packed 8 x 8-bit register). *value is the raw counter (48 bits on x86),
 * the one the thread's own events occupy; a counter none of them occupies
 * reads 0. With the user page of an event (offset, index = ECX + 1,
 * pmc_width) this gives the event's count as read(2) would. -EINVAL (the
 * hardware's #GP) for a counter the core does not have, and on Arm; -ESRCH
 * when tid is not a scenario thread or has ended. The model's TSC is
 * pk_model_now (the user page's time_mult 1, time_shift 0). */
int pk_model_rdpmc(pk_model *m, pid_t tid, uint32_t ecx, uint64_t *value, pk_error *err);

/* The threads a run on the model counts or samples: pids or tids (perf's
 * -p/-t lists, of scenario threads), or with neither every thread of the
 * scenario. NULL with err set. */
pk_threadmap *pk_model_threads(pk_model *m, const char *pids, const char *tids, pk_error *err);

/* Called by pk_model_run after each interval with its end and length
 * (virtual ns); < 0 stops the run. */
typedef int (*pk_model_tick_fn)(void *arg, double t_ns, double len_ns, pk_error *err);
/* Runs the model to the scenario's end at once (interval_ms 0), or by
 * intervals of interval_ms with tick after each (the last one ends at the
 * end, shorter if need be) until the end or interval_count ticks (0: no
 * limit). Returns 0 or the tick's error. */
int pk_model_run(pk_model *m, long interval_ms, long interval_count, pk_model_tick_fn tick,
		 void *arg, pk_error *err);

#ifdef __cplusplus
}
#endif
#endif
