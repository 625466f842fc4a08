/* The rarer script fields in perf 6.1's layout (see script_fields.h); the
 * register names come from perf_regs.c, the one table of them. */
#include "script_fields.h"

#include <inttypes.h>
#include <time.h>

void script_print_regs(pd_out *o, const perf_regs_arch *arch, uint64_t abi, uint64_t mask,
		       const uint64_t *regs, size_t nr)
{
	if (!regs || !nr)
		return;
	pd_out_printf(o, " ABI:%" PRIu64 " ", abi);
	size_t i = 0;
	for (int bit = 0; bit < 64 && i < nr; bit++) {
		if (!(mask >> bit & 1))
			continue;
		const char *name = perf_regs_name(arch, bit);
		pd_out_printf(o, "%5s:0x%" PRIx64 " ", name ? name : "unknown", regs[i++]);
	}
}

void script_print_misc(pd_out *o, uint16_t misc)
{
	static const struct {
		uint16_t bits;
		char c;
	} letters[] = {{PERF_RECORD_MISC_KERNEL, 'K'},       {PERF_RECORD_MISC_USER, 'U'},
		       {PERF_RECORD_MISC_HYPERVISOR, 'H'},   {PERF_RECORD_MISC_GUEST_KERNEL, 'G'},
		       {PERF_RECORD_MISC_GUEST_USER, 'g'},   {PERF_RECORD_MISC_EXACT_IP, 'x'}};
	int n = 0;
	for (size_t i = 0; i < sizeof(letters) / sizeof(letters[0]); i++)
		if ((misc & letters[i].bits) == letters[i].bits) { /* perf's test, quirks kept */
			pd_out_ch(o, letters[i].c);
			n++;
		}
	pd_out_pad(o, 6 - n);
}

void script_print_flags(pd_out *o)
{
	pd_out_pad(o, 2 + 21 + 1);
}

void script_print_tod(pd_out *o, uint64_t time, uint64_t wall_ns, uint64_t clock_ns)
{
	uint64_t ns = wall_ns + (time - clock_ns);
	time_t secs = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[64];
	localtime_r(&secs, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	pd_out_printf(o, "%s.%06" PRIu64 " ", buf, ns % 1000000000 / 1000);
}
