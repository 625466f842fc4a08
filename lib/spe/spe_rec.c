/* Recording with Arm SPE (include/pmukit/spe_record.h): an arm_spe event's
 * terms read back through the PMU's format fields, the driver's rules on
 * them, and the AUXTRACE_INFO record perf record writes.
 *
 * Invariants: terms are a table (name -> field of pk_spe_config), walked
 * once; a term the PMU has no format for is 0 (the kernel would refuse a
 * bit outside every field, and pk_spe_check does). Facts: the SPE
 * reference 3.1 (metadata v1/v2) and 3.4-3.5 (formats, caps, what perf
 * record sets), perf's arm-spe document (filterable events, privilege). */
#include <pmukit/spe_record.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "perfdata/pd_internal.h"

#define SPE_BOOL 1
#define SPE_U64 2

static const struct {
	const char *name;
	int kind;
	size_t off;
} terms[] = {
	{"ts_enable", SPE_BOOL, offsetof(pk_spe_config, ts_enable)},
	{"pa_enable", SPE_BOOL, offsetof(pk_spe_config, pa_enable)},
	{"pct_enable", SPE_BOOL, offsetof(pk_spe_config, pct_enable)},
	{"jitter", SPE_BOOL, offsetof(pk_spe_config, jitter)},
	{"discard", SPE_BOOL, offsetof(pk_spe_config, discard)},
	{"branch_filter", SPE_BOOL, offsetof(pk_spe_config, branch_filter)},
	{"load_filter", SPE_BOOL, offsetof(pk_spe_config, load_filter)},
	{"store_filter", SPE_BOOL, offsetof(pk_spe_config, store_filter)},
	{"simd_filter", SPE_BOOL, offsetof(pk_spe_config, simd_filter)},
	{"float_filter", SPE_BOOL, offsetof(pk_spe_config, float_filter)},
	{"branch_filter_mask", SPE_U64, offsetof(pk_spe_config, branch_filter_mask)},
	{"load_filter_mask", SPE_U64, offsetof(pk_spe_config, load_filter_mask)},
	{"store_filter_mask", SPE_U64, offsetof(pk_spe_config, store_filter_mask)},
	{"simd_filter_mask", SPE_U64, offsetof(pk_spe_config, simd_filter_mask)},
	{"float_filter_mask", SPE_U64, offsetof(pk_spe_config, float_filter_mask)},
	{"event_filter", SPE_U64, offsetof(pk_spe_config, event_filter)},
	{"inv_event_filter", SPE_U64, offsetof(pk_spe_config, inv_event_filter)},
	{"inv_data_src_filter", SPE_U64, offsetof(pk_spe_config, inv_data_src_filter)},
	{"min_latency", SPE_U64, offsetof(pk_spe_config, min_latency)},
};

/* The events perf's arm-spe document lists as filterable (its examples). */
#define SPE_DOC_FILTERABLE ((1ull << 1) | (1ull << 3) | (1ull << 5) | (1ull << 7) | (1ull << 11))
/* perf's default interval when caps/min_interval is absent. */
#define SPE_DEFAULT_INTERVAL 4096

bool pk_spe_pmu_is(const pk_pmu *pmu)
{
	return pmu && pmu->name && !strncmp(pmu->name, "arm_spe_", 8);
}

void pk_spe_config_read(const pk_pmu *pmu, const uint64_t config[PK_NR_CONFIGS],
			pk_spe_config *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < PK_ARRAY_SIZE(terms); i++) {
		const pk_format *f = pk_pmu_format(pmu, terms[i].name);
		uint64_t v = f ? pk_format_extract(f, config) : 0;
		char *p = (char *)out + terms[i].off;
		if (terms[i].kind == SPE_BOOL)
			*(bool *)p = v != 0;
		else
			*(uint64_t *)p = v;
	}
}

static uint64_t cap_u64(const pk_pmu *pmu, const char *name, int base, bool *ok)
{
	const char *s = pk_pmu_cap(pmu, name);
	char *end;
	*ok = false;
	if (!s || !*s)
		return 0;
	unsigned long long v = strtoull(s, &end, base);
	*ok = end != s;
	return v;
}

uint64_t pk_spe_filterable_events(const pk_pmu *pmu)
{
	bool ok;
	uint64_t v = cap_u64(pmu, "event_filter", 16, &ok);
	return ok ? v : SPE_DOC_FILTERABLE;
}

uint64_t pk_spe_min_interval(const pk_pmu *pmu)
{
	bool ok;
	uint64_t v = cap_u64(pmu, "min_interval", 0, &ok);
	return ok && v ? v : SPE_DEFAULT_INTERVAL;
}

/* Bits of config words no format field covers. */
static int check_fields(const pk_pmu *pmu, const uint64_t cfg[PK_NR_CONFIGS], pk_error *err)
{
	uint64_t covered[PK_NR_CONFIGS] = {0};
	for (size_t i = 0; i < pmu->nr_formats; i++)
		pk_format_apply(&pmu->formats[i], pk_format_max(&pmu->formats[i]), covered);
	for (int w = 0; w < PK_NR_CONFIGS; w++)
		if (cfg[w] & ~covered[w])
			return pk_err(err, -EOPNOTSUPP, "%s: %s=%#llx sets bits %#llx that no format "
							"term of the PMU covers",
				      pmu->name, pk_config_word_name(w), (unsigned long long)cfg[w],
				      (unsigned long long)(cfg[w] & ~covered[w]));
	return 0;
}

static void bit_list(uint64_t mask, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int b = 0; b < 64 && n + 4 < len; b++)
		if (mask >> b & 1)
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", b);
}

static int check_filters(const pk_pmu *pmu, const pk_spe_config *c, pk_error *err)
{
	uint64_t ok = pk_spe_filterable_events(pmu);
	char bits[200], allowed[200];
	if (!(c->event_filter & ~ok))
		return 0;
	bit_list(c->event_filter & ~ok, bits, sizeof(bits));
	bit_list(ok, allowed, sizeof(allowed));
	pk_err(err, -EOPNOTSUPP, "%s: event_filter=%#llx: bit(s) %s cannot be filtered on by this "
				 "SPE (filterable: %s)",
	       pmu->name, (unsigned long long)c->event_filter, bits, allowed);
	pk_err_hint(err, pk_pmu_cap(pmu, "event_filter")
				 ? "the kernel lists the filterable events in caps/event_filter"
				 : "without caps/event_filter, the filterable events are those of "
				   "perf's arm-spe document; bits 2,4,8,9,10 and 19-23 need "
				   "FEAT_SPEv1p4, 6 FEAT_SPEv1p2, 11,17,18 FEAT_SPEv1p1");
	return -EOPNOTSUPP;
}

static int check_sampling(const pk_pmu *pmu, const struct perf_event_attr *a, pk_error *err)
{
	if (a->freq) {
		pk_err(err, -EINVAL, "%s: Frequency is not supported. Set period with -c", pmu->name);
		pk_err_hint(err, "SPE samples every N operations (PMSIRR_EL1); the default N is "
				 "caps/min_interval (%llu)",
			    (unsigned long long)pk_spe_min_interval(pmu));
		return -EINVAL;
	}
	/* a period below caps/min_interval is raised by the driver, not refused
	 * (pk_spe_period) */
	return 0;
}

uint64_t pk_spe_period(const pk_pmu *pmu, uint64_t sample_period)
{
	const uint64_t interval_mask = 0xffffff00ull; /* PMSIRR_EL1.INTERVAL */
	uint64_t min = pk_spe_min_interval(pmu);
	if (sample_period < min)
		return min;
	if (sample_period > interval_mask)
		return interval_mask;
	return sample_period & interval_mask;
}

int pk_spe_check(const pk_pmu *pmu, const struct perf_event_attr *a, uint64_t config3,
		 bool privileged, pk_error *err)
{
	uint64_t cfg[PK_NR_CONFIGS] = {a->config, a->config1, a->config2, config3};
	pk_spe_config c;
	int rc = check_fields(pmu, cfg, err);
	if (rc)
		return rc;
	pk_spe_config_read(pmu, cfg, &c);
	if ((rc = check_filters(pmu, &c, err)))
		return rc;
	if ((c.pa_enable || c.pct_enable) && !privileged) {
		pk_err(err, -EACCES, "%s: %s=1 requires privilege", pmu->name,
		       c.pa_enable ? "pa_enable" : "pct_enable");
		pk_err_hint(err, "physical addresses and the physical timestamp need CAP_PERFMON or "
				 "root (the driver checks perfmon_capable())");
		return -EACCES;
	}
	if (a->exclude_idle)
		return pk_err(err, -EOPNOTSUPP, "%s: exclude_idle is not supported by SPE", pmu->name);
	return check_sampling(pmu, a, err);
}

#define SPE_MAGIC 0x1010101010101010ull

long pk_spe_info_write(void *buf, size_t cap, int version, uint32_t pmu_type, bool per_cpu_mmaps,
		       const pk_spe_info_cpu *cpus, size_t nr_cpus)
{
	size_t nr = version == 1 ? 2 : version == 2 ? 4 + 6 * nr_cpus : 0;
	size_t size = 16 + 8 * nr;
	if (!nr)
		return -EINVAL;
	if (size > cap || size > 0xffff)
		return -ENOSPC;
	uint8_t *h = buf;
	uint64_t w[4];
	memset(buf, 0, 16);
	pd_st32(h, PK_RECORD_AUXTRACE_INFO);
	pd_st16(h + 6, (uint16_t)size);
	pd_st32(h + 8, 4); /* PERF_AUXTRACE_ARM_SPE */
	if (version == 1) {
		pd_st64(h + 16, pmu_type);
		pd_st64(h + 24, per_cpu_mmaps);
		return (long)size;
	}
	w[0] = 2, w[1] = 4, w[2] = pmu_type, w[3] = nr_cpus;
	for (int i = 0; i < 4; i++)
		pd_st64(h + 16 + 8 * i, w[i]);
	for (size_t i = 0; i < nr_cpus; i++) {
		uint64_t c[6] = {SPE_MAGIC, cpus[i].cpu, 3, cpus[i].midr,
				 cpus[i].has_spe ? pmu_type : UINT64_MAX, cpus[i].min_interval};
		for (int j = 0; j < 6; j++)
			pd_st64(h + 48 + 48 * i + 8 * j, c[j]);
	}
	return (long)size;
}
