/* pmukit report --stats, --tasks, --mmaps, -T: the views of a perf.data file
 * other than the table, as perf report 6.1 prints them.
 *
 * --stats: the file's records by type (the reader's counts, counted as
 * perf 6.1 counts them by lib/session/stats.c, TOTAL first,
 * each with its share), then per event its samples and lost samples.
 * --tasks: the machine's thread table, the one samples resolve against
 * (listed by lib/symbols/tasks.c after pk_machine_keep_tasks; with --mmaps
 * each task's process maps under it),
 * printed as a tree from the tasks in perf's table order (by tid modulo
 * 256, then tid): each task not yet placed goes under its parent, up to a
 * task without one, which starts a tree of its own.
 * -T: the values of PERF_RECORD_READ records (written at a thread's exit
 * under perf record -s) added up per thread and event, threads and events
 * in the order first seen, after the table. */
#include "report_tasks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pmukit/symbols.h>
#include <pmukit/util.h>

/* The printed tree over the machine's tasks, by their table order. */
typedef struct rt_node {
	long child, last, next;      /* -1 for none */
	bool placed;
} rt_node;

static void add_child(rt_node *t, long parent, long child)
{
	t[child].next = -1;
	if (t[parent].last >= 0)
		t[t[parent].last].next = child;
	else
		t[parent].child = child;
	t[parent].last = child;
	t[child].placed = true;
}

static void print_task(pk_machine *m, const rt_node *nd, long i, int level, bool with_maps, FILE *f)
{
	const pk_task *x = pk_machine_task_at(m, (size_t)i);
	int indent = fprintf(f, "  %8d %8d %8d |%*s", (int)x->pid, (int)x->tid, (int)x->ppid, level, "");
	fprintf(f, "%s\n", x->comm);
	size_t n = 0;
	const pk_task_map *ms = with_maps ? pk_machine_task_maps(m, x, &n) : NULL;
	for (size_t k = 0; k < n; k++) {
		const pk_task_map *mp = &ms[k];
		fprintf(f, "%*s  %" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64 " %" PRIu64 " %s\n", indent,
			"", mp->start, mp->end, mp->prot & PROT_READ ? 'r' : '-',
			mp->prot & PROT_WRITE ? 'w' : '-', mp->prot & PROT_EXEC ? 'x' : '-',
			mp->flags & MAP_SHARED ? 's' : 'p', mp->pgoff, mp->ino, mp->name);
	}
	for (long c = nd[i].child; c >= 0; c = nd[c].next)
		print_task(m, nd, c, level + 1, with_maps, f);
}

/* Places task i and its ancestors not yet placed; *root and *root_last hold the
 * list of tops. -1 when a parent is not in the table. */
static int place(pk_machine *m, rt_node *nd, long i, long *root, long *root_last)
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
			return -1;
		add_child(nd, (long)p->idx, i);
		i = (long)p->idx;
	}
	return 0;
}

static int report_tasks_print(pk_machine *m, bool with_maps, FILE *f)
{
	size_t n;
	rt_node *nd = NULL;
	if (pk_machine_tasks(m, &n) < 0 || !(nd = malloc((n ? n : 1) * sizeof(*nd)))) {
		fprintf(stderr, "pmukit report: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		nd[i] = (rt_node){-1, -1, -1, false};
	long root = -1, root_last = -1;
	for (size_t k = 0; k < n; k++) {
		if (place(m, nd, (long)k, &root, &root_last) < 0) {
			fprintf(stderr, "Error: failed to process tasks\n");
			free(nd);
			return 1;
		}
	}
	fprintf(f, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	for (long i = root; i >= 0; i = nd[i].next)
		print_task(m, nd, i, 0, with_maps, f);
	free(nd);
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
	uint64_t total = pk_session_stats_total(st);
	bool aux = !pk_pd_is_pipe(pk_session_reader(s)) && pk_pd_has_feature(pk_session_reader(s), PK_FEAT_AUXTRACE);
	fprintf(f, "\nAggregated stats:%s\n",
		aux ? " (excludes AUX area (e.g. instruction trace) decoded / synthesized events)" : "");
	stats_line(f, "TOTAL", total, 0);
	for (uint32_t t = 1; t <= PK_RECORD_FINISHED_INIT && t < PK_RECORD_TYPE_MAX; t++)
		if (pk_session_stats_records(st, t))
			stats_line(f, pk_pd_record_name(t), pk_session_stats_records(st, t), total);
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
	pk_machine *m = pk_session_machine(s);
	if (pk_machine_keep_tasks(m, with_maps) < 0) {
		fprintf(stderr, "pmukit report: out of memory\n");
		return 1;
	}
	int status = pd_session_run(s, no_sample, NULL);
	return status ? status : report_tasks_print(m, with_maps, stdout);
}

int report_stats_begin(pk_session_stats *c, pk_session *s)
{
	if (!pk_session_stats_begin(c, s))
		return 0;
	fprintf(stderr, "pmukit %s: out of memory\n", pd_session_cmd(s));
	return -1;
}

int report_stats_run(pk_session *s)
{
	pk_session_stats c;
	if (report_stats_begin(&c, s) < 0)
		return 1;
	pk_session_on_event(s, pk_session_stats_event, &c);
	int status = pd_session_run(s, pk_session_stats_sample, &c);
	pk_session_on_event(s, NULL, NULL);
	if (!status)
		report_stats_print(s, c.samples, c.lost, false, stdout);
	pk_session_stats_end(&c);
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
