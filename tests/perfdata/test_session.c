/* The public session API (include/pmukit/session.h), on hand-made files:
 * samples in time order after the task state took the records before
 * them, side records before and after it, messages kept when no callback
 * is given, perf's owner check, a file of which nothing decodes
 * (-ENODATA naming how many samples and where the first was), options of
 * an older size refused, a missing file with perf's hint; script's -F
 * list (pk_script_fields) parsed and checked against the file's
 * sample_type, its refusals in perf 6.1's words; report's option words
 * read into pk_hist_opts (pk_hist_opts_*), and the key columns' widths
 * (pk_hist_widths) against the dots under perf 6.1's titles; report
 * --stats' counts (pk_session_stats). */
#include "helpers.h"
#include "pd_test.h"
#include "perfdata/sample_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/hist.h>
#include <pmukit/script.h>
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

/* -F parsed, then checked on cpu-clock samples with ip, tid, time and
 * period (no cpu): the defaults lose cpu silently, a list asking for it
 * is refused as perf 6.1 refuses it, +/- change the defaults. */
static unsigned fields_of(pk_session *s, const char *arg, int *rc, pk_error *err)
{
	pk_script_fields sel = {0};
	unsigned f = 0;
	int w = 0;
	*rc = arg ? pk_script_fields_parse(&sel, arg, err) : 0;
	if (!*rc)
		*rc = pk_script_fields_check(&sel, s, false, &f, &w, err);
	assert_true(*rc || w == (int)strlen(pk_pd_evsel_name(pk_session_evsel_at(s, 0))));
	return f;
}

static void test_script_fields(void **state)
{
	(void)state;
	const char *path = make_file("fields.data", 3, false);
	pk_session *s;
	pk_error err;
	int rc;
	assert_int_equal(pk_session_open(path, NULL, &s, &err), 0);
	unsigned def = PK_SCRIPT_F_COMM | PK_SCRIPT_F_TID | PK_SCRIPT_F_TIME | PK_SCRIPT_F_EVNAME |
		       PK_SCRIPT_F_IP | PK_SCRIPT_F_SYM | PK_SCRIPT_F_SYMOFF | PK_SCRIPT_F_DSO |
		       PK_SCRIPT_F_PERIOD;
	assert_int_equal(fields_of(s, NULL, &rc, &err), def);
	assert_int_equal(fields_of(s, "-sym,+addr,+cpu", &rc, &err), def & ~PK_SCRIPT_F_SYM);
	assert_int_equal(fields_of(s, "sw:ip,tid", &rc, &err), PK_SCRIPT_F_IP | PK_SCRIPT_F_TID);
	assert_int_equal(fields_of(s, "trace:ip", &rc, &err), def); /* not this event's type */
	fields_of(s, "ip,cpu", &rc, &err);
	assert_int_equal(rc, -EINVAL);
	char want[256];
	snprintf(want, sizeof(want), "Samples for '%s' event do not have CPU attribute set. "
		 "Cannot print 'cpu' field.", pk_pd_evsel_name(pk_session_evsel_at(s, 0)));
	assert_string_equal(err.msg, want);
	if (pd_test_have("perf")) { /* perf 6.1 says the same */
		char cmd[1200], *out = NULL;
		snprintf(cmd, sizeof(cmd), "perf script -F ip,cpu -i %s 2>&1", path);
		pk_test_run(cmd, &out, 0);
		assert_non_null(out);
		assert_non_null(strstr(out, err.msg));
		free(out);
	}
	fields_of(s, "symoff", &rc, &err);
	assert_string_equal(err.msg, "Display of offsets requested but symbol is notselected.");
	pk_script_fields sel = {0};
	assert_int_equal(pk_script_fields_parse(&sel, "ip,+sym", &err), -EINVAL);
	assert_string_equal(err.msg, "cannot mix +-field with overridden fields");
	assert_int_equal(pk_script_fields_parse(&sel, "bogus", &err), -EINVAL);
	assert_string_equal(err.msg, "invalid field requested: 'bogus'");
	assert_int_equal(pk_script_fields_parse(&sel, "hx:ip", &err), -EINVAL);
	assert_string_equal(err.msg, "invalid event type 'hx' in field string");
	assert_int_equal(pk_script_fields_parse(&sel, "", &err), -EINVAL);
	pk_session_close(s);
}

/* report's option words: -s, -g, the lists, -C, --time, -F. */
static void test_hist_opts(void **state)
{
	(void)state;
	pk_hist *h = pk_hist_new();
	assert_non_null(h);
	pk_hist_opts *o = pk_hist_options(h);
	pk_error err;
	assert_int_equal(pk_hist_opts_sort(o, "dso,sym", &err), 0);
	assert_int_equal(o->nr_keys, 2);
	assert_string_equal(o->keys[1]->name, "symbol");
	assert_true(o->sort_given && !o->sym_first);
	assert_int_equal(pk_hist_opts_sort(o, "dso,bogus", &err), -EINVAL);
	assert_string_equal(err.where, "bogus");
	assert_int_equal(pk_hist_opts_sort(o, "dso", &err), 0);
	assert_true(pk_hist_opts_callgraph(o, "caller,0.5,3"));
	assert_true(o->cg.caller && o->cg.order_set && o->cg.print_limit == 3);
	assert_true(o->cg.min_percent == 0.5);
	assert_false(pk_hist_opts_callgraph(o, "callee,nonsense"));
	assert_true(o->cg.caller); /* unchanged */
	assert_int_equal(pk_hist_list_add(&o->comms, "a,b"), 0);
	assert_int_equal(o->comms.n, 2);
	assert_string_equal(o->comms.items[1], "b");
	assert_int_equal(pk_hist_opts_cpus(o, "0-2,5"), 0);
	assert_true(o->cpus[2] && !o->cpus[3] && o->cpus[5]);
	assert_int_equal(pk_hist_opts_time(o, "1.5,"), 0);
	assert_string_equal(o->time_arg, "1.5,");
	assert_int_equal(pk_hist_opts_time(o, "x"), -EINVAL);
	assert_int_equal(pk_hist_opts_time(o, "10%/2,20%-30%"), -EINVAL); /* kinds mixed */
	assert_string_equal(o->time_arg, "10%/2,20%-30%"); /* kept: settle refuses it */
	/* -F after -s dso: the columns, then dso; the order dso first */
	assert_int_equal(pk_hist_opts_fields(o, "overhead,comm", &err), 0);
	assert_int_equal(o->nr_out, 3);
	assert_int_equal(o->out[0].val, PK_HIST_V_OVERHEAD);
	assert_string_equal(o->keys[o->out[1].key]->name, "comm");
	assert_string_equal(o->keys[o->out[2].key]->name, "dso");
	assert_string_equal(o->keys[o->sort[0].key]->name, "dso");
	assert_int_equal(pk_hist_opts_fields(o, "bogus", &err), -EINVAL);
	assert_string_equal(err.where, "bogus");
	/* each key's filter list, named as perf's line above the table */
	assert_int_equal(pk_hist_opts_sort(o, "comm,dso,sym,pid", &err), 0);
	const char *what;
	assert_ptr_equal(pk_hist_key_filter(o, 0, &what), &o->comms);
	assert_string_equal(what, "comm");
	assert_ptr_equal(pk_hist_key_filter(o, 1, &what), &o->dsos);
	assert_ptr_equal(pk_hist_key_filter(o, 2, &what), &o->syms);
	assert_string_equal(what, "symbol");
	assert_null(pk_hist_key_filter(o, 3, &what)); /* pid: none */
	assert_null(pk_hist_key_filter(o, -1, &what));
	pk_hist_opts_release(o);
	assert_null(o->cpus);
	assert_int_equal(o->comms.n, 0);
	pk_hist_free(h);
}

/* The dots under perf 6.1's titles, one run per column ("# ...  ..."). */
static int perf_dots(const char *path, int *w, int max)
{
	char cmd[1200], *out = NULL;
	snprintf(cmd, sizeof(cmd), "perf report --stdio --no-children -i %s 2>/dev/null", path);
	pk_test_run(cmd, &out, 0);
	assert_non_null(out);
	int n = 0;
	for (char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "# .", 3))
			continue;
		for (char *p = l + 2; *p == '.' && n < max;) {
			int k = 0;
			while (p[k] == '.')
				k++;
			w[n++] = k;
			p += k;
			while (*p == ' ')
				p++;
		}
		break;
	}
	free(out);
	return n;
}

/* A histogram of the file's samples (sort: -s, NULL: the defaults; no
 * Children column), its session and header the caller's to end. */
static pk_hist *read_hist(const char *path, const char *sort, pk_session **s, pk_pd_header *hdr)
{
	pk_error err;
	assert_int_equal(pk_session_open(path, NULL, s, &err), 0);
	memset(hdr, 0, sizeof(*hdr));
	assert_int_equal(pk_pd_header_read(pk_session_reader(*s), hdr, &err), 0);
	pk_hist *h = pk_hist_new();
	if (sort)
		assert_int_equal(pk_hist_opts_sort(pk_hist_options(h), sort, &err), 0);
	pk_hist_options(h)->children = false;
	pk_hist_options(h)->children_set = true;
	assert_int_equal(pk_hist_settle(h, *s, hdr, &err), 0);
	assert_int_equal(pk_hist_setup(h, *s, hdr), 0);
	assert_int_equal(pk_session_run(*s, pk_hist_sample, h, &err), 0);
	return h;
}

/* The key columns' widths of a file's entries, as perf sizes them. */
static void test_hist_widths(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	const char *path = make_file("widths.data", 20, false);
	pk_session *s;
	pk_pd_header hdr;
	pk_hist *h = read_hist(path, NULL, &s, &hdr);
	size_t n;
	pk_hist_entry **all = pk_hist_collect(h, &n);
	assert_non_null(all);
	int w[PK_HIST_MAX_KEYS], dots[8];
	pk_hist_widths(h, all, n, 0, w);
	int nd = perf_dots(path, dots, 8);
	const pk_hist_opts *o = pk_hist_config(h);
	assert_int_equal(nd, 1 + o->nr_keys); /* Overhead, then the keys */
	for (int k = 0; k < o->nr_keys; k++)
		assert_int_equal(w[k], dots[1 + k]);
	free(all);
	pk_hist_free(h);
	pk_pd_header_release(&hdr);
	pk_session_close(s);
}

/* --hierarchy's nodes (pk_hist_hier_level): at each level the entries
 * agreeing on the keys down to it make one node holding their sums, nodes
 * by value; a node's entries lie together. */
static void test_hist_hier(void **state)
{
	(void)state;
	pk_session *s;
	pk_pd_header hdr;
	pk_hist *h = read_hist(make_file("hier.data", 20, false), "dso,sym", &s, &hdr);
	size_t n, nn;
	pk_hist_entry **all = pk_hist_collect(h, &n);
	assert_non_null(all);
	assert_true(n > 1);
	pk_hist_hnode *nodes;
	assert_int_equal(pk_hist_hier_level(h, all, n, 0, 1, &nodes, &nn), 0);
	assert_true(nn >= 1 && nn < n); /* the symbols of a dso under one node */
	uint64_t sum = 0, entries = 0;
	for (size_t i = 0; i < nn; i++) {
		uint64_t v = nodes[i].v[PK_HIST_SELF];
		assert_true(i == 0 || v <= nodes[i - 1].v[PK_HIST_SELF]);
		for (size_t k = 0; k < nodes[i].n; k++)
			assert_string_equal(pk_hist_entry_text(nodes[i].e[k], 0),
					    pk_hist_entry_text(nodes[i].e[0], 0));
		sum += v;
		entries += nodes[i].n;
	}
	assert_int_equal(entries, n);
	assert_int_equal(sum, pk_hist_total_of(h, 0, false));
	free(nodes);
	free(all);
	pk_hist_opts_release(pk_hist_options(h));
	pk_hist_free(h);
	pk_pd_header_release(&hdr);
	pk_session_close(s);
}

/* --stats' counts: each event's samples, the records by type, their total. */
static void test_session_stats(void **state)
{
	(void)state;
	const char *path = make_file("stats.data", 30, false);
	pk_session *s;
	pk_error err;
	assert_int_equal(pk_session_open(path, NULL, &s, &err), 0);
	pk_session_stats c;
	assert_int_equal(pk_session_stats_begin(&c, s), 0);
	pk_session_on_event(s, pk_session_stats_event, &c);
	assert_int_equal(pk_session_run(s, pk_session_stats_sample, &c, &err), 0);
	assert_int_equal(c.samples[0], 30);
	assert_int_equal(c.lost[0], 0);
	const pk_pd_stats *st = pk_pd_get_stats(pk_session_reader(s));
	assert_int_equal(pk_session_stats_records(st, PERF_RECORD_SAMPLE), 30);
	assert_int_equal(pk_session_stats_records(st, PERF_RECORD_COMM), 1);
	assert_int_equal(pk_session_stats_records(st, PK_RECORD_TYPE_MAX), 0);
	assert_true(pk_session_stats_total(st) >= 31);
	/* a file's stats block is named from its header */
	assert_string_equal(pk_session_stats_name(s, 0, false),
			    pk_pd_evsel_name(pk_session_evsel_at(s, 0)));
	/* the branch view counts a sample once per branch: none here */
	pk_pd_event ev = {.evsel = pk_session_evsel_at(s, 0)};
	pk_pd_sample smp = PK_PD_SAMPLE_INIT;
	smp.branch_nr = 3;
	assert_int_equal(pk_session_stats_branches(&c, s, &ev, &smp), 0);
	assert_int_equal(c.samples[0], 33);
	smp.branch_nr = 0;
	assert_int_equal(pk_session_stats_branches(&c, s, &ev, &smp), 0);
	assert_int_equal(c.samples[0], 33);
	/* what -D prints a record's CPU and TIME by; its offset (a file's:
	 * as is) */
	const pk_pd_reader *r = pk_session_reader(s);
	assert_int_equal(pk_pd_sample_types(r, 1), pk_session_evsel_at(s, 0)->attr.sample_type);
	assert_int_equal(pk_pd_sample_types(r, 0), 0);
	ev.offset = 4096;
	assert_int_equal(pk_pd_event_offset(r, &ev), 4096);
	pk_session_stats_end(&c);
	assert_null(c.samples);
	pk_session_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_in_order),
		cmocka_unit_test(test_hist_hier),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_nothing_decoded),
		cmocka_unit_test(test_open_refusals),
		cmocka_unit_test(test_script_fields),
		cmocka_unit_test(test_hist_opts),
		cmocka_unit_test(test_hist_widths),
		cmocka_unit_test(test_session_stats),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
