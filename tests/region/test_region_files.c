/* The region report's file (issue 26, docs/regions.md "Security"): the
 * library never writes through a symbolic link owned by another user (a
 * link planted in a shared directory, pointing at a file of ours, leaves
 * that file untouched and pk_region_finish names the link); a link of our
 * own is followed; an existing file is replaced whole; a FIFO is written
 * in place, not replaced. The link owned by another user needs root (to
 * give it away with lchown): skipped otherwise. On the PMU model, in a
 * directory the test makes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/model.h>
#include <pmukit/region.h>
#include "helpers.h"

static char *dir;
static pk_model *model;

static int setup(void **state)
{
	(void)state;
	dir = pk_test_tmpdir();
	return dir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	pk_test_rmtree(dir);
	return 0;
}

/* One region counted, the report asked for at path. */
static void count_one(const char *path)
{
	model = pk_test_region_model("sapphirerapids.json", path);
	assert_int_equal(pk_region_begin("solve"), 0);
	assert_int_equal(pk_region_end("solve"), 0);
}

static int finish(pk_error *err)
{
	int r = pk_region_finish(err);
	pk_model_free(model);
	return r;
}

/* The text of a file (freed at the next call). */
static const char *get(const char *path)
{
	static char *text;
	free(text);
	return text = pk_test_read_text(path);
}

static void test_link_of_another_user(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* giving a link away needs root */
	char victim[4200], link[4200];
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/report.txt", dir);
	pk_test_put_file(dir, "victim", "precious\n");
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	count_one(link);
	pk_error err = {0};
	assert_int_equal(finish(&err), -EPERM);
	assert_non_null(strstr(err.msg, "report.txt: a symbolic link owned by another user"));
	assert_string_equal(get(victim), "precious\n");
	/* pk_region_fini (and the report at exit) neither */
	count_one(link);
	pk_region_fini();
	pk_model_free(model);
	assert_string_equal(get(victim), "precious\n");
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* nor through a directory link of another user on the way */
	char real[4200], via[4200];
	snprintf(real, sizeof(real), "%s/real", dir);
	snprintf(via, sizeof(via), "%s/via/report.txt", dir);
	assert_int_equal(mkdir(real, 0755), 0);
	snprintf(link, sizeof(link), "%s/via", dir);
	assert_int_equal(symlink(real, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	count_one(via);
	assert_int_equal(finish(&err), -EPERM);
	assert_non_null(strstr(err.msg, "/via: a symbolic link owned by another user"));
	snprintf(via, sizeof(via), "%s/real/report.txt", dir);
	assert_int_equal(access(via, F_OK), -1);
}

static void test_own_link_file_fifo(void **state)
{
	(void)state;
	char target[4200], link[4200], fifo[4200];
	snprintf(target, sizeof(target), "%s/target.txt", dir);
	snprintf(link, sizeof(link), "%s/mine.txt", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	/* a link of ours (relative, through a directory link of ours): followed,
	 * the target replaced by the report */
	pk_test_put_file(dir, "target.txt", "old\n");
	char up[4200];
	snprintf(up, sizeof(up), "%s/up", dir);
	assert_int_equal(symlink(".", up), 0);
	assert_int_equal(symlink("up/target.txt", link), 0);
	count_one(link);
	pk_error err = {0};
	assert_int_equal(finish(&err), 0);
	assert_non_null(strstr(get(target), "\nsolve "));
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* an existing file: replaced whole */
	count_one(target);
	assert_int_equal(finish(&err), 0);
	assert_non_null(strstr(get(target), "# pmukit regions: TopDown"));
	/* a FIFO: written in place, still a FIFO */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	int rd = open(fifo, O_RDWR | O_NONBLOCK); /* a reader, so the write never blocks */
	assert_true(rd >= 0);
	count_one(fifo);
	assert_int_equal(finish(&err), 0);
	char buf[4096];
	ssize_t n = read(rd, buf, sizeof(buf) - 1);
	close(rd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "# pmukit regions: TopDown"));
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	/* nothing left beside them */
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "test $(ls '%s' | wc -l) = 4", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_link_of_another_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_link_file_fifo, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
