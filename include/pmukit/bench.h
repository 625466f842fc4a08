/* pmukit: perf bench's workloads, run by `pmukit bench`. The library runs
 * and times them; the CLI prints perf's lines.
 *
 * sched messaging (perf bench sched messaging, after hackbench): groups of
 * `fds` senders and `fds` receivers; each receiver has one socketpair
 * (AF_UNIX stream) or pipe that every sender of its group writes to; each
 * sender writes `loops` messages of 100 bytes to every receiver of its
 * group, each receiver reads all of them. The workers are processes (fork)
 * or threads; all of them start together once every one is ready, and the
 * time is from that start until the last one is reaped. */
#ifndef PMUKIT_BENCH_H
#define PMUKIT_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_bench_messaging_opts {
	size_t size;                 /* sizeof(pk_bench_messaging_opts), set by _init */
	unsigned groups;             /* -g (10) */
	unsigned loops;              /* -l (100) */
	unsigned fds;                /* senders and receivers per group (20) */
	bool pipes;                  /* -p: pipe() instead of socketpair() */
	bool threads;                /* -t: threads instead of processes */
} pk_bench_messaging_opts;
void pk_bench_messaging_opts_init(pk_bench_messaging_opts *o);

/* Runs the benchmark: 0 with *elapsed_us the time from the start to the
 * last worker's end; a negative errno when a pipe, socket, process or
 * thread could not be made or a worker failed (err says which and why;
 * the workers made are ended and reaped). */
int pk_bench_messaging(const pk_bench_messaging_opts *o, uint64_t *elapsed_us, pk_error *err);

#ifdef __cplusplus
}
#endif
#endif
