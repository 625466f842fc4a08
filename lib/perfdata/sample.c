/* PERF_RECORD_SAMPLE: one walk over the body driven by sample_type, in the
 * order the kernel writes the fields (perf_output_sample). The same walk
 * swaps a foreign-endian record in place before it is parsed.
 *
 * Also the one description of the identification fields: the head of a
 * sample and the sample_id trailer of other records (two orders of mostly
 * the same fields, in the tables below). Reading, swapping, writing and
 * locating these fields all go through those tables. */
#include "pd_internal.h"

#include <errno.h>

/* Branch sample flags newer than some UAPI headers. */
#define PD_BRANCH_HW_INDEX (1ULL << 17)
#define PD_BRANCH_COUNTERS (1ULL << 19)

/* An identification field: its bit, name, and whether it is two u32s. */
typedef struct id_field {
	uint64_t bit;
	const char *name;
	bool pair;
} id_field;

static const id_field sample_head[] = {
	{PERF_SAMPLE_IDENTIFIER, "IDENTIFIER", false},
	{PERF_SAMPLE_IP, "IP", false},
	{PERF_SAMPLE_TID, "TID", true},
	{PERF_SAMPLE_TIME, "TIME", false},
	{PERF_SAMPLE_ADDR, "ADDR", false},
	{PERF_SAMPLE_ID, "ID", false},
	{PERF_SAMPLE_STREAM_ID, "STREAM_ID", false},
	{PERF_SAMPLE_CPU, "CPU", true},
};

static const id_field trailer[] = {
	{PERF_SAMPLE_TID, "TID", true},
	{PERF_SAMPLE_TIME, "TIME", false},
	{PERF_SAMPLE_ID, "ID", false},
	{PERF_SAMPLE_STREAM_ID, "STREAM_ID", false},
	{PERF_SAMPLE_CPU, "CPU", true},
	{PERF_SAMPLE_IDENTIFIER, "IDENTIFIER", false},
};

#define NR_HEAD (sizeof(sample_head) / sizeof(sample_head[0]))
#define NR_TRAILER (sizeof(trailer) / sizeof(trailer[0]))

size_t pki_pd_trailer_size(uint64_t st)
{
	return (size_t)pd_popcount64(st & PD_TRAILER_FIELDS) * 8;
}

/* u64 index of bit among the fields of st in table order; -1 when absent. */
static int field_pos(const id_field *t, size_t n, uint64_t st, uint64_t bit)
{
	if (!(st & bit))
		return -1;
	int pos = 0;
	for (size_t i = 0; i < n && t[i].bit != bit; i++)
		pos += !!(st & t[i].bit);
	return pos;
}

int pki_pd_sample_field_pos(uint64_t st, uint64_t bit)
{
	return field_pos(sample_head, NR_HEAD, st, bit);
}

int pki_pd_trailer_field_pos(uint64_t st, uint64_t bit)
{
	int pos = field_pos(trailer, NR_TRAILER, st, bit);
	return pos < 0 ? -1 : (int)(pki_pd_trailer_size(st) / 8) - pos;
}

/* Stores one field (native order, at p) into id. */
static void id_store(pk_pd_sample_id *id, uint64_t bit, const uint8_t *p)
{
	switch (bit) {
	case PERF_SAMPLE_TID:
		id->pid = pd_ld32(p);
		id->tid = pd_ld32(p + 4);
		break;
	case PERF_SAMPLE_TIME: id->time = pd_ld64(p); break;
	case PERF_SAMPLE_ID:
	case PERF_SAMPLE_IDENTIFIER: id->id = pd_ld64(p); break;
	case PERF_SAMPLE_STREAM_ID: id->stream_id = pd_ld64(p); break;
	case PERF_SAMPLE_CPU: id->cpu = pd_ld32(p); break;
	default: break; /* IP, ADDR: not identification */
	}
}

static void id_read(const id_field *t, size_t n, const uint8_t *p, uint64_t st,
		    pk_pd_sample_id *id)
{
	for (size_t i = 0; i < n; i++) {
		if (!(st & t[i].bit))
			continue;
		id_store(id, t[i].bit, p);
		p += 8;
	}
}

static void id_clear(pk_pd_sample_id *id)
{
	memset(id, 0, sizeof(*id));
	id->cpu = (uint32_t)-1;
}

void pki_pd_parse_trailer(const uint8_t *rec, size_t size, uint64_t st, pk_pd_sample_id *id)
{
	id_clear(id);
	size_t tsz = pki_pd_trailer_size(st);
	if (tsz > size - 8)
		return;
	id->fields = st & PD_TRAILER_FIELDS;
	id_read(trailer, NR_TRAILER, rec + size - tsz, st, id);
}

_Static_assert(NR_HEAD == PD_HEAD_FIELDS, "one layout slot per head field");
/* The body fields of most samples, read without walking the others. */
#define SIMPLE_BODY (PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

void pki_pd_layout_init(pd_layout *l, uint64_t st)
{
	int pos = 0;
	for (size_t i = 0; i < NR_HEAD; i++)
		l->pos[i] = (int8_t)((st & sample_head[i].bit) ? pos++ : -1);
	l->words = (uint32_t)pos;
	l->simple = !(st & ~(PD_SAMPLE_HEAD_FIELDS | SIMPLE_BODY));
	l->flat = l->simple && !(st & PERF_SAMPLE_CALLCHAIN);
}

/* Field slot i of the head at b (present: pos >= 0). */
#define HEAD_AT(l, b, i) ((b) + 8 * (size_t)(l)->pos[i])

bool pki_pd_parse_sample_head(const pd_layout *l, const uint8_t *body, size_t len, uint64_t st,
			      pk_pd_sample_id *id)
{
	id_clear(id);
	if (len < (size_t)l->words * 8)
		return false;
	id->fields = st & PD_SAMPLE_HEAD_FIELDS;
	/* as id_read() over sample_head[]: ID after IDENTIFIER wins */
	if (l->pos[PD_H_IDENT] >= 0)
		id->id = pd_ld64(HEAD_AT(l, body, PD_H_IDENT));
	if (l->pos[PD_H_TID] >= 0) {
		id->pid = pd_ld32(HEAD_AT(l, body, PD_H_TID));
		id->tid = pd_ld32(HEAD_AT(l, body, PD_H_TID) + 4);
	}
	if (l->pos[PD_H_TIME] >= 0)
		id->time = pd_ld64(HEAD_AT(l, body, PD_H_TIME));
	if (l->pos[PD_H_ID] >= 0)
		id->id = pd_ld64(HEAD_AT(l, body, PD_H_ID));
	if (l->pos[PD_H_STREAM] >= 0)
		id->stream_id = pd_ld64(HEAD_AT(l, body, PD_H_STREAM));
	if (l->pos[PD_H_CPU] >= 0)
		id->cpu = pd_ld32(HEAD_AT(l, body, PD_H_CPU));
	return true;
}

static void swap_field(uint8_t *p, bool pair)
{
	if (pair) {
		pd_sw32(p);
		pd_sw32(p + 4);
	} else {
		pd_sw64(p);
	}
}

void pki_pd_swap_trailer(uint8_t *rec, size_t size, uint64_t st)
{
	size_t tsz = pki_pd_trailer_size(st);
	if (tsz > size - 8)
		return;
	uint8_t *p = rec + size - tsz;
	for (size_t i = 0; i < NR_TRAILER; i++) {
		if (!(st & trailer[i].bit))
			continue;
		swap_field(p, trailer[i].pair);
		p += 8;
	}
}

size_t pki_pd_write_trailer(uint8_t *p, uint64_t st, const pk_pd_sample_id *id)
{
	uint8_t *start = p;
	for (size_t i = 0; i < NR_TRAILER; i++) {
		uint64_t bit = trailer[i].bit;
		if (!(st & bit))
			continue;
		if (bit == PERF_SAMPLE_TID) {
			pd_st32(p, id->pid);
			pd_st32(p + 4, id->tid);
		} else if (bit == PERF_SAMPLE_CPU) {
			pd_st32(p, id->cpu);
			pd_st32(p + 4, 0);
		} else {
			pd_st64(p, bit == PERF_SAMPLE_TIME	  ? id->time
				   : bit == PERF_SAMPLE_STREAM_ID ? id->stream_id
								  : id->id);
		}
		p += 8;
	}
	return (size_t)(p - start);
}

/* ---- the sample walk ---- */

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
	size_t n = (size_t)pd_popcount64(mask);
	if (!need(w, (uint64_t)n * 8, field))
		return false;
	*regs = take_arr(w, n);
	*nr = n;
	return true;
}

/* The identification fields at the start of the body, from the table. */
static bool walk_head(walk *w, uint64_t st, pk_pd_sample *s)
{
	for (size_t i = 0; i < NR_HEAD; i++) {
		const id_field *f = &sample_head[i];
		if (!(st & f->bit))
			continue;
		if (!need(w, 8, f->name))
			return false;
		if (w->swap)
			swap_field(w->p, f->pair);
		const uint8_t *p = w->p;
		switch (f->bit) {
		case PERF_SAMPLE_IDENTIFIER: s->identifier = pd_ld64(p); break;
		case PERF_SAMPLE_IP: s->ip = pd_ld64(p); break;
		case PERF_SAMPLE_TID:
			s->pid = pd_ld32(p);
			s->tid = pd_ld32(p + 4);
			break;
		case PERF_SAMPLE_TIME: s->time = pd_ld64(p); break;
		case PERF_SAMPLE_ADDR: s->addr = pd_ld64(p); break;
		case PERF_SAMPLE_ID: s->id = pd_ld64(p); break;
		case PERF_SAMPLE_STREAM_ID: s->stream_id = pd_ld64(p); break;
		case PERF_SAMPLE_CPU:
			s->cpu = pd_ld32(p);
			s->cpu_res = pd_ld32(p + 4);
			break;
		default: break;
		}
		w->p += 8;
	}
	return true;
}

/* One u64 field when st has bit. */
static inline bool opt64(walk *w, uint64_t st, uint64_t bit, uint64_t *dst, const char *name)
{
	if (!(st & bit))
		return true;
	if (!need(w, 8, name))
		return false;
	*dst = take64(w);
	return true;
}

/* READ: read_format decides the number of u64s (a group: per member). */
static bool walk_read(walk *w, uint64_t rf, size_t len, pk_pd_sample *s)
{
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t n = per + times;
	if (rf & PERF_FORMAT_GROUP) {
		if (!need(w, 8, "READ"))
			return false;
		uint64_t nr = w->swap ? __builtin_bswap64(pd_ld64(w->p)) : pd_ld64(w->p);
		if (nr > len / 8) {
			w->field = "READ";
			return false;
		}
		n = 1 + times + nr * per;
	}
	if (!need(w, n * 8, "READ"))
		return false;
	s->read = take_arr(w, n);
	s->read_nr = (size_t)n;
	return true;
}

static bool walk_callchain(walk *w, size_t len, pk_pd_sample *s)
{
	if (!need(w, 8, "CALLCHAIN"))
		return false;
	uint64_t nr = take64(w);
	if (nr > len / 8 || !need(w, nr * 8, "CALLCHAIN")) {
		w->field = "CALLCHAIN";
		return false;
	}
	s->callchain = take_arr(w, nr);
	s->callchain_nr = nr;
	return true;
}

/* RAW: u32 size, then bytes (not swapped: their layout is the event's). */
static bool walk_raw(walk *w, pk_pd_sample *s)
{
	if (!need(w, 4, "RAW"))
		return false;
	if (w->swap)
		pd_sw32(w->p);
	uint32_t sz = pd_ld32(w->p);
	w->p += 4;
	if (!need(w, sz, "RAW"))
		return false;
	s->raw = w->p;
	s->raw_size = sz;
	w->p += sz;
	return true;
}

/* BRANCH_STACK: nr, [hw_idx], nr {from, to, flags}, [nr counters]. */
static bool walk_branch(walk *w, uint64_t bst, size_t len, pk_pd_sample *s)
{
	const char *f = "BRANCH_STACK";
	if (!need(w, 8, f))
		return false;
	uint64_t nr = take64(w);
	if (nr > len / sizeof(pk_pd_branch_entry)) {
		w->field = f;
		return false;
	}
	if (bst & PD_BRANCH_HW_INDEX) {
		if (!need(w, 8, f))
			return false;
		s->branch_hw_idx = take64(w);
		s->has_branch_hw_idx = true;
	}
	if (!need(w, nr * sizeof(pk_pd_branch_entry), f))
		return false;
	s->branch = (const pk_pd_branch_entry *)(const void *)take_arr(w, nr * 3);
	s->branch_nr = nr;
	if (bst & PD_BRANCH_COUNTERS) {
		if (!need(w, nr * 8, f))
			return false;
		s->branch_counters = take_arr(w, nr);
	}
	return true;
}

/* STACK_USER: size, bytes, and the dynamic size when size is not 0. */
static bool walk_stack_user(walk *w, pk_pd_sample *s)
{
	if (!need(w, 8, "STACK_USER"))
		return false;
	s->stack_size = take64(w);
	if (!s->stack_size)
		return true;
	if (!need(w, s->stack_size, "STACK_USER"))
		return false;
	s->stack = w->p;
	w->p += s->stack_size;
	if (!need(w, 8, "STACK_USER"))
		return false;
	s->stack_dyn_size = take64(w);
	return true;
}

/* WEIGHT_STRUCT (u32 var1, u16 var2, u16 var3) or WEIGHT (u64). */
static bool walk_weight(walk *w, uint64_t st, pk_pd_sample *s)
{
	if (!(st & PERF_SAMPLE_WEIGHT_STRUCT))
		return opt64(w, st, PERF_SAMPLE_WEIGHT, &s->weight, "WEIGHT");
	if (!need(w, 8, "WEIGHT_STRUCT"))
		return false;
	if (w->swap) {
		pd_sw32(w->p);
		pd_sw16(w->p + 4);
		pd_sw16(w->p + 6);
	}
	s->weight = pd_ld32(w->p);
	s->weight_var2 = pd_ld16(w->p + 4);
	s->weight_var3 = pd_ld16(w->p + 6);
	w->p += 8;
	return true;
}

static bool walk_aux(walk *w, pk_pd_sample *s)
{
	if (!need(w, 8, "AUX"))
		return false;
	s->aux_size = take64(w);
	if (!need(w, s->aux_size, "AUX"))
		return false;
	s->aux = w->p;
	w->p += s->aux_size;
	return true;
}

/* The fields after the head, in the kernel's order. */
static bool walk_body(walk *w, const struct perf_event_attr *a, size_t len, pk_pd_sample *s)
{
	uint64_t st = a->sample_type;
	return opt64(w, st, PERF_SAMPLE_PERIOD, &s->period, "PERIOD") &&
	       (!(st & PERF_SAMPLE_READ) || walk_read(w, a->read_format, len, s)) &&
	       (!(st & PERF_SAMPLE_CALLCHAIN) || walk_callchain(w, len, s)) &&
	       (!(st & PERF_SAMPLE_RAW) || walk_raw(w, s)) &&
	       (!(st & PERF_SAMPLE_BRANCH_STACK) || walk_branch(w, a->branch_sample_type, len, s)) &&
	       (!(st & PERF_SAMPLE_REGS_USER) ||
		take_regs(w, a->sample_regs_user, &s->user_abi, &s->user_regs, &s->user_regs_nr,
			  "REGS_USER")) &&
	       (!(st & PERF_SAMPLE_STACK_USER) || walk_stack_user(w, s)) &&
	       walk_weight(w, st, s) &&
	       opt64(w, st, PERF_SAMPLE_DATA_SRC, &s->data_src, "DATA_SRC") &&
	       opt64(w, st, PERF_SAMPLE_TRANSACTION, &s->transaction, "TRANSACTION") &&
	       (!(st & PERF_SAMPLE_REGS_INTR) ||
		take_regs(w, a->sample_regs_intr, &s->intr_abi, &s->intr_regs, &s->intr_regs_nr,
			  "REGS_INTR")) &&
	       opt64(w, st, PERF_SAMPLE_PHYS_ADDR, &s->phys_addr, "PHYS_ADDR") &&
	       opt64(w, st, PERF_SAMPLE_CGROUP, &s->cgroup, "CGROUP") &&
	       opt64(w, st, PERF_SAMPLE_DATA_PAGE_SIZE, &s->data_page_size, "DATA_PAGE_SIZE") &&
	       opt64(w, st, PERF_SAMPLE_CODE_PAGE_SIZE, &s->code_page_size, "CODE_PAGE_SIZE") &&
	       (!(st & PERF_SAMPLE_AUX) || walk_aux(w, s));
}

/* What a sample holds before its fields are read. */
static void sample_init(pk_pd_sample *s, const struct perf_event_attr *a)
{
	uint32_t size = s->size; /* the caller's, checked at the public entry */
	memset(s, 0, sizeof(*s));
	s->size = size;
	s->type = a->sample_type;
	s->cpu = (uint32_t)-1;
	s->pid = s->tid = (uint32_t)-1;
	s->time = (uint64_t)-1;
	/* perf's PERF_MEM_DATA_SRC_NONE: op, level, snoop, lock and TLB "N/A" */
	s->data_src = PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
		      PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);
	/* without PERIOD in the samples, the fixed period applies (perf's rule) */
	if (!a->freq)
		s->period = a->sample_period;
}

int pki_pd_sample_walk(const pk_pd_evsel *evsel, uint8_t *body, size_t len, bool swap,
		   pk_pd_sample *s, const char **bad_field)
{
	const struct perf_event_attr *a = &evsel->attr;
	walk w = {body, body + len, swap, NULL};
	sample_init(s, a);
	if (walk_head(&w, a->sample_type, s) && walk_body(&w, a, len, s))
		return 0;
	if (bad_field)
		*bad_field = w.field;
	return -EINVAL;
}

/* The head's fields at their places from the layout (the body holds it). */
static void head_fast(const pd_layout *l, const uint8_t *b, pk_pd_sample *s)
{
	if (l->pos[PD_H_IDENT] >= 0)
		s->identifier = pd_ld64(HEAD_AT(l, b, PD_H_IDENT));
	if (l->pos[PD_H_IP] >= 0)
		s->ip = pd_ld64(HEAD_AT(l, b, PD_H_IP));
	if (l->pos[PD_H_TID] >= 0) {
		s->pid = pd_ld32(HEAD_AT(l, b, PD_H_TID));
		s->tid = pd_ld32(HEAD_AT(l, b, PD_H_TID) + 4);
	}
	if (l->pos[PD_H_TIME] >= 0)
		s->time = pd_ld64(HEAD_AT(l, b, PD_H_TIME));
	if (l->pos[PD_H_ADDR] >= 0)
		s->addr = pd_ld64(HEAD_AT(l, b, PD_H_ADDR));
	if (l->pos[PD_H_ID] >= 0)
		s->id = pd_ld64(HEAD_AT(l, b, PD_H_ID));
	if (l->pos[PD_H_STREAM] >= 0)
		s->stream_id = pd_ld64(HEAD_AT(l, b, PD_H_STREAM));
	if (l->pos[PD_H_CPU] >= 0) {
		s->cpu = pd_ld32(HEAD_AT(l, b, PD_H_CPU));
		s->cpu_res = pd_ld32(HEAD_AT(l, b, PD_H_CPU) + 4);
	}
}

/* The body of a flat layout (at most PERIOD and RAW after the head, at
 * places the head fixes) read without the walk; false when a field runs
 * past the end (the walk then names it). */
static bool flat_body(uint64_t st, const uint8_t *body, size_t len, size_t at, pk_pd_sample *s)
{
	if (st & PERF_SAMPLE_PERIOD) {
		if (len - at < 8)
			return false;
		s->period = pd_ld64(body + at);
		at += 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (len - at < 4 || len - at - 4 < pd_ld32(body + at))
			return false;
		s->raw_size = pd_ld32(body + at);
		s->raw = body + at + 4;
	}
	return true;
}

int pki_pd_sample_parse_fast(const pd_evsel *evsel, const uint8_t *body, size_t len,
			     pk_pd_sample *s, bool again, const char **bad_field)
{
	const pd_layout *l = &evsel->layout;
	const struct perf_event_attr *a = &evsel->pub.attr;
	if (len < (size_t)l->words * 8) /* the walk names the field cut short */
		return pki_pd_sample_walk(&evsel->pub, (uint8_t *)(uintptr_t)body, len, false, s,
					  bad_field);
	if (!again || !l->simple)
		sample_init(s, a);
	head_fast(l, body, s);
	/* without swap the walk only reads; the cast keeps one routine */
	uint64_t st = a->sample_type;
	if (l->flat && flat_body(st, body, len, (size_t)l->words * 8, s))
		return 0;
	uint8_t *b = (uint8_t *)(uintptr_t)body;
	walk w = {b + (size_t)l->words * 8, b + len, false, NULL};
	if (l->simple) {
		/* walk_body's order, for the fields a simple layout may have */
		if (opt64(&w, st, PERF_SAMPLE_PERIOD, &s->period, "PERIOD") &&
		    (!(st & PERF_SAMPLE_CALLCHAIN) || walk_callchain(&w, len, s)) &&
		    (!(st & PERF_SAMPLE_RAW) || walk_raw(&w, s)))
			return 0;
	} else if (walk_body(&w, a, len, s)) {
		return 0;
	}
	if (bad_field)
		*bad_field = w.field;
	return -EINVAL;
}

int pk_pd_sample_check(const pk_pd_sample *s, pk_error *err)
{
	if (s && s->size == sizeof(pk_pd_sample))
		return 0;
	return pk_err(err, -EINVAL,
		      "pk_pd_sample.size is %u where this library takes %zu: declare it "
		      "with PK_PD_SAMPLE_INIT",
		      s ? s->size : 0, sizeof(pk_pd_sample));
}

int pk_pd_parse_sample_body(const pk_pd_evsel *evsel, const uint8_t *body, size_t len,
			    pk_pd_sample *s, pk_error *err)
{
	const char *field = NULL;
	int rc0 = pk_pd_sample_check(s, err);
	if (rc0 < 0)
		return rc0;
	/* Without swap the walk only reads; the cast keeps one routine. */
	int rc = pki_pd_sample_walk(evsel, (uint8_t *)(uintptr_t)body, len, false, s, &field);
	if (rc < 0)
		return pk_err(err, rc, "sample field %s runs past the record end (%zu bytes)",
			      field ? field : "?", len + 8);
	return 0;
}

/* The parse behind both entry points; *field names a field past the end. */
static int parse_event(const pk_pd_event *ev, pk_pd_sample *s, pk_error *err, const char **field)
{
	if (ev->type != PERF_RECORD_SAMPLE || !ev->evsel) {
		pk_err_at(err, -EINVAL, "perf.data", "record", (long)ev->offset,
			  "not a sample of a known event");
		if (err)
			err->pos_is_offset = 1;
		return -EINVAL;
	}
	int rc = pki_pd_sample_walk(ev->evsel, (uint8_t *)(uintptr_t)(ev->data + 8),
				(size_t)ev->size - 8, false, s, field);
	if (rc < 0) {
		pk_err_at(err, rc, "perf.data", "record", (long)ev->offset,
			  "sample field %s runs past the record end (size %u)",
			  *field ? *field : "?", ev->size);
		if (err)
			err->pos_is_offset = 1;
		return rc;
	}
	s->misc = ev->misc;
	return 0;
}

int pk_pd_parse_sample(const pk_pd_event *ev, pk_pd_sample *s, pk_error *err)
{
	const char *field = NULL;
	int rc = pk_pd_sample_check(s, err);
	return rc < 0 ? rc : parse_event(ev, s, err, &field);
}

int pk_pd_reader_parse_sample(pk_pd_reader *r, const pk_pd_event *ev, pk_pd_sample *s,
			      pk_error *err)
{
	const char *field = NULL;
	const pk_pd_evsel *e = ev->evsel;
	if (s->size != sizeof(*s))
		return pk_pd_sample_check(s, err);
	/* the reader's own evsels carry their layout */
	if (ev->type == PERF_RECORD_SAMPLE && e && e->idx >= 0 && (size_t)e->idx < r->nr_evsels &&
	    r->evsels[e->idx] == e &&
	    pki_pd_sample_parse_fast((const pd_evsel *)(const void *)e, ev->data + 8,
				     (size_t)ev->size - 8, s, false, &field) == 0) {
		s->misc = ev->misc;
		return 0;
	}
	int rc = parse_event(ev, s, err, &field);
	if (rc < 0 && ev->evsel && ev->type == PERF_RECORD_SAMPLE)
		pki_pd_drop(r, PK_PD_DROP_BAD_SAMPLE, ev, field);
	return rc;
}

/* ---- writing the head of a sample (sample_write.c builds the rest) ---- */

size_t pki_pd_write_sample_head(uint8_t *p, uint64_t st, const pk_pd_sample *s)
{
	uint8_t *start = p;
	for (size_t i = 0; i < NR_HEAD; i++) {
		uint64_t bit = sample_head[i].bit;
		if (!(st & bit))
			continue;
		if (sample_head[i].pair) {
			bool tid = bit == PERF_SAMPLE_TID;
			pd_st32(p, tid ? s->pid : s->cpu);
			pd_st32(p + 4, tid ? s->tid : s->cpu_res);
		} else {
			pd_st64(p, bit == PERF_SAMPLE_IDENTIFIER ? s->identifier
				   : bit == PERF_SAMPLE_IP	  ? s->ip
				   : bit == PERF_SAMPLE_TIME	  ? s->time
				   : bit == PERF_SAMPLE_ADDR	  ? s->addr
				   : bit == PERF_SAMPLE_ID	  ? s->id
								  : s->stream_id);
		}
		p += 8;
	}
	return (size_t)(p - start);
}

/* Where a pointer into the record ends, n bytes on (0 for none). */
static size_t end_of(const pk_pd_event *ev, const void *p, size_t n)
{
	return p ? (size_t)((const uint8_t *)p - ev->data) + n : 0;
}

/* The end of the fields before the user stack's size word: the last
 * variable one the parse points at, then the user regs. */
size_t pk_pd_sample_ustack_offset(const pk_pd_event *ev, const pk_pd_sample *smp)
{
	if (smp->stack)
		return (size_t)(smp->stack - ev->data) - 8;
	uint64_t t = smp->type;
	if ((t & PERF_SAMPLE_REGS_USER) && smp->user_regs)
		return end_of(ev, smp->user_regs, smp->user_regs_nr * 8);
	size_t pos = 8;
	for (int bit = 0; bit <= 9; bit++) /* IP .. STREAM_ID, IDENTIFIER: 8 bytes each */
		pos += (t >> bit & 1) && bit != 4 && bit != 5 ? 8 : 0; /* READ, CALLCHAIN apart */
	pos += t & PERF_SAMPLE_IDENTIFIER ? 8 : 0;
	size_t e;
	if ((e = end_of(ev, smp->read, smp->read_nr * 8)) > pos)
		pos = e;
	if ((e = end_of(ev, smp->callchain, smp->callchain_nr * 8)) > pos)
		pos = e;
	if ((e = end_of(ev, smp->raw, smp->raw_size)) > pos)
		pos = e;
	if ((e = end_of(ev, smp->branch, smp->branch_nr * sizeof(*smp->branch))) > pos)
		pos = e;
	return pos + (t & PERF_SAMPLE_REGS_USER ? 8 : 0); /* the ABI word */
}
