/* The recorder on the fake kernel (tests/counting/fake_kernel.c), whose
 * mmap serves ring buffers: records put in every event's ring must reach
 * the perf.data file, on a hybrid machine too (the Alder Lake fixture:
 * cpu_core on CPUs 0-15, cpu_atom on 16-23, disjoint CPU maps). Also the
 * writer's own edge cases that the recorder leans on. */
#include "helpers.h"
#include "../counting/fake_kernel.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/perfdata.h>
#include <pmukit/pmu.h>
#include <pmukit/record.h>

/* UBSan stops at the first report, so that memcpy(NULL, 0) and friends fail
 * the test instead of scrolling by. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

#define NR_CPUS 24
#define SAMPLE_LAYOUT                                                                              \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |           \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* A SAMPLE record as the kernel writes it for SAMPLE_LAYOUT. */
static size_t make_sample(uint8_t *rec, uint64_t id, int cpu, uint64_t time)
{
	uint64_t w[7] = {0};
	w[0] = PERF_RECORD_SAMPLE | ((uint64_t)sizeof(w) << 48);
	w[1] = id;
	w[2] = 0xffffffff81000000ull + (uint64_t)cpu;   /* ip */
	w[3] = 0;                                       /* pid, tid: the idle task */
	w[4] = time;
	w[5] = (uint64_t)cpu;                           /* cpu, res */
	w[6] = 1000;                                    /* period */
	memcpy(rec, w, sizeof(w));
	return sizeof(w);
}

static void test_hybrid_rings(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("alderlake"), &err);
	assert_non_null(pmus);
	pk_evlist *l = pk_evlist_new();
	assert_int_equal(pk_evlist_parse(l, pmus, "cycles", NULL, &err), 0);
	assert_int_equal(pk_evlist_count(l), 2); /* cpu_core and cpu_atom */
	/* two events of one sample_type share ID as perf's; IDENTIFIER asked for */
	pk_config_opts co = {.mode = PK_CONFIG_RECORD, .system_wide = true,
			     .sample_type = PERF_SAMPLE_CPU, .sample_identifier = true};
	assert_int_equal(pk_evlist_config(l, &co, &err), 0);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(pk_evsel_attr(pk_evlist_at(l, i))->sample_type, SAMPLE_LAYOUT);

	fake_kernel *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	fake_kernel_init(f);
	pk_cpumap *cpus = pk_cpumap_parse("0-23", &err);
	pk_threadmap *any = pk_threadmap_any();
	pk_record_opts ro = {.kernel = &f->k, .cpus = cpus, .threads = any, .mmap_pages = 4};
	pk_recorder *rec = NULL;
	if (pk_recorder_open(l, &ro, &rec, &err) < 0)
		fail_msg("open: %s", err.msg);

	/* one sample from every open event, on its CPU */
	int emitted[NR_CPUS] = {0};
	for (int i = 0; i < f->nr; i++) {
		fake_event *e = &f->ev[i];
		assert_true(e->cpu >= 0 && e->cpu < NR_CPUS);
		uint8_t s[64];
		size_t n = make_sample(s, 0x10000u + (uint64_t)(FAKE_FD_BASE + i), e->cpu, 1000 + (uint64_t)i);
		int rc = fake_ring_emit(f, FAKE_FD_BASE + i, s, n);
		if (rc < 0)
			fail_msg("CPU %d (%s): no ring buffer takes its samples", e->cpu,
				 e->cpu >= 16 ? "cpu_atom" : "cpu_core");
		emitted[e->cpu]++;
	}

	char *dir = pk_test_tmpdir();
	char path[512];
	snprintf(path, sizeof(path), "%s/hybrid.data", dir);
	pk_pd_writer *w = NULL;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	assert_int_equal(pk_recorder_add_evsels(rec, w, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	assert_int_equal(pk_recorder_drain(rec, w, &err), f->nr);
	assert_int_equal(pk_pd_writer_nr_samples(w), f->nr);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	assert_int_equal(pk_recorder_stats(rec)->nr_samples, f->nr);

	/* every CPU's samples are in the file, with their event */
	pk_pd_reader *r = NULL;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, &err), 0);
	int got[NR_CPUS] = {0}, atom = 0;
	pk_pd_event ev;
	while (pk_pd_next(r, &ev, &err) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		assert_non_null(ev.evsel);
		assert_true(ev.id.cpu < NR_CPUS);
		got[ev.id.cpu]++;
		/* evsel 1 is cpu_atom's cycles (core PMUs in perf's order) */
		atom += ev.id.cpu >= 16 && ev.evsel == pk_pd_evsel_at(r, 1);
	}
	pk_pd_reader_close(r);
	for (int c = 0; c < NR_CPUS; c++)
		assert_int_equal(got[c], emitted[c]);
	assert_int_equal(atom, 8);

	pk_recorder_close(rec);
	assert_int_equal(f->nr_open, 0);
	unlink(path);
	rmdir(dir);
	free(dir);
	pk_threadmap_put(any);
	pk_cpumap_put(cpus);
	pk_evlist_put(l);
	pk_pmus_put(pmus);
	free(f);
}

/* An event without ids (none opened: `record -C ''` reached the writer so)
 * wrote from NULL; a full output's closing line claimed samples it lost. */
static void test_writer_edges(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = SAMPLE_LAYOUT;
	uint8_t s[64];
	size_t n = make_sample(s, 1, 0, 1);
	char *dir = pk_test_tmpdir();
	char path[512];
	snprintf(path, sizeof(path), "%s/edges.data", dir);
	pk_pd_writer *w = NULL;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "cpu-clock", NULL, 0, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	assert_int_equal(pk_pd_writer_write(w, s, n, &err), 0);
	/* buffered: not in the output yet; a flush writes it and the header */
	assert_int_equal(pk_pd_writer_nr_samples(w), 0);
	assert_int_equal(pk_pd_writer_flush(w, &err), 0);
	assert_int_equal(pk_pd_writer_nr_samples(w), 1);
	pk_pd_reader *r = NULL;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, &err), 0);
	pk_pd_event ev;
	int samples = 0;
	while (pk_pd_next(r, &ev, &err) > 0)
		samples += ev.type == PERF_RECORD_SAMPLE;
	pk_pd_reader_close(r);
	assert_int_equal(samples, 1);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	unlink(path);
	rmdir(dir);
	free(dir);

	/* the reader of a pipe goes away: the next flush fails, and says so */
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pk_pd_writer_open_fd(p[1], "pipe", true, &w, &err), 0);
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "cpu-clock", NULL, 0, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pk_pd_writer_write(w, s, n, &err), 0);
	assert_true(pk_pd_writer_flush(w, &err) < 0);
	assert_int_equal(err.code, -EPIPE);
	assert_int_equal(pk_pd_writer_nr_samples(w), 0);
	pk_pd_writer_abort(w);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_hybrid_rings),
					   cmocka_unit_test(test_writer_edges)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
