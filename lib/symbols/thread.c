/* Threads: tid -> (pid, command name, the process's maps), from COMM and
 * FORK records.
 *
 * Threads are kept in a hash table owned by the machine and never removed
 * (EXIT is ignored: samples may still follow). A process's maps hang off
 * its leader (tid == pid), created on first use and shared with its threads.
 * A new process starts with a copy of its parent's maps, except the FORK
 * records perf synthesizes for tasks already running (FORK_EXEC mark): their
 * own maps follow. Names follow perf: ":<tid>" unknown, "swapper" for tid 0,
 * ":-1" for samples without a task; a thread never named is ":<tid>" even
 * when its process has a name (perf 6.1 names new threads by their tid).
 * The machine's comm version changes with every name set: callers keep text
 * made of names while it stays the same. */
#include "sy_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

thread *pki_sy_thread_find(pk_machine *m, uint32_t tid)
{
	if (m->last_thread && m->last_thread->tid == tid)
		return m->last_thread;
	for (thread *t = m->threads[tid % THREAD_HASH]; t; t = t->next)
		if (t->tid == tid)
			return m->last_thread = t;
	return NULL;
}

static thread *thread_new(pk_machine *m, uint32_t pid, uint32_t tid)
{
	thread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = pid;
	t->next = m->threads[tid % THREAD_HASH];
	m->threads[tid % THREAD_HASH] = t;
	return t;
}

/* The map group of process pid: the leader's, created on first use. */
mapgroup *pki_sy_process_maps(pk_machine *m, uint32_t pid)
{
	thread *leader = pki_sy_thread_find(m, pid);
	if (!leader)
		leader = thread_new(m, pid, pid);
	if (!leader)
		return NULL;
	if (!leader->mg) {
		leader->mg = pki_sy_mg_new();
		if (leader->mg)
			leader->mg->version = m->next_version++;
	}
	return leader->mg;
}

static thread *thread_get(pk_machine *m, uint32_t pid, uint32_t tid)
{
	thread *t = pki_sy_thread_find(m, tid);
	if (!t)
		t = thread_new(m, pid, tid);
	if (t && t->pid != pid && pid != (uint32_t)-1)
		t->pid = pid;
	return t;
}

void pki_sy_threads_free(pk_machine *m)
{
	for (size_t i = 0; i < THREAD_HASH; i++) {
		thread *t = m->threads[i];
		while (t) {
			thread *n = t->next;
			free(t->comm);
			pki_sy_mg_put(t->mg);
			free(t);
			t = n;
		}
	}
}

int pki_sy_on_comm(pk_machine *m, const pk_pd_event *ev)
{
	pk_pd_rec_comm c;
	if (pk_pd_rec_comm_parse(ev, &c, NULL) < 0)
		return 0;
	thread *t = thread_get(m, c.pid, c.tid);
	if (!t)
		return -ENOMEM;
	char *s = strdup(c.comm);
	if (!s)
		return -ENOMEM;
	free(t->comm);
	t->comm = s;
	m->comm_version++;
	return 0;
}

int pki_sy_on_fork(pk_machine *m, const pk_pd_event *ev)
{
	pk_pd_rec_fork f;
	if (pk_pd_rec_fork_parse(ev, &f, NULL) < 0)
		return 0;
	if (ev->type == PERF_RECORD_EXIT)
		return 0; /* samples may still follow; keep the thread */
	thread *parent = pki_sy_thread_find(m, f.ptid);
	char *comm = parent && parent->comm ? strdup(parent->comm) : NULL;
	thread *t = pki_sy_thread_find(m, f.tid);
	if (!t)
		t = thread_new(m, f.pid, f.tid);
	if (!t) {
		free(comm);
		return -ENOMEM;
	}
	t->pid = f.pid;
	if (comm) {
		free(t->comm);
		t->comm = comm;
		m->comm_version++;
	}
	if (f.pid != f.ppid && f.tid == f.pid) {
		/* a new process starts with a copy of its parent's maps; not
		 * one perf synthesized for a running task (FORK_EXEC flag):
		 * its own maps follow */
		thread *pl = pki_sy_thread_find(m, f.ppid);
		bool clone = !(ev->misc & PK_RECORD_MISC_FORK_EXEC);
		mapgroup *g = pki_sy_mg_clone(pl && clone ? pl->mg : NULL);
		if (!g)
			return -ENOMEM;
		g->version = m->next_version++; /* a fresh key for the lookup cache */
		pki_sy_mg_put(t->mg);
		t->mg = g;
	}
	return 0;
}

const char *pk_machine_comm(pk_machine *m, uint32_t pid, uint32_t tid)
{
	(void)pid; /* kept in the API: a thread is found by its tid alone */
	if (tid == (uint32_t)-1)
		return ":-1"; /* samples without a task, as perf shows them */
	thread *t = pki_sy_thread_find(m, tid);
	if (t && t->comm)
		return t->comm;
	if (tid == 0)
		return "swapper"; /* the idle task, as perf names it */
	/* a thread never named, even of a named process: ":<tid>", as perf
	 * 6.1 (its new threads take no name from their process) */
	snprintf(m->commbuf, sizeof(m->commbuf), ":%d", (int)tid);
	return m->commbuf;
}

int64_t pk_machine_pid_of(pk_machine *m, uint32_t tid)
{
	thread *t = pki_sy_thread_find(m, tid);
	return t ? (int64_t)t->pid : -1;
}

uint64_t pk_machine_comm_version(const pk_machine *m)
{
	return m->comm_version;
}

