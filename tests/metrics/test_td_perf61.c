/* Differential test of the TopDown formulas against Linux perf 6.1.
 *
 * perf 6.1 computes `perf stat -M TopdownL1` / `-M TopdownL2` (its metric
 * tables for Skylake, Ice Lake, Sapphire Rapids and Alder Lake) from
 * whatever its counters read. In perf-ns.sh's namespace (a fixture tree at
 * /sys/bus/event_source/devices, PERF_CPUID naming the CPU) with
 * peo_stub.c serving chosen counts from read() ($PK_PEO_COUNTS), perf
 * computes the metrics of a machine we do not have. Each run below is such a
 * perf run (per process, -a, -p, multiplexed, SMT on); its CSV output and
 * the stub's log of what perf opened and read are kept in
 * tests/data/perf-6.1/topdown/<run>.csv and .log, next to the count sets
 * (<set>.counts: per event, perf's encoding and the count, derived from a
 * TopDown breakdown described in each file).
 *
 * pmukit's side is one function, nodes_for(): counts in (scaled and summed
 * per encoding, as perf computed them from the log), node values out. By
 * default it is the product's path, pk_topdown (td_lib_nodes(): the
 * library chooses the method, adds and encodes the events, computes the
 * nodes); PK_TD_PMUKIT=files takes td_pmukit_nodes() instead, which
 * evaluates Intel's tables directly with lib/metrics (tests/data/perfmon:
 * the TmaL1/TmaL2 nodes of the P-core metric files, the Gracemont column of
 * the E-core TMA table for Alder Lake's cpu_atom), a cross-check of the
 * library's tables; both give the same count.
 * Every node perf prints (its TopdownL1/L2
 * metrics and its older topdown shadow metrics of the topdown-* events) is
 * compared with pmukit's node of the same name. perf prints percentages with
 * one decimal, so the exact value lies within 0.05 of the printed one: a
 * node is identical when |pmukit - perf| <= 0.05 (+1e-9 for the binary
 * fractions). Every other difference must be listed in `known` below with
 * its reason (docs/topdown-perf61.md explains each); an unlisted difference
 * fails, and so does a listed one that no run shows (the list stays true).
 *
 * The stored comparison runs everywhere. The live test (root, perf, cc and
 * unshare -m needed, else skipped with the reason printed) reruns perf for
 * every run, compares its output with pmukit the same way and with the
 * stored transcript; PK_TD_REGEN=1 writes the live transcripts into
 * tests/data/perf-6.1/topdown instead. */
#include "helpers.h"
#include "perfmon_json.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <pmukit/events.h>
#include <pmukit/metrics.h>
#include <pmukit/pmu.h>
#include <pmukit/topdown.h>
#include <pmukit/cpuid.h>

#define TD_DIR "perf-6.1/topdown"
#define MAX_COUNTS 128
#define MAX_NODES 128
#define MAX_CPUS 256

/* ---- the machines and the runs ------------------------------------------------ */

typedef struct td_machine {
	const char *name;
	const char *cpuid;     /* PERF_CPUID */
	const char *core_pmu;  /* the PMU the TopDown nodes are for */
	const char *metrics;   /* Intel's metric file (tests/data/...) */
	const char *events;    /* Intel's event file of that core */
	const char *csv_column; /* metrics is the E-core TMA table: this core's column */
} td_machine;

static const td_machine machines[] = {
	{"skylake", "GenuineIntel-6-5E-3", "cpu", "perfmon/SKL/metrics/skylake_metrics.json",
	 "perfmon/SKL/events/skylake_core.json"},
	{"icelake", "GenuineIntel-6-7E-5", "cpu", "perfmon/ICL/metrics/icelake_metrics.json",
	 "perfmon/ICL/events/icelake_core.json"},
	{"sapphirerapids", "GenuineIntel-6-8F-8", "cpu",
	 "perfmon/SPR/metrics/sapphirerapids_metrics.json",
	 "perfmon/SPR/events/sapphirerapids_core.json"},
	{"alderlake", "GenuineIntel-6-97-2", "cpu_core",
	 "perfmon/ADL/metrics/alderlake_metrics_goldencove_core.json",
	 "perfmon/ADL/events/alderlake_goldencove_core.json"},
	{"alderlake", "GenuineIntel-6-97-2", "cpu_atom", "perfmon/E-core_TMA_Metrics.csv",
	 "perfmon/ADL/events/alderlake_gracemont_core.json", "GRT"},
};

typedef struct td_run {
	const char *id;        /* transcript name */
	const char *machine;
	const char *counts;    /* count set, <counts>.counts */
	bool smt;              /* SMT shown on: two CPUs, one core */
	const char *args;      /* perf stat's arguments ($! is a sleeping process) */
} td_run;

static const td_run runs[] = {
	{"skylake-l1", "skylake", "skylake", false, "-M TopdownL1 -x, true"},
	{"skylake-l2", "skylake", "skylake", false, "-M TopdownL2 -x, true"},
	{"skylake-pid-l2", "skylake", "skylake", false, "-p $! -M TopdownL2 -x, sleep 0.01"},
	{"skylake-smt-l1", "skylake", "skylake-smt", true, "-M TopdownL1 -x, true"},
	{"skylake-smt-a-l1", "skylake", "skylake-smt", true, "-a -M TopdownL1 -x, sleep 0.01"},
	{"skylake-smt-a-l2", "skylake", "skylake-smt", true, "-a -M TopdownL2 -x, sleep 0.01"},
	{"icelake-l1", "icelake", "icelake", false, "-M TopdownL1 -x, true"},
	{"icelake-l2", "icelake", "icelake", false, "-M TopdownL2 -x, true"},
	{"icelake-a-l1", "icelake", "icelake", false, "-a -M TopdownL1 -x, sleep 0.01"},
	{"icelake-mux-l2", "icelake", "icelake-mux", false, "-M TopdownL2 -x, true"},
	{"sapphirerapids-l1", "sapphirerapids", "sapphirerapids", false, "-M TopdownL1 -x, true"},
	{"sapphirerapids-l2", "sapphirerapids", "sapphirerapids", false, "-M TopdownL2 -x, true"},
	{"sapphirerapids-pid-l1", "sapphirerapids", "sapphirerapids", false,
	 "-p $! -M TopdownL1 -x, sleep 0.01"},
	{"sapphirerapids-mux-a-l2", "sapphirerapids", "sapphirerapids-mux", false,
	 "-a -M TopdownL2 -x, sleep 0.01"},
	{"sapphirerapids-zero-l1", "sapphirerapids", "sapphirerapids-zero", false,
	 "-M TopdownL1 -x, true"},
	{"sapphirerapids-zero-l2", "sapphirerapids", "sapphirerapids-zero", false,
	 "-M TopdownL2 -x, true"},
	{"alderlake-l1", "alderlake", "alderlake", false, "-M TopdownL1 -x, true"},
	{"alderlake-l2", "alderlake", "alderlake", false, "-M TopdownL2 -x, true"},
};

/* Differences from perf 6.1 with their reasons (docs/topdown-perf61.md).
 * source: "metric" (perf's TopdownL1/L2 metric) or "shadow" (perf's older
 * topdown shadow metric printed after a topdown-* event). */
static const struct td_known {
	const char *machine, *source, *node, *reason;
} known[] = {
#include "td_perf61_known.h"
};

/* The machine's entry for the core PMU pmu (NULL: its first). */
static const td_machine *machine_of(const char *name, const char *pmu)
{
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (!strcmp(machines[i].name, name) && (!pmu || !strcmp(machines[i].core_pmu, pmu)))
			return &machines[i];
	if (!pmu)
		fail_msg("no machine %s", name);
	return NULL;
}

/* ---- counts: the count sets and what perf read -------------------------------- */

/* One event's count, by perf's encoding. */
typedef struct td_count {
	char name[96];
	uint32_t type;
	uint64_t config, config1;
	double value;          /* counts: per descriptor; counts in: scaled and summed */
	double enabled, running;
} td_count;

typedef struct td_counts {
	td_count v[MAX_COUNTS];
	size_t nr;
	double enabled, running; /* the default times */
} td_counts;

/* "key=value" among the words of line; false when absent. */
static bool word(const char *line, const char *key, char *buf, size_t len)
{
	size_t n = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p += n)
		if ((p == line || p[-1] == ' ') && p[n] == '=') {
			size_t k = strcspn(p + n + 1, " \n");
			snprintf(buf, len, "%.*s", (int)k, p + n + 1);
			return true;
		}
	return false;
}

static double word_num(const char *line, const char *key, double dflt)
{
	char buf[64];
	return word(line, key, buf, sizeof(buf)) ? strtod(buf, NULL) : dflt;
}

static uint64_t word_u64(const char *line, const char *key)
{
	char buf[64];
	return word(line, key, buf, sizeof(buf)) ? strtoull(buf, NULL, 0) : 0;
}

/* Reads a count set (the stub's $PK_PEO_COUNTS format, with names). */
static void load_counts(const char *set, td_counts *c)
{
	char rel[256], line[512];
	snprintf(rel, sizeof(rel), TD_DIR "/%s.counts", set);
	FILE *f = fopen(pk_test_fixture(rel), "r");
	if (!f)
		fail_msg("%s: cannot open", rel);
	memset(c, 0, sizeof(*c));
	c->enabled = c->running = 1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "times ", 6)) {
			c->enabled = word_num(line, "enabled", 1);
			c->running = word_num(line, "running", 1);
		} else if (line[0] != '#' && strstr(line, "type=")) {
			assert_true(c->nr < MAX_COUNTS);
			td_count *e = &c->v[c->nr++];
			if (!word(line, "name", e->name, sizeof(e->name)))
				fail_msg("%s: a count without a name: %s", rel, line);
			e->type = (uint32_t)word_u64(line, "type");
			e->config = word_u64(line, "config");
			e->config1 = word_u64(line, "config1");
			e->value = word_num(line, "value", NAN);
			e->enabled = word_num(line, "enabled", 0);
			e->running = word_num(line, "running", 0);
		}
	}
	fclose(f);
	for (size_t i = 0; i < c->nr; i++)
		if (!c->v[i].enabled)
			c->v[i].enabled = c->enabled, c->v[i].running = c->running;
}

/* The index of the count with that encoding, or -1. */
static long find_enc(const td_counts *c, uint32_t type, uint64_t config, uint64_t config1)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->v[i].type == type && c->v[i].config == config && c->v[i].config1 == config1)
			return (long)i;
	return -1;
}

/* What a descriptor of the stub's log counted. */
typedef struct td_fd {
	uint32_t type;
	uint64_t config, config1;
	int cpu;
} td_fd;

/* The counts perf computed from: per encoding, the scaled value read on
 * each CPU (one read per event and CPU is used; every copy of an event
 * perf opened in several groups must read the same), summed over the CPUs.
 * Events of the set that perf did not open count as they would have read.
 * Fails on a read that was not served. */
static void counts_in(const char *log, const td_counts *set, td_counts *in)
{
	static td_fd fds[4096];
	static double per_cpu[MAX_COUNTS][MAX_CPUS];
	memset(in, 0, sizeof(*in));
	bool cpus[MAX_CPUS] = {0};
	int ncpus = 0;
	for (size_t i = 0; i < MAX_COUNTS; i++)
		for (size_t k = 0; k < MAX_CPUS; k++)
			per_cpu[i][k] = NAN;
	char line[512], *save = NULL, *text = strdup(log);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		snprintf(line, sizeof(line), "%s", l);
		int fd = (int)word_num(line, "fd", -1);
		if (fd < 0 || fd >= 4096)
			continue;
		if (!strncmp(line, "open ", 5)) {
			int cpu = (int)word_num(line, "cpu", -1);
			fds[fd] = (td_fd){(uint32_t)word_u64(line, "type"), word_u64(line, "config"),
					  word_u64(line, "config1"), cpu < 0 ? 0 : cpu};
			assert_true(fds[fd].cpu < MAX_CPUS);
			if (!cpus[fds[fd].cpu])
				ncpus++;
			cpus[fds[fd].cpu] = true;
			continue;
		}
		if (strncmp(line, "read ", 5))
			continue;
		if (strstr(line, "unserved"))
			fail_msg("perf read an event the count set does not serve: %s", line);
		const td_fd *d = &fds[fd];
		long ei = find_enc(in, d->type, d->config, d->config1);
		td_count *e = ei >= 0 ? &in->v[ei] : NULL;
		if (!e) {
			assert_true(in->nr < MAX_COUNTS);
			e = &in->v[in->nr++];
			*e = (td_count){.type = d->type, .config = d->config, .config1 = d->config1};
			long si = find_enc(set, d->type, d->config, d->config1);
			snprintf(e->name, sizeof(e->name), "%s", si >= 0 ? set->v[si].name : "?");
		}
		double run = word_num(line, "running", 0), v = word_num(line, "value", 0);
		double scaled = run ? v * word_num(line, "enabled", 0) / run : 0;
		double *slot = &per_cpu[e - in->v][d->cpu];
		if (!isnan(*slot) && fabs(*slot - scaled) > 1e-6 * fabs(scaled))
			fail_msg("%s read %g and %g on CPU %d", e->name, *slot, scaled, d->cpu);
		*slot = scaled;
	}
	free(text);
	for (size_t i = 0; i < in->nr; i++)
		for (size_t k = 0; k < MAX_CPUS; k++)
			if (!isnan(per_cpu[i][k]))
				in->v[i].value += per_cpu[i][k];
	for (size_t i = 0; i < set->nr; i++) {
		const td_count *s = &set->v[i];
		if (find_enc(in, s->type, s->config, s->config1) >= 0)
			continue;
		assert_true(in->nr < MAX_COUNTS);
		in->v[in->nr] = *s;
		in->v[in->nr++].value = s->value * s->enabled / s->running * (ncpus ? ncpus : 1);
	}
}

/* ---- pmukit's side --------------------------------------------------------------- */

typedef struct td_node {
	char name[64];
	double value;          /* percent; NaN: not computable */
} td_node;

/* Intel's pseudo-encodings of the fixed counters (EventCode 0x00) as the
 * core PMU's events: INST_RETIRED.ANY is event 0xc0 and the thread's cycles
 * 0x3c; umask 0x03 (REF_TSC) and 0x04 (TOPDOWN.SLOTS) keep their form. */
static const struct {
	unsigned umask;
	const char *terms;
} fixed_events[] = {{0x01, "event=0xc0"}, {0x02, "event=0x3c"}};

/* PERF_METRICS fields as the kernel's sysfs aliases. */
static const char *const perf_metrics[][2] = {
	{"FRONTEND_BOUND", "topdown-fe-bound"},   {"BAD_SPECULATION", "topdown-bad-spec"},
	{"RETIRING", "topdown-retiring"},         {"BACKEND_BOUND", "topdown-be-bound"},
	{"HEAVY_OPERATIONS", "topdown-heavy-ops"}, {"BRANCH_MISPREDICTS", "topdown-br-mispredict"},
	{"FETCH_LATENCY", "topdown-fetch-lat"},   {"MEMORY_BOUND", "topdown-mem-bound"},
};

static unsigned json_hex(json_t *e, const char *key)
{
	const char *s = json_string_value(json_object_get(e, key));
	return s ? (unsigned)strtoul(s, NULL, 0) : 0;
}

/* The terms of Intel's event `name` ("INT_MISC.UOP_DROPPING",
 * "TOPDOWN.SLOTS:perf_metrics", "UOPS_DECODED.DEC0:c1",
 * "PERF_METRICS.RETIRING") in perf's syntax on pmu; false when unknown. */
static bool intel_terms(json_t *events, const char *pmu, const char *name, char *buf, size_t len)
{
	char base[96];
	snprintf(base, sizeof(base), "%s", name);
	char *mod = strchr(base, ':');
	unsigned cmask_mod = 0;
	if (mod) {
		*mod++ = '\0';
		if (mod[0] == 'c' && isdigit((unsigned char)mod[1]))
			cmask_mod = (unsigned)atoi(mod + 1);
	}
	if (!strncmp(base, "PERF_METRICS.", 13)) {
		for (size_t i = 0; i < sizeof(perf_metrics) / sizeof(perf_metrics[0]); i++)
			if (!strcmp(base + 13, perf_metrics[i][0])) {
				snprintf(buf, len, "%s/%s/", pmu, perf_metrics[i][1]);
				return true;
			}
		return false;
	}
	size_t i;
	json_t *e;
	json_array_foreach(events, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "EventName")), base))
			continue;
		unsigned code = json_hex(e, "EventCode"), umask = json_hex(e, "UMask");
		unsigned cmask = cmask_mod ? cmask_mod : json_hex(e, "CounterMask");
		int o = snprintf(buf, len, "%s/event=%#x,umask=%#x", pmu, code, umask);
		for (size_t k = 0; code == 0 && k < sizeof(fixed_events) / sizeof(fixed_events[0]); k++)
			if (fixed_events[k].umask == umask)
				o = snprintf(buf, len, "%s/%s", pmu, fixed_events[k].terms);
		if (cmask)
			o += snprintf(buf + o, len - (size_t)o, ",cmask=%u", cmask);
		if (json_hex(e, "EdgeDetect"))
			o += snprintf(buf + o, len - (size_t)o, ",edge=1");
		if (json_hex(e, "Invert"))
			o += snprintf(buf + o, len - (size_t)o, ",inv=1");
		if (json_hex(e, "AnyThread"))
			o += snprintf(buf + o, len - (size_t)o, ",any=1");
		snprintf(buf + o, len - (size_t)o, "/");
		return true;
	}
	return false;
}

/* The attr pmukit encodes for Intel's event name on the machine. */
static bool td_encode(const td_machine *m, const pk_pmus *pmus, json_t *events, const char *name,
		      struct perf_event_attr *attr)
{
	char terms[256];
	if (!intel_terms(events, m->core_pmu, name, terms, sizeof(terms)))
		return false;
	pk_evlist *l = pk_evlist_new();
	pk_parse_opts opts = {.cpuid = m->cpuid};
	pk_error err;
	if (pk_evlist_parse(l, pmus, terms, &opts, &err) < 0)
		fail_msg("%s: %s: %s", name, terms, err.msg);
	/* the last evsel: the parser puts a slots leader before a lone
	 * topdown-* event */
	*attr = *pk_evsel_attr(pk_evlist_at(l, pk_evlist_count(l) - 1));
	pk_evlist_put(l);
	return true;
}

static int by_length(const void *a, const void *b)
{
	size_t x = strlen(*(const char *const *)a), y = strlen(*(const char *const *)b);
	return x < y ? -1 : x > y;
}

/* The rows of a method table: names and formulas (malloc'd), the first
 * nr_nodes of them the Level 1 and 2 nodes, the rest helper rows. */
typedef struct td_rows {
	char *name[MAX_NODES], *formula[MAX_NODES];
	size_t nr, nr_nodes;
} td_rows;

static void rows_add(td_rows *r, const char *prefix, const char *name, char *formula)
{
	assert_true(r->nr < MAX_NODES);
	char *n = NULL;
	assert_true(asprintf(&n, "%s%s", prefix, name) > 0);
	for (char *p = n; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	r->name[r->nr] = n;
	r->formula[r->nr++] = formula;
}

static bool is_row(const td_rows *r, const char *name)
{
	for (size_t i = 0; i < r->nr; i++)
		if (!strcasecmp(r->name[i], name))
			return true;
	return false;
}

/* The TmaL1/TmaL2 nodes (not the Info metrics) of a perfmon JSON file. */
static void json_rows(const td_machine *m, td_rows *r)
{
	json_t *all = pk_perfmon_metrics(m->metrics), *x;
	size_t i;
	json_array_foreach(all, i, x) {
		const char *name = json_string_value(json_object_get(x, "MetricName"));
		if (!strncmp(name, "Info_", 5) ||
		    !(pk_perfmon_in_group(x, "TmaL1") || pk_perfmon_in_group(x, "TmaL2")))
			continue;
		rows_add(r, "tma_", name,
			 pk_perfmon_perf_style(x, json_string_value(json_object_get(x, "Formula"))));
	}
	r->nr_nodes = r->nr;
	json_decref(all);
}

/* Splits a CSV line (quoted fields with "" inside) in place. */
static size_t csv_split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *w = line, *p = line;
	while (n < max) {
		f[n++] = w;
		bool q = false;
		for (; *p && (q || (*p != ',' && *p != '\n' && *p != '\r')); p++) {
			if (*p == '"' && q && p[1] == '"')
				*w++ = *p++;
			else if (*p == '"')
				q = !q;
			else
				*w++ = *p;
		}
		bool more = *p == ',';
		*w++ = '\0';
		if (!more)
			break;
		p++;
	}
	return n;
}

/* A CSV formula in the engine's terms: "#SLOTS" is the helper row
 * aux_slots, a node's name (Core_Bound) its row tma_core_bound. */
static char *csv_formula(const char *text, char names[][64], size_t nr_names)
{
	char *out = malloc(strlen(text) * 2 + 64);
	assert_non_null(out);
	size_t o = 0;
	for (const char *p = text; *p;) {
		size_t n = strspn(p, "#_.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
		if (!n || isdigit((unsigned char)*p)) {
			size_t k = n ? n : 1;
			memcpy(out + o, p, k);
			o += k;
			p += k;
			continue;
		}
		const char *pre = "";
		if (*p == '#') {
			pre = "aux_";
			p++, n--;
		}
		for (size_t i = 0; !*pre && i < nr_names; i++)
			if (strlen(names[i]) == n && !strncmp(names[i], p, n))
				pre = "tma_";
		o += (size_t)sprintf(out + o, "%s", pre);
		for (size_t i = 0; i < n; i++)
			out[o++] = *pre ? (char)tolower((unsigned char)p[i]) : p[i];
		p += n;
	}
	out[o] = '\0';
	return out;
}

/* The Level 1 and 2 nodes and the Aux rows of Intel's E-core TMA table
 * (E-core_TMA_Metrics.csv), the machine's column (GRT: Gracemont). */
static void csv_rows(const td_machine *m, td_rows *r)
{
	char *text = pk_test_read_text(pk_test_fixture(m->metrics)), *save = NULL;
	static char lines[256][2048], names[256][64];
	static char *f[256][32];
	size_t nf[256], nl = 0, nn = 0, col = 0;
	for (char *l = strtok_r(text, "\n", &save); l && nl < 256; l = strtok_r(NULL, "\n", &save)) {
		snprintf(lines[nl], sizeof(lines[nl]), "%s", l);
		size_t n = nf[nl] = csv_split(lines[nl], f[nl], 32);
		char **x = f[nl++];
		for (size_t i = 0; !strcmp(x[0] + strspn(x[0], "\xef\xbb\xbf"), "Key") && i < n; i++)
			if (!strcmp(x[i], m->csv_column))
				col = i;
		for (size_t i = 1; i < 4 && i < n && nn < 256; i++)
			if (x[i][0] && strcmp(x[0], "Aux"))
				snprintf(names[nn++], sizeof(names[0]), "%s", x[i]);
	}
	if (!col)
		fail_msg("%s: no column %s", m->metrics, m->csv_column);
	for (int aux = 0; aux < 2; aux++) {
		if (aux)
			r->nr_nodes = r->nr;
		for (size_t k = 0; k < nl; k++) {
			char **x = f[k];
			if (nf[k] <= col || !x[col][0] || !strcmp(x[col], "#NA"))
				continue;
			bool is_aux = !strcmp(x[0], "Aux");
			const char *level = x[1][0] ? x[1] : x[2];
			if (aux ? is_aux : !is_aux && level[0] && strncmp(x[0], "Info", 4))
				rows_add(r, aux ? "aux_" : "tma_", level + (aux && level[0] == '#'),
					 csv_formula(x[col], names, nn));
		}
	}
	free(text);
}

/* Adds a named evsel and its count for each event the rows use (shortest
 * names first, so that "UOPS_DECODED.DEC0" meets its own count before
 * "UOPS_DECODED.DEC0:c1", which the engine also accepts for it). */
static size_t add_counts(const td_machine *m, const pk_pmus *pmus, const td_rows *r,
			 pk_evlist *l, const td_counts *in, pk_metric_count *out)
{
	json_t *events = pk_perfmon_array(m->events, "Events");
	const char *names[MAX_COUNTS];
	pk_expr *exprs[MAX_NODES];
	size_t nr = 0, nc = 0;
	for (size_t i = 0; i < r->nr; i++) {
		pk_error err;
		exprs[i] = pk_expr_parse(r->formula[i], &err);
		if (!exprs[i])
			fail_msg("%s: %s: %s", r->name[i], err.msg, r->formula[i]);
		for (size_t k = 0; k < pk_expr_nr_refs(exprs[i]); k++) {
			const char *n = pk_expr_ref(exprs[i], k);
			size_t j = 0;
			while (j < nr && strcmp(names[j], n))
				j++;
			if (j == nr && nr < MAX_COUNTS && n[0] != '#' && !is_row(r, n))
				names[nr++] = n;
		}
	}
	qsort(names, nr, sizeof(names[0]), by_length);
	const pk_pmu *pmu = pk_pmus_find(pmus, m->core_pmu);
	for (size_t i = 0; i < nr; i++) {
		struct perf_event_attr a;
		if (!td_encode(m, pmus, events, names[i], &a))
			continue;
		long ci = find_enc(in, a.type, a.config, a.config1);
		if (ci < 0)
			continue;
		const td_count *c = &in->v[ci];
		const pk_evsel *ev = pk_evlist_add(l, &a, names[i], pmu);
		assert_non_null(ev);
		out[nc++] = (pk_metric_count){.evsel = ev, .key = -1, .value = c->value, .counted = true};
	}
	for (size_t i = 0; i < r->nr; i++)
		pk_expr_free(exprs[i]);
	json_decref(events);
	return nc;
}

/* pmukit's TopDown nodes over counts: the Level 1 and 2 nodes of Intel's
 * method table for the machine's core type (a perfmon metric file's
 * TmaL1/TmaL2 nodes, or a column of the E-core TMA table), named as perf
 * names them (tma_<name>), evaluated by lib/metrics with the counts matched
 * by encoding. Values in percent, NaN when not computable.
 * PK_TD_PMUKIT=files makes it the pmukit side (nodes_for()). */
static size_t td_pmukit_nodes(const td_machine *m, const td_counts *in, bool smt_on,
			      td_node *out, size_t max)
{
	pk_error err;
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs(m->name), &err);
	if (!pmus)
		fail_msg("%s: %s", m->name, err.msg);
	static td_rows r;
	memset(&r, 0, sizeof(r));
	if (m->csv_column)
		csv_rows(m, &r);
	else
		json_rows(m, &r);
	pk_metric_def defs[MAX_NODES];
	for (size_t i = 0; i < r.nr; i++)
		defs[i] = (pk_metric_def){.name = r.name[i], .formula = r.formula[i]};
	pk_evlist *l = pk_evlist_new();
	pk_metric_count counts[MAX_COUNTS];
	size_t nc = add_counts(m, pmus, &r, l, in, counts);
	pk_metric_literal lit = {"#smt_on", smt_on};
	pk_metric_counts c = {.v = counts, .nr = nc, .lit = &lit, .nr_lit = 1};
	pk_metric_table *t = pk_metric_table_new(defs, r.nr, &err);
	if (!t)
		fail_msg("%s: %s", m->name, err.msg);
	assert_true(r.nr_nodes <= max);
	for (size_t i = 0; i < r.nr_nodes; i++) {
		pk_metric_value v;
		snprintf(out[i].name, sizeof(out[i].name), "%s", r.name[i]);
		out[i].value = nc && pk_metric_eval(t, i, &c, 0, &v) ? v.value : NAN;
		/* the E-core table gives fractions, perf and the P-core files percent */
		if (m->csv_column)
			out[i].value *= 100;
	}
	for (size_t i = 0; i < r.nr; i++) {
		free(r.name[i]);
		free(r.formula[i]);
	}
	pk_metric_table_free(t);
	pk_evlist_put(l);
	pk_pmus_put(pmus);
	return r.nr_nodes;
}

/* pmukit's TopDown nodes through the library (pmukit/topdown.h): the
 * methods pk_topdown chooses for the machine's core PMU, their events
 * matched to the counts by encoding, Level 1 and 2 in percent. The default
 * pmukit side (nodes_for()): an event the library opens with an encoding
 * perf did not count (as Intel's fixed-counter pseudo codes once were) finds
 * no count, is reported here and lowers the identical count. */
static size_t td_lib_nodes(const td_machine *m, const td_counts *in, bool smt_on, td_node *out,
			   size_t max)
{
	pk_error err;
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs(m->name), &err);
	pk_cpuid id;
	if (!pmus || pk_cpuid_parse(m->cpuid, &id, &err) < 0)
		fail_msg("%s: %s", m->name, err.msg);
	pk_topdown_opts o;
	pk_topdown_opts_init(&o);
	o.level = 2;
	o.smt = smt_on;
	o.only_pmu = m->core_pmu;
	pk_topdown *td = pk_topdown_new(pmus, &id, &o, &err);
	pk_evlist *l = pk_evlist_new();
	if (!td || pk_topdown_add_events(td, l, &err) < 0)
		fail_msg("%s: %s", m->name, err.msg);
	pk_metric_count counts[MAX_COUNTS];
	size_t nc = 0;
	for (size_t i = 0; i < pk_evlist_count(l) && nc < MAX_COUNTS; i++) {
		const pk_evsel *e = pk_evlist_at(l, i);
		const struct perf_event_attr *a = pk_evsel_attr(e);
		long ci = find_enc(in, a->type, a->config, a->config1);
		if (ci < 0)
			printf("  pk_topdown: %s %s (type %u config %#llx) has no count\n", m->name,
			       pk_evsel_name(e), a->type, (unsigned long long)a->config);
		counts[nc++] = (pk_metric_count){.evsel = e, .key = -1,
						 .value = ci >= 0 ? in->v[ci].value : 0,
						 .counted = ci >= 0};
	}
	pk_metric_counts c = {.v = counts, .nr = nc};
	pk_topdown_node nodes[MAX_NODES];
	size_t n = pk_topdown_compute(td, 0, &c, -1, nodes, MAX_NODES);
	assert_true(n <= max && n <= MAX_NODES);
	for (size_t i = 0; i < n; i++) {
		snprintf(out[i].name, sizeof(out[i].name), "%s", nodes[i].name);
		out[i].value = nodes[i].computable ? nodes[i].value : NAN;
	}
	pk_topdown_free(td);
	pk_evlist_put(l);
	pk_pmus_put(pmus);
	return n;
}

/* ---- perf's side: the nodes in its CSV output ------------------------------------- */

typedef struct perf_node {
	char pmu[16];          /* the PMU of the event line the node follows */
	const char *source;    /* "metric" or "shadow" */
	char name[64];         /* tma_... */
	double value;          /* NaN: printed without a value */
} perf_node;

/* perf 6.1's shadow metrics of topdown-* events, by the nodes they are. */
static const char *const shadow_names[][2] = {
	{"Retiring", "tma_retiring"},
	{"Bad Speculation", "tma_bad_speculation"},
	{"Frontend Bound", "tma_frontend_bound"},
	{"Backend Bound", "tma_backend_bound"},
	{"Heavy Operations", "tma_heavy_operations"},
	{"Light Operations", "tma_light_operations"},
	{"Branch Mispredict", "tma_branch_mispredicts"},
	{"Machine Clears", "tma_machine_clears"},
	{"Fetch Latency", "tma_fetch_latency"},
	{"Fetch Bandwidth", "tma_fetch_bandwidth"},
	{"Memory Bound", "tma_memory_bound"},
	{"Core Bound", "tma_core_bound"},
};

/* The node a CSV metric-unit field names, with its source; NULL if none. */
static const char *node_of(const char *field, const char **source)
{
	if (!strncmp(field, "%  tma_", 7)) {
		*source = "metric";
		return field + 3;
	}
	for (size_t i = 0; i < sizeof(shadow_names) / sizeof(shadow_names[0]); i++)
		if (!strcmp(field, shadow_names[i][0])) {
			*source = "shadow";
			return shadow_names[i][1];
		}
	return NULL;
}

/* Every node in perf's `-x,` output. A line with an event is
 * "count,unit,event,run,pcnt[,value,unit]..."; a line of further metrics
 * has no event. Event names may hold commas, so fields are taken as pairs
 * wherever a unit names a node. */
static size_t parse_perf(const td_machine *m, const char *csv, perf_node *out, size_t max)
{
	char *text = strdup(csv), *save = NULL, pmu[16];
	snprintf(pmu, sizeof(pmu), "%s", m->core_pmu);
	size_t nr = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#')
			continue;
		char *f[64];
		size_t nf = 0;
		for (char *p = l; nf < 64; p++) {
			f[nf++] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p = '\0';
		}
		if (nf > 2 && f[2][0]) {
			size_t n = strcspn(f[2], "/");
			snprintf(pmu, sizeof(pmu), "%.*s", (int)n, f[2]);
			if (!f[2][n])
				snprintf(pmu, sizeof(pmu), "%s", m->core_pmu);
		}
		for (size_t i = 0; i + 1 < nf; i++) {
			const char *src, *node = node_of(f[i + 1], &src);
			if (!node)
				continue;
			assert_true(nr < max);
			perf_node *o = &out[nr++];
			snprintf(o->pmu, sizeof(o->pmu), "%s", pmu);
			snprintf(o->name, sizeof(o->name), "%s", node);
			o->source = src;
			o->value = f[i][0] ? strtod(f[i], NULL) : NAN;
		}
	}
	free(text);
	return nr;
}

/* ---- comparing ------------------------------------------------------------------- */

typedef struct tally {
	size_t same, total, unlisted, skipped;
	size_t metric_same, metric_total; /* of them, perf's TopdownL1/L2 metrics */
	bool seen[sizeof(known) / sizeof(known[0])];
} tally;

static const struct td_known *find_known(const char *machine, const perf_node *p, size_t *idx)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].machine, machine) && !strcmp(known[i].source, p->source) &&
		    !strcmp(known[i].node, p->name)) {
			*idx = i;
			return &known[i];
		}
	return NULL;
}

static bool identical(double a, double b)
{
	return (isnan(a) && isnan(b)) || fabs(a - b) <= 0.05 + 1e-9;
}

/* Compares one run's perf output (csv) and stub log with pmukit. */
/* perf 6.1's names of nodes Intel's tables call otherwise. */
static const char *const node_aliases[][2] = {
	{"tma_frontend_latency", "tma_ifetch_latency"},     /* E-core TMA 4 */
	{"tma_frontend_bandwidth", "tma_ifetch_bandwidth"},
};

/* pmukit's value of the node perf calls name (NaN: pmukit has none). */
static double our_node(const td_node *nodes, size_t nn, const char *name)
{
	for (size_t a = 0; a < sizeof(node_aliases) / sizeof(node_aliases[0]); a++)
		if (!strcmp(name, node_aliases[a][0]))
			name = node_aliases[a][1];
	for (size_t k = 0; k < nn; k++)
		if (!strcmp(nodes[k].name, name))
			return nodes[k].value;
	return NAN;
}

/* pmukit's nodes for the machine's core PMU pmu over in; the entry and
 * the number of nodes, 0 when pmukit has no table for that PMU. */
static size_t nodes_for(const td_run *run, const char *pmu, const td_counts *in,
			const td_machine **m, td_node *nodes)
{
	*m = machine_of(run->machine, pmu);
	if (!*m)
		return 0;
	const char *side = getenv("PK_TD_PMUKIT");
	return side && !strcmp(side, "files") ? td_pmukit_nodes(*m, in, run->smt, nodes, MAX_NODES)
					      : td_lib_nodes(*m, in, run->smt, nodes, MAX_NODES);
}

/* Compares one run's perf output (csv) and stub log with pmukit: each node
 * perf printed after an event of a core PMU with the node of that PMU's
 * method table. */
static void compare_run(const td_run *run, const char *csv, const char *log, tally *t)
{
	static td_counts set, in;
	static td_node nodes[2][MAX_NODES];
	const td_machine *ms[2];
	load_counts(run->counts, &set);
	counts_in(log, &set, &in);
	size_t nn[2] = {nodes_for(run, NULL, &in, &ms[0], nodes[0]),
			nodes_for(run, "cpu_atom", &in, &ms[1], nodes[1])};
	perf_node pn[MAX_NODES];
	size_t np = parse_perf(ms[0], csv, pn, MAX_NODES), same = 0, total = 0;
	if (np == 0)
		fail_msg("%s: perf printed no TopDown node:\n%s", run->id, csv);
	for (size_t i = 0; i < np; i++) {
		const perf_node *p = &pn[i];
		int w = !strcmp(p->pmu, ms[0]->core_pmu) ? 0 : ms[1] && !strcmp(p->pmu, "cpu_atom") ? 1 : -1;
		if (w < 0) {
			t->skipped++;
			continue;
		}
		double ours = our_node(nodes[w], nn[w], p->name);
		total++;
		bool metric = !strcmp(p->source, "metric");
		t->metric_total += metric;
		if (identical(ours, p->value)) {
			same++;
			t->metric_same += metric;
			continue;
		}
		char key[96];
		snprintf(key, sizeof(key), "%.40s%s%.16s", run->machine, w ? ":" : "", w ? p->pmu : "");
		size_t ki;
		const struct td_known *k = find_known(key, p, &ki);
		printf("  %s: %s %s %s: perf 6.1 %.1f, pmukit %.3f: %s\n", run->id, p->pmu, p->source,
		       p->name, p->value, ours, k ? k->reason : "NOT LISTED");
		if (k)
			t->seen[ki] = true;
		else
			t->unlisted++;
	}
	printf("%s: %zu/%zu identical\n", run->id, same, total);
	t->same += same;
	t->total += total;
}

static void finish(tally *t, const char *what)
{
	printf("%s: %zu/%zu identical (TopdownL1/L2 metrics %zu/%zu, topdown shadow metrics "
	       "%zu/%zu), %zu perf nodes of other PMUs not compared\n",
	       what, t->same, t->total, t->metric_same, t->metric_total, t->same - t->metric_same,
	       t->total - t->metric_total, t->skipped);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!t->seen[i])
			fail_msg("listed difference not seen in any run (remove it): %s %s %s",
				 known[i].machine, known[i].source, known[i].node);
	if (t->unlisted)
		fail_msg("%zu differences from perf 6.1 are not listed", t->unlisted);
	assert_true(t->total > 0);
}

static char *stored(const td_run *run, const char *ext)
{
	char rel[256];
	snprintf(rel, sizeof(rel), TD_DIR "/%s.%s", run->id, ext);
	return pk_test_read_text(pk_test_fixture(rel));
}

static void test_stored_transcripts(void **state)
{
	(void)state;
	tally t = {0};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char *csv = stored(&runs[i], "csv"), *log = stored(&runs[i], "log");
		compare_run(&runs[i], csv, log, &t);
		free(csv);
		free(log);
	}
	finish(&t, "perf 6.1 (stored transcripts)");
}

/* ---- perf run live ------------------------------------------------------------------ */

/* perf-ns.sh's -f overlays that fix SMT for perf whatever the host has:
 * on, CPUs 0 and 1 are the two threads of one core; off, each CPU is its
 * own core (the host's files that exist). */
static void smt_overlays(char *buf, size_t len, bool on)
{
	static const char *const files[][3] = {
		{"/sys/devices/system/cpu/smt/active", "1", "0"},
		{"/sys/devices/system/cpu/cpu0/topology/core_cpus_list", "0-1", "0"},
		{"/sys/devices/system/cpu/cpu1/topology/core_cpus_list", "0-1", "1"},
		{"/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0-1", "0"},
		{"/sys/devices/system/cpu/cpu1/topology/thread_siblings_list", "0-1", "1"},
	};
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (access(files[i][0], F_OK) == 0)
			o += (size_t)snprintf(buf + o, len - o, " -f '%s=%s'", files[i][0],
					      files[i][on ? 1 : 2]);
}

/* perf's output without its "# started on" header (the only line that
 * changes from run to run). */
static char *strip_header(char *csv)
{
	char *p = csv;
	while (*p == '#' || *p == '\n') {
		char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : p + strlen(p);
	}
	memmove(csv, p, strlen(p) + 1);
	return csv;
}

/* Runs perf for `run` with the stub; *csv and *log get its output and the
 * stub's log. */
static void run_live(const td_run *run, const char *stub, const char *tmp, char **csv, char **log)
{
	const td_machine *m = machine_of(run->machine, NULL);
	char out[1024], logf[1024], counts[1024], rel[256], smt[1024] = "", cmd[8192];
	snprintf(out, sizeof(out), "%s/%s.csv", tmp, run->id);
	snprintf(logf, sizeof(logf), "%s/%s.log", tmp, run->id);
	snprintf(rel, sizeof(rel), TD_DIR "/%s.counts", run->counts);
	snprintf(counts, sizeof(counts), "%s", pk_test_fixture(rel));
	smt_overlays(smt, sizeof(smt), run->smt);
	snprintf(cmd, sizeof(cmd),
		 "cd /tmp && rm -f '%s' && PK_PEO_COUNTS='%s' PK_PEO_LOG='%s' PERF_CPUID='%s' "
		 "timeout 60 sh '%s/perf-ns.sh' -p '%s'%s '%s/bus/event_source/devices' "
		 "sh -c 'sleep 2 & exec perf stat -o %s %s' 2>&1",
		 logf, counts, logf, m->cpuid, pk_test_oracle_dir(), stub, smt,
		 pk_test_sysfs(m->name), out, run->args);
	char *said = NULL;
	if (pk_test_run(cmd, &said, 0) != 0 || access(out, F_OK) != 0)
		fail_msg("%s: perf failed:\n%s\n%s", run->id, cmd, said ? said : "");
	free(said);
	*csv = strip_header(pk_test_read_text(out));
	*log = pk_test_read_text(logf);
}

/* perf printed the same nodes with the same values as in the stored run. */
static void same_as_stored(const td_run *run, const char *live)
{
	const td_machine *m = machine_of(run->machine, NULL);
	char *old = stored(run, "csv");
	perf_node a[MAX_NODES], b[MAX_NODES];
	size_t na = parse_perf(m, live, a, MAX_NODES), nb = parse_perf(m, old, b, MAX_NODES);
	bool same = na == nb;
	for (size_t i = 0; same && i < na; i++)
		same = !strcmp(a[i].name, b[i].name) && !strcmp(a[i].pmu, b[i].pmu) &&
		       identical(a[i].value, b[i].value);
	if (!same)
		fail_msg("%s: live perf differs from the stored transcript (PK_TD_REGEN=1 rewrites "
			 "it):\n%s\nstored:\n%s", run->id, live, old);
	free(old);
}

static void write_stored(const td_run *run, const char *ext, const char *text)
{
	char rel[256];
	snprintf(rel, sizeof(rel), TD_DIR "/%s.%s", run->id, ext);
	FILE *f = fopen(pk_test_fixture(rel), "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_live_perf(void **state)
{
	(void)state;
	char why[128];
	if (!pk_test_oracle_ready(why, sizeof(why))) {
		printf("SKIP: live perf 6.1 TopDown comparison: %s\n", why);
		skip();
	}
	char *tmp = pk_test_tmpdir(), *stub = pk_test_oracle_stub(tmp);
	bool regen = getenv("PK_TD_REGEN") && !strcmp(getenv("PK_TD_REGEN"), "1");
	tally t = {0};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char *csv, *log;
		run_live(&runs[i], stub, tmp, &csv, &log);
		if (regen) {
			write_stored(&runs[i], "csv", csv);
			write_stored(&runs[i], "log", log);
		}
		same_as_stored(&runs[i], csv);
		compare_run(&runs[i], csv, log, &t);
		free(csv);
		free(log);
	}
	finish(&t, "perf 6.1 (run live)");
	free(stub);
	pk_test_rmtree(tmp);
}

/* The pieces catch what they must: a node off by more than perf's rounding
 * is a difference, the stub's log scales and sums per CPU, a read perf was
 * not served fails, and perf's CSV gives nodes with their PMU. */
static void test_self_check(void **state)
{
	(void)state;
	assert_true(identical(40.0, 40.04) && identical(6.7, 6.75) && !identical(40.0, 40.06));
	assert_true(identical(NAN, NAN) && !identical(NAN, 0));
	td_counts set = {0}, in;
	set.enabled = set.running = 1;
	counts_in("open fd=3 type=4 config=0x3c config1=0 read_format=0xf leader=3 cpu=0 pid=-1\n"
		  "open fd=4 type=4 config=0x3c config1=0 read_format=0xf leader=4 cpu=1 pid=-1\n"
		  "read fd=3 value=100 enabled=1000 running=250\n"
		  "read fd=4 value=50 enabled=1000 running=500\n",
		  &set, &in);
	assert_int_equal(in.nr, 1);
	assert_true(in.v[0].value == 500);
	const td_machine *m = machine_of("alderlake", NULL);
	perf_node p[8];
	size_t n = parse_perf(m,
			      "1,,cpu_core/topdown-retiring/,1,100.00,38.2,Retiring\n"
			      ",,,,29.1,%  tma_backend_bound\n"
			      "5,,cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/,1,100.00,,\n"
			      "1,,cpu_atom/TOPDOWN_FE_BOUND.ALL/,1,100.00,24.0,%  tma_frontend_bound\n"
			      ",,,,,%  tma_bad_speculation\n",
			      p, 8);
	assert_int_equal(n, 4);
	assert_string_equal(p[0].name, "tma_retiring");
	assert_string_equal(p[0].source, "shadow");
	assert_string_equal(p[1].pmu, "cpu_core");
	assert_true(p[1].value == 29.1);
	assert_string_equal(p[2].pmu, "cpu_atom");
	assert_true(isnan(p[3].value));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_check),
		cmocka_unit_test(test_stored_transcripts),
		cmocka_unit_test(test_live_perf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
