/* Shared by the perf.data tests that compare pmukit with Linux perf: a
 * temporary directory per test group, command output, and the script
 * comparison that shows where two outputs part. */
#ifndef PK_PD_TEST_H
#define PK_PD_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The group's temporary directory (pd_test_setup / pd_test_teardown as
 * cmocka group fixtures). */
extern char *pd_test_dir;
int pd_test_setup(void **state);
int pd_test_teardown(void **state);

/* Whether a command is installed; PD_TEST_NEED skips the test without it. */
bool pd_test_have(const char *tool);
#define PD_TEST_NEED(tool)                                                                        \
	do {                                                                                      \
		if (!pd_test_have(tool)) {                                                        \
			fprintf(stderr, "%s not found: skipping\n", tool);                        \
			skip();                                                                   \
		}                                                                                 \
	} while (0)

/* `tool record args` run in the group's directory, output discarded; the
 * test fails (the command printed) when it does not succeed. */
void pd_test_record(const char *tool, const char *args);

/* The standard output of a shell command that must succeed. */
char *pd_test_output(const char *cmd);
size_t pd_test_lines(const char *s);
/* Whether two report outputs agree once perf 6.1's column cut is allowed:
 * line by line the same words (blank runs and the widths of "# ...." rule
 * lines aside), except that a word of perf's may be a prefix of ours and,
 * when it is its line's last, ours may go on (perf 6.1 sometimes sizes a
 * column before its final text: "perf-ex" for perf-exec, a cut trace). */
bool pd_test_report_cut_agrees(const char *ours, const char *theirs);
/* The rows of a --stdio report, normalized for comparison: the "# Samples",
 * "# Total weight" and "# Sort order" lines and every row with its blanks
 * collapsed, sorted (the order of rows of equal overhead and the column
 * widths are not compared). */
char *pd_test_report_rows(const char *rep);

/* A GROUP_DESC feature of one unnamed group ("{anon_group}", as perf
 * writes it): nr events led by evsel `leader`. */
struct pk_pd_writer;
void pd_test_group_desc(struct pk_pd_writer *w, uint32_t leader, uint32_t nr);

/* path opened for writing with one cpu-clock event of period 1000 (IP, TID,
 * TIME, PERIOD; sample_id_all, mmap, comm), its attr in *a, the header
 * written: records next. */
struct perf_event_attr;
struct pk_pd_writer *pd_test_clock_writer(const char *path, struct perf_event_attr *a);
/* Ends the record in b (its header first, type and misc set here) with
 * a's sample_id trailer (task pid = tid, time 1 s) and writes it to w;
 * b is emptied for the next record. */
struct pk_pd_buf;
void pd_test_put_record(struct pk_pd_writer *w, const struct perf_event_attr *a,
			struct pk_pd_buf *b, uint32_t type, uint16_t misc, uint32_t pid);
/* The same with the trailer's time. */
void pd_test_put_record_at(struct pk_pd_writer *w, const struct perf_event_attr *a,
			   struct pk_pd_buf *b, uint32_t type, uint16_t misc, uint32_t pid,
			   uint64_t time);

/* perf report's closing "#\n# (Tip: ...)\n#\n" (chosen at random) cut off. */
void pd_test_drop_tip(char *s);
/* The fractal rest line's " (inlined)" taken out ("[...] (inlined)" ->
 * "[...]"): perf 6.1 prints it from a field it never sets (its rest
 * symbol's `inlined`, malloc'd), so with or without it by the heap's
 * history; pmukit always prints it (docs/perfdata-differences.md). */
void pd_test_drop_rest_inlined(char *s);
/* The fixture (tests/data/<fixture>, xz) decompressed into the test's folder
 * as name, its path into out (n bytes); perf and pmukit then read it with
 * no build-id cache (HOME and PERF_BUILDID_DIR in that folder). */
void pd_test_unpack_xz(const char *fixture, const char *name, char *out, size_t n);
/* `perf ARGS` and `pmukit ARGS` (standard error dropped) must print the
 * same, perf's closing tip aside; else the test fails showing both. */
void pd_test_same_as_perf(const char *args);
/* pd_test_same_as_perf of each of the n views ("report --stdio ...") on file. */
void pd_test_views_as_perf(const char *file, const char *const *views, size_t n);

/* perf script and pmukit script print the same for file with args (both
 * run with the environment assignments env, "" for none); returns the
 * number of lines. */
size_t pd_test_same_script(const char *env, const char *file, const char *args);
/* The same for a system-wide recording: lines where perf 6.1 prints
 * "[unknown]" for the PLT entry of an lld-linked program pmukit names
 * ("memcpy@plt", a listed perf bug) are accepted. */
size_t pd_test_same_script_sys(const char *env, const char *file, const char *args);
/* Whether ours and theirs differ only in such lines. */
bool pd_test_plt_agrees(const char *ours, const char *theirs);

#endif
