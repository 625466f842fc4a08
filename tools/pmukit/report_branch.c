/* pmukit report: the branch view (perf report -b, and perf's own choice
 * for files recorded with branch stacks). Each branch of a sample's stack
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
 * stacks, and its keys exist only in it. */
#include "report.h"
#include "report_keys.h"
#include "session_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* perf 6.1's keys for the view. */
static const char *const view_keys[] = {"comm", "dso_from", "symbol_from", "symbol_to", "cycles"};

static bool file_has_branches(struct pk_session *s)
{
	for (size_t i = 0; i < pk_pd_nr_evsels(pk_session_reader(s)); i++)
		if (pk_pd_evsel_at(pk_session_reader(s), i)->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
			return true;
	return false;
}

int rp_branch_settle(report *rp, struct pk_session *s)
{
	bool has = file_has_branches(s);
	if (rp->branch > 0 && !has) {
		fprintf(stderr, "Error:\nSelected -b but no branch data. Did you call perf record "
				"without -b?\n");
		return -EINVAL;
	}
	rp->branch_view = rp->branch > 0 ||
			  (rp->branch < 0 && has && pk_pd_has_feature(pk_session_reader(s), PK_FEAT_BRANCH_STACK));
	for (int k = 0; k < rp->nr_keys; k++)
		if (rp->keys[k]->branch && !rp->branch_view) {
			fprintf(stderr, "Error:\nInvalid --sort key: `%s'\n", rp->keys[k]->name);
			return -EINVAL;
		}
	if (!rp->branch_view)
		return 0;
	rp->children = rp->use_cg = rp->need_chain = false; /* perf shows no chains here */
	if (!rp->sort_given) {
		rp->nr_keys = 0;
		for (size_t i = 0; i < sizeof(view_keys) / sizeof(view_keys[0]); i++)
			rp->keys[rp->nr_keys++] = rp_key_find(view_keys[i]);
	}
	return 0;
}

/* ---- Branch Statistics ---- */

enum { ST_COND_FWD, ST_COND_BWD, ST_CROSS_4K, ST_CROSS_2M, ST_KINDS };

void rp_branch_stats_print(const report *rp, rp_entry **all, size_t n)
{
	static const char *const kinds[ST_KINDS] = {"COND_FWD", "COND_BWD", "CROSS_4K", "CROSS_2M"};
	/* the names in perf's order: types 1-14, then EXTEND_ABI's new types */
	uint64_t kind[ST_KINDS] = {0}, type[15 + 8] = {0}, total = 0;
	for (size_t i = 0; i < n; i++) {
		const rp_entry *e = all[i];
		if (!rp_listed(rp, e))
			continue;
		uint64_t w = e->v[RP_SELF_NR];
		unsigned t = (unsigned)(e->br.flags >> 20) & 0xf;
		unsigned nt = (unsigned)(e->br.flags >> 26) & 0xf;
		if (!t)
			continue; /* UNKNOWN: not counted at all */
		if (t == 1)
			kind[e->br.to > e->br.from ? ST_COND_FWD : ST_COND_BWD] += w;
		if ((e->br.from >> 21) != (e->br.to >> 21))
			kind[ST_CROSS_2M] += w;
		else if ((e->br.from >> 12) != (e->br.to >> 12))
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
