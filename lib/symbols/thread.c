/* The machine's one thread table: tid -> (pid, parent, command name, the
 * process's maps), from COMM, FORK and MMAP records, as perf 6.1's machine
 * keeps it. Samples resolve against it (machine.c) and report --tasks /
 * --mmaps list it (tasks.c), so both follow the same rules:
 * - one live thread per tid; a FORK of a known tid replaces it (a new
 *   thread: the old one's name and maps are gone); the parent a FORK names
 *   is made anew when its pid is not the FORK's ppid;
 * - a thread keeps the pid it was made with (a record naming another pid
 *   changes it only when it was unknown, -1); a thread is made for any
 *   COMM, FORK (its parent too) or MMAP names, with its process leader;
 * - a thread shares its process leader's maps (refcounted), taken when it
 *   is made (a leader's are made on first use); a FORK into another
 *   process copies the parent's maps into the child's, unless perf
 *   synthesized it for a running task (FORK_EXEC): its own maps follow;
 * - the idle task "swapper" (0/0) is always there (machine.c makes it).
 * EXIT is ignored: samples may still follow. Names follow perf: a new
 * thread takes its parent's name when the parent was named, else it is
 * ":<tid>" (even when its process has a name); ":-1" for samples without a
 * task. The machine's comm version changes with every name set and every
 * thread made, replaced or given a pid: callers keep text made of names
 * and pids while it stays the same. */
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

static void thread_free(thread *t)
{
	free(t->comm);
	pki_sy_mg_put(t->mg);
	free(t);
}

/* Drops t from the table (perf's machine__remove_thread). */
static void thread_remove(pk_machine *m, thread *t)
{
	thread **p = &m->threads[t->tid % THREAD_HASH];
	while (*p && *p != t)
		p = &(*p)->next;
	if (*p)
		*p = t->next;
	if (m->last_thread == t)
		m->last_thread = NULL;
	m->nr_threads--;
	m->comm_version++;
	thread_free(t);
}

static thread *findnew(pk_machine *m, uint32_t pid, uint32_t tid);

/* t's maps, made when it has none yet (a leader's are made on first use). */
mapgroup *pki_sy_thread_maps(pk_machine *m, thread *t)
{
	if (!t->mg && (t->mg = pki_sy_mg_new()))
		t->mg->version = m->next_version++;
	return t->mg;
}

/* t's maps: its own for a process leader (or a thread of no known
 * process), made on first use; else its leader's (the leader made when
 * missing), shared. */
static int thread_init_maps(pk_machine *m, thread *t)
{
	mapgroup *g = NULL;
	if (t->pid != (uint32_t)-1 && t->pid != t->tid) {
		thread *leader = findnew(m, t->pid, t->pid);
		if (!leader || !(g = pki_sy_thread_maps(m, leader)))
			return -ENOMEM;
		pki_ref_get(&g->ref);
	}
	pki_sy_mg_put(t->mg);
	t->mg = g;
	return 0;
}

static thread *thread_new(pk_machine *m, uint32_t pid, uint32_t tid)
{
	thread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = pid;
	t->ppid = -1;
	t->gen = ++m->thread_gen;
	t->by_task = m->in_task_rec;
	t->next = m->threads[tid % THREAD_HASH];
	m->threads[tid % THREAD_HASH] = t;
	m->nr_threads++;
	m->comm_version++;
	if (thread_init_maps(m, t) < 0)
		return NULL; /* t stays in the table, without maps */
	return t;
}

/* perf's machine__findnew_thread: the live thread of tid, made when there
 * is none; its pid set only when it was not known. */
static thread *findnew(pk_machine *m, uint32_t pid, uint32_t tid)
{
	thread *t = pki_sy_thread_find(m, tid);
	if (!t)
		return thread_new(m, pid, tid);
	t->idle = false;
	t->by_task |= m->in_task_rec;
	if (pid == t->pid || pid == (uint32_t)-1 || t->pid != (uint32_t)-1)
		return t;
	t->pid = pid;
	m->comm_version++;
	if (pid == tid)
		return t; /* a leader keeps its maps */
	return thread_init_maps(m, t) < 0 ? NULL : t;
}

thread *pki_sy_thread_findnew(pk_machine *m, uint32_t pid, uint32_t tid)
{
	return findnew(m, pid, tid);
}

int pki_sy_idle_thread(pk_machine *m)
{
	thread *t = thread_new(m, 0, 0);
	if (!t || !(t->comm = strdup("swapper")))
		return -ENOMEM;
	t->idle = true;
	t->by_task = true;
	return 0;
}

void pki_sy_threads_free(pk_machine *m)
{
	for (size_t i = 0; i < THREAD_HASH; i++) {
		thread *t = m->threads[i];
		while (t) {
			thread *n = t->next;
			thread_free(t);
			t = n;
		}
	}
}

static int set_comm(pk_machine *m, thread *t, const char *comm)
{
	char *s = strdup(comm);
	if (!s)
		return -ENOMEM;
	free(t->comm);
	t->comm = s;
	m->comm_version++;
	return 0;
}

int pki_sy_on_comm(pk_machine *m, const pk_pd_event *ev)
{
	pk_pd_rec_comm c;
	if (pk_pd_rec_comm_parse(ev, &c, NULL) < 0)
		return 0;
	m->in_task_rec = true;
	thread *t = findnew(m, c.pid, c.tid);
	m->in_task_rec = false;
	return t ? set_comm(m, t, c.comm) : -ENOMEM;
}

/* The parent a FORK names: made anew when the thread of its tid belongs
 * to another process than the FORK's ppid. */
static thread *fork_parent(pk_machine *m, const pk_pd_rec_fork *f)
{
	thread *p = findnew(m, f->ppid, f->ptid);
	if (p && p->pid != f->ppid) {
		thread_remove(m, p);
		p = findnew(m, f->ppid, f->ptid);
	}
	return p;
}

static int on_fork(pk_machine *m, const pk_pd_event *ev, const pk_pd_rec_fork *f)
{
	thread *old = pki_sy_thread_find(m, f->tid);
	uint64_t old_gen = old ? old->gen : 0;
	thread *p = fork_parent(m, f);
	if (!p)
		return -ENOMEM;
	uint32_t ptid = p->tid;
	char *comm = p->comm ? strdup(p->comm) : NULL;
	if (p->comm && !comm)
		return -ENOMEM;
	/* the thread of tid before the FORK, unless the parent's handling
	 * replaced it already */
	old = pki_sy_thread_find(m, f->tid);
	if (old && old->gen == old_gen)
		thread_remove(m, old);
	thread *t = findnew(m, f->pid, f->tid);
	p = pki_sy_thread_find(m, ptid);
	if (!t || !p) {
		free(comm);
		return -ENOMEM;
	}
	if (comm) {
		free(t->comm);
		t->comm = comm;
		m->comm_version++;
	}
	t->ppid = (int32_t)p->tid;
	if (t->pid == p->pid || t->mg == p->mg || (ev->misc & PK_RECORD_MISC_FORK_EXEC) ||
	    !p->mg || !p->mg->nr)
		return 0;
	/* a new process starts with a copy of its parent's maps */
	return pki_sy_thread_maps(m, t) ? pki_sy_mg_copy(m, t->mg, p->mg) : -ENOMEM;
}

int pki_sy_on_fork(pk_machine *m, const pk_pd_event *ev)
{
	pk_pd_rec_fork f;
	if (pk_pd_rec_fork_parse(ev, &f, NULL) < 0)
		return 0;
	if (ev->type == PERF_RECORD_EXIT)
		return 0; /* samples may still follow; keep the thread */
	m->in_task_rec = true;
	int ret = on_fork(m, ev, &f);
	m->in_task_rec = false;
	return ret;
}

const char *pk_machine_comm(pk_machine *m, uint32_t pid, uint32_t tid)
{
	(void)pid; /* kept in the API: a thread is found by its tid alone */
	if (tid == (uint32_t)-1)
		return ":-1"; /* samples without a task, as perf shows them */
	thread *t = pki_sy_thread_find(m, tid);
	if (t && t->comm)
		return t->comm;
	/* a thread never named, even of a named process: ":<tid>", as perf
	 * 6.1 (its new threads take no name from their process) */
	snprintf(m->commbuf, sizeof(m->commbuf), ":%d", (int)tid);
	return m->commbuf;
}

int64_t pk_machine_pid_of(pk_machine *m, uint32_t tid)
{
	thread *t = pki_sy_thread_find(m, tid);
	return t && !t->idle ? (int64_t)t->pid : -1;
}

uint64_t pk_machine_comm_version(const pk_machine *m)
{
	return m->comm_version;
}
