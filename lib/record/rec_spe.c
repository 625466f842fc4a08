/* Recording with Arm SPE (issue 11): what perf record sets up for an
 * arm_spe event (the SPE reference 3.4; docs/spe.md "Recording"):
 *  - the SPE event first (it owns each CPU's ring and AUX area), a period
 *    (-c, default caps/min_interval; -F refused), ts_enable in per-CPU
 *    mode when the PMU has the term, PERF_SAMPLE_DATA_SRC (and PHYS_ADDR
 *    with pa_enable) as markers, the driver's rules checked before the open
 *    (pk_spe_check: filters, privilege, interval) so errors name the term;
 *  - a dummy:u tracking event (period 1; per CPU: TIME, CPU, context
 *    switches) carrying mmap/comm/task, unless discard;
 *  - the AUX area: -m ,PAGES, default 4 MiB privileged, 128 KiB not;
 *  - AUXTRACE_INFO of type Arm SPE, v2 (per-CPU MIDR, PMU type, min
 *    interval) or v1 (perf <= 6.12);
 *  - the AUX flags (truncated, partial, collision) counted by the recorder
 *    for the caller's closing words.
 * Notes go to the caller's callback; nothing here prints. */
#include "rec_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/spe_record.h>

/* perf's AUX defaults: 4 MiB privileged, 128 KiB otherwise (4 KiB pages). */
#define SPE_AUX_PAGES_PRIV 1024
#define SPE_AUX_PAGES_UNPRIV 32

static int find_spe(const pk_evlist *l, size_t *at)
{
	for (size_t i = 0; i < pk_evlist_count(l); i++)
		if (pk_spe_pmu_is(pk_evsel_pmu(pk_evlist_at(l, i)))) {
			*at = i;
			return 1;
		}
	return 0;
}

static void note(const pki_rec_spe_opts *o, pk_recording_note n, uint64_t a, uint64_t b,
		 const char *text)
{
	if (o->note)
		o->note(o->note_arg, n, a, b, text);
}

/* The event's attr as perf record sets it, checked by the driver's rules. */
static int set_attr(pk_evsel *e, const pki_rec_spe_opts *o, pki_rec_spe *sp, pk_error *err)
{
	struct perf_event_attr a = *pk_evsel_attr(e);
	pk_spe_config c;
	uint64_t cfg[PK_NR_CONFIGS] = {a.config, a.config1, a.config2, pk_evsel_config3(e)};
	if (o->freq_given)
		a.freq = 1; /* refused below with the driver's message */
	else if (a.freq || !a.sample_period || o->period) {
		a.freq = 0;
		a.sample_period = o->period ? o->period : pk_spe_min_interval(sp->pmu);
	}
	int rc = pk_spe_check(sp->pmu, &a, cfg[3], sp->privileged, err);
	if (rc < 0)
		return rc;
	uint64_t programmed = pk_spe_period(sp->pmu, a.sample_period);
	if (o->period && programmed != o->period) /* the attr keeps -c, as perf's */
		note(o, PK_RECNOTE_SPE_PERIOD, o->period, programmed, sp->pmu->name);
	pk_spe_config_read(sp->pmu, cfg, &c);
	const pk_format *ts = pk_pmu_format(sp->pmu, "ts_enable");
	if (o->system_wide && ts && !c.ts_enable) { /* perf: timestamps in per-CPU mode */
		pk_format_apply(ts, 1, cfg);
		a.config = cfg[0], a.config1 = cfg[1], a.config2 = cfg[2];
	}
	a.sample_type |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER |
			 (o->system_wide ? PERF_SAMPLE_CPU : 0) |
			 (c.pa_enable ? PERF_SAMPLE_PHYS_ADDR : 0);
	a.sample_id_all = 1;
	a.disabled = 1;
	pk_evsel_set_attr(e, &a);
	sp->discard = c.discard;
	return 0;
}

bool pki_rec_spe_wanted(const pk_evlist *l)
{
	size_t at;
	return find_spe(l, &at);
}

void pki_rec_dummy_attr(struct perf_event_attr *a, uint64_t sample_type)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->size = sizeof(*a);
	a->sample_period = 1;
	a->sample_type = sample_type;
	a->sample_id_all = 1;
}

/* perf's tracking event for AUX recording. */
static int add_dummy(pk_evlist *l, bool system_wide)
{
	struct perf_event_attr a;
	pki_rec_dummy_attr(&a, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				       PERF_SAMPLE_IDENTIFIER | (system_wide ? PERF_SAMPLE_CPU : 0));
	/* one read_format for every evsel (perf refuses mixed ones) */
	a.read_format = pk_evsel_attr(pk_evlist_at(l, 0))->read_format;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 1;
	a.context_switch = system_wide;
	return pk_evlist_add(l, &a, "dummy:u", NULL) ? 0 : -ENOMEM;
}

int pki_rec_spe_setup(pk_evlist *l, const pki_rec_spe_opts *o, pki_rec_spe *sp, pk_error *err)
{
	size_t at;
	memset(sp, 0, sizeof(*sp));
	if (!find_spe(l, &at))
		return 0;
	pk_evsel *e = pk_evlist_at(l, at);
	sp->on = true;
	sp->pmu = pk_evsel_pmu(e);
	sp->privileged = pk_host_number(o->kernel, PK_HOST_PERFMON_CAPABLE, 0) > 0;
	sp->meta_version = o->meta_version ? o->meta_version : 1;
	if (at != 0)
		return pk_err(err, -EINVAL, "put the %s event first (-e %s,...): it owns each "
					    "CPU's buffer and AUX area",
			      sp->pmu->name, pk_evsel_name(e));
	int rc = set_attr(e, o, sp, err);
	if (rc)
		return rc;
	sp->aux_pages = o->aux_pages ? o->aux_pages
				     : sp->privileged ? SPE_AUX_PAGES_PRIV : SPE_AUX_PAGES_UNPRIV;
	if (sp->discard) {
		sp->aux_pages = 0; /* discard: nothing reaches a buffer */
		return 0;
	}
	if (!sp->privileged)
		note(o, PK_RECNOTE_SPE_NO_CONTEXT, 0, 0, NULL);
	if (add_dummy(l, o->system_wide) < 0)
		return pk_err(err, -ENOMEM, "out of memory");
	return 0;
}

/* One metadata line per CPU: its MIDR (the host's CPU identification),
 * whether the SPE PMU covers it, the PMU's minimum interval. */
static size_t info_cpus(const pki_rec_spe *sp, const pk_kernel *k, pk_cpumap *cpus,
			pk_spe_info_cpu *out, size_t cap)
{
	pk_cpuid id;
	pk_error err;
	pk_error_clear(&err);
	uint64_t midr = pk_host_cpuid(k, &id, &err) == 0 ? strtoull(id.str, NULL, 16) : 0;
	size_t n = 0;
	for (int i = 0; i < pk_cpumap_nr(cpus) && n < cap; i++) {
		int cpu = pk_cpumap_cpu(cpus, i);
		if (cpu < 0)
			continue;
		out[n].cpu = (uint32_t)cpu;
		out[n].midr = midr;
		out[n].has_spe = !sp->pmu->cpus || pk_cpumap_has(sp->pmu->cpus, cpu);
		out[n++].min_interval = pk_spe_min_interval(sp->pmu);
	}
	return n;
}

int pki_rec_spe_info(const pki_rec_spe *sp, pk_pd_writer *w, const pk_kernel *k, pk_cpumap *cpus,
		     pk_error *err)
{
	if (!sp->on || sp->discard)
		return 0;
	pk_cpumap *online = NULL;
	bool target_cpus = cpus && pk_cpumap_nr(cpus) && pk_cpumap_cpu(cpus, 0) >= 0;
	/* an SPE PMU with a cpumask is opened per CPU even for a task, as perf */
	bool per_cpu = target_cpus || sp->pmu->cpus;
	if (!target_cpus && !(cpus = online = pk_host_cpus(k, PK_HOST_CPUS_ONLINE, err)))
		return err ? err->code : -EIO;
	size_t cap = (size_t)pk_cpumap_nr(cpus) + 1;
	pk_spe_info_cpu *c = calloc(cap, sizeof(*c));
	uint8_t *rec = malloc(64 + 48 * cap);
	long len = c && rec ? pk_spe_info_write(rec, 64 + 48 * cap, sp->meta_version, sp->pmu->type,
						per_cpu, c, info_cpus(sp, k, cpus, c, cap))
			    : -ENOMEM;
	int rc = len < 0 ? pk_err(err, (int)len, "cannot build AUXTRACE_INFO: %s",
				  strerror((int)-len))
			 : pk_pd_writer_write(w, rec, (size_t)len, err);
	free(c);
	free(rec);
	pk_cpumap_put(online);
	return rc < 0 ? rc : 0;
}
