/* pmukit list: the events this machine (or the sysfs tree in PMUKIT_SYSFS)
 * offers, as perf list shows them: hardware, software and cache events,
 * each PMU's sysfs events, raw descriptors, libpfm4's named events for the
 * CPU (perf lists its JSON events by default too), tracepoints, the CPU's
 * metric groups and metrics (list_metrics.c); on request the PMU formats. */
#include <ctype.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pmukit/cpuid.h>
#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/pmu.h>
#include <pmukit/tracepoint.h>

#include "builtin.h"
#include "list_metrics.h"

static const pk_opt list_opts_table[] = {
	{"formats", 0, 'f', no_argument, NULL, "also list PMU formats"},
	{"named", 0, 'n', no_argument, NULL, "libpfm4's named events (the default)"},
	{"no-named", 0, 'N', no_argument, NULL,
	 "leave out libpfm4's named events (hundreds per core PMU)"},
	{"details", 0, 'D', no_argument, NULL, "metrics: also print each formula"},
	{"model", 0, 'M', required_argument, "SCENARIO",
	 "the events of the scenario's modeled machine (its PMUs\n"
	 "and CPUID; docs/model.md)"},
	{0},
};

const pk_optspec list_optspec = {
	.cmd = "list",
	.synopsis = "usage: pmukit list [options] [filter...]\n"
		    "\n"
		    "Lists the events of this machine, as perf list does.\n"
		    "\n"
		    "A filter is a section name or a pattern:\n"
		    "    hw, hardware       symbolic hardware events\n"
		    "    sw, software       software events\n"
		    "    cache, hwcache     hardware cache events\n"
		    "    pmu                each PMU and its sysfs events\n"
		    "    tracepoint         tracepoints (needs a readable tracefs)\n"
		    "    format, formats    the format fields of each PMU\n"
		    "    named              libpfm4's named events for this CPU model\n"
		    "    metric             the CPU's metrics (stat -M), metricgroup their groups\n"
		    "    PATTERN            events whose name contains PATTERN (case-insensitive),\n"
		    "                       or matches it as a glob when it has * ? or [\n",
	.opts = list_opts_table,
	.notes = "PMUs come from /sys, or from $PMUKIT_SYSFS (a folder holding\n"
		 "bus/event_source/devices); $PMUKIT_CPUID (or perf's $PERF_CPUID) overrides\n"
		 "the CPU identification; $PMUKIT_TRACEFS the tracefs mount point.\n",
};

enum section {
	SEC_HW = 1 << 0,
	SEC_SW = 1 << 1,
	SEC_CACHE = 1 << 2,
	SEC_PMU = 1 << 3,
	SEC_RAW = 1 << 4,
	SEC_TRACEPOINT = 1 << 5,
	SEC_FORMAT = 1 << 6,
	SEC_NAMED = 1 << 7,
	SEC_METRIC = 1 << 8,
	SEC_METRICGROUP = 1 << 9,
	SEC_GROUPED = 1 << 10, /* each metric group with its metrics */
	SEC_DEFAULT = SEC_HW | SEC_SW | SEC_CACHE | SEC_PMU | SEC_RAW | SEC_NAMED | SEC_TRACEPOINT |
		      SEC_GROUPED,
};

static const struct {
	const char *name;
	unsigned sections;
} section_names[] = {
	{"hw", SEC_HW},       {"hardware", SEC_HW},
	{"sw", SEC_SW},       {"software", SEC_SW},
	{"cache", SEC_CACHE}, {"hwcache", SEC_CACHE},
	{"pmu", SEC_PMU},     {"tracepoint", SEC_TRACEPOINT},
	{"format", SEC_FORMAT}, {"formats", SEC_FORMAT},
	{"named", SEC_NAMED},
	{"metric", SEC_METRIC}, {"metrics", SEC_METRIC},
	{"metricgroup", SEC_METRICGROUP}, {"metricgroups", SEC_METRICGROUP},
};

struct lister {
	const pk_pmus *pmus;
	char **patterns;
	int nr_patterns;
	size_t printed;
	const char *cpuid;         /* --model: the scenario's; NULL: the host's */
	bool details;              /* --details */
};

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return n == 0;
}

/* True when no pattern was given or one matches any of the names. */
static bool wanted(const struct lister *l, const char *const *names, size_t nr)
{
	if (l->nr_patterns == 0)
		return true;
	for (int p = 0; p < l->nr_patterns; p++)
		for (size_t i = 0; i < nr; i++) {
			if (!names[i])
				continue;
			bool hit = has_glob(l->patterns[p])
					   ? fnmatch(l->patterns[p], names[i], FNM_CASEFOLD) == 0
					   : contains_nocase(names[i], l->patterns[p]);
			if (hit)
				return true;
		}
	return false;
}

static void emit(struct lister *l, const char *name, const char *kind)
{
	printf("  %-50s [%s]\n", name, kind);
	l->printed++;
}

/* One symbolic event with its aliases: "cpu-cycles OR cycles". */
static void emit_symbolic(struct lister *l, const char *canonical, const char *alias0,
			  const char *alias1, const char *kind)
{
	const char *names[3] = {canonical, alias0, alias1};
	if (!wanted(l, names, 3))
		return;
	char line[160];
	int n = snprintf(line, sizeof(line), "%s", canonical);
	for (int i = 1; i < 3 && names[i] && n > 0 && (size_t)n < sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " OR %s", names[i]);
	emit(l, line, kind);
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

static void list_hw(struct lister *l)
{
	for (size_t i = 0; i < pk_hw_event_count(); i++) {
		const char *name = pk_hw_event_name(i, NULL);
		if (hw_event_supported(l->pmus, name))
			emit_symbolic(l, name, pk_hw_event_alias(i, 0), pk_hw_event_alias(i, 1),
				      "Hardware event");
	}
}

static void list_sw(struct lister *l)
{
	for (size_t i = 0; i < pk_sw_event_count(); i++)
		emit_symbolic(l, pk_sw_event_name(i, NULL), pk_sw_event_alias(i, 0),
			      pk_sw_event_alias(i, 1), "Software event");
}

static void list_cache(struct lister *l)
{
	if (pk_pmus_nr_core(l->pmus) == 0) {
		/* nothing could count them: say so instead of listing nothing silently */
		fprintf(stderr, "pmukit list: no hardware or cache events listed: no core PMU in "
				"%s/bus/event_source/devices (a VM without PMU virtualization?)\n",
			pk_pmus_root(l->pmus));
		return;
	}
	for (size_t i = 0; i < pk_cache_event_count(); i++)
		emit_symbolic(l, pk_cache_event_name(i, NULL), NULL, NULL, "Hardware cache event");
}

/* The unit note that tells hybrid core PMUs apart. */
static void kind_with_unit(char *buf, size_t len, const char *kind, const pk_pmu *p)
{
	if (p->hybrid)
		snprintf(buf, len, "%s. Unit: %s", kind, p->name);
	else
		snprintf(buf, len, "%s", kind);
}

static void list_pmus(struct lister *l)
{
	for (size_t i = 0; i < pk_pmus_count(l->pmus); i++) {
		const pk_pmu *p = pk_pmus_at(l->pmus, i);
		const char *pmu_names[1] = {p->name};
		if (wanted(l, pmu_names, 1)) {
			char kind[160], cpus[96] = "";
			if (p->cpus) {
				char list[80];
				pk_cpumap_format(p->cpus, list, sizeof(list));
				snprintf(cpus, sizeof(cpus), ", cpus %s", list);
			}
			snprintf(kind, sizeof(kind), "Kernel PMU, type %u%s", p->type, cpus);
			emit(l, p->name, kind);
		}
		for (size_t a = 0; a < p->nr_aliases; a++) {
			char name[256], kind[96];
			snprintf(name, sizeof(name), "%s/%s/", p->name, p->aliases[a].name);
			const char *names[2] = {name, p->aliases[a].name};
			if (!wanted(l, names, 2))
				continue;
			kind_with_unit(kind, sizeof(kind), "Kernel PMU event", p);
			emit(l, name, kind);
		}
	}
}

static void list_raw(struct lister *l)
{
	const pk_pmu *core = pk_pmus_nr_core(l->pmus) ? pk_pmus_core_at(l->pmus, 0) : NULL;
	const char *rnnn[1] = {"rNNN"};
	if (core && wanted(l, rnnn, 1))
		emit(l, "rNNN", "Raw hardware event descriptor");
	char desc[128];
	snprintf(desc, sizeof(desc), "%s/t1=v1[,t2=v2,t3 ...]/modifier", core ? core->name : "");
	const char *names[1] = {desc};
	if (core && wanted(l, names, 1))
		emit(l, desc, "Raw hardware event descriptor");
}

static void list_formats(struct lister *l)
{
	for (size_t i = 0; i < pk_pmus_count(l->pmus); i++) {
		const pk_pmu *p = pk_pmus_at(l->pmus, i);
		for (size_t f = 0; f < p->nr_formats; f++) {
			char name[256], text[128], kind[160];
			snprintf(name, sizeof(name), "%s/%s=N/", p->name, p->formats[f].name);
			const char *names[2] = {name, p->formats[f].name};
			if (!wanted(l, names, 2))
				continue;
			pk_format_describe(&p->formats[f], text, sizeof(text));
			snprintf(kind, sizeof(kind), "PMU format %s, max 0x%llx", text,
				 (unsigned long long)pk_format_max(&p->formats[f]));
			emit(l, name, kind);
		}
	}
}

static int print_tracepoint(const char *sys, const char *name, uint64_t id, void *arg)
{
	struct lister *l = arg;
	(void)id;
	char full[512];
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	const char *names[1] = {full};
	if (wanted(l, names, 1))
		emit(l, full, "Tracepoint event");
	return 0;
}

static int list_tracepoints(struct lister *l, bool asked)
{
	pk_error err;
	pk_error_clear(&err);
	int r = pk_tracepoint_foreach(NULL, NULL, NULL, print_tracepoint, l, &err);
	if (r < 0) {
		/* say why tracepoints are missing rather than dropping them silently */
		if (asked) {
			pk_cli_print_error("list", &err);
			return 1;
		}
		fprintf(stderr, "pmukit list: no tracepoints listed: %s\n", err.msg);
	}
	return 0;
}

static int print_named(const pk_pmu *pmu, const char *name, const char *desc, void *arg)
{
	struct lister *l = arg;
	const char *names[1] = {name};
	if (!wanted(l, names, 1))
		return 0;
	/* libpfm4's descriptions may end in a period; the unit note adds one */
	int dlen = (int)strlen(desc);
	while (pmu->hybrid && dlen > 0 && desc[dlen - 1] == '.')
		dlen--;
	printf("  %s\n       [%.*s%s%s%s]\n", name, dlen, desc,
	       pmu->hybrid ? (dlen ? ". " : "") : "", pmu->hybrid ? "Unit: " : "",
	       pmu->hybrid ? pmu->name : "");
	l->printed++;
	return 0;
}

/* Named events need the CPU identification: a bad PMUKIT_CPUID fails the
 * listing; a host without one only leaves them out, with a note, unless
 * they were asked for. */
static int list_named(struct lister *l, bool asked)
{
	pk_error err;
	pk_error_clear(&err);
	pk_cpuid id;
	int r = l->cpuid ? pk_cpuid_parse(l->cpuid, &id, &err) : pk_host_cpuid(NULL, &id, &err);
	if (r < 0 || pk_pfm_foreach(l->pmus, &id, print_named, l, &err) < 0) {
		if (asked || pk_cpuid_overridden()) {
			pk_cli_print_error("list", &err);
			return 1;
		}
		fprintf(stderr, "pmukit list: no named events listed: %s\n", err.msg);
	}
	return 0;
}

/* The metric sections: a bad PMUKIT_CPUID fails them; a host without an
 * identification, or a CPU without tables, has none. */
static int list_metric_sections(const struct lister *l, unsigned sections)
{
	pk_cpuid id;
	pk_error err;
	pk_error_clear(&err);
	int r = l->cpuid ? pk_cpuid_parse(l->cpuid, &id, &err) : pk_host_cpuid(NULL, &id, &err);
	if (r < 0) {
		if (!pk_cpuid_overridden())
			return 0;
		pk_cli_print_error("list", &err);
		return 1;
	}
	if (((sections & SEC_METRICGROUP) &&
	     pk_list_metrics(&id, PK_LIST_METRIC_GROUPS, l->details) < 0) ||
	    ((sections & SEC_METRIC) && pk_list_metrics(&id, PK_LIST_METRICS, l->details) < 0) ||
	    ((sections & SEC_GROUPED) && pk_list_metrics(&id, PK_LIST_GROUPED, l->details) < 0)) {
		fprintf(stderr, "pmukit list: out of memory\n");
		return 1;
	}
	return 0;
}

static unsigned section_of(const char *word)
{
	for (size_t i = 0; i < sizeof(section_names) / sizeof(section_names[0]); i++)
		if (!strcasecmp(section_names[i].name, word))
			return section_names[i].sections;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	unsigned extra = 0;
	bool no_named = false, details = false;
	const char *model = NULL;
	char root[PATH_MAX], cpuid[64];
	int c;
	pk_opt_begin(&list_optspec);
	while ((c = pk_opt_next(&list_optspec, argc, argv)) != -1) {
		switch (c) {
		case 'f':
			extra |= SEC_FORMAT;
			break;
		case 'n':
			extra |= SEC_NAMED;
			break;
		case 'N':
			no_named = true;
			break;
		case 'M':
			model = optarg;
			break;
		case 'D':
			details = true;
			break;
		default:
			return 129; /* PK_OPT_ERROR, said */
		}
	}
	if (model && pk_cli_model_machine("list", model, root, cpuid))
		return 1;
	unsigned sections = 0;
	struct lister l = {.cpuid = model ? cpuid : NULL, .details = details};
	l.patterns = calloc((size_t)argc + 1, sizeof(char *));
	if (!l.patterns)
		return 1;
	for (int i = optind; i < argc; i++) {
		unsigned s = section_of(argv[i]);
		if (s)
			sections |= s;
		else
			l.patterns[l.nr_patterns++] = argv[i];
	}
	/* Patterns alone search every section; a section name alone shows that
	 * section whole. */
	bool explicit_sections = sections != 0;
	if (!sections)
		sections = SEC_DEFAULT;
	sections |= extra;
	if (no_named)
		sections &= ~(unsigned)SEC_NAMED;
	if (model) /* the model has no tracefs */
		sections &= ~(unsigned)SEC_TRACEPOINT;

	pk_error err;
	pk_error_clear(&err);
	pk_pmus *pmus = pk_pmus_load(model ? root : NULL, &err);
	if (!pmus) {
		pk_cli_print_error("list", &err);
		free(l.patterns);
		return 1;
	}
	for (size_t i = 0; i < pk_pmus_nr_warnings(pmus); i++)
		fprintf(stderr, "pmukit list: warning: %s\n", pk_pmus_warning(pmus, i));
	l.pmus = pmus;
	int rc = 0;
	if (l.nr_patterns) /* metrics are listed whole, by section */
		sections &= ~(unsigned)SEC_GROUPED;
	if (sections & ~(unsigned)(SEC_METRIC | SEC_METRICGROUP))
		printf("\nList of pre-defined events (to be used in -e):\n\n");
	if (sections & SEC_HW)
		list_hw(&l);
	if (sections & SEC_SW)
		list_sw(&l);
	if (sections & SEC_CACHE)
		list_cache(&l);
	if (sections & SEC_PMU)
		list_pmus(&l);
	if (sections & SEC_RAW)
		list_raw(&l);
	if (sections & SEC_FORMAT)
		list_formats(&l);
	if (sections & SEC_NAMED)
		rc |= list_named(&l, (explicit_sections && (sections & SEC_NAMED)) ||
					     (extra & SEC_NAMED));
	if (sections & SEC_TRACEPOINT)
		rc |= list_tracepoints(&l, explicit_sections && (sections & SEC_TRACEPOINT));
	if (sections & (SEC_METRIC | SEC_METRICGROUP | SEC_GROUPED))
		rc |= list_metric_sections(&l, sections);
	pk_pmus_put(pmus);
	free(l.patterns);
	return rc;
}
