/* pmukit CLI: the header features perf prints only with -I/--show-info
 * (perf 6.1's layout): CPU_TOPOLOGY's siblings and each CPU's ids,
 * NUMA_TOPOLOGY's nodes, CACHE's levels, MEM_TOPOLOGY's nodes,
 * HYBRID_TOPOLOGY's core types; decoded by
 * lib/perfdata (pk_pd_header, pk_pd_numa_nodes, pk_pd_caches,
 * pk_pd_mem_nodes), printed here. */
#include "pd_header.h"

#include <inttypes.h>
#include <stdlib.h>

static void print_list(FILE *f, const char *what, char **v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "# %s : %s\n", what, v[i]);
}

static void print_cpu_topology(const pk_pd_header *h, FILE *f)
{
	bool dies = h->nr_die_siblings > 0;
	print_list(f, "sibling sockets", h->core_siblings, h->nr_core_siblings);
	print_list(f, "sibling dies   ", h->die_siblings, h->nr_die_siblings);
	print_list(f, "sibling threads", h->thread_siblings, h->nr_thread_siblings);
	if (!h->nr_cpu_topo) {
		fprintf(f, "# Core ID%s and Socket ID information is not available\n",
			dies ? ", Die ID" : "");
		return;
	}
	for (uint32_t i = 0; i < h->nr_cpu_topo; i++) {
		fprintf(f, "# CPU %u: Core ID %d, ", i, (int)h->cpu_topo[i].core_id);
		if (dies)
			fprintf(f, "Die ID %d, ", (int)h->cpu_topo[i].die_id);
		fprintf(f, "Socket ID %d\n", (int)h->cpu_topo[i].socket_id);
	}
}

static void print_numa(pk_pd_reader *r, FILE *f)
{
	pk_pd_numa_node *n;
	size_t nr;
	if (pk_pd_numa_nodes(r, &n, &nr) < 0)
		return;
	for (size_t i = 0; i < nr; i++) {
		fprintf(f, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n",
			n[i].node, n[i].mem_total, n[i].mem_free);
		fprintf(f, "# node%u cpu list : %s\n", n[i].node, n[i].cpus);
	}
	free(n);
}

static void print_caches(pk_pd_reader *r, FILE *f)
{
	pk_pd_cache *c;
	size_t nr;
	if (pk_pd_caches(r, &c, &nr) < 0)
		return;
	fprintf(f, "# CPU cache info:\n");
	for (size_t i = 0; i < nr; i++)
		fprintf(f, "#  L%u %-15s %8s [%s]\n", c[i].level, c[i].type, c[i].size, c[i].map);
	free(c);
}

/* A memory node: its size (perf's unit: the blocks set times the block
 * size, in B, K, M, G, ... while 1024 or more) and its blocks as ranges. */
static void print_mem_node(const pk_pd_mem_node *n, uint64_t bsize, FILE *f)
{
	uint64_t set = 0;
	for (uint64_t b = 0; b < n->nr_bits; b++)
		set += pk_pd_mem_node_bit(n, b);
	uint64_t size = bsize * set;
	int u = 0;
	while (size >= 1024 && u < 6) {
		size /= 1024;
		u++;
	}
	fprintf(f, "#  %3" PRIu64 " [%" PRIu64 "%c]: ", n->node, size, "BKMGTPE"[u]);
	bool first = true;
	for (uint64_t b = 0; b < n->nr_bits; b++) {
		if (!pk_pd_mem_node_bit(n, b))
			continue;
		uint64_t e = b;
		while (e + 1 < n->nr_bits && pk_pd_mem_node_bit(n, e + 1))
			e++;
		fprintf(f, "%s%" PRIu64, first ? "" : ",", b);
		if (e > b)
			fprintf(f, "-%" PRIu64, e);
		first = false;
		b = e;
	}
	fprintf(f, "\n");
}

static void print_mem(pk_pd_reader *r, FILE *f)
{
	pk_pd_mem_node *n;
	size_t nr;
	uint64_t bsize;
	if (pk_pd_mem_nodes(r, &bsize, &n, &nr) < 0)
		return;
	fprintf(f, "# memory nodes (nr %zu, block size 0x%" PRIx64 "):\n", nr, bsize);
	for (size_t i = 0; i < nr; i++)
		print_mem_node(&n[i], bsize, f);
	free(n);
}

static void print_hybrid(pk_pd_reader *r, FILE *f)
{
	pk_pd_hybrid_node *n;
	size_t nr;
	if (pk_pd_hybrid_nodes(r, &n, &nr) < 0)
		return;
	fprintf(f, "# hybrid cpu system:\n");
	for (size_t i = 0; i < nr; i++)
		fprintf(f, "# %s cpu list : %s\n", n[i].pmu, n[i].cpus);
	free(n);
}

bool pd_header_info_print(pk_pd_reader *r, const pk_pd_header *h, int feat, FILE *f)
{
	switch (feat) {
	case PK_FEAT_CPU_TOPOLOGY: print_cpu_topology(h, f); return true;
	case PK_FEAT_NUMA_TOPOLOGY: print_numa(r, f); return true;
	case PK_FEAT_CACHE: print_caches(r, f); return true;
	case PK_FEAT_MEM_TOPOLOGY: print_mem(r, f); return true;
	case PK_FEAT_HYBRID_TOPOLOGY: print_hybrid(r, f); return true;
	default: return false;
	}
}
