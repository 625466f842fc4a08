/* pmukit daemon's server: the base locked, the control socket, the loop
 * over requests, signals and config changes (daemon_server.h: the files,
 * the requests, the rules). */
#include "daemon_server.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_fifo.h"

int daemon_socket_addr(const char *base, struct sockaddr_un *a)
{
	char path[PATH_MAX + 16];
	int len = snprintf(path, sizeof(path), "%s/control", base);
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (len < 0 || (size_t)len >= sizeof(a->sun_path)) {
		fprintf(stderr, "failed: %s: too long a path for a socket (%zu bytes at most)\n", path,
			sizeof(a->sun_path) - 1);
		return -1;
	}
	memcpy(a->sun_path, path, (size_t)len + 1);
	return 0;
}

/* BASE/lock taken and our pid written in it; its fd stays open for the
 * server's life. 0, or -1 said. */
static int take_lock(const dserver *d)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/lock", d->base);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0) {
		fprintf(stderr, "failed: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (lockf(fd, F_TLOCK, 0) < 0) {
		char pid[32] = "";
		ssize_t n = read(fd, pid, sizeof(pid) - 1);
		pid[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "failed: another perf daemon (pid %s) owns %s\n", pid, d->base);
		close(fd);
		return -1;
	}
	char pid[32];
	int len = snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (ftruncate(fd, 0) < 0 || write(fd, pid, (size_t)len) != len) {
		fprintf(stderr, "failed: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* BASE/control bound and listening. */
static int open_socket(dserver *d)
{
	struct sockaddr_un a;
	if (daemon_socket_addr(d->base, &a) < 0)
		return -1;
	unlink(a.sun_path);
	d->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (d->sock < 0 || bind(d->sock, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(d->sock, 16) < 0) {
		fprintf(stderr, "failed: socket %s: %s\n", a.sun_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The config file's folder watched (editors replace the file), signals
 * taken as a descriptor. */
static int open_watches(dserver *d)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", d->config);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	d->watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->watch < 0 || inotify_add_watch(d->watch, dir, IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
		fprintf(stderr, "failed: cannot watch %s: %s\n", dir, strerror(errno));
		return -1;
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);
	return d->sigfd < 0 ? -1 : 0;
}

/* In the background: the log and the standard streams to BASE/output. */
static int to_output(const dserver *d)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof(path), "%s/output", d->base);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	int in = open("/dev/null", O_RDONLY);
	if (fd < 0 || in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
		fprintf(stderr, "failed: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	close(in);
	return 0;
}

static int setup(dserver *d)
{
	if (take_lock(d) < 0 || open_socket(d) < 0 || open_watches(d) < 0)
		return -1;
	if (!d->foreground && (chdir(d->base) < 0 || to_output(d) < 0))
		return -1;
	return 0;
}

static long up_minutes(time_t since)
{
	return (long)((time(NULL) - since) / 60);
}

/* list's line(s) for the server itself. */
static void list_server(FILE *out, const dserver *d, bool verbose, const char *sep)
{
	int pid = (int)getpid();
	if (*sep) {
		fprintf(out, "%d%sdaemon%s%s%s%s/output%s%s/lock%s%ld\n", pid, sep, sep, d->base, sep,
			d->base, sep, d->base, sep, up_minutes(d->start));
		return;
	}
	fprintf(out, "[%d:daemon] base: %s\n", pid, d->base);
	if (verbose)
		fprintf(out, "  output:  %s/output\n  lock:    %s/lock\n  up:      %ld minutes\n",
			d->base, d->base, up_minutes(d->start));
}

/* list's line(s) for a running session. */
static void list_session(FILE *out, const dserver *d, const dsession *s, bool verbose,
			 const char *sep)
{
	char dir[PATH_MAX + 80];
	daemon_session_path(d, s, NULL, dir, sizeof(dir));
	long up = up_minutes(s->start);
	if (*sep) {
		fprintf(out, "%d%s%s%s%s%s%s%s%s/output%s%s/control%s%s/ack%s%ld\n", (int)s->pid, sep,
			s->name, sep, s->run, sep, dir, sep, dir, sep, dir, sep, dir, sep, up);
		return;
	}
	fprintf(out, "[%d:%s] pmukit record %s\n", (int)s->pid, s->name, s->run);
	if (verbose)
		fprintf(out, "  base:    %s\n  output:  %s/output\n  control: %s/control\n"
			     "  ack:     %s/ack\n  up:      %ld minutes\n",
			dir, dir, dir, dir, up);
}

static void req_list(FILE *out, const dserver *d, const char *args)
{
	bool verbose = args[0] == '1';
	const char *sep = args[0] && args[1] == ' ' ? args + 2 : "";
	list_server(out, d, verbose, sep);
	for (size_t i = 0; i < d->nr; i++)
		if (d->sessions[i].pid > 0)
			list_session(out, d, &d->sessions[i], verbose, sep);
}

static void req_ping(FILE *out, const dserver *d, const char *name)
{
	bool found = false;
	for (size_t i = 0; i < d->nr; i++) {
		const dsession *s = &d->sessions[i];
		if (*name && strcmp(name, s->name))
			continue;
		found = true;
		char ctl[PATH_MAX + 80], ack[PATH_MAX + 80];
		daemon_session_path(d, s, "control", ctl, sizeof(ctl));
		daemon_session_path(d, s, "ack", ack, sizeof(ack));
		bool ok = s->pid > 0 && ctl_send(ctl, ack, "ping", 2000) == 0;
		fprintf(out, "%s %s\n", ok ? "OK  " : "FAIL", s->name);
	}
	if (*name && !found)
		fprintf(out, "FAIL %s (not found)\n", name);
}

static void req_signal(FILE *out, const dserver *d, const char *name)
{
	for (size_t i = 0; i < d->nr; i++) {
		const dsession *s = &d->sessions[i];
		if ((*name && strcmp(name, s->name)) || s->pid <= 0 || kill(s->pid, SIGUSR2) < 0)
			continue;
		fprintf(out, "signal %d sent to session '%s [%d]'\n", SIGUSR2, s->name, (int)s->pid);
	}
}

/* One request line read from fd (within a second). */
static bool read_request(int fd, char *buf, size_t n)
{
	size_t len = 0;
	while (len < n - 1) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 1000) <= 0)
			return false;
		ssize_t got = read(fd, buf + len, n - 1 - len);
		if (got <= 0)
			break;
		len += (size_t)got;
		if (memchr(buf + len - (size_t)got, '\n', (size_t)got))
			break;
	}
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return len > 0;
}

/* A client's request answered; "stop" sets d->done. */
static void serve_client(dserver *d)
{
	int fd = accept4(d->sock, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	char req[512], *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (out && read_request(fd, req, sizeof(req))) {
		if (!strncmp(req, "list ", 5))
			req_list(out, d, req + 5);
		else if (!strncmp(req, "ping", 4))
			req_ping(out, d, req + 4 + (req[4] == ' '));
		else if (!strncmp(req, "signal", 6))
			req_signal(out, d, req + 6 + (req[6] == ' '));
		else if (!strcmp(req, "stop"))
			d->done = true;
		else
			fprintf(out, "failed: unknown request '%s'\n", req);
	}
	if (out)
		fclose(out);
	for (size_t off = 0; text && off < len;) {
		ssize_t w = write(fd, text + off, len - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(text);
	close(fd);
}

/* Whether the watched folder's events name the config file. */
static bool config_changed(const dserver *d)
{
	const char *slash = strrchr(d->config, '/');
	const char *name = slash ? slash + 1 : d->config;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool hit = false;
	ssize_t n;
	while ((n = read(d->watch, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			hit |= e->len && !strcmp(e->name, name);
			p += sizeof(*e) + e->len;
		}
	return hit;
}

/* The signals waiting: children reaped, SIGINT/SIGTERM: done. */
static void take_signals(dserver *d)
{
	struct signalfd_siginfo si;
	while (read(d->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			daemon_reap(d);
		else
			d->done = true;
	}
}

static void loop(dserver *d)
{
	while (!d->done) {
		struct pollfd p[3] = {{.fd = d->sock, .events = POLLIN},
				      {.fd = d->watch, .events = POLLIN},
				      {.fd = d->sigfd, .events = POLLIN}};
		if (poll(p, 3, -1) < 0 && errno != EINTR)
			break;
		if (p[2].revents)
			take_signals(d);
		if (p[1].revents && config_changed(d))
			daemon_reconfig(d);
		if (p[0].revents && !d->done)
			serve_client(d);
	}
}

int daemon_serve(dserver *d, int ready_fd)
{
	d->start = time(NULL);
	d->sock = d->watch = d->sigfd = -1;
	if (setup(d) < 0) {
		if (ready_fd >= 0)
			close(ready_fd);
		return 1;
	}
	if (ready_fd >= 0) {
		if (write(ready_fd, "0", 1) < 0)
			return 1; /* the starter has gone: nobody to serve */
		close(ready_fd);
	}
	daemon_log("daemon started (pid %d)", (int)getpid());
	daemon_reconfig(d);
	loop(d);
	daemon_stop_all(d);
	daemon_log("daemon exited");
	return 0;
}
