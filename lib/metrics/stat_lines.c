/* perf stat's metric lines of a count (metrics.h): the counting engine's
 * rows as the metrics engine sees them, and for each count what follows it
 * in perf 6.1's order: its shadow metric, the engine's further lines
 * (PK_METRIC_NEW_LINE), then the vendor metrics of stat -M, the first of
 * them in the metric's place when perf stat has none for the count.
 *
 * Invariants: a count's lines are never empty once computed (a count with
 * none gets one line without a value, unit "(null)" as perf 6.1's JSON); a
 * vendor metric without a value names no unit (""), only its name, unless
 * it says why it has none (its events cannot be counted here): its label
 * then. */
#include <pmukit/metrics.h>
#include <pmukit/util.h>

#include <errno.h>
#include <stdlib.h>

int pk_metric_counts_from_stat(const pk_stat_rows *rows, double wall_ns, pk_metric_count **out,
			       pk_metric_literal *lit, pk_metric_counts *in)
{
	pk_metric_count *v = calloc(rows->nr ? rows->nr : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < rows->nr; i++) {
		const pk_stat_row *r = &rows->v[i];
		v[i] = (pk_metric_count){.evsel = r->evsel, .key = r->key,
					 .value = pk_stat_row_value(r, rows->runs),
					 .counted = r->status == PK_OPEN_OK && r->counts.run,
					 .running = r->counts.ena ? (double)r->counts.run /
									(double)r->counts.ena : 0};
	}
	*lit = (pk_metric_literal){.name = "#wall_ns", .value = wall_ns};
	*in = (pk_metric_counts){.v = v, .nr = rows->nr, .lit = lit, .nr_lit = wall_ns > 0};
	*out = v;
	return 0;
}

static int push_line(pk_metric_lines *ml, pk_metric_line m)
{
	if (pk_grow(&ml->v, &ml->cap, ml->nr + 1, sizeof(*ml->v)) < 0)
		return -ENOMEM;
	ml->v[ml->nr++] = m;
	return 0;
}

/* Count idx's vendor metrics appended as lines: 0 or -ENOMEM. */
static int vendor_lines(pk_metric_vendor_fn vendor, const void *arg, const pk_metric_counts *in,
			size_t idx, pk_metric_lines *ml)
{
	pk_metric_group_value vm;
	int vr = 0;
	for (size_t nth = 0; vendor; nth++) {
		vr = vendor(arg, in, idx, nth, &vm);
		if (vr <= 0)
			break;
		pk_metric_line m = {.have = vm.have, .value = vm.have ? vm.value : 0,
				    .style = vm.have ? vm.style : PK_METRIC_SCALED,
				    .unit = vm.have || vm.why ? vm.label : "", .name = vm.name,
				    .why = vm.why};
		if (push_line(ml, m) < 0)
			return -ENOMEM;
	}
	return vr < 0 ? vr : 0;
}

int pk_metric_stat_lines(const pk_metric_table *t, const pk_metric_counts *in, size_t idx,
			 pk_metric_vendor_fn vendor, const void *arg, pk_metric_lines *ml)
{
	pk_metric_value mv;
	ml->nr = 0;
	/* perf 6.1's JSON when no row matched */
	if (push_line(ml, (pk_metric_line){.unit = "(null)"}) < 0)
		return -ENOMEM;
	int have = t ? pk_metric_shadow(t, in, idx, &mv) : 0;
	bool shadow = t && mv.def;
	if (shadow)
		ml->v[0] = (pk_metric_line){.have = have, .value = mv.value, .style = mv.def->style,
					    .unit = mv.unit};
	for (size_t pos = 0; t && pk_metric_shadow_line(t, in, idx, &pos, &mv);)
		if (push_line(ml, (pk_metric_line){.have = true, .value = mv.value,
						   .style = mv.def->style, .unit = mv.unit}) < 0)
			return -ENOMEM;
	if (!shadow)
		ml->nr = 0;
	int vr = vendor_lines(vendor, arg, in, idx, ml);
	if (vr < 0)
		return vr;
	if (ml->nr == 0) /* neither */
		ml->nr = 1;
	return 0;
}

void pk_metric_lines_release(pk_metric_lines *ml)
{
	free(ml->v);
	*ml = (pk_metric_lines){0};
}
