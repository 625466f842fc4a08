/* PMU discovery: reads <root>/bus/event_source/devices/<pmu>/{type,format,
 * events,caps,cpus|cpumask} into plain data. Real sysfs files sometimes lack
 * a trailing newline, so every value is right-stripped. A PMU or file that
 * cannot be read is skipped with a warning rather than failing the whole
 * load: one odd driver must not hide every other PMU. */
#include <pmukit/pmu.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/refcount.h"
#include "core/util.h"

struct pk_pmus {
	pki_ref ref;
	char *root;
	pk_pmu *pmus;
	size_t nr, cap;
	size_t nr_core;
	const pk_pmu **core;
	pki_warnings warnings;
};

static void pmus_warn(pk_pmus *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pmus_warn(pk_pmus *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pki_warnings_vadd(&p->warnings, fmt, ap);
	va_end(ap);
}

/* Sysfs values are a few bytes; a broken file may hold megabytes or several
 * lines. A warning quotes at most QUOTE_MAX bytes of it, up to the first
 * control character, and says how long the whole was. */
#define QUOTE_MAX 64
#define QUOTE_BUF (QUOTE_MAX + 48)

static const char *quote(const char *text, char buf[QUOTE_BUF])
{
	size_t n = 0, len = strlen(text);
	while (n < len && n < QUOTE_MAX && !iscntrl((unsigned char)text[n]))
		n++;
	if (n == len)
		snprintf(buf, QUOTE_BUF, "%s", text);
	else
		snprintf(buf, QUOTE_BUF, "%.*s... (%zu bytes)", (int)n, text, len);
	return buf;
}

/* ---- format fields ------------------------------------------------------ */

static const char *const config_words[PK_NR_CONFIGS] = {"config", "config1", "config2",
							  "config3"};

const char *pk_config_word_name(int word)
{
	return word >= 0 && word < PK_NR_CONFIGS ? config_words[word] : NULL;
}

const char *pk_format_describe(const pk_format *f, char *buf, size_t len)
{
	const char *word = pk_config_word_name(f->word);
	int n = snprintf(buf, len, "%s:", word ? word : "?");
	for (int i = 0; i < f->nr_ranges && n > 0 && (size_t)n < len; i++) {
		const char *sep = i ? "," : "";
		if (f->ranges[i].lo == f->ranges[i].hi)
			n += snprintf(buf + n, len - (size_t)n, "%s%u", sep, f->ranges[i].lo);
		else
			n += snprintf(buf + n, len - (size_t)n, "%s%u-%u", sep, f->ranges[i].lo,
				      f->ranges[i].hi);
	}
	return buf;
}

int pk_format_parse(const char *text, pk_format *out, pk_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *p = pki_lskip(text);
	int word = -1;
	/* longest first: "config" is a prefix of the others */
	for (int w = PK_NR_CONFIGS - 1; w >= 0 && word < 0; w--) {
		size_t n = strlen(config_words[w]);
		if (!strncmp(p, config_words[w], n) && p[n] == ':') {
			word = w;
			p += n + 1;
		}
	}
	if (word < 0)
		return pk_err_at(err, -EINVAL, "format", text, p - text,
				 "expected config, config1, config2 or config3 followed by ':'");
	out->word = word;
	uint64_t seen = 0;
	for (;;) {
		uint64_t lo, hi;
		const char *end;
		if (pki_parse_u64(p, &lo, &end) < 0 || lo > 63)
			return pk_err_at(err, -EINVAL, "format", text, p - text,
					 "expected a bit number from 0 to 63");
		hi = lo;
		p = end;
		if (*p == '-') {
			if (pki_parse_u64(p + 1, &hi, &end) < 0 || hi > 63 || hi < lo)
				return pk_err_at(err, -EINVAL, "format", text, p + 1 - text,
						 "expected a bit range lo-hi within 0-63");
			p = end;
		}
		uint64_t mask = (hi == 63 ? ~0ULL : ((1ULL << (hi + 1)) - 1)) & ~((1ULL << lo) - 1);
		if (seen & mask)
			return pk_err_at(err, -EINVAL, "format", text, p - text,
					 "bit ranges overlap");
		seen |= mask;
		if (out->nr_ranges == PK_FORMAT_MAX_RANGES)
			return pk_err_at(err, -EINVAL, "format", text, p - text,
					 "more than %d bit ranges", PK_FORMAT_MAX_RANGES);
		out->ranges[out->nr_ranges].lo = (uint8_t)lo;
		out->ranges[out->nr_ranges].hi = (uint8_t)hi;
		out->nr_ranges++;
		out->width += (unsigned)(hi - lo + 1);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*pki_lskip(p))
			return pk_err_at(err, -EINVAL, "format", text, p - text,
					 "unexpected text after the bit ranges");
		break;
	}
	return 0;
}

uint64_t pk_format_max(const pk_format *f)
{
	return f->width >= 64 ? ~0ULL : (1ULL << f->width) - 1;
}

int pk_format_apply(const pk_format *f, uint64_t value, uint64_t config[PK_NR_CONFIGS])
{
	if (value > pk_format_max(f))
		return -ERANGE;
	/* Ranges are filled from the value's low bits upward, in the order the
	 * format lists them (event=config:0-7,32-35 puts value bits 8-11 at 32-35). */
	for (int i = 0; i < f->nr_ranges; i++) {
		unsigned lo = f->ranges[i].lo, hi = f->ranges[i].hi, n = hi - lo + 1;
		uint64_t part_mask = n >= 64 ? ~0ULL : (1ULL << n) - 1;
		uint64_t part = value & part_mask;
		config[f->word] &= ~(part_mask << lo);
		config[f->word] |= part << lo;
		value = n >= 64 ? 0 : value >> n;
	}
	return 0;
}

uint64_t pk_format_extract(const pk_format *f, const uint64_t config[PK_NR_CONFIGS])
{
	uint64_t v = 0;
	unsigned shift = 0;
	for (int i = 0; i < f->nr_ranges; i++) {
		unsigned lo = f->ranges[i].lo, hi = f->ranges[i].hi, n = hi - lo + 1;
		uint64_t part_mask = n >= 64 ? ~0ULL : (1ULL << n) - 1;
		if (shift < 64)
			v |= ((config[f->word] >> lo) & part_mask) << shift;
		shift += n;
	}
	return v;
}

/* ---- reading one PMU ---------------------------------------------------- */

static int read_value(const char *dir, const char *name, char **out)
{
	char path[4096];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	int r = pki_read_file(path, out, NULL);
	if (r == 0)
		pki_rstrip(*out);
	return r;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !strcmp(s + n - m, suffix);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of a directory (no dot files); NULL list when it does
 * not exist. */
static int list_dir(const char *dir, char ***names, size_t *nr)
{
	*names = NULL;
	*nr = 0;
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	size_t cap = 0;
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *dup = strdup(de->d_name);
		if (!dup || pki_grow(names, &cap, *nr + 1, sizeof(char *)) < 0) {
			free(dup);
			r = -ENOMEM;
			break;
		}
		(*names)[(*nr)++] = dup;
	}
	closedir(d);
	if (*nr)
		qsort(*names, *nr, sizeof(char *), cmp_names);
	return r;
}

static void free_names(char **names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

static void pmu_clear(pk_pmu *pmu)
{
	free(pmu->name);
	for (size_t i = 0; i < pmu->nr_formats; i++)
		free(pmu->formats[i].name);
	free(pmu->formats);
	for (size_t i = 0; i < pmu->nr_aliases; i++) {
		free(pmu->aliases[i].name);
		free(pmu->aliases[i].terms);
		free(pmu->aliases[i].unit);
	}
	free(pmu->aliases);
	for (size_t i = 0; i < pmu->nr_caps; i++) {
		free(pmu->caps[i].name);
		free(pmu->caps[i].value);
	}
	free(pmu->caps);
	pk_cpumap_put(pmu->cpus);
	memset(pmu, 0, sizeof(*pmu));
}

/* Lists <pmudir>/<sub> into names and allocates `array` with room for one
 * element per entry, the common start of reading format/, events/, caps/. */
static int list_subdir(const char *pmudir, const char *sub, char *dir, size_t dirlen,
		       char ***names, size_t *nr, void *array, size_t elem)
{
	void **arr = array;
	if (snprintf(dir, dirlen, "%s/%s", pmudir, sub) >= (int)dirlen)
		return -ENAMETOOLONG;
	int r = list_dir(dir, names, nr);
	if (r < 0)
		return r;
	*arr = *nr ? calloc(*nr, elem) : NULL;
	if (*nr && !*arr) {
		free_names(*names, *nr);
		return -ENOMEM;
	}
	return 0;
}

static int load_formats(pk_pmus *p, pk_pmu *pmu, const char *pmudir)
{
	char dir[4096];
	char **names;
	size_t nr;
	int r = list_subdir(pmudir, "format", dir, sizeof(dir), &names, &nr, &pmu->formats,
			    sizeof(pk_format));
	if (r < 0)
		return r;
	for (size_t i = 0; i < nr; i++) {
		char *text;
		r = read_value(dir, names[i], &text);
		if (r < 0) {
			pmus_warn(p, "%s/%s: cannot read (%s); format skipped", dir, names[i],
				  strerror(-r));
			continue;
		}
		pk_error e;
		pk_error_clear(&e);
		pk_format *f = &pmu->formats[pmu->nr_formats];
		if (pk_format_parse(text, f, &e) < 0) {
			char q[QUOTE_BUF];
			pmus_warn(p, "%s/%s: '%s': %s; format skipped", dir, names[i], quote(text, q),
				  e.msg);
			free(text);
			continue;
		}
		free(text);
		f->name = names[i];
		names[i] = NULL;
		pmu->nr_formats++;
	}
	free_names(names, nr);
	return 0;
}

static int cmp_alias(const void *a, const void *b)
{
	return strcasecmp(((const pk_alias *)a)->name, ((const pk_alias *)b)->name);
}

static int load_aliases(pk_pmus *p, pk_pmu *pmu, const char *pmudir)
{
	char dir[4096];
	char **names;
	size_t nr;
	int r = list_subdir(pmudir, "events", dir, sizeof(dir), &names, &nr, &pmu->aliases,
			    sizeof(pk_alias));
	if (r < 0)
		return r;
	for (size_t i = 0; i < nr; i++) {
		const char *n = names[i];
		if (has_suffix(n, ".scale") || has_suffix(n, ".unit") || has_suffix(n, ".per-pkg") ||
		    has_suffix(n, ".snapshot"))
			continue;
		pk_alias *a = &pmu->aliases[pmu->nr_aliases];
		r = read_value(dir, n, &a->terms);
		if (r < 0) {
			pmus_warn(p, "%s/%s: cannot read (%s); event skipped", dir, n, strerror(-r));
			continue;
		}
		a->scale = 1.0;
		char comp[512], *text;
		snprintf(comp, sizeof(comp), "%s.scale", n);
		if (read_value(dir, comp, &text) == 0) {
			char *end;
			double s = strtod(text, &end);
			if (end != text && !*pki_lskip(end) && s > 0)
				a->scale = s;
			else
				pmus_warn(p, "%s/%s: '%s' is not a positive number; scale 1 used",
					  dir, comp, quote(text, (char[QUOTE_BUF]){0}));
			free(text);
		}
		snprintf(comp, sizeof(comp), "%s.unit", n);
		if (read_value(dir, comp, &text) == 0)
			a->unit = text;
		snprintf(comp, sizeof(comp), "%s.per-pkg", n);
		if (read_value(dir, comp, &text) == 0) {
			a->per_pkg = atoi(text) != 0;
			free(text);
		}
		snprintf(comp, sizeof(comp), "%s.snapshot", n);
		if (read_value(dir, comp, &text) == 0) {
			a->snapshot = atoi(text) != 0;
			free(text);
		}
		a->name = names[i];
		names[i] = NULL;
		pmu->nr_aliases++;
	}
	free_names(names, nr);
	if (pmu->nr_aliases)
		qsort(pmu->aliases, pmu->nr_aliases, sizeof(pk_alias), cmp_alias);
	return 0;
}

static int load_caps(pk_pmus *p, pk_pmu *pmu, const char *pmudir)
{
	char dir[4096];
	char **names;
	size_t nr;
	int r = list_subdir(pmudir, "caps", dir, sizeof(dir), &names, &nr, &pmu->caps,
			    sizeof(pk_cap));
	if (r < 0)
		return r;
	for (size_t i = 0; i < nr; i++) {
		pk_cap *c = &pmu->caps[pmu->nr_caps];
		r = read_value(dir, names[i], &c->value);
		if (r < 0) {
			pmus_warn(p, "%s/%s: cannot read (%s); cap skipped", dir, names[i],
				  strerror(-r));
			continue;
		}
		c->name = names[i];
		names[i] = NULL;
		pmu->nr_caps++;
	}
	free_names(names, nr);
	return 0;
}

static int load_cpus(pk_pmus *p, pk_pmu *pmu, const char *pmudir)
{
	static const char *files[] = {"cpus", "cpumask"};
	for (size_t i = 0; i < PK_ARRAY_SIZE(files); i++) {
		char *text;
		int r = read_value(pmudir, files[i], &text);
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			pmus_warn(p, "%s/%s: cannot read (%s)", pmudir, files[i], strerror(-r));
			continue;
		}
		pk_error e;
		pk_error_clear(&e);
		pmu->cpus = pk_cpumap_parse(text, &e);
		if (!pmu->cpus) {
			char q[QUOTE_BUF];
			pmus_warn(p, "%s/%s: '%s': %s", pmudir, files[i], quote(text, q), e.msg);
			free(text);
			return e.code == -ENOMEM ? -ENOMEM : 0;
		}
		free(text);
		pmu->cpus_from_mask = i == 1;
		return 0;
	}
	return 0;
}

static pk_pmu_kind classify(const pk_pmu *pmu)
{
	if (!strcmp(pmu->name, "software"))
		return PK_PMU_SOFTWARE;
	if (!strcmp(pmu->name, "tracepoint"))
		return PK_PMU_TRACEPOINT;
	if (!strcmp(pmu->name, "breakpoint"))
		return PK_PMU_BREAKPOINT;
	/* "cpu" is the core PMU on x86 and s390-less machines; otherwise a PMU
	 * that lists its CPUs in `cpus` (not an uncore `cpumask`) is a core PMU:
	 * cpu_core/cpu_atom on hybrid Intel, armv8_* on Arm. */
	if (!strcmp(pmu->name, "cpu") || (pmu->cpus && !pmu->cpus_from_mask))
		return PK_PMU_CORE;
	return PK_PMU_OTHER;
}

static int load_pmu(pk_pmus *p, const char *devdir, const char *name)
{
	char dir[4096];
	if (snprintf(dir, sizeof(dir), "%s/%s", devdir, name) >= (int)sizeof(dir))
		return 0;
	char *text;
	int r = read_value(dir, "type", &text);
	if (r < 0) {
		if (r != -ENOENT && r != -ENOTDIR)
			pmus_warn(p, "%s/type: cannot read (%s); PMU skipped", dir, strerror(-r));
		return r == -ENOMEM ? r : 0;
	}
	uint64_t type;
	if (pki_parse_u64(text, &type, NULL) < 0 || type > UINT32_MAX) {
		char q[QUOTE_BUF];
		pmus_warn(p, "%s/type: '%s' is not a PMU type number; PMU skipped", dir,
			  quote(text, q));
		free(text);
		return 0;
	}
	free(text);
	if (pki_grow(&p->pmus, &p->cap, p->nr + 1, sizeof(pk_pmu)) < 0)
		return -ENOMEM;
	pk_pmu *pmu = &p->pmus[p->nr];
	memset(pmu, 0, sizeof(*pmu));
	pmu->type = (uint32_t)type;
	if (!(pmu->name = strdup(name)) || (r = load_formats(p, pmu, dir)) < 0 ||
	    (r = load_aliases(p, pmu, dir)) < 0 || (r = load_caps(p, pmu, dir)) < 0 ||
	    (r = load_cpus(p, pmu, dir)) < 0) {
		if (r >= 0 || r == -ENOMEM) {
			pmu_clear(pmu);
			return -ENOMEM;
		}
		pmus_warn(p, "%s: %s; PMU skipped", dir, strerror(-r));
		pmu_clear(pmu);
		return 0;
	}
	pmu->kind = classify(pmu);
	p->nr++;
	return 0;
}

/* Core PMUs first, cpu_core ahead of cpu_atom (the order perf's hybrid
 * documentation shows), then everything else by name. */
static int pmu_rank(const pk_pmu *pmu)
{
	if (pmu->kind != PK_PMU_CORE)
		return 2;
	return !strcmp(pmu->name, "cpu_core") || !strcmp(pmu->name, "cpu") ? 0 : 1;
}

static int cmp_pmu(const void *a, const void *b)
{
	const pk_pmu *x = a, *y = b;
	int rx = pmu_rank(x), ry = pmu_rank(y);
	if (rx != ry)
		return rx - ry;
	return strcmp(x->name, y->name);
}

const char *pk_sysfs_root(void)
{
	const char *env = pki_env("PMUKIT_SYSFS");
	return env && *env ? env : "/sys";
}

pk_pmus *pk_pmus_load(const char *root, pk_error *err)
{
	if (!root)
		root = pk_sysfs_root();
	pk_pmus *p = calloc(1, sizeof(*p));
	if (!p || !(p->root = strdup(root))) {
		free(p);
		pk_err(err, -ENOMEM, "out of memory");
		return NULL;
	}
	pki_ref_init(&p->ref);
	char devdir[4096];
	if (snprintf(devdir, sizeof(devdir), "%s/bus/event_source/devices", root) >=
	    (int)sizeof(devdir)) {
		pk_err(err, -ENAMETOOLONG, "sysfs root path too long");
		pk_pmus_put(p);
		return NULL;
	}
	char **names;
	size_t nr;
	int r = list_dir(devdir, &names, &nr);
	if (r == 0 && !names) {
		DIR *d = opendir(devdir);
		if (!d) {
			r = -errno;
		} else {
			closedir(d);
		}
	}
	if (r < 0) {
		pk_err_at(err, r, "", devdir, -1, "cannot read the PMU directory: %s", strerror(-r));
		if (r == -ENOENT)
			pk_err_hint(err, "Is sysfs mounted? PMUKIT_SYSFS must name a folder that "
					 "holds bus/event_source/devices.");
		pk_pmus_put(p);
		return NULL;
	}
	for (size_t i = 0; i < nr && r == 0; i++)
		r = load_pmu(p, devdir, names[i]);
	free_names(names, nr);
	if (r < 0) {
		pk_err(err, r, "loading PMUs from %s: %s", devdir, strerror(-r));
		pk_pmus_put(p);
		return NULL;
	}
	if (p->nr)
		qsort(p->pmus, p->nr, sizeof(pk_pmu), cmp_pmu);
	for (size_t i = 0; i < p->nr; i++)
		if (p->pmus[i].kind == PK_PMU_CORE)
			p->nr_core++;
	p->core = p->nr_core ? calloc(p->nr_core, sizeof(*p->core)) : NULL;
	if (p->nr_core && !p->core) {
		pk_err(err, -ENOMEM, "out of memory");
		pk_pmus_put(p);
		return NULL;
	}
	size_t c = 0;
	for (size_t i = 0; i < p->nr; i++) {
		p->pmus[i].owner = p; /* the array is final: pointers into it are stable */
		if (p->pmus[i].kind != PK_PMU_CORE)
			continue;
		p->pmus[i].hybrid = p->nr_core > 1;
		p->core[c++] = &p->pmus[i];
	}
	return p;
}

pk_pmus *pk_pmus_get(pk_pmus *p)
{
	if (p)
		pki_ref_get(&p->ref);
	return p;
}

void pk_pmus_put(pk_pmus *p)
{
	if (!p || !pki_ref_put(&p->ref))
		return;
	for (size_t i = 0; i < p->nr; i++)
		pmu_clear(&p->pmus[i]);
	free(p->pmus);
	free(p->core);
	pki_warnings_free(&p->warnings);
	free(p->root);
	free(p);
}

const char *pk_pmus_root(const pk_pmus *p)
{
	return p->root;
}

size_t pk_pmus_count(const pk_pmus *p)
{
	return p ? p->nr : 0;
}

const pk_pmu *pk_pmus_at(const pk_pmus *p, size_t idx)
{
	return p && idx < p->nr ? &p->pmus[idx] : NULL;
}

const pk_pmu *pk_pmus_find(const pk_pmus *p, const char *name)
{
	for (size_t i = 0; p && i < p->nr; i++)
		if (!strcmp(p->pmus[i].name, name))
			return &p->pmus[i];
	return NULL;
}

const pk_pmu *pk_pmus_find_type(const pk_pmus *p, uint32_t type)
{
	for (size_t i = 0; p && i < p->nr; i++)
		if (p->pmus[i].type == type)
			return &p->pmus[i];
	return NULL;
}

size_t pk_pmus_nr_core(const pk_pmus *p)
{
	return p ? p->nr_core : 0;
}

const pk_pmu *pk_pmus_core_at(const pk_pmus *p, size_t idx)
{
	return p && idx < p->nr_core ? p->core[idx] : NULL;
}

bool pk_pmus_is_hybrid(const pk_pmus *p)
{
	return p && p->nr_core > 1;
}

const char *pk_pmus_cputype_name(const char *arg)
{
	if (!strcmp(arg, "core"))
		return "cpu_core";
	if (!strcmp(arg, "atom"))
		return "cpu_atom";
	return arg;
}

int pk_pmus_check_cputype(const pk_pmus *pmus, const char *pmu_name, pk_error *err)
{
	if (!pmu_name)
		return 0;
	char names[256] = "";
	size_t n = 0;
	bool found = false;
	for (size_t i = 0; i < pk_pmus_nr_core(pmus); i++) {
		const pk_pmu *p = pk_pmus_core_at(pmus, i);
		found |= !strcmp(p->name, pmu_name);
		if (n < sizeof(names))
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
					      p->name);
	}
	/* perf 6.1 on a machine without hybrid PMUs: "--cputype core is not
	 * supported!", whatever the type */
	if (!pk_pmus_is_hybrid(pmus))
		return pk_err(err, -EINVAL, "--cputype %s: not a hybrid machine (core PMUs: %s)",
			      pmu_name, n ? names : "none");
	if (!found)
		return pk_err(err, -EINVAL, "--cputype %s: no such core PMU (core PMUs: %s)",
			      pmu_name, names);
	return 0;
}

size_t pk_pmus_nr_warnings(const pk_pmus *p)
{
	return p ? p->warnings.nr : 0;
}

const char *pk_pmus_warning(const pk_pmus *p, size_t idx)
{
	return p ? pki_warnings_at(&p->warnings, idx) : NULL;
}

/* "<prefix>_<digits>" */
static bool is_numbered(const char *pmu, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(pmu, prefix, n) || pmu[n] != '_' || !pmu[n + 1])
		return false;
	for (const char *s = pmu + n + 1; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

size_t pk_pmus_match(const pk_pmus *p, const char *name, const pk_pmu **out, size_t max)
{
	const pk_pmu *exact = pk_pmus_find(p, name);
	if (exact) {
		if (max)
			out[0] = exact;
		return 1;
	}
	char uncore[256];
	snprintf(uncore, sizeof(uncore), "uncore_%s", name);
	size_t n = 0;
	for (size_t i = 0; p && i < p->nr; i++) {
		const char *pn = p->pmus[i].name;
		if (is_numbered(pn, name) || !strcmp(pn, uncore) || is_numbered(pn, uncore)) {
			if (n < max)
				out[n] = &p->pmus[i];
			n++;
		}
	}
	return n;
}

const pk_format *pk_pmu_format(const pk_pmu *pmu, const char *name)
{
	for (size_t i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

const pk_alias *pk_pmu_alias(const pk_pmu *pmu, const char *name)
{
	size_t lo = 0, hi = pmu->nr_aliases;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcasecmp(pmu->aliases[mid].name, name);
		if (!c)
			return &pmu->aliases[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *pk_pmu_cap(const pk_pmu *pmu, const char *name)
{
	for (size_t i = 0; i < pmu->nr_caps; i++)
		if (!strcmp(pmu->caps[i].name, name))
			return pmu->caps[i].value;
	return NULL;
}
