/* libpmukit: each CPU's task from the context switches (pd_cputask.h). */
#include "pd_cputask.h"

#include <errno.h>
#include <stdlib.h>

enum { MAX_CPUS = 4096 };

static int grow(int64_t **a, size_t from, size_t to)
{
	int64_t *n = realloc(*a, to * sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (size_t i = from; i < to; i++)
		n[i] = -1;
	*a = n;
	return 0;
}

int pki_cpu_task_set(pki_cpu_tasks *t, uint32_t cpu, int64_t pid, int64_t tid)
{
	if (cpu >= MAX_CPUS)
		return 0;
	if (cpu >= t->nr) {
		if (grow(&t->tid, t->nr, cpu + 1) < 0 || grow(&t->pid, t->nr, cpu + 1) < 0)
			return -ENOMEM;
		t->nr = cpu + 1;
	}
	t->tid[cpu] = tid;
	t->pid[cpu] = pid;
	return 0;
}

int pki_cpu_task_switch(pki_cpu_tasks *t, const pk_pd_event *ev)
{
	if (ev->type != PERF_RECORD_SWITCH_CPU_WIDE || !(ev->misc & PERF_RECORD_MISC_SWITCH_OUT) ||
	    ev->size < 16)
		return 0;
	/* next_prev_pid, next_prev_tid */
	uint64_t w = pk_pd_rec_u64(ev, 0);
	return pki_cpu_task_set(t, ev->id.cpu, (int32_t)(uint32_t)w, (int32_t)(uint32_t)(w >> 32));
}

void pki_cpu_tasks_release(pki_cpu_tasks *t)
{
	free(t->tid);
	free(t->pid);
	t->tid = t->pid = NULL;
	t->nr = 0;
}
