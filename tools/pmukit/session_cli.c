/* pmukit CLI: the perf.data session's messages, errors and Arm SPE
 * hooks printed (session_cli.h). */
#include "session_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "builtin.h"
#include "pd_header.h"
#include "textout.h"

/* A session message: "pmukit CMD: warning: TEXT" or the note as it is. */
static void print_msg(void *arg, pk_session_msg kind, const char *text)
{
	if (kind == PK_SESSION_WARNING)
		fprintf(stderr, "pmukit %s: warning: %s\n", (const char *)arg, text);
	else
		fprintf(stderr, "%s\n", text);
}

/* An error of the session: out of memory in perf's words, else rendered. */
static void print_error(const char *cmd, const pk_error *err)
{
	if (err->code == -ENOMEM && !strcmp(err->msg, "out of memory"))
		fprintf(stderr, "pmukit %s: out of memory\n", cmd);
	else
		pk_cli_print_error(cmd, err);
}

/* The command of the session (one a process): its messages' prefix. */
static const char *session_cmd;

const char *pd_session_cmd(const pk_session *s)
{
	(void)s;
	return session_cmd;
}

int pd_session_open(pk_session **s, const char *cmd, const char *input, bool no_order, bool force,
		    bool rounds)
{
	pk_session_opts o;
	pk_session_opts_init(&o);
	o.no_order = no_order;
	o.force = force;
	o.rounds = rounds;
	o.msg_fn = print_msg;
	o.msg_arg = (void *)(uintptr_t)cmd;
	session_cmd = cmd;
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_session_open(input, &o, s, &err);
	if (rc == 0)
		return 0;
	print_error(cmd, &err);
	/* 1 for the owner check's refusal (perf's own status for it), else
	 * perf's status for a file it cannot open or read */
	return rc == -EPERM ? 1 : 255;
}

int pd_session_machine(pk_session *s, const pk_machine_opts *o)
{
	pk_error err;
	pk_error_clear(&err);
	if (pk_session_set_machine(s, o, &err) < 0) {
		print_error(pd_session_cmd(s), &err);
		return 1;
	}
	return 0;
}

int pd_time_error(const char *cmd, const pk_error *err)
{
	fprintf(stderr, "pmukit %s: --time '%s': %s\n", cmd, err->where, err->msg);
	if (err->code == -ENODATA) /* perf's hint */
		fprintf(stderr, "(record with pmukit, or perf 4.19 or later, to have them; with "
				"--buildid-all add --timestamp-boundary)\n");
	return PD_TIME_STATUS;
}

int pd_session_time_span(pk_session *s, const char *cmd, pk_script_filter *filter)
{
	if (!filter)
		return 0;
	pk_pd_header h;
	pk_error err;
	pk_error_clear(&err);
	memset(&h, 0, sizeof(h));
	pk_pd_header_read(pk_session_reader(s), &h, &err);
	pk_error_clear(&err);
	int rc = pk_script_filter_span(filter, h.has_sample_time, h.sample_time_first,
				       h.sample_time_last, &err);
	pk_pd_header_release(&h);
	return rc ? pd_time_error(cmd, &err) : 0;
}

int pd_session_switch(pk_session *s, const char *on, const char *off, bool show)
{
	pk_error err;
	pk_error_clear(&err);
	if (!on && !off)
		return 0;
	if (pk_session_set_switch(s, on, off, show, &err) < 0) {
		fprintf(stderr, "ERROR: %s\nHINT:  use 'perf evlist' to see the available event "
				"names\n", err.msg);
		return 254;
	}
	return 0;
}

int pd_session_itrace(pk_session *s, const char *arg)
{
	pk_error err;
	pk_error_clear(&err);
	if (pk_session_set_itrace(s, arg, &err) < 0) {
		pk_cli_print_error(pd_session_cmd(s), &err);
		return 129;
	}
	return 0;
}

/* -D's lines of one AUXTRACE record: its header, then the packets. */
static void spe_dump(void *arg, const pk_pd_event *ev, const pk_pd_rec_auxtrace *a,
		     uint32_t midr)
{
	(void)arg;
	printf("\n%#" PRIx64 " [%#x]: PERF_RECORD_AUXTRACE size: %#" PRIx64 "  offset: %#" PRIx64
	       "  ref: %#" PRIx64 "  idx: %" PRIu32 "  tid: %" PRId32 "  cpu: %" PRId32 "\n.\n",
	       ev->offset, ev->size, a->size, a->offset, a->reference, a->idx, (int32_t)a->tid,
	       (int32_t)a->cpu);
	printf(". ... ARM SPE data: size %#" PRIx64 " bytes\n", ev->aux_size);
	/* the packet lines go out in 64 KiB blocks (one write each, not one
	 * per 4 KiB stdio buffer: a dump has tens of millions of lines) */
	enum { LINE = 320 };
	char block[1 << 16];
	size_t used = 0, pos = 0;
	int n;
	for (;;) {
		if (sizeof block - used <= LINE) {
			fwrite(block, 1, used, stdout);
			used = 0;
		}
		n = pk_spe_dump_line(ev->aux, ev->aux_size, pos, midr, block + used, LINE);
		if (n <= 0)
			break;
		used += strlen(block + used);
		block[used++] = '\n';
		pos += (size_t)n;
	}
	fwrite(block, 1, used, stdout);
}

void pd_session_spe_dump(pk_session *s)
{
	pk_session_spe_dump(s, spe_dump, NULL);
}

static struct spe_export {
	enum pd_spe_export fmt;
	bool header;                 /* the CSV header is out */
} export_state;

/* One record as a CSV or JSON line: cpu, time, pid, tid, then the columns
 * of lib/spe (escaped and quoted by textout.h). */
static int spe_export(void *arg, uint32_t cpu, uint64_t time, int64_t pid, int64_t tid,
		      const pk_spe_record *r, uint32_t midr)
{
	struct spe_export *x = arg;
	bool json = x->fmt == PD_SPE_EXPORT_JSONL;
	if (!json && !x->header) {
		x->header = true;
		fputs("cpu,time,pid,tid", stdout);
		for (unsigned c = 0; c < PK_SPE_NR_COLUMNS; c++) {
			putchar(',');
			out_csv_field(stdout, pk_spe_column_name(c), ",");
		}
		putchar('\n');
	}
	if (json)
		printf("{\"cpu\":%" PRIu32 ",\"time\":%" PRIu64 ",\"pid\":%" PRId64 ",\"tid\":%" PRId64,
		       cpu, time, pid, tid);
	else
		printf("%" PRIu32 ",%" PRIu64 ",%" PRId64 ",%" PRId64, cpu, time, pid, tid);
	for (unsigned c = 0; c < PK_SPE_NR_COLUMNS; c++) {
		char v[512];
		pk_spe_record_column(r, c, midr, v, sizeof v);
		putchar(',');
		if (!json) {
			out_csv_field(stdout, v, ",");
			continue;
		}
		out_json_str(stdout, pk_spe_column_name(c));
		putchar(':');
		if (!*v)
			fputs("null", stdout);
		else if (pk_spe_column_numeric(c))
			fputs(v, stdout);
		else
			out_json_str(stdout, v);
	}
	fputs(json ? "}\n" : "\n", stdout);
	return 0;
}

void pd_session_spe_export(pk_session *s, enum pd_spe_export fmt)
{
	export_state.fmt = fmt;
	pk_session_spe_export(s, fmt ? spe_export : NULL, &export_state);
}

int pd_session_run(pk_session *s, pk_session_sample_fn fn, void *arg)
{
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_session_run(s, fn, arg, &err);
	if (rc >= 0)
		return rc;
	print_error(pd_session_cmd(s), &err);
	return 1;
}

static void pipe_feature(void *arg, pk_session *s, const pk_pd_event *ev)
{
	pd_header_feature(pk_session_reader(s), ev, arg);
	fflush(arg);
}

void pd_session_pipe_features(pk_session *s, FILE *f)
{
	pk_session_on_feature(s, f ? pipe_feature : NULL, f);
}

int pd_session_finish(pk_session *s, int status)
{
	pk_error err;
	pk_error_clear(&err);
	int rc = status ? pk_session_finish_failed(s, &err) : pk_session_finish(s, &err);
	if (rc == -ENODATA)
		fprintf(stderr, "pmukit %s: error: %s\n", pd_session_cmd(s), err.msg);
	else if (rc < 0 && rc != -ENOMSG)
		print_error(pd_session_cmd(s), &err);
	return rc < 0 && !status ? 1 : status;
}

void pd_aux_flags_warn(uint64_t truncated, uint64_t partial, uint64_t collision, uint64_t nr_aux,
		       const char *lost_hint, const char *collision_hint)
{
	pk_session_aux_flags(print_msg, NULL, truncated, partial, collision, nr_aux, lost_hint,
			     collision_hint);
}
