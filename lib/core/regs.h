/* Internal: the register tables of include/pmukit/regs.h as data, for the
 * DWARF unwinder (lib/symbols/unwind.c): each register's perf bit and DWARF
 * number, the PC and SP, the registers the psABI preserves across calls and
 * the frame pointer. Invariant: every DWARF number is below PKI_REGS_DWARF. */
#ifndef PMUKIT_CORE_REGS_H
#define PMUKIT_CORE_REGS_H

#include "pmukit/regs.h"

#include <stddef.h>

#define PKI_REGS_DWARF 32

typedef struct pki_reg {
	const char *name;            /* perf 6.1's spelling */
	int8_t bit;                  /* in sample_regs_user/_intr */
	int8_t dwarf;                /* DWARF register number; -1: none */
} pki_reg;

struct pk_regs_arch {
	const char *const *machines; /* uname/ARCH spellings, NULL-ended */
	const pki_reg *regs;
	size_t nr;
	uint64_t default_mask;
	uint64_t dwarf_min;          /* what a DWARF unwinder cannot start without: IP, SP */
	int pc_bit, sp_bit;          /* perf bits */
	uint32_t callee_saved;       /* DWARF numbers the psABI preserves across calls */
	int fp, sp;                  /* DWARF numbers of the frame and stack pointers */
};

#endif
