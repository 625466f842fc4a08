/* The perf.data reader: file header, attrs, feature table, then the record
 * stream with COMPRESSED records expanded and time ordering on top; both
 * pk_pd_next and the fast pk_pd_next_parsed come
 * out of next_event.
 *
 * Invariants: damage that stops reading is an error naming the file offset,
 * delivered after every good event before it; damage that only loses some
 * records (unknown types, samples of no known event) is counted in
 * stats.drops with the first offset, and what is recovered with a guess is
 * a warning. The reader never prints. */
#include "pd_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

/* Caps that keep a damaged or hostile file from asking for absurd memory. */
#define PD_MAX_IDS (1u << 24)
#define PD_MAX_EVSELS 65536
#define PD_MAX_DECOMP ((size_t)64 << 20)
#define PD_MAX_WARNINGS 100
#define PD_MAX_EXTRA ((uint64_t)1 << 30)  /* data after an AUXTRACE / TRACING_DATA record */
#define PD_DECOMP_STEP ((size_t)1 << 20)  /* first output buffer of COMPRESSED data */
#define PD_DECOMP_MIN_ROOM 65536
#define PD_SCRATCH_MIN 65536

void pki_pd_warn(pk_pd_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	r->warnings.max = PD_MAX_WARNINGS;
	pki_warnings_vadd(&r->warnings, fmt, ap);
	va_end(ap);
}

int pki_pd_err_off(pk_pd_reader *r, pk_error *err, int code, uint64_t off, const char *fmt, ...)
{
	if (!err)
		return code;
	char msg[sizeof(err->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pk_err_at(err, code, "", r->path, (long)off, "%s", msg);
	err->pos_is_offset = 1;
	return code;
}

void pki_pd_drop(pk_pd_reader *r, int kind, const pk_pd_event *ev, const char *detail)
{
	pk_pd_drop *d = &r->stats.drops[kind];
	/* the lowest offset, whatever order the events are delivered in */
	if (!d->count++ || ev->offset < d->first_offset) {
		d->first_offset = ev->offset;
		d->first_detail = detail;
		d->first_type = ev->type;
	}
}

const char *pk_pd_drop_name(int kind)
{
	static const char *const names[PK_PD_DROP_MAX] = {
		[PK_PD_DROP_BAD_SAMPLE] = "unparsable samples",
		[PK_PD_DROP_UNKNOWN_ID] = "samples of unknown events",
		[PK_PD_DROP_NO_EVENT] = "samples without event attributes",
		[PK_PD_DROP_UNKNOWN_TYPE] = "records of unknown types",
	};
	return kind >= 0 && kind < PK_PD_DROP_MAX ? names[kind] : NULL;
}

/* ---- id -> evsel map (open addressing) ---- */

static size_t id_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

int pki_pd_idmap_put(pd_idmap *m, uint64_t key, int val)
{
	if ((m->nr + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		uint64_t *nk = calloc(cap, sizeof(*nk));
		int *nv = malloc(cap * sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -ENOMEM;
		}
		for (size_t i = 0; i < cap; i++)
			nv[i] = -1;
		for (size_t i = 0; i < m->cap; i++) {
			if (m->vals[i] < 0)
				continue;
			size_t h = id_hash(m->keys[i], cap);
			while (nv[h] >= 0)
				h = (h + 1) & (cap - 1);
			nk[h] = m->keys[i];
			nv[h] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = cap;
	}
	size_t h = id_hash(key, m->cap);
	while (m->vals[h] >= 0 && m->keys[h] != key)
		h = (h + 1) & (m->cap - 1);
	if (m->vals[h] < 0)
		m->nr++;
	m->keys[h] = key;
	m->vals[h] = val;
	return 0;
}

int pki_pd_idmap_get(const pd_idmap *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	size_t h = id_hash(key, m->cap);
	while (m->vals[h] >= 0) {
		if (m->keys[h] == key)
			return m->vals[h];
		h = (h + 1) & (m->cap - 1);
	}
	return -1;
}

void pki_pd_idmap_free(pd_idmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- evsels ---- */

/* Where the id sits in samples and trailers: the first attr decides for all
 * (perf's rule), IDENTIFIER before ID. */
static void update_id_pos(pk_pd_reader *r)
{
	if (!r->nr_evsels)
		return;
	const struct perf_event_attr *a = &r->evsels[0]->attr;
	uint64_t st = a->sample_type;
	r->sample_id_all = a->sample_id_all;
	uint64_t bit = st & PERF_SAMPLE_IDENTIFIER ? PERF_SAMPLE_IDENTIFIER : PERF_SAMPLE_ID;
	r->sample_id_pos = pki_pd_sample_field_pos(st, bit);
	r->trailer_id_pos = pki_pd_trailer_field_pos(st, bit);
}

int pki_pd_add_evsel(pk_pd_reader *r, const uint8_t *attr_bytes, size_t attr_size,
		 const uint64_t *ids, size_t nr_ids, bool ids_swap, pk_error *err)
{
	if (r->nr_evsels >= PD_MAX_EVSELS)
		return pk_err(err, -E2BIG, "more than %d events", PD_MAX_EVSELS);
	if (r->nr_evsels == r->cap_evsels) {
		size_t cap = r->cap_evsels ? r->cap_evsels * 2 : 8;
		pk_pd_evsel **ne = realloc(r->evsels, cap * sizeof(*ne));
		if (!ne)
			return pk_err(err, -ENOMEM, "out of memory");
		r->evsels = ne;
		r->cap_evsels = cap;
	}
	pd_evsel *pe = calloc(1, sizeof(*pe));
	if (!pe)
		return pk_err(err, -ENOMEM, "out of memory");
	pk_pd_evsel *e = &pe->pub;
	pki_pd_attr_from_file(attr_bytes, attr_size, r->swap, &e->attr, &e->config3);
	pki_pd_layout_init(&pe->layout, e->attr.sample_type);
	e->file_attr_size = (uint32_t)attr_size;
	e->idx = (int)r->nr_evsels;
	e->trailer_size = e->attr.sample_id_all ? pki_pd_trailer_size(e->attr.sample_type) : 0;
	pki_pd_make_attr_name(e);
	if (nr_ids) {
		e->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!e->ids) {
			free(e);
			return pk_err(err, -ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < nr_ids; i++) {
			uint64_t id = pd_ld64(&ids[i]);
			e->ids[i] = ids_swap ? __builtin_bswap64(id) : id;
			if (pki_pd_idmap_put(&r->ids, e->ids[i], e->idx) < 0) {
				free(e->ids);
				free(e);
				return pk_err(err, -ENOMEM, "out of memory");
			}
		}
		e->nr_ids = nr_ids;
	}
	r->evsels[r->nr_evsels++] = e;
	memset(r->id_memo, 0, sizeof(r->id_memo));
	r->names_version++;
	update_id_pos(r);
	return 0;
}

static void free_evsel(pk_pd_evsel *e)
{
	free(e->ids);
	free(e->name);
	free(e->unit);
	free(e);
}

/* ---- open ---- */

/* The magic and header size: sets swap, pipe and the layout's version (0 for
 * the v1 `PERFFILE` magic, as perf numbers it); *hsize the header size. */
static int read_magic(pk_pd_reader *r, uint64_t *hsize, pk_error *err)
{
	const uint8_t *p;
	size_t got;
	int rc = pki_pd_src_peek(&r->src, 0, PD_PIPE_HEADER_SIZE, &p, &got);
	if (rc < 0)
		return pki_pd_err_off(r, err, rc, 0, "cannot read: %s", strerror(-rc));
	if (got < PD_PIPE_HEADER_SIZE)
		return pki_pd_err_off(r, err, -EINVAL, got, "file too short for a perf.data header (%zu bytes)",
				  got);
	uint64_t magic = pd_ld64(p + PD_HDR_MAGIC);
	bool v1 = false;
	if (magic == PD_MAGIC) {
		r->swap = false;
	} else if (magic == PD_MAGIC_SWAPPED) {
		r->swap = true;
	} else if (magic == PD_MAGIC_V1 || magic == __builtin_bswap64(PD_MAGIC_V1)) {
		v1 = true;
	} else if (p[0] == 0x1f && p[1] == 0x8b) {
		return pki_pd_err_off(r, err, -EINVAL, 0,
				  "a gzip file, not a perf.data file: gunzip it first");
	} else {
		return pki_pd_err_off(r, err, -EINVAL, 0,
				  "not a perf.data file (magic %02x %02x %02x %02x %02x %02x %02x %02x)",
				  p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
	}
	*hsize = pd_get64(p + PD_HDR_SIZE, r->swap);
	if (v1) {
		/* v1 has no byte order mark: trust whichever order gives a
		 * sane header size */
		r->swap = *hsize != PD_FILE_HEADER_SIZE && *hsize != PD_FILE_HEADER_OLD_SIZE;
		*hsize = pd_get64(p + PD_HDR_SIZE, r->swap);
	}
	r->layout.version = v1 ? 0 : 1;
	r->pipe = *hsize == PD_PIPE_HEADER_SIZE;
	if (!r->pipe && *hsize != PD_FILE_HEADER_SIZE && *hsize != PD_FILE_HEADER_OLD_SIZE)
		return pki_pd_err_off(r, err, -EINVAL, PD_HDR_SIZE,
				  "bad header size %llu (expected %d, %d or %d)",
				  (unsigned long long)*hsize, PD_FILE_HEADER_SIZE,
				  PD_FILE_HEADER_OLD_SIZE, PD_PIPE_HEADER_SIZE);
	return 0;
}

/* The feature bitmap of a byte-swapped file: a writer may have stored it as
 * u32 words; a file without HOSTNAME cannot be told apart, so none. */
static void fix_swapped_bitmap(pk_pd_reader *r, const uint8_t *h, uint64_t *bits)
{
	if (!r->swap || (bits[0] & (1ULL << PK_FEAT_HOSTNAME)))
		return;
	for (int i = 0; i < PD_HDR_FEAT_WORDS; i++) {
		uint64_t raw = pd_ld64(h + PD_HDR_FEATURES + i * 8);
		uint32_t lo = __builtin_bswap32((uint32_t)raw);
		uint32_t hi = __builtin_bswap32((uint32_t)(raw >> 32));
		bits[i] = (uint64_t)hi << 32 | lo;
	}
	if (!(bits[0] & (1ULL << PK_FEAT_HOSTNAME))) {
		pki_pd_warn(r, "feature bitmap unreadable in a byte-swapped file; features ignored");
		memset(bits, 0, PD_HDR_FEAT_WORDS * sizeof(*bits));
	}
}

/* Whether a v1 file's attr entry size (attr and ids section) is one of the
 * attr ABIs of its time (VER0 to VER4), the only ones perf reads in v1. */
static bool v1_attr_size_ok(uint64_t entry)
{
	static const uint64_t sizes[] = {64, 72, 80, 96, 104};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (entry == sizes[i] + PD_SECTION_SIZE)
			return true;
	return false;
}

/* The attrs and data sections must lie in the file and apart. */
static int check_sections(pk_pd_reader *r, pk_error *err)
{
	const pk_pd_layout *l = &r->layout;
	uint64_t fsz = l->file_size, hsize = l->header_size;
	if (l->data_offset < hsize || l->data_offset > fsz)
		return pki_pd_err_off(r, err, -EINVAL, PD_HDR_DATA,
				  "data section offset %llu outside the file (%llu bytes)",
				  (unsigned long long)l->data_offset, (unsigned long long)fsz);
	if (!l->attrs_size)
		return 0;
	if (l->attrs_offset < hsize || l->attrs_offset > fsz || l->attrs_size > fsz - l->attrs_offset)
		return pki_pd_err_off(r, err, -EINVAL, PD_HDR_ATTRS,
				  "attrs section (offset %llu, size %llu) outside the file (%llu bytes)",
				  (unsigned long long)l->attrs_offset,
				  (unsigned long long)l->attrs_size, (unsigned long long)fsz);
	if (l->attrs_offset < l->data_offset + l->data_size &&
	    l->data_offset < l->attrs_offset + l->attrs_size)
		return pki_pd_err_off(r, err, -EINVAL, PD_HDR_ATTRS, "attrs and data sections overlap");
	return 0;
}

/* The feature table after the data: one section per set bit, in bit order. */
static void read_feature_table(pk_pd_reader *r, const uint64_t *bits)
{
	uint64_t toff = r->layout.feat_offset, fsz = r->layout.file_size;
	for (int f = 0; f < PK_FEAT_MAX && toff; f++) {
		if (!(bits[f / 64] >> (f % 64) & 1))
			continue;
		uint8_t sec[PD_SECTION_SIZE];
		if (toff > fsz || fsz - toff < PD_SECTION_SIZE ||
		    pki_pd_src_read_at(&r->src, toff, sec, PD_SECTION_SIZE) < 0) {
			pki_pd_warn(r, "feature table truncated at offset %llu (feature %d)",
				(unsigned long long)toff, f);
			r->stats.nr_bad_features++;
			return;
		}
		pd_feat *ft = &r->feats[f];
		ft->present = true;
		ft->offset = pd_get64(sec, r->swap);
		ft->size = pd_get64(sec + 8, r->swap);
		if (ft->offset > fsz || ft->size > fsz - ft->offset) {
			pki_pd_warn(r, "feature %s section (offset %llu, size %llu) outside the file",
				pk_pd_feature_name(f) ? pk_pd_feature_name(f) : "?",
				(unsigned long long)ft->offset, (unsigned long long)ft->size);
			ft->bad = true;
			r->stats.nr_bad_features++;
		}
		toff += PD_SECTION_SIZE;
	}
}

static int read_file_header(pk_pd_reader *r, pk_error *err)
{
	uint64_t hsize = 0;
	int rc = read_magic(r, &hsize, err);
	if (rc < 0)
		return rc;
	if (r->pipe) {
		r->pos = PD_PIPE_HEADER_SIZE;
		r->end = UINT64_MAX;
		return 0;
	}
	if (!r->src.seekable)
		return pki_pd_err_off(r, err, -ESPIPE, 0,
				  "a file-mode perf.data cannot be read from a pipe; "
				  "record with -o - for pipe mode");
	uint8_t h[PD_FILE_HEADER_SIZE];
	if (pki_pd_src_read_at(&r->src, 0, h, (size_t)hsize) < 0)
		return pki_pd_err_off(r, err, -EINVAL, 0, "file too short for its %llu-byte header",
				  (unsigned long long)hsize);
	pd_file_header fh;
	pki_pd_header_decode(h, hsize, r->swap, &fh);
	fix_swapped_bitmap(r, h, fh.features);
	pk_pd_layout *l = &r->layout;
	*l = (pk_pd_layout){.version = l->version, .header_size = hsize, .attr_size = fh.attr_size,
			    .attrs_offset = fh.attrs_offset, .attrs_size = fh.attrs_size,
			    .data_offset = fh.data_offset, .data_size = fh.data_size,
			    .file_size = r->src.file_size};
	rc = check_sections(r, err);
	if (rc < 0)
		return rc;
	if (!l->version && !v1_attr_size_ok(l->attr_size))
		return pki_pd_err_off(r, err, -EINVAL, PD_HDR_ATTR_SIZE,
				  "a v1 perf.data (PERFFILE magic) with attrs of %llu bytes: the "
				  "v1 format has attrs of 64 to 104 bytes (perf: incompatible file "
				  "format)", (unsigned long long)(l->attr_size - PD_SECTION_SIZE));
	r->pos = l->data_offset;
	if (l->data_size == 0) {
		/* perf record did not finish the header: take what is there */
		pki_pd_warn(r, "data size field is 0 (was the recording stopped?): "
			   "reading to the end of the file");
		r->end = l->file_size;
	} else {
		r->end = l->data_offset + l->data_size;
		if (r->end < l->data_offset)
			r->end = UINT64_MAX;
	}
	l->feat_offset = l->data_size ? l->data_offset + l->data_size : 0;
	read_feature_table(r, fh.features);
	return 0;
}

/* Reads the ids of one attr from its {offset, size} section at soff. */
static int read_attr_ids(pk_pd_reader *r, uint64_t i, uint64_t soff, uint64_t **ids,
			 size_t *nids, pk_error *err)
{
	uint8_t sec[PD_SECTION_SIZE];
	if (pki_pd_src_read_at(&r->src, soff, sec, PD_SECTION_SIZE) < 0)
		return pki_pd_err_off(r, err, -EINVAL, soff, "attr %llu truncated", (unsigned long long)i);
	uint64_t ioff = pd_get64(sec, r->swap), isz = pd_get64(sec + 8, r->swap);
	*ids = NULL;
	*nids = (size_t)(isz / 8);
	if (!isz)
		return 0;
	uint64_t fsz = r->layout.file_size;
	if (ioff > fsz || isz > fsz - ioff || *nids > PD_MAX_IDS)
		return pki_pd_err_off(r, err, -EINVAL, soff,
				  "ids of attr %llu (offset %llu, size %llu) outside the file",
				  (unsigned long long)i, (unsigned long long)ioff,
				  (unsigned long long)isz);
	*ids = malloc(*nids * 8);
	if (!*ids)
		return pk_err(err, -ENOMEM, "out of memory");
	if (pki_pd_src_read_at(&r->src, ioff, *ids, *nids * 8) < 0) {
		free(*ids);
		*ids = NULL;
		return pki_pd_err_off(r, err, -EINVAL, ioff, "ids of attr %llu truncated",
				  (unsigned long long)i);
	}
	return 0;
}

/* One attrs entry at off (attr, then its ids section); *next after it. */
static int read_attr_entry(pk_pd_reader *r, uint64_t i, uint64_t off, uint64_t end,
			   uint64_t *next, pk_error *err)
{
	uint8_t abuf[PD_ATTR_SIZE_MAX];
	if (end - off < PD_ATTR_SIZE_VER0 || pki_pd_src_read_at(&r->src, off, abuf, PD_ATTR_SIZE_VER0) < 0)
		return pki_pd_err_off(r, err, -EINVAL, off, "attr %llu runs past the attrs section",
				  (unsigned long long)i);
	uint32_t asz = pki_pd_attr_size(abuf, r->swap);
	uint32_t stored = pd_get32(abuf + PD_ATTR_SIZE_OFF, r->swap);
	if (!asz || end - off < (uint64_t)asz + PD_SECTION_SIZE) {
		/* a damaged attr.size: the header's entry size, when sane, says it too */
		uint64_t hdr = r->layout.attr_size - PD_SECTION_SIZE;
		if (r->layout.attr_size <= PD_SECTION_SIZE || !pki_pd_attr_size_check(hdr) ||
		    end - off < r->layout.attr_size)
			return pki_pd_err_off(r, err, -EINVAL, off + PD_ATTR_SIZE_OFF,
					  "attr %llu has a bad size %u (%llu bytes left in the attrs section)",
					  (unsigned long long)i, stored, (unsigned long long)(end - off));
		pki_pd_warn(r, "attr %llu at offset %llu declares size %u: read with the header's "
			   "attr_size %llu", (unsigned long long)i, (unsigned long long)off, stored,
			(unsigned long long)r->layout.attr_size);
		asz = (uint32_t)hdr;
	}
	if (pki_pd_src_read_at(&r->src, off, abuf, asz) < 0)
		return pki_pd_err_off(r, err, -EINVAL, off, "attr %llu truncated", (unsigned long long)i);
	uint64_t *ids = NULL;
	size_t nids = 0;
	int rc = read_attr_ids(r, i, off + asz, &ids, &nids, err);
	if (rc < 0)
		return rc;
	rc = pki_pd_add_evsel(r, abuf, asz, ids, nids, r->swap, err);
	free(ids);
	*next = off + asz + PD_SECTION_SIZE;
	return rc;
}

/* The attrs: each entry is sized by the size its attr declares, so a
 * damaged header attr_size (which perf trusts) costs nothing but a warning. */
static int read_file_attrs(pk_pd_reader *r, pk_error *err)
{
	pk_pd_layout *l = &r->layout;
	if (!l->attrs_size) {
		if (l->data_size)
			pki_pd_warn(r, "the attrs section is empty (header offset %d): "
				   "samples cannot be decoded", PD_HDR_ATTRS + 8);
		return 0;
	}
	uint64_t off = l->attrs_offset, end = l->attrs_offset + l->attrs_size, i = 0;
	while (end - off >= PD_ATTR_SIZE_VER0 + PD_SECTION_SIZE) {
		int rc = read_attr_entry(r, i, off, end, &off, err);
		if (rc < 0)
			return rc;
		i++;
	}
	if (off != end)
		pki_pd_warn(r, "attrs section has %llu bytes after its %llu attrs",
			(unsigned long long)(end - off), (unsigned long long)i);
	uint64_t entry = r->nr_evsels ? r->evsels[0]->file_attr_size + PD_SECTION_SIZE : 0;
	if (entry && l->attr_size != entry)
		pki_pd_warn(r, "header attr_size %llu (offset %d) disagrees with the attrs' own size "
			   "%llu: read with the attrs' sizes",
			(unsigned long long)l->attr_size, PD_HDR_ATTR_SIZE, (unsigned long long)entry);
	return 0;
}

static int reader_init(pk_pd_reader *r, const pk_pd_open_opts *opts, pk_error *err)
{
	if (opts)
		r->opts = *opts;
	r->sample_id_pos = r->trailer_id_pos = -1;
	pk_error_clear(&r->deferred);
	pki_pd_queue_init(&r->q, r->opts.queue_limit, &r->src);
	int rc = read_file_header(r, err);
	if (rc < 0)
		return rc;
	if (!r->pipe) {
		rc = read_file_attrs(r, err);
		if (rc < 0)
			return rc;
		pki_pd_apply_event_desc(r);
		r->names_version++;
	}
	/* what queue_sample_fast needs of the file, checked once */
	r->fast_ok = r->src.mem && !r->swap && !r->opts.no_order;
	return 0;
}

static int open_common(pk_pd_reader *r, const pk_pd_open_opts *opts, pk_pd_reader **out,
		       pk_error *err)
{
	int rc = reader_init(r, opts, err);
	if (rc < 0) {
		pk_pd_reader_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

int pk_pd_reader_open_fd(int fd, const char *name, const pk_pd_open_opts *opts,
			 pk_pd_reader **out, pk_error *err)
{
	*out = NULL;
	pk_pd_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return pk_err(err, -ENOMEM, "out of memory");
	r->fd = fd;
	r->path = strdup(name ? name : "perf.data");
	pki_pd_src_init_fd(&r->src, fd, opts ? opts->chunk_size : 0);
	if (!r->path) {
		pk_pd_reader_close(r);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	return open_common(r, opts, out, err);
}

/* perf record --threads' directory (dirfmt.c): one image in memory, read
 * as a file; the layout shown is the header file's. */
static int open_dir(const char *path, const pk_pd_open_opts *opts, pk_pd_reader **out,
		    pk_error *err)
{
	uint8_t *img;
	size_t len;
	pk_pd_layout orig;
	int rc = pki_pd_dir_image(path, &img, &len, &orig, err);
	if (rc < 0)
		return rc;
	rc = pk_pd_reader_open_mem(img, len, opts, out, err);
	if (rc < 0) {
		free(img);
		return rc;
	}
	pk_pd_reader *r = *out;
	r->own_mem = img;
	char *name = strdup(path);
	if (!name) {
		pk_pd_reader_close(r);
		*out = NULL;
		return pk_err(err, -ENOMEM, "out of memory");
	}
	free(r->path);
	r->path = name;
	r->layout.data_size = orig.data_size;
	r->layout.feat_offset = orig.feat_offset;
	r->layout.file_size = orig.file_size;
	return 0;
}

int pk_pd_reader_open(const char *path, const pk_pd_open_opts *opts, pk_pd_reader **out,
		      pk_error *err)
{
	*out = NULL;
	if (!strcmp(path, "-"))
		return pk_pd_reader_open_fd(0, "-", opts, out, err);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return open_dir(path, opts, out, err);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		/* the name once, with the reason ("cannot open perf.data: ...") */
		pk_err(err, -e, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	int rc = pk_pd_reader_open_fd(fd, path, opts, out, err);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	(*out)->own_fd = true;
	return 0;
}

int pk_pd_reader_open_mem(const void *buf, size_t len, const pk_pd_open_opts *opts,
			  pk_pd_reader **out, pk_error *err)
{
	*out = NULL;
	pk_pd_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return pk_err(err, -ENOMEM, "out of memory");
	r->fd = -1;
	r->path = strdup("(memory)");
	pki_pd_src_init_mem(&r->src, buf, len);
	return open_common(r, opts, out, err);
}

void pk_pd_reader_close(pk_pd_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr_evsels; i++)
		free_evsel(r->evsels[i]);
	free(r->evsels);
	pki_pd_idmap_free(&r->ids);
	for (int f = 0; f < PK_FEAT_MAX; f++)
		free(r->feats[f].data);
	pki_warnings_free(&r->warnings);
	pki_pd_queue_free(&r->q);
	free(r->scratch);
	free(r->dbuf);
	if (r->zstd)
		ZSTD_freeDStream(r->zstd);
	pki_pd_src_free(&r->src);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	free(r->own_mem);
	free(r->path);
	free(r);
}

/* ---- accessors ---- */

bool pk_pd_is_pipe(const pk_pd_reader *r) { return r->pipe; }
bool pk_pd_needs_swap(const pk_pd_reader *r) { return r->swap; }
const char *pk_pd_path(const pk_pd_reader *r) { return r->path; }
size_t pk_pd_nr_evsels(const pk_pd_reader *r) { return r->nr_evsels; }

bool pk_pd_event_stable(const pk_pd_reader *r, const pk_pd_event *ev)
{
	return pki_pd_src_stable(&r->src, ev->data) &&
	       (!ev->aux_size || (pki_pd_src_stable(&r->src, ev->aux) &&
				  pki_pd_src_stable(&r->src, ev->aux + ev->aux_size - 1)));
}

void pk_pd_reader_unneeded(pk_pd_reader *r, const void *p, size_t n)
{
	pki_pd_src_unneeded(&r->src, p, n);
}

const pk_pd_evsel *pk_pd_evsel_at(const pk_pd_reader *r, size_t idx)
{
	return idx < r->nr_evsels ? r->evsels[idx] : NULL;
}

uint64_t pk_pd_sample_types(const pk_pd_reader *r, size_t n)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n && i < r->nr_evsels; i++)
		t |= r->evsels[i]->attr.sample_type;
	return t;
}

uint64_t pk_pd_event_offset(const pk_pd_reader *r, const pk_pd_event *ev)
{
	enum { PIPE_HEADER = 16 }; /* a pipe's header: magic, size */
	return r->pipe && ev->offset >= PIPE_HEADER ? ev->offset - PIPE_HEADER : ev->offset;
}

const pk_pd_evsel *pk_pd_evsel_by_id(const pk_pd_reader *r, uint64_t id)
{
	int i = pki_pd_idmap_get(&r->ids, id);
	return i >= 0 ? r->evsels[i] : NULL;
}

void pk_pd_get_layout(const pk_pd_reader *r, pk_pd_layout *out) { *out = r->layout; }

const pk_pd_stats *pk_pd_get_stats(const pk_pd_reader *r) { return &r->stats; }

size_t pk_pd_nr_warnings(const pk_pd_reader *r) { return r->warnings.nr; }

const char *pk_pd_warning(const pk_pd_reader *r, size_t idx)
{
	return pki_warnings_at(&r->warnings, idx);
}

bool pk_pd_time_conv(const pk_pd_reader *r, pk_pd_rec_time_conv *out)
{
	if (r->has_time_conv)
		*out = r->time_conv;
	return r->has_time_conv;
}

/* ---- the record stream ---- */

static int ensure_scratch(pk_pd_reader *r, size_t n)
{
	if (n <= r->scratch_cap)
		return 0;
	size_t cap = r->scratch_cap ? r->scratch_cap : PD_SCRATCH_MIN;
	while (cap < n)
		cap *= 2;
	void *p = NULL;
	if (posix_memalign(&p, 16, cap))
		return -ENOMEM;
	free(r->scratch);
	r->scratch = p;
	r->scratch_cap = cap;
	return 0;
}

/* The evsel a record belongs to, from its id (perf's lookup rules); NULL for
 * a sample of no known event, counted as dropped. The record's body may
 * still be in file byte order. */
static const pk_pd_evsel *record_evsel(pk_pd_reader *r, const pk_pd_event *ev, const uint8_t *rec)
{
	bool sample = ev->type == PERF_RECORD_SAMPLE;
	size_t size = ev->size;
	if (!r->nr_evsels) {
		if (sample)
			pki_pd_drop(r, PK_PD_DROP_NO_EVENT, ev, NULL);
		return NULL;
	}
	if (r->nr_evsels == 1)
		return r->evsels[0];
	uint64_t id;
	if (sample) {
		if (r->sample_id_pos < 0 || size < 8 + (size_t)(r->sample_id_pos + 1) * 8)
			return r->evsels[0];
		id = pd_get64(rec + 8 + r->sample_id_pos * 8, r->swap);
		const struct pd_id_memo *m = &r->id_memo[id % PD_ID_MEMO];
		if (m->evsel && m->id == id)
			return m->evsel;
	} else {
		if (!r->sample_id_all || r->trailer_id_pos < 0 ||
		    size < 8 + (size_t)r->trailer_id_pos * 8)
			return r->evsels[0];
		id = pd_get64(rec + size - (size_t)r->trailer_id_pos * 8, r->swap);
		if (!id) /* synthesized records carry id 0 */
			return r->evsels[0];
	}
	int i = pki_pd_idmap_get(&r->ids, id);
	if (i >= 0 && sample) {
		r->id_memo[id % PD_ID_MEMO].id = id;
		r->id_memo[id % PD_ID_MEMO].evsel = r->evsels[i];
	}
	if (i >= 0)
		return r->evsels[i];
	if (!sample)
		return r->evsels[0];
	pki_pd_drop(r, PK_PD_DROP_UNKNOWN_ID, ev, NULL);
	return NULL;
}

static int handle_event_update(pk_pd_reader *r, const pk_pd_event *ev)
{
	if (ev->size < 24)
		return 0;
	uint64_t kind = pd_ld64(ev->data + 8), id = pd_ld64(ev->data + 16);
	int i = pki_pd_idmap_get(&r->ids, id);
	if (i < 0)
		return 0;
	pk_pd_evsel *e = r->evsels[i];
	const char *s = (const char *)ev->data + 24;
	size_t n = ev->size - 24;
	if (kind == PD_EVENT_UPDATE_UNIT || kind == PD_EVENT_UPDATE_NAME) {
		char *str = strndup(s, n);
		if (!str)
			return -ENOMEM;
		char **dst = kind == PD_EVENT_UPDATE_UNIT ? &e->unit : &e->name;
		free(*dst);
		*dst = str;
		r->names_version++;
	} else if (kind == PD_EVENT_UPDATE_SCALE && n >= sizeof(double)) {
		memcpy(&e->scale, s, sizeof(double));
	}
	return 0;
}

static int handle_feature(pk_pd_reader *r, const pk_pd_event *ev)
{
	if (ev->size < 16)
		return 0;
	uint64_t f = pd_ld64(ev->data + 8);
	if (f >= PK_FEAT_MAX || f == 0)
		return 0;
	pd_feat *ft = &r->feats[f];
	size_t n = ev->size - 16;
	uint8_t *copy = malloc(n ? n : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, ev->data + 16, n);
	free(ft->data);
	ft->data = copy;
	ft->size = n;
	ft->present = ft->loaded = true;
	ft->bad = false;
	if (f == PK_FEAT_EVENT_DESC) {
		pki_pd_apply_event_desc(r);
		r->names_version++;
	}
	/* what queue_sample_fast needs of the file, checked once */
	r->fast_ok = r->src.mem && !r->swap && !r->opts.no_order;
	return 0;
}

static int handle_attr(pk_pd_reader *r, const pk_pd_event *ev, pk_error *err)
{
	/* body: attr (attr.size bytes, file order) then u64 ids */
	size_t n = ev->size - 8;
	const uint8_t *a = ev->data + 8;
	if (n < 8)
		return pki_pd_err_off(r, err, -EINVAL, ev->offset, "HEADER_ATTR record too short (%u bytes)",
				  ev->size);
	uint32_t asz = n >= PD_ATTR_SIZE_VER0 ? pki_pd_attr_size(a, r->swap) : 0;
	if (!asz || asz > n)
		return pki_pd_err_off(r, err, -EINVAL, ev->offset + 8 + PD_ATTR_SIZE_OFF,
				  "HEADER_ATTR: bad attr size %u in a %u-byte record",
				  pd_get32(a + PD_ATTR_SIZE_OFF, r->swap), ev->size);
	size_t nids = (n - asz) / 8;
	return pki_pd_add_evsel(r, a, asz, (const uint64_t *)(const void *)(a + asz), nids, r->swap,
			    err);
}

static int decompress(pk_pd_reader *r, const uint8_t *src, size_t len, uint64_t off, pk_error *err)
{
	if (!r->zstd) {
		r->zstd = ZSTD_createDStream();
		if (!r->zstd)
			return pk_err(err, -ENOMEM, "out of memory");
		ZSTD_initDStream(r->zstd);
	}
	/* keep a record split across two COMPRESSED records */
	if (r->dpos) {
		memmove(r->dbuf, r->dbuf + r->dpos, r->dlen - r->dpos);
		r->dlen -= r->dpos;
		r->dpos = 0;
	}
	ZSTD_inBuffer in = {src, len, 0};
	while (in.pos < in.size) {
		if (r->dcap - r->dlen < PD_DECOMP_MIN_ROOM) {
			size_t cap = r->dcap ? r->dcap * 2 : PD_DECOMP_STEP;
			if (cap > PD_MAX_DECOMP)
				return pki_pd_err_off(r, err, -EFBIG, off,
						  "COMPRESSED record expands past %zu MiB",
						  PD_MAX_DECOMP >> 20);
			uint8_t *nb = realloc(r->dbuf, cap);
			if (!nb)
				return pk_err(err, -ENOMEM, "out of memory");
			r->dbuf = nb;
			r->dcap = cap;
		}
		ZSTD_outBuffer out = {r->dbuf + r->dlen, r->dcap - r->dlen, 0};
		size_t ret = ZSTD_decompressStream(r->zstd, &out, &in);
		if (ZSTD_isError(ret)) {
			ZSTD_initDStream(r->zstd);
			return pki_pd_err_off(r, err, -EINVAL, off, "COMPRESSED record: zstd: %s",
					  ZSTD_getErrorName(ret));
		}
		r->dlen += out.pos;
		if (out.pos == 0 && in.pos < in.size && ret == 0)
			break;
	}
	r->doff = off;
	return 0;
}

/* The next record inside expanded COMPRESSED data: 1 and *p, *size set, 0
 * when none is whole there yet, or an error. */
static int next_decompressed(pk_pd_reader *r, const uint8_t **p, size_t *size, pk_error *err)
{
	if (r->dlen - r->dpos < sizeof(struct perf_event_header))
		return 0;
	const uint8_t *d = r->dbuf + r->dpos;
	size_t dsz = pd_get16(d + 6, r->swap);
	if (dsz < sizeof(struct perf_event_header))
		return pki_pd_err_off(r, err, -EINVAL, r->doff, "record inside COMPRESSED data has size %zu",
				  dsz);
	if (dsz > r->dlen - r->dpos)
		return 0;
	*p = d;
	*size = dsz;
	r->dpos += dsz;
	if (r->dpos == r->dlen)
		r->dpos = r->dlen = 0;
	return 1;
}

/* Bytes after the record that header.size does not count (AUXTRACE data,
 * TRACING_DATA's tracing data); p holds the whole record. */
static int record_extra(pk_pd_reader *r, const uint8_t *p, uint32_t type, size_t size,
			uint64_t off, uint64_t *extra, pk_error *err)
{
	*extra = 0;
	if (type == PK_RECORD_AUXTRACE && size >= 16)
		*extra = pd_get64(p + 8, r->swap);
	else if (type == PK_RECORD_HEADER_TRACING_DATA && size >= 12)
		*extra = ((uint64_t)pd_get32(p + 8, r->swap) + 7) & ~7ULL;
	if (*extra > PD_MAX_EXTRA)
		return pki_pd_err_off(r, err, -EINVAL, off, "record data size %llu too large",
				  (unsigned long long)*extra);
	return 0;
}

/* Makes n bytes at off available in *p; an error when the input is short. */
static int peek_whole(pk_pd_reader *r, uint64_t off, uint64_t n, uint32_t type, const uint8_t **p,
		      pk_error *err)
{
	size_t got;
	int rc = pki_pd_src_peek(&r->src, off, (size_t)n, p, &got);
	if (rc < 0)
		return pki_pd_err_off(r, err, rc, off, "read error: %s", strerror(-rc));
	if (got < n)
		return pki_pd_err_off(r, err, -ENODATA, off, "truncated record (type %u: %zu of %llu bytes)",
				  type, got, (unsigned long long)n);
	return 0;
}

/* A PERF_RECORD_AUX's flags: what the kernel could not write to the AUX area. */
static void count_aux_flags(pk_pd_stats *st, uint64_t flags)
{
	st->nr_aux_truncated += !!(flags & PERF_AUX_FLAG_TRUNCATED);
	st->nr_aux_partial += !!(flags & PERF_AUX_FLAG_PARTIAL);
	st->nr_aux_collision += !!(flags & PERF_AUX_FLAG_COLLISION);
}

/* Pipe mode: an input that ends inside a record (got of n bytes at off; a
 * real file may have perf record's own messages appended) ends the stream
 * there, as perf's "unexpected end of event stream": the bytes left are
 * skipped with a warning that says where, the records before are kept. */
static int pipe_tail(pk_pd_reader *r, uint64_t off, size_t got, uint32_t type, uint64_t n)
{
	pki_pd_warn(r, "the stream ends inside a record: %zu bytes at offset %llu (0x%llx) "
		    "skipped (a record of type %u, %llu bytes, or not a record: text "
		    "appended to the file?)",
		    got, (unsigned long long)off, (unsigned long long)off, type,
		    (unsigned long long)n);
	r->end = off;
	return 0;
}

/* The next record of the data section: 1 with *p, *size, *extra set (the
 * record and its extra bytes stay in the window), 0 at the end, or an error. */
static int next_in_file(pk_pd_reader *r, const uint8_t **p, size_t *size, uint64_t *extra,
			pk_error *err)
{
	const size_t hdr = sizeof(struct perf_event_header);
	uint64_t off = r->pos;
	if (off >= r->end)
		return 0;
	if (r->src.mem && !r->swap && off + hdr <= r->src.mem_len) {
		/* memory or mapped: a whole ordinary record is used where it is */
		const uint8_t *q = r->src.mem + off;
		uint32_t type = pd_ld32(q);
		size_t sz = pd_ld16(q + 6);
		if (sz >= hdr && sz <= r->src.mem_len - off && sz <= r->end - off &&
		    type != PK_RECORD_AUXTRACE && type != PK_RECORD_HEADER_TRACING_DATA) {
			*p = q;
			*size = sz;
			*extra = 0;
			r->pos = off + sz;
			if (r->src.mapped && r->pos > r->src.bytes_read)
				r->src.bytes_read = r->pos;
			pki_pd_src_trim(&r->src, off);
			return 1;
		}
	}
	size_t got;
	int rc = pki_pd_src_peek(&r->src, off, hdr, p, &got);
	if (rc < 0)
		return pki_pd_err_off(r, err, rc, off, "read error: %s", strerror(-rc));
	if (got == 0) {
		if (r->end != UINT64_MAX && !r->pipe)
			return pki_pd_err_off(r, err, -ENODATA, off,
					  "file truncated: data section should end at %llu",
					  (unsigned long long)r->end);
		return 0;
	}
	if (got < hdr && r->pipe)
		return pipe_tail(r, off, got, got >= 4 ? pd_get32(*p, r->swap) : 0, hdr);
	if (got < hdr)
		return pki_pd_err_off(r, err, -ENODATA, off, "truncated record header (%zu of %zu bytes)",
				  got, hdr);
	uint32_t type = pd_get32(*p, r->swap);
	*size = pd_get16(*p + 6, r->swap);
	if (*size < hdr)
		return pki_pd_err_off(r, err, -EINVAL, off,
				  "record (type %u) has size %zu, smaller than its header", type, *size);
	*extra = 0;
	if (type == PK_RECORD_AUXTRACE || type == PK_RECORD_HEADER_TRACING_DATA) {
		rc = peek_whole(r, off, *size, type, p, err);
		if (rc == 0)
			rc = record_extra(r, *p, type, *size, off, extra, err);
		if (rc < 0)
			return rc;
	}
	uint64_t total = *size + *extra;
	if (r->end != UINT64_MAX && total > r->end - off)
		return pki_pd_err_off(r, err, -EINVAL, off,
				  "record (type %u, size %llu) runs past the data section end %llu",
				  type, (unsigned long long)total, (unsigned long long)r->end);
	if (r->pipe) {
		rc = pki_pd_src_peek(&r->src, off, (size_t)total, p, &got);
		if (rc >= 0 && got < total)
			return pipe_tail(r, off, got, type, total);
	}
	rc = peek_whole(r, off, total, type, p, err);
	if (rc < 0)
		return rc;
	r->pos = off + total;
	pki_pd_src_trim(&r->src, off); /* mapped pages before this record */
	return 1;
}

/* Fills ev's header fields and data from the raw record at p: copied into
 * aligned scratch when swapped or unaligned, header made native. */
static int event_from_raw(pk_pd_reader *r, const uint8_t *p, size_t size, pk_pd_event *ev)
{
	uint32_t type = pd_get32(p, r->swap);
	uint16_t misc = pd_get16(p + 4, r->swap);
	const uint8_t *data = p;
	if (r->swap || ((uintptr_t)p & 7)) {
		if (ensure_scratch(r, size) < 0)
			return -ENOMEM;
		memcpy(r->scratch, p, size);
		data = r->scratch;
		if (r->swap) {
			pd_st32(r->scratch, type);
			pd_st16(r->scratch + 4, misc);
			pd_st16(r->scratch + 6, (uint16_t)size);
		}
	}
	ev->type = type;
	ev->misc = misc;
	ev->size = (uint16_t)size;
	ev->data = data;
	if (type < PK_RECORD_TYPE_MAX)
		r->stats.nr_records[type]++;
	return 0;
}

/* The id fields of a kernel record in native order (ev->evsel set): the
 * sample's head, or the trailer of another record. */
static void record_id(pk_pd_event *ev)
{
	const pk_pd_evsel *e = ev->evsel;
	if (!e)
		return;
	if (ev->type == PERF_RECORD_SAMPLE)
		ev->has_time = pki_pd_parse_sample_head(&((const pd_evsel *)(const void *)e)->layout,
							ev->data + 8, (size_t)ev->size - 8,
							e->attr.sample_type, &ev->id) &&
			       (e->attr.sample_type & PERF_SAMPLE_TIME);
	else if (e->attr.sample_id_all) {
		pki_pd_parse_trailer(ev->data, ev->size, e->attr.sample_type, &ev->id);
		ev->has_time = !!(ev->id.fields & PERF_SAMPLE_TIME);
	}
}

/* A kernel record (type < HEADER_ATTR): its evsel, byte order, id, and the
 * loss counters. raw is the record as read (file order). */
static void kernel_record(pk_pd_reader *r, const uint8_t *raw, pk_pd_event *ev)
{
	const pk_pd_evsel *e = record_evsel(r, ev, raw);
	uint8_t *rec = (uint8_t *)(uintptr_t)ev->data; /* scratch when swapping */
	size_t size = ev->size;
	ev->evsel = e;
	if (ev->type == PERF_RECORD_SAMPLE) {
		if (!e)
			return; /* counted by record_evsel */
		if (r->swap) {
			pk_pd_sample tmp = PK_PD_SAMPLE_INIT;
			/* a sample too short for its fields stays partly
			 * unswapped: parsing it fails the same way, and counts it */
			(void)pki_pd_sample_walk(e, rec + 8, size - 8, true, &tmp, NULL);
		}
		/* the time for the queue; the rest when needed (pk_pd_next) */
		ev->has_time = pki_pd_sample_time(&((const pd_evsel *)(const void *)e)->layout,
						  rec + 8, size - 8, &ev->id.time);
		r->id_partial = true;
		return;
	}
	if (r->swap)
		pki_pd_swap_record(rec, size, e);
	record_id(ev);
	if (ev->type == PERF_RECORD_LOST && size >= 24)
		r->stats.nr_lost_events += pd_ld64(rec + 16);
	else if (ev->type == PERF_RECORD_LOST_SAMPLES && size >= 16)
		r->stats.nr_lost_samples += pd_ld64(rec + 8);
	else if (ev->type == PERF_RECORD_AUX && size >= 32)
		count_aux_flags(&r->stats, pd_ld64(rec + 24));
	if (ev->type == 0 || ev->type > PD_RECORD_AUX_OUTPUT_HW_ID) /* 0: no record type */
		pki_pd_drop(r, PK_PD_DROP_UNKNOWN_TYPE, ev, NULL);
}

/* Expands a COMPRESSED or COMPRESSED2 record into the decompression buffer. */
static int expand_compressed(pk_pd_reader *r, const pk_pd_event *ev, pk_error *err)
{
	const uint8_t *z = ev->data + 8;
	size_t zl = ev->size - 8;
	if (ev->type == PK_RECORD_COMPRESSED2) {
		/* u64 data_size, then the zstd frame */
		uint64_t dsz = ev->size >= 16 ? pd_ld64(ev->data + 8) : 0;
		z += 8;
		zl = ev->size >= 16 ? ev->size - 16 : 0;
		if (dsz < zl)
			zl = (size_t)dsz;
	}
	/* the input may live in scratch or the window: both stay put while
	 * we decompress */
	return decompress(r, z, zl, ev->offset, err);
}

/* A record perf synthesizes (type >= HEADER_ATTR): the reader keeps what
 * it needs from it. Returns 0, or 1 when it was COMPRESSED (expanded, not
 * delivered), or an error. */
static int user_record(pk_pd_reader *r, pk_pd_event *ev, pk_error *err)
{
	if (r->swap)
		pki_pd_swap_record((uint8_t *)(uintptr_t)ev->data, ev->size, NULL);
	int rc = 0;
	switch (ev->type) {
	case PK_RECORD_HEADER_ATTR:
		return handle_attr(r, ev, err);
	case PK_RECORD_HEADER_FEATURE:
		rc = handle_feature(r, ev);
		break;
	case PK_RECORD_EVENT_UPDATE:
		rc = handle_event_update(r, ev);
		break;
	case PK_RECORD_TIME_CONV:
		if (pk_pd_rec_time_conv_parse(ev, &r->time_conv, NULL) == 0)
			r->has_time_conv = true;
		break;
	case PK_RECORD_COMPRESSED:
	case PK_RECORD_COMPRESSED2:
		rc = expand_compressed(r, ev, err);
		return rc < 0 ? rc : 1;
	default:
		if (ev->type > PK_RECORD_COMPRESSED2)
			pki_pd_drop(r, PK_PD_DROP_UNKNOWN_TYPE, ev, NULL);
		break;
	}
	return rc == -ENOMEM ? pk_err(err, rc, "out of memory") : rc;
}

/* Reads the next raw record into ev; 1, 0 at the end, or an error. */
static int read_raw(pk_pd_reader *r, pk_pd_event *ev, pk_error *err)
{
	for (;;) {
		/* what the steps below do not always set (not a whole clear:
		 * this runs once per record) */
		ev->evsel = NULL;
		ev->has_time = false;
		memset(&ev->id, 0, sizeof(ev->id));
		ev->aux = NULL;
		ev->aux_size = 0;
		const uint8_t *p = NULL;
		size_t size = 0;
		uint64_t extra = 0, off = r->doff;
		int rc = next_decompressed(r, &p, &size, err);
		ev->in_compressed = rc > 0;
		if (rc == 0) {
			off = r->pos;
			rc = next_in_file(r, &p, &size, &extra, err);
		}
		r->stats.bytes_read = r->src.bytes_read;
		if (rc <= 0)
			return rc;
		if (event_from_raw(r, p, size, ev) < 0)
			return pk_err(err, -ENOMEM, "out of memory");
		ev->offset = off;
		if (extra && (ev->type == PK_RECORD_AUXTRACE ||
			      ev->type == PK_RECORD_HEADER_TRACING_DATA)) {
			ev->aux = p + size;
			ev->aux_size = extra;
		}
		if (ev->type < PK_RECORD_HEADER_ATTR) {
			kernel_record(r, p, ev);
			return 1;
		}
		rc = user_record(r, ev, err);
		if (rc <= 0)
			return rc < 0 ? rc : 1;
	}
}

/* The evsel of a sample at p without the id map: the only one, or the one
 * its id had when looked up before; NULL to leave it to record_evsel. */
static const pk_pd_evsel *known_evsel(const pk_pd_reader *r, const uint8_t *p, size_t size)
{
	if (r->nr_evsels == 1)
		return r->evsels[0];
	if (r->sample_id_pos < 0 || size < 8 + (size_t)(r->sample_id_pos + 1) * 8)
		return NULL;
	uint64_t id = pd_ld64(p + 8 + (size_t)r->sample_id_pos * 8);
	const struct pd_id_memo *m = &r->id_memo[id % PD_ID_MEMO];
	return m->id == id ? m->evsel : NULL;
}

/* The common records of a mapped or in-memory file in native order, read
 * without an event built: whole samples, 8-aligned, outside COMPRESSED
 * data, of a known evsel (known_evsel) and with their TIME, queued where
 * they lie as read_raw, kernel_record and pki_pd_queue_add would, one after
 * the other until a record of another case (FINISHED_ROUND ends a round)
 * or a forced flush. Returns how many were queued (0: the record at
 * r->pos is for the general path), or -ENOMEM. */
static int queue_samples_fast(pk_pd_reader *r)
{
	if (r->dpos != r->dlen)
		return 0;
	const uint8_t *mem = r->src.mem;
	uint64_t off = r->pos, lim = r->end < r->src.mem_len ? r->end : r->src.mem_len;
	int n = 0, rc = 0;
	while (off < lim && lim - off >= 8) {
		const uint8_t *p = mem + off;
		size_t size = pd_ld16(p + 6);
		if (pd_ld32(p) != PERF_RECORD_SAMPLE || ((uintptr_t)p & 7) || size < 8 ||
		    size > lim - off)
			break;
		const pk_pd_evsel *e = known_evsel(r, p, size);
		uint64_t time;
		if (!e || !pki_pd_sample_time(&((const pd_evsel *)(const void *)e)->layout, p + 8,
					      size - 8, &time) || !time || time == UINT64_MAX)
			break;
		pki_pd_src_trim(&r->src, off);
		off += size;
		n++;
		if (r->q.last_delivered && time < r->q.last_delivered)
			r->stats.nr_out_of_order++;
		rc = pki_pd_queue_add_bare(&r->q, p, size, e, time);
		if (rc < 0 || pki_pd_queue_over(&r->q))
			break;
	}
	r->pos = off;
	if (r->src.mapped && off > r->src.bytes_read)
		r->src.bytes_read = off;
	r->stats.bytes_read = r->src.bytes_read;
	r->stats.nr_records[PERF_RECORD_SAMPLE] += (uint64_t)n;
	return rc < 0 ? rc : n;
}

static bool queued_type(const pk_pd_event *ev)
{
	/* perf's rule: a time of 0 or all ones is no time (read in place) */
	return ev->type < PK_RECORD_HEADER_ATTR && ev->has_time && ev->id.time &&
	       ev->id.time != UINT64_MAX;
}

/* The next event: 1, or 2 when it was held in place in the queue and its
 * id fields are still to be read; 0 at the end, or an error. */
static int next_event(pk_pd_reader *r, pk_pd_event *ev, pk_error *err)
{
	for (;;) {
		int popped = pki_pd_queue_pop(&r->q, ev);
		if (popped)
			return popped;
		if (r->has_deferred) {
			/* the error that stopped reading, after the good events */
			r->has_deferred = false;
			r->done = true;
			if (err)
				*err = r->deferred;
			return r->deferred.code;
		}
		if (r->done)
			return 0;
		int rc = r->fast_ok ? queue_samples_fast(r) : 0;
		if (rc > 0) {
			if (pki_pd_queue_over(&r->q)) {
				r->stats.nr_forced_flush++;
				pki_pd_queue_flush_half(&r->q);
			}
			continue;
		}
		if (rc < 0)
			return pk_err(err, rc, "out of memory");
		r->deferred.code = 0; /* only errors write the rest */
		r->id_partial = false;
		rc = read_raw(r, ev, &r->deferred);
		bool queued = rc > 0 && !r->opts.no_order && queued_type(ev);
		bool bare = queued && pki_pd_queue_in_place(&r->q, ev);
		/* all of the id unless it waits in place in the queue */
		if (rc > 0 && r->id_partial && !bare)
			record_id(ev);
		if (rc < 0) {
			if (!r->deferred.code)
				r->deferred.code = rc;
			r->has_deferred = true;
			pki_pd_queue_flush(&r->q, UINT64_MAX);
			continue;
		}
		if (rc == 0) {
			pki_pd_queue_flush(&r->q, UINT64_MAX);
			r->done = true;
			continue;
		}
		if (r->opts.no_order)
			return 1;
		if (ev->type == PK_RECORD_FINISHED_ROUND) {
			pki_pd_queue_flush(&r->q, r->q.next_flush);
			r->q.next_flush = r->q.max_time;
			if (r->opts.rounds)
				return 1;
			continue;
		}
		if (!queued)
			return 1;
		if (r->q.last_delivered && ev->id.time < r->q.last_delivered)
			r->stats.nr_out_of_order++;
		rc = pki_pd_queue_add(&r->q, ev, ev->id.time, bare);
		if (rc < 0)
			return pk_err(err, rc, "out of memory");
		if (pki_pd_queue_over(&r->q)) {
			r->stats.nr_forced_flush++;
			pki_pd_queue_flush_half(&r->q);
		}
	}
}

uint64_t pk_pd_names_version(const pk_pd_reader *r)
{
	return r->names_version;
}

int pk_pd_next(pk_pd_reader *r, pk_pd_event *ev, pk_error *err)
{
	int rc = next_event(r, ev, err);
	if (rc == 2) {
		record_id(ev); /* held in place: read again */
		rc = 1;
	}
	return rc;
}

/* A sample held in place, parsed once; false when it does not parse. */
static bool parse_held(pk_pd_reader *r, pk_pd_event *ev, pk_pd_sample *s)
{
	const pd_evsel *e = (const pd_evsel *)(const void *)ev->evsel;
	bool again = r->parsed == s && r->parsed_evsel == ev->evsel;
	r->parsed = NULL;
	if (pki_pd_sample_parse_fast(e, ev->data + 8, (size_t)ev->size - 8, s, again, NULL) < 0)
		return false;
	s->misc = ev->misc;
	ev->id.fields = 0; /* not read: *s has them */
	if (e->layout.simple) {
		r->parsed = s;
		r->parsed_evsel = ev->evsel;
	}
	return true;
}

int pk_pd_next_parsed(pk_pd_reader *r, pk_pd_event *ev, pk_pd_sample *s, pk_error *err)
{
	if (s->size != sizeof(*s)) /* the check inline: this runs per sample */
		return pk_pd_sample_check(s, err);
	for (;;) {
		int rc = next_event(r, ev, err);
		if (rc <= 0)
			return rc;
		if (ev->type != PERF_RECORD_SAMPLE) {
			if (rc == 2)
				record_id(ev);
			return 1;
		}
		if (!ev->evsel)
			continue; /* counted when read */
		if (rc == 2) {
			/* held in place: queued with its head whole, read once here */
			if (parse_held(r, ev, s))
				return 1;
			record_id(ev); /* the public parse below names the bad field */
		}
		r->parsed = NULL;
		if (pk_pd_reader_parse_sample(r, ev, s, NULL) == 0)
			return 1;
	}
}
