/* The header features perf record writes about memory and caches:
 * NUMA_TOPOLOGY (each online node's memory and CPUs), CACHE (the distinct
 * caches of the CPUs, by level) and MEM_TOPOLOGY (which memory blocks each
 * node holds). Every fact comes from the kernel seam's optional node, cache
 * and mem_blocks facts; a kernel without them (the PMU model, which models
 * no memory) gets no such feature, as perf leaves out one it cannot read.
 *
 * Layouts (docs/perfdata.md): NUMA `u32 nr; {u32 node; u64 total_kb;
 * u64 free_kb; string cpus}`; CACHE `u32 version 1; u32 nr; {u32 level,
 * line_size, sets, ways; string type, size, map}`, caches in first-seen
 * order (CPU by CPU, index by index) stably sorted by level; MEM_TOPOLOGY
 * `u64 version 1; u64 block_size; u64 nr; {u64 node; u64 nbits; u64 nbits;
 * u64 words[(nbits+63)/64]}` with nbits the node's highest block + 1. */
#include "record/rec_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static int set_buf(pk_pd_writer *w, int feat, pk_pd_buf *b, pk_error *err)
{
	int rc = b->oom ? pk_err(err, -ENOMEM, "out of memory")
			: pk_pd_writer_set_feature(w, feat, b->data, b->len, err);
	pk_pd_buf_release(b);
	return rc;
}

static int add_numa(pk_pd_writer *w, const pk_kernel *k, const pk_cpumap *nodes, pk_error *err)
{
	pk_pd_buf b = {0};
	pk_pd_buf_u32(&b, (uint32_t)pk_cpumap_nr(nodes));
	for (int i = 0; i < pk_cpumap_nr(nodes); i++) {
		pk_host_node n = {0};
		int node = pk_cpumap_cpu(nodes, i);
		if (k->ops->host.node(k, node, &n) < 0 || !n.cpus) {
			pk_cpumap_put(n.cpus);
			pk_pd_buf_release(&b);
			return 0; /* a node without its facts: no feature, as perf */
		}
		pk_pd_buf_u32(&b, (uint32_t)node);
		pk_pd_buf_u64(&b, n.mem_total_kb);
		pk_pd_buf_u64(&b, n.mem_free_kb);
		pki_rec_buf_cpulist(&b, n.cpus);
		pk_cpumap_put(n.cpus);
	}
	return set_buf(w, PK_FEAT_NUMA_TOPOLOGY, &b, err);
}

/* The memory blocks of one node as a bitmap. */
typedef struct blocks {
	uint64_t *words;
	uint64_t nbits;
	int err;
} blocks;

static int block_add(void *arg, uint64_t idx)
{
	blocks *bl = arg;
	if (idx >= 1u << 24)
		return bl->err = -ERANGE; /* 2^24 blocks: far past any machine */
	size_t need = (size_t)(idx / 64 + 1), have = (size_t)((bl->nbits + 63) / 64);
	if (need > have) {
		uint64_t *nw = realloc(bl->words, need * sizeof(uint64_t));
		if (!nw)
			return bl->err = -ENOMEM;
		memset(nw + have, 0, (need - have) * sizeof(uint64_t));
		bl->words = nw;
	}
	if (idx + 1 > bl->nbits)
		bl->nbits = idx + 1;
	bl->words[idx / 64] |= 1ull << (idx % 64);
	return 0;
}

static int add_mem_topology(pk_pd_writer *w, const pk_kernel *k, const pk_cpumap *nodes,
			    pk_error *err)
{
	pk_pd_buf b = {0};
	uint64_t block_size = 0;
	int rc = 0;
	for (int i = 0; i < pk_cpumap_nr(nodes) && rc == 0; i++) {
		blocks bl = {0};
		int node = pk_cpumap_cpu(nodes, i);
		rc = k->ops->host.mem_blocks(k, node, &block_size, block_add, &bl);
		if (rc == 0 && i == 0) {
			pk_pd_buf_u64(&b, 1);
			pk_pd_buf_u64(&b, block_size);
			pk_pd_buf_u64(&b, (uint64_t)pk_cpumap_nr(nodes));
		}
		pk_pd_buf_u64(&b, (uint64_t)node);
		pk_pd_buf_u64(&b, bl.nbits);
		pk_pd_buf_u64(&b, bl.nbits);
		pk_pd_buf_bytes(&b, bl.words, (size_t)((bl.nbits + 63) / 64) * sizeof(uint64_t));
		free(bl.words);
	}
	if (rc < 0) {
		pk_pd_buf_release(&b);
		return rc == -ENOMEM ? pk_err(err, rc, "out of memory") : 0;
	}
	return set_buf(w, PK_FEAT_MEM_TOPOLOGY, &b, err);
}

/* ---- CACHE ---- */

typedef struct caches {
	pk_host_cache *v;
	size_t nr, cap;
} caches;

static bool cache_equal(const pk_host_cache *a, const pk_host_cache *b)
{
	return a->level == b->level && a->line_size == b->line_size && a->sets == b->sets &&
	       a->ways == b->ways && !strcmp(a->type, b->type) && !strcmp(a->size, b->size) &&
	       pk_cpumap_equal(a->cpus, b->cpus);
}

/* Keeps c unless an equal cache is known (then c's map is dropped). */
static int cache_keep(caches *cs, pk_host_cache *c)
{
	for (size_t i = 0; i < cs->nr; i++)
		if (cache_equal(&cs->v[i], c)) {
			pk_cpumap_put(c->cpus);
			return 0;
		}
	if (pki_grow(&cs->v, &cs->cap, cs->nr + 1, sizeof(*cs->v)) < 0) {
		pk_cpumap_put(c->cpus);
		return -ENOMEM;
	}
	cs->v[cs->nr++] = *c;
	return 0;
}

/* perf's CACHE levels: index0..index3 of each CPU. */
#define CACHE_INDEXES 4

static int add_cache(pk_pd_writer *w, const pk_kernel *k, int nr_avail, pk_error *err)
{
	caches cs = {0};
	int rc = 0;
	for (int cpu = 0; cpu < nr_avail && rc == 0; cpu++)
		for (int idx = 0; idx < CACHE_INDEXES && rc == 0; idx++) {
			pk_host_cache c = {0};
			if (k->ops->host.cache(k, cpu, idx, &c) < 0)
				break;
			if (c.level > 16 || !c.cpus) { /* no such level, no CPUs: not a cache */
				pk_cpumap_put(c.cpus);
				continue;
			}
			rc = cache_keep(&cs, &c);
		}
	pk_pd_buf b = {0};
	if (rc == 0 && cs.nr) {
		pk_pd_buf_u32(&b, 1);
		pk_pd_buf_u32(&b, (uint32_t)cs.nr);
		/* by level, first-seen order kept within a level */
		for (uint32_t lvl = 0, done = 0; done < cs.nr; lvl++)
			for (size_t i = 0; i < cs.nr; i++) {
				const pk_host_cache *c = &cs.v[i];
				if (c->level != lvl)
					continue;
				done++;
				pk_pd_buf_u32(&b, c->level);
				pk_pd_buf_u32(&b, c->line_size);
				pk_pd_buf_u32(&b, c->sets);
				pk_pd_buf_u32(&b, c->ways);
				pk_pd_buf_string(&b, c->type);
				pk_pd_buf_string(&b, c->size);
				pki_rec_buf_cpulist(&b, c->cpus);
			}
	}
	for (size_t i = 0; i < cs.nr; i++)
		pk_cpumap_put(cs.v[i].cpus);
	free(cs.v);
	if (rc < 0) {
		pk_pd_buf_release(&b);
		return pk_err(err, rc, "out of memory");
	}
	return b.len ? set_buf(w, PK_FEAT_CACHE, &b, err) : 0;
}

int pki_rec_mem_features(pk_pd_writer *w, const pk_kernel *k, int nr_avail, pk_error *err)
{
	const pk_host_ops *h = &k->ops->host;
	int rc = 0;
	if (h->cache && nr_avail > 0)
		rc = add_cache(w, k, nr_avail, err);
	pk_cpumap *nodes = NULL;
	if (rc < 0 || !h->nodes || h->nodes(k, &nodes) < 0 || !pk_cpumap_nr(nodes)) {
		pk_cpumap_put(nodes);
		return rc;
	}
	if (h->node)
		rc = add_numa(w, k, nodes, err);
	if (rc == 0 && h->mem_blocks)
		rc = add_mem_topology(w, k, nodes, err);
	pk_cpumap_put(nodes);
	return rc;
}
