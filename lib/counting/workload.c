/* The measured command of `pmukit stat` and `pmukit record`.
 *
 * As perf does, the command is forked before the counters open (they need
 * its pid) and held before exec on a pipe until they are ready; writing a
 * byte to that pipe lets it go. A second pipe, close-on-exec, carries the
 * exec errno back: EOF means the exec happened. Before forking, the command
 * is looked up as execvp would, so that the usual failures (not found, a
 * directory, not executable, an empty name) are known before the caller
 * creates files or renames perf.data; the pipe catches the rest.
 *
 * Invariants: the child starts with every signal at its default disposition
 * and nothing blocked, whatever pmukit ignores or blocks for itself (SIGPIPE,
 * SIGXFSZ, the signals stat waits for); it never returns into pmukit's code
 * (it execs or _exits). */
#include <pmukit/workload.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"

int pk_workload_exec_exit_code(int err_no)
{
	return err_no == ENOENT || err_no == ENOTDIR ? 127 : 126;
}

/* 0 when path names an executable regular file, else the errno execve would
 * give (EACCES for a directory or a file without x permission). */
static int check_file(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
		return EACCES;
	return 0;
}

/* execvp's lookup: a name with a slash is a path, others are searched in
 * $PATH; EACCES wins over ENOENT when some candidate existed. */
static int check_command(const char *name)
{
	if (!*name)
		return ENOENT;
	if (strchr(name, '/'))
		return check_file(name);
	/* the library's one way to the environment (none when privileged:
	 * then the default search path, where execvp may still find it) */
	const char *path = pki_env("PATH");
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	int best = ENOENT;
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char full[PATH_MAX];
		int n = end == p ? snprintf(full, sizeof(full), "%s", name)
				 : snprintf(full, sizeof(full), "%.*s/%s", (int)(end - p), p, name);
		if (n > 0 && (size_t)n < sizeof(full)) {
			int e = check_file(full);
			if (e == 0)
				return 0;
			if (e == EACCES)
				best = EACCES;
		}
		if (!*end)
			return best;
		p = end;
	}
}

/* In the child: default dispositions, an empty mask, then wait for go. */
static void child_run(char **argv, int go, int ep)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_NAME, "pmukit-exec"); /* the name record's COMM gives it */
	char c;
	if (read(go, &c, 1) != 1)
		_exit(127); /* pmukit gave up before starting us */
	execvp(argv[0], argv);
	int e = errno;
	ssize_t wr = write(ep, &e, sizeof(e));
	(void)wr;
	_exit(pk_workload_exec_exit_code(e));
}

int pk_workload_prepare(char **argv, pk_workload *w, pk_error *err)
{
	*w = (pk_workload)PK_WORKLOAD_INIT;
	int e = check_command(argv[0]);
	w->exec_errno = e;
	if (e)
		return pk_err(err, -e, "cannot run '%s': %s", argv[0], strerror(e));
	int go[2], ep[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return pk_err(err, -errno, "cannot create a pipe: %s", strerror(errno));
	if (pipe2(ep, O_CLOEXEC) < 0) {
		e = errno;
		close(go[0]), close(go[1]);
		return pk_err(err, -e, "cannot create a pipe: %s", strerror(e));
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		e = errno;
		close(go[0]), close(go[1]), close(ep[0]), close(ep[1]);
		return pk_err(err, -e, "cannot fork: %s", strerror(e));
	}
	if (pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_run(argv, go[0], ep[1]);
	}
	close(go[0]);
	close(ep[1]);
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = ep[0];
	return 0;
}

int pk_workload_start(pk_workload *w, const char *name, pk_error *err)
{
	int e = 0;
	ssize_t r;
	if (write(w->go_fd, "g", 1) != 1)
		e = errno;
	close(w->go_fd);
	w->go_fd = -1;
	do
		r = read(w->err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (r == (ssize_t)sizeof(e) || e) {
		if (!e)
			e = EIO;
		w->exec_errno = e;
		waitpid(w->pid, NULL, 0);
		w->pid = -1;
		return pk_err(err, -e, "cannot run '%s': %s", name, strerror(e));
	}
	return 0;
}

void pk_workload_stop(pk_workload *w, int *status)
{
	bool started = w->go_fd < 0;
	if (w->go_fd >= 0)
		close(w->go_fd); /* the child sees EOF and exits */
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	if (w->pid > 0) {
		int st = 0;
		if (started)
			kill(w->pid, SIGTERM);
		while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
			;
		if (status)
			*status = st;
	}
	w->pid = -1;
}

int pk_workload_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
