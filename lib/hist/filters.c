/* libpmukit: report's further filters and chain rules (perf report 6.1's
 * --symbol-filter, --socket-filter, -U, -p/-x, --ignore-callees).
 *
 * The regular expressions (-p's parent pattern, perf's "^sys_|^do_page_fault"
 * by default, and --ignore-callees') are compiled once per histogram, when
 * it is set up, and freed with it. Rules, as perf 6.1 applies them:
 * --socket-filter and -x hide a sample as --comms does (the first sample of
 * an entry marks it); --symbol-filter marks an entry of the first event (or
 * group) whose own symbol (its first sample's, or the chain's function it
 * counts) does not hold the text, a hidden entry still counting in the totals; -U drops a sample
 * without a symbol (from the totals too) and a chain's entries without one;
 * --ignore-callees makes the last function of a chain that matches, in
 * perf's walk (root first in caller order), the sample's entry, the chain
 * keeping what the walk meets from there. Invariant: nothing
 * here prints; a pattern that did not compile (checked by
 * pk_hist_opts_regex before) matches nothing. */
#include "report.h"

#include <regex.h>
#include <stdlib.h>

#include "report_keys.h"

static const char parent_default[] = "^sys_|^do_page_fault";

int pki_hist_filters_setup(pk_hist *rp)
{
	pki_hist_filters_free(rp);
	const char *p = rp->o.parent ? rp->o.parent : parent_default;
	if (!regcomp(&rp->parent_re, p, REG_EXTENDED | REG_NOSUB))
		rp->re_state |= 1;
	if (rp->o.ignore_callees &&
	    !regcomp(&rp->ignore_re, rp->o.ignore_callees, REG_EXTENDED | REG_NOSUB))
		rp->re_state |= 2;
	return 0;
}

void pki_hist_filters_free(pk_hist *rp)
{
	if (rp->re_state & 1)
		regfree(&rp->parent_re);
	if (rp->re_state & 2)
		regfree(&rp->ignore_re);
	rp->re_state = 0;
}

/* The parent: the first function matching the regex in perf's walk of the
 * chain, which follows the chains' order: from the root in caller order
 * (perf's default with Children, and -G), so the outermost match then. */
const char *pki_hist_parent_of(const pk_hist *rp, const pki_hist_loc *chain, size_t n)
{
	for (size_t step = 0; (rp->re_state & 1) && step < n; step++) {
		size_t i = rp->o.cg.caller ? n - 1 - step : step;
		if (chain[i].sym && !regexec(&rp->parent_re, chain[i].sym, 0, NULL, 0))
			return chain[i].sym;
	}
	return NULL;
}

/* The index of the chain's function --ignore-callees makes the root, or n:
 * the last match in perf's walk of the chain (its print order: root first
 * in caller order; each match drops what the walk met before it) that is
 * not the parent match (perf looks for the parent first when the parent
 * key is in use). */
size_t pki_hist_ignore_at(const pk_hist *rp, const pki_hist_loc *chain, size_t n)
{
	if (!(rp->re_state & 2))
		return n;
	bool parent_key = false, parent_seen = false;
	size_t at = n;
	for (int k = 0; k < rp->o.nr_keys; k++)
		parent_key |= !strcmp(rp->o.keys[k]->name, "parent");
	for (size_t step = 0; step < n; step++) {
		size_t i = rp->o.cg.caller ? n - 1 - step : step;
		const char *s = chain[i].sym;
		if (!s)
			continue;
		if (parent_key && !parent_seen && !regexec(&rp->parent_re, s, 0, NULL, 0)) {
			parent_seen = true;
			continue;
		}
		if (!regexec(&rp->ignore_re, s, 0, NULL, 0))
			at = i;
	}
	return at;
}

int pki_hist_socket_of(const pki_hist_ctx *c)
{
	if (c->hdr && c->smp->cpu < c->hdr->nr_cpu_topo)
		return (int)c->hdr->cpu_topo[c->smp->cpu].socket_id;
	return -1;
}

bool pki_hist_sample_hidden(const pk_hist *rp, const pki_hist_ctx *c)
{
	if (rp->o.socket_filter >= 0 && pki_hist_socket_of(c) != rp->o.socket_filter)
		return true;
	return rp->o.exclude_other && !pki_hist_parent_of(rp, c->chain, c->nr_chain);
}

bool pki_hist_sym_filtered(const pk_hist *rp, const pki_hist_loc *l, int ev)
{
	/* perf 6.1 gives the filter to the first event's histogram alone */
	return rp->o.symbol_filter && ev == 0 && (!l->sym || !strstr(l->sym, rp->o.symbol_filter));
}
