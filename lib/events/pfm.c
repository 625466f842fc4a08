/* Named hardware events through libpfm4 ("inst_retired.any",
 * "INT_MISC:RECOVERY_CYCLES", "icl::TOPDOWN:SLOTS") for the sysfs core PMUs.
 *
 * Which libpfm4 table describes a core PMU is data (the one table of CPU
 * models, lib/pmu/cpu_models.c), keyed by the CPU identification, so a
 * fixture tree with PMUKIT_CPUID resolves events of a CPU this host is not. libpfm4 only encodes for PMUs it detected on the
 * host (unless the user sets LIBPFM_ENCODE_INACTIVE=1 or LIBPFM_FORCE_PMU,
 * which a library must not do for its caller). Its event tables, though, can
 * be read for every PMU, so for an undetected x86 core PMU we encode from
 * them, for the forms whose layout is plain (tests/events/test_pfm_libpfm.c
 * compares this with libpfm4's own encoder over every event and umask). */
#include "events/pfm.h"
#include "events/pfm_internal.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <perfmon/pfmlib_perf_event.h>

/* pmukit/kernel.h's declaration, repeated word for word: that header's
 * linux/perf_event.h clashes with libpfm4's perfmon/perf_event.h. */
typedef struct pk_kernel pk_kernel;
int pk_host_cpuid(const pk_kernel *k, pk_cpuid *out, pk_error *err);

#include "core/util.h"
#include "pmu/cpu_models.h"

/* perf gives the fixed-counter events of Intel's lists the encodings of
 * their general-purpose equivalents (its JSON converter rewrites them), so
 * inst_retired.any is event=0xc0, not the fixed-counter pseudo code 0x100. */
/* They are Intel's architectural events, so they also stand for a core PMU
 * this libpfm4 has no table for (Gracemont, cpu_atom on Alder Lake, before
 * libpfm4 4.14's adl_grt). */
static const struct fixed_name {
	const char *name;
	unsigned event, umask, any;
	const char *desc;
} fixed_names[] = {
	{"inst_retired.any", 0xc0, 0, 0, "Instructions retired (architectural event)"},
	{"inst_retired.any_p", 0xc0, 0, 0,
	 "Instructions retired, on a general-purpose counter (architectural event)"},
	{"cpu_clk_unhalted.thread", 0x3c, 0, 0,
	 "Core cycles while the thread is not halted (architectural event)"},
	{"cpu_clk_unhalted.core", 0x3c, 0, 0,
	 "Core cycles while the core is not halted (architectural event)"},
	{"cpu_clk_unhalted.thread_any", 0x3c, 0, 1,
	 "Core cycles while any thread of the core is not halted"},
	{"cpu_clk_unhalted.ref", 0x00, 0x03, 0,
	 "Reference cycles while the thread is not halted (architectural event)"},
};

size_t pki_pfm_model_pmus(const pk_cpuid *cpuid, const char *core_pmu, const char **names,
			 size_t max)
{
	const pki_cpu_model *m = pki_cpu_model_find(cpuid, core_pmu);
	size_t n = 0;
	for (size_t j = 0; m && j < PK_ARRAY_SIZE(m->pfm) && m->pfm[j]; j++)
		if (n < max)
			names[n++] = m->pfm[j];
	return n;
}

/* ---- libpfm4 state: initialized once, read-only afterwards ---- */

typedef struct pfm_pmu_entry {
	char name[48];
	int first_event;
	bool present;
} pfm_pmu_entry;

static struct {
	int init_ret;
	size_t nr;
	pfm_pmu_entry pmus[192];
} catalog;
static pthread_once_t catalog_once = PTHREAD_ONCE_INIT;

static void catalog_init(void)
{
	catalog.init_ret = pfm_initialize();
	if (catalog.init_ret != PFM_SUCCESS)
		return;
	pfm_pmu_t p;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t info;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || info.type != PFM_PMU_TYPE_CORE ||
		    !info.name || catalog.nr >= PK_ARRAY_SIZE(catalog.pmus))
			continue;
		pfm_pmu_entry *e = &catalog.pmus[catalog.nr++];
		snprintf(e->name, sizeof(e->name), "%s", info.name);
		e->first_event = info.first_event;
		e->present = info.is_present;
	}
}

static int catalog_ready(pk_error *err)
{
	pthread_once(&catalog_once, catalog_init);
	if (catalog.init_ret != PFM_SUCCESS)
		return pk_err(err, -ENOTSUP, "libpfm4 failed to initialize: %s",
			      pfm_strerror(catalog.init_ret));
	return 0;
}

static const pfm_pmu_entry *catalog_find(const char *name)
{
	for (size_t i = 0; i < catalog.nr; i++)
		if (!strcasecmp(catalog.pmus[i].name, name))
			return &catalog.pmus[i];
	return NULL;
}

bool pki_pfm_has_pmu(const char *pfm_pmu, bool *present)
{
	if (catalog_ready(NULL) < 0)
		return false;
	const pfm_pmu_entry *e = catalog_find(pfm_pmu);
	if (present)
		*present = e && e->present;
	return e != NULL;
}

/* ---- names ---- */

int pki_pfm_split_name(const char *event, char *pmu, size_t pmu_len, char *name,
		      size_t name_len)
{
	if (!event || !isalpha((unsigned char)event[0]))
		return -EINVAL;
	const char *rest = event;
	const char *sep = strstr(event, "::");
	pmu[0] = '\0';
	if (sep) {
		size_t n = (size_t)(sep - event);
		if (n == 0 || n >= pmu_len)
			return -EINVAL;
		for (size_t i = 0; i < n; i++)
			if (!isalnum((unsigned char)event[i]) && event[i] != '_')
				return -EINVAL;
		memcpy(pmu, event, n);
		pmu[n] = '\0';
		rest = sep + 2;
	}
	size_t len = strlen(rest);
	if (len == 0 || len >= name_len || !isalpha((unsigned char)rest[0]))
		return -EINVAL;
	bool has_colon = strchr(rest, ':') != NULL;
	bool dot_done = has_colon; /* libpfm4 form keeps its dots */
	for (size_t i = 0; i <= len; i++) {
		char c = rest[i];
		if (c && !isalnum((unsigned char)c) && !strchr("_.:=-", c))
			return -EINVAL;
		if (c == '.' && !dot_done) {
			/* perf's JSON form: the first '.' separates event and umask */
			c = ':';
			dot_done = true;
		}
		name[i] = (char)toupper((unsigned char)c);
	}
	if (strstr(name, "::") || name[len - 1] == ':')
		return -EINVAL;
	return 0;
}

/* ---- encoders ---- */

static int pfm_error(pk_error *err, int code, const char *pfm_pmu, const char *name)
{
	switch (code) {
	case PFM_ERR_NOTFOUND:
		return -ENOENT;
	case PFM_ERR_NOMEM:
		return pk_err(err, -ENOMEM, "out of memory in libpfm4");
	default:
		return pk_err(err, -EINVAL, "libpfm4 cannot encode '%s::%s': %s", pfm_pmu, name,
			      pfm_strerror(code));
	}
}

int pki_pfm_encode_libpfm(const char *pfm_pmu, const char *name, uint64_t config[PK_NR_CONFIGS],
			 pk_error *err)
{
	int r = catalog_ready(err);
	if (r < 0)
		return r;
	char full[256];
	if ((size_t)snprintf(full, sizeof(full), "%s::%s", pfm_pmu, name) >= sizeof(full))
		return pk_err(err, -EINVAL, "event name too long: '%s'", name);
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &attr;
	/* Both privilege levels: libpfm4 then sets no exclude bits; the
	 * modifiers of the event string decide those. */
	r = pfm_get_os_event_encoding(full, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (r != PFM_SUCCESS)
		return pfm_error(err, r, pfm_pmu, name);
	if (attr.type != PERF_TYPE_RAW)
		return pk_err(err, -EINVAL, "libpfm4 encoded '%s' for perf type %u, not a core PMU",
			      full, attr.type);
	config[0] = attr.config;
	config[1] = attr.config1;
	config[2] = attr.config2;
	config[3] = 0;
	return 0;
}

/* One parsed "EVENT:ATTR[=VAL]:..." against a libpfm4 table. */
typedef struct table_event {
	const char *pmu;      /* libpfm4 PMU name, for messages */
	const char *event;    /* the event's name in the table */
	int idx;
	uint64_t code;
	int nattrs;
	bool has_umasks, has_ldlat;
	uint64_t ucode;
	int nr_umasks;        /* umasks selected */
	uint64_t mods;        /* modifier bits from libpfm4's own alias strings */
	bool user_mod;        /* a modifier in the name itself */
} table_event;

static int find_table_event(const pfm_pmu_entry *pe, const char *ev, size_t evlen, int *out)
{
	for (int i = pe->first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t info;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_event_info(i, PFM_OS_NONE, &info) != PFM_SUCCESS)
			continue;
		if (strlen(info.name) == evlen && !strncasecmp(info.name, ev, evlen)) {
			*out = i;
			return 0;
		}
	}
	return -ENOENT;
}

static int get_attr(int ev, int a, pfm_event_attr_info_t *ai)
{
	memset(ai, 0, sizeof(*ai));
	ai->size = sizeof(*ai);
	return pfm_get_event_attr_info(ev, a, PFM_OS_NONE, ai) == PFM_SUCCESS ? 0 : -EINVAL;
}

/* PERFEVTSEL modifier bits (Intel and AMD agree on these). */
static const struct x86_mod {
	const char *name;
	unsigned shift, width;
} x86_mods[] = {{"e", 18, 1}, {"t", 21, 1}, {"i", 23, 1}, {"c", 24, 8}};

static int apply_tokens(table_event *te, const char *list, bool from_equiv, int depth,
			pk_error *err);

static int apply_token(table_event *te, const char *tok, size_t toklen, bool from_equiv,
		       int depth, pk_error *err)
{
	const char *eq = memchr(tok, '=', toklen);
	size_t nlen = eq ? (size_t)(eq - tok) : toklen;
	for (int a = 0; a < te->nattrs; a++) {
		pfm_event_attr_info_t ai;
		if (get_attr(te->idx, a, &ai) < 0 || strlen(ai.name) != nlen ||
		    strncasecmp(ai.name, tok, nlen) != 0)
			continue;
		if (ai.type == PFM_ATTR_UMASK) {
			if (eq)
				continue; /* a modifier of the same name takes a value */
			/* An alias umask stands for another umask plus modifiers */
			if (ai.equiv)
				return apply_tokens(te, ai.equiv, true, depth + 1, err);
			te->ucode |= ai.code;
			te->nr_umasks++;
			return 0;
		}
		if (!from_equiv) {
			te->user_mod = true;
			return 0;
		}
		uint64_t v = 1;
		if (eq && pki_parse_u64(eq + 1, &v, NULL) < 0 && toklen > nlen + 1) {
			char val[32];
			snprintf(val, sizeof(val), "%.*s", (int)(toklen - nlen - 1), eq + 1);
			if (pki_parse_u64(val, &v, NULL) < 0)
				return pk_err(err, -EINVAL, "bad value in '%.*s'", (int)toklen, tok);
		}
		for (size_t m = 0; m < PK_ARRAY_SIZE(x86_mods); m++) {
			if (strcasecmp(ai.name, x86_mods[m].name) != 0)
				continue;
			if (v >> x86_mods[m].width)
				return pk_err(err, -EINVAL, "value out of range in '%.*s'", (int)toklen,
					      tok);
			te->mods |= v << x86_mods[m].shift;
			return 0;
		}
		te->user_mod = true; /* not one we encode: refuse below */
		return 0;
	}
	return pk_err(err, -EINVAL, "unknown unit mask or modifier '%.*s' for %s::%s",
		      (int)toklen, tok, te->pmu, te->event);
}

static int apply_tokens(table_event *te, const char *list, bool from_equiv, int depth,
			pk_error *err)
{
	if (depth > 4)
		return pk_err(err, -ELOOP, "libpfm4 alias loop at '%s'", list);
	for (const char *p = list; p && *p;) {
		const char *next = strchr(p, ':');
		size_t toklen = next ? (size_t)(next - p) : strlen(p);
		if (toklen) {
			int r = apply_token(te, p, toklen, from_equiv, depth, err);
			if (r < 0)
				return r;
		}
		p = next ? next + 1 : NULL;
	}
	return 0;
}

static int parse_table_event(const pfm_pmu_entry *pe, const char *name, table_event *te,
			     pk_error *err)
{
	memset(te, 0, sizeof(*te));
	const char *colon = strchr(name, ':');
	size_t evlen = colon ? (size_t)(colon - name) : strlen(name);
	if (find_table_event(pe, name, evlen, &te->idx) < 0)
		return -ENOENT;
	pfm_event_info_t info;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (pfm_get_event_info(te->idx, PFM_OS_NONE, &info) != PFM_SUCCESS)
		return -ENOENT;
	/* Alias events may point at events the model's table lacks, which
	 * libpfm4 then resolves by rules of its own. */
	if (info.equiv)
		return -EOPNOTSUPP;
	te->pmu = pe->name;
	te->event = info.name;
	te->code = info.code;
	te->nattrs = info.nattrs;
	int nr_dfl = 0;
	const char *dfl = NULL;
	for (int a = 0; a < info.nattrs; a++) {
		pfm_event_attr_info_t ai;
		if (get_attr(te->idx, a, &ai) < 0)
			continue;
		if (ai.type == PFM_ATTR_UMASK) {
			te->has_umasks = true;
			if (ai.is_dfl) {
				nr_dfl++;
				dfl = ai.name;
			}
		} else if (!strcasecmp(ai.name, "ldlat")) {
			te->has_ldlat = true;
		}
	}
	int r = apply_tokens(te, colon ? colon + 1 : NULL, false, 0, err);
	if (r < 0)
		return r;
	if (te->nr_umasks == 0 && te->has_umasks) {
		if (nr_dfl == 0)
			return pk_err(err, -EINVAL, "%s::%s needs a unit mask", pe->name, name);
		if (nr_dfl > 1)
			return -EOPNOTSUPP;
		r = apply_tokens(te, dfl, false, 0, err);
	}
	return r;
}

static int not_encodable(pk_error *err, const char *pfm_pmu, const char *name)
{
	pk_err(err, -EOPNOTSUPP,
	       "libpfm4 knows %s::%s but encodes only for PMUs it detects on this host", pfm_pmu,
	       name);
	pk_err_hint(err, "Set LIBPFM_ENCODE_INACTIVE=1 (or LIBPFM_FORCE_PMU=%s) in the "
			 "environment to let libpfm4 encode it, or give the raw encoding "
			 "(cpu/event=..,umask=../).", pfm_pmu);
	return -EOPNOTSUPP;
}

/* What a plain umask code may hold, seen from the umask byte: umask
 * (config 8-15), inv (23) and cmask (24-31). An edge bit without a cmask is
 * how libpfm4 codes a umask that overrides the event code, so it is refused
 * along with every other bit. */
#define X86_UCODE_PLAIN 0xff80ffULL
#define X86_UCODE_EDGE 0x400ULL
#define X86_UCODE_CMASK 0xff0000ULL

int pki_pfm_encode_tables(const char *pfm_pmu, const char *name, pk_vendor vendor,
			 uint64_t config[PK_NR_CONFIGS], pk_error *err)
{
	int r = catalog_ready(err);
	if (r < 0)
		return r;
	const pfm_pmu_entry *pe = catalog_find(pfm_pmu);
	if (!pe)
		return -ENOENT;
	table_event te;
	r = parse_table_event(pe, name, &te, err);
	if (r == -EOPNOTSUPP)
		return not_encodable(err, pfm_pmu, name);
	if (r < 0)
		return r;
	if (vendor != PK_VENDOR_INTEL && vendor != PK_VENDOR_AMD)
		return not_encodable(err, pfm_pmu, name);
	/* Several umasks combine by rules (groups, exclusions) the tables do
	 * not expose; load-latency events get a default threshold in config1;
	 * modifiers in the name follow precedence rules that are not visible. */
	uint64_t ucode = te.ucode;
	if ((ucode & X86_UCODE_EDGE) && (ucode & X86_UCODE_CMASK))
		ucode &= ~X86_UCODE_EDGE;
	if (te.nr_umasks > 1 || te.has_ldlat || te.user_mod || (ucode & ~X86_UCODE_PLAIN))
		return not_encodable(err, pfm_pmu, name);
	uint64_t cfg;
	if (vendor == PK_VENDOR_INTEL) {
		/* An event code that already holds a umask has umask codes
		 * that mean something else (offcore/frontend MSR values);
		 * events without umasks may still need one the model hides. */
		if (te.code > 0xff || !te.has_umasks)
			return not_encodable(err, pfm_pmu, name);
		cfg = te.code;
	} else {
		/* AMD: event select bits 8-11 live in config bits 32-35 */
		if (te.code > 0xfff)
			return not_encodable(err, pfm_pmu, name);
		cfg = (te.code & 0xff) | ((te.code >> 8) << 32);
	}
	cfg |= (te.ucode << 8) | te.mods;
	config[0] = cfg;
	config[1] = config[2] = config[3] = 0;
	return 0;
}

/* ---- lookup ---- */

static int add_match(pk_pfm_match *out, size_t max, size_t *n, const pk_pmu *pmu,
		     const uint64_t config[PK_NR_CONFIGS], const char *pfm_pmu, const char *name)
{
	if (*n >= max)
		return 0;
	pk_pfm_match *m = &out[(*n)++];
	memset(m, 0, sizeof(*m));
	m->pmu = pmu;
	memcpy(m->config, config, sizeof(m->config));
	if ((size_t)snprintf(m->name, sizeof(m->name), "%s::%s", pfm_pmu, name) >= sizeof(m->name))
		m->name[sizeof(m->name) - 1] = '\0'; /* names are checked shorter; keep it safe */
	return 0;
}

static bool fixed_encode(const pk_pmu *pmu, const struct fixed_name *f,
			 uint64_t config[PK_NR_CONFIGS])
{
	const pk_format *ev = pk_pmu_format(pmu, "event");
	const pk_format *um = pk_pmu_format(pmu, "umask");
	const pk_format *any = pk_pmu_format(pmu, "any");
	memset(config, 0, sizeof(uint64_t) * PK_NR_CONFIGS);
	if (!ev || !um || (f->any && !any))
		return false;
	return pk_format_apply(ev, f->event, config) == 0 &&
	       pk_format_apply(um, f->umask, config) == 0 &&
	       (!f->any || pk_format_apply(any, f->any, config) == 0);
}

static const struct fixed_name *find_fixed(const char *event)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(fixed_names); i++)
		if (!strcasecmp(fixed_names[i].name, event))
			return &fixed_names[i];
	return NULL;
}

bool pki_pfm_fixed_encode(const pk_pmu *pmu, const char *event, uint64_t config[PK_NR_CONFIGS])
{
	const struct fixed_name *f = pmu && event ? find_fixed(event) : NULL;
	return f && fixed_encode(pmu, f, config);
}

/* Encodes `name` for one core PMU trying its libpfm4 tables in order.
 * Returns 1 with config and *used set, 0 when no table has the event. */
static int encode_for_pmu(const char *const *cands, size_t nr_cands, const char *name,
			  pk_vendor vendor, uint64_t config[PK_NR_CONFIGS], const char **used,
			  pk_error *err)
{
	for (size_t c = 0; c < nr_cands; c++) {
		bool present;
		if (!pki_pfm_has_pmu(cands[c], &present))
			continue;
		int r = pki_pfm_encode_libpfm(cands[c], name, config, err);
		if (r == -ENOENT && !present)
			r = pki_pfm_encode_tables(cands[c], name, vendor, config, err);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		*used = cands[c];
		return 1;
	}
	return 0;
}

/* The CPU to use (the host's, or PMUKIT_CPUID, when none is given) and a
 * started libpfm4. */
static int prepare(const pk_cpuid **cpuid, pk_cpuid *host, pk_error *err)
{
	if (!*cpuid) {
		int r = pk_host_cpuid(NULL, host, err);
		if (r < 0)
			return r;
		*cpuid = host;
	}
	return catalog_ready(err);
}

int pki_pfm_lookup(const pk_pmus *pmus, const pk_cpuid *cpuid, const char *event,
		  const pk_pmu *only_pmu, pk_pfm_match *out, size_t max, pk_error *err)
{
	char qual[48], name[160];
	if (!pmus || !event || pki_pfm_split_name(event, qual, sizeof(qual), name, sizeof(name)) < 0)
		return 0;
	pk_cpuid host;
	int r = prepare(&cpuid, &host, err);
	if (r < 0)
		return r;
	if (only_pmu && only_pmu->kind != PK_PMU_CORE)
		return 0;
	size_t nr_core = only_pmu ? 1 : pk_pmus_nr_core(pmus);
	const struct fixed_name *fixed =
		(!qual[0] && cpuid->vendor == PK_VENDOR_INTEL) ? find_fixed(event) : NULL;
	size_t n = 0;
	bool qual_used = false;
	for (size_t i = 0; i < nr_core; i++) {
		const pk_pmu *pmu = only_pmu ? only_pmu : pk_pmus_core_at(pmus, i);
		uint64_t config[PK_NR_CONFIGS];
		if (fixed) {
			if (fixed_encode(pmu, fixed, config))
				add_match(out, max, &n, pmu, config, "perf", event);
			continue;
		}
		const char *cands[4];
		size_t nr = pki_pfm_model_pmus(cpuid, pmu->name, cands, PK_ARRAY_SIZE(cands));
		if (qual[0]) {
			bool listed = false;
			for (size_t c = 0; c < nr; c++)
				listed |= !strcasecmp(cands[c], qual);
			/* On a machine with one core PMU a qualified name is
			 * taken as asked, even for a table the model does
			 * not list (the user knows the CPU better). */
			if (!listed && pk_pmus_nr_core(pmus) != 1)
				continue;
			cands[0] = qual;
			nr = 1;
			qual_used = true;
		}
		const char *used = NULL;
		r = encode_for_pmu(cands, nr, name, cpuid->vendor, config, &used, err);
		if (r < 0)
			return r;
		if (r > 0)
			add_match(out, max, &n, pmu, config, used, name);
	}
	if (qual[0] && !qual_used)
		return pk_err(err, -ENOENT,
			      "libpfm4 PMU '%s' does not describe a core PMU of this CPU (%s)", qual,
			      cpuid->str[0] ? cpuid->str : "unknown");
	return (int)n;
}

/* ---- listing ---- */

typedef struct list_state {
	const pk_pmu *pmu;
	pk_pfm_event_cb cb;
	void *arg;
} list_state;

static void perf_style(char *dst, size_t len, const char *ev, const char *umask)
{
	snprintf(dst, len, "%s%s%s", ev, umask ? "." : "", umask ? umask : "");
	for (char *p = dst; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

static int list_table(const pfm_pmu_entry *pe, const list_state *st)
{
	for (int i = pe->first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t info;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_event_info(i, PFM_OS_NONE, &info) != PFM_SUCCESS)
			continue;
		char name[192];
		int nr_umasks = 0;
		for (int a = 0; a < info.nattrs; a++) {
			pfm_event_attr_info_t ai;
			if (get_attr(i, a, &ai) < 0 || ai.type != PFM_ATTR_UMASK)
				continue;
			nr_umasks++;
			perf_style(name, sizeof(name), info.name, ai.name);
			int r = st->cb(st->pmu, name, ai.desc ? ai.desc : "", st->arg);
			if (r)
				return r;
		}
		if (nr_umasks == 0) {
			perf_style(name, sizeof(name), info.name, NULL);
			int r = st->cb(st->pmu, name, info.desc ? info.desc : "", st->arg);
			if (r)
				return r;
		}
	}
	return 0;
}

/* The fixed names a lookup encodes on this PMU (without a libpfm4 table). */
static int list_fixed(const list_state *st)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(fixed_names); i++) {
		uint64_t config[PK_NR_CONFIGS];
		if (!fixed_encode(st->pmu, &fixed_names[i], config))
			continue;
		int r = st->cb(st->pmu, fixed_names[i].name, fixed_names[i].desc, st->arg);
		if (r)
			return r;
	}
	return 0;
}

int pk_pfm_foreach(const pk_pmus *pmus, const pk_cpuid *cpuid, pk_pfm_event_cb cb, void *arg,
		   pk_error *err)
{
	pk_cpuid host;
	int r = prepare(&cpuid, &host, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < pk_pmus_nr_core(pmus); i++) {
		list_state st = {pk_pmus_core_at(pmus, i), cb, arg};
		const char *cands[4];
		size_t nr = pki_pfm_model_pmus(cpuid, st.pmu->name, cands, PK_ARRAY_SIZE(cands));
		bool listed = false;
		for (size_t c = 0; c < nr && !listed; c++) {
			const pfm_pmu_entry *pe = catalog_find(cands[c]);
			if (!pe)
				continue;
			/* the first table this libpfm4 has is the one lookups use */
			listed = true;
			if ((r = list_table(pe, &st)))
				return r;
		}
		if (!listed && cpuid->vendor == PK_VENDOR_INTEL && (r = list_fixed(&st)))
			return r;
	}
	return 0;
}
