#include "pd_test.h"

#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>

#include "perfdata/sample_write.h"

char *pd_test_dir;

int pd_test_setup(void **state)
{
	(void)state;
	pd_test_dir = pk_test_tmpdir();
	return pd_test_dir ? 0 : -1;
}

int pd_test_teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", pd_test_dir);
	if (getenv("PK_TEST_KEEP")) /* for a look at the files made */
		fprintf(stderr, "kept %s\n", pd_test_dir);
	else
		pk_test_run(cmd, NULL, 0);
	free(pd_test_dir);
	return 0;
}

bool pd_test_have(const char *tool)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return pk_test_run(cmd, NULL, 0) == 0;
}

void pd_test_record(const char *tool, const char *args)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "cd %s && %s record %s >/dev/null 2>&1", pd_test_dir, tool, args);
	int rc = pk_test_run(cmd, NULL, 0);
	if (rc)
		fprintf(stderr, "failed: %s\n", cmd);
	assert_int_equal(rc, 0);
}

char *pd_test_output(const char *cmd)
{
	char *out = NULL;
	int rc = pk_test_run(cmd, &out, 0);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	assert_int_equal(rc, 0);
	assert_non_null(out);
	return out;
}

size_t pd_test_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Line a (n bytes) with every word ending in "@plt" (and "+0x..." after
 * it) made "[unknown]" equals line b (m bytes): perf 6.1's names for the
 * PLT entries of lld-linked programs (docs/perfdata-differences.md). */
static bool plt_line_agrees(const char *a, size_t n, const char *b, size_t m)
{
	size_t i = 0, j = 0;
	while (i < n) {
		size_t w = i;
		while (w < n && a[w] != ' ' && a[w] != '\t')
			w++;
		const char *want = a + i;
		size_t len = w > i ? w - i : 1; /* a word, or one blank */
		const char *at = memmem(a + i, w - i, "@plt", 4);
		if (at && (at + 4 == a + w || at[4] == '+'))
			want = "[unknown]", len = 9;
		if (m - j < len || memcmp(b + j, want, len))
			return false;
		i = w > i ? w : i + 1;
		j += len;
	}
	return j == m;
}

bool pd_test_plt_agrees(const char *ours, const char *theirs)
{
	while (*ours || *theirs) {
		const char *oe = strchrnul(ours, '\n'), *te = strchrnul(theirs, '\n');
		size_t n = (size_t)(oe - ours), m = (size_t)(te - theirs);
		if ((n != m || memcmp(ours, theirs, n)) && !plt_line_agrees(ours, n, theirs, m))
			return false;
		if (!*oe || !*te)
			return !*oe && !*te;
		ours = oe + 1;
		theirs = te + 1;
	}
	return true;
}

static size_t same_script(const char *env, const char *file, const char *args, bool plt_ok)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "%s %s script %s -i '%s'", env, pk_test_pmukit(), args, file);
	char *ours = pd_test_output(cmd);
	snprintf(cmd, sizeof(cmd), "%s perf script %s -i '%s' 2>/dev/null", env, args, file);
	char *theirs = pd_test_output(cmd);
	if (strcmp(ours, theirs)) {
		/* show the first line where they part */
		const char *a = ours, *b = theirs;
		while (*a && *a == *b)
			a++, b++;
		while (a > ours && a[-1] != '\n')
			a--, b--;
		fprintf(stderr, "%s (%s) differs at\n pmukit: %.300s\n perf:   %.300s\n", file, args,
			a, b);
		if (plt_ok && pd_test_plt_agrees(ours, theirs))
			fprintf(stderr, "(only perf 6.1's [unknown] for lld PLT entries: listed)\n");
		else
			assert_string_equal(ours, theirs);
	}
	size_t n = pd_test_lines(ours);
	free(ours);
	free(theirs);
	return n;
}

size_t pd_test_same_script(const char *env, const char *file, const char *args)
{
	return same_script(env, file, args, false);
}

size_t pd_test_same_script_sys(const char *env, const char *file, const char *args)
{
	return same_script(env, file, args, true);
}

/* The next word of *p within its line (NULL at the line's end). */
static const char *next_word(const char **p, size_t *len)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!**p || **p == '\n')
		return NULL;
	const char *w = *p;
	while (**p && **p != ' ' && **p != '\t' && **p != '\n')
		(*p)++;
	*len = (size_t)(*p - w);
	return w;
}

static bool rule_word(const char *w, size_t n)
{
	return n && strspn(w, ".") == n;
}

/* One line of each: perf's words equal to ours or cut; *text_cut is set
 * when a word of text (not a rule of dots) was cut. */
static bool line_cut_agrees(const char **o, const char **t, bool *text_cut)
{
	size_t lo, lt;
	const char *wo, *wt;
	while ((wt = next_word(t, &lt))) {
		if (!(wo = next_word(o, &lo)))
			return false;
		bool same = lo == lt && !memcmp(wo, wt, lt);
		bool cut = lt < lo && !memcmp(wo, wt, lt);
		bool rules = rule_word(wo, lo) && rule_word(wt, lt);
		*text_cut |= cut && !rules;
		if (!same && !cut && !rules)
			return false;
		if (cut && !next_word(&(const char *){*t}, &lt)) {
			*o += strcspn(*o, "\n"); /* perf cut its last column */
			break;
		}
	}
	return !next_word(o, &lo);
}

/* A cut shows in some word of text: outputs that differ in rules and
 * spacing alone are a width difference, not a cut. */
bool pd_test_report_cut_agrees(const char *ours, const char *theirs)
{
	bool text_cut = false;
	while (*ours || *theirs) {
		if (!*ours || !*theirs || !line_cut_agrees(&ours, &theirs, &text_cut))
			return false;
		ours += *ours == '\n';
		theirs += *theirs == '\n';
	}
	return text_cut;
}

static int cmp_row(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The report rows of a --stdio report, normalized for comparison: the
 * "# Samples", "# Total weight" and "# Sort order" lines and every row
 * with its blanks collapsed, sorted (the order of rows of equal overhead
 * and the column widths are not compared). */
char *pd_test_report_rows(const char *rep)
{
	size_t n = strlen(rep), nr = 0;
	char *copy = strdup(rep), **rows = calloc(n / 2 + 1, sizeof(char *));
	assert_non_null(copy);
	assert_non_null(rows);
	for (char *save, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		bool row = strchr(l, '%') && l[0] == ' ';
		if (!row && strncmp(l, "# Samples:", 10) && strncmp(l, "# Total weight", 14) &&
		    strncmp(l, "# Sort order", 12))
			continue;
		char *w = l;
		for (char *r = l; *r; r++)
			if (*r != ' ' || (w > l && w[-1] != ' '))
				*w++ = *r;
		while (w > l && w[-1] == ' ')
			w--;
		*w = 0;
		rows[nr++] = l;
	}
	qsort(rows, nr, sizeof(char *), cmp_row);
	char *out = calloc(1, n + 1), *o = out;
	assert_non_null(out);
	for (size_t i = 0; i < nr; i++)
		o += sprintf(o, "%s\n", rows[i]);
	free(rows);
	free(copy);
	return out;
}

/* perf's closing "#\n# (Tip: ...)\n#\n" cut off. */
void pd_test_drop_tip(char *s)
{
	/* at the end, or before -T's "# PID  TID" table */
	char *p = NULL;
	for (char *q = strstr(s, "#\n# ("); q; q = strstr(q + 1, "#\n# ("))
		if (q == s || q[-1] == '\n')
			p = q;
	if (!p)
		return;
	char *end = strchr(p + 2, '\n');
	if (!end || strncmp(end + 1, "#\n", 2))
		return;
	end += 3; /* past the closing "#\n" */
	/* the table's end, -T's table, or the branch view's statistics */
	static const char stats[] = "\n#\n# Branch Statistics:";
	if (*end && strncmp(end, "# ", 2) && strncmp(end, stats, sizeof(stats) - 1))
		return;
	memmove(p, end, strlen(end) + 1);
}

void pd_test_drop_rest_inlined(char *s)
{
	static const char mark[] = "[...] (inlined)\n";
	for (char *p = strstr(s, mark); p; p = strstr(p + 5, mark))
		memmove(p + 5, p + 5 + 10, strlen(p + 5 + 10) + 1); /* " (inlined)" out */
}

void pd_test_group_desc(pk_pd_writer *w, uint32_t leader, uint32_t nr)
{
	pk_pd_buf g = {0};
	uint32_t u = 1;
	pk_pd_buf_bytes(&g, &u, 4);
	pk_pd_buf_string(&g, "{anon_group}");
	pk_pd_buf_bytes(&g, &leader, 4);
	pk_pd_buf_bytes(&g, &nr, 4);
	pk_error err;
	assert_int_equal(pk_pd_writer_set_feature(w, PK_FEAT_GROUP_DESC, g.data, g.len, &err), 0);
	pk_pd_buf_release(&g);
}

pk_pd_writer *pd_test_clock_writer(const char *path, struct perf_event_attr *a)
{
	pk_pd_writer *w;
	pk_error err;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	*a = (struct perf_event_attr){.type = PERF_TYPE_SOFTWARE, .size = sizeof(*a),
				      .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
				      .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						     PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
				      .sample_id_all = 1, .mmap = 1, .comm = 1};
	assert_int_equal(pk_pd_writer_add_evsel(w, a, 0, "cpu-clock", NULL, 0, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	return w;
}

void pd_test_put_record(pk_pd_writer *w, const struct perf_event_attr *a, pk_pd_buf *b,
			uint32_t type, uint16_t misc, uint32_t pid)
{
	pd_test_put_record_at(w, a, b, type, misc, pid, 1000000000ULL);
}

void pd_test_put_record_at(pk_pd_writer *w, const struct perf_event_attr *a, pk_pd_buf *b,
			   uint32_t type, uint16_t misc, uint32_t pid, uint64_t time)
{
	pk_pd_buf_pad8(b);
	pk_pd_buf_bytes(b, (uint8_t[48]){0}, 48); /* room for the trailer */
	assert_false(b->oom);
	memcpy(b->data, &type, 4);
	memcpy(b->data + 4, &misc, 2);
	pk_pd_sample_id sid = {.pid = pid, .tid = pid, .time = time};
	size_t n = pki_pd_record_end(b->data, b->len - 48, a, &sid);
	pk_error err;
	assert_int_equal(pk_pd_writer_write(w, b->data, n, &err), 0);
	b->len = 0;
}

void pd_test_same_as_perf(const char *args)
{
	char t[2048], o[2048];
	snprintf(t, sizeof(t), "perf %s 2>/dev/null", args);
	snprintf(o, sizeof(o), "%s %s 2>/dev/null", pk_test_pmukit(), args);
	char *theirs = pd_test_output(t), *ours = pd_test_output(o);
	pd_test_drop_tip(theirs);
	if (strcmp(ours, theirs))
		fail_msg("%s\ndiffers from perf's\n--- pmukit:\n%s\n--- perf:\n%s", o, ours, theirs);
	free(theirs);
	free(ours);
}

void pd_test_unpack_xz(const char *fixture, const char *name, char *out, size_t n)
{
	char cmd[2048];
	snprintf(out, n, "%s/%s", pd_test_dir, name);
	snprintf(cmd, sizeof(cmd), "xz -dc %s > %s", pk_test_fixture(fixture), out);
	assert_int_equal(system(cmd), 0);
	setenv("HOME", pd_test_dir, 1);
	setenv("PERF_BUILDID_DIR", pd_test_dir, 1);
}

void pd_test_views_as_perf(const char *file, const char *const *views, size_t n)
{
	char a[1400];
	for (size_t i = 0; i < n; i++) {
		snprintf(a, sizeof(a), "%s -i %s", views[i], file);
		pd_test_same_as_perf(a);
	}
}
