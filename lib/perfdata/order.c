/* Time ordering. Records of a round are queued (held where a stable source
 * has them, else copied into chunks); at FINISHED_ROUND everything up to the
 * previous round's highest timestamp is sorted and handed out (perf's rule),
 * and at the end all of it. A memory limit forces out the older half, so
 * memory stays bounded whatever the file holds. Invariants: the entries lie
 * in the array in arrival order until a sort, every sort is stable (equal
 * times keep arrival order), and the runs noted at add (pd_queue.run)
 * describe the undelivered entries exactly. */
#include "pd_internal.h"

#include <errno.h>
#include <stdlib.h>

#define QCHUNK_SIZE ((size_t)256 << 10)
/* Freed chunks kept for reuse: a fresh chunk from malloc is a fresh
 * mapping whose every page faults in, and rounds come and go all the time.
 * Only chunks that were in use at once are kept, so this adds no memory
 * past the queue's peak. */
#define QCHUNK_SPARES 256

struct pd_qchunk {
	size_t used, cap, live;
	pd_qchunk *prev, *next;    /* every chunk in use, for the final free */
	uint8_t mem[];
};

void pki_pd_queue_init(pd_queue *q, size_t limit, pd_src *src)
{
	memset(q, 0, sizeof(*q));
	q->limit = limit ? limit : ((size_t)64 << 20);
	q->src = src;
}

static void chunk_unlink(pd_queue *q, pd_qchunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		q->chunks = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
}

static void chunk_release(pd_queue *q, pd_qchunk *c)
{
	if (!c || --c->live || c == q->cur)
		return;
	chunk_unlink(q, c);
	if (q->nr_spare < QCHUNK_SPARES && c->cap == QCHUNK_SIZE) {
		c->used = 0;
		c->next = q->spare;
		q->spare = c;
		q->nr_spare++;
	} else {
		free(c);
	}
}

void pki_pd_queue_free(pd_queue *q)
{
	pd_qchunk *c = q->chunks;
	while (c) {
		pd_qchunk *n = c->next;
		free(c);
		c = n;
	}
	while (q->spare) {
		pd_qchunk *n = q->spare->next;
		free(q->spare);
		q->spare = n;
	}
	free(q->ents);
	free(q->tmp);
	memset(q, 0, sizeof(*q));
}

static uint8_t *queue_alloc(pd_queue *q, size_t n, pd_qchunk **chunk)
{
	n = (n + 7) & ~(size_t)7;
	if (!q->cur || q->cur->cap - q->cur->used < n) {
		pd_qchunk *old = q->cur;
		pd_qchunk *c;
		if (n <= QCHUNK_SIZE && q->spare) {
			c = q->spare;
			q->spare = c->next;
			q->nr_spare--;
		} else {
			size_t cap = n > QCHUNK_SIZE ? n : QCHUNK_SIZE;
			c = malloc(sizeof(*c) + cap);
			if (!c)
				return NULL;
			c->cap = cap;
		}
		c->used = 0;
		c->live = 0;
		c->prev = NULL;
		c->next = q->chunks;
		if (q->chunks)
			q->chunks->prev = c;
		q->chunks = c;
		q->cur = c;
		if (old && old->live == 0) {
			old->live = 1;
			chunk_release(q, old);
		}
	}
	uint8_t *p = q->cur->mem + q->cur->used;
	q->cur->used += n;
	q->cur->live++;
	*chunk = q->cur;
	return p;
}

static void queue_compact(pd_queue *q)
{
	if (!q->pos)
		return;
	memmove(q->ents, q->ents + q->pos, (q->nr - q->pos) * sizeof(*q->ents));
	q->nr -= q->pos;
	q->ready = q->ready > q->pos ? q->ready - q->pos : 0;
	size_t k = q->nr_runs < PD_QRUNS ? q->nr_runs : PD_QRUNS;
	for (size_t i = 0; i < k; i++)
		q->run[i] = q->run[i] > q->pos ? q->run[i] - q->pos : 0;
	q->pos = 0;
}

int pki_pd_queue_room(pd_queue *q)
{
	if (q->pos > 0 && q->pos == q->ready)
		queue_compact(q); /* reuse the delivered front */
	if (q->nr < q->cap)
		return 0;
	size_t cap = q->cap ? q->cap * 2 : 4096;
	pd_qent *ne = realloc(q->ents, cap * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	q->ents = ne;
	q->cap = cap;
	return 0;
}

int pki_pd_queue_add(pd_queue *q, const pk_pd_event *ev, uint64_t time, bool bare)
{
	size_t total = (size_t)ev->size + (size_t)ev->aux_size;
	if (bare) /* the entry alone: the event is rebuilt from the record */
		return pki_pd_queue_add_bare(q, ev->data, total, ev->evsel, time);
	if (q->nr == q->cap && pki_pd_queue_room(q) < 0)
		return -ENOMEM;
	/* the record and its aux data lie together in the source */
	bool in_place = q->src && pki_pd_src_stable(q->src, ev->data);
	size_t evsz = (sizeof(pk_pd_event) + 7) & ~(size_t)7;
	pd_qchunk *chunk;
	uint8_t *mem = queue_alloc(q, evsz + (in_place ? 0 : total), &chunk);
	if (!mem)
		return -ENOMEM;
	pk_pd_event *copy_ev = (pk_pd_event *)(void *)mem;
	*copy_ev = *ev;
	if (in_place) {
		pki_pd_src_hold(q->src, ev->data);
	} else {
		uint8_t *copy = mem + evsz;
		memcpy(copy, ev->data, ev->size);
		if (ev->aux_size)
			memcpy(copy + ev->size, ev->aux, (size_t)ev->aux_size);
		copy_ev->data = copy;
		if (ev->aux_size)
			copy_ev->aux = copy + ev->size;
	}
	pd_qent *e = &q->ents[q->nr];
	e->time = time;
	e->ref = (uintptr_t)copy_ev;
	e->chunk = chunk;
	pki_pd_queue_note(q, time, total);
	return 0;
}

/* Time alone: entries lie in arrival order and the merges are stable. */
static inline bool ent_less(const pd_qent *x, const pd_qent *y)
{
	return x->time < y->time;
}

PKI_DEFINE_MERGE_PASS(merge_pass, pd_qent, ent_less)

/* The undelivered runs (at most PD_QRUNS) merged in one pass into out:
 * the earliest head each time, the first run's on a tie (runs lie in
 * arrival order, so ties keep it). */
static void merge_runs(const pd_queue *q, pd_qent *out)
{
	size_t k = q->nr_runs, at[PD_QRUNS], end[PD_QRUNS];
	uint64_t head[PD_QRUNS];
	for (size_t i = 0; i < k; i++) {
		at[i] = i ? q->run[i] : q->pos;
		end[i] = i + 1 < k ? q->run[i + 1] : q->nr;
		head[i] = q->ents[at[i]].time;
	}
	const pd_qent *a = q->ents;
	while (k > 1) {
		size_t m = 0;
		for (size_t i = 1; i < k; i++)
			if (head[i] < head[m])
				m = i;
		*out++ = a[at[m]++];
		if (at[m] < end[m]) {
			head[m] = a[at[m]].time;
			continue;
		}
		for (size_t i = m; i + 1 < k; i++) { /* run m is done */
			at[i] = at[i + 1];
			end[i] = end[i + 1];
			head[i] = head[i + 1];
		}
		k--;
	}
	memcpy(out, a + at[0], (end[0] - at[0]) * sizeof(*out));
}

/* Sorts the entries not yet delivered, ents[pos, nr), into tmp, which then
 * trades places with ents (the delivered front goes away without a copy
 * of its own). A round holds one run per ring buffer and what stayed
 * queued is one more: up to PD_QRUNS runs are merged in one pass; more
 * by a natural merge sort, close to O(n) as well. */
static void sort_queue(pd_queue *q)
{
	size_t n = q->nr - q->pos;
	if (q->nr_runs <= 1)
		return;
	if (q->tmp_cap < n) {
		pd_qent *t = realloc(q->tmp, n * sizeof(pd_qent));
		if (!t) { /* left unsorted: the order is off, nothing is lost */
			q->nr_runs = 1;
			return;
		}
		q->tmp = t;
		q->tmp_cap = n;
	}
	pd_qent *a = q->ents + q->pos, *b = q->tmp;
	if (q->nr_runs <= PD_QRUNS) {
		merge_runs(q, b);
		a = b;
	} else {
		for (;;) {
			size_t runs = merge_pass(a, b, n);
			/* the next pass reads what this one wrote, from 0 */
			a = b;
			b = b == q->tmp ? q->ents : q->tmp;
			if (runs <= 1)
				break;
		}
	}
	if (a == q->tmp) {
		pd_qent *t = q->ents;
		size_t c = q->cap;
		q->ents = q->tmp;
		q->cap = q->tmp_cap;
		q->tmp = t;
		q->tmp_cap = c;
	}
	q->ready = 0; /* flushes come when nothing is pending delivery */
	q->pos = 0;
	q->nr = n;
	q->run[0] = 0;
	q->nr_runs = 1;
	q->last_time = q->ents[n - 1].time;
}

void pki_pd_queue_flush(pd_queue *q, uint64_t limit)
{
	/* Only called when nothing is pending delivery. */
	sort_queue(q);
	size_t lo = q->pos, hi = q->nr;
	while (lo < hi) { /* first entry past the limit */
		size_t mid = (lo + hi) / 2;
		if (q->ents[mid].time <= limit)
			lo = mid + 1;
		else
			hi = mid;
	}
	q->ready = lo;
}

void pki_pd_queue_flush_half(pd_queue *q)
{
	pki_pd_queue_flush(q, 0);
	size_t n = q->nr - q->pos;
	q->ready = q->pos + (n / 2 ? n / 2 : n);
}

int pki_pd_queue_pop_next(pd_queue *q, pk_pd_event *ev)
{
	if (q->release) {
		chunk_release(q, q->release);
		q->release = NULL;
	}
	if (q->pos < q->ready && (q->ents[q->pos].ref & 1))
		return pki_pd_queue_pop_bare(q, ev);
	if (q->held) {
		pki_pd_src_release(q->src, q->held);
		q->held = NULL;
	}
	if (q->pos >= q->ready)
		return 0;
	const pd_qent *e = &q->ents[q->pos++];
	*ev = *(const pk_pd_event *)e->ref;
	q->release = e->chunk;
	if (q->src && pki_pd_src_stable(q->src, ev->data))
		q->held = ev->data;
	pki_pd_queue_delivered(q, e->time, (size_t)ev->size + (size_t)ev->aux_size);
	return 1;
}
