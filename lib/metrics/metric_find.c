/* The vendors' metric tables looked up for a CPU (stat -M, list metric):
 * the core and the platform (perf's pmu-events directory) of
 * lib/pmu/cpu_models.c pick the generated table (metrics_intel.c, else
 * metrics_perf.c; a hybrid's platform has one per core), names and groups match without case as perf's do, and
 * a formula's event names resolve to their raw core encodings.
 *
 * Invariants: a lookup never allocates; an event that is no core event is
 * refused by name, never opened as something else. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "metrics/metric_tables.h"

static const pki_metric_cpu_table *table_of(const pk_cpuid *id, const char *pmu)
{
	/* no PMU named: x86's core PMU, a hybrid's P-core, an Arm server's
	 * (ACPI's armv8_pmuv3_0) */
	static const char *const cores[] = {"cpu", "cpu_core", "armv8_pmuv3_0"};
	const pki_cpu_model *m = pmu ? pki_cpu_model_find(id, pmu) : NULL;
	for (size_t i = 0; !pmu && !m && i < PK_ARRAY_SIZE(cores); i++)
		m = pki_cpu_model_find(id, cores[i]);
	if (!m)
		return NULL;
	const struct {
		const pki_metric_cpu_table *v;
		size_t nr;
	} sets[] = {{pki_metric_intel, pki_metric_intel_nr}, {pki_metric_perf, pki_metric_perf_nr}};
	for (size_t s = 0; s < PK_ARRAY_SIZE(sets); s++)
		for (size_t i = 0; i < sets[s].nr; i++)
			if (sets[s].v[i].uarch == m->uarch && m->platform &&
			    !strcmp(sets[s].v[i].platform, m->platform))
				return &sets[s].v[i];
	return NULL;
}

const pk_metric_def *pk_metric_defs_cpu(const pk_cpuid *id, const char *pmu, size_t *nr,
					const char **source)
{
	const pki_metric_cpu_table *t = id ? table_of(id, pmu) : NULL;
	*nr = t ? t->nr_rows : 0;
	if (source)
		*source = t ? t->source : NULL;
	return t ? t->rows : NULL;
}

bool pk_metric_named(const pk_metric_def *row, const char *name)
{
	if (!strcasecmp(row->name, name))
		return true;
	if (!row->groups || !*row->groups) /* perf's pseudo group of these */
		return !strcasecmp(name, PKI_METRIC_NO_GROUP);
	size_t len = strlen(name);
	for (const char *g = row->groups; g && *g;) {
		const char *end = strchr(g, ';');
		size_t glen = end ? (size_t)(end - g) : strlen(g);
		if (glen == len && !strncasecmp(g, name, len))
			return true;
		g += glen + (end != NULL);
	}
	return false;
}

const char *pki_metric_event_spec(const pk_cpuid *id, const char *pmu, const char *event)
{
	const pki_metric_cpu_table *t = id ? table_of(id, pmu) : NULL;
	for (size_t i = 0; t && i < t->nr_events; i++)
		if (!strcmp(t->events[i].name, event))
			return t->events[i].core ? NULL : t->events[i].spec;
	return NULL;
}

int pk_metric_event_config(const pk_cpuid *id, const char *pmu, const char *event,
			   uint64_t *config, pk_error *err)
{
	const pki_metric_cpu_table *t = id ? table_of(id, pmu) : NULL;
	for (size_t i = 0; t && i < t->nr_events; i++) {
		if (strcmp(t->events[i].name, event))
			continue;
		if (!t->events[i].core)
			return pk_err(err, -EOPNOTSUPP,
				      "%s: not a core PMU event (uncore, MSR or energy events "
				      "of metrics are not supported yet)", event);
		*config = t->events[i].config;
		return 0;
	}
	return pk_err(err, -ENOENT, "%s: no metric of this CPU names this event", event);
}
