/* The public session API (include/pmukit/session.h), on hand-made files:
 * samples in time order after the task state took the records before
 * them, side records before and after it, messages kept when no callback
 * is given, perf's owner check, a file of which nothing decodes
 * (-ENODATA naming how many samples and where the first was), options of
 * an older size refused, a missing file with perf's hint. */
#include "helpers.h"
#include "pd_test.h"
#include "perfdata/sample_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/session.h>

#define PID 777

static const struct perf_event_attr attr = {
	.type = PERF_TYPE_SOFTWARE, .size = sizeof(struct perf_event_attr),
	.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
	.sample_id_all = 1, .comm = 1};

/* A COMM of "sess", then nr samples written out of time order (the
 * reader orders them), or, damaged, sample records cut short. */
static const char *make_file(const char *name, int nr, bool damaged)
{
	static char path[1024];
	snprintf(path, sizeof(path), "%s/%s", pd_test_dir, name);
	pk_pd_writer *w;
	pk_error err;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	assert_int_equal(pk_pd_writer_add_evsel(w, &attr, 0, "cpu-clock", NULL, 0, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	pk_pd_buf b = {0};
	pk_pd_buf_u64(&b, 0); /* header, set by pd_test_put_record */
	pk_pd_buf_u32(&b, PID);
	pk_pd_buf_u32(&b, PID);
	pk_pd_buf_name(&b, "sess");
	pd_test_put_record(w, &attr, &b, PERF_RECORD_COMM, 0, PID);
	pk_pd_buf_release(&b);
	for (int i = 0; i < nr; i++) {
		uint64_t t = 2000000000ULL + (uint64_t)((i * 7) % nr) * 1000; /* shuffled */
		pk_pd_sample s = {.misc = PERF_RECORD_MISC_USER, .ip = 0x400000 + (uint64_t)i,
				  .pid = PID, .tid = PID, .time = t, .period = 1000};
		uint8_t rec[256];
		ssize_t n = pki_pd_sample_write(&attr, &s, rec, sizeof(rec), &err);
		assert_true(n > 0);
		if (damaged) { /* the record ends before the TID field */
			uint16_t size = 8 + 8;
			memcpy(rec + 6, &size, 2);
			n = size;
		}
		assert_int_equal(pk_pd_writer_write(w, rec, (size_t)n, &err), 0);
	}
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	return path;
}

typedef struct seen {
	uint64_t last_time, nr;
	bool ordered, named;
	int events_before, events_after;
} seen;

static int on_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	seen *x = arg;
	(void)ev;
	x->ordered = x->ordered && smp->time >= x->last_time;
	x->last_time = smp->time;
	x->named = x->named && !strcmp(pk_machine_comm(pk_session_machine(s), smp->pid, smp->tid),
				       "sess");
	x->nr++;
	return 0;
}

static void on_event(void *arg, pk_session *s, const pk_pd_event *ev, bool before)
{
	seen *x = arg;
	(void)s;
	if (ev->type == PERF_RECORD_COMM)
		(*(before ? &x->events_before : &x->events_after))++;
}

static void test_samples_in_order(void **state)
{
	(void)state;
	const char *path = make_file("good.data", 50, false);
	pk_session *s;
	pk_error err;
	assert_int_equal(pk_session_open(path, NULL, &s, &err), 0);
	assert_string_equal(pk_session_input(s), path);
	assert_int_equal(pk_session_nr_evsels(s), 1);
	assert_true(!strncmp(pk_pd_evsel_name(pk_session_evsel_at(s, 0)), "cpu-clock", 9));
	assert_null(pk_session_evsel_at(s, 1));
	seen x = {.ordered = true, .named = true};
	pk_session_on_event(s, on_event, &x);
	assert_int_equal(pk_session_run(s, on_sample, &x, &err), 0);
	assert_int_equal(x.nr, 50);
	assert_int_equal(pk_session_nr_samples(s), 50);
	assert_true(x.ordered);
	assert_true(x.named); /* the COMM before them was taken */
	assert_int_equal(x.events_before, 1);
	assert_int_equal(x.events_after, 1);
	assert_int_equal(pk_session_finish(s, &err), 0);
	assert_null(pk_session_warning(s, 0));
	pk_session_close(s);
}

static int stop_at_3(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	(void)s, (void)ev, (void)smp;
	return ++*(int *)arg == 3 ? 42 : 0;
}

static void test_callback_stops(void **state)
{
	(void)state;
	pk_session *s;
	pk_error err;
	assert_int_equal(pk_session_open(make_file("stop.data", 10, false), NULL, &s, &err), 0);
	int n = 0;
	assert_int_equal(pk_session_run(s, stop_at_3, &n, &err), 42);
	assert_int_equal(n, 3);
	pk_session_close(s);
	/* no callback: the records walked, the samples counted */
	assert_int_equal(pk_session_open(make_file("walk.data", 10, false), NULL, &s, &err), 0);
	assert_int_equal(pk_session_run(s, NULL, NULL, &err), 0);
	assert_int_equal(pk_session_nr_samples(s), 10);
	pk_session_close(s);
}

static void test_nothing_decoded(void **state)
{
	(void)state;
	pk_session *s;
	pk_error err;
	assert_int_equal(pk_session_open(make_file("bad.data", 5, true), NULL, &s, &err), 0);
	seen x = {.ordered = true, .named = true};
	assert_int_equal(pk_session_run(s, on_sample, &x, &err), 0);
	assert_int_equal(x.nr, 0);
	assert_int_equal(pk_session_finish(s, &err), -ENODATA);
	assert_non_null(strstr(err.msg, "none of the 5 samples"));
	/* no callback: the drop is kept, with its count and first offset */
	const char *w = pk_session_warning(s, 0);
	assert_non_null(w);
	assert_non_null(strstr(w, "5 "));
	assert_non_null(strstr(w, "first at file offset"));
	pk_session_close(s);
}

static void test_open_refusals(void **state)
{
	(void)state;
	pk_session *s = (pk_session *)1;
	pk_error err;
	char missing[1024];
	snprintf(missing, sizeof(missing), "%s/none.data", pd_test_dir);
	assert_int_equal(pk_session_open(missing, NULL, &s, &err), -ENOENT);
	assert_null(s);
	assert_non_null(strstr(err.msg, missing));
	assert_non_null(strstr(err.hint, "pmukit record"));
	pk_session_opts o = {0}; /* not through pk_session_opts_init: size 0 */
	assert_int_equal(pk_session_open(missing, &o, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "pk_session_opts_init"));
	if (geteuid() != 0) {
		fprintf(stderr, "not root: no file of another user to try the owner check on\n");
		return;
	}
	const char *path = make_file("other.data", 1, false);
	assert_int_equal(chown(path, 65534, 65534), 0);
	/* owned by neither this user nor root: refused as perf refuses it, unless forced */
	assert_int_equal(pk_session_open(path, NULL, &s, &err), -EPERM);
	assert_non_null(strstr(err.msg, "not owned by current user or root"));
	pk_session_opts_init(&o);
	o.force = true;
	assert_int_equal(pk_session_open(path, &o, &s, &err), 0);
	pk_session_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_in_order),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_nothing_decoded),
		cmocka_unit_test(test_open_refusals),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
