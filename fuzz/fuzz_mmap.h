/* Shared by the fuzz targets that map files into a pk_machine: the MMAP2
 * record of [lo, lo + len) from offset off of path, executable, in
 * process pid, fed to the machine as a perf.data would. */
#ifndef PK_FUZZ_MMAP_H
#define PK_FUZZ_MMAP_H

#include <stdint.h>
#include <string.h>

#include <pmukit/symbols.h>

static inline void fuzz_feed_mmap2(pk_machine *m, uint32_t pid, uint64_t lo, uint64_t len,
				   uint64_t off, const char *path)
{
	union {
		uint8_t b[8 + 64 + 4096];
		uint64_t align;
	} rec;
	memset(&rec, 0, sizeof(rec));
	size_t plen = strnlen(path, 4095) + 1, size = (8 + 64 + plen + 7) & ~(size_t)7;
	uint32_t prot = 5;
	memcpy(rec.b + 8, &pid, 4);
	memcpy(rec.b + 12, &pid, 4);
	memcpy(rec.b + 16, &lo, 8);
	memcpy(rec.b + 24, &len, 8);
	memcpy(rec.b + 32, &off, 8);
	memcpy(rec.b + 64, &prot, 4);
	memcpy(rec.b + 72, path, plen - 1);
	pk_pd_event ev = {.type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER,
			  .size = (uint16_t)size, .data = rec.b};
	pk_machine_event(m, &ev);
}

#endif
