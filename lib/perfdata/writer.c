/* The perf.data writer. File mode: header, ids, attrs, then the data
 * section grows record by record; close() appends the feature table and
 * payloads and rewrites the header. Pipe mode: a 16-byte header, then
 * HEADER_ATTR and HEADER_FEATURE records, then the data. Only record types
 * perf 6.1 knows are written, each padded to 8 bytes.
 *
 * Records collect in a buffer of WBUF_SIZE bytes that goes out when it is
 * full and at each pk_pd_writer_flush; the recorder flushes after every pass
 * over its ring buffers, so a killed pmukit loses at most the pass it was
 * copying. After each flush in file mode the header's data size is
 * rewritten too: a file whose writer died reads as a file without features.
 * Invariants: pos is the file offset of wbuf[0]; after begin() the buffer
 * holds whole records only; nr_samples counts SAMPLE records known to be in
 * the output, pend_samples those still in the buffer.
 *
 * Compression (pk_pd_writer_compress, perf record -z): from then on each
 * flush turns the buffer into COMPRESSED records, one zstd stream over the
 * whole file cut into records of at most 64 KiB (sizes not padded, as
 * perf writes them), each flushed so that a reader can expand everything
 * written so far; close() adds the COMPRESSED feature. A full disk with
 * compression on stops the writer (whole records cannot be kept apart). */
#include "pd_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#define WBUF_SIZE ((size_t)1 << 20)
/* a COMPRESSED record's payload: its size is a u16 with the header */
#define ZREC_PAYLOAD ((size_t)UINT16_MAX - 8)
/* attr.size: perf 6.1 accepts VER7; config3 needs VER8, which 6.1 rejects. */

typedef struct wevsel {
	uint8_t attr[PD_ATTR_SIZE_VER8];
	uint32_t attr_size;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
} wevsel;

struct pk_pd_writer {
	int fd;
	bool own_fd, pipe, begun, full, failed;
	bool no_pipe_features;      /* a pipe without HEADER_FEATURE records */
	char *path;
	wevsel *evsels;
	size_t nr_evsels;
	pk_pd_buf feats[PK_FEAT_MAX];
	bool has_feat[PK_FEAT_MAX];
	uint64_t data_offset, attrs_off;
	uint64_t pos;                /* file offset of wbuf[0] */
	uint8_t *wbuf;
	size_t wlen;
	uint64_t nr_samples, pend_samples;
	ZSTD_CCtx *z;                /* compressing: the stream */
	uint32_t zlevel, zmmap_len;
	uint8_t *zbuf;               /* one COMPRESSED record being made */
	uint64_t zin, zout;          /* bytes given to and made by zstd */
};

/* ---- buffer builder ---- */

static bool buf_room(pk_pd_buf *b, size_t n)
{
	return pki_buf_reserve(&b->data, &b->cap, b->len, n, &b->oom);
}

void pk_pd_buf_bytes(pk_pd_buf *b, const void *p, size_t n)
{
	if (!n || !buf_room(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void pk_pd_buf_u16(pk_pd_buf *b, uint16_t v) { pk_pd_buf_bytes(b, &v, 2); }
void pk_pd_buf_u32(pk_pd_buf *b, uint32_t v) { pk_pd_buf_bytes(b, &v, 4); }
void pk_pd_buf_u64(pk_pd_buf *b, uint64_t v) { pk_pd_buf_bytes(b, &v, 8); }

static void buf_zeros(pk_pd_buf *b, size_t n)
{
	if (!n || !buf_room(b, n))
		return;
	memset(b->data + b->len, 0, n);
	b->len += n;
}

void pk_pd_buf_string(pk_pd_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + 63) & ~(size_t)63;
	pk_pd_buf_u32(b, (uint32_t)padded);
	pk_pd_buf_bytes(b, s, n - 1);
	buf_zeros(b, padded - (n - 1));
}

void pk_pd_buf_name(pk_pd_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	pk_pd_buf_bytes(b, s, n - 1);
	buf_zeros(b, ((n + 7) & ~(size_t)7) - (n - 1));
}

void pk_pd_buf_pad8(pk_pd_buf *b)
{
	buf_zeros(b, ((b->len + 7) & ~(size_t)7) - b->len);
}

void pk_pd_buf_release(pk_pd_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* ---- low-level output ---- */

static bool full_errno(int e)
{
	return e == ENOSPC || e == EFBIG || e == EDQUOT;
}

/* Writes everything (at off, or at the file position when off < 0) or
 * returns -errno with *done bytes written. */
static int put_all(int fd, const void *p, size_t n, int64_t off, size_t *done)
{
	*done = 0;
	while (*done < n) {
		const uint8_t *src = (const uint8_t *)p + *done;
		ssize_t k = off < 0 ? write(fd, src, n - *done)
				    : pwrite(fd, src, n - *done, (off_t)(off + (int64_t)*done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENOSPC;
		*done += (size_t)k;
	}
	return 0;
}

static int write_all(int fd, const void *p, size_t n, size_t *done)
{
	return put_all(fd, p, n, -1, done);
}

static int pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	size_t done;
	return put_all(fd, p, n, (int64_t)off, &done);
}

/* Size of the whole record at p (AUXTRACE data included). */
static size_t rec_total(const uint8_t *p)
{
	size_t size = pd_ld16(p + 6);
	if (pd_ld32(p) == PK_RECORD_AUXTRACE && size >= 16)
		size += (size_t)((pd_ld64(p + 8) + 7) & ~7ULL);
	return size ? size : 8;
}

/* Bytes of whole records before the first `done` of the buffer, and how
 * many of them are samples. */
static size_t whole_records(const pk_pd_writer *w, size_t done, uint64_t *samples)
{
	size_t keep = 0;
	*samples = 0;
	while (keep + 8 <= w->wlen) {
		size_t t = rec_total(w->wbuf + keep);
		if (keep + t > done)
			break;
		*samples += pd_ld32(w->wbuf + keep) == PERF_RECORD_SAMPLE;
		keep += t;
	}
	return keep;
}

/* The buffer as COMPRESSED records, written through. */
static int zflush(pk_pd_writer *w, pk_error *err)
{
	ZSTD_inBuffer in = {w->wbuf, w->wlen, 0};
	size_t left;
	do {
		ZSTD_outBuffer out = {w->zbuf + 8, ZREC_PAYLOAD, 0};
		left = ZSTD_compressStream2(w->z, &out, &in, ZSTD_e_flush);
		if (ZSTD_isError(left)) {
			w->failed = true;
			return pk_err(err, -EIO, "zstd: %s", ZSTD_getErrorName(left));
		}
		if (!out.pos)
			continue;
		pd_st32(w->zbuf, PK_RECORD_COMPRESSED);
		pd_st16(w->zbuf + 4, 0);
		pd_st16(w->zbuf + 6, (uint16_t)(out.pos + 8));
		size_t done;
		int rc = write_all(w->fd, w->zbuf, out.pos + 8, &done);
		w->pos += done;
		if (rc < 0) {
			w->failed = true;
			w->wlen = 0;
			return pk_err_at(err, rc, "perf.data", w->path, -1,
					 "write failed (compressed output: the file ends at the "
					 "last whole record): %s", strerror(-rc));
		}
		w->zout += out.pos + 8;
	} while (left || in.pos < in.size);
	w->zin += w->wlen;
	w->wlen = 0;
	w->nr_samples += w->pend_samples;
	w->pend_samples = 0;
	return 0;
}

static int wflush(pk_pd_writer *w, pk_error *err)
{
	if (!w->wlen)
		return 0;
	if (w->z)
		return zflush(w, err);
	size_t done;
	int rc = write_all(w->fd, w->wbuf, w->wlen, &done);
	if (rc == 0) {
		w->pos += w->wlen;
		w->wlen = 0;
		w->nr_samples += w->pend_samples;
		w->pend_samples = 0;
		return 0;
	}
	if (!full_errno(-rc) || w->pipe) {
		/* what went out is counted; nothing more will */
		uint64_t samples = 0;
		if (w->data_offset && w->pos >= w->data_offset)
			whole_records(w, done, &samples);
		w->nr_samples += samples;
		w->pend_samples = 0;
		w->pos += done;
		w->wlen = 0;
		w->failed = true;
		return pk_err_at(err, rc, "perf.data", w->path, -1, "write failed: %s", strerror(-rc));
	}
	/* Disk full: keep the whole records that made it, cut the rest; a
	 * header that did not fit whole leaves nothing worth keeping. */
	bool in_header = w->pos < w->data_offset;
	uint64_t samples = 0;
	size_t keep = in_header ? 0 : whole_records(w, done, &samples);
	w->pos += keep;
	w->nr_samples += samples;
	w->pend_samples = 0;
	w->wlen = 0;
	w->full = true;
	if (ftruncate(w->fd, (off_t)w->pos) < 0) {
		w->failed = true;
		return pk_err_at(err, -errno, "perf.data", w->path, (long)w->pos,
				 "disk full, and cutting the file back failed: %s", strerror(errno));
	}
	lseek(w->fd, (off_t)w->pos, SEEK_SET);
	if (in_header)
		pk_err_at(err, -ENOSPC, "perf.data", w->path, 0,
			  "no space left: the file header (%llu bytes) did not fit",
			  (unsigned long long)w->data_offset);
	else
		pk_err_at(err, -ENOSPC, "perf.data", w->path, (long)w->pos,
			  "no space left: recording stopped; the file keeps the %llu bytes of whole "
			  "records written so far", (unsigned long long)(w->pos - w->data_offset));
	if (err)
		err->pos_is_offset = !in_header;
	return -ENOSPC;
}

static int wput(pk_pd_writer *w, const void *p, size_t n, pk_error *err)
{
	if (w->full)
		return pk_err(err, -ENOSPC, "no space left on the output");
	if (w->failed)
		return pk_err(err, -EIO, "the output failed earlier");
	if (!n)
		return 0;
	if (w->wlen + n > WBUF_SIZE) {
		int rc = wflush(w, err);
		if (rc < 0)
			return rc;
	}
	if (n > WBUF_SIZE) {
		/* a big AUXTRACE payload: straight through */
		size_t done;
		int rc = write_all(w->fd, p, n, &done);
		if (rc < 0) {
			if (full_errno(-rc) && !w->pipe) {
				w->full = true;
				if (ftruncate(w->fd, (off_t)w->pos) == 0)
					lseek(w->fd, (off_t)w->pos, SEEK_SET);
				return pk_err(err, -ENOSPC, "no space left on the output");
			}
			w->failed = true;
			return pk_err(err, rc, "write failed: %s", strerror(-rc));
		}
		w->pos += n;
		return 0;
	}
	memcpy(w->wbuf + w->wlen, p, n);
	w->wlen += n;
	return 0;
}

/* ---- API ---- */

int pk_pd_writer_open_fd(int fd, const char *name, bool pipe, pk_pd_writer **out,
			 pk_error *err)
{
	*out = NULL;
	pk_pd_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return pk_err(err, -ENOMEM, "out of memory");
	w->fd = fd;
	w->pipe = pipe;
	w->path = strdup(name ? name : "perf.data");
	w->wbuf = malloc(WBUF_SIZE);
	if (!w->path || !w->wbuf) {
		pk_pd_writer_abort(w);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	*out = w;
	return 0;
}

int pk_pd_writer_open(const char *path, bool pipe, pk_pd_writer **out, pk_error *err)
{
	*out = NULL;
	if (!strcmp(path, "-"))
		return pk_pd_writer_open_fd(1, "-", true, out, err);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		pk_err_at(err, -e, "perf.data", path, -1, "cannot create: %s", strerror(e));
		return -e;
	}
	int rc = pk_pd_writer_open_fd(fd, path, pipe, out, err);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	(*out)->own_fd = true;
	return 0;
}

int pk_pd_writer_add_evsel(pk_pd_writer *w, const struct perf_event_attr *attr, uint64_t config3,
			   const char *name, const uint64_t *ids, size_t nr_ids, pk_error *err)
{
	if (w->begun)
		return pk_err(err, -EINVAL, "events must be added before the data");
	wevsel *ne = realloc(w->evsels, (w->nr_evsels + 1) * sizeof(*ne));
	if (!ne)
		return pk_err(err, -ENOMEM, "out of memory");
	w->evsels = ne;
	wevsel *e = &ne[w->nr_evsels];
	memset(e, 0, sizeof(*e));
	size_t n = sizeof(*attr) < PD_ATTR_SIZE_VER7 ? sizeof(*attr) : PD_ATTR_SIZE_VER7;
	memcpy(e->attr, attr, n);
	e->attr_size = config3 ? PD_ATTR_SIZE_VER8 : PD_ATTR_SIZE_VER7;
	if (config3)
		pd_st64(e->attr + PD_ATTR_SIZE_VER7, config3);
	pd_st32(e->attr + PD_ATTR_SIZE_OFF, e->attr_size);
	e->name = name ? strdup(name) : NULL;
	if (nr_ids) {
		e->ids = malloc(nr_ids * sizeof(*ids));
		if (!e->ids)
			return pk_err(err, -ENOMEM, "out of memory");
		memcpy(e->ids, ids, nr_ids * sizeof(*ids));
		e->nr_ids = nr_ids;
	}
	w->nr_evsels++;
	return 0;
}

void pk_pd_writer_no_pipe_features(pk_pd_writer *w)
{
	w->no_pipe_features = true;
}

int pk_pd_writer_set_feature(pk_pd_writer *w, int feat, const void *data, size_t len,
			     pk_error *err)
{
	if (feat <= 0 || feat >= PK_FEAT_MAX)
		return pk_err(err, -EINVAL, "bad feature number %d", feat);
	if (w->pipe && w->begun)
		return pk_err(err, -EINVAL, "pipe mode: features go before the data");
	pk_pd_buf *b = &w->feats[feat];
	b->len = 0;
	pk_pd_buf_bytes(b, data, len);
	if (b->oom)
		return pk_err(err, -ENOMEM, "out of memory");
	w->has_feat[feat] = true;
	return 0;
}

/* The tracing data in a pipe: a HEADER_TRACING_DATA record (header, u32
 * size, 4 bytes of padding; size 16) followed by the data padded to 8,
 * the size counting the padding, as perf writes it. */
static int pipe_tracing_data(pk_pd_writer *w, pk_error *err)
{
	size_t n = w->feats[PK_FEAT_TRACING_DATA].len, padded = (n + 7) & ~(size_t)7;
	if (padded > UINT32_MAX)
		return pk_err(err, -EINVAL, "tracing data of %zu bytes too large for a pipe", n);
	pk_pd_buf b = {0};
	pk_pd_buf_u32(&b, PK_RECORD_HEADER_TRACING_DATA);
	pk_pd_buf_u16(&b, 0);
	pk_pd_buf_u16(&b, 16);
	pk_pd_buf_u32(&b, (uint32_t)padded);
	pk_pd_buf_u32(&b, 0);
	pk_pd_buf_bytes(&b, w->feats[PK_FEAT_TRACING_DATA].data, n);
	pk_pd_buf_pad8(&b);
	int rc = b.oom ? pk_err(err, -ENOMEM, "out of memory") : wput(w, b.data, b.len, err);
	pk_pd_buf_release(&b);
	return rc;
}

static int begin_pipe(pk_pd_writer *w, pk_error *err)
{
	uint64_t hdr[2] = {PD_MAGIC, PD_PIPE_HEADER_SIZE};
	int rc = wput(w, hdr, sizeof(hdr), err);
	for (size_t i = 0; rc == 0 && i < w->nr_evsels; i++) {
		wevsel *e = &w->evsels[i];
		pk_pd_buf b = {0};
		pk_pd_buf_u32(&b, PK_RECORD_HEADER_ATTR);
		pk_pd_buf_u16(&b, 0);
		pk_pd_buf_u16(&b, (uint16_t)(8 + e->attr_size + e->nr_ids * 8));
		pk_pd_buf_bytes(&b, e->attr, e->attr_size);
		pk_pd_buf_bytes(&b, e->ids, e->nr_ids * 8);
		rc = b.oom ? pk_err(err, -ENOMEM, "out of memory") : wput(w, b.data, b.len, err);
		pk_pd_buf_release(&b);
	}
	/* Features perf 6.1 accepts in a pipe (ids <= 32), then the end
	 * marker: feature id 32 with no payload. */
	for (int f = 1; rc == 0 && !w->no_pipe_features && f <= PK_FEAT_LAST_6_1; f++) {
		if (f != PK_FEAT_LAST_6_1 && !w->has_feat[f])
			continue;
		/* nor those perf 6.1 does not synthesize into a pipe */
		if (f == PK_FEAT_BUILD_ID || f == PK_FEAT_AUXTRACE || f == PK_FEAT_TRACING_DATA ||
		    f == PK_FEAT_CACHE)
			continue;
		pk_pd_buf b = {0};
		size_t plen = f == PK_FEAT_LAST_6_1 ? 0 : w->feats[f].len;
		size_t total = (16 + plen + 7) & ~(size_t)7;
		if (total > 0xffff)
			continue; /* does not fit a record: leave it out */
		pk_pd_buf_u32(&b, PK_RECORD_HEADER_FEATURE);
		pk_pd_buf_u16(&b, 0);
		pk_pd_buf_u16(&b, (uint16_t)total);
		pk_pd_buf_u64(&b, (uint64_t)f);
		if (plen)
			pk_pd_buf_bytes(&b, w->feats[f].data, plen);
		pk_pd_buf_pad8(&b);
		rc = b.oom ? pk_err(err, -ENOMEM, "out of memory") : wput(w, b.data, b.len, err);
		pk_pd_buf_release(&b);
	}
	if (rc == 0 && w->has_feat[PK_FEAT_TRACING_DATA])
		rc = pipe_tracing_data(w, err);
	return rc;
}

static void header_bytes(pk_pd_writer *w, uint8_t *h, uint64_t attrs_off, uint64_t data_size,
			 const uint64_t bits[PD_HDR_FEAT_WORDS])
{
	pd_file_header fh = {.attrs_offset = attrs_off, .data_offset = w->data_offset,
			     .data_size = data_size};
	fh.attr_size = (w->nr_evsels ? w->evsels[0].attr_size : PD_ATTR_SIZE_VER7) + PD_SECTION_SIZE;
	for (size_t i = 0; i < w->nr_evsels; i++)
		fh.attrs_size += w->evsels[i].attr_size + PD_SECTION_SIZE;
	memcpy(fh.features, bits, sizeof(fh.features));
	pki_pd_header_encode(&fh, h);
}

static int begin_file(pk_pd_writer *w, pk_error *err)
{
	/* header, then every evsel's ids, then the attrs with their id sections */
	uint64_t off = PD_FILE_HEADER_SIZE;
	uint64_t *id_off = calloc(w->nr_evsels + 1, sizeof(*id_off));
	if (!id_off)
		return pk_err(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < w->nr_evsels; i++) {
		id_off[i] = off;
		off += w->evsels[i].nr_ids * 8;
	}
	uint64_t attrs_off = off;
	for (size_t i = 0; i < w->nr_evsels; i++)
		off += w->evsels[i].attr_size + PD_SECTION_SIZE;
	w->data_offset = off;
	uint8_t h[PD_FILE_HEADER_SIZE];
	uint64_t bits[PD_HDR_FEAT_WORDS] = {0};
	header_bytes(w, h, attrs_off, 0, bits);
	int rc = wput(w, h, sizeof(h), err);
	for (size_t i = 0; rc == 0 && i < w->nr_evsels; i++)
		rc = wput(w, w->evsels[i].ids, w->evsels[i].nr_ids * 8, err);
	for (size_t i = 0; rc == 0 && i < w->nr_evsels; i++) {
		uint64_t sec[2] = {id_off[i], w->evsels[i].nr_ids * 8};
		rc = wput(w, w->evsels[i].attr, w->evsels[i].attr_size, err);
		if (rc == 0)
			rc = wput(w, sec, sizeof(sec), err);
	}
	free(id_off);
	w->attrs_off = attrs_off;
	return rc;
}

int pk_pd_writer_begin(pk_pd_writer *w, pk_error *err)
{
	if (w->begun)
		return 0;
	int rc = w->pipe ? begin_pipe(w, err) : begin_file(w, err);
	w->begun = true;
	if (rc == 0)
		rc = wflush(w, err);
	if (rc == 0 && w->pipe)
		w->data_offset = w->pos;
	return rc;
}

int pk_pd_writer_flush(pk_pd_writer *w, pk_error *err)
{
	if (!w->begun || !w->wlen)
		return 0;
	if (w->full)
		return pk_err(err, -ENOSPC, "no space left on the output");
	int rc = wflush(w, err);
	if (rc < 0 || w->pipe)
		return rc;
	/* the data so far, for a reader of a file whose writer was killed */
	uint8_t h[PD_FILE_HEADER_SIZE];
	uint64_t bits[4] = {0};
	header_bytes(w, h, w->attrs_off, w->pos - w->data_offset, bits);
	rc = pwrite_all(w->fd, h, sizeof(h), 0);
	if (rc < 0) {
		w->failed = true;
		return pk_err_at(err, rc, "perf.data", w->path, 0, "cannot write the header: %s",
				 strerror(-rc));
	}
	return 0;
}

int pk_pd_writer_write(pk_pd_writer *w, const void *rec, size_t len, pk_error *err)
{
	if (len < 8 || len % 8 || pd_ld16((const uint8_t *)rec + 6) != len)
		return pk_err(err, -EINVAL, "bad record length %zu", len);
	int rc = wput(w, rec, len, err);
	if (rc == 0 && pd_ld32(rec) == PERF_RECORD_SAMPLE)
		w->pend_samples++;
	return rc;
}

int pk_pd_writer_write_auxtrace(pk_pd_writer *w, const void *rec, size_t len, const void *data,
				size_t data_len, pk_error *err)
{
	static const uint8_t zeros[8];
	if (len != PD_AUXTRACE_SIZE)
		return pk_err(err, -EINVAL, "AUXTRACE record must be %d bytes", PD_AUXTRACE_SIZE);
	size_t padded = (data_len + 7) & ~(size_t)7;
	uint8_t r[PD_AUXTRACE_SIZE];
	memcpy(r, rec, sizeof(r));
	pd_st64(r + 8, padded);
	/* record and data go out together so a full disk cannot split them */
	if (w->wlen + sizeof(r) + padded > WBUF_SIZE) {
		int rc = wflush(w, err);
		if (rc < 0)
			return rc;
	}
	int rc = wput(w, r, sizeof(r), err);
	if (rc == 0)
		rc = wput(w, data, data_len, err);
	if (rc == 0 && padded > data_len)
		rc = wput(w, zeros, padded - data_len, err);
	return rc;
}

/* Bytes of the data section, in the output or in the buffer. */
uint64_t pk_pd_writer_data_size(const pk_pd_writer *w)
{
	uint64_t end = w->pos + w->wlen;
	return end > w->data_offset ? end - w->data_offset : 0;
}

uint64_t pk_pd_writer_nr_samples(const pk_pd_writer *w)
{
	return w->nr_samples;
}

bool pk_pd_writer_is_full(const pk_pd_writer *w)
{
	return w->full;
}

/* Feature table and payloads after the data; returns the bitmap. */
static int write_features(pk_pd_writer *w, uint64_t start, uint64_t bits[PD_HDR_FEAT_WORDS])
{
	int nr = 0;
	for (int f = 1; f < PK_FEAT_MAX; f++)
		if (w->has_feat[f])
			nr++;
	uint64_t off = start + (uint64_t)nr * 16;
	pk_pd_buf table = {0}, payload = {0};
	for (int f = 1; f < PK_FEAT_MAX; f++) {
		if (!w->has_feat[f])
			continue;
		pk_pd_buf_u64(&table, off + payload.len);
		pk_pd_buf_u64(&table, w->feats[f].len);
		pk_pd_buf_bytes(&payload, w->feats[f].data, w->feats[f].len);
		bits[f / 64] |= 1ULL << (f % 64);
	}
	int rc = table.oom || payload.oom ? -ENOMEM : 0;
	if (rc == 0 && table.len)
		rc = pwrite_all(w->fd, table.data, table.len, start);
	if (rc == 0 && payload.len)
		rc = pwrite_all(w->fd, payload.data, payload.len, off);
	pk_pd_buf_release(&table);
	pk_pd_buf_release(&payload);
	return rc;
}

int pk_pd_writer_compress(pk_pd_writer *w, int level, uint32_t mmap_len, pk_error *err)
{
	if (!w->begun || w->pipe)
		return pk_err(err, -EINVAL, "compression starts after the header, in file mode");
	if (level < 1 || level > ZSTD_maxCLevel())
		return pk_err(err, -EINVAL, "compression level %d: zstd takes 1 to %d", level,
			      ZSTD_maxCLevel());
	int rc = wflush(w, err); /* what came before stays plain, as perf's synthesized records */
	if (rc < 0)
		return rc;
	w->z = ZSTD_createCCtx();
	w->zbuf = malloc(ZREC_PAYLOAD + 8);
	if (!w->z || !w->zbuf ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->z, ZSTD_c_compressionLevel, level))) {
		ZSTD_freeCCtx(w->z);
		w->z = NULL;
		return pk_err(err, -ENOMEM, "out of memory");
	}
	w->zlevel = (uint32_t)level;
	w->zmmap_len = mmap_len;
	return 0;
}

/* perf's COMPRESSED feature: version 0, type 1 (zstd), level, ratio,
 * mmap_len. */
static void compressed_feature(pk_pd_writer *w)
{
	if (!w->z)
		return;
	uint32_t v[5] = {0, 1, w->zlevel, w->zout ? (uint32_t)((w->zin + w->zout / 2) / w->zout) : 0,
			 w->zmmap_len};
	pk_pd_writer_set_feature(w, PK_FEAT_COMPRESSED, v, sizeof(v), NULL);
}

static void writer_free(pk_pd_writer *w)
{
	ZSTD_freeCCtx(w->z);
	free(w->zbuf);
	for (size_t i = 0; i < w->nr_evsels; i++) {
		free(w->evsels[i].name);
		free(w->evsels[i].ids);
	}
	free(w->evsels);
	for (int f = 0; f < PK_FEAT_MAX; f++)
		pk_pd_buf_release(&w->feats[f]);
	if (w->own_fd && w->fd >= 0)
		close(w->fd);
	free(w->wbuf);
	free(w->path);
	free(w);
}

void pk_pd_writer_abort(pk_pd_writer *w)
{
	if (w)
		writer_free(w);
}

int pk_pd_writer_close(pk_pd_writer *w, pk_error *err)
{
	int rc = 0;
	if (!w->begun)
		rc = pk_pd_writer_begin(w, err);
	if (rc == 0 && !w->full && !w->failed)
		rc = wflush(w, err);
	int ret = rc == -ENOSPC ? 0 : rc;
	compressed_feature(w);
	if (!w->pipe && !w->failed && w->pos >= w->data_offset) {
		uint64_t data_end = w->pos;
		uint64_t bits[PD_HDR_FEAT_WORDS] = {0, 0, 0, 0};
		int frc = write_features(w, data_end, bits);
		if (frc < 0) {
			/* no room for the features: a valid file without them */
			memset(bits, 0, sizeof(bits));
			if (ftruncate(w->fd, (off_t)data_end) < 0 && !ret)
				ret = pk_err(err, -errno, "cannot cut the file: %s", strerror(errno));
		}
		uint8_t h[PD_FILE_HEADER_SIZE];
		header_bytes(w, h, w->attrs_off, data_end - w->data_offset, bits);
		int hrc = pwrite_all(w->fd, h, sizeof(h), 0);
		if (hrc < 0 && !ret)
			ret = pk_err_at(err, hrc, "perf.data", w->path, 0, "cannot write the header: %s",
					strerror(-hrc));
	}
	if (w->full && !ret)
		ret = -ENOSPC;
	writer_free(w);
	return ret;
}

/* ---- EVENT_DESC and GROUP_DESC from the added evsels ---- */

int pk_pd_writer_event_desc(pk_pd_writer *w, pk_error *err)
{
	pk_pd_buf b = {0};
	pk_pd_buf_u32(&b, (uint32_t)w->nr_evsels);
	pk_pd_buf_u32(&b, PD_ATTR_SIZE_VER7);
	for (size_t i = 0; i < w->nr_evsels; i++) {
		wevsel *e = &w->evsels[i];
		uint8_t a[PD_ATTR_SIZE_VER7];
		memcpy(a, e->attr, sizeof(a));
		/* EVENT_DESC attrs are fixed at 128 bytes */
		pd_st32(a + PD_ATTR_SIZE_OFF, PD_ATTR_SIZE_VER7);
		pk_pd_buf_bytes(&b, a, sizeof(a));
		pk_pd_buf_u32(&b, (uint32_t)e->nr_ids);
		pk_pd_buf_string(&b, e->name ? e->name : "");
		pk_pd_buf_bytes(&b, e->ids, e->nr_ids * 8);
	}
	int rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
		       : pk_pd_writer_set_feature(w, PK_FEAT_EVENT_DESC, b.data, b.len, err);
	pk_pd_buf_release(&b);
	return rc;
}
