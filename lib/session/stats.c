/* perf report 6.1's --stats counts (pmukit/session.h): the samples and lost
 * samples of each event counted while a session runs (its sample and
 * event callbacks, arg: the pk_session_stats), and the record counts as
 * perf 6.1 shows them (the reader's, COMPRESSED2 counted as the
 * COMPRESSED it replaces, the types up to FINISHED_INIT: the ones it
 * knows). The counts are indexed by evsel, SPE's synthetic ones included.
 * And report -T's: the values of READ records per thread and event
 * (pk_session_reads). Nothing here prints. */
#include <pmukit/session.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pk_session_stats_begin(pk_session_stats *c, pk_session *s)
{
	c->n = pk_pd_nr_evsels(pk_session_reader(s)) + PK_SPE_NR_KINDS;
	c->samples = calloc(c->n, sizeof(uint64_t));
	c->lost = calloc(c->n, sizeof(uint64_t));
	if (c->samples && c->lost)
		return 0;
	pk_session_stats_end(c);
	return -ENOMEM;
}

int pk_session_stats_sample(void *arg, pk_session *s, const pk_pd_event *ev,
			    const pk_pd_sample *smp)
{
	pk_session_stats *c = arg;
	(void)s, (void)smp;
	if ((size_t)ev->evsel->idx < c->n)
		c->samples[ev->evsel->idx]++;
	return 0;
}

int pk_session_stats_branches(void *arg, pk_session *s, const pk_pd_event *ev,
			      const pk_pd_sample *smp)
{
	for (uint64_t i = 0; i < smp->branch_nr; i++)
		pk_session_stats_sample(arg, s, ev, smp);
	return 0;
}

const char *pk_session_stats_name(pk_session *s, size_t i, bool features)
{
	const pk_pd_evsel *e = pk_session_evsel_at(s, i);
	return !features && pk_pd_is_pipe(pk_session_reader(s)) && e->attr_name[0] ? e->attr_name
									  : pk_pd_evsel_name(e);
}

void pk_session_stats_event(void *arg, pk_session *s, const pk_pd_event *ev, bool before)
{
	pk_session_stats *c = arg;
	(void)s;
	if (before && ev->type == PERF_RECORD_LOST_SAMPLES && ev->evsel && ev->size >= 16 &&
	    (size_t)ev->evsel->idx < c->n) {
		uint64_t lost;
		memcpy(&lost, ev->data + 8, sizeof(lost));
		c->lost[ev->evsel->idx] += lost;
	}
}

void pk_session_stats_end(pk_session_stats *c)
{
	free(c->samples);
	free(c->lost);
	c->samples = c->lost = NULL;
}

uint64_t pk_session_stats_records(const pk_pd_stats *st, uint32_t t)
{
	if (!t || t > PK_RECORD_FINISHED_INIT || t >= PK_RECORD_TYPE_MAX || !pk_pd_record_name(t))
		return 0;
	return st->nr_records[t] +
	       (t == PK_RECORD_COMPRESSED ? st->nr_records[PK_RECORD_COMPRESSED2] : 0);
}

uint64_t pk_session_stats_total(const pk_pd_stats *st)
{
	uint64_t total = 0;
	for (uint32_t t = 1; t <= PK_RECORD_FINISHED_INIT && t < PK_RECORD_TYPE_MAX; t++)
		total += pk_session_stats_records(st, t);
	return total;
}

/* ---- report -T: PERF_RECORD_READ values per thread and event ---- */

struct pk_session_reads {
	struct { int32_t pid, tid; } *th;
	int *ctr;                    /* the columns' evsel indexes, first seen first */
	uint64_t *val;               /* [thread * cap_ctr + column] */
	size_t nth, cap_th, nctr, cap_ctr;
	bool failed;                 /* a record could not be counted */
};

pk_session_reads *pk_session_reads_new(void)
{
	return calloc(1, sizeof(pk_session_reads));
}

void pk_session_reads_free(pk_session_reads *t)
{
	if (!t)
		return;
	free(t->th);
	free(t->ctr);
	free(t->val);
	free(t);
}

/* The value table grown to nth x ncap (columns kept in place). */
static int reads_grow(pk_session_reads *t, size_t nth, size_t ncap)
{
	if (nth <= t->cap_th && ncap <= t->cap_ctr)
		return 0;
	size_t cth = nth > t->cap_th ? 2 * nth : t->cap_th, cc = ncap > t->cap_ctr ? 2 * ncap : t->cap_ctr;
	uint64_t *v = calloc(cth * cc, sizeof(*v));
	void *th = realloc(t->th, cth * sizeof(*t->th));
	int *ctr = realloc(t->ctr, cc * sizeof(*ctr));
	if (th)
		t->th = th;
	if (ctr)
		t->ctr = ctr;
	if (!v || !th || !ctr) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nth; i++)
		memcpy(v + i * cc, t->val + i * t->cap_ctr, t->nctr * sizeof(*v));
	free(t->val);
	t->val = v;
	t->cap_th = cth;
	t->cap_ctr = cc;
	return 0;
}

void pk_session_reads_event(void *arg, pk_session *s, const pk_pd_event *ev, bool before)
{
	pk_session_reads *t = arg;
	(void)s;
	if (!before || t->failed || ev->type != PERF_RECORD_READ || !ev->evsel || ev->size < 24)
		return;
	int32_t pid, tid;
	uint64_t value;
	memcpy(&pid, ev->data + 8, 4);
	memcpy(&tid, ev->data + 12, 4);
	memcpy(&value, ev->data + 16, 8);
	size_t i = 0, c = 0;
	while (i < t->nth && (t->th[i].pid != pid || t->th[i].tid != tid))
		i++;
	while (c < t->nctr && t->ctr[c] != ev->evsel->idx)
		c++;
	if (reads_grow(t, i + 1, c + 1)) {
		t->failed = true;
		return;
	}
	if (i == t->nth) {
		t->th[t->nth].pid = pid;
		t->th[t->nth++].tid = tid;
	}
	if (c == t->nctr)
		t->ctr[t->nctr++] = ev->evsel->idx;
	t->val[i * t->cap_ctr + c] += value;
}

int pk_session_reads_size(const pk_session_reads *t, size_t *nr_threads, size_t *nr_events)
{
	*nr_threads = t->nth;
	*nr_events = t->nctr;
	return t->failed ? -ENOMEM : 0;
}

void pk_session_reads_thread(const pk_session_reads *t, size_t i, int32_t *pid, int32_t *tid)
{
	*pid = i < t->nth ? t->th[i].pid : -1;
	*tid = i < t->nth ? t->th[i].tid : -1;
}

int pk_session_reads_evsel(const pk_session_reads *t, size_t c)
{
	return c < t->nctr ? t->ctr[c] : -1;
}

uint64_t pk_session_reads_value(const pk_session_reads *t, size_t i, size_t c)
{
	return i < t->nth && c < t->nctr ? t->val[i * t->cap_ctr + c] : 0;
}
