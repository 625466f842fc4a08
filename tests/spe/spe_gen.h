/* Seeded generator of Arm SPE packet streams and of perf.data files that
 * carry them (AUXTRACE_INFO of type Arm SPE, AUXTRACE records, an arm_spe
 * and a dummy:u event), for the tests, the differential test against
 * Linux perf, the fuzz corpus and the bench. Test code: it may fail hard. */
#ifndef PK_SPE_GEN_H
#define PK_SPE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct spe_gen_opts {
	uint64_t seed;
	int nr_records;              /* per CPU */
	bool end_packets;            /* close records with END instead of TS */
	bool bad_bytes;              /* sprinkle undecodable bytes between records */
	bool perf61;                 /* only what Linux perf 6.1 decodes and prints alike */
	int nr_cpus;                 /* perf.data: AUXTRACE buffers, one per CPU (0: 1) */
	uint32_t midr;               /* perf.data: metadata v2 with this MIDR; 0: v1 */
	uint32_t context_tid;        /* CONTEXT packets carry this TID (0: random ones) */
	bool no_context;             /* no CONTEXT packets; context switches instead */
	unsigned hot_pcs;            /* code addresses from this many (0: spread) */
	bool old_order;              /* AUXTRACE_INFO before TIME_CONV (files perf cannot time) */
	bool pipe;                   /* a pipe-mode file (read from a pipe: copied buffers) */
} spe_gen_opts;

#define SPE_GEN_PMU_TYPE 11u
#define SPE_GEN_PID 4242u
/* TIME_CONV: perf time = zero + (ts >> shift) * mult + ((ts & mask) * mult >> shift) */
#define SPE_GEN_TIME_SHIFT 10u
#define SPE_GEN_TIME_MULT 1600u
#define SPE_GEN_TIME_ZERO 5000000000ull

/* Writes records into buf (cap bytes); returns the bytes written (a
 * multiple of 8, zero-padded). */
size_t spe_gen_stream(const spe_gen_opts *o, int cpu, uint8_t *buf, size_t cap);
/* Writes a file-mode perf.data at path; returns 0 or -1. */
int spe_gen_perfdata(const char *path, const spe_gen_opts *o);

#endif
