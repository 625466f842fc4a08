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
 * pk_model_kernel lives as long as the model. Not thread-safe. */
#ifndef PMUKIT_MODEL_H
#define PMUKIT_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmukit/cpuid.h>
#include <pmukit/error.h>
#include <pmukit/kernel.h>

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

/* Virtual time since the start of the scenario, ns. */
uint64_t pk_model_now(const pk_model *m);
/* When the last thread ends, ns. */
uint64_t pk_model_end(const pk_model *m);
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

#ifdef __cplusplus
}
#endif
#endif
