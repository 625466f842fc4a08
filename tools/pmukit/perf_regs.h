/* pmukit CLI: the sampled register sets of perf_event (PERF_SAMPLE_REGS_USER
 * and _INTR) by name, per architecture, as perf 6.1 spells them: the
 * library's table (pmukit/regs.h, also the DWARF unwinder's), read by
 * `record --user-regs/-I` (names -> mask) and by `script -F iregs,uregs`
 * (bit -> name). The default mask is perf's PERF_REGS_MASK. */
#ifndef PMUKIT_PERF_REGS_H
#define PMUKIT_PERF_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <pmukit/regs.h>

typedef pk_regs_arch perf_regs_arch;

/* The table of an architecture as uname and perf's ARCH feature name it
 * ("x86_64", "aarch64"/"arm64"); NULL when pmukit has none. */
const perf_regs_arch *perf_regs_for(const char *machine);
/* The table of the machine pmukit was built for (perf's own rule: a
 * perf binary knows its own architecture's registers). */
const perf_regs_arch *perf_regs_host(void);
/* perf's default mask (every register perf samples by default). */
uint64_t perf_regs_default_mask(const perf_regs_arch *arch);
/* The registers --call-graph dwarf samples (perf 6.1): every register,
 * or with --user-regs only IP and SP, added to the user's set. */
uint64_t perf_regs_dwarf_mask(const perf_regs_arch *arch, bool user_regs_given);
/* "ip,sp" (case-insensitive) into a mask; NULL or "" gives the default.
 * -EINVAL with the unknown name in bad (when not NULL). */
int perf_regs_parse(const perf_regs_arch *arch, const char *list, uint64_t *mask,
		    char *bad, size_t bad_len);
/* The name of bit i, or NULL. */
const char *perf_regs_name(const perf_regs_arch *arch, int bit);
/* "available registers: AX BX ..." on f, as perf prints it for '?'. */
void perf_regs_list(const perf_regs_arch *arch, FILE *f);

#endif
