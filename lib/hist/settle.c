/* libpmukit: what a perf.data file decides of report's histogram when the
 * options did not (pk_hist_settle), as perf report 6.1 decides it.
 *
 * Call chains are shown, with Children, when the samples have them (not
 * under --hierarchy); their order follows Children as asked; the group
 * view when the file has groups; --mem-mode's and a file of tracepoints'
 * default keys; a filter of one comm, dso or symbol hides that column; the
 * branch view when -b asks for it or perf chooses it for a file with the
 * BRANCH_STACK feature (its keys exist only there, and it shows no chains).
 * Invariant: run once, after the options and before pk_hist_setup; it
 * reads the session's evsels and header, never prints. */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The word of -s that named its k-th key, as given ("m" for mispredict),
 * into as. */
static const char *sort_word(const pk_hist_opts *o, int k, char *as, size_t n)
{
	snprintf(as, n, "%s", o->keys[k]->name);
	char *copy = o->sort_list ? strdup(o->sort_list) : NULL;
	int i = 0;
	for (char *t = copy ? strtok(copy, ",") : NULL; t; t = strtok(NULL, ",")) {
		const pk_hist_key *key = pk_hist_key_find(t);
		if (key && key->arch && !strcasecmp(t, key->name))
			continue; /* dropped: made no key */
		if (i++ == k) {
			snprintf(as, n, "%s", t);
			break;
		}
	}
	free(copy);
	return as;
}

/* perf report adds ipc_null after a -s naming "symbol" (not in the
 * branch view, where it adds ipc_lbr: not made here); not to -F's. */
static void settle_ipc(pk_hist_opts *o)
{
	if (o->sort_given && o->sort_ipc_null && !o->branch_view && !o->fields &&
	    o->nr_keys < PK_HIST_MAX_KEYS && o->nr_keys == o->nr_sort_keys)
		o->keys[o->nr_keys++] = pk_hist_key_find("ipc_null");
}

/* perf's keys for the branch view. */
static const char *const view_keys[] = {"comm", "dso_from", "symbol_from", "symbol_to", "cycles"};
/* perf 6.1's --mem-mode order (its local_p_stage_cyc has no column) */
static const char *const mem_keys[] = {"local_weight", "mem", "sym", "dso", "symbol_daddr",
				       "dso_daddr", "snoop", "tlb", "locked", "blocked",
				       "local_ins_lat"};

/* Whether the file's events are all tracepoints (tracepoints), or any
 * samples branch stacks (branches). */
static bool evsels_have(pk_session *s, bool branches)
{
	const pk_pd_reader *r = pk_session_reader(s);
	size_t n = pk_pd_nr_evsels(r);
	for (size_t i = 0; i < n; i++) {
		const pk_pd_evsel *e = pk_pd_evsel_at(r, i);
		if (branches && (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
			return true;
		if (!branches && e->attr.type != PERF_TYPE_TRACEPOINT)
			return false;
	}
	return !branches && n > 0;
}

/* The file's default keys, unless -s or a -F without '+' named them:
 * a "+list" of -F goes after them. */
static bool fields_plus(const pk_hist_opts *o)
{
	return o->fields && o->fields_list && o->fields_list[0] == '+';
}

static bool keys_given(const pk_hist_opts *o)
{
	return o->sort_given || (o->fields && !fields_plus(o));
}

/* A "+list" of -F made again over the keys and Children as settled (its
 * columns start with Children and Self when Children are shown). */
static void refields(pk_hist_opts *o, bool no_children)
{
	if (fields_plus(o)) /* parsed before: no error left to meet */
		(void)pki_hist_fields_apply(o, no_children, NULL);
}

static void set_keys(pk_hist_opts *o, const char *const *names, size_t n)
{
	o->nr_keys = 0;
	for (size_t i = 0; i < n; i++)
		o->keys[o->nr_keys++] = pk_hist_key_find(names[i]);
	o->fields_base = o->nr_keys;
}

/* A filter of one comm, dso or symbol hides that column (perf's elision;
 * the key still makes the entries), unless no column would be left. */
static void elide(pk_hist_opts *o)
{
	uint32_t hide = 0;
	for (int k = 0; k < o->nr_keys; k++) {
		const char *n = o->keys[k]->name;
		if ((o->comms.n == 1 && !strcmp(n, "comm")) || (o->dsos.n == 1 && !strcmp(n, "dso")) ||
		    (o->syms.n == 1 && o->keys[k]->order == PK_HIST_ORD_SYM))
			hide |= 1u << k;
	}
	if (hide != (1u << o->nr_keys) - 1)
		o->hidden_cols = hide;
}

/* -p: perf adds the parent key after the others. */
static void settle_parent(pk_hist_opts *o)
{
	for (int k = 0; k < o->nr_keys; k++)
		if (!strcmp(o->keys[k]->name, "parent"))
			return;
	if (o->parent && o->nr_keys < PK_HIST_MAX_KEYS)
		o->keys[o->nr_keys++] = pk_hist_key_find("parent");
}

static void settle_view(pk_hist *h, pk_session *s, const pk_pd_header *hdr)
{
	pk_hist_opts *o = &h->o;
	bool asked = o->children_set ? o->children : true; /* perf's option */
	bool chains = pki_hist_settle_chains(h, s);
	if (!o->children_set)
		o->children = chains;
	if (!chains)
		o->children = false;
	/* the chains' order follows Children as asked (perf's default: on),
	 * also for a pipe, whose Children go with its evlist still empty */
	if (!o->cg.order_set)
		o->cg.caller = pk_pd_is_pipe(pk_session_reader(s)) ? asked : o->children;
	if (o->hierarchy) /* perf's hierarchy has no Children (chains keep their order) */
		o->children = false;
	if (o->inverted)
		o->cg.caller = true;
	if (o->percent_limit > 0)
		o->cg.min_percent = o->percent_limit;
	if (!o->group_set)
		o->group = hdr->nr_groups > 0;
	if (o->mem_mode && !keys_given(o)) {
		o->mem_mode_default = true;
		set_keys(o, mem_keys, sizeof(mem_keys) / sizeof(mem_keys[0]));
		o->sort_list = NULL; /* the keys' names, perf's order line */
	}
	if (!keys_given(o) && !o->mem_mode && !o->raw_trace && evsels_have(s, false))
		set_keys(o, (const char *const[]){"trace"}, 1); /* perf 6.1's, for tracepoints alone */
	refields(o, asked && !chains); /* perf cancels Children without chains */
	settle_parent(o);
	o->need_chain = o->use_cg || o->children || o->exclude_other;
	elide(o);
}

/* perf 6.1 knows the chains Intel PT's decoder makes from the start, so
 * nothing is counted before this (the first sample). */
void pki_hist_synth_chains(pk_hist *h)
{
	pk_hist_opts *o = &h->o;
	o->use_cg = o->cg.mode != PK_HIST_CG_NONE;
	if (!o->children_set)
		o->children = true;
	if (!o->cg.order_set)
		o->cg.caller = o->children;
	if (o->hierarchy)
		o->children = false;
	if (o->inverted)
		o->cg.caller = true;
	o->need_chain = o->use_cg || o->children;
}

static int settle_branches(pk_hist_opts *o, pk_session *s, pk_error *err)
{
	bool has = evsels_have(s, true);
	o->branch_view = o->branch > 0 ||
			 (o->branch < 0 && has &&
			  pk_pd_has_feature(pk_session_reader(s), PK_FEAT_BRANCH_STACK));
	if (o->branch_view && o->mem_mode) /* perf 6.1's words, before its -b check */
		return pk_err(err, -ENOTSUP, "branch and mem mode incompatible");
	if (o->branch > 0 && !has)
		return pk_err(err, -ENODATA, "Selected -b but no branch data. "
			      "Did you call perf record without -b?");
	for (int k = 0; k < o->nr_keys; k++)
		if ((o->keys[k]->branch && !o->branch_view) || (o->keys[k]->mem && !o->mem_mode)) {
			bool sort = o->sort_given && k < o->nr_sort_keys;
			char as[64];
			return pk_err_at(err, -EINVAL, sort ? "--sort key" : "--fields key",
					 sort ? sort_word(o, k, as, sizeof(as)) : o->keys[k]->name, -1,
					 "a key outside its view (branch, memory)");
		}
	settle_ipc(o);
	if (!o->branch_view)
		return 0;
	o->children = o->use_cg = o->need_chain = false; /* perf shows no chains here */
	if (!keys_given(o)) /* -p's parent key after the view's (perf) */
		set_keys(o, view_keys, sizeof(view_keys) / sizeof(view_keys[0]));
	refields(o, false);
	settle_parent(o);
	return 0;
}

/* perf 6.1 refuses -g (other than none) on a file, not a pipe, whose
 * events sample no call chains (and the session makes none). */
static bool chains_refused(const pk_hist *h, pk_session *s)
{
	bool chains = pk_session_samples_with(s, PERF_SAMPLE_CALLCHAIN);
	return h->o.cg_set && h->o.cg.mode != PK_HIST_CG_NONE && !chains &&
	       !pk_pd_is_pipe(pk_session_reader(s)) && !pk_session_synth_chains(s);
}

int pk_hist_settle(pk_hist *h, pk_session *s, const pk_pd_header *hdr, pk_error *err)
{
	free(h->tw);
	h->tw = NULL, h->nr_tw = 0;
	if (h->o.time_arg) {
		int rc = pk_time_windows_parse(h->o.time_arg, hdr->has_sample_time, hdr->sample_time_first,
					       hdr->sample_time_last, &h->tw, &h->nr_tw, err);
		if (rc)
			return rc;
	}
	settle_view(h, s, hdr);
	int rc = settle_branches(&h->o, s, err);
	elide(&h->o); /* again: the branch view's keys replace the file's defaults */
	bool parent = false;
	for (int k = 0; k < h->o.nr_keys; k++)
		parent |= !strcmp(h->o.keys[k]->name, "parent");
	h->o.need_chain |= parent || h->o.exclude_other; /* the branch view's too */
	bool chains = pk_session_samples_with(s, PERF_SAMPLE_CALLCHAIN);
	if (!rc && parent && !chains && !pk_pd_is_pipe(pk_session_reader(s))) /* perf 6.1's refusal */
		return pk_err(err, -ENOEXEC, "Selected --sort parent, but no callchain data. "
			      "Did you call 'perf record' without -g?");
	if (!rc && h->o.mem_mode && !pk_session_samples_with(s, PERF_SAMPLE_DATA_SRC) &&
	    !pk_pd_is_pipe(pk_session_reader(s))) /* perf 6.1's refusal */
		return pk_err(err, -ENOEXEC, "Selected --mem-mode but no mem data. "
			      "Did you call perf record without -d?");
	if (!rc && chains_refused(h, s))
		rc = pk_err(err, -ENOENT, "-g: the samples have no call chains");
	return rc;
}
