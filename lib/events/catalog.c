/* The event catalog: what perf list shows of a machine's events besides
 * libpfm4's named events and tracepoints (events.h, pk_event_catalog):
 * the symbolic hardware events the core PMUs support, the software and
 * cache events, each PMU with its sysfs events, the raw descriptors and
 * the PMU formats, each with the names a pattern matches and its kind as
 * perf 6.1 words it.
 *
 * Invariants: sections come in the order of their bits, entries in perf's
 * order inside a section; nothing without a core PMU in the hardware,
 * cache and raw sections (nothing could count them); an entry's strings
 * live until the callback returns. And perf list's patterns
 * (pk_catalog_match): a glob (*, ?, [) matched whole, else a substring,
 * both ignoring case. */
#include <pmukit/events.h>
#include <pmukit/pmu.h>

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return n == 0;
}

bool pk_catalog_match(const char *const *patterns, size_t nr_patterns, const char *const *names,
		      size_t nr)
{
	if (nr_patterns == 0)
		return true;
	for (size_t p = 0; p < nr_patterns; p++)
		for (size_t i = 0; i < nr; i++) {
			if (!names[i])
				continue;
			bool hit = strpbrk(patterns[p], "*?[")
					   ? fnmatch(patterns[p], names[i], FNM_CASEFOLD) == 0
					   : contains_nocase(names[i], patterns[p]);
			if (hit)
				return true;
		}
	return false;
}

/* x86 core PMUs export the generic events they support as sysfs aliases of
 * the same name (Intel has no stalled-cycles-*). When no core PMU exports
 * any of them (Arm), every generic event is shown. */
static bool hw_event_supported(const pk_pmus *pmus, const char *canonical)
{
	size_t nr_core = pk_pmus_nr_core(pmus);
	if (nr_core == 0)
		return false;
	bool any_generic = false;
	for (size_t i = 0; i < nr_core; i++) {
		const pk_pmu *p = pk_pmus_core_at(pmus, i);
		for (size_t h = 0; h < pk_hw_event_count(); h++)
			any_generic |= pk_pmu_alias(p, pk_hw_event_name(h, NULL)) != NULL;
		if (pk_pmu_alias(p, canonical))
			return true;
	}
	return !any_generic;
}

/* One symbolic event with its aliases: "cpu-cycles OR cycles". */
static int symbolic(pk_catalog_fn fn, void *arg, const char *canonical, const char *alias0,
		    const char *alias1, const char *kind)
{
	pk_catalog_entry e = {.match = {canonical, alias0, alias1}, .kind = kind};
	char line[160];
	int n = snprintf(line, sizeof(line), "%s", canonical);
	for (int i = 1; i < 3 && e.match[i] && n > 0 && (size_t)n < sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " OR %s", e.match[i]);
	e.name = line;
	return fn(&e, arg);
}

static int symbolic_events(const pk_pmus *pmus, unsigned section, pk_catalog_fn fn, void *arg)
{
	int r = 0;
	for (size_t i = 0; section == PK_CATALOG_HW && r == 0 && i < pk_hw_event_count(); i++)
		if (hw_event_supported(pmus, pk_hw_event_name(i, NULL)))
			r = symbolic(fn, arg, pk_hw_event_name(i, NULL), pk_hw_event_alias(i, 0),
				     pk_hw_event_alias(i, 1), "Hardware event");
	for (size_t i = 0; section == PK_CATALOG_SW && r == 0 && i < pk_sw_event_count(); i++)
		r = symbolic(fn, arg, pk_sw_event_name(i, NULL), pk_sw_event_alias(i, 0),
			     pk_sw_event_alias(i, 1), "Software event");
	for (int t = PK_TOOL_NONE + 1; section == PK_CATALOG_SW && r == 0 && t < PK_TOOL_NR; t++)
		r = symbolic(fn, arg, pk_tool_event_name((pk_tool_event)t), NULL, NULL, "Tool event");
	bool core = pk_pmus_nr_core(pmus) > 0;
	for (size_t i = 0; section == PK_CATALOG_CACHE && core && r == 0 &&
			   i < pk_cache_event_count(); i++)
		r = symbolic(fn, arg, pk_cache_event_name(i, NULL), NULL, NULL,
			     "Hardware cache event");
	return r;
}

/* PMU p and its sysfs events ("Kernel PMU event. Unit: cpu_core" on a
 * hybrid core PMU). */
static int pmu_events(const pk_pmu *p, pk_catalog_fn fn, void *arg)
{
	char kind[160], cpus[96] = "", name[256];
	if (p->cpus) {
		char list[80];
		pk_cpumap_format(p->cpus, list, sizeof(list));
		snprintf(cpus, sizeof(cpus), ", cpus %s", list);
	}
	snprintf(kind, sizeof(kind), "Kernel PMU, type %u%s", p->type, cpus);
	int r = fn(&(pk_catalog_entry){.name = p->name, .match = {p->name}, .kind = kind}, arg);
	if (p->hybrid)
		snprintf(kind, sizeof(kind), "Kernel PMU event. Unit: %s", p->name);
	else
		snprintf(kind, sizeof(kind), "Kernel PMU event");
	for (size_t a = 0; a < p->nr_aliases && r == 0; a++) {
		snprintf(name, sizeof(name), "%s/%s/", p->name, p->aliases[a].name);
		r = fn(&(pk_catalog_entry){.name = name, .match = {name, p->aliases[a].name},
					   .kind = kind}, arg);
	}
	return r;
}

static int raw_descriptors(const pk_pmus *pmus, pk_catalog_fn fn, void *arg)
{
	if (!pk_pmus_nr_core(pmus))
		return 0;
	const char *kind = "Raw hardware event descriptor";
	int r = fn(&(pk_catalog_entry){.name = "rNNN", .match = {"rNNN"}, .kind = kind}, arg);
	char desc[128];
	snprintf(desc, sizeof(desc), "%s/t1=v1[,t2=v2,t3 ...]/modifier",
		 pk_pmus_core_at(pmus, 0)->name);
	return r ? r : fn(&(pk_catalog_entry){.name = desc, .match = {desc}, .kind = kind}, arg);
}

static int formats(const pk_pmu *p, pk_catalog_fn fn, void *arg)
{
	int r = 0;
	for (size_t f = 0; f < p->nr_formats && r == 0; f++) {
		char name[256], text[128], kind[160];
		snprintf(name, sizeof(name), "%s/%s=N/", p->name, p->formats[f].name);
		pk_format_describe(&p->formats[f], text, sizeof(text));
		snprintf(kind, sizeof(kind), "PMU format %s, max 0x%llx", text,
			 (unsigned long long)pk_format_max(&p->formats[f]));
		r = fn(&(pk_catalog_entry){.name = name, .match = {name, p->formats[f].name},
					   .kind = kind}, arg);
	}
	return r;
}

int pk_event_catalog(const pk_pmus *pmus, unsigned sections, pk_catalog_fn fn, void *arg)
{
	int r = 0;
	for (unsigned s = PK_CATALOG_HW; s <= PK_CATALOG_CACHE && r == 0; s <<= 1)
		if (sections & s)
			r = symbolic_events(pmus, s, fn, arg);
	for (size_t i = 0; (sections & PK_CATALOG_PMU) && r == 0 && i < pk_pmus_count(pmus); i++)
		r = pmu_events(pk_pmus_at(pmus, i), fn, arg);
	if ((sections & PK_CATALOG_RAW) && r == 0)
		r = raw_descriptors(pmus, fn, arg);
	for (size_t i = 0; (sections & PK_CATALOG_FORMAT) && r == 0 && i < pk_pmus_count(pmus); i++)
		r = formats(pk_pmus_at(pmus, i), fn, arg);
	return r;
}
