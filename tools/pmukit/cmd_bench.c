/* pmukit bench: perf bench's workloads, printed as perf bench 6.1 prints
 * them. Only `sched messaging` (-g groups, -l loops, -p pipes, -t threads;
 * lib/counting's pk_bench_messaging runs it): perf's "# Running" line and
 * the workers' count before, the total time after (--format=simple: the
 * seconds alone). Other collections and benchmarks are refused. */
#include <stdio.h>
#include <string.h>

#include <pmukit/bench.h>

#include "builtin.h"

enum { O_FORMAT = 256 };

static const pk_opt bench_opts_table[] = {
	{"group", 'g', 0, required_argument, "N", "sched messaging: groups (default 10)"},
	{"nr_loops", 'l', 0, required_argument, "N",
	 "sched messaging: loops (default 100)"},
	{"pipe", 'p', 0, no_argument, NULL, "sched messaging: pipe() instead of socketpair()"},
	{"thread", 't', 0, no_argument, NULL, "sched messaging: threads instead of processes"},
	{"format", 'f', O_FORMAT, required_argument, "default|simple",
	 "the output (before the collection)"},
	{0},
};

const pk_optspec bench_optspec = {
	.cmd = "bench",
	.synopsis = "usage: pmukit bench [--format=default|simple] sched messaging [-g N] [-l N]\n"
		    "                    [-p] [-t]\n"
		    "\n"
		    "Runs perf bench's sched/messaging workload: groups of senders and receivers\n"
		    "over sockets or pipes.\n",
	.opts = bench_opts_table,
	.stop_at_arg = true,
};

static int parse_count(const char *opt, unsigned *out)
{
	uint64_t v;
	int r = pk_cli_parse_u64("bench", opt, optarg, 0, 100000, &v);
	*out = (unsigned)v;
	return r;
}

static int messaging(int argc, char **argv, bool simple)
{
	pk_bench_messaging_opts o;
	pk_bench_messaging_opts_init(&o);
	int c, r = 0;
	printf("# Running 'sched/messaging' benchmark:\n"); /* perf prints it first */
	fflush(stdout);
	pk_opt_begin(&bench_optspec);
	while (!r && (c = pk_opt_next(&bench_optspec, argc, argv)) != -1) {
		switch (c) {
		case 'g': r = parse_count("-g", &o.groups); break;
		case 'l': r = parse_count("-l", &o.loops); break;
		case 'p': o.pipes = true; break;
		case 't': o.threads = true; break;
		default: return 129;
		}
	}
	if (r)
		return r;
	if (optind < argc)
		return pk_cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
	const char *kind = o.threads ? "threads" : "processes";
	printf("# %u sender and receiver %s per group\n", o.fds, kind);
	printf("# %u groups == %u %s run\n\n", o.groups, o.groups * o.fds * 2, kind);
	fflush(stdout);
	pk_error err;
	pk_error_clear(&err);
	uint64_t us = 0;
	if (pk_bench_messaging(&o, &us, &err) < 0) {
		pk_cli_print_error("bench", &err);
		return 1;
	}
	if (simple)
		printf("%llu.%03llu\n", (unsigned long long)(us / 1000000),
		       (unsigned long long)(us % 1000000 / 1000));
	else
		printf("     Total time: %llu.%03llu [sec]\n", (unsigned long long)(us / 1000000),
		       (unsigned long long)(us % 1000000 / 1000));
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	bool simple = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *f = !strncmp(argv[i], "--format=", 9) ? argv[i] + 9 : NULL;
		if (!f && !strcmp(argv[i], "--format") && i + 1 < argc)
			f = argv[++i];
		if (!f || (strcmp(f, "default") && strcmp(f, "simple")))
			return pk_cli_usage_error("bench", "'%s': not an option pmukit bench has "
							   "before the collection", argv[i]);
		simple = !strcmp(f, "simple");
	}
	if (i + 1 < argc && !strcmp(argv[i], "sched") && !strcmp(argv[i + 1], "messaging"))
		return messaging(argc - i - 1, argv + i + 1, simple);
	return pk_cli_usage_error("bench", "only 'sched messaging' is a benchmark pmukit has");
}
