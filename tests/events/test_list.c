/* pmukit list, run as a program against the fixture trees; and the event
 * catalog it prints (pk_event_catalog) through the public API on the
 * same trees: sections in order, the hybrid unit, what a machine without
 * a core PMU leaves out; list's pattern filter (pk_catalog_match). */
#include "helpers.h"

#include <pmukit/events.h>
#include <pmukit/pmu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs `pmukit list ARGS` on a fixture tree; returns the exit status. */
static int run_list(const char *tree, const char *cpuid, const char *env, const char *args,
		    char **out, int want_stderr)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "PMUKIT_SYSFS='%s' PMUKIT_CPUID='%s' %s '%s' list %s",
		 tree ? pk_test_sysfs(tree) : "/sys", cpuid, env ? env : "", pk_test_pmukit(),
		 args);
	int st = pk_test_run(cmd, out, want_stderr);
	assert_non_null(*out);
	return st;
}

/* The line listing `name`, or NULL. */
static const char *line_of(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = text; p && *p;) {
		const char *s = p;
		while (*s == ' ')
			s++;
		if (!strncmp(s, name, n) && (s[n] == ' ' || s[n] == '\n'))
			return p;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static void expect_line(const char *text, const char *name, const char *bracket)
{
	const char *l = line_of(text, name);
	if (!l)
		fail_msg("no line for '%s' in:\n%s", name, text);
	const char *end = strchr(l, '\n');
	size_t len = end ? (size_t)(end - l) : strlen(l);
	char line[512];
	snprintf(line, sizeof(line), "%.*s", (int)len, l);
	if (!strstr(line, bracket))
		fail_msg("'%s' lacks '%s'", line, bracket);
}

static size_t count_lines(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_alderlake(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(run_list("alderlake", "GenuineIntel-6-97-2", "PMUKIT_TRACEFS=/nonexistent",
				  "", &out, 0),
			 0);
	expect_line(out, "cpu-cycles OR cycles", "[Hardware event]");
	expect_line(out, "branch-instructions OR branches", "[Hardware event]");
	expect_line(out, "page-faults OR faults", "[Software event]");
	expect_line(out, "L1-dcache-load-misses", "[Hardware cache event]");
	expect_line(out, "cpu_core/topdown-retiring/", "[Kernel PMU event. Unit: cpu_core]");
	expect_line(out, "cpu_atom/topdown-retiring/", "[Kernel PMU event. Unit: cpu_atom]");
	expect_line(out, "msr/tsc/", "[Kernel PMU event]");
	const char *tsc = line_of(out, "msr/tsc/");
	assert_true(strstr(tsc, "Unit") == NULL || strstr(tsc, "Unit") > strchr(tsc, '\n'));
	expect_line(out, "cpu_core", "type 4, cpus 0-15");
	expect_line(out, "cpu_atom", "type 8, cpus 16-23");
	expect_line(out, "rNNN", "[Raw hardware event descriptor]");
	/* Intel exports no stalled-cycles events */
	assert_null(line_of(out, "stalled-cycles-frontend OR idle-cycles-frontend"));
	/* formats only on request */
	assert_null(strstr(out, "PMU format"));
	/* Issue 7: named events were hidden unless asked for, and cpu_atom had
	 * none (no Gracemont table in libpfm4 before 4.14). perf 6.1 lists its
	 * JSON events by default, and the hybrid document shows inst_retired.any
	 * once per core PMU, each with its "Unit:". */
	assert_non_null(strstr(out, "  inst_retired.any\n       [Number of instructions retired. "
				    "Fixed Counter - architectural event"));
	assert_non_null(strstr(out, "  inst_retired.any\n       [Instructions retired "
				    "(architectural event). Unit: cpu_atom]\n"));
	assert_true(count_lines(out, "Unit: cpu_core]") > 300);
	free(out);
	assert_int_equal(run_list("alderlake", "GenuineIntel-6-97-2", "PMUKIT_TRACEFS=/nonexistent",
				  "--no-named", &out, 0),
			 0);
	assert_null(strstr(out, "inst_retired.any"));
	free(out);
	/* a malformed PMUKIT_CPUID fails the listing, naming the variable */
	assert_int_equal(run_list("alderlake", "junk", "PMUKIT_TRACEFS=/nonexistent", "", &out, 1), 1);
	assert_non_null(strstr(out, "malformed PMUKIT_CPUID"));
	free(out);
}

/* The catalog's entries as "kind|name|match0" lines. */
typedef struct seen {
	char text[1 << 16];
	size_t len, nr;
	size_t stop_at;            /* a nonzero return after this many (0: never) */
} seen;

static int collect(const pk_catalog_entry *e, void *arg)
{
	seen *s = arg;
	s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s|%s|%s\n",
				   e->kind, e->name, e->match[0]);
	s->nr++;
	return s->nr == s->stop_at ? 7 : 0;
}

static void catalog_of(const char *tree, unsigned sections, seen *s)
{
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs(tree), &err);
	assert_non_null(pmus);
	memset(s, 0, sizeof(*s));
	assert_int_equal(pk_event_catalog(pmus, sections, collect, s), 0);
	pk_pmus_put(pmus);
}

static void test_catalog_api(void **state)
{
	(void)state;
	static seen s;
	catalog_of("alderlake", PK_CATALOG_HW | PK_CATALOG_PMU | PK_CATALOG_RAW, &s);
	assert_non_null(strstr(s.text, "Hardware event|cpu-cycles OR cycles|cpu-cycles\n"));
	assert_non_null(strstr(s.text, "Kernel PMU event. Unit: cpu_atom|cpu_atom/topdown-retiring/|"
				       "cpu_atom/topdown-retiring/\n"));
	assert_non_null(strstr(s.text, "Kernel PMU, type 4, cpus 0-15|cpu_core|cpu_core\n"));
	assert_non_null(strstr(s.text, "Raw hardware event descriptor|cpu_core/t1=v1[,t2=v2,t3 "
				       "...]/modifier|"));
	assert_null(strstr(s.text, "stalled-cycles-frontend")); /* Intel exports none */
	assert_null(strstr(s.text, "Software event")); /* not asked */
	/* sections in bit order: hardware before the PMUs before raw */
	assert_true(strstr(s.text, "Hardware event") < strstr(s.text, "Kernel PMU") &&
		    strstr(s.text, "Kernel PMU") < strstr(s.text, "Raw hardware"));
	catalog_of("zen4", PK_CATALOG_FORMAT, &s);
	assert_non_null(strstr(s.text, "PMU format config:0-7,32-35, max 0xfff|cpu/event=N/|cpu/event=N/\n"));
	/* a callback's nonzero return ends the walk with it */
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("alderlake"), &err);
	memset(&s, 0, sizeof(s));
	s.stop_at = 10;
	assert_int_equal(pk_event_catalog(pmus, PK_CATALOG_PMU, collect, &s), 7);
	assert_int_equal(s.nr, 10);
	pk_pmus_put(pmus);
}

static void test_zen4_stalled_cycles(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(run_list("zen4", "AuthenticAMD-25-11-1", NULL, "hw", &out, 0), 0);
	expect_line(out, "stalled-cycles-frontend OR idle-cycles-frontend", "[Hardware event]");
	assert_null(line_of(out, "ref-cycles"));
	/* only the hardware section */
	assert_null(strstr(out, "[Software event]"));
	free(out);
}

static void test_filters(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(run_list("alderlake", "GenuineIntel-6-97-2", "PMUKIT_TRACEFS=/nonexistent",
				  "topdown-retiring", &out, 0),
			 0);
	assert_int_equal(count_lines(out, "[Kernel PMU event"), 2);
	assert_int_equal(count_lines(out, "]\n"), 2);
	free(out);
	assert_int_equal(run_list("alderlake", "GenuineIntel-6-97-2", "PMUKIT_TRACEFS=/nonexistent",
				  "'cpu_atom/*'", &out, 0),
			 0);
	assert_int_equal(count_lines(out, "Unit: cpu_atom"), 14);
	assert_int_equal(count_lines(out, "cpu_core"), 0);
	free(out);
	/* a section name shows that section whole */
	assert_int_equal(run_list("alderlake", "GenuineIntel-6-97-2", NULL, "sw", &out, 0), 0);
	assert_int_equal(count_lines(out, "[Software event]"), 12);
	/* and perf 6.1's tool events after them, as `perf list sw` */
	assert_int_equal(count_lines(out, "[Tool event]"), 3);
	assert_int_equal(count_lines(out, "]\n"), 15);
	free(out);
	/* an alias matches: `cs` finds context-switches */
	assert_int_equal(run_list("alderlake", "GenuineIntel-6-97-2", "PMUKIT_TRACEFS=/nonexistent",
				  "CS", &out, 0),
			 0);
	expect_line(out, "context-switches OR cs", "[Software event]");
	free(out);
}

static void test_formats(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(run_list("zen4", "AuthenticAMD-25-11-1", NULL, "formats", &out, 0), 0);
	expect_line(out, "cpu/event=N/", "[PMU format config:0-7,32-35, max 0xfff]");
	expect_line(out, "ibs_op/cnt_ctl=N/", "[PMU format config:19, max 0x1]");
	free(out);
	assert_int_equal(run_list("neoverse-n1-spe", "ARM-fake-0-0", NULL, "formats", &out, 0), 0);
	expect_line(out, "arm_spe_0/min_latency=N/", "[PMU format config2:0-11, max 0xfff]");
	expect_line(out, "arm_spe_0/event_filter=N/", "config1:0-63");
	free(out);
}

static void test_named(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(run_list("icelake", "GenuineIntel-6-7E-5", NULL, "named", &out, 0), 0);
	assert_non_null(line_of(out, "int_misc.recovery_cycles"));
	assert_non_null(line_of(out, "topdown.slots"));
	assert_true(count_lines(out, "\n  ") > 300);
	free(out);
	/* hybrid: each event says which core type it is for */
	assert_int_equal(run_list("alderlake", "GenuineIntel-6-97-2", NULL, "named int_misc.recovery_cycles",
				  &out, 0),
			 0);
	assert_non_null(strstr(out, "Unit: cpu_core]"));
	free(out);
}

static char *fake_tracefs(void)
{
	char *dir = pk_test_tmpdir();
	assert_non_null(dir);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/events/sched/sched_switch %s/events/irq/irq_handler_entry && "
		 "echo 316 > %s/events/sched/sched_switch/id && "
		 "echo 42 > %s/events/irq/irq_handler_entry/id",
		 dir, dir, dir, dir);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	return dir;
}

static void test_tracepoints(void **state)
{
	(void)state;
	char *dir = fake_tracefs();
	char env[512], *out;
	snprintf(env, sizeof(env), "PMUKIT_TRACEFS=%s", dir);
	assert_int_equal(run_list("skylake", "GenuineIntel-6-5E-3", env, "tracepoint", &out, 0), 0);
	expect_line(out, "irq:irq_handler_entry", "[Tracepoint event]");
	expect_line(out, "sched:sched_switch", "[Tracepoint event]");
	assert_true(line_of(out, "irq:irq_handler_entry") < line_of(out, "sched:sched_switch"));
	assert_int_equal(count_lines(out, "]\n"), 2);
	free(out);
	assert_int_equal(run_list("skylake", "GenuineIntel-6-5E-3", env, "'sched:*'", &out, 0), 0);
	assert_int_equal(count_lines(out, "[Tracepoint event]"), 1);
	free(out);
	/* asked for and unavailable: an error that says why */
	assert_int_not_equal(run_list("skylake", "GenuineIntel-6-5E-3",
				      "PMUKIT_TRACEFS=/nonexistent", "tracepoint", &out, 1),
			     0);
	assert_non_null(strstr(out, "not readable"));
	free(out);
	snprintf(env, sizeof(env), "rm -rf '%s'", dir);
	pk_test_run(env, NULL, 0);
	free(dir);
}

/* The real tracefs, mounted in a private mount namespace so the host is
 * left as it is. */
static void test_real_tracefs(void **state)
{
	(void)state;
	char cmd[1024], *out;
	snprintf(cmd, sizeof(cmd),
		 "unshare -m sh -c 'mount --make-rprivate / && "
		 "(test -r /sys/kernel/tracing/events/sched/sched_switch/id || "
		 "mount -t tracefs nodev /sys/kernel/tracing) && "
		 "cat /sys/kernel/tracing/events/sched/sched_switch/id && "
		 "PMUKIT_SYSFS=%s %s list sched:sched_switch' 2>/dev/null",
		 pk_test_sysfs("skylake"), pk_test_pmukit());
	if (pk_test_run(cmd, &out, 0) != 0) {
		free(out);
		printf("SKIP: cannot mount tracefs in a private namespace here\n");
		skip();
	}
	unsigned id = 0;
	assert_int_equal(sscanf(out, "%u", &id), 1);
	assert_true(id > 0);
	expect_line(out, "sched:sched_switch", "[Tracepoint event]");
	free(out);
}

static void test_host_without_core_pmu(void **state)
{
	(void)state;
	char *out;
	/* this VM has no core PMU: no hardware or cache events, software ones */
	assert_int_equal(run_list(NULL, "GenuineIntel-6-5E-3", "PMUKIT_TRACEFS=/nonexistent", "",
				  &out, 0),
			 0);
	expect_line(out, "task-clock", "[Software event]");
	if (!strstr(out, "Hardware event")) {
		assert_null(strstr(out, "[Hardware cache event]"));
		assert_null(line_of(out, "rNNN"));
	}
	free(out);
}

static void test_bad_sysfs(void **state)
{
	(void)state;
	char cmd[512], *out;
	snprintf(cmd, sizeof(cmd), "PMUKIT_SYSFS=/nonexistent %s list", pk_test_pmukit());
	assert_int_not_equal(pk_test_run(cmd, &out, 1), 0);
	assert_non_null(strstr(out, "/nonexistent/bus/event_source/devices"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s list --bogus", pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 129);
	free(out);
}

/* list's filter: a substring or a whole glob, case ignored; no pattern
 * takes everything, NULL names are skipped. */
static void test_catalog_match(void **state)
{
	(void)state;
	const char *names[] = {NULL, "cpu-cycles OR cycles", "cpu/branches/"};
	const char *sub[] = {"CYCLES"}, *glob[] = {"cpu/*/"}, *part_glob[] = {"cyc*"};
	const char *none[] = {"tlb", "x*"};
	assert_true(pk_catalog_match(NULL, 0, names, 3));
	assert_true(pk_catalog_match(sub, 1, names, 3));
	assert_true(pk_catalog_match(glob, 1, names, 3));
	assert_false(pk_catalog_match(part_glob, 1, names, 3)); /* a glob is matched whole */
	assert_false(pk_catalog_match(none, 2, names, 3));
	assert_false(pk_catalog_match(sub, 1, names, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alderlake),
		cmocka_unit_test(test_zen4_stalled_cycles),
		cmocka_unit_test(test_catalog_api),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_catalog_match),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_real_tracefs),
		cmocka_unit_test(test_host_without_core_pmu),
		cmocka_unit_test(test_bad_sysfs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
