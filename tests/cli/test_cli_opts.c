/* The CLI's options and messages (issue 26): every option a command
 * accepts is in its help and every option its help shows is accepted (the
 * option tables, tools/pmukit/cli_opts.c); option errors name the option
 * (missing value, did you mean, ambiguous), empty -p/-t/-e name theirs, a
 * long value is clipped; record's exit status, the missing perf.data hint
 * and PERF_CPUID compared with perf 6.1 where perf can run here; TopDown's
 * CSV header and --log-fd. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static const char *const commands[] = {"list", "encode", "stat", "record", "report", "script"};

static bool has(const char *s, const char *what)
{
	return s && strstr(s, what) != NULL;
}

/* "--name" in text as a whole option name. */
static bool has_option(const char *text, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *p = text; (p = strstr(p, opt)); p += n) {
		char c = p[n];
		if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-' && c != '_')
			return true;
	}
	return false;
}

/* --list-opts (the parser's table) against `help`: each in the other. */
static void test_help_has_every_option(void **state)
{
	(void)state;
	int total = 0;
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		char *list, *help;
		assert_int_equal(pk_test_pmukit_run(&list, "%s --list-opts", commands[c]), 0);
		assert_int_equal(pk_test_pmukit_run(&help, "help %s", commands[c]), 0);
		char *save, *copy = strdup(list);
		int n = 0;
		for (char *t = strtok_r(copy, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
			if (!has_option(help, t))
				fail_msg("pmukit %s accepts %s, its help does not show it", commands[c], t);
			n++;
		}
		assert_true(n > 3);
		total += n;
		free(copy);
		free(list);
		free(help);
	}
	printf("%d options, each in its command's help\n", total);
	assert_true(total > 150);
}

/* Every --option of a help's left column is accepted: with a value when
 * the help shows one, followed by an unknown option, parsing must stop at
 * that one (or at a bad value), never at the option itself; its short form
 * (-x, --long) does exactly what the long one does. */
static void test_help_options_accepted(void **state)
{
	(void)state;
	int tried = 0;
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		char *help, line[512];
		assert_int_equal(pk_test_pmukit_run(&help, "help %s", commands[c]), 0);
		for (const char *l = help; pk_test_next_line(&l, line, sizeof(line));) {
			char *o = strstr(line, "--");
			if (!o || strspn(line, " ") < 2 || (o - line) > 8)
				continue;
			size_t n = strspn(o + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
			char name[64], *out;
			snprintf(name, sizeof(name), "%.*s", (int)(n + 2), o);
			bool val = o[2 + n] == '[' || (o[2 + n] == ' ' && o[3 + n] != ' ' && o[3 + n]);
			pk_test_pmukit_run(&out, "%s %s%s --zz-no-such-option </dev/null", commands[c],
					   name, val ? "=1" : "");
			char bad[96];
			snprintf(bad, sizeof(bad), "unknown option '%s", name);
			if (has(out, bad) || has(out, "ambiguous"))
				fail_msg("pmukit %s %s: %s", commands[c], name, out);
			char *dash = strstr(line, "  -"), *short_out;
			if (dash && dash < o && dash[3] != '-') {
				/* an optional value is attached: -z1 */
				pk_test_pmukit_run(&short_out, "%s -%c%s --zz-no-such-option </dev/null",
						   commands[c], dash[3],
						   !val ? "" : o[2 + n] == '[' ? "1" : " 1");
				if (strcmp(short_out, out))
					fail_msg("pmukit %s -%c and %s differ:\n%s\n%s", commands[c],
						 dash[3], name, short_out, out);
				free(short_out);
			}
			free(out);
			tried++;
		}
		free(help);
	}
	printf("%d options of the helps accepted\n", tried);
	assert_true(tried > 150);
}

/* The bash completion script completes from the same tables. */
static void test_completion(void **state)
{
	(void)state;
	char cmd[8192], *out, dir[4096];
	snprintf(dir, sizeof(dir), "%s", pk_test_pmukit());
	*strrchr(dir, '/') = '\0';
	const char *src = getenv("PK_SRCDIR");
	snprintf(cmd, sizeof(cmd),
		 "bash -c 'source %s/tools/pmukit/pmukit-completion.bash; PATH=%s:$PATH; "
		 "COMP_WORDS=(pmukit report --sor); COMP_CWORD=2; _pmukit; echo \"${COMPREPLY[*]}\"; "
		 "COMP_WORDS=(pmukit rec); COMP_CWORD=1; _pmukit; echo \"${COMPREPLY[*]}\"; "
		 "COMP_WORDS=(pmukit record --no-b); COMP_CWORD=2; _pmukit; echo \"${COMPREPLY[*]}\"'",
		 src ? src : ".", dir);
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	assert_string_equal(out, "--sort\nrecord\n--no-buildid --no-buildid-cache --no-bpf-event "
				 "--no-buffering\n");
	free(out);
}

static void expect(int want_rc, const char *want, const char *args)
{
	char *out;
	int rc = pk_test_pmukit_run(&out, "%s", args);
	if (rc != want_rc || !has(out, want))
		fail_msg("pmukit %s: %d, wanted %d and '%s':\n%s", args, rc, want_rc, want, out);
	free(out);
}

static void test_option_messages(void **state)
{
	(void)state;
	/* perf 6.1: "switch `s' requires a value" (exit 129) */
	expect(129, "option '-s' (--sort) needs a value: KEYS", "report -s");
	expect(129, "option '--itrace' needs a value", "report --itrace");
	expect(129, "option '-e' (--event) needs a value", "record -e");
	expect(129, "unknown option '--evnt'; did you mean --event?", "stat --evnt x true");
	expect(129, "ambiguous option '--no':", "report --no");
	expect(129, "option '--stdio' takes no value", "report --stdio=x");
	expect(1, "Did you mean this?\n\trecord", "recrd");
	expect(1, "did you mean 'cycles'?", "encode -e cyclse");
	expect(1, "did you mean 'task-clock'?", "stat -e task-clok true");
	expect(129, "-p '': no process id given", "stat -p '' true");
	expect(129, "-t '': no thread id given", "record -t ''");
	expect(129, "-e '': no event given", "record -e '' true");
	expect(129, "-e ' ': no event given", "stat -e ' ' true");
	/* a 10,000-character value is clipped, its length said */
	char *big = malloc(10001), *args = malloc(10100), *out;
	memset(big, 'x', 10000);
	big[10000] = '\0';
	/* (report -s's unknown key is said whole once the file is open, as perf) */
	const char *forms[] = {"record -c %s true", "report --percent-limit %s",
			       "record --call-graph %s true",
			       "report --%s", "%s"};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(args, 10100, forms[i], big);
		assert_int_not_equal(pk_test_pmukit_run(&out, "%s", args), 0);
		if (strlen(out) > 800 || !has(out, "xxx"))
			fail_msg("pmukit %.20s...: %zu bytes of message", args, strlen(out));
		free(out);
	}
	free(big);
	free(args);
}

static bool have_perf(void)
{
	return system("command -v perf >/dev/null 2>&1") == 0;
}

/* record's status is the command's (perf 6.1: 1 for false, 3 for exit 3,
 * 137 for SIGKILL: perf raises the signal). */
static void test_record_exit_status(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir(), cmd[8192], *out;
	static const char *const work[] = {"false", "sh -c 'exit 3'", "sh -c 'kill -9 $$'", "true"};
	static const int want[] = {1, 3, 137, 0};
	for (size_t i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), "cd %s && %s record -q -e cpu-clock -o pk.data -- %s", dir,
			 pk_test_pmukit(), work[i]);
		int ours = pk_test_run(cmd, &out, 1);
		free(out);
		assert_int_equal(ours, want[i]);
		if (!have_perf())
			continue;
		snprintf(cmd, sizeof(cmd), "cd %s && perf record -q -e cpu-clock -o perf.data -- %s",
			 dir, work[i]);
		int perf = pk_test_run(cmd, &out, 1);
		free(out);
		if (perf != 255) /* perf could not record here (paranoid): nothing to compare */
			assert_int_equal(ours, perf);
	}
	pk_test_rmtree(dir);
}

static void test_hints(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir(), cmd[8192], *out;
	/* perf 6.1: "failed to open perf.data: ... (try 'perf record' first)" */
	snprintf(cmd, sizeof(cmd), "cd %s && %s report", dir, pk_test_pmukit());
	assert_int_equal(pk_test_run(cmd, &out, 1), 255); /* perf 6.1: 255 */
	assert_true(has(out, "cannot open perf.data: No such file or directory"));
	assert_true(has(out, "(try 'pmukit record' first)"));
	free(out);
	if (have_perf()) {
		snprintf(cmd, sizeof(cmd), "cd %s && perf report --stdio", dir);
		pk_test_run(cmd, &out, 1);
		assert_true(has(out, "(try 'perf record' first)"));
		free(out);
	}
	/* a hardware event on a host without the PMU: cpu-clock suggested */
	snprintf(cmd, sizeof(cmd), "cd %s && %s record -e cycles -o c.data -- true", dir,
		 pk_test_pmukit());
	if (pk_test_run(cmd, &out, 1) != 0)
		assert_true(has(out, "sample time with -e cpu-clock"));
	else
		printf("cycles recorded here: a PMU, no hint to check\n");
	free(out);
	pk_test_rmtree(dir);
}

/* Runs a shell command (printf-style), with stderr when want_stderr; its
 * status. */
static int sh(char **out, int want_stderr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int sh(char **out, int want_stderr, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return pk_test_run(cmd, out, want_stderr);
}

/* perf's PERF_CPUID is honoured (PMUKIT_CPUID first); a CPUID of another
 * vendor than the tree's PMUs is an error naming both. */
static void test_perf_cpuid(void **state)
{
	(void)state;
	char *out;
	const char *icl = pk_test_sysfs("icelake"), *pk = pk_test_pmukit();
	assert_int_not_equal(sh(&out, 1, "PMUKIT_SYSFS=%s PERF_CPUID=bogus %s stat --topdown -a true",
				icl, pk), 0);
	assert_true(has(out, "malformed PERF_CPUID"));
	free(out);
	assert_int_equal(sh(&out, 1, "PMUKIT_SYSFS=%s PERF_CPUID=AuthenticAMD-25-11-1 %s stat "
				     "--topdown -a true", icl, pk), 1);
	assert_true(has(out, "CPU AuthenticAMD-25-11-1 (PERF_CPUID) is an AMD CPU, but the PMUs in"));
	assert_true(has(out, "are Intel's"));
	assert_false(has(out, "tma_"));
	free(out);
	/* PMUKIT_CPUID wins */
	assert_int_equal(sh(&out, 1, "PMUKIT_SYSFS=%s PMUKIT_CPUID=GenuineIntel-6-6A-0 "
				     "PERF_CPUID=AuthenticAMD-25-11-1 %s encode -e cycles", icl, pk), 0);
	free(out);
}

/* -x stays on stderr (perf 6.1), --log-fd moves it, --csv-header names
 * TopDown's columns once. */
static void test_topdown_csv_header(void **state)
{
	(void)state;
	char *out;
	const char *scn = pk_test_example("icelake.json"), *pk = pk_test_pmukit();
	assert_int_equal(sh(&out, 0, "%s stat --topdown -x, --csv-header --model %s 2>/dev/null", pk,
			    scn), 0);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(sh(&out, 0, "%s stat --topdown -x, --csv-header -I 100 --model %s "
				     "--log-fd 3 3>&1 2>/dev/null", pk, scn), 0);
	assert_true(has(out, "\ntime,value,unit,node,pmu,level,parent,running,error\n0.100000000,"));
	const char *h = strstr(out, "time,value");
	assert_null(strstr(h + 1, "time,value")); /* once */
	free(out);
	assert_int_equal(sh(&out, 1, "%s stat --csv-header --model %s", pk, scn), 129);
	assert_true(has(out, "needs -x and --topdown"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_has_every_option),
		cmocka_unit_test(test_help_options_accepted),
		cmocka_unit_test(test_completion),
		cmocka_unit_test(test_option_messages),
		cmocka_unit_test(test_record_exit_status),
		cmocka_unit_test(test_hints),
		cmocka_unit_test(test_perf_cpuid),
		cmocka_unit_test(test_topdown_csv_header),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
