/* The metrics engine: compiles metric rows (pk_metric_def) into a table and
 * evaluates them over counts.
 *
 * Compiling parses each formula and threshold once and binds every
 * reference to what supplies its value:
 *   THIS     the count the metric is printed after (a trigger name, #this)
 *   METRIC   another row of the table (evaluated for the same anchor)
 *   LITERAL  a #name from the caller's literals, or derived from them:
 *            durations from #wall_ns, #midr_ge_0x<MIDR> from #midr
 *   EVENT    a count found by event name (event_ref: resolved once to a
 *            symbolic type/config or kept as a name)
 *   SOURCES  source_count(EV) (the parser's "#source_count(EV)"): how many
 *            PMU instances EV's value was summed from (perf's rule)
 * Rows may refer to rows defined later; cycles are refused when compiling,
 * so evaluation terminates.
 *
 * Evaluating row R for anchor count A: EVENT references take the first
 * counted count of A's bucket (key) matching the name, on A's PMU and with
 * A's exclude bits unless the event is a software one (the clocks). An
 * event on a PMU that is neither core nor software (uncore: cha_0..cha_N)
 * pairs with any anchor of the bucket, and its counts on every instance of
 * that PMU (the name without its _N) are summed, as perf merges them; their
 * number is source_count. A missing count, literal or metric is NaN, which
 * propagates through the arithmetic: a NaN result makes the row "not
 * computable" (no value), never an error; a branch of `if` not taken does
 * not matter. */
#include <pmukit/metrics.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/strmap.h"
#include "core/util.h"
#include "events/names.h"
#include "pmu/cpuid_internal.h"

typedef enum ref_kind { REF_EVENT, REF_METRIC, REF_LITERAL, REF_THIS, REF_SOURCES } ref_kind;

typedef struct bound_ref {
	ref_kind kind;
	size_t idx;                /* event_ref or row index */
	const char *name;          /* the expression's spelling (literals) */
} bound_ref;

/* An event name as the table uses it, resolved once. */
typedef struct event_ref {
	char *name;
	size_t nr_kinds;           /* symbolic attr kinds it matches (0: by name) */
	struct { uint32_t type; uint64_t config; } kinds[2];
	bool software;             /* PMU-less: counts of any PMU match */
} event_ref;

typedef struct row {
	pk_metric_def def;
	pk_expr *formula, *threshold;
	bound_ref *frefs, *trefs;
	size_t *trig;              /* event_refs that trigger it */
	size_t nr_trig, cap_trig;
	bool trig_any;             /* "*" */
	char *si_units[4];         /* "G<unit>", "M<unit>", "K<unit>", "<unit>" */
} row;

struct pk_metric_table {
	row *rows;
	size_t nr;
	event_ref *ev;
	size_t nr_ev, cap_ev;
	/* lower-cased names -> index + 1 (names match without case): a
	 * table of a few hundred rows binds its thousands of references in
	 * constant time each, which stat -M pays at every run */
	pki_strmap row_of, ev_of;
};

/* Key of name: lower-cased into buf; NULL when it does not fit. */
static const char *name_key(char *buf, size_t len, const char *name)
{
	size_t n = strlen(name);
	if (n >= len)
		return NULL;
	for (size_t i = 0; i <= n; i++)
		buf[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
	return buf;
}

/* The index + 1 map holds for name, 0 when absent (or too long to key). */
static size_t index_of(const pki_strmap *m, const char *name)
{
	char buf[512];
	const char *k = name_key(buf, sizeof(buf), name);
	return k ? (size_t)(uintptr_t)pki_strmap_get(m, k) : 0;
}

/* Records name -> idx (the first one kept); 0 or -ENOMEM. A name too long
 * to key is looked up the slow way. */
static int index_put(pki_strmap *m, const char *name, size_t idx)
{
	char buf[512];
	const char *k = name_key(buf, sizeof(buf), name);
	pki_strmap_slot *sl = k ? pki_strmap_put(m, k) : NULL;
	if (k && !sl)
		return -ENOMEM;
	if (sl && !sl->val)
		sl->val = (void *)(uintptr_t)(idx + 1);
	return 0;
}

/* Events that count the same thing for metrics: rates are per task-clock,
 * and perf takes cpu-clock for it just as well. */
static const struct {
	const char *name, *also;
} same_kind[] = {
	{"task-clock", "cpu-clock"},
};

/* The prefixes of PK_METRIC_SI_STEPS, largest first (one per 1000). */
static const struct {
	const char *prefix;
} si_steps[] = {{"G"}, {"M"}, {"K"}, {""}};

/* ---- Compiling --------------------------------------------------------- */

static void add_kind(event_ref *r, const char *name)
{
	uint32_t type;
	uint64_t config;
	if (r->nr_kinds < PK_ARRAY_SIZE(r->kinds) && pki_symbolic_lookup(name, &type, &config)) {
		r->kinds[r->nr_kinds].type = type;
		r->kinds[r->nr_kinds].config = config;
		r->nr_kinds++;
		r->software = type == PERF_TYPE_SOFTWARE;
	}
}

/* The index of the event_ref for name, added on first use. */
static long intern_event(pk_metric_table *t, const char *name)
{
	size_t at = index_of(&t->ev_of, name);
	if (at)
		return (long)at - 1;
	for (size_t i = 0; i < t->nr_ev && strlen(name) >= 512; i++)
		if (!strcasecmp(t->ev[i].name, name))
			return (long)i;
	if (pki_grow(&t->ev, &t->cap_ev, t->nr_ev + 1, sizeof(*t->ev)) < 0)
		return -ENOMEM;
	event_ref *r = &t->ev[t->nr_ev];
	memset(r, 0, sizeof(*r));
	r->name = strdup(name);
	if (!r->name || index_put(&t->ev_of, name, t->nr_ev) < 0)
		return -ENOMEM;
	add_kind(r, name);
	for (size_t k = 0; k < PK_ARRAY_SIZE(same_kind) && r->nr_kinds; k++)
		if (!strcasecmp(name, same_kind[k].name))
			add_kind(r, same_kind[k].also);
	return (long)t->nr_ev++;
}

static bool is_trigger_name(const row *r, const pk_metric_table *t, const char *name)
{
	for (size_t i = 0; i < r->nr_trig; i++)
		if (!strcasecmp(t->ev[r->trig[i]].name, name))
			return true;
	return false;
}

static int compile_err(pk_error *err, const row *r, const pk_expr *x, size_t ref, const char *what)
{
	return pk_err_at(err, -EINVAL, "metric expression", pk_expr_text(x), pk_expr_ref_pos(x, ref),
			 "metric %s: %s '%s'", r->def.name, what, pk_expr_ref(x, ref));
}

/* The parser's spelling of source_count(EV): SOURCES EV ")". */
#define SOURCES "#source_count("

/* Binds the references of x (formula or threshold of row ri). */
static int bind_refs(pk_metric_table *t, size_t ri, const pk_expr *x, bound_ref **out,
		     bool threshold, pk_error *err)
{
	row *r = &t->rows[ri];
	size_t n = pk_expr_nr_refs(x);
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return pk_err(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *name = pk_expr_ref(x, i);
		bound_ref *b = &(*out)[i];
		long m = pk_metric_table_find(t, name);
		b->name = name;
		if (!threshold && (!strcasecmp(name, "#this") || is_trigger_name(r, t, name))) {
			if (!r->nr_trig && !r->trig_any)
				return compile_err(err, r, x, i, "has no trigger event for");
			b->kind = REF_THIS;
		} else if (m >= 0) {
			if ((size_t)m == ri && !threshold)
				return compile_err(err, r, x, i, "refers to itself:");
			b->kind = REF_METRIC;
			b->idx = (size_t)m;
		} else if (!strncasecmp(name, SOURCES, strlen(SOURCES))) {
			char ev[512];
			snprintf(ev, sizeof(ev), "%.*s", (int)(strlen(name) - strlen(SOURCES) - 1),
				 name + strlen(SOURCES));
			long e = intern_event(t, ev);
			if (e < 0)
				return pk_err(err, -ENOMEM, "out of memory");
			b->kind = REF_SOURCES;
			b->idx = (size_t)e;
		} else if (name[0] == '#') {
			b->kind = REF_LITERAL;
		} else {
			long e = intern_event(t, name);
			if (e < 0)
				return pk_err(err, -ENOMEM, "out of memory");
			b->kind = REF_EVENT;
			b->idx = (size_t)e;
		}
	}
	return 0;
}

/* The trigger: "*" or event names separated by spaces. */
static int parse_trigger(pk_metric_table *t, row *r, pk_error *err)
{
	const char *s = r->def.trigger;
	while (s && *s) {
		size_t n = strcspn(s, " ");
		if (n == 1 && *s == '*') {
			r->trig_any = true;
		} else if (n) {
			char *name = strndup(s, n);
			long e = name ? intern_event(t, name) : -ENOMEM;
			free(name);
			if (e < 0 || pki_grow(&r->trig, &r->cap_trig, r->nr_trig + 1,
					     sizeof(*r->trig)) < 0)
				return pk_err(err, -ENOMEM, "out of memory");
			r->trig[r->nr_trig++] = (size_t)e;
		}
		s += n + (s[n] == ' ');
	}
	return 0;
}

static int make_si_units(row *r, pk_error *err)
{
	if (!(r->def.flags & PK_METRIC_SI_STEPS))
		return 0;
	for (size_t s = 0; s < PK_ARRAY_SIZE(si_steps); s++)
		if (asprintf(&r->si_units[s], "%s%s", si_steps[s].prefix,
			     r->def.unit ? r->def.unit : "") < 0) {
			r->si_units[s] = NULL;
			return pk_err(err, -ENOMEM, "out of memory");
		}
	return 0;
}

/* Depth-first search for a cycle through METRIC references. */
static int check_cycles(const pk_metric_table *t, size_t ri, unsigned char *state, pk_error *err)
{
	if (state[ri] == 2)
		return 0;
	if (state[ri] == 1)
		return pk_err(err, -EINVAL, "metric %s: its formula depends on itself (a cycle)",
			      t->rows[ri].def.name);
	state[ri] = 1;
	const row *r = &t->rows[ri];
	for (size_t i = 0; i < pk_expr_nr_refs(r->formula); i++)
		if (r->frefs[i].kind == REF_METRIC && check_cycles(t, r->frefs[i].idx, state, err) < 0)
			return -EINVAL;
	state[ri] = 2;
	return 0;
}

static int compile_row(pk_metric_table *t, size_t ri, pk_error *err)
{
	row *r = &t->rows[ri];
	if (!r->def.name || !r->def.formula)
		return pk_err(err, -EINVAL, "metric row %zu: no name or no formula", ri);
	int rc = parse_trigger(t, r, err);
	if (rc < 0)
		return rc;
	r->formula = pk_expr_parse(r->def.formula, err);
	if (!r->formula)
		goto bad;
	if (r->def.threshold) {
		r->threshold = pk_expr_parse(r->def.threshold, err);
		if (!r->threshold)
			goto bad;
	}
	rc = bind_refs(t, ri, r->formula, &r->frefs, false, err);
	if (rc == 0 && r->threshold)
		rc = bind_refs(t, ri, r->threshold, &r->trefs, true, err);
	return rc < 0 ? rc : make_si_units(r, err);
bad:
	if (err)
		pk_err_hint(err, "in metric %s", r->def.name);
	return err ? err->code : -EINVAL;
}

pk_metric_table *pk_metric_table_new(const pk_metric_def *defs, size_t nr, pk_error *err)
{
	pk_metric_table *t = calloc(1, sizeof(*t));
	if (t)
		t->rows = calloc(nr ? nr : 1, sizeof(*t->rows));
	if (!t || !t->rows) {
		pk_metric_table_free(t);
		pk_err(err, -ENOMEM, "out of memory");
		return NULL;
	}
	/* every row exists before any is compiled: forward references bind */
	int rc = 0;
	for (t->nr = 0; t->nr < nr; t->nr++) {
		t->rows[t->nr].def = defs[t->nr];
		if (rc == 0 && defs[t->nr].name && index_put(&t->row_of, defs[t->nr].name, t->nr) < 0)
			rc = pk_err(err, -ENOMEM, "out of memory");
	}
	unsigned char *state = calloc(nr ? nr : 1, 1);
	if (!state && rc == 0)
		rc = pk_err(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < nr && rc == 0; i++)
		rc = compile_row(t, i, err);
	for (size_t i = 0; i < nr && rc == 0; i++)
		rc = check_cycles(t, i, state, err);
	free(state);
	if (rc < 0) {
		pk_metric_table_free(t);
		return NULL;
	}
	return t;
}

pk_metric_table *pk_metric_table_stat(pk_error *err)
{
	size_t n;
	const pk_metric_def *d = pk_metric_defs_stat(&n);
	return pk_metric_table_new(d, n, err);
}

void pk_metric_table_free(pk_metric_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		row *r = &t->rows[i];
		pk_expr_free(r->formula);
		pk_expr_free(r->threshold);
		free(r->frefs);
		free(r->trefs);
		free(r->trig);
		for (size_t s = 0; s < PK_ARRAY_SIZE(r->si_units); s++)
			free(r->si_units[s]);
	}
	for (size_t i = 0; i < t->nr_ev; i++)
		free(t->ev[i].name);
	free(t->ev);
	free(t->rows);
	pki_strmap_free(&t->row_of, NULL);
	pki_strmap_free(&t->ev_of, NULL);
	free(t);
}

size_t pk_metric_table_nr(const pk_metric_table *t)
{
	return t->nr;
}

const pk_metric_def *pk_metric_table_def(const pk_metric_table *t, size_t idx)
{
	return idx < t->nr ? &t->rows[idx].def : NULL;
}

long pk_metric_table_find(const pk_metric_table *t, const char *name)
{
	size_t at = index_of(&t->row_of, name);
	if (at)
		return (long)at - 1;
	for (size_t i = 0; i < t->nr && strlen(name) >= 512; i++)
		if (t->rows[i].def.name && !strcasecmp(t->rows[i].def.name, name))
			return (long)i;
	return -1;
}

/* ---- Matching counts ------------------------------------------------------- */

/* "cpu_core/topdown-retiring/" or "topdown-retiring:u" name "topdown-retiring". */
static bool name_matches(const char *evname, const char *name)
{
	size_t n = strlen(name);
	if (!strncasecmp(evname, name, n) && (!evname[n] || evname[n] == ':'))
		return true;
	const char *slash = strchr(evname, '/');
	return slash && !strncasecmp(slash + 1, name, n) && slash[1 + n] == '/';
}

static bool event_matches(const event_ref *r, const pk_evsel *e)
{
	if (!r->nr_kinds)
		return pk_evsel_name(e) && name_matches(pk_evsel_name(e), r->name);
	for (size_t k = 0; k < r->nr_kinds; k++) {
		uint64_t c = pk_evsel_attr(e)->config;
		if (r->kinds[k].type == PERF_TYPE_HARDWARE || r->kinds[k].type == PERF_TYPE_HW_CACHE)
			c &= 0xffffffffull; /* hybrid: the PMU type rides in config[63:32] */
		if (pk_evsel_attr(e)->type == r->kinds[k].type && c == r->kinds[k].config)
			return true;
	}
	return false;
}

/* The hybrid PMU type of a hardware or cache event (config[63:32]); 0 for
 * other types, whose high config bits are the event's own (AMD's event
 * select bits 32-35). */
static uint64_t extended_type(const pk_evsel *e)
{
	const struct perf_event_attr *a = pk_evsel_attr(e);
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ? a->config >> 32 : 0;
}

static bool same_pmu(const pk_evsel *a, const pk_evsel *b)
{
	return pk_evsel_pmu(a) == pk_evsel_pmu(b) && extended_type(a) == extended_type(b);
}

/* The exclude bits perf 6.1 keys its stat counts by (evsel_context): a
 * metric pairs a count only with counts of the same bits (branch-misses
 * with branches, not with branches:u). */
static unsigned exclude_bits(const pk_evsel *e)
{
	const struct perf_event_attr *a = pk_evsel_attr(e);
	return (unsigned)a->exclude_kernel | (unsigned)a->exclude_user << 1 |
	       (unsigned)a->exclude_hv << 2 | (unsigned)a->exclude_host << 3 |
	       (unsigned)a->exclude_idle << 4;
}

/* A PMU whose instances perf merges (uncore_cha_0..N): neither core nor
 * software; its counts pair with any anchor. */
static bool merged_pmu(const pk_evsel *e)
{
	const pk_pmu *p = pk_evsel_pmu(e);
	return p && p->kind == PK_PMU_OTHER && p->name;
}

/* Instances of one PMU: the same name once a trailing _N is dropped. */
static bool same_family(const pk_evsel *a, const pk_evsel *b)
{
	const char *x = pk_evsel_pmu(a)->name, *y = pk_evsel_pmu(b)->name;
	size_t nx = strlen(x), ny = strlen(y);
	while (nx && isdigit((unsigned char)x[nx - 1]))
		nx--;
	while (ny && isdigit((unsigned char)y[ny - 1]))
		ny--;
	return nx == ny && !strncmp(x, y, nx);
}

static bool pairs_with(const pk_metric_count *c, const pk_metric_count *a, const event_ref *r)
{
	return !a || r->software || merged_pmu(c->evsel) ||
	       (same_pmu(c->evsel, a->evsel) && exclude_bits(c->evsel) == exclude_bits(a->evsel));
}

/* The value of event r for anchor (-1: any) into *value, and how many
 * counts it was summed from (0: none; 1 unless on a merged PMU). */
static size_t event_value(const pk_metric_counts *in, long anchor, const event_ref *r,
			  double *value)
{
	const pk_metric_count *a = anchor >= 0 ? &in->v[anchor] : NULL, *first = NULL;
	size_t n = 0;
	for (size_t i = 0; i < in->nr; i++) {
		const pk_metric_count *c = &in->v[i];
		if (!c->counted || !c->evsel || (a && c->key != a->key) ||
		    !event_matches(r, c->evsel) || !pairs_with(c, a, r))
			continue;
		if (!first) {
			first = c;
			*value = c->value;
			n = 1;
			if (!merged_pmu(c->evsel))
				return 1;
		} else if (merged_pmu(c->evsel) && same_family(c->evsel, first->evsel)) {
			*value += c->value;
			n++;
		}
	}
	return n;
}

/* Literals derived from the caller's: Intel's durations from the wall time
 * it gives (#wall_ns: the interval's under -I), and #tsc, the TSC's ticks
 * in that time (#tsc_hz, pk_topdown_host_literals). */
static const struct {
	const char *name, *from, *times; /* name = from * times (NULL: 1) * scale */
	double scale;
} derived[] = {
	{"#duration_ms", "#wall_ns", NULL, 1e-6},
	{"#duration_s", "#wall_ns", NULL, 1e-9},
	{"#tsc", "#wall_ns", "#tsc_hz", 1e-9},
};

/* perf's strcmp_cpuid_str(MIDR) as the generators write it: 1 when the
 * caller's #midr is that part at that revision or later, else 0. */
#define MIDR_GE "#midr_ge_"

static bool find_literal(const pk_metric_counts *in, const char *name, double *v)
{
	for (size_t i = 0; i < in->nr_lit; i++)
		if (in->lit[i].name && !strcasecmp(in->lit[i].name, name)) {
			*v = in->lit[i].value;
			return true;
		}
	double midr;
	if (!strncasecmp(name, MIDR_GE, strlen(MIDR_GE)) && find_literal(in, "#midr", &midr)) {
		char *end;
		uint64_t ref = strtoull(name + strlen(MIDR_GE), &end, 16);
		if (*end)
			return false;
		*v = pki_midr_at_least((uint64_t)midr, ref);
		return true;
	}
	for (size_t i = 0; i < sizeof(derived) / sizeof(derived[0]); i++) {
		double a, b = 1;
		if (!strcasecmp(name, derived[i].name) && find_literal(in, derived[i].from, &a) &&
		    (!derived[i].times || find_literal(in, derived[i].times, &b))) {
			*v = a * b * derived[i].scale;
			return true;
		}
	}
	return false;
}

/* ---- Evaluating -------------------------------------------------------------- */

static bool eval_row(const pk_metric_table *t, size_t ri, const pk_metric_counts *in, long anchor,
		     double *out);

/* The values of x's references; a missing one is NaN, so that it only
 * matters when the formula uses it (`b if #smt_on else c` without b). */
static void ref_values(const pk_metric_table *t, const pk_expr *x, const bound_ref *refs,
		       const pk_metric_counts *in, long anchor, double *vals)
{
	for (size_t i = 0; i < pk_expr_nr_refs(x); i++) {
		const bound_ref *b = &refs[i];
		size_t n;
		double v;
		vals[i] = NAN;
		switch (b->kind) {
		case REF_THIS:
			if (anchor >= 0 && in->v[anchor].counted)
				vals[i] = in->v[anchor].value;
			break;
		case REF_METRIC:
			if (!eval_row(t, b->idx, in, anchor, &vals[i]))
				vals[i] = NAN;
			break;
		case REF_LITERAL:
			find_literal(in, b->name, &vals[i]);
			break;
		case REF_EVENT: /* perf's tool values (duration_time) may come as literals */
			if (!event_value(in, anchor, &t->ev[b->idx], &vals[i]))
				find_literal(in, b->name, &vals[i]);
			break;
		case REF_SOURCES:
			n = event_value(in, anchor, &t->ev[b->idx], &v);
			vals[i] = n ? (double)n : NAN;
			break;
		}
	}
}

static bool eval_expr(const pk_metric_table *t, const pk_expr *x, const bound_ref *refs,
		      const pk_metric_counts *in, long anchor, double *out)
{
	size_t n = pk_expr_nr_refs(x);
	double small[16];
	double *vals = n <= PK_ARRAY_SIZE(small) ? small : malloc(n * sizeof(*vals));
	if (!vals)
		return false;
	ref_values(t, x, refs, in, anchor, vals);
	*out = pk_expr_eval(x, vals);
	if (vals != small)
		free(vals);
	return !isnan(*out);
}

static bool eval_row(const pk_metric_table *t, size_t ri, const pk_metric_counts *in, long anchor,
		     double *out)
{
	const row *r = &t->rows[ri];
	return eval_expr(t, r->formula, r->frefs, in, anchor, out);
}

static void fill_value(const pk_metric_table *t, size_t ri, const pk_metric_counts *in,
		       long anchor, double v, pk_metric_value *out)
{
	const row *r = &t->rows[ri];
	memset(out, 0, sizeof(*out));
	out->def = &r->def;
	out->value = v;
	out->unit = r->def.unit ? r->def.unit : "";
	if (r->def.flags & PK_METRIC_SI_STEPS) {
		/* perf's steps: divided by 1000 while over 1000 (so 1e9 is
		 * "1000.000 M"), each step a division of the last value */
		size_t s = PK_ARRAY_SIZE(si_steps) - 1;
		while (s > 0 && v > 1000.0) {
			v /= 1000.0;
			s--;
		}
		out->value = v;
		out->unit = r->si_units[s];
	}
	double th;
	if (r->threshold && eval_expr(t, r->threshold, r->trefs, in, anchor, &th)) {
		out->has_threshold = true;
		out->over_threshold = th != 0;
	}
}

int pk_metric_eval(const pk_metric_table *t, size_t ri, const pk_metric_counts *in, long anchor,
		   pk_metric_value *out)
{
	double v;
	if (ri >= t->nr || (anchor >= 0 && (size_t)anchor >= in->nr) ||
	    !eval_row(t, ri, in, anchor, &v))
		return 0;
	if ((t->rows[ri].def.flags & PK_METRIC_NONZERO) && v == 0)
		return 0;
	fill_value(t, ri, in, anchor, v, out);
	return 1;
}

static bool triggered_by(const pk_metric_table *t, const row *r, const pk_evsel *e)
{
	if (r->trig_any)
		return true;
	for (size_t i = 0; i < r->nr_trig; i++)
		if (event_matches(&t->ev[r->trig[i]], e))
			return true;
	return false;
}

int pk_metric_shadow(const pk_metric_table *t, const pk_metric_counts *in, size_t idx,
		     pk_metric_value *out)
{
	memset(out, 0, sizeof(*out));
	if (idx >= in->nr || !in->v[idx].counted || !in->v[idx].evsel)
		return 0;
	for (size_t ri = 0; ri < t->nr; ri++) {
		const row *r = &t->rows[ri];
		if (!r->def.trigger || (r->def.flags & PK_METRIC_NEW_LINE) ||
		    !triggered_by(t, r, in->v[idx].evsel))
			continue;
		if (pk_metric_eval(t, ri, in, (long)idx, out))
			return 1;
		if (r->def.flags & PK_METRIC_FINAL) {
			/* the row that ended the search, without a value */
			const char *u = r->def.blank_unit ? r->def.blank_unit : r->def.unit;
			*out = (pk_metric_value){.def = &r->def, .value = NAN, .unit = u ? u : ""};
			return 0;
		}
	}
	return 0;
}

int pk_metric_shadow_line(const pk_metric_table *t, const pk_metric_counts *in, size_t idx,
			  size_t *pos, pk_metric_value *out)
{
	if (idx >= in->nr || !in->v[idx].counted || !in->v[idx].evsel)
		return 0;
	for (size_t ri = *pos; ri < t->nr; ri++) {
		const row *r = &t->rows[ri];
		if (!r->def.trigger || !(r->def.flags & PK_METRIC_NEW_LINE) ||
		    !triggered_by(t, r, in->v[idx].evsel))
			continue;
		if (pk_metric_eval(t, ri, in, (long)idx, out)) {
			*pos = ri + 1;
			return 1;
		}
	}
	*pos = t->nr;
	return 0;
}

/* perf's formats for its shadow metrics (stat-shadow's print calls). */
int pk_metric_format(pk_metric_style style, double value, char *buf, size_t len)
{
	switch (style) {
	case PK_METRIC_RATIO:
		return snprintf(buf, len, "%7.2f ", value);
	case PK_METRIC_PERCENT:
		return snprintf(buf, len, "%7.2f%%", value);
	case PK_METRIC_PERCENT_WIDE:
		return snprintf(buf, len, "%8.3f %%", value);
	case PK_METRIC_SCALED:
		return snprintf(buf, len, "%8.1f", value);
	case PK_METRIC_UNSCALED:
		return snprintf(buf, len, "%8.2f", value);
	case PK_METRIC_PERCENT_SHARE:
		return snprintf(buf, len, "%8.1f%%", value);
	default:
		return snprintf(buf, len, "%8.3f", value);
	}
}
