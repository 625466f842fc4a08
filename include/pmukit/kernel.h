/* pmukit: the kernel interface seam.
 *
 * Everything that talks to the kernel's perf interface goes through one table
 * of functions. The real table calls the syscalls; the PMU model and the
 * tests' fake kernels implement the same table in user space, so counting,
 * recording and topdown run unchanged on either. Every function returns
 * a negative errno on failure (never -1 with errno). */
#ifndef PMUKIT_KERNEL_H
#define PMUKIT_KERNEL_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_kernel pk_kernel;

typedef struct pk_kernel_ops {
	/* perf_event_open(2); attr points at attr->size bytes. Returns an fd. */
	int (*open)(const pk_kernel *k, const struct perf_event_attr *attr, pid_t pid,
		    int cpu, int group_fd, unsigned long flags);
	/* read(2) on an event fd; returns bytes read. */
	ssize_t (*read)(const pk_kernel *k, int fd, void *buf, size_t len);
	/* ioctl(2): PERF_EVENT_IOC_ENABLE, _DISABLE, _RESET, _SET_OUTPUT, _ID ... */
	int (*ioctl)(const pk_kernel *k, int fd, unsigned long request, unsigned long arg);
	/* mmap(2) of the user page (+ ring buffer). Returns 0 and sets *addr. */
	int (*mmap)(const pk_kernel *k, int fd, size_t len, int prot, void **addr);
	int (*munmap)(const pk_kernel *k, void *addr, size_t len);
	int (*close)(const pk_kernel *k, int fd);
} pk_kernel_ops;

struct pk_kernel {
	const pk_kernel_ops *ops;
	void *ctx;                 /* implementation data */
	const char *name;          /* "linux", "model", "fake" */
};

/* The real kernel. */
const pk_kernel *pk_kernel_linux(void);

#ifdef __cplusplus
}
#endif
#endif
