/* Thread maps: the tasks a counting session follows (-p, -t, a command).
 * Which tasks exist, their threads and names are host facts: they come from
 * the kernel the map was built for (pk_kernel host.tasks/task), the real
 * one unless told. */
#include <pmukit/counting.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "core/refcount.h"
#include "core/util.h"

struct pk_threadmap {
	pki_ref ref;
	int nr;
	pid_t *tids;
	char **comms;              /* lazily asked of k (host.task) */
	const pk_kernel *k;        /* NULL: the real kernel */
};

static pk_threadmap *threadmap_alloc(int nr)
{
	pk_threadmap *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	pki_ref_init(&m->ref);
	m->nr = nr;
	m->tids = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*m->tids));
	m->comms = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*m->comms));
	if (!m->tids || !m->comms) {
		free(m->tids);
		free(m->comms);
		free(m);
		return NULL;
	}
	return m;
}

pk_threadmap *pk_threadmap_new(const pid_t *tids, int nr)
{
	pk_threadmap *m = threadmap_alloc(nr);
	if (m && nr > 0)
		memcpy(m->tids, tids, (size_t)nr * sizeof(*tids));
	return m;
}

pk_threadmap *pk_threadmap_any(void)
{
	pid_t any = -1;
	return pk_threadmap_new(&any, 1);
}

pk_threadmap *pk_threadmap_get(pk_threadmap *m)
{
	if (m)
		pki_ref_get(&m->ref);
	return m;
}

void pk_threadmap_put(pk_threadmap *m)
{
	if (!m || !pki_ref_put(&m->ref))
		return;
	for (int i = 0; i < m->nr; i++)
		free(m->comms[i]);
	free(m->comms);
	free(m->tids);
	free(m);
}

int pk_threadmap_nr(const pk_threadmap *m)
{
	return m ? m->nr : 0;
}

pid_t pk_threadmap_tid(const pk_threadmap *m, int idx)
{
	return (m && idx >= 0 && idx < m->nr) ? m->tids[idx] : -1;
}

const char *pk_threadmap_comm(pk_threadmap *m, int idx)
{
	if (!m || idx < 0 || idx >= m->nr)
		return "?";
	if (!m->comms[idx]) {
		char buf[sizeof(((pk_host_task *)0)->comm)];
		m->comms[idx] = strdup(pk_host_comm(m->k, m->tids[idx], buf, sizeof(buf)));
	}
	return m->comms[idx] ? m->comms[idx] : "?";
}

/* A growable list of tids while building a map. */
typedef struct tidlist {
	pid_t *v;
	size_t nr, cap;
} tidlist;

static int tidlist_push(tidlist *l, pid_t tid)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i] == tid)
			return 0; /* "-p 1,1" counts once */
	if (pki_grow(&l->v, &l->cap, l->nr + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->nr++] = tid;
	return 0;
}

static int push_tid(void *arg, pid_t tid)
{
	return tidlist_push(arg, tid);
}

/* Every thread of process pid, sorted by tid. */
static int add_process_threads(const pk_kernel *k, tidlist *l, pid_t pid, pk_error *err)
{
	size_t first = l->nr;
	int r = k->ops->host.tasks(k, pid, push_tid, l);
	if (r == -ENOMEM)
		return pk_err(err, r, "out of memory");
	if (r < 0)
		return pk_err(err, r, "process %d: %s", (int)pid,
			      r == -ESRCH ? "no such process" : strerror(-r));
	if (l->nr == first) /* exited while we looked */
		return pk_err(err, -ESRCH, "process %d: no such process", (int)pid);
	/* listed in no particular order; tids in order make per-thread output stable */
	for (size_t i = first + 1; i < l->nr; i++)
		for (size_t j = i; j > first && l->v[j - 1] > l->v[j]; j--) {
			pid_t t = l->v[j];
			l->v[j] = l->v[j - 1];
			l->v[j - 1] = t;
		}
	return 0;
}

static int add_thread(const pk_kernel *k, tidlist *l, pid_t tid, pk_error *err)
{
	pk_host_task t;
	if (k->ops->host.task(k, tid, &t) < 0)
		return pk_err(err, -ESRCH, "thread %d: no such thread", (int)tid);
	return tidlist_push(l, tid) < 0 ? pk_err(err, -ENOMEM, "out of memory") : 0;
}

static pk_threadmap *threadmap_from_list(const pk_kernel *k, const char *list, bool processes,
					 pk_error *err)
{
	const pk_kernel *kk = k ? k : pk_kernel_linux();
	const char *what = processes ? "process id" : "thread id";
	tidlist l = {0};
	const char *p = list ? list : "";
	int r = 0;
	if (!*pki_lskip(p)) {
		pk_err_at(err, -EINVAL, what, p, 0, "empty %s list", what);
		return NULL;
	}
	while (*p && r == 0) {
		const char *start = pki_lskip(p);
		uint64_t v;
		const char *end;
		/* perf accepts "1,2" and "1 2"; ids are decimal only: perf 6.1
		 * refuses "-p 0x10" ("Problems finding threads of monitor") */
		if (!isdigit((unsigned char)start[0]) || !strncasecmp(start, "0x", 2) ||
		    pki_parse_u64(start, &v, &end) < 0 || v == 0 || v > INT32_MAX ||
		    (*end && *end != ',' && *end != ' ')) {
			size_t len = strcspn(start, ", ");
			r = pk_err_at(err, -EINVAL, what, list, (long)(start - list),
				      "'%.*s' is not a %s", (int)len, start, what);
			break;
		}
		r = processes ? add_process_threads(kk, &l, (pid_t)v, err)
			      : add_thread(kk, &l, (pid_t)v, err);
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	pk_threadmap *m = NULL;
	if (r == 0) {
		m = pk_threadmap_new(l.v, (int)l.nr);
		if (!m)
			pk_err(err, -ENOMEM, "out of memory");
		else
			m->k = k;
	}
	free(l.v);
	return m;
}

pk_threadmap *pk_threadmap_every_task(const pk_kernel *k, pk_error *err)
{
	const pk_kernel *kk = k ? k : pk_kernel_linux();
	tidlist l = {0};
	int r = kk->ops->host.tasks(kk, 0, push_tid, &l);
	pk_threadmap *m = r < 0 || !l.nr ? NULL : pk_threadmap_new(l.v, (int)l.nr);
	free(l.v);
	if (r < 0 && r != -ENOMEM)
		pk_err(err, r, "cannot list the tasks: %s", strerror(-r));
	else if (r >= 0 && !l.nr)
		pk_err(err, -ESRCH, "no task to count");
	else if (!m)
		pk_err(err, -ENOMEM, "out of memory");
	else
		m->k = k;
	return m;
}

pk_threadmap *pk_threadmap_from_pids(const pk_kernel *k, const char *list, pk_error *err)
{
	return threadmap_from_list(k, list, true, err);
}

pk_threadmap *pk_threadmap_from_tids(const pk_kernel *k, const char *list, pk_error *err)
{
	return threadmap_from_list(k, list, false, err);
}
