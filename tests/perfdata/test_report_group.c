/* Group sampling read back without perf: a hand-made file whose leader's
 * samples carry PERF_SAMPLE_READ values of a two-member group ({a,b}:S).
 * `pmukit script` must print one line per member whose period is how much
 * that member's count grew since its previous sample, and `pmukit report`
 * must total those deltas per event (and side by side in the group view).
 * The same file owned by another user checks perf's owner rule: script and
 * report refuse it unless -f/--force, as perf 6.1 does (skipped when the
 * test cannot chown, i.e. not run as root). */
#include "helpers.h"
#include "pd_test.h"
#include "perfdata/sample_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* (no EVENT_DESC: the names are made from the attrs, "cpu-clock:HG") */
/* Leader values and member values at each of the three samples. */
static const uint64_t lead_v[3] = {1000, 2500, 2600};
static const uint64_t memb_v[3] = {300, 350, 1350};

static void write_sample(pk_pd_writer *w, const struct perf_event_attr *a, int i)
{
	pk_counts c[2] = {{.val = lead_v[i], .id = 11}, {.val = memb_v[i], .id = 12}};
	uint64_t rv[16];
	int nr = pki_pd_read_values(a->read_format, c, 2, rv, 16);
	assert_true(nr > 0);
	pk_pd_sample s = {.misc = PERF_RECORD_MISC_USER, .ip = 0x401000 + (uint64_t)i,
			  .pid = 42, .tid = 42, .time = 1000000000ULL * (uint64_t)(i + 1),
			  .id = 11, .period = 777, .read = rv, .read_nr = (size_t)nr};
	uint8_t buf[512];
	pk_error err;
	ssize_t n = pki_pd_sample_write(a, &s, buf, sizeof(buf), &err);
	assert_true(n > 0);
	assert_int_equal(pk_pd_writer_write(w, buf, (size_t)n, &err), 0);
}

static void make_file(const char *path)
{
	pk_pd_writer *w;
	pk_error err;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 777,
				    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						   PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ,
				    .read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID,
				    .sample_id_all = 1};
	struct perf_event_attr b = a;
	b.config = PERF_COUNT_SW_TASK_CLOCK;
	b.sample_period = 0;
	uint64_t ida = 11, idb = 12;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "cpu-clock", &ida, 1, &err), 0);
	assert_int_equal(pk_pd_writer_add_evsel(w, &b, 0, "task-clock", &idb, 1, &err), 0);
	pd_test_group_desc(w, 0, 2);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	for (int i = 0; i < 3; i++)
		write_sample(w, &a, i);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
}

static void test_group_deltas(void **state)
{
	(void)state;
	char path[1024], cmd[2048];
	snprintf(path, sizeof(path), "%s/grp.data", pd_test_dir);
	make_file(path);
	snprintf(cmd, sizeof(cmd), "%s script -F event,period -i %s", pk_test_pmukit(), path);
	char *out = pd_test_output(cmd);
	/* one line per member, the growth since that member's last sample */
	char want[512] = "";
	for (int i = 0; i < 3; i++) {
		char line[128];
		snprintf(line, sizeof(line), "%10llu  cpu-clock:HG: \n",
			 (unsigned long long)(lead_v[i] - (i ? lead_v[i - 1] : 0)));
		strcat(want, line);
		snprintf(line, sizeof(line), "%10llu task-clock:HG: \n",
			 (unsigned long long)(memb_v[i] - (i ? memb_v[i - 1] : 0)));
		strcat(want, line);
	}
	assert_string_equal(out, want);
	free(out);
	/* report: each event's count is the sum of its deltas (its last value) */
	snprintf(cmd, sizeof(cmd), "%s report --stdio --no-group -n -i %s", pk_test_pmukit(), path);
	out = pd_test_output(cmd);
	assert_non_null(strstr(out, "# Samples: 3  of events 'cpu-clock:HG'\n# Event count (approx.): 2600\n"));
	assert_non_null(strstr(out, "# Samples: 3  of event 'task-clock:HG'\n# Event count (approx.): 1350\n"));
	free(out);
	/* the group view (the default with GROUP_DESC): both members per row,
	 * each a share of its own total; the sample count and the event
	 * count of the group */
	snprintf(cmd, sizeof(cmd), "%s report --stdio -n -s comm -i %s", pk_test_pmukit(), path);
	out = pd_test_output(cmd);
	assert_non_null(strstr(out, "# Samples: 6  of events 'anon group { cpu-clock:HG, task-clock:HG }'\n"
				    "# Event count (approx.): 3950\n"));
	assert_non_null(strstr(out, "#         Overhead                   Samples  Command\n"));
	assert_non_null(strstr(out, "   100.00% 100.00%             3           3  :42"));
	free(out);
}

/* Runs cmd (stderr too); returns its status with the output in *out. */
static int run(char **out, const char *fmt, const char *arg, const char *path)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), fmt, pk_test_pmukit(), arg, path);
	return pk_test_run(cmd, out, 1);
}

static void test_owner(void **state)
{
	(void)state;
	char path[1024], *out;
	snprintf(path, sizeof(path), "%s/other.data", pd_test_dir);
	make_file(path);
	if (chown(path, 65534, 65534) < 0) {
		fprintf(stderr, "cannot chown (not root): skipping\n");
		skip();
	}
	/* refused without -f, with perf's words and hint */
	static const char *const cmds[] = {"%s script %s -F period -i %s",
					   "%s report --stdio %s -i %s"};
	for (size_t c = 0; c < 2; c++) {
		assert_int_not_equal(run(&out, cmds[c], "", path), 0);
		assert_non_null(strstr(out, "not owned by current user or root (use -f to override)"));
		assert_non_null(strstr(out, path));
		free(out);
		static const char *const force[] = {"-f", "--force"};
		for (size_t f = 0; f < 2; f++) {
			assert_int_equal(run(&out, cmds[c], force[f], path), 0);
			assert_null(strstr(out, "not owned"));
			assert_true(strlen(out) > 0);
			free(out);
		}
	}
	if (!pd_test_have("perf"))
		return;
	/* perf 6.1 refuses it too, and reads it with -f */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "perf script -F period -i %s", path);
	assert_int_not_equal(pk_test_run(cmd, &out, 1), 0);
	assert_non_null(strstr(out, "not owned by current user or root (use -f to override)"));
	free(out);
	snprintf(cmd, sizeof(cmd), "perf script -f -F period -i %s", path);
	assert_int_equal(pk_test_run(cmd, &out, 1), 0);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_deltas),
		cmocka_unit_test(test_owner),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
