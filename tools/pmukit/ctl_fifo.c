/* perf's control channel, both sides (ctl_fifo.h: the protocol and its
 * invariants). */
#include "ctl_fifo.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char ACK[] = "ack\n";

/* A fd number of "fd:N[,M]"; -1 when s is not one. */
static int fd_number(const char *s, const char *end)
{
	char *stop;
	errno = 0;
	long v = strtol(s, &stop, 10);
	if (stop == s || stop != end || errno || v < 0 || v > 1 << 20)
		return -1;
	return (int)v;
}

/* fd:CTL[,ACK]: the caller's descriptors, made non-blocking. */
static int open_fds(ctl_chan *c, const char *list, char *why, size_t n)
{
	const char *comma = strchr(list, ',');
	c->ctl_fd = fd_number(list, comma ? comma : list + strlen(list));
	if (comma)
		c->ack_fd = fd_number(comma + 1, comma + 1 + strlen(comma + 1));
	if (c->ctl_fd < 0 || (comma && c->ack_fd < 0) || fcntl(c->ctl_fd, F_GETFL) < 0 ||
	    (c->ack_fd >= 0 && fcntl(c->ack_fd, F_GETFL) < 0)) {
		snprintf(why, n, "--control fd:%s: no such open file descriptors", list);
		return -1;
	}
	fcntl(c->ctl_fd, F_SETFL, fcntl(c->ctl_fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* fifo:CTL[,ACK]: opened read-write (never an end of file, never a block). */
static int open_fifos(ctl_chan *c, const char *list, char *why, size_t n)
{
	char ctl[4096];
	snprintf(ctl, sizeof(ctl), "%s", list);
	char *ack = strchr(ctl, ',');
	if (ack)
		*ack++ = '\0';
	c->own = true;
	c->ctl_fd = open(ctl, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c->ctl_fd < 0) {
		snprintf(why, n, "--control fifo:%s: cannot open '%s': %s", list, ctl, strerror(errno));
		return -2;
	}
	if (ack && (c->ack_fd = open(ack, O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(why, n, "--control fifo:%s: cannot open '%s': %s", list, ack, strerror(errno));
		ctl_close(c);
		return -2;
	}
	return 0;
}

int ctl_open(ctl_chan *c, const char *spec, char *why, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->ctl_fd = c->ack_fd = -1;
	if (!strncmp(spec, "fifo:", 5) && spec[5])
		return open_fifos(c, spec + 5, why, n);
	if (!strncmp(spec, "fd:", 3) && spec[3])
		return open_fds(c, spec + 3, why, n);
	snprintf(why, n, "--control '%s': takes fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]",
		 spec);
	return -1;
}

/* The command word of text, its argument into arg. */
static ctl_cmd classify(const char *text, char *arg, size_t n)
{
	static const struct { const char *word; ctl_cmd cmd; } words[] = {
		{"enable", CTL_ENABLE}, {"disable", CTL_DISABLE}, {"snapshot", CTL_SNAPSHOT},
		{"ping", CTL_PING}, {"stop", CTL_STOP}, {"evlist", CTL_EVLIST},
	};
	size_t w = strcspn(text, " \t");
	const char *rest = text + w + strspn(text + w, " \t");
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].word) == w && !strncmp(text, words[i].word, w)) {
			if (arg && n)
				snprintf(arg, n, "%s", rest);
			return words[i].cmd;
		}
	if (arg && n)
		snprintf(arg, n, "%s", text);
	return CTL_UNKNOWN;
}

/* The first command of the buffer taken out of it (len bytes, no end). */
static ctl_cmd take(ctl_chan *c, size_t len, size_t skip, char *arg, size_t n)
{
	char text[sizeof(c->buf) + 1];
	memcpy(text, c->buf, len);
	text[len] = '\0';
	memmove(c->buf, c->buf + len + skip, c->len - len - skip);
	c->len -= len + skip;
	if (!text[0])
		return CTL_NONE;
	return classify(text, arg, n);
}

ctl_cmd ctl_next(ctl_chan *c, char *arg, size_t n)
{
	for (;;) {
		for (size_t i = 0; i < c->len; i++)
			if (c->buf[i] == '\n' || c->buf[i] == '\0') {
				ctl_cmd cmd = take(c, i, 1, arg, n);
				if (cmd != CTL_NONE)
					return cmd;
				i = (size_t)-1; /* an empty line: look again */
			}
		if (c->ctl_fd < 0 || c->len == sizeof(c->buf))
			return c->len ? take(c, c->len, 0, arg, n) : CTL_NONE;
		ssize_t got = read(c->ctl_fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (got <= 0) /* nothing more now: what one read gave is a command */
			return c->len ? take(c, c->len, 0, arg, n) : CTL_NONE;
		c->len += (size_t)got;
	}
}

void ctl_ack(ctl_chan *c)
{
	/* with its NUL, as perf 6.1 writes it */
	if (c->ack_fd >= 0 && write(c->ack_fd, ACK, sizeof(ACK)) < 0)
		return; /* the other side has gone: nothing to tell */
}

void ctl_close(ctl_chan *c)
{
	if (c->own && c->ctl_fd >= 0)
		close(c->ctl_fd);
	if (c->own && c->ack_fd >= 0)
		close(c->ack_fd);
	c->ctl_fd = c->ack_fd = -1;
}

/* Milliseconds from a to now. */
static long since_ms(const struct timespec *a)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - a->tv_sec) * 1000 + (now.tv_nsec - a->tv_nsec) / 1000000;
}

/* "ack\n" read from fd within timeout_ms. */
static int await_ack(int fd, int timeout_ms)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char got[sizeof(ACK)] = "";
	size_t len = 0;
	while (len < sizeof(ACK) - 1) {
		long left = timeout_ms - since_ms(&t0);
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ETIMEDOUT;
		ssize_t n = read(fd, got + len, sizeof(ACK) - 1 - len);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			return -EPIPE;
		len += n > 0 ? (size_t)n : 0;
	}
	return memcmp(got, ACK, sizeof(ACK) - 1) ? -EPROTO : 0;
}

int ctl_send(const char *ctl, const char *ack, const char *cmd, int timeout_ms)
{
	int cfd = open(ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (cfd < 0)
		return -errno;
	int afd = open(ack, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (afd < 0) {
		int e = -errno;
		close(cfd);
		return e;
	}
	char old[64];
	while (read(afd, old, sizeof(old)) > 0)
		; /* acks of exchanges that timed out */
	char line[256];
	int len = snprintf(line, sizeof(line), "%s\n", cmd);
	int rc = write(cfd, line, (size_t)len) == len ? await_ack(afd, timeout_ms) : -errno;
	close(cfd);
	close(afd);
	return rc;
}
