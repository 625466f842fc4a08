/* Named regions: begin/end by name, nesting, totals per name over calls
 * and threads; a breakdown from event deltas through the TopDown method's
 * formulas (pk_topdown_compute), for one pair of snapshots or for totals.
 *
 * Invariants: a region is its name's text, never its address: a name gets
 * an id once (under the lock; its hash-table slot published after the
 * name), looked up without a lock by its FNV-1a hash; a thread's caches
 * (the innermost open id at an end, a few ids by the name's address) are
 * always checked against the text; an end or a refused begin adds no
 * name (no row in the report); begin pushes a snapshot on the thread's
 * stack, end pops it and adds the differences to the
 * thread's totals for that id (single writer, relaxed atomic stores); a
 * pair whose snapshots are stale is counted as lost, never as zero;
 * several core-PMU blocks (hybrid) are combined weighted by each block's
 * running time in the region. likwid's RESET zeroes one thread's totals of
 * a name (its own: single writer), GET reads them.
 *
 * The name table is its own, not lib/core/strmap.h's (the one string table
 * of the library otherwise; same hash, pki_fnv1a): begin and end look a name
 * up without a lock while another thread adds one, so the slots are a fixed
 * array in pki_rg that never moves, each published with a release store
 * after its name, and nothing allocates. pki_strmap grows by reallocating
 * (a reader without the lock could read the freed array), allocates per key
 * and is not thread-safe. */
#include "region/region_internal.h"
#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* The nodes of block b from deltas d. */
static size_t block_nodes(size_t b, const double *d, pk_topdown_node *nodes)
{
	pk_metric_count mc[PK_REGION_MAX_EVENTS];
	for (size_t i = 0; i < pki_rg.nr_ev; i++)
		mc[i] = (pk_metric_count){pki_rg.ev[i].evsel, -1, d[i], true};
	pk_metric_counts counts = {mc, pki_rg.nr_ev, NULL, 0};
	size_t n = pk_topdown_compute(pki_rg.td, b, &counts, -1, nodes, PK_REGION_MAX_NODES);
	return n < PK_REGION_MAX_NODES ? n : PK_REGION_MAX_NODES;
}

void pki_rg_compute(const double *d, const double *run, double time_ns, pk_region_breakdown *out)
{
	memset(out, 0, sizeof(*out));
	out->time_ns = time_ns;
	out->topdown = pki_rg.td != NULL;
	if (!pki_rg.td) {
		out->count = pki_rg.nr_ev ? d[0] : 0;
		return;
	}
	for (size_t i = 0; i < pki_rg.nr_ev; i++)
		if (pki_rg.ev[i].kind == PKI_RG_SLOTS)
			out->slots += d[i];
	double wsum = 0;
	for (size_t b = 0; b < pki_rg.nr_blocks; b++) {
		pk_topdown_node nodes[PK_REGION_MAX_NODES];
		size_t n = block_nodes(b, d, nodes);
		double w = pki_rg.nr_blocks == 1 ? 1 : run[b];
		if (n == 0 || w <= 0)
			continue;
		for (size_t j = 0; j < n; j++) {
			pk_region_node *o = &out->node[j];
			if (wsum == 0)
				*o = (pk_region_node){nodes[j].name, nodes[j].parent, nodes[j].level, 0,
						      true};
			if (strcmp(o->name, nodes[j].name))
				continue; /* blocks of different methods: the first's nodes */
			o->computable &= nodes[j].computable;
			o->value += nodes[j].computable ? w * nodes[j].value : 0;
		}
		out->nr = out->nr ? out->nr : n;
		wsum += w;
	}
	for (size_t j = 0; j < out->nr; j++) {
		pk_region_node *o = &out->node[j];
		o->value = o->computable && wsum > 0 ? o->value / wsum : NAN;
		o->computable = !isnan(o->value);
	}
}

int pk_region_breakdown_of(const pk_region_snap *a, const pk_region_snap *b,
			   pk_region_breakdown *out, pk_error *err)
{
	if (a->epoch != b->epoch || a->nr != b->nr || a->nr > PK_REGION_MAX_EVENTS)
		return pk_err(err, -EINVAL, "snapshots of different threads or opens");
	if ((a->flags | b->flags) & PK_REGION_SNAP_STALE)
		return pk_err(err, -ENODATA, "a snapshot was taken while the TopDown group "
					     "was off the PMU");
	double d[PK_REGION_MAX_EVENTS], run[2];
	for (uint32_t i = 0; i < a->nr; i++)
		d[i] = (double)(b->v[i] - a->v[i]);
	for (int i = 0; i < 2; i++)
		run[i] = (double)b->run[i] - (double)a->run[i];
	pki_rg_compute(d, run, (double)(b->time_ns - a->time_ns), out);
	return 0;
}

/* FNV-1a of a name; -EINVAL unless it is 1 to PK_REGION_NAME_MAX - 1 bytes. */
static int name_hash(const char *name, uint64_t *h)
{
	size_t n = 0;
	while (n < PK_REGION_NAME_MAX && name[n])
		n++;
	*h = pki_fnv1a(PKI_FNV_INIT, name, n);
	return n == 0 || n >= PK_REGION_NAME_MAX ? -EINVAL : 0;
}

/* The id of the name of hash h, or -1 - the free slot of the table where
 * it goes (the table is never full: twice the names it can hold). */
static int find(const char *name, uint64_t h)
{
	for (uint32_t i = (uint32_t)h % PKI_RG_NAME_SLOTS;; i = (i + 1) % PKI_RG_NAME_SLOTS) {
		int s = __atomic_load_n(&pki_rg.name_slot[i], __ATOMIC_ACQUIRE);
		if (!s)
			return -1 - (int)i;
		if (pki_rg.name_hash[s - 1] == h && !strcmp(pki_rg.names[s - 1], name))
			return s - 1;
	}
}

int pki_rg_name_id(const char *name, bool add)
{
	uint64_t h;
	if (!name || name_hash(name, &h) < 0)
		return -EINVAL;
	int id = find(name, h);
	if (id >= 0 || !add)
		return id >= 0 ? id : -ENOENT;
	pthread_mutex_lock(&pki_rg_lock);
	id = find(name, h);
	int n = pki_rg.nr_names;
	if (id < 0 && n < PK_REGION_MAX_REGIONS) {
		strcpy(pki_rg.names[n], name);
		pki_rg.name_hash[n] = h;
		__atomic_store_n(&pki_rg.nr_names, n + 1, __ATOMIC_RELEASE);
		__atomic_store_n(&pki_rg.name_slot[-1 - id], (int16_t)(n + 1), __ATOMIC_RELEASE);
		id = n;
	} else if (id < 0) {
		id = -ENOSPC;
	}
	pthread_mutex_unlock(&pki_rg_lock);
	return id;
}

/* The id of name for thread t: the id expected (hint: the innermost open
 * region at an end), then the thread's cache by the name's address, each
 * checked against the name's text (a buffer rewritten in place is another
 * name), then the table; added when new and add is set. */
static int thread_name_id(pki_rg_thread *t, const char *name, int hint, bool add)
{
	if (!name)
		return -EINVAL;
	if (hint >= 0 && !strcmp(pki_rg.names[hint], name))
		return hint;
	int16_t *c = &t->name_cache[((uintptr_t)name * 0x9e3779b97f4a7c15u) >> 61];
	if (*c > 0 && !strcmp(pki_rg.names[*c - 1], name))
		return *c - 1;
	int id = pki_rg_name_id(name, add);
	if (id >= 0)
		*c = (int16_t)(id + 1);
	return id;
}

/* The calling thread's state; NULL with *rc set when it cannot count. */
static pki_rg_thread *named_self(pk_error *err, int *rc)
{
	PKI_RG_ERR_INIT(*err);
	pki_rg_thread *t = pki_rg_self(err);
	if (!t)
		*rc = err->code ? err->code : -ENODEV;
	return t;
}

/* A snapshot for the begin or end (what) of region name; a failure is
 * kept for the report. */
static int named_snapshot(pki_rg_thread *t, pk_region_snap *s, const char *what,
			  const char *name, pk_error *err)
{
	int r = pki_rg_snapshot(t, s, err);
	if (r < 0)
		pki_rg_error("%s of region '%s': %s", what, name, err->msg);
	return r;
}

int pk_region_begin(const char *name)
{
	pk_error err;
	int rc;
	pki_rg_thread *t = named_self(&err, &rc);
	if (!t)
		return rc;
	/* a begin refused adds no name: no row in the report */
	int id = t->depth < PK_REGION_MAX_DEPTH ? thread_name_id(t, name, -1, true) : -EMLINK;
	if (id < 0) {
		pki_rg_error("begin of region '%.63s': %s", name ? name : "(null)",
			     id == -EINVAL ? "a name is 1 to 63 bytes"
			     : id == -EMLINK ? "too many regions open"
					     : "too many region names");
		return id == -EINVAL ? id : -ENOSPC;
	}
	pki_rg_open *o = &t->stack[t->depth];
	int r = named_snapshot(t, &o->snap, "begin", name, &err);
	if (r < 0)
		return r;
	o->id = id;
	t->depth++;
	return 0;
}

/* Adds the pair's differences to the thread's totals of id. */
static void accumulate(pki_rg_acc *a, const pk_region_snap *s, const pk_region_snap *e)
{
	if ((s->flags | e->flags) & PK_REGION_SNAP_STALE) {
		STORE(a->lost, LOAD(a->lost) + 1);
		return;
	}
	for (uint32_t i = 0; i < s->nr; i++)
		STORE(a->v[i], LOAD(a->v[i]) + (e->v[i] - s->v[i]));
	for (int i = 0; i < 2; i++)
		STORE(a->run[i], LOAD(a->run[i]) + (e->run[i] - s->run[i]));
	STORE(a->time_ns, LOAD(a->time_ns) + (e->time_ns - s->time_ns));
	STORE(a->calls, LOAD(a->calls) + 1);
}

int pk_region_end(const char *name)
{
	pk_error err;
	int rc;
	pki_rg_thread *t = named_self(&err, &rc);
	if (!t)
		return rc;
	/* an end never adds a name: one never begun leaves no row */
	int top = t->depth ? t->stack[t->depth - 1].id : -1;
	int id = thread_name_id(t, name, top, false);
	if (id < 0 || id != top) {
		pki_rg_error("end of region '%.63s': %s", name ? name : "(null)",
			     t->depth == 0 ? "no region is open"
					   : "it is not the innermost open region");
		return -EINVAL;
	}
	pk_region_snap e;
	int r = named_snapshot(t, &e, "end", name, &err);
	if (r < 0)
		return r;
	t->depth--;
	accumulate(&t->acc[id], &t->stack[t->depth].snap, &e);
	return 0;
}

/* Adds a thread's totals of one region to a result's sums. */
static void add_acc(pki_rg_acc *a, pk_region_result *r, double *d, double *run, double *time)
{
	uint64_t calls = LOAD(a->calls);
	r->calls += calls;
	r->threads += calls > 0;
	r->lost += LOAD(a->lost);
	for (size_t i = 0; i < pki_rg.nr_ev; i++)
		d[i] += (double)LOAD(a->v[i]);
	for (int i = 0; i < 2; i++)
		run[i] += (double)LOAD(a->run[i]);
	*time += (double)LOAD(a->time_ns);
}

/* Region id's result over one thread (t) or every thread (NULL); under
 * pki_rg_lock. */
static void result_of(int id, pki_rg_thread *only, pk_region_result *r)
{
	double d[PK_REGION_MAX_EVENTS] = {0}, run[2] = {0}, time = 0;
	memset(r, 0, sizeof(*r));
	r->name = pki_rg.names[id];
	for (pki_rg_thread *t = only ? only : pki_rg.threads; t; t = only ? NULL : t->next)
		add_acc(&t->acc[id], r, d, run, &time);
	pki_rg_compute(d, run, time, &r->bd);
}

size_t pk_region_results(pk_region_result *out, size_t cap)
{
	pthread_mutex_lock(&pki_rg_lock);
	size_t n = (size_t)pki_rg.nr_names;
	for (size_t id = 0; id < n && id < cap; id++)
		result_of((int)id, NULL, &out[id]);
	pthread_mutex_unlock(&pki_rg_lock);
	return n;
}

/* The calling thread and the id of a known name: -ENOENT for a name never
 * begun nor registered, -ENODEV when the thread cannot count. */
static pki_rg_thread *known(const char *name, int *id)
{
	pki_rg_thread *t = pki_rg_self(NULL);
	if (!t) {
		*id = -ENODEV;
		return NULL;
	}
	*id = pki_rg_name_id(name, false);
	if (*id == -EINVAL)
		*id = -ENOENT;
	return *id < 0 ? NULL : t;
}

int pki_rg_thread_result(const char *name, pk_region_result *r)
{
	int id;
	pki_rg_thread *t = known(name, &id);
	if (!t)
		return id;
	pthread_mutex_lock(&pki_rg_lock);
	result_of(id, t, r);
	pthread_mutex_unlock(&pki_rg_lock);
	return 0;
}

int pki_rg_thread_reset(const char *name)
{
	int id;
	pki_rg_thread *t = known(name, &id);
	if (!t)
		return id;
	pki_rg_acc *a = &t->acc[id];
	STORE(a->calls, 0);
	STORE(a->lost, 0);
	STORE(a->time_ns, 0);
	for (int i = 0; i < 2; i++)
		STORE(a->run[i], 0);
	for (size_t i = 0; i < pki_rg.nr_ev; i++)
		STORE(a->v[i], 0);
	return 0;
}
