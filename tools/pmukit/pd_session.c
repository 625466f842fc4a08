/* pmukit CLI: the read loop shared by `pmukit script` and `pmukit report`. */
#include "pd_session.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"

int pd_session_open(pd_session *s, const char *cmd, const char *input, bool no_order)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	if (!input) {
		struct stat st;
		input = fstat(0, &st) == 0 && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
	}
	s->input = input;
	pk_error err;
	pk_error_clear(&err);
	pk_pd_open_opts o = {.no_order = no_order};
	if (pk_pd_reader_open(input, &o, &s->reader, &err) < 0) {
		pk_cli_print_error(cmd, &err);
		return 1;
	}
	s->machine = pk_machine_new(NULL);
	if (!s->machine) {
		fprintf(stderr, "pmukit %s: out of memory\n", cmd);
		pd_session_close(s);
		return 1;
	}
	return 0;
}

int pd_session_run(pd_session *s, pd_sample_fn fn, void *arg)
{
	pk_error err;
	pk_error_clear(&err);
	pk_pd_event ev;
	int rc;
	while ((rc = pk_pd_next(s->reader, &ev, &err)) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE) {
			if (pk_machine_event(s->machine, &ev) < 0) {
				fprintf(stderr, "pmukit %s: out of memory\n", s->cmd);
				return 1;
			}
			continue;
		}
		pk_pd_sample sample;
		if (!ev.evsel || pk_pd_parse_sample(&ev, &sample, NULL) < 0) {
			s->nr_bad_samples++;
			continue;
		}
		s->nr_samples++;
		int r = fn(arg, s, &ev, &sample);
		if (r)
			return r;
	}
	if (rc < 0) {
		pk_cli_print_error(s->cmd, &err);
		return 1;
	}
	return 0;
}

void pd_session_close(pd_session *s)
{
	pk_machine_free(s->machine);
	pk_pd_reader_close(s->reader);
	s->machine = NULL;
	s->reader = NULL;
}

/* ---- output buffer ---- */

#define OUT_CAP ((size_t)1 << 18)

void pd_out_init(pd_out *o, FILE *f)
{
	o->f = f;
	o->cap = OUT_CAP;
	o->len = 0;
	o->buf = malloc(o->cap);
	if (!o->buf)
		o->cap = 0;
}

void pd_out_flush(pd_out *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
}

void pd_out_free(pd_out *o)
{
	pd_out_flush(o);
	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
}

void pd_out_mem_slow(pd_out *o, const char *s, size_t n)
{
	pd_out_flush(o);
	if (n > o->cap) {
		fwrite(s, 1, n, o->f);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void pd_out_str(pd_out *o, const char *s)
{
	pd_out_mem(o, s, strlen(s));
}

static void pad(pd_out *o, int n)
{
	static const char spaces[] = "                                                                ";
	while (n > 0) {
		int k = n > 64 ? 64 : n;
		pd_out_mem(o, spaces, (size_t)k);
		n -= k;
	}
}

void pd_out_pad_str(pd_out *o, const char *s, int width)
{
	size_t n = strlen(s);
	if ((int)n < width)
		pad(o, width - (int)n);
	pd_out_mem(o, s, n);
}

void pd_out_u64(pd_out *o, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (n < width)
		pad(o, width - n);
	pd_out_mem(o, tmp + sizeof(tmp) - n, (size_t)n);
}

void pd_out_int(pd_out *o, long long v, int width)
{
	char tmp[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[sizeof(tmp) - 1 - n++] = '-';
	if (width > n)
		pad(o, width - n);
	pd_out_mem(o, tmp + sizeof(tmp) - n, (size_t)n);
	if (-width > n)
		pad(o, -width - n);
}

void pd_out_hex(pd_out *o, uint64_t v, int width)
{
	static const char digits[] = "0123456789abcdef";
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
	if (width == 16 && o->len + 16 <= o->cap) {
		/* the common case, straight into the buffer */
		char *d = o->buf + o->len;
		for (int i = 15; i >= 16 - n; i--, v >>= 4)
			d[i] = digits[v & 15];
		memset(d, ' ', (size_t)(16 - n));
		o->len += 16;
		return;
	}
	if (n < width)
		pad(o, width - n);
	char tmp[16];
	for (int i = n - 1; i >= 0; i--, v >>= 4)
		tmp[i] = digits[v & 15];
	pd_out_mem(o, tmp, (size_t)n);
}

void pd_out_printf(pd_out *o, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		pd_out_mem(o, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	pd_out_mem(o, big, (size_t)n);
	free(big);
}
