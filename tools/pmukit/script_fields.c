/* The rarer script fields in perf 6.1's layout (see script_fields.h); the
 * register names come from the library (pmukit/regs.h), the one table of them. */
#include "script_fields.h"

#include <inttypes.h>
#include <time.h>

void script_print_regs(pd_out *o, const pk_regs_arch *arch, uint64_t abi, uint64_t mask,
		       const uint64_t *regs, size_t nr)
{
	if (!regs || !nr)
		return;
	pd_out_printf(o, " ABI:%" PRIu64 " ", abi);
	size_t i = 0;
	for (int bit = 0; bit < 64 && i < nr; bit++) {
		if (!(mask >> bit & 1))
			continue;
		const char *name = pk_regs_name(arch, bit);
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
		       {PERF_RECORD_MISC_GUEST_USER, 'g'}}; /* perf 6.1 shows no EXACT_IP */
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

/* A branch entry's flags as perf 6.1 prints them: "/M|P|-/X|-/A|-/cycles/type "
 * (perf_branch_entry's bitfields, linux/perf_event.h). The type is the
 * PERF_BR_* name, "" for UNKNOWN; EXTEND_ABI gives the new_type name, and
 * perf 6.1 prints "(null)" for a new_type it has no name for. */
static void print_branch_flags(pd_out *o, uint64_t flags)
{
	const char *name = pk_pd_branch_type_name(flags);
	if (!name)
		name = "(null)";
	char pred = flags & 2 ? 'P' : flags & 1 ? 'M' : '-'; /* perf's order */
	pd_out_printf(o, "/%c/%c/%c/%u/%s ", pred, flags & 4 ? 'X' : '-', flags & 8 ? 'A' : '-',
		      (unsigned)(flags >> 4) & 0xffff, name);
}

/* One end of a branch: its address (or offset in its file), or its symbol. */
static void print_branch_end(pd_out *o, pk_machine *m, const script_brstack *b, uint64_t addr)
{
	unsigned mode = b->cpumode;
	const pk_addr_loc *loc = pk_machine_lookup(m, b->pid, mode, addr);
	if (!loc->has_map) { /* perf's fallback: the cpumode the address implies */
		mode = addr >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		if (mode != b->cpumode)
			loc = pk_machine_lookup(m, b->pid, mode, addr);
	}
	if (b->kind == SCRIPT_BR_SYM) {
		if (loc->sym) {
			pd_out_mem(o, loc->sym, loc->sym_len);
			pd_out_printf(o, "+0x%" PRIx64, loc->symoff);
		} else {
			pd_out_lit(o, "[unknown]");
		}
	} else {
		/* brstackoff: the offset in the file, where perf did not read the
		 * file (it keeps the addresses of a file it read) */
		bool off = b->kind == SCRIPT_BR_OFF && loc->has_map && !loc->kernel && !loc->dso_read;
		pd_out_printf(o, "0x%" PRIx64, off ? loc->dso_addr : addr);
	}
	if (b->dso) {
		pd_out_ch(o, '(');
		pd_out_mem(o, loc->dso, loc->dso_len);
		pd_out_ch(o, ')');
	}
}

void script_print_brstack(pd_out *o, pk_machine *m, const script_brstack *b,
			  const pk_pd_sample *smp)
{
	for (uint64_t i = 0; i < smp->branch_nr; i++) {
		const pk_pd_branch_entry *e = &smp->branch[i];
		if (b->kind != SCRIPT_BR_SYM)
			pd_out_ch(o, ' ');
		print_branch_end(o, m, b, e->from);
		pd_out_ch(o, '/');
		print_branch_end(o, m, b, e->to);
		print_branch_flags(o, e->flags);
	}
}
