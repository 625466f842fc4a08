/* pmukit record: sample a command, processes or the system into perf.data.
 *
 * One run: events parsed and configured (-F lowered to the kernel's maximum
 * rate as perf does), targets resolved, the command forked and held before
 * exec (workload.c: a command that cannot run stops us before perf.data is
 * touched), events opened with their ring buffers, the file begun and the
 * state before recording synthesized, then ring passes until the command
 * ends, Ctrl-C, or the output fails. Each pass is written through, so a
 * kill loses one pass at most. Any early stop (a full disk, a broken pipe)
 * ends the command with SIGTERM, as perf does, instead of waiting for it.
 * The samples counted in the closing line are those that reached the file. */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/model.h>
#include <pmukit/pmu.h>
#include <pmukit/record.h>

#include "builtin.h"
#include "perf_regs.h"
#include "record_spe.h"
#include "stat_model.h"
#include "workload.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* perf's default rate, lowered like an -F to the kernel's maximum */
#define RECORD_DEFAULT_FREQ 4000

#define RECORD_MAX_EVENT_OPTS 64

typedef struct ropts {
	char *events[RECORD_MAX_EVENT_OPTS];   /* the -e strings */
	int nr_events;
	uint64_t freq, period;
	bool freq_max;               /* -F max */
	bool all_cpus;
	int call_graph;              /* -g, --call-graph: PK_CALL_GRAPH_*, 0: none */
	uint32_t stack_dump;         /* --call-graph dwarf,SIZE (0: perf's 8192) */
	uint16_t max_stack;          /* --call-graph fp,N: sample_max_stack */
	const char *cpu_list, *pids, *tids, *output;
	const char *model;           /* --model: a scenario file */
	size_t mmap_pages;
	size_t aux_pages;            /* -m ,AUX */
	int spe_meta;                /* --spe-meta */
	char **cmd;
	int cmd_argc;
	/* what goes into the attrs (perf 6.1's record options) */
	bool sample_addr, sample_cpu, inherit_stat, sample_period, weight, raw;
	bool no_inherit, per_thread, sample_identifier, all_user, all_kernel;
	bool namespaces, all_cgroups, switch_events;
	uint64_t sample_extra;       /* --phys-data, --data/code-page-size */
	uint64_t user_regs, intr_regs; /* --user-regs, -I: register masks */
	int64_t delay_ms;            /* -D: events enabled this late (0: at once) */
	bool quiet;                  /* -q: no closing lines */
	uint64_t max_size;           /* --max-size: stop at this many bytes (0: none) */
	const char *filter;          /* --filter, for the event before it */
	int compress;                /* -z: zstd level, 0: none */
	uint64_t branch;             /* -b / -j: branch_sample_type, 0: none */
	bool no_buildid;             /* -B: no BUILD_ID feature */
} ropts;

/* One recording: what run() sets up and tears down. */
typedef struct rsession {
	const ropts *o;
	pk_error err;
	pk_pmus *pmus;
	pk_evlist *evlist;
	pk_cpumap *cpus;
	pk_threadmap *threads;
	pk_recorder *rec;
	pk_pd_writer *w;
	pk_workload wl;
	pk_model *model;             /* --model */
	const pk_kernel *kernel;     /* the model's, or NULL: the real one */
	bool system_wide, traced, pipe_mode;
	bool old_kept;               /* the previous output was renamed to <output>.old */
	bool child_done;
	int child_status;            /* its wait status once child_done */
	uint64_t wakeups;
	record_spe spe;              /* an arm_spe event's setup (record_spe.c) */
} rsession;

/* kernel.perf_event_max_sample_rate, from the kernel seam; 0 when unknown. */
static uint64_t max_sample_rate(const pk_kernel *k)
{
	int64_t v = pk_host_number(k, PK_HOST_MAX_SAMPLE_RATE, 0);
	return v > 0 ? (uint64_t)v : 0;
}

/* The kernel refuses a sample_freq above its maximum (EINVAL); perf lowers
 * the rate with a warning instead, and so do we. */
static uint64_t sample_freq(const ropts *o, const pk_kernel *k)
{
	if (o->period)
		return 0;
	uint64_t want = o->freq ? o->freq : RECORD_DEFAULT_FREQ;
	uint64_t max = max_sample_rate(k);
	if (o->freq_max) {
		if (!max)
			return RECORD_DEFAULT_FREQ;
		fprintf(stderr, "info: using the maximum frequency rate, %" PRIu64 " Hz\n", max);
		return max;
	}
	if (!max || want <= max)
		return o->freq;
	if (o->freq)
		fprintf(stderr,
			"warning: the maximum sample rate is %" PRIu64 " Hz: recording at %" PRIu64
			" Hz instead of %" PRIu64 " Hz.\n"
			"         The limit is /proc/sys/kernel/perf_event_max_sample_rate; the kernel "
			"lowers it when sampling interrupts take too long.\n",
			max, max, want);
	else
		fprintf(stderr, "info: using a maximum frequency rate of %" PRIu64 " Hz\n", max);
	return max;
}

static int build_evlist(const ropts *o, pk_model *model, pk_evlist **out, pk_pmus **pmus_out)
{
	pk_error err;
	pk_error_clear(&err);
	/* the evsels hold their own reference on it; the caller's is for its own use */
	pk_pmus *pmus = pk_pmus_load(model ? pk_model_sysfs_root(model) : NULL, &err);
	pk_parse_opts po = {.cpuid = model ? pk_model_cpuid(model)->str : NULL};
	*pmus_out = pmus;
	pk_evlist *l = pk_evlist_new();
	if (!l) {
		fprintf(stderr, "pmukit record: out of memory\n");
		return 1;
	}
	for (int i = 0; i < o->nr_events; i++) {
		pk_error_clear(&err);
		if (pk_evlist_parse(l, pmus, o->events[i], &po, &err) < 0) {
			pk_cli_print_error("record", &err);
			pk_evlist_put(l);
			return 129;
		}
	}
	if (!o->nr_events) {
		/* perf's default, and its fallback where no core PMU exists */
		const char *def = pmus && pk_pmus_nr_core(pmus) ? "cycles" : "cpu-clock";
		pk_error_clear(&err);
		if (pk_evlist_parse(l, pmus, def, &po, &err) < 0) {
			struct perf_event_attr a;
			memset(&a, 0, sizeof(a));
			a.type = PERF_TYPE_SOFTWARE;
			a.config = PERF_COUNT_SW_CPU_CLOCK;
			a.size = sizeof(a);
			if (!pk_evlist_add(l, &a, "cpu-clock", NULL)) {
				pk_evlist_put(l);
				return 1;
			}
		}
	}
	for (size_t i = 0; i < pk_evlist_nr_warnings(l); i++)
		fprintf(stderr, "%s\n", pk_evlist_warning(l, i));
	*out = l;
	return 0;
}

/* perf's dummy event: tracking in system-wide mode (the maps of processes
 * started during synthesis) and with -D (the maps before the delay). Its
 * period of 1 is the parser's kind, kept unless -c/-F is given. */
static int add_dummy(pk_evlist *l)
{
	struct perf_event_attr a;
	record_dummy_attr(&a, 0); /* the sample bits: pk_evlist_config's */
	return pk_evlist_add(l, &a, "dummy:HG", NULL) ? 0 : -ENOMEM;
}

/* Tracking (mmap, comm, task, ...) goes on the first event, or on the
 * dummy; as perf 6.1 sets it, with what -d, --namespaces, --all-cgroups
 * and --switch-events add. */
static void set_tracking(rsession *s, bool dummy)
{
	const ropts *o = s->o;
	size_t n = pk_evlist_count(s->evlist);
	pk_evsel *t = pk_evlist_at(s->evlist, dummy ? n - 1 : 0);
	struct perf_event_attr ta = *pk_evsel_attr(t);
	ta.mmap = ta.comm = ta.mmap2 = ta.comm_exec = ta.task = 1;
	ta.ksymbol = ta.bpf_event = 1;
	/* a call-graph=dwarf term samples addresses too (perf's sample_address) */
	ta.mmap_data = o->sample_addr || (ta.sample_type & PERF_SAMPLE_STACK_USER);
	ta.namespaces = o->namespaces;
	ta.cgroup = o->all_cgroups;
	ta.context_switch = o->switch_events;
	if (dummy && s->system_wide) /* enabled at once (perf's "immediate") */
		ta.disabled = 0;
	if (dummy && o->delay_ms) { /* the maps from the exec on, the samples later */
		ta.disabled = 1;
		ta.enable_on_exec = s->traced;
	}
	pk_evsel_set_attr(t, &ta);
	for (size_t i = 0; o->delay_ms && i + 1 < n; i++) {
		struct perf_event_attr a = *pk_evsel_attr(pk_evlist_at(s->evlist, i));
		a.enable_on_exec = 0;
		pk_evsel_set_attr(pk_evlist_at(s->evlist, i), &a);
	}
}

/* The sample_type bits the options ask for (perf 6.1's evsel__config). */
static uint64_t option_sample_type(const rsession *s)
{
	const ropts *o = s->o;
	uint64_t st = o->sample_extra;
	if (s->system_wide || o->sample_cpu)
		st |= PERF_SAMPLE_CPU;
	if (o->sample_addr)
		st |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (o->sample_period)
		st |= PERF_SAMPLE_PERIOD;
	if (o->weight) /* perf on x86 samples the weight struct, elsewhere the weight */
		st |= perf_regs_host() == perf_regs_for("x86_64") ? PERF_SAMPLE_WEIGHT_STRUCT
								   : PERF_SAMPLE_WEIGHT;
	if (o->raw)
		st |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU | PERF_SAMPLE_TIME;
	if (o->all_cgroups)
		st |= PERF_SAMPLE_CGROUP;
	return st;
}

/* --filter applies to the event before it: a tracepoint's filter, which
 * pmukit does not set yet, or a HW tracer's address filter, which needs a
 * PMU this event is not on. Either way: refused with the reason. */
static int check_filter(rsession *s)
{
	size_t n = pk_evlist_count(s->evlist);
	const pk_evsel *e = n ? pk_evlist_at(s->evlist, n - 1) : NULL;
	if (e && pk_evsel_attr(e)->type == PERF_TYPE_TRACEPOINT) {
		fprintf(stderr, "pmukit record: --filter '%s' on %s: tracepoint filters are not set by "
				"pmukit yet; filter when reading (script --comms/--pid/--time)\n",
			s->o->filter, pk_evsel_name(e));
		return 1;
	}
	return pk_cli_usage_error("record", "--filter option should follow a -e tracepoint or HW "
					    "tracer option ('%s' is neither)",
				  e ? pk_evsel_name(e) : "?");
}

/* Events, configured for recording, with the tracking event. */
static int setup_events(rsession *s)
{
	const ropts *o = s->o;
	int rc = build_evlist(o, s->model, &s->evlist, &s->pmus);
	if (rc)
		return rc;
	if (o->filter && (rc = check_filter(s)))
		return rc;
	/* perf 6.1 adds it on hybrid machines too */
	/* an arm_spe recording adds its own tracking event (record_spe.c) */
	bool spe = record_spe_wanted(s->evlist);
	bool dummy = !spe &&
		     (s->system_wide || o->delay_ms || (s->pmus && pk_pmus_nr_core(s->pmus) > 1));
	if (dummy && add_dummy(s->evlist) < 0) {
		fprintf(stderr, "pmukit record: out of memory\n");
		return 1;
	}
	pk_config_opts co = {
		.mode = PK_CONFIG_RECORD,
		.system_wide = s->system_wide,
		.forked_workload = s->traced,
		/* perf 6.1: -t and --per-thread record without inherit */
		.no_inherit = o->no_inherit || o->tids || o->per_thread,
		.period = o->period,
		.freq = sample_freq(o, s->kernel),
		.sample_type = option_sample_type(s),
		.inherit_stat = o->inherit_stat,
		.no_sample_time = o->per_thread && !o->raw,
		.sample_identifier = o->sample_identifier,
		.all_user = o->all_user,
		.all_kernel = o->all_kernel,
		.sample_regs_user = o->user_regs,
		.sample_regs_intr = o->intr_regs,
		.branch_sample_type = o->branch,
		.call_graph = o->call_graph,
		.stack_dump_size = o->stack_dump,
		.max_stack = o->max_stack,
		.dwarf_regs_user = perf_regs_dwarf_mask(perf_regs_host(), o->user_regs != 0),
	};
	if (o->call_graph == PK_CALL_GRAPH_DWARF && o->user_regs)
		fprintf(stderr, "WARNING: The use of --call-graph=dwarf may require all the user "
				"registers, specifying a subset with --user-regs may render DWARF "
				"unwinding unreliable, so the minimal registers set (IP, SP) is "
				"explicitly forced.\n");
	if (pk_evlist_config(s->evlist, &co, &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		return 1;
	}
	record_spe_opts so = {.kernel = s->kernel, .system_wide = s->system_wide,
			      .period = o->period, .freq_given = o->freq || o->freq_max,
			      .aux_pages = o->aux_pages, .meta_version = o->spe_meta};
	if ((rc = record_spe_setup(s->evlist, &so, &s->spe)))
		return rc;
	if (!s->spe.on)
		set_tracking(s, dummy);
	return 0;
}

/* On the model: the model's CPUs for -a/-C (every task), else per thread
 * (ring per thread): -p/-t or every scenario thread. */
static int setup_model_targets(rsession *s)
{
	const ropts *o = s->o;
	if (s->system_wide) {
		s->cpus = pk_cli_target_cpus(s->kernel, o->cpu_list, &s->err);
		s->threads = s->cpus ? pk_threadmap_any() : NULL;
	} else {
		s->threads = stat_model_threads(s->model, o->pids, o->tids, &s->err);
	}
	if (!s->threads) {
		pk_cli_print_error("record", &s->err);
		return 1;
	}
	return 0;
}

/* CPUs and tasks to follow; the command forked and held before exec. */
static int setup_targets(rsession *s)
{
	const ropts *o = s->o;
	if (s->model)
		return setup_model_targets(s);
	/* --per-thread: events on any CPU, a ring per thread */
	s->cpus = o->per_thread && !s->system_wide ? pk_cpumap_any()
						   : pk_cli_target_cpus(NULL, o->cpu_list, &s->err);
	if (!s->cpus)
		goto fail;
	if (o->pids)
		s->threads = pk_threadmap_from_pids(NULL, o->pids, &s->err);
	else if (o->tids)
		s->threads = pk_threadmap_from_tids(NULL, o->tids, &s->err);
	else if (s->system_wide)
		s->threads = pk_threadmap_any();
	if ((o->pids || o->tids) && !s->threads)
		goto fail;
	if (o->cmd_argc) {
		if (pk_workload_prepare(o->cmd, &s->wl, &s->err) < 0) {
			pk_cli_print_error("record", &s->err);
			return s->wl.exec_errno ? pk_workload_exec_exit_code(s->wl.exec_errno) : 1;
		}
		if (!s->threads)
			s->threads = pk_threadmap_new(&s->wl.pid, 1);
	}
	if (!s->threads) {
		fprintf(stderr, "pmukit record: out of memory\n");
		return 1;
	}
	return 0;
fail:
	pk_cli_print_error("record", &s->err);
	return 1;
}

/* perf keeps the previous file as <name>.old */
static void keep_old_output(rsession *s)
{
	struct stat st;
	const char *out = s->o->output;
	if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		char old[4096];
		snprintf(old, sizeof(old), "%s.old", out);
		s->old_kept = rename(out, old) == 0;
	}
}

/* The command could not run after all: no file, the old one back. */
static void discard_output(rsession *s)
{
	if (s->pipe_mode)
		return;
	unlink(s->o->output);
	if (s->old_kept) {
		char old[4096];
		snprintf(old, sizeof(old), "%s.old", s->o->output);
		rename(old, s->o->output);
	}
}

/* TRACING_DATA for tracepoint events. Without tracefs the recording goes
 * on (pmukit reads it with numeric fields) and says that perf will not. */
static int tracing_data(rsession *s)
{
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_pd_writer_tracing_data(s->w, s->kernel, s->evlist, &err);
	if (rc == -ENOENT) {
		fprintf(stderr, "pmukit record: warning: no tracing data written (%s): perf will "
				"refuse the file, pmukit shows numeric fields\n", err.msg);
		return 0;
	}
	if (rc < 0)
		s->err = err;
	return rc;
}

static int open_output(rsession *s, int argc, char **argv)
{
	s->pipe_mode = !strcmp(s->o->output, "-");
	if (!s->pipe_mode)
		keep_old_output(s);
	uint64_t no_times[2] = {0, 0}; /* a pipe's SAMPLE_TIME: sent before any sample */
	if (pk_pd_writer_open(s->o->output, s->pipe_mode, &s->w, &s->err) < 0 ||
	    pk_recorder_add_evsels(s->rec, s->w, &s->err) < 0 ||
	    pk_pd_writer_host_features(s->w, s->kernel, s->pmus, argc, argv, &s->err) < 0 ||
	    (s->pipe_mode && pk_pd_writer_set_feature(s->w, PK_FEAT_SAMPLE_TIME, no_times,
						      sizeof(no_times), &s->err) < 0) ||
	    tracing_data(s) < 0 || pk_pd_writer_begin(s->w, &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		return -1;
	}
	return 0;
}

/* The thread group of tid, from the kernel's task facts (tid itself when
 * unknown). */
static pid_t tgid_of(const pk_kernel *k, pid_t tid)
{
	k = k ? k : pk_kernel_linux();
	pk_host_task task;
	return k->ops->host.task(k, tid, &task) == 0 ? task.tgid : tid;
}

/* -p/-t: each process once, from its thread group leader. */
static int synth_targets(rsession *s, const pk_synth *syn)
{
	int rc = 0;
	for (int i = 0; rc == 0 && i < pk_threadmap_nr(s->threads); i++) {
		pid_t tid = pk_threadmap_tid(s->threads, i);
		pid_t tgid = tgid_of(s->kernel, tid);
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = pk_threadmap_tid(s->threads, j) == tgid;
		if (!seen && (tgid == tid || i == 0))
			rc = pk_synth_task(syn, tgid, false, &s->err);
	}
	return rc;
}

/* The state before recording: kernel map, tasks, time conversion. */
static int synthesize(rsession *s)
{
	const pk_evsel *first = pk_evlist_at(s->evlist, 0);
	pk_synth syn = {.w = s->w, .sample_type = pk_evsel_attr(first)->sample_type,
			.sample_id_all = pk_evsel_attr(first)->sample_id_all, .kernel = s->kernel};
	uint8_t tc[56];
	bool tc_ok = pk_recorder_time_conv(s->rec, tc);
	/* with AUX data, TIME_CONV before AUXTRACE_INFO, as perf writes it:
	 * perf 6.1 takes the conversion when it reads AUXTRACE_INFO (after
	 * it, it divides by a zero multiplier) */
	if (s->spe.on && tc_ok && pk_pd_writer_write(s->w, tc, sizeof(tc), &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		return -1;
	}
	if (record_spe_info(&s->spe, s->w, s->kernel, s->cpus))
		return -1;
	int rc = pk_synth_kernel_mmap(&syn, &s->err);
	if (rc == 0 && s->system_wide)
		rc = pk_synth_all_tasks(&syn, &s->err);
	else if (rc == 0 && !s->traced)
		rc = synth_targets(s, &syn);
	if (rc == 0 && s->traced)
		rc = pk_synth_comm(&syn, s->wl.pid, s->wl.pid, "pmukit-exec", &s->err);
	if (rc == 0 && tc_ok && !s->spe.on)
		rc = pk_pd_writer_write(s->w, tc, sizeof(tc), &s->err);
	if (rc == 0)
		rc = pk_synth_finished_init(&syn, &s->err);
	/* -z: the records from the rings compressed, the state before plain (perf's) */
	size_t pages = s->o->mmap_pages ? s->o->mmap_pages : 128;
	int64_t page = pk_host_number(s->kernel, PK_HOST_PAGE_SIZE, 4096);
	if (rc == 0 && s->o->compress)
		rc = pk_pd_writer_compress(s->w, s->o->compress, (uint32_t)((pages + 1) * (size_t)page),
					   &s->err);
	if (rc < 0)
		pk_cli_print_error("record", &s->err);
	return rc;
}

/* Enables the events (a forked command's start at its exec) and lets the
 * command go. 0, or the exit code. */
static int start(rsession *s)
{
	if (!s->traced && !s->o->delay_ms && pk_recorder_enable(s->rec, &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		return 1;
	}
	if (s->o->cmd_argc && pk_workload_start(&s->wl, s->o->cmd[0], &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		return s->wl.exec_errno ? pk_workload_exec_exit_code(s->wl.exec_errno) : 1;
	}
	return 0;
}

/* Passes over the rings until the command ends, a signal, or the events'
 * tasks are gone; false when the output failed (said here). */
/* -D: the events enabled once the delay has passed (perf's words). */
static bool delay_passed(rsession *s, const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ms = (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
	if (ms < s->o->delay_ms)
		return false;
	if (pk_recorder_enable(s->rec, &s->err) < 0) {
		pk_cli_print_error("record", &s->err);
		return false;
	}
	fprintf(stderr, "Events enabled\n");
	return true;
}

/* --max-size: the file is big enough (said as perf says it). */
static bool size_reached(const rsession *s)
{
	uint64_t size = pk_pd_writer_data_size(s->w);
	if (!s->o->max_size || size < s->o->max_size)
		return false;
	fprintf(stderr, "[ pmukit record: perf size limit reached (%" PRIu64 " KB), stopping session ]\n",
		size / 1024);
	return true;
}

static bool record_loop(rsession *s)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool delayed = s->o->delay_ms > 0;
	if (delayed)
		fprintf(stderr, "Events disabled\n");
	while (!stop_signal) {
		if (delayed && delay_passed(s, &t0))
			delayed = false;
		bool all_hup = false;
		if (pk_recorder_poll(s->rec, delayed && s->o->delay_ms < 100 ? (int)s->o->delay_ms : 100,
				     &all_hup) > 0)
			s->wakeups++;
		if (pk_recorder_drain(s->rec, s->w, &s->err) < 0) {
			pk_cli_print_error("record", &s->err);
			return false;
		}
		if (s->wl.pid > 0 && waitpid(s->wl.pid, &s->child_status, WNOHANG) == s->wl.pid) {
			s->wl.pid = -1;
			s->child_done = true;
			return true;
		}
		if (all_hup && !s->o->cmd_argc)
			return true;
		if (size_reached(s))
			return true;
		if (s->model && pk_model_now(s->model) >= pk_model_end(s->model))
			return true; /* the scenario's end (CPU events never hang up) */
	}
	return true;
}

static void print_summary(const rsession *s, uint64_t bytes, uint64_t samples)
{
	const pk_record_stats *st = pk_recorder_stats(s->rec);
	if (s->o->quiet)
		return;
	if (s->model) {
		char label[PATH_MAX + 300];
		stat_model_label(s->model, label, sizeof(label));
		fprintf(stderr, "# modeled: %s -- no hardware was measured; %.3f s of virtual time\n",
			label, (double)pk_model_now(s->model) / 1e9);
	}
	fprintf(stderr, "[ pmukit record: Woken up %" PRIu64 " times to write data ]\n", s->wakeups);
	if (st->nr_lost_records || st->nr_lost_samples)
		fprintf(stderr,
			"[ pmukit record: lost %" PRIu64 " events in %" PRIu64
			" LOST records and %" PRIu64 " samples (PERF_FORMAT_LOST) ]\n",
			st->nr_lost, st->nr_lost_records, st->nr_lost_samples);
	record_spe_summary(&s->spe, st);
	if (samples < st->nr_samples)
		fprintf(stderr, "[ pmukit record: %" PRIu64 " samples read did not reach the output ]\n",
			st->nr_samples - samples);
	fprintf(stderr, "[ pmukit record: Captured and wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
		(double)bytes / (1024.0 * 1024.0), s->pipe_mode ? "(pipe)" : s->o->output, samples);
}

/* The last records (unless the output failed: ok false), the lost counts,
 * BUILD_ID and SAMPLE_TIME (perf's pass over the file), then the file
 * closed. Returns the exit status. */
static int finish_output(rsession *s, bool ok)
{
	pk_recorder_disable(s->rec, NULL);
	int rc = 0;
	bool ran_pass = false;
	if (ok) {
		rc = pk_recorder_drain(s->rec, s->w, &s->err);
		if (rc >= 0)
			rc = pk_recorder_write_lost(s->rec, s->w, &s->err);
		if (rc >= 0)
			rc = pk_pd_writer_flush(s->w, &s->err);
		/* perf's BUILD_ID pass: not with -B, nor in a pipe, nor with -z */
		ran_pass = rc >= 0 && !s->pipe_mode && !s->o->no_buildid && !s->o->compress;
		if (ran_pass)
			rc = pk_record_build_ids(s->w, s->o->output, s->kernel, &s->err);
		if (rc < 0)
			pk_cli_print_error("record", &s->err);
	}
	if (!s->pipe_mode && !ran_pass) { /* perf's SAMPLE_TIME without its pass */
		uint64_t t[2] = {0, 0};
		pk_pd_writer_set_feature(s->w, PK_FEAT_SAMPLE_TIME, t, sizeof(t), NULL);
	}
	uint64_t bytes = pk_pd_writer_data_size(s->w);
	uint64_t samples = pk_pd_writer_nr_samples(s->w);
	pk_error_clear(&s->err);
	int crc = pk_pd_writer_close(s->w, &s->err);
	s->w = NULL;
	if (crc < 0 && ok && rc >= 0) {
		if (!s->err.code)
			pk_err(&s->err, crc, "%s: %s", s->o->output, strerror(-crc));
		pk_cli_print_error("record", &s->err);
		rc = crc;
	}
	print_summary(s, bytes, samples);
	return ok && rc >= 0 ? 0 : 1;
}

/* From the file begun to the file closed; the exit status. */
static int record(rsession *s, int argc, char **argv)
{
	if (open_output(s, argc, argv) < 0)
		return 1;
	int code = synthesize(s) < 0 ? 1 : start(s);
	if (code && s->wl.exec_errno) {
		/* the rare exec failure the lookup could not foresee */
		pk_pd_writer_abort(s->w);
		s->w = NULL;
		discard_output(s);
		return code;
	}
	bool ok = code == 0 && record_loop(s);
	int status = finish_output(s, ok);
	return code ? code : status;
}

/* A hardware event the kernel does not know (a VM without a PMU): perf
 * 6.1 falls back to cpu-clock unasked; pmukit records what was asked and
 * says what would count. */
static void hint_software(rsession *s)
{
	if (s->err.code != -ENOENT && s->err.code != -EOPNOTSUPP && s->err.code != -ENODEV)
		return;
	for (size_t i = 0; i < pk_evlist_count(s->evlist); i++) {
		uint32_t t = pk_evsel_attr(pk_evlist_at(s->evlist, i))->type;
		if (t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE) {
			pk_err_hint(&s->err, "  no hardware event counts here (a VM without PMU "
					     "virtualization?): sample time with -e cpu-clock");
			return;
		}
	}
}

static int run(const ropts *o, int argc, char **argv)
{
	rsession s = {.o = o, .wl = PK_WORKLOAD_INIT};
	pk_error_clear(&s.err);
	s.system_wide = o->all_cpus || o->cpu_list;
	/* with -a/-C/-p/-t a command only sets how long to record, as in perf */
	s.traced = o->cmd_argc > 0 && !s.system_wide && !o->pids && !o->tids;
	int status = 0;
	if (o->model) {
		s.model = pk_model_new(o->model, &s.err);
		if (!s.model) {
			pk_cli_print_error("record", &s.err);
			return 1;
		}
		s.kernel = pk_model_kernel(s.model);
	}
	status = setup_events(&s);
	if (!status)
		status = setup_targets(&s);
	if (!status) {
		pk_record_opts ro = {.kernel = s.kernel, .cpus = s.cpus, .threads = s.threads,
				     .mmap_pages = o->mmap_pages, .aux_pages = s.spe.aux_pages};
		if (pk_recorder_open(s.evlist, &ro, &s.rec, &s.err) < 0) {
			hint_software(&s);
			pk_cli_print_error("record", &s.err);
			status = 1;
		}
	}
	if (!status)
		status = record(&s, argc, argv);
	/* the command's status is perf record's (a signal's: perf raises it again) */
	if (!status && s.child_done)
		status = pk_workload_exit_code(s.child_status);
	/* stopped early (Ctrl-C, a failed output): the command too, as in perf */
	pk_workload_stop(&s.wl, NULL);
	pk_pd_writer_abort(s.w);
	pk_recorder_close(s.rec);
	pk_threadmap_put(s.threads);
	pk_cpumap_put(s.cpus);
	pk_evlist_put(s.evlist);
	pk_pmus_put(s.pmus);
	pk_model_free(s.model);
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
		o->mmap_pages = (size_t)v;
	}
	if (aux && *aux) {
		if ((r = pk_cli_parse_u64("record", "-m ,AUX", aux, 2, (uint64_t)1 << 18, &v)))
			return r;
		if (v & (v - 1))
			return pk_cli_usage_error("record", "the AUX pages of -m need a power of 2, "
							    "not '%s'", aux);
		o->aux_pages = (size_t)v;
	}
	return 0;
}

enum {
	O_SAMPLE_CPU = 256, O_NAMESPACES, O_ALL_CGROUPS, O_SWITCH_EVENTS, O_ALL_USER,
	O_ALL_KERNEL, O_PHYS_DATA, O_DATA_PAGE_SIZE, O_CODE_PAGE_SIZE, O_USER_REGS,
	O_PER_THREAD, O_SAMPLE_ID, O_FILTER, O_MAX_SIZE, O_NO_BPF_EVENT,
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
	{"spe-meta", 0, 'S', required_argument, "1|2",
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
	{"filter", 0, O_FILTER, required_argument, "FILTER",
	 "refused: tracepoint and address filters are not set"},
	{"no-buildid", 'B', 0, no_argument, NULL, "accepted: pmukit writes no build ids"},
	{"no-buildid-cache", 'N', 0, no_argument, NULL,
	 "accepted: pmukit fills no build-id cache"},
	{"no-bpf-event", 0, O_NO_BPF_EVENT, no_argument, NULL,
	 "accepted: pmukit records no BPF program events"},
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

/* --user-regs / -I: register names into a mask ('?' lists them). 0, or
 * the exit code. */
static int parse_regs(const char *opt, const char *arg, uint64_t *mask)
{
	const perf_regs_arch *arch = perf_regs_host();
	char bad[64] = "";
	if (arg && !strcmp(arg, "?")) {
		perf_regs_list(arch, stderr);
		return 129;
	}
	if (perf_regs_parse(arch, arg, mask, bad, sizeof(bad)) < 0)
		return pk_cli_usage_error("record", "%s: unknown register '%s' ('%s=?' lists them)",
					  opt, bad, opt);
	return 0;
}

/* "4096", "4K", "10M", "1G" (perf's --max-size units: B, K, M, G, T). */
static int parse_size(const char *arg, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	static const char units[] = "BKMGT";
	const char *u = *end ? strchr(units, *end & ~0x20) : units;
	if (errno || end == arg || !u || (*end && end[1]) || *arg == '-')
		return pk_cli_usage_error("record", "--max-size '%s': a size like 4096, 512K, 10M, 1G",
					  arg);
	unsigned shift = (unsigned)(u - units) * 10;
	if (shift && v > UINT64_MAX >> shift)
		return pk_cli_usage_error("record", "--max-size '%s' is too large", arg);
	*out = (uint64_t)v << shift;
	return 0;
}

/* -b (any) / -j FILTERS: once, as perf takes them. 0, or the exit code. */
static int parse_branch(const char *arg, ropts *o)
{
	if (o->branch)
		return pk_cli_usage_error("record", "-b and -j exclude each other and come once");
	pk_error err;
	pk_error_clear(&err);
	if (pk_branch_filter_parse(arg, &o->branch, &err) < 0) {
		pk_cli_print_error("record", &err);
		return 129;
	}
	return 0;
}

/* The options that only change attrs or the run's bookkeeping; 1 when c
 * is not one of them, 0 when done, -code on a usage error. */
static int parse_attr_option(int c, ropts *o)
{
	int r = 0;
	switch (c) {
	case 'd': o->sample_addr = true; break;
	case 'T': break; /* samples have TIME already (perf 6.1 the same) */
	case O_SAMPLE_CPU: o->sample_cpu = true; break;
	case 's': o->inherit_stat = true; break;
	case 'P': o->sample_period = true; break;
	case 'W': o->weight = true; break;
	case 'B': o->no_buildid = true; break;
	case 'N': break; /* no build-id cache: pmukit fills none (docs/perfdata.md) */
	case O_NO_BPF_EVENT: break; /* pmukit synthesizes no BPF events */
	case O_NAMESPACES: o->namespaces = true; break;
	case O_ALL_CGROUPS: o->all_cgroups = true; break;
	case O_SWITCH_EVENTS: o->switch_events = true; break;
	case O_ALL_USER: o->all_user = true; break;
	case O_ALL_KERNEL: o->all_kernel = true; break;
	case O_PHYS_DATA: o->sample_extra |= PERF_SAMPLE_PHYS_ADDR; break;
	case O_DATA_PAGE_SIZE: o->sample_extra |= PERF_SAMPLE_DATA_PAGE_SIZE; break;
	case O_CODE_PAGE_SIZE: o->sample_extra |= PERF_SAMPLE_CODE_PAGE_SIZE; break;
	case 'R': o->raw = true; break;
	case O_USER_REGS: r = parse_regs("--user-regs", optarg, &o->user_regs); break;
	case 'I': r = parse_regs("-I", optarg, &o->intr_regs); break;
	case 'D': {
		uint64_t v;
		r = pk_cli_parse_u64("record", "-D", optarg, 0, INT32_MAX, &v);
		o->delay_ms = (int64_t)v;
		break;
	}
	case 'q': o->quiet = true; break;
	case O_PER_THREAD: o->per_thread = true; break;
	case O_SAMPLE_ID: o->sample_identifier = true; break;
	case 'i': o->no_inherit = true; break;
	case O_MAX_SIZE: r = parse_size(optarg, &o->max_size); break;
	case 'b':
	case 'j': r = parse_branch(c == 'b' ? "any" : optarg, o); break;
	case O_FILTER:
		if (!o->nr_events) /* perf's words and status */
			r = pk_cli_usage_error("record", "--filter option should follow a -e "
							 "tracepoint or HW tracer option");
		o->filter = optarg;
		break;
	case 'z': {
		uint64_t v = 1; /* perf's default level */
		r = optarg ? pk_cli_parse_u64("record", "-z", optarg, 1, 22, &v) : 0;
		o->compress = (int)v;
		break;
	}
	default: return 1;
	}
	return r ? -r : 0;
}

/* --call-graph MODE[,SIZE] as perf 6.1 takes it: fp (SIZE: at most that
 * many entries, sample_max_stack), dwarf (SIZE: the user stack dump, rounded
 * up to 8 bytes, 8..65528), lbr; 0 or the exit code of a usage error. */
static int parse_call_graph(const char *arg, ropts *o)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	if (n == 5 && !strncmp(arg, "dwarf", 5)) {
		o->call_graph = PK_CALL_GRAPH_DWARF;
		o->sample_addr = true; /* perf's record does, for the data maps */
		if (!comma)
			return 0;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(comma + 1, &end, 0);
		v = (v + 7) & ~7ULL;
		if (errno || end == comma + 1 || *end || !v || v > PK_STACK_DUMP_MAX)
			return pk_cli_usage_error("record", "callchain: Incorrect stack dump size "
							    "(max %u): %s",
						  PK_STACK_DUMP_MAX, comma + 1);
		o->stack_dump = (uint32_t)v;
		return 0;
	}
	if (n == 2 && !strncmp(arg, "fp", 2)) {
		o->call_graph = PK_CALL_GRAPH_FP;
		/* perf keeps N below the kernel's default perf_event_max_stack (127) */
		unsigned long v = comma ? strtoul(comma + 1, NULL, 0) : 0;
		o->max_stack = v < 127 ? (uint16_t)v : 0;
		return 0;
	}
	if (n == 3 && !strncmp(arg, "lbr", 3) && !comma) {
		o->call_graph = PK_CALL_GRAPH_LBR;
		return 0;
	}
	return pk_cli_usage_error("record", "--call-graph takes fp, dwarf[,SIZE] or lbr, not '%s'",
				  arg);
}

/* Options into *o; 0, or the exit code of a usage error. */
static int parse_options(int argc, char **argv, ropts *o)
{
	int c, r;
	pk_opt_begin(&record_optspec);
	while ((c = pk_opt_next(&record_optspec, argc, argv)) != -1) {
		if ((r = parse_attr_option(c, o)) <= 0) {
			if (r < 0)
				return -r;
			continue;
		}
		switch (c) {
		case 'e':
			if (o->nr_events == RECORD_MAX_EVENT_OPTS)
				return pk_cli_usage_error("record", "too many -e options");
			o->events[o->nr_events++] = optarg;
			break;
		case 'F':
			o->freq_max = !strcmp(optarg, "max");
			if (!o->freq_max && (r = pk_cli_parse_u64("record", "-F", optarg, 1, UINT64_MAX,
								 &o->freq)))
				return r;
			break;
		case 'c':
			/* the kernel takes periods below 2^63 */
			if ((r = pk_cli_parse_u64("record", "-c", optarg, 1, INT64_MAX, &o->period)))
				return r;
			break;
		case 'g':
			if (!o->call_graph)
				o->call_graph = PK_CALL_GRAPH_FP;
			break;
		case 'G':
			if ((r = parse_call_graph(optarg, o)))
				return r;
			break;
		case 'a': o->all_cpus = true; break;
		case 'C': o->cpu_list = optarg; break;
		case 'p': o->pids = optarg; break;
		case 't': o->tids = optarg; break;
		case 'o': o->output = optarg; break;
		case 'M': o->model = optarg; break;
		case 'm':
			if ((r = parse_mmap_pages(optarg, o)))
				return r;
			break;
		case 'S':
			if (strcmp(optarg, "1") && strcmp(optarg, "2"))
				return pk_cli_usage_error("record", "--spe-meta takes 1 or 2, not '%s'",
							  optarg);
			o->spe_meta = optarg[0] - '0';
			break;
		default: return 129; /* PK_OPT_ERROR, said */
		}
	}
	r = pk_cli_nonempty("record", "-p", o->pids, "process id");
	if (!r)
		r = pk_cli_nonempty("record", "-t", o->tids, "thread id");
	for (int i = 0; !r && i < o->nr_events; i++)
		r = pk_cli_nonempty("record", "-e", o->events[i], "event");
	if (r)
		return r;
	if ((o->freq || o->freq_max) && o->period)
		return pk_cli_usage_error("record", "-F and -c exclude each other");
	if ((o->pids != NULL) + (o->tids != NULL) + (o->all_cpus || o->cpu_list) > 1)
		return pk_cli_usage_error("record", "-a/-C, -p and -t exclude each other");
	o->cmd = argv + optind;
	o->cmd_argc = argc - optind;
	if (o->compress && o->output && !strcmp(o->output, "-"))
		return pk_cli_usage_error("record", "-z writes a file: pipe mode (-o -) is not compressed");
	if (o->model && o->cmd_argc)
		return pk_cli_usage_error("record", "--model runs the scenario's threads: no command");
	if (o->model) /* the model's default target is the scenario's threads */
		return 0;
	if (!o->cmd_argc && !o->pids && !o->tids && !o->all_cpus && !o->cpu_list)
		return pk_cli_usage_error("record", "nothing to record: give a command, -p, -t, -a or -C");
	return 0;
}

int cmd_record(int argc, char **argv)
{
	ropts o;
	memset(&o, 0, sizeof(o));
	o.output = "perf.data";
	int r = parse_options(argc, argv, &o);
	if (r)
		return r;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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
