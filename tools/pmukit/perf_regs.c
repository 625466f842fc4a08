/* The CLI's names for the sampled register sets of perf_event: the table
 * is the library's (include/pmukit/regs.h); here the command-line side of
 * it: a comma list into a mask, the '?' listing. */
#include "perf_regs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const perf_regs_arch *perf_regs_for(const char *machine)
{
	return pk_regs_for(machine);
}

const perf_regs_arch *perf_regs_host(void)
{
	return pk_regs_host();
}

uint64_t perf_regs_default_mask(const perf_regs_arch *arch)
{
	return pk_regs_default_mask(arch);
}

uint64_t perf_regs_dwarf_mask(const perf_regs_arch *arch, bool user_regs_given)
{
	return pk_regs_dwarf_mask(arch, user_regs_given);
}

const char *perf_regs_name(const perf_regs_arch *arch, int bit)
{
	return pk_regs_name(arch, bit);
}

int perf_regs_parse(const perf_regs_arch *arch, const char *list, uint64_t *mask, char *bad,
		    size_t bad_len)
{
	*mask = 0;
	if (!list || !*list) {
		*mask = pk_regs_default_mask(arch);
		return 0;
	}
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return -ENOMEM;
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		int bit = pk_regs_bit(arch, t);
		if (bit < 0) {
			if (bad)
				snprintf(bad, bad_len, "%s", t);
			rc = -EINVAL;
		} else {
			*mask |= 1ULL << bit;
		}
	}
	free(copy);
	return rc;
}

void perf_regs_list(const perf_regs_arch *arch, FILE *f)
{
	uint64_t mask = pk_regs_default_mask(arch);
	fprintf(f, "available registers: ");
	for (int bit = 0; bit < 64; bit++)
		if (mask >> bit & 1 && pk_regs_name(arch, bit))
			fprintf(f, "%s ", pk_regs_name(arch, bit));
	fprintf(f, "\n");
}
