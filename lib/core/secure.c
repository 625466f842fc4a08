/* What the library takes from the process it runs in, safely: libpmukit
 * is embedded in other people's programs (the region library, likwid's
 * markers), some of them setuid or with file capabilities.
 *
 * - Settings from the environment: pki_env, the one reader of every
 *   variable the library honours. secure_getenv: none is read when the
 *   process runs privileged (AT_SECURE: setuid, setgid, file
 *   capabilities), so a local user cannot steer what it reads or writes.
 * - Files written at a path given by a setting or an option (the region
 *   report, the kallsyms cache): pki_wfile. A symbolic link anywhere on
 *   the way is followed only when it belongs to the process's (effective)
 *   user or to root, at most 40 of them; a regular file (or none) is written as a new file
 *   created exclusively beside it (O_EXCL | O_NOFOLLOW, a name of the
 *   process id and the clock) and renamed onto it at commit, so a reader
 *   sees the old file or the whole new one and no link is ever written
 *   through; a device or a FIFO (/dev/stderr, a pipe) is opened as it is,
 *   without O_CREAT, O_TRUNC nor following a last link. */
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/error.h>

const char *pki_env(const char *name)
{
	return secure_getenv(name);
}

/* Appends "/" (unless at the root) and n bytes of comp to the path in
 * out: false when it does not fit. */
static bool append(char *out, size_t size, const char *comp, size_t n)
{
	size_t len = strlen(out);
	bool slash = len > 0 && out[len - 1] != '/';
	if (len + slash + n + 1 > size)
		return false;
	if (slash)
		out[len++] = '/';
	memcpy(out + len, comp, n);
	out[len + n] = '\0';
	return true;
}

/* path with every link on the way followed into out, each one checked
 * (the user's or root's), at most 40; st: the last component's lstat
 * (st_mode 0: none yet, to be created). 0, or -errno with err. */
static int resolve(const char *path, char *out, size_t size, struct stat *st, pk_error *err)
{
	char rest[PATH_MAX], link[PATH_MAX];
	if (strlen(path) >= sizeof(rest))
		return pk_err(err, -ENAMETOOLONG, "%.200s...: too long", path);
	snprintf(rest, sizeof(rest), "%s", path);
	snprintf(out, size, "%s", path[0] == '/' ? "/" : ".");
	int links = 0;
	while (rest[0]) {
		size_t n = strcspn(rest, "/"), at = strlen(out);
		size_t next = n + strspn(rest + n, "/"); /* the component after */
		bool last = rest[next] == '\0';
		if (n && !append(out, size, rest, n))
			return pk_err(err, -ENAMETOOLONG, "%s: too long", path);
		memmove(rest, rest + next, strlen(rest + next) + 1);
		if (!n)
			continue;
		if (lstat(out, st) < 0) {
			st->st_mode = 0;
			if (errno == ENOENT && last)
				return 0;
			return pk_err(err, -errno, "%s: %s", out, strerror(errno));
		}
		if (!S_ISLNK(st->st_mode))
			continue;
		if (st->st_uid != geteuid() && st->st_uid != 0)
			return pk_err(err, -EPERM, "%s: a symbolic link owned by another user (uid %u) "
						   "is not followed", out, (unsigned)st->st_uid);
		ssize_t k = readlink(out, link, sizeof(link) - 1);
		if (k < 0 || ++links > 40)
			return pk_err(err, k < 0 ? -errno : -ELOOP, "%s: %s", out,
				      k < 0 ? strerror(errno) : "too many symbolic links");
		link[k] = '\0';
		out[at] = '\0'; /* the link's directory */
		if (link[0] == '/')
			snprintf(out, size, "/");
		if (strlen(link) + 1 + strlen(rest) >= sizeof(rest))
			return pk_err(err, -ENAMETOOLONG, "%s: too long", path);
		memmove(rest + k + 1, rest, strlen(rest) + 1);
		memcpy(rest, link, (size_t)k);
		rest[k] = '/';
	}
	return lstat(out, st) == 0 ? 0 : pk_err(err, -errno, "%s: %s", out, strerror(errno));
}

/* A new file beside path, created exclusively: its fd, or -errno. */
static int create_beside(pki_wfile *w, unsigned mode)
{
	static unsigned seq;
	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		unsigned salt = (unsigned)ts.tv_nsec ^ __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
		free(w->tmp);
		w->tmp = NULL;
		if (asprintf(&w->tmp, "%s.%ld.%08x.tmp", w->path, (long)getpid(), salt) < 0)
			return -ENOMEM;
		int fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int pki_wfile_open(pki_wfile *w, const char *path, unsigned mode, pk_error *err)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	char real[PATH_MAX];
	struct stat st;
	int r = resolve(path, real, sizeof(real), &st, err);
	if (r < 0)
		return r;
	if (!(w->path = strdup(real)))
		return pk_err(err, -ENOMEM, "out of memory");
	if (st.st_mode && !S_ISREG(st.st_mode)) { /* a device, a FIFO: written in place */
		w->fd = open(real, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		r = w->fd < 0 ? -errno : 0;
	} else {
		r = w->fd = create_beside(w, mode);
	}
	if (r < 0) {
		pk_err(err, r, "%s: %s", w->tmp ? w->tmp : real, strerror(-r));
		w->fd = -1;
		pki_wfile_abort(w);
		return r;
	}
	return 0;
}

int pki_wfile_commit(pki_wfile *w, pk_error *err)
{
	int r = 0;
	if (w->fd >= 0 && close(w->fd) < 0)
		r = pk_err(err, -errno, "%s: %s", w->path, strerror(errno));
	w->fd = -1;
	if (r == 0 && w->tmp && rename(w->tmp, w->path) < 0)
		r = pk_err(err, -errno, "%s: %s", w->path, strerror(errno));
	if (r == 0) {
		free(w->tmp);
		w->tmp = NULL;
	}
	pki_wfile_abort(w);
	return r;
}

void pki_wfile_abort(pki_wfile *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}
