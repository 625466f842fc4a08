/* pmukit report --stats, --tasks, --mmaps, -T: the views of a perf.data file
 * other than the table, as perf report 6.1 prints them.
 *
 * --stats: the file's records by type (the reader's counts, TOTAL first,
 * each with its share), then per event its samples and lost samples.
 * --tasks: a table of tasks kept as perf's machine keeps it when it only
 * takes COMM, FORK and EXIT (and MMAP/MMAP2 for --mmaps): one live task per
 * tid (a FORK of a known tid replaces it; a thread's process leader is made
 * with it), its parent's tid from FORK (-1 without one), its comm (":tid"
 * until it has one; a FORK copies the parent's), and its process's maps:
 * shared by the threads of a process, copied by a FORK into another process
 * unless perf synthesized that FORK for a running task, a new map cutting
 * the parts of the maps it overlaps. The idle task "swapper" (0/0) is
 * always there. The tree is printed from the tasks in perf's table order
 * (by tid modulo 256, then tid): each task not yet placed goes under its
 * parent, up to a task without one, which starts a tree of its own.
 * -T: the values of PERF_RECORD_READ records (written at a thread's exit
 * under perf record -s) added up per thread and event, threads and events
 * in the order first seen, after the table. */
#include "report_tasks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pmukit/util.h>

#define RT_HASH 4096
#define RT_TABLE 256 /* perf 6.1's thread tables: tids modulo 256 */

typedef struct rt_map {
	uint64_t start, end, pgoff, ino;
	uint32_t prot, flags;
	char *name;
} rt_map;

typedef struct rt_maps {
	rt_map *v;
	size_t n, cap;
} rt_maps;

typedef struct rt_task {
	int32_t pid, tid, ppid;
	char *comm;
	bool comm_set, live, placed;
	size_t maps;                 /* index in rt->maps */
	long hnext;                  /* the next live task of the hash bucket, -1 */
	long child, last, next;      /* the printed tree, -1 for none */
} rt_task;

typedef struct report_tasks {
	rt_task *t;
	size_t n, cap;
	rt_maps *maps;
	size_t nmaps, cap_maps;
	long hash[RT_HASH];
	bool with_maps;
	bool failed;                 /* out of memory: reported at the end */
} report_tasks;

static report_tasks *report_tasks_new(bool with_maps)
{
	report_tasks *rt = calloc(1, sizeof(*rt));
	if (!rt)
		return NULL;
	rt->with_maps = with_maps;
	for (size_t i = 0; i < RT_HASH; i++)
		rt->hash[i] = -1;
	return rt;
}

static void maps_free(rt_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
}

static void report_tasks_free(report_tasks *rt)
{
	if (!rt)
		return;
	for (size_t i = 0; i < rt->n; i++)
		free(rt->t[i].comm);
	for (size_t i = 0; i < rt->nmaps; i++)
		maps_free(&rt->maps[i]);
	free(rt->maps);
	free(rt->t);
	free(rt);
}

static size_t bucket(int32_t tid)
{
	return (uint32_t)tid % RT_HASH;
}

static rt_task *find(report_tasks *rt, int32_t tid)
{
	for (long i = rt->hash[bucket(tid)]; i >= 0; i = rt->t[i].hnext)
		if (rt->t[i].tid == tid)
			return &rt->t[i];
	return NULL;
}

static void unlink_task(report_tasks *rt, rt_task *x)
{
	long *p = &rt->hash[bucket(x->tid)];
	while (*p >= 0 && &rt->t[*p] != x)
		p = &rt->t[*p].hnext;
	if (*p >= 0)
		*p = x->hnext;
	x->live = false;
}

static long new_maps(report_tasks *rt)
{
	if (pk_grow(&rt->maps, &rt->cap_maps, rt->nmaps + 1, sizeof(*rt->maps)) < 0)
		return -1;
	memset(&rt->maps[rt->nmaps], 0, sizeof(rt->maps[0]));
	return (long)rt->nmaps++;
}

static int set_comm(rt_task *x, const char *comm)
{
	char *c = strdup(comm);
	if (!c)
		return -ENOMEM;
	free(x->comm);
	x->comm = c;
	return 0;
}

/* A new live task (pointers into rt->t change). */
static rt_task *add_task(report_tasks *rt, int32_t pid, int32_t tid)
{
	if (rt->n == rt->cap) {
		size_t cap = rt->cap ? 2 * rt->cap : 64;
		rt_task *t = realloc(rt->t, cap * sizeof(*t));
		if (!t)
			return NULL;
		rt->t = t;
		rt->cap = cap;
	}
	long maps = new_maps(rt);
	if (maps < 0)
		return NULL;
	rt_task *x = &rt->t[rt->n];
	memset(x, 0, sizeof(*x));
	char dflt[16];
	snprintf(dflt, sizeof(dflt), ":%d", (int)tid);
	if (set_comm(x, dflt))
		return NULL;
	x->pid = pid;
	x->tid = tid;
	x->ppid = -1;
	x->live = true;
	x->maps = (size_t)maps;
	x->hnext = rt->hash[bucket(tid)];
	rt->hash[bucket(tid)] = (long)rt->n;
	rt->n++;
	return x;
}

/* perf's findnew: the live task of tid, made when there is none; a
 * thread shares its process leader's maps (the leader made if needed),
 * also when its pid was not known (-1) until now. */
static rt_task *findnew(report_tasks *rt, int32_t pid, int32_t tid)
{
	rt_task *x = find(rt, tid);
	if (x && (pid == -1 || pid == x->pid || x->pid != -1))
		return x;
	if (x)
		x->pid = pid;
	else if (!(x = add_task(rt, pid, tid)))
		return NULL;
	if (pid == -1 || pid == tid)
		return x;
	size_t at = (size_t)(x - rt->t);
	rt_task *leader = findnew(rt, pid, pid);
	if (!leader)
		return NULL;
	rt->t[at].maps = leader->maps;
	return &rt->t[at];
}

static int copy_maps(report_tasks *rt, size_t to, size_t from)
{
	rt_maps *src = &rt->maps[from], *dst = &rt->maps[to];
	if (!src->n || to == from)
		return 0;
	rt_map *v = realloc(dst->v, (dst->n + src->n) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	dst->v = v;
	dst->cap = dst->n + src->n;
	for (size_t i = 0; i < src->n; i++) {
		rt_map m = src->v[i];
		if (!(m.name = strdup(m.name)))
			return -ENOMEM;
		dst->v[dst->n++] = m;
	}
	return 0;
}

static int do_fork(report_tasks *rt, const pk_pd_event *ev)
{
	pk_pd_rec_fork f;
	pk_error err;
	if (pk_pd_rec_fork_parse(ev, &f, &err))
		return 0;
	rt_task *old = find(rt, (int32_t)f.tid);
	long old_at = old ? old - rt->t : -1;
	rt_task *parent = findnew(rt, (int32_t)f.ppid, (int32_t)f.ptid);
	if (!parent)
		return -ENOMEM;
	if (parent->pid != (int32_t)f.ppid) { /* not the parent after all */
		unlink_task(rt, parent);
		if (!(parent = findnew(rt, (int32_t)f.ppid, (int32_t)f.ptid)))
			return -ENOMEM;
	}
	size_t p = (size_t)(parent - rt->t);
	if (old_at >= 0 && rt->t[old_at].live && rt->t[old_at].tid == (int32_t)f.tid)
		unlink_task(rt, &rt->t[old_at]);
	rt_task *x = findnew(rt, (int32_t)f.pid, (int32_t)f.tid);
	if (!x)
		return -ENOMEM;
	parent = &rt->t[p];
	if (parent->comm_set && set_comm(x, parent->comm))
		return -ENOMEM;
	x->comm_set = x->comm_set || parent->comm_set;
	x->ppid = parent->tid;
	if (x->pid == parent->pid || x->maps == parent->maps || (ev->misc & PK_RECORD_MISC_FORK_EXEC))
		return 0;
	return copy_maps(rt, x->maps, parent->maps);
}

/* Inserts m into the sorted maps, cutting what it overlaps. */
static int insert_map(rt_maps *ms, rt_map m)
{
	if (ms->n + 2 > ms->cap) {
		size_t cap = ms->cap ? 2 * ms->cap + 2 : 16;
		rt_map *v = realloc(ms->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ms->v = v;
		ms->cap = cap;
	}
	for (size_t i = 0; i < ms->n; i++) {
		rt_map *o = &ms->v[i];
		if (o->end <= m.start || o->start >= m.end)
			continue;
		if (o->start < m.start && o->end > m.end) { /* split in two */
			rt_map after = *o;
			if (!(after.name = strdup(o->name)))
				return -ENOMEM;
			after.pgoff += m.end - o->start;
			after.start = m.end;
			o->end = m.start;
			memmove(o + 2, o + 1, (ms->n - i - 1) * sizeof(*o));
			o[1] = after;
			ms->n++;
			break;
		}
		if (o->start < m.start) {
			o->end = m.start;
		} else if (o->end > m.end) {
			o->pgoff += m.end - o->start;
			o->start = m.end;
		} else {
			free(o->name);
			memmove(o, o + 1, (ms->n - i - 1) * sizeof(*o));
			ms->n--;
			i--;
		}
	}
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

static int do_mmap(report_tasks *rt, const pk_pd_event *ev)
{
	unsigned mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	pk_pd_rec_mmap r;
	pk_error err;
	if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    pk_pd_rec_mmap_parse(ev, &r, &err))
		return 0;
	rt_task *x = findnew(rt, (int32_t)r.pid, (int32_t)r.tid);
	if (!x)
		return -ENOMEM;
	rt_map m = {.start = r.addr, .end = r.addr + r.len, .pgoff = r.pgoff, .name = (char *)r.filename};
	if (ev->type == PERF_RECORD_MMAP2) {
		m.prot = r.prot;
		m.flags = r.flags;
		m.ino = r.has_build_id ? 0 : r.ino;
	} else {
		m.prot = ev->misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PROT_EXEC;
	}
	/* perf names anonymous code after the JIT's map file (lib/symbols' rule) */
	char jit[64];
	m.name = (char *)(uintptr_t)pk_mmap_dso_name(ev, &r, jit, sizeof(jit), NULL);
	return insert_map(&rt->maps[x->maps], m);
}

static void report_tasks_event(void *arg, struct pk_session *s, const pk_pd_event *ev, bool before)
{
	report_tasks *rt = arg;
	(void)s;
	if (!before || rt->failed)
		return;
	int r = 0;
	if (ev->type == PERF_RECORD_COMM) {
		pk_pd_rec_comm c;
		pk_error err;
		if (!pk_pd_rec_comm_parse(ev, &c, &err)) {
			rt_task *x = findnew(rt, (int32_t)c.pid, (int32_t)c.tid);
			r = !x || set_comm(x, c.comm) ? -ENOMEM : 0;
			if (x)
				x->comm_set = true;
		}
	} else if (ev->type == PERF_RECORD_FORK) {
		r = do_fork(rt, ev);
	} else if (rt->with_maps && (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2)) {
		r = do_mmap(rt, ev);
	}
	if (r)
		rt->failed = true;
}

static int report_tasks_start(report_tasks *rt)
{
	rt_task *x = add_task(rt, 0, 0);
	if (!x || set_comm(x, "swapper"))
		return -ENOMEM;
	x->comm_set = true;
	return 0;
}

static const rt_task *sort_tasks;

static int cmp_table(const void *a, const void *b)
{
	const rt_task *t = sort_tasks;
	const rt_task *x = &t[*(const long *)a], *y = &t[*(const long *)b];
	uint32_t bx = (uint32_t)x->tid % RT_TABLE, by = (uint32_t)y->tid % RT_TABLE;
	if (bx != by)
		return bx < by ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void add_child(rt_task *t, long parent, long child)
{
	t[child].next = -1;
	if (t[parent].last >= 0)
		t[t[parent].last].next = child;
	else
		t[parent].child = child;
	t[parent].last = child;
	t[child].placed = true;
}

static void print_task(const report_tasks *rt, long i, int level, FILE *f)
{
	const rt_task *x = &rt->t[i];
	int indent = fprintf(f, "  %8d %8d %8d |%*s", (int)x->pid, (int)x->tid, (int)x->ppid, level, "");
	fprintf(f, "%s\n", x->comm);
	const rt_maps *ms = &rt->maps[x->maps];
	for (size_t k = 0; rt->with_maps && k < ms->n; k++) {
		const rt_map *m = &ms->v[k];
		fprintf(f, "%*s  %" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %" PRIu64 " %s\n", indent,
			"", m->start, m->end, m->prot & PROT_READ ? 'r' : '-',
			m->prot & PROT_WRITE ? 'w' : '-', m->prot & PROT_EXEC ? 'x' : '-',
			m->flags & MAP_SHARED ? 's' : 'p', m->pgoff, m->ino, m->name);
	}
	for (long c = x->child; c >= 0; c = rt->t[c].next)
		print_task(rt, c, level + 1, f);
}

static int report_tasks_print(report_tasks *rt, FILE *f)
{
	if (rt->failed) {
		fprintf(stderr, "pmukit report: out of memory\n");
		return 1;
	}
	long *order = malloc((rt->n ? rt->n : 1) * sizeof(*order)), n = 0;
	if (!order) {
		fprintf(stderr, "pmukit report: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < rt->n; i++) {
		rt->t[i].child = rt->t[i].last = rt->t[i].next = -1;
		rt->t[i].placed = false;
		if (rt->t[i].live)
			order[n++] = (long)i;
	}
	sort_tasks = rt->t;
	qsort(order, (size_t)n, sizeof(*order), cmp_table);
	long root = -1, root_last = -1;
	for (long k = 0; k < n; k++) {
		long i = order[k];
		while (i >= 0 && !rt->t[i].placed) {
			rt_task *x = &rt->t[i];
			if (x->ppid == -1) { /* the top of a tree */
				x->placed = true;
				x->next = -1;
				if (root_last >= 0)
					rt->t[root_last].next = i;
				else
					root = i;
				root_last = i;
				break;
			}
			rt_task *p = find(rt, x->ppid);
			if (!p) {
				fprintf(stderr, "Error: failed to process tasks\n");
				free(order);
				return 1;
			}
			add_child(rt->t, p - rt->t, i);
			i = p - rt->t;
		}
	}
	free(order);
	fprintf(f, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	for (long i = root; i >= 0; i = rt->t[i].next)
		print_task(rt, i, 0, f);
	return 0;
}

/* ---- --stats ---- */

static void stats_line(FILE *f, const char *name, uint64_t n, uint64_t total)
{
	if (total)
		fprintf(f, "%16s events: %10d  (%4.1f%%)\n", name, (int)n, 100.0 * (double)n / (double)total);
	else
		fprintf(f, "%16s events: %10d\n", name, (int)n);
}

/* A record type's count as perf 6.1 shows it: it has no COMPRESSED2 (perf
 * 6.16's), so those are counted as the COMPRESSED they replace. */
static uint64_t stats_nr(const pk_pd_stats *st, uint32_t t)
{
	return st->nr_records[t] + (t == PK_RECORD_COMPRESSED ? st->nr_records[PK_RECORD_COMPRESSED2] : 0);
}

/* perf's --stats reads a pipe with a tool that takes in neither
 * HEADER_FEATURE nor EVENT_UPDATE records: the names are made from the
 * attrs ("cycles:uH"); a file's come from its header, and so do a pipe's
 * when its tool took in those records (report -D: "cycles:u"). */
static const char *stats_name(pk_session *s, size_t i, bool features)
{
	const pk_pd_evsel *e = pk_session_evsel_at(s, i);
	return !features && pk_pd_is_pipe(pk_session_reader(s)) && e->attr_name[0] ? e->attr_name
									  : pk_pd_evsel_name(e);
}

void report_stats_print(pk_session *s, const uint64_t *samples, const uint64_t *lost,
			bool features, FILE *f)
{
	const pk_pd_stats *st = pk_pd_get_stats(pk_session_reader(s));
	uint64_t total = 0;
	/* perf 6.1 knows the records up to FINISHED_INIT */
	uint32_t last = PK_RECORD_FINISHED_INIT;
	for (uint32_t t = 1; t <= last && t < PK_RECORD_TYPE_MAX; t++)
		if (pk_pd_record_name(t))
			total += stats_nr(st, t);
	bool aux = !pk_pd_is_pipe(pk_session_reader(s)) && pk_pd_has_feature(pk_session_reader(s), PK_FEAT_AUXTRACE);
	fprintf(f, "\nAggregated stats:%s\n",
		aux ? " (excludes AUX area (e.g. instruction trace) decoded / synthesized events)" : "");
	stats_line(f, "TOTAL", total, 0);
	for (uint32_t t = 1; t <= last && t < PK_RECORD_TYPE_MAX; t++)
		if (pk_pd_record_name(t) && stats_nr(st, t))
			stats_line(f, pk_pd_record_name(t), stats_nr(st, t), total);
	for (size_t i = 0; i < pk_session_nr_evsels(s); i++) {
		if (!samples[i])
			continue;
		fprintf(f, "%s stats:\n", stats_name(s, i, features));
		stats_line(f, "SAMPLE", samples[i], 0);
		if (lost[i])
			stats_line(f, "LOST_SAMPLES", lost[i], 0);
	}
}

static int no_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	(void)arg;
	(void)s;
	(void)ev;
	(void)smp;
	return 0;
}

int report_tasks_run(pk_session *s, bool with_maps)
{
	report_tasks *rt = report_tasks_new(with_maps);
	if (!rt || report_tasks_start(rt)) {
		report_tasks_free(rt);
		fprintf(stderr, "pmukit report: out of memory\n");
		return 1;
	}
	pk_session_on_event(s, report_tasks_event, rt);
	int status = pd_session_run(s, no_sample, NULL);
	if (!status)
		status = report_tasks_print(rt, stdout);
	pk_session_on_event(s, NULL, NULL);
	report_tasks_free(rt);
	return status;
}

int report_stats_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	stats_count *c = arg;
	(void)s;
	(void)smp;
	if ((size_t)ev->evsel->idx < c->n)
		c->samples[ev->evsel->idx]++;
	return 0;
}

void report_stats_event(void *arg, pk_session *s, const pk_pd_event *ev, bool before)
{
	stats_count *c = arg;
	(void)s;
	if (before && ev->type == PERF_RECORD_LOST_SAMPLES && ev->evsel && ev->size >= 16 &&
	    (size_t)ev->evsel->idx < c->n) {
		uint64_t lost;
		memcpy(&lost, ev->data + 8, sizeof(lost));
		c->lost[ev->evsel->idx] += lost;
	}
}

int report_stats_begin(stats_count *c, pk_session *s)
{
	c->n = pk_pd_nr_evsels(pk_session_reader(s)) + PK_SPE_NR_KINDS;
	c->samples = calloc(c->n, sizeof(uint64_t));
	c->lost = calloc(c->n, sizeof(uint64_t));
	if (c->samples && c->lost)
		return 0;
	report_stats_end(c);
	fprintf(stderr, "pmukit %s: out of memory\n", pd_session_cmd(s));
	return -1;
}

void report_stats_end(stats_count *c)
{
	free(c->samples);
	free(c->lost);
	c->samples = c->lost = NULL;
}

int report_stats_run(pk_session *s)
{
	stats_count c;
	if (report_stats_begin(&c, s) < 0)
		return 1;
	pk_session_on_event(s, report_stats_event, &c);
	int status = pd_session_run(s, report_stats_sample, &c);
	pk_session_on_event(s, NULL, NULL);
	if (!status)
		report_stats_print(s, c.samples, c.lost, false, stdout);
	report_stats_end(&c);
	return status;
}

/* ---- -T/--threads: PERF_RECORD_READ values per thread ---- */

struct report_threads {
	struct rth_thread { int32_t pid, tid; } *th;
	int *ctr;                    /* the columns' evsel indexes, first seen first */
	uint64_t *val;               /* [thread * cap_ctr + column] */
	size_t nth, cap_th, nctr, cap_ctr;
	pk_session *s;
	bool failed;
};

report_threads *report_threads_new(pk_session *s)
{
	report_threads *t = calloc(1, sizeof(*t));
	if (t)
		t->s = s;
	return t;
}

void report_threads_free(report_threads *t)
{
	if (!t)
		return;
	free(t->th);
	free(t->ctr);
	free(t->val);
	free(t);
}

/* The value table grown to nth x ncap (columns kept in place). */
static int threads_grow(report_threads *t, size_t nth, size_t ncap)
{
	if (nth <= t->cap_th && ncap <= t->cap_ctr)
		return 0;
	size_t cth = nth > t->cap_th ? 2 * nth : t->cap_th, cc = ncap > t->cap_ctr ? 2 * ncap : t->cap_ctr;
	uint64_t *v = calloc(cth * cc, sizeof(*v));
	struct rth_thread *th = realloc(t->th, cth * sizeof(*th));
	int *ctr = realloc(t->ctr, cc * sizeof(*ctr));
	if (th)
		t->th = th;
	if (ctr)
		t->ctr = ctr;
	if (!v || !th || !ctr) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nth; i++)
		memcpy(v + i * cc, t->val + i * t->cap_ctr, t->nctr * sizeof(*v));
	free(t->val);
	t->val = v;
	t->cap_th = cth;
	t->cap_ctr = cc;
	return 0;
}

/* pk_session's on_event: adds a READ record's value to its thread's
 * column of its event (perf adds them up). */
void report_threads_event(void *arg, struct pk_session *s, const pk_pd_event *ev, bool before)
{
	report_threads *t = arg;
	(void)s;
	if (!before || t->failed || ev->type != PERF_RECORD_READ || !ev->evsel || ev->size < 24)
		return;
	int32_t pid, tid;
	uint64_t value;
	memcpy(&pid, ev->data + 8, 4);
	memcpy(&tid, ev->data + 12, 4);
	memcpy(&value, ev->data + 16, 8);
	size_t i = 0, c = 0;
	while (i < t->nth && (t->th[i].pid != pid || t->th[i].tid != tid))
		i++;
	while (c < t->nctr && t->ctr[c] != ev->evsel->idx)
		c++;
	if (threads_grow(t, i + 1, c + 1)) {
		t->failed = true;
		return;
	}
	if (i == t->nth)
		t->th[t->nth++] = (struct rth_thread){pid, tid};
	if (c == t->nctr)
		t->ctr[t->nctr++] = ev->evsel->idx;
	t->val[i * t->cap_ctr + c] += value;
}

static int width_of(uint64_t v)
{
	char b[24];
	return snprintf(b, sizeof(b), "%" PRIu64, v);
}

void report_threads_print(const report_threads *t, FILE *f)
{
	if (t->failed) {
		fprintf(stderr, "pmukit report: out of memory\n");
		return;
	}
	int pw = 3, tw = 3, cw[64];
	size_t nc = t->nctr < 64 ? t->nctr : 64;
	for (size_t c = 0; c < nc; c++)
		cw[c] = (int)strlen(pk_pd_evsel_name(pk_session_evsel_at(t->s, (size_t)t->ctr[c])));
	for (size_t i = 0; i < t->nth; i++) {
		if (width_of((uint64_t)(int64_t)t->th[i].pid) > pw)
			pw = width_of((uint64_t)(int64_t)t->th[i].pid);
		if (width_of((uint64_t)(int64_t)t->th[i].tid) > tw)
			tw = width_of((uint64_t)(int64_t)t->th[i].tid);
		for (size_t c = 0; c < nc; c++)
			if (width_of(t->val[i * t->cap_ctr + c]) > cw[c])
				cw[c] = width_of(t->val[i * t->cap_ctr + c]);
	}
	fprintf(f, "# %*s  %*s", pw, "PID", tw, "TID");
	for (size_t c = 0; c < nc; c++)
		fprintf(f, "  %*s", cw[c], pk_pd_evsel_name(pk_session_evsel_at(t->s, (size_t)t->ctr[c])));
	fprintf(f, "\n");
	for (size_t i = 0; i < t->nth; i++) {
		fprintf(f, "  %*d  %*d", pw, (int)t->th[i].pid, tw, (int)t->th[i].tid);
		for (size_t c = 0; c < nc; c++)
			fprintf(f, "  %*" PRIu64, cw[c], t->val[i * t->cap_ctr + c]);
		fprintf(f, "\n");
	}
}
