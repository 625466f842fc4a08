/* The '?' listing of record's --user-regs/-I (perf_regs.h). */
#include "perf_regs.h"

void perf_regs_list(const perf_regs_arch *arch, FILE *f)
{
	uint64_t mask = pk_regs_default_mask(arch);
	fprintf(f, "available registers: ");
	for (int bit = 0; bit < 64; bit++)
		if (mask >> bit & 1 && pk_regs_name(arch, bit))
			fprintf(f, "%s ", pk_regs_name(arch, bit));
	fprintf(f, "\n");
}
