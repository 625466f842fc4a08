/* perf stat's event list from its options (topdown.h, pk_stat_events): the
 * events `pmukit stat` counts, for any program that counts as it does.
 *
 * Invariants: the order is perf 6.1's: TopDown's events first (so their
 * evsels are the list's first), then -e's, then the -M lists parsed as one
 * (joined by commas), or perf's default set when none of these was asked
 * for; -d's detailed events last; the list configured for stat. On an
 * error the caller releases what was built. */
#include <pmukit/topdown.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* -M: the lists joined by commas into metric groups. */
static int add_metrics(const pk_stat_events_opts *o, pk_stat_events *ev, pk_error *err)
{
	size_t len = 1;
	for (size_t i = 0; i < o->nr_metrics; i++)
		len += strlen(o->metrics[i]) + 1;
	char *names = calloc(1, len);
	if (!names || !(ev->mg = pk_metric_groups_new())) {
		free(names);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < o->nr_metrics; i++) {
		if (i)
			strcat(names, ",");
		strcat(names, o->metrics[i]);
	}
	pk_metric_groups_no_merge(ev->mg, o->metric_no_merge);
	int r = pk_metric_groups_add(ev->mg, names, o->pmus, o->kernel, o->cpuid,
				     o->metric_no_group, ev->evlist, err);
	free(names);
	return r;
}

static int add_topdown(const pk_stat_events_opts *o, pk_stat_events *ev, pk_error *err)
{
	pk_topdown_opts td;
	pk_topdown_opts_init(&td);
	td.level = o->td_level ? o->td_level : 1;
	td.only_pmu = o->only_pmu;
	td.mux_reference = o->td_windows;
	ev->td = pk_topdown_new_host(o->pmus, o->kernel, o->cpuid, &td, err);
	if (!ev->td)
		return err->code ? err->code : -ENOMEM;
	return pk_topdown_add_events(ev->td, ev->evlist, err);
}

/* -g: every event in one group led by the first, as perf's evlist leader;
 * a list that has groups already keeps them. */
static void group_all(pk_evlist *l)
{
	size_t n = pk_evlist_count(l);
	for (size_t i = 0; i < n; i++)
		if (pk_evsel_leader(pk_evlist_at(l, i)) != (int)i || pk_evsel_nr_members(pk_evlist_at(l, i)) > 1)
			return;
	if (n > 1)
		pk_evlist_group(l, 0, n);
}

int pk_stat_events_build(const pk_stat_events_opts *o, pk_stat_events *ev, pk_error *err)
{
	*ev = (pk_stat_events){.evlist = pk_evlist_new()};
	if (o->size < sizeof(*o))
		return pk_err(err, -EINVAL, "pk_stat_events_build: opts.size not set");
	if (!ev->evlist)
		return pk_err(err, -ENOMEM, "out of memory");
	pk_parse_opts po = {.only_pmu = o->only_pmu, .cpuid = o->cpuid};
	int r = o->topdown ? add_topdown(o, ev, err) : 0;
	for (size_t i = 0; i < o->nr_events && r == 0; i++)
		r = pk_evlist_parse(ev->evlist, o->pmus, o->events[i], &po, err);
	if (r == 0 && o->nr_metrics)
		r = add_metrics(o, ev, err);
	if (r == 0 && !o->nr_events && !o->topdown && !o->nr_metrics && !o->null_run) {
		r = pk_evlist_add_default_stat_on(ev->evlist, o->pmus, o->system_wide, err);
		ev->default_without_hw = pk_pmus_nr_core(o->pmus) == 0;
	}
	if (r == 0)
		r = pk_evlist_add_detailed_stat(ev->evlist, o->pmus, o->detailed, err);
	if (r == 0 && o->group)
		group_all(ev->evlist);
	pk_config_opts cfg = {.mode = PK_CONFIG_STAT, .system_wide = o->system_wide,
			      .forked_workload = o->forked_workload, .no_inherit = o->no_inherit,
			      .all_user = o->all_user, .all_kernel = o->all_kernel};
	return r < 0 ? r : pk_evlist_config(ev->evlist, &cfg, err);
}

void pk_stat_events_release(pk_stat_events *ev)
{
	pk_evlist_put(ev->evlist);
	pk_topdown_free(ev->td);
	pk_metric_groups_free(ev->mg);
	*ev = (pk_stat_events){0};
}
