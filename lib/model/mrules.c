/* The PMU model's driver rules for Intel TopDown events (issue 8), as the
 * errors Linux returns from intel_pmu_hw_config and the scheduler
 * (arch/x86/events/intel/core.c and core.c; facts in docs/model.md "The
 * driver's rules"). Each refusal is -EINVAL with its reason kept for
 * ops.explain, worded "the model's driver refuses it: <rule> (<source>)".
 * Only Intel core PMUs have these events; other vendors pass untouched. */
#include <errno.h>

#include <pmukit/topdown.h>

#include "model/mkernel.h"

/* X86_ALL_EVENT_FLAGS: edge 18, pc 19, int 20, any 21, inv 23, cmask 24-31. */
#define MK_X86_ALL_EVENT_FLAGS 0xffbc0000ull
#define MK_TD_CFG_METRIC_CLEAR 1ull /* config1 bit 0, on slots only */
#define MK_ARCH_EVENT_MASK 0xffffull /* event select and umask */

#define REFUSE(m, ...) pki_mk_refuse(m, -EINVAL, "the model's driver refuses it: " __VA_ARGS__)

static bool intel_core(const mk_event *e)
{
	return e->pmu && e->core.row && e->core.row->vendor == PK_VENDOR_INTEL &&
	       e->key.kind == PERF_TYPE_RAW;
}

bool pki_mk_is_slots(const mk_event *e)
{
	return intel_core(e) && (e->key.config & MK_ARCH_EVENT_MASK) == 0x0400;
}

int pki_mk_metric_field(const mk_event *e)
{
	return intel_core(e) ? pk_topdown_metric_field(e->key.config & MK_ARCH_EVENT_MASK) : -1;
}

static bool sampling(const struct perf_event_attr *a)
{
	return a->sample_period != 0; /* sample_freq shares the field */
}

/* Filter and config1/config2 bits, the same for slots and metrics except
 * the metrics-clear bit that slots may carry. */
static int check_bits(pk_model *m, const mk_event *e, bool slots)
{
	const char *what = slots ? "slots" : "a metric event";
	if (e->attr.config & MK_X86_ALL_EVENT_FLAGS)
		return REFUSE(m, "%s takes no filter bits (edge, pc, int, any, inv, cmask: config "
				 "%#llx) (X86_ALL_EVENT_FLAGS, intel_pmu_hw_config)",
			      what, (unsigned long long)(e->attr.config & MK_X86_ALL_EVENT_FLAGS));
	uint64_t allowed1 = slots ? MK_TD_CFG_METRIC_CLEAR : 0;
	if (e->attr.config1 & ~allowed1)
		return REFUSE(m, "%s takes no config1 bits %s(config1 %#llx) (intel_pmu_hw_config)",
			      what, slots ? "but metrics-clear, bit 0 " : "",
			      (unsigned long long)e->attr.config1);
	if (e->attr.config2)
		return REFUSE(m, "%s takes no config2 (intel_pmu_hw_config)", what);
	return 0;
}

static int metrics_in_group(const pk_model *m, const mk_event *leader)
{
	int n = 0;
	for (size_t i = 0; i < m->nr_ev; i++)
		if (m->ev[i].open && &m->ev[m->ev[i].leader] == leader &&
		    pki_mk_metric_field(&m->ev[i]) >= 0)
			n++;
	return n;
}

static int check_metric(pk_model *m, const mk_event *e, const mk_event *leader, int field)
{
	const pki_counters *row = e->core.row;
	if (!row->perf_metrics)
		return REFUSE(m, "metric events (event 0x00, umask 0x80-0x87) need the "
				 "PERF_METRICS register, which %s has not (Ice Lake and later have "
				 "it)",
			      row->core);
	if (field >= row->perf_metrics)
		return REFUSE(m, "Level 2 metric events (umask 0x84-0x87) need PERF_METRICS "
				 "Level 2 (Sapphire Rapids and later); %s has %d metric fields",
			      row->core, row->perf_metrics);
	int r = check_bits(m, e, false);
	if (r)
		return r;
	if (sampling(&e->attr))
		return REFUSE(m, "metric events cannot sample (intel_pmu_hw_config)");
	if (leader == e || !pki_mk_is_slots(leader))
		return REFUSE(m, "metric events need a slots group leader, e.g. "
				 "'{slots,topdown-retiring}' (intel_pmu_hw_config)");
	if (sampling(&leader->attr))
		return REFUSE(m, "the slots leader of metric events cannot sample: the hardware "
				 "starts it at 0 with PERF_METRICS; sample with the second event, "
				 "'{slots,$sampling_event,topdown-retiring}:S' (intel_pmu_hw_config, "
				 "perf's topdown.txt)");
	if (metrics_in_group(m, leader) + 1 > row->perf_metrics)
		return REFUSE(m, "more metric events in one group than PERF_METRICS has fields "
				 "(%d on %s) (x86 collect_events)",
			      row->perf_metrics, row->core);
	return 0;
}

int pki_mk_check_topdown(pk_model *m, const mk_event *e, const mk_event *leader)
{
	int field = pki_mk_metric_field(e);
	if (field >= 0)
		return check_metric(m, e, leader, field);
	if (pki_mk_is_slots(e) && e->core.row->perf_metrics)
		return check_bits(m, e, true);
	return 0;
}
