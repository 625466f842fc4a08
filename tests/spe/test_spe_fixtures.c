/* The SPE decoder against real byte streams with their published decodings
 * (tests/data/spe, see its README): every expected line is read from the
 * fixture files, so a fixture edit is a test edit. Packet text is compared
 * as perf prints it; records against quipper's and spe-parser's fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#include <pmukit/spe.h>

#include "helpers.h"

#define N1 0x410fd0c1u

static uint8_t *slurp(const char *rel, size_t *len)
{
	FILE *f = fopen(pk_test_fixture(rel), "rb");
	assert_non_null(f);
	uint8_t *b = malloc(1 << 16);
	assert_non_null(b);
	*len = fread(b, 1, 1 << 16, f);
	fclose(f);
	return b;
}

/* A decoder on a fixture file; returns the bytes (the caller frees them). */
static uint8_t *decoder_on(const char *rel, pk_spe_decoder *d)
{
	size_t len;
	uint8_t *buf = slurp(rel, &len);
	pk_spe_decoder_init(d, buf, len, 0);
	return buf;
}

/* Parses "OFFSET  xx xx ...  DESC" (quipper, lkml); false for other lines. */
static bool parse_listing(char *line, unsigned *off, unsigned *nbytes, char **desc)
{
	if (!isxdigit((unsigned char)line[0]))
		return false;
	char *p;
	*off = (unsigned)strtoul(line, &p, 16);
	if (p - line != 8)
		return false;
	*nbytes = 0;
	while (*p == ' ')
		p++;
	while (isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]) && p[2] == ' ') {
		(*nbytes)++;
		p += 3;
		if (p[0] == ' ')
			break; /* two spaces: the text follows */
	}
	while (*p == ' ')
		p++;
	*desc = p;
	char *end = strstr(p, "  ");
	if (end)
		*end = 0;
	p[strcspn(p, "\n")] = 0;
	return true;
}

/* Each listed packet decodes at its offset to its length and text. */
static void check_listing(const char *bin, const char *listing, uint32_t midr, int want)
{
	size_t len;
	uint8_t *buf = NULL;
	if (bin)
		buf = slurp(bin, &len);
	FILE *f = fopen(pk_test_fixture(listing), "r");
	assert_non_null(f);
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned off, nb;
		char *desc;
		if (!parse_listing(line, &off, &nb, &desc))
			continue;
		uint8_t pkt_bytes[32];
		const uint8_t *p = buf ? buf : pkt_bytes;
		size_t plen = buf ? len : nb, pos = buf ? off : 0;
		if (!buf) { /* the bytes are on the line */
			char *q = line + 8;
			for (unsigned i = 0; i < nb; i++)
				pkt_bytes[i] = (uint8_t)strtoul(q, &q, 16);
		}
		pk_spe_packet pkt;
		int got = pk_spe_packet_decode(p, plen, pos, &pkt, NULL);
		char text[256];
		pk_spe_packet_desc(&pkt, midr, text, sizeof text);
		if (got != (int)nb || strcmp(text, desc) != 0)
			fail_msg("%s at 0x%x: want %u bytes '%s', got %d '%s'", listing, off, nb, desc, got,
				 text);
		n++;
	}
	fclose(f);
	free(buf);
	assert_int_equal(n, want);
}

static void test_quipper_packets(void **state)
{
	(void)state;
	check_listing("spe/quipper/two-records.bin", "spe/quipper/two-records.expected.txt", 0, 23);
}

static void test_lkml_packets(void **state)
{
	(void)state;
	check_listing(NULL, "spe/lkml/patch-fragments.txt", 0, 7);
}

/* quipper's expected record fields (two-records.expected.txt comments). */
static void test_quipper_records(void **state)
{
	(void)state;
	pk_spe_decoder d;
	uint8_t *buf = decoder_on("spe/quipper/two-records.bin", &d);
	pk_spe_record r;
	assert_int_equal(pk_spe_next(&d, &r), PK_SPE_RECORD);
	assert_true(r.closed);
	assert_int_equal(r.events, (1u << PK_SPE_EV_RETIRED) | (1u << PK_SPE_EV_L1D_ACCESS) |
					   (1u << PK_SPE_EV_TLB_ACCESS));
	assert_int_equal(r.op_class, PK_SPE_OP_LDST);
	assert_int_equal(r.op, 0);
	assert_int_equal(r.lat_total, 12);
	assert_int_equal(r.lat_issue, 4);
	assert_int_equal(r.lat_xlat, 1);
	assert_int_equal(r.pc, 0xffffba66eda1c2d0ull);
	assert_int_equal(r.pc_el, 2);
	assert_true(r.pc_ns);
	assert_int_equal(r.va, 0xffff0e3703096b28ull);
	assert_int_equal(r.timestamp, 44731163950ull);
	assert_int_equal(r.context, 0x5f80);
	assert_int_equal(r.context_idx, 1);
	assert_true(r.present & PK_SPE_HAS_SOURCE);
	assert_int_equal(r.source, 0);
	assert_int_equal(r.offset, 0);
	assert_int_equal(r.end, 0x40);

	assert_int_equal(pk_spe_next(&d, &r), PK_SPE_RECORD);
	assert_int_equal(r.events, (1u << PK_SPE_EV_RETIRED) | (1u << PK_SPE_EV_NOT_TAKEN));
	assert_int_equal(r.op_class, PK_SPE_OP_BRANCH);
	assert_int_equal(r.op & 1, 1);
	assert_int_equal(r.lat_total, 17);
	assert_int_equal(r.lat_issue, 16);
	assert_int_equal(r.pc, 0xffffba66edefb0e0ull);
	assert_int_equal(r.tgt, 0xffffba66edefb0e4ull);
	assert_int_equal(r.tgt_el, 2);
	assert_int_equal(r.timestamp, 44731164045ull);
	assert_int_equal(r.context, 0xe);
	assert_false(r.present & (PK_SPE_HAS_VA | PK_SPE_HAS_SOURCE));
	assert_int_equal(pk_spe_next(&d, &r), PK_SPE_DONE);
	free(buf);

	/* the invalid vector: no record, every byte a warning with its offset */
	static const uint8_t junk[] = {0xab, 0xcd, 0xef, 0xff, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44};
	pk_spe_decoder_init(&d, junk, sizeof junk, 100);
	int warns = 0, recs = 0, rc;
	while ((rc = pk_spe_next(&d, &r)) != PK_SPE_DONE) {
		if (rc == PK_SPE_WARN) {
			assert_non_null(d.warn);
			assert_true(d.warn_offset >= 100 && d.warn_offset < 100 + sizeof junk);
			warns++;
		} else if (r.closed) {
			recs++;
		}
	}
	assert_int_equal(recs, 0);
	assert_true(warns >= 1);
	assert_int_equal(d.nr_bad, (uint64_t)warns);
}

/* The old perf's dump of a KVM guest, line for line, in perf's -D layout;
 * the two strings perf has renamed since are mapped to today's. */
static void test_qemu_dump(void **state)
{
	(void)state;
	size_t len;
	uint8_t *buf = slurp("spe/qemu-ml/kvm-guest-dd.bin", &len);
	FILE *f = fopen(pk_test_fixture("spe/qemu-ml/kvm-guest-dd.perf-report-D.txt"), "r");
	assert_non_null(f);
	char want[512], got[512];
	size_t pos = 0;
	int lines = 0;
	while (fgets(want, sizeof want, f)) {
		if (strncmp(want, ".  ", 3) != 0)
			continue;
		want[strcspn(want, "\n")] = 0;
		assert_true(strlen(want) > 62);
		char *desc = want + 62; /* ".  %08x: " and 16 byte columns */
		char fixed[512];
		if (!strcmp(desc, "LD"))
			snprintf(fixed, sizeof fixed, "%.*sLD GP-REG", (int)(desc - want), want);
		else if (!strcmp(desc, "INSN-OTHER"))
			snprintf(fixed, sizeof fixed, "%.*sOTHER INSN-OTHER", (int)(desc - want), want);
		else
			snprintf(fixed, sizeof fixed, "%s", want);
		int n = pk_spe_dump_line(buf, len, pos, 0, got, sizeof got);
		assert_true(n > 0);
		assert_string_equal(got, fixed);
		pos += (size_t)n;
		lines++;
	}
	fclose(f);
	assert_int_equal(pos, len);
	assert_int_equal(lines, 20);
	free(buf);
}

/* Hex bytes at the start of s into b (max cap); their count. Stops at "->". */
static size_t parse_hex(const char *s, uint8_t *b, size_t cap)
{
	size_t n = 0;
	while (n < cap) {
		while (*s == ' ')
			s++;
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    (s[2] != ' ' && s[2] != '\n' && s[2] != 0))
			break;
		b[n++] = (uint8_t)strtoul(s, NULL, 16);
		s += 2;
	}
	return n;
}

/* The descriptions of the non-PAD packets of b, joined by " | ". */
static void describe_all(const uint8_t *b, size_t n, char *out, size_t size)
{
	size_t pos = 0, used = 0;
	out[0] = 0;
	pk_spe_packet p;
	int k;
	while ((k = pk_spe_packet_decode(b, n, pos, &p, NULL)) > 0) {
		pos += (size_t)k;
		if (p.type == PK_SPE_PAD)
			continue;
		if (used)
			used += (size_t)snprintf(out + used, size - used, " | ");
		used += (size_t)pk_spe_packet_desc(&p, N1, out + used, size - used);
	}
}

/* spe-parser's vectors: "HEX -> TEXT" single packets, and frames (a hex
 * line, then "  -> TEXT" lines or one "  -> A | B | ..." line). */
static void test_spe_parser_vectors(void **state)
{
	(void)state;
	FILE *f = fopen(pk_test_fixture("spe/spe-parser/vectors.txt"), "r");
	assert_non_null(f);
	char line[1024], want[2048] = "", got[2048];
	uint8_t frame[256];
	size_t nframe = 0;
	int singles = 0, frames = 0, sources = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		const char *arrow = strstr(line, "->");
		if (line[0] == '#' || !line[0])
			continue;
		if (!strncmp(line, "0->", 3)) { /* data source names */
			for (char *t = strtok(line, " "); t; t = strtok(NULL, " ")) {
				unsigned id = (unsigned)strtoul(t, NULL, 10);
				assert_string_equal(pk_spe_source_name(N1, id), strstr(t, "->") + 2);
				sources++;
			}
			continue;
		}
		if (!strncmp(line, "  -> ", 5)) {
			snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s",
				 want[0] ? " | " : "", line + 5);
			continue;
		}
		if (nframe) { /* the previous frame is complete */
			describe_all(frame, nframe, got, sizeof got);
			assert_string_equal(got, want);
			frames++;
			nframe = 0;
		}
		want[0] = 0;
		size_t n = parse_hex(line, frame, sizeof frame);
		if (!n)
			continue;
		if (arrow && arrow > line) { /* a single packet */
			pk_spe_packet p;
			assert_int_equal(pk_spe_packet_decode(frame, n, 0, &p, NULL), (int)n);
			pk_spe_packet_desc(&p, N1, got, sizeof got);
			assert_string_equal(got, arrow + 3);
			singles++;
			continue;
		}
		nframe = n;
	}
	if (nframe) {
		describe_all(frame, nframe, got, sizeof got);
		assert_string_equal(got, want);
		frames++;
	}
	fclose(f);
	assert_int_equal(singles, 20);
	assert_int_equal(frames, 3);
	assert_int_equal(sources, 8);
}

/* A record's field by spe-parser's CSV column name: lib/spe's export
 * columns (the CPU is the reader's, 0 for these raw buffers). */
static void record_field(const pk_spe_record *r, const char *col, char *out, size_t size)
{
	if (!strcmp(col, "cpu")) {
		snprintf(out, size, "0");
		return;
	}
	for (unsigned c = 0; c < PK_SPE_NR_COLUMNS; c++)
		if (!strcmp(col, pk_spe_column_name(c))) {
			pk_spe_record_column(r, c, N1, out, size);
			return;
		}
	fail_msg("unknown column %s", col);
}

static void check_csv(const char *data, const char *csv)
{
	pk_spe_decoder d;
	uint8_t *buf = decoder_on(data, &d);
	pk_spe_record r;
	assert_int_equal(pk_spe_next(&d, &r), PK_SPE_RECORD);
	assert_true(r.closed);
	pk_spe_record after;
	assert_int_equal(pk_spe_next(&d, &after), PK_SPE_DONE);
	FILE *f = fopen(pk_test_fixture(csv), "r");
	assert_non_null(f);
	char head[512], row[512];
	assert_non_null(fgets(head, sizeof head, f));
	assert_non_null(fgets(row, sizeof row, f));
	fclose(f);
	head[strcspn(head, "\n")] = 0;
	row[strcspn(row, "\n")] = 0;
	char *hs;
	char *h = strtok_r(head, ",", &hs), *v = row;
	int cols = 0;
	for (; h; h = strtok_r(NULL, ",", &hs)) {
		char name[64], val[128], got[256];
		snprintf(name, sizeof name, "%.*s", (int)strlen(h) - 2, h + 1); /* "..." */
		size_t k = strcspn(v, ",");
		snprintf(val, sizeof val, "%.*s", (int)k, v);
		v += k + (v[k] == ',');
		record_field(&r, name, got, sizeof got);
		if (strcmp(got, val))
			fail_msg("%s: column %s: want '%s', got '%s'", data, name, val, got);
		cols++;
	}
	assert_int_equal(cols, 15);
	free(buf);
}

static void test_spe_parser_csv(void **state)
{
	(void)state;
	check_csv("spe/spe-parser/spe-b1-ts0.data", "spe/spe-parser/spe-b1-ts0.csv");
	check_csv("spe/spe-parser/spe-b1-ts1.data", "spe/spe-parser/spe-b1-ts1.csv");
}

/* frame-ldst.bin: the TS closes an empty record; the load record after it
 * runs out of data (closed false) with every field of its packets. */
static void test_frame_ldst(void **state)
{
	(void)state;
	pk_spe_decoder d;
	uint8_t *buf = decoder_on("spe/spe-parser/frame-ldst.bin", &d);
	pk_spe_record r;
	assert_int_equal(pk_spe_next(&d, &r), PK_SPE_RECORD);
	assert_true(r.closed);
	assert_int_equal(r.present, PK_SPE_HAS_TS);
	assert_int_equal(r.timestamp, 13196304120239ull);
	assert_int_equal(pk_spe_next(&d, &r), PK_SPE_RECORD);
	assert_false(r.closed);
	assert_int_equal(r.pc, 0xaaaae4a9b600ull);
	assert_int_equal(r.va, 0xaaaae65dda43ull);
	assert_int_equal(r.pa, 0x8032c955a43ull);
	assert_true(r.pa_ns);
	assert_int_equal(r.lat_total, 8);
	assert_int_equal(r.lat_issue, 4);
	assert_int_equal(r.lat_xlat, 1);
	assert_int_equal(r.nr_packets, 9);
	assert_int_equal(pk_spe_next(&d, &r), PK_SPE_DONE);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quipper_packets), cmocka_unit_test(test_quipper_records),
		cmocka_unit_test(test_lkml_packets),    cmocka_unit_test(test_qemu_dump),
		cmocka_unit_test(test_spe_parser_vectors), cmocka_unit_test(test_spe_parser_csv),
		cmocka_unit_test(test_frame_ldst),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
