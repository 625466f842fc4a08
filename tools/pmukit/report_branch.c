/* pmukit report: the branch view's statistics (the view: perf report -b,
 * and perf's own choice for files recorded with branch stacks, decided in
 * lib/hist/settle.c, its entries made in lib/hist/report_hist.c). Each branch of a sample's stack
 * is an entry of period 1 and one sample: the totals count branches. Its
 * two ends are resolved in whichever address space holds them (a branch
 * may cross from user to kernel: the sample's cpumode does not tell); an
 * end that no map holds has level 'H', as perf 6.1 shows it. The keys that
 * are not about branches (sym, dso) look at the target, with the sample's
 * level. After the table, perf's "Branch Statistics": the branch that
 * made each entry, by kind (conditional forward or backward, crossing a
 * 2 MiB or else a 4 KiB boundary) and by type, weighted by the entry's
 * samples, in percent of the branches of types COND..NO_TX (perf 6.1:
 * UNKNOWN counts nowhere, EXTEND_ABI's kinds and new types count but are
 * not in the whole).
 * Invariant: the view is on only for files whose samples carry branch
 * stacks (pk_hist_settle), and its keys exist only in it. */
#include "report_print.h"

#include <inttypes.h>
#include <string.h>

/* ---- Branch Statistics ---- */

enum { ST_COND_FWD, ST_COND_BWD, ST_CROSS_4K, ST_CROSS_2M, ST_KINDS };

void report_branch_stats_print(const pk_hist *h, pk_hist_entry **all, size_t n)
{
	static const char *const kinds[ST_KINDS] = {"COND_FWD", "COND_BWD", "CROSS_4K", "CROSS_2M"};
	/* the names in perf's order: types 1-14, then EXTEND_ABI's new types */
	uint64_t kind[ST_KINDS] = {0}, type[15 + 8] = {0}, total = 0;
	for (size_t i = 0; i < n; i++) {
		const pk_hist_entry *e = all[i];
		if (!pk_hist_listed(h, e))
			continue;
		uint64_t w = pk_hist_entry_value(e, 0, PK_HIST_SELF_NR);
		unsigned t = (unsigned)(pk_hist_entry_branch(e)->flags >> 20) & 0xf;
		unsigned nt = (unsigned)(pk_hist_entry_branch(e)->flags >> 26) & 0xf;
		if (!t)
			continue; /* UNKNOWN: not counted at all */
		if (t == 1)
			kind[pk_hist_entry_branch(e)->to > pk_hist_entry_branch(e)->from ? ST_COND_FWD : ST_COND_BWD] += w;
		if ((pk_hist_entry_branch(e)->from >> 21) != (pk_hist_entry_branch(e)->to >> 21))
			kind[ST_CROSS_2M] += w;
		else if ((pk_hist_entry_branch(e)->from >> 12) != (pk_hist_entry_branch(e)->to >> 12))
			kind[ST_CROSS_4K] += w;
		if (t < 15) { /* the percentages are of these */
			type[t] += w;
			total += w;
		} else if (nt < 8) {
			type[15 + nt] += w;
		}
	}
	if (!total)
		return;
	printf("\n#\n# Branch Statistics:\n#");
	for (int k = 0; k < ST_KINDS; k++)
		if (kind[k])
			printf("\n%8s: %5.1f%%", kinds[k], 100.0 * (double)kind[k] / (double)total);
	for (unsigned t = 1; t < 15 + 8; t++) {
		if (!type[t])
			continue;
		uint64_t flags = t < 15 ? (uint64_t)t << 20 : 15ULL << 20 | (uint64_t)(t - 15) << 26;
		printf("\n%8s: %5.1f%%", pk_pd_branch_type_name(flags),
		       100.0 * (double)type[t] / (double)total);
	}
}
