/* pmukit CLI: the command-line side of the sampled register sets (the
 * table, names -> mask and bit -> name are the library's, pmukit/regs.h):
 * record's --user-regs/-I '?' listing. */
#ifndef PMUKIT_PERF_REGS_H
#define PMUKIT_PERF_REGS_H

#include <stdio.h>

#include <pmukit/regs.h>

typedef pk_regs_arch perf_regs_arch;

/* record's names for the library's calls */
static inline const perf_regs_arch *perf_regs_host(void)
{
	return pk_regs_host();
}

static inline int perf_regs_parse(const perf_regs_arch *arch, const char *list, uint64_t *mask,
				  char *bad, size_t bad_len)
{
	return pk_regs_parse(arch, list, mask, bad, bad_len);
}

/* "available registers: AX BX ..." on f, as perf prints it for '?'. */
void perf_regs_list(const perf_regs_arch *arch, FILE *f);

#endif
