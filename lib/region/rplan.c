/* A thread that reads every event with read(2) (docs/regions.md, "The
 * read(2) path"): no event has a user page (a software fallback event, or
 * no RDPMC), or its TopDown group is read whole (no RDPMC on the slots
 * page, hybrid). The plan, made once at the thread's open, says which fds
 * to read (one per group, through PERF_FORMAT_GROUP, or per lone counter)
 * and where each event's value and times sit in the words read; a snapshot
 * is then those reads into one stack buffer, the clock, and one pass that
 * puts each value in place. Nothing else: no allocation, no lock (the
 * simulated kernel's, held by the caller, aside), no parsing of the layout, no reset
 * (read(2) never touches PERF_METRICS: nothing to carry).
 *
 * Invariants: the layout of a read never changes while its fds stay open
 * (read_format and the group's members are fixed at open), so the plan's
 * positions, found by one trial read of each group matching the members'
 * ids, stay right; a read whose length is not the plan's is an error
 * naming the fd, never a silently shifted value. */
#include "region/region_internal.h"

#include <errno.h>
#include <string.h>

/* The words of one read(2) of read_format rf for nr values. */
static size_t layout_words(uint64_t rf, size_t nr)
{
	size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	if (!(rf & PERF_FORMAT_GROUP))
		return per + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	return 1 + 2 + nr * per;
}

static uint64_t read_format(const pki_rg_thread *t, size_t i)
{
	union {
		struct perf_event_attr a;
		unsigned char b[PK_ATTR_SIZE_CONFIG3 + 64];
	} u;
	memset(&u, 0, sizeof(u));
	pk_counting_attr(t->c, i, u.b);
	return u.a.read_format;
}

/* Event j's place in a group read at base: by its id among the read's
 * (a member counted apart from its leader is not in it). */
static int group_member(const pki_rg_thread *t, const uint64_t *w, size_t nr, uint64_t rf,
			size_t j)
{
	uint64_t id = pk_counting_id(t->c, j, 0, 0);
	size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	for (size_t k = 0; id && k < nr; k++)
		if (w[3 + k * per + 1] == id)
			return (int)(3 + k * per);
	return -1;
}

/* One read of event i's fd added at *base: a group read covers the
 * members whose ids it holds, a lone read event i alone. Both layouts
 * have the times at words 1 and 2 (after the group's nr, or the value). */
static int add_read(pki_rg_thread *t, size_t i, uint16_t *base, bool *covered, pk_error *err)
{
	pki_rg_plan *p = &t->plan;
	uint64_t rf = read_format(t, i);
	const uint64_t times = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	bool group = rf & PERF_FORMAT_GROUP;
	if ((rf & times) != times || (group && !(rf & PERF_FORMAT_ID)))
		return pk_err(err, -EINVAL, "event %zu: read_format 0x%llx, not the times%s", i,
			      (unsigned long long)rf, group ? " and ids" : "");
	uint64_t w[PKI_RG_PLAN_WORDS];
	size_t cap = layout_words(rf, group ? pki_rg.nr_ev : 1);
	ssize_t n = pki_rg.k->ops->read(pki_rg.k, t->fd[i], w, cap * sizeof(uint64_t));
	if (n < 0)
		return pk_err(err, (int)n, "reading counter fd %d", t->fd[i]);
	size_t words = (size_t)n / sizeof(uint64_t);
	if (group ? words < 3 || w[0] > pki_rg.nr_ev || words != layout_words(rf, w[0])
		  : words != cap)
		return pk_err(err, -EIO, "counter fd %d: %zd bytes, not read_format 0x%llx's",
			      t->fd[i], n, (unsigned long long)rf);
	if (*base + words > PKI_RG_PLAN_WORDS)
		return pk_err(err, -E2BIG, "event %zu: %zu words to read, more than %d", i,
			      *base + words, PKI_RG_PLAN_WORDS);
	p->rd[p->nr_reads++] = (pki_rg_plan_rd){t->fd[i], *base, (uint16_t)words};
	for (size_t j = group ? 0 : i; j < (group ? pki_rg.nr_ev : i + 1); j++) {
		int at = group ? group_member(t, w, w[0], rf, j) : 0;
		if (covered[j] || at < 0)
			continue;
		p->at[j] = (pki_rg_plan_at){(uint16_t)(*base + at), (uint16_t)(*base + 1),
					    (uint16_t)(*base + 2), (uint16_t)pki_rg.ev[j].block};
		covered[j] = true;
	}
	*base = (uint16_t)(*base + words);
	return 0;
}

int pki_rg_plan_build(pki_rg_thread *t, pk_error *err)
{
	bool covered[PK_REGION_MAX_EVENTS] = {0};
	uint16_t base = 0;
	t->plan.nr_reads = 0;
	for (size_t i = 0; i < pki_rg.nr_ev; i++) {
		if (covered[i])
			continue;
		if (t->fd[i] < 0)
			return pk_err(err, -EBADF, "event %zu of the thread is not open", i);
		int r = add_read(t, i, &base, covered, err);
		if (r < 0)
			return r;
		if (!covered[i])
			return pk_err(err, -EIO, "event %zu: not in its own fd's group read", i);
	}
	return 0;
}

/* A read that did not give the plan's words (cold: the error's text). */
static __attribute__((noinline, cold)) int read_failed(const pki_rg_plan_rd *rd, ssize_t n,
							 pk_error *err)
{
	if (n < 0)
		return pk_err(err, (int)n, "reading counter fd %d", rd->fd);
	return pk_err(err, -EIO, "reading counter fd %d: %zd bytes, not the %u of its layout",
		      rd->fd, n, (unsigned)rd->words * 8u);
}

int pki_rg_plan_read(const pki_rg_thread *t, pk_region_snap *s, pk_error *err)
{
	uint64_t w[PKI_RG_PLAN_WORDS];
	const pk_kernel *k = pki_rg.k;
	const pki_rg_plan *p = &t->plan;
	for (uint32_t r = 0; r < p->nr_reads; r++) {
		const pki_rg_plan_rd *rd = &p->rd[r];
		size_t len = (size_t)rd->words * sizeof(uint64_t);
		ssize_t n = k->ops->read(k, rd->fd, w + rd->base, len);
		if (__builtin_expect(n != (ssize_t)len, 0))
			return read_failed(rd, n, err);
	}
	size_t nr = pki_rg.nr_ev;
	s->run[0] = s->run[1] = 0;
	for (size_t i = 0; i < nr; i++) {
		const pki_rg_plan_at *a = &p->at[i];
		uint64_t v = w[a->val], ena = w[a->ena], run = w[a->run];
		s->v[i] = pki_rg_scaled(v, ena, run);
		s->run[a->block] = run;
	}
	s->nr = (uint32_t)nr;
	s->flags = PK_REGION_SNAP_SYSCALL;
	s->epoch = t->epoch;
	return 0;
}
