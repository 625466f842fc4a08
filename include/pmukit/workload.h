/* pmukit: the measured command of a counting or a recording, forked before
 * the counters open (they need its pid) and held before exec until they are
 * ready (lib/counting/workload.c). Nothing here prints; the forked child
 * _exits (it never returns into the caller's code). */
#ifndef PMUKIT_WORKLOAD_H
#define PMUKIT_WORKLOAD_H

#include <sys/types.h>
#include <pmukit/error.h>

#ifdef __cplusplus
extern "C" {
#ifdef __cplusplus
}
#endif
#endif

typedef struct pk_workload {
	pid_t pid;                 /* -1: none (or reaped) */
	int go_fd;                 /* writing a byte lets the child exec */
	int err_fd;                /* the child's exec errno, EOF once exec succeeded */
	int exec_errno;            /* why the command could not run; 0 */
} pk_workload;

#define PK_WORKLOAD_INIT {.pid = -1, .go_fd = -1, .err_fd = -1, .exec_errno = 0}

/* Checks that argv[0] can be run (as execvp looks it up), then forks a child
 * held before exec. A command that cannot run fails here, before the caller
 * creates anything: -errno and "cannot run 'x': ...". */
int pk_workload_prepare(char **argv, pk_workload *w, pk_error *err);
/* Lets the child exec and waits until it did: 0, or -errno when the exec
 * failed (the child is then reaped). */
int pk_workload_start(pk_workload *w, const char *name, pk_error *err);
/* A child not started yet exits without running the command; a started one
 * gets SIGTERM. Reaps it; *status gets its wait status when not NULL. */
void pk_workload_stop(pk_workload *w, int *status);
/* The shell's exit code for a command's wait status: its exit code, or
 * 128+N when signal N killed it. */
int pk_workload_exit_code(int status);
/* The shell's exit code for a command that could not run: 127 when it was
 * not found, 126 when it was found but could not be executed. */
int pk_workload_exec_exit_code(int err_no);

#ifdef __cplusplus
}
#endif
#endif
