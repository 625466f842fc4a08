/* `pmukit stat` end to end on the real kernel: software events (they count on
 * any Linux, PMU or not), every target and output form, exit statuses,
 * signals, errors, and a differential check against perf stat. */
#include "helpers.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SW_EVENTS "task-clock,page-faults,context-switches,cpu-migrations"

static const char *touch_pages(void)
{
	const char *p = getenv("PK_TOUCH_PAGES");
	return p && *p ? p : "touch_pages";
}

/* Runs `pmukit stat ARGS` with stderr (where stat prints) captured. */
#define stat_run(out, ...) pk_test_pmukit_run(out, "stat " __VA_ARGS__)

static bool has_line(const char *out, const char *a, const char *b)
{
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		if (strstr(line, a) && (!b || strstr(line, b)))
			return true;
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

/* The count in the human line of an event, or -1. */
static double human_count(const char *out, const char *event)
{
	char pat[128];
	snprintf(pat, sizeof(pat), " %s", event);
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		char line[1024];
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		char *at = strstr(line, pat);
		if (at && (at[strlen(pat)] == ' ' || at[strlen(pat)] == '\0')) {
			char digits[64];
			size_t d = 0;
			for (char *p = line; p < at && d + 1 < sizeof(digits); p++)
				if ((*p >= '0' && *p <= '9') || *p == '.')
					digits[d++] = *p;
			digits[d] = '\0';
			return d ? atof(digits) : -1;
		}
		l = nl ? nl + 1 : NULL;
	}
	return -1;
}

static void test_command_counts(void **state)
{
	(void)state;
	char *out;
	int rc = stat_run(&out, "-e " SW_EVENTS " -- %s 2000", touch_pages());
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "Performance counter stats for '"));
	assert_true(has_line(out, "msec task-clock", "CPUs utilized"));
	/* 2000 pages touched, on top of the start-up faults of the same
	 * binary touching none (a sanitizer build has thousands of its own) */
	double faults = human_count(out, "page-faults");
	char *base_out;
	assert_int_equal(stat_run(&base_out, "-e page-faults -- %s 0", touch_pages()), 0);
	double base = human_count(base_out, "page-faults");
	free(base_out);
	assert_true(base > 0);
	assert_true(faults - base >= 2000 - 64 && faults - base <= 2000 + 64);
	assert_true(human_count(out, "context-switches") >= 0);
	assert_true(human_count(out, "cpu-migrations") >= 0);
	assert_true(has_line(out, "seconds time elapsed", NULL));
	assert_true(has_line(out, "seconds user", NULL));
	assert_true(has_line(out, "seconds sys", NULL));
	free(out);
}

static void test_default_set(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(stat_run(&out, "-- true"), 0);
	static const char *const sw[] = {"task-clock", "context-switches", "cpu-migrations",
					 "page-faults"};
	for (size_t i = 0; i < 4; i++)
		assert_true(human_count(out, sw[i]) >= 0);
	/* hardware rows only where a core PMU exists; otherwise one line says why */
	if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	    access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0 ||
	    access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) == 0) {
		assert_true(has_line(out, "cycles", NULL));
		assert_true(has_line(out, "branch-misses", NULL));
	} else {
		assert_false(has_line(out, "cycles", NULL));
		assert_non_null(strstr(out, "note: no core PMU in /sys/bus/event_source/devices"));
		assert_non_null(strstr(out, "hardware events are left out"));
	}
	free(out);
}

static void test_system_wide_and_cpu(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(stat_run(&out, "-a -e task-clock,page-faults -- sleep 0.05"), 0);
	assert_non_null(strstr(out, "for 'system wide'"));
	/* every online CPU ticks through 50 ms */
	assert_true(human_count(out, "task-clock") >= 40.0);
	free(out);
	assert_int_equal(stat_run(&out, "-C 0 -A -e task-clock -- sleep 0.05"), 0);
	assert_non_null(strstr(out, "for 'CPU(s) 0'"));
	assert_true(has_line(out, "CPU0 ", "msec task-clock"));
	assert_false(has_line(out, "CPU1 ", NULL));
	free(out);
	/* a CPU that is not there */
	assert_int_equal(stat_run(&out, "-C 65535 -e task-clock -- true"), 1);
	assert_non_null(strstr(out, "not online"));
	free(out);
}

static void test_attach_pid_and_tid(void **state)
{
	(void)state;
	char *out, cmd[1024];
	/* a busy process to attach to, ended by the script */
	snprintf(cmd, sizeof(cmd),
		 "sh -c 'while :; do :; done' & L=$!; "
		 "%s stat -p $L -e task-clock,page-faults -- sleep 0.1 2>&1; "
		 "%s stat -t $L --per-thread -e task-clock -- sleep 0.1 2>&1; kill $L",
		 pk_test_pmukit(), pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	assert_non_null(strstr(out, "for process id '"));
	assert_non_null(strstr(out, "for thread id '"));
	/* it spins, so it ran: a share of the 100 ms that even a loaded machine
	 * (load 10 on 2 cores) gives it; the attach counted that task's time */
	assert_true(human_count(out, "task-clock") > 1.0);
	assert_true(has_line(out, "sh-", "msec task-clock"));
	free(out);
	assert_int_equal(stat_run(&out, "-p 2147483000 -e task-clock -- true"), 1);
	assert_non_null(strstr(out, "no such process"));
	free(out);
}

static void test_interval(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(stat_run(&out, "-I 100 -e task-clock,page-faults -- sleep 0.35"), 0);
	assert_non_null(strstr(out, "#           time             counts unit events"));
	int lines = 0;
	double last = -1;
	for (const char *l = out; *l;) {
		const char *nl = strchr(l, '\n');
		if (strstr(l, "task-clock") && (!nl || strstr(l, "task-clock") < nl)) {
			double t = atof(l);
			assert_true(t > last);
			last = t;
			lines++;
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	/* 3 full intervals and the last partial one */
	assert_true(lines >= 3 && lines <= 5);
	free(out);
}

static void test_repeat(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(stat_run(&out, "-r 5 -e task-clock,page-faults -- %s 500", touch_pages()),
			 0);
	assert_non_null(strstr(out, "(5 runs):"));
	assert_true(has_line(out, "page-faults", "( +- "));
	assert_true(has_line(out, "seconds time elapsed", "( +- "));
	double faults = human_count(out, "page-faults");
	assert_true(faults >= 500);
	free(out);
}

static char **split_lines(char *s, size_t *n)
{
	size_t cap = 16;
	char **v = malloc(cap * sizeof(*v));
	*n = 0;
	for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n")) {
		if (*n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[(*n)++] = l;
	}
	return v;
}

static void test_csv_shape(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(stat_run(&out, "-x, -e task-clock -e page-faults -- %s 300", touch_pages()), 0);
	size_t n;
	char **lines = split_lines(out, &n);
	assert_int_equal(n, 2);
	/* value,unit,event,runtime,pcnt,metric,metric-unit */
	char f[7][64];
	int k = sscanf(lines[0], "%63[^,],%63[^,],%63[^,],%63[^,],%63[^,],%63[^,],%63[^\n]", f[0],
		       f[1], f[2], f[3], f[4], f[5], f[6]);
	assert_int_equal(k, 7);
	assert_string_equal(f[1], "msec");
	assert_string_equal(f[2], "task-clock");
	assert_string_equal(f[4], "100.00");
	assert_string_equal(f[6], "CPUs utilized");
	k = sscanf(lines[1], "%63[^,],,%63[^,],%63[^,],%63[^,],%63[^,],%63[^\n]", f[0], f[2], f[3],
		   f[4], f[5], f[6]);
	assert_int_equal(k, 6);
	assert_string_equal(f[2], "page-faults");
	assert_true(atol(f[0]) >= 300);
	free(lines);
	free(out);
	/* -A and -I put their columns first */
	assert_int_equal(stat_run(&out, "-x';' -a -A -I 50 -e task-clock -- sleep 0.06"), 0);
	lines = split_lines(out, &n);
	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		double t;
		int cpu;
		assert_int_equal(sscanf(lines[i], "%lf;CPU%d;", &t, &cpu), 2);
		size_t semis = 0;
		for (char *p = lines[i]; *p; p++)
			semis += *p == ';';
		assert_int_equal(semis, 8);
	}
	free(lines);
	free(out);
}

static void test_json_shape(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(stat_run(&out, "-j -e task-clock,page-faults,cycles -- true"), 0);
	size_t n;
	char **lines = split_lines(out, &n);
	assert_int_equal(n, 3);
	static const char *const names[] = {"task-clock", "page-faults", "cycles"};
	for (size_t i = 0; i < n; i++) {
		json_error_t je;
		json_t *j = json_loads(lines[i], 0, &je);
		if (!j)
			fail_msg("not JSON: %s (%s)", lines[i], je.text);
		assert_string_equal(json_string_value(json_object_get(j, "event")), names[i]);
		assert_true(json_is_string(json_object_get(j, "counter-value")));
		assert_true(json_is_string(json_object_get(j, "unit")));
		assert_true(json_is_integer(json_object_get(j, "event-runtime")));
		assert_true(json_is_number(json_object_get(j, "pcnt-running")));
		assert_true(json_is_number(json_object_get(j, "metric-value")));
		assert_true(json_is_string(json_object_get(j, "metric-unit")));
		json_decref(j);
	}
	free(lines);
	free(out);
	/* -o: the file holds perf's "# started on" line, then the JSON */
	char *dir = pk_test_tmpdir();
	char path[512];
	snprintf(path, sizeof(path), "%s/out.json", dir);
	assert_int_equal(stat_run(&out, "-j -I 50 -o %s -e task-clock -- sleep 0.4", path), 0);
	assert_string_equal(out, "");
	free(out);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[2048];
	int objs = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		json_error_t je;
		json_t *j = json_loads(line, 0, &je);
		assert_non_null(j);
		assert_true(json_is_real(json_object_get(j, "interval")));
		json_decref(j);
		objs++;
	}
	fclose(f);
	assert_true(objs >= 2);
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void test_exit_status_and_signals(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(stat_run(&out, "-e task-clock -- sh -c 'exit 7'"), 7);
	assert_true(has_line(out, "msec task-clock", NULL));
	free(out);
	/* killed by a signal pmukit did not pass on: as perf 6.1, "sh: Killed"
	 * (psignal) before the counts, which are printed, and status 0 */
	assert_int_equal(stat_run(&out, "-e task-clock,page-faults -- sh -c 'kill -KILL $$'"), 0);
	assert_true(human_count(out, "page-faults") > 0);
	assert_non_null(strstr(out, "sh: Killed\n"));
	assert_true(strstr(out, "sh: Killed") < strstr(out, "Performance counter stats"));
	free(out);
	assert_int_equal(stat_run(&out, "-e task-clock -- /nonexistent/cmd"), 127);
	assert_non_null(strstr(out, "cannot run '/nonexistent/cmd': No such file or directory"));
	free(out);
}

static void test_ctrl_c_prints(void **state)
{
	(void)state;
	char *out, cmd[1024];
	/* no command: counts until SIGINT, then prints */
	snprintf(cmd, sizeof(cmd),
		 "%s stat -a -e task-clock 2>&1 & P=$!; sleep 0.5; kill -INT $P; wait $P",
		 pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	assert_non_null(strstr(out, "for 'system wide'"));
	assert_true(human_count(out, "task-clock") > 100.0);
	free(out);
	/* with a command, the signal is passed on and its counts printed */
	snprintf(cmd, sizeof(cmd),
		 "%s stat -e task-clock -- sleep 5 2>&1 & P=$!; sleep 0.3; kill -TERM $P; wait $P",
		 pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 128 + 15);
	assert_true(has_line(out, "msec task-clock", NULL));
	free(out);
}

static void test_usage_errors(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(stat_run(&out, "-x, -j -- true"), 129);
	assert_non_null(strstr(out, "-x and -j"));
	free(out);
	assert_int_equal(stat_run(&out, "-A -- true"), 129);
	assert_non_null(strstr(out, "needs -a or -C"));
	free(out);
	assert_int_equal(stat_run(&out, "-I 5 -- true"), 129);
	free(out);
	assert_int_equal(stat_run(&out, "-e 'task-clock,{' -- true"), 1);
	assert_non_null(strstr(out, "event syntax error"));
	free(out);
}

static void test_hybrid_fixture_rows(void **state)
{
	(void)state;
	char *out, cmd[1024];
	snprintf(cmd, sizeof(cmd), "PMUKIT_SYSFS=%s %s stat -x, -- true",
		 pk_test_sysfs("alderlake"), pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	static const char *const order[] = {
		",task-clock,", ",page-faults,", ",cpu_core/cycles/,", ",cpu_atom/cycles/,",
		",cpu_core/instructions/,", ",cpu_atom/instructions/,", ",cpu_core/branches/,",
		",cpu_atom/branches/,", ",cpu_core/branch-misses/,", ",cpu_atom/branch-misses/,"};
	const char *at = out;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *p = strstr(at, order[i]);
		if (!p)
			fail_msg("'%s' missing or out of order in:\n%s", order[i], out);
		at = p;
	}
	free(out);
}

/* perf 6.1 on a machine without hybrid PMUs: "perf stat --cputype foo true"
 * -> "--cputype foo is not supported!", exit 129 (also for core/atom).
 * pmukit counted as if no --cputype was given, exit 0. */
static void test_cputype_refused(void **state)
{
	(void)state;
	char *out, cmd[1024];
	snprintf(cmd, sizeof(cmd), "PMUKIT_SYSFS=%s %s stat --cputype foo -e task-clock -- true",
		 pk_test_sysfs("icelake"), pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 129);
	assert_non_null(strstr(out, "--cputype foo: not a hybrid machine (core PMUs: cpu)"));
	free(out);
	snprintf(cmd, sizeof(cmd), "PMUKIT_SYSFS=%s %s stat --cputype foo -e task-clock -- true",
		 pk_test_sysfs("alderlake"), pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 129);
	assert_non_null(strstr(out, "no such core PMU (core PMUs: cpu_core, cpu_atom)"));
	free(out);
}

/* The differential check: page-faults of the same fixed workload under
 * perf stat and pmukit stat. Faults of a process that touches N fresh pages
 * are N plus the loader's, a few dozen; runs differ by a handful. Tolerance:
 * 0.5% or 16 faults, whichever is larger, between medians of 3 runs. */
/* The CSV line of event ev in out: its fields (value, unit, event, run,
 * pcnt) split; false when there is none. */
static bool csv_fields(const char *out, const char *ev, char f[5][64])
{
	char pat[80];
	snprintf(pat, sizeof(pat), ",%s,", ev);
	const char *p = strstr(out, pat);
	if (!p)
		return false;
	while (p > out && p[-1] != '\n')
		p--;
	return sscanf(p, "%63[^,],%63[^,],%63[^,],%63[^,],%63[^,\n]", f[0], f[1], f[2], f[3], f[4]) ==
	       5;
}

/* perf's tool events: duration_time the run's wall time, user_time and
 * system_time the command's CPU times (<not counted> when 0), all "ns",
 * their run time the count; the columns and rules as perf 6.1 prints them
 * for the same command. */
static void test_tool_events(void **state)
{
	(void)state;
	bool perf = pk_test_run("command -v perf >/dev/null 2>&1 && perf stat -e duration_time true",
				NULL, 1) == 0;
	char cmd[1024], *out[2];
	const char *evs = "duration_time,user_time,system_time";
	snprintf(cmd, sizeof(cmd), "-x, -e %s -- %s 20000", evs, touch_pages());
	assert_int_equal(stat_run(&out[0], "%s", cmd), 0);
	if (perf) {
		char pcmd[1100];
		snprintf(pcmd, sizeof(pcmd), "perf stat %s", cmd);
		assert_int_equal(pk_test_run(pcmd, &out[1], 1), 0);
	}
	const char *names[] = {"duration_time", "user_time", "system_time"};
	double cpu_ns = 0;
	for (int t = 0; t < (perf ? 2 : 1); t++)
		for (int i = 0; i < 3; i++) {
			char f[5][64];
			assert_true(csv_fields(out[t], names[i], f));
			assert_string_equal(f[1], "ns");
			assert_string_equal(f[4], "100.00");
			if (!strcmp(f[0], "<not counted>")) {
				assert_int_not_equal(i, 0);
				assert_string_equal(f[3], "0");
				continue;
			}
			assert_string_equal(f[0], f[3]); /* run time == count */
			if (i == 0)
				assert_true(atof(f[0]) > 1e5 && atof(f[0]) < 30e9);
			else if (t == 0)
				cpu_ns += atof(f[0]);
		}
	assert_true(cpu_ns > 0); /* touching 20000 pages takes CPU time */
	free(out[0]);
	if (perf)
		free(out[1]);
	/* -I: each interval's own length; no CPU times before the end */
	assert_int_equal(stat_run(&out[0], "-x, -I 40 -e duration_time,user_time -- sleep 0.1"), 0);
	size_t n;
	char **lines = split_lines(out[0], &n);
	assert_true(n >= 4);
	for (size_t i = 0; i + 1 < n; i += 2) {
		double t, v;
		assert_int_equal(sscanf(lines[i], "%lf,%lf,ns,duration_time,", &t, &v), 2);
		assert_true(v > 0 && v < 1e9);
		assert_non_null(strstr(lines[i + 1], "<not counted>,ns,user_time,0,"));
	}
	free(lines);
	free(out[0]);
	/* duration_time alone: perf's 'system wide' run, no user and sys lines */
	assert_int_equal(stat_run(&out[0], "-e duration_time -- true"), 0);
	assert_non_null(strstr(out[0], "Performance counter stats for 'system wide':"));
	assert_null(strstr(out[0], "seconds user"));
	free(out[0]);
	/* in a group it leads, the members read nothing (perf 6.1) */
	assert_int_equal(stat_run(&out[0], "-x, -e '{duration_time,task-clock}' -- true"), 0);
	assert_non_null(strstr(out[0], "<not counted>,msec,task-clock,0,100.00"));
	free(out[0]);
}

/* Counts are grouped by the locale's thousands separator as perf's %'
 * groups them: none in the C locale, the count right-aligned in 18. */
static void test_c_locale_counts(void **state)
{
	(void)state;
	char cmd[1024], *out;
	snprintf(cmd, sizeof(cmd), "LC_ALL=C %s stat -e page-faults -- %s 20000 2>&1",
		 getenv("PK_PMUKIT"), touch_pages());
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	const char *l = strstr(out, " page-faults");
	assert_non_null(l);
	const char *b = l;
	while (b > out && b[-1] != '\n')
		b--;
	assert_true(l - b > 18);
	assert_true(b[17] >= '0' && b[17] <= '9' && b[18] == ' '); /* "%18s " */
	for (const char *p = b; p < b + 18; p++)
		assert_true(*p == ' ' || (*p >= '0' && *p <= '9'));
	free(out);
}

static double median3(double a, double b, double c)
{
	return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

static double csv_count(const char *out, const char *event)
{
	char pat[64];
	snprintf(pat, sizeof(pat), ",,%s,", event);
	const char *p = strstr(out, pat);
	if (!p)
		return -1;
	while (p > out && p[-1] != '\n')
		p--;
	return atof(p);
}

static void test_compare_with_perf(void **state)
{
	(void)state;
	if (pk_test_run("command -v perf >/dev/null 2>&1 && perf stat -e page-faults true", NULL,
			1) != 0) {
		print_message("perf is not installed or cannot count here: skipping the "
			      "differential check\n");
		skip();
	}
	const int pages = 5000;
	double perf_v[3], ours_v[3];
	for (int i = 0; i < 3; i++) {
		char cmd[1024], *out;
		snprintf(cmd, sizeof(cmd), "perf stat -x, -e page-faults,minor-faults -- %s %d",
			 touch_pages(), pages);
		assert_int_equal(pk_test_run(cmd, &out, 1), 0);
		perf_v[i] = csv_count(out, "page-faults");
		assert_true(csv_count(out, "minor-faults") >= pages);
		free(out);
		assert_int_equal(stat_run(&out, "-x, -e page-faults,minor-faults -- %s %d",
					  touch_pages(), pages),
				 0);
		ours_v[i] = csv_count(out, "page-faults");
		assert_true(csv_count(out, "minor-faults") >= pages);
		free(out);
	}
	double p = median3(perf_v[0], perf_v[1], perf_v[2]);
	double o = median3(ours_v[0], ours_v[1], ours_v[2]);
	double tol = p * 0.005 > 16 ? p * 0.005 : 16;
	print_message("page-faults of %d touched pages: perf %.0f, pmukit %.0f (tolerance %.0f)\n",
		      pages, p, o, tol);
	assert_true(p >= pages);
	assert_true(o - p <= tol && p - o <= tol);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_counts),
		cmocka_unit_test(test_default_set),
		cmocka_unit_test(test_system_wide_and_cpu),
		cmocka_unit_test(test_attach_pid_and_tid),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_csv_shape),
		cmocka_unit_test(test_json_shape),
		cmocka_unit_test(test_exit_status_and_signals),
		cmocka_unit_test(test_ctrl_c_prints),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_hybrid_fixture_rows),
		cmocka_unit_test(test_cputype_refused),
		cmocka_unit_test(test_compare_with_perf),
		cmocka_unit_test(test_tool_events),
		cmocka_unit_test(test_c_locale_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
