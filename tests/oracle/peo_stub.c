/* peo_stub.c: an LD_PRELOAD library for running Linux perf as a reference
 * encoder on a machine that lacks the PMUs it is asked about.
 *
 * perf prints each perf_event_attr (with -vv) just before it calls
 * perf_event_open(2), and stops at the first member of a group the kernel
 * refuses. Here perf_event_open never reaches the kernel: every call gets a
 * fresh descriptor of /dev/null, so perf goes on to print every attr it means
 * to open. Nothing is counted; reads of the descriptors return no data.
 *
 * perf has no libc wrapper to call: it issues the call through syscall(3),
 * so that is the symbol replaced. Every other system call number is passed
 * on unchanged to the next syscall in the lookup order (libc's).
 *
 * Built by tests/events/test_oracle.c at test time, without sanitizers: it
 * is loaded into perf, not into anything of ours. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

/* perf_event_open's flag asking for a close-on-exec descriptor
 * (PERF_FLAG_FD_CLOEXEC in linux/perf_event.h). */
#define PEO_FLAG_FD_CLOEXEC (1UL << 3)

typedef long (*syscall_fn)(long, ...);

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
	if (nr == SYS_perf_event_open) {
		int cloexec = ((unsigned long)a[4] & PEO_FLAG_FD_CLOEXEC) ? O_CLOEXEC : 0;
		return open("/dev/null", O_RDWR | cloexec);
	}
	static syscall_fn next;
	if (!next)
		next = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
