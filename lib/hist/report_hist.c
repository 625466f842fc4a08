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
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/strmap.h"
#include "session/pd_session.h"
#include "symbols/sy_internal.h"
#include "report_keys.h"

static bool list_has(const pk_hist_list *l, const char *s)
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
 * and features are read (pipe_settle): nothing is counted yet. */
static int setup_events(pk_hist *rp, struct pk_session *s, const pk_pd_header *hdr)
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
	rp->o.forced_group = rp->o.group_set && hdr && !hdr->nr_groups && nf > 1;
	if (!rp->o.group || !hdr)
		return 0;
	for (size_t k = 0; rp->o.forced_group && k < nf; k++) {
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

int pk_hist_setup(pk_hist *rp, struct pk_session *s, pk_pd_header *hdr)
{
	rp->s = s;
	if (pk_pd_is_pipe(s->reader))
		rp->pipe_hdr = hdr;
	pki_hist_filters_setup(rp);
	return setup_events(rp, s, hdr) < 0 ? -ENOMEM : 0;
}

/* A pipe's events and groups once its attrs and features are read (at its
 * first sample): hdr read again, the group view as its GROUP_DESC says. */
static int pipe_settle(pk_hist *rp, struct pk_session *s, pk_pd_header *hdr)
{
	pk_error err;
	pk_error_clear(&err);
	pk_pd_header_release(hdr);
	pk_pd_header_read(s->reader, hdr, &err);
	if (!rp->o.group_set) /* perf's group view from the stream's GROUP_DESC */
		rp->o.group = hdr->nr_groups > 0;
	pki_hist_settle_chains(rp, s);
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

void pki_hist_resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t ip, pki_hist_loc *l)
{
	const pk_addr_loc *a = pk_machine_lookup(m, pid, cpumode, ip);
	l->sym = a->sym;
	l->dso = a->dso;
	l->dso_short = a->dso_short;
	l->dso_long = a->dso_long;
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
static size_t resolve_chain(pk_hist *rp, const pk_pd_sample *smp, unsigned mode, pki_hist_loc *out)
{
	size_t n = 0;
	unsigned max = rp->o.cg.max_stack;
	const char *const *inls = pki_chain_inlines(rp->s, smp); /* --call-graph dwarf's */
	for (uint64_t i = 0; i < smp->callchain_nr; i++) {
		uint64_t ip = smp->callchain[i];
		int m = pk_callchain_marker(ip, &mode);
		if (m < 0)
			return 0;
		if (m)
			continue;
		if (n == PK_MAX_STACK)
			continue;
		pki_hist_resolve(rp->s->machine, smp->pid, mode, ip, &out[n]);
		if (rp->o.hide_unresolved && !out[n].sym) /* -U: perf drops the entry */
			continue;
		if (inls && inls[i]) /* an inlined function (perf's fake symbol) */
			out[n].sym = inls[i];
		n++;
	}
	/* perf keeps --max-stack entries from the end it walks from: the
	 * root in caller order */
	if (n > max && rp->o.cg.caller) {
		memmove(out, out + (n - max), max * sizeof(*out));
		n = max;
	}
	return n < max ? n : max;
}

/* ---- the entry cache: a sample's keys to its entry without their texts ----
 * Under keys whose texts are functions of the thread's name and the
 * address's symbol and dso alone (comm, pid, dso, sym: the default and the
 * common -s lists), an entry is found again by those inputs (the task and
 * the machine's comm version, the dso and symbol pointers, the symbol's
 * start or the address), without making and hashing the texts: a Children
 * pass asks for an entry per function of every chain. A set of two slots
 * holds the last two entries of its inputs' hash; a miss takes the texts'
 * way and fills the set's first slot (its entry moved to the second).
 * Entries are never freed or moved before pk_hist_collect, which ends the
 * cache's use. */
#define FAST_SLOTS 16384u

typedef struct pki_hist_fast {
	pk_hist_entry *e;
	const char *sym, *dso, *dso_short;
	uint64_t addr, comm_version;
	uint32_t pid, tid;
	int ev;
	bool has_map;
} pki_hist_fast;

/* Whether every key's text is made from the comm and the location only. */
static bool keys_fast(const pk_hist *rp)
{
	static const char *const ok[] = {"comm", "pid", "dso", "sym", "symbol"};
	if (rp->o.verbose) /* -v's dso and symbol texts are made by the keys */
		return false;
	for (int k = 0; k < rp->o.nr_keys; k++) {
		bool found = false;
		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]) && !found; i++)
			found = !strcmp(rp->o.keys[k]->name, ok[i]);
		if (!found || rp->o.keys[k]->side != PK_HIST_SIDE_ENTRY)
			return false;
	}
	return true;
}

/* c's inputs as a slot's (addr: what the sym key shows and keys by). */
static void fast_inputs(const pk_hist *rp, const pki_hist_ctx *c, int ev, pki_hist_fast *f)
{
	const pki_hist_loc *l = c->loc;
	*f = (pki_hist_fast){.sym = l->sym, .dso = l->dso, .dso_short = l->dso_short,
			     .addr = l->sym ? l->sym_start : l->has_map ? l->dso_addr : l->ip,
			     .comm_version = pk_machine_comm_version(rp->s->machine),
			     .pid = c->smp->pid, .tid = c->smp->tid, .ev = ev, .has_map = l->has_map};
}

static pki_hist_fast *fast_slot(pk_hist *rp, const pki_hist_fast *f)
{
	uint64_t h = f->addr ^ (uint64_t)(uintptr_t)f->sym * 31 ^ (uint64_t)(uintptr_t)f->dso * 17 ^
		     ((uint64_t)f->tid << 32) ^ f->comm_version * 7 ^ (uint64_t)f->ev;
	h *= 0x9e3779b97f4a7c15ULL;
	return &rp->fast[((h >> 40) % (FAST_SLOTS / 2)) * 2];
}

static bool fast_same(const pki_hist_fast *a, const pki_hist_fast *b)
{
	return a->addr == b->addr && a->sym == b->sym && a->dso == b->dso && a->tid == b->tid &&
	       a->pid == b->pid && a->comm_version == b->comm_version && a->ev == b->ev &&
	       a->dso_short == b->dso_short && a->has_map == b->has_map;
}

/* ---- the sample cache: a sample's raw inputs to its own entry ----
 * Before the entry cache, a sample's own entry is found by what the sample
 * brings (its IP, mode, pid, tid and event) with the process's maps version
 * (unique across map groups: the address resolves the same while it holds)
 * and the machine's comm version, without resolving the address: one probe
 * where resolving and the entry cache take two (and two cache misses on a
 * file of many addresses). It holds only entries perf's own look-up finds
 * (the address in a map or on a symbol: perf_entry's e) and applies under
 * the entry cache's keys without filters, -U or --ignore-callees, which
 * look at the resolved address. Direct mapped; cleared with the entry
 * cache at pk_hist_collect. */
#define DIRECT_SLOTS 16384u

typedef struct pki_hist_direct {
	pk_hist_entry *e;
	uint64_t ip, maps_version, comm_version;
	uint32_t pid, tid;
	int ev;
	unsigned cpumode;
} pki_hist_direct;

static inline bool filters(const pk_hist *rp);

/* Whether the sample cache applies (decided at the first sample). */
static bool direct_applies(pk_hist *rp)
{
	if (!rp->direct_state)
		rp->direct_state = keys_fast(rp) && !filters(rp) && !rp->o.hide_unresolved &&
					   !(rp->re_state & 2) && !rp->o.branch_view &&
					   (rp->direct = calloc(DIRECT_SLOTS, sizeof(*rp->direct)))
					   ? 1
					   : -1;
	return rp->direct_state > 0;
}

/* The sample's slot and its key in *k (NULL when the cache does not apply
 * or the address has no map group); k->e is the slot's entry on a hit. */
static pki_hist_direct *direct_slot(pk_hist *rp, const pk_pd_sample *smp, unsigned cpumode, int ev,
				    pki_hist_direct *k)
{
	if (!direct_applies(rp))
		return NULL;
	pk_machine *m = rp->s->machine;
	*k = (pki_hist_direct){.ip = smp->ip, .maps_version = pk_machine_maps_version(m, smp->pid, cpumode),
			       .comm_version = pk_machine_comm_version(m), .pid = smp->pid, .tid = smp->tid,
			       .ev = ev, .cpumode = cpumode};
	if (!k->maps_version)
		return NULL;
	uint64_t h = (k->ip ^ k->maps_version * 31 ^ ((uint64_t)k->tid << 32) ^ k->comm_version * 7 ^
		      (uint64_t)ev) * 0x9e3779b97f4a7c15ULL;
	pki_hist_direct *d = &rp->direct[(h >> 40) % DIRECT_SLOTS];
	if (d->e && d->ip == k->ip && d->maps_version == k->maps_version && d->tid == k->tid &&
	    d->comm_version == k->comm_version && d->pid == k->pid && d->ev == ev && d->cpumode == cpumode)
		k->e = d->e;
	return d;
}

static pk_hist_entry *entry_slow(pk_hist *rp, const pki_hist_ctx *c, int ev, bool hid);
static void in_add(pk_hist *rp, pk_hist_entry *e);
static int table_cmp(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y);
static void free_entry(pk_hist_entry *e);

/* The thread instance of the sample's tid (a tid used again after its
 * thread ended is another: perf's struct thread); 0 when none. */
static uint64_t thread_of(const pki_hist_ctx *c)
{
	const thread *t = c->m ? pki_sy_thread_find(c->m, c->smp->tid) : NULL;
	return t ? t->gen : 0;
}

/* The entry of these keys, made when new (the cache first, when it
 * applies). */
pk_hist_entry *pki_hist_entry_for(pk_hist *rp, const pki_hist_ctx *c, int ev, bool hid)
{
	if (!rp->fast_state) /* the keys are settled by the first sample */
		rp->fast_state = keys_fast(rp) && (rp->fast = calloc(FAST_SLOTS, sizeof(*rp->fast)))
					 ? 1
					 : -1;
	if (rp->fast_state < 0)
		return entry_slow(rp, c, ev, hid);
	pki_hist_fast f;
	fast_inputs(rp, c, ev, &f);
	pki_hist_fast *slot = fast_slot(rp, &f), *other = slot + 1; /* a set of two */
	if (slot->e && fast_same(slot, &f))
		return slot->e;
	if (other->e && fast_same(other, &f))
		return other->e;
	f.e = entry_slow(rp, c, ev, hid);
	if (f.e) { /* the newest first: the older of the two goes */
		*other = *slot;
		*slot = f;
	}
	return f.e;
}

/* The entry of these keys, made when new. A new entry is hidden when the
 * sample that makes it is (hid): perf 6.1 marks an entry filtered by its
 * first sample only, and later samples of any kind add to it (so with
 * --symbols X and no symbol key a row is its whole dso or comm, shown
 * when its first sample was in X). */
static pk_hist_entry *entry_slow(pk_hist *rp, const pki_hist_ctx *c, int ev, bool hid)
{
	char cols[PK_HIST_MAX_KEYS][PK_HIST_NAME_MAX];
	uint64_t nums[PK_HIST_MAX_KEYS];
	char id[PK_HIST_MAX_KEYS * (PK_HIST_NAME_MAX + 24) + 16];
	/* the id: event, then per key its text and its number (hex digits) */
	size_t n = 0;
	for (unsigned v = (unsigned)ev; v || !n; v /= 10)
		id[n++] = (char)('0' + v % 10); /* the digits reversed: a key, not a text */
	for (int k = 0; k < rp->o.nr_keys; k++) {
		pki_hist_key_fill(rp->o.keys[k], c, cols[k], sizeof(cols[k]), &nums[k]);
		size_t l = strlen(cols[k]);
		id[n++] = '\x01';
		memcpy(id + n, cols[k], l);
		n += l;
		id[n++] = '\x02';
		for (uint64_t v = nums[k]; v; v >>= 4)
			id[n++] = "0123456789abcdef"[v & 15];
	}
	id[n] = '\0';
	/* the one string table (lib/core/strmap), grown as entries come: a
	 * system-wide file's Children view makes close to a million */
	pki_strmap_slot *slot = pki_strmap_put(&rp->entries, id);
	if (!slot || slot->val)
		return slot ? slot->val : NULL;
	const char *texts[PK_HIST_MAX_KEYS];
	bool ok = true;
	for (int k = 0; k < rp->o.nr_keys; k++)
		ok = (texts[k] = pki_strmap_intern(&rp->texts, cols[k])) && ok;
	pk_hist_entry *e = ok ? calloc(1, sizeof(*e)) : NULL;
	if (e && !(e->v = calloc((size_t)rp->nr_members[ev] * PK_HIST_NV, sizeof(uint64_t)))) {
		free(e);
		e = NULL;
	}
	if (!e)
		return NULL; /* the id stays without an entry: made again next time */
	e->id = slot->key; /* the table's copy */
	slot->val = e;
	e->ev = ev;
	e->filtered = hid || pki_hist_sym_filtered(rp, c->loc, ev);
	/* perf: the map's kind; without a map, the sample's mode */
	e->level = c->loc->has_map ? c->loc->level : c->level;
	e->pid = c->smp->pid;
	e->tid = c->smp->tid;
	e->thread = thread_of(c);
	e->nosym = !c->loc->sym;
	e->nosym_end[0] = c->from && !c->from->sym;
	e->nosym_end[1] = c->to && !c->to->sym;
	e->dso = pki_hist_dso_short(c->loc);
	e->has_map = c->loc->has_map;
	if (rp->o.verbose) { /* perf's he->ip: a chain's address as it is, the sample's in its map */
		bool k = e->level == 'k';
		e->vip = c->chain_made || !c->loc->has_map ? c->loc->ip : c->loc->dso_addr;
		e->origin = pk_machine_origin(c->m, c->smp->pid,
					      k ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, c->loc->ip);
	}
	if (c->br)
		e->br = *c->br;
	for (int k = 0; k < rp->o.nr_keys; k++) {
		const pk_hist_key *key = rp->o.keys[k];
		const pki_hist_loc *l = key->side == PK_HIST_SIDE_FROM ? c->from : key->side == PK_HIST_SIDE_TO ? c->to
											     : c->loc;
		e->nums[k] = nums[k];
		e->cols[k] = texts[k];
		if ((key->order == PK_HIST_ORD_SYM && !c->loc->sym) ||
		    (key == &pki_hist_keys[PKI_HIST_KEY_DSO].k && !c->loc->has_map) ||
		    (key->unres == PK_HIST_U_SYM && !l->sym) || (key->unres == PK_HIST_U_MAP && !l->has_map) ||
		    (key->unres == PK_HIST_U_PARENT && nums[k]))
			e->unresolved |= (uint8_t)(1u << k);
	}
	*rp->last = e; /* the entries in the order made */
	rp->last = &e->hnext;
	rp->nr_entries++;
	if (rp->in_live) /* perf's tree, once made (perf_entry) */
		in_add(rp, e);
	return e;
}

/* Whether any of --comm, --pid, --tid, --dsos, --symbols, --socket-filter,
 * -x is given. */
static inline bool filters(const pk_hist *rp)
{
	return rp->o.comms.n || rp->o.pids.n || rp->o.tids.n || rp->o.dsos.n || rp->o.syms.n ||
	       rp->o.socket_filter >= 0 || rp->o.exclude_other;
}

/* e hung in perf's tree of entries, where its way down ends. */
static void in_add(pk_hist *rp, pk_hist_entry *e)
{
	bool ok;
	pki_hist_rbt_add(&rp->in, e, table_cmp, rp, false, &ok);
	rp->in_broken |= !ok;
	e->in_at = rp->in.n - 1; /* the node made last */
}

/* perf's tree of entries (rp->in) made from the entries so far, hung in
 * the order made: the tree their insertions as they came would have made
 * (no dups yet: they come from its look-ups). Kept from then on. */
static void in_make(pk_hist *rp)
{
	rp->in_live = true;
	for (pk_hist_entry *e = rp->first; e && !rp->in_broken; e = e->hnext)
		in_add(rp, e);
}

/* Another entry of e's keys, made where perf's look-up missed e: the
 * level of the address that made it (as a new entry's), no values yet. */
static pk_hist_entry *dup_entry(pk_hist *rp, const pk_hist_entry *e, const pki_hist_ctx *c, bool hid)
{
	pk_hist_entry *d = malloc(sizeof(*d));
	if (!d)
		return NULL;
	*d = *e;
	d->hnext = NULL;
	d->seen = 0;
	d->max_depth = 0;
	memset(&d->chain, 0, sizeof(d->chain));
	d->filtered = hid || pki_hist_sym_filtered(rp, c->loc, e->ev);
	d->level = c->loc->has_map ? c->loc->level : c->level;
	d->pid = c->smp->pid; /* the thread of the sample that made it */
	d->tid = c->smp->tid;
	d->thread = thread_of(c);
	/* d->id and d->cols: e's, the tables' copies */
	d->v = calloc((size_t)rp->nr_members[e->ev] * PK_HIST_NV, sizeof(uint64_t));
	if (!d->v) {
		free(d);
		return NULL;
	}
	d->dnext = rp->dups;
	rp->dups = d;
	rp->nr_entries++;
	return d;
}

/* The entry perf adds a sample to for e's keys: its look-up in its tree of
 * entries, whose order compares addresses without a map by their signed
 * difference (perf's _sort__addr_cmp), which wraps for addresses 2^63 or
 * more apart, so that it can miss e (or find another entry of its keys)
 * and make one more entry of the same keys (a garbage address of a chain
 * then has two rows). Entries of addresses in a map compare transitively:
 * their look-up is e. */
static pk_hist_entry *perf_lookup(pk_hist *rp, pk_hist_entry *e, const pki_hist_ctx *c, bool hid)
{
	if (!rp->in_live)
		in_make(rp);
	pk_hist_entry *x = pki_hist_rbt_find_again(&rp->in, e->in_at, e, table_cmp, rp);
	if (x)
		return x;
	pk_hist_entry *d = dup_entry(rp, e, c, hid);
	if (d)
		in_add(rp, d);
	rp->in_broken |= !d;
	return d ? d : e;
}

/* perf_lookup's for an address without a map, else e (inline: the
 * common case costs no call). */
static inline pk_hist_entry *perf_entry(pk_hist *rp, pk_hist_entry *e, const pki_hist_ctx *c, bool hid)
{
	if (!e || c->loc->has_map || c->loc->sym || rp->in_broken)
		return e;
	return perf_lookup(rp, e, c, hid);
}

/* Whether --comm, --pid, --tid, --dsos, --symbols, --socket-filter, -x hide
 * this address. */
bool pki_hist_hidden(pk_hist *rp, const pki_hist_ctx *c)
{
	if (rp->o.comms.n && !list_has(&rp->o.comms, pk_machine_comm(rp->s->machine, c->smp->pid,
								       c->smp->tid)))
		return true;
	char num[16];
	if (rp->o.pids.n) {
		snprintf(num, sizeof(num), "%u", c->smp->pid);
		if (!list_has(&rp->o.pids, num))
			return true;
	}
	if (rp->o.tids.n) {
		snprintf(num, sizeof(num), "%u", c->smp->tid);
		if (!list_has(&rp->o.tids, num))
			return true;
	}
	if (rp->o.dsos.n) {
		if (!list_has(&rp->o.dsos, c->loc->dso) &&
		    !list_has(&rp->o.dsos, pki_hist_dso_short(c->loc)))
			return true;
	}
	if (rp->o.syms.n && (!c->loc->sym || !list_has(&rp->o.syms, c->loc->sym)))
		return true;
	return pki_hist_sample_hidden(rp, c);
}

/* e's tree takes the chain from position at: at once, or (Children, the
 * sample's trie walk in rp->path) at the end, by a credit at its node;
 * non-zero when out of memory. */
static int add_chain(pk_hist *rp, pk_hist_entry *e, const pki_hist_loc *chain, size_t n, size_t at,
		     int mi, uint64_t period)
{
	/* the group view shows the leader's call graph alone (perf's: each
	 * member's chains are its own entries', never printed) */
	if (!rp->o.use_cg || !n || mi)
		return 0;
	size_t depth = rp->o.cg.caller ? at + 1 : n - at;
	if (depth > e->max_depth)
		e->max_depth = depth;
	if (rp->path)
		return !pki_hist_trie_credit(&rp->trie, rp->path[at], e, period);
	if (rp->o.cg.caller)
		pki_hist_cnode_add(&rp->nodes, &e->chain, chain, at + 1, true, period);
	else
		pki_hist_cnode_add(&rp->nodes, &e->chain, chain + at, n - at, false, period);
	return 0;
}

/* The entry of chain[i] under the sample's filters (perf). */
static pk_hist_entry *chain_loc_entry(pk_hist *rp, pki_hist_ctx *c, const pki_hist_loc *l, int ev,
				      bool hid)
{
	/* perf keys a chain's unresolved address by the address itself, not
	 * by its offset in the map as the sample's own entry: one entry per
	 * process and load address, apart from the Self one */
	pki_hist_loc at = *l;
	if (!at.sym)
		at.dso_addr = at.ip;
	c->loc = &at;
	c->chain_made = true;
	pk_hist_entry *e = pki_hist_entry_for(rp, c, ev, hid);
	c->chain_made = false;
	c->loc = NULL; /* at is gone */
	return e;
}

/* chain_loc_entry's, or the one chain[i]'s trie node keeps when the entry
 * cache's keys apply. */
static pk_hist_entry *chain_entry(pk_hist *rp, pki_hist_ctx *c, const pki_hist_loc *chain, size_t i,
				  int ev, bool hid)
{
	if (!rp->path || rp->fast_state <= 0)
		return chain_loc_entry(rp, c, &chain[i], ev, hid);
	pki_hist_tnode *t = rp->path[i];
	uint64_t v = pk_machine_comm_version(rp->s->machine);
	if (!t->e || t->comm_version != v || t->ev != ev) {
		pk_hist_entry *e = chain_loc_entry(rp, c, &chain[i], ev, hid);
		if (!e)
			return NULL;
		t->e = e;
		t->comm_version = v;
		t->ev = ev;
	}
	return t->e;
}

/* Children: every other function of the chain, once per sample. */
static int add_callers(pk_hist *rp, pki_hist_ctx *c, pk_hist_entry *self, const pki_hist_loc *chain, size_t n,
		       int ev, int mi, uint64_t period, bool hid)
{
	uint64_t stamp = ++rp->nr_passes; /* an entry counted this pass holds it */
	self->seen = stamp;
	if (!rp->repeat_state) { /* perf's quirk: see pki_hist_key_children_repeat */
		rp->repeat_state = -1; /* the keys are settled by the first sample */
		for (int k = 0; k < rp->o.nr_keys; k++)
			if (pki_hist_key_children_repeat(rp->o.keys[k]))
				rp->repeat_state = 1;
	}
	bool repeat = rp->repeat_state > 0;
	for (size_t step = 0; step < n; step++) {
		/* perf walks the chain in its print order: root first for caller */
		size_t i = rp->o.cg.caller ? n - 1 - step : step;
		/* an address without a map takes the level of the last one
		 * with a map on the walk, else the sample's (perf 6.1) */
		if (chain[i].has_map || chain[i].sym)
			c->level = chain[i].level;
		pk_hist_entry *e = chain_entry(rp, c, chain, i, ev, hid);
		if (!e)
			return 1;
		if (e->seen == stamp && !repeat)
			continue;
		e->seen = stamp; /* on the keys' first entry: perf skips equal keys */
		c->loc = &chain[i];
		e = perf_entry(rp, e, c, hid);
		c->loc = NULL;
		e->v[mi * PK_HIST_NV + PK_HIST_ACC] += period;
		e->v[mi * PK_HIST_NV + PK_HIST_ACC_NR]++;
		if (add_chain(rp, e, chain, n, i, mi, period))
			return 1;
	}
	return 0;
}

/* The sample's own period on its entry e (event ei, group member mi) and
 * in the totals. */
static inline void add_self(pk_hist *rp, pk_hist_entry *e, int ei, int mi, uint64_t period, uint64_t weight,
		     unsigned cpumode)
{
	rp->tot_period[ei] += period;
	rp->tot_nr[ei]++;
	if (!e->filtered) { /* perf counts by the entry's mark, not the sample's */
		rp->nf_period[ei] += period;
		rp->nf_nr[ei]++;
	}
	uint64_t *v = e->v + mi * PK_HIST_NV;
	v[PK_HIST_SELF] += period;
	v[PK_HIST_SELF_NR]++;
	v[PK_HIST_ACC] += period;
	v[PK_HIST_ACC_NR]++;
	v[PK_HIST_WEIGHT] += weight;
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL: v[PK_HIST_SYS] += period; break;
	case PERF_RECORD_MISC_USER: v[PK_HIST_US] += period; break;
	case PERF_RECORD_MISC_GUEST_KERNEL: v[PK_HIST_GSYS] += period; break;
	case PERF_RECORD_MISC_GUEST_USER: v[PK_HIST_GUS] += period; break;
	default: break;
	}
}

int pk_hist_sample(void *arg, struct pk_session *s, const pk_pd_event *ev,
		   const pk_pd_sample *smp)
{
	pk_hist *rp = arg;
	if (rp->pipe_hdr) {
		pk_pd_header *h = rp->pipe_hdr;
		rp->pipe_hdr = NULL;
		if (pipe_settle(rp, s, h) < 0)
			return -ENOMEM;
	}
	if (!rp->synth_checked) {
		rp->synth_checked = true;
		if (pk_session_synth_chains(s) && !rp->o.use_cg)
			pki_hist_synth_chains(rp);
	}
	int ei = ev->evsel->idx;
	if ((size_t)ei >= rp->nr_ev)
		return 0;
	if (rp->o.cpus && (smp->cpu >= rp->o.nr_cpus || !rp->o.cpus[smp->cpu]))
		return 0;
	if (rp->nr_tw && pk_time_windows_skip(rp->tw, rp->nr_tw, smp->time))
		return 0;
	int lead = rp->leader[ei], mi = rp->member[ei];
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	pki_hist_loc loc, chain[PK_MAX_STACK];
	pki_hist_direct key = {0};
	pki_hist_direct *slot = direct_slot(rp, smp, cpumode, lead, &key);
	pk_hist_entry *hit = key.e; /* the address needs no resolving */
	if (!hit)
		pki_hist_resolve(rp->s->machine, smp->pid, cpumode, smp->ip, &loc);
	if (!hit && rp->o.hide_unresolved && !loc.sym && !rp->o.branch_view)
		return 0; /* -U: perf drops the sample, from the totals too */
	/* the chain is looked at for the tree, Children and parent only */
	size_t n = smp->callchain_nr && rp->o.need_chain ? resolve_chain(rp, smp, cpumode, chain) : 0;
	size_t root = rp->re_state & 2 ? pki_hist_ignore_at(rp, chain, n) : n;
	if (root < n) { /* --ignore-callees: the entry and the chain walked from there */
		loc = chain[root];
		if (rp->o.cg.caller) {
			n = root + 1;
		} else {
			memmove(chain, chain + root, (n - root) * sizeof(*chain));
			n -= root;
		}
	}
	/* --mem-mode: the weight, 1 for none (perf's cost) */
	uint64_t period = !rp->o.mem_mode ? smp->period : smp->weight ? smp->weight : 1;
	if (hit && !rp->o.children) { /* the sample cache's way: no context to make */
		add_self(rp, hit, ei, mi, period, smp->weight, cpumode);
		return add_chain(rp, hit, chain, n, rp->o.cg.caller ? n - 1 : 0, mi, period);
	}
	pki_hist_ctx c = {.m = rp->s->machine, .smp = smp, .loc = hit ? NULL : &loc, .chain = chain,
		    .nr_chain = n, .hdr = rp->hdr, .ns = rp->o.ns,
		    .level = hit ? level_of(cpumode) : loc.level,
		    .raw_trace = rp->o.raw_trace, .s = rp->s, .evsel = ev->evsel, .hist = rp,
		    .time_quantum = rp->o.time_quantum, .verbose = rp->o.verbose};
	if (rp->o.branch_view)
		return pki_hist_branch_sample(rp, &c, ei, lead, mi);
	bool hid = filters(rp) && pki_hist_hidden(rp, &c);
	pk_hist_entry *e0 = hit ? hit : pki_hist_entry_for(rp, &c, lead, hid);
	if (!e0)
		return 1;
	pk_hist_entry *e = hit ? hit : perf_entry(rp, e0, &c, hid);
	if (slot && !hit && e == e0 && (loc.has_map || loc.sym)) {
		key.e = e0;
		*slot = key;
	}
	add_self(rp, e, ei, mi, period, smp->weight, cpumode);
	size_t at = rp->o.cg.caller ? n - 1 : 0;
	if (!rp->o.children) /* one path a sample: straight into the tree */
		return add_chain(rp, e, chain, n, at, mi, period);
	pki_hist_tnode *path[PK_MAX_STACK];
	if (rp->o.use_cg && n) {
		if (!pki_hist_trie_walk(&rp->trie, smp->pid, smp->tid, chain, n, rp->o.cg.caller, path))
			return 1;
		rp->path = path;
	}
	int r = add_chain(rp, e, chain, n, at, mi, period);
	if (!r)
		r = add_callers(rp, &c, e0, chain, n, lead, mi, period, hid);
	rp->path = NULL;
	return r;
}

/* ---- the end: texts made late, merged entries, order ---- */

static bool late_text(const pk_hist *rp, int k, const pk_hist_entry *e, char *b, size_t n)
{
	const char *name = rp->o.keys[k]->name;
	pk_machine *m = rp->s->machine;
	if (!strcmp(name, "pid")) {
		snprintf(b, n, "%7d:%s", (int)e->tid, pk_machine_comm(m, e->pid, e->tid));
		return true;
	}
	if (strcmp(name, "comm") || e->cols[k][0] != ':') /* the default's first byte */
		return false;
	char dflt[16];
	snprintf(dflt, sizeof(dflt), ":%u", e->tid);
	if (!strcmp(e->cols[k], dflt)) {
		/* perf names a task's earlier samples after its first COMM */
		snprintf(b, n, "%s", pk_machine_comm(m, e->pid, e->tid));
		return true;
	}
	return false;
}

static const pk_hist *sort_rp;

int pk_hist_cmp_key(const pk_hist *rp, int k, const pk_hist_entry *x, const pk_hist_entry *y)
{
	enum pk_hist_order o = rp->o.keys[k]->order;
	bool ux = x->unresolved & (1u << k), uy = y->unresolved & (1u << k);
	int c = 0;
	switch (o) {
	case PK_HIST_ORD_SYM:
	case PK_HIST_ORD_TEXT:
	case PK_HIST_ORD_ADDR:
		if (ux != uy) /* no symbol or dso: after those with one */
			return ux ? 1 : -1;
		/* unresolved symbols and the ADDR keys: by number */
		if (o == PK_HIST_ORD_TEXT || (o == PK_HIST_ORD_SYM && !ux))
			c = strcmp(x->cols[k], y->cols[k]);
		break;
	case PK_HIST_ORD_DESC_TEXT:
		if (ux != uy)
			return ux ? -1 : 1;
		c = strcmp(y->cols[k], x->cols[k]);
		break;
	case PK_HIST_ORD_DESC_NUM:
	case PK_HIST_ORD_GLOBAL:
		if (x->nums[k] != y->nums[k])
			return x->nums[k] > y->nums[k] ? -1 : 1;
		break;
	case PK_HIST_ORD_WEIGHT:
		if (x->v[PK_HIST_WEIGHT] != y->v[PK_HIST_WEIGHT])
			return x->v[PK_HIST_WEIGHT] > y->v[PK_HIST_WEIGHT] ? -1 : 1;
		break;
	case PK_HIST_ORD_COUNT:
	case PK_HIST_ORD_PERIOD:
	case PK_HIST_ORD_NUM:
		break;
	}
	if (c)
		return c;
	if (x->nums[k] != y->nums[k]) /* signed: tid and cpu -1 come first */
		return (int64_t)x->nums[k] < (int64_t)y->nums[k] ? -1 : 1;
	return 0;
}

/* Output order: Children, then Self (each member in the group view), then
 * the keys. tree: the order perf's output tree is made by, where symbols
 * of one name and addresses without one tie (perf's sort__sym_sort), so
 * they stay in table order (which a sort stands in for by their numbers). */
static int out_cmp_as(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y, bool tree)
{
	int nm = rp->nr_members[x->ev];
	if (pki_hist_fields_order(&rp->o)) { /* ties: perf's table order */
		int c = pki_hist_fields_cmp(rp, x, y);
		return c || tree ? c : table_cmp(rp, x, y); /* the tree: ties go right */
	}
	if (rp->o.children && x->v[PK_HIST_ACC] != y->v[PK_HIST_ACC])
		return x->v[PK_HIST_ACC] > y->v[PK_HIST_ACC] ? -1 : 1;
	/* perf: equal Children of one thread, the longer chains first in
	 * caller order, the shorter first in callee order (depth 0: no chain
	 * added); not transitive: order_out */
	if (rp->o.children && rp->o.use_cg && x->thread == y->thread && x->tid == y->tid &&
	    x->pid == y->pid && x->max_depth != y->max_depth)
		return (x->max_depth > y->max_depth) == rp->o.cg.caller ? -1 : 1;
	for (int m = 0; m < nm; m++)
		if (x->v[m * PK_HIST_NV + PK_HIST_SELF] != y->v[m * PK_HIST_NV + PK_HIST_SELF])
			return x->v[m * PK_HIST_NV + PK_HIST_SELF] > y->v[m * PK_HIST_NV + PK_HIST_SELF] ? -1 : 1;
	return pki_hist_out_keys_cmp(rp, x, y, tree);
}

int pki_hist_out_key_cmp(const pk_hist *rp, int k, const pk_hist_entry *x, const pk_hist_entry *y,
			 bool tree)
{
	bool ux = x->unresolved & (1u << k), uy = y->unresolved & (1u << k);
	if (tree && rp->o.keys[k]->order == PK_HIST_ORD_SYM)
		return ux != uy ? (ux ? 1 : -1) : ux ? 0 : strcmp(x->cols[k], y->cols[k]);
	return pk_hist_cmp_key(rp, k, x, y);
}

int pki_hist_out_keys_cmp(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y, bool tree)
{
	for (int k = 0; k < rp->o.nr_keys; k++) {
		int c = pki_hist_out_key_cmp(rp, k, x, y, tree);
		if (c)
			return c;
	}
	return 0;
}

static int out_cmp(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y)
{
	return out_cmp_as(rp, x, y, false);
}

static int out_cmp_tree(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y)
{
	return out_cmp_as(rp, x, y, true);
}

static int cmp_out(const void *a, const void *b)
{
	return out_cmp(sort_rp, *(pk_hist_entry *const *)a, *(pk_hist_entry *const *)b);
}

/* perf's sym key where x or y has a symbol: their dsos first as the dso
 * key orders them (those without a map after, names by strcmp), whatever
 * the other keys; two addresses without a symbol compare by themselves.
 * So an address without a symbol sorts by its dso against a symbol, by
 * its number against another address: not transitive (collapse). */
static int sym_dso_cmp(const pk_hist *rp, int k, const pk_hist_entry *x, const pk_hist_entry *y)
{
	if (rp->o.keys[k]->order != PK_HIST_ORD_SYM || (x->unresolved & y->unresolved) >> k & 1)
		return 0;
	if (x->has_map != y->has_map)
		return x->has_map ? -1 : 1;
	if (!x->has_map || x->dso == y->dso)
		return 0;
	return strcmp(x->dso, y->dso);
}

/* perf's table order (its collapse order), in which it makes the output
 * order: by event, then per key those without a dso or symbol after
 * those with one, names by strcmp, a symbol by its start and an address
 * without one by itself (perf compares them by their difference as a
 * signed number, which wraps: kept; wrap false: as unsigned numbers, a
 * transitive order, the same where no two numbers compared are 2^63 or
 * more apart). */
static int keys_cmp(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y, bool wrap)
{
	unsigned du = x->unresolved ^ y->unresolved;
	for (int k = 0; k < rp->o.nr_keys; k++) {
		int d = sym_dso_cmp(rp, k, x, y);
		if (d)
			return d;
		if (du >> k & 1)
			return x->unresolved >> k & 1 ? 1 : -1;
		/* interned within one histogram: equal texts, one pointer (diff
		 * compares two histograms' entries: strcmp where they differ) */
		const char *a = x->cols[k], *b = y->cols[k];
		bool by_nr = rp->o.keys[k]->order == PK_HIST_ORD_SYM; /* the number first */
		int c = by_nr || a == b ? 0 : strcmp(a, b);
		if (c)
			return c;
		if (x->nums[k] != y->nums[k]) {
			if (wrap)
				return (int64_t)(x->nums[k] - y->nums[k]) < 0 ? -1 : 1;
			return x->nums[k] < y->nums[k] ? -1 : 1;
		}
		if (by_nr && a != b && (c = strcmp(a, b)))
			return c;
	}
	return 0;
}

static int table_cmp_as(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y, bool wrap)
{
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return keys_cmp(rp, x, y, wrap);
}

int pki_hist_table_cmp_keys(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y)
{
	return keys_cmp(rp, x, y, true);
}

static int table_cmp(const pk_hist *rp, const pk_hist_entry *x, const pk_hist_entry *y)
{
	return table_cmp_as(rp, x, y, true);
}

static int cmp_table(const void *a, const void *b)
{
	return table_cmp(sort_rp, *(pk_hist_entry *const *)a, *(pk_hist_entry *const *)b);
}

static int cmp_table_unsigned(const void *a, const void *b)
{
	return table_cmp_as(sort_rp, *(pk_hist_entry *const *)a, *(pk_hist_entry *const *)b, false);
}

/* Whether the table order of all (sorted by its unsigned form, a
 * transitive order) is that form: no two entries it compares by their
 * numbers are 2^63 or more apart, as their wrapping difference then
 * disagrees with their order. Entries it compares by key k's number are
 * those equal before it, a run of the sorted array with that number
 * ascending: its first and last decide. */
static bool table_order_unsigned(const pk_hist *rp, pk_hist_entry *const *all, size_t n)
{
	size_t from[PK_HIST_MAX_KEYS] = {0}; /* per key, where its run began */
	int nk = rp->o.nr_keys;
	for (size_t i = 1; i < n; i++) {
		const pk_hist_entry *a = all[i - 1], *b = all[i];
		int k = 0, run = 0; /* key k's run goes on (run 1), or ends (0) */
		for (; a->ev == b->ev && k < nk; k++) {
			bool by_sym = rp->o.keys[k]->order == PK_HIST_ORD_SYM;
			if (((a->unresolved ^ b->unresolved) >> k & 1) || (!by_sym && a->cols[k] != b->cols[k]) ||
			    sym_dso_cmp(rp, k, a, b))
				break;
			if (a->nums[k] != b->nums[k]) {
				if (b->nums[k] - all[from[k]]->nums[k] >= (UINT64_C(1) << 63))
					return false;
				run = 1;
				break;
			}
			if (a->cols[k] != b->cols[k]) {
				run = 1;
				break;
			}
		}
		for (k += run; k < nk; k++) /* the runs from here on start at b */
			from[k] = i;
	}
	return true;
}

/* Whether a sym key has entries with a symbol and without one: perf's
 * order of them is not transitive (sym_dso_cmp), only its trees make it. */
static bool sym_mixed(const pk_hist *rp, pk_hist_entry *const *all, size_t n)
{
	unsigned any = 0, all_unres = ~0u;
	for (size_t i = 0; i < n; i++) {
		any |= all[i]->unresolved;
		all_unres &= all[i]->unresolved;
	}
	for (int k = 0; k < rp->o.nr_keys; k++)
		if (rp->o.keys[k]->order == PK_HIST_ORD_SYM && (any & ~all_unres) >> k & 1)
			return true;
	return false;
}

/* The entries in the order made, then the dups; their count. */
static size_t list_entries(const pk_hist *rp, pk_hist_entry **all)
{
	size_t n = 0;
	for (pk_hist_entry *e = rp->first; e; e = e->hnext)
		all[n++] = e;
	for (pk_hist_entry *e = rp->dups; e; e = e->dnext)
		all[n++] = e;
	return n;
}

/* Whether perf collapses the table: a sort key (-s's or the default's,
 * not -F's own) of its own collapse order (perf 6.1: comm); else its
 * output is made from its input tree. */
static bool needs_collapse(const pk_hist *rp)
{
	const pk_hist_opts *o = &rp->o;
	bool plus = o->fields && o->fields_list && o->fields_list[0] == '+';
	int nk = !o->fields ? o->nr_keys : o->sort_given || plus ? o->fields_base : 0;
	for (int k = 0; k < nk; k++)
		if (rp->o.keys[k] == &pki_hist_keys[PKI_HIST_KEY_COMM].k)
			return true;
	return false;
}

/* perf's table where no look-up missed (no dups): per event, its entries
 * hung in a tree in the order made, walked, hung again in the collapse
 * tree when perf collapses (no two entries are equal: nothing merges).
 * A tree per event, as perf's, as a tree of all differs in shape, which a
 * non-transitive order shows. false (all as given) when memory runs out. */
static bool event_trees(const pk_hist *rp, pk_hist_entry **all, size_t n)
{
	pk_hist_entry **by_ev = malloc((n ? n : 1) * sizeof(*by_ev));
	if (!by_ev)
		return false;
	size_t k = 0;
	int next = 0; /* the entries by event, each event's in the order made */
	for (int ev = 0; k < n; ev = next) {
		next = INT_MAX;
		for (size_t i = 0; i < n; i++) {
			if (all[i]->ev == ev)
				by_ev[k++] = all[i];
			else if (all[i]->ev > ev && all[i]->ev < next)
				next = all[i]->ev;
		}
	}
	bool ok = pki_hist_tree_order(by_ev, n, table_cmp, rp) &&
		  (!needs_collapse(rp) || pki_hist_tree_order(by_ev, n, table_cmp, rp));
	if (ok)
		memcpy(all, by_ev, n * sizeof(*all));
	free(by_ev);
	return ok;
}

/* perf's collapse: its tree of entries as made (rp->in) walked in order and
 * each entry hung in a second tree by the same order, merged into an entry
 * of its keys met on its way down (perf's look-up missed some, collapse
 * finds others). all gets the second tree's walk: perf's table order.
 * Where the tree was not needed during the run (no dups), the trees are
 * made per event at the end (event_trees), or, where the order is also
 * transitive on the entries, a sort stands in for them. Without a key
 * perf collapses by, the table is the first tree's walk (no merges).
 * false (all in the order made) when in does not hold all's n entries or
 * memory runs out. */
static bool collapse(pk_hist *rp, pk_hist_entry **all, size_t *n)
{
	if (!rp->in_live) {
		if (!sym_mixed(rp, all, *n)) {
			qsort(all, *n, sizeof(*all), cmp_table_unsigned);
			if (table_order_unsigned(rp, all, *n))
				return true; /* no two entries tie: nothing merges */
			list_entries(rp, all);
		}
		if (event_trees(rp, all, *n))
			return true;
		list_entries(rp, all);
		in_make(rp);
	}
	if (rp->in_broken || rp->in.n != *n)
		return false;
	pk_hist_entry **w = malloc((*n ? *n : 1) * sizeof(*w));
	pki_hist_rbt col;
	pki_hist_rbt_init(&col);
	bool ok = w && pki_hist_rbt_walk(&rp->in, w) == *n;
	if (ok && !needs_collapse(rp)) { /* perf's table is its input tree */
		memcpy(all, w, *n * sizeof(*all));
		free(w);
		return true;
	}
	for (size_t i = 0; ok && i < *n; i++) {
		pk_hist_entry *d = pki_hist_rbt_add(&col, w[i], table_cmp, rp, true, &ok), *e = w[i];
		if (!d)
			continue;
		for (int v = 0; v < rp->nr_members[d->ev] * PK_HIST_NV; v++)
			d->v[v] += e->v[v];
		d->filtered = d->filtered && e->filtered; /* its own max_depth, as perf's */
		pki_hist_cnode_merge(&rp->nodes, &d->chain, &e->chain);
	}
	size_t k = ok ? pki_hist_rbt_walk(&col, all) : 0;
	pki_hist_rbt_free(&col);
	free(w);
	if (!ok || !k) { /* all may be part written: back in the order made */
		list_entries(rp, all);
		return false;
	}
	*n = k;
	return true;
}

/* perf's output order: its tree's, made from the table order (ties go
 * right: the table's order), else (no table order) a sort, or where the
 * order is not transitive (equal Children of one thread by chain depth,
 * order.c) the tree made from the table's sort. */
static void order_out(pk_hist *rp, pk_hist_entry **all, size_t n, bool in_table_order)
{
	if (in_table_order && pki_hist_tree_order(all, n, out_cmp_tree, rp))
		return;
	if (rp->o.children && rp->o.use_cg && !pki_hist_fields_order(&rp->o)) {
		if (!in_table_order)
			qsort(all, n, sizeof(*all), cmp_table);
		if (pki_hist_tree_order(all, n, out_cmp_tree, rp))
			return;
	}
	qsort(all, n, sizeof(*all), cmp_out);
}

static int cmp_identity(const void *a, const void *b)
{
	const pk_hist_entry *x = *(pk_hist_entry *const *)a, *y = *(pk_hist_entry *const *)b;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	for (int k = 0; k < sort_rp->o.nr_keys; k++) {
		int c = strcmp(x->cols[k], y->cols[k]);
		if (c)
			return c;
		if (x->nums[k] != y->nums[k] && strcmp(sort_rp->o.keys[k]->name, "pid") &&
		    strcmp(sort_rp->o.keys[k]->name, "comm"))
			return x->nums[k] < y->nums[k] ? -1 : 1;
	}
	return 0;
}

static void free_entry(pk_hist_entry *e)
{
	free(e->v); /* its texts: pk_hist's */
	free(e);
}

/* e's texts made at the end (late_text); *changed set when one is new. */
static void late_texts(pk_hist *rp, pk_hist_entry *e, bool *changed)
{
	for (int k = 0; k < rp->o.nr_keys; k++) {
		char t[PK_HIST_NAME_MAX];
		if (late_text(rp, k, e, t, sizeof(t)) && strcmp(t, e->cols[k])) {
			const char *d = pki_strmap_intern(&rp->texts, t);
			if (d) {
				e->cols[k] = d;
				*changed = true;
			}
		}
	}
}

/* All entries in an array, late texts made, equal ones merged. */
pk_hist_entry **pk_hist_collect(pk_hist *rp, size_t *nout)
{
	pk_hist_entry **all = malloc((rp->nr_entries ? rp->nr_entries : 1) * sizeof(*all));
	if (!all)
		return NULL;
	size_t n = 0;
	bool changed = false;
	pki_hist_trie_build(&rp->trie, &rp->nodes); /* the trees, before merges */
	if (rp->fast) /* entries merge below: the caches' use ends */
		memset(rp->fast, 0, FAST_SLOTS * sizeof(*rp->fast));
	if (rp->direct)
		memset(rp->direct, 0, DIRECT_SLOTS * sizeof(*rp->direct));
	n = list_entries(rp, all);
	for (size_t i = 0; i < n; i++)
		late_texts(rp, all[i], &changed);
	sort_rp = rp;
	if (changed && n > 1) {
		qsort(all, n, sizeof(*all), cmp_identity);
		size_t w = 0;
		for (size_t i = 0; i < n; i++) {
			if (w && !cmp_identity(&all[w - 1], &all[i])) {
				pk_hist_entry *d = all[w - 1], *e = all[i];
				for (int v = 0; v < rp->nr_members[d->ev] * PK_HIST_NV; v++)
					d->v[v] += e->v[v];
				d->filtered = d->filtered && e->filtered;
				pki_hist_cnode_merge(&rp->nodes, &d->chain, &e->chain);
				continue; /* freed with the others; no look-up after this */
			}
			all[w++] = all[i];
		}
		n = w;
	}
	bool table = false;
	if (!changed) {
		size_t m = n;
		table = collapse(rp, all, &m);
		if (table)
			n = m;
	}
	order_out(rp, all, n, table);
	*nout = n;
	return all;
}

pk_hist *pk_hist_new(void)
{
	pk_hist *rp = calloc(1, sizeof(*rp));
	if (!rp)
		return NULL;
	rp->o.keys[0] = pk_hist_key_find("comm");
	rp->o.keys[1] = pk_hist_key_find("dso");
	rp->o.keys[2] = pk_hist_key_find("sym");
	rp->o.nr_keys = 3;
	rp->o.cg.min_percent = 0.5;
	rp->o.cg.max_stack = PK_MAX_STACK;
	rp->o.branch = -1;
	rp->o.socket_filter = -1;
	pki_hist_rbt_init(&rp->in);
	rp->last = &rp->first;
	return rp;
}

void pk_hist_free(pk_hist *rp)
{
	if (!rp)
		return;
	for (pk_hist_entry *e = rp->first, *nx; e; e = nx) {
		nx = e->hnext;
		free_entry(e);
	}
	pki_strmap_free(&rp->entries, NULL);
	pki_strmap_free(&rp->texts, NULL);
	for (pk_hist_entry *e = rp->dups, *nx; e; e = nx) {
		nx = e->dnext;
		free_entry(e);
	}
	pki_hist_rbt_free(&rp->in);
	pki_hist_filters_free(rp);
	free(rp->tw);
	free(rp->fast);
	free(rp->direct);
	pki_hist_arena_free(&rp->nodes);
	pki_hist_arena_free(&rp->trie.a);
	free(rp->leader);
	free(rp->member);
	free(rp->nr_members);
	free(rp->tot_period);
	free(rp->tot_nr);
	free(rp->nf_period);
	free(rp->nf_nr);
	free(rp);
}

/* ---- totals and texts the printers ask for ---- */

uint64_t pk_hist_total_of(const pk_hist *rp, int ev, bool nr)
{
	if (rp->o.relative)
		return nr ? rp->nf_nr[ev] : rp->nf_period[ev];
	return nr ? rp->tot_nr[ev] : rp->tot_period[ev];
}

double pk_hist_pct(const pk_hist *rp, const pk_hist_entry *e, int m, int which)
{
	uint64_t t = pk_hist_total_of(rp, e->ev + m, false);
	return t ? 100.0 * (double)e->v[m * PK_HIST_NV + which] / (double)t : 0.0;
}

/* An entry of the table (the widths count it even under --percent-limit). */
bool pk_hist_listed(const pk_hist *rp, const pk_hist_entry *e)
{
	if (e->filtered)
		return false;
	/* group view: shown when any member has a value */
	uint64_t acc = 0, self = 0;
	for (int m = 0; m < rp->nr_members[e->ev]; m++) {
		acc |= e->v[m * PK_HIST_NV + PK_HIST_ACC];
		self |= e->v[m * PK_HIST_NV + PK_HIST_SELF];
	}
	if (!acc && !self)
		return false;
	return rp->o.children || self;
}

bool pk_hist_shown(const pk_hist *rp, const pk_hist_entry *e)
{
	if (!pk_hist_listed(rp, e))
		return false;
	if (rp->o.percent_limit > 0 && pk_hist_pct(rp, e, 0, rp->o.children ? PK_HIST_ACC : PK_HIST_SELF) < rp->o.percent_limit)
		return false;
	return true;
}

void pk_hist_col_text(const pk_hist *rp, const pk_hist_entry *e, int k, char *b, size_t n)
{
	if (rp->o.keys[k]->order == PK_HIST_ORD_COUNT || rp->o.keys[k]->order == PK_HIST_ORD_PERIOD) {
		snprintf(b, n, "%12" PRIu64, e->v[rp->o.keys[k]->order == PK_HIST_ORD_COUNT ? PK_HIST_SELF_NR : PK_HIST_SELF]);
		return;
	}
	if (rp->o.keys[k]->order == PK_HIST_ORD_WEIGHT) {
		snprintf(b, n, "%" PRIu64, e->v[PK_HIST_WEIGHT]);
		return;
	}
	if (rp->o.keys[k]->order == PK_HIST_ORD_GLOBAL) {
		snprintf(b, n, "%" PRIu64, e->nums[k] * e->v[PK_HIST_SELF_NR]);
		return;
	}
	if (rp->o.keys[k]->order == PK_HIST_ORD_SYM && rp->o.verbose && n > 21) {
		int l = snprintf(b, n, "%-#*" PRIx64 " %c ", 18, e->vip, e->origin ? e->origin : '!');
		snprintf(b + l, n - (size_t)l, "[%c] %s", e->level, e->cols[k]);
		return;
	}
	if ((rp->o.keys[k]->order == PK_HIST_ORD_SYM || rp->o.keys[k]->level) && n > 4) {
		memcpy(b, (char[4]){'[', e->level, ']', ' '}, 4); /* "[%c] %s" */
		pki_hist_put(b + 4, n - 4, e->cols[k]);
		return;
	}
	if (rp->o.keys[k]->order == PK_HIST_ORD_SYM || rp->o.keys[k]->level) {
		snprintf(b, n, "[%c] %s", e->level, e->cols[k]);
		return;
	}
	pki_hist_put(b, n, e->cols[k]);
}

/* Whether the file's events sample call chains: the call graph shown unless
 * -g none, and what needs each sample's chain resolved. For a pipe, again at
 * its first sample, once its attrs have come in the stream (perf 6.1 then
 * shows the graph but keeps the Children it decided on an empty evlist). */
bool pki_hist_settle_chains(pk_hist *rp, pk_session *s)
{
	bool chains = false;
	for (size_t i = 0; i < pk_pd_nr_evsels(s->reader); i++)
		if (pk_pd_evsel_at(s->reader, i)->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			chains = true;
	rp->o.use_cg = chains && rp->o.cg.mode != PK_HIST_CG_NONE;
	rp->o.need_chain = rp->o.use_cg || rp->o.children;
	for (int k = 0; k < rp->o.nr_keys; k++)
		if (!strcmp(rp->o.keys[k]->name, "parent"))
			rp->o.need_chain = true;
	rp->o.need_chain |= rp->o.exclude_other; /* -x: the parent match */
	return chains;
}

/* ---- the branch view (report_branch.c: its keys, its statistics) ---- */

/* A branch end, in the first address space that holds it. */
static void resolve_end(pk_machine *m, uint32_t pid, uint64_t addr, pki_hist_loc *l)
{
	pki_hist_resolve(m, pid, PERF_RECORD_MISC_USER, addr, l);
	if (!l->has_map)
		pki_hist_resolve(m, pid, PERF_RECORD_MISC_KERNEL, addr, l);
	if (!l->has_map)
		l->level = 'H';
}

int pki_hist_branch_sample(pk_hist *rp, pki_hist_ctx *c, int ei, int lead, int mi)
{
	const pk_pd_sample *smp = c->smp;
	/* perf filters by the sample's own place (its comm, dso, symbol),
	 * every branch of it alike: not by where a branch went */
	bool hid = pki_hist_hidden(rp, c);
	for (uint64_t i = 0; i < smp->branch_nr; i++) {
		pki_hist_loc from, to, target;
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
		pk_hist_entry *e = pki_hist_entry_for(rp, c, lead, hid);
		if (!e)
			return 1;
		rp->tot_period[ei]++;
		rp->tot_nr[ei]++;
		if (!e->filtered) {
			rp->nf_period[ei]++;
			rp->nf_nr[ei]++;
		}
		e->v[mi * PK_HIST_NV + PK_HIST_SELF]++;
		e->v[mi * PK_HIST_NV + PK_HIST_SELF_NR]++;
		e->v[mi * PK_HIST_NV + PK_HIST_ACC]++;
		e->v[mi * PK_HIST_NV + PK_HIST_ACC_NR]++;
	}
	return 0;
}
