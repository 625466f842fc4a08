/* pmukit stat's shadow metrics against Linux perf 6.1, line for line.
 *
 * Each run is a set of chosen counts (per event: attr type, config, value,
 * times) and a perf stat command line. perf runs in perf-ns.sh's namespace
 * (the skylake fixture's PMUs) with peo_stub.c serving those counts from
 * read() ($PK_PEO_COUNTS); its output is kept in
 * tests/data/perf-6.1/stat/<run>.txt. pmukit's side is stat's own path:
 * the events parsed on the same fixture, configured for stat, opened on the
 * counting tests' fake kernel serving the same counts (fake_kernel.h's
 * `served`), read, aggregated and printed by stat_print.c in the same form
 * (human, -x, -j; per process, -a, -a -A; events whose open is refused).
 * Every printed count line and
 * every metric line must be byte for byte perf's; perf's header and footer
 * lines are not compared, and the CPUs utilized value (wall time: perf's
 * own clock) is masked on both sides.
 *
 * The stored comparison runs everywhere; the live test (root, perf, cc,
 * unshare -m, two CPUs for the -a runs; else skipped with the reason
 * printed) reruns perf for every run, compares it with the stored
 * transcript and with pmukit; PK_STAT_REGEN=1 writes the live transcripts
 * instead. */
#include "helpers.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/counting.h>

#include "../counting/fake_kernel.h"
#include "../../tools/pmukit/stat_print.h"

#define STAT_DIR "perf-6.1/stat"
#define MAX_SERVED 64

/* ---- count sets (peo_stub.c's format, also served to pmukit) ------------- */

typedef struct count_set {
	const char *name;
	const char *text;
} count_set;

/* type 0 hardware, 1 software, 3 HW_CACHE (id | op << 8 | result << 16) */
static const count_set sets[] = {
	{"all", /* every row with its totals */
	 "times enabled=1000000 running=1000000\n"
	 "type=1 config=1 value=2000000\ntype=1 config=0 value=2000000\n"
	 "type=0 config=0 value=5000000\ntype=0 config=1 value=7000000\n"
	 "type=0 config=7 value=1000000\ntype=0 config=8 value=1500000\n"
	 "type=0 config=9 value=4000000\ntype=0 config=6 value=300000\n"
	 "type=0 config=2 value=320\ntype=0 config=3 value=23\n"
	 "type=0 config=4 value=160\ntype=0 config=5 value=23\n"
	 "type=3 config=0 value=900000\ntype=3 config=65536 value=12345\n"
	 "type=3 config=1 value=800000\ntype=3 config=65537 value=2345\n"
	 "type=3 config=2 value=50000\ntype=3 config=65538 value=1234\n"
	 "type=3 config=3 value=700000\ntype=3 config=65539 value=333\n"
	 "type=3 config=4 value=600000\ntype=3 config=65540 value=444\n"
	 "type=3 config=256 value=5555\ntype=3 config=65792 value=66\n"
	 "type=3 config=512 value=777\ntype=3 config=66048 value=88\n"
	 "type=3 config=5 value=9999\ntype=3 config=65541 value=99\n"
	 "type=1 config=2 value=42\ntype=1 config=3 value=7\ntype=1 config=4 value=1\n"},
	{"rounding", /* 23 of 160: x / y * 100 is 14.37, 100 * x / y 14.38 */
	 "times enabled=1000000 running=1000000\n"
	 "type=1 config=1 value=1000000\ntype=0 config=0 value=160\n"
	 "type=0 config=7 value=23\ntype=0 config=8 value=23\n"
	 "type=0 config=2 value=320\ntype=0 config=3 value=23\n"
	 "type=0 config=4 value=160\ntype=0 config=5 value=23\n"
	 "type=3 config=0 value=160\ntype=3 config=65536 value=23\n"
	 "type=3 config=1 value=160\ntype=3 config=65537 value=23\n"
	 "type=3 config=2 value=160\ntype=3 config=65538 value=23\n"},
	{"zeros", /* totals counted as 0 */
	 "times enabled=1000000 running=1000000\n"
	 "type=1 config=1 value=0\ntype=0 config=0 value=0\ntype=0 config=1 value=100\n"
	 "type=0 config=7 value=1000\ntype=0 config=8 value=1500000\n"
	 "type=0 config=2 value=0\ntype=0 config=3 value=10\n"
	 "type=0 config=4 value=0\ntype=0 config=5 value=10\n"
	 "type=3 config=1 value=0\ntype=3 config=65537 value=12345\n"},
	{"mux", /* running half the time, the clock all of it */
	 "times enabled=1000000 running=500000\n"
	 "type=1 config=1 value=2000000 enabled=1000000 running=1000000\n"
	 "type=0 config=0 value=5000000\ntype=0 config=1 value=7000000\n"
	 "type=0 config=7 value=1000000\n"
	 "type=3 config=0 value=900000\ntype=3 config=65536 value=12345\n"},
	{"uncounted", /* instructions never ran, a zero frontend stall */
	 "times enabled=1000000 running=1000000\n"
	 "type=1 config=1 value=2000000\ntype=0 config=0 value=5000\n"
	 "type=0 config=1 value=7000000 enabled=1000 running=0\n"
	 "type=0 config=7 value=0\ntype=0 config=8 value=100\n"},
	{"unsupported", /* opens refused: ENOENT, EOPNOTSUPP */
	 "type=1 config=1 value=2000000\ntype=0 config=0 value=5000\n"
	 "type=0 config=6 fail=2\ntype=0 config=9 fail=95\n"},
};

/* ---- runs ----------------------------------------------------------------- */

typedef enum run_mode { PER_PROCESS, SYSTEM, PER_CPU } run_mode;

typedef struct stat_run {
	const char *id;        /* transcript name */
	const char *set;
	run_mode mode;         /* -a and -A on CPUs 0 and 1 */
	stat_format fmt;
	const char *events;
} stat_run;

#define EV_ALL                                                                              \
	"task-clock,cycles,instructions,stalled-cycles-frontend,stalled-cycles-backend,"   \
	"ref-cycles,bus-cycles,cache-references,cache-misses,branches,branch-misses,"      \
	"L1-dcache-loads,L1-dcache-load-misses,L1-icache-loads,L1-icache-load-misses,"     \
	"LLC-loads,LLC-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,iTLB-load-misses," \
	"L1-dcache-stores,L1-dcache-store-misses,L1-dcache-prefetches,"                     \
	"L1-dcache-prefetch-misses,branch-loads,branch-load-misses,page-faults,"            \
	"context-switches,cpu-migrations,cpu-clock"
/* the misses without their totals, the stalls without cycles */
#define EV_ALONE                                                                            \
	"task-clock,instructions,stalled-cycles-frontend,stalled-cycles-backend,"          \
	"L1-dcache-load-misses,L1-icache-load-misses,LLC-load-misses,dTLB-load-misses,"    \
	"iTLB-load-misses,cache-misses,branch-misses"
#define EV_ROUND                                                                            \
	"task-clock,cycles,stalled-cycles-frontend,stalled-cycles-backend,cache-references,"\
	"cache-misses,branches,branch-misses,L1-dcache-loads,L1-dcache-load-misses,"       \
	"L1-icache-loads,L1-icache-load-misses,LLC-loads,LLC-load-misses"
#define EV_ZEROS                                                                            \
	"task-clock,cycles,instructions,stalled-cycles-frontend,stalled-cycles-backend,"   \
	"cache-references,cache-misses,branches,branch-misses,L1-icache-loads,"            \
	"L1-icache-load-misses,page-faults"
#define EV_MUX "task-clock,cycles,instructions,stalled-cycles-frontend,L1-dcache-loads," \
	"L1-dcache-load-misses"

static const stat_run runs[] = {
	{"all", "all", PER_PROCESS, STAT_HUMAN, EV_ALL},
	{"all-csv", "all", PER_PROCESS, STAT_CSV, EV_ALL},
	{"all-json", "all", PER_PROCESS, STAT_JSON, EV_ALL},
	{"alone", "all", PER_PROCESS, STAT_HUMAN, EV_ALONE},
	{"alone-csv", "all", PER_PROCESS, STAT_CSV, EV_ALONE},
	{"alone-json", "all", PER_PROCESS, STAT_JSON, EV_ALONE},
	{"fe-only", "all", PER_PROCESS, STAT_HUMAN, "instructions,stalled-cycles-frontend"},
	{"be-only", "all", PER_PROCESS, STAT_HUMAN, "instructions,stalled-cycles-backend"},
	{"no-clock-json", "zeros", PER_PROCESS, STAT_JSON,
	 "cycles,page-faults,instructions,branch-misses,cache-misses"},
	{"rounding", "rounding", PER_PROCESS, STAT_HUMAN, EV_ROUND},
	{"zeros", "zeros", PER_PROCESS, STAT_HUMAN, EV_ZEROS},
	{"zeros-csv", "zeros", PER_PROCESS, STAT_CSV, EV_ZEROS},
	{"mux", "mux", PER_PROCESS, STAT_HUMAN, EV_MUX},
	{"mux-csv", "mux", PER_PROCESS, STAT_CSV, EV_MUX},
	{"mux-json", "mux", PER_PROCESS, STAT_JSON, EV_MUX},
	{"mux-a", "mux", SYSTEM, STAT_HUMAN, EV_MUX},
	{"mux-a-A", "mux", PER_CPU, STAT_HUMAN, EV_MUX},
	{"mux-a-A-csv", "mux", PER_CPU, STAT_CSV, EV_MUX},
	{"mux-a-A-json", "mux", PER_CPU, STAT_JSON, EV_MUX},
	{"uncounted", "uncounted", PER_PROCESS, STAT_HUMAN,
	 "task-clock,cycles,instructions,stalled-cycles-frontend,stalled-cycles-backend"},
	{"uncounted-csv", "uncounted", PER_PROCESS, STAT_CSV,
	 "task-clock,cycles,instructions,stalled-cycles-frontend,stalled-cycles-backend"},
	{"uncounted-json", "uncounted", PER_PROCESS, STAT_JSON,
	 "task-clock,cycles,instructions,stalled-cycles-frontend,stalled-cycles-backend"},
	/* exclude bits: a ratio only over a total with the same ones, the clocks any */
	{"modifiers", "rounding", PER_PROCESS, STAT_HUMAN,
	 "task-clock:u,cycles:u,stalled-cycles-frontend,stalled-cycles-backend:u,branches:u,"
	 "branch-misses,L1-icache-loads:k,L1-icache-load-misses:k,cache-references,"
	 "cache-misses:k,LLC-loads"},
	{"unsupported", "unsupported", PER_PROCESS, STAT_HUMAN, "task-clock,bus-cycles,cycles,ref-cycles"},
	{"unsupported-csv", "unsupported", PER_PROCESS, STAT_CSV,
	 "task-clock,bus-cycles,cycles,ref-cycles"},
	{"unsupported-json", "unsupported", PER_PROCESS, STAT_JSON,
	 "task-clock,bus-cycles,cycles,ref-cycles"},
};

static const count_set *set_of(const char *name)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(sets); i++)
		if (!strcmp(sets[i].name, name))
			return &sets[i];
	fail_msg("no count set %s", name);
	return NULL;
}

/* The value of "key=" among the words of line; dflt when absent. */
static uint64_t word(const char *line, const char *key, uint64_t dflt)
{
	size_t n = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p += n)
		if ((p == line || p[-1] == ' ') && p[n] == '=')
			return strtoull(p + n + 1, NULL, 0);
	return dflt;
}

/* The set's counts as the fake kernel serves them (the same file perf's
 * stub reads: per line type, config, value, enabled/running or the
 * "times" line's). */
static size_t parse_set(const count_set *s, fake_count *out, size_t max)
{
	char line[256];
	const char *l = s->text;
	uint64_t ena = 1000000, run = 1000000;
	size_t n = 0;
	while (pk_test_next_line(&l, line, sizeof(line))) {
		if (!strncmp(line, "times", 5)) {
			ena = word(line, "enabled", ena);
			run = word(line, "running", run);
			continue;
		}
		assert_true(n < max);
		out[n++] = (fake_count){.type = (uint32_t)word(line, "type", 0),
					.config = word(line, "config", 0),
					.value = word(line, "value", 0),
					.ena = word(line, "enabled", ena),
					.run = word(line, "running", run),
					.fail = (int)word(line, "fail", 0)};
	}
	return n;
}

/* ---- pmukit's side --------------------------------------------------------- */

static const pk_aggr_mode aggr_of[] = {
	[PER_PROCESS] = PK_AGGR_GLOBAL, [SYSTEM] = PK_AGGR_GLOBAL, [PER_CPU] = PK_AGGR_CPU};

/* What pmukit stat prints for run: the counts through the fake kernel. */
static char *pmukit_output(const stat_run *run)
{
	fake_count served[MAX_SERVED];
	fake_kernel fk;
	fake_kernel_init(&fk);
	fk.served = served;
	fk.nr_served = parse_set(set_of(run->set), served, MAX_SERVED);
	pk_error err;
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("skylake"), &err);
	if (!pmus)
		fail_msg("skylake: %s", err.msg);
	pk_evlist *l = pk_evlist_new();
	if (pk_evlist_parse(l, pmus, run->events, NULL, &err) < 0)
		fail_msg("%s: %s", run->events, err.msg);
	pk_config_opts co = {.mode = PK_CONFIG_STAT, .system_wide = run->mode != PER_PROCESS};
	assert_int_equal(pk_evlist_config(l, &co, &err), 0);
	pk_counting_opts o;
	pk_counting_opts_init(&o);
	o.kernel = &fk.k;
	o.paranoid = -1;
	if (run->mode != PER_PROCESS)
		o.cpus = pk_cpumap_from_array((int[]){0, 1}, 2);
	else
		o.threads = pk_threadmap_new((pid_t[]){4194400}, 1);
	pk_counting *c = pk_counting_new(l, &o, &err);
	assert_non_null(c);
	assert_int_equal(pk_counting_open(c, &err), 0);
	assert_int_equal(pk_counting_read(c, &err), 0);
	stat_rows rows = {0};
	assert_int_equal(pk_stat_rows_collect(&rows, c, aggr_of[run->mode], false), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	stat_printer p = {.out = f, .fmt = run->fmt, .sep = run->fmt == STAT_CSV ? "," : " ",
			  .aggr = aggr_of[run->mode], .big_num = false, .runs = 1};
	assert_int_equal(stat_print_rows(&p, &rows, 1e9, -1), 0);
	stat_printer_free(&p);
	fclose(f);
	pk_stat_rows_free(&rows);
	pk_counting_free(c);
	pk_cpumap_put(o.cpus);
	pk_threadmap_put(o.threads);
	pk_evlist_put(l);
	pk_pmus_put(pmus);
	return buf;
}

/* ---- comparing ------------------------------------------------------------- */

/* perf's header and footer lines, which are not compared. */
static bool frame_line(const char *line)
{
	return !*line || line[0] == '#' || strstr(line, "Performance counter stats for") ||
	       strstr(line, "seconds time elapsed") || strstr(line, "seconds user") ||
	       strstr(line, "seconds sys");
}

/* The CPUs utilized value (perf's wall clock) and the blanks before it
 * replaced by " #" (its width follows the value). */
static void mask_wall(char *line)
{
	char *u = strstr(line, "CPUs utilized");
	if (!u)
		return;
	char *end = u;
	while (end > line && !(end[-1] >= '0' && end[-1] <= '9'))
		end--;
	char *p = end;
	while (p > line && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.'))
		p--;
	if (p == end)
		return;
	while (p > line && p[-1] == ' ')
		p--;
	memmove(p + 2, end, strlen(end) + 1);
	memcpy(p, " #", 2);
}

/* The compared lines of an output, masked, one string. */
static char *compared(const char *out)
{
	size_t cap = strlen(out) + 1, n = 0;
	char *res = malloc(cap), line[2048];
	assert_non_null(res);
	for (const char *l = out; pk_test_next_line(&l, line, sizeof(line));) {
		if (frame_line(line))
			continue;
		mask_wall(line);
		n += (size_t)snprintf(res + n, cap - n, "%s\n", line);
	}
	res[n] = '\0';
	return res;
}

/* pmukit's output is perf's (out), line for line. */
static void compare_run(const stat_run *run, const char *perf_out)
{
	char *mine = pmukit_output(run), *a = compared(mine), *b = compared(perf_out);
	if (strcmp(a, b)) {
		const char *x = a, *y = b;
		char la[2048] = "", lb[2048] = "";
		size_t line = 0;
		bool ea, eb;
		do {
			line++;
			ea = pk_test_next_line(&x, la, sizeof(la));
			eb = pk_test_next_line(&y, lb, sizeof(lb));
		} while (ea && eb && !strcmp(la, lb));
		fail_msg("%s: pmukit differs from perf 6.1 at line %zu:\npmukit: '%s'\nperf:   '%s'",
			 run->id, line, ea ? la : "(end)", eb ? lb : "(end)");
	}
	free(mine);
	free(a);
	free(b);
}

static char *stored_path(const stat_run *run)
{
	static char rel[256];
	snprintf(rel, sizeof(rel), STAT_DIR "/%s.txt", run->id);
	return (char *)pk_test_fixture(rel);
}

static void test_stored(void **state)
{
	(void)state;
	for (size_t i = 0; i < PK_ARRAY_SIZE(runs); i++) {
		char *perf_out = pk_test_read_text(stored_path(&runs[i]));
		compare_run(&runs[i], perf_out);
		free(perf_out);
	}
}

/* ---- perf live --------------------------------------------------------------- */

static const char *const mode_args[] = {
	[PER_PROCESS] = "", [SYSTEM] = "-a -C 0,1 ", [PER_CPU] = "-a -C 0,1 -A "};
static const char *const fmt_args[] = {[STAT_HUMAN] = "", [STAT_CSV] = "-x, ", [STAT_JSON] = "-j "};

/* perf's output for run, with the stub serving its counts. */
static char *perf_live(const stat_run *run, const char *stub, const char *tmp)
{
	char counts[1024], out[1024], cmd[8192];
	snprintf(counts, sizeof(counts), "%s/%s.counts", tmp, run->set);
	snprintf(out, sizeof(out), "%s/%s.txt", tmp, run->id);
	FILE *f = fopen(counts, "w");
	assert_non_null(f);
	fputs(set_of(run->set)->text, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd),
		 "cd /tmp && rm -f '%s' && PK_PEO_COUNTS='%s' PERF_CPUID=GenuineIntel-6-5E-3 "
		 "timeout 60 sh '%s/perf-ns.sh' -p '%s' '%s/bus/event_source/devices' "
		 "perf stat -o '%s' %s%s-e %s %s 2>&1",
		 out, counts, pk_test_oracle_dir(), stub, pk_test_sysfs("skylake"), out,
		 mode_args[run->mode], fmt_args[run->fmt], run->events,
		 run->mode == PER_PROCESS ? "true" : "sleep 0.01");
	char *said = NULL;
	if (pk_test_run(cmd, &said, 0) != 0 || access(out, F_OK) != 0)
		fail_msg("%s: perf failed:\n%s\n%s", run->id, cmd, said ? said : "");
	free(said);
	return pk_test_read_text(out);
}

/* One run live: perf's output is the stored transcript's (after writing
 * it, with regen) and pmukit's. */
static void check_live(const stat_run *run, const char *stub, const char *tmp, bool regen)
{
	char *live = perf_live(run, stub, tmp);
	if (regen) {
		FILE *f = fopen(stored_path(run), "w");
		assert_non_null(f);
		fputs(live, f);
		assert_int_equal(fclose(f), 0);
	}
	char *old = pk_test_read_text(stored_path(run)), *a = compared(live), *b = compared(old);
	if (strcmp(a, b))
		fail_msg("%s: live perf differs from the stored transcript (PK_STAT_REGEN=1 "
			 "rewrites it):\n%s\nstored:\n%s", run->id, a, b);
	compare_run(run, live);
	free(live);
	free(old);
	free(a);
	free(b);
}

static void test_live_perf(void **state)
{
	(void)state;
	char why[128];
	if (!pk_test_oracle_ready(why, sizeof(why))) {
		printf("SKIP: live perf 6.1 stat comparison: %s\n", why);
		skip();
	}
	bool two_cpus = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
	char *tmp = pk_test_tmpdir(), *stub = pk_test_oracle_stub(tmp);
	bool regen = getenv("PK_STAT_REGEN") && !strcmp(getenv("PK_STAT_REGEN"), "1");
	for (size_t i = 0; i < PK_ARRAY_SIZE(runs); i++) {
		if (runs[i].mode != PER_PROCESS && !two_cpus)
			printf("SKIP: %s: -C 0,1 needs two CPUs\n", runs[i].id);
		else
			check_live(&runs[i], stub, tmp, regen);
	}
	free(stub);
	pk_test_rmtree(tmp);
}

/* The comparison catches what it must: a changed digit or a missing line
 * differs, the wall-clock value does not. */
static void test_self_check(void **state)
{
	(void)state;
	char a[] = "   2.00 msec task-clock   #    1.346 CPUs utilized  ";
	mask_wall(a);
	assert_string_equal(a, "   2.00 msec task-clock   # # CPUs utilized  ");
	char b[] = "{\"metric-value\" : 1.945586, \"metric-unit\" : \"CPUs utilized\"}";
	mask_wall(b);
	assert_string_equal(b, "{\"metric-value\" : #, \"metric-unit\" : \"CPUs utilized\"}");
	char *c = compared("\n Performance counter stats for 'true':\n\n   1  x\n\n"
			   "       0.001 seconds time elapsed\n");
	assert_string_equal(c, "   1  x\n");
	free(c);
	fake_count v[4];
	count_set s = {"t", "times enabled=9 running=3\ntype=3 config=65536 value=5\n"
			    "type=0 config=1 value=7 enabled=2 running=1\n"};
	assert_int_equal(parse_set(&s, v, 4), 2);
	assert_true(v[0].type == 3 && v[0].config == 65536 && v[0].value == 5 && v[0].ena == 9 &&
		    v[0].run == 3);
	assert_true(v[1].ena == 2 && v[1].run == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_check),
		cmocka_unit_test(test_stored),
		cmocka_unit_test(test_live_perf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
