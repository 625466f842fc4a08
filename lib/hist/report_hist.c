/* libpmukit: report's histogram, samples into entries (perf report's
 * table is printed from them by tools/pmukit/report_print.c).
 *
 * Each sample adds its period to the entry of its address (Self); with
 * Children, also to the entry of every other function on its chain, once
 * per sample however often the function recurs. Group members (GROUP_DESC)
 * share their leader's entries in the group view, one value each. Texts
 * that perf makes when printing (pid's last comm, a comm that was ":tid"
 * before the task's first COMM) are made at the end, and entries that then
 * agree are merged, as perf's collapse does. Totals count every sample;
 * --comm, --dsos, ... only hide entries, so percentages stay of all unless
 * --percentage relative. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "session/pd_session.h"
#include "report_keys.h"

#define NBUCKETS 65536

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ULL;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

bool rp_list_has(const rp_list *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i], s))
			return true;
	return false;
}

static bool grow_u64(uint64_t **p, size_t old, size_t n)
{
	uint64_t *np = realloc(*p, n * sizeof(uint64_t));
	if (!np)
		return false;
	memset(np + old, 0, (n - old) * sizeof(uint64_t));
	*p = np;
	return true;
}

/* Group view: each evsel's leader and place from GROUP_DESC. The file's
 * evsels, then room for the synthetic ones an Arm SPE file adds while it
 * is read (pk_session_evsel_at). Called again for a pipe once its events
 * and features are read (rp_hist_pipe_settle): nothing is counted yet. */
static int setup_events(report *rp, struct pk_session *s, const pk_pd_header *hdr)
{
	size_t n = pk_pd_nr_evsels(s->reader) + PK_SPE_NR_KINDS;
	rp->hdr = hdr;
	free(rp->leader);
	free(rp->member);
	free(rp->nr_members);
	rp->leader = calloc(n + 1, sizeof(int));
	rp->member = calloc(n + 1, sizeof(int));
	rp->nr_members = calloc(n + 1, sizeof(int));
	if (!rp->leader || !rp->member || !rp->nr_members ||
	    !grow_u64(&rp->tot_period, 0, n + 1) || !grow_u64(&rp->tot_nr, 0, n + 1) ||
	    !grow_u64(&rp->nf_period, 0, n + 1) || !grow_u64(&rp->nf_nr, 0, n + 1))
		return -1;
	rp->nr_ev = n;
	for (size_t i = 0; i < n; i++) {
		rp->leader[i] = (int)i;
		rp->nr_members[i] = 1;
	}
	size_t nf = pk_pd_nr_evsels(s->reader);
	rp->forced_group = rp->group_set && hdr && !hdr->nr_groups && nf > 1;
	if (!rp->group || !hdr)
		return 0;
	for (size_t k = 0; rp->forced_group && k < nf; k++) {
		rp->leader[k] = 0;
		rp->member[k] = (int)k;
		rp->nr_members[0] = (int)nf;
	}
	for (uint32_t g = 0; g < hdr->nr_groups; g++) {
		uint32_t l = hdr->groups[g].leader_idx, m = hdr->groups[g].nr_members;
		if (l >= n || m > n - l || m < 1)
			continue;
		for (uint32_t k = 0; k < m; k++) {
			rp->leader[l + k] = (int)l;
			rp->member[l + k] = (int)k;
		}
		rp->nr_members[l] = (int)m;
	}
	return 0;
}

int rp_hist_setup(report *rp, struct pk_session *s, const pk_pd_header *hdr)
{
	rp->s = s;
	rp->buckets = calloc(NBUCKETS, sizeof(*rp->buckets));
	if (!rp->buckets)
		return -1;
	return setup_events(rp, s, hdr);
}

int rp_hist_pipe_settle(report *rp, struct pk_session *s, pk_pd_header *hdr)
{
	pk_error err;
	pk_error_clear(&err);
	pk_pd_header_release(hdr);
	pk_pd_header_read(s->reader, hdr, &err);
	if (!rp->group_set) /* perf's group view from the stream's GROUP_DESC */
		rp->group = hdr->nr_groups > 0;
	rp_settle_chains(rp, s);
	return setup_events(rp, s, hdr);
}

static char level_of(unsigned cpumode)
{
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL: return 'k';
	case PERF_RECORD_MISC_HYPERVISOR: return 'H';
	case PERF_RECORD_MISC_GUEST_KERNEL: return 'g';
	case PERF_RECORD_MISC_GUEST_USER: return 'u';
	default: return '.';
	}
}

void rp_resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t ip, rp_loc *l)
{
	const pk_addr_loc *a = pk_machine_lookup(m, pid, cpumode, ip);
	l->sym = a->sym;
	l->dso = a->dso;
	l->dso_short = a->dso_short;
	l->ip = ip;
	l->sym_start = a->sym_start;
	l->dso_addr = a->dso_addr;
	l->sym_size = a->sym_size;
	l->map_size = a->map_size;
	l->dso_ordinal = a->dso_ordinal;
	l->has_map = a->has_map;
	l->level = level_of(cpumode);
}

/* The chain's addresses, callee first, markers followed; 0 entries when a
 * marker is corrupt (perf drops such a chain). */
static size_t resolve_chain(report *rp, const pk_pd_sample *smp, unsigned mode, rp_loc *out)
{
	size_t n = 0;
	unsigned max = rp->cg.max_stack ? rp->cg.max_stack : PK_MAX_STACK;
	for (uint64_t i = 0; i < smp->callchain_nr; i++) {
		uint64_t ip = smp->callchain[i];
		int m = pk_callchain_marker(ip, &mode);
		if (m < 0)
			return 0;
		if (m)
			continue;
		if (n == PK_MAX_STACK)
			continue;
		rp_resolve(rp->s->machine, smp->pid, mode, ip, &out[n]);
		const char *inl = pki_chain_inlined(rp->s, smp, i);
		if (inl) /* --call-graph dwarf: an inlined function (perf's fake symbol) */
			out[n].sym = inl;
		n++;
	}
	/* perf keeps --max-stack entries from the end it walks from: the
	 * root in caller order */
	if (n > max && rp->cg.caller) {
		memmove(out, out + (n - max), max * sizeof(*out));
		n = max;
	}
	return n < max ? n : max;
}

/* The entry of these keys, made when new. A new entry is hidden when the
 * sample that makes it is (hid): perf 6.1 marks an entry filtered by its
 * first sample only, and later samples of any kind add to it (so with
 * --symbols X and no symbol key a row is its whole dso or comm, shown
 * when its first sample was in X). */
rp_entry *rp_entry_for(report *rp, const rp_ctx *c, int ev, bool hid)
{
	char cols[RP_MAX_KEYS][RP_NAME_MAX];
	uint64_t nums[RP_MAX_KEYS];
	char id[RP_MAX_KEYS * (RP_NAME_MAX + 24) + 16];
	/* the id: event, then per key its text and its number (hex digits) */
	size_t n = 0;
	for (unsigned v = (unsigned)ev; v || !n; v /= 10)
		id[n++] = (char)('0' + v % 10); /* the digits reversed: a key, not a text */
	for (int k = 0; k < rp->nr_keys; k++) {
		rp->keys[k]->fill(c, cols[k], sizeof(cols[k]), &nums[k]);
		size_t l = strlen(cols[k]);
		id[n++] = '\x01';
		memcpy(id + n, cols[k], l);
		n += l;
		id[n++] = '\x02';
		for (uint64_t v = nums[k]; v; v >>= 4)
			id[n++] = "0123456789abcdef"[v & 15];
	}
	id[n] = '\0';
	size_t h = hash_str(id) % NBUCKETS;
	for (rp_entry *e = rp->buckets[h]; e; e = e->hnext)
		if (!strcmp(e->id, id))
			return e;
	rp_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->v = calloc((size_t)rp->nr_members[ev] * RP_NV, sizeof(uint64_t));
	e->id = strdup(id);
	if (!e->v || !e->id) {
		free(e->v);
		free(e->id);
		free(e);
		return NULL;
	}
	e->ev = ev;
	e->filtered = hid;
	/* perf: the map's kind; without a map, the sample's mode */
	e->level = c->loc->has_map ? c->loc->level : c->level;
	e->pid = c->smp->pid;
	e->tid = c->smp->tid;
	e->nosym = !c->loc->sym;
	e->nosym_end[0] = c->from && !c->from->sym;
	e->nosym_end[1] = c->to && !c->to->sym;
	e->dso = rp_dso_short(c->loc);
	if (c->br)
		e->br = *c->br;
	for (int k = 0; k < rp->nr_keys; k++) {
		const rp_key *key = rp->keys[k];
		const rp_loc *l = key->side == RP_SIDE_FROM ? c->from : key->side == RP_SIDE_TO ? c->to
											     : c->loc;
		e->nums[k] = nums[k];
		e->cols[k] = strdup(cols[k]);
		if ((key->order == RP_ORD_SYM && !c->loc->sym) ||
		    (key->fill == rp_keys[RP_KEY_DSO].fill && !c->loc->has_map) ||
		    (key->unres == RP_U_SYM && !l->sym) || (key->unres == RP_U_MAP && !l->has_map))
			e->unresolved |= (uint8_t)(1u << k);
	}
	e->hnext = rp->buckets[h];
	rp->buckets[h] = e;
	rp->nr_entries++;
	return e;
}

/* Whether --comm, --pid, --tid, --dsos, --symbols hide this address. */
bool rp_hidden(report *rp, const rp_ctx *c)
{
	if (rp->comms.n && !rp_list_has(&rp->comms, pk_machine_comm(rp->s->machine, c->smp->pid,
								       c->smp->tid)))
		return true;
	char num[16];
	if (rp->pids.n) {
		snprintf(num, sizeof(num), "%u", c->smp->pid);
		if (!rp_list_has(&rp->pids, num))
			return true;
	}
	if (rp->tids.n) {
		snprintf(num, sizeof(num), "%u", c->smp->tid);
		if (!rp_list_has(&rp->tids, num))
			return true;
	}
	if (rp->dsos.n) {
		if (!rp_list_has(&rp->dsos, c->loc->dso) &&
		    !rp_list_has(&rp->dsos, rp_dso_short(c->loc)))
			return true;
	}
	if (rp->syms.n && (!c->loc->sym || !rp_list_has(&rp->syms, c->loc->sym)))
		return true;
	return false;
}

static void add_chain(report *rp, rp_entry *e, const rp_loc *chain, size_t n, size_t at,
		      uint64_t period)
{
	if (!rp->use_cg || !n)
		return;
	size_t depth = rp->cg.caller ? at + 1 : n - at;
	if (depth > e->max_depth)
		e->max_depth = depth;
	if (rp->cg.caller)
		rp_cnode_add(&e->chain, chain, at + 1, true, period);
	else
		rp_cnode_add(&e->chain, chain + at, n - at, false, period);
}

/* Children: every other function of the chain, once per sample. */
static int add_callers(report *rp, rp_ctx *c, rp_entry *self, const rp_loc *chain, size_t n,
		       int ev, int mi, uint64_t period, bool hid)
{
	rp_entry *seen[PK_MAX_STACK + 1];
	size_t nseen = 0;
	seen[nseen++] = self;
	bool repeat = false; /* perf's quirk: see rp_key_children_repeat */
	for (int k = 0; k < rp->nr_keys; k++)
		repeat |= rp_key_children_repeat(rp->keys[k]);
	for (size_t step = 0; step < n; step++) {
		/* perf walks the chain in its print order: root first for caller */
		size_t i = rp->cg.caller ? n - 1 - step : step;
		/* perf keys a chain's unresolved address by the address itself,
		 * not by its offset in the map as the sample's own entry: one
		 * entry per process and load address, apart from the Self one */
		rp_loc at = chain[i];
		/* an address without a map takes the level of the last one
		 * with a map on the walk, else the sample's (perf 6.1) */
		if (at.has_map || at.sym)
			c->level = at.level;
		if (!at.sym)
			at.dso_addr = at.ip;
		c->loc = &at;
		rp_entry *e = rp_entry_for(rp, c, ev, hid); /* the sample's filters (perf) */
		if (!e)
			return 1;
		bool dup = false;
		for (size_t k = 0; k < nseen && !dup && !repeat; k++)
			dup = seen[k] == e;
		if (dup)
			continue;
		seen[nseen++] = e;
		e->v[mi * RP_NV + RP_ACC] += period;
		e->v[mi * RP_NV + RP_ACC_NR]++;
		add_chain(rp, e, chain, n, i, period);
	}
	return 0;
}

int rp_hist_sample(void *arg, struct pk_session *s, const pk_pd_event *ev,
		   const pk_pd_sample *smp)
{
	report *rp = arg;
	if (rp->pipe_hdr) {
		pk_pd_header *h = rp->pipe_hdr;
		rp->pipe_hdr = NULL;
		if (rp_hist_pipe_settle(rp, s, h) < 0)
			return -ENOMEM;
	}
	if (!rp->synth_checked) {
		rp->synth_checked = true;
		if (pk_session_synth_chains(s) && !rp->use_cg)
			rp_synth_chains(rp);
	}
	int ei = ev->evsel->idx;
	if ((size_t)ei >= rp->nr_ev)
		return 0;
	if (rp->cpus && (smp->cpu >= rp->nr_cpus || !rp->cpus[smp->cpu]))
		return 0;
	if ((rp->time_start && smp->time < rp->time_start) || (rp->time_end && smp->time > rp->time_end))
		return 0;
	int lead = rp->leader[ei], mi = rp->member[ei];
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	rp_loc loc, chain[PK_MAX_STACK];
	rp_resolve(rp->s->machine, smp->pid, cpumode, smp->ip, &loc);
	/* the chain is looked at for the tree, Children and parent only */
	size_t n = smp->callchain_nr && rp->need_chain ? resolve_chain(rp, smp, cpumode, chain) : 0;
	rp_ctx c = {.m = rp->s->machine, .smp = smp, .loc = &loc, .chain = chain, .nr_chain = n,
		    .hdr = rp->hdr, .ns = rp->ns, .level = loc.level,
		    .raw_trace = rp->raw_trace, .s = rp->s, .evsel = ev->evsel};
	/* --mem-mode: the weight, 1 for none (perf's cost) */
	uint64_t period = !rp->mem_mode ? smp->period : smp->weight ? smp->weight : 1;
	if (rp->branch_view)
		return rp_branch_sample(rp, &c, ei, lead, mi);
	rp->tot_period[ei] += period;
	rp->tot_nr[ei]++;
	bool hid = rp_hidden(rp, &c);
	rp_entry *e = rp_entry_for(rp, &c, lead, hid);
	if (!e)
		return 1;
	if (!e->filtered) { /* perf counts by the entry's mark, not the sample's */
		rp->nf_period[ei] += period;
		rp->nf_nr[ei]++;
	}
	e->v[mi * RP_NV + RP_SELF] += period;
	e->v[mi * RP_NV + RP_SELF_NR]++;
	e->v[mi * RP_NV + RP_ACC] += period;
	e->v[mi * RP_NV + RP_ACC_NR]++;
	e->v[mi * RP_NV + RP_WEIGHT] += smp->weight;
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL: e->v[mi * RP_NV + RP_SYS] += period; break;
	case PERF_RECORD_MISC_USER: e->v[mi * RP_NV + RP_US] += period; break;
	case PERF_RECORD_MISC_GUEST_KERNEL: e->v[mi * RP_NV + RP_GSYS] += period; break;
	case PERF_RECORD_MISC_GUEST_USER: e->v[mi * RP_NV + RP_GUS] += period; break;
	default: break;
	}
	if (rp->children) {
		add_chain(rp, e, chain, n, rp->cg.caller ? n - 1 : 0, period);
		return add_callers(rp, &c, e, chain, n, lead, mi, period, hid);
	}
	add_chain(rp, e, chain, n, rp->cg.caller ? n - 1 : 0, period);
	return 0;
}

/* ---- the end: texts made late, merged entries, order ---- */

static bool late_text(const report *rp, int k, const rp_entry *e, char *b, size_t n)
{
	const char *name = rp->keys[k]->name;
	pk_machine *m = rp->s->machine;
	if (!strcmp(name, "pid")) {
		snprintf(b, n, "%7d:%s", (int)e->tid, pk_machine_comm(m, e->pid, e->tid));
		return true;
	}
	char dflt[16];
	snprintf(dflt, sizeof(dflt), ":%u", e->tid);
	if (!strcmp(name, "comm") && !strcmp(e->cols[k], dflt)) {
		/* perf names a task's earlier samples after its first COMM */
		snprintf(b, n, "%s", pk_machine_comm(m, e->pid, e->tid));
		return true;
	}
	return false;
}

static const report *sort_rp;

int rp_cmp_key(const report *rp, int k, const rp_entry *x, const rp_entry *y)
{
	enum rp_order o = rp->keys[k]->order;
	bool ux = x->unresolved & (1u << k), uy = y->unresolved & (1u << k);
	int c = 0;
	switch (o) {
	case RP_ORD_SYM:
	case RP_ORD_TEXT:
	case RP_ORD_ADDR:
		if (ux != uy) /* no symbol or dso: after those with one */
			return ux ? 1 : -1;
		/* unresolved symbols and the ADDR keys: by number */
		if (o == RP_ORD_TEXT || (o == RP_ORD_SYM && !ux))
			c = strcmp(x->cols[k], y->cols[k]);
		break;
	case RP_ORD_DESC_TEXT:
		if (ux != uy)
			return ux ? -1 : 1;
		c = strcmp(y->cols[k], x->cols[k]);
		break;
	case RP_ORD_DESC_NUM:
		if (x->nums[k] != y->nums[k])
			return x->nums[k] > y->nums[k] ? -1 : 1;
		break;
	case RP_ORD_WEIGHT:
		if (x->v[RP_WEIGHT] != y->v[RP_WEIGHT])
			return x->v[RP_WEIGHT] > y->v[RP_WEIGHT] ? -1 : 1;
		break;
	case RP_ORD_COUNT:
	case RP_ORD_PERIOD:
	case RP_ORD_NUM:
		break;
	}
	if (c)
		return c;
	if (x->nums[k] != y->nums[k]) /* signed: tid and cpu -1 come first */
		return (int64_t)x->nums[k] < (int64_t)y->nums[k] ? -1 : 1;
	return 0;
}

/* Output order: Children, then Self (each member in the group view), then
 * the keys. */
static int cmp_out(const void *a, const void *b)
{
	const rp_entry *x = *(rp_entry *const *)a, *y = *(rp_entry *const *)b;
	const report *rp = sort_rp;
	int nm = rp->nr_members[x->ev];
	if (rp->fields)
		return rp_fields_cmp(rp, x, y);
	if (rp->children && x->v[RP_ACC] != y->v[RP_ACC])
		return x->v[RP_ACC] > y->v[RP_ACC] ? -1 : 1;
	/* perf: equal Children of one thread, the longer chains first in
	 * caller order, the shorter first in callee order */
	if (rp->children && rp->use_cg && x->tid == y->tid && x->pid == y->pid &&
	    x->max_depth && y->max_depth && x->max_depth != y->max_depth)
		return (x->max_depth > y->max_depth) == rp->cg.caller ? -1 : 1;
	for (int m = 0; m < nm; m++)
		if (x->v[m * RP_NV + RP_SELF] != y->v[m * RP_NV + RP_SELF])
			return x->v[m * RP_NV + RP_SELF] > y->v[m * RP_NV + RP_SELF] ? -1 : 1;
	for (int k = 0; k < rp->nr_keys; k++) {
		int c = rp_cmp_key(rp, k, x, y);
		if (c)
			return c;
	}
	return 0;
}

static int cmp_identity(const void *a, const void *b)
{
	const rp_entry *x = *(rp_entry *const *)a, *y = *(rp_entry *const *)b;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	for (int k = 0; k < sort_rp->nr_keys; k++) {
		int c = strcmp(x->cols[k], y->cols[k]);
		if (c)
			return c;
		if (x->nums[k] != y->nums[k] && strcmp(sort_rp->keys[k]->name, "pid") &&
		    strcmp(sort_rp->keys[k]->name, "comm"))
			return x->nums[k] < y->nums[k] ? -1 : 1;
	}
	return 0;
}

static void free_entry(rp_entry *e, int nr_keys)
{
	free(e->id);
	for (int k = 0; k < nr_keys; k++)
		free(e->cols[k]);
	free(e->v);
	rp_cnode_free(&e->chain);
	free(e);
}

/* All entries in an array, late texts made, equal ones merged. */
rp_entry **rp_hist_collect(report *rp, size_t *nout)
{
	rp_entry **all = malloc((rp->nr_entries ? rp->nr_entries : 1) * sizeof(*all));
	if (!all)
		return NULL;
	size_t n = 0;
	bool changed = false;
	for (size_t b = 0; b < NBUCKETS; b++)
		for (rp_entry *e = rp->buckets[b]; e; e = e->hnext) {
			all[n++] = e;
			for (int k = 0; k < rp->nr_keys; k++) {
				char t[RP_NAME_MAX];
				if (late_text(rp, k, e, t, sizeof(t)) && strcmp(t, e->cols[k])) {
					char *d = strdup(t);
					if (d) {
						free(e->cols[k]);
						e->cols[k] = d;
						changed = true;
					}
				}
			}
		}
	sort_rp = rp;
	if (changed && n > 1) {
		qsort(all, n, sizeof(*all), cmp_identity);
		size_t w = 0;
		for (size_t i = 0; i < n; i++) {
			if (w && !cmp_identity(&all[w - 1], &all[i])) {
				rp_entry *d = all[w - 1], *e = all[i];
				for (int v = 0; v < rp->nr_members[d->ev] * RP_NV; v++)
					d->v[v] += e->v[v];
				d->filtered = d->filtered && e->filtered;
				rp_cnode_merge(&d->chain, &e->chain);
				e->id[0] = '\0'; /* freed with the buckets, never found again */
				continue;
			}
			all[w++] = all[i];
		}
		n = w;
	}
	qsort(all, n, sizeof(*all), cmp_out);
	*nout = n;
	return all;
}

void rp_hist_free(report *rp)
{
	for (size_t b = 0; rp->buckets && b < NBUCKETS; b++) {
		rp_entry *e = rp->buckets[b];
		while (e) {
			rp_entry *nx = e->hnext;
			free_entry(e, rp->nr_keys);
			e = nx;
		}
	}
	free(rp->buckets);
	free(rp->leader);
	free(rp->member);
	free(rp->nr_members);
	free(rp->tot_period);
	free(rp->tot_nr);
	free(rp->nf_period);
	free(rp->nf_nr);
}

/* ---- totals and texts the printers ask for ---- */

uint64_t rp_total(const report *rp, int ev)
{
	return rp->relative ? rp->nf_period[ev] : rp->tot_period[ev];
}

uint64_t rp_total_of(const report *rp, int ev, bool nr)
{
	if (rp->relative)
		return nr ? rp->nf_nr[ev] : rp->nf_period[ev];
	return nr ? rp->tot_nr[ev] : rp->tot_period[ev];
}

double rp_pct(const report *rp, const rp_entry *e, int m, int which)
{
	uint64_t t = rp_total_of(rp, e->ev + m, false);
	return t ? 100.0 * (double)e->v[m * RP_NV + which] / (double)t : 0.0;
}

/* An entry of the table (the widths count it even under --percent-limit). */
bool rp_listed(const report *rp, const rp_entry *e)
{
	if (e->filtered)
		return false;
	/* group view: shown when any member has a value */
	uint64_t acc = 0, self = 0;
	for (int m = 0; m < rp->nr_members[e->ev]; m++) {
		acc |= e->v[m * RP_NV + RP_ACC];
		self |= e->v[m * RP_NV + RP_SELF];
	}
	if (!acc && !self)
		return false;
	return rp->children || self;
}

bool rp_shown(const report *rp, const rp_entry *e)
{
	if (!rp_listed(rp, e))
		return false;
	if (rp->percent_limit > 0 && rp_pct(rp, e, 0, rp->children ? RP_ACC : RP_SELF) < rp->percent_limit)
		return false;
	return true;
}

void rp_col_text(const report *rp, const rp_entry *e, int k, char *b, size_t n)
{
	if (rp->keys[k]->order == RP_ORD_COUNT || rp->keys[k]->order == RP_ORD_PERIOD) {
		snprintf(b, n, "%12" PRIu64, e->v[rp->keys[k]->order == RP_ORD_COUNT ? RP_SELF_NR : RP_SELF]);
		return;
	}
	if (rp->keys[k]->order == RP_ORD_WEIGHT) {
		snprintf(b, n, "%" PRIu64, e->v[RP_WEIGHT]);
		return;
	}
	if (rp->keys[k]->order == RP_ORD_SYM || rp->keys[k]->level) {
		snprintf(b, n, "[%c] %s", e->level, e->cols[k]);
		return;
	}
	snprintf(b, n, "%s", e->cols[k]);
}

/* Chains the session makes (Intel PT's report): the graph and Children
 * as for a file whose events sample chains, settled at the first sample
 * (perf 6.1 knows them from the start: nothing is counted before). */
void rp_synth_chains(report *rp)
{
	rp->use_cg = rp->cg.mode != RP_CG_NONE;
	if (!rp->children_set)
		rp->children = true;
	if (!rp->cg.order_set)
		rp->cg.caller = rp->children;
	if (rp->hierarchy)
		rp->children = false;
	if (rp->inverted)
		rp->cg.caller = true;
	rp->need_chain = rp->use_cg || rp->children;
}

/* Whether the file's events sample call chains: the call graph shown unless
 * -g none, and what needs each sample's chain resolved. For a pipe, again at
 * its first sample, once its attrs have come in the stream (perf 6.1 then
 * shows the graph but keeps the Children it decided on an empty evlist). */
bool rp_settle_chains(report *rp, pk_session *s)
{
	bool chains = false;
	for (size_t i = 0; i < pk_pd_nr_evsels(s->reader); i++)
		if (pk_pd_evsel_at(s->reader, i)->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			chains = true;
	rp->use_cg = chains && rp->cg.mode != RP_CG_NONE;
	rp->need_chain = rp->use_cg || rp->children;
	for (int k = 0; k < rp->nr_keys; k++)
		if (!strcmp(rp->keys[k]->name, "parent"))
			rp->need_chain = true;
	return chains;
}

/* ---- the branch view (report_branch.c: its keys, its statistics) ---- */

/* A branch end, in the first address space that holds it. */
static void resolve_end(pk_machine *m, uint32_t pid, uint64_t addr, rp_loc *l)
{
	rp_resolve(m, pid, PERF_RECORD_MISC_USER, addr, l);
	if (!l->has_map)
		rp_resolve(m, pid, PERF_RECORD_MISC_KERNEL, addr, l);
	if (!l->has_map)
		l->level = 'H';
}

int rp_branch_sample(report *rp, rp_ctx *c, int ei, int lead, int mi)
{
	const pk_pd_sample *smp = c->smp;
	for (uint64_t i = 0; i < smp->branch_nr; i++) {
		rp_loc from, to, target;
		resolve_end(c->m, smp->pid, smp->branch[i].from, &from);
		resolve_end(c->m, smp->pid, smp->branch[i].to, &to);
		/* sym and dso: the target, by address, at the sample's level */
		target = to;
		target.level = c->level;
		if (!target.sym)
			target.dso_addr = target.ip;
		c->br = &smp->branch[i];
		c->from = &from;
		c->to = &to;
		c->loc = &target;
		bool hid = rp_hidden(rp, c);
		rp_entry *e = rp_entry_for(rp, c, lead, hid);
		if (!e)
			return 1;
		rp->tot_period[ei]++;
		rp->tot_nr[ei]++;
		if (!e->filtered) {
			rp->nf_period[ei]++;
			rp->nf_nr[ei]++;
		}
		e->v[mi * RP_NV + RP_SELF]++;
		e->v[mi * RP_NV + RP_SELF_NR]++;
		e->v[mi * RP_NV + RP_ACC]++;
		e->v[mi * RP_NV + RP_ACC_NR]++;
	}
	return 0;
}
