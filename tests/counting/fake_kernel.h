/* A fake kernel behind the pk_kernel seam for the counting tests: it records
 * every open, hands out fds, answers reads with synthetic counts that grow
 * with each read, and fails opens with chosen errnos. A test double: the
 * product never prints numbers from it. */
#ifndef PK_TEST_FAKE_KERNEL_H
#define PK_TEST_FAKE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <pmukit/kernel.h>

#define FAKE_MAX 1024
#define FAKE_FD_BASE 1000

typedef struct fake_event {
	bool open;
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	int group_fd;
	unsigned long flags;
	uint64_t reads;            /* read calls so far (the leader's, for groups) */
} fake_event;

typedef struct fake_kernel {
	pk_kernel k;
	fake_event ev[FAKE_MAX];
	int nr;                    /* fds handed out */
	int nr_open;               /* currently open */
	int enables, disables, resets;
	/* Failing opens: return fail_errno for events whose config low 32
	 * bits equal fail_config (fail_config_any: every event), on or after
	 * the fail_after-th open (0-based), or per tid (fail_tid). */
	int fail_errno;
	bool fail_config_set;
	uint64_t fail_config;
	int fail_after;            /* -1: no count rule */
	pid_t fail_tid;            /* 0: none */
	bool fail_unless_exclude_kernel; /* EACCES for kernel-counting attrs */
	/* run = ena * mux_num / mux_den, to simulate multiplexing */
	uint64_t mux_num, mux_den;
} fake_kernel;

void fake_kernel_init(fake_kernel *f);
/* The value a counter reports after `reads` reads. */
uint64_t fake_value(const fake_event *e, uint64_t reads);
/* The fake event behind fd, or NULL. */
fake_event *fake_event_of(fake_kernel *f, int fd);

#endif
