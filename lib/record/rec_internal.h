/* Internal interfaces between the files of lib/record: the header features
 * written apart from hostfeat.c (memfeat.c: NUMA_TOPOLOGY, CACHE,
 * MEM_TOPOLOGY), the one way to put a CPU list into a feature, and the
 * Arm SPE setup of a recording (rec_spe.c, for recording.c).
 * Internal names pki_rec_. */
#ifndef PK_RECORD_REC_INTERNAL_H
#define PK_RECORD_REC_INTERNAL_H

#include "perfdata/pd_internal.h"

#include <pmukit/kernel.h>
#include <pmukit/recording.h>

/* NUMA_TOPOLOGY, CACHE and MEM_TOPOLOGY from k's optional node, cache and
 * mem_blocks facts (each left out when k has none); nr_avail: CPUs to ask
 * about caches. Fails only when out of memory or the writer fails. */
int pki_rec_mem_features(pk_pd_writer *w, const pk_kernel *k, int nr_avail, pk_error *err);

/* A CPU list as the kernel writes it ("0-3,8"), as a header string. */
void pki_rec_buf_cpulist(pk_pd_buf *b, const pk_cpumap *m);

/* The GNU build id of an ELF file, as bytes (*len of them): 0, -errno,
 * -ENOENT when it has none (buildids.c). */
int pki_rec_file_build_id(const char *path, uint8_t id[20], size_t *len);
/* A build id's len bytes as hex into hex (2 * len + 1 bytes). */
void pki_rec_id_hex(const uint8_t *id, size_t len, char *hex);
/* pk_record_build_ids, with --buildid-all's rule when all (every object
 * mapped, SAMPLE_TIME 0 and 0) and fn (NULL: none) told of each entry
 * written: its name and id in hex (buildids.c). */
typedef void (*pki_rec_build_id_fn)(void *arg, const char *name, const char *hex);
int pki_rec_build_ids(pk_pd_writer *w, const char *path, const pk_kernel *k, bool all,
		      pki_rec_build_id_fn fn, void *arg, pk_error *err);
/* A build id entry (the BUILD_ID feature's, type 0) or a HEADER_BUILD_ID
 * record (type PERF_RECORD_HEADER_BUILD_ID) appended to b: header (misc
 * with MISC_BUILD_ID_SIZE), pid -1, the id in 24 bytes (its length in byte
 * 20), the name NUL-padded to a multiple of 64 (align8: 4 bytes more, so
 * that a record's size is a multiple of 8). */
void pki_rec_build_id_entry(pk_pd_buf *b, uint32_t type, uint16_t misc, const char *name,
			    const uint8_t *id, size_t len, bool align8);

/* A dummy software event's attr (record's tracking events): period 1,
 * sample_id_all, these sample_type bits. */
void pki_rec_dummy_attr(struct perf_event_attr *a, uint64_t sample_type);

typedef struct pki_rec_spe {
	bool on;                     /* the first event is an arm_spe event */
	bool discard;                /* discard mode: no AUX area, no tracking */
	bool privileged;             /* CAP_PERFMON or root: CONTEXT packets, pa/pct */
	const pk_pmu *pmu;
	size_t aux_pages;            /* for pk_record_opts.aux_pages */
	int meta_version;            /* AUXTRACE_INFO v1 or v2 */
} pki_rec_spe;

/* The record options that matter to SPE. */
typedef struct pki_rec_spe_opts {
	const pk_kernel *kernel;     /* NULL: the real one */
	bool system_wide;
	uint64_t period;             /* -c; 0: caps/min_interval */
	bool freq_given;             /* -F */
	size_t aux_pages;            /* -m ,N; 0: perf's default */
	int meta_version;            /* --spe-meta; 0: 1 (what perf 6.1 reads) */
	pk_recording_note_fn note;
	void *note_arg;
} pki_rec_spe_opts;

/* Whether the list has an arm_spe event (then pki_rec_spe_setup adds the
 * tracking event). */
bool pki_rec_spe_wanted(const pk_evlist *l);
/* After pk_evlist_config: finds the arm_spe event, checks it (first in
 * the list, the driver's rules: -EINVAL and the like, the options refused),
 * sets its period, timestamps in per-CPU mode, the sample bits perf sets,
 * and adds the dummy:u tracking event (unless discard; -ENOMEM). */
int pki_rec_spe_setup(pk_evlist *l, const pki_rec_spe_opts *o, pki_rec_spe *out, pk_error *err);
/* PERF_RECORD_AUXTRACE_INFO for the recording's CPUs (NULL: online). */
int pki_rec_spe_info(const pki_rec_spe *sp, pk_pd_writer *w, const pk_kernel *k, pk_cpumap *cpus,
		     pk_error *err);

#endif
