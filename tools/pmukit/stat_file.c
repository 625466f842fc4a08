/* pmukit CLI: stat record's file, stat report and script on a stat file,
 * as perf 6.1 prints them (see stat_file.h). The records, their order
 * and their reading are the library's (lib/perfdata/statfile.c); here the
 * options' files, perf's words and lines.
 * Invariants: report prints through stat's own printer (stat_print.c),
 * so its counts read as stat's; a damaged or unplaceable record is said
 * with its offset, never skipped in silence. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/record.h>

#include "builtin.h"
#include "stat_file.h"

void stat_record_prepare(pk_evlist *l)
{
	for (size_t i = 0; i < pk_evlist_count(l); i++) {
		pk_evsel *e = pk_evlist_at(l, i);
		struct perf_event_attr a = *pk_evsel_attr(e);
		a.read_format |= PERF_FORMAT_ID;
		pk_evsel_set_attr(e, &a);
	}
}

static uint64_t file_aggr(pk_aggr_mode a)
{
	return a == PK_AGGR_CPU ? PK_PD_AGGR_NONE : a == PK_AGGR_THREAD ? PK_PD_AGGR_THREAD
								: PK_PD_AGGR_GLOBAL;
}

int stat_record_write(const stat_record_out *o, pk_counting *c)
{
	const char *path = o->path ? o->path : "perf.data";
	bool pipe = !strcmp(path, "-");
	pk_pd_writer *w = NULL;
	pk_error err;
	pk_error_clear(&err);
	int r = pk_pd_writer_open(path, pipe, &w, &err);
	if (r == 0 && pipe) /* perf's stat pipe has no features */
		pk_pd_writer_no_pipe_features(w);
	if (r == 0)
		r = pk_pd_stat_add_evsels(w, c, pipe, &err);
	if (r == 0 && !pipe)
		r = pk_pd_writer_host_features(w, o->kernel, o->pmus, o->argc, o->argv, &err);
	if (r == 0 && !pipe)
		r = pk_pd_writer_set_feature(w, PK_FEAT_STAT, "", 0, &err);
	if (r == 0)
		r = pk_pd_writer_begin(w, &err);
	pk_pd_stat_config cfg = {.aggr_mode = file_aggr(o->aggr), .scale = 1};
	if (r == 0)
		r = pk_pd_stat_write_setup(w, c, &cfg, pipe, &err);
	if (r == 0)
		r = pk_pd_stat_write_counts(w, c, &err);
	/* perf's kernel map, where perf writes it: its readers look for it */
	pk_synth syn = {.w = w, .sample_type = PERF_SAMPLE_IDENTIFIER, .kernel = o->kernel};
	if (r == 0)
		r = pk_synth_kernel_mmap(&syn, &err);
	if (r == 0)
		r = pk_pd_stat_write_round(w, PK_PD_STAT_ROUND_FINAL, (uint64_t)o->elapsed_ns, &err);
	if (r == 0) {
		r = pk_pd_writer_close(w, &err);
		w = NULL;
	}
	pk_pd_writer_abort(w);
	if (r < 0)
		pk_cli_print_error("stat record", &err);
	return r < 0;
}

/* ---- stat report ------------------------------------------------------------ */

/* perf's header target: the recording's command line, or 'pipe'. */
static char *report_target(pk_pd_reader *rd)
{
	pk_pd_header h = {0};
	pk_error err;
	char *s = NULL;
	size_t len = 3;
	if (!pk_pd_is_pipe(rd) && pk_pd_header_read(rd, &h, &err) == 0 && h.nr_cmdline) {
		for (uint32_t i = 0; i < h.nr_cmdline; i++)
			len += strlen(h.cmdline[i]) + 1;
		if ((s = malloc(len))) {
			char *p = s;
			*p++ = '\'';
			for (uint32_t i = 0; i < h.nr_cmdline; i++)
				p += sprintf(p, "%s%s", i ? " " : "", h.cmdline[i]);
			strcpy(p, "'");
		}
	}
	pk_pd_header_release(&h);
	return s ? s : strdup("'pipe'");
}

static pk_aggr_mode rows_aggr(const pk_pd_stat_config *c)
{
	return c->aggr_mode == PK_PD_AGGR_NONE ? PK_AGGR_CPU
	       : c->aggr_mode == PK_PD_AGGR_THREAD ? PK_AGGR_THREAD
						  : PK_AGGR_GLOBAL;
}

/* One round's counts: an interval's lines, or the totals with perf's
 * header and footer; *no_aggr (-A) dropped, with perf's warning, on a
 * task's counts. */
static int report_round(pk_pd_stat_data *d, pk_pd_reader *rd, stat_printer *p, bool *no_aggr,
			const pk_pd_rec_stat_round *round)
{
	stat_rows rows = {0};
	/* perf 6.1: a task's counts (CPU -1) are not per CPU, said once */
	bool task = pk_pd_stat_data_nr_cpus(d) == 1 && pk_pd_stat_data_cpu(d, 0) == -1;
	if (*no_aggr && task) {
		fprintf(p->out, "warning: processing task data, aggregation mode not set\n");
		*no_aggr = false;
	}
	p->aggr = *no_aggr ? PK_AGGR_CPU : rows_aggr(pk_pd_stat_data_config(d));
	int r = pk_pd_stat_data_rows(d, p->aggr, &rows);
	bool final = round->type == PK_PD_STAT_ROUND_FINAL;
	if (r == 0 && final) {
		char *target = report_target(rd);
		stat_print_header(p, target ? target : "'pipe'", 1);
		free(target);
	}
	if (r == 0)
		r = stat_print_rows(p, &rows, (double)round->time, final ? -1 : (double)round->time);
	if (r == 0 && final) {
		pk_runstats el = {0};
		pk_runstats_add(&el, (double)round->time / 1e9);
		stat_print_footer(p, &el, -1, -1);
	}
	pk_stat_rows_free(&rows);
	return r;
}

static const char *report_input(const char *input)
{
	struct stat st;
	if (input && *input)
		return input;
	/* perf's default: a pipe on stdin, else perf.data */
	return !fstat(STDIN_FILENO, &st) && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
}

int stat_report_file(const char *input, bool no_aggr, stat_printer *p)
{
	pk_pd_open_opts oo = {.no_order = true};
	pk_pd_reader *rd = NULL;
	pk_pd_stat_data *d = NULL;
	pk_error err;
	pk_error_clear(&err);
	int r = pk_pd_reader_open(report_input(input), &oo, &rd, &err);
	if (r == 0 && !(d = pk_pd_stat_data_new(rd)))
		r = pk_err(&err, -ENOMEM, "out of memory");
	pk_pd_event ev;
	pk_pd_rec_stat_round round;
	while (r == 0 && (r = pk_pd_next(rd, &ev, &err)) > 0) {
		r = pk_pd_stat_data_add(d, &ev, &round, &err);
		if (r == 1 && (r = report_round(d, rd, p, &no_aggr, &round)) < 0)
			r = pk_err(&err, -ENOMEM, "out of memory");
	}
	if (r < 0)
		pk_cli_print_error("stat report", &err);
	fflush(p->out);
	pk_pd_stat_data_free(d);
	pk_pd_reader_close(rd);
	return r < 0;
}

/* ---- script ------------------------------------------------------------------ */

/* perf script's lines of a round: per event, thread and CPU. */
static void script_round(stat_script *ss, pk_pd_reader *rd, uint64_t time)
{
	const pk_pd_stat_data *d = ss->data;
	if (!ss->header_done) {
		printf("%3s %8s %15s %15s %15s %15s %s\n", "CPU", "THREAD", "VAL", "ENA", "RUN", "TIME",
		       "EVENT");
		ss->header_done = true;
	}
	for (size_t i = 0; i < pk_pd_nr_evsels(rd); i++)
		for (int ti = 0; ti < pk_pd_stat_data_nr_threads(d); ti++)
			for (int ci = 0; ci < pk_pd_stat_data_nr_cpus(d); ci++) {
				pk_counts v = pk_pd_stat_data_counts(d, i, ci, ti);
				printf("%3d %8d %15" PRIu64 " %15" PRIu64 " %15" PRIu64 " %15" PRIu64
				       " %s\n",
				       pk_pd_stat_data_cpu(d, ci), pk_pd_stat_data_pid(d, ti), v.val, v.ena,
				       v.run, time, pk_pd_evsel_name(pk_pd_evsel_at(rd, i)));
			}
}

void stat_script_event(stat_script *ss, pk_session *s, const pk_pd_event *ev)
{
	if (ev->type < PK_RECORD_THREAD_MAP || ev->type > PK_RECORD_STAT_ROUND || ss->failed)
		return;
	pk_pd_reader *rd = pk_session_reader(s);
	pk_error err;
	pk_error_clear(&err);
	if (!ss->data && !(ss->data = pk_pd_stat_data_new(rd)))
		pk_err(&err, -ENOMEM, "out of memory");
	pk_pd_rec_stat_round round;
	int r = ss->data ? pk_pd_stat_data_add(ss->data, ev, &round, &err) : -ENOMEM;
	if (r == 1)
		script_round(ss, rd, round.time);
	else if (r < 0) { /* said once: the rounds after it would be wrong */
		fflush(stdout);
		pk_cli_print_error("script", &err);
		ss->failed = true;
	}
}

void stat_script_free(stat_script *ss)
{
	pk_pd_stat_data_free(ss->data);
	ss->data = NULL;
}
