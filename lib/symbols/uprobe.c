/* tracefs' dynamic probes for perf probe (pmukit/probe.h): the lines of
 * uprobe_events and kprobe_events parsed, perf 6.1's group and event names,
 * a uprobe written, a probe removed.
 *
 * A line is "p|r[MAXACTIVE]:GROUP/EVENT TARGET [ARGS...]"; a uprobe's
 * TARGET is "PATH:0xOFFSET[(REF_CTR)]" (a file offset), a kprobe's is kept
 * as written. Lines of another shape are skipped, not guessed at. Writes
 * append one line ("p:G/E PATH:0x%016lx", "-:G/E") as perf does; the
 * kernel's refusal comes back as its errno. tracefs is found by
 * pk_tracefs_dir (lib/kernel): this file names no mount point. */
#include "sy_internal.h"
#include "core/util.h"

#include <pmukit/kernel.h>
#include <pmukit/probe.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int events_path(const char *tracefs, const char *file, char *path, size_t size,
		       pk_error *err)
{
	const char *root = pk_tracefs_dir(tracefs);
	if (!root) {
		pk_err(err, -ENOENT, "tracefs is not mounted or not readable "
				     "(tried /sys/kernel/tracing and /sys/kernel/debug/tracing)");
		pk_err_hint(err, "Run as root, or mount tracefs: mount -t tracefs nodev /sys/kernel/tracing");
		return -ENOENT;
	}
	if ((size_t)snprintf(path, size, "%s/%s", root, file) >= size)
		return pk_err(err, -ENAMETOOLONG, "tracefs path too long: %s", root);
	return 0;
}

/* One line into ev; false when it is no probe line. */
static bool parse_line(char *line, bool uprobe, pk_probe_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->uprobe = uprobe;
	if (line[0] != 'p' && line[0] != 'r')
		return false;
	ev->ret = line[0] == 'r';
	char *p = line + 1;
	while (isdigit((unsigned char)*p))
		p++;
	char *slash = *p == ':' ? strchr(p, '/') : NULL;
	char *sp = slash ? strchr(slash, ' ') : NULL;
	if (!sp || (size_t)(slash - p - 1) >= sizeof(ev->group) ||
	    (size_t)(sp - slash - 1) >= sizeof(ev->event))
		return false;
	memcpy(ev->group, p + 1, (size_t)(slash - p - 1));
	memcpy(ev->event, slash + 1, (size_t)(sp - slash - 1));
	char *target = sp + 1;
	target[strcspn(target, " \n")] = '\0';
	if (!uprobe)
		return (ev->target = strdup(target)) != NULL;
	char *colon = strrchr(target, ':');
	if (!colon)
		return false;
	*colon = '\0';
	ev->offset = strtoull(colon + 1, NULL, 16);
	return (ev->path = strdup(target)) != NULL;
}

static int event_cmp(const void *a, const void *b)
{
	const pk_probe_event *x = a, *y = b;
	int c = strcmp(x->group, y->group);
	return c ? c : strcmp(x->event, y->event);
}

/* The lines of one events file appended to *v. */
static int read_file(const char *tracefs, bool uprobe, pk_probe_event **v, size_t *n,
		     size_t *cap, pk_error *err)
{
	char path[4096], line[8192];
	int rc = events_path(tracefs, uprobe ? "uprobe_events" : "kprobe_events", path,
			     sizeof(path), err);
	if (rc < 0)
		return rc;
	FILE *f = fopen(path, "r");
	if (!f) /* a kernel without that kind of probe has no file */
		return errno == ENOENT ? 0 : pk_err(err, -errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (pki_grow(v, cap, *n + 1, sizeof(**v)) < 0) {
			fclose(f);
			return pk_err(err, -ENOMEM, "out of memory reading %s", path);
		}
		if (parse_line(line, uprobe, &(*v)[*n]))
			(*n)++;
	}
	fclose(f);
	return 0;
}

int pk_probe_events(const char *tracefs, pk_probe_event **out, size_t *n, pk_error *err)
{
	pk_probe_event *v = NULL;
	size_t cap = 0;
	*n = 0;
	int rc = read_file(tracefs, false, &v, n, &cap, err);
	if (rc == 0)
		rc = read_file(tracefs, true, &v, n, &cap, err);
	if (rc < 0) {
		pk_probe_events_free(v, *n);
		*n = 0;
		*out = NULL;
		return rc;
	}
	if (*n)
		qsort(v, *n, sizeof(*v), event_cmp);
	*out = v;
	return 0;
}

void pk_probe_events_free(pk_probe_event *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].target);
	}
	free(v);
}

void pk_probe_group(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = 0;
	while (isalnum((unsigned char)base[len]) || base[len] == '_')
		len++;
	snprintf(out, size, "probe_%.*s", (int)len, base);
}

static bool name_taken(const pk_probe_event *have, size_t nhave, const char *const *taken,
		       size_t ntaken, const char *name)
{
	for (size_t i = 0; i < nhave; i++)
		if (have[i].uprobe && !strcmp(have[i].event, name))
			return true;
	for (size_t i = 0; i < ntaken; i++)
		if (!strcmp(taken[i], name))
			return true;
	return false;
}

int pk_probe_event_name(const pk_probe_event *have, size_t nhave, const char *const *taken,
			size_t ntaken, const char *func, bool ret, bool force, char *out,
			size_t size, pk_error *err)
{
	char base[128];
	/* perf's name: the function up to a '.' (foo.isra.0), "__return" */
	snprintf(base, sizeof(base), "%.*s%s", (int)strcspn(func, "."), func, ret ? "__return" : "");
	snprintf(out, size, "%s", base);
	if (!name_taken(have, nhave, taken, ntaken, out))
		return 0;
	if (!force) {
		pk_err(err, -EEXIST, "event \"%s\" already exists.", base);
		pk_err_hint(err, "Remove existing event by 'perf probe -d'\n"
				 "       or force duplicates by 'perf probe -f'\n"
				 "       or set 'force=yes' in BPF source.");
		return -EEXIST;
	}
	for (int i = 1; i < 1024; i++) {
		snprintf(out, size, "%s_%d", base, i);
		if (!name_taken(have, nhave, taken, ntaken, out))
			return 0;
	}
	return pk_err(err, -ERANGE, "Too many events are on the same function.");
}

/* Appends line to tracefs' file; the kernel's errno on refusal. */
static int write_line(const char *tracefs, const char *file, const char *line, pk_error *err)
{
	char path[4096];
	int rc = events_path(tracefs, file, path, sizeof(path), err);
	if (rc < 0)
		return rc;
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return pk_err(err, -errno, "Failed to open %s: %s", path, strerror(errno));
	size_t len = strlen(line);
	ssize_t w = write(fd, line, len);
	int e = w < 0 ? errno : 0;
	close(fd);
	if (w != (ssize_t)len)
		return pk_err(err, e ? -e : -EIO, "Failed to write event: %s (%s to %s)",
			      strerror(e ? e : EIO), line, path);
	return 0;
}

int pk_uprobe_add(const char *tracefs, const char *group, const char *event, const char *path,
		  uint64_t offset, bool ret, pk_error *err)
{
	char line[8192];
	if ((size_t)snprintf(line, sizeof(line), "%c:%s/%s %s:0x%016" PRIx64 "\n", ret ? 'r' : 'p',
			     group, event, path, offset) >= sizeof(line))
		return pk_err(err, -ENAMETOOLONG, "probe definition too long: %s", path);
	return write_line(tracefs, "uprobe_events", line, err);
}

int pk_probe_delete(const char *tracefs, const pk_probe_event *ev, pk_error *err)
{
	char line[256];
	snprintf(line, sizeof(line), "-:%s/%s\n", ev->group, ev->event);
	return write_line(tracefs, ev->uprobe ? "uprobe_events" : "kprobe_events", line, err);
}

bool pk_probe_matches(const pk_probe_event *ev, const char *pattern)
{
	const char *colon = strchr(pattern, ':');
	char group[256];
	const char *event = pattern;
	snprintf(group, sizeof(group), "*");
	if (colon) {
		snprintf(group, sizeof(group), "%.*s", (int)(colon - pattern), pattern);
		event = colon + 1;
	}
	return fnmatch(group, ev->group, 0) == 0 && fnmatch(event, ev->event, 0) == 0;
}
