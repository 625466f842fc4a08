/* perf stat's --per-core, --per-die, --per-socket, --per-node: per-CPU rows
 * folded into perf 6.1's topology buckets (pk_stat_rows_per, stat.h).
 *
 * The counts are collected per CPU (PK_AGGR_CPU) and summed here, per
 * bucket and event; a bucket is the CPU's (socket, die, core) from the
 * kernel's topology (devices/system/cpu/cpuN/topology) or its NUMA node
 * (devices/system/node/nodeN/cpulist).
 *
 * Invariants: the folded rows are bucket-major, buckets in perf's order
 * (socket, die, then core or node ascending), events in list order inside
 * a bucket; a row's key is its bucket's index (so the metrics engine pairs
 * counts of one bucket only) and nr_cpus the CPUs summed into it. */
#include <pmukit/kernel.h>
#include <pmukit/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A CPU's bucket: socket, die, core or node (-1 for what the mode ignores). */
typedef struct bucket {
	int socket, die, id;
} bucket;

static int node_of(const pk_kernel *k, int cpu)
{
	pk_cpumap *nodes = NULL;
	int found = -1;
	if (!k->ops->host.nodes || !k->ops->host.node || k->ops->host.nodes(k, &nodes) < 0)
		return 0; /* no NUMA information: one node, as perf */
	for (int i = 0; i < pk_cpumap_nr(nodes) && found < 0; i++) {
		pk_host_node n = {0};
		int node = pk_cpumap_cpu(nodes, i);
		if (k->ops->host.node(k, node, &n) == 0 && pk_cpumap_idx(n.cpus, cpu) >= 0)
			found = node;
		pk_cpumap_put(n.cpus);
	}
	pk_cpumap_put(nodes);
	return found < 0 ? 0 : found;
}

static bucket bucket_of(const pk_kernel *k, pk_stat_per per, int cpu)
{
	if (per == PK_STAT_PER_NODE)
		return (bucket){-1, -1, node_of(k, cpu)};
	pk_cpu_topology t = {.core_id = -1, .package_id = -1, .die_id = -1};
	if (k->ops->host.topology)
		k->ops->host.topology(k, cpu, &t);
	pk_cpu_topology_release(&t);
	/* a kernel without die_id has one die per socket (perf reads 0) */
	bucket b = {t.package_id, t.die_id < 0 ? 0 : t.die_id, t.core_id};
	if (per != PK_STAT_PER_CORE)
		b.id = -1;
	if (per == PK_STAT_PER_SOCKET)
		b.die = -1;
	return b;
}

static int cmp_bucket(const bucket *a, const bucket *b)
{
	if (a->socket != b->socket)
		return a->socket < b->socket ? -1 : 1;
	if (a->die != b->die)
		return a->die < b->die ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int by_bucket(const void *a, const void *b)
{
	return cmp_bucket(a, b);
}

/* The distinct buckets of the rows' CPUs, sorted; (*row_bucket)[i] the
 * bucket index of row i. */
static int buckets(const pk_stat_rows *rows, pk_stat_per per, const pk_kernel *k, bucket **out,
		   size_t *nr, size_t **row_bucket)
{
	bucket *of = calloc(rows->nr ? rows->nr : 1, sizeof(*of));
	bucket *v = calloc(rows->nr ? rows->nr : 1, sizeof(*v));
	size_t *rb = calloc(rows->nr ? rows->nr : 1, sizeof(*rb));
	if (!of || !v || !rb) {
		free(of);
		free(v);
		free(rb);
		return -ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < rows->nr; i++) {
		bool again = i > 0 && rows->v[i - 1].key == rows->v[i].key;
		of[i] = again ? of[i - 1] : bucket_of(k, per, rows->v[i].key);
		size_t j = 0;
		while (j < n && cmp_bucket(&v[j], &of[i]))
			j++;
		if (j == n)
			v[n++] = of[i];
	}
	qsort(v, n, sizeof(*v), by_bucket);
	for (size_t i = 0; i < rows->nr; i++)
		for (size_t j = 0; j < n; j++)
			if (!cmp_bucket(&v[j], &of[i]))
				rb[i] = j;
	free(of);
	*out = v;
	*nr = n;
	*row_bucket = rb;
	return 0;
}

/* Row i added into bucket row a (the first CPU's row starts it). */
static void add_row(pk_stat_row *a, const pk_stat_row *r, bool first)
{
	if (first) {
		int key = a->key;
		*a = *r;
		a->key = key;
		a->nr_cpus = 1;
		return;
	}
	a->counts.val += r->counts.val;
	a->counts.ena += r->counts.ena;
	a->counts.run += r->counts.run;
	a->nr_cpus++;
	if (a->status != PK_OPEN_OK && r->status == PK_OPEN_OK)
		a->status = r->status; /* counted on some CPU of the bucket */
}

int pk_stat_rows_per(pk_stat_rows *rows, pk_stat_per per, const pk_kernel *k)
{
	bucket *b;
	size_t nb, *rb;
	if (per == PK_STAT_PER_NONE)
		return 0;
	if (buckets(rows, per, k ? k : pk_kernel_linux(), &b, &nb, &rb) < 0)
		return -ENOMEM;
	/* the events in list order: the evsel of each run of rows */
	size_t nev = 0;
	for (size_t i = 0; i < rows->nr; i++)
		nev += i == 0 || rows->v[i].evsel != rows->v[i - 1].evsel;
	size_t cells = nb * nev > 0 ? nb * nev : 1;
	pk_stat_row *v = calloc(cells, sizeof(*v));
	bool *started = calloc(cells, sizeof(*started));
	if (!v || !started) {
		free(v);
		free(started);
		free(b);
		free(rb);
		return -ENOMEM;
	}
	for (size_t i = 0, e = 0; i < rows->nr; i++) {
		if (i > 0 && rows->v[i].evsel != rows->v[i - 1].evsel)
			e++;
		pk_stat_row *a = &v[rb[i] * nev + e];
		a->key = (int)rb[i];
		add_row(a, &rows->v[i], !started[rb[i] * nev + e]);
		started[rb[i] * nev + e] = true;
		a->socket = b[rb[i]].socket;
		a->die = b[rb[i]].die;
		a->id = b[rb[i]].id;
	}
	/* an event not counted on any CPU of a bucket (another core type's)
	 * has no row there */
	size_t n = 0;
	for (size_t j = 0; j < nb * nev; j++)
		if (started[j])
			v[n++] = v[j];
	free(started);
	free(b);
	free(rb);
	free(rows->v);
	rows->v = v;
	rows->nr = n;
	return 0;
}
