/* The machine's thread table listed as perf report --tasks / --mmaps print
 * it: its live threads in perf 6.1's table order (tid modulo 256, then
 * tid), each with its process's maps as recorded. Only a listing over
 * thread.c's table (the one samples resolve against, which follows perf's
 * thread table: a FORK of a known tid replaces the thread, a thread keeps
 * the pid it was made with, a FORK's parent of another process is made
 * anew, threads are made for MMAP records, the idle task swapper is there)
 * and maps.c's maps (offsets, prot, flags and inodes as recorded, zero-length
 * maps, a FORK's copy, a new map cutting those it overlaps).
 *
 * perf report --tasks without --mmaps takes no MMAP record: the threads
 * only MMAP records made are not listed then.
 *
 * Where pmukit's lookups still part from perf's (the table is one, the
 * questions differ):
 * - a sample's maps are found by its pid (the leader's; the lookup API has
 *   no tid), perf's by its tid's thread: they differ only when a thread's
 *   pid is not the sample's;
 * - a user-mode MMAP of pid -1 also goes to the kernel's maps for lookups;
 *   a guest kernel's MMAP to its pid's known process (guests are not
 *   modelled), never to the table;
 * - pk_machine_pid_of is -1 for the swapper until a record names it (perf
 *   would answer 0; unverified on SPE and Intel PT files, kept);
 * - a FORK's copy into a child that has maps already cuts them (perf keeps
 *   both, overlapping).
 * Invariants: the listing (order, pk_task views and their ":<tid>" names,
 * maps copied out) is made on the first read after a change and valid
 * until the next record; it holds no thread (threads are the table's), each
 * listed thread knows its place in it (thread.idx). */
#include "sy_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/util.h>

#define TK_TABLE 256 /* perf 6.1's thread tables: tids modulo 256 */

struct pki_sy_tasks {
	bool with_maps;
	bool stale;                  /* a record came since the listing was made */
	uint64_t listing;            /* the listing's number (mapgroup.listed) */
	thread **order;              /* listed threads in table order */
	pk_task *pub;                /* their views, in the same order */
	char (*dflt)[16];            /* their ":<tid>" names */
	size_t nr_order, cap_order, cap_pub, cap_dflt;
	pk_task_map *maps;           /* the listed process maps, group after group */
	size_t nr_maps, cap_maps;
};

void pki_sy_tasks_free(pki_sy_tasks *tk)
{
	if (!tk)
		return;
	free(tk->order);
	free(tk->pub);
	free(tk->dflt);
	free(tk->maps);
	free(tk);
}

void pki_sy_tasks_changed(pki_sy_tasks *tk)
{
	if (tk)
		tk->stale = true;
}

static int cmp_table(const void *a, const void *b)
{
	const thread *x = *(thread *const *)a, *y = *(thread *const *)b;
	uint32_t bx = x->tid % TK_TABLE, by = y->tid % TK_TABLE;
	if (bx != by)
		return bx < by ? -1 : 1;
	int32_t tx = (int32_t)x->tid, ty = (int32_t)y->tid;
	return tx < ty ? -1 : tx > ty;
}

/* Fills the view of the idx-th listed thread t. */
static void list_task(pki_sy_tasks *tk, thread *t, size_t idx)
{
	snprintf(tk->dflt[idx], sizeof(tk->dflt[idx]), ":%d", (int)t->tid);
	tk->pub[idx] = (pk_task){.pid = (int32_t)t->pid, .tid = (int32_t)t->tid,
				 .ppid = t->ppid, .comm = t->comm ? t->comm : tk->dflt[idx],
				 .idx = idx};
	t->idx = (uint32_t)idx;
}

/* g's maps copied out once per listing (groups are shared by threads). */
static int list_maps(pki_sy_tasks *tk, mapgroup *g)
{
	if (!g || g->listed == tk->listing)
		return 0;
	if (pk_grow(&tk->maps, &tk->cap_maps, tk->nr_maps + g->nr, sizeof(*tk->maps)) < 0)
		return -ENOMEM;
	g->listed = tk->listing;
	g->listed_at = tk->nr_maps;
	for (size_t i = 0; i < g->nr; i++) {
		const map *mp = &g->maps[i];
		tk->maps[tk->nr_maps++] = (pk_task_map){mp->start, mp->end, mp->pgoff, mp->ino,
							mp->prot & ~MAP_FILELESS, mp->flags,
							mp->dso->name};
	}
	return 0;
}

/* Whether t is listed: report --tasks without --mmaps takes no MMAP. */
static bool listed(const pki_sy_tasks *tk, const thread *t)
{
	return tk->with_maps || t->by_task;
}

/* The listing, made again when a record came since. */
static int build(pk_machine *m)
{
	pki_sy_tasks *tk = m->tasks;
	if (!tk->stale)
		return 0;
	size_t cap = m->nr_threads + 1;
	if (pk_grow(&tk->order, &tk->cap_order, cap, sizeof(*tk->order)) < 0 ||
	    pk_grow(&tk->pub, &tk->cap_pub, cap, sizeof(*tk->pub)) < 0 ||
	    pk_grow(&tk->dflt, &tk->cap_dflt, cap, sizeof(*tk->dflt)) < 0)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < THREAD_HASH; i++)
		for (thread *t = m->threads[i]; t; t = t->next)
			if (listed(tk, t))
				tk->order[n++] = t;
	qsort(tk->order, n, sizeof(*tk->order), cmp_table);
	tk->listing++;
	tk->nr_maps = 0;
	for (size_t k = 0; k < n; k++) {
		list_task(tk, tk->order[k], k);
		if (tk->with_maps && list_maps(tk, tk->order[k]->mg) < 0)
			return -ENOMEM;
	}
	tk->nr_order = n;
	tk->stale = false;
	return 0;
}

int pk_machine_keep_tasks(pk_machine *m, bool with_maps)
{
	if (!m->tasks && !(m->tasks = calloc(1, sizeof(*m->tasks))))
		return -ENOMEM;
	m->tasks->with_maps = with_maps;
	m->tasks->stale = true;
	return 0;
}

int pk_machine_tasks(pk_machine *m, size_t *n)
{
	*n = 0;
	if (!m->tasks)
		return -EINVAL;
	if (build(m) < 0)
		return -ENOMEM;
	*n = m->tasks->nr_order;
	return 0;
}

const pk_task *pk_machine_task_at(pk_machine *m, size_t i)
{
	size_t n;
	if (pk_machine_tasks(m, &n) < 0 || i >= n)
		return NULL;
	return &m->tasks->pub[i];
}

const pk_task *pk_machine_task_find(pk_machine *m, int32_t tid)
{
	size_t n;
	if (pk_machine_tasks(m, &n) < 0)
		return NULL;
	thread *t = pki_sy_thread_find(m, (uint32_t)tid);
	return t && listed(m->tasks, t) ? &m->tasks->pub[t->idx] : NULL;
}

const pk_task_map *pk_machine_task_maps(pk_machine *m, const pk_task *t, size_t *n)
{
	size_t nt;
	*n = 0;
	if (pk_machine_tasks(m, &nt) < 0 || !m->tasks->with_maps)
		return NULL;
	const thread *x = pki_sy_thread_find(m, (uint32_t)t->tid);
	if (!x || !x->mg)
		return NULL;
	*n = x->mg->nr;
	return m->tasks->maps + x->mg->listed_at;
}

/* ---- the tree perf report --tasks prints (pk_machine_task_tree) ---- */

/* A task's place while the tree is made: its children's list. */
typedef struct tree_node {
	long child, last, next;      /* -1 for none */
	bool placed;
} tree_node;

static void add_child(tree_node *t, long parent, long child)
{
	t[child].next = -1;
	if (t[parent].last >= 0)
		t[t[parent].last].next = child;
	else
		t[parent].child = child;
	t[parent].last = child;
	t[child].placed = true;
}

/* Places task i and its ancestors not yet placed; *root and *root_last
 * hold the list of tops. -ESRCH when a parent is not in the table. */
static int place(pk_machine *m, tree_node *nd, long i, long *root, long *root_last)
{
	while (i >= 0 && !nd[i].placed) {
		const pk_task *x = pk_machine_task_at(m, (size_t)i);
		if (x->ppid == -1) { /* the top of a tree */
			nd[i].placed = true;
			nd[i].next = -1;
			if (*root_last >= 0)
				nd[*root_last].next = i;
			else
				*root = i;
			*root_last = i;
			break;
		}
		const pk_task *p = pk_machine_task_find(m, x->ppid);
		if (!p)
			return -ESRCH;
		add_child(nd, (long)p->idx, i);
		i = (long)p->idx;
	}
	return 0;
}

/* Task i and the tasks below it into out from *k, depth first. */
static void walk(const tree_node *nd, long i, int level, pk_task_place *out, size_t *k)
{
	out[(*k)++] = (pk_task_place){(size_t)i, level};
	for (long c = nd[i].child; c >= 0; c = nd[c].next)
		walk(nd, c, level + 1, out, k);
}

int pk_machine_task_tree(pk_machine *m, pk_task_place **out, size_t *n)
{
	*out = NULL;
	int r = pk_machine_tasks(m, n);
	tree_node *nd = r < 0 ? NULL : malloc((*n ? *n : 1) * sizeof(*nd));
	pk_task_place *v = nd ? malloc((*n ? *n : 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(nd);
		return r < 0 ? r : -ENOMEM;
	}
	for (size_t i = 0; i < *n; i++)
		nd[i] = (tree_node){-1, -1, -1, false};
	long root = -1, root_last = -1;
	for (size_t i = 0; i < *n && r == 0; i++)
		r = place(m, nd, (long)i, &root, &root_last);
	size_t k = 0;
	for (long i = root; r == 0 && i >= 0; i = nd[i].next)
		walk(nd, i, 0, v, &k);
	free(nd);
	if (r < 0) {
		free(v);
		return r;
	}
	*out = v;
	*n = k;
	return 0;
}
