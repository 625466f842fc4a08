/* libpmukit: report's histogram read from outside (include/pmukit/hist.h):
 * its options, its events and groups, an entry's values, texts, chain and
 * branch. Plain accessors of report.h's structs: no state of their own, no
 * allocation; the pointers they return live as long as the histogram. */
#include "report.h"

pk_hist_opts *pk_hist_options(pk_hist *rp)
{
	return &rp->o;
}

const pk_hist_opts *pk_hist_config(const pk_hist *rp)
{
	return &rp->o;
}

pk_session *pk_hist_session(const pk_hist *rp)
{
	return rp->s;
}

const pk_pd_header *pk_hist_header(const pk_hist *rp)
{
	return rp->hdr;
}

size_t pk_hist_nr_events(const pk_hist *rp)
{
	return rp->nr_ev;
}

int pk_hist_leader(const pk_hist *rp, int ev)
{
	return rp->leader[ev];
}

int pk_hist_nr_members(const pk_hist *rp, int ev)
{
	return rp->nr_members[ev];
}

uint64_t pk_hist_nr_samples(const pk_hist *rp, int ev)
{
	return (size_t)ev < rp->nr_ev ? rp->tot_nr[ev] : 0;
}

int pk_hist_entry_event(const pk_hist_entry *e)
{
	return e->ev;
}

uint64_t pk_hist_entry_value(const pk_hist_entry *e, int m, int which)
{
	return e->v[m * PK_HIST_NV + which];
}

void pk_hist_entry_thread(const pk_hist_entry *e, uint32_t *pid, uint32_t *tid)
{
	*pid = e->pid;
	*tid = e->tid;
}

const char *pk_hist_entry_text(const pk_hist_entry *e, int k)
{
	return e->cols[k];
}

uint64_t pk_hist_entry_number(const pk_hist_entry *e, int k)
{
	return e->nums[k];
}

bool pk_hist_entry_resolved(const pk_hist_entry *e, int k)
{
	return !(e->unresolved & (1u << k));
}

const char *pk_hist_entry_dso(const pk_hist_entry *e)
{
	return e->dso;
}

const pk_hist_cnode *pk_hist_entry_chain(const pk_hist_entry *e)
{
	return &e->chain;
}

const pk_pd_branch_entry *pk_hist_entry_branch(const pk_hist_entry *e)
{
	return &e->br;
}

bool pk_hist_entry_nosym(const pk_hist_entry *e, enum pk_hist_side side)
{
	return side == PK_HIST_SIDE_ENTRY ? e->nosym : e->nosym_end[side == PK_HIST_SIDE_TO];
}

int pk_hist_sym_width(const char *text)
{
	static const char tail[] = " (inlined)";
	size_t l = strlen(text), t = sizeof(tail) - 1;
	return (int)(l > t && !strcmp(text + l - t, tail) ? l - t : l);
}
