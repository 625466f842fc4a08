/* libFuzzer target: the DWARF unwinder (lib/symbols/unwind.c) on arbitrary
 * user registers and stack bytes, as a --call-graph dwarf sample of a
 * damaged or hostile perf.data carries them. The process is this fuzzer
 * itself: its file mappings (from /proc/self/maps, read once) are fed as
 * MMAP2 records, so libdw finds real CFI and debug info, and the IP is
 * steered into them; every byte after the registers is the stack copy,
 * its claimed dynamic size taken from the input too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/symbols.h>

#include "fuzz_mmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NREGS 20 /* x86_64: perf's mask 0xff0fff (AX..SS, R8..R15) */

static pk_machine *machine;
static uint64_t text_lo, text_hi;

static void setup(void)
{
	pk_machine_opts mo = {.kallsyms = ""};
	machine = pk_machine_new(&mo);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4608], perm[8], path[4096];
	unsigned long long lo, hi, off;
	while (machine && f && fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perm, &off, path) < 4 ||
		    path[0] != '/')
			continue;
		fuzz_feed_mmap2(machine, 4242, lo, hi - lo, off, path); /* a line of the maps */
		if (perm[2] == 'x' && !text_lo) {
			text_lo = lo;
			text_hi = hi;
		}
	}
	if (f)
		fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!machine)
		setup();
	if (!machine || size < NREGS * 8 + 8)
		return 0;
	uint64_t regs[NREGS];
	memcpy(regs, data, sizeof(regs));
	if (text_hi > text_lo) /* IP (perf bit 8, the 9th value) in this program's code */
		regs[8] = text_lo + regs[8] % (text_hi - text_lo);
	uint64_t dyn;
	memcpy(&dyn, data + sizeof(regs), 8);
	pk_pd_sample s = PK_PD_SAMPLE_INIT;
	s.pid = s.tid = 4242;
	s.user_abi = 2;
	s.user_regs = regs;
	s.user_regs_nr = NREGS;
	s.stack = data + sizeof(regs) + 8;
	s.stack_size = size - sizeof(regs) - 8;
	s.stack_dyn_size = dyn % (s.stack_size + 64); /* sometimes past the copy */
	uint64_t ips[PK_MAX_STACK];
	int n = pk_machine_unwind(machine, &s, 0xff0fffULL, "x86_64", ips, PK_MAX_STACK, NULL);
	for (int i = 0; i < n && i < 4; i++) {
		const char *names[16];
		pk_machine_inlines(machine, 4242, ips[i], names, 16);
	}
	return 0;
}
