/* `pmukit stat --model` end to end (issue 8): raw PERF_METRICS counts give
 * the scenario's shares within the 8-bit bound (with and without -I),
 * multiplexing shows running < enabled with scaled values close to the
 * truth, hybrid running percentages are the time on each core type, each
 * driver rule's error reaches the user, runs are byte-identical, and every
 * output says it is modeled. The truth comes from the scenario as parsed
 * (phases' ms, ghz and shares), never from the model's own output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "model/model.h"

#define SPR "sapphirerapids.json"
#define ICL "icelake.json"
#define SKL "skylake.json"
#define ADL "alderlake-hybrid.json"
#define L1 "{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound}"

#define example pk_test_example

#define run pk_test_pmukit_run

/* One CSV row of stat -x, (with -I: a time column first). */
typedef struct row {
	double value, run, pct;
	char event[128];
} row;

/* The rows of CSV output; returns how many (at most max). */
static size_t csv_rows(const char *out, bool interval, row *rows, size_t max)
{
	size_t n = 0;
	char line[1024], *f[16];
	for (const char *l = out; n < max && pk_test_next_line(&l, line, sizeof(line));) {
		if (line[0] == '#' || !strchr(line, ','))
			continue;
		int nf = pk_test_csv_split(line, f, 16);
		int o = interval ? 1 : 0;
		if (nf < 5 + o)
			continue;
		rows[n].value = atof(f[o]);
		snprintf(rows[n].event, sizeof(rows[n].event), "%s", f[o + 2]);
		rows[n].run = atof(f[o + 3]);
		rows[n].pct = atof(f[o + 4]);
		n++;
	}
	return n;
}

static double value_of(const row *rows, size_t n, const char *event)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].event, event))
			return rows[i].value;
	fail_msg("no row for %s", event);
	return -1;
}

static void load(const char *name, pki_scenario *s)
{
	pk_error err;
	pk_error_clear(&err);
	if (pki_scenario_load(example(name), s, &err) < 0)
		fail_msg("%s", err.msg);
}

/* The scenario's share of node over the slots thread 0 spends in
 * [from_ms, to_ms) (slots per ms are ghz x width; the width cancels out
 * within one core type). */
static double share_between(const pki_scenario *s, int node, double from_ms, double to_ms)
{
	double num = 0, den = 0, start = 0;
	const pki_thread *t = &s->threads[0];
	for (size_t i = 0; i < t->nr_phases; i++) {
		double a = fmax(start, from_ms), b = fmin(start + t->phases[i].ms, to_ms);
		if (b > a) {
			num += (b - a) * t->phases[i].ghz * t->phases[i].tma[node];
			den += (b - a) * t->phases[i].ghz;
		}
		start += t->phases[i].ms;
	}
	return num / den;
}

static double true_share(const pki_scenario *s, int node)
{
	return share_between(s, node, 0, 1e12);
}

static double total_ms(const pki_thread *t)
{
	double ms = 0;
	for (size_t i = 0; i < t->nr_phases; i++)
		ms += t->phases[i].ms;
	return ms;
}

static const char *const l1_names[] = {"topdown-retiring", "topdown-bad-spec",
				       "topdown-fe-bound", "topdown-be-bound"};

/* The SPR example parsed, and its Level 1 counts as stat -x, prints them
 * with extra options (-I: the interval rows). */
static size_t run_l1(pki_scenario *s, const char *opts, row *rows, size_t max)
{
	char *out;
	load(SPR, s);
	assert_int_equal(run(&out, "stat --model %s -x, %s -e '" L1 "'", example(SPR), opts), 0);
	size_t n = csv_rows(out, *opts != '\0', rows, max);
	free(out);
	return n;
}

/* One read over the whole run: each ratio within one 8-bit unit (1/255) of
 * the share, plus one count of truncation (1/slots); docs/model.md "Bound
 * over many reads" with N = 1. */
static void test_raw_counts_one_read(void **state)
{
	(void)state;
	pki_scenario s;
	row rows[16];
	size_t n = run_l1(&s, "", rows, 16);
	assert_int_equal(n, 5);
	double slots = value_of(rows, n, "slots");
	assert_true(slots > 0);
	for (int i = 0; i < 4; i++) {
		double ratio = value_of(rows, n, l1_names[i]) / slots;
		double bound = 1.0 / 255 + 1.0 / slots;
		if (fabs(ratio - true_share(&s, i)) > bound)
			fail_msg("%s: %f vs share %f (bound %f)", l1_names[i], ratio,
				 true_share(&s, i), bound);
	}
	pki_scenario_release(&s);
}

/* -I 100: every interval reads (and clears) the register; summed over N
 * reads covering S slots each metric is within S/255 + N of S x share. */
static void test_raw_counts_intervals(void **state)
{
	(void)state;
	pki_scenario s;
	row rows[512];
	size_t n = run_l1(&s, "-I 100", rows, 512);
	size_t reads = (size_t)ceil(total_ms(&s.threads[0]) / 100);
	assert_int_equal(n, 5 * reads); /* all intervals, at once, no partial one */
	double slots = 0, metric[4] = {0};
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(rows[i].event, "slots"))
			slots += rows[i].value;
		/* each interval alone: one read, within 1/255 + 1/slots of its share */
		size_t iv = i / 5;
		for (int k = 0; k < 4 && i % 5 == 0; k++) {
			assert_string_equal(rows[i].event, "slots");
			assert_string_equal(rows[i + 1 + k].event, l1_names[k]);
			double ratio = rows[i + 1 + k].value / rows[i].value;
			double want = share_between(&s, k, 100.0 * iv, 100.0 * (iv + 1));
			if (fabs(ratio - want) > 1.0 / 255 + 1 / rows[i].value)
				fail_msg("interval %zu %s: %f vs %f", iv, l1_names[k], ratio, want);
		}
		for (int k = 0; k < 4; k++)
			if (!strcmp(rows[i].event, l1_names[k]))
				metric[k] += rows[i].value;
	}
	for (int k = 0; k < 4; k++) {
		double bound = slots / 255 + (double)reads;
		double want = slots * true_share(&s, k);
		if (fabs(metric[k] - want) > bound)
			fail_msg("%s: %f vs %f (bound %f)", l1_names[k], metric[k], want, bound);
	}
	pki_scenario_release(&s);
}

/* More cycles events than SPR's counters (8 generic + fixed 1): they rotate,
 * each runs part of the time, and the scaled value is the scenario's
 * cycles. */
static void test_multiplexing(void **state)
{
	(void)state;
	pki_scenario s;
	char *out, ev[512] = "cycles";
	row rows[32];
	load(SPR, &s);
	for (int i = 1; i < 12; i++)
		strcat(ev, ",cycles");
	assert_int_equal(run(&out, "stat --model %s -x, -e %s", example(SPR), ev), 0);
	size_t n = csv_rows(out, false, rows, 32);
	assert_int_equal(n, 12);
	double truth = 0;
	for (size_t i = 0; i < s.threads[0].nr_phases; i++)
		truth += s.threads[0].phases[i].ms * s.threads[0].phases[i].ghz * 1e6;
	for (size_t i = 0; i < n; i++) {
		assert_true(rows[i].pct < 100.0 && rows[i].pct > 50.0);
		if (fabs(rows[i].value - truth) > 0.01 * truth)
			fail_msg("cycles %zu: %f vs %f", i, rows[i].value, truth);
	}
	free(out);
	/* a pinned event (:D) is scheduled first: it runs all the time */
	assert_int_equal(run(&out, "stat --model %s -x, -e %s,cycles:D", example(SPR), ev), 0);
	n = csv_rows(out, false, rows, 32);
	assert_int_equal(n, 13);
	assert_true(rows[12].pct == 100.0);
	assert_true(rows[0].pct < 100.0);
	free(out);
	/* the same events in fewer than the counters do not multiplex */
	assert_int_equal(run(&out, "stat --model %s -x, -e cycles,cycles,cycles", example(SPR)), 0);
	n = csv_rows(out, false, rows, 32);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		assert_true(rows[i].pct == 100.0);
	free(out);
	pki_scenario_release(&s);
}

/* Per thread on the hybrid machine: an event of each core type runs the
 * share of time the thread spends on that core type. */
static void test_hybrid_running(void **state)
{
	(void)state;
	pki_scenario s;
	char *out;
	load(ADL, &s);
	assert_int_equal(run(&out, "stat --model %s --per-thread -x, -e cycles", example(ADL)), 0);
	for (size_t t = 0; t < s.nr_threads; t++) {
		const pki_thread *th = &s.threads[t];
		double core_ms = 0;
		for (size_t i = 0; i < th->nr_phases; i++)
			core_ms += th->phases[i].core_type == PKI_CORE_BIG ? th->phases[i].ms : 0;
		for (int big = 0; big < 2; big++) {
			char want[128], *at;
			double pct = 100.0 * (big ? core_ms : total_ms(th) - core_ms) / total_ms(th);
			snprintf(want, sizeof(want), "%s-%d,", th->comm, th->tid);
			char ev[64];
			snprintf(ev, sizeof(ev), ",%s/cycles/,", big ? "cpu_core" : "cpu_atom");
			bool found = false;
			for (at = strstr(out, want); at; at = strstr(at + 1, want)) {
				char line[512];
				const char *nl = strchr(at, '\n');
				snprintf(line, sizeof(line), "%.*s", (int)(nl - at), at);
				if (!strstr(line, ev))
					continue;
				found = true;
				if (pct == 0) {
					assert_non_null(strstr(line, "<not counted>"));
				} else {
					char *f = strstr(line, ev) + strlen(ev);
					f = strchr(f, ',') + 1; /* past the running time */
					if (fabs(atof(f) - pct) > 0.01)
						fail_msg("%s %s: running %s%% vs %f", want, ev, f, pct);
				}
			}
			assert_true(found);
		}
	}
	free(out);
	pki_scenario_release(&s);
}

/* Each of the driver's rules: the event is <not supported> and the note
 * says why, with the kernel's errno. */
static void expect_refusal(const char *scenario, const char *events, const char *why)
{
	char *out;
	int rc = run(&out, "stat --model %s -e '%s'", example(scenario), events);
	assert_int_equal(rc, 0); /* as perf stat: the others are counted */
	if (!strstr(out, "<not supported>") ||
	    !strstr(out, "(Invalid argument): the model's driver refuses it: ") ||
	    !strstr(out, why))
		fail_msg("%s: want '%s' in:\n%s", events, why, out);
	free(out);
}

static void expect_accepted(const char *scenario, const char *events)
{
	char *out;
	assert_int_equal(run(&out, "stat --model %s -e '%s'", example(scenario), events), 0);
	if (strstr(out, "<not supported>") || strstr(out, "refuses"))
		fail_msg("%s refused:\n%s", events, out);
	free(out);
}

/* ref-cycles, bus-cycles (Golden Cove: REF_TSC_P) and the per-instruction
 * rates counted from the scenario as parsed: ref-cycles = ms x ref_ghz x 1e6
 * whatever the phases' ghz; branches etc. = each phase's instructions x its
 * rate (instructions = width x light_operations x cycles). */
static void test_scenario_rates(void **state)
{
	(void)state;
	pki_scenario s;
	load(SPR, &s);
	pk_error err;
	const pki_counters *c = pki_counters_find(&s.cpuid, "cpu", &err);
	assert_non_null(c);
	double want[PKI_RATE_NR] = {0}, ref = total_ms(&s.threads[0]) * s.ref_ghz * 1e6;
	const pki_thread *t = &s.threads[0];
	for (size_t p = 0; p < t->nr_phases; p++) {
		const pki_phase *ph = &t->phases[p];
		double insns = c->width * (ph->tma[PKI_TMA_RETIRING] - ph->tma[PKI_TMA_HEAVY_OPS]) *
			       (double)pki_phase_cycles(ph);
		for (int i = 0; i < PKI_RATE_BUS_CYCLES; i++)
			want[i] += insns * ph->rate[i];
	}
	char *out;
	row rows[16];
	assert_int_equal(run(&out, "stat --model %s -x, -e ref-cycles,branches,cache-references,"
				   "cache-misses,bus-cycles", example(SPR)), 0);
	size_t n = csv_rows(out, false, rows, 16);
	free(out);
	assert_true(ref > 0);
	assert_true(fabs(value_of(rows, n, "ref-cycles") - ref) <= 1);
	assert_true(fabs(value_of(rows, n, "bus-cycles") - ref) <= 1);
	static const char *const names[] = {"branches", "cache-references", "cache-misses"};
	for (int i = 0; i < 3; i++)
		if (!(want[i] > 0) || fabs(value_of(rows, n, names[i]) - want[i]) > 1)
			fail_msg("%s: %f, want %f", names[i], value_of(rows, n, names[i]), want[i]);
	pki_scenario_release(&s);
}

/* No ref_ghz (Ice Lake's example), no rate in one phase, or a core without
 * ref-cycles (Zen 4): not supported, and the note says what to add or why. */
static void expect_not_counted(const char *path, const char *events, const char *why)
{
	char *out;
	assert_int_equal(run(&out, "stat -v --model %s -e %s", path, events), 0);
	if (!strstr(out, "<not supported>") || !strstr(out, why))
		fail_msg("%s: want '%s' in:\n%s", events, why, out);
	free(out);
}

static void test_rates_refused(void **state)
{
	(void)state;
	expect_not_counted(example(ICL), "ref-cycles", "add \"ref_ghz\"");
	expect_not_counted(example(ICL), "branches", "add \"rates\": {\"branches\"");
	expect_not_counted(example("zen4.json"), "ref-cycles",
			   "no count for hardware event 'ref-cycles' on Zen 4");
	/* a rate in one phase only: refused, never a silent 0 for the other */
	char *dir = pk_test_tmpdir(), path[1200];
	assert_non_null(dir);
	pk_test_put_file(dir, "s.json",
			 "{\"machine\": \"sapphirerapids\", \"threads\": [{\"tid\": 7, "
			 "\"comm\": \"a\", \"cpu\": 0, \"phases\": [{\"ms\": 5, \"ghz\": 2, "
			 "\"tma\": {\"retiring\": 1, \"bad_speculation\": 0, \"frontend_bound\": 0, "
			 "\"backend_bound\": 0}, \"rates\": {\"branches\": 0.2}}, {\"ms\": 5, "
			 "\"ghz\": 2, \"tma\": {\"retiring\": 1, \"bad_speculation\": 0, "
			 "\"frontend_bound\": 0, \"backend_bound\": 0}}]}]}");
	snprintf(path, sizeof(path), "%s/s.json", dir);
	expect_not_counted(path, "branches", "add \"rates\": {\"branches\"");
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void test_rules(void **state)
{
	(void)state;
	/* the parser fixes or refuses the named metric events (tests/events);
	 * the raw encodings reach the model's driver as written */
	expect_refusal(SPR, "{cpu/event=0,umask=0x80/}", "metric events need a slots group leader");
	expect_refusal(SPR, "{slots,cpu/event=0,umask=0x80,period=1000/}",
		       "metric events cannot sample");
	expect_refusal(SPR, "{cpu/slots,period=1000/,topdown-retiring}",
		       "the slots leader of metric events cannot sample");
	expect_accepted(SPR, "{slots,cpu/cycles,period=1000/,topdown-retiring}");
	expect_refusal(SPR, "{cpu/slots,config1=2/,topdown-retiring}",
		       "slots takes no config1 bits but metrics-clear");
	expect_accepted(SPR, "{cpu/slots,config1=1/,topdown-retiring}");
	expect_refusal(SPR, "{slots,cpu/topdown-retiring,config1=1/}",
		       "a metric event takes no config1 bits");
	expect_refusal(SPR, "{cpu/slots,edge/,topdown-retiring}", "slots takes no filter bits");
	expect_refusal(SPR, "{slots,cpu/topdown-retiring,cmask=1/}",
		       "a metric event takes no filter bits");
	expect_refusal(SKL, "cpu/event=0,umask=0x80/", /* Skylake has no slots event either */
		       "need the PERF_METRICS register");
	expect_refusal(ICL, "{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,"
			    "topdown-be-bound,topdown-retiring}",
		       "more metric events in one group than PERF_METRICS has fields (4");
	expect_refusal(ICL, "{slots,topdown-retiring,cpu/event=0,umask=0x84/}",
		       "Level 2 metric events");
	expect_accepted(SPR, "{slots,topdown-retiring,topdown-heavy-ops,topdown-mem-bound}");
}

/* The same run twice is byte-identical, in every format. */
static void test_deterministic(void **state)
{
	(void)state;
	static const char *const forms[] = {"-x,", "-j", ""};
	for (size_t i = 0; i < 3; i++) {
		char *a, *b;
		assert_int_equal(run(&a, "stat --model %s %s -I 100 -e '" L1 "',cycles", example(SPR),
				     forms[i]), 0);
		assert_int_equal(run(&b, "stat --model %s %s -I 100 -e '" L1 "',cycles", example(SPR),
				     forms[i]), 0);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	/* to a file too: no wall-clock "started on" line */
	char *tmp = pk_test_tmpdir(), *a, *b, cmd[8192];
	snprintf(cmd, sizeof(cmd), "stat --model %s -o %s/o -e cycles -I 100 && cat %s/o",
		 example(SPR), tmp, tmp);
	assert_int_equal(run(&a, "%s", cmd), 0);
	sleep(1);
	assert_int_equal(run(&b, "%s", cmd), 0);
	assert_null(strstr(a, "started on"));
	assert_non_null(strstr(a, "# modeled: "));
	assert_string_equal(a, b);
	free(a);
	free(b);
	snprintf(cmd, sizeof(cmd), "%s/o", tmp);
	unlink(cmd);
	rmdir(tmp);
	free(tmp);
}

/* Every output says it is modeled; no user/sys seconds; the model's
 * machine gives list and encode their PMUs. */
static void test_labeled(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(run(&out, "stat --model %s -e cycles", example(SPR)), 0);
	assert_non_null(strstr(out, "# modeled: scenario '"));
	assert_non_null(strstr(out, "on machine 'sapphirerapids' -- no hardware was measured"));
	assert_non_null(strstr(out, "seconds time elapsed (modeled)"));
	assert_null(strstr(out, "seconds user"));
	free(out);
	assert_int_equal(run(&out, "stat --model %s -x, -e cycles", example(SPR)), 0);
	assert_true(!strncmp(out, "# modeled: ", 11));
	free(out);
	assert_int_equal(run(&out, "stat --model %s -j -e cycles", example(SPR)), 0);
	assert_non_null(strstr(out, "\"modeled\" : \"scenario '"));
	free(out);
	/* the model's CPUs: -a on the hybrid machine counts on 24 CPUs */
	assert_int_equal(run(&out, "stat --model %s -a -A -x, -e cpu_core/cycles/", example(ADL)),
			 0);
	assert_non_null(strstr(out, "CPU15,"));
	assert_null(strstr(out, "CPU16,"));
	free(out);
	assert_int_equal(run(&out, "list --model %s topdown-heavy", example(ADL)), 0);
	assert_non_null(strstr(out, "cpu_core/topdown-heavy-ops/"));
	free(out);
	assert_int_equal(run(&out, "encode --model %s -e topdown-retiring", example(SPR)), 0);
	assert_non_null(strstr(out, "0x8000"));
	free(out);
	assert_int_not_equal(run(&out, "stat --model %s -- true", example(SPR)), 0);
	assert_non_null(strstr(out, "no command"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_counts_one_read),
		cmocka_unit_test(test_raw_counts_intervals),
		cmocka_unit_test(test_multiplexing),
		cmocka_unit_test(test_hybrid_running),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_scenario_rates),
		cmocka_unit_test(test_rates_refused),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_labeled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
