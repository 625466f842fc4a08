/* libpmukit: perf bench sched messaging's workload (include/pmukit/bench.h).
 *
 * Every worker, once made, says it is ready (a byte on the ready pipe) and
 * waits for the start: the end of file on the wake pipe, which comes when
 * the parent closes its write end (every process worker closed its own
 * copy first). Process workers _exit with 0, or 1 when a read or write
 * failed; thread workers return that status. When making them fails, the
 * parent writes one byte per worker made into the wake pipe before
 * closing it: a worker that reads a byte ends at once, with no I/O. The
 * parent keeps only the
 * pipes' ends it needs: each group's channel ends are closed in the
 * parent once its process workers hold them (threads share them, and they
 * are closed after the join). */
#include <pmukit/bench.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define DATASIZE 100

void pk_bench_messaging_opts_init(pk_bench_messaging_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->groups = 10;
	o->loops = 100;
	o->fds = 20;
}

typedef struct worker {
	int ready, wake;             /* the ready pipe's write end, the wake pipe's read end */
	int in;                      /* a receiver's channel; -1 for a sender */
	const int *out;              /* a sender's channels (fds of them) */
	unsigned fds, loops;
	pthread_t tid;
	pid_t pid;
} worker;

/* Ready, then blocked until the start (end of file; a byte: abort). */
static int await_start(const worker *w)
{
	char c = 0, d;
	if (write(w->ready, &c, 1) != 1)
		return 1;
	ssize_t n;
	while ((n = read(w->wake, &d, 1)) < 0 && errno == EINTR)
		;
	return n != 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A sender writes every message; a receiver reads them all. */
static int work(const worker *w)
{
	char data[DATASIZE];
	memset(data, 'x', sizeof(data));
	if (await_start(w))
		return 1;
	if (w->in < 0) {
		for (unsigned l = 0; l < w->loops; l++)
			for (unsigned j = 0; j < w->fds; j++)
				if (write_all(w->out[j], data, DATASIZE))
					return 1;
		return 0;
	}
	uint64_t left = (uint64_t)w->fds * w->loops * DATASIZE;
	while (left) {
		ssize_t n = read(w->in, data, left < DATASIZE ? left : DATASIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		left -= (uint64_t)n;
	}
	return 0;
}

static void *thread_main(void *arg)
{
	return (void *)(intptr_t)work(arg);
}

typedef struct run {
	const pk_bench_messaging_opts *o;
	worker *w;                   /* groups * fds * 2 */
	size_t nr;                   /* made so far */
	int *chan;                   /* per group, per receiver: read end, write end */
	int *outs;                   /* per group: the senders' write ends */
	size_t nr_chan;              /* channel ends made (2 per receiver) */
	int ready[2], wake[2];
} run;

/* A process or thread for worker i. 0 or -errno. */
static int start_worker(run *r, size_t i)
{
	worker *w = &r->w[i];
	if (r->o->threads) { /* small stacks: hundreds of workers, each with 100 bytes */
		pthread_attr_t attr;
		int e = pthread_attr_init(&attr);
		if (e)
			return -e;
		e = pthread_attr_setstacksize(&attr, 256 * 1024);
		if (!e)
			e = pthread_create(&w->tid, &attr, thread_main, w);
		pthread_attr_destroy(&attr);
		return e ? -e : 0;
	}
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(r->wake[1]);
		close(r->ready[0]);
		_exit(work(w));
	}
	w->pid = pid;
	return 0;
}

/* Group g's channels, receivers and senders. 0 or -errno (what failed in *what). */
static int make_group(run *r, unsigned g, const char **what)
{
	unsigned n = r->o->fds;
	int *c = r->chan + (size_t)g * n * 2, *outs = r->outs + (size_t)g * n;
	for (unsigned i = 0; i < n; i++, r->nr_chan += 2) {
		*what = r->o->pipes ? "pipe" : "socketpair";
		if ((r->o->pipes ? pipe(c + 2 * i) : socketpair(AF_UNIX, SOCK_STREAM, 0, c + 2 * i)) < 0)
			return -errno;
		outs[i] = c[2 * i + 1];
	}
	*what = r->o->threads ? "thread" : "process";
	for (unsigned i = 0; i < 2 * n; i++) {
		worker *w = &r->w[r->nr];
		*w = (worker){.ready = r->ready[1], .wake = r->wake[0], .fds = n,
			      .loops = r->o->loops, .in = i < n ? c[2 * i] : -1, .out = outs};
		int rc = start_worker(r, r->nr);
		if (rc < 0)
			return rc;
		r->nr++;
	}
	return 0;
}

/* Every worker made reaped: its failure counted. */
static unsigned reap(run *r)
{
	unsigned failed = 0;
	for (size_t i = 0; i < r->nr; i++) {
		int status = 0;
		void *ret = NULL;
		if (r->o->threads) {
			pthread_join(r->w[i].tid, &ret);
			failed += ret != NULL;
		} else {
			while (waitpid(r->w[i].pid, &status, 0) < 0 && errno == EINTR)
				;
			failed += !WIFEXITED(status) || WEXITSTATUS(status);
		}
	}
	return failed;
}

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Makes the workers and waits until each is ready. 0 or -errno. */
static int make_all(run *r, pk_error *err)
{
	const char *what = "pipe";
	int rc = 0;
	for (unsigned g = 0; g < r->o->groups && rc == 0; g++) {
		rc = make_group(r, g, &what);
		for (size_t i = 0; rc == 0 && !r->o->threads && i < r->nr_chan; i++)
			if (r->chan[i] >= 0) { /* the processes hold theirs */
				close(r->chan[i]);
				r->chan[i] = -1;
			}
	}
	if (rc < 0)
		return pk_err(err, rc, "bench messaging: cannot make a %s: %s", what, strerror(-rc));
	char buf[256];
	for (size_t left = r->nr; left;) {
		ssize_t n = read(r->ready[0], buf, left < sizeof(buf) ? left : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return pk_err(err, n < 0 ? -errno : -EPIPE,
				      "bench messaging: a worker did not get ready");
		left -= (size_t)n;
	}
	return 0;
}

int pk_bench_messaging(const pk_bench_messaging_opts *o, uint64_t *elapsed_us, pk_error *err)
{
	if (!o || o->size != sizeof(*o) || !o->fds)
		return pk_err(err, -EINVAL, "pk_bench_messaging: bad options");
	size_t per = (size_t)o->fds * 2, n = (size_t)o->groups * per;
	run r = {.o = o, .ready = {-1, -1}, .wake = {-1, -1}};
	r.w = calloc(n ? n : 1, sizeof(*r.w));
	r.chan = calloc(n ? n : 1, sizeof(*r.chan));
	r.outs = calloc(n ? n : 1, sizeof(*r.outs));
	int rc = !r.w || !r.chan || !r.outs ? pk_err(err, -ENOMEM, "bench messaging: out of memory")
					    : 0;
	if (!rc && (pipe(r.ready) < 0 || pipe(r.wake) < 0))
		rc = pk_err(err, -errno, "bench messaging: cannot make a pipe: %s", strerror(errno));
	if (!rc)
		rc = make_all(&r, err);
	char abort_bytes[256];
	memset(abort_bytes, 'A', sizeof(abort_bytes));
	for (size_t left = rc < 0 ? r.nr : 0; left;) { /* one byte each: end at once */
		ssize_t w = write(r.wake[1], abort_bytes, left < 256 ? left : 256);
		if (w <= 0)
			break;
		left -= (size_t)w;
	}
	uint64_t start = now_us();
	if (r.wake[1] >= 0)
		close(r.wake[1]);
	unsigned failed = reap(&r);
	*elapsed_us = now_us() - start;
	if (!rc && failed)
		rc = pk_err(err, -EIO, "bench messaging: %u of %zu workers failed", failed, r.nr);
	for (size_t i = 0; i < r.nr_chan; i++)
		if (r.chan[i] >= 0)
			close(r.chan[i]);
	int ends[3] = {r.ready[0], r.ready[1], r.wake[0]};
	for (int i = 0; i < 3; i++)
		if (ends[i] >= 0)
			close(ends[i]);
	free(r.w);
	free(r.chan);
	free(r.outs);
	return rc;
}
