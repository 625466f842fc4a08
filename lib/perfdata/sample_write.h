/* Inside the library: building records as the kernel lays them out, the
 * inverse of the sample parser (sample.c). For the PMU model's kernel
 * (docs/model.md, "Sampling and the user page (pieces)") and for tests that
 * need exact records.
 *
 *  - a PERF_RECORD_SAMPLE from a pk_pd_sample and the attr's sample_type,
 *    read_format, branch_sample_type and register masks, in the order of
 *    perfdata.md 1.6 (the kernel's perf_output_sample);
 *  - the READ field (read_format) from counts, which is also what read(2)
 *    returns on the fd;
 *  - the sample_id trailer of a non-sample record, and PERF_RECORD_LOST.
 *
 * The identification fields at the start of a sample and in the trailer
 * come from the one table in sample.c (pki_pd_write_sample_head,
 * pki_pd_write_trailer); the order of the other fields is written here once
 * and checked against the parser by round trips (tests/perfdata/
 * test_sample_write.c). Everything is native byte order. Names are pki_;
 * nothing is exported. */
#ifndef PK_PERFDATA_SAMPLE_WRITE_H
#define PK_PERFDATA_SAMPLE_WRITE_H

#include <pmukit/counting.h>
#include <pmukit/perfdata.h>

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Records carry their size in a u16. */
#define PKI_PD_RECORD_MAX 65535
/* The sample_type bits the writer produces: all of Linux 6.1's
 * (PERF_SAMPLE_IP .. PERF_SAMPLE_WEIGHT_STRUCT). */
#define PKI_PD_SAMPLE_KNOWN ((1ULL << 25) - 1)
/* A LOST record with the largest trailer: header, id, lost, 6 x u64. */
#define PKI_PD_LOST_MAX (24 + 48)

/* Writes the identification fields at the start of a sample body
 * (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU as sample_type has
 * them) from s; returns their size (at most 64). Lives in sample.c, next to
 * the table it walks. */
size_t pki_pd_write_sample_head(uint8_t *p, uint64_t sample_type, const pk_pd_sample *s);

/* The record of a sample of the event `a` (header included, misc from
 * s->misc) into buf (cap bytes). Fields come from s as the parser fills them:
 * read/read_nr are the read_format u64s (pki_pd_read_values builds them),
 * raw and aux are padded with zeros to 8 bytes (the size written is the
 * padded one, as the kernel writes it), branch, regs, stack as given.
 * Returns the record size, or -EOPNOTSUPP naming a sample_type bit the
 * writer does not know, -EINVAL naming a field whose input does not match
 * the attr (a READ of the wrong length, a register count that is not the
 * mask's), -E2BIG when the record would pass 65535 bytes or cap. */
ssize_t pki_pd_sample_write(const struct perf_event_attr *a, const pk_pd_sample *s, uint8_t *buf,
			    size_t cap, pk_error *err);

/* The u64s of read_format `rf` for counts c[0..nr): one counter (nr 1, no
 * PERF_FORMAT_GROUP) or a group (c[0] the leader; enabled and running are
 * the leader's). The inverse of pk_counts_parse. Returns the number of u64s
 * written to out (cap u64s), or -E2BIG / -EINVAL (nr 0, or nr > 1 without
 * GROUP). */
int pki_pd_read_values(uint64_t rf, const pk_counts *c, size_t nr, uint64_t *out, size_t cap);

/* Ends a non-sample record of `len` bytes at rec (header first, len a
 * multiple of 8): appends the sample_id trailer of `a` when a->sample_id_all,
 * and sets header.size. rec must have room for 48 more bytes. Returns the
 * new size. */
size_t pki_pd_record_end(uint8_t *rec, size_t len, const struct perf_event_attr *a,
			 const pk_pd_sample_id *sid);

/* PERF_RECORD_LOST {u64 id, lost} of the event `a` with id `id`, its
 * trailer from sid; returns the size (at most PKI_PD_LOST_MAX). */
size_t pki_pd_lost_record(uint8_t out[PKI_PD_LOST_MAX], const struct perf_event_attr *a,
			  const pk_pd_sample_id *sid, uint64_t id, uint64_t lost);

#endif
