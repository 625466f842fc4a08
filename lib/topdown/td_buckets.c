/* TopDown per bucket of perf stat's rows (topdown.h): which buckets the
 * TopDown events have (-A's CPUs, --per-thread's threads, or the one
 * aggregated bucket) and every block computed for one of them, kept for
 * --plot when aggregated; and a block of the kept series as a table of
 * shares per interval (what --plot draws).
 *
 * Invariants: buckets come in the rows' order of appearance, each once;
 * rows of events that are not TopDown's make no bucket; a block's node
 * count is clamped to the caller's capacity. Every reading of a block
 * lists its nodes in the same order (pk_topdown_compute's), so a node is
 * its position in a reading; a share is the node's value / 100 clamped to
 * 0..1, 0 when not computable. */
#include <pmukit/stat.h>
#include <pmukit/topdown.h>

#include <errno.h>
#include <math.h>
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

/* The block's interval times and nodes (first pass). */
static int table_times(const pk_topdown_series *s, size_t b, size_t max_nodes,
		       pk_topdown_table *t)
{
	t->times = calloc(s->nr ? s->nr : 1, sizeof(*t->times));
	t->node = calloc(max_nodes ? max_nodes : 1, sizeof(*t->node));
	if (!t->times || !t->node)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr; i++) {
		const pk_topdown_sample *x = &s->v[i];
		if (x->block != b || x->t_ns < 0)
			continue;
		if (t->nt == 0 || x->t_ns / 1e9 != t->times[t->nt - 1])
			t->times[t->nt++] = x->t_ns / 1e9;
		if (t->nt == 1 && t->nn < max_nodes)
			t->node[t->nn++] = &x->node;
	}
	return 0;
}

static double share_of(const pk_topdown_node *n)
{
	if (!n->computable || !isfinite(n->value))
		return 0;
	double v = n->value / 100;
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

int pk_topdown_series_table(const pk_topdown_series *s, size_t b, size_t max_nodes,
			    pk_topdown_table *t)
{
	*t = (pk_topdown_table){0};
	if (table_times(s, b, max_nodes, t) < 0 ||
	    !(t->shares = calloc(t->nn * t->nt + 1, sizeof(*t->shares)))) {
		pk_topdown_table_release(t);
		return -ENOMEM;
	}
	size_t ti = 0, k = 0;
	double last = -1;
	for (size_t i = 0; i < s->nr; i++) {
		const pk_topdown_sample *x = &s->v[i];
		if (x->block != b || x->t_ns < 0)
			continue;
		if (last >= 0 && x->t_ns != last) {
			ti++;
			k = 0;
		}
		last = x->t_ns;
		if (ti < t->nt && k < t->nn)
			t->shares[k * t->nt + ti] = share_of(&x->node);
		k++;
	}
	return 0;
}

void pk_topdown_table_release(pk_topdown_table *t)
{
	free(t->times);
	free(t->node);
	free(t->shares);
	*t = (pk_topdown_table){0};
}
