/* pmukit: tracing data, the tracefs description of tracepoint payloads that
 * perf stores in perf.data (the TRACING_DATA feature in a file, the
 * HEADER_TRACING_DATA record in a pipe), and tracepoint payloads
 * (PERF_SAMPLE_RAW) decoded by it.
 *
 * Layout (all integers in the writer's byte order, given by the flag):
 *   "\x17\x08\x44tracing", version string ("0.6") NUL-terminated,
 *   u8 big_endian, u8 sizeof(long), u32 page size,
 *   "header_page\0" u64 size + text, "header_event\0" u64 size + text,
 *   u32 nr ftrace formats, each u64 size + text,
 *   u32 nr systems, each: name NUL-terminated, u32 nr, each u64 size + text,
 *   u32 size + kallsyms text, u32 size + printk formats text,
 *   (version >= 0.6) u64 size + saved cmdlines text.
 *
 * pk_trace_data is that layout as views into a blob (parse) and the blob
 * made from such views (write): one description of the layout for reader,
 * writer and the fuzz target. pk_trace is the decoder: the formats loaded
 * into libtraceevent, payloads printed as the event's print format (perf
 * script's default, report's "Trace output") or as raw fields
 * (report --raw-trace). Payloads are read from a zero-padded copy, so a
 * short or damaged payload never makes the decoder read past it. */
#ifndef PMUKIT_TRACEDATA_H
#define PMUKIT_TRACEDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/perfdata.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A piece of the blob: len bytes at data (not NUL-terminated). */
typedef struct pk_trace_text {
	const char *data;
	size_t len;
} pk_trace_text;

/* One event format file; sys is "ftrace" for the ftrace formats. */
typedef struct pk_trace_format {
	const char *sys;             /* NUL-terminated (in the blob, or the writer's) */
	pk_trace_text text;
} pk_trace_format;

typedef struct pk_trace_data {
	char version[16];            /* "0.6" */
	bool big_endian;
	uint8_t long_size;           /* sizeof(long) of the traced kernel */
	uint32_t page_size;
	pk_trace_text header_page, header_event;
	pk_trace_format *formats;    /* the ftrace formats first, then by system */
	size_t nr_formats, nr_ftrace;
	pk_trace_text kallsyms, printk, cmdlines;
} pk_trace_data;

/* Reads the layout of len bytes at blob; the views point into blob, which
 * must outlive td. A truncated or malformed blob is an error naming the
 * part and its offset. */
int pk_trace_data_parse(const void *blob, size_t len, pk_trace_data *td, pk_error *err);
/* Appends td's blob to out (in this machine's byte order; td->big_endian
 * is ignored). Formats of one system are written together, systems in the
 * order they first appear. -ENOMEM, or -EINVAL naming what does not fit. */
int pk_trace_data_write(const pk_trace_data *td, pk_pd_buf *out, pk_error *err);
/* Frees the format list (not the blob) and zeroes td. */
void pk_trace_data_release(pk_trace_data *td);

/* ---- the decoder ---- */

typedef struct pk_trace pk_trace;

/* Parses a blob and loads its formats, printk formats and saved cmdlines
 * into libtraceevent (no plugins, no messages). A format libtraceevent
 * cannot parse is kept out with a warning (pk_trace_warning); its samples
 * then have no text. The blob is copied. */
int pk_trace_new(const void *blob, size_t len, pk_trace **out, pk_error *err);
void pk_trace_free(pk_trace *t);
/* Warnings from loading, oldest first; NULL past the end. */
const char *pk_trace_warning(const pk_trace *t, size_t idx);

/* "sys:name" of the format with this id (attr.config), NULL when none. */
const char *pk_trace_event_name(const pk_trace *t, uint64_t id);

/* The number field name of a payload of event id (raw, size bytes) into
 * *val: 0, -ENOENT when the event has no such number field, -ERANGE when
 * the payload is too short for it. */
int pk_trace_field(const pk_trace *t, uint64_t id, const char *name, const void *raw,
		   uint32_t size, uint64_t *val);

/* Names the tracepoint events of r that have no stored name (no
 * EVENT_DESC, no EVENT_UPDATE) "sys:name" from t, as perf names them;
 * returns how many were named. */
size_t pk_trace_name_evsels(const pk_trace *t, pk_pd_reader *r);

/* Kernel function names for addresses the print formats show (%pS, %ps,
 * ksym()): *start is the function's first address. NULL when unknown. */
typedef const char *(*pk_trace_resolver)(void *arg, uint64_t addr, uint64_t *start);
void pk_trace_set_resolver(pk_trace *t, pk_trace_resolver fn, void *arg);

typedef enum pk_trace_mode {
	PK_TRACE_PRETTY,             /* the event's print format */
	PK_TRACE_RAW,                /* " field=value" per field (report --raw-trace) */
} pk_trace_mode;

/* The text of a payload of event id recorded on cpu: *len bytes, valid
 * until the next call on t. NULL when the event has no format. */
const char *pk_trace_print(pk_trace *t, uint64_t id, const void *raw, uint32_t size, int cpu,
			   pk_trace_mode mode, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
