/* One string-keyed hash table for the library and the CLI: open addressing
 * with linear probing, FNV-1a (pki_fnv1a) as the hash, doubled when half
 * full. It replaces the private chained tables each module kept.
 *
 * Invariants: the table owns a copy of every key (a stored key's address
 * stays valid until pki_strmap_free, so a key doubles as an interned
 * string); values are the caller's pointers; nothing is ever removed; the
 * order of pki_strmap_each is unspecified. A zeroed struct is an empty
 * table. Not thread-safe. */
#ifndef PKI_CORE_STRMAP_H
#define PKI_CORE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct pki_strmap_slot {
	char *key;      /* NULL: free */
	uint64_t hash;
	void *val;
} pki_strmap_slot;

typedef struct pki_strmap {
	pki_strmap_slot *slot;
	size_t nr, cap; /* cap: 0 or a power of two */
} pki_strmap;

/* The slot of key, added with a NULL value when absent; NULL when out of
 * memory. The slot is valid until the next pki_strmap_put. */
pki_strmap_slot *pki_strmap_put(pki_strmap *m, const char *key);

/* The value of key; NULL when absent. */
void *pki_strmap_get(const pki_strmap *m, const char *key);

/* The table's copy of s (added when absent); NULL when out of memory. */
const char *pki_strmap_intern(pki_strmap *m, const char *s);

/* Calls fn on every non-NULL value (fn may be NULL), frees the keys and the table;
 * leaves an empty table. */
void pki_strmap_free(pki_strmap *m, void (*fn)(void *val));

#endif
