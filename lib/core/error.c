#include <pmukit/error.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void pk_error_clear(pk_error *err)
{
	if (!err)
		return;
	memset(err, 0, sizeof(*err));
	err->pos = -1;
}

int pk_err(pk_error *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int pk_err_at(pk_error *err, int code, const char *subject, const char *where, long pos,
	      const char *fmt, ...)
{
	if (!err)
		return code;
	err->code = code;
	snprintf(err->subject, sizeof(err->subject), "%s", subject ? subject : "");
	snprintf(err->where, sizeof(err->where), "%s", where ? where : "");
	err->pos = pos;
	err->pos_is_offset = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void pk_err_hint(pk_error *err, const char *fmt, ...)
{
	if (!err)
		return;
	size_t used = strlen(err->hint);
	if (used + 2 >= sizeof(err->hint))
		return;
	if (used)
		err->hint[used++] = '\n';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->hint + used, sizeof(err->hint) - used, fmt, ap);
	va_end(ap);
}

/* perf shortens long strings around the error position so the caret stays
 * on screen; we keep the whole string up to 150 columns, then show a window
 * of it with ".." marking the cut. */
#define RENDER_MAX_COLS 150

static void render_add(char *buf, size_t len, int *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void render_add(char *buf, size_t len, int *n, const char *fmt, ...)
{
	size_t used = (size_t)*n;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(used < len ? buf + used : NULL, used < len ? len - used : 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n += w;
}

int pk_error_render(const pk_error *err, char *buf, size_t len)
{
	int n = 0;
	if (len)
		buf[0] = '\0';
	if (!err || !err->code) {
		render_add(buf, len, &n, "no error");
		return n;
	}
	if (err->where[0] && err->pos >= 0 && !err->pos_is_offset) {
		const char *s = err->where;
		long slen = (long)strlen(s), pos = err->pos > slen ? slen : err->pos;
		long start = 0;
		const char *lead = "";
		if (slen > RENDER_MAX_COLS && pos > RENDER_MAX_COLS / 2) {
			start = pos - RENDER_MAX_COLS / 2;
			lead = "..";
		}
		const char *subject = err->subject[0] ? err->subject : "error";
		int hl = (int)(strlen(subject) + 3 + strlen(lead));
		render_add(buf, len, &n, "%s: '%s%.*s'\n", subject, lead, RENDER_MAX_COLS, s + start);
		render_add(buf, len, &n, "%*s\\___ %s\n", (int)(hl + (pos - start)), "", err->msg);
	} else if (err->where[0] && err->pos >= 0) {
		render_add(buf, len, &n, "%s%s%s: offset %ld (0x%lx): %s\n", err->subject,
			   err->subject[0] ? " " : "", err->where, err->pos, err->pos, err->msg);
	} else if (err->where[0]) {
		render_add(buf, len, &n, "%s%s%s: %s\n", err->subject, err->subject[0] ? " " : "",
			   err->where, err->msg);
	} else {
		render_add(buf, len, &n, "%s\n", err->msg);
	}
	if (err->hint[0])
		render_add(buf, len, &n, "%s\n", err->hint);
	return n;
}
