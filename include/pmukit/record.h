/* pmukit: recording samples into perf.data.
 *
 * A pk_recorder opens a configured evlist (PK_CONFIG_RECORD) through the
 * counting layer's open step, maps one ring buffer per CPU of the union of
 * the evsels' CPU maps (per thread in per-thread mode) through the kernel
 * seam, sends the other events of that CPU into it
 * (PERF_EVENT_IOC_SET_OUTPUT), and copies what the kernel writes there into
 * a pk_pd_writer, one pass over all buffers at a time, each pass ended by
 * FINISHED_ROUND and written through to the output. Synthesizers write the
 * state that existed before recording started (kernel map, COMM/MMAP2 of
 * running tasks) from the kernel seam's host facts.
 *
 * lib/record is live capture above counting and the file format. The
 * recorder (recorder.c): ring buffers over the union of the evsels' CPUs;
 * with aux_pages, an AUX area beside each ring the first evsel owns, placed
 * through the user page's aux_offset/aux_size, drained with
 * aux_head/aux_tail into AUXTRACE records, PERF_RECORD_AUX flags counted.
 * Records synthesized from the kernel seam's host facts (synth.c). The
 * header's host features from the seam and the loaded pk_pmus (hostfeat.c;
 * NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY in memfeat.c; TRACING_DATA of
 * tracepoint recordings in tracefeat.c); BUILD_ID and SAMPLE_TIME from
 * perf's pass over the finished file (buildids.c, following it with
 * lib/symbols' pk_machine). A pk_recorder owns its pk_counting: the rings are
 * mapped on its fds. Above the recorder, a whole recording as perf record
 * runs it is a pk_recording (recording.h: recording.c, recording_run.c; Arm
 * SPE's setup in rec_spe.c). docs/perfdata.md "pmukit record". */
#ifndef PMUKIT_RECORD_H
#define PMUKIT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmukit/counting.h>
#include <pmukit/error.h>
#include <pmukit/events.h>
#include <pmukit/kernel.h>
#include <pmukit/perfdata.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_record_opts {
	const pk_kernel *kernel;     /* NULL: pk_kernel_linux() */
	pk_cpumap *cpus;             /* CPUs for -a/-C and workloads; NULL: per-thread (cpu -1) */
	pk_threadmap *threads;       /* NULL: every task (-1, needs cpus) */
	size_t mmap_pages;           /* data pages per buffer, a power of 2; 0: 128 (512 KiB) */
	uint32_t wakeup_watermark;   /* bytes; 0: none, the kernel wakes at half the buffer */
	/* AUX area pages (a power of 2, >= 2) mapped beside each ring the first
	 * evsel owns (an AUX PMU such as arm_spe, put first); 0: none. Drained
	 * into PERF_RECORD_AUXTRACE records with the aux_head/aux_tail protocol. */
	size_t aux_pages;
} pk_record_opts;

typedef struct pk_record_stats {
	uint64_t nr_records, nr_samples;
	uint64_t nr_lost_records;    /* PERF_RECORD_LOST records seen */
	uint64_t nr_lost;            /* events those records say were lost */
	uint64_t nr_lost_samples;    /* from the counters' PERF_FORMAT_LOST at the end */
	uint64_t nr_rounds;
	uint64_t bytes;
	/* the AUX path */
	uint64_t nr_auxtrace;        /* AUXTRACE records written */
	uint64_t aux_bytes;          /* AUX data they carry */
	uint64_t nr_aux;             /* PERF_RECORD_AUX records seen */
	uint64_t nr_aux_truncated, nr_aux_partial, nr_aux_collision; /* by flag */
} pk_record_stats;

typedef struct pk_recorder pk_recorder;

/* Opens the events and maps the buffers; nothing is enabled yet. */
int pk_recorder_open(pk_evlist *evlist, const pk_record_opts *opts, pk_recorder **out,
		     pk_error *err);
/* Unmaps the rings, closes the counters and frees r. */
void pk_recorder_close(pk_recorder *r);

/* Kernel ids of an evsel's fds (for the attrs' id sections). */
size_t pk_recorder_ids(const pk_recorder *r, size_t evsel_idx, const uint64_t **ids);

/* Adds every evsel with its ids to the writer (before pk_pd_writer_begin). */
int pk_recorder_add_evsels(pk_recorder *r, pk_pd_writer *w, pk_error *err);

int pk_recorder_enable(pk_recorder *r, pk_error *err);
int pk_recorder_disable(pk_recorder *r, pk_error *err);

/* Waits for data (poll on the buffers' fds); returns the number of fds
 * ready, 0 on timeout, -EINTR when a signal came. *all_hup is set when every
 * event is gone (the tasks followed have exited). */
int pk_recorder_poll(pk_recorder *r, int timeout_ms, bool *all_hup);

/* One pass over every buffer: copies whole records to w, then a
 * FINISHED_ROUND when anything was copied, then flushes w (a kill loses one
 * pass at most). Returns the number of records or a negative errno (-ENOSPC
 * when the disk filled up: the file stays valid). */
int pk_recorder_drain(pk_recorder *r, pk_pd_writer *w, pk_error *err);

/* Writes a LOST_SAMPLES record for each fd whose counter lost samples
 * (PERF_FORMAT_LOST). */
int pk_recorder_write_lost(pk_recorder *r, pk_pd_writer *w, pk_error *err);

/* A TIME_CONV record from the first buffer's user page (56 bytes into rec);
 * false when no buffer is mapped. */
bool pk_recorder_time_conv(const pk_recorder *r, uint8_t rec[56]);

const pk_record_stats *pk_recorder_stats(const pk_recorder *r);
uint64_t pk_recorder_first_time(const pk_recorder *r);
uint64_t pk_recorder_last_time(const pk_recorder *r);

/* ---- synthesized records ---- */

/* sample_type and sample_id_all of the first evsel decide the (zeroed)
 * sample_id trailer synthesized records carry. */
typedef struct pk_synth {
	pk_pd_writer *w;
	uint64_t sample_type;
	bool sample_id_all;
	const pk_kernel *kernel;     /* whose tasks and text; NULL: pk_kernel_linux() */
	bool comm_only;              /* tasks without their maps (record --synth=task) */
} pk_synth;

/* PERF_RECORD_MMAP for the kernel text ("[kernel.kallsyms]_text", pid -1). */
int pk_synth_kernel_mmap(const pk_synth *s, pk_error *err);
/* COMM for each thread of pid and, unless comm_only, MMAP2 for its
 * executable mappings (the kernel's host.tasks, host.task, host.maps). */
int pk_synth_task(const pk_synth *s, pid_t pid, bool comm_only, pk_error *err);
/* pk_synth_task for every process the kernel lists. */
int pk_synth_all_tasks(const pk_synth *s, pk_error *err);
/* A COMM record for one thread with the given name. */
int pk_synth_comm(const pk_synth *s, pid_t pid, pid_t tid, const char *comm, pk_error *err);
/* FINISHED_INIT (end of the synthesized state). */
int pk_synth_finished_init(const pk_synth *s, pk_error *err);

/* Sets the host features perf record writes: HOSTNAME, OSRELEASE, VERSION,
 * ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CPU_TOPOLOGY from kernel k's host
 * facts (NULL: the real kernel), CMDLINE (argv), PMU_MAPPINGS from pmus
 * (NULL: none), and EVENT_DESC / GROUP_DESC from the added evsels. Features
 * the kernel does not publish are left out. */
int pk_pd_writer_host_features(pk_pd_writer *w, const pk_kernel *k, const pk_pmus *pmus,
			       int argc, char *const *argv, pk_error *err);

/* Sets BUILD_ID and SAMPLE_TIME as perf record's pass at the end does:
 * reads the file at path (flushed by pk_pd_writer_flush, still open in w),
 * follows its maps and gives an entry to every object a sample's address
 * fell in that has a build id, and to the vDSO: the kernel and the vDSO
 * through kernel k's host.build_id (NULL: the real kernel), files from
 * their ELF notes (no entry, no BUILD_ID); SAMPLE_TIME is the first and
 * last sample's time (perf writes 0 and 0 when it skips the pass: -B, -z). */
int pk_record_build_ids(pk_pd_writer *w, const char *path, const pk_kernel *k, pk_error *err);

/* Sets TRACING_DATA (file mode; a HEADER_TRACING_DATA record in a pipe)
 * when evlist has tracepoint events: the tracefs files of kernel k (NULL:
 * the real kernel) perf puts there, read through host.tracefs_file (see
 * pmukit/tracedata.h). 0 without tracepoint events; -ENOENT when k has no
 * tracefs, -ESTALE when a format's id is not the event's; before begin(). */
int pk_pd_writer_tracing_data(pk_pd_writer *w, const pk_kernel *k, const pk_evlist *evlist,
			      pk_error *err);

#ifdef __cplusplus
}
#endif
#endif
