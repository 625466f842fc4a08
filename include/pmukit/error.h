/* pmukit: error reporting, and the description of lib/core.
 *
 * Library functions return 0 or a negative errno-style code and, when given a
 * pk_error, fill it with a message, what was being read (an event string, a
 * file path) and where in it. The library never prints; callers render the
 * error with pk_error_render().
 *
 * lib/core, the bottom layer every module imports: errors and their rendering
 * (error.c); CPU maps (cpumap.c, pmukit/cpumap.h); small utilities (util.c:
 * file reads, integer parsing, growable arrays and buffers, warning lists,
 * FNV-1a; pmukit/util.h: what the CLI shares with the library, pk_similar and
 * pk_grow); the one string-keyed hash table (strmap.c); the one atomic
 * reference count of the shared objects (refcount.h: pk_cpumap, pk_pmus,
 * pk_evlist, pk_threadmap, the symbol tables' map groups).
 *
 * The one table of perf_event's sampled registers per architecture (regs.c,
 * pmukit/regs.h): perf 6.1's names, the sample_regs bits, the default and
 * --call-graph dwarf sets, and for the DWARF unwinder each register's DWARF
 * number, the PC, SP, frame pointer and the preserved registers (internal
 * core/regs.h).
 *
 * What the library takes from the process it runs in (secure.c): every
 * environment setting through pki_env (secure_getenv); files written at a
 * given path through pki_wfile (no link of another user followed, a new file
 * created exclusively and renamed); docs/regions.md "Security". */
#ifndef PMUKIT_ERROR_H
#define PMUKIT_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_error {
	int code;          /* negative errno; 0 means no error */
	char msg[512];     /* one-line reason */
	char subject[64];  /* what kind of input: "event syntax error", "perf.data" ... */
	char where[512];   /* the input itself (event string) or a file path */
	long pos;          /* offset into `where` (strings) or into the file; -1: none */
	int pos_is_offset; /* 1: pos is a file offset, printed as a number, not a caret */
	char hint[1024];   /* further lines: likely causes, what to change */
} pk_error;

void pk_error_clear(pk_error *err);

/* Sets code and message (printf-style); returns code so callers can
 * `return pk_err(err, -EINVAL, ...)`. err may be NULL. */
int pk_err(pk_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As pk_err, plus the input and a position in it. */
int pk_err_at(pk_error *err, int code, const char *subject, const char *where, long pos,
	      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Appends a line to the hint. */
void pk_err_hint(pk_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Renders the error as perf does for event strings:
 *   event syntax error: 'cpu_core/event=0x3c,any=1/'
 *                                          \___ unknown term 'any' for pmu 'cpu_core'
 * followed by the hint lines. Returns the length written (like snprintf). */
int pk_error_render(const pk_error *err, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
