/* Differential test of `pmukit report --stdio` against Linux perf report:
 * real recordings (software events with and without -g, system-wide, a
 * {cpu-clock,task-clock}:S group, a program with deep call stacks compiled
 * here) read by both tools with many option sets (the table, and --stats,
 * --tasks, --mmaps, -T, -F, --hierarchy, -k, --symfs); prints "N/M identical"
 * and fails on any case that differs unless docs/perfdata-differences.md
 * lists it (as `file options`) with its reason in its "report" section.
 * perf's tip ("# (Tip: ...)", chosen at random) is left out of the
 * comparison. Skipped with the reason when perf or a C compiler is absent. */
#include "helpers.h"
#include "pd_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char deep_c[] =
	"#include <stdlib.h>\n"
	"volatile unsigned long sink;\n"
	"__attribute__((noinline)) static unsigned long leaf(unsigned long x)\n"
	"{ for (int i = 0; i < 2000; i++) x = x * 6364136223846793005UL + 1; return x; }\n"
	"__attribute__((noinline)) static unsigned long mid(int d, unsigned long x)\n"
	"{ if (d == 0) return leaf(x); return mid(d - 1, x) + (d & 1 ? leaf(x + d) : 0); }\n"
	"__attribute__((noinline)) static unsigned long alpha(unsigned long x) { return mid(6, x); }\n"
	"__attribute__((noinline)) static unsigned long beta(unsigned long x)\n"
	"{ return mid(3, x) + leaf(x); }\n"
	"int main(int argc, char **argv)\n"
	"{ long n = argc > 1 ? atol(argv[1]) : 20000;\n"
	"  for (long i = 0; i < n; i++) { sink += alpha(i); if (i % 3 == 0) sink += beta(i); }\n"
	"  return 0; }\n";

typedef struct rcase {
	const char *file, *opts;
} rcase;

static const rcase cases[] = {
	{"f.data", ""}, {"f.data", "-n"}, {"f.data", "--show-total-period"}, {"f.data", "-q"},
	{"f.data", "-s sym"}, {"f.data", "-s dso,sym"}, {"f.data", "-s pid"}, {"f.data", "-s cpu"},
	{"f.data", "-s socket"}, {"f.data", "-s period"}, {"f.data", "-s sample"},
	{"f.data", "-s weight"}, {"f.data", "-s local_weight"}, {"f.data", "-s cgroup"},
	{"f.data", "-s sym,dso"}, {"f.data", "-s dso,comm"}, {"f.data", "--percent-limit 1"},
	{"f.data", "--symbols leaf"}, {"f.data", "--dsos deep"}, {"f.data", "--comm deep"},
	{"f.data", "--comm deep --percentage relative"}, {"f.data", "-C 0"}, {"f.data", "-s ''"},
	/* a filter whose key is not sorted on: an entry is hidden by its first sample */
	{"f.data", "--symbols leaf -s dso"}, {"f.data", "--symbols leaf,mid -s comm -n"},
	{"f.data", "--symbols leaf -s dso --percentage relative"}, {"f.data", "--dsos deep -s comm"},
	{"g.data", "--symbols leaf -s dso"}, {"g.data", "--symbols leaf -s comm -g none"},
	{"g.data", ""}, {"g.data", "--no-children"}, {"g.data", "-g fractal"},
	{"g.data", "-g flat"}, {"g.data", "-g folded"}, {"g.data", "-g none"},
	{"g.data", "-g caller"}, {"g.data", "-g callee"}, {"g.data", "--no-children -g caller"},
	{"g.data", "--no-children -g fractal"}, {"g.data", "--no-children -g flat"},
	{"g.data", "--no-children -g folded"}, {"g.data", "-G"}, {"g.data", "--no-children -G"},
	{"g.data", "--max-stack 3"}, {"g.data", "--no-children --max-stack 4"},
	{"g.data", "-g graph,2"}, {"g.data", "-g fractal,5,caller"}, {"g.data", "-g graph,0.5,count"},
	{"g.data", "-g graph,0.5,period"}, {"g.data", "--percent-limit 10"}, {"g.data", "-n"},
	{"g.data", "-s sym"}, {"g.data", "-s dso"}, {"g.data", "-s parent"},
	{"g.data", "--children -s pid"}, {"tc.data", ""}, {"tc.data", "--no-children"},
	{"pf.data", ""}, {"pf.data", "-n -s sym"}, {"pg.data", ""}, {"pg.data", "--no-children"},
	{"pg.data", "-g folded"}, {"grp.data", ""}, {"grp.data", "--no-group"}, {"grp.data", "-n"},
	{"grp.data", "--show-total-period"}, {"grp.data", "-s sym"}, {"a.data", ""},
	{"a.data", "-s pid"}, {"a.data", "-s cpu"}, {"a.data", "-s dso"}, {"a.data", "-s comm"},
	/* views other than the table, and where symbols come from */
	{"f.data", "--stats"}, {"g.data", "--stats"}, {"grp.data", "--stats"}, {"a.data", "--stats"},
	{"pg.data", "--stats"}, {"f.data", "--tasks"}, {"a.data", "--tasks"}, {"pg.data", "--tasks"},
	{"f.data", "--mmaps"}, {"a.data", "--mmaps"}, {"pg.data", "--mmaps"},
	{"f.data", "-k /dev/null"}, {"g.data", "--kallsyms /dev/null"},
	{"f.data", "--symfs /nonexist"}, {"g.data", "--symfs /"}, {"pf.data", "--symfs /tmp"},
	{"f.data", "--time 1,2"}, {"f.data", "-C 7"}, {"rd.data", "-T"}, {"rd.data", "-T -n"},
	/* --group / --no-group on two events outside a group: perf's forced leader */
	{"rd.data", "--group"}, {"rd.data", "--no-group"}, {"rd.data", "--group -n -s comm"},
	{"f.data", "-T"},
	/* -g on a file without call chains: perf 6.1 refuses it (no table) */
	{"f.data", "-g caller"}, {"f.data", "--no-children -g folded"}, {"f.data", "-g caller -g none"},
	/* -F: columns and the order they make, with and without -s */
	{"f.data", "-F overhead,sym"}, {"f.data", "-F sym"}, {"f.data", "-F overhead,sample,period,comm"},
	{"f.data", "-F overhead_sys,overhead_us,dso"}, {"f.data", "-F +period"},
	{"f.data", "-F dso -s sym"}, {"f.data", "-F overhead,sym -s dso"}, {"f.data", "-F dso,overhead"},
	{"pf.data", "-F overhead_children,overhead_guest_sys,comm"}, {"grp.data", "-F overhead,sample,sym"},
	{"g.data", "-F overhead,sym"}, {"f.data", "-F nosuchfield"}, {"f.data", "-s sym,comm --comm deep"},
	/* --hierarchy: a level per key, chains at the leaves */
	{"f.data", "--hierarchy"}, {"f.data", "--hierarchy -n -s dso,sym"}, {"pf.data", "--hierarchy -s sym,dso"},
	{"grp.data", "--hierarchy"}, {"g.data", "--hierarchy"}, {"g.data", "--hierarchy --show-total-period -s comm"},
};

/* The "report" section of the differences file. */
static char *listed_section(void)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/docs/perfdata-differences.md", getenv("PK_SRCDIR"));
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *sec = strstr(buf, "\n## report");
	assert_non_null(sec);
	char *end = strstr(sec + 1, "\n## ");
	if (end)
		*end = '\0';
	return sec;
}

/* 1 identical, 2 a listed difference, 0 an unlisted one. */
static int run_case(const rcase *c, const char *listed)
{
	char cmd[4096], key[256];
	char *theirs = NULL, *ours = NULL;
	snprintf(cmd, sizeof(cmd), "cd %s && perf report --stdio %s -i %s 2>/dev/null", pd_test_dir,
		 c->opts, c->file);
	pk_test_run(cmd, &theirs, 0);
	snprintf(cmd, sizeof(cmd), "cd %s && %s report --stdio %s -i %s 2>/dev/null", pd_test_dir,
		 pk_test_pmukit(), c->opts, c->file);
	pk_test_run(cmd, &ours, 0);
	assert_non_null(theirs);
	assert_non_null(ours);
	pd_test_drop_tip(theirs);
	pd_test_drop_rest_inlined(theirs);
	pd_test_drop_rest_inlined(ours);
	bool same = !strcmp(theirs, ours);
	snprintf(key, sizeof(key), "`%s%s%s`", c->file, c->opts[0] ? " " : "", c->opts);
	if (!same && pd_test_report_cut_agrees(ours, theirs)) {
		fprintf(stderr, "listed difference: %s (perf 6.1 cut a column: docs/perfdata-differences.md)\n",
			key);
		free(theirs);
		free(ours);
		return 2;
	}
	if (!same) {
		bool ok = strstr(listed, key) != NULL;
		fprintf(stderr, "%s: %s %s\n", ok ? "listed difference" : "UNLISTED DIFFERENCE", key,
			ok ? "" : "(add it to docs/perfdata-differences.md with its reason, or fix it)");
		if (!ok) {
			const char *a = theirs, *b = ours;
			size_t line = 1;
			while (*a && *a == *b) {
				line += *a == '\n';
				a++;
				b++;
			}
			fprintf(stderr, "  first difference at line %zu:\n  perf:   %.120s\n  pmukit: %.120s\n",
				line, a, b);
		}
		free(theirs);
		free(ours);
		return ok ? 2 : 0;
	}
	free(theirs);
	free(ours);
	return 1;
}

static void test_report_differential(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("cc");
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "cd %s && cat > deep.c && cc -O1 -fno-omit-frame-pointer -o deep deep.c",
		 pd_test_dir);
	FILE *p = popen(cmd, "w");
	assert_non_null(p);
	fputs(deep_c, p);
	assert_int_equal(pclose(p), 0);
	/* small recordings (a few hundred samples): the suite also runs under
	 * the sanitizers */
	pd_test_record("perf", "-e cpu-clock -o f.data ./deep 12000");
	pd_test_record("perf", "-g -e cpu-clock -o g.data ./deep 12000");
	pd_test_record("perf", "-g -e task-clock -c 200000 -o tc.data ./deep 8000");
	pd_test_record("perf", "-e page-faults -c 1 -o pf.data ./deep 2000");
	pd_test_record("perf", "-e '{cpu-clock,task-clock}:S' -o grp.data ./deep 8000");
	pd_test_record("perf", "-a -e cpu-clock -o a.data ./deep 5000");
	pd_test_record(pk_test_pmukit(), "-g -e cpu-clock -o pg.data ./deep 12000");
	/* -s: a READ record per thread and event at exit (-T), children forked */
	pd_test_record("perf", "-s -e cpu-clock -e page-faults -o rd.data sh -c './deep 2000; ./deep 1000'");
	const char *listed = listed_section();
	size_t n = sizeof(cases) / sizeof(cases[0]), same = 0, allowed = 0, bad = 0;
	for (size_t i = 0; i < n; i++) {
		int r = run_case(&cases[i], listed);
		same += r == 1;
		allowed += r == 2;
		bad += r == 0;
	}
	fprintf(stderr, "report differential: %zu/%zu identical (%zu listed differences, %zu unlisted)\n",
		same, n, allowed, bad);
	printf("report differential: %zu/%zu identical\n", same, n);
	assert_int_equal(bad, 0);
	assert_true(same > n / 2);
}

/* --hierarchy cuts a comm to its column as the flat table does: perf 6.1
 * sizes the column by each thread's last name, so the samples of a script
 * taken before it exec'ed a short-named program print its name cut
 * ("run-lon" in Command's 7 columns). Byte for byte, not as a listed cut. */
static void test_report_hier_comm_cut(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	char cmd[4096];
	snprintf(cmd, sizeof(cmd),
		 "cd %s && printf '#!/bin/sh\\nexec /bin/true\\n' > run-long-name && chmod +x run-long-name",
		 pd_test_dir);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	pd_test_record("perf", "-e page-faults -c 1 -o hx.data ./run-long-name");
	static const char *const opts[] = {"--hierarchy", "--hierarchy -s comm", "--hierarchy -n -s dso,comm"};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		char *theirs = NULL, *ours = NULL;
		snprintf(cmd, sizeof(cmd), "cd %s && perf report --stdio %s -i hx.data 2>/dev/null", pd_test_dir,
			 opts[i]);
		pk_test_run(cmd, &theirs, 0);
		snprintf(cmd, sizeof(cmd), "cd %s && %s report --stdio %s -i hx.data 2>/dev/null", pd_test_dir,
			 pk_test_pmukit(), opts[i]);
		pk_test_run(cmd, &ours, 0);
		assert_non_null(theirs);
		assert_non_null(ours);
		pd_test_drop_tip(theirs);
		assert_non_null(strstr(theirs, "run-lon\n")); /* the case is there */
		if (strcmp(theirs, ours))
			fprintf(stderr, "--hierarchy differs (%s):\nperf:\n%s\npmukit:\n%s\n", opts[i], theirs, ours);
		assert_string_equal(theirs, ours);
		free(theirs);
		free(ours);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_differential),
		cmocka_unit_test(test_report_hier_comm_cut),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
