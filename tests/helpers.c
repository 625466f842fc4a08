/* Shared by the cmocka tests: where the test data is, running the CLI.
 * The data lives in the project, tests/data/ (PK_TEST_DATA_DIR, compiled in
 * by tests/meson.build); $PK_FIXTURES overrides it. */
#include "helpers.h"

#include <pmukit/region.h>
#include <pmukit/model.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && *v ? v : fallback;
}

const char *pk_test_fixture(const char *rel)
{
	static char buf[4][1024];
	static int slot;
	char *b = buf[slot++ & 3];
	snprintf(b, sizeof(buf[0]), "%s/%s", env_or("PK_FIXTURES", PK_TEST_DATA_DIR), rel);
	return b;
}

const char *pk_test_sysfs(const char *machine)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "sysfs/%s", machine);
	return pk_test_fixture(rel);
}

const char *pk_test_pmukit(void)
{
	return env_or("PK_PMUKIT", "pmukit");
}

int pk_test_pmukit_run(char **out, const char *fmt, ...)
{
	char args[4096], cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s", pk_test_pmukit(), args);
	return pk_test_run(cmd, out, 1);
}

int pk_test_run(const char *cmd, char **out, int want_stderr)
{
	char *full = NULL;
	if (asprintf(&full, "%s%s", cmd, want_stderr ? " 2>&1" : "") < 0)
		return -1;
	FILE *p = popen(full, "r");
	free(full);
	if (!p)
		return -1;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += r;
		if (cap - n < 2) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	int st = pclose(p);
	if (buf)
		buf[n] = '\0';
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *pk_test_tmpdir(void)
{
	char tmpl[] = "/tmp/pmukit-test-XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

char *pk_test_read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("%s: cannot open", path);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, mem);
	fclose(mem);
	fclose(f);
	return buf;
}

void pk_test_rmtree(char *dir)
{
	if (!dir)
		return;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	pk_test_run(cmd, NULL, 0);
	free(dir);
}

void pk_test_put_file(const char *root, const char *rel, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

const char *pk_test_oracle_dir(void)
{
	return env_or("PK_ORACLE", PK_TEST_ORACLE_DIR);
}

int pk_test_oracle_ready(char *why, size_t len)
{
	static const struct {
		const char *cmd, *reason;
	} needs[] = {
		{"test \"$(id -u)\" = 0", "not root (unshare -m and mount need it)"},
		{"perf version >/dev/null 2>&1", "perf is not installed or does not run"},
		{"command -v cc >/dev/null", "no C compiler (cc) to build the perf_event_open stub"},
		{"unshare -m true 2>/dev/null", "unshare -m does not work here"},
	};
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (pk_test_run(needs[i].cmd, NULL, 0) != 0) {
			snprintf(why, len, "%s", needs[i].reason);
			return 0;
		}
	return 1;
}

char *pk_test_oracle_stub(const char *dir)
{
	char *stub = NULL, cmd[4096], *out = NULL;
	if (asprintf(&stub, "%s/peo_stub.so", dir) < 0)
		fail_msg("out of memory");
	snprintf(cmd, sizeof(cmd), "cc -shared -fPIC -O2 -o '%s' '%s/peo_stub.c' -ldl 2>&1", stub,
		 pk_test_oracle_dir());
	if (pk_test_run(cmd, &out, 0) != 0)
		fail_msg("cannot build the perf_event_open stub:\n%s", out ? out : "");
	free(out);
	return stub;
}

const char *pk_test_example(const char *name)
{
	static char path[4][4096];
	static int n;
	const char *src = getenv("PK_SRCDIR");
	char *p = path[n++ % 4];
	snprintf(p, 4096, "%s/examples/model/%s", src ? src : ".", name);
	return p;
}

pk_model *pk_test_region_model(const char *name, const char *report)
{
	pk_error err = {0};
	pk_model *m = pk_model_new(pk_test_example(name), &err);
	if (!m)
		fail_msg("%s", err.msg);
	pk_region_opts o;
	pk_region_opts_init(&o);
	o.kernel = pk_model_kernel(m);
	o.report = report;
	if (pk_region_init(&o, &err) < 0)
		fail_msg("%s", err.msg);
	return m;
}

bool pk_test_next_line(const char **l, char *buf, size_t len)
{
	if (!*l || !**l)
		return false;
	const char *nl = strchr(*l, '\n');
	snprintf(buf, len, "%.*s", (int)(nl ? nl - *l : (long)strlen(*l)), *l);
	*l = nl ? nl + 1 : NULL;
	return true;
}

int pk_test_csv_split(char *line, char **f, int max)
{
	int nf = 0;
	char *cur = line;
	/* strsep keeps empty fields, which CSV has */
	while (cur && nf < max)
		f[nf++] = strsep(&cur, ",");
	return nf;
}

struct pk_model *pk_test_model(const char *scenario)
{
	pk_error err;
	pk_error_clear(&err);
	pk_model *m = pk_model_new(scenario, &err);
	if (!m)
		fail_msg("%s: %s", scenario, err.msg);
	return m;
}
