/* Shared by the cmocka tests: where the fixtures are, running the CLI. */
#ifndef PK_TEST_HELPERS_H
#define PK_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* tests/data/sysfs/<machine> (or $PK_FIXTURES/sysfs/<machine>), in one of
 * four static buffers. */
const char *pk_test_sysfs(const char *machine);
/* tests/data/<rel> (or $PK_FIXTURES/<rel>), likewise. */
const char *pk_test_fixture(const char *rel);
/* Path of the pmukit binary under test. */
const char *pk_test_pmukit(void);
/* Runs a shell command, captures stdout (and stderr when want_stderr) into a
 * malloc'd string; returns the exit status (or -1). */
int pk_test_run(const char *cmd, char **out, int want_stderr);
/* Runs `pmukit ARGS` (ARGS printf-style) with stderr captured too. */
int pk_test_pmukit_run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A fresh temporary directory; caller frees the string. */
char *pk_test_tmpdir(void);
/* The whole of a file, malloc'd; fails the test when it cannot be read. */
char *pk_test_read_text(const char *path);
/* Removes dir and everything under it, and frees the string (a
 * pk_test_tmpdir()); NULL does nothing. */
void pk_test_rmtree(char *dir);
/* A bundled model scenario: $PK_SRCDIR/examples/model/<name> (one of the
 * last four returned stays valid). */
const char *pk_test_example(const char *name);
/* The region library set up on a new model of the bundled scenario name
 * (opts.kernel = pk_model_kernel(m)), the report asked for at report ("" none);
 * the model, for pk_model_free after pk_region_fini; fails the test when it
 * cannot. */
struct pk_model *pk_test_region_model(const char *name, const char *report);
/* The PMU model of a scenario file; the test fails with the error if it
 * does not load. */
struct pk_model *pk_test_model(const char *scenario);
/* Copies the line at *l (without its newline) into buf and moves *l past
 * it; false at the end. */
bool pk_test_next_line(const char **l, char *buf, size_t len);
/* Splits a CSV line in place at commas, keeping empty fields; returns how
 * many (at most max). */
int pk_test_csv_split(char *line, char **f, int max);
/* Writes text to root/rel, making rel's parent folders (a fake sysfs or
 * tracefs tree); fails the test when it cannot. */
void pk_test_put_file(const char *root, const char *rel, const char *text);

/* tests/oracle (or $PK_ORACLE): our tools for running perf as a reference. */
const char *pk_test_oracle_dir(void);
/* Whether perf can be run live in perf-ns.sh's namespace with the stub
 * (root, perf, cc, unshare -m); when not, why holds the reason. */
int pk_test_oracle_ready(char *why, size_t len);
/* Builds tests/oracle/peo_stub.c into dir/peo_stub.so and returns that
 * path (malloc'd); fails the test when it does not build. */
char *pk_test_oracle_stub(const char *dir);

#endif
