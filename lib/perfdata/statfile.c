/* perf stat record's files: written from a counting's reading (pmukit stat
 * record) and read back into readings and stat's rows (stat report,
 * script), over the records of statrec.c.
 * Invariants: a written file holds what perf 6.1's stat record writes in
 * its order (EVENT_UPDATEs, THREAD_MAP, CPU_MAP, STAT_CONFIG, the STATs of
 * a round, its STAT_ROUND), each STAT naming a counter by its kernel id,
 * its CPU by number and its thread by the THREAD_MAP's index; reading
 * keeps one reading per (evsel, CPU index, thread index), the last one
 * that came, and refuses what it cannot place (no silent loss). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pd_internal.h"

/* ---- Writing ------------------------------------------------------------- */

static pk_cpumap *any_cpu(void)
{
	int cpu = -1;
	return pk_cpumap_from_array(&cpu, 1);
}

/* The CPUs of evsel i ({-1} when it has none), a reference. */
static pk_cpumap *evsel_cpus(pk_counting *c, size_t i)
{
	pk_cpumap *m = pk_counting_cpus(c, i);
	return m ? pk_cpumap_get(m) : any_cpu();
}

static int nr_threads(pk_counting *c)
{
	pk_threadmap *t = pk_counting_threads(c);
	return t ? pk_threadmap_nr(t) : 1;
}

int pk_pd_stat_add_evsels(pk_pd_writer *w, pk_counting *c, bool pipe, pk_error *err)
{
	pk_evlist *l = pk_counting_evlist(c);
	int r = 0;
	for (size_t i = 0; r == 0 && i < pk_evlist_count(l); i++) {
		uint8_t buf[PK_ATTR_SIZE_CONFIG3 + 64] = {0};
		struct perf_event_attr attr;
		pk_counting_attr(c, i, buf);
		memcpy(&attr, buf, sizeof(attr));
		/* the ids asked for (PERF_FORMAT_ID) are not in perf's attrs of
		 * lone events */
		if (!(attr.read_format & PERF_FORMAT_GROUP))
			attr.read_format &= ~(uint64_t)PERF_FORMAT_ID;
		/* perf 6.1 writes a pipe's attrs before it sets IDENTIFIER */
		if (pipe)
			attr.sample_type &= ~(uint64_t)PERF_SAMPLE_IDENTIFIER;
		else
			attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
		pk_cpumap *cpus = evsel_cpus(c, i);
		int nc = cpus ? pk_cpumap_nr(cpus) : 0, nt = nr_threads(c);
		uint64_t *ids = calloc((size_t)(nc * nt) + 1, sizeof(*ids));
		size_t n = 0;
		for (int ci = 0; ids && ci < nc; ci++)
			for (int ti = 0; ti < nt; ti++)
				if (pk_counting_id(c, i, ci, ti))
					ids[n++] = pk_counting_id(c, i, ci, ti);
		const char *name = pk_counting_name(c, i);
		r = !ids || !cpus ? pk_err(err, -ENOMEM, "out of memory")
				  : pk_pd_writer_add_evsel(w, &attr, pk_evsel_config3(pk_evlist_at(l, i)),
							   name, ids, n, err);
		free(ids);
		pk_cpumap_put(cpus);
	}
	return r;
}

/* Writes the records built in b, one by one, and empties b. */
static int put(pk_pd_writer *w, pk_pd_buf *b, pk_error *err)
{
	int r = b->oom ? pk_err(err, -ENOMEM, "out of memory") : 0;
	for (size_t at = 0; r == 0 && at + 8 <= b->len; at += pd_ld16(b->data + at + 6))
		r = pk_pd_writer_write(w, b->data + at, pd_ld16(b->data + at + 6), err);
	pk_pd_buf_release(b);
	return r;
}

/* The first open counter's id of evsel i, 0 when none. */
static uint64_t first_id(pk_counting *c, size_t i)
{
	pk_cpumap *cpus = evsel_cpus(c, i);
	uint64_t id = 0;
	for (int ci = 0; cpus && !id && ci < pk_cpumap_nr(cpus); ci++)
		for (int ti = 0; !id && ti < nr_threads(c); ti++)
			id = pk_counting_id(c, i, ci, ti);
	pk_cpumap_put(cpus);
	return id;
}

/* perf's extra attr records: unit, scale (not 1), a pipe's names. */
static int write_updates(pk_pd_writer *w, pk_counting *c, bool pipe, pk_error *err)
{
	pk_evlist *l = pk_counting_evlist(c);
	int r = 0;
	for (size_t i = 0; r == 0 && i < pk_evlist_count(l); i++) {
		uint64_t id = first_id(c, i);
		double scale;
		const char *unit = pk_evsel_display_unit(pk_evlist_at(l, i), &scale);
		pk_pd_buf b = {0};
		if (!id)
			continue;
		if (unit && *unit)
			pk_pd_build_event_update(&b, PD_EVENT_UPDATE_UNIT, id, unit, 0);
		if (scale != 1.0)
			pk_pd_build_event_update(&b, PD_EVENT_UPDATE_SCALE, id, NULL, scale);
		if (pipe && pk_counting_name(c, i))
			pk_pd_build_event_update(&b, PD_EVENT_UPDATE_NAME, id, pk_counting_name(c, i), 0);
		r = b.len || b.oom ? put(w, &b, err) : 0;
	}
	return r;
}

static int write_maps(pk_pd_writer *w, pk_counting *c, pk_error *err)
{
	pk_threadmap *t = pk_counting_threads(c);
	int nt = nr_threads(c);
	int32_t *pids = calloc((size_t)nt, sizeof(*pids));
	if (!pids)
		return pk_err(err, -ENOMEM, "out of memory");
	for (int i = 0; i < nt; i++)
		pids[i] = t ? pk_threadmap_tid(t, i) : -1;
	pk_pd_buf b = {0};
	pk_pd_build_thread_map(&b, pids, NULL, (size_t)nt);
	free(pids);
	int r = put(w, &b, err);
	pk_cpumap *cpus = evsel_cpus(c, 0);
	if (r == 0 && !cpus)
		r = pk_err(err, -ENOMEM, "out of memory");
	if (r == 0) {
		pk_pd_build_cpu_map(&b, cpus);
		r = put(w, &b, err);
	}
	pk_cpumap_put(cpus);
	return r;
}

int pk_pd_stat_write_setup(pk_pd_writer *w, pk_counting *c, const pk_pd_stat_config *cfg,
			   bool pipe, pk_error *err)
{
	int r = write_updates(w, c, pipe, err);
	if (r == 0)
		r = write_maps(w, c, err);
	if (r == 0) {
		pk_pd_buf b = {0};
		pk_pd_build_stat_config(&b, cfg);
		r = put(w, &b, err);
	}
	return r;
}

int pk_pd_stat_write_counts(pk_pd_writer *w, pk_counting *c, pk_error *err)
{
	pk_evlist *l = pk_counting_evlist(c);
	pk_pd_buf b = {0};
	for (size_t i = 0; i < pk_evlist_count(l); i++) {
		pk_cpumap *cpus = evsel_cpus(c, i);
		for (int ci = 0; cpus && ci < pk_cpumap_nr(cpus); ci++)
			for (int ti = 0; ti < nr_threads(c); ti++) {
				uint64_t id = pk_counting_id(c, i, ci, ti);
				const pk_counts *v = pk_counting_counts(c, i, ci, ti);
				if (!id || !v)
					continue;
				pk_pd_rec_stat st = {.id = id, .cpu = pk_cpumap_cpu(cpus, ci),
						     .thread = (uint32_t)ti, .val = v->val,
						     .ena = v->ena, .run = v->run};
				pk_pd_build_stat(&b, &st);
			}
		if (!cpus)
			b.oom = true;
		pk_cpumap_put(cpus);
	}
	return put(w, &b, err);
}

int pk_pd_stat_write_round(pk_pd_writer *w, uint64_t type, uint64_t time_ns, pk_error *err)
{
	pk_pd_buf b = {0};
	pk_pd_build_stat_round(&b, &(pk_pd_rec_stat_round){.type = type, .time = time_ns});
	return put(w, &b, err);
}

/* ---- Reading ------------------------------------------------------------- */

struct pk_pd_stat_data {
	pk_pd_reader *r;
	bool seen;
	pk_pd_stat_config config;
	pk_cpumap *cpus;
	int32_t *pids;
	char (*comms)[17];
	int nr_threads;
	size_t nr_evsels;            /* the readings' shape, fixed at the first STAT */
	pk_counts *counts;           /* [evsel][cpu index][thread index] */
	bool *counted;               /* per evsel: a STAT came */
	pk_evlist *evlist;           /* the rows' evsels, made on first use */
};

pk_pd_stat_data *pk_pd_stat_data_new(pk_pd_reader *r)
{
	pk_pd_stat_data *d = calloc(1, sizeof(*d));
	if (d) {
		d->r = r;
		d->config.aggr_mode = PK_PD_AGGR_GLOBAL;
		d->config.scale = 1;
	}
	return d;
}

static void drop_readings(pk_pd_stat_data *d)
{
	free(d->counts);
	free(d->counted);
	d->counts = NULL;
	d->counted = NULL;
	d->nr_evsels = 0;
}

void pk_pd_stat_data_free(pk_pd_stat_data *d)
{
	if (!d)
		return;
	drop_readings(d);
	pk_cpumap_put(d->cpus);
	free(d->pids);
	free(d->comms);
	pk_evlist_put(d->evlist);
	free(d);
}

static int take_threads(pk_pd_stat_data *d, const pk_pd_event *ev, pk_error *err)
{
	uint64_t nr;
	int r = pk_pd_rec_thread_map_nr(ev, &nr, err);
	if (r < 0)
		return r;
	int32_t *pids = calloc(nr + 1, sizeof(*pids));
	char(*comms)[17] = calloc(nr + 1, sizeof(*comms));
	if (!pids || !comms) {
		free(pids);
		free(comms);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	for (uint64_t i = 0; i < nr; i++)
		pk_pd_rec_thread_map_entry(ev, i, &pids[i], comms[i]);
	free(d->pids);
	free(d->comms);
	d->pids = pids;
	d->comms = comms;
	d->nr_threads = (int)nr;
	drop_readings(d); /* a new shape */
	return 0;
}

static int take_cpus(pk_pd_stat_data *d, const pk_pd_event *ev, pk_error *err)
{
	pk_cpumap *m = pk_pd_rec_cpu_map(ev);
	if (!m)
		return pk_err(err, -ENOMEM, "out of memory");
	pk_cpumap_put(d->cpus);
	d->cpus = m;
	drop_readings(d);
	return 0;
}

static size_t slot(const pk_pd_stat_data *d, size_t e, int ci, int ti)
{
	return (e * (size_t)pk_cpumap_nr(d->cpus) + (size_t)ci) * (size_t)d->nr_threads + (size_t)ti;
}

/* -EINVAL naming the STAT record at ev and why it cannot be placed. */
static int bad_stat(const pk_pd_event *ev, pk_error *err, const char *why, long long v)
{
	pk_err_at(err, -EINVAL, "perf.data", "record", (long)ev->offset, "STAT record: %s %lld", why,
		  v);
	if (err)
		err->pos_is_offset = 1;
	return -EINVAL;
}

static int take_stat(pk_pd_stat_data *d, const pk_pd_event *ev, pk_error *err)
{
	pk_pd_rec_stat st;
	int r = pk_pd_rec_stat_parse(ev, &st, err);
	if (r < 0)
		return r;
	if (!d->cpus || !d->nr_threads)
		return bad_stat(ev, err, "before the THREAD_MAP and CPU_MAP records, id", (long long)st.id);
	const pk_pd_evsel *e = pk_pd_evsel_by_id(d->r, st.id);
	if (!e)
		return bad_stat(ev, err, "no event has the id", (long long)st.id);
	int ci = pk_cpumap_idx(d->cpus, st.cpu);
	if (ci < 0)
		return bad_stat(ev, err, "a CPU not in the CPU_MAP:", st.cpu);
	if (st.thread >= (uint32_t)d->nr_threads)
		return bad_stat(ev, err, "a thread index past the THREAD_MAP's end:", st.thread);
	if (!d->counts) {
		d->nr_evsels = pk_pd_nr_evsels(d->r);
		d->counts = calloc(slot(d, d->nr_evsels, 0, 0) + 1, sizeof(*d->counts));
		d->counted = calloc(d->nr_evsels + 1, sizeof(*d->counted));
		if (!d->counts || !d->counted) {
			drop_readings(d);
			return pk_err(err, -ENOMEM, "out of memory");
		}
	}
	if ((size_t)e->idx >= d->nr_evsels)
		return bad_stat(ev, err, "an event added after the first STAT record, id", (long long)st.id);
	d->counts[slot(d, (size_t)e->idx, ci, (int)st.thread)] =
		(pk_counts){.val = st.val, .ena = st.ena, .run = st.run, .id = st.id};
	d->counted[e->idx] = true;
	return 0;
}

int pk_pd_stat_data_add(pk_pd_stat_data *d, const pk_pd_event *ev, pk_pd_rec_stat_round *round,
			pk_error *err)
{
	int r = 0;
	switch (ev->type) {
	case PK_RECORD_THREAD_MAP: r = take_threads(d, ev, err); break;
	case PK_RECORD_CPU_MAP: r = take_cpus(d, ev, err); break;
	case PK_RECORD_STAT_CONFIG: r = pk_pd_rec_stat_config_parse(ev, &d->config, err); break;
	case PK_RECORD_STAT: r = take_stat(d, ev, err); break;
	case PK_RECORD_STAT_ROUND:
		r = pk_pd_rec_stat_round_parse(ev, round, err);
		if (r == 0)
			r = 1;
		break;
	default: return 0;
	}
	d->seen = true;
	return r;
}

bool pk_pd_stat_data_seen(const pk_pd_stat_data *d) { return d->seen; }
const pk_pd_stat_config *pk_pd_stat_data_config(const pk_pd_stat_data *d) { return &d->config; }
int pk_pd_stat_data_nr_cpus(const pk_pd_stat_data *d) { return d->cpus ? pk_cpumap_nr(d->cpus) : 0; }
int pk_pd_stat_data_cpu(const pk_pd_stat_data *d, int idx) { return pk_cpumap_cpu(d->cpus, idx); }
int pk_pd_stat_data_nr_threads(const pk_pd_stat_data *d) { return d->nr_threads; }
int32_t pk_pd_stat_data_pid(const pk_pd_stat_data *d, int idx) { return d->pids[idx]; }
const char *pk_pd_stat_data_comm(const pk_pd_stat_data *d, int idx) { return d->comms[idx]; }

pk_counts pk_pd_stat_data_counts(const pk_pd_stat_data *d, size_t evsel, int cpu_idx,
				 int thread_idx)
{
	if (!d->counts || evsel >= d->nr_evsels || cpu_idx < 0 || thread_idx < 0 ||
	    cpu_idx >= pk_pd_stat_data_nr_cpus(d) || thread_idx >= d->nr_threads)
		return (pk_counts){0};
	return d->counts[slot(d, evsel, cpu_idx, thread_idx)];
}

/* The file's evsels as an evlist (attrs and names), once. */
static int make_evlist(pk_pd_stat_data *d)
{
	if (d->evlist)
		return 0;
	pk_evlist *l = pk_evlist_new();
	for (size_t i = 0; l && i < pk_pd_nr_evsels(d->r); i++) {
		const pk_pd_evsel *e = pk_pd_evsel_at(d->r, i);
		if (!pk_evlist_add(l, &e->attr, pk_pd_evsel_name(e), NULL)) {
			pk_evlist_put(l);
			l = NULL;
		}
	}
	d->evlist = l;
	return l ? 0 : -ENOMEM;
}

static void add_counts(pk_counts *to, const pk_counts *v)
{
	to->val += v->val;
	to->ena += v->ena;
	to->run += v->run;
}

/* Bucket b of evsel i under aggr summed into row. */
static void fill_row(pk_pd_stat_data *d, size_t i, pk_aggr_mode aggr, int b, pk_stat_row *row)
{
	int nc = pk_pd_stat_data_nr_cpus(d);
	memset(row, 0, sizeof(*row));
	row->evsel = pk_evlist_at(d->evlist, i);
	row->name = pk_evsel_name(row->evsel);
	row->status = i < d->nr_evsels && d->counted[i] ? PK_OPEN_OK : PK_OPEN_UNSUPPORTED;
	row->key = aggr == PK_AGGR_CPU ? pk_pd_stat_data_cpu(d, b)
		   : aggr == PK_AGGR_THREAD ? d->pids[b] : -1;
	if (aggr == PK_AGGR_THREAD)
		memcpy(row->comm, d->comms[b], sizeof(d->comms[b]));
	for (int ci = 0; ci < nc; ci++)
		for (int ti = 0; ti < d->nr_threads; ti++)
			if ((aggr != PK_AGGR_CPU || ci == b) && (aggr != PK_AGGR_THREAD || ti == b)) {
				pk_counts v = pk_pd_stat_data_counts(d, i, ci, ti);
				add_counts(&row->counts, &v);
			}
}

int pk_pd_stat_data_rows(pk_pd_stat_data *d, pk_aggr_mode aggr, pk_stat_rows *rows)
{
	if (make_evlist(d) < 0)
		return -ENOMEM;
	int nb = aggr == PK_AGGR_CPU ? pk_pd_stat_data_nr_cpus(d)
		 : aggr == PK_AGGR_THREAD ? d->nr_threads : 1;
	size_t ne = pk_evlist_count(d->evlist);
	pk_stat_row *v = calloc(ne * (size_t)(nb > 0 ? nb : 1) + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < ne; i++)
		for (int b = 0; b < nb; b++)
			fill_row(d, i, aggr, b, &v[n++]);
	pk_stat_rows_free(rows);
	rows->v = v;
	rows->nr = n;
	rows->runs = 1;
	return 0;
}
