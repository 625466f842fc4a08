/* pmukit record: sample a command, processes or the system into perf.data. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/pmu.h>
#include <pmukit/record.h>

#include "builtin.h"

const char record_usage[] =
	"usage: pmukit record [-e EVENTS] [-F FREQ | -c PERIOD] [-g] [-a] [-C CPUS]\n"
	"                     [-p PID | -t TID] [-o FILE] [-m PAGES] [-- COMMAND [ARGS]]\n"
	"\n"
	"Samples events into a perf.data file that perf and pmukit read.\n"
	"\n"
	"  -e, --event EVENTS      events to sample (perf syntax; default cycles, or\n"
	"                          cpu-clock when there is no core PMU)\n"
	"  -F, --freq FREQ         samples per second (default 4000)\n"
	"  -c, --count PERIOD      one sample every PERIOD events\n"
	"  -g                      record call chains\n"
	"  -a, --all-cpus          system-wide, on every CPU\n"
	"  -C, --cpu CPUS          system-wide on these CPUs (\"0-3,8\")\n"
	"  -p, --pid PIDS          existing processes (all their threads)\n"
	"  -t, --tid TIDS          existing threads\n"
	"  -o, --output FILE       output file (default perf.data; '-' writes pipe mode\n"
	"                          to standard output)\n"
	"  -m, --mmap-pages PAGES  ring buffer data pages per CPU (power of 2, default 128)\n";

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

typedef struct ropts {
	char **events;
	int nr_events;
	uint64_t freq, period;
	bool callchain, all_cpus;
	const char *cpu_list, *pids, *tids, *output;
	size_t mmap_pages;
	char **cmd;
	int cmd_argc;
} ropts;

static int build_evlist(const ropts *o, pk_evlist **out, pk_pmus **pmus_out)
{
	pk_error err;
	pk_error_clear(&err);
	/* the evsels point into the PMU data: the caller keeps it */
	pk_pmus *pmus = pk_pmus_load(NULL, &err);
	*pmus_out = pmus;
	pk_evlist *l = pk_evlist_new();
	if (!l) {
		fprintf(stderr, "pmukit record: out of memory\n");
		return 1;
	}
	for (int i = 0; i < o->nr_events; i++) {
		pk_error_clear(&err);
		if (pk_evlist_parse(l, pmus, o->events[i], NULL, &err) < 0) {
			pk_cli_print_error("record", &err);
			pk_evlist_put(l);
			return 129;
		}
	}
	if (!o->nr_events) {
		/* perf's default, and its fallback where no core PMU exists */
		const char *def = pmus && pk_pmus_nr_core(pmus) ? "cycles" : "cpu-clock";
		pk_error_clear(&err);
		if (pk_evlist_parse(l, pmus, def, NULL, &err) < 0) {
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

/* Tracking (mmap, comm, task) goes on the first event, or on a dummy event
 * in system-wide mode, where perf adds one so that the maps of processes
 * started during synthesis are seen. */
static int add_tracking(pk_evlist *l, bool system_wide)
{
	pk_evsel *t;
	if (system_wide) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.size = sizeof(a);
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				PERF_SAMPLE_IDENTIFIER;
		a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
		a.inherit = 1;
		a.sample_id_all = 1;
		t = pk_evlist_add(l, &a, "dummy:HG", NULL);
		if (!t)
			return -ENOMEM;
		/* with two events the samples need IDENTIFIER */
		for (size_t i = 0; i < pk_evlist_count(l); i++)
			pk_evlist_at(l, i)->attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
	} else {
		t = pk_evlist_at(l, 0);
	}
	t->attr.mmap = 1;
	t->attr.comm = 1;
	t->attr.mmap2 = 1;
	t->attr.comm_exec = 1;
	t->attr.task = 1;
	return 0;
}

/* Forks the workload stopped on a pipe; writing to *go starts it. */
static pid_t start_workload(char **argv, int *go)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[1]);
		signal(SIGINT, SIG_DFL);
		prctl(PR_SET_NAME, "pmukit-exec");
		char c;
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "pmukit record: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static int run(const ropts *o, int argc, char **argv)
{
	pk_error err;
	pk_error_clear(&err);
	pk_evlist *evlist = NULL;
	pk_pmus *pmus = NULL;
	int rc = build_evlist(o, &evlist, &pmus);
	if (rc) {
		pk_pmus_put(pmus);
		return rc;
	}
	bool system_wide = o->all_cpus || o->cpu_list;
	bool workload = o->cmd_argc > 0;
	/* with -a/-C/-p/-t a command only sets how long to record, as in perf */
	bool traced_workload = workload && !system_wide && !o->pids && !o->tids;
	pk_config_opts co = {
		.mode = PK_CONFIG_RECORD,
		.system_wide = system_wide,
		.forked_workload = traced_workload,
		.period = o->period,
		.freq = o->freq,
		.sample_type = (o->callchain ? PERF_SAMPLE_CALLCHAIN : 0) |
			       (system_wide ? PERF_SAMPLE_CPU : 0),
	};
	int status = 1;
	pk_cpumap *cpus = NULL;
	pk_threadmap *threads = NULL;
	pk_recorder *rec = NULL;
	pk_pd_writer *w = NULL;
	pid_t child = -1;
	int go = -1;
	uint64_t wakeups = 0;
	bool disk_full = false, child_done = false, pipe_mode = false;
	int child_status = 0;
	if (pk_evlist_config(evlist, &co, &err) < 0) {
		pk_cli_print_error("record", &err);
		goto out;
	}
	if (add_tracking(evlist, system_wide) < 0) {
		fprintf(stderr, "pmukit record: out of memory\n");
		goto out;
	}
	cpus = o->cpu_list ? pk_cpumap_parse(o->cpu_list, &err) : pk_cpumap_online(&err);
	if (!cpus) {
		pk_cli_print_error("record", &err);
		goto out;
	}
	if (o->pids)
		threads = pk_threadmap_from_pids(o->pids, &err);
	else if (o->tids)
		threads = pk_threadmap_from_tids(o->tids, &err);
	else if (system_wide)
		threads = pk_threadmap_any();
	if (!threads && (o->pids || o->tids)) {
		/* a bad -p/-t is an error, not "follow the command instead" */
		pk_cli_print_error("record", &err);
		goto out;
	}
	if (workload) {
		child = start_workload(o->cmd, &go);
		if (child < 0) {
			fprintf(stderr, "pmukit record: cannot start the command: %s\n", strerror(errno));
			goto out;
		}
		if (!threads)
			threads = pk_threadmap_new(&child, 1);
	}
	if (!threads) {
		pk_cli_print_error("record", &err);
		goto out;
	}
	pk_record_opts ro = {.cpus = cpus, .threads = threads, .mmap_pages = o->mmap_pages};
	if (pk_recorder_open(evlist, &ro, &rec, &err) < 0) {
		pk_cli_print_error("record", &err);
		goto out;
	}
	pipe_mode = !strcmp(o->output, "-");
	if (!pipe_mode) {
		/* perf keeps the previous file as <name>.old */
		struct stat st;
		if (stat(o->output, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
			char old[4096];
			snprintf(old, sizeof(old), "%s.old", o->output);
			rename(o->output, old);
		}
	}
	if (pk_pd_writer_open(o->output, pipe_mode, &w, &err) < 0 ||
	    pk_recorder_add_evsels(rec, w, &err) < 0 ||
	    pk_pd_writer_host_features(w, argc, argv, &err) < 0 || pk_pd_writer_begin(w, &err) < 0) {
		pk_cli_print_error("record", &err);
		goto out;
	}
	const pk_evsel *first = pk_evlist_at(evlist, 0);
	pk_synth syn = {.w = w, .sample_type = first->attr.sample_type,
			.sample_id_all = first->attr.sample_id_all};
	rc = pk_synth_kernel_mmap(&syn, &err);
	if (rc == 0 && system_wide)
		rc = pk_synth_all_tasks(&syn, &err);
	for (int i = 0; rc == 0 && !system_wide && !traced_workload && i < pk_threadmap_nr(threads); i++) {
		pid_t tid = pk_threadmap_tid(threads, i);
		char path[64], *status_txt = NULL;
		/* synthesize each process once, from its thread group leader */
		snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
		pid_t tgid = tid;
		FILE *f = fopen(path, "r");
		if (f) {
			char line[256];
			while (fgets(line, sizeof(line), f))
				if (!strncmp(line, "Tgid:", 5))
					tgid = (pid_t)atoi(line + 5);
			fclose(f);
		}
		free(status_txt);
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = pk_threadmap_tid(threads, j) == tgid;
		if (!seen && (tgid == tid || i == 0))
			rc = pk_synth_task(&syn, tgid, false, &err);
	}
	if (rc == 0 && traced_workload)
		rc = pk_synth_comm(&syn, child, child, "pmukit-exec", &err);
	uint8_t tc[56];
	if (rc == 0 && pk_recorder_time_conv(rec, tc))
		rc = pk_pd_writer_write(w, tc, sizeof(tc), &err);
	if (rc == 0)
		rc = pk_synth_finished_init(&syn, &err);
	if (rc < 0) {
		pk_cli_print_error("record", &err);
		goto finish;
	}
	/* a forked command enables its events at exec (enable_on_exec);
	 * everything else starts now */
	if (!traced_workload && pk_recorder_enable(rec, &err) < 0) {
		pk_cli_print_error("record", &err);
		goto finish;
	}
	if (workload) {
		if (write(go, "g", 1) != 1) {
			fprintf(stderr, "pmukit record: cannot start the command\n");
			goto finish;
		}
		close(go);
		go = -1;
	}
	status = 0;
	while (!stop_signal && !disk_full) {
		bool all_hup = false;
		int n = pk_recorder_poll(rec, 100, &all_hup);
		if (n > 0)
			wakeups++;
		int d = pk_recorder_drain(rec, w, &err);
		if (d == -ENOSPC) {
			disk_full = true;
			break;
		}
		if (d < 0) {
			pk_cli_print_error("record", &err);
			status = 1;
			break;
		}
		if (workload && waitpid(child, &child_status, WNOHANG) == child) {
			child_done = true;
			break;
		}
		if (all_hup && !workload)
			break;
	}
finish:
	if (rec) {
		pk_error e2;
		pk_error_clear(&e2);
		pk_recorder_disable(rec, &e2);
		if (!pk_pd_writer_is_full(w)) {
			int d = pk_recorder_drain(rec, w, &err);
			if (d == -ENOSPC)
				disk_full = true;
			if (!disk_full)
				pk_recorder_write_lost(rec, w, &err);
		}
	}
	if (disk_full) {
		pk_cli_print_error("record", &err);
		status = 1;
	}
	if (w && rec && !pipe_mode && pk_recorder_first_time(rec)) {
		uint64_t t[2] = {pk_recorder_first_time(rec), pk_recorder_last_time(rec)};
		pk_pd_writer_set_feature(w, PK_FEAT_SAMPLE_TIME, t, sizeof(t), NULL);
	}
	if (w) {
		uint64_t bytes = pk_pd_writer_data_size(w);
		pk_error_clear(&err);
		int crc = pk_pd_writer_close(w, &err);
		w = NULL;
		/* the disk may fill only with the last flush, after the loop */
		if (crc < 0 && (crc != -ENOSPC || !disk_full)) {
			if (crc == -ENOSPC && !err.code)
				pk_err(&err, -ENOSPC, "%s: no space left: the last records did not fit; "
					    "the file keeps the whole records written before", o->output);
			pk_cli_print_error("record", &err);
			status = 1;
		}
		const pk_record_stats *st = pk_recorder_stats(rec);
		fprintf(stderr, "[ pmukit record: Woken up %" PRIu64 " times to write data ]\n", wakeups);
		if (st->nr_lost_records || st->nr_lost_samples)
			fprintf(stderr,
				"[ pmukit record: lost %" PRIu64 " events in %" PRIu64
				" LOST records and %" PRIu64 " samples (PERF_FORMAT_LOST) ]\n",
				st->nr_lost, st->nr_lost_records, st->nr_lost_samples);
		fprintf(stderr,
			"[ pmukit record: Captured and wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
			(double)bytes / (1024.0 * 1024.0), pipe_mode ? "(pipe)" : o->output,
			st->nr_samples);
	}
	if (child > 0 && !child_done) {
		if (go >= 0) {
			close(go); /* the child exits without running the command */
			go = -1;
		}
		if (stop_signal)
			kill(child, SIGTERM);
		waitpid(child, &child_status, 0);
	}
	(void)child_status;
out:
	if (go >= 0)
		close(go);
	if (w)
		pk_pd_writer_abort(w);
	pk_recorder_free(rec);
	pk_threadmap_put(threads);
	pk_cpumap_put(cpus);
	pk_evlist_put(evlist);
	pk_pmus_put(pmus);
	return status;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"event", required_argument, NULL, 'e'},
		{"freq", required_argument, NULL, 'F'},
		{"count", required_argument, NULL, 'c'},
		{"all-cpus", no_argument, NULL, 'a'},
		{"cpu", required_argument, NULL, 'C'},
		{"pid", required_argument, NULL, 'p'},
		{"tid", required_argument, NULL, 't'},
		{"output", required_argument, NULL, 'o'},
		{"mmap-pages", required_argument, NULL, 'm'},
		{"call-graph", required_argument, NULL, 'G'},
		{NULL, 0, NULL, 0},
	};
	ropts o;
	memset(&o, 0, sizeof(o));
	o.output = "perf.data";
	char *evs[64];
	o.events = evs;
	int c, r;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:F:c:gaC:p:t:o:m:", longopts, NULL)) != -1) {
		uint64_t v;
		switch (c) {
		case 'e':
			if (o.nr_events == 64)
				return pk_cli_usage_error("record", "too many -e options");
			evs[o.nr_events++] = optarg;
			break;
		case 'F':
			if ((r = pk_cli_parse_u64("record", "-F", optarg, 1, UINT64_MAX, &o.freq)))
				return r;
			break;
		case 'c':
			if ((r = pk_cli_parse_u64("record", "-c", optarg, 1, UINT64_MAX, &o.period)))
				return r;
			break;
		case 'g': o.callchain = true; break;
		case 'G':
			if (strcmp(optarg, "fp"))
				return pk_cli_usage_error("record", "only --call-graph fp is supported");
			o.callchain = true;
			break;
		case 'a': o.all_cpus = true; break;
		case 'C': o.cpu_list = optarg; break;
		case 'p': o.pids = optarg; break;
		case 't': o.tids = optarg; break;
		case 'o': o.output = optarg; break;
		case 'm':
			if ((r = pk_cli_parse_u64("record", "-m", optarg, 1, SIZE_MAX, &v)))
				return r;
			if (v & (v - 1))
				return pk_cli_usage_error("record", "-m needs a power of 2, not '%s'", optarg);
			o.mmap_pages = (size_t)v;
			break;
		default:
			return pk_cli_usage_error("record", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o.freq && o.period)
		return pk_cli_usage_error("record", "-F and -c exclude each other");
	if ((o.pids != NULL) + (o.tids != NULL) + (o.all_cpus || o.cpu_list) > 1)
		return pk_cli_usage_error("record", "-a/-C, -p and -t exclude each other");
	o.cmd = argv + optind;
	o.cmd_argc = argc - optind;
	if (!o.cmd_argc && !o.pids && !o.tids && !o.all_cpus && !o.cpu_list)
		return pk_cli_usage_error("record", "nothing to record: give a command, -p, -t, -a or -C");
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
