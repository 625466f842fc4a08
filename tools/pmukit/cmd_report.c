/* pmukit report: the overhead table of a perf.data file (perf report --stdio). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "builtin.h"
#include "pd_header.h"
#include "session_cli.h"
#include "report_print.h"
#include "report_spe_print.h"
#include "pd_dump.h"
#include "report_tasks.h"

/* ---- options ---- */

/* -s: a name no key begins is reported once the file is open, as perf
 * does (the options' bad_key): the parse fails only without memory. */
static int parse_sort(pk_hist_opts *o, const char *arg)
{
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_hist_opts_sort(o, arg, &err);
	return rc == -EINVAL ? 0 : rc;
}

/* perf's help of -s or -F as its usage prints it: the names wrapped
 * once a line reaches 75 columns (its indent counted as 25). */
static void usage_key(const char *name, int *llen)
{
	if (*llen >= 75)
		fputs("\n\t\t\t ", stderr), *llen = 25;
	fprintf(stderr, " %s", name);
	*llen += (int)strlen(name) + 1;
}

static void usage_keys(const char *head, const char *prefix)
{
	int llen = (int)strlen(prefix) + 25;
	fprintf(stderr, "%s\n%26s%s", head, "", prefix);
	for (size_t i = 0; pk_hist_value_nth(i); i++)
		if (pk_hist_value_nth(i)->val != PK_HIST_V_SELF)
			usage_key(pk_hist_value_nth(i)->name, &llen);
	for (size_t i = 0; pk_hist_key_nth(i); i++) {
		const pk_hist_key *k = pk_hist_key_nth(i);
		if (k->order != PK_HIST_ORD_COUNT && k->order != PK_HIST_ORD_PERIOD) /* with the values */
			usage_key(k->name, &llen);
	}
	fputc('\n', stderr);
}

/* perf 6.1's words for a -s or -F it cannot use, once the file is open:
 * the error, the usage of -s (when given) and of -F (when given); its
 * status stays 0. bad: NULL for -s naming "ipc" (the usage alone). */
static void usage_sort(const pk_hist_opts *o, const char *what, const char *bad, size_t len,
		       bool fields)
{
	if (bad)
		fprintf(stderr, "Error:\n%s %s: `%.*s'\n", what,
			o->sort_given && !fields ? "--sort key" : "--fields key", (int)len, bad);
	else
		fputc('\n', stderr);
	fprintf(stderr, " Usage: perf report [<options>]\n\n");
	if (o->sort_given)
		usage_keys("    -s, --sort <key[,key2...]>", "sort by key(s):");
	if (o->fields_list && bad)
		usage_keys("    -F, --fields <key[,keys...]>", "output field(s): overhead period sample ");
}

enum {
	O_HEADER = 256, O_HEADER_ONLY, O_STDIO, O_ITRACE, O_CHILDREN, O_NO_CHILDREN, O_MAX_STACK,
	O_GROUP, O_NO_GROUP, O_COMM, O_PID, O_TID, O_SYMBOLS, O_TIME, O_PERCENT_LIMIT,
	O_PERCENTAGE, O_TOTAL_PERIOD, O_NS, O_RAW_TRACE, O_MEM_MODE, O_SPE_LATENCY, O_PLOT, O_NO_DEMANGLE, O_IGNORED,
	O_IGNORED_ARG, O_STATS, O_TASKS, O_MMAPS, O_KALLSYMS, O_SYMFS, O_THREADS, O_FIELDS, O_HIERARCHY,
	O_NO_BRANCH, O_SYMBOL_FILTER, O_SOCKET_FILTER, O_IGNORE_CALLEES, O_TIME_QUANTUM,
	O_CPU_UTIL, O_DEMANGLE, O_PERCENT_TYPE, O_PRETTY, O_PREFIX, O_PREFIX_STRIP, O_NOTE,
	O_NOTE_ARG, O_REFUSE, O_REFUSE_ARG, O_DISABLE_ORDER, O_TUI, O_VMLINUX, O_SHOW_INFO,
	O_SWITCH_ON, O_SWITCH_OFF, O_SHOW_ON_OFF,
};

static const pk_opt report_opts_table[] = {
	{"input", 'i', 0, required_argument, "FILE",
	 "input file (default perf.data; '-' standard input)"},
	{"force", 'f', 0, no_argument, NULL, "read a file another user owns (perf's check)"},
	{"sort", 's', 0, required_argument, "KEYS",
	 "comma-separated keys, perf 6.1's (a prefix names the\n"
	 "first key it begins; -s help lists them): comm, pid,\n"
	 "dso, symbol, cpu, socket, period, sample, time, weight,\n"
	 "cgroup, addr, trace, ins_lat, ... (default comm,dso,sym);\n"
	 "with --mem-mode: mem, symbol_daddr, dcacheline, ..."},
	{"raw-trace", 0, O_RAW_TRACE, no_argument, NULL,
	 "trace as raw fields, not the event's print format"},
	{"branch-stack", 'b', 0, no_argument, NULL,
	 "the branch view: an entry per branch of the samples'\n"
	 "stacks (default for files recorded with -b/-j)"},
	{"no-branch-stack", 0, O_NO_BRANCH, no_argument, NULL, "samples by their IP in such files"},
	{"mem-mode", 0, O_MEM_MODE, no_argument, NULL, "weights as periods, perf's memory sort order"},
	{"show-nr-samples", 'n', 0, no_argument, NULL, "add a Samples column"},
	{"show-total-period", 0, O_TOTAL_PERIOD, no_argument, NULL, "add a Period column"},
	{"show-cpu-utilization", 0, O_CPU_UTIL, no_argument, NULL,
	 "add sys and usr columns (and the guest's in a guest file)"},
	{"children", 0, O_CHILDREN, no_argument, NULL,
	 "Children and Self columns (default with call chains)"},
	{"no-children", 0, O_NO_CHILDREN, no_argument, NULL, "one Overhead column"},
	{"call-graph", 'g', 0, optional_argument, "ARGS",
	 "graph|fractal|flat|folded|none, a threshold (0.5),\n"
	 "caller|callee, function|address, percent|period|count"},
	{"inverted", 'G', 0, no_argument, NULL, "call chains caller first"},
	{"max-stack", 0, O_MAX_STACK, required_argument, "N", "chain entries used (default 127)"},
	{"group", 0, O_GROUP, no_argument, NULL, "group members side by side (default for groups)"},
	{"no-group", 0, O_NO_GROUP, no_argument, NULL, "group members apart"},
	{"comms", 'c', O_COMM, required_argument, "LIST", "only these commands"},
	{"pid", 0, O_PID, required_argument, "LIST", "only these processes"},
	{"tid", 0, O_TID, required_argument, "LIST", "only these threads"},
	{"dsos", 'd', 0, required_argument, "LIST", "only these binaries"},
	{"symbols", 'S', O_SYMBOLS, required_argument, "LIST", "only these functions"},
	{"symbol-filter", 0, O_SYMBOL_FILTER, required_argument, "TEXT",
	 "only entries whose symbol holds TEXT"},
	{"socket-filter", 0, O_SOCKET_FILTER, required_argument, "N",
	 "only samples of processor socket N"},
	{"hide-unresolved", 'U', 0, no_argument, NULL,
	 "drop samples and chain entries without a symbol"},
	{"parent", 'p', 0, required_argument, "REGEX",
	 "the parent key's pattern (adds the parent key)"},
	{"exclude-other", 'x', 0, no_argument, NULL, "only entries with a parent match"},
	{"ignore-callees", 0, O_IGNORE_CALLEES, required_argument, "REGEX",
	 "a chain's function matching REGEX is the sample's\n"
	 "entry, its callees dropped"},
	{"cpu", 'C', 0, required_argument, "LIST", "only samples of these CPUs"},
	{"time", 0, O_TIME, required_argument, "WINDOWS",
	 "only samples in these windows: START,END in seconds (a side may be\n"
	 "empty; several separated by spaces), or slices of the file's span:\n"
	 "10%/2, 0%-10%,30%-40%"},
	{"switch-on", 0, O_SWITCH_ON, required_argument, "EVENT",
	 "samples only after the first sample of EVENT"},
	{"switch-off", 0, O_SWITCH_OFF, required_argument, "EVENT",
	 "no samples after one of EVENT (until --switch-on's)"},
	{"show-on-off-events", 0, O_SHOW_ON_OFF, no_argument, NULL,
	 "keep the switching samples themselves"},
	{"time-quantum", 0, O_TIME_QUANTUM, required_argument, "N[ns|us|ms|s]",
	 "the time key's buckets (default 100ms)"},
	{"percent-limit", 0, O_PERCENT_LIMIT, required_argument, "PCT",
	 "hide entries (and chain branches) below PCT"},
	{"percentage", 0, O_PERCENTAGE, required_argument, "absolute|relative",
	 "of all samples, or of those shown"},
	{"quiet", 'q', 0, no_argument, NULL, "the rows only"},
	{"ns", 0, O_NS, no_argument, NULL, "time in nanoseconds"},
	{"header", 0, O_HEADER, no_argument, NULL, "show the header features before the table"},
	{"header-only", 0, O_HEADER_ONLY, no_argument, NULL, "show only the header features"},
	{"stdio", 0, O_STDIO, no_argument, NULL, "text output (the only one there is)"},
	{"stdio-color", 0, O_IGNORED_ARG, required_argument, "WHEN", "accepted: no colours"},
	{"itrace", 0, O_ITRACE, required_argument, "OPTS",
	 "Arm SPE synthetic samples: f m t b a M i l, i<N>i"},
	{"dump-raw-trace", 'D', 0, no_argument, NULL, "dump the Arm SPE packets as perf does"},
	{"spe-latency", 0, O_SPE_LATENCY, no_argument, NULL,
	 "Arm SPE: per symbol the records, total, issue and\n"
	 "translation latency p50/p90/p99, data sources, and\n"
	 "the total latency histogram, instead of the table"},
	{"plot", 0, O_PLOT, required_argument, "FILE.svg",
	 "Arm SPE: the total latency histogram as an SVG chart"},
	{"fields", 'F', 0, required_argument, "LIST",
	 "columns: overhead, overhead_sys, overhead_us,\n"
	 "overhead_guest_sys, overhead_guest_us, sample, period,\n"
	 "overhead_children and sort keys (+LIST: after the\n"
	 "default); the order follows -s, then these"},
	{"hierarchy", 0, O_HIERARCHY, no_argument, NULL, "entries as a tree, one level per sort key"},
	{"threads", 'T', 0, no_argument, NULL, "after the table, PERF_RECORD_READ values per thread"},
	{"stats", 0, O_STATS, no_argument, NULL, "the records by type and each event's samples"},
	{"tasks", 0, O_TASKS, no_argument, NULL, "the task tree (pid, tid, parent, comm)"},
	{"mmaps", 0, O_MMAPS, no_argument, NULL, "the task tree with each process's maps"},
	{"kallsyms", 'k', 0, required_argument, "FILE",
	 "kernel symbols from FILE (a copy of /proc/kallsyms)"},
	{"symfs", 0, O_SYMFS, required_argument, "DIR",
	 "binaries (and proc/kallsyms, .debug) under DIR"},
	{"no-demangle", 0, O_NO_DEMANGLE, no_argument, NULL, "C++ names as the symbol table holds them"},
	{"demangle", 0, O_DEMANGLE, no_argument, NULL, "C++ names demangled (the default)"},
	{"demangle-kernel", 0, O_IGNORED, no_argument, NULL,
	 "accepted: the kernel's symbols are C names"},
	{"skip-empty", 0, O_IGNORED, no_argument, NULL,
	 "accepted: events without samples are not shown anyway"},
	{"ignore-vmlinux", 0, O_IGNORED, no_argument, NULL,
	 "accepted: kernel symbols come from kallsyms"},
	{"modules", 'm', 0, no_argument, NULL, "accepted: modules' symbols come from kallsyms"},
	{"vmlinux", 0, O_VMLINUX, required_argument, "FILE",
	 "refused: kernel symbols from kallsyms (--kallsyms)"},
	{"percent-type", 0, O_PERCENT_TYPE, required_argument, "TYPE",
	 "local-period|global-period|local-hits|global-hits:\n"
	 "annotate's; the table is unchanged"},
	{"pretty", 0, O_PRETTY, required_argument, "normal|raw", "accepted: the one style"},
	{"full-source-path", 0, O_IGNORED, no_argument, NULL,
	 "accepted: for source line keys, which pmukit lacks"},
	{"prefix", 0, O_PREFIX, required_argument, "PREFIX",
	 "accepted: for source line keys (with --prefix-strip)"},
	{"prefix-strip", 0, O_PREFIX_STRIP, required_argument, "N", "with --prefix"},
	{"disable-order", 0, O_DISABLE_ORDER, no_argument, NULL,
	 "noted: pmukit reads the records in time order"},
	{"tui", 0, O_TUI, no_argument, NULL, "noted: no TUI, the --stdio text"},
	{"objdump", 0, O_NOTE_ARG, required_argument, "PATH",
	 "noted: perf's TUI annotate only (no effect here)"},
	{"disassembler-style", 'M', O_NOTE_ARG, required_argument, "STYLE",
	 "noted: perf's TUI annotate only"},
	{"asm-raw", 0, O_NOTE, no_argument, NULL, "noted: perf's TUI annotate only"},
	{"source", 0, O_NOTE, no_argument, NULL, "noted: perf's TUI annotate only"},
	{"no-source", 0, O_NOTE, no_argument, NULL, "noted: perf's TUI annotate only"},
	{"samples", 0, O_NOTE_ARG, required_argument, "N", "noted: perf's TUI browsing only"},
	{"show-ref-call-graph", 0, O_NOTE, no_argument, NULL,
	 "noted: perf's reference-event graphs are not made"},
	{"branch-history", 0, O_REFUSE, no_argument, NULL,
	 "refused: branches in the call graph not supported"},
	{"stitch-lbr", 0, O_REFUSE, no_argument, NULL, "refused: LBR stitching not supported"},
	{"total-cycles", 0, O_REFUSE, no_argument, NULL,
	 "refused: the block view of LBR cycles not supported"},
	{"group-sort-idx", 0, O_REFUSE_ARG, required_argument, "N",
	 "refused: sorting by a group member not supported"},
	{"inline", 0, O_IGNORED, no_argument, NULL, "accepted: perf 6.1 shows no inlined frames"},
	{"no-inline", 0, O_IGNORED, no_argument, NULL, "accepted: no inlined frames"},
	{"show-info", 'I', O_SHOW_INFO, no_argument, NULL,
	 "with --header/--header-only: the CPU, NUMA, cache and\n"
	 "memory topologies in full"},
	{"field-separator", 't', 0, required_argument, "SEP",
	 "columns joined by SEP, no rule line (refused with\n"
	 "-F and --hierarchy)"},
	{"column-widths", 'w', O_REFUSE_ARG, required_argument, "LIST",
	 "refused: fixed column widths not supported"},
	{"verbose", 'v', 0, no_argument, NULL,
	 "the table as perf -v prints it: objects by their path,\n"
	 "symbols after their address and where their symbols\n"
	 "were read (k kallsyms, B/D build-id cache, d path, ...)"},
	{0},
};

const pk_optspec report_optspec = {
	.cmd = "report",
	.synopsis = "usage: pmukit report [--stdio] [-i FILE] [-s KEYS] [-g [MODE,...]] [OPTIONS]\n"
		    "\n"
		    "Summarizes the samples of a perf.data file as perf report --stdio does.\n",
	.opts = report_opts_table,
	.stop_at_arg = true,
};

typedef struct report_args {
	const char *input, *itrace, *plot, *kallsyms, *symfs, *fields;
	char bad_field[512];         /* -F's name no key or value begins (said later) */
	bool header, header_only, dump, spe_latency, no_demangle, stats, tasks, mmaps, threads;
	bool force;                  /* -f: read a file another user owns */
	bool show_info;              /* -I */
	const char *prefix, *prefix_strip;
	const char *switch_on, *switch_off;
	bool show_on_off;
} report_args;

/* --socket-filter's number, as perf words a bad one. */
static int socket_filter(pk_hist_opts *o, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 0);
	if (end == arg || *end) {
		fprintf(stderr, " Error: option `socket-filter' expects a numerical value\n");
		return 129;
	}
	o->socket_filter = (int)v;
	return 0;
}

/* The options of perf's that change nothing in --stdio's text (a note
 * said), or that pmukit refuses (129, saying what is not there). */
static int report_opt_note(report_args *a, int c)
{
	const char *w = pk_opt_last_name();
	switch (c) {
	case O_NOTE: case O_NOTE_ARG:
		fprintf(stderr, "pmukit report: note: %s is for perf's TUI (annotate, browsing): "
				"no effect on the --stdio table\n", w);
		return 0;
	case O_TUI:
		fprintf(stderr, "pmukit report: note: pmukit has no TUI: the --stdio table follows\n");
		return 0;
	case O_DISABLE_ORDER:
		fprintf(stderr, "pmukit report: note: --disable-order: the records are read in "
				"time order all the same\n");
		return 0;
	case O_SHOW_INFO: a->show_info = true; return 0;
	case O_VMLINUX:
		return pk_cli_usage_error("report", "--vmlinux is not supported: kernel symbols come "
					  "from kallsyms (--kallsyms FILE)");
	default:
		return pk_cli_usage_error("report", "%s is not supported (see docs/perfdata.md, "
					  "options refused)", w);
	}
}

/* The options added for perf's users (issue 24); 0, or a usage error's
 * exit code (-1: stop with 0, as perf does). */
static int report_opt_more(pk_hist_opts *o, report_args *a, int c)
{
	pk_error err;
	pk_error_clear(&err);
	switch (c) {
	case O_SYMBOL_FILTER: o->symbol_filter = optarg; return 0;
	case O_SOCKET_FILTER: return socket_filter(o, optarg);
	case 'U': o->hide_unresolved = true; return 0;
	case 't': o->field_sep = optarg; return 0;
	case 'x': o->exclude_other = true; return 0;
	case 'p': case O_IGNORE_CALLEES:
		if (pk_hist_opts_regex(o, c == O_IGNORE_CALLEES, optarg, &err) < 0) {
			fprintf(stderr, "Invalid %sregex: %s\n%s\n", c == 'p' ? "" : "--ignore-callees ",
				optarg, err.msg);
			return c == 'p' ? -1 : 129; /* perf 6.1 stops with 0 after a bad -p */
		}
		return 0;
	case O_TIME_QUANTUM: {
		int rc = pk_hist_opts_time_quantum(o, optarg);
		if (rc == -ERANGE)
			fprintf(stderr, "time quantum cannot be 0\n");
		else if (rc)
			fprintf(stderr, "Cannot parse time quantum `%s'\n", optarg);
		return rc ? 129 : 0;
	}
	case O_CPU_UTIL: o->cpu_util = true; return 0;
	case O_DEMANGLE: a->no_demangle = false; return 0;
	case O_PERCENT_TYPE:
		if (strcmp(optarg, "local-period") && strcmp(optarg, "global-period") &&
		    strcmp(optarg, "local-hits") && strcmp(optarg, "global-hits"))
			return pk_cli_usage_error("report", "--percent-type takes local-period, "
						  "global-period, local-hits or global-hits");
		return 0;
	case O_PRETTY:
		if (strcmp(optarg, "normal") && strcmp(optarg, "raw"))
			return pk_cli_usage_error("report", "--pretty takes normal or raw");
		return 0;
	case O_PREFIX: a->prefix = optarg; return 0;
	case O_SWITCH_ON: a->switch_on = optarg; return 0;
	case O_SWITCH_OFF: a->switch_off = optarg; return 0;
	case O_SHOW_ON_OFF: a->show_on_off = true; return 0;
	case O_PREFIX_STRIP: a->prefix_strip = optarg; return 0;
	default: return report_opt_note(a, c);
	}
}

/* One option; 0, or the exit code of a usage error. */
static int report_opt(pk_hist_opts *o, report_args *a, int c, int argc, char **argv)
{
	int r = 0;
	switch (c) {
	case 'i': a->input = optarg; break;
	case 's': r = parse_sort(o, optarg) < 0 ? 129 : 0; break;
	case 'n': o->show_nr = true; break;
	case O_RAW_TRACE: o->raw_trace = true; break;
	case O_MEM_MODE: o->mem_mode = true; break;
	case 'b': o->branch = 1; break;
	case O_NO_BRANCH: o->branch = 0; break;
	case O_SPE_LATENCY: a->spe_latency = true; break;
	case O_PLOT: a->plot = optarg; break;
	case 'D': a->dump = true; break;
	case O_ITRACE: a->itrace = optarg; break;
	case O_HEADER: a->header = true; break;
	case O_HEADER_ONLY: a->header_only = true; break;
	case O_CHILDREN: o->children = o->children_set = true; break;
	case O_NO_CHILDREN: o->children = false; o->children_set = true; break;
	case 'g':
		o->cg_set = true;
		if (optarg && !pk_hist_opts_callgraph(o, optarg))
			return pk_cli_usage_error("report", "bad --call-graph '%s'", optarg);
		/* perf takes "-g caller": a separate word that reads as -g's */
		if (!optarg && optind < argc && argv[optind][0] != '-' && pk_hist_opts_callgraph(o, argv[optind]))
			optind++;
		if (o->cg.by_address) /* not silently the function key */
			return pk_cli_usage_error("report", "-g's address key (chain entries by address "
						  "and source line) is not supported; function is");
		break;
	case 'G': o->inverted = true; break;
	case O_MAX_STACK: {
		uint64_t v;
		r = pk_cli_parse_u64("report", "--max-stack", optarg, 0, PK_MAX_STACK, &v);
		o->cg.max_stack = (unsigned)v; /* 0: none (perf: Self alone, no graph) */
		break;
	}
	case O_GROUP: o->group = o->group_set = true; break;
	case O_NO_GROUP: o->group = false; o->group_set = true; break;
	case O_COMM: r = pk_hist_list_add(&o->comms, optarg) ? 1 : 0; break;
	case O_PID: r = pk_hist_list_add(&o->pids, optarg) ? 1 : 0; break;
	case O_TID: r = pk_hist_list_add(&o->tids, optarg) ? 1 : 0; break;
	case 'd': r = pk_hist_list_add(&o->dsos, optarg) ? 1 : 0; break;
	case O_SYMBOLS: r = pk_hist_list_add(&o->syms, optarg) ? 1 : 0; break;
	case 'C':
		if (pk_hist_opts_cpus(o, optarg))
			return pk_cli_usage_error("report", "bad CPU list '%s'", optarg);
		break;
	case O_TIME:
		(void)pk_hist_opts_time(o, optarg); /* refused on the file, after perf's header lines */
		break;
	case O_PERCENT_LIMIT: {
		char *end;
		o->percent_limit = strtod(optarg, &end);
		if (end == optarg || (*end && strcmp(end, "%")))
			return pk_cli_usage_error("report", "bad --percent-limit '%s'", optarg);
		break;
	}
	case O_PERCENTAGE:
		if (strcmp(optarg, "absolute") && strcmp(optarg, "relative"))
			return pk_cli_usage_error("report", "--percentage takes absolute or relative");
		o->relative = optarg[0] == 'r';
		break;
	case 'q': o->quiet = true; break;
	case 'v': o->verbose = true; break;
	case O_HIERARCHY: o->hierarchy = true; break;
	case O_TOTAL_PERIOD: o->show_period = true; break;
	case O_NS: o->ns = true; break;
	case O_NO_DEMANGLE: a->no_demangle = true; break;
	case O_STATS: a->stats = true; break;
	case 'T': a->threads = true; break;
	case 'F': a->fields = optarg; break;
	case O_TASKS: a->tasks = true; break;
	case O_MMAPS: a->mmaps = a->tasks = true; break;
	case 'k': a->kallsyms = optarg; break;
	case O_SYMFS: a->symfs = optarg; break;
	case 'f': a->force = true; break;
	case O_STDIO: case O_IGNORED: case O_IGNORED_ARG: case 'm': break;
	case PK_OPT_ERROR: return 129; /* said */
	default: return report_opt_more(o, a, c);
	}
	return r;
}

/* What the file decides (pk_hist_settle); perf's error for -b on a file
 * without branch stacks, the parent key without chains (< 0: perf's
 * header lines, status 0) or a branch key outside the branch view (< 0),
 * for -g on one without call chains (1: perf prints no table, status 0),
 * for --mem-mode in the branch view (2: nothing printed, status 0). */
static bool hist_quiet(pk_hist *hist)
{
	return pk_hist_options(hist)->quiet;
}

static int settle(pk_hist *hist, pk_session *s, const pk_pd_header *h)
{
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_hist_settle(hist, s, h, &err);
	if (!strcmp(err.subject, "--time")) { /* perf: its header lines, then the error */
		if (!hist_quiet(hist))
			printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
		return pd_time_error("report", &err);
	}
	if (rc == -ENOENT) {
		fprintf(stderr, "Error:\nSelected -g or --branch-history.\nBut no callchain or branch data.\n"
				"Did you call 'perf record' without -g or -b?\n");
		return 1;
	}
	if (rc == -EINVAL) { /* perf 6.1: a key outside its view, its usage, status 0 */
		usage_sort(pk_hist_options(hist), "Invalid", err.where, strlen(err.where),
			   !strcmp(err.subject, "--fields key"));
		return 2;
	}
	if (rc == -ENOEXEC || rc == -ENODATA)
		fprintf(stderr, "Error:\n%s\n", err.msg);
	if (rc == -ENOTSUP) { /* perf 6.1: its words alone, status 0 */
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	return rc;
}

/* perf 6.1 refuses -C on a file whose samples carry no CPU or for a CPU
 * past the file's: on stderr, with no table and status 0. */
static bool cpus_refused(const pk_hist_opts *o, pk_session *s, const pk_pd_header *h)
{
	size_t c = 0;
	int rc = pk_hist_opts_cpus_fit(o, s, h, &c);
	if (rc == -ENODATA)
		fprintf(stderr, "File does not contain CPU events. Remove -C option to proceed.\n");
	else if (rc == -ERANGE)
		fprintf(stderr, "Requested CPU %zu too large. Consider raising MAX_NR_CPUS\n", c);
	if (rc)
		fprintf(stderr, "Error:\nfailed to set cpu bitmap\n");
	return rc != 0;
}

/* -F's columns; an unknown name kept for perf's words once the file is
 * open; 129 for a list perf's parse refuses. */
static int fields_setup(pk_hist_opts *o, report_args *a)
{
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_hist_opts_fields(o, a->fields, &err);
	if (rc == -EINVAL && err.where[0])
		snprintf(a->bad_field, sizeof(a->bad_field), "%s", err.where);
	return rc && !a->bad_field[0] ? 129 : 0;
}

/* perf 6.1 checks -s and -F once the file is open: "ipc" in -s (its
 * usage alone), a name no key begins (its error and usage); status 0. */
static bool keys_refused(const pk_hist_opts *o, const report_args *a)
{
	if (o->sort_given && o->sort_ipc)
		usage_sort(o, NULL, NULL, 0, false);
	else if (o->bad_key)
		usage_sort(o, "Unknown", o->bad_key, o->bad_key_len, false);
	else if (a->bad_field[0])
		usage_sort(o, "Unknown", a->bad_field, strlen(a->bad_field), true);
	return (o->sort_given && o->sort_ipc) || o->bad_key || a->bad_field[0];
}

static void report_free(pk_hist *hist)
{
	pk_hist_opts_release(pk_hist_options(hist));
	pk_hist_free(hist);
}

/* Arm SPE files: the events and their samples, perf's "Available
 * samples" (its TUI's event menu); perf 6.1 prints none for Intel PT's. */
static void print_available(const pk_hist *hist, pk_session *s)
{
	if (pk_session_nr_evsels(s) == pk_pd_nr_evsels(pk_session_reader(s)) ||
	    !pk_session_has_spe(s))
		return;
	printf("# Available samples\n");
	for (size_t i = 0; i < pk_session_nr_evsels(s); i++)
		printf("# %" PRIu64 " %s\n", pk_hist_nr_samples(hist, (int)i),
		       pk_pd_evsel_name(pk_session_evsel_at(s, i)));
	printf("#\n");
}

/* The histogram of the records' latency as an SVG file (--plot). */
static int plot_latency(pk_spe_hist *rs, pk_session *s, const char *plot)
{
	pk_error err;
	pk_error_clear(&err);
	if (!pk_session_spe_nr_records(s)) {
		fprintf(stderr, "pmukit report: --plot draws the latency of Arm SPE records: %s has "
				"none\n", pk_session_input(s));
		return 1;
	}
	if (report_spe_plot(rs, plot, &err) < 0) {
		pk_cli_print_error("report", &err);
		return 1;
	}
	return 0;
}

/* Reads the samples, then perf's table or the SPE latency view (-D: the
 * dump instead, perf's way); the histogram's SVG. */
static int run_views(pk_hist *hist, const report_args *a, pk_session *s)
{
	bool spe = a->spe_latency || a->plot;
	pk_spe_hist *rs = spe ? pk_spe_hist_new() : NULL;
	if (spe && !rs) {
		fprintf(stderr, "pmukit report: out of memory\n");
		return 1;
	}
	pk_session_on_spe_record(s, rs ? pk_spe_hist_record : NULL, rs);
	pk_session_reads *th = a->threads ? pk_session_reads_new() : NULL;
	if (th)
		pk_session_on_event(s, pk_session_reads_event, th);
	/* a pipe's features as they come, under --header or -I (perf: -I alone
	 * prints them in full after its "To display" line) */
	if ((a->header || a->show_info) && pk_pd_is_pipe(pk_session_reader(s)))
		pd_session_pipe_features(s, stdout);
	int status = pd_session_run(s, pk_hist_sample, hist);
	if (!status && !a->dump) {
		if (a->spe_latency) {
			report_spe_print(rs, stdout);
		} else {
			print_available(hist, s);
			if (report_hist_print(hist) && th)
				report_threads_print(s, th, stdout);
		}
		if (a->plot)
			status = plot_latency(rs, s, a->plot);
	}
	pk_spe_hist_free(rs);
	pk_session_on_event(s, NULL, NULL);
	pk_session_reads_free(th);
	return status;
}

static int report_run(pk_hist *hist, report_args *a)
{
	pk_hist_opts *o = pk_hist_options(hist);
	pk_session *s = NULL;
	int rc = pd_session_open(&s, "report", a->input, false, a->force, a->dump);
	if (rc)
		return rc;
	pk_machine_opts mo = {.no_demangle = a->no_demangle, .kallsyms = a->kallsyms,
			      .symfs = a->symfs};
	if ((a->no_demangle || a->kallsyms || a->symfs) && pd_session_machine(s, &mo)) {
		pk_session_close(s);
		return 1;
	}
	if ((a->stats || a->tasks) && keys_refused(o, a)) {
		pk_session_close(s);
		return 0;
	}
	if (a->stats || a->tasks) {
		/* perf 6.1: --stats wins over --tasks; neither prints a header,
		 * nor decodes Intel PT */
		pk_session_itrace_default(s, PK_ITRACE_NONE);
		int status = a->stats ? report_stats_run(s) : report_tasks_run(s, a->mmaps);
		status = pd_session_finish(s, status);
		pk_session_close(s);
		return status;
	}
	pk_session_itrace_default(s, PK_ITRACE_REPORT);
	if (a->itrace && pd_session_itrace(s, a->itrace)) {
		pk_session_close(s);
		return 129;
	}
	rc = pd_session_switch(s, a->switch_on, a->switch_off, a->show_on_off);
	if (rc || keys_refused(o, a)) {
		pk_session_close(s);
		return rc;
	}
	pk_pd_header h;
	pk_error err;
	pk_error_clear(&err);
	memset(&h, 0, sizeof(h));
	pk_pd_header_read(pk_session_reader(s), &h, &err);
	rc = settle(hist, s, &h);
	if (rc == PD_TIME_STATUS) {
		pk_session_close(s);
		pk_pd_header_release(&h);
		return rc;
	}
	if (rc == 2) {
		pk_session_close(s);
		pk_pd_header_release(&h);
		return 0;
	}
	int refused = rc > 0; /* -g without chains: perf's header lines, no table, 0 */
	if (rc < 0) { /* perf 6.1: no parent key without chains, -b without branch
		       * stacks: its header line and 0 */
		bool zero = rc == -ENOEXEC || rc == -ENODATA;
		if (zero && !o->quiet)
			printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
		pk_session_close(s);
		pk_pd_header_release(&h);
		return zero ? 0 : 129;
	}
	if (a->header || a->header_only)
		pd_header_print(pk_session_reader(s), pk_session_input(s), stdout);
	if (a->header_only && pk_pd_is_pipe(pk_session_reader(s)))
		pd_header_pipe_features(pk_session_reader(s), stdout); /* perf's status stays 0 */
	else if (a->header || a->header_only)
		;
	else if (!o->quiet) {
		if (a->dump)
			pd_dump_unordered_note(s);
		printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
	}
	pd_header_note_modeled(pk_session_reader(s), "report", !o->quiet, o->quiet ? stderr : stdout);
	int status = 0;
	if (!a->header_only && !refused && !cpus_refused(o, s, &h)) {
		if (a->dump)
			pd_session_spe_dump(s);
		if (a->dump) {
			status = pd_dump_run(s, PD_DUMP_STATS | (o->branch_view ? PD_DUMP_BRANCHES : 0u), NULL, NULL);
		} else if (pk_hist_setup(hist, s, &h) < 0) {
			fprintf(stderr, "pmukit report: out of memory\n");
			status = 1;
		} else {
			status = run_views(hist, a, s);
		}
		const pk_pd_stats *st = pk_pd_get_stats(pk_session_reader(s));
		if (st->nr_lost_events)
			fprintf(stderr, "warning: %" PRIu64 " events were lost while recording\n",
				st->nr_lost_events);
	}
	status = pd_session_finish(s, status);
	pk_session_close(s);
	pk_pd_header_release(&h);
	return status;
}

int cmd_report(int argc, char **argv)
{
	pk_hist *hist = pk_hist_new();
	if (!hist)
		return 1;
	pk_hist_opts *o = pk_hist_options(hist);
	report_args a = {0};
	int c, status = 0;
	pk_opt_begin(&report_optspec);
	while (!status && (c = pk_opt_next(&report_optspec, argc, argv)) != -1)
		status = report_opt(o, &a, c, argc, argv);
	if (!status && a.prefix_strip && !a.prefix) {
		fprintf(stderr, "--prefix-strip requires --prefix\n");
		status = 234; /* perf's -EINVAL */
	}
	pd_header_set_info(a.show_info);
	if (!status && a.fields)
		status = fields_setup(o, &a);
	if (!status)
		status = report_run(hist, &a);
	report_free(hist);
	return status < 0 ? 0 : status;
}
