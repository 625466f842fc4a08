/* perf report 6.1's --stats counts (pmukit/session.h): the samples and lost
 * samples of each event counted while a session runs (its sample and
 * event callbacks, arg: the pk_session_stats), and the record counts as
 * perf 6.1 shows them (the reader's, COMPRESSED2 counted as the
 * COMPRESSED it replaces, the types up to FINISHED_INIT: the ones it
 * knows). The counts are indexed by evsel, SPE's synthetic ones included.
 * Nothing here prints. */
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
