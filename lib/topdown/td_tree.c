/* Decisions over one block's computed nodes (topdown.h): toplev's
 * bottleneck path, its drill-down, the node whose "Sample with" events to
 * record, and how much of the block was multiplexed. Pure functions of the
 * nodes as pk_topdown_compute returns them (depth first, parents named);
 * the printing is the caller's.
 *
 * Invariants: the path goes only through crossed, computable nodes, from
 * Level 1 down, the largest at each level; the drill-down shows Level 1
 * always and a child only below a shown parent that crossed its threshold
 * (or has none). */
#include <pmukit/topdown.h>

#include <string.h>

long pk_topdown_find(const pk_topdown_node *v, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(v[i].name, name))
			return (long)i;
	return -1;
}

/* The index of the largest crossed node with this parent (NULL: Level 1),
 * or -1. */
static long dominant(const pk_topdown_node *v, size_t n, const char *parent)
{
	long best = -1;
	for (size_t i = 0; i < n; i++) {
		bool same = parent ? v[i].parent && !strcmp(v[i].parent, parent) : !v[i].parent;
		if (same && v[i].computable && v[i].over_threshold &&
		    (best < 0 || v[i].value > v[best].value))
			best = (long)i;
	}
	return best;
}

long pk_topdown_bottleneck(const pk_topdown_node *v, size_t n, bool *path)
{
	long at = dominant(v, n, NULL), last = -1;
	while (at >= 0) {
		path[at] = true;
		last = at;
		at = dominant(v, n, v[at].name);
	}
	return last;
}

size_t pk_topdown_drill_down(const pk_topdown_node *v, size_t n, bool all, bool *show)
{
	size_t hidden = 0;
	for (size_t i = 0; i < n; i++) {
		long p = pk_topdown_find(v, n, v[i].parent);
		show[i] = all || p < 0 || (show[p] && (v[p].over_threshold || !v[p].has_threshold));
		hidden += !show[i];
	}
	return hidden;
}

long pk_topdown_sample_node(const pk_topdown_node *v, size_t n, long at)
{
	while (at >= 0 && !v[at].sample)
		at = pk_topdown_find(v, n, v[at].parent);
	return at;
}

void pk_topdown_mux_summary(const pk_topdown_node *v, size_t n, pk_topdown_mux *out)
{
	*out = (pk_topdown_mux){.least = 1};
	for (size_t i = 0; i < n; i++) {
		if (v[i].computable && v[i].running < 0.9995) {
			out->multiplexed++;
			out->least = v[i].running < out->least ? v[i].running : out->least;
		}
		out->split += !v[i].grouped;
		out->computable += v[i].computable;
	}
}
