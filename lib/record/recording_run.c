/* A whole recording, its run (recording.h): the output begun with its
 * features, the state before the recording synthesized, the events enabled
 * (a forked command's at its exec; -D's after the delay), the passes over
 * the rings and their stop conditions, the file finished and closed.
 *
 * Invariants: the writer exists from pk_recording_begin until
 * pk_recording_finish closes it (or free aborts it); a pass's records are
 * in the output when the step returns; a command that could not run leaves
 * no file (the previous one back from <output>.old). */
#include "recording_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmukit/buildid_cache.h>
#include <pmukit/workload.h>

/* perf keeps the previous file as <name>.old */
static void keep_old_output(pk_recording *r)
{
	struct stat st;
	if (stat(r->output, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		char old[4096];
		snprintf(old, sizeof(old), "%s.old", r->output);
		r->old_kept = rename(r->output, old) == 0;
	}
}

/* The command could not run after all: no file, the old one back. */
static void discard_output(pk_recording *r)
{
	pk_pd_writer_abort(r->w);
	r->w = NULL;
	if (r->pipe_mode)
		return;
	unlink(r->output);
	if (r->old_kept) {
		char old[4096];
		snprintf(old, sizeof(old), "%s.old", r->output);
		rename(old, r->output);
	}
}

/* TRACING_DATA for tracepoint events. Without tracefs the recording goes
 * on (pmukit reads it with numeric fields), noted: perf will not. */
static int tracing_data(pk_recording *r, pk_error *err)
{
	pk_error e;
	pk_error_clear(&e);
	int rc = pk_pd_writer_tracing_data(r->w, r->o.kernel, r->evlist, &e);
	if (rc == -ENOENT) {
		pki_recording_note(r, PK_RECNOTE_NO_TRACING_DATA, 0, 0, e.msg);
		return 0;
	}
	if (rc < 0 && err)
		*err = e;
	return rc;
}

/* -k: CLOCKID (the clock's resolution in ns; 0 when unknown, noted) and
 * CLOCK_DATA (version 1, the clock, the time of day and the clock's time
 * read together: perf's reference time). */
static int clock_features(pk_recording *r, pk_error *err)
{
	clockid_t id = (clockid_t)r->o.clockid;
	struct timespec res, wall, at;
	uint64_t res_ns = 0;
	if (clock_getres(id, &res) == 0)
		res_ns = (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
	else
		pki_recording_note(r, PK_RECNOTE_CLOCK_RES, (uint64_t)r->o.clockid, 0, NULL);
	if (clock_gettime(CLOCK_REALTIME, &wall) < 0 || clock_gettime(id, &at) < 0)
		return pk_err(err, -EINVAL, "clock_gettime failed, cannot set reference time.");
	uint32_t cd[6] = {1, (uint32_t)r->o.clockid};
	uint64_t t[2] = {(uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec,
			 (uint64_t)at.tv_sec * 1000000000u + (uint64_t)at.tv_nsec};
	memcpy(cd + 2, t, sizeof(t));
	int rc = pk_pd_writer_set_feature(r->w, PK_FEAT_CLOCKID, &res_ns, sizeof(res_ns), err);
	return rc < 0 ? rc : pk_pd_writer_set_feature(r->w, PK_FEAT_CLOCK_DATA, cd, sizeof(cd), err);
}

static int open_output(pk_recording *r, pk_error *err)
{
	r->pipe_mode = !strcmp(r->output, "-");
	if (!r->pipe_mode)
		keep_old_output(r);
	uint64_t no_times[2] = {0, 0}; /* a pipe's SAMPLE_TIME: sent before any sample */
	int rc = pk_pd_writer_open(r->output, r->pipe_mode, &r->w, err);
	if (rc == 0)
		rc = pk_recorder_add_evsels(r->rec, r->w, err);
	if (rc == 0)
		rc = pk_pd_writer_host_features(r->w, r->o.kernel, r->pmus, r->o.argc, r->o.argv,
						err);
	if (rc == 0 && r->pipe_mode)
		rc = pk_pd_writer_set_feature(r->w, PK_FEAT_SAMPLE_TIME, no_times, sizeof(no_times),
					      err);
	if (rc == 0 && r->o.use_clockid)
		rc = clock_features(r, err);
	if (rc == 0)
		rc = tracing_data(r, err);
	return rc < 0 ? rc : pk_pd_writer_begin(r->w, err);
}

/* The thread group of tid, from the kernel's task facts (tid itself when
 * unknown). */
static pid_t tgid_of(const pk_kernel *k, pid_t tid)
{
	k = k ? k : pk_kernel_linux();
	pk_host_task task;
	return k->ops->host.task(k, tid, &task) == 0 ? task.tgid : tid;
}

/* -p/-t: each process once, from its thread group leader. */
static int synth_targets(pk_recording *r, const pk_synth *syn, pk_error *err)
{
	int rc = 0;
	for (int i = 0; rc == 0 && i < pk_threadmap_nr(r->threads); i++) {
		pid_t tid = pk_threadmap_tid(r->threads, i);
		pid_t tgid = tgid_of(r->o.kernel, tid);
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = pk_threadmap_tid(r->threads, j) == tgid;
		if (!seen && (tgid == tid || i == 0))
			rc = pk_synth_task(syn, tgid, false, err);
	}
	return rc;
}

/* The tasks before the recording: every one (system-wide), the targets, or
 * the forked command's name until its exec (after a switch of the output:
 * the running command's task, its maps). */
static int synth_tasks(pk_recording *r, const pk_synth *syn, bool at_tail, pk_error *err)
{
	bool tasks = !r->o.synth || r->o.synth & PK_SYNTH_TASK;
	bool state = r->o.tail_synth == at_tail; /* the kernel map and tasks now */
	int rc = state ? pk_synth_kernel_mmap(syn, err) : 0;
	if (rc == 0 && state && tasks && r->system_wide)
		rc = pk_synth_all_tasks(syn, err);
	else if (rc == 0 && state && tasks && !r->traced)
		rc = synth_targets(r, syn, err);
	if (at_tail)
		return rc;
	if (rc == 0 && r->traced && r->switched && r->wl.pid > 0)
		rc = pk_synth_task(syn, r->wl.pid, false, err);
	else if (rc == 0 && r->traced && !r->switched)
		rc = pk_synth_comm(syn, r->wl.pid, r->wl.pid, "pmukit-exec", err);
	return rc;
}

/* What synthesized records carry (the first event's sample_id), and
 * whether tasks come without their maps (--synth=task). */
static pk_synth synth_of(const pk_recording *r)
{
	const pk_evsel *first = pk_evlist_at(r->evlist, 0);
	return (pk_synth){.w = r->w, .sample_type = pk_evsel_attr(first)->sample_type,
			  .sample_id_all = pk_evsel_attr(first)->sample_id_all,
			  .kernel = r->o.kernel,
			  .comm_only = r->o.synth && !(r->o.synth & PK_SYNTH_MMAP)};
}

/* The state before recording (or after a switch of the output): kernel
 * map, tasks, time conversion. */
static int synthesize(pk_recording *r, pk_error *err)
{
	pk_synth syn = synth_of(r);
	uint8_t tc[56];
	bool tc_ok = pk_recorder_time_conv(r->rec, tc);
	/* with AUX data, TIME_CONV before AUXTRACE_INFO, as perf writes it:
	 * perf 6.1 takes the conversion when it reads AUXTRACE_INFO (after
	 * it, it divides by a zero multiplier) */
	int rc = 0;
	if (r->spe.on && tc_ok)
		rc = pk_pd_writer_write(r->w, tc, sizeof(tc), err);
	if (rc == 0)
		rc = pki_rec_spe_info(&r->spe, r->w, r->o.kernel, r->cpus, err);
	if (rc == 0)
		rc = synth_tasks(r, &syn, false, err);
	if (rc == 0 && tc_ok && !r->spe.on)
		rc = pk_pd_writer_write(r->w, tc, sizeof(tc), err);
	if (rc == 0 && !r->o.tail_synth) /* --tail-synthesize: at the end, as perf */
		rc = pk_synth_finished_init(&syn, err);
	/* -z: the records from the rings compressed, the state before plain (perf's) */
	size_t pages = r->o.mmap_pages ? r->o.mmap_pages : 128;
	int64_t page = pk_host_number(r->o.kernel, PK_HOST_PAGE_SIZE, 4096);
	if (rc == 0 && r->o.compress)
		rc = pk_pd_writer_compress(r->w, r->o.compress,
					   (uint32_t)((pages + 1) * (size_t)page), err);
	return rc;
}

int pk_recording_begin(pk_recording *r, pk_error *err)
{
	return open_output(r, err);
}

int pk_recording_start(pk_recording *r, pk_error *err)
{
	int rc = synthesize(r, err);
	if (rc < 0)
		return rc;
	if (!r->traced && !r->o.delay_ms)
		rc = pk_recorder_enable(r->rec, err);
	if (rc == 0 && r->o.cmd && r->o.cmd[0])
		rc = pk_workload_start(&r->wl, r->o.cmd[0], err);
	if (rc < 0 && r->wl.exec_errno) /* the rare exec failure the lookup could not foresee */
		discard_output(r);
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	r->delayed = r->o.delay_ms > 0;
	if (rc == 0 && r->delayed)
		pki_recording_note(r, PK_RECNOTE_EVENTS_DISABLED, 0, 0, NULL);
	return rc;
}

/* -D: the events enabled once the delay has passed. 1: enabled now. */
static int delay_passed(pk_recording *r, pk_error *err)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ms = (now.tv_sec - r->t0.tv_sec) * 1000 + (now.tv_nsec - r->t0.tv_nsec) / 1000000;
	if (ms < r->o.delay_ms)
		return 0;
	int rc = pk_recorder_enable(r->rec, err);
	if (rc < 0)
		return rc;
	pki_recording_note(r, PK_RECNOTE_EVENTS_ENABLED, 0, 0, NULL);
	return 1;
}

/* --max-size: the file is big enough. */
static bool size_reached(const pk_recording *r)
{
	uint64_t size = pk_pd_writer_data_size(r->w);
	if (!r->o.max_size || size < r->o.max_size)
		return false;
	pki_recording_note(r, PK_RECNOTE_SIZE_LIMIT, size, 0, NULL);
	return true;
}

uint64_t pk_recording_output_size(const pk_recording *r)
{
	return r->w ? pk_pd_writer_data_size(r->w) : 0;
}

int pk_recording_step(pk_recording *r, pk_error *err)
{
	int rc;
	if (r->delayed && (rc = delay_passed(r, err)) != 0) {
		if (rc < 0)
			return rc;
		r->delayed = false;
	}
	bool all_hup = false;
	int timeout = r->delayed && r->o.delay_ms < 100 ? (int)r->o.delay_ms : 100;
	if (pk_recorder_poll(r->rec, timeout, &all_hup) > 0)
		r->stats.wakeups++;
	if ((rc = pk_recorder_drain(r->rec, r->w, err)) < 0)
		return rc;
	if (r->wl.pid > 0 && waitpid(r->wl.pid, &r->child_status, WNOHANG) == r->wl.pid) {
		r->wl.pid = -1;
		r->child_done = true;
		return 0;
	}
	if (all_hup && !(r->o.cmd && r->o.cmd[0]))
		return 0;
	return size_reached(r) ? 0 : 1;
}

/* One object of BUILD_ID into perf's build-id cache (-N: not); a failure
 * is noted, once with the count of them at the end. */
static void cache_object(void *arg, const char *name, const char *hex)
{
	pk_recording *r = arg;
	pk_error e;
	pk_error_clear(&e);
	if (pk_buildid_cache_add(r->o.buildid_dir, name, hex, r->o.kernel, &e) == 0)
		return;
	if (!r->cache_failed++ && r->o.note)
		r->o.note(r->o.note_arg, PK_RECNOTE_BUILDID_CACHE, 0, 0, e.msg);
}

/* The last records, the lost counts, BUILD_ID and SAMPLE_TIME (perf's
 * pass over the file, the objects kept in the build-id cache); *ran_pass:
 * the pass ran. */
static int last_records(pk_recording *r, bool *ran_pass, pk_error *err)
{
	int rc = pk_recorder_drain(r->rec, r->w, err);
	pk_synth syn = synth_of(r);
	if (rc >= 0 && r->o.tail_synth) /* --tail-synthesize: the state now */
		rc = pk_synth_finished_init(&syn, err);
	if (rc >= 0 && r->o.tail_synth)
		rc = synth_tasks(r, &syn, true, err);
	if (rc >= 0)
		rc = pk_recorder_write_lost(r->rec, r->w, err);
	if (rc >= 0)
		rc = pk_pd_writer_flush(r->w, err);
	/* perf's BUILD_ID pass: not with -B, nor in a pipe, nor with -z */
	*ran_pass = rc >= 0 && !r->pipe_mode && !r->o.no_buildid && !r->o.compress;
	/* a simulated kernel's objects are not this machine's: none cached */
	bool no_cache = r->o.no_buildid_cache || (r->o.kernel && r->o.kernel->ops->now);
	if (*ran_pass)
		rc = pki_rec_build_ids(r->w, r->output, r->o.kernel, r->o.buildid_all,
				       no_cache ? NULL : cache_object, r, err);
	if (r->cache_failed > 1 && r->o.note)
		r->o.note(r->o.note_arg, PK_RECNOTE_BUILDID_CACHE, r->cache_failed, 0, NULL);
	return rc < 0 ? rc : 0;
}

/* The output finished (SAMPLE_TIME when the pass did not run) and closed,
 * the totals taken; the first error kept in *rc. */
static void close_output(pk_recording *r, bool ok, bool ran_pass, int *rc, pk_error *err)
{
	if (!r->w) /* a switch of the output failed: closed already */
		return;
	if (!r->pipe_mode && !ran_pass) { /* perf's SAMPLE_TIME without its pass */
		uint64_t t[2] = {0, 0};
		pk_pd_writer_set_feature(r->w, PK_FEAT_SAMPLE_TIME, t, sizeof(t), NULL);
	}
	r->stats.bytes = pk_pd_writer_data_size(r->w);
	r->stats.samples = pk_pd_writer_nr_samples(r->w);
	r->stats.rings = pk_recorder_stats(r->rec);
	pk_error e;
	pk_error_clear(&e);
	int crc = pk_pd_writer_close(r->w, &e);
	r->w = NULL;
	if (crc < 0 && ok && *rc == 0) {
		if (!e.code)
			pk_err(&e, crc, "%s: %s", r->output, strerror(-crc));
		if (err)
			*err = e;
		*rc = crc;
	}
}

int pk_recording_finish(pk_recording *r, bool ok, pk_error *err)
{
	pk_recorder_disable(r->rec, NULL);
	int rc = 0;
	bool ran_pass = false;
	if (ok && r->w)
		rc = last_records(r, &ran_pass, err);
	close_output(r, ok, ran_pass, &rc, err);
	return rc;
}

int pk_recording_enable(pk_recording *r, bool on, pk_error *err)
{
	if (!on)
		return pk_recorder_disable(r->rec, err);
	r->delayed = false; /* enabled now: -D's delay is over */
	return pk_recorder_enable(r->rec, err);
}

int pk_recording_switch(pk_recording *r, const char *dump, pk_error *err)
{
	if (r->pipe_mode || !r->w)
		return pk_err(err, -EINVAL, "--switch-output: %s", r->w ? "not to a pipe"
										: "no output open");
	bool ran_pass = false;
	int rc = last_records(r, &ran_pass, err);
	close_output(r, true, ran_pass, &rc, err);
	if (rc < 0)
		return rc;
	if (rename(r->output, dump) < 0)
		return pk_err(err, -errno, "%s -> %s: %s", r->output, dump, strerror(errno));
	r->switched = true;
	if ((rc = open_output(r, err)) < 0)
		return rc;
	return synthesize(r, err);
}
