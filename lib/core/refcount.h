/* The one reference count of the library's shared objects (pk_cpumap,
 * pk_pmus, pk_evlist, pk_threadmap, the symbol tables' map groups): C11
 * atomics, so threads may take and drop references to one object at the
 * same time (a pk_pmus shared by evlists built on several threads).
 *
 * Invariants: a count starts at 1 (pki_ref_init, the creator's reference);
 * pki_ref_get only on an object the caller holds a reference to;
 * pki_ref_put is true for the caller that dropped the last reference, who
 * alone then frees the object. Only the count is atomic: an object shared
 * across threads is immutable, or guarded by its owner. An object that
 * points into another holds a reference to it (an evsel to its pk_pmus and
 * CPU map, a pk_counting to its evlist, CPU and thread maps). */
#ifndef PK_CORE_REFCOUNT_H
#define PK_CORE_REFCOUNT_H

#include <stdatomic.h>
#include <stdbool.h>

typedef struct pki_ref {
	atomic_int n;
} pki_ref;

static inline void pki_ref_init(pki_ref *r)
{
	atomic_init(&r->n, 1);
}

static inline void pki_ref_get(pki_ref *r)
{
	atomic_fetch_add_explicit(&r->n, 1, memory_order_relaxed);
}

/* True when this was the last reference: the object may be freed. The
 * release/acquire pair orders every use of the object before its free. */
static inline bool pki_ref_put(pki_ref *r)
{
	if (atomic_fetch_sub_explicit(&r->n, 1, memory_order_release) != 1)
		return false;
	atomic_thread_fence(memory_order_acquire);
	return true;
}

#endif
