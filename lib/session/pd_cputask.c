/* libpmukit: each CPU's task from the context switches (pd_cputask.h). */
#include "pd_cputask.h"

#include <errno.h>
#include <stdlib.h>

enum { MAX_CPUS = 4096 };

int pki_cpu_task_set(pki_cpu_tasks *t, uint32_t cpu, int64_t tid)
{
	if (cpu >= MAX_CPUS)
		return 0;
	if (cpu >= t->nr) {
		int64_t *n = realloc(t->tid, (cpu + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = t->nr; i <= cpu; i++)
			n[i] = -1;
		t->tid = n;
		t->nr = cpu + 1;
	}
	t->tid[cpu] = tid;
	return 0;
}

int pki_cpu_task_switch(pki_cpu_tasks *t, const pk_pd_event *ev)
{
	if (ev->type != PERF_RECORD_SWITCH_CPU_WIDE || !(ev->misc & PERF_RECORD_MISC_SWITCH_OUT) ||
	    ev->size < 16)
		return 0;
	/* next_prev_pid, next_prev_tid: the tid in the upper half */
	return pki_cpu_task_set(t, ev->id.cpu, (int32_t)(uint32_t)(pk_pd_rec_u64(ev, 0) >> 32));
}

void pki_cpu_tasks_release(pki_cpu_tasks *t)
{
	free(t->tid);
	t->tid = NULL;
	t->nr = 0;
}
