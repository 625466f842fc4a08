/* The CLI's stat printer, byte for byte: fixed counts from the fake kernel
 * (tests/counting/fake_kernel.c) printed in perf's human, CSV and JSON forms
 * and compared with golden files in tests/cli/golden/. The goldens were
 * written from the printer before the metrics moved into the library
 * (lib/metrics), so they pin the output that refactor had to keep.
 *
 * Scenarios cover every stat metric (CPUs utilized, GHz, IPC, the miss and
 * stall ratios, rates in each K/M/G step), failed and uncounted events,
 * multiplexing, sysfs scale, -A, --per-thread, -I, -r noise, hybrid rows
 * (metrics pair events of the same PMU) and the header and footer. Also
 * the shape of the CSV and JSON lines and the number formatting.
 *
 * PK_UPDATE_GOLDEN=1 rewrites the goldens instead of comparing (only when
 * the output is meant to change). */
#include "helpers.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/counting.h>

#include "../counting/fake_kernel.h"
#include "../../tools/pmukit/stat_print.h"

static fake_kernel fk;

/* Thread ids above any pid_max: no /proc entry, so the comm is "?". */
#define NO_TID1 4194400
#define NO_TID2 4194401

typedef struct scene {
	pk_pmus *pmus;
	pk_evlist *l;
	pk_cpumap *cpus;
	pk_threadmap *t;
	pk_counting *c;
} scene;

/* Parses events on a fixture machine and opens them on the fake kernel:
 * per task (tids) or system-wide (cpus). */
static void scene_open(scene *s, const char *machine, const char *events, const int *cpus,
		       int nr_cpus, const pid_t *tids, int nr_tids)
{
	pk_error err;
	memset(s, 0, sizeof(*s));
	s->pmus = pk_pmus_load(pk_test_sysfs(machine), &err);
	if (!s->pmus)
		fail_msg("%s: %s", machine, err.msg);
	s->l = pk_evlist_new();
	if (events && pk_evlist_parse(s->l, s->pmus, events, NULL, &err) < 0)
		fail_msg("%s: %s", events, err.msg);
	if (!events)
		assert_int_equal(pk_evlist_add_default_stat(s->l, s->pmus, &err), 0);
	pk_config_opts co = {.mode = PK_CONFIG_STAT, .system_wide = cpus != NULL};
	assert_int_equal(pk_evlist_config(s->l, &co, &err), 0);
	pk_counting_opts o;
	pk_counting_opts_init(&o);
	o.kernel = &fk.k;
	o.paranoid = 2;
	if (cpus)
		s->cpus = o.cpus = pk_cpumap_from_array(cpus, nr_cpus);
	else
		s->t = o.threads = pk_threadmap_new(tids, nr_tids);
	s->c = pk_counting_new(s->l, &o, &err);
	assert_non_null(s->c);
	assert_int_equal(pk_counting_open(s->c, &err), 0);
}

static void scene_read(scene *s, int times)
{
	pk_error err;
	for (int i = 0; i < times; i++)
		assert_int_equal(pk_counting_read(s->c, &err), 0);
}

static void scene_close(scene *s)
{
	pk_counting_free(s->c);
	pk_cpumap_put(s->cpus);
	pk_threadmap_put(s->t);
	pk_evlist_put(s->l);
	pk_pmus_put(s->pmus);
}

/* Collected output of one scenario. */
typedef struct capture {
	char *buf;
	size_t len;
	FILE *f;
} capture;

static void cap_open(capture *c)
{
	c->buf = NULL;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

/* Prints rows in all three forms, each after a title line. */
static void print_all(capture *c, const char *title, const stat_rows *rows, pk_aggr_mode aggr,
		      int runs, double wall_ns, double interval_ns)
{
	static const struct {
		stat_format fmt;
		const char *sep, *name;
		bool big;
	} forms[] = {
		{STAT_HUMAN, " ", "human", true},
		{STAT_HUMAN, " ", "human, no big_num", false},
		{STAT_CSV, ",", "csv", false},
		{STAT_CSV, ";", "csv ;", false},
		{STAT_JSON, " ", "json", false},
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		fprintf(c->f, "=== %s: %s\n", title, forms[i].name);
		stat_printer p = {.out = c->f, .fmt = forms[i].fmt, .sep = forms[i].sep,
				  .aggr = aggr, .big_num = forms[i].big, .runs = runs};
		assert_int_equal(stat_print_rows(&p, rows, wall_ns, interval_ns), 0);
		stat_printer_free(&p);
	}
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, r;
	char *b = malloc(cap);
	while (b && (r = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n < 2) {
			char *nb = realloc(b, cap * 2);
			if (!nb)
				break;
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (b)
		b[n] = '\0';
	return b;
}

/* Compares with tests/cli/golden/<name>.txt; on a difference names the
 * first differing line and keeps the new output beside the build. */
static void cap_check(capture *c, const char *name)
{
	fclose(c->f);
	char path[1024];
	const char *src = getenv("PK_SRCDIR");
	snprintf(path, sizeof(path), "%s/tests/cli/golden/%s.txt", src ? src : ".", name);
	const char *upd = getenv("PK_UPDATE_GOLDEN");
	if (upd && *upd == '1') {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		fwrite(c->buf, 1, c->len, f);
		assert_int_equal(fclose(f), 0);
		free(c->buf);
		return;
	}
	char *want = read_file(path);
	if (!want)
		fail_msg("no golden %s", path);
	if (strcmp(want, c->buf) != 0) {
		size_t line = 1, i = 0;
		for (; want[i] && want[i] == c->buf[i]; i++)
			line += want[i] == '\n';
		char got[1024];
		snprintf(got, sizeof(got), "%s.got", name);
		FILE *f = fopen(got, "wb");
		if (f) {
			fwrite(c->buf, 1, c->len, f);
			fclose(f);
		}
		fail_msg("%s differs from the golden at line %zu (output in %s)", name, line, got);
	}
	free(want);
	free(c->buf);
}

/* Every generic event of the stat metrics on one task, with a failed one. */
#define GENERIC_EVENTS                                                                      \
	"task-clock,context-switches,page-faults,cycles,instructions,branches,branch-misses," \
	"cache-references,cache-misses,stalled-cycles-frontend,stalled-cycles-backend,"      \
	"ref-cycles,bus-cycles,topdown-total-slots,L1-dcache-load-misses,cpu-clock"

static void test_generic(void **state)
{
	(void)state;
	scene s;
	capture c;
	/* bus-cycles refused (its config is no software event's) */
	fk.fail_errno = ENOENT;
	fk.fail_config_set = true;
	fk.fail_config = PERF_COUNT_HW_BUS_CYCLES;
	scene_open(&s, "skylake", GENERIC_EVENTS, NULL, 0, (pid_t[]){NO_TID1}, 1);
	stat_rows rows = {0};
	cap_open(&c);
	scene_read(&s, 1000);
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_GLOBAL, false), 0);
	print_all(&c, "generic, 1000 reads", &rows, PK_AGGR_GLOBAL, 1, 4e6, -1);
	print_all(&c, "generic, no wall time", &rows, PK_AGGR_GLOBAL, 1, 0, -1);

	/* rates in each step, and ratios whose base is missing */
	pk_stat_rows_free(&rows);
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_GLOBAL, false), 0);
	static const uint64_t faults[] = {5, 5000, 5000000, 5000000000ull};
	for (size_t i = 0; i < rows.nr; i++) {
		const char *n = pk_evsel_name(rows.v[i].evsel);
		if (!strcmp(n, "task-clock"))
			rows.v[i].counts.val = 1000000000ull;
		if (!strcmp(n, "cycles") || !strcmp(n, "branches") || !strcmp(n, "cache-references"))
			rows.v[i].counts.run = 0; /* never ran: <not counted> */
	}
	for (size_t k = 0; k < 4; k++) {
		char title[64];
		for (size_t i = 0; i < rows.nr; i++)
			if (!strcmp(pk_evsel_name(rows.v[i].evsel), "page-faults"))
				rows.v[i].counts.val = faults[k];
		snprintf(title, sizeof(title), "rates, %llu faults per second",
			 (unsigned long long)faults[k]);
		print_all(&c, title, &rows, PK_AGGR_GLOBAL, 1, 2e9, -1);
	}
	pk_stat_rows_free(&rows);
	scene_close(&s);
	cap_check(&c, "generic");
}

/* -a on two CPUs, multiplexed to a third: global, -A, and -I deltas. */
static void test_system_wide(void **state)
{
	(void)state;
	scene s;
	capture c;
	scene_open(&s, "icelake", "cycles,instructions,task-clock,branch-misses,branches", (int[]){0, 1}, 2,
		   NULL, 0);
	fk.mux_num = 1;
	fk.mux_den = 3;
	scene_read(&s, 10);
	stat_rows rows = {0};
	cap_open(&c);
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_GLOBAL, false), 0);
	print_all(&c, "-a, global", &rows, PK_AGGR_GLOBAL, 1, 1e6, -1);
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_CPU, false), 0);
	print_all(&c, "-a -A", &rows, PK_AGGR_CPU, 1, 1e6, -1);
	scene_read(&s, 5);
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_CPU, true), 0);
	print_all(&c, "-a -A -I", &rows, PK_AGGR_CPU, 1, 1e9, 12.000123456e9);
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_GLOBAL, true), 0);
	print_all(&c, "-a -I", &rows, PK_AGGR_GLOBAL, 1, 1e9, 3e9);
	pk_stat_rows_free(&rows);
	scene_close(&s);
	cap_check(&c, "system_wide");
}

/* --per-thread on two tasks that have no /proc entry. */
static void test_per_thread(void **state)
{
	(void)state;
	scene s;
	capture c;
	scene_open(&s, "skylake", "task-clock,page-faults,cycles,instructions", NULL, 0,
		   (pid_t[]){NO_TID1, NO_TID2}, 2);
	scene_read(&s, 7);
	stat_rows rows = {0};
	cap_open(&c);
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_THREAD, false), 0);
	print_all(&c, "--per-thread", &rows, PK_AGGR_THREAD, 1, 5e4, -1);
	print_all(&c, "--per-thread -I", &rows, PK_AGGR_THREAD, 1, 5e4, 1e9);
	pk_stat_rows_free(&rows);
	scene_close(&s);
	cap_check(&c, "per_thread");
}

/* perf stat's default set on Alder Lake, -a on all 24 CPUs at 50%. */
static void test_hybrid(void **state)
{
	(void)state;
	scene s;
	capture c;
	int all[24];
	for (int i = 0; i < 24; i++)
		all[i] = i;
	scene_open(&s, "alderlake", NULL, all, 24, NULL, 0);
	fk.mux_num = 1;
	fk.mux_den = 2;
	scene_read(&s, 3);
	stat_rows rows = {0};
	cap_open(&c);
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_GLOBAL, false), 0);
	print_all(&c, "hybrid default -a", &rows, PK_AGGR_GLOBAL, 1, 2.5e7, -1);
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_CPU, false), 0);
	print_all(&c, "hybrid default -a -A", &rows, PK_AGGR_CPU, 1, 2.5e7, -1);
	pk_stat_rows_free(&rows);
	scene_close(&s);
	cap_check(&c, "hybrid");
}

/* -r 3: noise columns, header and footer. */
static void test_repeat(void **state)
{
	(void)state;
	scene s;
	capture c;
	scene_open(&s, "skylake", "task-clock,page-faults,cycles,instructions,branches,branch-misses",
		   NULL, 0, (pid_t[]){NO_TID1}, 1);
	scene_read(&s, 100);
	stat_rows rows = {0}, acc = {0};
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_GLOBAL, false), 0);
	pk_runstats elapsed = {0};
	for (int run = 0; run < 3; run++) {
		for (size_t i = 0; i < rows.nr; i++)
			rows.v[i].counts.val += (uint64_t)run * 1000 * (i + 1);
		assert_int_equal(pk_stat_rows_accumulate(&acc, &rows), 0);
		pk_runstats_add(&elapsed, 0.25 + 0.001 * run);
	}
	cap_open(&c);
	static const stat_format fmts[] = {STAT_HUMAN, STAT_CSV, STAT_JSON};
	for (size_t i = 0; i < 3; i++) {
		fprintf(c.f, "=== -r 3, format %zu\n", i);
		stat_printer p = {.out = c.f, .fmt = fmts[i], .sep = ",", .big_num = true, .runs = 3};
		stat_print_header(&p, "'workload'", 3);
		stat_print_rows(&p, &acc, elapsed.mean * 1e9, -1);
		stat_print_footer(&p, &elapsed, -1, -1);
		stat_printer_free(&p);
	}
	/* one run: the elapsed, user and sys lines */
	pk_runstats one = {0};
	pk_runstats_add(&one, 1.5);
	stat_printer p = {.out = c.f, .fmt = STAT_HUMAN, .sep = " ", .big_num = true, .runs = 1};
	fprintf(c.f, "=== one run\n");
	stat_print_header(&p, "'ls -l'", 1);
	stat_print_rows(&p, &rows, 1.5e9, -1);
	stat_print_footer(&p, &one, 0.125, 0.5);
	stat_printer_free(&p);
	pk_stat_rows_free(&acc);
	pk_stat_rows_free(&rows);
	scene_close(&s);
	cap_check(&c, "repeat");
}

/* The machine-readable forms parse: every JSON line is an object with
 * perf's keys, every CSV line has perf's seven fields; the one further
 * metric line (stalled cycles per insn under the IPC) has only the
 * interval and the metric in JSON, and its value after perf's four empty
 * fields in CSV. */
/* The generic events on Skylake counted once and printed in fmt with sep
 * (interval_ns < 0: none); the text, to free, and its number of rows. */
static char *print_generic(stat_format fmt, const char *sep, double interval_ns, size_t *nr)
{
	scene s;
	scene_open(&s, "skylake", GENERIC_EVENTS, NULL, 0, (pid_t[]){NO_TID1}, 1);
	scene_read(&s, 10);
	stat_rows rows = {0};
	assert_int_equal(pk_stat_rows_collect(&rows, s.c, PK_AGGR_GLOBAL, false), 0);
	capture c;
	cap_open(&c);
	stat_printer p = {.out = c.f, .fmt = fmt, .sep = sep, .runs = 1};
	assert_int_equal(stat_print_rows(&p, &rows, 1e6, interval_ns), 0);
	stat_printer_free(&p);
	fclose(c.f);
	*nr = rows.nr;
	pk_stat_rows_free(&rows);
	scene_close(&s);
	return c.buf;
}

static void test_shapes(void **state)
{
	(void)state;
	for (int json = 0; json < 2; json++) {
		size_t nr_rows;
		char *buf = print_generic(json ? STAT_JSON : STAT_CSV, ";",
					  json ? 2.25e9 : -1, &nr_rows);
		size_t lines = 0, further = 0;
		for (char *line = buf; *line; lines++) {
			char *nl = strchr(line, '\n');
			assert_non_null(nl);
			*nl = '\0';
			if (json) {
				json_error_t je;
				json_t *j = json_loads(line, 0, &je);
				if (!j)
					fail_msg("not JSON: %s (%s)", line, je.text);
				static const char *const keys[] = {
					"interval", "metric-value", "metric-unit", "counter-value",
					"unit", "event", "event-runtime", "pcnt-running"};
				bool count = json_object_get(j, "counter-value") != NULL;
				further += !count;
				assert_int_equal(json_object_size(j), count ? 8 : 3);
				for (size_t k = 0; k < (count ? 8 : 3); k++)
					assert_non_null(json_object_get(j, keys[k]));
				assert_true(json_real_value(json_object_get(j, "interval")) == 2.25);
				json_decref(j);
			} else {
				size_t seps = 0;
				for (char *q = line; *q; q++)
					seps += *q == ';';
				bool count = strncmp(line, ";;;;", 4) != 0;
				further += !count;
				assert_int_equal(seps, count ? 6 : 5);
			}
			line = nl + 1;
		}
		assert_int_equal(further, 1);
		assert_int_equal(lines, nr_rows + further);
		free(buf);
	}
}

/* Fields of one CSV line split per RFC 4180 with a one-byte separator:
 * quoted fields may hold it ("" is a quote); -1 on a bad quote. */
static int csv_split(const char *line, char sep)
{
	int n = 1;
	for (const char *q = line; *q; q++) {
		if (*q == '"' && (q == line || q[-1] == sep)) {
			for (q++; *q && !(*q == '"' && q[1] != '"'); q += *q == '"' ? 2 : 1)
				;
			if (!*q || (q[1] && q[1] != sep))
				return -1;
		} else if (*q == sep) {
			n++;
		}
	}
	return n;
}

/* stat -x ' ': the units and metric units with blanks ("CPUs utilized",
 * "insn per cycle") are quoted (RFC 4180), so every line still has perf's
 * columns; perf 6.1 writes them as they are. */
static void test_csv_quoted(void **state)
{
	(void)state;
	size_t nr_rows;
	char *buf = print_generic(STAT_CSV, " ", -1, &nr_rows);
	assert_non_null(strstr(buf, " \"insn per cycle\"\n"));
	assert_non_null(strstr(buf, " \"CPUs utilized\"\n"));
	for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		int n = csv_split(line, ' ');
		if (n != 7 && !(n == 6 && !strncmp(line, "    ", 4)))
			fail_msg("%d fields: '%s'", n, line);
	}
	free(buf);
}

static void test_format_num(void **state)
{
	(void)state;
	char b[64];
	stat_format_num(b, sizeof(b), 1234567.0, 0, ",");
	assert_string_equal(b, "1,234,567");
	stat_format_num(b, sizeof(b), 999.0, 0, ",");
	assert_string_equal(b, "999");
	stat_format_num(b, sizeof(b), 1234.5678, 2, ",");
	assert_string_equal(b, "1,234.57");
	stat_format_num(b, sizeof(b), 1234567.0, 0, "."); /* de_DE's */
	assert_string_equal(b, "1.234.567");
	stat_format_num(b, sizeof(b), 1234567.0, 0, ""); /* the C locale's */
	assert_string_equal(b, "1234567");
	stat_format_num(b, sizeof(b), 1234.5678, 2, NULL);
	assert_string_equal(b, "1234.57");
	stat_format_num(b, sizeof(b), 0, 0, ",");
	assert_string_equal(b, "0");
	stat_format_num(b, sizeof(b), -1234.0, 0, ",");
	assert_string_equal(b, "-1,234");
}

static int setup(void **state)
{
	(void)state;
	fake_kernel_init(&fk);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_generic, setup),
		cmocka_unit_test_setup(test_system_wide, setup),
		cmocka_unit_test_setup(test_per_thread, setup),
		cmocka_unit_test_setup(test_hybrid, setup),
		cmocka_unit_test_setup(test_repeat, setup),
		cmocka_unit_test_setup(test_shapes, setup),
		cmocka_unit_test_setup(test_csv_quoted, setup),
		cmocka_unit_test_setup(test_format_num, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
