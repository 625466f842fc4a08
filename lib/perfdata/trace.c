/* The tracepoint payload decoder: a tracing data blob loaded into
 * libtraceevent (formats, header page, printk formats, kallsyms, saved
 * cmdlines; no plugins, as perf 6.1 prints), payloads printed through it.
 *
 * Invariants: libtraceevent reads fields at the offsets the formats give
 * and dynamic arrays at offsets the payload gives (u16 offset + u16 length,
 * absolute or relative), without checking them against the payload size.
 * So a payload is copied into a scratch buffer whose bytes past it are
 * zero up to the farthest any format field or dynamic array can reach
 * (PAD_REACH past the payload and the widest fixed layout); reads of a
 * damaged payload see zeros, never memory beyond. The library's log level
 * is set to none: it never prints. */
#include <pmukit/tracedata.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "core/util.h"
#include "perfdata/pd_internal.h"

/* A dynamic array's u32 descriptor: offset and length of up to 64 KiB each,
 * relative ones (__rel_loc) from the end of the field, itself inside the
 * payload. 4 more bytes for the field. */
#define PAD_REACH ((size_t)3 * 65536 + 64)
/* A payload lies in one record (u16 size). */
#define MAX_PAYLOAD ((size_t)65536)

typedef struct tevent {
	uint64_t id;
	char *name;                  /* "sys:name" */
	bool cacheable;              /* its text is a function of the payload alone */
} tevent;

/* Texts of recent payloads (PK_TRACE_PRETTY), direct mapped by a hash of
 * the event and the payload's bytes. A payload's text depends on nothing
 * else when its print format names no kernel address (%p: resolved through
 * the symbols, which may still grow); so a hit, checked byte for byte, is
 * the text libtraceevent would print again (most payloads repeat: the same
 * tasks switch, the same buffer is read), and costs a hash and a compare
 * instead of libtraceevent's format walk (~10x the rest of a script line). */
#define CACHE_SLOTS 4096
#define CACHE_KEY 96
#define CACHE_TEXT 224
typedef struct text_slot {
	uint64_t id;
	uint32_t size;               /* payload bytes; 0: empty */
	uint32_t len;                /* text bytes */
	uint8_t key[CACHE_KEY];
	char text[CACHE_TEXT];
} text_slot;

struct pk_trace {
	struct tep_handle *tep;
	char *blob;                  /* the copy the texts point into */
	tevent *events;              /* sorted by id */
	size_t nr_events;
	size_t last;                 /* index of the last lookup */
	uint8_t *scratch;            /* payload copy + zeros */
	size_t scratch_len;          /* MAX_PAYLOAD + fixed reach + PAD_REACH */
	size_t dirty;                /* bytes of scratch that may be non-zero */
	size_t fixed_end;            /* the farthest end of any fixed field */
	struct trace_seq seq;
	pki_warnings warnings;
	pk_trace_resolver resolve;
	void *resolve_arg;
	text_slot *cache;            /* CACHE_SLOTS, allocated on first use */
};

static char *dup_text(pk_trace_text t)
{
	char *s = malloc(t.len + 1);
	if (s) {
		memcpy(s, t.data, t.len);
		s[t.len] = '\0';
	}
	return s;
}

/* Line checks for the three text parts, in the kernel's own forms. Only
 * such lines reach libtraceevent's text parsers, which trust their input
 * (a printk line ending at its colon made tep_parse_printk_formats read
 * past its buffer: found by fuzz/trace_fuzz.c). */
static const char *hex_addr(const char *p, const char *end)
{
	if (end - p < 3 || p[0] != '0' || p[1] != 'x' || !isxdigit((unsigned char)p[2]))
		return NULL;
	for (p += 2; p < end && isxdigit((unsigned char)*p); p++)
		;
	return p;
}

/* printk_formats: 0x<hex> : "<at least 2 bytes>" */
static bool printk_line(const char *p, const char *end)
{
	p = hex_addr(p, end);
	return p && end - p >= 7 && !memcmp(p, " : \"", 4) && end[-1] == '"';
}

/* kallsyms: <hex> <type> <name>[\t[module]] */
static bool kallsyms_line(const char *p, const char *end)
{
	const char *q = p;
	while (q < end && isxdigit((unsigned char)*q))
		q++;
	return q > p && end - q >= 4 && q[0] == ' ' && isalpha((unsigned char)q[1]) && q[2] == ' ' &&
	       !isspace((unsigned char)q[3]);
}

/* saved_cmdlines: <pid> <comm> */
static bool cmdline_line(const char *p, const char *end)
{
	const char *q = p;
	while (q < end && isdigit((unsigned char)*q))
		q++;
	return q > p && q - p < 10 && end - q >= 2 && q[0] == ' ' && !isspace((unsigned char)q[1]);
}

/* Hands parse the lines of t that pass ok (NUL-terminated, one per line);
 * says how many were left out. -ENOMEM or 0. */
static int parse_lines(pk_trace *t, pk_trace_text text, const char *what,
		       bool (*ok)(const char *, const char *),
		       int (*parse)(struct tep_handle *, const char *))
{
	if (!text.len)
		return 0;
	char *s = malloc(text.len + 2), *o = s;
	if (!s)
		return -ENOMEM;
	size_t bad = 0;
	for (const char *p = text.data, *end = p + text.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		if (le > p && memchr(p, '\0', (size_t)(le - p)) == NULL && ok(p, le)) {
			memcpy(o, p, (size_t)(le - p));
			o += le - p;
			*o++ = '\n';
		} else if (le > p) {
			bad++;
		}
		p = le + 1;
	}
	*o = '\0';
	if (o > s)
		parse(t->tep, s);
	free(s);
	if (bad)
		pki_warnings_add(&t->warnings, "tracing data: %zu malformed %s lines skipped", bad, what);
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const tevent *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void field_reach(const struct tep_format_field *f, size_t *end)
{
	for (; f; f = f->next) {
		size_t e = (size_t)(f->offset > 0 ? f->offset : 0) + (size_t)(f->size > 0 ? f->size : 0);
		if (e > *end)
			*end = e;
	}
}

/* The events libtraceevent made, by id, and the widest fixed layout. */
static int index_events(pk_trace *t)
{
	int n = tep_get_events_count(t->tep);
	t->events = calloc(n > 0 ? (size_t)n : 1, sizeof(*t->events));
	if (!t->events)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(t->tep, i);
		if (!ev || ev->id < 0)
			continue;
		tevent *te = &t->events[t->nr_events];
		if (asprintf(&te->name, "%s:%s", ev->system ? ev->system : "?",
			     ev->name ? ev->name : "?") < 0)
			return -ENOMEM;
		te->id = (uint64_t)ev->id;
		te->cacheable = ev->print_fmt.format && !strstr(ev->print_fmt.format, "%p");
		t->nr_events++;
		field_reach(ev->format.common_fields, &t->fixed_end);
		field_reach(ev->format.fields, &t->fixed_end);
	}
	qsort(t->events, t->nr_events, sizeof(*t->events), cmp_id);
	return 0;
}

static int load_formats(pk_trace *t, const pk_trace_data *td)
{
	for (size_t i = 0; i < td->nr_formats; i++) {
		const pk_trace_format *f = &td->formats[i];
		const char *why = pki_trace_format_check(f->text.data, f->text.len);
		enum tep_errno rc = why ? TEP_ERRNO__READ_FORMAT_FAILED
					: tep_parse_event(t->tep, f->text.data, f->text.len, f->sys);
		if (rc == TEP_ERRNO__MEM_ALLOC_FAILED)
			return -ENOMEM;
		if (rc != 0) {
			char msg[128];
			if (why)
				snprintf(msg, sizeof(msg), "%s", why);
			else
				tep_strerror(t->tep, rc, msg, sizeof(msg));
			const char *nl = memchr(f->text.data, '\n', f->text.len);
			int nlen = nl ? (int)(nl - f->text.data) : (int)(f->text.len < 60 ? f->text.len : 60);
			pki_warnings_add(&t->warnings, "tracing data: format %zu of '%s' (%.*s): %s", i,
					 f->sys, nlen, f->text.data, msg);
		}
	}
	return 0;
}

static int load(pk_trace *t, const pk_trace_data *td, pk_error *err)
{
	struct tep_handle *tep = t->tep;
	bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	tep_set_file_bigendian(tep, td->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, host_be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (td->long_size != 4 && td->long_size != 8)
		return pk_err(err, -EINVAL, "tracing data: long size %u (4 or 8 expected)",
			      td->long_size);
	tep_set_long_size(tep, td->long_size);
	tep_set_page_size(tep, (int)(td->page_size & 0x7fffffff));
	if (td->header_page.len) {
		char *hp = dup_text(td->header_page);
		if (!hp)
			return pk_err(err, -ENOMEM, "out of memory");
		if (tep_parse_header_page(tep, hp, td->header_page.len, td->long_size) < 0)
			pki_warnings_add(&t->warnings, "tracing data: header_page not understood");
		free(hp);
	}
	int rc = load_formats(t, td);
	if (rc == 0)
		rc = parse_lines(t, td->printk, "printk_formats", printk_line, tep_parse_printk_formats);
	if (rc == 0)
		rc = parse_lines(t, td->kallsyms, "kallsyms", kallsyms_line, tep_parse_kallsyms);
	if (rc == 0)
		rc = parse_lines(t, td->cmdlines, "saved_cmdlines", cmdline_line,
				 tep_parse_saved_cmdlines);
	if (rc == 0)
		rc = index_events(t);
	return rc < 0 ? pk_err(err, rc, "out of memory") : 0;
}

int pk_trace_new(const void *blob, size_t len, pk_trace **out, pk_error *err)
{
	*out = NULL;
	tep_set_loglevel(TEP_LOG_NONE);
	pk_trace *t = calloc(1, sizeof(*t));
	if (!t || !(t->blob = malloc(len ? len : 1)) || !(t->tep = tep_alloc())) {
		pk_trace_free(t);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	memcpy(t->blob, blob, len);
	trace_seq_init(&t->seq);
	pk_trace_data td;
	int rc = pk_trace_data_parse(t->blob, len, &td, err);
	if (rc == 0) {
		rc = load(t, &td, err);
		pk_trace_data_release(&td);
	}
	if (rc == 0) {
		t->scratch_len = MAX_PAYLOAD + t->fixed_end + PAD_REACH;
		t->scratch = calloc(1, t->scratch_len);
		if (!t->scratch)
			rc = pk_err(err, -ENOMEM, "out of memory");
	}
	if (rc < 0) {
		pk_trace_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void pk_trace_free(pk_trace *t)
{
	if (!t)
		return;
	if (t->tep)
		tep_free(t->tep);
	if (t->seq.buffer)
		trace_seq_destroy(&t->seq);
	for (size_t i = 0; i < t->nr_events; i++)
		free(t->events[i].name);
	free(t->events);
	free(t->scratch);
	free(t->cache);
	free(t->blob);
	pki_warnings_free(&t->warnings);
	free(t);
}

const char *pk_trace_warning(const pk_trace *t, size_t idx)
{
	return pki_warnings_at(&t->warnings, idx);
}

static const tevent *find(const pk_trace *t, uint64_t id)
{
	size_t lo = 0, hi = t->nr_events;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->events[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nr_events && t->events[lo].id == id ? &t->events[lo] : NULL;
}

const char *pk_trace_event_name(const pk_trace *t, uint64_t id)
{
	const tevent *e = find(t, id);
	return e ? e->name : NULL;
}

int pk_trace_field(const pk_trace *t, uint64_t id, const char *name, const void *raw,
		   uint32_t size, uint64_t *val)
{
	struct tep_event *ev = find(t, id) ? tep_find_event(t->tep, (int)id) : NULL;
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;
	if (!f || f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING) || f->size < 1 ||
	    f->size > 8)
		return -ENOENT;
	if (!raw || (uint64_t)f->offset + (uint64_t)f->size > size)
		return -ERANGE;
	*val = tep_read_number(t->tep, (const uint8_t *)raw + f->offset, f->size);
	return 0;
}

size_t pk_trace_name_evsels(const pk_trace *t, pk_pd_reader *r)
{
	size_t named = 0;
	for (size_t i = 0; i < r->nr_evsels; i++) {
		pk_pd_evsel *e = r->evsels[i];
		const char *name = e->attr.type == PERF_TYPE_TRACEPOINT && !e->name
					   ? pk_trace_event_name(t, e->attr.config)
					   : NULL;
		if (name) {
			snprintf(e->attr_name, sizeof(e->attr_name), "%s", name);
			named++;
		}
	}
	return named;
}

static char *resolve_fn(void *priv, unsigned long long *addrp, char **modp)
{
	pk_trace *t = priv;
	uint64_t start = *addrp;
	const char *name = t->resolve(t->resolve_arg, *addrp, &start);
	if (modp)
		*modp = NULL;
	if (name)
		*addrp = start;
	return (char *)(uintptr_t)name; /* libtraceevent neither writes nor frees it */
}

void pk_trace_set_resolver(pk_trace *t, pk_trace_resolver fn, void *arg)
{
	t->resolve = fn;
	t->resolve_arg = arg;
	if (fn)
		tep_set_function_resolver(t->tep, resolve_fn, t);
	else
		tep_reset_function_resolver(t->tep);
}

/* An array field as a string: every byte before the first NUL (within
 * len) printable or white space. */
static bool printable(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len && p[i]; i++)
		if (!isprint(p[i]) && !isspace(p[i]))
			return false;
	return true;
}

/* An array field: its text when it is a printable string, else its bytes
 * as "ARRAY[0a, 0b]" (and from then on the field is no string: perf 6.1's
 * libtraceevent drops the mark on the field). */
static void raw_array(pk_trace *t, struct tep_format_field *f, const uint8_t *data)
{
	size_t off = (size_t)f->offset, len = (size_t)f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint64_t v = tep_read_number(t->tep, data + off, f->size);
		size_t where = off + (size_t)f->size;
		off = (size_t)(v & 0xffff);
		len = (size_t)(v >> 16 & 0xffff);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += where;
	}
	const uint8_t *p = data + off;
	if ((f->flags & TEP_FIELD_IS_STRING) && printable(p, len)) {
		/* to the NUL, as %s does; the scratch's zeros end it */
		trace_seq_puts(&t->seq, (const char *)p);
		return;
	}
	trace_seq_puts(&t->seq, "ARRAY[");
	for (size_t i = 0; i < len; i++)
		trace_seq_printf(&t->seq, i ? ", %02x" : "%02x", p[i]);
	trace_seq_putc(&t->seq, ']');
	f->flags &= ~(unsigned long)TEP_FIELD_IS_STRING;
}

/* A number: pointers and unsigned longs in hex, signed ints as C types of
 * their size (a signed 4-byte long in hex), others decimal. */
static void raw_number(pk_trace *t, const struct tep_format_field *f, const uint8_t *data)
{
	unsigned long long v = tep_read_number(t->tep, data + f->offset, f->size);
	struct trace_seq *q = &t->seq;
	if (f->flags & TEP_FIELD_IS_POINTER)
		trace_seq_printf(q, "0x%llx", v);
	else if (!(f->flags & TEP_FIELD_IS_SIGNED))
		trace_seq_printf(q, (f->flags & TEP_FIELD_IS_LONG) ? "0x%llx" : "%llu", v);
	else if (f->size == 4)
		trace_seq_printf(q, (f->flags & TEP_FIELD_IS_LONG) ? "0x%x" : "%d", (int)v);
	else if (f->size == 2)
		trace_seq_printf(q, "%2d", (short)v);
	else if (f->size == 1)
		trace_seq_printf(q, "%1d", (char)v);
	else
		trace_seq_printf(q, "%lld", (long long)v);
}

/* " name=value" for every field (not the common ones), the way perf 6.1
 * prints report --raw-trace (newer libtraceevent prints some fields by
 * their print format's conversion instead, e.g. target_cpu=000). */
static void print_raw(pk_trace *t, struct tep_event *ev, const uint8_t *data)
{
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		trace_seq_printf(&t->seq, " %s=", f->name);
		if (f->flags & TEP_FIELD_IS_ARRAY)
			raw_array(t, f, data);
		else
			raw_number(t, f, data);
	}
}

/* The slot a payload's text is kept in (FNV-1a of id and bytes). */
static text_slot *cache_slot(pk_trace *t, uint64_t id, const uint8_t *raw, uint32_t size)
{
	if (!t->cache && !(t->cache = calloc(CACHE_SLOTS, sizeof(*t->cache))))
		return NULL;
	uint64_t h = 1469598103934665603ULL ^ id;
	for (uint32_t i = 0; i < size; i++)
		h = (h ^ raw[i]) * 1099511628211ULL;
	return &t->cache[(h ^ h >> 29) % CACHE_SLOTS];
}

/* libtraceevent's text of the payload, from the zero-padded copy. */
static const char *format(pk_trace *t, struct tep_event *ev, const void *raw, uint32_t size,
			  int cpu, pk_trace_mode mode, size_t *len)
{
	memcpy(t->scratch, raw, size);
	if (t->dirty > size)
		memset(t->scratch + size, 0, t->dirty - size);
	t->dirty = size;
	struct tep_record rec = {.cpu = cpu, .data = t->scratch, .size = (int)size};
	trace_seq_reset(&t->seq);
	if (mode == PK_TRACE_RAW)
		print_raw(t, ev, t->scratch);
	else
		tep_print_event(t->tep, &t->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&t->seq);
	if (t->seq.state != TRACE_SEQ__GOOD)
		return NULL;
	*len = t->seq.len;
	return t->seq.buffer;
}

const char *pk_trace_print(pk_trace *t, uint64_t id, const void *raw, uint32_t size, int cpu,
			   pk_trace_mode mode, size_t *len)
{
	const tevent *e = t->nr_events && t->events[t->last].id == id ? &t->events[t->last]
								       : find(t, id);
	if (!e)
		return NULL;
	t->last = (size_t)(e - t->events);
	struct tep_event *ev = tep_find_event(t->tep, (int)id);
	if (!ev || size > MAX_PAYLOAD)
		return NULL;
	text_slot *c = mode == PK_TRACE_PRETTY && e->cacheable && size && size <= CACHE_KEY
			       ? cache_slot(t, id, raw, size)
			       : NULL;
	if (c && c->size == size && c->id == id && !memcmp(c->key, raw, size)) {
		*len = c->len;
		return c->text;
	}
	const char *text = format(t, ev, raw, size, cpu, mode, len);
	if (c && text && *len < CACHE_TEXT) {
		c->id = id;
		c->size = size;
		c->len = (uint32_t)*len;
		memcpy(c->key, raw, size);
		memcpy(c->text, text, *len + 1);
	}
	return text;
}
