/* Fuzz target: the PMU model's sampling pieces on arbitrary input: the
 * self-monitoring read loop (lib/counting/selfread.c) over a user page whose
 * bytes come from the input, RDPMC ECX decoding (lib/model/userpage.c), and
 * the ring (lib/model/ring.c) fed records whose headers come from the input,
 * with a reader that moves data_tail by input-chosen amounts.
 * Invariants checked: selfread answers 0, PKI_SELFREAD_FALLBACK, -EAGAIN or
 * -EINVAL and never loops forever; a decoded ECX encodes back to itself;
 * the ring accepts only well-formed records, never holds more than
 * data_size - 1 unread bytes, publishes data_head = its head, and what a
 * reader takes back is what was written (a LOST record before it when
 * records were lost). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counting/selfread.h"
#include "model/sampling.h"
#include "perfdata/pd_internal.h"

typedef struct cursor {
	const uint8_t *p;
	size_t left;
} cursor;

static uint64_t next64(cursor *c)
{
	uint64_t v = 0;
	size_t n = c->left < 8 ? c->left : 8;
	memcpy(&v, c->p, n);
	c->p += n;
	c->left -= n;
	return v;
}

static uint64_t fz_rdpmc(void *arg, uint32_t ecx)
{
	cursor *c = arg;
	return next64(c) ^ ecx;
}

static uint64_t fz_rdtsc(void *arg)
{
	return next64(arg);
}

static void selfread(cursor *c)
{
	static struct perf_event_mmap_page pg;
	memset(&pg, 0, sizeof(pg));
	size_t n = c->left < 128 ? c->left : 128; /* the fields before __reserved */
	memcpy(&pg, c->p, n);
	c->p += n;
	c->left -= n;
	pki_selfread_ops ops = {fz_rdpmc, (pg.lock & 2) ? fz_rdtsc : NULL, c};
	pk_counts out;
	int rc = pki_selfread(&pg, &ops, &out, NULL);
	if (rc != 0 && rc != PKI_SELFREAD_FALLBACK && rc != -EAGAIN && rc != -EINVAL)
		abort();
}

static void decode(cursor *c)
{
	static const char *const ids[] = {"GenuineIntel-6-8F-8", "GenuineIntel-6-55-4",
					  "AuthenticAMD-25-11-0"};
	uint64_t v = next64(c);
	pk_cpuid id;
	if (pk_cpuid_parse(ids[v % 3], &id, NULL) < 0)
		abort();
	const pki_counters *row = pki_counters_find(&id, "cpu", NULL);
	if (!row)
		abort();
	pki_pmc_kind kind;
	unsigned n;
	uint32_t ecx = (uint32_t)(v >> 32);
	if (pki_rdpmc_decode(ecx, row, v & 4, &kind, &n, NULL) == 0 &&
	    pki_rdpmc_ecx(kind, n) != ecx)
		abort();
}

/* The record written at `at` (after a LOST record when records were lost)
 * is what was given. */
static void check_written(const pki_ring *r, uint64_t at, const uint8_t *want, size_t len,
			  bool lost_first)
{
	uint64_t tail = at, mask = r->size - 1;
	if (lost_first) {
		if (r->data[tail & mask] != PERF_RECORD_LOST)
			abort();
		uint8_t hdr[8];
		for (int i = 0; i < 8; i++)
			hdr[i] = r->data[(tail + (uint64_t)i) & mask];
		tail += pd_ld16(hdr + 6);
	}
	for (size_t i = 0; i < len; i++)
		if (r->data[(tail + i) & mask] != want[i])
			abort();
}

static void ring(cursor *c)
{
	static uint64_t map[3 * 512];
	struct perf_event_attr a = {.sample_type = next64(c) & 0x3ffff, .sample_id_all = 1,
				    .watermark = 1, .wakeup_watermark = (uint32_t)next64(c)};
	pki_ring r;
	if (pki_ring_init(&r, map, sizeof(map), 4096, true, &a, NULL) < 0)
		abort(); /* 1 + 2 pages */
	pki_ring_writer w = {.attr = &a, .id = 5};
	uint8_t rec[1024];
	while (c->left >= 8) {
		uint64_t h = next64(c);
		size_t len = (size_t)(h >> 48) % sizeof(rec);
		memset(rec, 0xab, sizeof(rec));
		memcpy(rec, &h, 8);
		if (h & 2) { /* mostly well-formed: the header's size is the length */
			len = len / 8 * 8;
			pd_st16(rec + 6, (uint16_t)len);
		}
		bool had_lost = r.lost != 0;
		uint64_t head = r.head;
		int rc = pki_ring_write(&r, &w, rec, len);
		if (rc == 0)
			check_written(&r, head, rec, len, had_lost);
		else if (rc != -ENOSPC && rc != -EINVAL)
			abort();
		if (rc == -EINVAL && head != r.head)
			abort();
		if (r.page->data_head != r.head || r.head - r.page->data_tail > r.size - 1)
			abort();
		if (h & 1) /* the reader catches up */
			r.page->data_tail = r.head;
		pki_ring_revents(&r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cursor c = {data, size};
	selfread(&c);
	decode(&c);
	ring(&c);
	return 0;
}
