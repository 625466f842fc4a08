/* pmukit: perf inject's engine (lib/record/inject.c): a perf.data stream
 * read and written again through lib/perfdata's writer, with build ids
 * put in as perf inject 6.1 puts them.
 *
 * The input (a file or a pipe; "-": standard input) is copied record by
 * record in file order: events, their ids and names, and the header
 * features (file output; a pipe's HEADER_FEATURE records become the file's
 * sections; the COMPRESSED feature is dropped, the records being written
 * out decompressed). Output "-" is standard output in pipe mode; a path is
 * a file. With build_ids (-b) a HEADER_BUILD_ID record goes before the
 * first sample that hits each object whose ELF file has a build id; with
 * buildid_all (--buildid-all) before the first map of each such object,
 * hit or not. A file output carries the BUILD_ID feature when the input
 * had it or -b asks (perf's rule): the objects hit (by samples with -b,
 * by maps with --buildid-all, none otherwise) whose id is known (from the
 * input's BUILD_ID feature or the file), and the vDSO's.
 *
 * Invariants: every record of the input is written once, in its order
 * (a record whose size is not a multiple of 8, as perf inject writes its
 * build id records, is padded to one: st->padded counts them); records
 * put in are counted in st; the library never prints. */
#ifndef PMUKIT_INJECT_H
#define PMUKIT_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/kernel.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_inject_opts {
	size_t size;                 /* sizeof(pk_inject_opts) */
	bool build_ids;              /* -b */
	bool buildid_all;            /* --buildid-all */
	const pk_kernel *kernel;     /* the vDSO's build id from its host; NULL: this one */
} pk_inject_opts;

typedef struct pk_inject_stats {
	uint64_t records;            /* records copied */
	uint64_t build_ids;          /* HEADER_BUILD_ID records put in */
	uint64_t padded;             /* records padded to a multiple of 8 bytes */
} pk_inject_stats;

/* Copies in to out as above; 0, or a negative errno with err naming the
 * file and offset (the output is then removed when a file). st may be NULL. */
int pk_inject(const char *in, const char *out, const pk_inject_opts *o, pk_inject_stats *st,
	      pk_error *err);

#ifdef __cplusplus
}
#endif
#endif
