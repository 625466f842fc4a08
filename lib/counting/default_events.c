/* perf stat's default event set, built from the PMUs sysfs shows, and the
 * detailed sets of -d, -dd, -ddd. */
#include <pmukit/counting.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

struct default_event {
	const char *name;
	uint64_t config;
	const char *needs_alias;   /* added only when the core PMU has this sysfs event */
};

static const struct default_event sw_defaults[] = {
	{"task-clock", PERF_COUNT_SW_TASK_CLOCK, NULL},
	{"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, NULL},
	{"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, NULL},
	{"page-faults", PERF_COUNT_SW_PAGE_FAULTS, NULL},
};

/* perf 6.1 default_attrs0/1: the stalled-cycles pair only where the PMU
 * publishes them (AMD), since Intel hides their zero mapping. */
static const struct default_event hw_defaults[] = {
	{"cycles", PERF_COUNT_HW_CPU_CYCLES, NULL},
	{"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend"},
	{"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend"},
	{"instructions", PERF_COUNT_HW_INSTRUCTIONS, NULL},
	{"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL},
	{"branch-misses", PERF_COUNT_HW_BRANCH_MISSES, NULL},
};

static int add_sw(pk_evlist *l, uint64_t config, const char *name, const pk_pmu *pmu,
		  pk_error *err)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = PK_ATTR_SIZE;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.exclude_guest = 1; /* as perf's default events */
	if (!pk_evlist_add(l, &a, name, pmu))
		return pk_err(err, -ENOMEM, "out of memory");
	return 0;
}

int pk_evlist_add_default_stat(pk_evlist *l, const pk_pmus *pmus, pk_error *err)
{
	return pk_evlist_add_default_stat_on(l, pmus, false, err);
}

int pk_evlist_add_default_stat_on(pk_evlist *l, const pk_pmus *pmus, bool cpus, pk_error *err)
{
	const pk_pmu *sw = pmus ? pk_pmus_find(pmus, "software") : NULL;
	for (size_t i = 0; i < PK_ARRAY_SIZE(sw_defaults); i++) {
		/* perf 6.1 counts CPUs (-a, -C) with cpu-clock */
		bool clock = cpus && sw_defaults[i].config == PERF_COUNT_SW_TASK_CLOCK;
		int r = clock ? add_sw(l, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock", sw, err)
			      : add_sw(l, sw_defaults[i].config, sw_defaults[i].name, sw, err);
		if (r < 0)
			return r;
	}
	/* Hardware events only where a core PMU exists: on a machine without
	 * one (a VM) they could only ever read <not supported>; the CLI says
	 * once why they are missing. */
	size_t ncore = pmus ? pk_pmus_nr_core(pmus) : 0;
	if (!ncore)
		return 0;
	/* The hardware events go through the parser's one expansion routine:
	 * on a hybrid machine each event once per core PMU, cpu_core first,
	 * named "cpu_core/cycles/", with the PMU type in config[63:32]. */
	for (size_t i = 0; i < PK_ARRAY_SIZE(hw_defaults); i++) {
		const struct default_event *d = &hw_defaults[i];
		for (size_t p = 0; p < ncore; p++) {
			const pk_pmu *pmu = pk_pmus_core_at(pmus, p);
			if (d->needs_alias && !pk_pmu_alias(pmu, d->needs_alias))
				continue;
			/* every core PMU at once, unless only some have the event */
			pk_parse_opts po = {.only_pmu = d->needs_alias ? pmu->name : NULL};
			int r = pk_evlist_parse(l, pmus, d->name, &po, err);
			if (r < 0)
				return r;
			if (!d->needs_alias)
				break;
		}
	}
	return 0;
}

/* perf 6.1's detailed_attrs, very_detailed_attrs and
 * very_very_detailed_attrs: -d adds the first row, -dd the second, -ddd
 * the third. */
static const char *const detailed[3] = {
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
	("L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,"
	 "iTLB-load-misses"),
	"L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

int pk_evlist_add_detailed_stat(pk_evlist *l, const pk_pmus *pmus, int level, pk_error *err)
{
	for (int i = 0; i < level && i < (int)PK_ARRAY_SIZE(detailed); i++) {
		pk_parse_opts po = {0};
		int r = pk_evlist_parse(l, pmus, detailed[i], &po, err);
		if (r < 0)
			return r;
	}
	return 0;
}
