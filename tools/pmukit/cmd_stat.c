/* pmukit stat: count events for a command, processes, threads or CPUs, with
 * perf stat's options and output. The counting itself (the runs, the
 * command, reading and aggregating, stat.h) and the event list (TopDown,
 * -e, -M, the default set: pk_stat_events_build, topdown.h) are the
 * library's; here: the options, the wait with its signals and -I's
 * schedule, and all the printing. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/counting.h>
#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/pmu.h>
#include <pmukit/stat.h>

#include "builtin.h"
#include "stat_topdown.h"
#include <pmukit/workload.h>
#include "stat_print.h"
#include "stat_file.h"
#include "ctl_fifo.h"
#include <pmukit/topdown.h>

struct stat_opts {
	char **events;
	int nr_events;
	bool all_cpus;
	const char *cpu_list;
	const char *pids;
	const char *tids;
	long interval_ms;
	long interval_count;
	long repeat;
	bool no_aggr;
	bool per_thread;
	const char *sep;
	bool json;
	const char *output;
	bool append;
	bool no_inherit;
	bool big_num;
	bool verbose;
	const char *cputype;
	const char *model;         /* --model: a scenario file */
	bool topdown;              /* --topdown */
	long td_level;             /* --td-level */
	bool tree;                 /* --tree */
	bool td_desc;              /* --desc */
	const char *plot;          /* --plot: an SVG file of the -I intervals */
	long log_fd;               /* --log-fd: the output's descriptor; -1: none */
	bool csv_header;           /* --csv-header */
	const char **metrics;      /* -M lists */
	int nr_metrics;
	bool metric_no_group;      /* --metric-no-group */
	bool metric_no_merge;      /* --metric-no-merge */
	bool metric_only;          /* --metric-only */
	pk_stat_per per;              /* --per-core, --per-die, --per-socket, --per-node */
	int detailed;              /* -d, -dd, -ddd */
	bool summary;              /* --summary: the totals after -I's intervals */
	bool no_csv_summary;       /* --no-csv-summary: no "summary" column in CSV totals */
	char **cmd;
	bool record;               /* stat record: the counts into a perf.data too */
	const char *data_path;     /* stat record -o (NULL: perf.data) */
	int argc;                  /* the whole command line (the file's CMDLINE) */
	char **argv;
	const char *input;         /* stat report -i */
	bool null_run;             /* -n: no default events */
	bool sync;                 /* -S: sync() before each run */
	bool group;                /* -g: the events one group */
	bool all_user, all_kernel; /* --all-user, --all-kernel */
	bool quiet;                /* --quiet: no counts printed */
	bool table;                /* --table: each run's time after -r's counts */
	bool interval_clear;       /* --interval-clear: the screen cleared per interval */
	long timeout_ms;           /* --timeout */
	long delay_ms;             /* -D: the counters enabled then; -1: never; 0: at the start */
	const char *pre, *post;    /* --pre, --post: shell commands around each run */
	const char *control;       /* --control fifo:CTL[,ACK] or fd:CTL[,ACK] */
	int refused;               /* an option perf 6.1 refuses here (-T, --smi-cost, ...) */
};

enum {
	OPT_PER_THREAD = 256,
	OPT_APPEND,
	OPT_NO_BIG_NUM,
	OPT_CPUTYPE,
	OPT_INTERVAL_COUNT,
	OPT_MODEL,
	OPT_TOPDOWN,
	OPT_TD_LEVEL,
	OPT_TREE,
	OPT_TD_DESC,
	OPT_PLOT,
	OPT_LOG_FD,
	OPT_CSV_HEADER,
	OPT_METRIC_NO_GROUP,
	OPT_METRIC_NO_MERGE,
	OPT_METRIC_ONLY,
	OPT_PER_CORE,
	OPT_PER_DIE,
	OPT_PER_SOCKET,
	OPT_PER_NODE,
	OPT_SUMMARY,
	OPT_NO_CSV_SUMMARY,
	OPT_NO_MERGE,
	OPT_ALL_KERNEL,
	OPT_ALL_USER,
	OPT_FILTER,
	OPT_HYBRID_MERGE,
	OPT_INTERVAL_CLEAR,
	OPT_IOSTAT,
	OPT_PERCORE_SHOW_THREAD,
	OPT_POST,
	OPT_PRE,
	OPT_QUIET,
	OPT_SCALE,
	OPT_SMI_COST,
	OPT_TABLE,
	OPT_TIMEOUT,
	OPT_CONTROL,
	OPT_FOR_EACH_CGROUP,
};

static const pk_opt stat_opts_table[] = {
	{"event", 'e', 0, required_argument, "<events>",
	 "events to count (perf syntax; may be repeated)"},
	{"all-cpus", 'a', 0, no_argument, NULL, "system-wide on every CPU"},
	{"cpu", 'C', 0, required_argument, "<cpus>", "system-wide on these CPUs (0-3,8)"},
	{"pid", 'p', 0, required_argument, "<pids>",
	 "attach to these processes (all their threads)"},
	{"tid", 't', 0, required_argument, "<tids>", "attach to these threads"},
	{"interval-print", 'I', 0, required_argument, "<ms>",
	 "print counts every <ms> milliseconds (>= 10)"},
	{"interval-count", 0, OPT_INTERVAL_COUNT, required_argument, "<n>",
	 "stop after <n> intervals"},
	{"repeat", 'r', 0, required_argument, "<n>",
	 "run the command <n> times; print means and +- noise"},
	{"no-aggr", 'A', 0, no_argument, NULL, "one line per CPU (with -a or -C)"},
	{"per-thread", 0, OPT_PER_THREAD, no_argument, NULL,
	 "one line per thread (with a command, -p or -t; with -a\n"
	 "every thread of the system, as perf)"},
	{"detailed", 'd', 0, no_argument, NULL,
	 "add perf's detailed events: -d L1-dcache and LLC loads and\n"
	 "misses, -dd the L1-icache and TLB pairs, -ddd prefetches"},
	{"per-core", 0, OPT_PER_CORE, no_argument, NULL, "one line per core (with -a or -C)"},
	{"per-die", 0, OPT_PER_DIE, no_argument, NULL, "one line per die (with -a or -C)"},
	{"per-socket", 0, OPT_PER_SOCKET, no_argument, NULL, "one line per socket (with -a or -C)"},
	{"per-node", 0, OPT_PER_NODE, no_argument, NULL, "one line per NUMA node (with -a or -C)"},
	{"summary", 0, OPT_SUMMARY, no_argument, NULL,
	 "with -I: the run's totals after the intervals (CSV: in\n"
	 "a \"summary\" time column, as perf)"},
	{"no-csv-summary", 0, OPT_NO_CSV_SUMMARY, no_argument, NULL,
	 "CSV totals without the \"summary\" column"},
	{"no-merge", 0, OPT_NO_MERGE, no_argument, NULL,
	 "each PMU's count of an event on its own line: what\n"
	 "pmukit always prints (it never adds up an event's\n"
	 "counts across PMUs, as perf does without it)"},
	{"field-separator", 'x', 0, required_argument, "<sep>", "CSV output with perf's columns"},
	{"json-output", 'j', 0, no_argument, NULL, "JSON lines with perf's keys"},
	{"csv-header", 0, OPT_CSV_HEADER, no_argument, NULL,
	 "with -x and --topdown: a first row naming the columns\n"
	 "([time,][cpu|thread,]value,unit,node,pmu,level,parent,running)"},
	{"output", 'o', 0, required_argument, "<file>",
	 "write the counts to <file> instead of stderr"},
	{"append", 0, OPT_APPEND, no_argument, NULL, "append to the -o file (or --log-fd)"},
	{"log-fd", 0, OPT_LOG_FD, required_argument, "<fd>",
	 "write the counts to this open file descriptor\n"
	 "instead of stderr (as perf)"},
	{"no-inherit", 'i', 0, no_argument, NULL, "do not count the command's children"},
	{"big-num", 'B', 0, no_argument, NULL, "thousands separators (default)"},
	{"no-big-num", 0, OPT_NO_BIG_NUM, no_argument, NULL, "no thousands separators"},
	{"cputype", 0, OPT_CPUTYPE, required_argument, "<pmu>",
	 "hybrid: only events of this core PMU (cpu_core, cpu_atom)"},
	{"verbose", 'v', 0, no_argument, NULL, "explain unsupported events in full"},
	{"metrics", 'M', 0, required_argument, "<metric/metric group list>",
	 "the CPU's vendor metrics and metric groups (pmukit list\n"
	 "metric), each metric's events in one group (docs/metrics.md)"},
	{"metric-no-group", 0, OPT_METRIC_NO_GROUP, no_argument, NULL,
	 "open the events of -M metrics ungrouped"},
	{"metric-no-merge", 0, OPT_METRIC_NO_MERGE, no_argument, NULL,
	 "a group per -M metric (default: a metric whose events\n"
	 "are all in an earlier metric's group is counted there)"},
	{"metric-only", 0, OPT_METRIC_ONLY, no_argument, NULL,
	 "print only the metrics: a column each, a line per\n"
	 "interval and CPU (-A)"},
	{"topdown", 0, OPT_TOPDOWN, no_argument, NULL,
	 "TopDown (docs/topdown.md): where the pipeline slots go,\n"
	 "tma_* shares in percent, one block per core type; the\n"
	 "method (Intel PERF_METRICS or generic counters, Intel\n"
	 "E-cores, AMD Zen 4/5, Arm Neoverse) comes from the CPU;\n"
	 "with -A a block per CPU, --per-thread per thread, -e\n"
	 "events counted beside it and printed after it"},
	{"td-level", 0, OPT_TD_LEVEL, required_argument, "<1-6|all>",
	 "TopDown level (default 1; all: the deepest the CPU's\n"
	 "files define); from Level 3 the tree drills down: a\n"
	 "node's children only below a crossed node (-v: all)"},
	{"desc", 0, OPT_TD_DESC, no_argument, NULL, "with --topdown: each node's description"},
	{"tree", 0, OPT_TREE, no_argument, NULL,
	 "TopDown as a tree: each node's share, its threshold\n"
	 "(crossed or below) and the dominant path (<==)"},
	{"plot", 0, OPT_PLOT, required_argument, "<file.svg>",
	 "with --topdown and -I: the shares of every interval as\n"
	 "an SVG timeline (one panel per core type; Level 1 and,\n"
	 "with --td-level 2, Level 2 bands; \"modeled\" on --model)"},
	{"delay", 'D', 0, required_argument, "<ms>",
	 "enable the counters <ms> after the command starts (-1:\n"
	 "never); the elapsed time from then (\"Events enabled\")"},
	{"group", 'g', 0, no_argument, NULL, "the events in one group (unless -e groups them)"},
	{"null", 'n', 0, no_argument, NULL,
	 "null run: no default events (only -e's), the elapsed time"},
	{"sync", 'S', 0, no_argument, NULL, "call sync() before each run"},
	{"all-user", 0, OPT_ALL_USER, no_argument, NULL,
	 "every event counts in user space only (as :u)"},
	{"all-kernel", 0, OPT_ALL_KERNEL, no_argument, NULL,
	 "every event counts in kernel space only (as :k)"},
	{"pre", 0, OPT_PRE, required_argument, "<command>",
	 "a shell command run before each run (its failure ends stat)"},
	{"post", 0, OPT_POST, required_argument, "<command>",
	 "a shell command run after each run"},
	{"timeout", 0, OPT_TIMEOUT, required_argument, "<ms>",
	 "stop the command (SIGTERM) and print the counts after\n"
	 "<ms> milliseconds (>= 10; not with -I)"},
	{"table", 0, OPT_TABLE, no_argument, NULL,
	 "with -r: each run's elapsed time and its distance from\n"
	 "the mean, then the mean"},
	{"interval-clear", 0, OPT_INTERVAL_CLEAR, no_argument, NULL,
	 "with -I: clear the screen (on stdout) before each\n"
	 "interval, its column header again"},
	{"control", 0, OPT_CONTROL, required_argument, "<fifo:ctl[,ack]|fd:ctl[,ack]>",
	 "commands on a fifo or fd while counting: 'enable',\n"
	 "'disable' (said on stderr, as perf), each acked on ack"},
	{"quiet", 0, OPT_QUIET, no_argument, NULL, "print no counts (the command's exit status only)"},
	{"scale", 0, OPT_SCALE, no_argument, NULL,
	 "counts scaled for multiplexing: what pmukit always does\n"
	 "(accepted, as perf 6.1 does)"},
	{"hybrid-merge", 0, OPT_HYBRID_MERGE, no_argument, NULL,
	 "accepted (perf merges hybrid events' counts; pmukit\n"
	 "prints each core PMU's, as --no-merge)"},
	{"percore-show-thread", 0, OPT_PERCORE_SHOW_THREAD, no_argument, NULL,
	 "accepted (perf: with the percore qualifier; none here)"},
	{"cgroup", 'G', 0, required_argument, "<name>",
	 "refused: counting per cgroup is not in pmukit yet"},
	{"for-each-cgroup", 0, OPT_FOR_EACH_CGROUP, required_argument, "<name>",
	 "refused: counting per cgroup is not in pmukit yet"},
	{"filter", 0, OPT_FILTER, required_argument, "<filter>",
	 "refused: a tracepoint filter (perf's message)"},
	{"transaction", 'T', 0, no_argument, NULL,
	 "refused without Intel TSX's cpu/tx-start/ events (perf's\n"
	 "message and exit status)"},
	{"smi-cost", 0, OPT_SMI_COST, no_argument, NULL,
	 "refused without freeze_on_smi (perf's message and status)"},
	{"iostat", 0, OPT_IOSTAT, optional_argument, "[=<default>]",
	 "refused without an I/O uncore PMU (perf's message)"},
	{"model", 0, OPT_MODEL, required_argument, "<scenario>",
	 "count on the PMU model (docs/model.md): the scenario's\n"
	 "threads are the workload (default target: all of them;\n"
	 "-p/-t/-a/-C choose), its machine gives the PMUs and CPUID,\n"
	 "time is virtual (-I prints every interval at once); every\n"
	 "output says the numbers are modeled"},
	{0},
};

const pk_optspec stat_optspec = {
	.cmd = "stat",
	.synopsis =
		"usage: pmukit stat [options] [--] [<command> [<args>]]\n"
		"       pmukit stat --model <scenario> [options]\n"
		"       pmukit stat --topdown [--td-level N|all] [--tree] [--desc] [-a|-C|-p|-t|-- <command>]\n"
		"                   [-A|--per-thread] [-e <events>] [-I <ms> [--plot <file.svg>]]\n"
		"                   [-x <sep>|-j] [--model <scenario>]\n"
		"       pmukit stat record [-o <file>] [options] [--] <command> [<args>]\n"
		"       pmukit stat report [-i <file>] [-x <sep>|-j]\n"
		"\n"
		"Counts events while a command runs, or for processes, threads or CPUs until\n"
		"Ctrl-C. Without -e: task-clock, context-switches, cpu-migrations,\n"
		"page-faults, and cycles, instructions, branches, branch-misses per core PMU.\n"
		"stat record counts as stat does and writes the counts into a perf.data (-o:\n"
		"its path, '-' a pipe); stat report prints a file's counts as stat did, and\n"
		"pmukit script lists them (perf 6.1's records and output).\n",
	.opts = stat_opts_table,
	.notes = "The command's exit status is pmukit's. When signal N killed it: 128+N if\n"
		 "pmukit passed N on (Ctrl-C, SIGTERM), else 0 after \"<command>: <signal>\",\n"
		 "as perf 6.1.\n",
	.stop_at_arg = true,
};

static int parse_long(const char *opt, const char *s, long min, long max, long *out)
{
	uint64_t v;
	int r = pk_cli_parse_u64("stat", opt, s, (uint64_t)min, (uint64_t)max, &v);
	if (r == 0)
		*out = (long)v;
	return r;
}

/* perf 6.1's refusal of an option this machine cannot serve (no TSX, no
 * SMI freeze, no I/O uncore PMU) or pmukit does not take (--filter): its
 * message, and its exit status (129: at parsing; 234: -EINVAL). */
static int check_refused(const struct stat_opts *o)
{
	switch (o->refused) {
	case OPT_FILTER:
		if (o->nr_events)
			return pk_cli_usage_error("stat", "--filter: not supported by pmukit stat");
		fprintf(stderr, "--filter option should follow a -e tracepoint or HW tracer option\n");
		return 129;
	case OPT_IOSTAT:
		fprintf(stderr, "Unsupported uncore pmu configuration\n");
		return 129;
	case 'T':
		fprintf(stderr, "Cannot set up transaction events\n"
				"pmukit stat: -T counts Intel TSX's cpu/cycles-t/, cpu/tx-start/ "
				"...: no 'cpu' PMU here\n");
		return 234;
	case OPT_SMI_COST:
		fprintf(stderr, "freeze_on_smi is not supported.\n");
		return 234;
	}
	/* perf 6.1's words for these, and its -EINVAL */
	const char *bad = o->timeout_ms && o->timeout_ms < 10 ? "timeout must be >= 10ms."
			  : o->timeout_ms && o->interval_ms
				  ? "timeout option is not supported with interval-print."
			  : o->table && o->repeat <= 1 ? "--table is only supported with -r"
						       : NULL;
	if (bad)
		fprintf(stderr, "%s\n", bad);
	return bad ? 234 : 0;
}

/* The options together: 0, or the usage exit code (said here). */
static int check_options(struct stat_opts *o)
{
	bool has_cmd = o->cmd[0] != NULL;
	int refused = check_refused(o);
	if (refused)
		return refused;
	if (o->all_user && o->all_kernel)
		return pk_cli_usage_error("stat", "--all-user and --all-kernel cannot be used together");
	if (o->sep && o->json)
		return pk_cli_usage_error("stat", "-x and -j cannot be used together");
	if (o->sep && !*o->sep)
		return pk_cli_usage_error("stat", "-x needs a non-empty separator");
	int r = pk_cli_nonempty("stat", "-p", o->pids, "process id");
	if (!r)
		r = pk_cli_nonempty("stat", "-t", o->tids, "thread id");
	for (int i = 0; !r && i < o->nr_events; i++)
		r = pk_cli_nonempty("stat", "-e", o->events[i], "event");
	if (r)
		return r;
	if (o->pids && o->tids)
		return pk_cli_usage_error("stat", "-p and -t cannot be used together");
	if ((o->pids || o->tids) && (o->all_cpus || o->cpu_list))
		return pk_cli_usage_error("stat", "-p/-t and -a/-C cannot be used together");
	/* perf 6.1's refusals, its words and exit status */
	if (o->metric_only && (o->per_thread || o->repeat > 1)) {
		fprintf(stderr, "--metric-only is not supported with %s\n",
			o->per_thread ? "--per-thread" : "-r");
		return 234;
	}
	if (o->no_aggr && o->per_thread)
		return pk_cli_usage_error("stat", "-A and --per-thread cannot be used together");
	if (o->interval_ms && o->repeat > 1)
		return pk_cli_usage_error("stat", "-I and -r cannot be used together");
	if (o->interval_count && !o->interval_ms)
		return pk_cli_usage_error("stat", "--interval-count needs -I");
	if (o->repeat > 1 && !has_cmd)
		return pk_cli_usage_error("stat", "-r needs a command to repeat");
	if (o->output && o->log_fd >= 0)
		return pk_cli_usage_error("stat", "-o and --log-fd cannot be used together");
	if (o->append && !o->output && o->log_fd < 0)
		return pk_cli_usage_error("stat", "--append needs -o or --log-fd");
	if (o->csv_header && (!o->sep || !o->topdown))
		return pk_cli_usage_error("stat", "--csv-header names TopDown's CSV columns: it "
						  "needs -x and --topdown");
	if (o->model && has_cmd)
		return pk_cli_usage_error("stat", "--model runs the scenario's threads: no command");
	if ((o->td_level || o->tree || o->td_desc) && !o->topdown)
		return pk_cli_usage_error("stat", "--td-level, --tree and --desc need --topdown");
	if (o->plot && (!o->topdown || !o->interval_ms))
		return pk_cli_usage_error("stat", "--plot draws the TopDown shares of each interval: "
						  "it needs --topdown and -I <ms>");
	if (o->plot && (o->no_aggr || o->per_thread))
		return pk_cli_usage_error("stat", "--plot draws the aggregated shares: no -A or "
						  "--per-thread");
	/* perf: no command and no target means the whole system until Ctrl-C;
	 * the model's default target is the scenario's threads */
	if (!has_cmd && !o->pids && !o->tids && !o->cpu_list && !o->model)
		o->all_cpus = true;
	bool cpus = o->all_cpus || o->cpu_list;
	if (o->no_aggr && !cpus)
		return pk_cli_usage_error("stat", "-A (one line per CPU) needs -a or -C");
	if (o->per && (o->no_aggr || o->per_thread || !cpus || o->topdown))
		return pk_cli_usage_error("stat", "--per-core/die/socket/node need -a or -C, "
						  "without -A, --per-thread or --topdown");
	if (o->per_thread && o->cpu_list)
		return pk_cli_usage_error("stat", "--per-thread needs a command, -p, -t or -a, not -C");
	return 0;
}

static int parse_loop(int argc, char **argv, struct stat_opts *o);

/* perf stat report's options (its -i is the input, not --no-inherit);
 * -x and -j go before "report", as perf's. */
enum { OPT_REPORT_PER = 512 };
static const pk_opt stat_report_table[] = {
	{"input", 'i', 0, required_argument, "<file>", "the stat file (default: perf.data)"},
	{"no-aggr", 'A', 0, no_argument, NULL, "one line per CPU"},
	{"per-core", 0, OPT_REPORT_PER, no_argument, NULL, "refused: not in pmukit yet"},
	{"per-die", 0, OPT_REPORT_PER, no_argument, NULL, "refused: not in pmukit yet"},
	{"per-node", 0, OPT_REPORT_PER, no_argument, NULL, "refused: not in pmukit yet"},
	{"per-socket", 0, OPT_REPORT_PER, no_argument, NULL, "refused: not in pmukit yet"},
	{0},
};
static const pk_optspec stat_report_spec = {
	.cmd = "stat",
	.synopsis = "usage: pmukit stat [-x <sep>|-j] report [-i <file>] [-A]\n",
	.opts = stat_report_table,
};

static int parse_report(int argc, char **argv, struct stat_opts *o)
{
	pk_opt_begin(&stat_report_spec);
	int ch;
	while ((ch = pk_opt_next(&stat_report_spec, argc, argv)) != -1) {
		switch (ch) {
		case 'i': o->input = optarg; break;
		case 'A': o->no_aggr = true; break;
		case OPT_REPORT_PER:
			return pk_cli_usage_error("stat", "stat report %s: not supported by pmukit "
							  "(the file's own aggregation, or -A)",
						  pk_opt_last_name());
		default: return 129; /* said */
		}
	}
	return 0;
}

/* 0, -1 for stat report, or the usage exit code (said). */
static int parse_options(int argc, char **argv, struct stat_opts *o)
{
	o->big_num = true;
	o->repeat = 1;
	o->log_fd = -1;
	o->events = calloc((size_t)argc + 1, sizeof(char *));
	o->metrics = calloc((size_t)argc + 1, sizeof(char *));
	if (!o->events || !o->metrics)
		return pk_cli_usage_error("stat", "out of memory");
	o->argc = argc;
	o->argv = argv;
	int r = parse_loop(argc, argv, o);
	if (r)
		return r;
	o->cmd = argv + optind;
	/* perf's stat record and stat report: the word (or its start, from 3
	 * letters) after stat's options, then further options */
	const char *w = o->cmd[0];
	size_t wl = w ? strlen(w) : 0;
	if (wl > 2 && !strncmp("record", w, wl)) {
		int n = argc - optind;
		char **rest = o->cmd;
		o->record = true;
		if ((r = parse_loop(n, rest, o)))
			return r;
		o->cmd = rest + optind;
		o->data_path = o->output;
		o->output = NULL;
		if (!o->cmd[0] && !o->pids && !o->tids && !o->all_cpus && !o->cpu_list)
			return pk_cli_usage_error("stat", "stat record needs a command or a target");
		if (o->interval_ms || o->repeat > 1 || o->model || o->topdown || o->per)
			return pk_cli_usage_error("stat", "stat record with -I, -r, --model, --topdown "
							  "or --per-*: not supported by pmukit");
	} else if (wl > 2 && !strncmp("report", w, wl)) {
		int n = argc - optind;
		char **rest = o->cmd;
		if ((r = parse_report(n, rest, o)))
			return r;
		if (rest[optind])
			return pk_cli_usage_error("stat", "stat report: unexpected argument '%s'",
						  rest[optind]);
		return -1; /* report */
	}
	return check_options(o);
}

/* One pass of the option parser over argv (argv[0]: the command's word). */
static int parse_loop(int argc, char **argv, struct stat_opts *o)
{
	pk_opt_begin(&stat_optspec);
	int ch;
	/* stop_at_arg: stop at the command, so its options stay its own */
	while ((ch = pk_opt_next(&stat_optspec, argc, argv)) != -1) {
		int r = 0;
		switch (ch) {
		case 'e': o->events[o->nr_events++] = optarg; break;
		case 'a': o->all_cpus = true; break;
		case 'C': o->cpu_list = optarg; break;
		case 'p': o->pids = optarg; break;
		case 't': o->tids = optarg; break;
		case 'I': r = parse_long("-I", optarg, 10, 3600000, &o->interval_ms); break;
		case OPT_INTERVAL_COUNT:
			r = parse_long("--interval-count", optarg, 1, LONG_MAX, &o->interval_count);
			break;
		case 'r': r = parse_long("-r", optarg, 1, 1000000, &o->repeat); break;
		case 'A': o->no_aggr = true; break;
		case OPT_PER_THREAD: o->per_thread = true; break;
		case 'x': o->sep = optarg; break;
		case 'j': o->json = true; break;
		case 'o': o->output = optarg; break;
		case OPT_APPEND: o->append = true; break;
		case 'i': o->no_inherit = true; break;
		case 'B': o->big_num = true; break;
		case OPT_NO_BIG_NUM: o->big_num = false; break;
		case OPT_CPUTYPE: o->cputype = pk_pmus_cputype_name(optarg); break;
		case 'v': o->verbose = true; break;
		case OPT_MODEL: o->model = optarg; break;
		case OPT_TOPDOWN: o->topdown = true; break;
		case OPT_TD_LEVEL:
			o->td_level = PK_TOPDOWN_LEVEL_ALL;
			if (strcmp(optarg, "all"))
				r = parse_long("--td-level", optarg, 1, PK_TOPDOWN_MAX_LEVEL, &o->td_level);
			break;
		case OPT_TREE: o->tree = true; break;
		case OPT_TD_DESC: o->td_desc = true; break;
		case OPT_PLOT: o->plot = optarg; break;
		case OPT_LOG_FD: r = parse_long("--log-fd", optarg, 0, INT_MAX, &o->log_fd); break;
		case OPT_CSV_HEADER: o->csv_header = true; break;
		case 'M': o->metrics[o->nr_metrics++] = optarg; break;
		case OPT_METRIC_NO_GROUP: o->metric_no_group = true; break;
		case OPT_METRIC_NO_MERGE: o->metric_no_merge = true; break;
		case OPT_METRIC_ONLY: o->metric_only = true; break;
		case 'd': o->detailed++; break;
		case OPT_PER_CORE: o->per = PK_STAT_PER_CORE; break;
		case OPT_PER_DIE: o->per = PK_STAT_PER_DIE; break;
		case OPT_PER_SOCKET: o->per = PK_STAT_PER_SOCKET; break;
		case OPT_PER_NODE: o->per = PK_STAT_PER_NODE; break;
		case OPT_SUMMARY: o->summary = true; break;
		case OPT_NO_CSV_SUMMARY: o->no_csv_summary = true; break;
		case OPT_NO_MERGE: break; /* the rows are per evsel, never merged */
		case 'g': o->group = true; break;
		case 'D':
			if (strcmp(optarg, "-1"))
				r = parse_long("-D", optarg, 0, INT_MAX, &o->delay_ms);
			else
				o->delay_ms = -1;
			break;
		case 'n': o->null_run = true; break;
		case 'S': o->sync = true; break;
		case OPT_ALL_USER: o->all_user = true; break;
		case OPT_ALL_KERNEL: o->all_kernel = true; break;
		case OPT_PRE: o->pre = optarg; break;
		case OPT_POST: o->post = optarg; break;
		case OPT_TIMEOUT: r = parse_long("--timeout", optarg, 0, INT_MAX, &o->timeout_ms); break;
		case OPT_TABLE: o->table = true; break;
		case OPT_INTERVAL_CLEAR: o->interval_clear = true; break;
		case OPT_QUIET: o->quiet = true; break;
		case OPT_CONTROL: o->control = optarg; break;
		case OPT_SCALE: case OPT_HYBRID_MERGE: case OPT_PERCORE_SHOW_THREAD: break;
		case OPT_FILTER: case 'T': case OPT_SMI_COST: case OPT_IOSTAT:
			o->refused = ch;
			break;
		case 'G': case OPT_FOR_EACH_CGROUP:
			/* perf 6.1's first check, then pmukit's refusal */
			if (!o->nr_events && !o->nr_metrics) {
				fprintf(stderr, "must define events before cgroups\n");
				return 129;
			}
			return pk_cli_usage_error("stat", "%s: counting per cgroup is not supported "
							  "by pmukit yet", ch == 'G' ? "-G" : "--for-each-cgroup");
		default: return 129; /* PK_OPT_ERROR, said */
		}
		if (r)
			return r;
	}
	return 0;
}

/* ---- Target ------------------------------------------------------------- */

static char *target_name(const struct stat_opts *o)
{
	char *s = NULL;
	int r;
	if (o->pids)
		r = asprintf(&s, "process id '%s'", o->pids);
	else if (o->tids)
		r = asprintf(&s, "thread id '%s'", o->tids);
	else if (o->cpu_list)
		r = asprintf(&s, "'CPU(s) %s'", o->cpu_list);
	else if (o->all_cpus)
		r = asprintf(&s, "'system wide'");
	else if (o->model)
		r = asprintf(&s, "the threads of '%s'", o->model);
	else {
		size_t len = 3;
		for (char **a = o->cmd; *a; a++)
			len += strlen(*a) + 1;
		s = malloc(len);
		if (!s)
			return NULL;
		char *p = s;
		*p++ = '\'';
		for (char **a = o->cmd; *a; a++)
			p += sprintf(p, "%s%s", a == o->cmd ? "" : " ", *a);
		strcpy(p, "'");
		return s;
	}
	return r < 0 ? NULL : s;
}

/* ---- The command ---------------------------------------------------------- */

/* ---- Running ------------------------------------------------------------ */

struct stat_session {
	struct stat_opts *o;
	pk_model *model;           /* --model */
	const pk_kernel *kernel;   /* the model's, or NULL: the real one */
	pk_pmus *pmus;
	pk_evlist *evlist;
	pk_stat *st;               /* the counting engine: runs, the command, rows */
	pk_cpumap *cpus;           /* -a/-C target */
	pk_threadmap *threads;     /* -p/-t target */
	pk_aggr_mode aggr;
	stat_printer printer;
	stat_td td;                /* --topdown */
	pk_metric_groups *mg;      /* -M */
	size_t warned;             /* the event list's warnings printed */
	bool default_without_hw;   /* default set on a machine with no core PMU */
	bool every_thread;         /* --per-thread -a: every thread of the system */
	ctl_chan ctl;              /* --control's channel (ctl_fd -1: none) */
	double *run_secs;          /* --table: each run's elapsed seconds */
	int nr_run_secs;
};


/* --plot: the kept intervals' TopDown shares to the SVG file. */
static int plot_intervals(struct stat_session *s, pk_error *err)
{
	char *target = target_name(s->o);
	int r = stat_td_plot(&s->td, s->o->plot, target, s->model != NULL, err);
	free(target);
	return r;
}

/* Whether --topdown's run is read at every rotation for the multiplexing
 * estimate (pk_topdown_windows): on the model (whose rotations the reads
 * can follow), aggregated, one run without -I. Elsewhere no estimate is
 * made, and its pinned reference is not opened. */
static bool td_rotation_windows(const struct stat_session *s)
{
	return s->o->topdown && s->model && !s->o->interval_ms && s->aggr == PK_AGGR_GLOBAL &&
	       s->o->repeat <= 1 && pk_model_mux_ns(s->model) >= 1000000u;
}

/* Whether --topdown's -I intervals are the estimate's windows (each
 * interval's multiplexed counts estimated from the intervals so far,
 * pk_topdown_windows_correct_last): aggregated, on any kernel (the real one
 * exposes no rotation, its counters are read at every interval). */
static bool td_interval_windows(const struct stat_session *s)
{
	return s->o->topdown && s->o->interval_ms && s->aggr == PK_AGGR_GLOBAL;
}

/* The event list's warnings from *printed on (the open's: "Weak group for
 * X/N failed", perf's -v message) to stderr when verbose; *printed moves
 * past them. */
static void stat_print_notes(const pk_evlist *l, size_t *printed, bool verbose)
{
	for (; *printed < pk_evlist_nr_warnings(l); (*printed)++)
		if (verbose)
			fprintf(stderr, "%s\n", pk_evlist_warning(l, *printed));
}

/* -I with --topdown: the run's totals at the interval's end (just read)
 * as the estimate's next window. */
static int td_interval_window(struct stat_session *s, pk_error *err)
{
	stat_rows tot = {0};
	int r = 0;
	if (pk_stat_rows_collect(&tot, pk_stat_counting(s->st), PK_AGGR_GLOBAL, false) < 0 ||
	    pk_topdown_windows_add(s->td.windows, &tot) < 0)
		r = pk_err(err, -ENOMEM, "out of memory");
	pk_stat_rows_free(&tot);
	return r;
}

/* Prints one interval's deltas (a pk_stat_tick_fn). */
static int print_interval(void *arg, double t_ns, double len_ns, pk_error *err)
{
	struct stat_session *s = arg;
	stat_rows rows = {0};
	int r = pk_stat_interval(s->st, &rows, err);
	if (r == 0 && s->o->quiet) {
		pk_stat_rows_free(&rows);
		return 0;
	}
	if (s->o->interval_clear) { /* perf's: on stdout, then the header */
		fputs("\033[H\033[2J\n", stdout);
		fflush(stdout);
	}
	if (r == 0)
		r = pk_stat_rows_per(&rows, s->o->per, s->kernel);
	if (r == 0 && s->td.intervals)
		r = td_interval_window(s, err);
	if (r == 0 && s->every_thread)
		pk_stat_rows_threads_by_value(&rows);
	if (r == 0 && s->o->topdown)
		r = stat_td_print(&s->td, &s->printer, &rows, len_ns, t_ns);
	else if (r == 0)
		r = stat_print_rows(&s->printer, &rows, len_ns, t_ns);
	if (r == 0)
		fflush(s->printer.out);
	pk_stat_rows_free(&rows);
	return r == -ENOMEM ? pk_err(err, r, "out of memory") : r;
}

/* After each open: the event list's new warnings; TopDown prints nothing
 * rather than shares missing an event. */
static int run_opened(void *arg, int rc, pk_error *err)
{
	struct stat_session *s = arg;
	stat_print_notes(s->evlist, &s->warned, s->o->verbose);
	return rc == 0 && s->o->topdown ? pk_topdown_check(s->td.td, pk_stat_counting(s->st), s->pmus, err)
					: rc;
}

/* --topdown's totals on the model: a reading at every rotation of the
 * counters, for the multiplexing estimate (a pk_model_tick_fn). */
static int model_window(void *arg, double t_ns, double len_ns, pk_error *err)
{
	struct stat_session *s = arg;
	(void)t_ns, (void)len_ns;
	stat_rows rows = {0};
	pk_counting *c = pk_stat_counting(s->st);
	int r = pk_counting_read(c, err);
	if (r == 0 && (pk_stat_rows_collect(&rows, c, PK_AGGR_GLOBAL, false) < 0 ||
		       pk_topdown_windows_add(s->td.windows, &rows) < 0))
		r = pk_err(err, -ENOMEM, "out of memory");
	pk_stat_rows_free(&rows);
	return r;
}

/* A command a signal killed (not one we passed on): said as perf 6.1
 * says it (psignal), before the counts; the run's time kept for --table. */
static void run_stopped(void *arg, const pk_stat_result *res, bool interrupted, bool done)
{
	struct stat_session *s = arg;
	if (s->run_secs && s->nr_run_secs < s->o->repeat)
		s->run_secs[s->nr_run_secs++] = res->elapsed_ns / 1e9;
	if (res->status >= 0 && WIFSIGNALED(res->status) && !interrupted && !done)
		fprintf(stderr, "%s: %s\n", s->o->cmd[0], strsignal(WTERMSIG(res->status)));
}

/* The run on the model (pk_stat_run_opts.run): virtual time to the
 * scenario's end, every interval ticked; TopDown's aggregated totals
 * without -I are read at every rotation instead (pk_topdown_windows). */
static int model_run(void *arg, long interval_ms, long count, pk_stat_tick_fn tick,
		     void *tick_arg, pk_error *err)
{
	struct stat_session *s = arg;
	long mux_ms = (long)(pk_model_mux_ns(s->model) / 1000000u);
	if (td_rotation_windows(s) && !interval_ms) {
		pk_topdown_windows_free(s->td.windows);
		if (!(s->td.windows = pk_topdown_windows_new(s->td.td)))
			return pk_err(err, -ENOMEM, "out of memory");
		return pk_model_run(s->model, mux_ms, 0, model_window, s, err);
	}
	return pk_model_run(s->model, interval_ms, count, tick, tick_arg, err);
}

/* Explanations for events that could not be counted, one line each, each
 * said once (pk_counting_notes: all hardware events of a PMU-less VM share
 * one line); without -v at most a few, then how many more events there are. */
static void print_notes(struct stat_session *s, FILE *out)
{
	enum { MAX_QUIET_NOTES = 3 };
	pk_counting_note *notes = NULL;
	size_t nr = 0, more = 0;
	pk_counting_notes(pk_stat_counting(s->st), s->pmus, &notes, &nr);
	for (size_t k = 0; k < nr; k++) {
		const pk_error *e = &notes[k].why;
		if (!s->o->verbose && k >= MAX_QUIET_NOTES) {
			more += notes[k].nr_events;
			continue;
		}
		if (s->printer.fmt == STAT_HUMAN && k == 0 && out == s->printer.out)
			fputc('\n', out);
		fprintf(out, "note: %s\n", e->msg);
		if (s->o->verbose && e->hint[0])
			fprintf(out, "%s%s", e->hint, e->hint[strlen(e->hint) - 1] == '\n' ? "" : "\n");
	}
	if (more)
		fprintf(out, "note: %zu more events could not be counted (-v says why)\n", more);
	if (s->default_without_hw) {
		if (s->printer.fmt == STAT_HUMAN && nr == 0 && out == s->printer.out)
			fputc('\n', out);
		fprintf(out, "note: no core PMU in %s/bus/event_source/devices (a VM without PMU "
			     "virtualization?): hardware events are left out; software events count normally\n",
			pk_pmus_root(s->pmus));
	}
	free(notes);
}

/* The events (pk_stat_events_build: TopDown's, -e's, -M's or the default
 * set, -d's), the session taking what it built. */
static int build_evlist(struct stat_session *s, pk_error *err)
{
	struct stat_opts *o = s->o;
	pk_stat_events_opts eo = {
		.size = sizeof(eo), .pmus = s->pmus, .kernel = s->kernel,
		.cpuid = s->model ? pk_model_cpuid(s->model)->str : NULL, .only_pmu = o->cputype,
		.topdown = o->topdown, .td_level = (int)o->td_level,
		.events = (const char *const *)o->events, .nr_events = (size_t)o->nr_events,
		.metrics = o->metrics, .nr_metrics = (size_t)o->nr_metrics,
		.metric_no_group = o->metric_no_group, .metric_no_merge = o->metric_no_merge,
		.detailed = o->detailed, .system_wide = s->cpus != NULL || o->all_cpus,
		.forked_workload = o->cmd[0] && !s->cpus && !s->threads && !o->delay_ms,
		.no_inherit = o->no_inherit,
		.td_windows = td_rotation_windows(s) || td_interval_windows(s),
		.all_user = o->all_user, .all_kernel = o->all_kernel, .group = o->group,
		.null_run = o->null_run};
	pk_stat_events ev;
	int r = pk_stat_events_build(&eo, &ev, err);
	s->evlist = ev.evlist;
	s->mg = ev.mg;
	s->default_without_hw = ev.default_without_hw;
	s->td = (stat_td){.td = ev.td, .tree = o->tree, .desc = o->td_desc, .verbose = o->verbose,
			  .csv_header = o->csv_header, .aggr = s->aggr};
	if (r == 0 && ev.td && td_interval_windows(s)) {
		s->td.intervals = true;
		if (!(s->td.windows = pk_topdown_windows_new(ev.td)))
			r = pk_err(err, -ENOMEM, "out of memory");
	}
	return r;
}

static FILE *open_output(const struct stat_opts *o)
{
	if (o->log_fd >= 0) { /* perf's --log-fd: the fd as given, no "started on" */
		FILE *f = fdopen((int)o->log_fd, o->append ? "a" : "w");
		if (!f)
			fprintf(stderr, "pmukit stat: cannot write to --log-fd %ld: %s\n", o->log_fd,
				strerror(errno));
		return f;
	}
	if (!o->output)
		return stderr;
	FILE *f = fopen(o->output, o->append ? "a" : "w");
	if (!f) {
		fprintf(stderr, "pmukit stat: cannot open '%s': %s\n", o->output, strerror(errno));
		return NULL;
	}
	/* as perf: a file says when it was written (not a modeled run: its
	 * output is the same bytes every time) */
	if (o->model)
		return f;
	time_t t = time(NULL);
	char when[64];
	ctime_r(&t, when);
	fprintf(f, "# started on %s\n", when);
	return f;
}

/* The model's virtual time, the run's clock on --model. */
static double model_clock(void *arg)
{
	return (double)pk_model_now(arg);
}

/* PMUs, targets and events: 0, a usage exit code (> 0), or < 0 with err
 * set. */
static int setup(struct stat_session *s, pk_error *err)
{
	const struct stat_opts *o = s->o;
	if (o->model) {
		s->model = pk_model_new(o->model, err);
		if (!s->model)
			return err->code ? err->code : -ENOMEM;
		s->kernel = pk_model_kernel(s->model);
	}
	s->pmus = pk_pmus_load(s->model ? pk_model_sysfs_root(s->model) : NULL, err);
	if (!s->pmus)
		return err->code ? err->code : -ENOMEM;
	int usage = pk_cli_check_cputype("stat", s->pmus, o->cputype);
	if (usage)
		return usage;
	/* --per-thread -a: every thread of the system, each on any CPU (perf's) */
	bool every_thread = s->every_thread = o->per_thread && o->all_cpus;
	pk_targets_opts to = {.size = sizeof(to), .kernel = s->kernel ? s->kernel : pk_kernel_linux(),
			      .all_cpus = o->all_cpus && !every_thread, .cpu_list = o->cpu_list,
			      .pids = o->pids, .tids = o->tids,
			      .every_task = s->model != NULL || every_thread};
	int r = pk_targets_select(&to, &s->cpus, &s->threads, err);
	if (r < 0)
		return r;
	r = build_evlist(s, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < pk_evlist_nr_warnings(s->evlist); i++) {
		const char *w = pk_evlist_warning(s->evlist, i);
		bool plain = !strncmp(w, "WARNING", 7) || !strncmp(w, "note:", 5);
		fprintf(stderr, "%s%s\n", plain ? "" : "WARNING: ", w);
	}
	s->warned = pk_evlist_nr_warnings(s->evlist);
	pk_stat_opts so = {.size = sizeof(so), .kernel = s->kernel, .cpus = s->cpus,
			   .threads = s->threads, .cmd = o->cmd[0] ? o->cmd : NULL,
			   .aggr = o->per ? PK_AGGR_CPU : s->aggr, .clock = s->model ? model_clock : NULL,
			   .clock_arg = s->model, .delayed = o->delay_ms != 0};
	return pk_stat_new(s->evlist, &so, &s->st, err);
}

/* A --pre/--post command through the shell: 0, or < 0 with err set when
 * it could not run or failed. */
static int run_shell(const char *opt, const char *cmd, pk_error *err)
{
	fflush(stdout);
	fflush(stderr);
	int st = system(cmd);
	if (st == -1)
		return pk_err(err, -errno, "%s '%s': cannot run it: %s", opt, cmd, strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return pk_err(err, -ECANCELED, "%s '%s' failed (status %d)", opt, cmd,
			      WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}

/* Before each run: -S's sync, --pre's command (the run's hook). */
static int run_before(void *arg, pk_error *err)
{
	const struct stat_opts *o = ((struct stat_session *)arg)->o;
	if (o->sync)
		sync();
	return o->pre ? run_shell("--pre", o->pre, err) : 0;
}

/* After each run: --post's command, and the run's time kept for --table. */
static int run_after(void *arg, pk_error *err)
{
	struct stat_session *s = arg;
	return s->o->post ? run_shell("--post", s->o->post, err) : 0;
}

/* -D: perf's words when the counters wait and when they start. */
static void run_events(void *arg, bool on)
{
	(void)arg;
	fprintf(stderr, "Events %s\n", on ? "enabled" : "disabled");
	fflush(stderr);
}

/* --control: the commands waiting, each acked; enable and disable act on
 * the run's counters and are said as -D's (the run's idle hook). */
static int run_control(void *arg, pk_error *err)
{
	struct stat_session *s = arg;
	ctl_cmd c;
	while ((c = ctl_next(&s->ctl, NULL, 0)) != CTL_NONE) {
		pk_counting *cnt = pk_stat_counting(s->st);
		if (c == CTL_ENABLE && pk_counting_enable(cnt, err) < 0)
			return err->code;
		if (c == CTL_DISABLE)
			pk_counting_disable(cnt, NULL);
		if (c == CTL_ENABLE || c == CTL_DISABLE)
			run_events(s, c == CTL_ENABLE);
		ctl_ack(&s->ctl);
	}
	return 0;
}

/* Every run (pk_stat_runs_do), signals taken synchronously while they run
 * (they end a run, not pmukit; the command gets the old mask back); the
 * counts of all runs accumulate in acc (without -I). */
static int run_all(struct stat_session *s, stat_rows *acc, pk_stat_runs *runs, pk_error *err)
{
	sigset_t waited, old_mask;
	sigemptyset(&waited);
	sigaddset(&waited, SIGCHLD);
	sigaddset(&waited, SIGINT);
	sigaddset(&waited, SIGTERM);
	sigaddset(&waited, SIGHUP);
	sigprocmask(SIG_BLOCK, &waited, &old_mask);
	signal(SIGPIPE, SIG_IGN);
	const struct stat_opts *o = s->o;
	pk_stat_run_opts ro = {.size = sizeof(ro), .repeat = o->repeat, .signals = &waited,
			       .interval_ms = o->interval_ms, .interval_count = o->interval_count,
			       .tick = print_interval, .arg = s, .run = s->model ? model_run : NULL,
			       .run_arg = s, .opened = run_opened, .stopped = run_stopped,
			       .per = o->per, .kernel = s->kernel, .totals = o->summary,
			       .timeout_ms = o->timeout_ms, .before = run_before, .after = run_after,
			       .delay_ms = o->delay_ms, .events = run_events,
			       .idle = s->ctl.ctl_fd >= 0 ? run_control : NULL, .idle_ms = 20};
	int r = pk_stat_runs_do(s->st, &ro, acc, runs, err);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return r;
}

/* perf 6.1 counts duration_time system-wide, on CPU 0: a list of nothing
 * else makes its run a system-wide one, so named, without the command's
 * user and sys lines (unless -p, -t or -C name the target; not the
 * duration_time of a metric of no event: perf 6.1 names the command). */
static bool runs_system_wide(const struct stat_session *s)
{
	const struct stat_opts *o = s->o;
	size_t n = pk_evlist_count(s->evlist);
	if (o->all_cpus || o->pids || o->tids || o->cpu_list || o->model || o->nr_metrics || !n)
		return o->all_cpus;
	for (size_t i = 0; i < n; i++)
		if (pk_evsel_tool(pk_evlist_at(s->evlist, i)) != PK_TOOL_DURATION)
			return false;
	return true;
}

/* The totals (without -I), the notes and the footer; returns r, or an
 * error when printing failed. */
static int print_totals(struct stat_session *s, FILE *out, stat_rows *acc,
			const pk_stat_runs *rs, int r, pk_error *err)
{
	const pk_runstats *elapsed = &rs->elapsed;
	const pk_stat_result *res = &rs->last;
	int runs = rs->runs;
	const struct stat_opts *o = s->o;
	bool totals = !o->interval_ms || o->summary;
	if (o->quiet) /* perf's --quiet: no counts, notes or times */
		return r;
	s->printer.run_secs = s->run_secs;
	s->printer.nr_run_secs = s->nr_run_secs;
	/* perf: CSV totals under --summary say so in the time column */
	s->printer.csv_summary = o->summary && !o->no_csv_summary;
	if (totals) {
		char *target = runs_system_wide(s) ? strdup("'system wide'") : target_name(o);
		s->printer.runs = runs;
		if (s->every_thread)
			pk_stat_rows_threads_by_value(acc);
		stat_print_header(&s->printer, target ? target : "?", runs);
		free(target);
		int pr = o->topdown ? stat_td_print(&s->td, &s->printer, acc, elapsed->mean * 1e9, -1)
				    : stat_print_rows(&s->printer, acc, elapsed->mean * 1e9, -1);
		if (pr < 0)
			r = pk_err(err, -ENOMEM, "out of memory");
	}
	/* notes would break CSV and JSON parsers: those get them on stderr,
	 * and only when the counts go to a file */
	if (s->printer.fmt == STAT_HUMAN)
		print_notes(s, out);
	else if (out != stderr)
		print_notes(s, stderr);
	if (totals) {
		bool ru = o->cmd[0] && !s->cpus && !s->threads && runs == 1 && res->status >= 0 &&
			  !runs_system_wide(s);
		double user = (double)res->ru.ru_utime.tv_sec + (double)res->ru.ru_utime.tv_usec / 1e6;
		double sys = (double)res->ru.ru_stime.tv_sec + (double)res->ru.ru_stime.tv_usec / 1e6;
		stat_print_footer(&s->printer, elapsed, ru ? user : -1, ru ? sys : -1);
		if (o->topdown)
			stat_td_advice(&s->printer);
	}
	return r;
}

static int vendor_metric(const void *arg, const pk_metric_counts *in, size_t idx, size_t nth,
			 pk_metric_group_value *out)
{
	return pk_metric_groups_value(arg, in, idx, nth, out);
}

/* stat record: the run's counts into its file; 0 or 1 (said). */
static int record_file(struct stat_session *s, const pk_stat_runs *runs)
{
	stat_record_out ro = {.path = s->o->data_path, .aggr = s->aggr,
			      .elapsed_ns = runs->last.elapsed_ns, .kernel = s->kernel,
			      .pmus = s->pmus, .argc = s->o->argc, .argv = s->o->argv};
	fflush(stderr);
	return stat_record_write(&ro, pk_stat_counting(s->st));
}

/* stat report: the file's counts on stderr, as perf 6.1. */
static int stat_report(const struct stat_opts *o)
{
	stat_printer p = {.out = stderr, .fmt = o->json ? STAT_JSON : o->sep ? STAT_CSV : STAT_HUMAN,
			  .sep = o->sep ? o->sep : " ", .big_num = true,
			  .thousands = stat_thousands_sep(), .runs = 1};
	int r = stat_report_file(o->input, o->no_aggr, &p);
	stat_printer_free(&p);
	return r;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = {0};
	struct stat_session s = {.o = &o};
	pk_error err;
	stat_rows acc = {0};
	pk_stat_runs runs = {.last = {.status = -1}};
	int ret = 1, r;
	pk_error_clear(&err);
	r = parse_options(argc, argv, &o);
	if (r == -1) { /* stat report */
		r = stat_report(&o);
		free(o.events);
		free(o.metrics);
		return r;
	}
	if (r) {
		free(o.events);
		free(o.metrics);
		return r;
	}
	/* stderr is unbuffered: a write per field would cost more than the
	 * counting; flushed before fork, per interval and at exit */
	s.ctl = (ctl_chan){.ctl_fd = -1, .ack_fd = -1};
	char why[4300];
	if (o.control && ctl_open(&s.ctl, o.control, why, sizeof(why))) {
		fprintf(stderr, "%s\n", why); /* perf 6.1: its usage, status 129 */
		free(o.events);
		free(o.metrics);
		return 129;
	}
	static char errbuf[8192];
	if (!o.output && o.log_fd < 0)
		setvbuf(stderr, errbuf, _IOFBF, sizeof(errbuf));
	s.aggr = o.no_aggr ? PK_AGGR_CPU : o.per_thread ? PK_AGGR_THREAD : PK_AGGR_GLOBAL;
	r = setup(&s, &err);
	if (r > 0) {
		ret = r;
		goto out;
	}
	if (r < 0)
		goto fail;
	if (o.record)
		stat_record_prepare(s.evlist);
	FILE *out = open_output(&o);
	if (!out)
		goto out;
	s.printer = (stat_printer){
		.out = out,
		.fmt = o.json ? STAT_JSON : o.sep ? STAT_CSV : STAT_HUMAN,
		.sep = o.sep ? o.sep : " ",
		.aggr = s.aggr,
		.big_num = o.big_num,
		.thousands = stat_thousands_sep(),
		.runs = 1,
		.metric_only = o.metric_only,
		.per = o.per,
		.core_wide = o.all_cpus && !o.cpu_list,
		.null_run = o.null_run,
		.interval_clear = o.interval_clear,
	};
	if (o.table && !(s.run_secs = calloc((size_t)o.repeat, sizeof(double)))) {
		pk_err(&err, -ENOMEM, "out of memory");
		goto fail;
	}
	if (o.nr_metrics) {
		s.printer.vendor_metric = vendor_metric;
		s.printer.vendor_arg = s.mg;
	}
	char label[PATH_MAX + 300];
	if (s.model) {
		s.printer.modeled = pk_model_label(s.model, label, sizeof(label));
		if (s.printer.fmt != STAT_JSON) /* JSON rows say "modeled" */
			fprintf(out, "# modeled: %s -- no hardware was measured\n", label);
	}
	r = run_all(&s, &acc, &runs, &err);
	if (r < 0 && runs.runs == 0) {
		if (out != stderr)
			fclose(out);
		goto fail;
	}
	r = print_totals(&s, out, &acc, &runs, r, &err);
	int rec = r >= 0 && o.record ? record_file(&s, &runs) : 0;
	if (r >= 0 && o.plot)
		r = plot_intervals(&s, &err);
	/* counts that did not reach the file are an error, as in perf */
	int wr = out != stderr ? pk_cli_fclose(out, "stat", o.output ? o.output : "--log-fd")
			       : (fflush(out), 0);
	if (r < 0)
		pk_cli_print_error("stat", &err);
	ret = r < 0 || wr < 0 || rec ? 1 : pk_stat_runs_exit_code(&runs);
	goto out;
fail:
	pk_cli_print_error("stat", &err);
	/* as a shell: 127 for a command not found, 126 for one not runnable */
	ret = s.st && pk_stat_exec_errno(s.st) ? pk_workload_exec_exit_code(pk_stat_exec_errno(s.st))
					      : 1;
out:
	stat_printer_free(&s.printer);
	stat_td_free(&s.td);
	pk_metric_groups_free(s.mg);
	pk_stat_rows_free(&acc);
	pk_stat_free(s.st);
	pk_evlist_put(s.evlist);
	pk_cpumap_put(s.cpus);
	pk_threadmap_put(s.threads);
	pk_pmus_put(s.pmus);
	pk_model_free(s.model);
	free(s.run_secs);
	ctl_close(&s.ctl);
	free(o.events);
	free(o.metrics);
	return ret;
}
