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

#include "fuzz_mmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAP_LO 0x400000ULL
#define PROBES 64

static char path[64];

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
	fuzz_feed_mmap2(m, 4242, MAP_LO, len, 0, path);
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
