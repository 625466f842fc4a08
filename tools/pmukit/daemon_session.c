/* pmukit daemon's sessions: each a `pmukit record --control=fifo:control,ack
 * RUN` in BASE/session-NAME, started, stopped and matched to the config
 * file (daemon_server.h: the rules). Runs in the server only. */
#include "daemon_server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "ctl_fifo.h"

#define SESSION_MAX_ARGS 256

void daemon_log(const char *fmt, ...)
{
	char when[32];
	long ns = pk_cli_local_time("%Y-%m-%d %H:%M:%S", when, sizeof(when));
	printf("[%s.%06ld] ", when, ns / 1000);
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void daemon_session_path(const dserver *d, const dsession *s, const char *what, char *buf,
			 size_t n)
{
	snprintf(buf, n, "%s/session-%s%s%s", d->base, s->name, what ? "/" : "", what ? what : "");
}

/* In the session's child: its folder, its output, the record exec'd. */
static void __attribute__((noreturn)) session_exec(const dserver *d, const dsession *s)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlives its server */
	char dir[PATH_MAX + 80];
	daemon_session_path(d, s, NULL, dir, sizeof(dir));
	int out = chdir(dir) ? -1 : open("output", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int in = open("/dev/null", O_RDONLY);
	if (out < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(126);
	char *argv[SESSION_MAX_ARGS + 4], *save = NULL;
	int argc = 0;
	argv[argc++] = (char *)d->exe;
	argv[argc++] = (char *)"record";
	argv[argc++] = (char *)"--control=fifo:control,ack";
	for (char *w = strtok_r(s->run, " \t", &save); w && argc < SESSION_MAX_ARGS + 3;
	     w = strtok_r(NULL, " \t", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	execv(d->exe, argv);
	fprintf(stderr, "failed: cannot run '%s': %s\n", d->exe, strerror(errno));
	_exit(127);
}

/* The session's folder and fresh fifos. 0, or -1 (logged). */
static int session_prepare(const dserver *d, const dsession *s)
{
	char path[PATH_MAX + 80];
	daemon_session_path(d, s, NULL, path, sizeof(path));
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		daemon_log("failed: session '%s': mkdir %s: %s", s->name, path, strerror(errno));
		return -1;
	}
	static const char *const fifos[] = {"control", "ack"};
	for (int i = 0; i < 2; i++) {
		daemon_session_path(d, s, fifos[i], path, sizeof(path));
		unlink(path);
		if (mkfifo(path, 0600) < 0) {
			daemon_log("failed: session '%s': mkfifo %s: %s", s->name, path,
				   strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void session_start(dserver *d, dsession *s)
{
	s->pid = -1;
	if (session_prepare(d, s) < 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		session_exec(d, s);
	if (pid < 0) {
		daemon_log("failed: session '%s': fork: %s", s->name, strerror(errno));
		return;
	}
	s->pid = pid;
	s->start = time(NULL);
	/* perf 6.1's words, its typo too: tools may grep the log */
	daemon_log("reconfig: ruining session [%s:%d]: %s", s->name, (int)pid, s->run);
}

/* pid waited for up to ms milliseconds; true when it ended (*status). */
static bool wait_ms(pid_t pid, int ms, int *status)
{
	for (int t = 0; t <= ms; t += 10) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		usleep(10000);
	}
	return false;
}

static void log_exit(const dsession *s, int status)
{
	if (WIFSIGNALED(status))
		daemon_log("session '%s' exited, signal=%d", s->name, WTERMSIG(status));
	else
		daemon_log("session '%s' exited, status=%d", s->name, WEXITSTATUS(status));
}

/* "stop" on its control fifo, then SIGTERM, then SIGKILL. */
static void session_kill(const dserver *d, dsession *s)
{
	if (s->pid <= 0)
		return;
	char ctl[PATH_MAX + 80], ack[PATH_MAX + 80];
	daemon_session_path(d, s, "control", ctl, sizeof(ctl));
	daemon_session_path(d, s, "ack", ack, sizeof(ack));
	int status = 0, rc = ctl_send(ctl, ack, "stop", 2000);
	if (rc < 0)
		daemon_log("session '%s': no ack to stop (%s): terminating it", s->name,
			   strerror(-rc));
	bool gone = wait_ms(s->pid, 10000, &status);
	if (!gone && kill(s->pid, SIGTERM) == 0)
		gone = wait_ms(s->pid, 3000, &status);
	if (!gone) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, &status, 0);
	}
	log_exit(s, status);
	s->pid = -1;
}

void daemon_reap(dserver *d)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (size_t i = 0; i < d->nr; i++)
			if (d->sessions[i].pid == pid) {
				log_exit(&d->sessions[i], status);
				d->sessions[i].pid = -1;
			}
}

void daemon_stop_all(dserver *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		session_kill(d, &d->sessions[i]);
		free(d->sessions[i].run);
	}
	free(d->sessions);
	d->sessions = NULL;
	d->nr = 0;
}

/* The sessions gone from c stopped and dropped, the changed ones restarted
 * in their place. */
static void drop_or_restart(dserver *d, const dconf *c)
{
	size_t kept = 0;
	for (size_t i = 0; i < d->nr; i++) {
		dsession *s = &d->sessions[i];
		const dconf_session *n = dconf_find(c, s->name);
		char *run = n && strcmp(n->run, s->run) ? strdup(n->run) : NULL;
		if (!n || run) {
			session_kill(d, s);
			free(s->run);
			s->run = run;
		}
		if (s->run) {
			d->sessions[kept++] = *s;
			if (run)
				session_start(d, &d->sessions[kept - 1]);
		}
	}
	d->nr = kept;
}

/* The sessions new in c added and started. */
static void add_new(dserver *d, const dconf *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		bool known = false;
		for (size_t j = 0; j < d->nr && !known; j++)
			known = !strcmp(d->sessions[j].name, c->sessions[i].name);
		dsession *grown = known ? NULL : realloc(d->sessions, (d->nr + 1) * sizeof(*grown));
		char *run = grown ? strdup(c->sessions[i].run) : NULL;
		if (grown)
			d->sessions = grown;
		if (!run) {
			if (!known)
				daemon_log("failed: session '%s': %s", c->sessions[i].name,
					   strerror(ENOMEM));
			continue;
		}
		dsession *s = &d->sessions[d->nr++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", c->sessions[i].name);
		s->run = run;
		session_start(d, s);
	}
}

void daemon_reconfig(dserver *d)
{
	dconf c;
	char why[PATH_MAX + 300];
	if (dconf_load(d->config, &c, why, sizeof(why)) < 0) {
		daemon_log("failed: reconfig: %s: the sessions run on as they were", why);
		return;
	}
	char base[PATH_MAX];
	if (c.base && (!realpath(c.base, base) || strcmp(base, d->base)))
		daemon_log("reconfig: base '%s' ignored: the daemon keeps %s (stop and start it "
			   "to move)", c.base, d->base);
	drop_or_restart(d, &c);
	add_new(d, &c);
	dconf_free(&c);
}
