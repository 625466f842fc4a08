/* JSON strings and CSV fields for the CLI's machine-readable outputs; the
 * rules are in textout.h. */
#include "textout.h"

#include <stdbool.h>
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

/* The escape of an ASCII byte jansson escapes, NULL for one it does not. */
static const char *json_escape(unsigned char c, char buf[8])
{
	switch (c) {
	case '"': return "\\\"";
	case '\\': return "\\\\";
	case '\b': return "\\b";
	case '\f': return "\\f";
	case '\n': return "\\n";
	case '\r': return "\\r";
	case '\t': return "\\t";
	default: break;
	}
	if (c >= 0x20)
		return NULL;
	snprintf(buf, 8, "\\u%04X", c);
	return buf;
}

void out_json_str(FILE *o, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *run = s;
	char buf[8];
	fputc('"', o);
	for (;;) {
		while (*s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\')
			s++;
		if (!*s)
			break;
		size_t n = *s >= 0x80 ? utf8_len(s) : 0;
		if (n) {
			s += n;
			continue;
		}
		fwrite(run, 1, (size_t)(s - run), o);
		fputs(*s >= 0x80 ? "\\uFFFD" : json_escape(*s, buf), o);
		run = ++s;
	}
	fwrite(run, 1, (size_t)(s - run), o);
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
