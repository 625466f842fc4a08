/* pmukit lock: perf lock 6.1's record and contention (con).
 *
 * `lock record [RECORD OPTIONS] [-- COMMAND]` is pmukit record with perf
 * lock's arguments in front: raw samples of every lock:contention_begin
 * and lock:contention_end (-R -c 1), 1024 ring pages, frame-pointer call
 * chains of 8 entries (perf's CONTENTION_STACK_DEPTH); the user's options
 * follow them as perf passes them on.
 *
 * `lock contention [-i FILE]` prints lib/hist's pk_lock_contention table as
 * perf 6.1 prints it, on stderr as perf does (its pr_info): the columns of
 * -F (the sort key of -k added when missing), "type" and "caller"; -E
 * entries at most; -q drops the header and the debug block of broken
 * sequences. Without BPF (perf 6.1 here is built without it), -b is refused
 * with perf's words and exit status; -a, -C, -p, --tid and a command are
 * taken and, as perf's tracepoint mode does, do not change what is read. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/lock.h>

#include "builtin.h"

enum { O_MAP_NR = 256, O_MAX_STACK, O_STACK_SKIP, O_TID };

static const pk_opt lock_opts_table[] = {
	{"input", 'i', 0, required_argument, "FILE", "input file (default perf.data)"},
	{"force", 'f', 0, no_argument, NULL, "read a file another user owns"},
	{"quiet", 'q', 0, no_argument, NULL, "no header, no debug lines"},
	{"verbose", 'v', 0, no_argument, NULL, "the debug block of broken sequences always"},
	{"key", 'k', 0, required_argument, "KEY",
	 "sort key: contended, wait_total (default), wait_max,\n"
	 "wait_min, avg_wait"},
	{"field", 'F', 0, required_argument, "FIELDS",
	 "output fields (default contended,wait_total,\n"
	 "wait_max,avg_wait)"},
	{"entries", 'E', 0, required_argument, "N", "display this many callers"},
	{"threads", 't', 0, no_argument, NULL, "refused: per-thread stats not supported"},
	{"use-bpf", 'b', 0, no_argument, NULL, "refused as perf 6.1 built without BPF refuses it"},
	{"all-cpus", 'a', 0, no_argument, NULL, "accepted (BPF mode's; a file is read)"},
	{"cpu", 'C', 0, required_argument, "CPUS", "accepted (BPF mode's; a file is read)"},
	{"pid", 'p', 0, required_argument, "PID", "accepted (BPF mode's; a file is read)"},
	{"tid", 0, O_TID, required_argument, "TID", "accepted (BPF mode's; a file is read)"},
	{"map-nr-entries", 0, O_MAP_NR, required_argument, "N", "accepted (BPF mode's)"},
	{"max-stack", 0, O_MAX_STACK, required_argument, "N",
	 "call chain entries looked at (default 8)"},
	{"stack-skip", 0, O_STACK_SKIP, required_argument, "N",
	 "first entries skipped to find the caller (default 3)"},
	{0},
};

const pk_optspec lock_optspec = {
	.cmd = "lock",
	.synopsis = "usage: pmukit lock record [RECORD OPTIONS] [-- COMMAND [ARGS]]\n"
		    "       pmukit lock contention|con [-i FILE] [-k KEY] [-F FIELDS] [-E N] [-q]\n"
		    "\n"
		    "Records lock contention tracepoints and shows their callers, as perf lock\n"
		    "does (perf 6.1, tracepoint mode).\n",
	.opts = lock_opts_table,
	.stop_at_arg = true,
};

/* perf lock record's arguments, then the user's. */
static int lock_record(int argc, char **argv)
{
	static const char *front[] = {
		"record", "-R", "-m", "1024", "-c", "1", "-e", "lock:contention_begin",
		"-e", "lock:contention_end", "--call-graph", "fp,8",
	};
	size_t nf = sizeof(front) / sizeof(front[0]);
	char **args = calloc(nf + (size_t)argc + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "pmukit lock: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < nf; i++)
		args[i] = (char *)front[i];
	for (int i = 1; i < argc; i++)
		args[nf + (size_t)i - 1] = argv[i];
	int rc = cmd_record((int)nf + argc - 1, args);
	free(args);
	return rc;
}

typedef struct con_opts {
	pk_lock_opts lo;
	const char *input;
	bool quiet, verbose;
	const char *key;             /* -k as given: a bad one said after the file's errors */
	uint64_t entries;
	pk_lock_key fields[PK_LOCK_NR_KEYS];
	size_t nr_fields;
} con_opts;

/* -F's list, perf's words for a bad one; the sort key added when missing. */
static int parse_fields(con_opts *c, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return 1;
	c->nr_fields = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = pk_lock_key_parse(t);
		if (k < 0) {
			fprintf(stderr, "Unknown output field: %s\n", t);
			free(copy);
			return 234;
		}
		bool seen = false;
		for (size_t i = 0; i < c->nr_fields; i++)
			seen |= c->fields[i] == (pk_lock_key)k;
		if (!seen)
			c->fields[c->nr_fields++] = (pk_lock_key)k;
	}
	free(copy);
	return 0;
}

/* A time in perf's units, in width characters: float arithmetic as perf's. */
static void print_time(uint64_t ns, int width)
{
	static const struct {
		float base;
		const char *unit;
	} units[] = {{1e9f * 3600, "h "}, {1e9f * 60, "m "}, {1e9f, "s "}, {1e6f, "ms"}, {1e3f, "us"}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if ((float)ns >= units[i].base) {
			fprintf(stderr, "%*.2f %s", width - 3, (double)((float)ns / units[i].base),
				units[i].unit);
			return;
		}
	fprintf(stderr, "%*llu %s", width - 3, (unsigned long long)ns, "ns");
}

static void print_value(const pk_lock_stat *st, pk_lock_key k)
{
	int w = pk_lock_key_width(k);
	if (k == PK_LOCK_CONTENDED)
		fprintf(stderr, "%*llu", w, (unsigned long long)st->nr_contended);
	else
		print_time(pk_lock_stat_value(st, k), w);
}

/* perf's debug block: broken sequences (always with -v, never with -q). */
static void print_bad(const con_opts *c, const pk_lock_result *r, uint64_t bad, uint64_t total)
{
	static const char *names[PK_LOCK_NR_BAD] = {"acquire", "acquired", "contended", "release"};
	uint64_t broken = 0;
	for (int i = 0; i < PK_LOCK_NR_BAD; i++)
		broken += r->bad[i];
	if (c->quiet || (!broken && !c->verbose))
		return;
	fprintf(stderr, "\n=== output for debug===\n\n");
	fprintf(stderr, "bad: %llu, total: %llu\n", (unsigned long long)bad,
		(unsigned long long)total);
	fprintf(stderr, "bad rate: %.2f %%\n", (double)bad / (double)total * 100);
	fprintf(stderr, "histogram of events caused bad sequence\n");
	for (int i = 0; i < PK_LOCK_NR_BAD; i++)
		fprintf(stderr, " %10s: %llu\n", names[i], (unsigned long long)r->bad[i]);
}

static void print_result(const con_opts *c, const pk_lock_result *r)
{
	if (!c->quiet) {
		for (size_t i = 0; i < c->nr_fields; i++)
			fprintf(stderr, "%*s ", pk_lock_key_width(c->fields[i]),
				pk_lock_key_header(c->fields[i]));
		fprintf(stderr, "  %10s   %s\n\n", "type", "caller");
	}
	uint64_t bad = 0, total = 0, printed = 0;
	for (size_t n = 0; n < r->nr; n++) {
		const pk_lock_stat *st = &r->stats[n];
		total++;
		bad += st->broken;
		for (size_t i = 0; i < c->nr_fields; i++) {
			print_value(st, c->fields[i]);
			fputc(' ', stderr);
		}
		fprintf(stderr, "  %10s   %s\n", pk_lock_type_name(st->flags), st->name);
		if (++printed >= c->entries)
			break;
	}
	print_bad(c, r, bad, total);
}

static void on_msg(void *arg, pk_session_msg kind, const char *text)
{
	(void)arg;
	fprintf(stderr, kind == PK_SESSION_WARNING ? "pmukit lock: warning: %s\n" : "%s\n", text);
}

/* One option of contention into *c: 0, or the exit code. */
static int con_option(int opt, con_opts *c, const char **fields)
{
	uint64_t v;
	int k;
	switch (opt) {
	case 'i': c->input = optarg; return 0;
	case 'f': c->lo.force = true; return 0;
	case 'q': c->quiet = true; return 0;
	case 'v': c->verbose = true; return 0;
	case 'F': *fields = optarg; return 0;
	case 'k':
		c->key = optarg;
		if ((k = pk_lock_key_parse(optarg)) >= 0)
			c->lo.sort = (pk_lock_key)k;
		return 0;
	case 'E': {
		char *end;
		errno = 0;
		long long e = strtoll(optarg, &end, 0); /* perf's int: 0 and less show one */
		if (end == optarg || *end || errno || e > INT32_MAX || e < INT32_MIN)
			return pk_cli_usage_error("lock", "-E: '%s' is not a number", optarg);
		c->entries = e > 0 ? (uint64_t)e : 1;
		return 0;
	}
	case 't': return pk_cli_usage_error("lock", "-t/--threads: per-thread stats not supported");
	case 'b':
		return pk_cli_usage_error("lock", "switch `b' is not available because no "
						  "BUILD_BPF_SKEL=1 (perf 6.1 here: no BPF)");
	case 'a': case 'C': case 'p': case O_TID: case O_MAP_NR: return 0;
	case O_MAX_STACK:
	case O_STACK_SKIP:
		if ((k = pk_cli_parse_u64("lock", opt == O_MAX_STACK ? "--max-stack" : "--stack-skip",
					  optarg, 0, 1024, &v)))
			return k;
		*(opt == O_MAX_STACK ? &c->lo.max_stack : &c->lo.stack_skip) = (unsigned)v;
		return 0;
	default: return 129;
	}
}

static int lock_contention(int argc, char **argv)
{
	con_opts c;
	memset(&c, 0, sizeof(c));
	pk_lock_opts_init(&c.lo);
	c.lo.msg_fn = on_msg;
	c.entries = UINT64_MAX;
	const char *fields = "contended,wait_total,wait_max,avg_wait";
	int opt, rc;
	pk_opt_begin(&lock_optspec);
	while ((opt = pk_opt_next(&lock_optspec, argc, argv)) != -1)
		if ((rc = con_option(opt, &c, &fields)))
			return rc;
	/* a command or -a (BPF mode's) leaves the file to read, as perf 6.1 */
	pk_error err;
	pk_error_clear(&err);
	pk_lock_result r;
	if ((rc = pk_lock_contention(c.input, &c.lo, &r, &err)) < 0) {
		bool perfs = rc == -EINVAL && !err.where[0]; /* perf's words and status */
		if (perfs)
			fprintf(stderr, "%s\n", err.msg);
		else
			pk_cli_print_error("lock", &err);
		return perfs ? 234 : 255;
	}
	/* the key and fields are checked once the file is, as perf 6.1 does */
	rc = parse_fields(&c, fields);
	if (!rc && c.key && pk_lock_key_parse(c.key) < 0) {
		fprintf(stderr, "Unknown compare key: %s\n", c.key); /* perf's words, status */
		rc = 234;
	}
	if (rc) {
		pk_lock_result_release(&r);
		return rc;
	}
	bool has_key = false;
	for (size_t i = 0; i < c.nr_fields; i++)
		has_key |= c.fields[i] == c.lo.sort;
	if (!has_key)
		c.fields[c.nr_fields++] = c.lo.sort;
	print_result(&c, &r);
	pk_lock_result_release(&r);
	return 0;
}

int cmd_lock(int argc, char **argv)
{
	if (argc < 2)
		return pk_cli_usage_error("lock", "a subcommand is needed: record, contention");
	if (!strcmp(argv[1], "record") || !strcmp(argv[1], "rec"))
		return lock_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "contention") || !strcmp(argv[1], "con"))
		return lock_contention(argc - 1, argv + 1);
	return pk_cli_usage_error("lock", "'%s': not a lock subcommand pmukit has (record, "
					  "contention)", argv[1]);
}
