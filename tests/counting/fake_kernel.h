/* A fake kernel behind the pk_kernel seam for the counting and recording
 * tests: it records every open, hands out fds, answers reads with synthetic
 * counts that grow with each read, fails opens with chosen errnos, and maps
 * ring buffers (user page + data area) that a test fills with records
 * through fake_ring_emit, following PERF_EVENT_IOC_SET_OUTPUT as the kernel
 * does. It also plays a host (fake_host: sysctls, CPUs, topology, CPU model,
 * uname, tasks, maps, kernel text) so tests can show that the host's facts
 * reach the output. A test double: the product never prints numbers from it. */
#ifndef PK_TEST_FAKE_KERNEL_H
#define PK_TEST_FAKE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
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
	void *ring;                /* mmap'd user page + data area, NULL */
	size_t ring_len;
	int output_fd;             /* PERF_EVENT_IOC_SET_OUTPUT target; 0: none */
} fake_event;

/* A task of the fake host. */
typedef struct fake_task {
	pid_t tid, tgid;
	const char *comm;
} fake_task;

#define FAKE_MAX_TASKS 16
#define FAKE_MAX_MAPS 8

/* The fake host's facts; fake_kernel_init fills in a 4-CPU, 2-way SMT
 * Alder Lake-like machine with two processes (see fake_kernel.c). */
typedef struct fake_host {
	int64_t num[PK_HOST_NUM_NR];
	unsigned num_missing;          /* bit (1 << pk_host_num): not published */
	const char *online, *present;  /* cpulists; NULL: not published */
	int smt;                       /* threads per core; one package, one die */
	const char *cpuid;             /* PERF_CPUID form; NULL: unknown */
	const char *model_name;
	const char *nodename, *release, *machine;
	fake_task tasks[FAKE_MAX_TASKS];
	int nr_tasks;
	pk_host_map maps[FAKE_MAX_MAPS]; /* every process has these */
	int nr_maps;
	uint64_t text, etext;          /* text 0: hidden */
} fake_host;

/* A chosen count (the stat differential test: the counts peo_stub.c
 * serves perf): an event by attr type and config, read as value with
 * these times (ena 0: the defaults, 1000000 both), or whose opens fail
 * with errno `fail`. */
typedef struct fake_count {
	uint32_t type;
	uint64_t config;
	uint64_t value, ena, run;
	int fail;
} fake_count;

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
	bool fail_grouped_only;    /* the rules above hit opens in a group only */
	bool fail_unless_exclude_kernel; /* EACCES for kernel-counting attrs */
	/* run = ena * mux_num / mux_den, to simulate multiplexing */
	uint64_t mux_num, mux_den;
	fake_host host;
	int polls;                 /* poll calls so far */
	/* When set, every read answers these counts (an event without one
	 * reads 0) instead of fake_value's growing ones; a group read takes
	 * the leader's times. */
	const fake_count *served;
	size_t nr_served;
	uint64_t last_mmap_offset;
} fake_kernel;

void fake_kernel_init(fake_kernel *f);
/* The value a counter reports after `reads` reads. */
uint64_t fake_value(const fake_event *e, uint64_t reads);
/* The fake event behind fd, or NULL. */
fake_event *fake_event_of(fake_kernel *f, int fd);
/* Appends one record to the ring fd writes into (its own, or the one it was
 * redirected to), as the kernel does: data at data_head, wrapping, then
 * data_head advanced. 0, -ENODEV when fd has no ring, -ENOSPC when the
 * reader has not made room. */
int fake_ring_emit(fake_kernel *f, int fd, const void *rec, size_t len);

#endif
