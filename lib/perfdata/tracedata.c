/* The tracing data blob (TRACING_DATA feature, HEADER_TRACING_DATA record):
 * parse into views and write from views. The layout is described once, in
 * include/pmukit/tracedata.h; this file is its only reader and writer.
 *
 * Invariants: parsing never reads past len (every size is checked against
 * what is left before it is used), views point into the caller's blob, and
 * an error names the part being read and its offset in the blob. */
#include <pmukit/tracedata.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static const char trace_magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

typedef struct cursor {
	const uint8_t *p;
	size_t len, off;
	bool big;                    /* integers most significant byte first */
	pk_error *err;
} cursor;

static int short_blob(cursor *c, const char *what)
{
	return pk_err_at(c->err, -EINVAL, "tracing data", "", (long)c->off,
			 "tracing data truncated in %s at offset %zu (%zu bytes)", what, c->off,
			 c->len);
}

static int get_uint(cursor *c, size_t n, const char *what, uint64_t *v)
{
	if (c->len - c->off < n)
		return short_blob(c, what);
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = c->big ? i : n - 1 - i; /* most significant first */
		x = x << 8 | c->p[c->off + k];
	}
	c->off += n;
	*v = x;
	return 0;
}

/* A NUL-terminated string in place. */
static int get_cstr(cursor *c, const char *what, const char **s)
{
	const uint8_t *end = memchr(c->p + c->off, 0, c->len - c->off);
	if (!end)
		return short_blob(c, what);
	*s = (const char *)c->p + c->off;
	c->off = (size_t)(end - c->p) + 1;
	return 0;
}

/* A size of szlen bytes, then that many bytes of text. */
static int get_text(cursor *c, size_t szlen, const char *what, pk_trace_text *t)
{
	uint64_t n = 0;
	size_t at = c->off;
	int rc = get_uint(c, szlen, what, &n);
	if (rc < 0)
		return rc;
	if (n > c->len - c->off) {
		c->off = at;
		return pk_err_at(c->err, -EINVAL, "tracing data", "", (long)at,
				 "tracing data: %s of %llu bytes at offset %zu runs past the end (%zu bytes)",
				 what, (unsigned long long)n, at, c->len);
	}
	t->data = (const char *)c->p + c->off;
	t->len = (size_t)n;
	c->off += (size_t)n;
	return 0;
}

static int add_format(pk_trace_data *td, size_t *cap, const char *sys, pk_trace_text text,
		      pk_error *err)
{
	if (pki_grow(&td->formats, cap, td->nr_formats + 1, sizeof(*td->formats)) < 0)
		return pk_err(err, -ENOMEM, "out of memory");
	td->formats[td->nr_formats++] = (pk_trace_format){sys, text};
	return 0;
}

/* u32 count, then count formats of system sys. */
static int get_formats(cursor *c, pk_trace_data *td, size_t *cap, const char *sys)
{
	uint64_t n = 0;
	int rc = get_uint(c, 4, "a format count", &n);
	/* each format takes 8 bytes at least: a count above that is damage */
	if (rc == 0 && n > (c->len - c->off) / 8)
		return pk_err_at(c->err, -EINVAL, "tracing data", "", (long)c->off - 4,
				 "tracing data: %llu formats of '%s' at offset %zu cannot fit",
				 (unsigned long long)n, sys, c->off - 4);
	for (uint64_t i = 0; rc == 0 && i < n; i++) {
		pk_trace_text t;
		rc = get_text(c, 8, "an event format", &t);
		if (rc == 0)
			rc = add_format(td, cap, sys, t, c->err);
	}
	return rc;
}

static int get_header(cursor *c, pk_trace_data *td)
{
	if (c->len < sizeof(trace_magic) || memcmp(c->p, trace_magic, sizeof(trace_magic)))
		return pk_err_at(c->err, -EINVAL, "tracing data", "", 0,
				 "tracing data does not start with its magic (\\x17\\x08Dtracing)");
	c->off = sizeof(trace_magic);
	const char *version;
	int rc = get_cstr(c, "the version", &version);
	if (rc < 0)
		return rc;
	if (strlen(version) >= sizeof(td->version))
		return pk_err_at(c->err, -EINVAL, "tracing data", "", (long)sizeof(trace_magic),
				 "tracing data: version string too long");
	strcpy(td->version, version);
	uint64_t be = 0, lsz = 0, psz = 0;
	if ((rc = get_uint(c, 1, "the byte order", &be)) < 0 ||
	    (rc = get_uint(c, 1, "the long size", &lsz)) < 0)
		return rc;
	td->big_endian = be != 0;
	td->long_size = (uint8_t)lsz;
	c->big = td->big_endian;
	if ((rc = get_uint(c, 4, "the page size", &psz)) < 0)
		return rc;
	td->page_size = (uint32_t)psz;
	static const char *const names[2] = {"header_page", "header_event"};
	pk_trace_text *texts[2] = {&td->header_page, &td->header_event};
	for (int i = 0; i < 2; i++) {
		const char *name;
		size_t at = c->off;
		if ((rc = get_cstr(c, names[i], &name)) < 0)
			return rc;
		if (strcmp(name, names[i]))
			return pk_err_at(c->err, -EINVAL, "tracing data", "", (long)at,
					 "tracing data: '%s' expected at offset %zu", names[i], at);
		if ((rc = get_text(c, 8, names[i], texts[i])) < 0)
			return rc;
	}
	return 0;
}

int pk_trace_data_parse(const void *blob, size_t len, pk_trace_data *td, pk_error *err)
{
	memset(td, 0, sizeof(*td));
	cursor c = {blob, len, 0, false, err};
	size_t cap = 0;
	int rc = get_header(&c, td);
	if (rc == 0)
		rc = get_formats(&c, td, &cap, "ftrace");
	td->nr_ftrace = td->nr_formats;
	uint64_t nsys = 0;
	if (rc == 0)
		rc = get_uint(&c, 4, "the system count", &nsys);
	for (uint64_t i = 0; rc == 0 && i < nsys; i++) {
		const char *sys = NULL;
		rc = get_cstr(&c, "a system name", &sys);
		if (rc == 0)
			rc = get_formats(&c, td, &cap, sys);
	}
	if (rc == 0)
		rc = get_text(&c, 4, "kallsyms", &td->kallsyms);
	if (rc == 0)
		rc = get_text(&c, 4, "the printk formats", &td->printk);
	/* saved cmdlines since version 0.6 */
	if (rc == 0 && strtod(td->version, NULL) >= 0.6 && c.off < c.len)
		rc = get_text(&c, 8, "the saved cmdlines", &td->cmdlines);
	if (rc < 0)
		pk_trace_data_release(td);
	return rc;
}

void pk_trace_data_release(pk_trace_data *td)
{
	free(td->formats);
	memset(td, 0, sizeof(*td));
}

static void put_text(pk_pd_buf *b, size_t szlen, pk_trace_text t)
{
	if (szlen == 4)
		pk_pd_buf_u32(b, (uint32_t)t.len);
	else
		pk_pd_buf_u64(b, t.len);
	pk_pd_buf_bytes(b, t.data, t.len);
}

/* Writes the formats of sys from index `from` on (the first of them), and
 * the system's header unless it is ftrace. */
static void put_system(pk_pd_buf *b, const pk_trace_data *td, size_t from, size_t to)
{
	const char *sys = td->formats[from].sys;
	uint32_t n = 0;
	for (size_t i = from; i < to; i++)
		n += !strcmp(td->formats[i].sys, sys);
	if (from >= td->nr_ftrace)
		pk_pd_buf_bytes(b, sys, strlen(sys) + 1);
	pk_pd_buf_u32(b, n);
	for (size_t i = from; i < to; i++)
		if (!strcmp(td->formats[i].sys, sys))
			put_text(b, 8, td->formats[i].text);
}

/* Whether formats[i]'s system appeared before i (within [from, i)). */
static bool seen_before(const pk_trace_data *td, size_t from, size_t i)
{
	for (size_t k = from; k < i; k++)
		if (!strcmp(td->formats[k].sys, td->formats[i].sys))
			return true;
	return false;
}

int pk_trace_data_write(const pk_trace_data *td, pk_pd_buf *b, pk_error *err)
{
	if (td->kallsyms.len > UINT32_MAX || td->printk.len > UINT32_MAX ||
	    td->nr_formats > UINT32_MAX || td->nr_ftrace > td->nr_formats)
		return pk_err(err, -EINVAL, "tracing data: a part is too large for its size field");
	pk_pd_buf_bytes(b, trace_magic, sizeof(trace_magic));
	const char *version = td->version[0] ? td->version : "0.6";
	pk_pd_buf_bytes(b, version, strlen(version) + 1);
	uint8_t flags[2] = {__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, td->long_size};
	pk_pd_buf_bytes(b, flags, 2);
	pk_pd_buf_u32(b, td->page_size);
	pk_pd_buf_bytes(b, "header_page", 12);
	put_text(b, 8, td->header_page);
	pk_pd_buf_bytes(b, "header_event", 13);
	put_text(b, 8, td->header_event);
	if (td->nr_ftrace)
		put_system(b, td, 0, td->nr_ftrace);
	else
		pk_pd_buf_u32(b, 0);
	uint32_t nsys = 0;
	for (size_t i = td->nr_ftrace; i < td->nr_formats; i++)
		nsys += !seen_before(td, td->nr_ftrace, i);
	pk_pd_buf_u32(b, nsys);
	for (size_t i = td->nr_ftrace; i < td->nr_formats; i++)
		if (!seen_before(td, td->nr_ftrace, i))
			put_system(b, td, i, td->nr_formats);
	put_text(b, 4, td->kallsyms);
	put_text(b, 4, td->printk);
	if (strtod(version, NULL) >= 0.6)
		put_text(b, 8, td->cmdlines);
	return b->oom ? pk_err(err, -ENOMEM, "out of memory") : 0;
}
