/* peo_stub.c: an LD_PRELOAD library for running Linux perf as a reference
 * on a machine that lacks the PMUs it is asked about.
 *
 * perf prints each perf_event_attr (with -vv) just before it calls
 * perf_event_open(2), and stops at the first member of a group the kernel
 * refuses. Here perf_event_open never reaches the kernel: every call gets a
 * fresh descriptor of /dev/null, so perf goes on to print every attr it means
 * to open.
 *
 * Counts served from read() (the TopDown differential test): when
 * $PK_PEO_COUNTS names a file, every fake descriptor remembers its attr
 * (type, config, config1, read_format), its group leader, CPU and pid, and
 * read() on it answers with the counts the file chooses, laid out as the
 * kernel lays out a read (value, time_enabled, time_running, id, lost, by
 * read_format; PERF_FORMAT_GROUP: nr, the times once, then value/id/lost
 * for the leader and each member in the order they were opened). ioctl
 * PERF_EVENT_IOC_ID gives each descriptor's unique id; perf's other ioctls
 * on a fake descriptor succeed and do nothing. The file, one entry a line
 * ('#' starts a comment), words key=value:
 *
 *   times enabled=E running=R          default times of every descriptor
 *   type=T config=C [config1=C1] value=V [enabled=E running=R]
 *   type=T config=C [config1=C1] fail=E       its opens fail with errno E
 *   type=T config=C ... grouped_fail=E         its opens as a group member fail
 *                                              (a group the PMU cannot hold)
 *
 * A descriptor whose (type, config, config1) has no line reads value 0 and
 * is logged as unserved. With $PK_PEO_LOG naming a file, one line is
 * appended per open ("open fd=.. type=.. config=.. config1=.. read_format=..
 * leader=.. cpu=.. pid=.. id=..") and per event read ("read fd=.. value=..
 * enabled=.. running=.. [unserved]"), so a test can check that perf read
 * what it was given. Without $PK_PEO_COUNTS reads reach /dev/null (no data),
 * as before.
 *
 * perf has no libc wrapper for perf_event_open: it issues the call through
 * syscall(3), so that is the symbol replaced. Every other system call number
 * is passed on unchanged to the next syscall in the lookup order (libc's);
 * read, ioctl and close are passed on for every descriptor that is not a
 * fake one.
 *
 * Built by the oracle tests at test time, without sanitizers: it is loaded
 * into perf, not into anything of ours. One thread at a time is assumed
 * (perf stat opens and reads its counters from one thread). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* perf_event_open's flag asking for a close-on-exec descriptor
 * (PERF_FLAG_FD_CLOEXEC in linux/perf_event.h). */
#define PEO_FLAG_FD_CLOEXEC (1UL << 3)

#define MAX_FD 65536
#define MAX_MEMBERS 64
#define MAX_COUNTS 512

typedef long (*syscall_fn)(long, ...);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef int (*close_fn)(int);

struct fake {
	int used;
	uint32_t type;
	uint64_t config, config1, read_format, id;
	int leader;                 /* fd of the group leader (itself when alone) */
	int members[MAX_MEMBERS];   /* a leader's members, in open order */
	int nr_members;
};

struct count {
	uint32_t type;
	uint64_t config, config1, value, enabled, running;
	uint64_t fail;              /* the errno its opens fail with; 0: none */
	uint64_t grouped_fail;      /* the errno its opens in a group fail with */
	int has_times;
};

static struct fake *fakes;      /* indexed by fd, allocated at the first open */
static struct count counts[MAX_COUNTS];
static int nr_counts = -1;      /* -1: not loaded yet; counts not served when no file */
static uint64_t dflt_enabled = 1000000, dflt_running = 1000000;
static uint64_t next_id = 1000;

static void *next_sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
	const char *path = getenv("PK_PEO_LOG");
	if (!path || !*path)
		return;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* The value of "key=" among the words of line, in *out; 0 when absent. */
static int word(const char *line, const char *key, uint64_t *out)
{
	size_t n = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p += n)
		if ((p == line || p[-1] == ' ' || p[-1] == '\t') && p[n] == '=') {
			*out = strtoull(p + n + 1, NULL, 0);
			return 1;
		}
	return 0;
}

/* Reads $PK_PEO_COUNTS once; nr_counts stays -1 when it is not set. */
static void load_counts(void)
{
	static int tried;
	if (tried)
		return;
	tried = 1;
	const char *path = getenv("PK_PEO_COUNTS");
	if (!path || !*path)
		return;
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "peo_stub: cannot open PK_PEO_COUNTS=%s\n", path);
		return;
	}
	nr_counts = 0;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		uint64_t v;
		if (!strncmp(line, "times", 5)) {
			word(line, "enabled", &dflt_enabled);
			word(line, "running", &dflt_running);
			continue;
		}
		if (!word(line, "type", &v) || nr_counts == MAX_COUNTS)
			continue;
		struct count *c = &counts[nr_counts++];
		memset(c, 0, sizeof(*c));
		c->type = (uint32_t)v;
		word(line, "config", &c->config);
		word(line, "config1", &c->config1);
		word(line, "value", &c->value);
		word(line, "fail", &c->fail);
		word(line, "grouped_fail", &c->grouped_fail);
		c->has_times = word(line, "enabled", &c->enabled) & word(line, "running", &c->running);
	}
	fclose(f);
}

static int is_fake(int fd)
{
	return fakes && fd >= 0 && fd < MAX_FD && fakes[fd].used;
}

/* The errno a count line asks the open of attr (grouped: as a member of
 * a group) to fail with, or 0. */
static int open_fails(const struct perf_event_attr *attr, int grouped)
{
	for (int i = 0; i < nr_counts; i++)
		if (counts[i].type == attr->type && counts[i].config == attr->config &&
		    counts[i].config1 == attr->config1)
			return (int)(counts[i].fail ? counts[i].fail
						    : grouped ? counts[i].grouped_fail : 0);
	return 0;
}

static long fake_open(const struct perf_event_attr *attr, int pid, int cpu, int group_fd,
		      unsigned long flags)
{
	load_counts();
	int fail = open_fails(attr, group_fd != -1);
	if (fail) {
		log_line("open type=%u config=%#llx failed errno=%d", attr->type,
			 (unsigned long long)attr->config, fail);
		errno = fail;
		return -1;
	}
	int fd = open("/dev/null", O_RDWR | ((flags & PEO_FLAG_FD_CLOEXEC) ? O_CLOEXEC : 0));
	if (fd < 0 || nr_counts < 0)
		return fd;
	if (!fakes)
		fakes = calloc(MAX_FD, sizeof(*fakes));
	if (!fakes || fd >= MAX_FD)
		return fd;
	struct fake *e = &fakes[fd];
	memset(e, 0, sizeof(*e));
	e->used = 1;
	e->type = attr->type;
	e->config = attr->config;
	e->config1 = attr->config1;
	e->read_format = attr->read_format;
	e->id = next_id++;
	e->leader = fd;
	if (is_fake(group_fd)) {
		struct fake *l = &fakes[group_fd];
		e->leader = (int)group_fd;
		if (l->nr_members < MAX_MEMBERS)
			l->members[l->nr_members++] = fd;
	}
	log_line("open fd=%d type=%u config=%#llx config1=%#llx read_format=%#llx leader=%d "
		 "cpu=%d pid=%d id=%llu",
		 fd, e->type, (unsigned long long)e->config, (unsigned long long)e->config1,
		 (unsigned long long)e->read_format, e->leader, cpu, pid,
		 (unsigned long long)e->id);
	return fd;
}

long syscall(long nr, ...)
{
	/* The x86-64 and arm64 calling conventions let six word-sized
	 * arguments be taken whatever the caller passed; unused ones are
	 * ignored by the kernel. */
	long a[6];
	va_list ap;
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open)
		return fake_open((const struct perf_event_attr *)a[0], (int)a[1], (int)a[2], (int)a[3],
				 (unsigned long)a[4]);
	static syscall_fn next;
	if (!next)
		next = (syscall_fn)next_sym("syscall");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* The count line of descriptor fd's event, or NULL. */
static const struct count *count_of(int fd)
{
	const struct fake *e = &fakes[fd];
	for (int i = 0; i < nr_counts; i++)
		if (counts[i].type == e->type && counts[i].config == e->config &&
		    counts[i].config1 == e->config1)
			return &counts[i];
	return NULL;
}

/* The times of descriptor fd: its count line's, else the defaults. */
static void times_of(int fd, uint64_t *enabled, uint64_t *running)
{
	const struct count *c = count_of(fd);
	*enabled = c && c->has_times ? c->enabled : dflt_enabled;
	*running = c && c->has_times ? c->running : dflt_running;
}

/* Appends one event's words for descriptor fd: its value, then (alone, not
 * in a group read) the times, then id and lost as its read_format asks. */
static size_t put_event(int fd, uint64_t *w, uint64_t enabled, uint64_t running, int alone)
{
	const struct fake *e = &fakes[fd];
	const struct count *c = count_of(fd);
	uint64_t fmt = alone ? e->read_format : fakes[e->leader].read_format;
	size_t n = 0;
	w[n++] = c ? c->value : 0;
	if (alone && (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED))
		w[n++] = enabled;
	if (alone && (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING))
		w[n++] = running;
	if (fmt & PERF_FORMAT_ID)
		w[n++] = e->id;
	if (fmt & PERF_FORMAT_LOST)
		w[n++] = 0;
	log_line("read fd=%d value=%llu enabled=%llu running=%llu%s", fd,
		 (unsigned long long)(c ? c->value : 0), (unsigned long long)enabled,
		 (unsigned long long)running, c ? "" : " unserved");
	return n;
}

/* The kernel's read layout for fd in w; returns the number of words. A
 * group read takes the leader's times for the whole group. */
static size_t layout(int fd, uint64_t *w)
{
	const struct fake *e = &fakes[fd];
	uint64_t fmt = e->read_format, enabled, running;
	times_of(fd, &enabled, &running);
	if (!(fmt & PERF_FORMAT_GROUP))
		return put_event(fd, w, enabled, running, 1);
	size_t n = 0;
	w[n++] = 1 + (uint64_t)e->nr_members;
	if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
		w[n++] = enabled;
	if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
		w[n++] = running;
	n += put_event(fd, w + n, enabled, running, 0);
	for (int i = 0; i < e->nr_members; i++)
		n += put_event(e->members[i], w + n, enabled, running, 0);
	return n;
}

ssize_t read(int fd, void *buf, size_t len)
{
	static read_fn next;
	if (!next)
		next = (read_fn)next_sym("read");
	if (!is_fake(fd))
		return next(fd, buf, len);
	uint64_t w[4 + 3 * (MAX_MEMBERS + 1)];
	size_t bytes = layout(fd, w) * sizeof(w[0]);
	if (len < bytes) {
		errno = ENOSPC; /* the kernel's answer to a short buffer */
		return -1;
	}
	memcpy(buf, w, bytes);
	return (ssize_t)bytes;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (is_fake(fd) && _IOC_TYPE(req) == '$') {
		if (req == PERF_EVENT_IOC_ID)
			*(uint64_t *)arg = fakes[fd].id;
		return 0;
	}
	static ioctl_fn next;
	if (!next)
		next = (ioctl_fn)next_sym("ioctl");
	return next(fd, req, arg);
}

int close(int fd)
{
	static close_fn next;
	if (!next)
		next = (close_fn)next_sym("close");
	if (is_fake(fd))
		fakes[fd].used = 0;
	return next(fd);
}
