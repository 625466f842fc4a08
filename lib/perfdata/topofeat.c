/* The NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY and HYBRID_TOPOLOGY features of perf.data decoded
 * (perfdata.h: pk_pd_numa_nodes, pk_pd_caches, pk_pd_mem_nodes,
 * pk_pd_hybrid_nodes), what perf
 * report --header -I prints. Layouts (perf's writer): NUMA_TOPOLOGY u32
 * nr, then per node u32 node, u64 total and free memory (kB), string cpus;
 * CACHE u32 version, u32 nr, then per cache u32 level, line size, sets,
 * ways, string type, size, map; MEM_TOPOLOGY u64 version, block size, nr,
 * then per node u64 node, u64 size, and a bitmap (u64 bits, then its u64
 * words); HYBRID_TOPOLOGY u32 nr, then per core type string PMU, string
 * cpus. A string is u32 len, then len bytes ending in NUL. Bounds-checked:
 * a damaged entry ends the list there. Native byte order only (none in a
 * byte-swapped file). Strings and bitmaps point into the feature's data,
 * valid until the reader is closed. */
#include "pd_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

typedef struct cursor {
	const uint8_t *p, *end;
} cursor;

static bool get(cursor *c, void *v, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	memcpy(v, c->p, n);
	c->p += n;
	return true;
}

static bool get_str(cursor *c, const char **s)
{
	uint32_t len;
	if (!get(c, &len, 4) || (size_t)(c->end - c->p) < len || !len || c->p[len - 1])
		return false;
	*s = (const char *)c->p;
	c->p += len;
	return true;
}

/* x appended to the list *(T **)out of *nr entries of size bytes: 0 or -ENOMEM. */
static int push(void *out, size_t *cap, size_t *nr, const void *x, size_t size)
{
	if (pki_grow(out, cap, *nr + 1, size) < 0)
		return -ENOMEM;
	memcpy(*(char **)out + *nr * size, x, size);
	(*nr)++;
	return 0;
}

/* The feature's data; false for none (or a byte-swapped file). */
static bool open_feat(pk_pd_reader *r, int feat, cursor *c)
{
	size_t len;
	if (pk_pd_needs_swap(r) || pk_pd_feature_raw(r, feat, &c->p, &len, NULL) < 0)
		return false;
	c->end = c->p + len;
	return true;
}

int pk_pd_numa_nodes(pk_pd_reader *r, pk_pd_numa_node **out, size_t *nr)
{
	cursor c;
	uint32_t n;
	size_t cap = 0;
	*out = NULL;
	*nr = 0;
	if (!open_feat(r, PK_FEAT_NUMA_TOPOLOGY, &c) || !get(&c, &n, 4))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		pk_pd_numa_node x;
		if (!get(&c, &x.node, 4) || !get(&c, &x.mem_total, 8) || !get(&c, &x.mem_free, 8) ||
		    !get_str(&c, &x.cpus))
			break;
		if (push(out, &cap, nr, &x, sizeof(x)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int pk_pd_caches(pk_pd_reader *r, pk_pd_cache **out, size_t *nr)
{
	cursor c;
	uint32_t version, n;
	size_t cap = 0;
	*out = NULL;
	*nr = 0;
	if (!open_feat(r, PK_FEAT_CACHE, &c) || !get(&c, &version, 4) || version != 1 ||
	    !get(&c, &n, 4))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		pk_pd_cache x;
		if (!get(&c, &x.level, 4) || !get(&c, &x.line_size, 4) || !get(&c, &x.sets, 4) ||
		    !get(&c, &x.ways, 4) || !get_str(&c, &x.type) || !get_str(&c, &x.size) ||
		    !get_str(&c, &x.map))
			break;
		if (push(out, &cap, nr, &x, sizeof(x)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int pk_pd_mem_nodes(pk_pd_reader *r, uint64_t *block_size, pk_pd_mem_node **out, size_t *nr)
{
	cursor c;
	uint64_t version, n;
	size_t cap = 0;
	*out = NULL;
	*nr = 0;
	*block_size = 0;
	if (!open_feat(r, PK_FEAT_MEM_TOPOLOGY, &c) || !get(&c, &version, 8) ||
	    !get(&c, block_size, 8) || !get(&c, &n, 8))
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		pk_pd_mem_node x;
		if (!get(&c, &x.node, 8) || !get(&c, &x.size, 8) || !get(&c, &x.nr_bits, 8))
			break;
		size_t words = (size_t)((x.nr_bits + 63) / 64);
		if (x.nr_bits > (uint64_t)(c.end - c.p) * 8 || (size_t)(c.end - c.p) < words * 8)
			break;
		x.bits = c.p;
		c.p += words * 8;
		if (push(out, &cap, nr, &x, sizeof(x)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int pk_pd_hybrid_nodes(pk_pd_reader *r, pk_pd_hybrid_node **out, size_t *nr)
{
	cursor c;
	uint32_t n;
	size_t cap = 0;
	*out = NULL;
	*nr = 0;
	if (!open_feat(r, PK_FEAT_HYBRID_TOPOLOGY, &c) || !get(&c, &n, 4))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		pk_pd_hybrid_node x;
		if (!get_str(&c, &x.pmu) || !get_str(&c, &x.cpus))
			break;
		if (push(out, &cap, nr, &x, sizeof(x)) < 0)
			return -ENOMEM;
	}
	return 0;
}

bool pk_pd_mem_node_bit(const pk_pd_mem_node *n, uint64_t bit)
{
	uint64_t w;
	if (bit >= n->nr_bits)
		return false;
	memcpy(&w, n->bits + bit / 64 * 8, 8);
	return (w >> (bit % 64)) & 1;
}
