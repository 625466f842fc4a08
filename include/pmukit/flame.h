/* pmukit: flame graph data from a perf.data's samples, the engine of
 * `pmukit script report flamegraph` and `... report stackcollapse` (what
 * perf 6.1's flamegraph.py and stackcollapse.py make of perf script's
 * samples). The printing (and the HTML page) stays with the caller.
 *
 * A pk_flame takes the samples of a pk_session one by one (pk_flame_sample,
 * from the session's sample callback): each sample's call chain is resolved
 * as `pmukit script` resolves it (pk_script_chain_gather, at most max_stack
 * entries, inlined functions of --call-graph dwarf by their names), and the
 * distinct stacks are kept with their counts in first-seen order: (comm,
 * pid, tid, frames from the leaf to the root, each a symbol name or
 * "[unknown]" with whether its dso is [kernel.kallsyms] or a vmlinux). A
 * sample without a chain has no frame (perf's python dict then holds an
 * empty "callchain" list).
 *
 * Both outputs are made from that list at the end, as text the caller frees:
 * - pk_flame_json: perf's flamegraph.py JSON, python's json.dumps of the
 *   tree {"n": name, "l": libtype, "v": samples ending here, "c": children}
 *   under {"n": "all", "l": "root"}; level 1 "comm (pid)" (libtype "") or
 *   the comm alone for pid 0 (libtype "kernel"); then the frames from the
 *   root, children matched by name in first-seen order, libtype "kernel"
 *   for [kernel.kallsyms] or a path ending in /vmlinux. Non-ASCII as \uXXXX
 *   (a byte that is not UTF-8 as \u00XX, where perf's python fails).
 * - pk_flame_folded: stackcollapse.py's lines "comm;root;...;leaf COUNT",
 *   sorted by code point (byte order of UTF-8), ';' in a name as ':',
 *   spaces in the comm as '_', with PK_FOLD_* options.
 *
 * Frame names holding the bytes 0x1e or 0x1f are cut there (they separate
 * a stack's parts in the table). */
#ifndef PMUKIT_FLAME_H
#define PMUKIT_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <pmukit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_flame pk_flame;

/* An empty table; max_stack: the chain entries read (0: none, as perf;
 * < 0: PK_MAX_STACK, perf script's default).
 * NULL when out of memory. */
pk_flame *pk_flame_new(int max_stack);
void pk_flame_free(pk_flame *f);
/* One sample of s: 0 or -ENOMEM. */
int pk_flame_sample(pk_flame *f, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp);
/* Samples taken so far. */
uint64_t pk_flame_nr_samples(const pk_flame *f);

/* The JSON text (no newline at the end) into *out (malloc'd, *len bytes):
 * 0 or -ENOMEM. */
int pk_flame_json(const pk_flame *f, char **out, size_t *len);

/* stackcollapse's options. */
#define PK_FOLD_TID 1u        /* --include-tid: comm-TID */
#define PK_FOLD_PID 2u        /* --include-pid: comm-PID (comm-PID/TID with both) */
#define PK_FOLD_NO_COMM 4u    /* --no-comm: no comm at the bottom */
#define PK_FOLD_TIDY_JAVA 8u  /* --tidy-java: Java signatures shortened */
#define PK_FOLD_KERNEL 16u    /* --kernel: "_[k]" after [kernel.kallsyms] frames */

/* The folded lines, each ending in '\n', into *out (malloc'd, *len
 * bytes): 0 or -ENOMEM. */
int pk_flame_folded(const pk_flame *f, unsigned flags, char **out, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
