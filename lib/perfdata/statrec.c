/* perf stat record's records (perf 6.1's layouts): STAT, STAT_ROUND,
 * STAT_CONFIG, THREAD_MAP, CPU_MAP (the list form) and EVENT_UPDATE, each
 * parsed from a delivered record (native order: swap.c has turned a foreign
 * file's) and built for the writer.
 * Invariants: a parser reads only inside ev->size and says what is short
 * and where; a builder writes a whole record whose header.size is its
 * length, padded to 8 (a full buffer is b->oom, the caller's to check). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pd_internal.h"

enum { STAT_TERM_AGGR_MODE = 0, STAT_TERM_INTERVAL = 1, STAT_TERM_SCALE = 2 };

static bool is(const pk_pd_event *ev, uint32_t type, size_t min)
{
	return ev->type == type && ev->size >= min;
}

int pk_pd_rec_stat_parse(const pk_pd_event *ev, pk_pd_rec_stat *out, pk_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!is(ev, PK_RECORD_STAT, 48))
		return pki_pd_too_short(ev, err, "STAT");
	out->id = pd_ld64(ev->data + 8);
	out->cpu = (int32_t)pd_ld32(ev->data + 16);
	out->thread = pd_ld32(ev->data + 20);
	out->val = pd_ld64(ev->data + 24);
	out->ena = pd_ld64(ev->data + 32);
	out->run = pd_ld64(ev->data + 40);
	return 0;
}

int pk_pd_rec_stat_round_parse(const pk_pd_event *ev, pk_pd_rec_stat_round *out, pk_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!is(ev, PK_RECORD_STAT_ROUND, 24))
		return pki_pd_too_short(ev, err, "STAT_ROUND");
	out->type = pd_ld64(ev->data + 8);
	out->time = pd_ld64(ev->data + 16);
	return 0;
}

int pk_pd_rec_stat_config_parse(const pk_pd_event *ev, pk_pd_stat_config *out, pk_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!is(ev, PK_RECORD_STAT_CONFIG, 16))
		return pki_pd_too_short(ev, err, "STAT_CONFIG");
	uint64_t nr = pd_ld64(ev->data + 8);
	if (nr > (ev->size - 16u) / 16)
		return pki_pd_too_short(ev, err, "STAT_CONFIG");
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *t = ev->data + 16 + 16 * i;
		uint64_t v = pd_ld64(t + 8);
		switch (pd_ld64(t)) {
		case STAT_TERM_AGGR_MODE: out->aggr_mode = v; break;
		case STAT_TERM_INTERVAL: out->interval = v; break;
		case STAT_TERM_SCALE: out->scale = v; break;
		default: out->nr_unknown++; break;
		}
	}
	return 0;
}

int pk_pd_rec_thread_map_nr(const pk_pd_event *ev, uint64_t *nr, pk_error *err)
{
	*nr = 0;
	if (!is(ev, PK_RECORD_THREAD_MAP, 16) || pd_ld64(ev->data + 8) > (ev->size - 16u) / 24)
		return pki_pd_too_short(ev, err, "THREAD_MAP");
	*nr = pd_ld64(ev->data + 8);
	return 0;
}

void pk_pd_rec_thread_map_entry(const pk_pd_event *ev, uint64_t i, int32_t *pid, char comm[17])
{
	const uint8_t *e = ev->data + 16 + 24 * i;
	*pid = (int32_t)pd_ld64(e);
	memcpy(comm, e + 8, 16);
	comm[16] = 0;
}

pk_cpumap *pk_pd_rec_cpu_map(const pk_pd_event *ev)
{
	const uint8_t *p = ev->data + 8;
	size_t n = ev->size >= 8 ? ev->size - 8u : 0;
	if (n < 4 || pd_ld16(p) != 0) /* a mask or a range: no -1 in them */
		return pk_pd_cpu_map_data(p, n);
	uint16_t nr = pd_ld16(p + 2);
	if (4 + 2 * (size_t)nr > n)
		return pk_cpumap_from_array(NULL, 0);
	int *cpus = malloc((nr ? nr : 1) * sizeof(int));
	if (!cpus)
		return NULL;
	for (uint16_t i = 0; i < nr; i++) {
		uint16_t c = pd_ld16(p + 4 + 2 * i);
		cpus[i] = c == 0xffff ? -1 : c;
	}
	pk_cpumap *m = pk_cpumap_from_array(cpus, nr);
	free(cpus);
	return m;
}

/* A record's header; its size is set by end_rec. */
static size_t begin_rec(pk_pd_buf *b, uint32_t type)
{
	size_t at = b->len;
	pk_pd_buf_u32(b, type);
	pk_pd_buf_u16(b, 0);
	pk_pd_buf_u16(b, 0);
	return at;
}

static void end_rec(pk_pd_buf *b, size_t at)
{
	pk_pd_buf_pad8(b);
	if (!b->oom) {
		uint16_t size = (uint16_t)(b->len - at);
		memcpy(b->data + at + 6, &size, 2);
	}
}

void pk_pd_build_stat(pk_pd_buf *b, const pk_pd_rec_stat *st)
{
	size_t at = begin_rec(b, PK_RECORD_STAT);
	pk_pd_buf_u64(b, st->id);
	pk_pd_buf_u32(b, (uint32_t)st->cpu);
	pk_pd_buf_u32(b, st->thread);
	pk_pd_buf_u64(b, st->val);
	pk_pd_buf_u64(b, st->ena);
	pk_pd_buf_u64(b, st->run);
	end_rec(b, at);
}

void pk_pd_build_stat_round(pk_pd_buf *b, const pk_pd_rec_stat_round *rd)
{
	size_t at = begin_rec(b, PK_RECORD_STAT_ROUND);
	pk_pd_buf_u64(b, rd->type);
	pk_pd_buf_u64(b, rd->time);
	end_rec(b, at);
}

void pk_pd_build_stat_config(pk_pd_buf *b, const pk_pd_stat_config *c)
{
	size_t at = begin_rec(b, PK_RECORD_STAT_CONFIG);
	const uint64_t terms[][2] = {{STAT_TERM_AGGR_MODE, c->aggr_mode},
				     {STAT_TERM_INTERVAL, c->interval},
				     {STAT_TERM_SCALE, c->scale}};
	pk_pd_buf_u64(b, 3);
	for (size_t i = 0; i < 3; i++) {
		pk_pd_buf_u64(b, terms[i][0]);
		pk_pd_buf_u64(b, terms[i][1]);
	}
	end_rec(b, at);
}

void pk_pd_build_thread_map(pk_pd_buf *b, const int32_t *pids, const char *const *comms, size_t nr)
{
	size_t at = begin_rec(b, PK_RECORD_THREAD_MAP);
	pk_pd_buf_u64(b, nr);
	for (size_t i = 0; i < nr; i++) {
		char comm[16] = {0};
		if (comms && comms[i])
			strncpy(comm, comms[i], sizeof(comm) - 1);
		pk_pd_buf_u64(b, (uint64_t)(int64_t)pids[i]);
		pk_pd_buf_bytes(b, comm, sizeof(comm));
	}
	end_rec(b, at);
}

void pk_pd_build_cpu_map(pk_pd_buf *b, const pk_cpumap *cpus)
{
	size_t at = begin_rec(b, PK_RECORD_CPU_MAP);
	int nr = pk_cpumap_nr(cpus);
	pk_pd_buf_u16(b, 0); /* the list form */
	pk_pd_buf_u16(b, (uint16_t)nr);
	for (int i = 0; i < nr; i++)
		pk_pd_buf_u16(b, (uint16_t)pk_cpumap_cpu(cpus, i));
	end_rec(b, at);
}

void pk_pd_build_event_update(pk_pd_buf *b, uint64_t kind, uint64_t id, const char *text,
			      double scale)
{
	size_t at = begin_rec(b, PK_RECORD_EVENT_UPDATE);
	pk_pd_buf_u64(b, kind);
	pk_pd_buf_u64(b, id);
	if (kind == PD_EVENT_UPDATE_SCALE)
		pk_pd_buf_bytes(b, &scale, sizeof(scale));
	else
		pk_pd_buf_name(b, text ? text : "");
	end_rec(b, at);
}
