/* Tracepoints: subsys:name -> the id the kernel wants in attr.config, read
 * from tracefs (events/<subsys>/<name>/id). */
#include <pmukit/tracepoint.h>

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "kernel/linux_host.h"

/* snprintf into a path buffer; false when the path does not fit. */
static bool mkpath(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool mkpath(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

static int no_tracefs(pk_error *err, const char *tracefs)
{
	if (tracefs)
		pk_err(err, -EACCES, "tracefs at '%s' is not readable", tracefs);
	else
		pk_err(err, -EACCES, "tracefs is not mounted or not readable "
				     "(tried /sys/kernel/tracing and /sys/kernel/debug/tracing)");
	pk_err_hint(err, "Run as root, or mount tracefs: mount -t tracefs nodev /sys/kernel/tracing");
	return -EACCES;
}

/* Names become path components: refuse what would leave the events tree. */
static bool valid_component(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

static int read_id(const char *path, uint64_t *id)
{
	char *text = NULL;
	int r = pki_read_file(path, &text, NULL);
	if (r < 0)
		return r;
	r = pki_parse_u64(pki_rstrip(text), id, NULL);
	free(text);
	return r;
}

int pk_tracepoint_id(const char *tracefs, const char *sys, const char *name, uint64_t *id,
		     pk_error *err)
{
	if (!valid_component(sys) || !valid_component(name))
		return pk_err(err, -EINVAL, "invalid tracepoint name '%s:%s'", sys ? sys : "",
			      name ? name : "");
	const char *root = pk_tracefs_dir(tracefs);
	if (!root)
		return no_tracefs(err, NULL);
	char path[4096];
	if (!mkpath(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name))
		return pk_err(err, -ENAMETOOLONG, "tracepoint name too long: '%s:%s'", sys, name);
	int r = read_id(path, id);
	if (r == 0)
		return 0;
	if (r == -EACCES || r == -EPERM)
		return no_tracefs(err, root);
	if (r == -ENOENT || r == -ENOTDIR) {
		if (!pki_tracefs_usable(root))
			return no_tracefs(err, root);
		pk_err(err, -ENOENT, "unknown tracepoint '%s:%s'", sys, name);
		if (mkpath(path, sizeof(path), "%s/events/%s", root, sys) && access(path, F_OK) != 0)
			pk_err_hint(err, "tracefs (%s) has no subsystem '%s'; "
					 "'pmukit list tracepoint' shows the available ones", root, sys);
		return -ENOENT;
	}
	return pk_err(err, r, "cannot read tracepoint id %s: %s", path, strerror(-r));
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool is_dir(const char *parent, const struct dirent *d)
{
	if (d->d_type == DT_DIR)
		return true;
	if (d->d_type != DT_UNKNOWN)
		return false;
	char path[4096];
	struct stat st;
	return mkpath(path, sizeof(path), "%s/%s", parent, d->d_name) && stat(path, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

static void free_list(struct dirent **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* Lists the sorted subdirectories of dir matching glob (NULL: all). Returns
 * the count or -errno. */
static int list_dirs(const char *dir, const char *glob, struct dirent ***out)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, by_name);
	if (n < 0)
		return -errno;
	int kept = 0;
	for (int i = 0; i < n; i++) {
		const char *nm = list[i]->d_name;
		if (nm[0] == '.' || !is_dir(dir, list[i]) ||
		    (glob && fnmatch(glob, nm, 0) != 0)) {
			free(list[i]);
			continue;
		}
		list[kept++] = list[i];
	}
	*out = list;
	return kept;
}

static int foreach_in_sys(const char *root, const char *sys, const char *name_glob,
			  pk_tracepoint_cb cb, void *arg, pk_error *err)
{
	char dir[4096];
	if (!mkpath(dir, sizeof(dir), "%s/events/%s", root, sys))
		return pk_err(err, -ENAMETOOLONG, "tracefs path too long: %s", root);
	struct dirent **events = NULL;
	int n = list_dirs(dir, name_glob, &events);
	if (n < 0)
		return (n == -EACCES || n == -EPERM) ? no_tracefs(err, root)
						    : pk_err(err, n, "cannot list %s: %s", dir, strerror(-n));
	int ret = 0;
	for (int i = 0; i < n && ret == 0; i++) {
		char path[4096];
		uint64_t id;
		int r = mkpath(path, sizeof(path), "%s/%s/id", dir, events[i]->d_name)
				? read_id(path, &id)
				: -ENAMETOOLONG;
		if (r == -ENOENT)
			continue; /* a directory without id is not a tracepoint */
		if (r < 0)
			ret = (r == -EACCES || r == -EPERM)
				      ? no_tracefs(err, root)
				      : pk_err(err, r, "cannot read tracepoint id %s: %s", path,
					       strerror(-r));
		else
			ret = cb(sys, events[i]->d_name, id, arg);
	}
	free_list(events, n);
	return ret;
}

int pk_tracepoint_foreach(const char *tracefs, const char *sys_glob, const char *name_glob,
			  pk_tracepoint_cb cb, void *arg, pk_error *err)
{
	const char *root = pk_tracefs_dir(tracefs);
	if (!root)
		return no_tracefs(err, NULL);
	char dir[4096];
	if (!mkpath(dir, sizeof(dir), "%s/events", root))
		return pk_err(err, -ENAMETOOLONG, "tracefs path too long: %s", root);
	struct dirent **systems = NULL;
	int n = list_dirs(dir, sys_glob, &systems);
	if (n < 0)
		return (n == -EACCES || n == -EPERM || n == -ENOENT)
			       ? no_tracefs(err, root)
			       : pk_err(err, n, "cannot list %s: %s", dir, strerror(-n));
	int ret = 0;
	for (int i = 0; i < n && ret == 0; i++)
		ret = foreach_in_sys(root, systems[i]->d_name, name_glob, cb, arg, err);
	free_list(systems, n);
	return ret;
}
