/* pmukit report --stats, --tasks, --mmaps, -T: the views of a perf.data file
 * other than the table, as perf report 6.1 prints them.
 *
 * --stats: the file's records by type (the reader's counts, counted as
 * perf 6.1 counts them by lib/session/stats.c, TOTAL first,
 * each with its share), then per event its samples and lost samples.
 * --tasks: the machine's thread table, the one samples resolve against
 * (listed by lib/symbols/tasks.c after pk_machine_keep_tasks; with --mmaps
 * each task's process maps under it),
 * printed as the tree perf makes of them (pk_machine_task_tree).
 * -T: the values of PERF_RECORD_READ records (written at a thread's exit
 * under perf record -s) added up per thread and event (pk_session_reads),
 * after the table. */
#include "report_tasks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pmukit/symbols.h>
#include <pmukit/util.h>

static void print_task(pk_machine *m, size_t i, int level, bool with_maps, FILE *f)
{
	const pk_task *x = pk_machine_task_at(m, i);
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
}

static int report_tasks_print(pk_machine *m, bool with_maps, FILE *f)
{
	pk_task_place *tp;
	size_t n;
	int r = pk_machine_task_tree(m, &tp, &n);
	if (r < 0) {
		fprintf(stderr, r == -ESRCH ? "Error: failed to process tasks\n"
					    : "pmukit report: out of memory\n");
		return 1;
	}
	fprintf(f, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	for (size_t i = 0; i < n; i++)
		print_task(m, tp[i].idx, tp[i].level, with_maps, f);
	free(tp);
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
		fprintf(f, "%s stats:\n", pk_session_stats_name(s, i, features));
		stats_line(f, "SAMPLE", samples[i], 0);
		if (lost[i])
			stats_line(f, "LOST_SAMPLES", lost[i], 0);
	}
}

int report_tasks_run(pk_session *s, bool with_maps)
{
	pk_machine *m = pk_session_machine(s);
	if (pk_machine_keep_tasks(m, with_maps) < 0) {
		fprintf(stderr, "pmukit report: out of memory\n");
		return 1;
	}
	int status = pd_session_run(s, NULL, NULL); /* the records only */
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

static int width_of(uint64_t v)
{
	char b[24];
	return snprintf(b, sizeof(b), "%" PRIu64, v);
}

void report_threads_print(pk_session *s, const pk_session_reads *t, FILE *f)
{
	size_t nth, nctr;
	if (pk_session_reads_size(t, &nth, &nctr) < 0) {
		fprintf(stderr, "pmukit report: out of memory\n");
		return;
	}
	int pw = 3, tw = 3, cw[64];
	size_t nc = nctr < 64 ? nctr : 64;
	const char *name[64];
	for (size_t c = 0; c < nc; c++) {
		name[c] = pk_pd_evsel_name(pk_session_evsel_at(s, (size_t)pk_session_reads_evsel(t, c)));
		cw[c] = (int)strlen(name[c]);
	}
	for (size_t i = 0; i < nth; i++) {
		int32_t pid, tid;
		pk_session_reads_thread(t, i, &pid, &tid);
		if (width_of((uint64_t)(int64_t)pid) > pw)
			pw = width_of((uint64_t)(int64_t)pid);
		if (width_of((uint64_t)(int64_t)tid) > tw)
			tw = width_of((uint64_t)(int64_t)tid);
		for (size_t c = 0; c < nc; c++)
			if (width_of(pk_session_reads_value(t, i, c)) > cw[c])
				cw[c] = width_of(pk_session_reads_value(t, i, c));
	}
	fprintf(f, "# %*s  %*s", pw, "PID", tw, "TID");
	for (size_t c = 0; c < nc; c++)
		fprintf(f, "  %*s", cw[c], name[c]);
	fprintf(f, "\n");
	for (size_t i = 0; i < nth; i++) {
		int32_t pid, tid;
		pk_session_reads_thread(t, i, &pid, &tid);
		fprintf(f, "  %*d  %*d", pw, (int)pid, tw, (int)tid);
		for (size_t c = 0; c < nc; c++)
			fprintf(f, "  %*" PRIu64, cw[c], pk_session_reads_value(t, i, c));
		fprintf(f, "\n");
	}
}
