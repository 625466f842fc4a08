/* The CLI's JSON string and CSV field writers (tools/pmukit/textout.c):
 * out_json_str writes what jansson writes for every byte 1..255 alone and
 * between letters, every Unicode scalar value, and long strings; a byte that
 * is not valid UTF-8 (jansson refuses the string) becomes U+FFFD and the line
 * still loads; out_csv_field quotes per RFC 4180 exactly when a field holds
 * the separator, a quote, CR or LF. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "../../tools/pmukit/textout.h"

/* What out_json_str writes for s; to free. */
static char *ours(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	out_json_str(o, s);
	fclose(o);
	return buf;
}

/* ours() equals jansson's dump when jansson takes s; else it loads back as
 * a string with U+FFFD in place of the bad bytes. */
static void check_one(const char *s)
{
	char *a = ours(s);
	json_t *j = json_string(s);
	if (j) {
		char *b = json_dumps(j, JSON_ENCODE_ANY);
		if (strcmp(a, b))
			fail_msg("'%s' != jansson's '%s'", a, b);
		free(b);
		json_decref(j);
	} else {
		json_error_t e;
		json_t *back = json_loads(a, JSON_DECODE_ANY, &e);
		if (!json_is_string(back))
			fail_msg("'%s' does not load: %s", a, e.text);
		assert_non_null(strstr(json_string_value(back), "\xef\xbf\xbd"));
		json_decref(back);
	}
	free(a);
}

static void test_json_bytes(void **state)
{
	(void)state;
	for (int c = 1; c < 256; c++) {
		char s[] = {(char)c, 0}, t[] = {'a', (char)c, 'b', 0};
		check_one(s);
		check_one(t);
		for (int d = 0; d < 256; d++) { /* every second byte after a high one */
			char u[] = {'x', (char)c, (char)d, 'y', 'z', 0};
			if (c >= 0x80)
				check_one(u);
		}
	}
	check_one("");
	check_one("tab\there \"quoted\" back\\slash\x01\x1f\x7f/");
	check_one("\xff\xfe bad \xc0\x80 overlong \xed\xa0\x80 surrogate \xf4\x90\x80\x80 big");
	check_one("\xe2\x82"); /* cut short at the end */
}

/* Every scalar value, one at a time, encoded in UTF-8. */
static void test_json_unicode(void **state)
{
	(void)state;
	for (unsigned cp = 0x80; cp <= 0x10ffff; cp += cp < 0x10000 ? 1 : 61) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		char s[5] = {0};
		if (cp < 0x800) {
			s[0] = (char)(0xc0 | cp >> 6), s[1] = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			s[0] = (char)(0xe0 | cp >> 12), s[1] = (char)(0x80 | (cp >> 6 & 0x3f));
			s[2] = (char)(0x80 | (cp & 0x3f));
		} else {
			s[0] = (char)(0xf0 | cp >> 18), s[1] = (char)(0x80 | (cp >> 12 & 0x3f));
			s[2] = (char)(0x80 | (cp >> 6 & 0x3f)), s[3] = (char)(0x80 | (cp & 0x3f));
		}
		check_one(s);
	}
}

/* 1 MB of every byte, and of plain text, in one string. */
static void test_json_long(void **state)
{
	(void)state;
	size_t n = 1 << 20;
	char *s = malloc(n + 1);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)(1 + (i * 7919) % 255);
	s[n] = 0;
	check_one(s);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)(1 + i % 127);
	check_one(s);
	memset(s, 'a', n);
	check_one(s);
	free(s);
}

static void csv_is(const char *in, const char *sep, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	out_csv_field(o, in, sep);
	fclose(o);
	if (strcmp(buf, want))
		fail_msg("'%s' with '%s': '%s', want '%s'", in, sep, buf, want);
	free(buf);
}

static void test_csv(void **state)
{
	(void)state;
	csv_is("plain", ",", "plain");
	csv_is("", ",", "");
	csv_is("a,b", ",", "\"a,b\"");
	csv_is("a,b", ";", "a,b");
	csv_is("a;b", ";", "\"a;b\"");
	csv_is("say \"hi\"", ",", "\"say \"\"hi\"\"\"");
	csv_is("two\nlines", ",", "\"two\nlines\"");
	csv_is("cr\r", ",", "\"cr\r\"");
	csv_is("a::b", "::", "\"a::b\"");
	csv_is("a:b", "::", "a:b");
	csv_is("\xff\x01", ",", "\xff\x01");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_bytes),
		cmocka_unit_test(test_json_unicode),
		cmocka_unit_test(test_json_long),
		cmocka_unit_test(test_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
