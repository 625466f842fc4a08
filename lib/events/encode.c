/* Syntax tree -> evsels: resolve names against the PMUs, expand onto core
 * PMUs where the hybrid rules say so, encode format terms into config words,
 * apply modifiers, and form groups.
 *
 * Resolution order for a bare name follows perf: symbolic events (cycles,
 * task-clock, L1-dcache-loads), then sysfs aliases of any PMU (slots,
 * topdown-retiring), then named events through libpfm4 (inst_retired.any). */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/hw_breakpoint.h>

#include <pmukit/cpuid.h>
#include <pmukit/kernel.h>
#include <pmukit/tracepoint.h>

#include "core/util.h"
#include "events/ast.h"
#include "events/evlist_internal.h"
#include "events/names.h"
#include "events/pfm.h"

/* What one parse builds before it is committed to the evlist. */
struct build {
	const char *str;               /* the whole event string, for error positions */
	const pk_pmus *pmus;
	const pk_parse_opts *opts;
	pk_evlist *evlist;             /* for warnings */
	pk_evsel **evsels;
	size_t nr, cap;
	pk_cpuid cpuid;
	bool have_cpuid;
};

#define MAX_MATCH 256

static int oom(pk_error *err)
{
	return pk_err(err, -ENOMEM, "out of memory");
}

static int build_push(struct build *b, pk_evsel *e, pk_error *err)
{
	if (pki_grow(&b->evsels, &b->cap, b->nr + 1, sizeof(*b->evsels)) < 0) {
		pki_evsel_free(e);
		return oom(err);
	}
	e->idx = (int)b->nr;
	e->leader = e->idx;
	e->nr_members = 1;
	b->evsels[b->nr++] = e;
	return 0;
}

/* A new evsel for `pmu` (may be NULL), named `name`. */
static pk_evsel *new_evsel(const pk_pmu *pmu, const char *pmu_name, const char *name,
			   const pk_ev_ast *ev)
{
	pk_evsel *e = pki_evsel_new();
	if (!e)
		return NULL;
	pki_evsel_set_pmu(e, pmu);
	e->src_pos = ev->pos;
	e->src_len = ev->len;
	/* perf_guest is off and perf_host on: count the host only, by default */
	e->attr.exclude_guest = 1;
	if (!pmu_name && pmu)
		pmu_name = pmu->name;
	if ((name && !(e->name = strdup(name))) || (pmu_name && !(e->pmu_name = strdup(pmu_name)))) {
		pki_evsel_free(e);
		return NULL;
	}
	if (pmu && pmu->cpus)
		e->cpus = pk_cpumap_get(pmu->cpus);
	return e;
}

/* The CPU identification for named events. A malformed one the user gave
 * (opts->cpuid, PMUKIT_CPUID) is an error; a host without one has no named
 * events (*out NULL). */
static int build_cpuid(struct build *b, const pk_cpuid **out, pk_error *err)
{
	*out = NULL;
	if (b->have_cpuid) {
		*out = &b->cpuid;
		return 0;
	}
	pk_error e;
	pk_error_clear(&e);
	const char *s = b->opts ? b->opts->cpuid : NULL;
	int r = s ? pk_cpuid_parse(s, &b->cpuid, &e) : pk_host_cpuid(NULL, &b->cpuid, &e);
	if (r < 0) {
		if (!s && !pk_cpuid_overridden())
			return 0;
		if (err)
			*err = e;
		return r;
	}
	b->have_cpuid = true;
	*out = &b->cpuid;
	return 0;
}

/* Core PMUs an event without a PMU goes to: every core PMU, or the one
 * --cputype selects. */
static size_t target_core_pmus(struct build *b, const pk_pmu **out, pk_error *err, int pos)
{
	size_t n = 0;
	const char *only = b->opts ? b->opts->only_pmu : NULL;
	for (size_t i = 0; i < pk_pmus_nr_core(b->pmus); i++) {
		const pk_pmu *p = pk_pmus_core_at(b->pmus, i);
		if (only && strcmp(only, p->name))
			continue;
		out[n++] = p;
	}
	if (only && n == 0) {
		pk_err_at(err, -ENOENT, PK_EVENT_SYNTAX, b->str, pos,
			  "no core PMU named '%s' on this machine", only);
		return (size_t)-1;
	}
	return n;
}

/* libpfm4 lookups report errors without a position; point them at the name. */
static int pfm_lookup_at(struct build *b, const char *name, int pos, const pk_pmu *only,
			 pk_pfm_match *out, size_t max, pk_error *err)
{
	const pk_cpuid *cpuid;
	int rc = build_cpuid(b, &cpuid, err);
	if (rc < 0 || !cpuid)
		return rc;
	pk_error perr;
	pk_error_clear(&perr);
	int r = pki_pfm_lookup(b->pmus, cpuid, name, only, out, max, &perr);
	if (r < 0) {
		pk_err_at(err, r, PK_EVENT_SYNTAX, b->str, pos, "%s", perr.msg);
		if (perr.hint[0])
			pk_err_hint(err, "%s", perr.hint);
	}
	return r;
}

/* ---- terms ---------------------------------------------------------------- */

static int term_number(struct build *b, const pk_term *t, uint64_t *v, pk_error *err)
{
	if (!t->value) {
		*v = 1; /* a bare format term sets the field to 1, as perf does */
		return 0;
	}
	if (pki_parse_u64(t->value, v, NULL) < 0)
		return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->value_pos,
				 "expected a number for '%s', got '%s'", t->name, t->value);
	return 0;
}

struct term_state {
	uint64_t config[PK_NR_CONFIGS];
	uint64_t set_mask[PK_NR_CONFIGS]; /* bits some term wrote */
	bool legacy;                      /* a generic hw/cache event named as a term */
	uint32_t legacy_type;
	bool pfm;
	const pk_alias *alias;
	char *name;                       /* name= */
	const pk_term *rate;              /* the period= or freq= term, if any */
};

/* perf's config terms (not format fields). This table is the one list of
 * their names: the parser of terms and the "valid terms" hint both read it. */
enum config_term_id {
	CT_CONFIG, CT_CONFIG1, CT_CONFIG2, CT_CONFIG3, CT_NAME, CT_PERIOD, CT_FREQ, CT_INHERIT,
	CT_NO_INHERIT, CT_TIME, CT_CALL_GRAPH, CT_STACK_SIZE, CT_MAX_STACK, CT_AUX_OUTPUT,
	CT_AUX_SAMPLE_SIZE,
};

enum config_term_value {
	CTV_NONE,    /* a bare flag: no-inherit */
	CTV_TEXT,    /* name=..., call-graph=... */
	CTV_NUMBER,  /* period=1000; a value is required */
	CTV_BOOLEAN, /* inherit, time=0: bare means 1, else 0 or 1 */
};

struct config_term {
	const char *name;
	enum config_term_id id;
	enum config_term_value value;
};

static const struct config_term config_terms[] = {
	{"config", CT_CONFIG, CTV_NUMBER},
	{"config1", CT_CONFIG1, CTV_NUMBER},
	{"config2", CT_CONFIG2, CTV_NUMBER},
	{"config3", CT_CONFIG3, CTV_NUMBER},
	{"name", CT_NAME, CTV_TEXT},
	{"period", CT_PERIOD, CTV_NUMBER},
	{"freq", CT_FREQ, CTV_NUMBER},
	{"inherit", CT_INHERIT, CTV_BOOLEAN},
	{"no-inherit", CT_NO_INHERIT, CTV_NONE},
	{"time", CT_TIME, CTV_BOOLEAN},
	{"call-graph", CT_CALL_GRAPH, CTV_TEXT},
	{"stack-size", CT_STACK_SIZE, CTV_NUMBER},
	{"max-stack", CT_MAX_STACK, CTV_NUMBER},
	{"aux-output", CT_AUX_OUTPUT, CTV_BOOLEAN},
	{"aux-sample-size", CT_AUX_SAMPLE_SIZE, CTV_NUMBER},
};

#define MAX_STACK_MAX 65535u  /* max-stack fits 16 bits */

static const struct config_term *find_config_term(const char *name)
{
	for (size_t k = 0; k < PK_ARRAY_SIZE(config_terms); k++)
		if (!strcmp(name, config_terms[k].name))
			return &config_terms[k];
	return NULL;
}

/* Checks the value's shape against the table; *v gets a number's value. */
static int config_term_value(struct build *b, const struct config_term *ct, const pk_term *t,
			     uint64_t *v, pk_error *err)
{
	*v = 0;
	switch (ct->value) {
	case CTV_NONE:
		if (t->value)
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->value_pos,
					 "'%s' takes no value", t->name);
		return 0;
	case CTV_TEXT:
		if (!t->value)
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->pos,
					 "'%s' needs a value", t->name);
		return 0;
	case CTV_NUMBER:
		if (!t->value)
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->pos,
					 "'%s' needs a value", t->name);
		return term_number(b, t, v, err);
	case CTV_BOOLEAN: {
		int r = term_number(b, t, v, err);
		if (r == 0 && *v > 1)
			r = pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->value_pos,
				      "'%s' expects 0 or 1, got '%s'", t->name, t->value);
		return r;
	}
	}
	return 0;
}

/* period= and freq= are two ways to set one field: one of them, once. perf
 * 6.1 keeps whichever comes last and drops the other without a word. */
static int check_rate_term(struct build *b, struct term_state *ts, const pk_term *t, uint64_t v,
			   pk_error *err)
{
	if (ts->rate && strcmp(ts->rate->name, t->name)) {
		pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->pos,
			  "'%s' and '%s' both given: they set the same field", ts->rate->name,
			  t->name);
		pk_err_hint(err, "give a sampling period (period=N) or a frequency (freq=N), not both");
		return -EINVAL;
	}
	if (v == 0)
		return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->value_pos,
				 "'%s' must be at least 1", t->name);
	ts->rate = t;
	return 0;
}

static int apply_sampling_term(struct build *b, pk_evsel *e, const struct config_term *ct,
			       const pk_term *t, uint64_t v, pk_error *err)
{
	switch (ct->id) {
	case CT_CALL_GRAPH:
		if (strcmp(t->value, "fp") && strcmp(t->value, "dwarf") && strcmp(t->value, "lbr") &&
		    strcmp(t->value, "no"))
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->value_pos,
					 "call-graph must be fp, dwarf, lbr or no");
		free(e->call_graph);
		if (!(e->call_graph = strdup(t->value)))
			return oom(err);
		break;
	case CT_STACK_SIZE:
		/* perf rounds the size up to whole u64 words */
		if (v > PK_STACK_DUMP_MAX)
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->value_pos,
					 "stack-size must be at most %u", PK_STACK_DUMP_MAX);
		e->stack_size = (uint32_t)((v + 7) & ~(uint64_t)7);
		break;
	case CT_MAX_STACK:
		if (v > MAX_STACK_MAX)
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->value_pos,
					 "max-stack must be at most %u", MAX_STACK_MAX);
		e->max_stack = (uint16_t)v;
		break;
	case CT_AUX_SAMPLE_SIZE:
		if (v > UINT32_MAX)
			return pk_err_at(err, -ERANGE, PK_EVENT_SYNTAX, b->str, t->value_pos,
					 "aux-sample-size must fit 32 bits");
		e->attr.aux_sample_size = (uint32_t)v;
		break;
	default:
		break;
	}
	return 0;
}

/* Applies a config term; *handled is false when the term is not one. */
static int apply_config_term(struct build *b, pk_evsel *e, struct term_state *ts,
			     const pk_term *t, bool *handled, pk_error *err)
{
	const struct config_term *ct = find_config_term(t->name);
	*handled = ct != NULL;
	if (!ct)
		return 0;
	uint64_t v;
	int r = config_term_value(b, ct, t, &v, err);
	if (r < 0)
		return r;
	switch (ct->id) {
	case CT_CONFIG:
	case CT_CONFIG1:
	case CT_CONFIG2:
	case CT_CONFIG3: {
		int w = (int)(ct->id - CT_CONFIG);
		ts->config[w] = v;
		ts->set_mask[w] = ~0ULL;
		break;
	}
	case CT_NAME:
		free(ts->name);
		if (!(ts->name = strdup(t->value)))
			return oom(err);
		break;
	case CT_PERIOD:
	case CT_FREQ:
		if ((r = check_rate_term(b, ts, t, v, err)) < 0)
			return r;
		e->attr.freq = ct->id == CT_FREQ;
		if (ct->id == CT_FREQ)
			e->attr.sample_freq = v;
		else
			e->attr.sample_period = v;
		e->freq_set = ct->id == CT_FREQ;
		e->period_set = ct->id == CT_PERIOD;
		break;
	case CT_INHERIT:
	case CT_NO_INHERIT:
		e->inherit_term = ct->id == CT_INHERIT && v;
		break;
	case CT_TIME:
		e->time_term = v != 0;
		break;
	case CT_AUX_OUTPUT:
		e->attr.aux_output = v != 0;
		break;
	default:
		return apply_sampling_term(b, e, ct, t, v, err);
	}
	return 0;
}

static int apply_format_term(struct build *b, struct term_state *ts, const pk_pmu *pmu,
			     const pk_format *f, const pk_term *t, pk_error *err)
{
	uint64_t v;
	int r = term_number(b, t, &v, err);
	if (r < 0)
		return r;
	if (pk_format_apply(f, v, ts->config) < 0) {
		char desc[128];
		pk_format_describe(f, desc, sizeof(desc));
		pk_err_at(err, -ERANGE, PK_EVENT_SYNTAX, b->str, t->value_pos >= 0 ? t->value_pos : t->pos,
			  "value too big for format, maximum is %llu",
			  (unsigned long long)pk_format_max(f));
		pk_err_hint(err, "'%s' of PMU '%s' is %s (%u bits)", f->name, pmu->name, desc, f->width);
		return -ERANGE;
	}
	uint64_t ones[PK_NR_CONFIGS] = {0};
	pk_format_apply(f, pk_format_max(f), ones);
	ts->set_mask[f->word] |= ones[f->word];
	return 0;
}

static void hint_valid_terms(pk_error *err, const pk_pmu *pmu)
{
	pk_strbuf sb = {0};
	for (size_t i = 0; i < pmu->nr_formats; i++)
		pki_sb_addf(&sb, "%s%s", i ? "," : "", pmu->formats[i].name);
	for (size_t i = 0; i < PK_ARRAY_SIZE(config_terms); i++)
		pki_sb_addf(&sb, "%s%s", i || pmu->nr_formats ? "," : "", config_terms[i].name);
	if (sb.buf)
		pk_err_hint(err, "valid terms: %s", sb.buf);
	if (pmu->nr_aliases)
		pk_err_hint(err, "events of '%s': see 'pmukit list %s/'", pmu->name, pmu->name);
	pki_sb_free(&sb);
}

static int apply_terms(struct build *b, pk_evsel *e, struct term_state *ts, const pk_pmu *pmu,
		       const pk_term *terms, size_t nr, const pk_alias *from_alias, pk_error *err);

/* Expands a sysfs alias: its text is a term list in the same syntax. */
static int apply_alias(struct build *b, pk_evsel *e, struct term_state *ts, const pk_pmu *pmu,
		       const pk_alias *a, const pk_term *user_term, pk_error *err)
{
	pk_term *terms;
	size_t nr;
	int i = 0;
	pk_error aerr;
	pk_error_clear(&aerr);
	int r = pki_parse_terms(a->terms, &i, '\0', &terms, &nr, &aerr);
	if (r < 0)
		return pk_err_at(err, r, PK_EVENT_SYNTAX, b->str, user_term->pos,
				 "sysfs event %s/events/%s is malformed ('%s': %s)", pmu->name,
				 a->name, a->terms, aerr.msg);
	/* Errors inside the alias point at the user's term, and say which file. */
	pk_error inner;
	pk_error_clear(&inner);
	r = apply_terms(b, e, ts, pmu, terms, nr, a, &inner);
	pki_terms_free(terms, nr);
	if (r < 0)
		return pk_err_at(err, r, PK_EVENT_SYNTAX, b->str, user_term->pos,
				 "sysfs event %s/events/%s ('%s'): %s", pmu->name, a->name, a->terms,
				 inner.msg);
	ts->alias = a;
	return 0;
}

static bool looks_named(const char *name)
{
	/* libpfm4 / perf JSON names carry '.' or ':' (inst_retired.any, INST_RETIRED:ANY) */
	return strchr(name, '.') || strchr(name, ':');
}

static int apply_terms(struct build *b, pk_evsel *e, struct term_state *ts, const pk_pmu *pmu,
		       const pk_term *terms, size_t nr, const pk_alias *from_alias, pk_error *err)
{
	for (size_t k = 0; k < nr; k++) {
		const pk_term *t = &terms[k];
		bool handled;
		int r = apply_config_term(b, e, ts, t, &handled, err);
		if (r < 0)
			return r;
		if (handled)
			continue;
		const pk_format *f = pk_pmu_format(pmu, t->name);
		if (f) {
			if ((r = apply_format_term(b, ts, pmu, f, t, err)) < 0)
				return r;
			continue;
		}
		if (t->value)
			goto unknown;
		/* A bare name: an event alias of this PMU, a raw code, a generic
		 * event on a core PMU, or a named event through libpfm4. */
		const pk_alias *a = from_alias ? NULL : pk_pmu_alias(pmu, t->name);
		if (a) {
			if ((r = apply_alias(b, e, ts, pmu, a, t, err)) < 0)
				return r;
			if (a->unit && !e->unit && !(e->unit = strdup(a->unit)))
				return oom(err);
			e->scale = a->scale;
			continue;
		}
		uint64_t raw;
		if (pmu->kind == PK_PMU_CORE && pki_parse_raw_name(t->name, &raw) == 0) {
			ts->config[0] = raw;
			ts->set_mask[0] = ~0ULL;
			continue;
		}
		uint32_t type;
		uint64_t id;
		if (pmu->kind == PK_PMU_CORE && !from_alias && pki_symbolic_lookup(t->name, &type, &id) &&
		    type != PERF_TYPE_SOFTWARE) {
			ts->legacy = true;
			ts->legacy_type = type;
			ts->config[0] = id | (pmu->hybrid ? (uint64_t)pmu->type << PK_PMU_TYPE_SHIFT : 0);
			continue;
		}
		if (pmu->kind == PK_PMU_CORE && !from_alias && looks_named(t->name)) {
			pk_pfm_match m;
			r = pfm_lookup_at(b, t->name, t->pos, pmu, &m, 1, err);
			if (r < 0)
				return r;
			if (r > 0) {
				for (int w = 0; w < PK_NR_CONFIGS; w++) {
					ts->config[w] |= m.config[w];
					ts->set_mask[w] |= m.config[w];
				}
				ts->pfm = true;
				continue;
			}
		}
unknown:
		pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->pos,
			  "unknown term '%s' for pmu '%s'", t->name, pmu->name);
		hint_valid_terms(err, pmu);
		return -EINVAL;
	}
	return 0;
}

/* Writes the term state into the evsel's attr. */
static int finish_terms(struct build *b, pk_evsel *e, struct term_state *ts, const pk_pmu *pmu,
			const pk_ev_ast *ev, pk_error *err)
{
	if (ts->legacy) {
		for (int w = 1; w < PK_NR_CONFIGS; w++)
			if (ts->set_mask[w])
				return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, ev->pos,
						 "a generic event cannot be combined with format terms");
		e->attr.type = ts->legacy_type;
	} else {
		e->attr.type = pmu->type;
	}
	e->attr.config = ts->config[0];
	e->attr.config1 = ts->config[1];
	e->attr.config2 = ts->config[2];
	e->config3 = ts->config[3];
	e->alias = ts->alias;
	if (ts->name) {
		free(e->name);
		e->name = ts->name;
		ts->name = NULL;
	}
	return 0;
}

static void spe_hints(pk_error *err)
{
	pk_err_hint(err, "Arm SPE is missing. Likely causes:\n"
			 "  - the arm_spe_pmu driver is not loaded (CONFIG_ARM_SPE_PMU; try 'modprobe arm_spe_pmu')\n"
			 "  - the kernel runs with KPTI (kernel page-table isolation), which makes the profiling\n"
			 "    buffer inaccessible: boot with 'kpti=off'\n"
			 "  - the firmware does not describe the SPE interrupt (ACPI MADT / device tree), so the\n"
			 "    driver does not probe\n"
			 "  - this is a virtual machine: hypervisors rarely expose SPE to guests");
}

/* An evsel on the named PMU, named by the event's text as typed (without
 * its modifiers), as perf names breakpoints and terms on symbolic events. */
static pk_evsel *new_typed_evsel(struct build *b, const pk_ev_ast *ev, const char *pmu)
{
	char *name = strndup(b->str + ev->pos, (size_t)(ev->mods ? ev->mods_pos - 1 - ev->pos : ev->len));
	pk_evsel *e = name ? new_evsel(pk_pmus_find(b->pmus, pmu), pmu, name, ev) : NULL;
	free(name);
	return e;
}

/* An event whose config is its own (software, tracepoint): only perf's
 * config terms apply (name=, period=, call-graph=, max-stack= ...), no
 * config words; what names the kind in the error. */
static int config_terms_only(struct build *b, pk_evsel *e, const pk_ev_ast *ev, const char *what,
			     pk_error *err)
{
	struct term_state ts = {0};
	int r = 0;
	for (size_t i = 0; r == 0 && i < ev->nr_terms; i++) {
		bool handled;
		const pk_term *t = &ev->terms[i];
		r = apply_config_term(b, e, &ts, t, &handled, err);
		/* config words are the event's own: perf takes none here */
		bool words = ts.set_mask[0] | ts.set_mask[1] | ts.set_mask[2] | ts.set_mask[3];
		if (r == 0 && (!handled || words))
			r = pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, t->pos,
				      "unknown term '%s' for the %s '%s'", t->name, what,
				      e->name ? e->name : ev->name);
	}
	if (r == 0 && ts.name) {
		free(e->name);
		e->name = ts.name;
		ts.name = NULL;
	}
	free(ts.name);
	return r;
}

/* A software event with config terms ("cpu-clock/period=50000/", perf's
 * PE_VALUE_SYM_SW '/' terms '/'): only perf's config terms apply; the
 * name is the text as typed, as perf stores it. 1 when ev is not one. */
static int expand_sw_terms(struct build *b, const pk_ev_ast *ev, pk_error *err)
{
	uint32_t type;
	uint64_t config;
	if (!pki_symbolic_lookup(ev->name, &type, &config) || type != PERF_TYPE_SOFTWARE)
		return 1;
	pk_evsel *e = new_typed_evsel(b, ev, "software");
	if (!e)
		return oom(err);
	e->attr.type = type;
	e->attr.config = config;
	int r = config_terms_only(b, e, ev, "software event", err);
	if (r < 0) {
		pki_evsel_free(e);
		return r;
	}
	return build_push(b, e, err);
}

/* pmu/terms/ */
static int expand_pmu_event(struct build *b, const pk_ev_ast *ev, pk_error *err)
{
	const pk_pmu *matched[MAX_MATCH];
	size_t n = pk_pmus_match(b->pmus, ev->name, matched, MAX_MATCH);
	if (n == 0) {
		int sw = expand_sw_terms(b, ev, err);
		if (sw <= 0)
			return sw;
		pk_err_at(err, -ENOENT, PK_EVENT_SYNTAX, b->str, ev->name_pos,
			  "Cannot find PMU '%s'. Missing kernel support?", ev->name);
		if (!strncmp(ev->name, "arm_spe", 7))
			spe_hints(err);
		else if (pk_pmus_nr_core(b->pmus) == 0 &&
			 (!strcmp(ev->name, "cpu") || !strncmp(ev->name, "cpu_", 4) ||
			  !strncmp(ev->name, "armv8", 5)))
			pk_err_hint(err, "This machine has no core PMU in sysfs (a VM without PMU "
					 "virtualization?): only software events can be counted.");
		return -ENOENT;
	}
	if (n > MAX_MATCH)
		n = MAX_MATCH;
	char *typed = strndup(b->str + ev->pos, (size_t)ev->len);
	if (!typed)
		return oom(err);
	for (size_t k = 0; k < n; k++) {
		const pk_pmu *pmu = matched[k];
		char *name = NULL;
		if (!strcmp(pmu->name, ev->name))
			name = strdup(typed);
		else if (asprintf(&name, "%s%s", pmu->name, typed + strlen(ev->name)) < 0)
			name = NULL;
		pk_evsel *e = name ? new_evsel(pmu, NULL, name, ev) : NULL;
		free(name);
		if (!e) {
			free(typed);
			return oom(err);
		}
		e->pmu_explicit = true;
		struct term_state ts = {0};
		int r = apply_terms(b, e, &ts, pmu, ev->terms, ev->nr_terms, NULL, err);
		if (r == 0)
			r = finish_terms(b, e, &ts, pmu, ev, err);
		free(ts.name);
		if (r < 0) {
			pki_evsel_free(e);
			free(typed);
			return r;
		}
		if ((r = build_push(b, e, err)) < 0) {
			free(typed);
			return r;
		}
	}
	free(typed);
	return 0;
}

/* Events without a PMU that count on the CPU (generic hardware and cache
 * events, rNNN). On a hybrid machine one per core PMU: a generic event keeps
 * its type with the PMU's type in config[63:32]; a raw event takes the PMU's
 * type. Elsewhere one event: the generic type, or PERF_TYPE_RAW. */
static int expand_on_cores(struct build *b, const pk_ev_ast *ev, bool raw, uint32_t type,
			   uint64_t config, pk_error *err)
{
	const pk_pmu *cores[MAX_MATCH];
	size_t n = target_core_pmus(b, cores, err, ev->name_pos);
	if (n == (size_t)-1)
		return -ENOENT;
	if (!pk_pmus_is_hybrid(b->pmus)) {
		const pk_pmu *pmu = n ? cores[0] : NULL;
		pk_evsel *e = new_evsel(pmu, pmu ? NULL : "cpu", ev->name, ev);
		if (!e)
			return oom(err);
		e->attr.type = raw ? PERF_TYPE_RAW : type;
		e->attr.config = config;
		return build_push(b, e, err);
	}
	for (size_t k = 0; k < n; k++) {
		char *name;
		if (asprintf(&name, "%s/%s/", cores[k]->name, ev->name) < 0)
			return oom(err);
		pk_evsel *e = new_evsel(cores[k], NULL, name, ev);
		free(name);
		if (!e)
			return oom(err);
		e->attr.type = raw ? cores[k]->type : type;
		e->attr.config = raw ? config : config | (uint64_t)cores[k]->type << PK_PMU_TYPE_SHIFT;
		int r = build_push(b, e, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static bool pmu_selected(struct build *b, const pk_pmu *pmu)
{
	const char *only = b->opts ? b->opts->only_pmu : NULL;
	return !only || pmu->kind != PK_PMU_CORE || !strcmp(only, pmu->name);
}

/* A bare name that is a sysfs alias of one or more PMUs. Returns the number
 * of evsels made (0: no PMU has it). */
static int expand_alias(struct build *b, const pk_ev_ast *ev, pk_error *err)
{
	size_t matches = 0;
	for (size_t i = 0; i < pk_pmus_count(b->pmus); i++) {
		const pk_pmu *pmu = pk_pmus_at(b->pmus, i);
		if (pk_pmu_alias(pmu, ev->name) && pmu_selected(b, pmu))
			matches++;
	}
	if (!matches)
		return 0;
	int made = 0;
	for (size_t i = 0; i < pk_pmus_count(b->pmus); i++) {
		const pk_pmu *pmu = pk_pmus_at(b->pmus, i);
		if (!pk_pmu_alias(pmu, ev->name) || !pmu_selected(b, pmu))
			continue;
		char *name;
		int w = (matches > 1 || pmu->hybrid)
				? asprintf(&name, "%s/%s/", pmu->name, ev->name)
				: asprintf(&name, "%s", ev->name);
		if (w < 0)
			return oom(err);
		pk_evsel *e = new_evsel(pmu, NULL, name, ev);
		free(name);
		if (!e)
			return oom(err);
		pk_term t = {.name = ev->name, .value = NULL, .pos = ev->name_pos, .value_pos = -1};
		struct term_state ts = {0};
		int r = apply_terms(b, e, &ts, pmu, &t, 1, NULL, err);
		if (r == 0)
			r = finish_terms(b, e, &ts, pmu, ev, err);
		free(ts.name);
		if (r < 0) {
			pki_evsel_free(e);
			return r;
		}
		if ((r = build_push(b, e, err)) < 0)
			return r;
		made++;
	}
	return made;
}

/* Named events through libpfm4; returns evsels made, 0 when unknown. */
static int expand_pfm(struct build *b, const pk_ev_ast *ev, const pk_pmu *only, pk_error *err)
{
	pk_pfm_match m[8];
	int n = pfm_lookup_at(b, ev->name, ev->name_pos, only, m, PK_ARRAY_SIZE(m), err);
	if (n <= 0)
		return n;
	int made = 0;
	for (int k = 0; k < n && k < (int)PK_ARRAY_SIZE(m); k++) {
		if (!pmu_selected(b, m[k].pmu))
			continue;
		char *name;
		int w = (n > 1 || m[k].pmu->hybrid) ? asprintf(&name, "%s/%s/", m[k].pmu->name, ev->name)
						     : asprintf(&name, "%s", ev->name);
		if (w < 0)
			return oom(err);
		pk_evsel *e = new_evsel(m[k].pmu, NULL, name, ev);
		free(name);
		if (!e)
			return oom(err);
		e->attr.type = m[k].pmu->type;
		e->attr.config = m[k].config[0];
		e->attr.config1 = m[k].config[1];
		e->attr.config2 = m[k].config[2];
		e->config3 = m[k].config[3];
		int r = build_push(b, e, err);
		if (r < 0)
			return r;
		made++;
	}
	return made;
}

/* The known names near an unknown one: symbolic events, then the core
 * PMUs' sysfs aliases; a hint line when there are any. */
static void did_you_mean(const pk_pmus *pmus, const char *name, pk_error *err)
{
	const char *near[4];
	size_t n = pki_symbolic_similar(name, near, PK_ARRAY_SIZE(near));
	for (size_t c = 0; c < pk_pmus_nr_core(pmus); c++) {
		const pk_pmu *p = pk_pmus_core_at(pmus, c);
		for (size_t i = 0; i < p->nr_aliases && n < PK_ARRAY_SIZE(near); i++)
			if (pk_similar(name, p->aliases[i].name))
				near[n++] = p->aliases[i].name;
	}
	if (n)
		pk_err_hint(err, "did you mean '%s'%s%s%s%s?", near[0], n > 1 ? ", '" : "",
			    n > 1 ? near[1] : "", n > 1 ? "'" : "", n > 2 ? " ..." : "");
}

static int expand_name(struct build *b, const pk_ev_ast *ev, pk_error *err)
{
	uint32_t type;
	uint64_t config;
	pk_tool_event tool = pki_tool_lookup(ev->name);
	if (tool || pki_symbolic_lookup(ev->name, &type, &config)) {
		if (tool || type == PERF_TYPE_SOFTWARE) {
			const pk_pmu *sw = pk_pmus_find(b->pmus, "software");
			pk_evsel *e = new_evsel(sw, "software", ev->name, ev);
			if (!e)
				return oom(err);
			/* a tool event is opened as perf opens it: a dummy */
			e->attr.type = PERF_TYPE_SOFTWARE;
			e->attr.config = tool ? PERF_COUNT_SW_DUMMY : config;
			e->tool = tool;
			/* perf counts duration_time on CPU 0 alone (-A: one row) */
			if (tool == PK_TOOL_DURATION) {
				pk_cpumap_put(e->cpus);
				if (!(e->cpus = pk_cpumap_from_array((int[]){0}, 1))) {
					pki_evsel_free(e);
					return oom(err);
				}
			}
			return build_push(b, e, err);
		}
		return expand_on_cores(b, ev, false, type, config, err);
	}
	int r = expand_alias(b, ev, err);
	if (r != 0)
		return r < 0 ? r : 0;
	r = expand_pfm(b, ev, NULL, err);
	if (r != 0)
		return r < 0 ? r : 0;
	pk_err_at(err, -ENOENT, PK_EVENT_SYNTAX, b->str, ev->name_pos, "unknown event '%s'",
		  ev->name);
	did_you_mean(b->pmus, ev->name, err);
	if (pk_pmus_find(b->pmus, ev->name))
		pk_err_hint(err, "'%s' is a PMU: write '%s//' or '%s/event=.../'", ev->name,
			    ev->name, ev->name);
	else
		pk_err_hint(err, "Run 'pmukit list' to see the events of this machine.");
	return -ENOENT;
}

static int expand_pfm_qualified(struct build *b, const pk_ev_ast *ev, pk_error *err)
{
	int r = expand_pfm(b, ev, NULL, err);
	if (r > 0)
		return 0;
	if (r < 0)
		return r;
	return pk_err_at(err, -ENOENT, PK_EVENT_SYNTAX, b->str, ev->name_pos,
			 "unknown libpfm4 event '%s' for the core PMUs of this machine", ev->name);
}

struct tp_ctx {
	struct build *b;
	const pk_ev_ast *ev;
	pk_error *err;
	int made;
	int rc;
};

static int add_tracepoint(const char *sys, const char *name, uint64_t id, void *arg)
{
	struct tp_ctx *c = arg;
	char *full;
	if (asprintf(&full, "%s:%s", sys, name) < 0) {
		c->rc = oom(c->err);
		return 1;
	}
	pk_evsel *e = new_evsel(pk_pmus_find(c->b->pmus, "tracepoint"), "tracepoint", full, c->ev);
	free(full);
	if (!e) {
		c->rc = oom(c->err);
		return 1;
	}
	e->attr.type = PERF_TYPE_TRACEPOINT;
	e->attr.config = id;
	if ((c->rc = config_terms_only(c->b, e, c->ev, "tracepoint", c->err)) < 0) {
		pki_evsel_free(e);
		return 1;
	}
	if ((c->rc = build_push(c->b, e, c->err)) < 0)
		return 1;
	c->made++;
	return 0;
}

static int expand_tracepoint(struct build *b, const pk_ev_ast *ev, pk_error *err)
{
	const char *tracefs = pk_tracefs_dir(b->opts ? b->opts->tracefs : NULL);
	if (!tracefs) {
		pk_err_at(err, -ENOENT, PK_EVENT_SYNTAX, b->str, ev->name_pos,
			  "no tracefs found for tracepoint '%s:%s'", ev->name, ev->name2);
		pk_err_hint(err, "Mount it (mount -t tracefs nodev /sys/kernel/tracing) or set "
				 "PMUKIT_TRACEFS; reading it usually needs root.");
		return -ENOENT;
	}
	struct tp_ctx c = {b, ev, err, 0, 0};
	bool glob = strpbrk(ev->name, "*?[") || strpbrk(ev->name2, "*?[");
	pk_error tperr;
	pk_error_clear(&tperr);
	if (glob) {
		int r = pk_tracepoint_foreach(tracefs, ev->name, ev->name2, add_tracepoint, &c, &tperr);
		if (c.rc < 0)
			return c.rc;
		if (r < 0 || c.made == 0) {
			pk_err_at(err, r < 0 ? r : -ENOENT, PK_EVENT_SYNTAX, b->str, ev->name_pos,
				  "%s", r < 0 ? tperr.msg : "no tracepoint matches");
			return err ? err->code : -ENOENT;
		}
		return 0;
	}
	uint64_t id;
	int r = pk_tracepoint_id(tracefs, ev->name, ev->name2, &id, &tperr);
	if (r < 0) {
		pk_err_at(err, r, PK_EVENT_SYNTAX, b->str, ev->name_pos, "%s", tperr.msg);
		if (tperr.hint[0])
			pk_err_hint(err, "%s", tperr.hint);
		return r;
	}
	add_tracepoint(ev->name, ev->name2, id, &c);
	return c.rc;
}

static int expand_breakpoint(struct build *b, const pk_ev_ast *ev, pk_error *err)
{
	pk_evsel *e = new_typed_evsel(b, ev, "breakpoint");
	if (!e)
		return oom(err);
	e->attr.type = PERF_TYPE_BREAKPOINT;
	e->attr.bp_type = ev->bp_type;
	e->attr.bp_addr = ev->raw;
	e->attr.bp_len = ev->bp_len ? ev->bp_len : (ev->bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4);
	/* breakpoints fire on every hit: perf samples each one */
	e->attr.sample_period = 1;
	return build_push(b, e, err);
}

/* ---- modifiers ------------------------------------------------------------ */

/* perf's modifier rules. For an event's own modifiers the exclude bits start
 * from zero (so "cycles:P" drops the default exclude_guest); a group's
 * modifiers start from each member's current bits. */
static int apply_mods(struct build *b, pk_evsel *e, const char *mods, int pos, bool from_current,
		      pk_error *err)
{
	struct perf_event_attr *a = &e->attr;
	int eu = 0, ek = 0, eh = 0, eH = 0, eG = 0, eI = 0, precise = 0;
	bool exclude_GH = false;
	if (from_current) {
		eu = a->exclude_user;
		ek = a->exclude_kernel;
		eh = a->exclude_hv;
		eH = a->exclude_host;
		eG = a->exclude_guest;
		eI = a->exclude_idle;
		precise = a->precise_ip;
		exclude_GH = e->exclude_GH;
	}
	int exclude = eu | ek | eh;
	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'u':
		case 'k':
		case 'h':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			/* only :u excludes the guest (perf 6.1: `cycles:k` counts
			 * guest kernel too, exclude_guest=0) */
			if (!exclude_GH && *m == 'u')
				eG = 1;
			if (*m == 'u')
				eu = 0;
			else if (*m == 'k')
				ek = 0;
			else
				eh = 0;
			break;
		case 'G':
		case 'H':
			if (!exclude_GH) {
				exclude_GH = true;
				eG = eH = 1;
			}
			if (*m == 'G')
				eG = 0;
			else
				eH = 0;
			break;
		case 'I':
			eI = 1;
			break;
		case 'p':
			precise++;
			if (!exclude_GH)
				eG = 1;
			break;
		case 'P':
			e->precise_max = true;
			break;
		case 'S':
			e->sample_read = true;
			break;
		case 'D':
			a->pinned = 1;
			break;
		case 'W':
			e->weak_group = true;
			break;
		case 'e':
			a->exclusive = 1;
			break;
		case 'b':
			break; /* BPF counters: counted the same way here */
		default:
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, pos + (int)(m - mods),
					 "unknown modifier '%c'", *m);
		}
	}
	if (precise > PK_PRECISE_MAX)
		return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, pos,
				 "too many 'p' modifiers: precise_ip goes up to %d", PK_PRECISE_MAX);
	a->exclude_user = eu;
	a->exclude_kernel = ek;
	a->exclude_hv = eh;
	a->exclude_host = eH;
	a->exclude_guest = eG;
	a->exclude_idle = eI;
	a->precise_ip = precise;
	e->exclude_GH = exclude_GH;
	return 0;
}

/* A symbolic event keeps its modifiers in its name ("cpu-clock:u"), as
 * perf names it (and stores it in perf.data); perf 6.1 names a cache event
 * as written without them ("L1-dcache-loads:u" is "L1-dcache-loads"). */
static int name_with_mods(pk_evsel *e, const pk_ev_ast *ev, pk_error *err)
{
	if (ev->kind != PK_EV_NAME || !e->name || strcmp(e->name, ev->name) ||
	    e->attr.type == PERF_TYPE_HW_CACHE)
		return 0;
	char *n = NULL;
	if (asprintf(&n, "%s:%s", ev->name, ev->mods) < 0)
		return oom(err);
	free(e->name);
	e->name = n;
	return 0;
}

/* ---- groups --------------------------------------------------------------- */

static const pk_pmu *hybrid_pmu_of(const pk_evsel *e)
{
	return e->pmu && e->pmu->kind == PK_PMU_CORE && e->pmu->hybrid ? e->pmu : NULL;
}

static bool is_slots(const pk_evsel *e)
{
	return e->alias && !strcasecmp(e->alias->name, "slots");
}

static bool is_topdown(const pk_evsel *e)
{
	return e->alias && !strncasecmp(e->alias->name, "topdown-", 8);
}

/* The kernel wants the slots event to lead a group with topdown metric
 * events; put it first and the topdown events right after, as perf does. */
static void order_topdown(pk_evsel **ev, size_t n)
{
	bool has_slots = false, has_td = false;
	for (size_t i = 0; i < n; i++) {
		has_slots |= is_slots(ev[i]);
		has_td |= is_topdown(ev[i]);
	}
	if (!has_slots || !has_td)
		return;
	/* stable insertion sort by rank */
	for (size_t i = 1; i < n; i++) {
		pk_evsel *x = ev[i];
		int rx = is_slots(x) ? 0 : is_topdown(x) ? 1 : 2;
		size_t j = i;
		while (j > 0) {
			pk_evsel *y = ev[j - 1];
			int ry = is_slots(y) ? 0 : is_topdown(y) ? 1 : 2;
			if (ry <= rx)
				break;
			ev[j] = y;
			j--;
		}
		ev[j] = x;
	}
}

static void make_group(pk_evsel **ev, size_t n)
{
	order_topdown(ev, n);
	for (size_t i = 0; i < n; i++) {
		ev[i]->leader = ev[0]->idx;
		ev[i]->nr_members = i == 0 ? (int)n : 0;
	}
}

static void make_lone(pk_evsel **ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ev[i]->leader = ev[i]->idx;
		ev[i]->nr_members = 1;
	}
}

/* ---- TopDown metric events: the kernel's rules, fixed or refused ------- */

/* Not in a group (or alone in one). */
static bool is_lone(const pk_evsel *e)
{
	return e->leader == e->idx && e->nr_members <= 1;
}

/* A PERF_METRICS metric event: a topdown-* alias with event code 0 on a
 * core PMU that has the slots event (perf's arch_is_topdown_metrics). */
static bool is_td_metric(const pk_evsel *e)
{
	return is_topdown(e) && e->pmu && pk_pmu_alias(e->pmu, "slots") &&
	       (e->attr.config & 0xff) == 0;
}

/* A slots event for metric event m's PMU, with m's privilege filters. */
static int new_slots(struct build *b, const pk_evsel *m, pk_evsel **out, pk_error *err)
{
	char text[128];
	const pk_pmu *pmu = m->pmu;
	snprintf(text, sizeof(text), "%s/slots/", pmu->name);
	pk_evlist *tmp = pk_evlist_new();
	if (!tmp)
		return oom(err);
	pk_parse_opts po = {.cpuid = b->opts ? b->opts->cpuid : NULL};
	int r = pk_evlist_parse(tmp, b->pmus, text, &po, err);
	if (r == 0 && pk_evlist_count(tmp) == 1) {
		pk_evsel *e = pk_evlist_at(tmp, 0);
		tmp->nr = 0; /* taken from the temporary list */
		e->attr.exclude_user = m->attr.exclude_user;
		e->attr.exclude_kernel = m->attr.exclude_kernel;
		e->attr.exclude_hv = m->attr.exclude_hv;
		e->src_pos = m->src_pos;
		e->src_len = 0;
		if (!pmu->hybrid) {
			free(e->name);
			e->name = strdup("slots");
		}
		*out = e;
	} else if (r == 0) {
		r = pk_err(err, -EINVAL, "internal: '%s' gave %zu events", text,
			   pk_evlist_count(tmp));
	}
	pk_evlist_put(tmp);
	return r;
}

static void names_of(pk_evsel **ev, size_t n, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "{");
	for (size_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "", ev[i]->name);
	if (o < len)
		snprintf(buf + o, len - o, "}");
}

/* Refuses what cannot be fixed: a metric event that samples. */
static int td_refuse(struct build *b, pk_error *err)
{
	for (size_t i = 0; i < b->nr; i++) {
		const pk_evsel *e = b->evsels[i];
		if (!is_td_metric(e) || !(e->period_set || e->freq_set))
			continue;
		pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, b->str, e->src_pos,
			  "'%s' cannot sample: TopDown metric events are only read, through "
			  "their slots group leader with PERF_FORMAT_GROUP", e->name);
		pk_err_hint(err, "sample with them as '{slots,$sampling_event,%s}:S' (the "
				 "kernel's rule, intel_pmu_hw_config)", e->alias->name);
		return -EINVAL;
	}
	return 0;
}

/* Group ev[0..n): its slots leader added when missing, a note when it was
 * added, the order changed or the events were grouped here (regrouped). out gets the group; *m its size. */
static int td_fix_group(struct build *b, pk_evsel **ev, size_t n, bool regrouped, pk_evsel **out,
			size_t *m, pk_error *err)
{
	bool metric = false, slots = false, moved = false;
	for (size_t i = 0; i < n; i++) {
		metric |= is_td_metric(ev[i]);
		slots |= is_slots(ev[i]);
		moved |= i && ev[i]->src_pos < ev[i - 1]->src_pos;
	}
	size_t k = 0;
	if (metric && !slots) {
		const pk_evsel *first = NULL;
		for (size_t i = 0; i < n && !first; i++)
			first = is_td_metric(ev[i]) ? ev[i] : NULL;
		int r = new_slots(b, first, &out[k++], err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < n; i++)
		out[k++] = ev[i];
	*m = k;
	if (metric && slots && !moved && !regrouped)
		for (size_t i = 0; i < k; i++)
			out[i]->td_role = i == 0 ? 1 : is_td_metric(out[i]) ? 2 : 0;
	if (!metric || (slots && !moved && !regrouped))
		return 0;
	order_topdown(out, k);
	for (size_t i = 0; i < k; i++)
		out[i]->td_role = is_slots(out[i]) && i == 0 ? 1 : is_td_metric(out[i]) ? 2 : 0;
	char text[512];
	names_of(out, k, text, sizeof(text));
	pk_evlist_warn(b->evlist, "note: TopDown metric events are counted in a group led by "
				  "slots (the kernel's PERF_METRICS rule): counting '%s'", text);
	return 0;
}

/* The lone metric events (and a lone slots) of one PMU, from index i on:
 * moved into one group. */
static size_t td_collect_lone(struct build *b, size_t i, bool *taken, pk_evsel **ev)
{
	const pk_pmu *pmu = b->evsels[i]->pmu;
	size_t n = 0;
	bool have_slots = false;
	for (size_t j = i; j < b->nr; j++) {
		pk_evsel *e = b->evsels[j];
		if (taken[j] || !is_lone(e) || e->pmu != pmu)
			continue;
		if (is_td_metric(e) || (is_slots(e) && !have_slots)) {
			have_slots |= is_slots(e);
			taken[j] = true;
			ev[n++] = e;
		}
	}
	return n;
}

static bool td_lone_metrics(const struct build *b, size_t i)
{
	const pk_evsel *e = b->evsels[i];
	if (!is_lone(e))
		return false;
	if (is_td_metric(e))
		return true;
	for (size_t j = i + 1; j < b->nr && is_slots(e); j++)
		if (is_lone(b->evsels[j]) && b->evsels[j]->pmu == e->pmu &&
		    is_td_metric(b->evsels[j]))
			return true;
	return false;
}

/* perf's parse_events__sort_events_and_fix_groups for TopDown: every
 * metric event ends in a group led by slots, slots first. */
static int fix_topdown(struct build *b, pk_error *err)
{
	int r = td_refuse(b, err);
	if (r < 0)
		return r;
	/* each group may gain one slots event */
	size_t cap = 2 * b->nr + 1, n = 0;
	pk_evsel **out = calloc(cap, sizeof(*out)), **tmp = calloc(cap, sizeof(*tmp));
	bool *taken = calloc(b->nr + 1, sizeof(*taken));
	if (!out || !tmp || !taken) {
		free(out), free(tmp), free(taken);
		return oom(err);
	}
	for (size_t i = 0; i < b->nr && r == 0;) {
		size_t g = (size_t)b->evsels[i]->nr_members, m = 0;
		if (taken[i]) {
			i++;
			continue;
		}
		if (g > 1)
			r = td_fix_group(b, b->evsels + i, g, false, out + n, &m, err);
		else if (td_lone_metrics(b, i))
			r = td_fix_group(b, tmp, td_collect_lone(b, i, taken, tmp), true, out + n,
					 &m, err);
		else
			out[n] = b->evsels[i], m = 1;
		for (size_t k = 0; k < m; k++) {
			out[n + k]->idx = (int)(n + k);
			out[n + k]->leader = (int)n;
			out[n + k]->nr_members = k ? 0 : (int)m;
		}
		n += m;
		i += g > 1 ? g : 1;
	}
	free(tmp);
	free(taken);
	if (r < 0) {
		for (size_t k = 0; k < n; k++) /* the added slots events */
			if (is_slots(out[k]) && out[k]->src_len == 0)
				pki_evsel_free(out[k]);
		free(out);
		return r;
	}
	free(b->evsels);
	b->evsels = out;
	b->nr = n;
	b->cap = cap;
	return 0;
}

/* Forms the group from evsels [first, b->nr): one group, or, where it spans
 * hybrid PMUs, per the hybrid rules. Reorders b->evsels in that range. */
static int form_group(struct build *b, size_t first, const pk_group_ast *g, pk_error *err)
{
	size_t n = b->nr - first;
	pk_evsel **ev = b->evsels + first;
	const pk_pmu *pmus[MAX_MATCH];
	size_t nr_pmus = 0;
	bool explicit_mix = false;
	for (size_t i = 0; i < n; i++) {
		const pk_pmu *p = hybrid_pmu_of(ev[i]);
		if (!p)
			continue;
		size_t k;
		for (k = 0; k < nr_pmus && pmus[k] != p; k++)
			;
		if (k == nr_pmus && nr_pmus < MAX_MATCH)
			pmus[nr_pmus++] = p;
		explicit_mix |= ev[i]->pmu_explicit;
	}
	if (nr_pmus <= 1) {
		make_group(ev, n);
	} else if (explicit_mix) {
		/* The user put events of different core types in one group: the
		 * kernel would reject it, so count them ungrouped and say so. */
		char *text = strndup(b->str + g->pos, (size_t)g->len);
		pk_evlist_warn(b->evlist,
			       "WARNING: events in group from different hybrid PMUs! "
			       "Grouping disabled for '%s'.",
			       text ? text : "");
		free(text);
		make_lone(ev, n);
	} else {
		/* A wildcard group ({cycles,instructions}) becomes one group per core
		 * PMU, each with the events for that PMU in the order written; events
		 * of no core PMU (software) stay with the first group. */
		pk_evsel **sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			return oom(err);
		size_t out = 0;
		size_t starts[MAX_MATCH + 1];
		for (size_t k = 0; k < nr_pmus; k++) {
			starts[k] = out;
			for (size_t i = 0; i < n; i++) {
				const pk_pmu *p = hybrid_pmu_of(ev[i]);
				if (p == pmus[k] || (!p && k == 0))
					sorted[out++] = ev[i];
			}
		}
		starts[nr_pmus] = out;
		for (size_t i = 0; i < n; i++) {
			sorted[i]->idx = (int)(first + i);
			ev[i] = sorted[i];
		}
		free(sorted);
		for (size_t k = 0; k < nr_pmus; k++)
			make_group(ev + starts[k], starts[k + 1] - starts[k]);
	}
	/* renumber after any reordering */
	for (size_t i = 0; i < n; i++)
		ev[i]->idx = (int)(first + i);
	for (size_t i = 0; i < n;) {
		size_t m = (size_t)ev[i]->nr_members;
		if (m == 0)
			m = 1;
		for (size_t j = i; j < i + m && j < n; j++)
			ev[j]->leader = (int)(first + i);
		i += m;
	}
	return 0;
}

/* ---- driver --------------------------------------------------------------- */

static int expand_event(struct build *b, const pk_ev_ast *ev, pk_error *err)
{
	switch (ev->kind) {
	case PK_EV_PMU:
		return expand_pmu_event(b, ev, err);
	case PK_EV_RAW:
		return expand_on_cores(b, ev, true, 0, ev->raw, err);
	case PK_EV_NAME:
		return expand_name(b, ev, err);
	case PK_EV_TRACEPOINT:
		return expand_tracepoint(b, ev, err);
	case PK_EV_BREAKPOINT:
		return expand_breakpoint(b, ev, err);
	case PK_EV_PFM:
		return expand_pfm_qualified(b, ev, err);
	}
	return pk_err(err, -EINVAL, "internal: unknown event kind");
}

static void build_free(struct build *b)
{
	for (size_t i = 0; i < b->nr; i++)
		pki_evsel_free(b->evsels[i]);
	free(b->evsels);
	b->evsels = NULL;
	b->nr = 0;
}

int pk_evlist_parse(pk_evlist *evlist, const pk_pmus *pmus, const char *str,
		    const pk_parse_opts *opts, pk_error *err)
{
	if (!evlist || !pmus || !str)
		return pk_err(err, -EINVAL, "pk_evlist_parse: NULL argument");
	pk_ast ast;
	int r = pki_ast_parse(str, &ast, err);
	if (r < 0)
		return r;
	struct build b = {.str = str, .pmus = pmus, .opts = opts, .evlist = evlist};
	for (size_t g = 0; g < ast.nr && r == 0; g++) {
		const pk_group_ast *grp = &ast.items[g];
		size_t first = b.nr;
		for (size_t k = 0; k < grp->nr && r == 0; k++) {
			const pk_ev_ast *ev = &grp->events[k];
			size_t before = b.nr;
			r = expand_event(&b, ev, err);
			for (size_t i = before; i < b.nr && r == 0 && ev->mods; i++)
				r = apply_mods(&b, b.evsels[i], ev->mods, ev->mods_pos, false, err);
			for (size_t i = before; i < b.nr && r == 0 && ev->mods; i++)
				r = name_with_mods(b.evsels[i], ev, err);
		}
		if (r < 0 || !grp->is_group)
			continue;
		for (size_t i = first; i < b.nr && r == 0 && grp->mods; i++)
			r = apply_mods(&b, b.evsels[i], grp->mods, grp->mods_pos, true, err);
		if (r == 0)
			r = form_group(&b, first, grp, err);
	}
	pki_ast_free(&ast);
	if (r == 0)
		r = fix_topdown(&b, err);
	if (r == 0 && (r = pki_evlist_append(evlist, b.evsels, b.nr)) < 0)
		pk_err(err, r, "out of memory");
	if (r < 0) {
		build_free(&b);
		return r;
	}
	free(b.evsels);
	return 0;
}
