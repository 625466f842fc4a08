/* pmukit: perf lock contention's engine (perf 6.1), over a perf.data that
 * perf lock record made: the lock:contention_begin / lock:contention_end
 * tracepoint samples with their kernel call chains.
 *
 * Each contention is keyed by its caller: the call chain (at most
 * max_stack entries) past its first stack_skip entries and past the
 * functions of the kernel's lock and scheduler text (__lock_text_start..
 * __lock_text_end, __sched_text_start..__sched_text_end, looked up by name
 * in the kernel's symbol table), folded into one hash (each entry's perf
 * hash_long(ip, 64), 32 bits wide, XORed). Its name is the
 * first such caller with a symbol, "sym+0xoff" ("Unknown" when none). A
 * begin starts a wait of its thread on its lock address; the end on the
 * same thread and address ends it, the wait added to the entry of the
 * end's caller key. A begin while that thread already waits on that lock
 * is ignored (mutex spinning nests them); an end with no wait open after
 * an earlier end is a broken sequence (counted, the entry marked).
 *
 * The result is sorted as perf prints it: by the sort key, largest first,
 * ties in perf's hash order (its 4096-bucket table walked in order, each
 * bucket newest first).
 *
 * The library never prints; messages (the session's) go to the options'
 * callback. */
#ifndef PMUKIT_LOCK_H
#define PMUKIT_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The columns and sort keys of perf lock contention (-F, -k). */
typedef enum pk_lock_key {
	PK_LOCK_CONTENDED, PK_LOCK_WAIT_TOTAL, PK_LOCK_WAIT_MAX, PK_LOCK_WAIT_MIN,
	PK_LOCK_AVG_WAIT, PK_LOCK_NR_KEYS
} pk_lock_key;
/* perf's name of a key ("wait_total"), its column header ("total wait")
 * and width (10 or 12). */
const char *pk_lock_key_name(pk_lock_key k);
const char *pk_lock_key_header(pk_lock_key k);
int pk_lock_key_width(pk_lock_key k);
/* A key by perf's name: the key, or -1. */
int pk_lock_key_parse(const char *name);

/* perf's name of a lock type from contention_begin's flags ("spinlock",
 * "rwsem:W", "unknown"). */
const char *pk_lock_type_name(uint32_t flags);

typedef struct pk_lock_opts {
	size_t size;                 /* sizeof(pk_lock_opts), set by _init */
	pk_lock_key sort;            /* -k (default wait_total) */
	unsigned max_stack;          /* --max-stack (8) */
	unsigned stack_skip;         /* --stack-skip (3) */
	bool force;                  /* -f */
	pk_session_msg_fn msg_fn;    /* the session's messages; NULL: dropped */
	void *msg_arg;
} pk_lock_opts;
void pk_lock_opts_init(pk_lock_opts *o);

typedef struct pk_lock_stat {
	char name[128];              /* the caller, perf's 127 bytes at most */
	uint64_t key;                /* the caller's hash */
	uint32_t flags;              /* its first contention_begin's */
	bool broken;                 /* a broken sequence was seen */
	uint64_t nr_contended, nr_acquired;
	uint64_t wait_total, wait_max, wait_min, avg_wait; /* ns; min UINT64_MAX: none */
} pk_lock_stat;

/* Broken sequences per event kind, perf's bad_hist. */
enum { PK_LOCK_BAD_ACQUIRE, PK_LOCK_BAD_ACQUIRED, PK_LOCK_BAD_CONTENDED,
       PK_LOCK_BAD_RELEASE, PK_LOCK_NR_BAD };

typedef struct pk_lock_result {
	pk_lock_stat *stats;         /* sorted as perf prints them */
	size_t nr;
	uint64_t bad[PK_LOCK_NR_BAD];
	uint64_t nr_samples;         /* contention samples taken */
} pk_lock_result;

/* Reads input (NULL: perf.data) and fills *out (pk_lock_result_release
 * empties it). Errors as perf 6.1 says them, -EINVAL: a file without
 * tracepoint events ("No trace sample to read. Did you call 'perf lock
 * record'?"), without lock:contention_begin ("lock contention evsel not
 * found"); the reader's and session's errors as theirs. */
int pk_lock_contention(const char *input, const pk_lock_opts *o, pk_lock_result *out,
		       pk_error *err);
void pk_lock_result_release(pk_lock_result *r);
/* The value of key k of a stat. */
uint64_t pk_lock_stat_value(const pk_lock_stat *st, pk_lock_key k);

#ifdef __cplusplus
}
#endif
#endif
