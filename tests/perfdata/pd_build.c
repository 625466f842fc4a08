/* Hand-made perf.data files for the reader tests: a byte builder that
 * writes either byte order, and a small file-mode recording (one cpu-clock
 * attr, a COMM, four samples over two rounds, a HOSTNAME feature) that the
 * tests damage on purpose. */
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>

#include "pd_build.h"

/* ---- a byte builder that writes either byte order ---- */

void bb_bytes(bb *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

void bb_u(bb *b, uint64_t v, int n)
{
	uint8_t t[8];
	for (int i = 0; i < n; i++)
		t[b->be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
	bb_bytes(b, t, (size_t)n);
}

void bb_zero(bb *b, size_t n)
{
	static const uint8_t z[256];
	while (n) {
		size_t k = n > sizeof(z) ? sizeof(z) : n;
		bb_bytes(b, z, k);
		n -= k;
	}
}

void bb_put64(bb *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b->p[at + (size_t)(b->be ? 7 - i : i)] = (uint8_t)(v >> (8 * i));
}


/* An attr of `size` bytes: cpu-clock, sample_id_all, freq. The flag
 * bitfield of a big-endian writer has its bits reversed in each byte. */
void put_attr(bb *b, uint32_t size, uint64_t st)
{
	U32(b, PERF_TYPE_SOFTWARE);
	U32(b, size);
	U64(b, PERF_COUNT_SW_CPU_CLOCK);
	U64(b, 4000);
	U64(b, st);
	U64(b, PERF_FORMAT_ID);
	/* flags: disabled(0) freq(10) sample_id_all(18) */
	uint64_t flags = 1ULL | 1ULL << 10 | 1ULL << 18;
	uint8_t fb[8];
	for (int i = 0; i < 8; i++) {
		uint8_t byte = (uint8_t)(flags >> (8 * i));
		if (b->be) {
			uint8_t r = 0;
			for (int k = 0; k < 8; k++)
				if (byte & (1 << k))
					r |= (uint8_t)(1 << (7 - k));
			byte = r;
		}
		fb[i] = byte;
	}
	bb_bytes(b, fb, 8);
	bb_zero(b, size - 48);
}

/* sample_id trailer for ST: pid/tid, time */
void put_trailer(bb *b, uint32_t pid, uint32_t tid, uint64_t time)
{
	U32(b, pid);
	U32(b, tid);
	U64(b, time);
}

void put_comm(bb *b, uint32_t pid, const char *comm, uint64_t time)
{
	U32(b, PERF_RECORD_COMM);
	U16(b, 0);
	U16(b, 8 + 8 + 16 + 16);
	U32(b, pid);
	U32(b, pid);
	char name[16] = {0};
	strncpy(name, comm, 15);
	bb_bytes(b, name, 16);
	put_trailer(b, pid, pid, time);
}

void put_sample(bb *b, uint64_t ip, uint32_t pid, uint64_t time, uint64_t period)
{
	U32(b, PERF_RECORD_SAMPLE);
	U16(b, PERF_RECORD_MISC_USER);
	U16(b, 8 + 32);
	U64(b, ip);
	U32(b, pid);
	U32(b, pid);
	U64(b, time);
	U64(b, period);
}

void put_typed(bb *b, uint32_t type)
{
	U32(b, type);
	U16(b, 0);
	U16(b, 16);
	U64(b, 0);
}

void put_round(bb *b)
{
	U32(b, PK_RECORD_FINISHED_ROUND);
	U16(b, 0);
	U16(b, 8);
}


/* The data records every test file holds: COMM, samples at times
 * 3000, 1000, 2000 (round 1), a round end, 4000 (round 2). */
void put_data(bb *b, layout *l)
{
	put_comm(b, 42, "myprog", 500);
	l->sample_off[0] = b->len;
	put_sample(b, 0x400100, 42, 3000, 100);
	l->sample_off[1] = b->len;
	put_sample(b, 0x400200, 42, 1000, 200);
	l->sample_off[2] = b->len;
	put_sample(b, 0x400300, 42, 2000, 300);
	put_round(b);
	l->sample_off[3] = b->len;
	put_sample(b, 0x400400, 42, 4000, 400);
}

/* A file-mode perf.data with one attr (size attr_size), ids {7}, the data
 * above, then whatever more() adds to the data section (more may be NULL),
 * and a HOSTNAME feature. */
bb build_file_ex(bool be, uint32_t attr_size, void (*more)(bb *b), layout *l)
{
	bb b = {.be = be};
	memset(l, 0, sizeof(*l));
	bb_bytes(&b, be ? "2ELIFREP" : "PERFILE2", 8);
	U64(&b, 104);
	U64(&b, attr_size + 16);
	size_t attrs_at = b.len;
	bb_zero(&b, 104 - 24); /* sections + bitmap, patched below */
	size_t ids_off = b.len;
	U64(&b, 7);
	size_t attrs_off = b.len;
	l->attrs_off = attrs_off;
	put_attr(&b, attr_size, ST);
	U64(&b, ids_off);
	U64(&b, 8);
	size_t data_off = b.len;
	put_data(&b, l);
	if (more)
		more(&b);
	size_t data_end = b.len;
	l->data_end = data_end;
	/* feature table: HOSTNAME */
	size_t table = b.len;
	U64(&b, table + 16);
	U64(&b, 4 + 64);
	U32(&b, 64);
	char host[64] = "testhost";
	bb_bytes(&b, host, 64);
	bb_put64(&b, attrs_at, attrs_off);
	bb_put64(&b, attrs_at + 8, attr_size + 16);
	bb_put64(&b, attrs_at + 16, data_off);
	bb_put64(&b, attrs_at + 24, data_end - data_off);
	bb_put64(&b, 72, 1ULL << PK_FEAT_HOSTNAME);
	return b;
}

bb build_file(bool be, uint32_t attr_size, layout *l)
{
	return build_file_ex(be, attr_size, NULL, l);
}
