/* JSON strings and CSV fields for the CLI's machine-readable outputs; the
 * rules are in textout.h. JSON escaping is jansson's own (json_dumps); this
 * file only splits off the bytes jansson refuses and skips jansson for a
 * string with nothing to escape. */
#include "textout.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (1-4), 0 when it is not one:
 * no overlong forms, no surrogates, nothing above U+10FFFF (jansson's rule). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Valid UTF-8 at s up to the first byte that is not (or the end). */
static size_t valid_len(const unsigned char *s)
{
	const unsigned char *p = s;
	for (;;) {
		while (*p && *p < 0x80)
			p++;
		size_t n = *p ? utf8_len(p) : 0;
		if (!n)
			return (size_t)(p - s);
		p += n;
	}
}

/* len bytes of valid UTF-8 escaped by jansson (its string dump without the
 * quotes): the one escaping rule of every JSON the CLI writes. */
static void jansson_escaped(FILE *o, const char *s, size_t len)
{
	json_t *j = json_stringn_nocheck(s, len);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	size_t n = text ? strlen(text) : 0;
	if (n >= 2)
		fwrite(text + 1, 1, n - 2, o);
	else /* out of memory: the line stays JSON, the text is lost */
		fputs("\\uFFFD", o);
	free(text);
	json_decref(j);
}

/* The string from its first byte that needs jansson, quotes around. */
__attribute__((noinline, cold)) static void escaped_tail(FILE *o, const unsigned char *s)
{
	while (*s) {
		size_t n = valid_len(s);
		if (n)
			jansson_escaped(o, (const char *)s, n);
		s += n;
		if (*s) { /* a byte jansson would refuse the whole string for */
			fputs("\\uFFFD", o);
			s++;
		}
	}
	fputc('"', o);
}

/* The bytes JSON takes as they are: printable ASCII and DEL but '"' and
 * '\\' (jansson's rule); one table load per byte on the hot path. */
static const unsigned char plain[256] = {
	[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7f] = 1, /* '"' 0x22, '\\' 0x5c */
};

void out_json_str(FILE *o, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *p = s;
	fputc('"', o);
	while (plain[*p])
		p++;
	fwrite(s, 1, (size_t)(p - s), o); /* nothing to escape: the hot path */
	if (*p)
		escaped_tail(o, p);
	else
		fputc('"', o);
}

void out_csv_field(FILE *o, const char *s, const char *sep)
{
	bool quote = strpbrk(s, "\"\r\n") || (*sep && strstr(s, sep));
	if (!quote) {
		fputs(s, o);
		return;
	}
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', o);
		fputc(*s, o);
	}
	fputc('"', o);
}

void out_csv_next(FILE *o, const char *s, const char *sep)
{
	fputs(sep, o);
	out_csv_field(o, s, sep);
}
