/* pmukit: command-line entry point. Dispatches `pmukit <cmd> [options]` to
 * one file per subcommand, perf style, and describes tools/pmukit, the CLI:
 * argument parsing, output and charts over the library's public API.
 *
 * Options: one option table per command (cli_opts.c: getopt's long options
 * and short string, `pmukit help CMD`, --list-opts/--list-cmds for
 * pmukit-completion.bash, and the option errors: missing value, did you mean,
 * ambiguous). Output formats: JSON strings escaped by jansson and RFC 4180
 * CSV fields through one writer (textout.c: stat's -x/-j, --topdown,
 * script's SPE --csv/--jsonl); checked output (every write and close, stdout
 * at exit, here).
 *
 * Man pages: `pmukit help --man [CMD]` from the same tables (man.c), made
 * and installed by the build.
 *
 * One cmd_<name>.c per subcommand, with its helpers: list's metric sections
 * (list_metrics.c); stat's lines (stat_print.c), --topdown (stat_topdown.c),
 * --model (the model run: pk_model_run) and -M (printed from lib/topdown's pk_metric_groups);
 * record's options and messages over lib/record's pk_recording, stat's over
 * lib/counting's pk_stat (the engines: the command launcher, the Arm SPE
 * setup, the runs and intervals are the library's);
 * sampled register names (lib/core's table, pk_regs_parse: record
 * -I/--user-regs lists into masks, "?", script iregs/uregs).
 *
 * perf.data's header as perf prints it (pd_header.c, report and script; a
 * pipe's features as their records are read; BPF programs, BTF ids and PMU
 * caps decoded by lib/perfdata). Script's filters, -F metric's rounds and the
 * address lines' slots are lib/session's (pmukit/script.h); here its side
 * records (script_side_events.c) and rarer fields (script_fields.c, branch
 * stacks among them). Report's table printed from
 * lib/hist's entries (report_print.c), call-chain trees printed
 * graph/fractal/flat/folded (report_chain.c), -F columns parsed and printed
 * (report_fields.c), --hierarchy (report_hier.c), the branch view's keys (-b)
 * and its Branch Statistics (report_branch.c), --stats/--tasks/--mmaps/-T
 * (report_tasks.c; maps named by pk_mmap_dso_name, lib/symbols' rule);
 * `report --spe-latency` and its --plot histogram printed from lib/hist's
 * groups (report_spe_print.c, pk_spe_hist).
 *
 * perf's raw dump of every record for -D (pd_dump.c: offset, hex bytes, each
 * record type decoded, a sample's read values, thread and dso, report's stats
 * blocks, script's own lines after each record's dump; Intel PT's
 * AUXTRACE_INFO fields and packets in pd_ipt.c). Script's and report's way
 * into lib/session (session_cli.c: the session's messages printed as
 * `pmukit CMD: warning: ...`, its errors with perf's exit statuses, -D's Arm
 * SPE packets and --csv/--jsonl lines printed from the session's hooks;
 * pd_out.c: the output buffer of the hot printing paths). SVG charts for
 * files the user asks for (plot_svg.c; `stat --topdown --plot` draws the
 * kept intervals through stat_td_plot.c).
 *
 * The CLI reaches the library through include/pmukit only (tests/check_layers.py
 * and the build: compiled against include/ alone, linked to libpmukit.so). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmukit/cpumap.h>
#include <pmukit/kernel.h>
#include <pmukit/model.h>
#include <pmukit/util.h>

#include "builtin.h"

static const struct pk_cmd commands[] = {
	{"list", cmd_list, "List PMUs and events", &list_optspec},
	{"encode", cmd_encode, "Show the perf_event_attrs an event string gives", &encode_optspec},
	{"stat", cmd_stat, "Count events for a command, process or the system", &stat_optspec},
	{"record", cmd_record, "Sample into a perf.data file", &record_optspec},
	{"report", cmd_report, "Summarize a perf.data file", &report_optspec},
	{"script", cmd_script, "Print the samples of a perf.data file", &script_optspec},
	{"diff", cmd_diff, "Compare perf.data files", &diff_optspec},
	{"inject", cmd_inject, "Copy a perf.data stream with build ids put in", &inject_optspec},
	{"evlist", cmd_evlist, "List the events of a perf.data file", &evlist_optspec},
	{"daemon", cmd_daemon, "Run record sessions in the background", &daemon_optspec},
	{"lock", cmd_lock, "Record lock contention and show its callers", &lock_optspec},
	{"bench", cmd_bench, "Run perf bench's sched messaging workload", &bench_optspec},
	{"probe", cmd_probe, "Add, delete and list user-space probes (uprobes)", &probe_optspec},
	{"buildid-cache", cmd_buildid_cache, "Manage the build-id cache", &buildid_cache_optspec},
	{"buildid-list", cmd_buildid_list, "List the build ids in a perf.data file",
	 &buildid_list_optspec},
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

void pk_cli_print_error(const char *cmd, const pk_error *err)
{
	char buf[4096];
	pk_error_render(err, buf, sizeof(buf));
	/* An event syntax error is printed as perf prints it, whole; other errors
	 * get the command as prefix. */
	if (err->subject[0] && err->pos >= 0 && !err->pos_is_offset)
		fputs(buf, stderr);
	else
		fprintf(stderr, "pmukit %s: %s", cmd, buf);
}

int pk_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	/* one line, whatever value it quotes: a long one is clipped */
	char msg[320];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(msg))
		snprintf(msg + 240, sizeof(msg) - 240, "... (%d characters)", n);
	fprintf(stderr, "pmukit %s: %s\nSee 'pmukit help %s'.\n", cmd, msg, cmd);
	return 129;
}

int pk_cli_nonempty(const char *cmd, const char *opt, const char *val, const char *what)
{
	if (!val || val[strspn(val, " \t\n")])
		return 0;
	return pk_cli_usage_error(cmd, "%s '%s': no %s given", opt, val, what);
}

long pk_cli_local_time(const char *fmt, char *buf, size_t n)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	localtime_r(&ts.tv_sec, &tm);
	if (!strftime(buf, n, fmt, &tm) && n)
		buf[0] = '\0';
	return ts.tv_nsec;
}

int pk_cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char *end, clip[PK_CLIP_LEN];
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' || v < min || v > max)
		return pk_cli_usage_error(cmd, "%s: '%s' is not a number from %llu to %llu", opt,
					  pk_cli_clip(arg, clip), (unsigned long long)min,
					  (unsigned long long)max);
	*out = v;
	return 0;
}

int pk_cli_model_machine(const char *cmd, const char *scenario, char *root, char *cpuid)
{
	pk_error err;
	pk_error_clear(&err);
	pk_model *m = pk_model_new(scenario, &err);
	if (!m) {
		pk_cli_print_error(cmd, &err);
		return 1;
	}
	snprintf(root, PATH_MAX, "%s", pk_model_sysfs_root(m));
	snprintf(cpuid, 64, "%s", pk_model_cpuid(m)->str);
	pk_model_free(m);
	return 0;
}

int pk_cli_fclose(FILE *f, const char *cmd, const char *name)
{
	int e = 0;
	if (fflush(f) != 0)
		e = errno ? errno : EIO;
	else if (ferror(f))
		e = EIO; /* an earlier implicit flush failed; its errno is gone */
	if (f != stdout && f != stderr && fclose(f) != 0 && !e)
		e = errno ? errno : EIO;
	if (!e)
		return 0;
	if (name)
		fprintf(stderr, "pmukit %s: cannot write '%s': %s\n", cmd, name, strerror(e));
	else
		fprintf(stderr, "pmukit %s: cannot write the standard output: %s\n", cmd, strerror(e));
	return -e;
}

/* What a command printed must have reached its reader: a full disk or a
 * closed pipe under stdout is an error, as in perf and coreutils. */
static int close_stdout(const char *cmd, int rc)
{
	errno = 0;
	int e = pk_cli_fclose(stdout, cmd, NULL);
	if (fclose(stdout) != 0 && !e) {
		fprintf(stderr, "pmukit %s: cannot write the standard output: %s\n", cmd,
			strerror(errno));
		e = -1;
	}
	return e && !rc ? 1 : rc;
}

int pk_cli_check_cputype(const char *cmd, const pk_pmus *pmus, const char *pmu_name)
{
	pk_error err;
	pk_error_clear(&err);
	if (pk_pmus_check_cputype(pmus, pmu_name, &err) < 0)
		return pk_cli_usage_error(cmd, "%s", err.msg);
	return 0;
}

static void print_overview(FILE *out)
{
	fprintf(out, "usage: pmukit [--version] [--help] [--buildid-dir DIR] <command> [<args>]\n\n"
		     "The commands are:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "   %-13s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nSee 'pmukit help <command>' for more on a command.\n");
}

/* The command called name; NULL after saying it is none, with the nearest
 * names. */
static const struct pk_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	char clip[PK_CLIP_LEN];
	fprintf(stderr, "pmukit: '%s' is not a pmukit command. See 'pmukit --help'.\n",
		pk_cli_clip(name, clip));
	int n = 0;
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (pk_similar(name, commands[i].name))
			fprintf(stderr, "%s\t%s\n", n++ ? "" : "\nDid you mean this?\n",
				commands[i].name);
	return NULL;
}

/* perf's lists for bash completion (pmukit-completion.bash). */
static void list_commands(void)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		printf("%s%s", i ? " " : "", commands[i].name);
	printf("\n");
}

/* `pmukit help --man [CMD]`: the man page of CMD, or pmukit(1). */
static int man_page(const char *cmd)
{
	if (!cmd) {
		pk_man_overview(commands, NR_COMMANDS, stdout);
		return close_stdout("help", 0);
	}
	const struct pk_cmd *c = find_command(cmd);
	if (!c)
		return 1;
	pk_man_command(c, stdout);
	return close_stdout("help", 0);
}

/* perf's options before the command: --buildid-dir DIR (as perf, which
 * hands it on in PERF_BUILDID_DIR: the library's default cache, so every
 * command reads and fills that one) and --no-pager (nothing to turn off).
 * Returns how many arguments they took, or -1 after saying what is wrong. */
static int global_options(int argc, char **argv)
{
	int i = 1;
	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i], *dir = NULL;
		if (!strcmp(a, "--buildid-dir")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "pmukit: no directory given for --buildid-dir.\n");
				return -1;
			}
			dir = argv[++i];
		} else if (!strncmp(a, "--buildid-dir=", 14)) {
			dir = a + 14;
		} else if (strcmp(a, "--no-pager")) {
			break;
		}
		if (dir && setenv("PERF_BUILDID_DIR", dir, 1) < 0) {
			fprintf(stderr, "pmukit: --buildid-dir: %s\n", strerror(errno));
			return -1;
		}
		i++;
	}
	return i - 1;
}

int main(int argc, char **argv)
{
	int globals = global_options(argc, argv);
	if (globals < 0)
		return 129;
	argc -= globals;
	argv += globals;
	if (argc < 2) {
		print_overview(stderr);
		return 1;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version") || !strcmp(name, "-v")) {
		printf("pmukit version %s\n", PMUKIT_VERSION);
		return 0;
	}
	if (!strcmp(name, "help") && argc > 2 && !strcmp(argv[2], "--man"))
		return man_page(argc > 3 ? argv[3] : NULL);
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			const struct pk_cmd *c = find_command(argv[2]);
			if (!c)
				return 1;
			pk_opt_help(c->opts, stdout);
			return close_stdout(c->name, 0);
		}
		print_overview(stdout);
		return 0;
	}
	if (!strcmp(name, "--list-cmds")) {
		list_commands();
		return close_stdout("--list-cmds", 0);
	}
	const struct pk_cmd *c = find_command(name);
	if (!c)
		return 1;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			pk_opt_help(c->opts, stdout);
			return close_stdout(c->name, 0);
		}
		if (!strcmp(argv[i], "--list-opts")) {
			pk_opt_list(c->opts, stdout);
			return close_stdout(c->name, 0);
		}
	}
	return close_stdout(c->name, c->run(argc - 1, argv + 1));
}
