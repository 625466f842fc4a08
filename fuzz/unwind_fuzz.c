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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NREGS 20 /* x86_64: perf's mask 0xff0fff (AX..SS, R8..R15) */

static pk_machine *machine;
static uint64_t text_lo, text_hi;

/* An MMAP2 record of one line of /proc/self/maps for pid 4242. */
static void feed_map(uint64_t lo, uint64_t hi, uint64_t off, const char *path)
{
	union {
		uint8_t b[8 + 64 + 4096];
		uint64_t align;
	} rec;
	memset(&rec, 0, sizeof(rec));
	size_t plen = strlen(path) + 1, size = (8 + 64 + plen + 7) & ~(size_t)7;
	uint32_t pid = 4242, prot = 5;
	uint64_t len = hi - lo;
	memcpy(rec.b + 8, &pid, 4);
	memcpy(rec.b + 12, &pid, 4);
	memcpy(rec.b + 16, &lo, 8);
	memcpy(rec.b + 24, &len, 8);
	memcpy(rec.b + 32, &off, 8);
	memcpy(rec.b + 64, &prot, 4);
	memcpy(rec.b + 72, path, plen);
	pk_pd_event ev = {.type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER,
			  .size = (uint16_t)size, .data = rec.b};
	pk_machine_event(machine, &ev);
}

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
		feed_map(lo, hi, off, path);
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
	pk_pd_sample s;
	memset(&s, 0, sizeof(s));
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
