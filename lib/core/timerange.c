/* libpmukit: perf's --time windows (pmukit/timerange.h): the two forms
 * parsed into [start, end] windows in ns, and the test of a sample's time.
 * Invariants: a window's open side is 0; windows in seconds are in order
 * (none backwards, each closed one ending before the next starts); percent
 * windows lie inside the file's span (one backwards keeps nothing); a text
 * of neither form (or of mixed percent kinds, a slice past 100%, seconds
 * out of order) is refused whole, as perf refuses it ("Invalid time
 * string"). */
#include <pmukit/timerange.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool pk_time_is_percent(const char *arg)
{
	return strchr(arg, '%') != NULL;
}

/* "secs[.frac]" (len bytes of s) into ns; empty: 0 (no bound). */
static int parse_secs(const char *s, size_t len, uint64_t *ns)
{
	*ns = 0;
	if (!len)
		return 0;
	uint64_t secs = 0, frac = 0, scale = 100000000;
	size_t i = 0;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (secs > UINT64_MAX / 10000000000ULL)
			return -EINVAL;
		secs = secs * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i && (len == 1 || s[0] != '.'))
		return -EINVAL;
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
			frac += (uint64_t)(s[i] - '0') * scale;
	if (i != len)
		return -EINVAL;
	*ns = secs * 1000000000ULL + frac;
	return 0;
}

/* One "start,end" (len bytes of s). */
static int parse_window(const char *s, size_t len, pk_time_window *w)
{
	const char *comma = memchr(s, ',', len);
	if (!comma || memchr(comma + 1, ',', len - (size_t)(comma + 1 - s)))
		return -EINVAL;
	size_t a = (size_t)(comma - s);
	if (parse_secs(s, a, &w->start) || parse_secs(comma + 1, len - a - 1, &w->end))
		return -EINVAL;
	return 0;
}

/* A percentage "12.5%" at *s, as a fraction; *s moved past the '%'. */
static int parse_pct(const char **s, double *p)
{
	char *end;
	errno = 0;
	*p = strtod(*s, &end);
	if (end == *s || *end != '%' || errno || *p < 0 || *p > 100)
		return -EINVAL;
	*s = end + 1;
	*p /= 100;
	return 0;
}

/* One percent item into the fractions [*a, *b] of the span; *kind: 's'
 * for "p%/n", 'r' for "a%-b%" or "p%". */
static int parse_pct_item(const char *s, double *a, double *b, char *kind)
{
	double p;
	if (parse_pct(&s, &p))
		return -EINVAL;
	if (*s == '/') {
		char *end;
		long n = strtol(s + 1, &end, 10);
		if (end == s + 1 || *end || n < 1 || p * (double)n > 1.0 + 1e-9)
			return -EINVAL;
		*a = p * (double)(n - 1), *b = p * (double)n, *kind = 's';
		return 0;
	}
	*a = 0, *b = p, *kind = 'r';
	if (!*s)
		return 0;
	if (*s != '-' || (++s, parse_pct(&s, b)) || *s)
		return -EINVAL;
	*a = p;
	return 0;
}

/* perf's rules for windows in seconds: none backwards, each after the
 * one before (closed, and starting past its end). */
static bool follows(const pk_time_window *w, size_t n, pk_time_window next)
{
	if (next.start && next.end && next.start > next.end)
		return false;
	return !n || (w[n - 1].end && next.start > w[n - 1].end);
}

static int add(pk_time_window **out, size_t *n, pk_time_window w)
{
	pk_time_window *g = realloc(*out, (*n + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	g[(*n)++] = w;
	*out = g;
	return 0;
}

static int parse_percent(const char *arg, uint64_t first, uint64_t last, pk_time_window **out,
			 size_t *n)
{
	char *copy = strdup(arg), *save = NULL, kind0 = 0;
	if (!copy)
		return -ENOMEM;
	double span = (double)(last - first);
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		double a, b;
		char kind;
		rc = parse_pct_item(t, &a, &b, &kind);
		if (!rc && kind0 && kind != kind0)
			rc = -EINVAL; /* perf: one kind in a list */
		kind0 = kind;
		/* an empty window (b before a) keeps nothing, as perf's */
		pk_time_window w = {first + (uint64_t)(a * span), first + (uint64_t)(b * span)};
		if (!rc && w.end < w.start)
			w = (pk_time_window){UINT64_MAX, 1}; /* never inside */
		if (!rc)
			rc = add(out, n, w);
	}
	free(copy);
	return rc;
}

int pk_time_windows_parse(const char *arg, bool has_span, uint64_t first, uint64_t last,
			  pk_time_window **out, size_t *n, pk_error *err)
{
	*out = NULL;
	*n = 0;
	int rc = 0;
	if (pk_time_is_percent(arg)) {
		if (!has_span)
			return pk_err_at(err, -ENODATA, "--time", arg, -1,
					 "the file has no first/last sample time (SAMPLE_TIME)");
		rc = parse_percent(arg, first, last, out, n);
	} else {
		for (const char *s = arg; *s && !rc;) {
			size_t len = strcspn(s, " ");
			pk_time_window w;
			if (len)
				rc = parse_window(s, len, &w) || !follows(*out, *n, w) ? -EINVAL
											  : add(out, n, w);
			s += len + (s[len] == ' ');
		}
		if (!rc && !*n)
			rc = -EINVAL;
	}
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	if (rc == -EINVAL)
		return pk_err_at(err, rc, "--time", arg, -1, "Invalid time string");
	return rc == -ENOMEM ? pk_err(err, rc, "--time: out of memory") : rc;
}

bool pk_time_windows_skip(const pk_time_window *w, size_t n, uint64_t t)
{
	for (size_t i = 0; i < n; i++)
		if ((!w[i].start || t >= w[i].start) && (!w[i].end || t <= w[i].end))
			return false;
	return n > 0;
}
