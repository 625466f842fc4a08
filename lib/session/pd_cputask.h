/* libpmukit: which task each CPU runs, as the session's AUX trace decoders
 * (Arm SPE, Intel PT) know it from the file's context switches: perf's
 * rule, a SWITCH_CPU_WIDE out record names the task coming in.
 *
 * Invariants: -1 for a CPU no switch named yet; CPUs from 4096 up are not
 * kept (always -1). */
#ifndef PMUKIT_PD_CPUTASK_H
#define PMUKIT_PD_CPUTASK_H

#include <stddef.h>
#include <stdint.h>
#include <pmukit/perfdata.h>

typedef struct pki_cpu_tasks {
	int64_t *tid;                /* per CPU: the task switched in (-1: none) */
	int64_t *pid;                /* its pid as the switch names it (-1: none) */
	size_t nr;
} pki_cpu_tasks;

static inline int64_t pki_cpu_task(const pki_cpu_tasks *t, uint32_t cpu)
{
	return cpu < t->nr ? t->tid[cpu] : -1;
}
static inline int64_t pki_cpu_task_pid(const pki_cpu_tasks *t, uint32_t cpu)
{
	return cpu < t->nr ? t->pid[cpu] : -1;
}

/* CPU cpu runs tid (of pid, -1: not known) from now on: 0 or -ENOMEM. */
int pki_cpu_task_set(pki_cpu_tasks *t, uint32_t cpu, int64_t pid, int64_t tid);
/* A record that is a switch out: its CPU's task is the one it names. */
int pki_cpu_task_switch(pki_cpu_tasks *t, const pk_pd_event *ev);
void pki_cpu_tasks_release(pki_cpu_tasks *t);

#endif
