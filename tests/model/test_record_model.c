/* pmukit record --model (issue 8): the perf.data file of a scenario run in
 * virtual time, read back by pmukit script/report and by Linux perf when it
 * is installed (skipped with a printed reason when not). Checked against
 * the scenario as parsed: the number of samples per thread is its cycles /
 * period, each sample's IP is its phase's, its time the overflow's
 * ((k + 1) x period cycles at the phase's GHz), its period the period; a
 * {slots,cycles,topdown-retiring}:S group samples on cycles with the
 * group's values; two runs give the same bytes; the run says it is
 * modeled. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/model.h"

static char *tmp;

static const char *example(const char *name)
{
	static char path[4096];
	const char *src = getenv("PK_SRCDIR");
	snprintf(path, sizeof(path), "%s/examples/model/%s", src ? src : ".", name);
	return path;
}

static pki_scenario scenario(const char *name)
{
	pki_scenario s;
	pk_error err;
	pk_error_clear(&err);
	if (pki_scenario_load(example(name), &s, &err) < 0)
		fail_msg("%s: %s", name, err.msg);
	return s;
}

static bool have_perf(void)
{
	char *out = NULL;
	int r = pk_test_run("perf version", &out, 1);
	free(out);
	if (r != 0)
		printf("skipped: Linux perf is not installed, the model's files are not read by it\n");
	return r == 0;
}

/* Records a scenario into tmp/NAME; the run's output (stderr) in *log. */
static void record(const char *scen, const char *args, const char *name, char **log)
{
	int r = pk_test_pmukit_run(log, "record --model %s %s -o %s/%s", example(scen), args, tmp,
				   name);
	if (r != 0)
		fail_msg("record --model %s %s: %d\n%s", scen, args, r, *log);
}

/* Checks every line "comm tid sec.ns: period ip" against the one-thread
 * scenario s at period p; returns the number of samples. */
static size_t check_samples(const char *out, const pki_scenario *s, uint64_t p)
{
	const pki_thread *t = &s->threads[0];
	size_t k = 0;
	for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char comm[32];
		int tid;
		unsigned long long sec, ns, period, ip;
		if (sscanf(line, "%31s %d %llu.%llu: %llu %llx", comm, &tid, &sec, &ns, &period, &ip) != 6)
			continue;
		assert_string_equal(comm, t->comm);
		assert_int_equal(tid, t->tid);
		assert_int_equal(period, p);
		/* overflow k at (k + 1) x p cycles: walk the phases */
		double cycles = (double)(k + 1) * (double)p, at_ns = 0;
		size_t ph = 0;
		while (ph < t->nr_phases && cycles > (double)pki_phase_cycles(&t->phases[ph])) {
			cycles -= (double)pki_phase_cycles(&t->phases[ph]);
			at_ns += t->phases[ph].ms * 1e6;
			ph++;
		}
		assert_true(ph < t->nr_phases);
		at_ns += cycles / t->phases[ph].ghz;
		uint64_t time = sec * 1000000000ull + ns;
		if (fabs((double)time - at_ns) > 1.0)
			fail_msg("sample %zu at %llu ns, want %.1f", k, (unsigned long long)time, at_ns);
		assert_int_equal(ip, t->phases[ph].ip);
		k++;
	}
	return k;
}

static uint64_t total_cycles(const pki_thread *t)
{
	uint64_t c = 0;
	for (size_t i = 0; i < t->nr_phases; i++)
		c += pki_phase_cycles(&t->phases[i]);
	return c;
}

static void test_fixed_period(void **state)
{
	(void)state;
	pki_scenario s = scenario("sapphirerapids.json");
	char *log = NULL, *out = NULL, cmd[8192];
	const uint64_t p = 1000000;
	record("sapphirerapids.json", "-c 1000000", "spr.data", &log);
	assert_non_null(strstr(log, "# modeled: scenario"));
	assert_non_null(strstr(log, "no hardware was measured"));
	size_t want = total_cycles(&s.threads[0]) / p;
	assert_int_equal(pk_test_pmukit_run(&out, "script -i %s/spr.data -F comm,tid,time,period,ip --ns",
					    tmp),
			 0);
	assert_int_equal(check_samples(out, &s, p), want);
	free(out);
	if (have_perf()) {
		snprintf(cmd, sizeof(cmd), "perf script -i %s/spr.data -F comm,tid,time,period,ip --ns",
			 tmp);
		assert_int_equal(pk_test_run(cmd, &out, 0), 0);
		assert_int_equal(check_samples(out, &s, p), want);
		free(out);
		snprintf(cmd, sizeof(cmd), "perf report -i %s/spr.data --stdio 2>&1", tmp);
		assert_int_equal(pk_test_run(cmd, &out, 0), 0);
		assert_non_null(strstr(out, "Samples: 3K of event 'cycles'"));
		assert_non_null(strstr(out, "Event count (approx.): 3000000000"));
		free(out);
	}
	free(log);
	pki_scenario_release(&s);
}

/* -a on the hybrid machine: per thread and core type, cycles / period. */
static void test_hybrid_cpus(void **state)
{
	(void)state;
	pki_scenario s = scenario("alderlake-hybrid.json");
	char *log = NULL, *out = NULL;
	record("alderlake-hybrid.json", "-a -c 1000000", "adl.data", &log);
	assert_int_equal(pk_test_pmukit_run(&out, "script -i %s/adl.data -F tid,event", tmp), 0);
	for (size_t t = 0; t < s.nr_threads; t++) {
		for (int atom = 0; atom < 2; atom++) {
			uint64_t cycles = 0;
			for (size_t i = 0; i < s.threads[t].nr_phases; i++)
				if ((s.threads[t].phases[i].core_type == PKI_CORE_ATOM) == atom)
					cycles += pki_phase_cycles(&s.threads[t].phases[i]);
			char want[64];
			size_t n = 0;
			snprintf(want, sizeof(want), "%d %s/cycles/", s.threads[t].tid,
				 atom ? "cpu_atom" : "cpu_core");
			for (const char *l = out; (l = strstr(l, want)); l++) {
				n++;
			}
			assert_int_equal(n, cycles / 1000000);
		}
	}
	free(out);
	free(log);
	pki_scenario_release(&s);
}

/* {slots,cycles,topdown-retiring}:S: cycles samples, each with the group's
 * values; perf prints each value's delta since the last sample. */
static void test_topdown_sample_read(void **state)
{
	(void)state;
	pki_scenario s = scenario("sapphirerapids.json");
	char *log = NULL, *out = NULL, cmd[8192];
	record("sapphirerapids.json", "-c 3000000 -e '{slots,cycles,topdown-retiring}:S'", "td.data",
	       &log);
	if (!have_perf()) {
		free(log);
		pki_scenario_release(&s);
		return;
	}
	snprintf(cmd, sizeof(cmd), "perf script -i %s/td.data -F time,period,event --ns", tmp);
	assert_int_equal(pk_test_run(cmd, &out, 0), 0);
	unsigned long long sec, ns, v, slots = 0, n = 0;
	char ev[64];
	const pki_phase *ph0 = &s.threads[0].phases[0];
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "%llu.%llu: %llu %63[^:]", &sec, &ns, &v, ev) != 4)
			continue;
		bool first_phase = sec * 1000000000ull + ns < (unsigned long long)(ph0->ms * 1e6);
		if (!strcmp(ev, "slots")) {
			slots = v;
		} else if (!strcmp(ev, "cycles")) {
			assert_int_equal(v, 3000000);
			n++;
		} else if (!strcmp(ev, "topdown-retiring") && first_phase && n > 1) {
			/* one read's 8-bit unit plus one count of truncation */
			double share = (double)v / (double)slots;
			assert_true(fabs(share - ph0->tma[PKI_TMA_RETIRING]) < 1.0 / 255 + 1e-6);
		}
	}
	assert_int_equal(n, total_cycles(&s.threads[0]) / 3000000);
	free(out);
	free(log);
	pki_scenario_release(&s);
}

/* Group sampling on the model against perf 6.1: each member's growth since
 * its last sample is one sample, a member that did not grow none (so the
 * script lines and the report's sample counts agree), and the report's
 * rows (the dso column of rows without a symbol widened to 16). */
static void test_group_read_vs_perf(void **state)
{
	(void)state;
	static const struct {
		const char *scen, *events;
	} runs[] = {
		{"skylake.json", "{cycles,instructions}:S"},
		{"skylake.json", "{instructions,cycles,task-clock}:S"},
		{"icelake.json", "{slots,cycles,topdown-retiring,topdown-bad-spec,topdown-fe-bound,"
				 "topdown-be-bound}:S"},
	};
	if (!have_perf())
		return;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char args[512], *log = NULL, *ours = NULL, *theirs = NULL, cmd[8192];
		snprintf(args, sizeof(args), "-e '%s'", runs[i].events);
		record(runs[i].scen, args, "grp.data", &log);
		free(log);
		/* perf's closing tip is random: report rows and counts only (and
		 * not pmukit's "# modeled:" line, test_output_says_modeled's) */
		static const char *const rows = "2>/dev/null | grep -v -e '^#$' -e '^# (Tip' -e '^$' "
						"-e '^# modeled: '";
		static const struct {
			const char *view, *pipe;
		} views[] = {{"script -F event,period,ip", ""}, {"script", ""},
			     {"report --stdio", rows}, {"report --stdio -n --no-group", rows}};
		for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			snprintf(cmd, sizeof(cmd), "perf %s -i %s/grp.data %s", views[v].view, tmp,
				 views[v].pipe);
			assert_int_equal(pk_test_run(cmd, &theirs, 0), 0);
			snprintf(cmd, sizeof(cmd), "%s %s -i %s/grp.data %s", pk_test_pmukit(),
				 views[v].view, tmp, views[v].pipe);
			assert_int_equal(pk_test_run(cmd, &ours, 0), 0);
			if (strcmp(ours, theirs))
				fprintf(stderr, "%s %s: %s\n--- pmukit:\n%.2000s\n--- perf:\n%.2000s\n",
					runs[i].scen, runs[i].events, cmd, ours, theirs);
			assert_string_equal(ours, theirs);
			free(ours);
			free(theirs);
		}
	}
}

/* report and script say a model file's samples are modeled (issue 26):
 * report in a "#" line of its header, script on stderr only (its stdout,
 * which tools parse, is unchanged); a measured file gets neither. */
static void test_output_says_modeled(void **state)
{
	(void)state;
	char *log = NULL, *out = NULL, cmd[8192];
	record("sapphirerapids.json", "-c 1000000", "note.data", &log);
	free(log);
	snprintf(cmd, sizeof(cmd), "%s report -i %s/note.data --stdio 2>/dev/null", pk_test_pmukit(),
		 tmp);
	assert_int_equal(pk_test_run(cmd, &out, 0), 0);
	const char *line = strstr(out, "\n# modeled: these samples come from the PMU model (pmukit "
				       "model of sapphirerapids");
	assert_non_null(line);
	assert_true(line < strstr(out, "# Samples:"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s script -i %s/note.data 2>&1 >/dev/null", pk_test_pmukit(), tmp);
	assert_int_equal(pk_test_run(cmd, &out, 0), 0);
	assert_non_null(strstr(out, "pmukit script: note: these samples come from the PMU model"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s script -i %s/note.data 2>/dev/null", pk_test_pmukit(), tmp);
	assert_int_equal(pk_test_run(cmd, &out, 0), 0);
	assert_null(strstr(out, "modeled"));
	assert_null(strstr(out, "PMU model"));
	free(out);
	/* a file measured on this machine: no note */
	snprintf(cmd, sizeof(cmd), "%s record -e task-clock -o %s/real.data -- true 2>/dev/null && "
		 "%s report -i %s/real.data --stdio 2>&1 && %s script -i %s/real.data 2>&1",
		 pk_test_pmukit(), tmp, pk_test_pmukit(), tmp, pk_test_pmukit(), tmp);
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	assert_null(strstr(out, "modeled"));
	assert_null(strstr(out, "PMU model"));
	free(out);
}

static void test_deterministic(void **state)
{
	(void)state;
	char *log = NULL, *out = NULL, cmd[8192];
	record("skylake.json", "", "a.data", &log);
	free(log);
	snprintf(cmd, sizeof(cmd), "cp %s/a.data %s/b.data", tmp, tmp);
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	free(out);
	record("skylake.json", "", "a.data", &log);
	snprintf(cmd, sizeof(cmd), "cmp %s/a.data %s/b.data", tmp, tmp);
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	free(out);
	free(log);
	/* no command with --model */
	assert_true(pk_test_pmukit_run(&out, "record --model %s -- true", example("skylake.json")) !=
		    0);
	assert_non_null(strstr(out, "no command"));
	free(out);
}

int main(void)
{
	tmp = pk_test_tmpdir();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_period),
		cmocka_unit_test(test_hybrid_cpus),
		cmocka_unit_test(test_topdown_sample_read),
		cmocka_unit_test(test_group_read_vs_perf),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_output_says_modeled),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd) != 0)
		r = r ? r : 1;
	free(tmp);
	return r;
}
