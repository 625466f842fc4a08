/* The string-keyed hash table of strmap.h: linear probing over a power of
 * two slots, grown to keep at most half of them used. */
#include "core/strmap.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static uint64_t str_hash(const char *s)
{
	return pki_fnv1a(PKI_FNV_INIT, s, strlen(s));
}

/* The slot holding key (hash h), or the free slot where it would go. */
static pki_strmap_slot *probe(const pki_strmap *m, const char *key, uint64_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		pki_strmap_slot *s = &m->slot[i];
		if (!s->key || (s->hash == h && !strcmp(s->key, key)))
			return s;
	}
}

static int grow(pki_strmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 16;
	pki_strmap n = {calloc(cap, sizeof(pki_strmap_slot)), m->nr, cap};
	if (!n.slot)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].key)
			*probe(&n, m->slot[i].key, m->slot[i].hash) = m->slot[i];
	free(m->slot);
	*m = n;
	return 0;
}

pki_strmap_slot *pki_strmap_put(pki_strmap *m, const char *key)
{
	if (2 * (m->nr + 1) > m->cap && grow(m) < 0)
		return NULL;
	uint64_t h = str_hash(key);
	pki_strmap_slot *s = probe(m, key, h);
	if (s->key)
		return s;
	if (!(s->key = strdup(key)))
		return NULL;
	s->hash = h;
	s->val = NULL;
	m->nr++;
	return s;
}

void *pki_strmap_get(const pki_strmap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	pki_strmap_slot *s = probe(m, key, str_hash(key));
	return s->key ? s->val : NULL;
}

const char *pki_strmap_intern(pki_strmap *m, const char *s)
{
	pki_strmap_slot *e = pki_strmap_put(m, s);
	return e ? e->key : NULL;
}

void pki_strmap_free(pki_strmap *m, void (*fn)(void *val))
{
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slot[i].key && m->slot[i].val && fn)
			fn(m->slot[i].val);
		free(m->slot[i].key);
	}
	free(m->slot);
	*m = (pki_strmap){0};
}
