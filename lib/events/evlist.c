/* Event lists: ownership of evsels, groups, warnings, and the per-command
 * attr defaults (pk_evlist_config). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "events/evlist_internal.h"

pk_evsel *pki_evsel_new(void)
{
	pk_evsel *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->attr.size = PK_ATTR_SIZE;
	e->scale = 1.0;
	e->inherit_term = -1;
	e->time_term = -1;
	e->nr_members = 1;
	return e;
}

void pki_evsel_free(pk_evsel *e)
{
	if (!e)
		return;
	free(e->name);
	free(e->pmu_name);
	free(e->unit);
	free(e->call_graph);
	pk_cpumap_put(e->cpus);
	pki_evsel_set_pmu(e, NULL);
	free(e);
}

void pki_evsel_set_pmu(pk_evsel *e, const pk_pmu *pmu)
{
	pk_pmus *old = e->pmu ? e->pmu->owner : NULL;
	if (pmu)
		pk_pmus_get(pmu->owner);
	e->pmu = pmu;
	if (!pmu)
		e->alias = NULL; /* an alias lives in its PMU */
	pk_pmus_put(old);
}

pk_evlist *pk_evlist_new(void)
{
	pk_evlist *l = calloc(1, sizeof(*l));
	if (l) {
		pki_ref_init(&l->ref);
		l->warnings.unique = true;
	}
	return l;
}

pk_evlist *pk_evlist_get(pk_evlist *l)
{
	if (l)
		pki_ref_get(&l->ref);
	return l;
}

void pk_evlist_put(pk_evlist *l)
{
	if (!l || !pki_ref_put(&l->ref))
		return;
	for (size_t i = 0; i < l->nr; i++)
		pki_evsel_free(l->evsels[i]);
	free(l->evsels);
	pki_warnings_free(&l->warnings);
	free(l);
}

int pki_evlist_append(pk_evlist *l, pk_evsel **evsels, size_t n)
{
	if (pki_grow(&l->evsels, &l->cap, l->nr + n, sizeof(*l->evsels)) < 0)
		return -ENOMEM;
	int base = (int)l->nr;
	for (size_t i = 0; i < n; i++) {
		pk_evsel *e = evsels[i];
		e->idx += base;
		e->leader += base;
		l->evsels[l->nr++] = e;
	}
	return 0;
}

pk_evsel *pk_evlist_add(pk_evlist *l, const struct perf_event_attr *attr, const char *name,
			const pk_pmu *pmu)
{
	pk_evsel *e = pki_evsel_new();
	if (!e)
		return NULL;
	pk_evsel_set_attr(e, attr);
	pki_evsel_set_pmu(e, pmu);
	e->nr_members = 1;
	if ((name && !(e->name = strdup(name))) || (pmu && !(e->pmu_name = strdup(pmu->name)))) {
		pki_evsel_free(e);
		return NULL;
	}
	if (pmu && pmu->cpus)
		e->cpus = pk_cpumap_get(pmu->cpus);
	if (pki_evlist_append(l, &e, 1) < 0) {
		pki_evsel_free(e);
		return NULL;
	}
	return e;
}

void pk_evlist_group(pk_evlist *l, size_t first, size_t n)
{
	if (first >= l->nr || n == 0)
		return;
	if (first + n > l->nr)
		n = l->nr - first;
	for (size_t i = first; i < first + n; i++) {
		l->evsels[i]->leader = (int)first;
		l->evsels[i]->nr_members = 0;
	}
	l->evsels[first]->nr_members = (int)n;
}

void pk_evlist_group_weak(pk_evlist *l, size_t first, size_t n)
{
	pk_evlist_group(l, first, n);
	for (size_t i = first; i < first + n && i < l->nr; i++)
		l->evsels[i]->weak_group = true;
}

size_t pk_evlist_count(const pk_evlist *l)
{
	return l ? l->nr : 0;
}

pk_evsel *pk_evlist_at(const pk_evlist *l, size_t idx)
{
	return (l && idx < l->nr) ? l->evsels[idx] : NULL;
}

bool pk_evsel_is_leader(const pk_evsel *e)
{
	return e->leader == e->idx;
}

const struct perf_event_attr *pk_evsel_attr(const pk_evsel *e)
{
	return &e->attr;
}

uint64_t pk_evsel_config3(const pk_evsel *e)
{
	return e->config3;
}

void pk_evsel_set_attr(pk_evsel *e, const struct perf_event_attr *attr)
{
	e->attr = *attr;
	if (!e->attr.size)
		e->attr.size = PK_ATTR_SIZE;
}

int pk_evsel_set_name(pk_evsel *e, const char *name)
{
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(e->name);
	e->name = copy;
	return 0;
}

const char *pk_evsel_name(const pk_evsel *e)
{
	return e->name;
}

const char *pk_evsel_pmu_name(const pk_evsel *e)
{
	return e->pmu_name;
}

const pk_pmu *pk_evsel_pmu(const pk_evsel *e)
{
	return e->pmu;
}

int pk_evsel_idx(const pk_evsel *e)
{
	return e->idx;
}

int pk_evsel_leader(const pk_evsel *e)
{
	return e->leader;
}

int pk_evsel_nr_members(const pk_evsel *e)
{
	return e->nr_members;
}

pk_cpumap *pk_evsel_cpus(const pk_evsel *e)
{
	return e->cpus;
}

double pk_evsel_scale(const pk_evsel *e)
{
	return e->scale;
}

const char *pk_evsel_unit(const pk_evsel *e)
{
	return e->unit;
}

/* perf shows the software clocks in msec (counted in ns). */
static bool is_clock(const pk_evsel *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE && (e->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
						      e->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

pk_tool_event pk_evsel_tool(const pk_evsel *e)
{
	return e->tool;
}

const char *pk_evsel_display_unit(const pk_evsel *e, double *scale)
{
	if (e->tool) {
		*scale = 1.0;
		return "ns";
	}
	if (is_clock(e)) {
		*scale = 1e-6; /* ns counted, msec shown */
		return "msec";
	}
	*scale = e->scale > 0 ? e->scale : 1.0;
	return e->unit ? e->unit : "";
}

bool pk_evsel_precise_max(const pk_evsel *e)
{
	return e->precise_max;
}

size_t pk_evlist_nr_warnings(const pk_evlist *l)
{
	return l ? l->warnings.nr : 0;
}

const char *pk_evlist_warning(const pk_evlist *l, size_t idx)
{
	return l ? pki_warnings_at(&l->warnings, idx) : NULL;
}

void pk_evlist_warn(pk_evlist *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pki_warnings_vadd(&l->warnings, fmt, ap);
	va_end(ap);
}

size_t pk_evsel_pack_attr(const pk_evsel *e, void *buf)
{
	memset(buf, 0, PK_ATTR_SIZE_CONFIG3);
	memcpy(buf, &e->attr, sizeof(e->attr) < PK_ATTR_SIZE ? sizeof(e->attr) : PK_ATTR_SIZE);
	struct perf_event_attr *a = buf;
	if (e->config3) {
		memcpy((char *)buf + PK_ATTR_SIZE, &e->config3, sizeof(e->config3));
		a->size = PK_ATTR_SIZE_CONFIG3;
	} else {
		a->size = PK_ATTR_SIZE;
	}
	return a->size;
}

/* The event of a :S group that samples: the leader, or with a slots leader
 * (Intel TopDown: neither slots nor a metric event may sample, td_role 1
 * and 2) its first member that is neither, as perf 6.1's
 * evsel__read_sampler with arch_topdown_sample_read. */
static const pk_evsel *read_sampler(const pk_evlist *l, const pk_evsel *lead)
{
	if (lead->td_role != 1)
		return lead;
	for (int i = lead->idx + 1; i < lead->idx + lead->nr_members && (size_t)i < l->nr; i++)
		if (l->evsels[i]->td_role == 0)
			return l->evsels[i];
	return lead;
}

/* The sampling rate: a term's, the command's (-c/-F), a period the
 * parser preset (breakpoints, dummy events), or perf's 4000 Hz. */
static void config_rate(pk_evsel *e, const pk_config_opts *o)
{
	struct perf_event_attr *a = &e->attr;
	if (e->period_set || e->freq_set)
		return;
	bool user = o->period || o->freq;
	if (!user && a->type == PERF_TYPE_TRACEPOINT)
		a->sample_period = 1, a->freq = 0; /* perf: every hit */
	if (!user && a->sample_period && !a->freq)
		return;
	if (o->period) {
		a->sample_period = o->period;
		a->freq = 0;
	} else {
		a->sample_freq = o->freq ? o->freq : 4000;
		a->freq = 1;
	}
}

/* One call-graph mode on an attr (perf 6.1's evsel__config_callchain):
 * fp samples the kernel's frame-pointer chain; dwarf samples the user
 * registers and a copy of the user stack for a later unwinder, the kernel
 * chain without its user part. */
static void set_call_graph(struct perf_event_attr *a, int mode, uint32_t dump, uint16_t max_stack,
			   const pk_config_opts *o)
{
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	a->sample_max_stack = max_stack ? max_stack : o->max_stack;
	if (mode == PK_CALL_GRAPH_LBR && !a->exclude_user) { /* else fp */
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
					PERF_SAMPLE_BRANCH_HW_INDEX;
	}
	if (mode != PK_CALL_GRAPH_DWARF)
		return;
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user |= o->dwarf_regs_user;
	a->sample_stack_user = dump ? dump : PK_STACK_DUMP_DEFAULT;
	a->exclude_callchain_user = 1;
}

/* The command's call graph, or the event's call-graph= term in its place:
 * the command's sample bits are taken back first (perf 6.1 leaves the
 * register mask, stack size and exclude_callchain_user of a dwarf default
 * behind); a dwarf term samples ADDR and DATA_SRC too, as perf's does; a
 * max-stack= term alone asks for an fp call graph that deep (perf 6.1). */
static void config_call_graph(pk_evsel *e, const pk_config_opts *o)
{
	struct perf_event_attr *a = &e->attr;
	if (o->call_graph)
		set_call_graph(a, o->call_graph, o->stack_dump_size, 0, o);
	if (!e->call_graph && !e->stack_size && !e->max_stack)
		return;
	if (o->call_graph) {
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
		if (o->call_graph == PK_CALL_GRAPH_DWARF)
			a->sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
		if (o->call_graph == PK_CALL_GRAPH_LBR) {
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
			a->branch_sample_type = 0;
		}
	}
	/* a stack-size= term alone turns the command's call graph off (perf 6.1) */
	const char *cg = e->call_graph ? e->call_graph : e->max_stack ? "fp" : NULL;
	if (!cg || !strcmp(cg, "no"))
		return;
	int mode = !strcmp(cg, "dwarf") ? PK_CALL_GRAPH_DWARF
		   : !strcmp(cg, "lbr") ? PK_CALL_GRAPH_LBR
					: PK_CALL_GRAPH_FP;
	if (mode == PK_CALL_GRAPH_DWARF)
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	set_call_graph(a, mode, e->stack_size, e->max_stack, o);
}

/* perf record's attr for one evsel (perf 6.1's evsel__config). */
static void config_record(pk_evlist *l, pk_evsel *e, const pk_config_opts *o)
{
	struct perf_event_attr *a = &e->attr;
	bool leader = pk_evsel_is_leader(e);
	pk_evsel *lead = l->evsels[e->leader];
	bool sample_read = lead->sample_read && lead->nr_members > 1;
	uint64_t extra = o->sample_type;
	if (e->period_set) /* a period= term drops -P's PERIOD, as perf */
		extra &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | extra;
	if (!o->no_sample_time)
		a->sample_type |= PERF_SAMPLE_TIME;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	if (o->inherit_stat) {
		a->inherit_stat = 1;
		a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
	a->sample_id_all = 1;
	/* the kernel samples group reads only without inherit */
	a->inherit = !o->no_inherit && !sample_read;
	/* members follow their leader (perf record: disabled on leaders only) */
	a->disabled = leader;
	a->enable_on_exec = leader && o->forked_workload && !o->system_wide;
	config_rate(e, o);
	if (a->freq)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	/* tracepoints carry their payload, CPU and period, as perf 6.1 makes
	 * them (a period= term keeps the period bit there too) */
	if (a->type == PERF_TYPE_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (sample_read) {
		a->sample_type |= PERF_SAMPLE_READ;
		a->read_format |= PERF_FORMAT_GROUP;
		if (e != read_sampler(l, lead)) {
			/* the others of a :S group are read through the sampler's
			 * samples; in TopDown's {slots,$sampling_event,metrics}:S the
			 * sampling event samples and reads the group */
			a->sample_period = 0;
			a->freq = 0;
		}
	}
	if (o->sample_regs_user) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = o->sample_regs_user;
	}
	if (o->sample_regs_intr) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = o->sample_regs_intr;
	}
	/* perf's tracking dummy takes no branch stacks (no_aux_samples) */
	bool dummy = a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
	if (o->branch_sample_type && !dummy) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = o->branch_sample_type;
	}
	config_call_graph(e, o);
}

/* perf 6.1's evlist__config: with several events each sample says whose
 * it is, by ID while all sample_types are the same, else by IDENTIFIER
 * (the one place every layout has it). */
static void config_sample_id(pk_evlist *l, const pk_config_opts *o)
{
	if (l->nr < 2 && !o->sample_identifier)
		return;
	bool identifier = o->sample_identifier;
	for (size_t i = 1; i < l->nr; i++)
		identifier |= l->evsels[i]->attr.sample_type != l->evsels[0]->attr.sample_type;
	for (size_t i = 0; i < l->nr; i++) {
		struct perf_event_attr *a = &l->evsels[i]->attr;
		if (identifier) {
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_ID;
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		} else {
			a->sample_type |= PERF_SAMPLE_ID;
		}
		a->read_format |= PERF_FORMAT_ID;
	}
}

/* The defaults perf stat and perf record put on every attr (perf 6.1's
 * evsel__config and stat's create_perf_stat_counter), so that what we open
 * is what perf would open. */
int pk_evlist_config(pk_evlist *l, const pk_config_opts *o, pk_error *err)
{
	(void)err;
	for (size_t i = 0; i < l->nr; i++) {
		pk_evsel *e = l->evsels[i];
		struct perf_event_attr *a = &e->attr;
		bool leader = pk_evsel_is_leader(e);
		pk_evsel *lead = l->evsels[e->leader];
		bool grouped = lead->nr_members > 1;
		/* --all-user / --all-kernel, record's and stat's */
		if (o->all_user || o->all_kernel) {
			a->exclude_kernel = o->all_user;
			a->exclude_user = o->all_kernel;
		}
		if (o->mode == PK_CONFIG_STAT) {
			a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
			if (grouped)
				a->read_format |= PERF_FORMAT_ID | PERF_FORMAT_GROUP;
			a->sample_type = PERF_SAMPLE_IDENTIFIER;
			a->inherit = !o->no_inherit;
			if (leader) {
				a->disabled = 1;
				a->enable_on_exec = o->forked_workload && !o->system_wide;
			}
			/* stat does not sample: drop periods a term may have set */
			if (!e->period_set && !e->freq_set) {
				a->sample_period = 0;
				a->freq = 0;
			}
		} else {
			config_record(l, e, o);
		}
	}
	if (o->mode == PK_CONFIG_RECORD)
		config_sample_id(l, o);
	return 0;
}
