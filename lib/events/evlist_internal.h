/* Internal to the events module. */
#ifndef PK_EVENTS_INTERNAL_H
#define PK_EVENTS_INTERNAL_H

#include <pmukit/events.h>

struct pk_evlist {
	int refcnt;
	pk_evsel **evsels;
	size_t nr, cap;
	char **warnings;
	size_t nr_warnings, cap_warnings;
};

/* Allocates an evsel with attr defaults (size, exclude_guest as perf). */
pk_evsel *pk_evsel_new(void);
void pk_evsel_free(pk_evsel *evsel);
/* Points the evsel at pmu (may be NULL), holding a reference on the PMU's
 * snapshot (pmu->owner) for as long as the evsel points into it. */
void pk_evsel_set_pmu(pk_evsel *evsel, const pk_pmu *pmu);
/* Appends evsels (taking ownership), renumbering idx/leader by offset. */
int pk_evlist_append(pk_evlist *evlist, pk_evsel **evsels, size_t n);

#endif
