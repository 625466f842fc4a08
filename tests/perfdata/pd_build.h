/* Hand-made perf.data files for the reader tests (pd_build.c). */
#ifndef PK_PD_BUILD_H
#define PK_PD_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A byte buffer written in little- or big-endian order (be). */
typedef struct bb {
	uint8_t *p;
	size_t len, cap;
	bool be;
} bb;

#define U8(b, v) bb_u(b, v, 1)
#define U16(b, v) bb_u(b, v, 2)
#define U32(b, v) bb_u(b, v, 4)
#define U64(b, v) bb_u(b, v, 8)

/* The sample_type of the test attr. */
#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

typedef struct layout {
	size_t sample_off[4];        /* file offsets of the samples */
	size_t attrs_off;            /* file offset of the attr */
	size_t data_end;
} layout;

void bb_bytes(bb *b, const void *d, size_t n);
void bb_u(bb *b, uint64_t v, int n);
void bb_zero(bb *b, size_t n);
void bb_put64(bb *b, size_t at, uint64_t v);
void put_attr(bb *b, uint32_t size, uint64_t st);
void put_trailer(bb *b, uint32_t pid, uint32_t tid, uint64_t time);
void put_comm(bb *b, uint32_t pid, const char *comm, uint64_t time);
void put_sample(bb *b, uint64_t ip, uint32_t pid, uint64_t time, uint64_t period);
/* A 16-byte record of the given type holding one zero word. */
void put_typed(bb *b, uint32_t type);
void put_round(bb *b);
void put_data(bb *b, layout *l);
/* A file-mode perf.data: one attr of attr_size bytes (sample_type ST, id 7),
 * the data of put_data, and a HOSTNAME feature. */
bb build_file(bool be, uint32_t attr_size, layout *l);
/* The same with more records after put_data's (more may be NULL). */
bb build_file_ex(bool be, uint32_t attr_size, void (*more)(bb *b), layout *l);

#endif
