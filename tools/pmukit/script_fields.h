/* pmukit CLI: the rarer `script -F` fields, printed as perf script 6.1
 * prints them: iregs/uregs (" ABI:2    AX:0x1 ..."), misc (the cpumode
 * letters padded to 6), flags (branch flags, none outside branch
 * tracing: blank), tod (wall-clock time from the CLOCK_DATA feature),
 * brstack/brstacksym/brstackoff (record -b/-j's branch stacks). */
#ifndef PMUKIT_SCRIPT_FIELDS_H
#define PMUKIT_SCRIPT_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include "session_cli.h"
#include <pmukit/regs.h>

/* " ABI:<abi> " and "%5s:0x%x " per register of mask (nothing without
 * registers). */
void script_print_regs(pd_out *o, const pk_regs_arch *arch, uint64_t abi, uint64_t mask,
		       const uint64_t *regs, size_t nr);
/* "K", "U", "H", "G", "g" and "x" (exact IP) padded to 6, then a space. */
void script_print_misc(pd_out *o, uint16_t misc);
/* perf's flags column: "  %-21s " of no flags. */
void script_print_flags(pd_out *o);
/* "YYYY-MM-DD HH:MM:SS.uuuuuu " for time (perf clock) with the file's
 * CLOCK_DATA (wall and clock ns at one instant). */
void script_print_tod(pd_out *o, uint64_t time, uint64_t wall_ns, uint64_t clock_ns);

/* brstack, brstacksym, brstackoff: the sample's branch stack, each entry
 * "from/to/flags" with the ends as addresses, symbols (sym+0xoff) or file
 * offsets, "(dso)" after each end when dso is set. */
typedef enum { SCRIPT_BR_ADDR, SCRIPT_BR_SYM, SCRIPT_BR_OFF } script_br_kind;
typedef struct script_brstack {
	script_br_kind kind;
	bool dso;
	uint32_t pid;
	unsigned cpumode;            /* the sample's; an end outside its maps is
					looked up in the mode its address implies */
} script_brstack;
void script_print_brstack(pd_out *o, pk_machine *m, const script_brstack *b,
			  const pk_pd_sample *smp);

#endif
