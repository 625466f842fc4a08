/* A whole recording (recording.h): perf record's engine above the recorder.
 *
 * One run: events parsed and configured (-F lowered to the kernel's maximum
 * rate as perf does), targets resolved, the command forked and held before
 * exec (a command that cannot run stops us before perf.data is touched),
 * events opened with their ring buffers, the file begun and the state
 * before recording synthesized, then ring passes until the caller stops,
 * the command ends, every target is gone or the size limit is reached. Each
 * pass is written through, so a kill loses one pass at most.
 *
 * Invariants: nothing here prints or handles signals (notes go to the
 * caller's callback); the evsels are configured once, before the open; the
 * samples counted in the stats are those that reached the file. */
#include <pmukit/recording.h>

#include "recording_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/pmu.h>
#include <pmukit/regs.h>

/* perf's default rate, lowered like an -F to the kernel's maximum */
#define RECORD_DEFAULT_FREQ 4000

/* Every event of the options, or perf's default (cycles, or cpu-clock
 * where no core PMU exists). */
static int parse_events(pk_recording *r, pk_error *err)
{
	pk_parse_opts po = {.cpuid = r->o.cpuid};
	for (size_t i = 0; i < r->o.nr_events; i++)
		if (pk_evlist_parse(r->evlist, r->pmus, r->o.events[i], &po, err) < 0)
			return err ? err->code : -EINVAL;
	if (r->o.nr_events)
		return 0;
	const char *def = r->pmus && pk_pmus_nr_core(r->pmus) ? "cycles" : "cpu-clock";
	if (pk_evlist_parse(r->evlist, r->pmus, def, &po, NULL) == 0)
		return 0;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.size = sizeof(a);
	return pk_evlist_add(r->evlist, &a, "cpu-clock", NULL) ? 0 : pk_err(err, -ENOMEM,
									 "out of memory");
}

int pk_recording_new(const pk_recording_opts *opts, pk_recording **out, pk_error *err)
{
	*out = NULL;
	if (opts->size < offsetof(pk_recording_opts, kernel) + sizeof(opts->kernel))
		return pk_err(err, -EINVAL, "pk_recording_opts.size is not set");
	pk_recording *r = calloc(1, sizeof(*r));
	if (!r)
		return pk_err(err, -ENOMEM, "out of memory");
	memcpy(&r->o, opts, opts->size < sizeof(r->o) ? opts->size : sizeof(r->o));
	r->wl = (pk_workload)PK_WORKLOAD_INIT;
	r->output = r->o.output ? r->o.output : "perf.data";
	r->system_wide = r->o.system_wide || r->o.cpu_list;
	/* with -a/-C/-p/-t a command only sets how long to record, as in perf */
	r->traced = r->o.cmd && r->o.cmd[0] && !r->system_wide && !r->o.pids && !r->o.tids;
	/* the evsels hold their own reference on it; ours is for the features */
	r->pmus = pk_pmus_load(r->o.sysfs_root, NULL);
	r->evlist = pk_evlist_new();
	int rc = r->evlist ? parse_events(r, err) : pk_err(err, -ENOMEM, "out of memory");
	if (rc < 0) {
		pk_recording_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void pk_recording_free(pk_recording *r)
{
	if (!r)
		return;
	/* stopped early (an error, the caller's stop): the command too, as in perf */
	pk_workload_stop(&r->wl, NULL);
	pk_pd_writer_abort(r->w);
	pk_recorder_close(r->rec);
	pk_threadmap_put(r->threads);
	pk_cpumap_put(r->cpus);
	pk_evlist_put(r->evlist);
	pk_pmus_put(r->pmus);
	free(r);
}

pk_evlist *pk_recording_evlist(pk_recording *r)
{
	return r->evlist;
}

bool pk_recording_refused(const pk_recording *r)
{
	return r->refused;
}

int pk_recording_exec_errno(const pk_recording *r)
{
	return r->wl.exec_errno;
}

const pk_recording_totals *pk_recording_stats(const pk_recording *r)
{
	return &r->stats;
}

bool pk_recording_child_status(const pk_recording *r, int *status)
{
	if (r->child_done)
		*status = r->child_status;
	return r->child_done;
}

const char *pk_recording_aux_pmu(const pk_recording *r, bool *discard)
{
	*discard = r->spe.discard;
	return r->spe.on ? r->spe.pmu->name : NULL;
}

bool pk_recording_pipe(const pk_recording *r)
{
	return r->pipe_mode;
}

/* ---- configuring the events ---- */

/* The kernel's perf_event_max_sample_rate (0: unknown). */
static uint64_t max_rate(const pk_recording *r)
{
	int64_t v = pk_host_number(r->o.kernel, PK_HOST_MAX_SAMPLE_RATE, 0);
	return v > 0 ? (uint64_t)v : 0;
}

/* --strict-freq: a rate above the maximum refused (perf's words). */
static int strict_freq(const pk_recording *r, pk_error *err)
{
	const pk_recording_opts *o = &r->o;
	uint64_t max = max_rate(r);
	uint64_t want = o->freq ? o->freq : RECORD_DEFAULT_FREQ;
	if (!o->strict_freq || o->period || o->freq_max || !max || want <= max)
		return 0;
	return pk_err(err, -EINVAL, "Maximum frequency rate (%" PRIu64 " Hz) exceeded.\n"
		      "       Please use -F freq option with a lower value or consider\n"
		      "       tweaking /proc/sys/kernel/perf_event_max_sample_rate.", max);
}

/* The kernel refuses a sample_freq above its maximum (EINVAL); perf lowers
 * the rate with a warning instead, and so do we. */
static uint64_t sample_freq(const pk_recording *r)
{
	const pk_recording_opts *o = &r->o;
	if (o->period)
		return 0;
	uint64_t want = o->freq ? o->freq : RECORD_DEFAULT_FREQ;
	uint64_t max = max_rate(r);
	if (o->freq_max) {
		if (!max)
			return RECORD_DEFAULT_FREQ;
		pki_recording_note(r, PK_RECNOTE_FREQ_MAX, max, 0, NULL);
		return max;
	}
	if (!max || want <= max)
		return o->freq;
	pki_recording_note(r, PK_RECNOTE_FREQ_LOWERED, max, o->freq, NULL);
	return max;
}

/* The sample_type bits the options ask for (perf 6.1's evsel__config). */
static uint64_t option_sample_type(const pk_recording *r)
{
	const pk_recording_opts *o = &r->o;
	uint64_t st = o->sample_extra;
	if (r->system_wide || o->sample_cpu)
		st |= PERF_SAMPLE_CPU;
	if (o->sample_addr)
		st |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (o->sample_period)
		st |= PERF_SAMPLE_PERIOD;
	if (o->weight) /* perf on x86 samples the weight struct, elsewhere the weight */
		st |= pk_regs_host() == pk_regs_for("x86_64") ? PERF_SAMPLE_WEIGHT_STRUCT
							      : PERF_SAMPLE_WEIGHT;
	if (o->raw)
		st |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU | PERF_SAMPLE_TIME;
	if (o->all_cgroups)
		st |= PERF_SAMPLE_CGROUP;
	return st;
}

/* Tracking (mmap, comm, task, ...) goes on the first event, or on the
 * dummy; as perf 6.1 sets it, with what -d, --namespaces, --all-cgroups
 * and --switch-events add. */
static void set_tracking(pk_recording *r)
{
	const pk_recording_opts *o = &r->o;
	size_t n = pk_evlist_count(r->evlist);
	pk_evsel *t = pk_evlist_at(r->evlist, r->dummy ? n - 1 : 0);
	struct perf_event_attr ta = *pk_evsel_attr(t);
	ta.mmap = ta.comm = ta.mmap2 = ta.comm_exec = ta.task = 1;
	ta.ksymbol = ta.bpf_event = 1;
	/* a call-graph=dwarf term samples addresses too (perf's sample_address) */
	ta.mmap_data = o->sample_addr || (ta.sample_type & PERF_SAMPLE_STACK_USER);
	ta.namespaces = o->namespaces;
	ta.cgroup = o->all_cgroups;
	ta.context_switch = o->switch_events;
	if (r->dummy && r->system_wide) /* enabled at once (perf's "immediate") */
		ta.disabled = 0;
	if (r->dummy && o->delay_ms) { /* the maps from the exec on, the samples later */
		ta.disabled = 1;
		ta.enable_on_exec = r->traced;
	}
	pk_evsel_set_attr(t, &ta);
	for (size_t i = 0; o->delay_ms && i + 1 < n; i++) {
		struct perf_event_attr a = *pk_evsel_attr(pk_evlist_at(r->evlist, i));
		a.enable_on_exec = 0;
		pk_evsel_set_attr(pk_evlist_at(r->evlist, i), &a);
	}
}

/* perf's dummy event: tracking in system-wide mode (the maps of processes
 * started during synthesis) and with -D (the maps before the delay); perf
 * 6.1 adds it on hybrid machines too. Its period of 1 is the parser's
 * kind, kept unless -c/-F is given. An arm_spe recording adds its own. */
static int add_dummy(pk_recording *r, pk_error *err)
{
	r->dummy = !pki_rec_spe_wanted(r->evlist) &&
		   (r->system_wide || r->o.delay_ms || (r->pmus && pk_pmus_nr_core(r->pmus) > 1));
	if (!r->dummy)
		return 0;
	struct perf_event_attr a;
	pki_rec_dummy_attr(&a, 0); /* the sample bits: pk_evlist_config's */
	return pk_evlist_add(r->evlist, &a, "dummy:HG", NULL) ? 0 : pk_err(err, -ENOMEM,
									   "out of memory");
}

static void config_opts(const pk_recording *r, pk_config_opts *co)
{
	const pk_recording_opts *o = &r->o;
	*co = (pk_config_opts){
		.mode = PK_CONFIG_RECORD,
		.system_wide = r->system_wide,
		.forked_workload = r->traced,
		/* perf 6.1: -t and --per-thread record without inherit */
		.no_inherit = o->no_inherit || o->tids || o->per_thread,
		.period = o->period,
		.freq = sample_freq(r),
		.sample_type = option_sample_type(r),
		.inherit_stat = o->inherit_stat,
		.no_sample_time = o->per_thread && !o->raw,
		.sample_identifier = o->sample_identifier,
		.all_user = o->all_user,
		.all_kernel = o->all_kernel,
		.sample_regs_user = o->user_regs,
		.sample_regs_intr = o->intr_regs,
		.branch_sample_type = o->branch,
		.call_graph = o->call_graph,
		.stack_dump_size = o->stack_dump,
		.max_stack = o->max_stack,
		.dwarf_regs_user = pk_regs_dwarf_mask(pk_regs_host(), o->user_regs != 0),
	};
}

/* What the options set on every event, the dummy too (perf 6.1's):
 * -k's clock, a side's chain left out, the times read, no sampling, a
 * wakeup per event. */
static void every_event_opts(pk_recording *r)
{
	const pk_recording_opts *o = &r->o;
	for (size_t i = 0; i < pk_evlist_count(r->evlist); i++) {
		pk_evsel *e = pk_evlist_at(r->evlist, i);
		struct perf_event_attr a = *pk_evsel_attr(e);
		a.use_clockid = o->use_clockid;
		a.clockid = o->use_clockid ? o->clockid : 0;
		a.exclude_callchain_kernel |= o->call_graph && o->user_callchains;
		a.exclude_callchain_user |= o->call_graph && o->kernel_callchains;
		if (o->running_time)
			a.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
					 PERF_FORMAT_TOTAL_TIME_RUNNING;
		if (o->no_samples)
			a.sample_period = 0;
		if (o->no_buffering) {
			a.watermark = 0;
			a.wakeup_events = 1;
		}
		pk_evsel_set_attr(e, &a);
	}
}

int pk_recording_configure(pk_recording *r, pk_error *err)
{
	const pk_recording_opts *o = &r->o;
	int rc = strict_freq(r, err);
	if (rc == 0)
		rc = add_dummy(r, err);
	if (rc < 0)
		return rc;
	pk_config_opts co;
	config_opts(r, &co);
	if (o->call_graph == PK_CALL_GRAPH_DWARF && o->user_regs)
		pki_recording_note(r, PK_RECNOTE_DWARF_REGS, 0, 0, NULL);
	if ((rc = pk_evlist_config(r->evlist, &co, err)) < 0)
		return rc;
	pki_rec_spe_opts so = {.kernel = o->kernel, .system_wide = r->system_wide,
			       .period = o->period, .freq_given = o->freq || o->freq_max,
			       .aux_pages = o->aux_pages, .meta_version = o->spe_meta,
			       .note = o->note, .note_arg = o->note_arg};
	if ((rc = pki_rec_spe_setup(r->evlist, &so, &r->spe, err)) < 0) {
		r->refused = rc != -ENOMEM;
		return rc;
	}
	if (!r->spe.on)
		set_tracking(r);
	every_event_opts(r);
	return 0;
}

void pki_recording_note(const pk_recording *r, pk_recording_note n, uint64_t a, uint64_t b,
			const char *text)
{
	if (r->o.note)
		r->o.note(r->o.note_arg, n, a, b, text);
}

/* ---- targets and the open ---- */

/* CPUs and tasks to follow (the caller's, or from the options); the
 * command forked and held before exec. */
static int setup_targets(pk_recording *r, pk_error *err)
{
	const pk_recording_opts *o = &r->o;
	if (r->threads)
		return 0; /* the caller's */
	if (o->every_task) { /* a model's: its CPUs for -a/-C, else per thread */
		pk_targets_opts to = {.size = sizeof(to), .kernel = o->kernel,
				      .all_cpus = o->system_wide, .cpu_list = o->cpu_list,
				      .pids = o->pids, .tids = o->tids, .every_task = true,
				      .any_with_cpus = true};
		return pk_targets_select(&to, &r->cpus, &r->threads, err);
	}
	/* --per-thread: events on any CPU, a ring per thread */
	r->cpus = o->per_thread && !r->system_wide ? pk_cpumap_any()
						   : pk_cpumap_targets(o->kernel, o->cpu_list, err);
	if (!r->cpus)
		return err ? err->code : -EINVAL;
	if (o->pids)
		r->threads = pk_threadmap_from_pids(o->kernel, o->pids, err);
	else if (o->tids)
		r->threads = pk_threadmap_from_tids(o->kernel, o->tids, err);
	else if (r->system_wide)
		r->threads = pk_threadmap_any();
	if ((o->pids || o->tids) && !r->threads)
		return err ? err->code : -EINVAL;
	if (o->cmd && o->cmd[0]) {
		int rc = pk_workload_prepare(o->cmd, &r->wl, err);
		if (rc < 0)
			return rc;
		if (!r->threads)
			r->threads = pk_threadmap_new(&r->wl.pid, 1);
	}
	return r->threads ? 0 : pk_err(err, -ENOMEM, "out of memory");
}

/* A hardware event the kernel does not know (a VM without a PMU): perf
 * 6.1 falls back to cpu-clock unasked; pmukit records what was asked and
 * says what would count. */
static void hint_software(pk_recording *r, pk_error *err)
{
	if (!err || (err->code != -ENOENT && err->code != -EOPNOTSUPP && err->code != -ENODEV))
		return;
	for (size_t i = 0; i < pk_evlist_count(r->evlist); i++) {
		uint32_t t = pk_evsel_attr(pk_evlist_at(r->evlist, i))->type;
		if (t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE) {
			pk_err_hint(err, "  no hardware event counts here (a VM without PMU "
					 "virtualization?): sample time with -e cpu-clock");
			return;
		}
	}
}

void pk_recording_set_targets(pk_recording *r, pk_cpumap *cpus, pk_threadmap *threads)
{
	pk_cpumap_put(r->cpus);
	pk_threadmap_put(r->threads);
	r->cpus = cpus ? pk_cpumap_get(cpus) : NULL;
	r->threads = threads ? pk_threadmap_get(threads) : NULL;
}

int pk_recording_open(pk_recording *r, pk_error *err)
{
	int rc = setup_targets(r, err);
	if (rc < 0)
		return rc;
	pk_record_opts ro = {.kernel = r->o.kernel, .cpus = r->cpus, .threads = r->threads,
			     .mmap_pages = r->o.mmap_pages, .aux_pages = r->spe.aux_pages};
	rc = pk_recorder_open(r->evlist, &ro, &r->rec, err);
	if (rc < 0)
		hint_software(r, err);
	return rc;
}
