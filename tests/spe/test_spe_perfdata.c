/* Arm SPE data in perf.data: files written by the generator (spe_gen.c,
 * through our writer) read back by `pmukit report -D` / `pmukit script`,
 * and the dump compared with Linux perf 6.1's `perf report -D` on the same
 * files (skipped, with the reason printed, where perf is absent). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>
#include <pmukit/spe.h>

#include "helpers.h"
#include "../perfdata/pd_test.h"
#include "spe_gen.h"

/* The SPE lines of a -D dump: the data headers and the packet lines. */
static char *spe_lines(const char *dump)
{
	size_t n = strlen(dump);
	char *out = malloc(n + 1), *o = out;
	assert_non_null(out);
	for (const char *p = dump; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
		bool pkt = len > 12 && !strncmp(p, ".  ", 3) && p[11] == ':';
		if (pkt || !strncmp(p, ". ... ARM SPE data", 18)) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = 0;
	return out;
}

static char *gen_file(const char *name, const spe_gen_opts *o)
{
	char *path;
	assert_true(asprintf(&path, "%s/%s", pd_test_dir, name) > 0);
	assert_int_equal(spe_gen_perfdata(path, o), 0);
	return path;
}

/* Every packet of every buffer is in pmukit's dump, as lib/spe decodes it. */
static void test_dump_covers_buffers(void **state)
{
	(void)state;
	spe_gen_opts o = {.seed = 7, .nr_records = 300, .nr_cpus = 3};
	char *path = gen_file("dump.data", &o);
	char *out;
	assert_int_equal(pk_test_pmukit_run(&out, "report -D -i %s", path), 0);
	char *lines = spe_lines(out);
	/* the expected packet count, decoded here from the generator's streams */
	size_t want = 0;
	uint8_t *buf = malloc(300 * 160 + 64);
	assert_non_null(buf);
	for (int cpu = 0; cpu < 3; cpu++) {
		size_t len = spe_gen_stream(&o, cpu, buf, 300 * 160 + 64), pos = 0;
		pk_spe_packet p;
		int k;
		while ((k = pk_spe_packet_decode(buf, len, pos, &p, NULL)) > 0) {
			assert_int_not_equal(p.type, PK_SPE_BAD);
			pos += (size_t)k;
			want++;
		}
	}
	assert_int_equal(pd_test_lines(lines), want + 3);
	assert_non_null(strstr(out, "PERF_RECORD_AUXTRACE size: "));
	/* kinds the generator must cover */
	static const char *const kinds[] = {" PC 0x", " TGT 0x", " PBT 0x", " VA 0x", " PA 0x",
		" LAT ", " TOT", " ISSUE", " XLAT", " EV ", " DATA-SOURCE ", " CONTEXT 0x",
		" el1", " el2", " LD ", " ST ", " B ", " OTHER ", " SVE", " TS ", " PAD", " 20 b"};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (!strstr(lines, kinds[i]))
			fail_msg("no '%s' in the dump", kinds[i]);
	free(buf);
	free(lines);
	free(out);
	free(path);
}

/* script on SPE data says what it did not show, and fails. */
static void test_script_not_silent(void **state)
{
	(void)state;
	spe_gen_opts o = {.seed = 3, .nr_records = 50, .bad_bytes = true, .end_packets = true};
	char *path = gen_file("silent.data", &o);
	char *out;
	int rc = pk_test_pmukit_run(&out, "script -i %s", path);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(out, "50 Arm SPE records"));
	assert_non_null(strstr(out, "undecodable bytes skipped in the Arm SPE data, first at file offset 0x"));
	assert_non_null(strstr(out, " memory"));
	assert_null(strstr(out, " instructions")); /* perf's default has none */
	free(out);
	/* i<N>i: every 10th record gives an instructions sample, nothing else */
	assert_int_not_equal(pk_test_pmukit_run(&out, "script --itrace=i10i -i %s", path), 0);
	assert_non_null(strstr(out, "they give 5 instructions synthetic samples"));
	free(out);
	assert_int_equal(pk_test_pmukit_run(&out, "script --itrace=q -i %s", path), 129);
	assert_non_null(strstr(out, "unknown --itrace letter 'q'"));
	free(out);
	free(path);
}

/* Metadata v2: per-CPU MIDRs pick the IMPLEMENTATION DEFINED names. */
static void test_metadata_v2(void **state)
{
	(void)state;
	spe_gen_opts o = {.seed = 9, .nr_records = 40, .nr_cpus = 2, .midr = 0x410fd0c1};
	char *path = gen_file("v2.data", &o);
	char *out;
	assert_int_equal(pk_test_pmukit_run(&out, "script -D -i %s", path), 0);
	char *lines = spe_lines(out);
	assert_int_equal(strstr(out, "ARM SPE data") != NULL, 1);
	assert_non_null(strstr(lines, " EV "));
	free(lines);
	free(out);
	free(path);
}

/* The metadata through the reader: v1 and v2 as the generator wrote them,
 * and a damaged v2 named as such. */
static void test_info_parse(void **state)
{
	(void)state;
	for (int v = 1; v <= 2; v++) {
		spe_gen_opts o = {.seed = 1, .nr_records = 4, .nr_cpus = 3,
				  .midr = v == 2 ? 0x410fd0c1 : 0};
		char *path = gen_file(v == 1 ? "i1.data" : "i2.data", &o);
		pk_pd_reader *r;
		assert_int_equal(pk_pd_reader_open(path, NULL, &r, NULL), 0);
		pk_pd_event ev;
		int seen = 0;
		while (pk_pd_next(r, &ev, NULL) > 0) {
			if (ev.type != PK_RECORD_AUXTRACE_INFO)
				continue;
			pk_spe_info in;
			assert_int_equal(pk_spe_info_parse(&ev, &in, NULL), 0);
			assert_int_equal(in.version, v);
			assert_int_equal(in.pmu_type, SPE_GEN_PMU_TYPE);
			assert_int_equal(in.nr_cpus, v == 2 ? 3 : 0);
			assert_int_equal(pk_spe_info_midr(&in, 2, 7), v == 2 ? 0x410fd0c1 : 7);
			assert_int_equal(pk_spe_info_midr(&in, 9, 7), 7);
			if (v == 2) {
				assert_int_equal(in.cpus[1].cpu, 1);
				assert_int_equal(in.cpus[1].min_interval, 1024);
				/* the second CPU's magic damaged: an error naming it */
				uint8_t copy[512];
				memcpy(copy, ev.data, ev.size);
				copy[16 + 8 * (4 + 6)] ^= 1;
				pk_spe_info_release(&in);
				pk_pd_event bad = ev;
				bad.data = copy;
				pk_error err;
				pk_error_clear(&err);
				assert_int_equal(pk_spe_info_parse(&bad, &in, &err), -EINVAL);
				assert_non_null(strstr(err.msg, "CPU entry 1"));
			}
			pk_spe_info_release(&in);
			seen++;
		}
		assert_int_equal(seen, 1);
		pk_pd_reader_close(r);
		free(path);
	}
}

/* Linux perf 6.1 prints the same dump for the same files. */
static void test_dump_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	for (uint64_t seed = 1; seed <= 6; seed++) {
		spe_gen_opts o = {.seed = seed, .nr_records = 400, .perf61 = true,
				  .nr_cpus = 1 + (int)(seed % 3), .end_packets = seed % 2,
				  .bad_bytes = seed > 4};
		char name[32];
		snprintf(name, sizeof name, "diff%u.data", (unsigned)seed);
		char *path = gen_file(name, &o), *cmd;
		assert_true(asprintf(&cmd, "perf report -D -i %s 2>/dev/null", path) > 0);
		char *perf = pd_test_output(cmd), *ours, *ourcmd;
		assert_true(asprintf(&ourcmd, "%s report -D -i %s", pk_test_pmukit(), path) > 0);
		assert_int_equal(pk_test_run(ourcmd, &ours, 0), 0);
		free(ourcmd);
		char *a = spe_lines(perf), *b = spe_lines(ours);
		assert_true(pd_test_lines(a) > 400);
		assert_string_equal(b, a);
		free(a);
		free(b);
		free(perf);
		free(ours);
		free(cmd);
		free(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_covers_buffers),
		cmocka_unit_test(test_script_not_silent),
		cmocka_unit_test(test_metadata_v2),
		cmocka_unit_test(test_info_parse),
		cmocka_unit_test(test_dump_vs_perf),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
