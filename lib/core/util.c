/* Small shared helpers; see util.h. One implementation each: growable
 * arrays (pki_grow), byte buffers (pki_buf_reserve), warning lists. */
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pki_read_file(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 256, n = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (n + 1 >= cap) {
			/* sysfs attributes are at most a page; anything far larger is not one */
			if (cap >= (1u << 24)) {
				free(buf);
				close(fd);
				return -EFBIG;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			free(buf);
			close(fd);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int pki_mkdir_p(const char *dir, unsigned mode)
{
	char *d = strdup(dir);
	if (!d)
		return -ENOMEM;
	int rc = 0;
	for (char *p = d + 1; rc == 0; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(d, (mode_t)mode) < 0 && errno != EEXIST)
			rc = -errno;
		*p = c;
		if (!c)
			break;
	}
	struct stat st;
	if (rc == 0 && stat(d, &st) < 0)
		rc = -errno;
	else if (rc == 0 && !S_ISDIR(st.st_mode))
		rc = -ENOTDIR;
	free(d);
	return rc;
}

char *pki_rstrip(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

const char *pki_lskip(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

int pki_parse_u64(const char *s, uint64_t *out, const char **end)
{
	const char *p = s;
	int base = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!isxdigit((unsigned char)*p) || (base == 10 && !isdigit((unsigned char)*p))) {
		if (end)
			*end = s;
		return -EINVAL;
	}
	uint64_t v = 0;
	bool overflow = false;
	for (;; p++) {
		int d;
		unsigned char c = (unsigned char)*p;
		if (isdigit(c))
			d = c - '0';
		else if (base == 16 && isxdigit(c))
			d = tolower(c) - 'a' + 10;
		else
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			overflow = true;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (end)
		*end = p;
	else if (*p)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	*out = v;
	return 0;
}

int pk_grow(void *pptr, size_t *cap, size_t want, size_t elem)
{
	void **pp = pptr;
	if (want <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < want) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	void *n = realloc(*pp, ncap * elem);
	if (!n)
		return -ENOMEM;
	*pp = n;
	*cap = ncap;
	return 0;
}

bool pki_buf_reserve(void *pdata, size_t *cap, size_t len, size_t extra, bool *oom)
{
	if (*oom)
		return false;
	if (len + extra <= *cap)
		return true;
	if (pki_grow(pdata, cap, len + extra, 1) < 0) {
		*oom = true;
		return false;
	}
	return true;
}

static bool sb_reserve(pk_strbuf *sb, size_t extra)
{
	return pki_buf_reserve(&sb->buf, &sb->cap, sb->len, extra + 1, &sb->oom);
}

void pki_sb_addn(pk_strbuf *sb, const char *s, size_t n)
{
	if (!sb_reserve(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void pki_sb_addf(pk_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sb_reserve(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

char *pki_sb_steal(pk_strbuf *sb)
{
	if (sb->oom) {
		pki_sb_free(sb);
		return NULL;
	}
	if (!sb->buf && !sb_reserve(sb, 0))
		return NULL;
	char *r = sb->buf;
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return r;
}

void pki_sb_free(pk_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	sb->oom = false;
}

void pki_warnings_vadd(pki_warnings *w, const char *fmt, va_list ap)
{
	char buf[PKI_WARNING_MAX_LEN];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (w->unique)
		for (size_t i = 0; i < w->nr; i++)
			if (!strcmp(w->v[i], buf))
				return;
	char *s = NULL;
	if ((w->max && w->nr >= w->max) || pki_grow(&w->v, &w->cap, w->nr + 1, sizeof(char *)) < 0 ||
	    !(s = strdup(buf))) {
		w->dropped++;
		return;
	}
	w->v[w->nr++] = s;
}

void pki_warnings_add(pki_warnings *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pki_warnings_vadd(w, fmt, ap);
	va_end(ap);
}

const char *pki_warnings_at(const pki_warnings *w, size_t idx)
{
	return idx < w->nr ? w->v[idx] : NULL;
}

void pki_warnings_free(pki_warnings *w)
{
	for (size_t i = 0; i < w->nr; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->nr = w->cap = w->dropped = 0;
}

bool pki_name_matches(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, name, n - 1);
	return !strcmp(pattern, name);
}

unsigned pki_edit_distance(const char *a, const char *b)
{
	enum { W = 64 };
	size_t n = strnlen(a, W - 1), m = strnlen(b, W - 1);
	unsigned d[W][W];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			unsigned cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			unsigned v = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m];
}

bool pk_similar(const char *word, const char *candidate)
{
	size_t len = strlen(word);
	unsigned limit = 1 + (unsigned)(len / 4);
	if (limit > 3)
		limit = 3;
	return len > 1 && pki_edit_distance(word, candidate) <= limit;
}
