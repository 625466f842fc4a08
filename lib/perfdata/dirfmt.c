/* perf record --threads' directory format (DIR_FORMAT feature): a directory
 * holding `data`, a whole perf.data file (header, attrs, the synthesized
 * records, features with DIR_FORMAT), and `data.0`, `data.1` ... : the
 * records of each writer thread, with no header of their own.
 *
 * The reader sees one file image in memory: `data` with its data section
 * replaced by the records of every part in the order perf 6.1 queues them,
 * the data size grown and each feature section's offset moved by as much.
 * perf reads the parts in turns: `data`'s data section first, then each
 * non-empty data.N in the directory's listing order (not sorted by N),
 * 10 MiB of records from one part (the record that reaches 10 MiB
 * included) before the next; its time ordering keeps records of equal time
 * in that order, and so does the reader's. The layout the caller sees is
 * `data`'s own (perf prints that). Costs the recording's size in memory;
 * files in the recording machine's byte order only. */
#include "pd_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* perf's turn: this many bytes of one part before the next part's. */
#define TURN_BYTES ((uint64_t)10 << 20)

typedef struct part {
	uint8_t *buf;                /* owned (the data.N files) or into the image */
	uint64_t pos, end;
	bool owned;
	char name[64];               /* "data", "data.N": for errors */
} part;

typedef struct parts {
	part *v;
	size_t nr, cap;
} parts;

static void parts_free(parts *ps)
{
	for (size_t i = 0; i < ps->nr; i++)
		if (ps->v[i].owned)
			free(ps->v[i].buf);
	free(ps->v);
}

static int part_add(parts *ps, uint8_t *buf, uint64_t pos, uint64_t end, bool owned,
		    const char *name)
{
	if (pki_grow(&ps->v, &ps->cap, ps->nr + 1, sizeof(*ps->v)) < 0)
		return -ENOMEM;
	part *p = &ps->v[ps->nr++];
	*p = (part){buf, pos, end, owned, ""};
	snprintf(p->name, sizeof(p->name), "%s", name);
	return 0;
}

/* The non-empty data.N files, in the directory's listing order. */
static int read_parts(const char *dir, parts *ps, pk_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return pk_err(err, -errno, "cannot list %s: %s", dir, strerror(errno));
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		uint64_t n;
		if (strncmp(de->d_name, "data.", 5) || pki_parse_u64(de->d_name + 5, &n, NULL) < 0)
			continue;
		char path[4096], *text = NULL;
		size_t len = 0;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		rc = pki_read_file(path, &text, &len);
		if (rc < 0)
			rc = pk_err(err, rc, "cannot read %s: %s", path, strerror(-rc));
		else if (!len)
			free(text);
		else if (part_add(ps, (uint8_t *)text, 0, len, true, de->d_name) < 0) {
			free(text);
			rc = pk_err(err, -ENOMEM, "out of memory");
		}
	}
	closedir(d);
	return rc;
}

/* The size of the record at p->pos with what follows it (AUXTRACE data);
 * 0 at the end or at a broken record. */
static uint64_t record_size(const part *p)
{
	uint64_t left = p->end - p->pos;
	if (left < 8)
		return 0;
	const uint8_t *r = p->buf + p->pos;
	uint16_t size;
	uint32_t type;
	memcpy(&type, r, 4);
	memcpy(&size, r + 6, 2);
	uint64_t total = size;
	if (type == PK_RECORD_AUXTRACE && size >= 16) {
		uint64_t aux;
		memcpy(&aux, r + 8, 8);
		total = aux > left ? UINT64_MAX : total + aux;
	}
	return size < 8 || total > left ? 0 : total;
}

/* Copies the parts' records into out in perf's turns; returns the bytes,
 * or 0 with *broken the part that holds a broken record (at its pos). */
static uint64_t interleave(parts *ps, uint8_t *out, part **broken)
{
	uint64_t n = 0;
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < ps->nr; i++) {
			part *p = &ps->v[i];
			uint64_t turn = 0, sz;
			while (turn < TURN_BYTES && (sz = record_size(p))) {
				memcpy(out + n, p->buf + p->pos, sz);
				p->pos += sz;
				n += sz;
				turn += sz;
			}
			if (p->pos < p->end && !record_size(p)) {
				*broken = p;
				return 0;
			}
			more |= p->pos < p->end;
		}
	}
	return n;
}

/* The image: header and attrs, the interleaved records, the features with
 * their offsets moved by the growth. */
static int build(uint8_t *img, size_t len, const pd_file_header *fh, uint64_t nr_feat,
		 parts *ps, uint8_t **out, size_t *out_len, const char *dir, pk_error *err)
{
	uint64_t end = fh->data_offset + fh->data_size, total = 0;
	for (size_t i = 0; i < ps->nr; i++)
		total += ps->v[i].end - ps->v[i].pos;
	uint8_t *o = malloc((size_t)(fh->data_offset + total + (len - end)) + 1);
	if (!o)
		return pk_err(err, -ENOMEM, "out of memory");
	memcpy(o, img, (size_t)fh->data_offset);
	part *broken = NULL;
	uint64_t data = interleave(ps, o + fh->data_offset, &broken);
	if (broken) {
		free(o);
		return pk_err(err, -EINVAL, "%s/%s: offset %llu: broken record (size past the end)",
			      dir, broken->name, (unsigned long long)broken->pos);
	}
	memcpy(o + fh->data_offset + data, img + end, len - end);
	uint64_t added = data - fh->data_size;
	memcpy(o + PD_HDR_DATA + 8, &data, 8);
	for (uint64_t i = 0; i < nr_feat; i++) {
		uint8_t *sec = o + fh->data_offset + data + i * PD_SECTION_SIZE;
		uint64_t off;
		memcpy(&off, sec, 8);
		if (off >= end)
			off += added;
		memcpy(sec, &off, 8);
	}
	*out = o;
	*out_len = (size_t)(fh->data_offset + data + (len - end));
	return 0;
}

int pki_pd_dir_image(const char *dir, uint8_t **out, size_t *out_len, pk_pd_layout *orig,
		     pk_error *err)
{
	char path[4096], *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof(path), "%s/data", dir);
	int rc = pki_read_file(path, &text, &len);
	if (rc < 0)
		return pk_err(err, rc, "%s is a directory without a perf.data header file (%s: %s)",
			      dir, path, strerror(-rc));
	uint8_t *img = (uint8_t *)text;
	pd_file_header fh;
	if (len < PD_FILE_HEADER_SIZE || memcmp(img, "PERFILE2", 8)) {
		free(img);
		return pk_err(err, -EINVAL, "%s: not a perf.data file in this machine's byte order",
			      path);
	}
	pki_pd_header_decode(img, PD_FILE_HEADER_SIZE, false, &fh);
	uint64_t end = fh.data_offset + fh.data_size, nr_feat = 0;
	if (fh.data_offset < PD_FILE_HEADER_SIZE || end < fh.data_offset || end > len) {
		free(img);
		return pk_err(err, -EINVAL, "%s: data section past the end of the file", path);
	}
	for (int f = 0; f < PK_FEAT_MAX; f++)
		nr_feat += fh.features[f / 64] >> (f % 64) & 1;
	if (nr_feat > (len - end) / PD_SECTION_SIZE)
		nr_feat = (len - end) / PD_SECTION_SIZE;
	*orig = (pk_pd_layout){.data_offset = fh.data_offset, .data_size = fh.data_size,
			       .feat_offset = end, .file_size = len};
	parts ps = {0};
	rc = part_add(&ps, img, fh.data_offset, end, false, "data") < 0
		     ? pk_err(err, -ENOMEM, "out of memory")
		     : read_parts(dir, &ps, err);
	if (rc == 0)
		rc = build(img, len, &fh, nr_feat, &ps, out, out_len, dir, err);
	parts_free(&ps);
	free(img);
	return rc;
}
