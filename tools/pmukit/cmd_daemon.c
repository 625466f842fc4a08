/* pmukit daemon: perf daemon 6.1's command: `start` (the server,
 * daemon_server.h, in the background or with -f in the foreground), and
 * the clients `stop`, `signal`, `ping` and the listing (no subcommand),
 * each one request to BASE/control.
 *
 * BASE is --base, else the config file's [daemon] base= (--config, else
 * $PERF_CONFIG, else ~/.perfconfig); it must be an existing folder. Errors
 * are said as perf says them ("failed: ...") with perf's status 255. In the
 * background, `start` returns once the server holds its base (status 0)
 * or has failed (status 1, its "failed: ..." said): perf 6.1 returns 0
 * before the server has tried. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "builtin.h"
#include "daemon_conf.h"
#include "daemon_server.h"

typedef struct dopts {
	bool verbose, foreground;
	const char *sep;        /* -x's separator, NULL: none */
	const char *base, *config, *session;
	const char *cmd;        /* start, stop, signal, ping; NULL: list */
} dopts;

enum { O_BASE = 256, O_CONFIG, O_SESSION };

static const pk_opt daemon_opts_table[] = {
	{"verbose", 'v', 0, no_argument, NULL, "list: each file and the up time too"},
	{"field-separator", 'x', 0, optional_argument, "SEP",
	 "list: one line each, fields separated by SEP\n(default ',')"},
	{"base", 0, O_BASE, required_argument, "DIR", "the base folder (else the config's)"},
	{"config", 0, O_CONFIG, required_argument, "FILE",
	 "the config file ([daemon] base=, [session-NAME]\n"
	 "run=; default $PERF_CONFIG, ~/.perfconfig)"},
	{"foreground", 'f', 0, no_argument, NULL, "start: stay on the console"},
	{"session", 0, O_SESSION, required_argument, "NAME", "signal, ping: this session only"},
	{0},
};

const pk_optspec daemon_optspec = {
	.cmd = "daemon",
	.synopsis = "usage: pmukit daemon [-v] [-x SEP] [--config FILE] [--base DIR]\n"
		    "       pmukit daemon start [-f] [--config FILE]\n"
		    "       pmukit daemon stop|signal|ping [--session NAME] [--config FILE]\n"
		    "\n"
		    "Runs `pmukit record` sessions in the background from a config file, as\n"
		    "perf daemon does: each [session-NAME]'s run= in BASE/session-NAME, with\n"
		    "its control and ack fifos, its output and its perf.data; a change of the\n"
		    "file starts, stops or restarts sessions. signal sends SIGUSR2 (record\n"
		    "--switch-output dumps its file), ping asks each record for an ack.\n",
	.opts = daemon_opts_table,
	.stop_at_arg = true,
};

/* Options up to the first word; -1 after a usage error (said). */
static int parse_some(int argc, char **argv, dopts *o)
{
	int c;
	pk_opt_begin(&daemon_optspec);
	while ((c = pk_opt_next(&daemon_optspec, argc, argv)) != -1) {
		switch (c) {
		case 'v': o->verbose = true; break;
		case 'x': o->sep = optarg ? optarg : ","; break;
		case 'f': o->foreground = true; break;
		case O_BASE: o->base = optarg; break;
		case O_CONFIG: o->config = optarg; break;
		case O_SESSION: o->session = optarg; break;
		default: return -1;
		}
	}
	return optind;
}

/* The options, the subcommand between them. 0, or the exit code. */
static int parse_options(int argc, char **argv, dopts *o)
{
	int at = parse_some(argc, argv, o);
	if (at < 0)
		return 129;
	if (at < argc) {
		static const char *const cmds[] = {"start", "stop", "signal", "ping"};
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[at], cmds[i]))
				o->cmd = cmds[i];
		if (!o->cmd) {
			fprintf(stderr, "failed: unknown command '%s'\n", argv[at]);
			return 255;
		}
		int more = parse_some(argc - at, argv + at, o);
		if (more < 0)
			return 129;
		if (at + more < argc)
			return pk_cli_usage_error("daemon", "'%s': one command only", argv[at + more]);
	}
	if (o->session && (!o->cmd || (strcmp(o->cmd, "signal") && strcmp(o->cmd, "ping"))))
		return pk_cli_usage_error("daemon", "--session: for signal and ping");
	if (o->foreground && (!o->cmd || strcmp(o->cmd, "start")))
		return pk_cli_usage_error("daemon", "-f: for start");
	return 0;
}

/* The config file's path into buf: --config, $PERF_CONFIG, ~/.perfconfig. */
static void config_path(const dopts *o, char *buf, size_t n)
{
	const char *env = getenv("PERF_CONFIG"), *home = getenv("HOME");
	if (o->config)
		snprintf(buf, n, "%s", o->config);
	else if (env && *env)
		snprintf(buf, n, "%s", env);
	else
		snprintf(buf, n, "%s/.perfconfig", home ? home : "");
}

/* d's config and base (both absolute). 0, or -1 said. */
static int resolve(const dopts *o, dserver *d)
{
	char path[PATH_MAX], why[PATH_MAX + 300];
	config_path(o, path, sizeof(path));
	if (!realpath(path, d->config)) {
		fprintf(stderr, "failed: config '%s': %s\n", path, strerror(errno));
		return -1;
	}
	dconf c;
	if (dconf_load(d->config, &c, why, sizeof(why)) < 0) {
		fprintf(stderr, "failed: %s\n", why);
		return -1;
	}
	const char *base = o->base ? o->base : c.base;
	struct stat st;
	int rc = -1;
	if (!base || !*base)
		fprintf(stderr, "failed: base not defined\n");
	else if (stat(base, &st) < 0 || !S_ISDIR(st.st_mode) || !realpath(base, d->base))
		fprintf(stderr, "failed: base '%s' does not exist\n", base);
	else
		rc = 0;
	dconf_free(&c);
	return rc;
}

/* The answer of fd copied to stdout (the server may take a while: its
 * pings wait for acks, a stop for its sessions). */
static int copy_answer(int fd)
{
	char buf[4096];
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 120000) <= 0) {
			fprintf(stderr, "failed: no answer from the daemon\n");
			return 255;
		}
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? 255 : 0;
		fwrite(buf, 1, (size_t)n, stdout);
	}
}

/* One request to the server of base; its answer on stdout. */
static int request(const char *base, const char *req)
{
	struct sockaddr_un a;
	if (daemon_socket_addr(base, &a) < 0)
		return 255;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		fprintf(stderr, "failed: connect: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return 255;
	}
	char line[600];
	int len = snprintf(line, sizeof(line), "%s\n", req);
	int rc = write(fd, line, (size_t)len) == len ? copy_answer(fd) : 255;
	close(fd);
	return rc;
}

/* The server forked off, in its own session; its readiness awaited. */
static int start_background(dserver *d)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		fprintf(stderr, "failed: pipe: %s\n", strerror(errno));
		return 255;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		setsid();
		exit(daemon_serve(d, p[1]));
	}
	close(p[1]);
	char c = 0;
	ssize_t n;
	while (pid > 0 && (n = read(p[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (pid < 0)
		fprintf(stderr, "failed: fork: %s\n", strerror(errno));
	return c == '0' ? 0 : 1;
}

static int start(const dopts *o, dserver *d)
{
	ssize_t n = readlink("/proc/self/exe", d->exe, sizeof(d->exe) - 1);
	if (n <= 0) {
		fprintf(stderr, "failed: /proc/self/exe: %s\n", strerror(errno));
		return 255;
	}
	d->exe[n] = '\0';
	d->foreground = o->foreground;
	return o->foreground ? daemon_serve(d, -1) : start_background(d);
}

int cmd_daemon(int argc, char **argv)
{
	dopts o = {0};
	int rc = parse_options(argc, argv, &o);
	if (rc)
		return rc;
	static dserver d;
	if (resolve(&o, &d) < 0)
		return 255;
	char req[300];
	if (!o.cmd)
		snprintf(req, sizeof(req), "list %d%s%s", o.verbose, o.sep ? " " : "",
			 o.sep ? o.sep : "");
	else if (!strcmp(o.cmd, "start"))
		return start(&o, &d);
	else
		snprintf(req, sizeof(req), "%s%s%s", o.cmd, o.session ? " " : "",
			 o.session ? o.session : "");
	return request(d.base, req);
}
