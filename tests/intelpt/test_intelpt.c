/* Intel PT packet decoder (lib/intelpt) against perf 6.1's `report -D`
 * text: every line of perf_lines.inc is rebuilt from the bytes in its own
 * hex column, decoded as one buffer, and must come out byte for byte; the
 * AUXTRACE_INFO fields against perf's dump of quipper/perf.data.intel_pt-4.14. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pmukit/intelpt.h>

#include "perf_lines.inc"

/* The bytes of lines[0..n): the hex column (16 three-character cells). */
static size_t bytes_of(const char *const *lines, size_t n, uint8_t *buf, size_t size)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		const char *p = lines[i] + 13;
		for (unsigned c = 0; c < 16 && p[3 * c + 1] != ' '; c++) {
			assert_true(len < size);
			buf[len++] = (uint8_t)strtoul((char[]){p[3 * c + 1], p[3 * c + 2], 0}, NULL, 16);
		}
	}
	return len;
}

static void check_lines(const char *const *lines, size_t n)
{
	uint8_t buf[4096];
	size_t len = bytes_of(lines, n, buf, sizeof buf), pos = 0;
	pk_ipt_ctx ctx = PK_IPT_NO_CTX;
	char line[PK_IPT_LINE_MAX];
	for (size_t i = 0; i < n; i++) {
		size_t got = pk_ipt_dump_line(buf, len, pos, &ctx, line, sizeof line);
		assert_true(got > 0);
		assert_string_equal(line, lines[i]);
		pos += got;
	}
	assert_int_equal(pos, len);
	assert_int_equal(pk_ipt_dump_line(buf, len, pos, &ctx, line, sizeof line), 0);
}

#define CHECK(a) check_lines(a, sizeof(a) / sizeof(a[0]))

static void test_every_packet_kind(void **state)
{
	(void)state;
	CHECK(crafted);
}

static void test_cut_by_the_end(void **state)
{
	(void)state;
	CHECK(cut_tail);
}

static void test_corpus_trace(void **state)
{
	(void)state;
	CHECK(corpus);
}

/* BIP exists only in a block: the same byte is a TNT outside one. */
static void test_block_context(void **state)
{
	(void)state;
	const uint8_t in[] = {0x02, 0x63, 0x80, 0x14, 1, 2, 3, 4, 0x02, 0x33, 0x14};
	pk_ipt_ctx ctx = PK_IPT_NO_CTX;
	pk_ipt_packet p;
	size_t pos = 0;
	pos += pk_ipt_decode(in + pos, sizeof in - pos, &ctx, &p);
	assert_int_equal(p.type, PK_IPT_BBP);
	assert_int_equal(ctx, PK_IPT_BLK4_CTX);
	pos += pk_ipt_decode(in + pos, sizeof in - pos, &ctx, &p);
	assert_int_equal(p.type, PK_IPT_BIP);
	assert_int_equal(p.payload, 0x04030201);
	pos += pk_ipt_decode(in + pos, sizeof in - pos, &ctx, &p);
	assert_int_equal(p.type, PK_IPT_BEP);
	assert_int_equal(ctx, PK_IPT_NO_CTX);
	pk_ipt_decode(in + pos, sizeof in - pos, &ctx, &p);
	assert_int_equal(p.type, PK_IPT_TNT);
	assert_int_equal(p.count, 3);
}

/* perf 6.1's lines for the AUXTRACE_INFO of quipper/perf.data.intel_pt-4.14 */
static void test_info_text(void **state)
{
	(void)state;
	const uint64_t w[PK_IPT_INFO_WORDS] = {6, 31, 1789569706, 18446744041015200657u, 1, 0x400,
					       0x800, 3, 0, 1, 0x200, 0x3c000, 100, 2, 0x2, 12, 0};
	const char *want = "  PMU Type            6\n"
			   "  Time Shift          31\n"
			   "  Time Muliplier      1789569706\n"
			   "  Time Zero           18446744041015200657\n"
			   "  Cap Time Zero       1\n"
			   "  TSC bit             0x400\n"
			   "  NoRETComp bit       0x800\n"
			   "  Have sched_switch   3\n"
			   "  Snapshot mode       0\n"
			   "  Per-cpu maps        1\n"
			   "  MTC bit             0x200\n"
			   "  MTC freq bits       0x3c000\n"
			   "  TSC:CTC numerator   100\n"
			   "  TSC:CTC denominator 2\n"
			   "  CYC bit             0x2\n"
			   "  Max non-turbo ratio 12\n"
			   "  Filter string len.  0\n"
			   "  Filter string       \n";
	char out[2048];
	assert_int_equal(pk_ipt_info_text(w, PK_IPT_INFO_WORDS, "", 0, out, sizeof out), strlen(want));
	assert_string_equal(out, want);
	/* too short for even the first block: nothing */
	assert_int_equal(pk_ipt_info_text(w, 5, NULL, 0, out, sizeof out), 0);
	/* truncation is safe and still says the full length */
	assert_int_equal(pk_ipt_info_text(w, PK_IPT_INFO_WORDS, "", 0, out, 10), strlen(want));
	assert_int_equal(strlen(out), 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_packet_kind), cmocka_unit_test(test_cut_by_the_end),
		cmocka_unit_test(test_corpus_trace),      cmocka_unit_test(test_block_context),
		cmocka_unit_test(test_info_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
