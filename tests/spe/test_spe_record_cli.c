/* pmukit record -e arm_spe/.../ (issue 11), end to end on the PMU model and
 * the driver's rules on the fixture trees:
 *  - pk_spe_check on Neoverse N1's tree (the document's filterable events,
 *    privilege, frequency, the minimum interval, bits outside the formats);
 *    AUXTRACE_INFO v1 and v2 written and parsed back;
 *  - record --model: one SPE record per `period` of the instructions that
 *    `stat --model` counts, the same count in `report -D` and `script -D`,
 *    the AUX summary; two runs give the same bytes; Linux perf 6.1's
 *    `perf report -D` prints the same SPE lines and `perf script` the same
 *    synthetic samples (skipped without perf);
 *  - hostile options: every bad term, value and option refused with a
 *    message naming it (and nothing written);
 *  - the document's common errors: no arm_spe PMU (kpti, firmware, VM),
 *    an unprivileged run (no CONTEXT packets, pa_enable refused), discard
 *    mode (nothing reaches a buffer). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>
#include <pmukit/pmu.h>
#include <pmukit/spe.h>
#include <pmukit/spe_record.h>

#include "helpers.h"
#include "../perfdata/pd_test.h"

/* The SPE lines of a -D dump (data headers and packet lines), by grep. */
#define SPE_LINES " | grep -E '^(\\. \\.\\.\\. ARM SPE data|\\.  [0-9a-f]{8}:)'"

static const char *example(void)
{
	return pk_test_example("neoverse-n1-spe.json");
}

static const pk_pmu *n1_spe(pk_pmus **pmus)
{
	pk_error err;
	pk_error_clear(&err);
	*pmus = pk_pmus_load(pk_test_sysfs("neoverse-n1-spe"), &err);
	assert_non_null(*pmus);
	const pk_pmu *p = pk_pmus_find(*pmus, "arm_spe_0");
	assert_non_null(p);
	assert_true(pk_spe_pmu_is(p));
	return p;
}

static void spe_expect(const pk_pmu *p, struct perf_event_attr a, bool priv, int code,
			 const char *want)
{
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_spe_check(p, &a, 0, priv, &err);
	if (rc != code || (want && !strstr(err.msg, want)))
		fail_msg("rc %d '%s' (wanted %d '%s')", rc, err.msg, code, want ? want : "");
}

static void test_check(void **state)
{
	(void)state;
	pk_pmus *pmus;
	const pk_pmu *p = n1_spe(&pmus);
	struct perf_event_attr a = {.type = p->type, .size = sizeof(a), .sample_period = 1024};
	spe_expect(p, a, false, 0, NULL);
	a.config1 = 0x8aa; /* the document's list: 1, 3, 5, 7, 11 */
	spe_expect(p, a, false, 0, NULL);
	a.config1 = 0x4;
	spe_expect(p, a, false, -EOPNOTSUPP, "arm_spe_0: event_filter=0x4: bit(s) 2 cannot be "
					       "filtered on by this SPE (filterable: 1,3,5,7,11)");
	a.config1 = 0;
	a.config = 1ull << 1; /* pa_enable */
	spe_expect(p, a, false, -EACCES, "arm_spe_0: pa_enable=1 requires privilege");
	spe_expect(p, a, true, 0, NULL);
	a.config = 1ull << 2; /* pct_enable */
	spe_expect(p, a, false, -EACCES, "pct_enable=1 requires privilege");
	a.config = 1ull << 40; /* simd_filter's bit: no such term on N1 */
	spe_expect(p, a, true, -EOPNOTSUPP, "config=0x10000000000 sets bits");
	a.config = 0;
	a.sample_period = 1023; /* the driver raises it: not refused */
	spe_expect(p, a, true, 0, NULL);
	assert_int_equal(pk_spe_period(p, 1023), 1024);
	assert_int_equal(pk_spe_period(p, 1), 1024);
	assert_int_equal(pk_spe_period(p, 5000), 4864); /* PMSIRR_EL1: steps of 256 */
	assert_int_equal(pk_spe_period(p, 1ull << 40), 0xffffff00u);
	a.sample_period = 0; /* the default: allowed */
	spe_expect(p, a, true, 0, NULL);
	a.freq = 1;
	a.sample_freq = 4000;
	spe_expect(p, a, true, -EINVAL, "Frequency is not supported. Set period with -c");
	assert_int_equal(pk_spe_min_interval(p), 1024);
	pk_spe_config c;
	uint64_t cfg[PK_NR_CONFIGS] = {0x500010005ull, 0x80, 10, 0};
	pk_spe_config_read(p, cfg, &c);
	assert_true(c.ts_enable && c.pct_enable && c.jitter && c.branch_filter && c.store_filter);
	assert_false(c.pa_enable || c.load_filter || c.discard);
	assert_int_equal(c.event_filter, 0x80);
	assert_int_equal(c.min_latency, 10);
	pk_pmus_put(pmus);
}

static void test_info_roundtrip(void **state)
{
	(void)state;
	uint8_t buf[512];
	pk_spe_info_cpu cpus[2] = {{.cpu = 0, .midr = 0x413fd0c1, .has_spe = true,
				    .min_interval = 1024},
				   {.cpu = 3, .midr = 0x410fd490, .has_spe = false}};
	for (int v = 1; v <= 2; v++) {
		long n = pk_spe_info_write(buf, sizeof(buf), v, 9, true, cpus, 2);
		assert_int_equal(n, v == 1 ? 32 : 16 + 32 + 2 * 48);
		pk_pd_event ev = {.type = PK_RECORD_AUXTRACE_INFO, .size = (uint16_t)n, .data = buf};
		pk_spe_info info;
		pk_error err;
		pk_error_clear(&err);
		assert_int_equal(pk_spe_info_parse(&ev, &info, &err), 0);
		assert_int_equal(info.version, v);
		assert_int_equal(info.pmu_type, 9);
		if (v == 2) {
			assert_int_equal(info.nr_cpus, 2);
			assert_int_equal(info.cpus[1].cpu, 3);
			assert_int_equal(pk_spe_info_midr(&info, 0, 0), 0x413fd0c1);
			assert_int_equal(info.cpus[1].pmu_type, UINT64_MAX);
			assert_int_equal(info.cpus[0].min_interval, 1024);
		}
		pk_spe_info_release(&info);
	}
	assert_int_equal(pk_spe_info_write(buf, 40, 2, 9, true, cpus, 2), -ENOSPC);
	assert_int_equal(pk_spe_info_write(buf, sizeof(buf), 3, 9, true, cpus, 2), -EINVAL);
}

/* `pmukit record --model example ARGS -o DIR/name`; the log in *log. */
static int record(const char *args, const char *name, char **log)
{
	return pk_test_pmukit_run(log, "record --model %s %s -o %s/%s", example(), args,
				  pd_test_dir, name);
}

/* Occurrences of what in s, in one pass (strstr in a loop is quadratic
 * under ASan, whose interceptor measures the rest of the text each call). */
static size_t count(const char *s, const char *what)
{
	size_t n = 0, wl = strlen(what);
	for (const char *p = s; *p; p++)
		if (*p == what[0] && !strncmp(p, what, wl)) {
			n++;
			p += wl - 1;
		}
	return n;
}

static void test_record_and_dump(void **state)
{
	(void)state;
	char *log, *out;
	assert_int_equal(record("-e arm_spe// -c 16384", "a.data", &log), 0);
	assert_non_null(strstr(log, "AUXTRACE buffers"));
	assert_non_null(strstr(log, " 0 truncated, 0 partial, 0 collision ]"));
	free(log);
	/* the instructions the model runs, one SPE sample per 16384 */
	assert_int_equal(pk_test_pmukit_run(&out, "stat --model %s -e instructions -x,", example()),
			 0);
	const char *line = strstr(out, "\n") ? strstr(out, "\n") + 1 : out;
	unsigned long long insns = strtoull(line, NULL, 10);
	free(out);
	assert_true(insns > 1000000);
	for (int script = 0; script < 2; script++) {
		assert_int_equal(pk_test_pmukit_run(&out, "%s -D -i %s/a.data",
						    script ? "script" : "report", pd_test_dir),
				 0);
		size_t n = count(out, "PC 0x");
		if (n + 1 < insns / 16384 || n > insns / 16384 + 1)
			fail_msg("%zu records for %llu instructions", n, insns);
		assert_int_equal(count(out, "CONTEXT 0x1771 el1"), n); /* tid 6001 */
		assert_int_equal(count(out, " END\n"), n);             /* no ts_enable per thread */
		free(out);
	}
}

static void test_same_bytes(void **state)
{
	(void)state;
	char *out, cmd[8192];
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "mkdir -p %s/r%d && cd %s/r%d && %s record --model %s "
					   "-e arm_spe/ts_enable=1/ -c 8192 -o s.data",
			 pd_test_dir, i, pd_test_dir, i, pk_test_pmukit(), example());
		assert_int_equal(pk_test_run(cmd, &out, 1), 0);
		free(out);
	}
	snprintf(cmd, sizeof(cmd), "cmp %s/r0/s.data %s/r1/s.data", pd_test_dir, pd_test_dir);
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	free(out);
}

/* The AUXTRACE_INFO version of a recorded file (0: none). */
static int info_version(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", pd_test_dir, name);
	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, NULL), 0);
	pk_pd_event ev;
	int v = 0;
	while (!v && pk_pd_next(r, &ev, NULL) > 0) {
		pk_spe_info info;
		if (ev.type == PK_RECORD_AUXTRACE_INFO && pk_spe_info_parse(&ev, &info, NULL) == 0) {
			v = (int)info.version;
			pk_spe_info_release(&info);
		}
	}
	pk_pd_reader_close(r);
	return v;
}

/* perf 6.1's -D on the default metadata (v1) and on --spe-meta 2. */
static void test_dump_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	static const char *const variants[][2] = {
		{"-e arm_spe/ts_enable=1,pa_enable=1/ -c 32768", "p1.data"},
		{"-e arm_spe/load_filter=1,min_latency=20/ -c 4096 --spe-meta 2", "p2.data"},
		{"-a -e arm_spe// -c 65536 -m ,16", "p3.data"},
	};
	for (size_t i = 0; i < 3; i++) {
		char *log, cmd[8192];
		assert_int_equal(record(variants[i][0], variants[i][1], &log), 0);
		free(log);
		assert_int_equal(info_version(variants[i][1]), i == 1 ? 2 : 1);
		snprintf(cmd, sizeof(cmd), "perf report -D -i %s/%s 2>/dev/null" SPE_LINES,
			 pd_test_dir, variants[i][1]);
		char *perf = pd_test_output(cmd);
		snprintf(cmd, sizeof(cmd), "%s report -D -i %s/%s" SPE_LINES, pk_test_pmukit(),
			 pd_test_dir, variants[i][1]);
		char *ours = pd_test_output(cmd);
		assert_true(pd_test_lines(perf) > 100);
		assert_string_equal(ours, perf);
		free(perf);
		free(ours);
	}
}

/* perf 6.1 makes the synthetic samples of a file recorded with record's
 * defaults (v1 metadata, the form it reads; TIME_CONV before
 * AUXTRACE_INFO, or it divides by zero): its script prints what pmukit
 * script prints, its report (--mem-mode, --sort sym,dso, memory keys)
 * the same rows. */
static void test_samples_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	char *log, cmd[8192];
	assert_int_equal(record("-e arm_spe/ts_enable=1,load_filter=1/ -c 8192",
				"ps.data", &log),
			 0);
	free(log);
	/* script byte for byte; report's rows (sorted, blanks collapsed) */
	static const char *const opts[] = {
		"script", "report --stdio --mem-mode", "report --stdio -n --sort sym,dso",
		"report --stdio --mem-mode -n -s mem,snoop,tlb,sym --itrace=fMi5i",
	};
	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
		bool rep = !strncmp(opts[i], "report", 6);
		snprintf(cmd, sizeof(cmd), "perf %s -i %s/ps.data 2>/dev/null", opts[i], pd_test_dir);
		char *perf = pd_test_output(cmd);
		snprintf(cmd, sizeof(cmd), "%s %s -i %s/ps.data 2>/dev/null", pk_test_pmukit(),
			 opts[i], pd_test_dir);
		char *ours = pd_test_output(cmd);
		char *a = rep ? pd_test_report_rows(perf) : strdup(perf);
		char *b = rep ? pd_test_report_rows(ours) : strdup(ours);
		assert_true(pd_test_lines(a) > (rep ? 5 : 100));
		if (strcmp(a, b))
			fail_msg("perf %s differs on a record --model file", opts[i]);
		free(a);
		free(b);
		free(perf);
		free(ours);
	}
}

/* A refused command line: exit status non-zero, the message, no file. */
static void expect_refused(const char *args, const char *want)
{
	char *log, path[4096];
	int rc = record(args, "bad.data", &log);
	if (rc == 0 || !strstr(log, want))
		fail_msg("record %s: %d\n%s\n(wanted '%s')", args, rc, log, want);
	free(log);
	snprintf(path, sizeof(path), "%s/bad.data", pd_test_dir);
	FILE *f = fopen(path, "r");
	if (f)
		fclose(f);
	assert_null(f);
}

static void test_hostile_options(void **state)
{
	(void)state;
	expect_refused("-e arm_spe/bogus=1/", "unknown term 'bogus' for pmu 'arm_spe_0'");
	expect_refused("-e arm_spe/min_latency=4096/", "value too big for format, maximum is 4095");
	expect_refused("-e arm_spe/jitter=2/", "value too big for format, maximum is 1");
	expect_refused("-e arm_spe/event_filter=0x10000000000000000/",
		       "expected a number for 'event_filter'");
	expect_refused("-e arm_spe/load_filter=yes/", "expected a number for 'load_filter', got 'yes'");
	expect_refused("-e arm_spe/event_filter=0x100/",
		       "event_filter=0x100: bit(s) 8 cannot be filtered on by this SPE "
		       "(filterable: 1,3,5,7,11)");
	expect_refused("-e arm_spe/discard/", "unknown term 'discard' for pmu 'arm_spe_0'");
	expect_refused("-e arm_spe/config=0x8/", "config=0x8 sets bits 0x8 that no format term");
	expect_refused("-e arm_spe// -F 1000", "Frequency is not supported. Set period with -c");
	expect_refused("-e arm_spe// -m ,3", "the AUX pages of -m need a power of 2, not '3'");
	expect_refused("-e arm_spe// -m ,1", "-m ,AUX");
	expect_refused("-e arm_spe// --spe-meta 3", "--spe-meta takes 1 or 2, not '3'");
	expect_refused("-e cycles,arm_spe//", "put the arm_spe_0 event first");
}

/* -c below caps/min_interval: recorded, as the driver raises it (perf
 * passes it on; the kernel programs the minimum), with a note; the model's
 * SPE samples at the minimum. */
static void test_period_raised(void **state)
{
	(void)state;
	char *low, *min;
	assert_int_equal(record("-e arm_spe// -c 100", "low.data", &low), 0);
	assert_non_null(strstr(low, "note: arm_spe_0: -c 100: the driver samples every 1024 "
				    "operations (raised to caps/min_interval)"));
	assert_int_equal(record("-e arm_spe// -c 1024", "min.data", &min), 0);
	assert_null(strstr(min, "note:"));
	/* the same SPE data as at the minimum: the summary lines agree */
	const char *a = strstr(low, "AUXTRACE buffers"), *b = strstr(min, "AUXTRACE buffers");
	assert_non_null(a);
	assert_non_null(b);
	assert_memory_equal(a, b, (size_t)(strchr(a, ']') - a));
	free(low);
	free(min);
}

static void test_no_spe_pmu(void **state)
{
	(void)state;
	char *out, cmd[4096];
	snprintf(cmd, sizeof(cmd), "PMUKIT_SYSFS=%s %s record -e arm_spe// -o %s/x.data -- true",
		 pk_test_sysfs("skylake"), pk_test_pmukit(), pd_test_dir);
	assert_int_not_equal(pk_test_run(cmd, &out, 1), 0);
	assert_non_null(strstr(out, "Cannot find PMU 'arm_spe'. Missing kernel support?"));
	assert_non_null(strstr(out, "kpti=off"));
	assert_non_null(strstr(out, "firmware does not describe the SPE interrupt"));
	assert_non_null(strstr(out, "virtual machine"));
	free(out);
}

/* A scenario: the example with `extra` keys at its top, or on a machine
 * given by path. */
static const char *variant(const char *name, const char *extra, const char *machine)
{
	static char path[4096];
	char *text, cmd[8192];
	snprintf(cmd, sizeof(cmd), "cat %s", example());
	text = pd_test_output(cmd);
	char *body = strchr(text, '{');
	assert_non_null(body);
	char *out = malloc(strlen(text) + 4096);
	assert_non_null(out);
	if (machine) { /* replace the machine's name */
		char *m = strstr(body, "\"neoverse-n1-spe\"");
		assert_non_null(m);
		*m = '\0';
		sprintf(out, "%s\"%s\"%s", body, machine, m + strlen("\"neoverse-n1-spe\""));
	} else {
		sprintf(out, "{%s%s", extra, body + 1);
	}
	pk_test_put_file(pd_test_dir, name, out);
	snprintf(path, sizeof(path), "%s/%s", pd_test_dir, name);
	free(out);
	free(text);
	return path;
}

static void test_unprivileged(void **state)
{
	(void)state;
	const char *scn = variant("unpriv.json", "\"privileged\": false, ", NULL);
	char *log, *out;
	assert_int_equal(pk_test_pmukit_run(&log, "record --model %s -e arm_spe// -c 65536 -o %s/u.data",
					    scn, pd_test_dir),
			 0);
	assert_non_null(strstr(log, "SPE records carry no CONTEXT packets"));
	free(log);
	assert_int_equal(pk_test_pmukit_run(&out, "report -D -i %s/u.data", pd_test_dir), 0);
	assert_true(count(out, "PC 0x") > 100);
	assert_int_equal(count(out, "CONTEXT"), 0);
	free(out);
	assert_int_not_equal(pk_test_pmukit_run(&log, "record --model %s -e arm_spe/pa_enable=1/ "
						      "-o %s/u2.data", scn, pd_test_dir),
			     0);
	assert_non_null(strstr(log, "arm_spe_0: pa_enable=1 requires privilege"));
	assert_non_null(strstr(log, "CAP_PERFMON"));
	free(log);
}

static void test_discard(void **state)
{
	(void)state;
	char tree[4096], *log, *out;
	const char *src = getenv("PK_SRCDIR");
	snprintf(tree, sizeof(tree), "%s/tests/model/data/spe-current", src ? src : ".");
	const char *scn = variant("full.json", NULL, tree);
	assert_int_equal(pk_test_pmukit_run(&log, "record --model %s -e arm_spe/discard/ -o %s/d.data",
					    scn, pd_test_dir),
			 0);
	assert_non_null(strstr(log, "arm_spe_0 in discard mode: no SPE data was written"));
	free(log);
	assert_int_equal(pk_test_pmukit_run(&out, "report -D -i %s/d.data", pd_test_dir), 0);
	assert_null(strstr(out, "ARM SPE data"));
	free(out);
	/* the same tree records with caps/event_filter's bit 8 */
	assert_int_equal(pk_test_pmukit_run(&log, "record --model %s -e arm_spe/event_filter=0x100/ "
						  "-c 4096 -o %s/e.data", scn, pd_test_dir),
			 0);
	free(log);
	assert_int_equal(pk_test_pmukit_run(&out, "report -D -i %s/e.data", pd_test_dir), 0);
	assert_int_equal(count(out, "PC 0x"), count(out, "LLC-ACCESS"));
	assert_true(count(out, "PC 0x") > 10);
	free(out);
}

/* inv_event_filter (config3, attr.size 136) on a tree with the term: the
 * model is a current kernel and takes it whatever the installed headers'
 * attr size; records with the event (LLC-ACCESS, bit 8) are dropped. */
static void test_inv_event_filter(void **state)
{
	(void)state;
	char tree[4096], *log, *out, *all;
	const char *src = getenv("PK_SRCDIR");
	snprintf(tree, sizeof(tree), "%s/tests/model/data/spe-current", src ? src : ".");
	const char *scn = variant("full.json", NULL, tree);
	assert_int_equal(pk_test_pmukit_run(&log, "encode --record --model %s -e "
						  "arm_spe/inv_event_filter=0x100/ -v", scn), 0);
	assert_non_null(strstr(log, "config3"));
	free(log);
	int rc = pk_test_pmukit_run(&log, "record --model %s -e arm_spe/inv_event_filter=0x100/ -c 4096 "
					  "-o %s/i.data", scn, pd_test_dir);
	if (rc)
		fail_msg("record with inv_event_filter: %d\n%s", rc, log);
	free(log);
	assert_int_equal(pk_test_pmukit_run(&log, "record --model %s -e arm_spe// -c 4096 -o %s/n.data",
					    scn, pd_test_dir), 0);
	free(log);
	assert_int_equal(pk_test_pmukit_run(&out, "report -D -i %s/i.data", pd_test_dir), 0);
	assert_int_equal(pk_test_pmukit_run(&all, "report -D -i %s/n.data", pd_test_dir), 0);
	assert_true(count(out, "PC 0x") > 10);
	assert_int_equal(count(out, "LLC-ACCESS"), 0);
	assert_true(count(all, "LLC-ACCESS") > 0);
	assert_int_equal(count(out, "PC 0x"), count(all, "PC 0x") - count(all, "LLC-ACCESS"));
	free(out);
	free(all);
}

/* A count of stat's human output: the number before name (-1: none). */
static long long stat_count(const char *out, const char *name)
{
	for (const char *l = out; (l = strstr(l, name)); l++) {
		const char *b = l;
		while (b > out && b[-1] != '\n')
			b--;
		char num[64];
		size_t n = 0;
		for (const char *p = b; p < l && n + 1 < sizeof(num); p++)
			if (*p >= '0' && *p <= '9')
				num[n++] = *p;
		num[n] = '\0';
		if (n && strncmp(l + strlen(name), " ", 1) == 0)
			return atoll(num);
	}
	return -1;
}

/* The SPE's own events of the core PMU count on the model while the unit
 * samples: every operation (SAMPLE_POP), each interval's sample taken
 * (SAMPLE_FEED) or lost to one still in flight (SAMPLE_COLLISION), those
 * the filters keep (SAMPLE_FILTRATE), the FEED_* by kind and filter where
 * the tree lists them; collisions reach the AUX records' flags. */
static void test_spe_events(void **state)
{
	(void)state;
	char tree[4096], *out, *log;
	const char *src = getenv("PK_SRCDIR");
	snprintf(tree, sizeof(tree), "%s/tests/model/data/spe-current", src ? src : ".");
	const char *scn = variant("events.json", NULL, tree);
	/* five counters and the SPE's: no multiplexing, exact counts */
	assert_int_equal(pk_test_pmukit_run(&out, "stat --model %s -e arm_spe_0/period=256,"
						  "load_filter=1/,sample_pop,sample_feed,sample_filtrate,"
						  "sample_collision,sample_feed_ld", scn), 0);
	long long pop = stat_count(out, "sample_pop"), feed = stat_count(out, "sample_feed"),
		  filt = stat_count(out, "sample_filtrate"), coll = stat_count(out, "sample_collision"),
		  ld = stat_count(out, "sample_feed_ld");
	printf("pop %lld feed %lld filtrate %lld collision %lld ld %lld\n", pop, feed, filt, coll, ld);
	assert_true(coll > 0 && feed > 0);
	assert_true(llabs(feed + coll - pop / 256) <= 1);
	assert_true(filt > 0 && filt < feed);
	assert_int_equal(filt, ld); /* the load filter alone: the loads */
	free(out);
	assert_int_equal(pk_test_pmukit_run(&log, "record --model %s -e arm_spe// -c 256 -o %s/c.data",
					    scn, pd_test_dir), 0);
	assert_null(strstr(log, " 0 collision ]"));
	assert_non_null(strstr(log, "collision"));
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),           cmocka_unit_test(test_info_roundtrip),
		cmocka_unit_test(test_record_and_dump), cmocka_unit_test(test_same_bytes),
		cmocka_unit_test(test_dump_vs_perf),    cmocka_unit_test(test_samples_vs_perf),
		cmocka_unit_test(test_hostile_options),
		cmocka_unit_test(test_period_raised),
		cmocka_unit_test(test_no_spe_pmu),      cmocka_unit_test(test_unprivileged),
		cmocka_unit_test(test_discard),
		cmocka_unit_test(test_inv_event_filter),
		cmocka_unit_test(test_spe_events),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
