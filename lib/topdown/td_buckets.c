/* TopDown per bucket of perf stat's rows (topdown.h): which buckets the
 * TopDown events have (-A's CPUs, --per-thread's threads, or the one
 * aggregated bucket) and every block computed for one of them, kept for
 * --plot when aggregated.
 *
 * Invariants: buckets come in the rows' order of appearance, each once;
 * rows of events that are not TopDown's make no bucket; a block's node
 * count is clamped to the caller's capacity. */
#include <pmukit/stat.h>
#include <pmukit/topdown.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int pk_topdown_buckets(const pk_topdown *td, const pk_stat_rows *rows, pk_aggr_mode aggr,
		       pk_topdown_bucket **out, size_t *nr)
{
	pk_topdown_bucket *k = calloc(rows->nr + 1, sizeof(*k));
	size_t n = 0;
	*out = k;
	*nr = 0;
	if (!k)
		return -ENOMEM;
	if (aggr == PK_AGGR_GLOBAL)
		k[n++].key = -1;
	for (size_t i = 0; aggr != PK_AGGR_GLOBAL && i < rows->nr; i++) {
		const pk_stat_row *r = &rows->v[i];
		size_t j = 0;
		while (j < n && k[j].key != r->key)
			j++;
		if (j < n || r->key < 0 || !pk_topdown_has_evsel(td, r->evsel))
			continue;
		k[n].key = r->key;
		if (aggr == PK_AGGR_CPU)
			snprintf(k[n].label, sizeof(k[n].label), "CPU%d", r->key);
		else
			snprintf(k[n].label, sizeof(k[n].label), "%s-%d", r->comm, r->key);
		n++;
	}
	*nr = n;
	return 0;
}

int pk_topdown_compute_bucket(const pk_topdown *td, const pk_metric_counts *in, int key,
			      pk_topdown_node *v, size_t cap, size_t *n, size_t max_blocks,
			      pk_topdown_series *series, double t_ns)
{
	size_t nb = pk_topdown_nr_blocks(td);
	for (size_t b = 0; b < nb && b < max_blocks; b++) {
		n[b] = pk_topdown_compute(td, b, in, key, v + b * cap, cap);
		n[b] = n[b] > cap ? cap : n[b];
		int r = key < 0 && series ? pk_topdown_series_add(series, t_ns, b, v + b * cap, n[b])
					  : 0;
		if (r < 0)
			return r;
	}
	return 0;
}
