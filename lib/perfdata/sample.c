/* PERF_RECORD_SAMPLE: one walk over the body driven by sample_type, in the
 * order the kernel writes the fields (perf_output_sample). The same walk
 * swaps a foreign-endian record in place before it is parsed. */
#include "pd_internal.h"

#include <errno.h>

/* Branch sample flags newer than some UAPI headers. */
#define PD_BRANCH_HW_INDEX (1ULL << 17)
#define PD_BRANCH_COUNTERS (1ULL << 19)

typedef struct walk {
	uint8_t *p, *end;
	bool swap;
	const char *field;
} walk;

static bool need(walk *w, uint64_t n, const char *field)
{
	if ((uint64_t)(w->end - w->p) < n) {
		w->field = field;
		return false;
	}
	return true;
}

static uint64_t take64(walk *w)
{
	if (w->swap)
		pd_sw64(w->p);
	uint64_t v = pd_ld64(w->p);
	w->p += 8;
	return v;
}

/* n u64s in place; returns their start. */
static const uint64_t *take_arr(walk *w, uint64_t n)
{
	const uint64_t *a = (const uint64_t *)(void *)w->p;
	for (uint64_t i = 0; w->swap && i < n; i++)
		pd_sw64(w->p + i * 8);
	w->p += n * 8;
	return a;
}

static bool take_regs(walk *w, uint64_t mask, uint64_t *abi, const uint64_t **regs, size_t *nr,
		      const char *field)
{
	if (!need(w, 8, field))
		return false;
	*abi = take64(w);
	if (!*abi)
		return true;
	size_t n = (size_t)__builtin_popcountll(mask);
	if (!need(w, (uint64_t)n * 8, field))
		return false;
	*regs = take_arr(w, n);
	*nr = n;
	return true;
}

int pki_pd_sample_walk(const pk_pd_evsel *evsel, uint8_t *body, size_t len, bool swap,
		   pk_pd_sample *s, const char **bad_field)
{
	const struct perf_event_attr *a = &evsel->attr;
	uint64_t st = a->sample_type;
	walk w = {body, body + len, swap, NULL};
	memset(s, 0, sizeof(*s));
	s->type = st;
	s->cpu = (uint32_t)-1;
	s->pid = s->tid = (uint32_t)-1;
	s->time = (uint64_t)-1;
	/* without PERIOD in the samples, the fixed period applies (perf's rule) */
	if (!a->freq)
		s->period = a->sample_period;

#define U64(bit, dst, name)                                                                       \
	if (st & (bit)) {                                                                         \
		if (!need(&w, 8, name))                                                           \
			goto bad;                                                                 \
		dst = take64(&w);                                                                 \
	}
#define U32PAIR(bit, d1, d2, name)                                                                \
	if (st & (bit)) {                                                                         \
		if (!need(&w, 8, name))                                                           \
			goto bad;                                                                 \
		if (swap) {                                                                       \
			pd_sw32(w.p);                                                             \
			pd_sw32(w.p + 4);                                                         \
		}                                                                                 \
		d1 = pd_ld32(w.p);                                                                \
		d2 = pd_ld32(w.p + 4);                                                            \
		w.p += 8;                                                                         \
	}

	U64(PERF_SAMPLE_IDENTIFIER, s->identifier, "IDENTIFIER");
	U64(PERF_SAMPLE_IP, s->ip, "IP");
	U32PAIR(PERF_SAMPLE_TID, s->pid, s->tid, "TID");
	U64(PERF_SAMPLE_TIME, s->time, "TIME");
	U64(PERF_SAMPLE_ADDR, s->addr, "ADDR");
	U64(PERF_SAMPLE_ID, s->id, "ID");
	U64(PERF_SAMPLE_STREAM_ID, s->stream_id, "STREAM_ID");
	U32PAIR(PERF_SAMPLE_CPU, s->cpu, s->cpu_res, "CPU");
	U64(PERF_SAMPLE_PERIOD, s->period, "PERIOD");
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = a->read_format;
		uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		uint64_t n;
		if (rf & PERF_FORMAT_GROUP) {
			if (!need(&w, 8, "READ"))
				goto bad;
			uint64_t nr = swap ? __builtin_bswap64(pd_ld64(w.p)) : pd_ld64(w.p);
			if (nr > len / 8)
				{ w.field = "READ"; goto bad; }
			n = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			    !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) + nr * per;
		} else {
			n = per + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			    !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
		}
		if (!need(&w, n * 8, "READ"))
			goto bad;
		s->read = take_arr(&w, n);
		s->read_nr = (size_t)n;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!need(&w, 8, "CALLCHAIN"))
			goto bad;
		uint64_t nr = take64(&w);
		if (nr > len / 8 || !need(&w, nr * 8, "CALLCHAIN"))
			{ w.field = "CALLCHAIN"; goto bad; }
		s->callchain = take_arr(&w, nr);
		s->callchain_nr = nr;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (!need(&w, 4, "RAW"))
			goto bad;
		if (swap)
			pd_sw32(w.p);
		uint32_t sz = pd_ld32(w.p);
		w.p += 4;
		if (!need(&w, sz, "RAW"))
			goto bad;
		s->raw = w.p;
		s->raw_size = sz;
		w.p += sz;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (!need(&w, 8, "BRANCH_STACK"))
			goto bad;
		uint64_t nr = take64(&w);
		if (nr > len / 24)
			{ w.field = "BRANCH_STACK"; goto bad; }
		if (a->branch_sample_type & PD_BRANCH_HW_INDEX) {
			if (!need(&w, 8, "BRANCH_STACK"))
				goto bad;
			s->branch_hw_idx = take64(&w);
			s->has_branch_hw_idx = true;
		}
		if (!need(&w, nr * 24, "BRANCH_STACK"))
			goto bad;
		s->branch = (const pk_pd_branch_entry *)(const void *)take_arr(&w, nr * 3);
		s->branch_nr = nr;
		if (a->branch_sample_type & PD_BRANCH_COUNTERS) {
			if (!need(&w, nr * 8, "BRANCH_STACK"))
				goto bad;
			s->branch_counters = take_arr(&w, nr);
		}
	}
	if (st & PERF_SAMPLE_REGS_USER)
		if (!take_regs(&w, a->sample_regs_user, &s->user_abi, &s->user_regs,
			       &s->user_regs_nr, "REGS_USER"))
			goto bad;
	if (st & PERF_SAMPLE_STACK_USER) {
		if (!need(&w, 8, "STACK_USER"))
			goto bad;
		s->stack_size = take64(&w);
		if (s->stack_size) {
			if (!need(&w, s->stack_size, "STACK_USER"))
				goto bad;
			s->stack = w.p;
			w.p += s->stack_size;
			if (!need(&w, 8, "STACK_USER"))
				goto bad;
			s->stack_dyn_size = take64(&w);
		}
	}
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		if (!need(&w, 8, "WEIGHT_STRUCT"))
			goto bad;
		if (swap) {
			pd_sw32(w.p);
			pd_sw16(w.p + 4);
			pd_sw16(w.p + 6);
		}
		s->weight = pd_ld32(w.p);
		s->weight_var2 = pd_ld16(w.p + 4);
		s->weight_var3 = pd_ld16(w.p + 6);
		w.p += 8;
	} else {
		U64(PERF_SAMPLE_WEIGHT, s->weight, "WEIGHT");
	}
	U64(PERF_SAMPLE_DATA_SRC, s->data_src, "DATA_SRC");
	U64(PERF_SAMPLE_TRANSACTION, s->transaction, "TRANSACTION");
	if (st & PERF_SAMPLE_REGS_INTR)
		if (!take_regs(&w, a->sample_regs_intr, &s->intr_abi, &s->intr_regs,
			       &s->intr_regs_nr, "REGS_INTR"))
			goto bad;
	U64(PERF_SAMPLE_PHYS_ADDR, s->phys_addr, "PHYS_ADDR");
	U64(PERF_SAMPLE_CGROUP, s->cgroup, "CGROUP");
	U64(PERF_SAMPLE_DATA_PAGE_SIZE, s->data_page_size, "DATA_PAGE_SIZE");
	U64(PERF_SAMPLE_CODE_PAGE_SIZE, s->code_page_size, "CODE_PAGE_SIZE");
	if (st & PERF_SAMPLE_AUX) {
		if (!need(&w, 8, "AUX"))
			goto bad;
		s->aux_size = take64(&w);
		if (!need(&w, s->aux_size, "AUX"))
			goto bad;
		s->aux = w.p;
		w.p += s->aux_size;
	}
#undef U64
#undef U32PAIR
	return 0;
bad:
	if (bad_field)
		*bad_field = w.field;
	return -EINVAL;
}

int pk_pd_parse_sample_body(const pk_pd_evsel *evsel, const uint8_t *body, size_t len,
			    pk_pd_sample *s, pk_error *err)
{
	const char *field = NULL;
	/* Without swap the walk only reads; the cast keeps one routine. */
	int rc = pki_pd_sample_walk(evsel, (uint8_t *)(uintptr_t)body, len, false, s, &field);
	if (rc < 0)
		return pk_err(err, rc, "sample field %s runs past the record end (%zu bytes)",
			      field ? field : "?", len + 8);
	return 0;
}

int pk_pd_parse_sample(const pk_pd_event *ev, pk_pd_sample *s, pk_error *err)
{
	if (ev->type != PERF_RECORD_SAMPLE || !ev->evsel) {
		pk_err_at(err, -EINVAL, "perf.data", "record", (long)ev->offset,
			  "not a sample of a known event");
		if (err)
			err->pos_is_offset = 1;
		return -EINVAL;
	}
	const char *field = NULL;
	int rc = pki_pd_sample_walk(ev->evsel, (uint8_t *)(uintptr_t)(ev->data + 8),
				(size_t)ev->size - 8, false, s, &field);
	if (rc < 0) {
		pk_err_at(err, rc, "perf.data", "record", (long)ev->offset,
			  "sample field %s runs past the record end (size %u)", field ? field : "?",
			  ev->size);
		if (err)
			err->pos_is_offset = 1;
		return rc;
	}
	s->misc = ev->misc;
	return 0;
}

const uint8_t *pki_pd_read_id_fields(const uint8_t *p, uint64_t st, bool sample, pk_pd_sample_id *id)
{
	if (st & PERF_SAMPLE_TID) {
		id->pid = pd_ld32(p);
		id->tid = pd_ld32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		id->time = pd_ld64(p);
		p += 8;
	}
	if (sample && (st & PERF_SAMPLE_ADDR))
		p += 8;
	if (st & PERF_SAMPLE_ID) {
		id->id = pd_ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		id->stream_id = pd_ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		id->cpu = pd_ld32(p);
		p += 8;
	}
	return p;
}

void pki_pd_parse_trailer(const uint8_t *rec, size_t size, uint64_t st, pk_pd_sample_id *id)
{
	memset(id, 0, sizeof(*id));
	id->cpu = (uint32_t)-1;
	size_t tsz = pki_pd_trailer_size(st);
	if (tsz > size - 8)
		return;
	id->fields = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	const uint8_t *p = pki_pd_read_id_fields(rec + size - tsz, st, false, id);
	if (st & PERF_SAMPLE_IDENTIFIER)
		id->id = pd_ld64(p);
}
