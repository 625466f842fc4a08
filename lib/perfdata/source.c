/* A chunked byte source: a window over a file (pread), a pipe (read, forward
 * only) or a memory buffer, or a regular file mapped whole. The window only
 * grows as far as one record needs, and a mapping gives its pages back
 * segment by segment once read (pki_pd_src_trim), so memory does not depend
 * on the input size. A mapped file must not shrink while it is read (the
 * pages past its new end would fault, as for perf, which maps it too). */
#include "pd_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest window one record may need (AUXTRACE data included). */
#define PD_SRC_MAX ((size_t)1 << 30)
/* Maps a regular file whole; false (and the pread window) when it cannot. */
static bool src_map(pd_src *s)
{
	if (!s->file_size || s->file_size > SIZE_MAX / 2)
		return false;
	size_t n = (size_t)((s->file_size >> PD_SEG_SHIFT) + 1);
	s->seg_refs = calloc(n, sizeof(*s->seg_refs));
	s->seg_gone = calloc(n, 1);
	void *p = s->seg_refs && s->seg_gone
			  ? mmap(NULL, (size_t)s->file_size, PROT_READ, MAP_PRIVATE, s->fd, 0)
			  : MAP_FAILED;
	if (p == MAP_FAILED) {
		free(s->seg_refs);
		free(s->seg_gone);
		s->seg_refs = NULL;
		s->seg_gone = NULL;
		return false;
	}
	s->nr_segs = n;
	s->mem = p;
	s->mem_len = s->file_size;
	s->mapped = true;
	return true;
}

int pki_pd_src_init_fd(pd_src *s, int fd, size_t chunk)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->chunk = chunk ? chunk : ((size_t)4 << 20);
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		s->seekable = true;
		s->file_size = (uint64_t)st.st_size;
		/* an asked-for chunk size keeps the window (and its tests) */
		if (!chunk)
			src_map(s);
	} else {
		/* The stream may already be past its start (a pipe someone read
		 * from); offsets are relative to where we begin. */
		s->seekable = false;
	}
	return 0;
}

void pki_pd_src_init_mem(pd_src *s, const void *buf, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->mem = buf;
	s->mem_len = len;
	s->seekable = true;
	s->file_size = len;
}

void pki_pd_src_free(pd_src *s)
{
	free(s->buf);
	s->buf = NULL;
	if (s->mapped)
		munmap((void *)(uintptr_t)s->mem, (size_t)s->mem_len);
	free(s->seg_refs);
	free(s->seg_gone);
	s->seg_refs = NULL;
	s->seg_gone = NULL;
	s->mem = NULL;
	s->mapped = false;
}

/* Gives back segment i of the mapping (its pages stay in the page cache;
 * a later read faults them in again). */
static void seg_drop(pd_src *s, size_t i)
{
	uint64_t off = (uint64_t)i << PD_SEG_SHIFT;
	uint64_t len = s->mem_len - off < ((uint64_t)1 << PD_SEG_SHIFT) ? s->mem_len - off
									 : (uint64_t)1 << PD_SEG_SHIFT;
	madvise((void *)(uintptr_t)(s->mem + off), (size_t)len, MADV_DONTNEED);
	s->seg_gone[i] = 1;
}

void pki_pd_src_unneeded(pd_src *s, const uint8_t *p, size_t n)
{
	/* whole blocks of 64 KiB, a multiple of every page size Linux uses */
	const uintptr_t blk = (uintptr_t)1 << 16;
	if (!s->mapped || !pki_pd_src_stable(s, p) || n > s->mem_len - (uint64_t)(p - s->mem))
		return;
	uintptr_t lo = ((uintptr_t)p + blk - 1) & ~(blk - 1), hi = ((uintptr_t)p + n) & ~(blk - 1);
	if (lo < hi)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void pki_pd_src_seg_empty(pd_src *s, size_t i)
{
	/* a segment the reader has left, now holding nothing */
	if (i < (size_t)(s->hi >> PD_SEG_SHIFT) && !s->seg_gone[i])
		seg_drop(s, i);
}

void pki_pd_src_trim_segs(pd_src *s, uint64_t off)
{
	s->hi = off;
	size_t end = (size_t)(s->hi >> PD_SEG_SHIFT);
	for (size_t i = end; i > 0 && !s->seg_gone[i - 1]; i--)
		if (!s->seg_refs[i - 1])
			seg_drop(s, i - 1);
}

static int src_reserve(pd_src *s, size_t n)
{
	if (n <= s->cap)
		return 0;
	if (n > PD_SRC_MAX)
		return -EFBIG;
	size_t cap = s->cap ? s->cap : s->chunk;
	while (cap < n)
		cap *= 2;
	uint8_t *nb = realloc(s->buf, cap);
	if (!nb)
		return -ENOMEM;
	s->buf = nb;
	s->cap = cap;
	return 0;
}

/* Reads more bytes at the window's end; 0 at EOF. */
static ssize_t src_fill(pd_src *s, size_t want)
{
	size_t room = s->cap - s->blen;
	if (room > want && want < s->chunk)
		room = s->chunk < room ? s->chunk : room;
	ssize_t r;
	do {
		if (s->seekable)
			r = pread(s->fd, s->buf + s->blen, room, (off_t)(s->boff + s->blen));
		else
			r = read(s->fd, s->buf + s->blen, room);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		s->eof = true;
	s->blen += (size_t)r;
	s->bytes_read += (uint64_t)r;
	if (!s->seekable)
		s->rpos += (uint64_t)r;
	return r;
}

int pki_pd_src_peek(pd_src *s, uint64_t off, size_t n, const uint8_t **p, size_t *got)
{
	if (s->mem) {
		if (off >= s->mem_len) {
			*got = 0;
			*p = s->mem + s->mem_len;
			return 0;
		}
		uint64_t avail = s->mem_len - off;
		*got = avail < n ? (size_t)avail : n;
		*p = s->mem + off;
		if (s->mapped && off + *got > s->bytes_read)
			s->bytes_read = off + *got;
		return 0;
	}
	if (off >= s->boff && off + n <= s->boff + s->blen) {
		*p = s->buf + (off - s->boff);
		*got = n;
		return 0;
	}
	int rc = src_reserve(s, n);
	if (rc < 0)
		return rc;
	if (off >= s->boff && off < s->boff + s->blen) {
		/* keep the tail we still need, move it to the front */
		size_t keep = (size_t)(s->boff + s->blen - off);
		memmove(s->buf, s->buf + (off - s->boff), keep);
		s->blen = keep;
		s->boff = off;
	} else if (s->seekable) {
		s->blen = 0;
		s->boff = off;
		s->eof = false;
	} else {
		if (off < s->boff + s->blen)
			return -ESPIPE; /* a pipe cannot go back */
		/* skip forward by reading and dropping */
		s->boff += s->blen;
		s->blen = 0;
		while (s->boff < off) {
			if (s->eof)
				break;
			size_t want = off - s->boff < s->cap ? (size_t)(off - s->boff) : s->cap;
			ssize_t r = src_fill(s, want);
			if (r < 0)
				return (int)r;
			size_t drop = s->blen < off - s->boff ? s->blen : (size_t)(off - s->boff);
			memmove(s->buf, s->buf + drop, s->blen - drop);
			s->blen -= drop;
			s->boff += drop;
		}
	}
	while (s->blen < n && !(s->eof && !s->seekable)) {
		ssize_t r = src_fill(s, n - s->blen);
		if (r < 0)
			return (int)r;
		if (r == 0)
			break;
	}
	*p = s->buf;
	*got = s->blen < n ? s->blen : n;
	return 0;
}

int pki_pd_src_read_at(pd_src *s, uint64_t off, void *dst, size_t n)
{
	const uint8_t *p;
	size_t got;
	int rc = pki_pd_src_peek(s, off, n, &p, &got);
	if (rc < 0)
		return rc;
	if (got < n)
		return -ENODATA;
	memcpy(dst, p, n);
	return 0;
}
