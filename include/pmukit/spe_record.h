/* pmukit: recording with Arm SPE (issue 11): an arm_spe event's config
 * terms read back from its attr through the PMU's sysfs format fields, the
 * driver's rules on them (what the SPE version can filter, what needs
 * privilege, the sampling interval against caps/min_interval), and the
 * PERF_RECORD_AUXTRACE_INFO record of type Arm SPE that perf record writes.
 *
 * One place for these facts: `pmukit record -e arm_spe/.../` checks an
 * event with them before opening it, and the PMU model's SPE unit refuses
 * with them as the driver would. Facts: docs/spe.md "Recording". The
 * library never prints; every refusal is a pk_error naming the term and
 * its value. */
#ifndef PMUKIT_SPE_RECORD_H
#define PMUKIT_SPE_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmukit/error.h>
#include <pmukit/pmu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The terms of one arm_spe event, as its config words hold them. */
typedef struct pk_spe_config {
	bool ts_enable, pa_enable, pct_enable, jitter, discard;
	bool branch_filter, load_filter, store_filter, simd_filter, float_filter;
	uint64_t branch_filter_mask, load_filter_mask, store_filter_mask;
	uint64_t simd_filter_mask, float_filter_mask;
	uint64_t event_filter;       /* PMSEVFR_EL1: every bit must be set */
	uint64_t inv_event_filter;   /* PMSNEVFR_EL1: no bit may be set */
	uint64_t inv_data_src_filter;
	uint64_t min_latency;        /* PMSLATFR_EL1.MINLAT, cycles */
} pk_spe_config;

/* True when pmu is an Arm SPE PMU (arm_spe_<N>). */
bool pk_spe_pmu_is(const pk_pmu *pmu);

/* The event's terms from its config words (config[0..3]; config4 is not in
 * the attr pmukit writes); a term the PMU has no format for reads 0. */
void pk_spe_config_read(const pk_pmu *pmu, const uint64_t config[PK_NR_CONFIGS],
			pk_spe_config *out);

/* The event_filter bits this SPE can filter on: caps/event_filter when the
 * kernel publishes it, else the bits perf's arm-spe document lists (1
 * retired, 3 L1D refill, 5 TLB refill, 7 mispredict, 11 misaligned). */
uint64_t pk_spe_filterable_events(const pk_pmu *pmu);

/* The driver's checks on an arm_spe event: config bits outside every
 * format field, event_filter bits the SPE cannot filter on, pa_enable /
 * pct_enable without privilege (perfmon), frequency mode (a period below
 * caps/min_interval is the driver's to raise: pk_spe_period). 0, or a negative
 * errno (-EINVAL, -EOPNOTSUPP, -EACCES) with err naming the term, its value
 * and what is allowed. */
int pk_spe_check(const pk_pmu *pmu, const struct perf_event_attr *attr, uint64_t config3,
		 bool privileged, pk_error *err);

/* caps/min_interval of the PMU, or 4096 (perf's fallback) when absent. */
uint64_t pk_spe_min_interval(const pk_pmu *pmu);
/* The interval the driver programs for a sample_period (PMSIRR_EL1's
 * INTERVAL, bits 8-31): below caps/min_interval raised to it, above the
 * field's maximum lowered to it, else rounded down to a multiple of 256. */
uint64_t pk_spe_period(const pk_pmu *pmu, uint64_t sample_period);

/* One CPU's line of the v2 metadata. */
typedef struct pk_spe_info_cpu {
	uint32_t cpu;
	uint64_t midr;
	bool has_spe;                /* false: pmu type UINT64_MAX */
	uint64_t min_interval;
} pk_spe_info_cpu;

/* Writes PERF_RECORD_AUXTRACE_INFO of type Arm SPE (4) into buf (cap
 * bytes): version 1 (perf <= 6.12: PMU type, per-CPU mmaps) or 2 (header
 * version 2, header size 4, PMU type, CPU count, then per CPU the magic,
 * CPU, parameter count 3, MIDR, PMU type, min interval). Returns the record
 * size, or -ENOSPC / -EINVAL (a version other than 1 or 2). */
long pk_spe_info_write(void *buf, size_t cap, int version, uint32_t pmu_type,
		       bool per_cpu_mmaps, const pk_spe_info_cpu *cpus, size_t nr_cpus);

#ifdef __cplusplus
}
#endif
#endif
