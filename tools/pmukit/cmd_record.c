/* pmukit record: sample a command, processes or the system into perf.data.
 *
 * The options parsed into the library's recording (pmukit/recording.h:
 * events, targets, the command held before exec, the rings, the file and
 * its passes), run step by step until the command ends, Ctrl-C (our signal
 * flag, the library handles none), the model's scenario ends or the output
 * fails; then the library's notes and numbers said as perf says them. Any
 * early stop (a full disk, a broken pipe) ends the command with SIGTERM, as
 * perf does, instead of waiting for it. The command's exit status is ours. */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/model.h>
#include <pmukit/pmu.h>
#include <pmukit/recording.h>
#include <pmukit/regs.h>
#include <pmukit/workload.h>

#include "builtin.h"
#include "record_ctl.h"
#include "session_cli.h"
#include "stat_print.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t switch_signals; /* --switch-output: SIGUSR2s so far */

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_switch_signal(int sig)
{
	(void)sig;
	switch_signals++;
}

#define RECORD_MAX_EVENT_OPTS 64

typedef struct ropts {
	pk_recording_opts r;         /* the options the library takes */
	char *events[RECORD_MAX_EVENT_OPTS];   /* the -e strings (r.events) */
	int cmd_argc;
	const char *model;           /* --model: a scenario file */
	bool quiet;                  /* -q: no closing lines */
	const char *filter;          /* --filter, for the event before it */
	const char *control;         /* --control fd:...|fifo:... */
	bool switch_output;          /* --switch-output (on SIGUSR2, and:) */
	uint64_t switch_size;        /* =SIZE: when the file's data reach it (0: not) */
	uint64_t switch_ns;          /* =TIME: every TIME (0: not) */
	unsigned switch_max_files;   /* --switch-max-files (0: no limit) */
	bool dry_run;                /* --dry-run: options and events parsed only */
	const char *aux_mode;        /* -S / --aux-sample (refused), or NULL */
	const char *uid;             /* -u USER, or NULL */
	bool kcore;                  /* --kcore (refused) */
	bool exclude_perf;           /* --exclude-perf (refused) */
	bool timestamp_filename;     /* --timestamp-filename: the file renamed at the end */
	int realtime;                /* -r: SCHED_FIFO at this priority (0: not) */
} ropts;

/* One recording: the library's, and the model it may run on. */
typedef struct rsession {
	const ropts *o;
	pk_error err;
	pk_recording *rec;
	pk_model *model;             /* --model */
	const pk_kernel *kernel;     /* the model's, or NULL: the real one */
	ctl_chan ctl;                /* --control's channel (ctl_fd -1: none) */
	sig_atomic_t switches;       /* the SIGUSR2s acted on */
	uint64_t switched_at;        /* =TIME: the last switch (CLOCK_MONOTONIC ns) */
	rec_dumps dumps;             /* --switch-max-files' ring */
} rsession;

/* The library's notes, in perf's (and pmukit's) words. */
static void on_note(void *arg, pk_recording_note n, uint64_t a, uint64_t b, const char *text)
{
	(void)arg;
	switch (n) {
	case PK_RECNOTE_FREQ_MAX:
		fprintf(stderr, "info: using the maximum frequency rate, %" PRIu64 " Hz\n", a);
		break;
	case PK_RECNOTE_FREQ_LOWERED:
		if (b)
			fprintf(stderr,
				"warning: the maximum sample rate is %" PRIu64 " Hz: recording at %" PRIu64
				" Hz instead of %" PRIu64 " Hz.\n"
				"         The limit is /proc/sys/kernel/perf_event_max_sample_rate; the "
				"kernel lowers it when sampling interrupts take too long.\n",
				a, a, b);
		else
			fprintf(stderr, "info: using a maximum frequency rate of %" PRIu64 " Hz\n", a);
		break;
	case PK_RECNOTE_DWARF_REGS:
		fprintf(stderr, "WARNING: The use of --call-graph=dwarf may require all the user "
				"registers, specifying a subset with --user-regs may render DWARF "
				"unwinding unreliable, so the minimal registers set (IP, SP) is "
				"explicitly forced.\n");
		break;
	case PK_RECNOTE_SPE_PERIOD:
		fprintf(stderr, "pmukit record: note: %s: -c %" PRIu64 ": the driver samples every %"
				PRIu64 " operations (%s)\n",
			text, a, b, a < b ? "raised to caps/min_interval"
					  : "PMSIRR_EL1's interval counts in steps of 256");
		break;
	case PK_RECNOTE_SPE_NO_CONTEXT:
		fprintf(stderr, "note: without CAP_PERFMON or root, SPE records carry no CONTEXT "
				"packets; decoders take TIDs from context switches (perf warns \"Arm "
				"SPE CONTEXT packets not found in the traces\")\n");
		break;
	case PK_RECNOTE_NO_TRACING_DATA:
		fprintf(stderr, "pmukit record: warning: no tracing data written (%s): perf will "
				"refuse the file, pmukit shows numeric fields\n", text);
		break;
	case PK_RECNOTE_BUILDID_CACHE:
		if (text)
			fprintf(stderr, "pmukit record: warning: build-id cache: %s\n", text);
		else
			fprintf(stderr, "pmukit record: warning: %" PRIu64 " objects not put in the "
					"build-id cache\n", a);
		break;
	case PK_RECNOTE_EVENTS_DISABLED: fputs("Events disabled\n", stderr); break;
	case PK_RECNOTE_EVENTS_ENABLED: fputs("Events enabled\n", stderr); break;
	case PK_RECNOTE_CLOCK_RES:
		fputs("WARNING: Failed to determine specified clock resolution.\n", stderr);
		break;
	case PK_RECNOTE_SIZE_LIMIT:
		fprintf(stderr, "[ pmukit record: perf size limit reached (%" PRIu64 " KB), stopping "
				"session ]\n", a / 1024);
		break;
	}
}

/* The options as the library takes them: the parsed ones, the run's. */
static void recording_opts(const rsession *s, int argc, char **argv, pk_recording_opts *ro)
{
	*ro = s->o->r;
	ro->kernel = s->kernel;
	ro->sysfs_root = s->model ? pk_model_sysfs_root(s->model) : NULL;
	ro->cpuid = s->model ? pk_model_cpuid(s->model)->str : NULL;
	ro->argc = argc;
	ro->argv = argv;
	ro->note = on_note;
	ro->every_task = s->model != NULL;
}

/* --filter and --exclude-perf apply to the event before it: a
 * tracepoint's filter, which pmukit does not set yet, or (--filter) a HW
 * tracer's address filter, which needs a PMU this event is not on. Either
 * way: refused with the reason (perf's words when the event is neither). */
static int check_filter(rsession *s, bool exclude_perf)
{
	pk_evlist *l = pk_recording_evlist(s->rec);
	size_t n = pk_evlist_count(l);
	const pk_evsel *e = n ? pk_evlist_at(l, n - 1) : NULL;
	const char *opt = exclude_perf ? "--exclude-perf" : "--filter";
	if (e && pk_evsel_attr(e)->type == PERF_TYPE_TRACEPOINT) {
		fprintf(stderr, "pmukit record: %s '%s' on %s: tracepoint filters are not set by "
				"pmukit yet; filter when reading (script --comms/--pid/--time)\n",
			opt, exclude_perf ? "common_pid != pmukit" : s->o->filter, pk_evsel_name(e));
		return 1;
	}
	return pk_cli_usage_error("record", "%s option should follow a -e tracepoint%s option "
					    "('%s' is not one)", opt, exclude_perf ? "" : " or HW tracer",
				  e ? pk_evsel_name(e) : "?");
}

/* --filter and --exclude-perf given before any -e: perf's words and status. */
static int needs_event(const ropts *o, const char *opt, const char *or_tracer)
{
	if (o->r.nr_events)
		return 0;
	return pk_cli_usage_error("record", "%s option should follow a -e tracepoint%s option",
				  opt, or_tracer);
}

/* -S / --aux-sample: perf's words and status without an AUX event;
 * with one, refused: pmukit has neither mode. 0, or the exit code. */
static int check_aux_mode(rsession *s)
{
	bool discard;
	const char *pmu = pk_recording_aux_pmu(s->rec, &discard);
	bool snap = !strcmp(s->o->aux_mode, "snapshot");
	if (!pmu) {
		fprintf(stderr, "%s\n", snap ? "No AUX area tracing to snapshot"
					      : "No AUX area event to sample");
		return 234; /* perf's -EINVAL as a status */
	}
	fprintf(stderr, "pmukit record: %s on %s: AUX area %s is not done by pmukit\n",
		snap ? "-S" : "--aux-sample", pmu, snap ? "snapshot mode" : "sampling");
	return 1;
}

/* Events parsed, checked and configured for recording. 0, or the exit code. */
static int setup_events(rsession *s, int argc, char **argv)
{
	pk_recording_opts ro;
	recording_opts(s, argc, argv, &ro);
	int rc = pk_recording_new(&ro, &s->rec, &s->err);
	if (rc < 0) {
		pk_cli_print_error("record", &s->err);
		return rc == -ENOMEM ? 1 : 129;
	}
	pk_evlist *l = pk_recording_evlist(s->rec);
	for (size_t i = 0; i < pk_evlist_nr_warnings(l); i++)
		fprintf(stderr, "%s\n", pk_evlist_warning(l, i));
	if (s->o->filter && (rc = check_filter(s, false)))
		return rc;
	if (s->o->exclude_perf && (rc = check_filter(s, true)))
		return rc;
	if (pk_recording_configure(s->rec, &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		return pk_recording_refused(s->rec) ? 129 : 1;
	}
	return s->o->aux_mode ? check_aux_mode(s) : 0;
}

/* Targets (a model's: pk_recording_opts.every_task), the command held
 * before exec, the events opened. 0, or the exit code. */
static int open_events(rsession *s)
{
	if (pk_recording_open(s->rec, &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		int e = pk_recording_exec_errno(s->rec);
		return e ? pk_workload_exec_exit_code(e) : 1;
	}
	return 0;
}

static uint64_t monotonic_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Between passes: --control's commands, --switch-output's signals.
 * false when a switch failed (said); *stop: the control said stop. */
static bool controls(rsession *s, bool *stop)
{
	if (s->ctl.ctl_fd >= 0)
		rec_ctl_handle(&s->ctl, s->rec, stop);
	while (s->switches != switch_signals) {
		s->switches++;
		if (!rec_switch_output(s->rec, s->o->r.output, &s->dumps))
			return false;
	}
	uint64_t now = s->o->switch_ns ? monotonic_ns() : 0;
	bool due = (s->o->switch_size && pk_recording_output_size(s->rec) >= s->o->switch_size) ||
		   (s->o->switch_ns && now - s->switched_at >= s->o->switch_ns);
	if (!due)
		return true;
	s->switched_at = now;
	return rec_switch_output(s->rec, s->o->r.output, &s->dumps);
}

/* Steps until the library or the caller stops; false when the output
 * failed (said here). */
static bool record_loop(rsession *s)
{
	bool stop = false;
	while (!stop_signal && !stop) {
		if (!controls(s, &stop))
			return false;
		int rc = pk_recording_step(s->rec, &s->err);
		if (rc < 0) {
			pk_cli_print_error("record", &s->err);
			return false;
		}
		if (rc == 0)
			return true;
		if (s->model && pk_model_now(s->model) >= pk_model_end(s->model))
			return true; /* the scenario's end (CPU events never hang up) */
	}
	return true;
}

/* The AUX summary (an arm_spe recording). */
static void print_aux_summary(const rsession *s, const pk_record_stats *st)
{
	bool discard;
	const char *pmu = pk_recording_aux_pmu(s->rec, &discard);
	if (!pmu)
		return;
	if (discard) {
		fprintf(stderr, "[ pmukit record: %s in discard mode: no SPE data was written ]\n", pmu);
		return;
	}
	fprintf(stderr, "[ pmukit record: %" PRIu64 " AUXTRACE buffers, %" PRIu64
			" bytes of SPE data; %" PRIu64 " AUX records: %" PRIu64 " truncated, %" PRIu64
			" partial, %" PRIu64 " collision ]\n",
		st->nr_auxtrace, st->aux_bytes, st->nr_aux, st->nr_aux_truncated,
		st->nr_aux_partial, st->nr_aux_collision);
	pd_aux_flags_warn(st->nr_aux_truncated, st->nr_aux_partial, st->nr_aux_collision,
			  st->nr_aux, ": the buffer was full (raise the AUX size with -m ,PAGES or "
			  "the period with -c)", ": raise the period with -c");
}

static void print_summary(const rsession *s, const char *name)
{
	const pk_recording_totals *rs = pk_recording_stats(s->rec);
	const pk_record_stats *st = rs->rings;
	if (s->o->quiet)
		return;
	if (s->model) {
		char label[PATH_MAX + 300];
		pk_model_label(s->model, label, sizeof(label));
		fprintf(stderr, "# modeled: %s -- no hardware was measured; %.3f s of virtual time\n",
			label, (double)pk_model_now(s->model) / 1e9);
	}
	fprintf(stderr, "[ pmukit record: Woken up %" PRIu64 " times to write data ]\n", rs->wakeups);
	if (st->nr_lost_records || st->nr_lost_samples)
		fprintf(stderr,
			"[ pmukit record: lost %" PRIu64 " events in %" PRIu64
			" LOST records and %" PRIu64 " samples (PERF_FORMAT_LOST) ]\n",
			st->nr_lost, st->nr_lost_records, st->nr_lost_samples);
	print_aux_summary(s, st);
	if (rs->samples < st->nr_samples && !s->o->switch_output) /* rings: all the files' */
		fprintf(stderr, "[ pmukit record: %" PRIu64 " samples read did not reach the output ]\n",
			st->nr_samples - rs->samples);
	fprintf(stderr, "[ pmukit record: Captured and wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
		(double)rs->bytes / (1024.0 * 1024.0),
		pk_recording_pipe(s->rec) ? "(pipe)" : name, rs->samples);
}

/* From the file begun to the file closed; the exit status. */
static int record(rsession *s)
{
	if (pk_recording_begin(s->rec, &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		return 1;
	}
	int code = 0;
	if (pk_recording_start(s->rec, &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		int e = pk_recording_exec_errno(s->rec);
		if (e) /* the output is gone, the old one back */
			return pk_workload_exec_exit_code(e);
		code = 1;
	}
	s->switched_at = monotonic_ns();
	bool ok = code == 0 && record_loop(s);
	int rc = pk_recording_finish(s->rec, ok, &s->err);
	if (rc < 0)
		pk_cli_print_error("record", &s->err);
	/* --switch-output, --timestamp-filename: the last file a dump too;
	 * perf's words for its name */
	bool dumped = (s->o->switch_output || s->o->timestamp_filename) && rc >= 0 &&
		      rec_dump_final(s->o->r.output, &s->dumps);
	char name[4200];
	snprintf(name, sizeof(name), "%s%s", s->o->r.output, dumped ? ".<timestamp>" : "");
	print_summary(s, name);
	return code ? code : ok && rc >= 0 ? 0 : 1;
}

/* -r PRIO: pmukit itself at SCHED_FIFO PRIO (0: not), perf's words and
 * status when refused. 0, or the exit code. */
static int set_realtime(int prio)
{
	struct sched_param p = {.sched_priority = prio};
	if (prio && sched_setscheduler(0, SCHED_FIFO, &p) < 0) {
		fputs("Could not set realtime priority.\n", stderr);
		return 255;
	}
	return 0;
}

static int run(const ropts *o, int argc, char **argv)
{
	rsession s = {.o = o, .ctl = {.ctl_fd = -1, .ack_fd = -1},
		      .dumps = {.max = o->switch_max_files}};
	pk_error_clear(&s.err);
	char why[4300];
	int bad = o->control ? ctl_open(&s.ctl, o->control, why, sizeof(why)) : 0;
	if (bad == -1)
		return pk_cli_usage_error("record", "%s", why);
	if (bad) {
		fprintf(stderr, "pmukit record: %s\n", why);
		return 1;
	}
	if (o->model) {
		s.model = pk_model_new(o->model, &s.err);
		if (!s.model) {
			pk_cli_print_error("record", &s.err);
			return 1;
		}
		s.kernel = pk_model_kernel(s.model);
	}
	if (o->kcore) { /* perf's words when it cannot read it */
		fputs(access("/proc/kcore", R_OK) ? "ERROR: kcore is not readable.\n"
						  : "pmukit record: --kcore: pmukit does not copy "
						    "/proc/kcore\n", stderr);
		return 255;
	}
	int status = setup_events(&s, argc, argv);
	if (!status && !o->dry_run)
		status = set_realtime(o->realtime);
	if (!status && !o->dry_run)
		status = open_events(&s);
	if (!status && !o->dry_run)
		status = record(&s);
	/* the command's status is perf record's (a signal's: perf raises it again) */
	int child;
	if (!status && s.rec && pk_recording_child_status(s.rec, &child))
		status = pk_workload_exit_code(child);
	/* stopped early (Ctrl-C, a failed output): the command too, as in perf */
	pk_recording_free(s.rec);
	pk_model_free(s.model);
	rec_dumps_free(&s.dumps);
	ctl_close(&s.ctl);
	return status;
}

/* -m PAGES[,AUX] (either may be empty, as perf's "-m ,64"). */
static int parse_mmap_pages(const char *arg, ropts *o)
{
	char buf[64];
	uint64_t v;
	int r;
	snprintf(buf, sizeof(buf), "%s", arg);
	char *aux = strchr(buf, ',');
	if (aux)
		*aux++ = '\0';
	if (*buf) {
		if ((r = pk_cli_parse_u64("record", "-m", buf, 1, (uint64_t)1 << 30, &v)))
			return r;
		if (v & (v - 1))
			return pk_cli_usage_error("record", "-m needs a power of 2, not '%s'", buf);
		o->r.mmap_pages = (size_t)v;
	}
	if (aux && *aux) {
		if ((r = pk_cli_parse_u64("record", "-m ,AUX", aux, 2, (uint64_t)1 << 18, &v)))
			return r;
		if (v & (v - 1))
			return pk_cli_usage_error("record", "the AUX pages of -m need a power of 2, "
							    "not '%s'", aux);
		o->r.aux_pages = (size_t)v;
	}
	return 0;
}

enum {
	O_SAMPLE_CPU = 256, O_NAMESPACES, O_ALL_CGROUPS, O_SWITCH_EVENTS, O_ALL_USER,
	O_ALL_KERNEL, O_PHYS_DATA, O_DATA_PAGE_SIZE, O_CODE_PAGE_SIZE, O_USER_REGS,
	O_PER_THREAD, O_SAMPLE_ID, O_FILTER, O_MAX_SIZE, O_NO_BPF_EVENT, O_CONTROL,
	O_SWITCH_OUTPUT, O_BUILDID_ALL, O_USER_CALLCHAINS, O_KERNEL_CALLCHAINS,
	O_RUNNING_TIME, O_NO_SAMPLES, O_NO_BUFFERING, O_DRY_RUN, O_MMAP_FLUSH, O_STRICT_FREQ,
	O_PROC_MAP_TIMEOUT, O_NUM_THREAD_SYNTH, O_AIO, O_AFFINITY, O_TIMESTAMP_FILENAME,
	O_SWITCH_MAX_FILES, O_SYNTH, O_TAIL_SYNTH, O_OFF_CPU, O_CLANG_PATH, O_CLANG_OPT,
	O_KCORE, O_AUX_SAMPLE, O_THREADS, O_EXCLUDE_PERF, O_SPE_META, O_TIMESTAMP_BOUNDARY,
};

static const pk_opt record_opts_table[] = {
	{"event", 'e', 0, required_argument, "EVENTS",
	 "events to sample (perf syntax; default cycles, or\n"
	 "cpu-clock when there is no core PMU)"},
	{"freq", 'F', 0, required_argument, "FREQ",
	 "samples per second (default 4000; 'max': the\n"
	 "kernel's perf_event_max_sample_rate)"},
	{"count", 'c', 0, required_argument, "PERIOD",
	 "one sample every PERIOD events (arm_spe: below\n"
	 "caps/min_interval, raised to it as the driver does)"},
	{NULL, 'g', 0, no_argument, NULL, "record call chains (frame pointers)"},
	{"call-graph", 0, 'G', required_argument, "MODE",
	 "fp, dwarf[,SIZE] (the user stack, SIZE bytes, default\n"
	 "8192, unwound by script and report) or lbr"},
	{"branch-any", 'b', 0, no_argument, NULL, "sample taken-branch stacks (-j any)"},
	{"branch-filter", 'j', 0, required_argument, "F",
	 "branch stacks of these kinds: any, any_call, any_ret,\n"
	 "ind_call, ind_jmp, call, cond, u, k, hv, in_tx, no_tx,\n"
	 "abort_tx, save_type, stack, priv (needs a PMU with\n"
	 "LBR, BRBE or AMD's branch sampling)"},
	{"all-cpus", 'a', 0, no_argument, NULL, "system-wide, on every CPU"},
	{"cpu", 'C', 0, required_argument, "CPUS", "system-wide on these CPUs (\"0-3,8\")"},
	{"pid", 'p', 0, required_argument, "PIDS", "existing processes (all their threads)"},
	{"tid", 't', 0, required_argument, "TIDS", "existing threads"},
	{"output", 'o', 0, required_argument, "FILE",
	 "output file (default perf.data; '-' writes pipe mode\n"
	 "to standard output)"},
	{"mmap-pages", 'm', 0, required_argument, "PAGES[,AUX]",
	 "ring buffer data pages per CPU (power of 2,\n"
	 "default 128); AUX: the AUX area's pages for arm_spe\n"
	 "(power of 2, >= 2; default 4 MiB, 128 KiB unprivileged)"},
	{"spe-meta", 0, O_SPE_META, required_argument, "1|2",
	 "AUXTRACE_INFO version for arm_spe (default 1: what\n"
	 "perf <= 6.12 writes and reads; 2: per-CPU MIDR,\n"
	 "perf 6.13+)"},
	{"compression-level", 'z', 0, optional_argument, "LEVEL",
	 "zstd-compress the samples (level 1-22, default 1)"},
	{"data", 'd', 0, no_argument, NULL, "sample data addresses (PERF_SAMPLE_ADDR)"},
	{"timestamp", 'T', 0, no_argument, NULL, "accepted: samples always have TIME"},
	{"sample-cpu", 0, O_SAMPLE_CPU, no_argument, NULL, "sample the CPU"},
	{"stat", 's', 0, no_argument, NULL, "per-thread counts (inherit_stat)"},
	{"period", 'P', 0, no_argument, NULL, "sample the period"},
	{"weight", 'W', 0, no_argument, NULL, "sample the weight"},
	{"raw-samples", 'R', 0, no_argument, NULL, "sample raw data (PERF_SAMPLE_RAW)"},
	{"no-inherit", 'i', 0, no_argument, NULL, "do not follow the command's children"},
	{"intr-regs", 'I', 0, optional_argument, "REGS",
	 "sample registers at the interrupt (all, or a list)"},
	{"user-regs", 0, O_USER_REGS, optional_argument, "REGS",
	 "sample user registers (all, or a list)"},
	{"namespaces", 0, O_NAMESPACES, no_argument, NULL, "record namespace events"},
	{"all-cgroups", 0, O_ALL_CGROUPS, no_argument, NULL, "record cgroup events"},
	{"switch-events", 0, O_SWITCH_EVENTS, no_argument, NULL, "record context switches"},
	{"all-user", 0, O_ALL_USER, no_argument, NULL, "user space only"},
	{"all-kernel", 0, O_ALL_KERNEL, no_argument, NULL, "kernel only"},
	{"phys-data", 0, O_PHYS_DATA, no_argument, NULL, "sample physical data addresses"},
	{"data-page-size", 0, O_DATA_PAGE_SIZE, no_argument, NULL, "sample data page sizes"},
	{"code-page-size", 0, O_CODE_PAGE_SIZE, no_argument, NULL, "sample code page sizes"},
	{"sample-identifier", 0, O_SAMPLE_ID, no_argument, NULL, "PERF_SAMPLE_IDENTIFIER"},
	{"per-thread", 0, O_PER_THREAD, no_argument, NULL, "one ring per thread, no CPU"},
	{"delay", 'D', 0, required_argument, "MS",
	 "enable the events MS ms after the command starts"},
	{"quiet", 'q', 0, no_argument, NULL, "no closing lines"},
	{"max-size", 0, O_MAX_SIZE, required_argument, "SIZE",
	 "stop when the file reaches SIZE (4096, 512K, 10M, 1G)"},
	{"control", 0, O_CONTROL, required_argument, "fifo:CTL[,ACK]|fd:CTL[,ACK]",
	 "take commands on CTL (enable, disable, ping, stop,\n"
	 "evlist), each answered with 'ack\\n' on ACK"},
	{"switch-output", 0, O_SWITCH_OUTPUT, optional_argument, "signal|SIZE|TIME",
	 "on SIGUSR2 (and when the file's data reach SIZE:\n"
	 "10M, units B K M G; or every TIME: 30s, units s m h d),\n"
	 "keep the file so far as OUTPUT.<timestamp> and go on\n"
	 "in a new one (the last file too)"},
	{"switch-max-files", 0, O_SWITCH_MAX_FILES, required_argument, "N",
	 "with --switch-output, keep the last N files: the\n"
	 "oldest removed"},
	{"filter", 0, O_FILTER, required_argument, "FILTER",
	 "refused: tracepoint and address filters are not set"},
	{"no-buildid", 'B', 0, no_argument, NULL, "no BUILD_ID pass, no build-id cache"},
	{"no-buildid-cache", 'N', 0, no_argument, NULL,
	 "keep no binaries in the build-id cache"},
	{"buildid-all", 0, O_BUILDID_ALL, no_argument, NULL,
	 "record the build ids of all objects mapped, hit or not"},
	{"no-bpf-event", 0, O_NO_BPF_EVENT, no_argument, NULL,
	 "accepted: pmukit records no BPF program events"},
	{"clockid", 'k', 0, required_argument, "CLOCKID",
	 "the events' clock (use_clockid): monotonic,\n"
	 "monotonic_raw, realtime, boottime, tai (mono, raw,\n"
	 "real, boot) or clock_gettime's number; the file's\n"
	 "CLOCKID and CLOCK_DATA give its reference time"},
	{"user-callchains", 0, O_USER_CALLCHAINS, no_argument, NULL,
	 "user space call chains only (exclude_callchain_kernel)"},
	{"kernel-callchains", 0, O_KERNEL_CALLCHAINS, no_argument, NULL,
	 "kernel call chains only (exclude_callchain_user)"},
	{"running-time", 0, O_RUNNING_TIME, no_argument, NULL,
	 "read the times enabled and running (read_format)"},
	{"no-samples", 'n', 0, no_argument, NULL,
	 "do not sample (period 0): the side records only"},
	{"no-buffering", 0, O_NO_BUFFERING, no_argument, NULL,
	 "wake up at every event (wakeup_events 1)"},
	{"strict-freq", 0, O_STRICT_FREQ, no_argument, NULL,
	 "a -F above the kernel's maximum is an error, not\n"
	 "lowered"},
	{"dry-run", 0, O_DRY_RUN, no_argument, NULL,
	 "parse the options and events, record nothing"},
	{"realtime", 'r', 0, required_argument, "PRIO",
	 "run pmukit with SCHED_FIFO at PRIO"},
	{"timestamp-filename", 0, O_TIMESTAMP_FILENAME, no_argument, NULL,
	 "rename the file to OUTPUT.<timestamp> at the end"},
	{"mmap-flush", 0, O_MMAP_FLUSH, required_argument, "NUMBER",
	 "accepted: pmukit copies the rings out at each pass"},
	{"proc-map-timeout", 0, O_PROC_MAP_TIMEOUT, required_argument, "MS",
	 "accepted: pmukit reads /proc/PID/maps whole"},
	{"num-thread-synthesize", 0, O_NUM_THREAD_SYNTH, required_argument, "N",
	 "accepted: pmukit synthesizes in one thread"},
	{"aio", 0, O_AIO, optional_argument, "N",
	 "accepted: pmukit writes the file synchronously"},
	{"affinity", 0, O_AFFINITY, required_argument, "node|cpu",
	 "accepted: pmukit does not move its own thread"},
	{"uid", 'u', 0, required_argument, "USER",
	 "the processes USER (a name or a uid) runs now, as -p"},
	{"timestamp-boundary", 0, O_TIMESTAMP_BOUNDARY, no_argument, NULL,
	 "accepted: SAMPLE_TIME has the first and last sample's\n"
	 "times unless -B (perf 6.1: 0 and 0 with -B too)"},
	{"synth", 0, O_SYNTH, required_argument, "no|all|task|mmap|cgroup",
	 "what is synthesized of the state before the\n"
	 "recording (default all; task: no maps; no: the kernel\n"
	 "map only)"},
	{"tail-synthesize", 0, O_TAIL_SYNTH, no_argument, NULL,
	 "synthesize the kernel map and the tasks at the end"},
	{"threads", 0, O_THREADS, optional_argument, "SPEC",
	 "accepted: pmukit writes one file where perf writes a\n"
	 "directory (data, data.N); both tools read either alike"},
	{"exclude-perf", 0, O_EXCLUDE_PERF, no_argument, NULL,
	 "refused: a tracepoint filter, which pmukit does not set"},
	{"snapshot", 'S', 0, optional_argument, "OPTS",
	 "refused: AUX snapshot mode (perf's words without an\n"
	 "AUX event)"},
	{"aux-sample", 0, O_AUX_SAMPLE, optional_argument, "OPTS",
	 "refused: AUX area sampling (perf's words without an\n"
	 "AUX event)"},
	{"kcore", 0, O_KCORE, no_argument, NULL,
	 "refused: copying /proc/kcore (perf's words when it\n"
	 "cannot be read)"},
	{"off-cpu", 0, O_OFF_CPU, no_argument, NULL,
	 "accepted: no off-CPU event (needs BPF; perf 6.1 built\n"
	 "without BPF skeletons takes it the same)"},
	{"clang-path", 0, O_CLANG_PATH, required_argument, "PATH",
	 "accepted: pmukit compiles no BPF scriptlets"},
	{"clang-opt", 0, O_CLANG_OPT, required_argument, "OPTIONS",
	 "accepted: pmukit compiles no BPF scriptlets"},
	{"model", 0, 'M', required_argument, "SCENARIO",
	 "record on the PMU model (docs/model.md): the scenario's\n"
	 "threads run in virtual time, no command; default\n"
	 "target: every scenario thread (-p/-t: some, -a/-C:\n"
	 "the model's CPUs); the file's host is the modeled\n"
	 "machine and stderr says the samples are modeled"},
	{0},
};

const pk_optspec record_optspec = {
	.cmd = "record",
	.synopsis = "usage: pmukit record [-e EVENTS] [-F FREQ | -c PERIOD] [-g] [-a] [-C CPUS]\n"
		    "                     [-p PID | -t TID] [-o FILE] [-m PAGES[,AUX]] [-- COMMAND [ARGS]]\n"
		    "       pmukit record --model SCENARIO [options]\n"
		    "\n"
		    "Samples events into a perf.data file that perf and pmukit read.\n",
	.opts = record_opts_table,
	.notes = "The command's exit status is pmukit's (128+N when signal N killed it), as\n"
		 "perf record's.\n",
	.stop_at_arg = true,
};

/* --user-regs / -I: register names into a mask (lib/core's table; '?'
 * lists them as perf does). 0, or the exit code. */
static int parse_regs(const char *opt, const char *arg, uint64_t *mask)
{
	const pk_regs_arch *arch = pk_regs_host();
	char bad[64] = "";
	if (arg && !strcmp(arg, "?")) {
		uint64_t all = pk_regs_default_mask(arch);
		fprintf(stderr, "available registers: ");
		for (int bit = 0; bit < 64; bit++)
			if (all >> bit & 1 && pk_regs_name(arch, bit))
				fprintf(stderr, "%s ", pk_regs_name(arch, bit));
		fprintf(stderr, "\n");
		return 129;
	}
	if (pk_regs_parse(arch, arg, mask, bad, sizeof(bad)) < 0)
		return pk_cli_usage_error("record", "%s: unknown register '%s' ('%s=?' lists them)",
					  opt, bad, opt);
	return 0;
}

/* -b (any) / -j FILTERS: once, as perf takes them. 0, or the exit code. */
static int parse_branch(const char *arg, ropts *o)
{
	if (o->r.branch)
		return pk_cli_usage_error("record", "-b and -j exclude each other and come once");
	pk_error err;
	pk_error_clear(&err);
	if (pk_branch_filter_parse(arg, &o->r.branch, &err) < 0) {
		pk_cli_print_error("record", &err);
		return 129;
	}
	return 0;
}

/* --switch-output[=signal|SIZE|TIME]: SIZE a number with B, K, M or G,
 * TIME with s, m, h or d (perf's units, case as perf's). 0, or the exit
 * code. */
static int parse_switch_output(const char *arg, ropts *o)
{
	static const char sizes[] = "BKMG", times[] = "smhd";
	static const uint64_t secs[] = {1, 60, 3600, 86400};
	o->switch_output = true;
	if (!arg || !strcmp(arg, "signal"))
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	const char *u = end != arg && *arg != '-' && *end && !end[1] ? end : NULL;
	const char *size = u ? strchr(sizes, *u) : NULL, *time = u ? strchr(times, *u) : NULL;
	if (errno || !v || !(size || time) || v > (UINT64_MAX >> 30) / 86400)
		return pk_cli_usage_error("record", "--switch-output takes signal, a size (10M: "
					  "B, K, M, G) or a time (30s: s, m, h, d), not '%s'", arg);
	if (size)
		o->switch_size = (uint64_t)v << (10 * (size - sizes));
	else
		o->switch_ns = (uint64_t)v * secs[time - times] * 1000000000u;
	return 0;
}

/* The options that only change attrs or the run's bookkeeping; 1 when c
 * is not one of them, 0 when done, -code on a usage error. */
static int parse_attr_option(int c, ropts *o)
{
	int r = 0;
	pk_error err;
	switch (c) {
	case 'd': o->r.sample_addr = true; break;
	case 'T': break; /* samples have TIME already (perf 6.1 the same) */
	case O_SAMPLE_CPU: o->r.sample_cpu = true; break;
	case 's': o->r.inherit_stat = true; break;
	case 'P': o->r.sample_period = true; break;
	case 'W': o->r.weight = true; break;
	case 'B': o->r.no_buildid = true; break;
	case 'N': o->r.no_buildid_cache = true; break;
	case O_BUILDID_ALL: o->r.buildid_all = true; break;
	case O_NO_BPF_EVENT: break; /* pmukit synthesizes no BPF events */
	case O_NAMESPACES: o->r.namespaces = true; break;
	case O_ALL_CGROUPS: o->r.all_cgroups = true; break;
	case O_SWITCH_EVENTS: o->r.switch_events = true; break;
	case O_ALL_USER: o->r.all_user = true; break;
	case O_ALL_KERNEL: o->r.all_kernel = true; break;
	case O_PHYS_DATA: o->r.sample_extra |= PERF_SAMPLE_PHYS_ADDR; break;
	case O_DATA_PAGE_SIZE: o->r.sample_extra |= PERF_SAMPLE_DATA_PAGE_SIZE; break;
	case O_CODE_PAGE_SIZE: o->r.sample_extra |= PERF_SAMPLE_CODE_PAGE_SIZE; break;
	case 'R': o->r.raw = true; break;
	case O_USER_REGS: r = parse_regs("--user-regs", optarg, &o->r.user_regs); break;
	case 'I': r = parse_regs("-I", optarg, &o->r.intr_regs); break;
	case 'D': {
		uint64_t v;
		r = pk_cli_parse_u64("record", "-D", optarg, 0, INT32_MAX, &v);
		o->r.delay_ms = (int64_t)v;
		break;
	}
	case 'q': o->quiet = true; break;
	case O_CONTROL: o->control = optarg; break;
	case O_SWITCH_OUTPUT: r = parse_switch_output(optarg, o); break;
	case O_PER_THREAD: o->r.per_thread = true; break;
	case O_SAMPLE_ID: o->r.sample_identifier = true; break;
	case 'i': o->r.no_inherit = true; break;
	case O_MAX_SIZE:
		if (pk_recording_max_size(&o->r, optarg, &err) < 0)
			r = pk_cli_usage_error("record", "%s", err.msg);
		break;
	case 'b':
	case 'j': r = parse_branch(c == 'b' ? "any" : optarg, o); break;
	case O_FILTER:
		r = needs_event(o, "--filter", " or HW tracer");
		o->filter = optarg;
		break;
	case 'z': {
		uint64_t v = 1; /* perf's default level */
		r = optarg ? pk_cli_parse_u64("record", "-z", optarg, 1, 22, &v) : 0;
		o->r.compress = (int)v;
		break;
	}
	default: return 1;
	}
	return r ? -r : 0;
}

/* The options added for perf 6.1's (issue 24): the events' clock and
 * attrs, the run's; those perf tunes and pmukit does not need, accepted
 * with their values checked. 1 when c is not one of them, 0 when done,
 * -code on a usage error. */
static int parse_perf61_option(int c, ropts *o)
{
	int r = 0;
	uint64_t v;
	pk_error err;
	switch (c) {
	case 'k':
		if (pk_recording_clockid(&o->r, optarg, &err) < 0)
			r = pk_cli_usage_error("record", "%s", err.msg);
		break;
	case O_USER_CALLCHAINS: o->r.user_callchains = true; break;
	case O_KERNEL_CALLCHAINS: o->r.kernel_callchains = true; break;
	case O_RUNNING_TIME: o->r.running_time = true; break;
	case 'n': o->r.no_samples = true; break;
	case O_NO_BUFFERING: o->r.no_buffering = true; break;
	case O_STRICT_FREQ: o->r.strict_freq = true; break;
	case O_DRY_RUN: o->dry_run = true; break;
	case O_TIMESTAMP_FILENAME: o->timestamp_filename = true; break;
	case 'r':
		r = pk_cli_parse_u64("record", "-r", optarg, 0, INT32_MAX, &v);
		o->realtime = (int)v;
		break;
	case O_MMAP_FLUSH: {
		pk_recording_opts probe = o->r; /* perf's sizes: a number with B, K, M, G */
		if (pk_recording_max_size(&probe, optarg, &err) < 0)
			r = pk_cli_usage_error("record", "--mmap-flush '%s': a size like 1, 16K, 1M",
					       optarg);
		break;
	}
	case O_PROC_MAP_TIMEOUT:
		r = pk_cli_parse_u64("record", "--proc-map-timeout", optarg, 0, UINT32_MAX, &v);
		break;
	case O_NUM_THREAD_SYNTH:
		r = pk_cli_parse_u64("record", "--num-thread-synthesize", optarg, 0, INT32_MAX, &v);
		break;
	case O_AIO: /* perf's range: 1..4 control blocks */
		r = optarg ? pk_cli_parse_u64("record", "--aio", optarg, 1, 4, &v) : 0;
		break;
	case O_SYNTH:
		if (pk_recording_synth(&o->r, optarg, &err) < 0)
			r = pk_cli_usage_error("record", "%s", err.msg);
		break;
	case O_TAIL_SYNTH: o->r.tail_synth = true; break;
	case 'u': o->uid = optarg; break;
	case O_THREADS: case O_TIMESTAMP_BOUNDARY: case O_OFF_CPU: case O_CLANG_PATH: case O_CLANG_OPT: break;
	case 'S': o->aux_mode = "snapshot"; break;
	case O_AUX_SAMPLE: o->aux_mode = "sample"; break;
	case O_KCORE: o->kcore = true; break;
	case O_EXCLUDE_PERF:
		r = needs_event(o, "--exclude-perf", "");
		o->exclude_perf = true;
		break;
	case O_SWITCH_MAX_FILES:
		r = pk_cli_parse_u64("record", "--switch-max-files", optarg, 0, 1u << 20, &v);
		o->switch_max_files = (unsigned)v;
		break;
	case O_AFFINITY:
		if (strcmp(optarg, "node") && strcmp(optarg, "cpu"))
			r = pk_cli_usage_error("record", "--affinity takes node or cpu, not '%s'",
					       optarg);
		break;
	default: return 1;
	}
	return r ? -r : 0;
}

/* -u USER: the user's processes as -p (perf's warning when -p or -t
 * overrides it). 0, or the exit code. */
static int uid_targets(ropts *o)
{
	static char pids[1 << 16];
	pk_error err;
	pk_error_clear(&err);
	if (o->r.pids || o->r.tids) {
		fputs("Warning:\nPID/TID switch overriding UID\n", stderr);
		return 0;
	}
	int rc = pk_recording_uid_pids(NULL, o->uid, pids, sizeof(pids), &err);
	if (rc == -EINVAL) { /* perf's words */
		fprintf(stderr, "Error:\n%s\n", err.msg);
		return 1;
	}
	if (rc < 0) {
		pk_cli_print_error("record", &err);
		return 1;
	}
	o->r.pids = pids;
	return 0;
}

/* Options into *o; 0, or the exit code of a usage error. */
static int parse_options(int argc, char **argv, ropts *o)
{
	int c, r;
	pk_error err;
	pk_error_clear(&err);
	pk_opt_begin(&record_optspec);
	while ((c = pk_opt_next(&record_optspec, argc, argv)) != -1) {
		if ((r = parse_attr_option(c, o)) <= 0 || (r = parse_perf61_option(c, o)) <= 0) {
			if (r < 0)
				return -r;
			continue;
		}
		switch (c) {
		case 'e':
			if (o->r.nr_events == RECORD_MAX_EVENT_OPTS)
				return pk_cli_usage_error("record", "too many -e options");
			o->events[o->r.nr_events++] = optarg;
			break;
		case 'F':
			o->r.freq_max = !strcmp(optarg, "max");
			if (!o->r.freq_max && (r = pk_cli_parse_u64("record", "-F", optarg, 1, UINT64_MAX,
								 &o->r.freq)))
				return r;
			break;
		case 'c':
			/* the kernel takes periods below 2^63 */
			if ((r = pk_cli_parse_u64("record", "-c", optarg, 1, INT64_MAX, &o->r.period)))
				return r;
			break;
		case 'g':
			if (!o->r.call_graph)
				o->r.call_graph = PK_CALL_GRAPH_FP;
			break;
		case 'G':
			if (pk_recording_call_graph(&o->r, optarg, &err) < 0)
				return pk_cli_usage_error("record", "%s", err.msg);
			break;
		case 'a': o->r.system_wide = true; break;
		case 'C': o->r.cpu_list = optarg; break;
		case 'p': o->r.pids = optarg; break;
		case 't': o->r.tids = optarg; break;
		case 'o': o->r.output = optarg; break;
		case 'M': o->model = optarg; break;
		case 'm':
			if ((r = parse_mmap_pages(optarg, o)))
				return r;
			break;
		case O_SPE_META:
			if (strcmp(optarg, "1") && strcmp(optarg, "2"))
				return pk_cli_usage_error("record", "--spe-meta takes 1 or 2, not '%s'",
							  optarg);
			o->r.spe_meta = optarg[0] - '0';
			break;
		default: return 129; /* PK_OPT_ERROR, said */
		}
	}
	r = pk_cli_nonempty("record", "-p", o->r.pids, "process id");
	if (!r)
		r = pk_cli_nonempty("record", "-t", o->r.tids, "thread id");
	for (size_t i = 0; !r && i < o->r.nr_events; i++)
		r = pk_cli_nonempty("record", "-e", o->events[i], "event");
	if (r)
		return r;
	if (o->uid && (r = uid_targets(o)))
		return r;
	o->cmd_argc = argc - optind;
	o->r.cmd = o->cmd_argc ? argv + optind : NULL;
	if (pk_recording_opts_check(&o->r, o->model != NULL, &err) < 0)
		return pk_cli_usage_error("record", "%s", err.msg);
	if (o->switch_output && !strcmp(o->r.output, "-"))
		return pk_cli_usage_error("record", "--switch-output: not to a pipe (-o -)");
	return 0;
}

int cmd_record(int argc, char **argv)
{
	ropts o;
	memset(&o, 0, sizeof(o));
	o.r.size = sizeof(o.r);
	o.r.events = (const char *const *)o.events;
	o.r.output = "perf.data";
	int r = parse_options(argc, argv, &o);
	if (r)
		return r;
	/* perf's warning: a ring is read when half full (its pages and the
	 * control page) */
	uint64_t wakeup = ((o.r.mmap_pages ? o.r.mmap_pages : 128) + 1) *
			  (uint64_t)sysconf(_SC_PAGESIZE) / 2;
	if (o.switch_size && o.switch_size < wakeup)
		fprintf(stderr, "WARNING: switch-output data size lower than wakeup kernel buffer "
				"size (%" PRIu64 "K) expect bigger perf.data sizes\n", wakeup >> 10);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = o.switch_output ? on_switch_signal : SIG_IGN; /* perf's */
	sigaction(SIGUSR2, &sa, NULL);
	/* a file size limit must end in a clean stop, like a full disk */
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* the full command line, as perf's CMDLINE feature has it */
	char *full[256];
	int n = 0;
	full[n++] = (char *)"pmukit";
	for (int i = 0; i < argc && n < 255; i++)
		full[n++] = argv[i];
	return run(&o, n, full);
}
