/* stat --topdown's check that every TopDown event was counted (issue 9):
 * on the counting tests' fake kernel, an event the kernel does not support
 * (ENOENT) makes pk_topdown_check fail with the event's name and counting's
 * explanation, so no table is printed; a permission refusal (EACCES, as
 * perf_event_paranoid gives) already fails the open with the sysctl named;
 * with every event opened the check passes and the blocks print. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "../counting/fake_kernel.h"
#include "../../tools/pmukit/stat_topdown.h"

static fake_kernel fk;

/* Sets up and opens; returns NULL when the open failed (err says why). */
static pk_counting *open_td(const pk_pmus *pmus, stat_td *t, pk_evlist **l, pk_error *err)
{
	memset(t, 0, sizeof(*t));
	/* stat --topdown's events, as the library builds them for stat */
	pk_stat_events_opts eo = {.size = sizeof(eo), .pmus = pmus, .kernel = &fk.k,
				  .cpuid = "GenuineIntel-6-8F-8", .topdown = true, .td_level = 1};
	pk_stat_events ev;
	assert_int_equal(pk_stat_events_build(&eo, &ev, err), 0);
	assert_null(ev.mg);
	assert_false(ev.default_without_hw);
	*l = ev.evlist;
	t->td = ev.td;
	for (size_t i = 0; i < pk_evlist_count(*l); i++)
		assert_true(pk_topdown_has_evsel(t->td, pk_evlist_at(*l, i)));
	pk_counting_opts o;
	pk_counting_opts_init(&o);
	o.kernel = &fk.k;
	o.paranoid = 2;
	pid_t tid = 100;
	pk_threadmap *tm = pk_threadmap_new(&tid, 1);
	o.threads = tm;
	pk_counting *c = pk_counting_new(*l, &o, err);
	pk_threadmap_put(tm);
	assert_non_null(c);
	if (pk_counting_open(c, err) < 0) {
		pk_counting_free(c);
		return NULL;
	}
	return c;
}

/* stat -j's TopDown lines load as JSON whatever the strings hold (a
 * control character, a quote, a byte that is not UTF-8): each is escaped. */
static void json_lines_load(stat_td *t, stat_rows *rows)
{
	const char *note = "modeled \"x\"\t\x01\x1b\\ \xff";
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	stat_printer p = {.out = out, .fmt = STAT_JSON, .runs = 1, .modeled = note};
	assert_int_equal(stat_td_print(t, &p, rows, -1, -1), 0);
	fclose(out);
	json_error_t e;
	json_t *j = json_loads(buf, 0, &e);
	if (!j)
		fail_msg("stat -j line does not load (%s): %s", e.text, buf);
	const char *m = json_string_value(json_object_get(j, "modeled"));
	assert_non_null(m);
	assert_string_equal(m, "modeled \"x\"\t\x01\x1b\\ \xef\xbf\xbd");
	json_decref(j);
	stat_printer_free(&p);
	free(buf);
}

static void test_refused_event(void **state)
{
	(void)state;
	fake_kernel_init(&fk);
	fk.fail_errno = EACCES;
	fk.fail_config_set = true;
	fk.fail_config = 0x10ad; /* INT_MISC.UOP_DROPPING on Sapphire Rapids */
	pk_error err;
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("sapphirerapids"), &err);
	assert_non_null(pmus);
	stat_td t;
	pk_evlist *l;
	assert_null(open_td(pmus, &t, &l, &err));
	assert_non_null(strstr(err.msg, "perf_event_paranoid"));
	pk_evlist_put(l);
	stat_td_free(&t);

	fake_kernel_init(&fk);
	fk.fail_errno = ENOENT;
	fk.fail_config_set = true;
	fk.fail_config = 0x10ad;
	pk_counting *c = open_td(pmus, &t, &l, &err);
	assert_non_null(c);
	pk_error_clear(&err);
	assert_true(pk_topdown_check(t.td, c, pmus, &err) < 0);
	if (!strstr(err.msg, "TopDown needs every one of its events, and "
			     "'INT_MISC.UOP_DROPPING' (cpu) could not be counted"))
		fail_msg("%s", err.msg);
	assert_non_null(strstr(err.hint, "CAP_PERFMON"));
	pk_counting_free(c);
	pk_evlist_put(l);
	stat_td_free(&t);

	/* nothing refused: the check passes and the block prints */
	fake_kernel_init(&fk);
	c = open_td(pmus, &t, &l, &err);
	assert_non_null(c);
	assert_int_equal(pk_topdown_check(t.td, c, pmus, &err), 0);
	assert_int_equal(pk_counting_read(c, &err), 0);
	stat_rows rows = {0};
	assert_int_equal(pk_stat_rows_collect(&rows, c, PK_AGGR_GLOBAL, false), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	stat_printer p = {.out = out, .fmt = STAT_CSV, .sep = ",", .runs = 1};
	assert_int_equal(stat_td_print(&t, &p, &rows, -1, -1), 0);
	fclose(out);
	/* four Level 1 nodes, each on a line, whatever the fake counts */
	int lines = 0;
	for (const char *s = buf; (s = strstr(s, ",%,tma_")); s++)
		lines++;
	assert_int_equal(lines, 4);
	assert_int_equal(t.series.nr, 4);
	free(buf);
	json_lines_load(&t, &rows);
	pk_stat_rows_free(&rows);
	stat_printer_free(&p);
	pk_counting_free(c);
	pk_evlist_put(l);
	stat_td_free(&t);
	pk_pmus_put(pmus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_event),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
