/* Internal to the events module. */
#ifndef PK_EVENTS_INTERNAL_H
#define PK_EVENTS_INTERNAL_H

#include <pmukit/events.h>

#include "core/refcount.h"
#include "core/util.h"

struct pk_evsel {
	struct perf_event_attr attr;
	uint64_t config3;          /* kept apart: the installed UAPI header may predate it */
	char *name;                /* as perf prints it ("cycles", "cpu_core/cycles/") */
	char *pmu_name;            /* the PMU it counts on ("cpu_core", "software", "tracepoint") */
	const pk_pmu *pmu;         /* that PMU's sysfs data, NULL when sysfs has none;
				    * a reference on pmu->owner is held */
	int idx;                   /* position in the list */
	int leader;                /* index of the group leader; == idx for leaders and lone events */
	int nr_members;            /* on a leader: events in its group, itself included */
	pk_cpumap *cpus;           /* CPUs the PMU counts on (cpus/cpumask); NULL: any CPU */
	bool precise_max;          /* :P, use the highest precise_ip the PMU accepts */
	bool sample_read;          /* :S, leader samples read the group */
	bool weak_group;           /* :W */
	bool period_set;           /* period= term given */
	bool freq_set;             /* freq= term given */
	bool pmu_explicit;         /* the user named the PMU (cpu_core/...), not expanded */
	bool exclude_GH;           /* :G or :H was given (decides perf's exclude_guest default) */
	int inherit_term;          /* inherit (1) / no-inherit (0) term; -1: command default */
	int time_term;             /* time=0/1 term; -1: command default */
	char *call_graph;          /* call-graph= term ("fp", "dwarf", "lbr", "no"), or NULL */
	uint32_t stack_size;       /* stack-size= term, 0: default */
	uint16_t max_stack;        /* max-stack= term, 0: default */
	const pk_alias *alias;     /* the sysfs alias it was made from, or NULL */
	double scale;              /* from the sysfs alias, 1.0 otherwise */
	char *unit;                /* from the sysfs alias, or NULL */
	int src_pos, src_len;      /* where in the parsed string this event came from */
	/* TopDown (fix_topdown): 1 the slots leader of a group with metric
	 * events, 2 a metric event, 0 neither. In a :S group the leader and
	 * metric events never sample; the first other member does. */
	int td_role;
	pk_tool_event tool;        /* a tool event (duration_time ...), PK_TOOL_NONE */
	bool absent;               /* no PMU of this machine counts it (stat -M's hardware
				    * events without a core PMU): never opened, counted as
				    * PK_OPEN_UNSUPPORTED; whoever made it says why */
};

struct pk_evlist {
	pki_ref ref;
	pk_evsel **evsels;
	size_t nr, cap;
	pki_warnings warnings;     /* unique lines */
};

/* Allocates an evsel with attr defaults (size, exclude_guest as perf). */
pk_evsel *pki_evsel_new(void);
void pki_evsel_free(pk_evsel *evsel);
/* Points the evsel at pmu (may be NULL), holding a reference on the PMU's
 * snapshot (pmu->owner) for as long as the evsel points into it. */
void pki_evsel_set_pmu(pk_evsel *evsel, const pk_pmu *pmu);
/* Appends evsels (taking ownership), renumbering idx/leader by offset. */
int pki_evlist_append(pk_evlist *evlist, pk_evsel **evsels, size_t n);

#endif
