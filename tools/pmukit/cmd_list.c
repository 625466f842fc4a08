/* pmukit list: the events this machine (or the sysfs tree in PMUKIT_SYSFS)
 * offers, as perf list shows them: hardware, software and cache events,
 * each PMU's sysfs events, raw descriptors, libpfm4's named events for the
 * CPU (perf lists its JSON events by default too), tracepoints, the CPU's
 * metric groups and metrics (list_metrics.c); on request the PMU formats.
 * Which events exist and their kinds come from the library
 * (pk_event_catalog, pk_pfm_foreach, pk_tracepoint_foreach); here: the
 * sections and patterns asked for, and the printing; --raw-dump prints the
 * names alone, each followed by a space, sorted within a section as perf
 * 6.1 does (what perf's shell tests iterate over). */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
	{"raw-dump", 0, 'R', no_argument, NULL,
	 "the names alone, space-separated (perf's raw dump, for scripts)"},
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

/* the library's catalog sections (PK_CATALOG_*), then those listed here */
enum section {
	SEC_HW = PK_CATALOG_HW,
	SEC_SW = PK_CATALOG_SW,
	SEC_CACHE = PK_CATALOG_CACHE,
	SEC_PMU = PK_CATALOG_PMU,
	SEC_RAW = PK_CATALOG_RAW,
	SEC_FORMAT = PK_CATALOG_FORMAT,
	SEC_TRACEPOINT = 1 << 6,
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
	bool raw;                  /* --raw-dump: names gathered, then flushed sorted */
	struct kept {
		char *name, *kind;
		size_t run, idx;   /* the kind's run in the section; the order kept */
		bool sorted;       /* a kind perf sorts (not the tool events) */
	} *names;
	size_t nr_names, cap_names;
	bool sort_lines;           /* this section's lines are sorted (hw, sw, cache) */
	bool oom;
};

/* A name kept for the section's sorted lines: perf 6.1 sorts each kind of
 * a section by the name it prints (hardware, software, cache events; in
 * --raw-dump every section), a kind after the one before it (the tool
 * events after the software ones, in their own order: unsorted). */
static void keep_name(struct lister *l, const char *name, const char *kind)
{
	if (l->nr_names == l->cap_names) {
		size_t cap = l->cap_names ? 2 * l->cap_names : 64;
		struct kept *n = realloc(l->names, cap * sizeof(*n));
		if (!n) {
			l->oom = true;
			return;
		}
		l->names = n;
		l->cap_names = cap;
	}
	bool same = l->nr_names && !strcmp(l->names[l->nr_names - 1].kind, kind);
	struct kept k = {strdup(name), strdup(kind), l->nr_names ? l->names[l->nr_names - 1].run : 0};
	if (!k.name || !k.kind) {
		free(k.name);
		free(k.kind);
		l->oom = true;
		return;
	}
	k.run += l->nr_names && !same;
	k.sorted = strcmp(kind, "Tool event") != 0;
	l->names[l->nr_names++] = k;
}

static int cmp_kept(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;
	int c = x->sorted ? strcmp(x->name, y->name) : 0;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return c ? c : x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void emit(struct lister *l, const char *name, const char *kind)
{
	printf("  %-50s [%s]\n", name, kind);
	l->printed++;
}

/* The section's kept names, sorted per kind: the raw dump's words (each
 * followed by a space) or perf's lines. */
static void flush_names(struct lister *l)
{
	/* qsort is not stable: an unsorted kind keeps its order by index */
	for (size_t i = 0; i < l->nr_names; i++)
		l->names[i].idx = i;
	qsort(l->names, l->nr_names, sizeof(*l->names), cmp_kept);
	for (size_t i = 0; i < l->nr_names; i++) {
		if (l->raw)
			printf("%s ", l->names[i].name);
		else
			emit(l, l->names[i].name, l->names[i].kind);
		free(l->names[i].name);
		free(l->names[i].kind);
	}
	l->nr_names = 0;
}

/* True when no pattern was given or one matches any of the names. */
static bool wanted(const struct lister *l, const char *const *names, size_t nr)
{
	return pk_catalog_match((const char *const *)l->patterns, (size_t)l->nr_patterns, names,
				nr);
}

static int print_entry(const pk_catalog_entry *e, void *arg)
{
	struct lister *l = arg;
	if (!wanted(l, e->match, 3))
		return 0;
	if (!l->raw && l->sort_lines)
		keep_name(l, e->name, e->kind);
	else if (!l->raw)
		emit(l, e->name, e->kind);
	/* perf's raw dump: events by their first name; no PMU, descriptor or format lines */
	else if (strstr(e->kind, "event") && !strstr(e->kind, "descriptor"))
		keep_name(l, e->match[0], e->kind);
	return 0;
}

/* The library's catalog sections, in perf's order; the cache events need
 * a core PMU: said instead of listing nothing silently. */
static void list_catalog(struct lister *l, unsigned sections)
{
	if ((sections & SEC_CACHE) && pk_pmus_nr_core(l->pmus) == 0 && !l->raw)
		fprintf(stderr, "pmukit list: no hardware or cache events listed: no core PMU in "
				"%s/bus/event_source/devices (a VM without PMU virtualization?)\n",
			pk_pmus_root(l->pmus));
	for (unsigned bit = SEC_HW; bit <= SEC_FORMAT; bit <<= 1) {
		if (!(sections & bit))
			continue;
		l->sort_lines = bit & (SEC_HW | SEC_SW | SEC_CACHE);
		pk_event_catalog(l->pmus, bit, print_entry, l);
		flush_names(l);
		l->sort_lines = false;
	}
}

static int print_tracepoint(const char *sys, const char *name, uint64_t id, void *arg)
{
	struct lister *l = arg;
	(void)id;
	char full[512];
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	const char *names[1] = {full};
	if (wanted(l, names, 1) && l->raw)
		keep_name(l, full, "Tracepoint event");
	else if (wanted(l, names, 1))
		emit(l, full, "Tracepoint event");
	return 0;
}

static int list_tracepoints(struct lister *l, bool asked)
{
	pk_error err;
	pk_error_clear(&err);
	int r = pk_tracepoint_foreach(NULL, NULL, NULL, print_tracepoint, l, &err);
	flush_names(l);
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
	if (l->raw) {
		keep_name(l, name, "named");
		return 0;
	}
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
		flush_names(l);
		if (asked || pk_cpuid_overridden()) {
			pk_cli_print_error("list", &err);
			return 1;
		}
		fprintf(stderr, "pmukit list: no named events listed: %s\n", err.msg);
	}
	flush_names(l);
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
	struct pk_list_metrics_style st = {.details = l->details, .raw = l->raw};
	if (((sections & SEC_METRICGROUP) && pk_list_metrics(&id, PK_LIST_METRIC_GROUPS, st) < 0) ||
	    ((sections & SEC_METRIC) && pk_list_metrics(&id, PK_LIST_METRICS, st) < 0) ||
	    ((sections & SEC_GROUPED) && pk_list_metrics(&id, PK_LIST_GROUPED, st) < 0)) {
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
	bool no_named = false, details = false, raw = false;
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
		case 'R':
			raw = true;
			break;
		default:
			return 129; /* PK_OPT_ERROR, said */
		}
	}
	if (model && pk_cli_model_machine("list", model, root, cpuid))
		return 1;
	unsigned sections = 0;
	struct lister l = {.cpuid = model ? cpuid : NULL, .details = details, .raw = raw};
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
	/* perf 6.1's title, on a terminal only (its pager's), not in a pipe */
	if ((sections & ~(unsigned)(SEC_METRIC | SEC_METRICGROUP)) && !raw && isatty(STDOUT_FILENO))
		printf("\nList of pre-defined events (to be used in -e or -M):\n\n");
	list_catalog(&l, sections);
	if (sections & SEC_NAMED)
		rc |= list_named(&l, (explicit_sections && (sections & SEC_NAMED)) ||
					     (extra & SEC_NAMED));
	if (sections & SEC_TRACEPOINT)
		rc |= list_tracepoints(&l, explicit_sections && (sections & SEC_TRACEPOINT));
	if (sections & (SEC_METRIC | SEC_METRICGROUP | SEC_GROUPED))
		rc |= list_metric_sections(&l, sections);
	pk_pmus_put(pmus);
	free(l.patterns);
	free(l.names);
	if (l.oom) {
		fprintf(stderr, "pmukit list: out of memory\n");
		return 1;
	}
	return rc;
}
