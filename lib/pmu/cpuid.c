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

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

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
		if (pk_parse_u64(s, &midr, NULL) < 0)
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

#if defined(__x86_64__) || defined(__i386__)
static unsigned bits(unsigned v, unsigned lo, unsigned width)
{
	return (v >> lo) & ((1u << width) - 1);
}
#endif

static int host_cpuid(pk_cpuid *out, pk_error *err)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char vendor[13];
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return pk_err(err, -ENOTSUP, "the cpuid instruction gave no vendor");
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return pk_err(err, -ENOTSUP, "the cpuid instruction gave no signature");
	/* leaf 1 EAX: stepping 3:0, model 7:4, family 11:8, extended model
	 * 19:16, extended family 27:20; display family and model as the SDM says */
	unsigned family = bits(a, 8, 4), model = bits(a, 4, 4), stepping = bits(a, 0, 4);
	if (family == 0xf)
		family += bits(a, 20, 8);
	if (family >= 6)
		model += bits(a, 16, 4) << 4;
	char str[64];
	snprintf(str, sizeof(str), "%s-%u-%X-%X", vendor, family, model, stepping);
	return pk_cpuid_parse(str, out, err);
#else
	char *text;
	int r = pk_read_file("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", &text,
			     NULL);
	if (r < 0)
		return pk_err(err, r, "cannot read the MIDR of cpu0: %s", strerror(-r));
	r = pk_cpuid_parse(pk_rstrip(text), out, err);
	free(text);
	return r;
#endif
}

int pk_cpuid_host(pk_cpuid *out, pk_error *err)
{
	const char *env = getenv(PK_CPUID_ENV);
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
		return r;
	}
	return host_cpuid(out, err);
}

bool pk_cpuid_overridden(void)
{
	const char *env = getenv(PK_CPUID_ENV);
	return env && *env;
}
