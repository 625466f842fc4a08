/* libpmukit: the registers perf_event samples (PERF_SAMPLE_REGS_USER and
 * _INTR), per architecture: each register's name as perf 6.1 spells it and
 * its bit in sample_regs_user/_intr (the kernel's perf_regs.h UAPI enums),
 * perf's default set, the set a --call-graph dwarf recording needs. The one
 * table behind record's --user-regs/-I, script's iregs/uregs and the DWARF
 * unwinder (pk_machine_unwind). */
#ifndef PMUKIT_REGS_H
#define PMUKIT_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pk_regs_arch pk_regs_arch;

/* The table of an architecture as uname and perf's ARCH feature name it
 * ("x86_64", "aarch64"/"arm64"); NULL when pmukit has none. */
const pk_regs_arch *pk_regs_for(const char *machine);
/* The table of the machine libpmukit was built for. */
const pk_regs_arch *pk_regs_host(void);
/* perf's default mask (every register perf samples by default). */
uint64_t pk_regs_default_mask(const pk_regs_arch *arch);
/* The registers --call-graph dwarf samples (perf 6.1): every register, or
 * with --user-regs given only IP and SP, added to the user's set. */
uint64_t pk_regs_dwarf_mask(const pk_regs_arch *arch, bool user_regs_given);
/* The name of bit i, or NULL. */
const char *pk_regs_name(const pk_regs_arch *arch, int bit);
/* The bit of a register named so (case-insensitive), or -1. */
int pk_regs_bit(const pk_regs_arch *arch, const char *name);
/* A comma list of names ("ip,sp", case-insensitive) into a mask; NULL or ""
 * gives the default. -EINVAL with the unknown name in bad (when not NULL),
 * -ENOMEM. */
int pk_regs_parse(const pk_regs_arch *arch, const char *list, uint64_t *mask, char *bad,
		  size_t bad_len);

#endif
