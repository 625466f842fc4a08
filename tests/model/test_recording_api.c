/* The recording engine as a library (recording.h, issue 21), without the
 * CLI: a program records a model scenario through pk_recording's steps and
 * gets a perf.data whose samples are the ones the stats count; a rate above
 * the kernel's maximum is lowered with a note (no print); an AUX event not
 * first is refused as a usage error; a finished file reads back whole;
 * --call-graph's words set the mode, the stack dump (rounded up to 8) or
 * the entry limit as perf 6.1, and a bad word leaves the options alone;
 * --switch-output's switch splits the samples between two whole files,
 * events switched off take none (pk_recording_switch, pk_recording_enable). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/model.h>
#include <pmukit/perfdata.h>
#include <pmukit/recording.h>

#include "helpers.h"

typedef struct notes {
	int freq_lowered;
	uint64_t max, asked;
} notes;

static void on_note(void *arg, pk_recording_note n, uint64_t a, uint64_t b, const char *text)
{
	notes *ns = arg;
	(void)text;
	if (n == PK_RECNOTE_FREQ_LOWERED) {
		ns->freq_lowered++;
		ns->max = a;
		ns->asked = b;
	}
}

static pk_recording_opts model_opts(pk_model *m, const char *const *events, size_t n)
{
	return (pk_recording_opts){
		.size = sizeof(pk_recording_opts), .kernel = pk_model_kernel(m),
		.sysfs_root = pk_model_sysfs_root(m), .cpuid = pk_model_cpuid(m)->str,
		.events = events, .nr_events = n, .system_wide = true,
	};
}

/* Samples in a perf.data, as a reader sees them. */
static uint64_t file_samples(const char *path)
{
	pk_pd_reader *rd;
	pk_pd_event ev;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pd_reader_open(path, NULL, &rd, &err), 0);
	uint64_t n = 0;
	int r;
	while ((r = pk_pd_next(rd, &ev, &err)) == 1)
		n += ev.type == PERF_RECORD_SAMPLE;
	assert_int_equal(r, 0);
	pk_pd_reader_close(rd);
	return n;
}

/* r opened, begun and started. */
static void record_start(pk_recording *r)
{
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_recording_open(r, &err), 0);
	assert_int_equal(pk_recording_begin(r, &err), 0);
	assert_int_equal(pk_recording_start(r, &err), 0);
}

/* r stepped to the scenario's end and finished. */
static void record_finish(pk_recording *r, pk_model *m)
{
	pk_error err;
	pk_error_clear(&err);
	int rc;
	while ((rc = pk_recording_step(r, &err)) == 1 && pk_model_now(m) < pk_model_end(m))
		;
	assert_true(rc >= 0);
	assert_int_equal(pk_recording_finish(r, true, &err), 0);
}

static void test_records_scenario(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char path[4096];
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	pk_model *m = pk_test_model(pk_test_example("skylake.json"));
	const char *ev[] = {"cycles"};
	notes ns = {0};
	pk_recording_opts o = model_opts(m, ev, 1);
	o.freq = 1000000000; /* above any kernel's maximum rate */
	o.output = path;
	o.note = on_note;
	o.note_arg = &ns;
	pk_recording *r;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_recording_new(&o, &r, &err), 0);
	assert_int_equal(pk_recording_configure(r, &err), 0);
	int64_t max = pk_host_number(pk_model_kernel(m), PK_HOST_MAX_SAMPLE_RATE, 0);
	assert_true(max > 0);
	assert_int_equal(ns.freq_lowered, 1);
	assert_int_equal(ns.max, (uint64_t)max);
	assert_int_equal(ns.asked, 1000000000);
	assert_int_equal(pk_evsel_attr(pk_evlist_at(pk_recording_evlist(r), 0))->sample_freq,
			 (uint64_t)max);
	record_start(r);
	record_finish(r, m);
	const pk_recording_totals *t = pk_recording_stats(r);
	uint64_t samples = t->samples;
	assert_true(samples > 0);
	assert_true(t->bytes > 0);
	assert_int_equal(samples, t->rings->nr_samples);
	assert_false(pk_recording_pipe(r));
	pk_recording_free(r);
	pk_model_free(m);
	assert_int_equal(file_samples(path), samples);
	pk_test_rmtree(dir);
}

/* Steps until the model's clock reaches t (or the recording ends). */
static void step_until(pk_recording *r, pk_model *m, uint64_t t)
{
	pk_error err;
	pk_error_clear(&err);
	while (pk_model_now(m) < t && pk_recording_step(r, &err) == 1)
		;
}

/* --switch-output's switch: the file so far finished under the dump's name
 * (its samples there), a new one begun under the output's name with the
 * rest; together they hold every sample the rings gave. Events switched
 * off take no samples until switched on again. A switch to a name that
 * cannot be made fails and leaves finish nothing to close. */
static void test_switch_and_enable(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char path[4096], dump[4200], bad[4200];
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	snprintf(dump, sizeof(dump), "%s/perf.data.1", dir);
	snprintf(bad, sizeof(bad), "%s/no/such/dir/perf.data.2", dir);
	pk_model *m = pk_test_model(pk_test_example("skylake.json"));
	const char *ev[] = {"cycles"};
	pk_recording_opts o = model_opts(m, ev, 1);
	o.output = path;
	pk_recording *r;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_recording_new(&o, &r, &err), 0);
	assert_int_equal(pk_recording_configure(r, &err), 0);
	record_start(r);
	uint64_t end = pk_model_end(m);
	step_until(r, m, end / 3);
	assert_int_equal(pk_recording_switch(r, dump, &err), 0);
	uint64_t first = pk_recording_stats(r)->samples;
	assert_true(first > 0);
	assert_int_equal(pk_recording_enable(r, false, &err), 0);
	uint64_t before = pk_recording_stats(r)->rings->nr_samples;
	step_until(r, m, end / 2);
	assert_int_equal(pk_recording_stats(r)->rings->nr_samples, before);
	assert_int_equal(pk_recording_enable(r, true, &err), 0);
	record_finish(r, m);
	uint64_t second = pk_recording_stats(r)->samples;
	assert_true(second > 0);
	assert_int_equal(first + second, pk_recording_stats(r)->rings->nr_samples);
	pk_recording_free(r);
	assert_int_equal(file_samples(dump), first);
	assert_int_equal(file_samples(path), second);
	/* a dump name that cannot be made: the error, then nothing to finish */
	assert_int_equal(pk_recording_new(&o, &r, &err), 0);
	assert_int_equal(pk_recording_configure(r, &err), 0);
	record_start(r);
	assert_int_equal(pk_recording_switch(r, bad, &err), -ENOENT);
	assert_non_null(strstr(err.msg, bad));
	assert_true(pk_recording_finish(r, false, &err) == 0);
	pk_recording_free(r);
	pk_model_free(m);
	pk_test_rmtree(dir);
}

static void test_aux_event_not_first_refused(void **state)
{
	(void)state;
	pk_model *m = pk_test_model(pk_test_example("neoverse-n1-spe.json"));
	const char *ev[] = {"cycles", "arm_spe_0//"};
	pk_recording_opts o = model_opts(m, ev, 2);
	pk_recording *r;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_recording_new(&o, &r, &err), 0);
	assert_true(pk_recording_configure(r, &err) < 0);
	assert_true(pk_recording_refused(r));
	assert_non_null(strstr(err.msg, "put the arm_spe_0 event first"));
	pk_recording_free(r);
	pk_model_free(m);
}

static void test_bad_event_is_the_parsers_error(void **state)
{
	(void)state;
	const char *ev[] = {"no-such-event"};
	pk_recording_opts o = {.size = sizeof(o), .events = ev, .nr_events = 1};
	pk_recording *r = (pk_recording *)&o;
	pk_error err;
	pk_error_clear(&err);
	assert_true(pk_recording_new(&o, &r, &err) < 0);
	assert_null(r);
	assert_true(err.code < 0);
	assert_string_equal(err.where, "no-such-event");
}

static void test_call_graph_words(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	pk_recording_opts o = {.size = sizeof(o)};
	assert_int_equal(pk_recording_call_graph(&o, "dwarf,4093", &err), 0);
	assert_int_equal(o.call_graph, PK_CALL_GRAPH_DWARF);
	assert_int_equal(o.stack_dump, 4096);
	assert_true(o.sample_addr);
	/* too large: refused with perf's words, nothing changed */
	assert_int_equal(pk_recording_call_graph(&o, "dwarf,65536", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "Incorrect stack dump size (max 65528): 65536"));
	assert_int_equal(o.stack_dump, 4096);
	assert_int_equal(pk_recording_call_graph(&o, "fp,20", &err), 0);
	assert_int_equal(o.call_graph, PK_CALL_GRAPH_FP);
	assert_int_equal(o.max_stack, 20);
	assert_int_equal(pk_recording_call_graph(&o, "fp,500", &err), 0);
	assert_int_equal(o.max_stack, 0); /* the kernel's limit */
	assert_int_equal(pk_recording_call_graph(&o, "lbr", &err), 0);
	assert_int_equal(o.call_graph, PK_CALL_GRAPH_LBR);
	assert_int_equal(pk_recording_call_graph(&o, "lbr,8", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not 'lbr,8'"));
	assert_int_equal(o.call_graph, PK_CALL_GRAPH_LBR);
}

/* every_task (a model's kernel): without targets a ring per scenario
 * thread, which samples; a -t list naming no task of the kernel refused at
 * the open with the targets' error. */
static void test_every_task(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char path[4096];
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	pk_model *m = pk_test_model(pk_test_example("skylake.json"));
	const char *ev[] = {"cycles"};
	pk_recording_opts o = model_opts(m, ev, 1);
	o.system_wide = false, o.every_task = true, o.output = path;
	pk_recording *r;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_recording_new(&o, &r, &err), 0);
	assert_int_equal(pk_recording_configure(r, &err), 0);
	record_start(r);
	record_finish(r, m);
	assert_true(pk_recording_stats(r)->samples > 0);
	pk_recording_free(r);
	o.tids = "999999";
	assert_int_equal(pk_recording_new(&o, &r, &err), 0);
	assert_int_equal(pk_recording_configure(r, &err), 0);
	assert_true(pk_recording_open(r, &err) < 0);
	assert_non_null(strstr(err.msg, "999999"));
	pk_recording_free(r);
	pk_model_free(m);
	pk_test_rmtree(dir);
}

/* --max-size's units (perf's B, K, M, G, T) and refusals, o unchanged. */
static void test_max_size_words(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	pk_recording_opts o = {.size = sizeof(o)};
	assert_int_equal(pk_recording_max_size(&o, "4096", &err), 0);
	assert_int_equal(o.max_size, 4096);
	assert_int_equal(pk_recording_max_size(&o, "512k", &err), 0);
	assert_int_equal(o.max_size, 512 * 1024);
	assert_int_equal(pk_recording_max_size(&o, "2G", &err), 0);
	assert_int_equal(o.max_size, 2ull << 30);
	assert_int_equal(pk_recording_max_size(&o, "10X", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'10X': a size like 4096"));
	assert_int_equal(pk_recording_max_size(&o, "-1", &err), -EINVAL);
	assert_int_equal(pk_recording_max_size(&o, "99999999999T", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "too large"));
	assert_int_equal(o.max_size, 2ull << 30);
}

/* The options together, perf record 6.1's rules, each with its words. */
static void test_opts_check(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	char *cmd[] = {(char *)"true", NULL};
	pk_recording_opts o = {.size = sizeof(o), .cmd = cmd};
	assert_int_equal(pk_recording_opts_check(&o, false, &err), 0);
	o.freq = 99, o.period = 1000;
	assert_int_equal(pk_recording_opts_check(&o, false, &err), -EINVAL);
	assert_string_equal(err.msg, "-F and -c exclude each other");
	o.freq = 0, o.pids = "1", o.system_wide = true;
	assert_int_equal(pk_recording_opts_check(&o, false, &err), -EINVAL);
	assert_string_equal(err.msg, "-a/-C, -p and -t exclude each other");
	o.system_wide = false, o.compress = 1, o.output = "-";
	assert_int_equal(pk_recording_opts_check(&o, false, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "pipe mode (-o -) is not compressed"));
	o.compress = 0, o.pids = NULL;
	assert_int_equal(pk_recording_opts_check(&o, true, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--model runs the scenario's threads"));
	o.cmd = NULL;
	assert_int_equal(pk_recording_opts_check(&o, true, &err), 0);
	assert_int_equal(pk_recording_opts_check(&o, false, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "nothing to record"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_scenario),
		cmocka_unit_test(test_switch_and_enable),
		cmocka_unit_test(test_aux_event_not_first_refused),
		cmocka_unit_test(test_bad_event_is_the_parsers_error),
		cmocka_unit_test(test_call_graph_words),
		cmocka_unit_test(test_every_task),
		cmocka_unit_test(test_max_size_words),
		cmocka_unit_test(test_opts_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
