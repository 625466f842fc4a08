/* libpmukit: perf lock contention's engine (include/pmukit/lock.h), perf
 * 6.1's tracepoint mode. The session hands the lock:contention_begin/_end
 * samples in time order; each is keyed by its caller hash (chain_key),
 * entries are kept in creation order and looked up through a string
 * table, waits are opened and closed per (thread, lock address).
 *
 * Invariants: an entry is made by a begin only; an end finds its entry by
 * its own caller hash (perf's rule: when that differs, the wait stays
 * open and later begins of that thread on that lock are ignored); entries
 * never move until the final sort. */
#include <pmukit/lock.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "core/strmap.h"
#include "core/util.h"

#define GOLDEN_RATIO_64 0x61C8864680B583EBull
#define LOCKHASH_BITS 12

static const struct {
	const char *name, *header;
	int width;
} keys[PK_LOCK_NR_KEYS] = {
	[PK_LOCK_CONTENDED] = {"contended", "contended", 10},
	[PK_LOCK_WAIT_TOTAL] = {"wait_total", "total wait", 12},
	[PK_LOCK_WAIT_MAX] = {"wait_max", "max wait", 12},
	[PK_LOCK_WAIT_MIN] = {"wait_min", "min wait", 12},
	[PK_LOCK_AVG_WAIT] = {"avg_wait", "avg wait", 12},
};

const char *pk_lock_key_name(pk_lock_key k) { return k < PK_LOCK_NR_KEYS ? keys[k].name : NULL; }
const char *pk_lock_key_header(pk_lock_key k) { return k < PK_LOCK_NR_KEYS ? keys[k].header : NULL; }
int pk_lock_key_width(pk_lock_key k) { return k < PK_LOCK_NR_KEYS ? keys[k].width : 0; }

int pk_lock_key_parse(const char *name)
{
	for (int k = 0; k < PK_LOCK_NR_KEYS; k++)
		if (!strcmp(name, keys[k].name))
			return k;
	return -1;
}

/* The kernel's contention_begin flags (include/trace/events/lock.h). */
enum { F_SPIN = 1, F_READ = 2, F_WRITE = 4, F_RT = 8, F_PERCPU = 16, F_MUTEX = 32 };

const char *pk_lock_type_name(uint32_t flags)
{
	static const struct {
		uint32_t flags;
		const char *name;
	} types[] = {
		{0, "semaphore"}, {F_SPIN, "spinlock"}, {F_SPIN | F_READ, "rwlock:R"},
		{F_SPIN | F_WRITE, "rwlock:W"}, {F_READ, "rwsem:R"}, {F_WRITE, "rwsem:W"},
		{F_RT, "rtmutex"}, {F_RT | F_READ, "rwlock-rt:R"}, {F_RT | F_WRITE, "rwlock-rt:W"},
		{F_PERCPU | F_READ, "pcpu-sem:R"}, {F_PERCPU | F_WRITE, "pcpu-sem:W"},
		{F_MUTEX, "mutex"}, {F_MUTEX | F_SPIN, "mutex"},
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].flags == flags)
			return types[i].name;
	return "unknown";
}

uint64_t pk_lock_stat_value(const pk_lock_stat *st, pk_lock_key k)
{
	switch (k) {
	case PK_LOCK_CONTENDED: return st->nr_contended;
	case PK_LOCK_WAIT_TOTAL: return st->wait_total;
	case PK_LOCK_WAIT_MAX: return st->wait_max;
	case PK_LOCK_WAIT_MIN: return st->wait_min;
	case PK_LOCK_AVG_WAIT: return st->avg_wait;
	default: return 0;
	}
}

void pk_lock_opts_init(pk_lock_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->sort = PK_LOCK_WAIT_TOTAL;
	o->max_stack = 8;
	o->stack_skip = 3;
}

/* A wait of one thread on one lock address. */
enum { SEQ_NONE, SEQ_CONTENDED, SEQ_ACQUIRED };

typedef struct lock_run {
	const pk_lock_opts *o;
	pk_lock_result *res;
	size_t cap;
	pki_strmap by_key;           /* "%llx" key -> entry index + 1 */
	pki_strmap seqs;             /* "tid:addr" -> index + 1 in seq */
	struct wait { int state; uint64_t start; } *seq;
	size_t nr_seq, cap_seq;
	const pk_pd_evsel *begin, *end;
	bool ranges_known;
	uint64_t text[2][2];         /* sched and lock text [start, end), 0 0: none */
} lock_run;

/* The lock and scheduler text, looked up once (perf's is_lock_function:
 * no __sched_text_start in the table, no lock functions at all). */
static bool is_lock_function(lock_run *lr, pk_machine *m, uint64_t ip)
{
	if (!lr->ranges_known) {
		static const char *names[2][2] = {{"__sched_text_start", "__sched_text_end"},
						  {"__lock_text_start", "__lock_text_end"}};
		lr->ranges_known = true;
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 2; j++)
				if (pk_machine_kernel_symbol(m, names[i][j], &lr->text[i][j]) < 0)
					lr->text[i][0] = lr->text[i][1] = 0;
	}
	for (int i = 0; i < 2; i++)
		if (lr->text[i][0] <= ip && ip < lr->text[i][1])
			return true;
	return false;
}

/* The caller hash of a sample's chain (at most max_stack entries): the
 * entries past the skipped ones and the lock functions, each hashed as
 * perf's hash_long(ip, 64), whose result is 32 bits wide; into name (when
 * not NULL) the first of them with a symbol, "sym+0xoff". */
static uint64_t chain_key(lock_run *lr, pk_machine *m, const pk_pd_sample *smp, char *name,
			  size_t size)
{
	unsigned mode = PERF_RECORD_MISC_USER;
	uint64_t hash = 0, nodes = 0;
	if (name)
		snprintf(name, size, "Unknown");
	for (uint64_t i = 0; i < smp->callchain_nr && nodes < lr->o->max_stack; i++) {
		uint64_t ip = smp->callchain[i];
		int c = pk_callchain_marker(ip, &mode);
		if (c < 0)
			return 0;
		if (c > 0 || ++nodes <= lr->o->stack_skip)
			continue;
		const pk_addr_loc *loc = pk_machine_lookup(m, smp->pid, mode, ip);
		if (loc->sym && is_lock_function(lr, m, ip))
			continue;
		hash ^= (uint32_t)(ip * GOLDEN_RATIO_64);
		if (!name || !loc->sym)
			continue;
		if (loc->symoff)
			snprintf(name, size, "%s+%#llx", loc->sym, (unsigned long long)loc->symoff);
		else
			snprintf(name, size, "%s", loc->sym);
		name = NULL; /* named: the rest only hashed */
	}
	return hash;
}

static pk_lock_stat *stat_find(lock_run *lr, uint64_t key)
{
	char k[24];
	snprintf(k, sizeof(k), "%llx", (unsigned long long)key);
	uintptr_t i = (uintptr_t)pki_strmap_get(&lr->by_key, k);
	return i ? &lr->res->stats[i - 1] : NULL;
}

static pk_lock_stat *stat_new(lock_run *lr, uint64_t key)
{
	pk_lock_result *r = lr->res;
	char k[24];
	snprintf(k, sizeof(k), "%llx", (unsigned long long)key);
	pki_strmap_slot *slot = pki_strmap_put(&lr->by_key, k);
	if (!slot || pki_grow(&r->stats, &lr->cap, r->nr + 1, sizeof(*r->stats)) < 0)
		return NULL;
	slot->val = (void *)(uintptr_t)(r->nr + 1);
	pk_lock_stat *st = &r->stats[r->nr++];
	memset(st, 0, sizeof(*st));
	st->key = key;
	st->wait_min = UINT64_MAX;
	return st;
}

/* The wait of (tid, addr), added as SEQ_NONE; NULL: no memory. */
static struct wait *seq_of(lock_run *lr, uint32_t tid, uint64_t addr)
{
	char k[48];
	snprintf(k, sizeof(k), "%u:%llx", tid, (unsigned long long)addr);
	pki_strmap_slot *slot = pki_strmap_put(&lr->seqs, k);
	if (!slot)
		return NULL;
	if (!slot->val) {
		if (pki_grow(&lr->seq, &lr->cap_seq, lr->nr_seq + 1, sizeof(*lr->seq)) < 0)
			return NULL;
		lr->seq[lr->nr_seq] = (struct wait){SEQ_NONE, 0};
		slot->val = (void *)(uintptr_t)++lr->nr_seq;
	}
	return &lr->seq[(uintptr_t)slot->val - 1];
}

/* contention_begin: the entry of its caller made, a wait opened. */
static int on_begin(lock_run *lr, pk_session *s, const pk_pd_sample *smp)
{
	uint64_t addr = 0, flags = 0;
	pk_machine *m = pk_session_machine(s);
	pk_session_trace_field(s, lr->begin, smp, "lock_addr", &addr);
	pk_session_trace_field(s, lr->begin, smp, "flags", &flags);
	uint64_t key = chain_key(lr, m, smp, NULL, 0);
	pk_lock_stat *st = stat_find(lr, key);
	if (!st) {
		char name[sizeof(st->name)];
		chain_key(lr, m, smp, name, sizeof(name));
		if (!(st = stat_new(lr, key)))
			return -ENOMEM;
		memcpy(st->name, name, sizeof(name));
		st->flags = (uint32_t)flags;
	}
	struct wait *seq = seq_of(lr, smp->tid, addr);
	if (!seq)
		return -ENOMEM;
	if (seq->state == SEQ_CONTENDED) /* nested (mutex spinning): the first counts */
		return 0;
	*seq = (struct wait){SEQ_CONTENDED, smp->time};
	st->nr_contended++;
	return 0;
}

/* contention_end: the wait closed into the entry of its own caller. */
static int on_end(lock_run *lr, pk_session *s, const pk_pd_sample *smp)
{
	uint64_t addr = 0;
	pk_session_trace_field(s, lr->end, smp, "lock_addr", &addr);
	pk_lock_stat *st = stat_find(lr, chain_key(lr, pk_session_machine(s), smp, NULL, 0));
	if (!st)
		return 0;
	struct wait *seq = seq_of(lr, smp->tid, addr);
	if (!seq)
		return -ENOMEM;
	switch (seq->state) {
	case SEQ_NONE: return 0;
	case SEQ_ACQUIRED: /* an end without a begin: broken */
		if (!st->broken) {
			st->broken = true;
			lr->res->bad[PK_LOCK_BAD_ACQUIRED]++;
		}
		seq->state = SEQ_NONE;
		return 0;
	default: break;
	}
	uint64_t wait = smp->time - seq->start;
	st->wait_total += wait;
	if (wait < st->wait_min)
		st->wait_min = wait;
	if (wait > st->wait_max)
		st->wait_max = wait;
	seq->state = SEQ_ACQUIRED;
	st->nr_acquired++;
	st->avg_wait = st->wait_total / st->nr_acquired;
	return 0;
}

static int on_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	lock_run *lr = arg;
	if (!ev->evsel || (ev->evsel != lr->begin && ev->evsel != lr->end))
		return 0;
	lr->res->nr_samples++;
	int rc = ev->evsel == lr->begin ? on_begin(lr, s, smp) : on_end(lr, s, smp);
	return rc < 0 ? rc : 0;
}

/* perf's output order: its hash table walked bucket by bucket, each
 * bucket newest first, then a stable sort on the key, largest first. */
typedef struct sort_item {
	uint64_t value, bucket;
	size_t idx;
} sort_item;

static int cmp_item(const void *a, const void *b)
{
	const sort_item *x = a, *y = b;
	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return x->idx > y->idx ? -1 : x->idx < y->idx;
}

static int sort_result(pk_lock_result *r, pk_lock_key k)
{
	sort_item *items = calloc(r->nr ? r->nr : 1, sizeof(*items));
	pk_lock_stat *sorted = calloc(r->nr ? r->nr : 1, sizeof(*sorted));
	if (!items || !sorted) {
		free(items);
		free(sorted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nr; i++)
		items[i] = (sort_item){pk_lock_stat_value(&r->stats[i], k),
				       r->stats[i].key * GOLDEN_RATIO_64 >> (64 - LOCKHASH_BITS), i};
	qsort(items, r->nr, sizeof(*items), cmp_item);
	for (size_t i = 0; i < r->nr; i++)
		sorted[i] = r->stats[items[i].idx];
	free(items);
	free(r->stats);
	r->stats = sorted;
	return 0;
}

/* The file's contention events, with perf's errors when missing. */
static int find_events(lock_run *lr, pk_session *s, pk_error *err)
{
	bool traces = false;
	for (size_t i = 0; i < pk_session_nr_evsels(s); i++) {
		const pk_pd_evsel *e = pk_session_evsel_at(s, i);
		const char *name = pk_pd_evsel_name(e);
		traces |= e->attr.type == PERF_TYPE_TRACEPOINT;
		if (e->attr.type != PERF_TYPE_TRACEPOINT || !name)
			continue;
		if (!strcmp(name, "lock:contention_begin"))
			lr->begin = e;
		else if (!strcmp(name, "lock:contention_end"))
			lr->end = e;
	}
	if (!traces)
		return pk_err(err, -EINVAL, "No trace sample to read. Did you call 'perf lock record'?");
	if (!lr->begin)
		return pk_err(err, -EINVAL, "lock contention evsel not found");
	return 0;
}

int pk_lock_contention(const char *input, const pk_lock_opts *o, pk_lock_result *out,
		       pk_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!o || o->size != sizeof(*o) || o->sort >= PK_LOCK_NR_KEYS)
		return pk_err(err, -EINVAL, "pk_lock_contention: bad options");
	pk_session_opts so;
	pk_session_opts_init(&so);
	so.force = o->force;
	so.msg_fn = o->msg_fn;
	so.msg_arg = o->msg_arg;
	pk_session *s = NULL;
	int rc = pk_session_open(input ? input : "perf.data", &so, &s, err);
	lock_run lr = {.o = o, .res = out};
	if (rc >= 0 && (rc = find_events(&lr, s, err)) < 0) {
		pk_error why; /* the reader's words on the file (a damaged one) said first */
		pk_error_clear(&why);
		pk_session_finish_failed(s, &why);
	}
	if (rc >= 0)
		rc = pk_session_run(s, on_sample, &lr, err);
	if (rc < 0 && !err->code)
		pk_err(err, rc, "lock contention: %s", strerror(-rc));
	if (rc >= 0)
		rc = pk_session_finish(s, err);
	if (rc >= 0 && (rc = sort_result(out, o->sort)) < 0)
		pk_err(err, rc, "lock contention: out of memory");
	pki_strmap_free(&lr.by_key, NULL);
	pki_strmap_free(&lr.seqs, NULL);
	free(lr.seq);
	pk_session_close(s);
	if (rc < 0)
		pk_lock_result_release(out);
	return rc < 0 ? rc : 0;
}

void pk_lock_result_release(pk_lock_result *r)
{
	free(r->stats);
	memset(r, 0, sizeof(*r));
}
