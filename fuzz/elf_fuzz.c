/* libFuzzer target: a dso's symbols from arbitrary ELF bytes (lib/symbols:
 * elf.c's tables, .dynsym, the synthesized name@plt symbols and the replay
 * of perf's symbol tree over the PLT in plt_shadow.c, symtab.c's sizing and
 * search), as a perf.data's MMAP2 of a damaged or hostile file reaches
 * them. Each input is written to a file of this process's own, mapped into
 * a fresh machine's process 4242 as executable code, and looked up at
 * addresses spread over the mapping and past its ends. The machine is made
 * per input: dsos are cached by path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/symbols.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAP_LO 0x400000ULL
#define PROBES 64

static char path[64];

/* The MMAP2 record of [MAP_LO, MAP_LO + len) from offset 0 of path. */
static void feed_map(pk_machine *m, uint64_t len)
{
	union {
		uint8_t b[8 + 64 + 64];
		uint64_t align;
	} rec;
	memset(&rec, 0, sizeof(rec));
	size_t plen = strlen(path) + 1, rsize = (8 + 64 + plen + 7) & ~(size_t)7;
	uint32_t pid = 4242, prot = 5;
	uint64_t lo = MAP_LO, off = 0;
	memcpy(rec.b + 8, &pid, 4);
	memcpy(rec.b + 12, &pid, 4);
	memcpy(rec.b + 16, &lo, 8);
	memcpy(rec.b + 24, &len, 8);
	memcpy(rec.b + 32, &off, 8);
	memcpy(rec.b + 64, &prot, 4);
	memcpy(rec.b + 72, path, plen);
	pk_pd_event ev = {.type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER,
			  .size = (uint16_t)rsize, .data = rec.b};
	pk_machine_event(m, &ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/pmukit-elf-fuzz-%d.so", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	size_t put = fwrite(data, 1, size, f);
	if (fclose(f) != 0 || put != size)
		return 0;
	pk_machine_opts mo = {.kallsyms = "", .kallsyms_cache = ""};
	pk_machine *m = pk_machine_new(&mo);
	if (!m)
		return 0;
	uint64_t len = ((uint64_t)size + 0xfff) & ~0xfffULL;
	if (!len)
		len = 0x1000;
	feed_map(m, len);
	size_t sum = 0;
	for (uint64_t i = 0; i <= PROBES + 1; i++) {
		/* i = 0 .. PROBES: over the mapping; PROBES + 1: past it */
		uint64_t ip = MAP_LO + len * i / PROBES;
		const pk_addr_loc *loc = pk_machine_lookup(m, 4242, PERF_RECORD_MISC_USER, ip);
		sum += loc->sym_len + loc->dso_len; /* the names are read */
		if (loc->sym && loc->sym_len)
			sum += (unsigned char)loc->sym[loc->sym_len - 1];
	}
	pk_machine_free(m);
	return sum == (size_t)-1; /* never: keeps the reads */
}
