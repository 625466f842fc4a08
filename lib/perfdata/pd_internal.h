/* perf.data module internals: byte access, the chunked source, the reader. */
#ifndef PK_PERFDATA_INTERNAL_H
#define PK_PERFDATA_INTERNAL_H

#include <pmukit/perfdata.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/util.h"

#define PD_MAGIC 0x32454c4946524550ULL        /* "PERFILE2" read natively */
#define PD_MAGIC_SWAPPED 0x50455246494c4532ULL
#define PD_MAGIC_V1 0x454c494646524550ULL     /* "PERFFILE" */
#define PD_AUXTRACE_SIZE 48

/* ---- the file header (perf_file_header), for reader and writer ----
 * u64 magic, u64 size, u64 attr_size (one attrs entry: attr + ids section),
 * then three {u64 offset, u64 size} sections (attrs, data, event_types,
 * the last unused since perf 2.6) and the feature bitmap (absent in the
 * old 72-byte header). The pipe header is only magic and size. */
#define PD_FILE_HEADER_SIZE 104
#define PD_FILE_HEADER_OLD_SIZE 72
#define PD_PIPE_HEADER_SIZE 16
enum pd_header_field {
	PD_HDR_MAGIC = 0,
	PD_HDR_SIZE = 8,
	PD_HDR_ATTR_SIZE = 16,
	PD_HDR_ATTRS = 24,           /* {offset, size} */
	PD_HDR_DATA = 40,            /* {offset, size} */
	PD_HDR_EVENT_TYPES = 56,     /* {offset, size} */
	PD_HDR_FEATURES = 72,        /* PD_HDR_FEAT_WORDS u64s */
};
#define PD_HDR_FEAT_WORDS 4
#define PD_SECTION_SIZE 16           /* {u64 offset, u64 size}: ids, features */

typedef struct pd_file_header {
	uint64_t size, attr_size;
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t features[PD_HDR_FEAT_WORDS];
} pd_file_header;

/* Writes h as a native-order file header (PD_FILE_HEADER_SIZE bytes). */
void pki_pd_header_encode(const pd_file_header *h, uint8_t *out);
/* Reads the fields after the magic from hsize bytes in the file's order;
 * the bitmap only when the header has one. */
void pki_pd_header_decode(const uint8_t *in, uint64_t hsize, bool swap, pd_file_header *h);

/* ---- attr sizes (PERF_ATTR_SIZE_VER*) ---- */
#define PD_ATTR_SIZE_VER0 64         /* the first attr; a stored size 0 means this */
#define PD_ATTR_SIZE_VER7 128        /* what perf 6.1 writes and accepts */
#define PD_ATTR_SIZE_VER8 136        /* with config3 (perf 6.1 rejects it) */
#define PD_ATTR_SIZE_MAX 4096        /* cap against damaged files */
#define PD_ATTR_SIZE_OFF 4           /* u32 size after u32 type */
/* The size an attr declares (stored, file order), 0 read as VER0; 0 when
 * it cannot be an attr size (below VER0, above the cap, not 8-aligned). */
uint32_t pki_pd_attr_size(const uint8_t *attr, bool swap);
/* The same check on a size already read. */
uint32_t pki_pd_attr_size_check(uint64_t size);

/* Unaligned native loads and stores. */
static inline uint64_t pd_ld64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}
static inline uint32_t pd_ld32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}
static inline uint16_t pd_ld16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}
/* Set bits of v, inline: the build has no -mpopcnt, so
 * __builtin_popcountll is a libgcc call (once per sample). */
static inline unsigned pd_popcount64(uint64_t v)
{
	v -= (v >> 1) & 0x5555555555555555ULL;
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((v * 0x0101010101010101ULL) >> 56);
}
static inline void pd_st64(void *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void pd_st32(void *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void pd_st16(void *p, uint16_t v) { memcpy(p, &v, 2); }

/* In-place byte swaps of one field. */
static inline void pd_sw64(void *p) { pd_st64(p, __builtin_bswap64(pd_ld64(p))); }
static inline void pd_sw32(void *p) { pd_st32(p, __builtin_bswap32(pd_ld32(p))); }
static inline void pd_sw16(void *p) { pd_st16(p, __builtin_bswap16(pd_ld16(p))); }

/* Loads in the file's byte order. */
static inline uint64_t pd_get64(const void *p, bool swap)
{
	uint64_t v = pd_ld64(p);
	return swap ? __builtin_bswap64(v) : v;
}
static inline uint32_t pd_get32(const void *p, bool swap)
{
	uint32_t v = pd_ld32(p);
	return swap ? __builtin_bswap32(v) : v;
}
static inline uint16_t pd_get16(const void *p, bool swap)
{
	uint16_t v = pd_ld16(p);
	return swap ? __builtin_bswap16(v) : v;
}

/* ---- chunked byte source (source.c) ---- */
typedef struct pd_src {
	int fd;
	bool seekable;
	const uint8_t *mem;          /* memory mode */
	uint64_t mem_len;
	uint8_t *buf;                /* holds [boff, boff + blen) */
	size_t cap, blen;
	size_t chunk;
	uint64_t boff;
	uint64_t rpos;               /* next position read() gives (pipes) */
	uint64_t file_size;          /* seekable: size at open */
	bool eof;
	uint64_t bytes_read;
	/* A regular file read with the default chunk is mapped whole (mem,
	 * mem_len): records are used in place, without a copy, and stay put
	 * while queued. Their pages are given back once the reader is past a
	 * segment and no queued record lies in it, so memory stays bounded by
	 * the queue, not the file. */
	bool mapped;
	uint32_t *seg_refs;          /* queued records starting in each segment */
	uint8_t *seg_gone;           /* segment given back */
	size_t nr_segs;
	uint64_t hi;                 /* mapped: the end of what was peeked */
} pd_src;

int pki_pd_src_init_fd(pd_src *s, int fd, size_t chunk);
void pki_pd_src_init_mem(pd_src *s, const void *buf, size_t len);
void pki_pd_src_free(pd_src *s);
/* Makes [off, off + n) available; returns the pointer and sets *got to the
 * bytes available (< n only at the end of the input). Pipes only go forward. */
int pki_pd_src_peek(pd_src *s, uint64_t off, size_t n, const uint8_t **p, size_t *got);
/* Copies [off, off + n) into dst; -EIO style errors, -ENODATA when short. */
int pki_pd_src_read_at(pd_src *s, uint64_t off, void *dst, size_t n);
/* Whether p (a record the source handed out) stays valid while held:
 * memory and mapped sources; then hold and release count it queued, and
 * trim gives back the mapped segments before off that hold nothing. */
static inline bool pki_pd_src_stable(const pd_src *s, const uint8_t *p)
{
	return s->mem && p >= s->mem && p < s->mem + s->mem_len;
}
/* The caller is done with [p, p + n) of a mapped file: its whole pages
 * are given back (a later read faults them in from the file again). */
void pki_pd_src_unneeded(pd_src *s, const uint8_t *p, size_t n);
/* Mapped files are given back in segments of this many bytes. */
#define PD_SEG_SHIFT 22
/* The slow halves of release and trim (source.c): segment i holds nothing
 * any more; the reader crossed into the segment of off. */
void pki_pd_src_seg_empty(pd_src *s, size_t i);
void pki_pd_src_trim_segs(pd_src *s, uint64_t off);
/* Inline: hold and release come once per queued record, trim once per record. */
static inline void pki_pd_src_hold(pd_src *s, const uint8_t *p)
{
	if (s->seg_refs)
		s->seg_refs[(size_t)((uint64_t)(p - s->mem) >> PD_SEG_SHIFT)]++;
}
static inline void pki_pd_src_release(pd_src *s, const uint8_t *p)
{
	if (!s->seg_refs)
		return;
	size_t i = (size_t)((uint64_t)(p - s->mem) >> PD_SEG_SHIFT);
	if (!--s->seg_refs[i])
		pki_pd_src_seg_empty(s, i);
}
static inline void pki_pd_src_trim(pd_src *s, uint64_t off)
{
	if (!s->seg_refs || off <= s->hi)
		return;
	if (off >> PD_SEG_SHIFT != s->hi >> PD_SEG_SHIFT)
		pki_pd_src_trim_segs(s, off);
	else
		s->hi = off;
}

/* The newest kernel record type perf 6.1 knows (not in every UAPI header). */
#define PD_RECORD_AUX_OUTPUT_HW_ID 21

/* EVENT_UPDATE record kinds (u64 type after the header). */
enum pd_event_update_kind {
	PD_EVENT_UPDATE_UNIT = 0,
	PD_EVENT_UPDATE_SCALE = 1,   /* a double */
	PD_EVENT_UPDATE_NAME = 2,
	PD_EVENT_UPDATE_CPUS = 3,    /* a cpu map */
};

/* -EINVAL with err naming the record (what) and its offset. */
int pki_pd_too_short(const pk_pd_event *ev, pk_error *err, const char *what);

/* ---- swapping and attrs (swap.c) ---- */
/* Converts a file attr (size bytes, file order) into a native attr. */
void pki_pd_attr_from_file(const uint8_t *src, size_t size, bool swap, struct perf_event_attr *attr,
		       uint64_t *config3);
/* Swaps a non-sample record in place (header already native). */
void pki_pd_swap_record(uint8_t *rec, size_t size, const pk_pd_evsel *trailer_evsel);

/* ---- sample identification: the sample_id trailer (sample.c) ----
 * Non-sample records of an attr with sample_id_all end with the fields
 * PD_TRAILER_FIELDS of its sample_type, in the order TID (u32 pid, tid),
 * TIME, ID, STREAM_ID, CPU (u32 cpu, res), IDENTIFIER; samples start with
 * IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU. Both orders live in
 * one table in sample.c; everything that reads, swaps, writes or locates
 * these fields goes through the functions below. */
#define PD_TRAILER_FIELDS                                                                         \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |             \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define PD_SAMPLE_HEAD_FIELDS (PD_TRAILER_FIELDS | PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)

size_t pki_pd_trailer_size(uint64_t sample_type);
/* u64 index of field `bit` in a sample body (from its start), or in a
 * trailer counted from the record end (1: the last u64); -1 when absent. */
int pki_pd_sample_field_pos(uint64_t sample_type, uint64_t bit);
int pki_pd_trailer_field_pos(uint64_t sample_type, uint64_t bit);
/* Parses the trailer at the end of a record; id->fields 0 when too short. */
void pki_pd_parse_trailer(const uint8_t *rec, size_t size, uint64_t sample_type, pk_pd_sample_id *id);
/* A sample_type's head decoded once per evsel (not per sample): the u64
 * index of each head field in the order of the kernel (IDENTIFIER, IP,
 * TID, TIME, ADDR, ID, STREAM_ID, CPU), -1 when absent, and the head's
 * size in u64s. */
enum { PD_HEAD_FIELDS = 8 };
/* Slots of pd_layout.pos, in the kernel's order (sample_head[] in sample.c). */
enum { PD_H_IDENT, PD_H_IP, PD_H_TID, PD_H_TIME, PD_H_ADDR, PD_H_ID, PD_H_STREAM, PD_H_CPU };
typedef struct pd_layout {
	int8_t pos[PD_HEAD_FIELDS];
	uint32_t words;
	bool simple;                 /* after the head at most PERIOD, CALLCHAIN, RAW */
	bool flat;                   /* simple without CALLCHAIN: every place fixed */
} pd_layout;
/* The reader's evsels: the public record and its layout, made once. */
typedef struct pd_evsel {
	pk_pd_evsel pub;             /* first: a pd_evsel is a pk_pd_evsel */
	pd_layout layout;
} pd_evsel;
void pki_pd_layout_init(pd_layout *l, uint64_t sample_type);
/* The sample's TIME (when present and the head is whole): what the queue
 * needs; the other id fields are read when the event is handed out.
 * Inline: once per sample read. */
static inline bool pki_pd_sample_time(const pd_layout *l, const uint8_t *body, size_t len,
				      uint64_t *time)
{
	if (len < (size_t)l->words * 8 || l->pos[PD_H_TIME] < 0)
		return false;
	*time = pd_ld64(body + 8 * (size_t)l->pos[PD_H_TIME]);
	return true;
}
/* Parses the id fields at the start of a sample body; false when too short. */
bool pki_pd_parse_sample_head(const pd_layout *l, const uint8_t *body, size_t len,
			      uint64_t sample_type, pk_pd_sample_id *id);
/* Swaps the trailer at the end of a record in place. */
void pki_pd_swap_trailer(uint8_t *rec, size_t size, uint64_t sample_type);
/* Writes a trailer for id at p (native order); returns its size. */
size_t pki_pd_write_trailer(uint8_t *p, uint64_t sample_type, const pk_pd_sample_id *id);

/* ---- samples (sample.c) ---- */
/* Walks a sample body; with swap, swaps each field in place first. */
int pki_pd_sample_walk(const pk_pd_evsel *evsel, uint8_t *body, size_t len, bool swap,
		   pk_pd_sample *s, const char **bad_field);
/* The same without swapping, the head read through the evsel's layout.
 * With again, s holds the whole parse of another sample of this evsel,
 * whose layout is simple: only the fields such a layout has are written
 * (the others hold their defaults already), not the whole structure. */
int pki_pd_sample_parse_fast(const pd_evsel *evsel, const uint8_t *body, size_t len,
			     pk_pd_sample *s, bool again, const char **bad_field);

/* ---- ordering queue (order.c) ---- */
typedef struct pd_qchunk pd_qchunk;
/* Small, so that sorting moves little: the event itself lives in the chunk
 * next to its copied bytes (or, for a stable source, its bytes stay where
 * the source has them, held until delivered). No arrival number: entries
 * lie in the array in arrival order and the sort is stable, so equal times
 * come out in arrival order. */
typedef struct pd_qent {
	uint64_t time;
	uintptr_t ref;               /* the record in place | 1, or the copied event */
	union {
		pd_qchunk *chunk;    /* copied: the chunk holding the event */
		const pk_pd_evsel *evsel; /* in place: the event is rebuilt */
	};
} pd_qent;

enum { PD_QRUNS = 8 };

typedef struct pd_queue {
	pd_qent *ents;
	size_t nr, cap;
	size_t ready;                /* ents[pos, ready) are sorted and ready */
	size_t pos;
	/* The undelivered entries as runs in time order, as they came: run i
	 * is ents[run[i], run[i + 1]) (the first from pos, the last to nr);
	 * past PD_QRUNS runs only their number is kept. A round read from
	 * the ring buffers is one run per CPU: merged in one pass at flush,
	 * and one run is not sorted at all. */
	size_t run[PD_QRUNS];
	size_t nr_runs;
	pd_qent *tmp;                /* merge buffer */
	size_t tmp_cap;
	pd_qchunk *cur, *spare;      /* spare: freed chunks kept for reuse */
	size_t nr_spare;
	pd_qchunk *chunks;           /* chunks in use */
	size_t bytes, limit;
	uint64_t last_time;          /* of the entry added last */
	uint64_t max_time, next_flush;
	uint64_t last_delivered;
	pd_qchunk *release;          /* chunk of the event handed out last */
	pd_src *src;                 /* records it holds in place; NULL: copies all */
	const uint8_t *held;         /* the record handed out last, in place */
} pd_queue;

void pki_pd_queue_init(pd_queue *q, size_t limit, pd_src *src);
void pki_pd_queue_free(pd_queue *q);
/* Whether ev would be queued as a bare entry, held in place (its event
 * rebuilt when handed out) rather than copied. */
static inline bool pki_pd_queue_in_place(const pd_queue *q, const pk_pd_event *ev)
{
	return q->src && pki_pd_src_stable(q->src, ev->data) && !ev->aux_size &&
	       !ev->in_compressed && ev->has_time;
}
/* Queues ev at time; bare is pki_pd_queue_in_place(q, ev), as the caller
 * found it. */
int pki_pd_queue_add(pd_queue *q, const pk_pd_event *ev, uint64_t time, bool bare);
/* Counts the entry just written at ents[nr]: the bytes, the highest time,
 * and the runs (an entry earlier than the one before starts one). */
static inline void pki_pd_queue_note(pd_queue *q, uint64_t time, size_t size)
{
	if (q->nr == q->pos) { /* nothing undelivered: the first run */
		q->run[0] = q->nr;
		q->nr_runs = 1;
	} else if (time < q->last_time) {
		if (q->nr_runs < PD_QRUNS)
			q->run[q->nr_runs] = q->nr;
		q->nr_runs++;
	}
	q->nr++;
	q->last_time = time;
	q->bytes += size;
	if (time > q->max_time)
		q->max_time = time;
}
/* Room for one more entry (the array grown or its delivered front reused). */
int pki_pd_queue_room(pd_queue *q);
/* Queues the record at data (whole, 8-aligned, in the stable source, of
 * evsel, size bytes) at time as a bare entry: the reader's fast path,
 * which builds no event for it. */
static inline int pki_pd_queue_add_bare(pd_queue *q, const uint8_t *data, size_t size,
					const pk_pd_evsel *evsel, uint64_t time)
{
	if (q->nr == q->cap && pki_pd_queue_room(q) < 0)
		return -ENOMEM;
	pki_pd_src_hold(q->src, data);
	pd_qent *e = &q->ents[q->nr];
	e->time = time;
	e->ref = (uintptr_t)data | 1;
	e->evsel = evsel;
	pki_pd_queue_note(q, time, size);
	return 0;
}
/* Sorts and marks ready everything with time <= limit. */
void pki_pd_queue_flush(pd_queue *q, uint64_t limit);
/* Forced flush of the older half when over the memory limit. */
static inline bool pki_pd_queue_over(const pd_queue *q)
{
	return q->bytes > q->limit;
}
void pki_pd_queue_flush_half(pd_queue *q);
/* Pops the next ready event: 0 when none, 1, or 2 when it was held in
 * place and its id fields are still to be read (the reader's part). */
int pki_pd_queue_pop_next(pd_queue *q, pk_pd_event *ev);
/* The entry at pos was handed out: its bytes, the time delivered, and an
 * emptied queue starts again at 0. */
static inline void pki_pd_queue_delivered(pd_queue *q, uint64_t time, size_t size)
{
	q->bytes -= size;
	if (time > q->last_delivered)
		q->last_delivered = time;
	if (q->pos == q->ready && q->pos == q->nr)
		q->pos = q->ready = q->nr = q->nr_runs = 0;
}
/* Pops ents[pos], ready and held in place (no chunk to give back): its
 * event is rebuilt from the record, every field but the id fields; 2. */
static inline int pki_pd_queue_pop_bare(pd_queue *q, pk_pd_event *ev)
{
	if (q->held)
		pki_pd_src_release(q->src, q->held);
	const pd_qent *e = &q->ents[q->pos++];
	const uint8_t *d = (const uint8_t *)(e->ref & ~(uintptr_t)1);
	ev->type = pd_ld32(d);
	ev->misc = pd_ld16(d + 4);
	ev->size = pd_ld16(d + 6);
	ev->data = d;
	ev->offset = (uint64_t)(d - q->src->mem);
	ev->in_compressed = false;
	ev->evsel = e->evsel;
	ev->has_time = true;
	ev->aux = NULL;
	ev->aux_size = 0;
	q->held = d;
	pki_pd_queue_delivered(q, e->time, ev->size);
	return 2;
}
/* Inline for the common case, a record held in place; the call is
 * skipped when nothing is ready and nothing handed out is still to be
 * given back (once per record read while a round fills). */
static inline int pki_pd_queue_pop(pd_queue *q, pk_pd_event *ev)
{
	if (q->pos < q->ready && !q->release && (q->ents[q->pos].ref & 1))
		return pki_pd_queue_pop_bare(q, ev);
	if (q->pos >= q->ready && !q->release && !q->held)
		return 0;
	return pki_pd_queue_pop_next(q, ev);
}

/* ---- the reader ---- */
typedef struct pd_idmap {
	uint64_t *keys;
	int *vals;
	size_t cap, nr;
} pd_idmap;

enum { PD_ID_MEMO = 16 };

typedef struct pd_feat {
	bool present;
	bool loaded, bad;
	uint64_t offset, size;
	uint8_t *data;
} pd_feat;

struct pk_pd_reader {
	char *path;
	int fd;
	bool own_fd;
	uint8_t *own_mem;            /* the image src reads, freed at close (a directory) */
	pd_src src;
	bool pipe, swap;
	pk_pd_open_opts opts;
	pk_pd_layout layout;
	pk_pd_evsel **evsels;
	size_t nr_evsels, cap_evsels;
	pd_idmap ids;
	pd_feat feats[PK_FEAT_MAX];
	/* id position, common to all evsels (perf's rule) */
	int sample_id_pos;           /* u64 index in sample body, -1 none */
	int trailer_id_pos;          /* u64 index from the record end, -1 none */
	bool sample_id_all;
	/* stream */
	uint64_t pos, end;
	bool fast_ok;                /* mapped or in memory, native order, ordered */
	bool done;
	bool has_deferred;
	pk_error deferred;           /* the error that stopped reading */
	uint8_t *scratch;            /* aligned copy of the current raw record */
	size_t scratch_cap;
	/* COMPRESSED */
	void *zstd;
	uint8_t *dbuf;
	size_t dcap, dlen, dpos;
	uint64_t doff;               /* offset of the COMPRESSED record being expanded */
	pd_queue q;
	pk_pd_stats stats;
	pki_warnings warnings;       /* at most PD_MAX_WARNINGS lines */
	bool id_partial;             /* the event read last has only id.time yet */
	bool has_time_conv;
	pk_pd_rec_time_conv time_conv;
	bool desc_applied;
	/* the evsels of sample ids looked up, by the id's low bits (most
	 * samples repeat one of a few ids: one per CPU); forgotten when an
	 * evsel is added */
	struct pd_id_memo {
		uint64_t id;
		const pk_pd_evsel *evsel;  /* NULL: empty */
	} id_memo[PD_ID_MEMO];
	uint64_t names_version;      /* changes when an evsel's name may have */
	/* pk_pd_next_parsed: the sample it parsed last with a simple layout,
	 * and its evsel (NULL: none, or the sample may hold other fields) */
	const pk_pd_sample *parsed;
	const pk_pd_evsel *parsed_evsel;
};

void pki_pd_warn(pk_pd_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Counts one dropped record of a kind (enum pk_pd_drop_kind). */
void pki_pd_drop(pk_pd_reader *r, int kind, const pk_pd_event *ev, const char *detail);
int pki_pd_err_off(pk_pd_reader *r, pk_error *err, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int pki_pd_add_evsel(pk_pd_reader *r, const uint8_t *attr_bytes, size_t attr_size,
		 const uint64_t *ids, size_t nr_ids, bool ids_swap, pk_error *err);
int pki_pd_idmap_put(pd_idmap *m, uint64_t key, int val);
int pki_pd_idmap_get(const pd_idmap *m, uint64_t key);
void pki_pd_idmap_free(pd_idmap *m);
/* perf record --threads' directory as one file image in memory (dirfmt.c):
 * `data` with each data.N inserted at its data section's end; *orig: the
 * header file's own data size, feature offset and size. */
int pki_pd_dir_image(const char *dir, uint8_t **out, size_t *len, pk_pd_layout *orig,
		     pk_error *err);
/* Fills evsel->attr_name (records.c). */
void pki_pd_make_attr_name(pk_pd_evsel *e);
/* Applies EVENT_DESC names (features.c). */
void pki_pd_apply_event_desc(pk_pd_reader *r);
/* Parses the strings of a feature payload (features.c). */
char *pki_pd_feat_string(const uint8_t *p, size_t len, bool swap, size_t *used);

/* NULL when an event format text has the kernel's shape (what
 * libtraceevent may be given), else why not (trace_check.c). */
const char *pki_trace_format_check(const char *text, size_t len);

#endif
