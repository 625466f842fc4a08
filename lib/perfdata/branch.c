/* A branch stack entry's flags (struct perf_branch_entry's bitfields in
 * linux/perf_event.h: mispred 0, predicted 1, in_tx 2, abort 3, cycles
 * 4-19, type 20-23, spec 24-25, new_type 26-29, priv 30-32) and the
 * PERF_BR_* names perf 6.1 prints for a type: one table for script's
 * brstack flags and report's branch statistics. */
#include <pmukit/perfdata.h>

const char *pk_pd_branch_type_name(uint64_t flags)
{
	static const char *const types[15] = {
		"", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
		"COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX"};
	static const char *const new_types[8] = {"FAULT_ALGN", "FAULT_DATA", "FAULT_INST",
						 "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5"};
	unsigned type = (unsigned)(flags >> 20) & 0xf, new_type = (unsigned)(flags >> 26) & 0xf;
	if (type < 15)
		return types[type];
	return new_type < 8 ? new_types[new_type] : NULL; /* PERF_BR_EXTEND_ABI */
}
