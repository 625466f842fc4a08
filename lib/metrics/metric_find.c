/* The vendors' metric tables looked up for a CPU (stat -M, list metric):
 * the core of lib/pmu/cpu_models.c picks the generated table
 * (metrics_intel.c), names and groups match without case as perf's do, and
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
	const pki_cpu_model *m = pki_cpu_model_find(id, pmu ? pmu : "cpu");
	if (!m && !pmu)
		m = pki_cpu_model_find(id, "cpu_core");
	if (!m)
		return NULL;
	for (size_t i = 0; i < pki_metric_intel_nr; i++)
		if (pki_metric_intel[i].uarch == m->uarch && (!m->pfm[0] ||
		    !strcmp(pki_metric_intel[i].pfm, m->pfm[0])))
			return &pki_metric_intel[i];
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
