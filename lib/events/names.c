/* Symbolic events as perf spells them. Tables of data: each event with its
 * aliases; cache events as (cache, op, result) products checked against the
 * combinations perf considers valid. */
#include <pmukit/events.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "events/names.h"

struct sym_event {
	const char *names[3]; /* canonical first */
	uint64_t config;
	uint8_t evsel_name;   /* which spelling perf gives an attr without a name */
};

static const struct sym_event hw_events[] = {
	{{"cpu-cycles", "cycles"}, PERF_COUNT_HW_CPU_CYCLES, 1},
	{{"instructions"}, PERF_COUNT_HW_INSTRUCTIONS},
	{{"cache-references"}, PERF_COUNT_HW_CACHE_REFERENCES},
	{{"cache-misses"}, PERF_COUNT_HW_CACHE_MISSES},
	{{"branch-instructions", "branches"}, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1},
	{{"branch-misses"}, PERF_COUNT_HW_BRANCH_MISSES},
	{{"bus-cycles"}, PERF_COUNT_HW_BUS_CYCLES},
	{{"stalled-cycles-frontend", "idle-cycles-frontend"}, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{{"stalled-cycles-backend", "idle-cycles-backend"}, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{{"ref-cycles"}, PERF_COUNT_HW_REF_CPU_CYCLES},
};

static const struct sym_event sw_events[] = {
	{{"cpu-clock"}, PERF_COUNT_SW_CPU_CLOCK},
	{{"task-clock"}, PERF_COUNT_SW_TASK_CLOCK},
	{{"page-faults", "faults"}, PERF_COUNT_SW_PAGE_FAULTS},
	{{"context-switches", "cs"}, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{{"cpu-migrations", "migrations"}, PERF_COUNT_SW_CPU_MIGRATIONS},
	{{"minor-faults"}, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{{"major-faults"}, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{{"alignment-faults"}, PERF_COUNT_SW_ALIGNMENT_FAULTS},
	{{"emulation-faults"}, PERF_COUNT_SW_EMULATION_FAULTS},
	{{"dummy"}, PERF_COUNT_SW_DUMMY},
	{{"bpf-output"}, PERF_COUNT_SW_BPF_OUTPUT},
	{{"cgroup-switches"}, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, newer than some headers */},
};

/* perf's tool events, in perf list's order. */
static const char *const tool_events[PK_TOOL_NR] = {
	[PK_TOOL_DURATION] = "duration_time",
	[PK_TOOL_USER] = "user_time",
	[PK_TOOL_SYSTEM] = "system_time",
};

/* perf's spellings for the three parts of a cache event name. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][4] = {
	[PERF_COUNT_HW_CACHE_L1D] = {"L1-dcache", "l1-d", "l1d", "L1-data"},
	[PERF_COUNT_HW_CACHE_L1I] = {"L1-icache", "l1-i", "l1i", "L1-instruction"},
	[PERF_COUNT_HW_CACHE_LL] = {"LLC", "L2"},
	[PERF_COUNT_HW_CACHE_DTLB] = {"dTLB", "d-tlb", "Data-TLB"},
	[PERF_COUNT_HW_CACHE_ITLB] = {"iTLB", "i-tlb", "Instruction-TLB"},
	[PERF_COUNT_HW_CACHE_BPU] = {"branch", "branches", "bpu", "btb"},
	[PERF_COUNT_HW_CACHE_NODE] = {"node"},
};

static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][4] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = {"load", "loads", "read"},
	[PERF_COUNT_HW_CACHE_OP_WRITE] = {"store", "stores", "write"},
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = {"prefetch", "prefetches", "speculative-read",
					     "speculative-load"},
};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][4] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = {"refs", "Reference", "ops", "access"},
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = {"misses", "miss"},
};

/* Which ops each cache supports (perf lists only these). */
#define OP(x) (1u << PERF_COUNT_HW_CACHE_OP_##x)
static const unsigned cache_valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_L1I] = OP(READ) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_LL] = OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_DTLB] = OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_ITLB] = OP(READ),
	[PERF_COUNT_HW_CACHE_BPU] = OP(READ),
	[PERF_COUNT_HW_CACHE_NODE] = OP(READ) | OP(WRITE) | OP(PREFETCH),
};
#undef OP

static uint64_t cache_config(unsigned cache, unsigned op, unsigned result)
{
	return (uint64_t)cache | (uint64_t)op << PK_CACHE_OP_SHIFT |
	       (uint64_t)result << PK_CACHE_RESULT_SHIFT;
}


static bool lookup_table(const struct sym_event *t, size_t n, const char *name, uint64_t *config)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < PK_ARRAY_SIZE(t[i].names) && t[i].names[j]; j++)
			if (!strcmp(t[i].names[j], name)) {
				*config = t[i].config;
				return true;
			}
	return false;
}

/* Matches one '-'-separated part of a cache name against a spelling list;
 * returns the index or -1. Parts compare case-insensitively, as perf does. */
static int match_part(const char *part, size_t len, const char *const (*list)[4], int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < 4 && list[i][j]; j++)
			if (strlen(list[i][j]) == len && !strncasecmp(list[i][j], part, len))
				return i;
	return -1;
}

/* Cache names are "<cache>[-<op>][-<result>]" where the cache part may itself
 * contain '-' (L1-dcache). Try every split point for the cache part. */
static bool lookup_cache(const char *name, uint64_t *config)
{
	size_t n = strlen(name);
	for (size_t cut = 1; cut <= n; cut++) {
		if (cut < n && name[cut] != '-')
			continue;
		int cache = match_part(name, cut, cache_names, PERF_COUNT_HW_CACHE_MAX);
		if (cache < 0)
			continue;
		int op = -1, result = -1;
		const char *p = name + cut;
		bool ok = true;
		while (*p == '-' && ok) {
			p++;
			const char *end = strchr(p, '-');
			size_t len = end ? (size_t)(end - p) : strlen(p);
			int o = match_part(p, len, cache_ops, PERF_COUNT_HW_CACHE_OP_MAX);
			int r = match_part(p, len, cache_results, PERF_COUNT_HW_CACHE_RESULT_MAX);
			if (o >= 0 && op < 0 && result < 0)
				op = o;
			else if (r >= 0 && result < 0)
				result = r;
			else
				ok = false;
			p += len;
		}
		if (!ok || *p)
			continue;
		if (op < 0)
			op = PERF_COUNT_HW_CACHE_OP_READ;
		if (result < 0)
			result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
		if (!(cache_valid_ops[cache] & (1u << op)))
			return false;
		*config = cache_config((unsigned)cache, (unsigned)op, (unsigned)result);
		return true;
	}
	return false;
}

bool pki_symbolic_lookup(const char *name, uint32_t *type, uint64_t *config)
{
	if (lookup_table(hw_events, PK_ARRAY_SIZE(hw_events), name, config)) {
		*type = PERF_TYPE_HARDWARE;
		return true;
	}
	if (lookup_table(sw_events, PK_ARRAY_SIZE(sw_events), name, config)) {
		*type = PERF_TYPE_SOFTWARE;
		return true;
	}
	if (lookup_cache(name, config)) {
		*type = PERF_TYPE_HW_CACHE;
		return true;
	}
	return false;
}

pk_tool_event pki_tool_lookup(const char *name)
{
	for (int t = PK_TOOL_NONE + 1; t < PK_TOOL_NR; t++)
		if (!strcmp(tool_events[t], name))
			return (pk_tool_event)t;
	return PK_TOOL_NONE;
}

const char *pk_tool_event_name(pk_tool_event t)
{
	return t > PK_TOOL_NONE && t < PK_TOOL_NR ? tool_events[t] : NULL;
}

const char *pki_hw_canonical_name(uint64_t config)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(hw_events); i++)
		if (hw_events[i].config == config)
			return hw_events[i].names[0];
	return NULL;
}

size_t pk_hw_event_count(void)
{
	return PK_ARRAY_SIZE(hw_events);
}

const char *pk_hw_event_name(size_t idx, uint64_t *config)
{
	if (idx >= PK_ARRAY_SIZE(hw_events))
		return NULL;
	if (config)
		*config = hw_events[idx].config;
	return hw_events[idx].names[0];
}

static const char *sym_alias(const struct sym_event *ev, size_t count, size_t idx, size_t n)
{
	if (idx >= count || n + 1 >= PK_ARRAY_SIZE(ev[idx].names))
		return NULL;
	return ev[idx].names[n + 1];
}

const char *pk_hw_event_alias(size_t idx, size_t n)
{
	return sym_alias(hw_events, PK_ARRAY_SIZE(hw_events), idx, n);
}

const char *pk_sw_event_alias(size_t idx, size_t n)
{
	return sym_alias(sw_events, PK_ARRAY_SIZE(sw_events), idx, n);
}

size_t pk_sw_event_count(void)
{
	return PK_ARRAY_SIZE(sw_events);
}

const char *pk_sw_event_name(size_t idx, uint64_t *config)
{
	if (idx >= PK_ARRAY_SIZE(sw_events))
		return NULL;
	if (config)
		*config = sw_events[idx].config;
	return sw_events[idx].names[0];
}

/* The listing order of perf: per cache, per valid op, access then miss, as
 * "<cache>-<op plural>" and "<cache>-<op>-misses" ("L1-dcache-loads",
 * "L1-dcache-load-misses"). */
static const char *const op_plural[PERF_COUNT_HW_CACHE_OP_MAX] = {"loads", "stores",
								   "prefetches"};
static const char *const op_single[PERF_COUNT_HW_CACHE_OP_MAX] = {"load", "store", "prefetch"};

size_t pk_cache_event_count(void)
{
	size_t n = 0;
	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++)
			if (cache_valid_ops[c] & (1u << o))
				n += 2;
	return n;
}

void pki_cache_config_name(uint64_t config, char *buf, size_t size)
{
	unsigned cache = config & PK_CACHE_FIELD_MASK;
	unsigned op = (config >> PK_CACHE_OP_SHIFT) & PK_CACHE_FIELD_MASK;
	unsigned res = (config >> PK_CACHE_RESULT_SHIFT) & PK_CACHE_FIELD_MASK;
	if (cache >= PERF_COUNT_HW_CACHE_MAX)
		snprintf(buf, size, "unknown-ext-hardware-cache-type");
	else if (op >= PERF_COUNT_HW_CACHE_OP_MAX)
		snprintf(buf, size, "unknown-ext-hardware-cache-op");
	else if (res >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		snprintf(buf, size, "unknown-ext-hardware-cache-result");
	else if (!(cache_valid_ops[cache] & (1u << op)))
		snprintf(buf, size, "invalid-cache");
	else if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		snprintf(buf, size, "%s-%s", cache_names[cache][0], op_plural[op]);
	else
		snprintf(buf, size, "%s-%s-misses", cache_names[cache][0], op_single[op]);
}

#define CACHE_LIST_MAX (PERF_COUNT_HW_CACHE_MAX * PERF_COUNT_HW_CACHE_OP_MAX * 2)
#define CACHE_NAME_MAX 48

static char cache_list_names[CACHE_LIST_MAX][CACHE_NAME_MAX];
static uint64_t cache_list_configs[CACHE_LIST_MAX];
static pthread_once_t cache_list_once = PTHREAD_ONCE_INIT;

static void build_cache_list(void)
{
	size_t n = 0;
	for (unsigned c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (unsigned o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++) {
			if (!(cache_valid_ops[c] & (1u << o)))
				continue;
			for (unsigned r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++, n++) {
				cache_list_configs[n] = cache_config(c, o, r);
				pki_cache_config_name(cache_list_configs[n], cache_list_names[n],
						     CACHE_NAME_MAX);
			}
		}
}

const char *pk_cache_event_name(size_t idx, uint64_t *config)
{
	pthread_once(&cache_list_once, build_cache_list);
	if (idx >= pk_cache_event_count())
		return NULL;
	if (config)
		*config = cache_list_configs[idx];
	return cache_list_names[idx];
}

/* perf 6.1 names attrs of the software events up to dummy only. */
#define PK_SW_EVSEL_NAMED_MAX PERF_COUNT_SW_DUMMY

const char *pki_symbolic_evsel_name(uint32_t type, uint64_t config)
{
	const struct sym_event *tab;
	size_t n;
	if (type == PERF_TYPE_HARDWARE) {
		tab = hw_events;
		n = PK_ARRAY_SIZE(hw_events);
	} else if (type == PERF_TYPE_SOFTWARE && config <= PK_SW_EVSEL_NAMED_MAX) {
		tab = sw_events;
		n = PK_ARRAY_SIZE(sw_events);
	} else {
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (tab[i].config == config)
			return tab[i].names[tab[i].evsel_name];
	return NULL;
}

/* ":kuhpppHG", as perf 6.1 appends them to names: the contexts counted,
 * shown only when some are excluded; the host/guest pair shows when it
 * differs from what the others imply. */
int pk_attr_modifiers(const struct perf_event_attr *a, char *buf, size_t size)
{
	char m[16];
	size_t n = 0;
	bool guest_default = false;
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			m[n++] = 'k';
		if (!a->exclude_user)
			m[n++] = 'u';
		if (!a->exclude_hv)
			m[n++] = 'h';
		guest_default = true;
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
		m[n++] = 'p';
	if (a->precise_ip)
		guest_default = true;
	if (a->exclude_host || (bool)a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			m[n++] = 'H';
		if (!a->exclude_guest)
			m[n++] = 'G';
	}
	m[n] = '\0';
	return snprintf(buf, size, "%s%s", n ? ":" : "", m);
}

size_t pki_symbolic_similar(const char *word, const char **out, size_t max)
{
	const struct sym_event *tables[] = {hw_events, sw_events};
	const size_t sizes[] = {PK_ARRAY_SIZE(hw_events), PK_ARRAY_SIZE(sw_events)};
	size_t n = 0;
	for (size_t t = 0; t < 2; t++)
		for (size_t i = 0; i < sizes[t]; i++)
			for (size_t k = 0; k < 3 && tables[t][i].names[k]; k++)
				if (n < max && pk_similar(word, tables[t][i].names[k]))
					out[n++] = tables[t][i].names[k];
	return n;
}
