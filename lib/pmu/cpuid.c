/* CPU identification in perf's PERF_CPUID form, so that one string selects
 * model-specific knowledge (libpfm4 tables, topdown methods) and tests can
 * pretend to be any machine through PMUKIT_CPUID. */
#include <pmukit/cpuid.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "pmu/cpuid_internal.h"

static int parse_hex_field(const char **p, int *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(*p, &end, 16);
	if (end == *p || errno || v > 0xffff)
		return -EINVAL;
	*out = (int)v;
	*p = end;
	return 0;
}

/* The cpuid instruction's vendor strings. */
static const struct {
	const char *name;
	pk_vendor vendor;
} vendors[] = {
	{"GenuineIntel", PK_VENDOR_INTEL},
	{"AuthenticAMD", PK_VENDOR_AMD},
	{"HygonGenuine", PK_VENDOR_AMD},
};

static pk_vendor vendor_of(const char *s, size_t len)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(vendors); i++)
		if (strlen(vendors[i].name) == len && !strncmp(s, vendors[i].name, len))
			return vendors[i].vendor;
	return PK_VENDOR_UNKNOWN;
}

/* MIDR_EL1: implementer 31-24, variant 23-20, architecture 19-16, part
 * number 15-4, revision 3-0. */
static unsigned midr_rnpm(uint64_t midr)
{
	return (unsigned)((midr >> 20 & 0xf) << 4 | (midr & 0xf));
}

/* x86: "<vendor>-<family decimal>-<model hex>[-<stepping hex>]".
 * Arm: "0x<16 hex digits>" (MIDR_EL1, as perf reads it) or "ARM-<anything>". */
int pk_cpuid_parse(const char *s, pk_cpuid *out, pk_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!s || !*s || strlen(s) >= sizeof(out->str))
		return pk_err_at(err, -EINVAL, "cpuid", s ? s : "", 0,
				 "empty or overlong CPU identification");
	snprintf(out->str, sizeof(out->str), "%s", s);
	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
		uint64_t midr;
		if (pki_parse_u64(s, &midr, NULL) < 0)
			return pk_err_at(err, -EINVAL, "cpuid", s, 0,
					 "expected a MIDR value such as 0x00000000413fd0c1");
		out->vendor = PK_VENDOR_ARM;
		out->midr = midr;
		out->family = (int)((midr >> 24) & 0xff);   /* implementer */
		out->model = (int)((midr >> 4) & 0xfff);     /* part number */
		out->stepping = (int)midr_rnpm(midr); /* rNpM */
		return 0;
	}
	if (!strncmp(s, "ARM-", 4)) {
		out->vendor = PK_VENDOR_ARM;
		return 0;
	}
	const char *dash = strchr(s, '-');
	if (!dash)
		return pk_err_at(err, -EINVAL, "cpuid", s, (long)strlen(s),
				 "expected <vendor>-<family>-<model>[-<stepping>], e.g. GenuineIntel-6-97-2");
	out->vendor = vendor_of(s, (size_t)(dash - s));
	const char *p = dash + 1;
	char *end;
	errno = 0;
	unsigned long fam = strtoul(p, &end, 10);
	if (end == p || errno || fam > 0xfff || *end != '-')
		return pk_err_at(err, -EINVAL, "cpuid", s, p - s,
				 "expected a decimal family followed by '-'");
	out->family = (int)fam;
	p = end + 1;
	if (parse_hex_field(&p, &out->model) < 0)
		return pk_err_at(err, -EINVAL, "cpuid", s, p - s, "expected a hex model number");
	if (*p == '-') {
		p++;
		if (parse_hex_field(&p, &out->stepping) < 0)
			return pk_err_at(err, -EINVAL, "cpuid", s, p - s,
					 "expected a hex stepping number");
	}
	if (*p)
		return pk_err_at(err, -EINVAL, "cpuid", s, p - s, "unexpected text");
	return 0;
}

/* The override and its variable's name: PMUKIT_CPUID, else perf's
 * PERF_CPUID (perf reads it the same way); NULL when neither is set. */
static const char *cpuid_override(const char **var)
{
	static const char *const vars[] = {PK_CPUID_ENV, "PERF_CPUID"};
	for (size_t i = 0; i < PK_ARRAY_SIZE(vars); i++) {
		const char *env = pki_env(vars[i]);
		if (env && *env) {
			*var = vars[i];
			return env;
		}
	}
	return NULL;
}

int pki_cpuid_env(pk_cpuid *out, pk_error *err)
{
	const char *var;
	const char *env = cpuid_override(&var);
	if (env) {
		pk_error perr;
		pk_error_clear(&perr);
		int r = pk_cpuid_parse(env, out, &perr);
		if (r < 0) {
			/* a set but malformed override is an error, never the host's
			 * identification in its place */
			pk_err_at(err, r, var, env, perr.pos, "malformed %s: %s", var, perr.msg);
			pk_err_hint(err, "%s takes perf's PERF_CPUID form (GenuineIntel-6-97-2: vendor, "
					 "decimal family, hex model, hex stepping) or an Arm MIDR "
					 "(0x00000000410fd0c1); unset it to use this CPU",
				    var);
		}
		return r < 0 ? r : 1;
	}
	return 0;
}

bool pk_cpuid_overridden(void)
{
	const char *var;
	return cpuid_override(&var) != NULL;
}

pk_vendor pki_pmus_vendor(const pk_pmus *pmus, const char **why)
{
	static const char *const intel_formats[] = {"offcore_rsp", "ldlat", "frontend"};
	for (size_t i = 0; i < pk_pmus_count(pmus); i++) {
		const pk_pmu *p = pk_pmus_at(pmus, i);
		*why = p->name;
		if (!strncmp(p->name, "ibs_", 4) || !strncmp(p->name, "amd_", 4))
			return PK_VENDOR_AMD;
	}
	for (size_t i = 0; i < pk_pmus_nr_core(pmus); i++) {
		const pk_pmu *p = pk_pmus_core_at(pmus, i);
		*why = p->name;
		if (!strncmp(p->name, "armv", 4))
			return PK_VENDOR_ARM;
		if (!strcmp(p->name, "cpu_core") || !strcmp(p->name, "cpu_atom"))
			return PK_VENDOR_INTEL;
		for (size_t f = 0; f < PK_ARRAY_SIZE(intel_formats); f++)
			if (pk_pmu_format(p, intel_formats[f]))
				return PK_VENDOR_INTEL;
	}
	*why = NULL;
	return PK_VENDOR_UNKNOWN;
}

int pki_cpuid_check_pmus(const pk_cpuid *id, const pk_pmus *pmus, pk_error *err)
{
	static const char *const names[] = {"unknown", "Intel", "AMD", "Arm"};
	const char *why, *var;
	pk_vendor v = pki_pmus_vendor(pmus, &why);
	if (v == PK_VENDOR_UNKNOWN || id->vendor == PK_VENDOR_UNKNOWN || v == id->vendor)
		return 0;
	pk_err(err, -EINVAL, "CPU %s (%s) is an %s CPU, but the PMUs in %s are %s's (PMU '%s')",
	       id->str, cpuid_override(&var) ? var : "this host", names[id->vendor],
	       pk_pmus_root(pmus), names[v], why);
	pk_err_hint(err, "set PMUKIT_CPUID (or PERF_CPUID) to a CPU of the tree, or PMUKIT_SYSFS "
			 "to a tree of the CPU");
	return -EINVAL;
}

bool pki_midr_at_least(uint64_t midr, uint64_t ref)
{
	const uint64_t part = 0xff00fff0u;
	return midr && (midr & part) == (ref & part) && midr_rnpm(midr) >= midr_rnpm(ref);
}
