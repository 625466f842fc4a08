/* CPU identification in perf's PERF_CPUID form, so that one string selects
 * model-specific knowledge (libpfm4 tables, topdown methods) and tests can
 * pretend to be any machine through PMUKIT_CPUID. */
#include <pmukit/cpuid.h>
#include <pmukit/kernel.h>

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
		out->stepping = (int)(((midr >> 20) & 0xf) << 4 | (midr & 0xf)); /* rNpM */
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

int pki_cpuid_env(pk_cpuid *out, pk_error *err)
{
	const char *env = pki_env(PK_CPUID_ENV);
	if (env && *env) {
		pk_error perr;
		pk_error_clear(&perr);
		int r = pk_cpuid_parse(env, out, &perr);
		if (r < 0) {
			/* a set but malformed override is an error, never the host's
			 * identification in its place */
			pk_err_at(err, r, PK_CPUID_ENV, env, perr.pos, "malformed %s: %s", PK_CPUID_ENV,
				  perr.msg);
			pk_err_hint(err, "%s takes perf's PERF_CPUID form (GenuineIntel-6-97-2: vendor, "
					 "decimal family, hex model, hex stepping) or an Arm MIDR "
					 "(0x00000000410fd0c1); unset it to use this CPU",
				    PK_CPUID_ENV);
		}
		return r < 0 ? r : 1;
	}
	return 0;
}

/* The host's identification is a fact of the kernel seam (the cpuid
 * instruction, the MIDR in sysfs, or the PMU model's CPU). */
int pk_cpuid_host(pk_cpuid *out, pk_error *err)
{
	return pk_host_cpuid(NULL, out, err);
}

bool pk_cpuid_overridden(void)
{
	const char *env = pki_env(PK_CPUID_ENV);
	return env && *env;
}
