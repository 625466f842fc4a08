/* Scenarios of the PMU model: the JSON contract of its tests (issue 8).
 *
 *   {"machine": "sapphirerapids", "cpuid": "GenuineIntel-6-8F-8", "smt": false,
 *    "threads": [{"tid": 1001, "comm": "worker", "cpu": 0,
 *                 "phases": [{"ms": 400, "ghz": 3.0, "core_type": "core",
 *                             "ip": "0x401000", "tma": {...}}]}]}
 *
 * Strict: unknown keys, duplicate keys, wrong types and impossible values are
 * errors naming the key by its JSON path and the value. Required: machine,
 * threads (not empty), each thread's tid, comm, cpu and phases (not empty),
 * each phase's ms, ghz and tma. Optional: cpuid (the bundled machine's;
 * required when machine is a path), smt (false), ref_ghz (the nominal, TSC
 * frequency: ref-cycles), core_type ("core"; "atom" only on a hybrid
 * bundled machine or a path), ip (0), rates (branches, cache_references,
 * cache_misses per instruction, bus_cycles per core cycle; each in [0, 1]).
 * The tma object is scenario_tma.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/util.h"
#include "model/events.h"
#include "model/model.h"

/* The bundled machines: the sysfs trees in tests/data/sysfs and their CPUIDs
 * (tests/data/README.md). */
static const pki_machine machines[] = {
	{"alderlake", "GenuineIntel-6-97-2", true},
	{"sapphirerapids", "GenuineIntel-6-8F-8", false},
	{"icelake", "GenuineIntel-6-7E-5", false},
	{"skylake", "GenuineIntel-6-5E-3", false},
	{"zen4", "AuthenticAMD-25-11-1", false},
	{"zen4-k6.12", "AuthenticAMD-25-11-1", false},
	{"zen5", "AuthenticAMD-26-2-0", false},
	{"neoverse-n1-spe", "0x00000000413fd0c1", false},
	{"neoverse-n1-spe-k6.12", "0x00000000413fd0c1", false},
	{"neoverse-n2", "0x00000000410fd490", false},
	{"neoverse-v2", "0x00000000410fd4f0", false},
	{"lunarlake", "GenuineIntel-6-BD-1", true},
};

const pki_machine *pki_machine_find(const char *name)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(machines); i++)
		if (!strcmp(machines[i].name, name))
			return &machines[i];
	return NULL;
}

int pki_scenario_bad(pk_error *err, const char *where, const char *path, const json_t *v,
		     const char *why)
{
	char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
	int rc = pk_err_at(err, -EINVAL, "scenario", where, -1, "%s: %.80s%s: %s", path,
			   text ? text : "(missing)", text && strlen(text) > 80 ? "..." : "", why);
	free(text);
	return rc;
}

void pki_json_path(char *buf, size_t len, const char *path, const char *key, long idx)
{
	/* an empty key is shown as "" (a path ending in '.' names nothing) */
	int n = idx < 0 ? snprintf(buf, len, "%s%s%s", path, *path ? "." : "", *key ? key : "\"\"")
			: snprintf(buf, len, "%s[%ld]", path, idx);
	if (n < 0 || (size_t)n >= len)
		buf[len - 1] = '\0'; /* cut: the path is still a prefix of the real one */
}

/* Every key of obj is one of known[] (NULL-terminated). */
int pki_scenario_keys(const json_t *obj, const char *const known[], const char *path,
		      const char *where, pk_error *err)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)obj, k, v) {
		bool ok = false;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = !strcmp(known[i], k);
		if (!ok) {
			char sub[PKI_PATH_MAX];
			pki_json_path(sub, sizeof(sub), path, k, -1);
			return pki_scenario_bad(err, where, sub, v, "unknown key");
		}
	}
	return 0;
}


/* obj's member `key` in *v and its path in sub; a missing required one is an
 * error, a missing optional one is *v NULL. */
static int member(const json_t *obj, const char *key, bool required, const char *path,
		  const char *where, char sub[PKI_PATH_MAX], json_t **v, pk_error *err)
{
	pki_json_path(sub, PKI_PATH_MAX, path, key, -1);
	*v = json_object_get(obj, key);
	if (!*v && required)
		return pk_err_at(err, -EINVAL, "scenario", where, -1, "%s: missing", sub);
	return 0;
}

/* A number in [lo, hi] (lo excluded when open_lo); a missing one is an error. */
static int get_number(const json_t *obj, const char *key, double lo, double hi, bool open_lo,
		      const char *path, const char *where, double *out, pk_error *err)
{
	char sub[PKI_PATH_MAX];
	json_t *v;
	if (member(obj, key, true, path, where, sub, &v, err))
		return -EINVAL;
	double d = json_is_number(v) ? json_number_value(v) : NAN;
	if (isnan(d) || d > hi || d < lo || (open_lo && d == lo)) {
		char why[96];
		snprintf(why, sizeof(why), "expected a number in %c%g, %g]", open_lo ? '(' : '[',
			 lo, hi);
		return pki_scenario_bad(err, where, sub, v, why);
	}
	*out = d;
	return 0;
}

/* An integer in [lo, hi]. */
static int get_int(const json_t *obj, const char *key, long long lo, long long hi,
		   const char *path, const char *where, int *out, pk_error *err)
{
	char sub[PKI_PATH_MAX];
	json_t *v;
	if (member(obj, key, true, path, where, sub, &v, err))
		return -EINVAL;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		char why[96];
		snprintf(why, sizeof(why), "expected an integer in [%lld, %lld]", lo, hi);
		return pki_scenario_bad(err, where, sub, v, why);
	}
	*out = (int)json_integer_value(v);
	return 0;
}

/* A string member; NULL without error when absent and optional. */
static int get_string(const json_t *obj, const char *key, bool required, const char *path,
		      const char *where, const char **out, pk_error *err)
{
	char sub[PKI_PATH_MAX];
	json_t *v;
	*out = NULL;
	if (member(obj, key, required, path, where, sub, &v, err))
		return -EINVAL;
	if (!v)
		return 0;
	if (!json_is_string(v) || !*json_string_value(v))
		return pki_scenario_bad(err, where, sub, v, "expected a non-empty string");
	*out = json_string_value(v);
	return 0;
}

/* A phase's optional "rates" (after its tma): each in [0, 1]; cache misses
 * no more than cache references; branch mispredicts per cycle (width x
 * branch_mispredicts / PKI_CLEAR_COST, events.c) no more than branches per
 * cycle (width x light_operations x branches), i.e. branch_mispredicts /
 * PKI_CLEAR_COST <= light_operations x branches (width cancels). */
static int parse_rates(const json_t *o, const char *path, const char *where, pki_phase *p,
		       pk_error *err)
{
	if (!json_is_object(o))
		return pki_scenario_bad(err, where, path, o, "expected an object");
	const char *known[PKI_RATE_NR + 1] = {NULL};
	for (int i = 0; i < PKI_RATE_NR; i++)
		known[i] = pki_rate_names[i];
	int rc = pki_scenario_keys(o, known, path, where, err);
	for (int i = 0; i < PKI_RATE_NR && !rc; i++)
		if (json_object_get(o, pki_rate_names[i])) {
			rc = get_number(o, pki_rate_names[i], 0, 1, false, path, where, &p->rate[i],
					err);
			p->rates_given |= 1u << i;
		}
	char sub[PKI_PATH_MAX];
	unsigned both = 1u << PKI_RATE_CACHE_REFS | 1u << PKI_RATE_CACHE_MISSES;
	pki_json_path(sub, sizeof(sub), path, "cache_misses", -1);
	if (!rc && (p->rates_given & both) == both &&
	    p->rate[PKI_RATE_CACHE_MISSES] > p->rate[PKI_RATE_CACHE_REFS])
		rc = pki_scenario_bad(err, where, sub, json_object_get(o, "cache_misses"),
				      "more cache misses than cache_references");
	double light = p->tma[PKI_TMA_RETIRING] - p->tma[PKI_TMA_HEAVY_OPS];
	double misp = p->tma[PKI_TMA_BR_MISPREDICT] / PKI_CLEAR_COST;
	pki_json_path(sub, sizeof(sub), path, "branches", -1);
	if (!rc && (p->rates_given & 1u << PKI_RATE_BRANCHES) &&
	    misp > light * p->rate[PKI_RATE_BRANCHES] + PKI_TMA_TOLERANCE) {
		char why[160];
		snprintf(why, sizeof(why),
			 "fewer branches than branch mispredicts (tma.branch_mispredicts / %d = "
			 "%g > light_operations x branches = %g)",
			 PKI_CLEAR_COST, misp, light * p->rate[PKI_RATE_BRANCHES]);
		rc = pki_scenario_bad(err, where, sub, json_object_get(o, "branches"), why);
	}
	return rc;
}

static int parse_phase(const json_t *o, const char *path, const pki_machine *m, const char *where,
		       pki_phase *p, pk_error *err)
{
	static const char *const known[] = {"ms", "ghz", "core_type", "ip", "tma", "rates", "spe",
					    NULL};
	if (!json_is_object(o))
		return pki_scenario_bad(err, where, path, o, "expected an object");
	int rc = pki_scenario_keys(o, known, path, where, err);
	if (!rc)
		rc = get_number(o, "ms", 0, 1e7, true, path, where, &p->ms, err);
	if (!rc)
		rc = get_number(o, "ghz", 0, 10, true, path, where, &p->ghz, err);
	const char *ct = NULL, *ip = NULL;
	char sub[PKI_PATH_MAX];
	if (!rc)
		rc = get_string(o, "core_type", false, path, where, &ct, err);
	pki_json_path(sub, sizeof(sub), path, "core_type", -1);
	if (!rc && ct && strcmp(ct, "core") && strcmp(ct, "atom"))
		rc = pki_scenario_bad(err, where, sub, json_object_get(o, "core_type"),
				      "expected \"core\" or \"atom\"");
	if (!rc && ct && !strcmp(ct, "atom") && m && !m->hybrid)
		rc = pki_scenario_bad(err, where, sub, json_object_get(o, "core_type"),
				      "the machine is not hybrid");
	p->core_type = ct && !strcmp(ct, "atom") ? PKI_CORE_ATOM : PKI_CORE_BIG;
	if (!rc)
		rc = get_string(o, "ip", false, path, where, &ip, err);
	pki_json_path(sub, sizeof(sub), path, "ip", -1);
	if (!rc && ip && (strncmp(ip, "0x", 2) || pki_parse_u64(ip, &p->ip, NULL) < 0))
		rc = pki_scenario_bad(err, where, sub, json_object_get(o, "ip"),
				      "expected a hex address such as \"0x401000\"");
	json_t *tma = NULL;
	if (!rc)
		rc = member(o, "tma", true, path, where, sub, &tma, err);
	if (!rc)
		rc = pki_scenario_tma(tma, sub, where, p, err);
	json_t *rates = NULL;
	if (!rc)
		rc = member(o, "rates", false, path, where, sub, &rates, err);
	if (!rc && rates)
		rc = parse_rates(rates, sub, where, p, err);
	json_t *spe = NULL;
	if (!rc)
		rc = member(o, "spe", false, path, where, sub, &spe, err);
	if (!rc && spe)
		rc = pki_scenario_spe(spe, sub, where, &p->spe, err);
	return rc;
}

static int parse_phases(const json_t *a, const char *path, const pki_machine *m,
			const char *where, pki_thread *t, pk_error *err)
{
	if (!json_is_array(a) || !json_array_size(a))
		return pki_scenario_bad(err, where, path, a, "expected a non-empty array");
	t->phases = calloc(json_array_size(a), sizeof(*t->phases));
	if (!t->phases)
		return pk_err(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < json_array_size(a); i++, t->nr_phases++) {
		char sub[PKI_PATH_MAX];
		pki_json_path(sub, sizeof(sub), path, NULL, (long)i);
		int rc = parse_phase(json_array_get(a, i), sub, m, where, &t->phases[i], err);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_thread(const json_t *o, const char *path, const pki_machine *m,
			const char *where, pki_thread *t, pk_error *err)
{
	static const char *const known[] = {"tid", "comm", "cpu", "phases", NULL};
	if (!json_is_object(o))
		return pki_scenario_bad(err, where, path, o, "expected an object");
	const char *comm = NULL;
	char sub[PKI_PATH_MAX];
	int rc = pki_scenario_keys(o, known, path, where, err);
	if (!rc)
		rc = get_int(o, "tid", 1, 0x7fffffff, path, where, &t->tid, err);
	if (!rc)
		rc = get_string(o, "comm", true, path, where, &comm, err);
	pki_json_path(sub, sizeof(sub), path, "comm", -1);
	if (!rc && strlen(comm) >= sizeof(t->comm))
		rc = pki_scenario_bad(err, where, sub, json_object_get(o, "comm"),
				      "longer than 15 bytes (the kernel's TASK_COMM_LEN)");
	if (!rc)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	if (!rc)
		rc = get_int(o, "cpu", 0, 4095, path, where, &t->cpu, err);
	json_t *phases = NULL;
	if (!rc)
		rc = member(o, "phases", true, path, where, sub, &phases, err);
	if (!rc)
		rc = parse_phases(phases, sub, m, where, t, err);
	return rc;
}

/* "kernel": whose PERF_METRICS arithmetic (default: the current driver). */
static int parse_kernel(const json_t *root, const char *where, pki_scenario *s, pk_error *err)
{
	const char *name = NULL;
	int rc = get_string(root, "kernel", false, "", where, &name, err);
	if (rc || !name)
		return rc;
	for (size_t i = 0; i < PK_ARRAY_SIZE(pki_pm_driver_names); i++)
		if (!strcmp(name, pki_pm_driver_names[i])) {
			s->kernel = (pki_pm_driver)i;
			return 0;
		}
	return pki_scenario_bad(err, where, "kernel", json_object_get(root, "kernel"),
				"expected \"current\" (Linux 5.9 and later) or \"icl-patch-2019\" "
				"(the first Ice Lake TopDown patches' 16-bit fixed point)");
}

/* machine, cpuid and smt; *m is the bundled machine or NULL for a path. */
static int parse_machine(const json_t *root, const char *where, pki_scenario *s,
			 const pki_machine **m, pk_error *err)
{
	const char *name = NULL, *cpuid = NULL;
	int rc = get_string(root, "machine", true, "", where, &name, err);
	if (rc)
		return rc;
	json_t *v = json_object_get(root, "machine");
	if (strlen(name) >= sizeof(s->machine))
		return pki_scenario_bad(err, where, "machine", v, "longer than 255 bytes");
	snprintf(s->machine, sizeof(s->machine), "%s", name);
	s->machine_is_path = strchr(name, '/') != NULL;
	*m = s->machine_is_path ? NULL : pki_machine_find(name);
	if (!s->machine_is_path && !*m)
		return pki_scenario_bad(err, where, "machine", v,
					"not a bundled machine (alderlake, sapphirerapids, "
					"icelake, skylake, zen4, zen5, neoverse-n1-spe, neoverse-n2, neoverse-v2) nor a path "
					"(a name with a '/')");
	rc = get_string(root, "cpuid", s->machine_is_path, "", where, &cpuid, err);
	if (rc)
		return rc;
	pk_error cerr;
	if (pk_cpuid_parse(cpuid ? cpuid : (*m)->cpuid, &s->cpuid, &cerr) < 0)
		return pki_scenario_bad(err, where, "cpuid", json_object_get(root, "cpuid"),
					cerr.msg);
	v = json_object_get(root, "smt");
	if (v && !json_is_boolean(v))
		return pki_scenario_bad(err, where, "smt", v, "expected true or false");
	s->smt = v && json_is_true(v);
	v = json_object_get(root, "privileged");
	if (v && !json_is_boolean(v))
		return pki_scenario_bad(err, where, "privileged", v, "expected true or false");
	s->unprivileged = v && json_is_false(v);
	rc = parse_kernel(root, where, s, err);
	if (rc)
		return rc;
	if (json_object_get(root, "quantum_ms")) {
		rc = get_number(root, "quantum_ms", 0.001, 1000, false, "", where, &s->quantum_ms, err);
		if (rc)
			return rc;
	}
	if (json_object_get(root, "ref_ghz"))
		return get_number(root, "ref_ghz", 0, 10, true, "", where, &s->ref_ghz, err);
	return 0;
}

static int parse_threads(const json_t *root, const pki_machine *m, const char *where,
			 pki_scenario *s, pk_error *err)
{
	char sub[PKI_PATH_MAX];
	json_t *a;
	if (member(root, "threads", true, "", where, sub, &a, err))
		return -EINVAL;
	if (!json_is_array(a) || !json_array_size(a))
		return pki_scenario_bad(err, where, "threads", a, "expected a non-empty array");
	s->threads = calloc(json_array_size(a), sizeof(*s->threads));
	if (!s->threads)
		return pk_err(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < json_array_size(a); i++) {
		pki_json_path(sub, sizeof(sub), "threads", NULL, (long)i);
		pki_thread *t = &s->threads[s->nr_threads++];
		int rc = parse_thread(json_array_get(a, i), sub, m, where, t, err);
		if (rc)
			return rc;
		for (size_t j = 0; j < i; j++)
			if (s->threads[j].tid == t->tid) {
				char tid[PKI_PATH_MAX];
				pki_json_path(tid, sizeof(tid), sub, "tid", -1);
				return pki_scenario_bad(err, where, tid,
							json_object_get(json_array_get(a, i), "tid"),
							"the same tid as an earlier thread");
			}
	}
	return 0;
}

static bool same_tma(const pki_phase *a, const pki_phase *b)
{
	if (a->core_type != b->core_type || a->nr_deep != b->nr_deep ||
	    memcmp(a->tma, b->tma, sizeof(a->tma)))
		return false;
	for (size_t i = 0; i < a->nr_deep; i++)
		if (a->deep[i].name != b->deep[i].name || a->deep[i].share != b->deep[i].share)
			return false;
	return true;
}

/* Points each phase at the first earlier one with the same shares (among
 * the first 64 distinct ones), whose deeper events' rates it then shares
 * (events_tree.c solves each distinct breakdown once). */
static void link_same_tma(pki_scenario *s)
{
	const pki_phase *seen[64];
	size_t n = 0;
	for (size_t t = 0; t < s->nr_threads; t++)
		for (size_t p = 0; p < s->threads[t].nr_phases; p++) {
			pki_phase *ph = &s->threads[t].phases[p];
			size_t i = 0;
			while (i < n && !same_tma(seen[i], ph))
				i++;
			if (i < n)
				ph->same_tma = seen[i];
			else if (n < 64)
				seen[n++] = ph;
		}
}

int pki_scenario_parse(const char *text, size_t len, const char *where, pki_scenario *out,
		       pk_error *err)
{
	static const char *const known[] = {"machine", "cpuid", "smt", "ref_ghz", "privileged",
					    "kernel", "quantum_ms", "threads", NULL};
	memset(out, 0, sizeof(*out));
	where = where ? where : "(scenario)";
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		int rc = pk_err_at(err, -EINVAL, "scenario", where, jerr.position,
				   "not valid JSON: %s (line %d, column %d)", jerr.text, jerr.line,
				   jerr.column);
		if (err)
			err->pos_is_offset = 1;
		return rc;
	}
	const pki_machine *m = NULL;
	int rc = json_is_object(root) ? 0
				      : pki_scenario_bad(err, where, "(top level)", root,
							 "expected an object");
	if (!rc)
		rc = pki_scenario_keys(root, known, "", where, err);
	if (!rc)
		rc = parse_machine(root, where, out, &m, err);
	if (!rc)
		rc = parse_threads(root, m, where, out, err);
	json_decref(root);
	if (rc)
		pki_scenario_release(out);
	else
		link_same_tma(out);
	return rc;
}

int pki_scenario_load(const char *path, pki_scenario *out, pk_error *err)
{
	char *text;
	size_t len;
	memset(out, 0, sizeof(*out));
	int rc = pki_read_file(path, &text, &len);
	if (rc < 0)
		return pk_err_at(err, rc, "scenario", path, -1, "cannot read the scenario: %s",
				 strerror(-rc));
	rc = pki_scenario_parse(text, len, path, out, err);
	free(text);
	return rc;
}

void pki_scenario_release(pki_scenario *s)
{
	for (size_t i = 0; i < s->nr_threads; i++) {
		for (size_t p = 0; p < s->threads[i].nr_phases; p++) {
			free(s->threads[i].phases[p].deep);
			pki_tree_release(&s->threads[i].phases[p]);
		}
		free(s->threads[i].phases);
	}
	free(s->threads);
	memset(s, 0, sizeof(*s));
}

uint64_t pki_phase_cycles(const pki_phase *p)
{
	return (uint64_t)llround(p->ms * p->ghz * 1e6);
}
