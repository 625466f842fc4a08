/* pmukit daemon's server: the process `pmukit daemon start` leaves
 * running (daemon_server.c), and the words it and its clients
 * (cmd_daemon.c) share.
 *
 * The server owns BASE: BASE/lock (locked with lockf, its pid inside:
 * one server per base), BASE/control (a unix socket: one request line a
 * connection, the answer as text, then the connection closed), BASE/output
 * (its log, in the background) and one folder per session,
 * BASE/session-NAME, holding the session's control and ack fifos, its
 * output (record's stdout and stderr) and its perf.data. A session is
 * `pmukit record --control=fifo:control,ack RUN` started in its folder.
 *
 * Requests (one line): "list V SEP" (V 0/1: -v; SEP: -x's separator, ""
 * for none), "ping [NAME]", "signal [NAME]", "stop". Sessions are kept in
 * the config file's order; a session whose record ended stays listed by
 * name for ping (FAIL) but not by list, and is started again only when
 * its run= changes. The config file is watched (inotify on its folder):
 * a session added starts, one removed stops, one whose run= changed
 * restarts in its place. Stopping a session: "stop" on its control fifo,
 * then SIGTERM, then SIGKILL, each after a wait. */
#ifndef PMUKIT_DAEMON_SERVER_H
#define PMUKIT_DAEMON_SERVER_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "daemon_conf.h"

typedef struct dsession {
	char name[DCONF_NAME_MAX];
	char *run;
	pid_t pid;               /* -1: its record has ended */
	time_t start;
} dsession;

typedef struct dserver {
	char config[PATH_MAX];   /* absolute */
	char base[PATH_MAX];     /* absolute, a folder */
	char exe[PATH_MAX];      /* pmukit itself, for the sessions */
	bool foreground;
	dsession *sessions;
	size_t nr;
	time_t start;
	int sock, watch, sigfd;  /* control socket, inotify, signalfd */
	bool done;
} dserver;

struct sockaddr_un;
/* BASE/control's address into a. 0, or -1 said ("failed: ...": too long
 * a path for a unix socket). */
int daemon_socket_addr(const char *base, struct sockaddr_un *a);
/* The server of d (config, base, exe, foreground set): base locked, the
 * socket bound, ready_fd (>= 0) told '0' once it is (or closed on
 * failure), the sessions started; serves until "stop", SIGINT or SIGTERM,
 * then stops every session. Errors before ready are said on stderr
 * ("failed: ..."). The exit status. */
int daemon_serve(dserver *d, int ready_fd);

/* daemon_session.c: the sessions' lives. */
/* A line of the log, stamped as perf stamps it ("[%Y-%m-%d %H:%M:%S.usec] "). */
void daemon_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* BASE/session-NAME and its file what ("control", "ack", "output"; NULL:
 * the folder itself) into buf. */
void daemon_session_path(const dserver *d, const dsession *s, const char *what, char *buf,
			 size_t n);
/* The config file read again and the sessions made to match it. */
void daemon_reconfig(dserver *d);
/* The sessions whose record ended, reaped and logged. */
void daemon_reap(dserver *d);
/* Every session stopped (the server's end). */
void daemon_stop_all(dserver *d);

#endif
