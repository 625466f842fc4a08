/* The machine's task table as recorded: the tasks and maps perf's machine
 * keeps when it only takes COMM, FORK and EXIT (and MMAP/MMAP2 when maps
 * are kept), which perf report --tasks / --mmaps prints. Kept only when
 * asked (pk_machine_keep_tasks); read with pk_machine_task_at /
 * pk_machine_task_find / pk_machine_task_maps.
 *
 * It follows perf's thread table where the machine's lookup view (thread.c,
 * maps.c) follows what samples resolve against, and the two differ:
 * - one live task per tid: a FORK of a known tid replaces it (a new task,
 *   its comm ":tid" unless the parent has one); a task keeps the pid it was
 *   made with; the parent named by a FORK is made anew when its pid is not
 *   the FORK's ppid; a task is made for an MMAP's tid (its process leader
 *   with it), also for pid -1;
 * - maps keep what was recorded: pgoff as written (the lookup view rewrites
 *   fileless offsets; a vdso's is 0 in both, as perf keeps it), prot,
 *   flags, inode; a zero-length map too;
 *   kernel and guest-kernel MMAPs are not kept;
 * - a FORK into another process appends copies of the parent's maps
 *   (unless perf synthesized it for a running task, FORK_EXEC), a new map
 *   cutting the parts of the maps it overlaps;
 * - the idle task "swapper" (0/0) is always there.
 * Invariants: tasks live in one array (dead ones stay, unlinked from the
 * hash); a task's maps index the process's map list, shared by its threads;
 * the table order (tid modulo 256, then tid: perf 6.1's thread tables) is
 * rebuilt after any change, on the first read. */
#include "sy_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <pmukit/util.h>

#define TK_HASH 4096
#define TK_TABLE 256 /* perf 6.1's thread tables: tids modulo 256 */

typedef struct tk_maps {
	pk_task_map *v;
	size_t n, cap;
} tk_maps;

typedef struct tk_task {
	pk_task pub;                 /* first: a pk_task * is a tk_task * */
	bool comm_set, live;
	size_t maps;                 /* index in tk->maps */
	long hnext;                  /* the next live task of the hash bucket, -1 */
} tk_task;

struct pki_sy_tasks {
	tk_task *t;
	size_t n, cap;
	tk_maps *maps;
	size_t nmaps, cap_maps;
	long hash[TK_HASH];
	bool with_maps;
	long *order;                 /* live tasks in table order (NULL: to build) */
	size_t nr_order;
};

static size_t bucket(int32_t tid)
{
	return (uint32_t)tid % TK_HASH;
}

static tk_task *find(pki_sy_tasks *tk, int32_t tid)
{
	for (long i = tk->hash[bucket(tid)]; i >= 0; i = tk->t[i].hnext)
		if (tk->t[i].pub.tid == tid)
			return &tk->t[i];
	return NULL;
}

static void unlink_task(pki_sy_tasks *tk, tk_task *x)
{
	long *p = &tk->hash[bucket(x->pub.tid)];
	while (*p >= 0 && &tk->t[*p] != x)
		p = &tk->t[*p].hnext;
	if (*p >= 0)
		*p = x->hnext;
	x->live = false;
}

static long new_maps(pki_sy_tasks *tk)
{
	if (pk_grow(&tk->maps, &tk->cap_maps, tk->nmaps + 1, sizeof(*tk->maps)) < 0)
		return -1;
	memset(&tk->maps[tk->nmaps], 0, sizeof(tk->maps[0]));
	return (long)tk->nmaps++;
}

static int set_comm(tk_task *x, const char *comm)
{
	char *c = strdup(comm);
	if (!c)
		return -ENOMEM;
	free(x->pub.comm);
	x->pub.comm = c;
	return 0;
}

/* A new live task (pointers into tk->t change). */
static tk_task *add_task(pki_sy_tasks *tk, int32_t pid, int32_t tid)
{
	if (pk_grow(&tk->t, &tk->cap, tk->n + 1, sizeof(*tk->t)) < 0)
		return NULL;
	long maps = new_maps(tk);
	if (maps < 0)
		return NULL;
	tk_task *x = &tk->t[tk->n];
	memset(x, 0, sizeof(*x));
	char dflt[16];
	snprintf(dflt, sizeof(dflt), ":%d", (int)tid);
	if (set_comm(x, dflt))
		return NULL;
	x->pub.pid = pid;
	x->pub.tid = tid;
	x->pub.ppid = -1;
	x->live = true;
	x->maps = (size_t)maps;
	x->hnext = tk->hash[bucket(tid)];
	tk->hash[bucket(tid)] = (long)tk->n;
	tk->n++;
	return x;
}

pki_sy_tasks *pki_sy_tasks_new(bool with_maps)
{
	pki_sy_tasks *tk = calloc(1, sizeof(*tk));
	if (!tk)
		return NULL;
	tk->with_maps = with_maps;
	for (size_t i = 0; i < TK_HASH; i++)
		tk->hash[i] = -1;
	tk_task *x = add_task(tk, 0, 0);
	if (!x || set_comm(x, "swapper")) {
		pki_sy_tasks_free(tk);
		return NULL;
	}
	x->comm_set = true;
	return tk;
}

void pki_sy_tasks_free(pki_sy_tasks *tk)
{
	if (!tk)
		return;
	for (size_t i = 0; i < tk->n; i++)
		free(tk->t[i].pub.comm);
	for (size_t i = 0; i < tk->nmaps; i++) {
		for (size_t k = 0; k < tk->maps[i].n; k++)
			free(tk->maps[i].v[k].name);
		free(tk->maps[i].v);
	}
	free(tk->maps);
	free(tk->t);
	free(tk->order);
	free(tk);
}

/* perf's findnew: the live task of tid, made when there is none; a
 * thread shares its process leader's maps (the leader made if needed),
 * also when its pid was not known (-1) until now. */
static tk_task *findnew(pki_sy_tasks *tk, int32_t pid, int32_t tid)
{
	tk_task *x = find(tk, tid);
	if (x && (pid == -1 || pid == x->pub.pid || x->pub.pid != -1))
		return x;
	if (x)
		x->pub.pid = pid;
	else if (!(x = add_task(tk, pid, tid)))
		return NULL;
	if (pid == -1 || pid == tid)
		return x;
	size_t at = (size_t)(x - tk->t);
	tk_task *leader = findnew(tk, pid, pid);
	if (!leader)
		return NULL;
	tk->t[at].maps = leader->maps;
	return &tk->t[at];
}

static int copy_maps(pki_sy_tasks *tk, size_t to, size_t from)
{
	tk_maps *src = &tk->maps[from], *dst = &tk->maps[to];
	if (!src->n || to == from)
		return 0;
	if (pk_grow(&dst->v, &dst->cap, dst->n + src->n, sizeof(*dst->v)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++) {
		pk_task_map m = src->v[i];
		if (!(m.name = strdup(m.name)))
			return -ENOMEM;
		dst->v[dst->n++] = m;
	}
	return 0;
}

static int on_fork(pki_sy_tasks *tk, const pk_pd_event *ev)
{
	pk_pd_rec_fork f;
	if (pk_pd_rec_fork_parse(ev, &f, NULL) < 0)
		return 0;
	tk_task *old = find(tk, (int32_t)f.tid);
	long old_at = old ? old - tk->t : -1;
	tk_task *parent = findnew(tk, (int32_t)f.ppid, (int32_t)f.ptid);
	if (!parent)
		return -ENOMEM;
	if (parent->pub.pid != (int32_t)f.ppid) { /* not the parent after all */
		unlink_task(tk, parent);
		if (!(parent = findnew(tk, (int32_t)f.ppid, (int32_t)f.ptid)))
			return -ENOMEM;
	}
	size_t p = (size_t)(parent - tk->t);
	if (old_at >= 0 && tk->t[old_at].live && tk->t[old_at].pub.tid == (int32_t)f.tid)
		unlink_task(tk, &tk->t[old_at]);
	tk_task *x = findnew(tk, (int32_t)f.pid, (int32_t)f.tid);
	if (!x)
		return -ENOMEM;
	parent = &tk->t[p];
	if (parent->comm_set && set_comm(x, parent->pub.comm))
		return -ENOMEM;
	x->comm_set = x->comm_set || parent->comm_set;
	x->pub.ppid = parent->pub.tid;
	if (x->pub.pid == parent->pub.pid || x->maps == parent->maps ||
	    (ev->misc & PK_RECORD_MISC_FORK_EXEC))
		return 0;
	return copy_maps(tk, x->maps, parent->maps);
}

/* Room for two more maps in ms. */
static int reserve2(tk_maps *ms)
{
	return pk_grow(&ms->v, &ms->cap, ms->n + 2, sizeof(*ms->v)) < 0 ? -ENOMEM : 0;
}

/* Cuts from ms what [start, end) overlaps. */
static int cut_maps(tk_maps *ms, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < ms->n; i++) {
		pk_task_map *o = &ms->v[i];
		if (o->end <= start || o->start >= end)
			continue;
		if (o->start < start && o->end > end) { /* split in two */
			pk_task_map after = *o;
			if (!(after.name = strdup(o->name)))
				return -ENOMEM;
			after.pgoff += end - o->start;
			after.start = end;
			o->end = start;
			memmove(o + 2, o + 1, (ms->n - i - 1) * sizeof(*o));
			o[1] = after;
			ms->n++;
			return 0;
		}
		if (o->start < start) {
			o->end = start;
		} else if (o->end > end) {
			o->pgoff += end - o->start;
			o->start = end;
		} else {
			free(o->name);
			memmove(o, o + 1, (ms->n - i - 1) * sizeof(*o));
			ms->n--;
			i--;
		}
	}
	return 0;
}

/* Inserts m (its name copied) into the sorted maps, cutting what it overlaps. */
static int insert_map(tk_maps *ms, pk_task_map m)
{
	if (reserve2(ms) || cut_maps(ms, m.start, m.end))
		return -ENOMEM;
	if (!(m.name = strdup(m.name)))
		return -ENOMEM;
	size_t at = 0;
	while (at < ms->n && ms->v[at].start < m.start)
		at++;
	memmove(ms->v + at + 1, ms->v + at, (ms->n - at) * sizeof(*ms->v));
	ms->v[at] = m;
	ms->n++;
	return 0;
}

static int on_mmap(pki_sy_tasks *tk, const pk_pd_event *ev)
{
	unsigned mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	pk_pd_rec_mmap r;
	if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    pk_pd_rec_mmap_parse(ev, &r, NULL) < 0)
		return 0;
	tk_task *x = findnew(tk, (int32_t)r.pid, (int32_t)r.tid);
	if (!x)
		return -ENOMEM;
	pk_task_map m = {.start = r.addr, .end = r.addr + r.len, .pgoff = pki_sy_mmap_pgoff(&r)};
	if (ev->type == PERF_RECORD_MMAP2) {
		m.prot = r.prot;
		m.flags = r.flags;
		m.ino = r.has_build_id ? 0 : r.ino;
	} else {
		m.prot = ev->misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PROT_EXEC;
	}
	char jit[64];
	m.name = (char *)(uintptr_t)pk_mmap_dso_name(ev, &r, jit, sizeof(jit), NULL);
	return insert_map(&tk->maps[x->maps], m);
}

static int on_comm(pki_sy_tasks *tk, const pk_pd_event *ev)
{
	pk_pd_rec_comm c;
	if (pk_pd_rec_comm_parse(ev, &c, NULL) < 0)
		return 0;
	tk_task *x = findnew(tk, (int32_t)c.pid, (int32_t)c.tid);
	if (!x || set_comm(x, c.comm))
		return -ENOMEM;
	x->comm_set = true;
	return 0;
}

int pki_sy_tasks_event(pki_sy_tasks *tk, const pk_pd_event *ev)
{
	free(tk->order);
	tk->order = NULL;
	switch (ev->type) {
	case PERF_RECORD_COMM:
		return on_comm(tk, ev);
	case PERF_RECORD_FORK:
		return on_fork(tk, ev);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return tk->with_maps ? on_mmap(tk, ev) : 0;
	default:
		return 0;
	}
}

static int cmp_table(const void *a, const void *b, void *arg)
{
	const tk_task *t = arg;
	const pk_task *x = &t[*(const long *)a].pub, *y = &t[*(const long *)b].pub;
	uint32_t bx = (uint32_t)x->tid % TK_TABLE, by = (uint32_t)y->tid % TK_TABLE;
	if (bx != by)
		return bx < by ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The live tasks in table order, each told its place (pk_task.idx). */
static int build_order(pki_sy_tasks *tk)
{
	if (tk->order)
		return 0;
	if (!(tk->order = malloc((tk->n ? tk->n : 1) * sizeof(*tk->order))))
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < tk->n; i++)
		if (tk->t[i].live)
			tk->order[n++] = (long)i;
	qsort_r(tk->order, n, sizeof(*tk->order), cmp_table, tk->t);
	for (size_t k = 0; k < n; k++)
		tk->t[tk->order[k]].pub.idx = k;
	tk->nr_order = n;
	return 0;
}

int pk_machine_keep_tasks(pk_machine *m, bool with_maps)
{
	pki_sy_tasks_free(m->tasks);
	m->tasks = pki_sy_tasks_new(with_maps);
	return m->tasks ? 0 : -ENOMEM;
}

int pk_machine_tasks(pk_machine *m, size_t *n)
{
	*n = 0;
	if (!m->tasks)
		return -EINVAL;
	if (build_order(m->tasks) < 0)
		return -ENOMEM;
	*n = m->tasks->nr_order;
	return 0;
}

const pk_task *pk_machine_task_at(pk_machine *m, size_t i)
{
	size_t n;
	if (pk_machine_tasks(m, &n) < 0 || i >= n)
		return NULL;
	return &m->tasks->t[m->tasks->order[i]].pub;
}

const pk_task *pk_machine_task_find(pk_machine *m, int32_t tid)
{
	tk_task *x = m->tasks ? find(m->tasks, tid) : NULL;
	return x ? &x->pub : NULL;
}

const pk_task_map *pk_machine_task_maps(pk_machine *m, const pk_task *t, size_t *n)
{
	const tk_task *x = (const tk_task *)t;
	const tk_maps *ms = m->tasks ? &m->tasks->maps[x->maps] : NULL;
	*n = ms ? ms->n : 0;
	return ms ? ms->v : NULL;
}
