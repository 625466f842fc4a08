/* The TRACING_DATA feature of a recording with tracepoint events: the
 * tracefs files perf puts there (header_page, header_event, the format of
 * every recorded tracepoint grouped by system, printk_formats,
 * saved_cmdlines; an empty kallsyms part, as perf 6.1 writes it), read
 * through the kernel seam (host.tracefs_file) so a fake kernel or the model
 * can serve a fixture tree. The blob's layout is lib/perfdata/tracedata.c's.
 *
 * Invariants: only tracepoint evsels count, each (system, name) once, in
 * evlist order; a format whose "ID:" is not the evsel's attr.config is
 * refused (tracefs changed under the recording); printk_formats and
 * saved_cmdlines are optional (empty when absent). */
#include <pmukit/record.h>
#include <pmukit/tracedata.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

typedef struct tp_files {
	pk_trace_data td;
	size_t cap;
	char **owned;                /* texts and names to free */
	size_t nr_owned, owned_cap;
} tp_files;

static int keep(tp_files *f, char *s)
{
	if (pki_grow(&f->owned, &f->owned_cap, f->nr_owned + 1, sizeof(char *)) < 0) {
		free(s);
		return -ENOMEM;
	}
	f->owned[f->nr_owned++] = s;
	return 0;
}

/* Reads a tracefs file into *t; optional files read as empty when absent. */
static int read_part(const pk_kernel *k, tp_files *f, const char *name, bool optional,
		     pk_trace_text *t, pk_error *err)
{
	char *data = NULL;
	size_t len = 0;
	int rc = k->ops->host.tracefs_file(k, name, &data, &len);
	if (rc == -ENOENT && optional)
		return 0;
	if (rc < 0)
		return pk_err(err, rc, "cannot read tracefs file %s: %s", name, strerror(-rc));
	if (keep(f, data) < 0)
		return pk_err(err, -ENOMEM, "out of memory");
	t->data = data;
	t->len = len;
	return 0;
}

/* "sys:name[:mods]" -> sys and name (buffers of 256). */
static bool split_name(const char *full, char *sys, char *name)
{
	const char *c = strchr(full, ':');
	if (!c || c == full || (size_t)(c - full) >= 256)
		return false;
	memcpy(sys, full, (size_t)(c - full));
	sys[c - full] = '\0';
	size_t n = strcspn(c + 1, ":");
	if (!n || n >= 256)
		return false;
	memcpy(name, c + 1, n);
	name[n] = '\0';
	return true;
}

/* Whether path was read already (the paths are among the kept strings). */
static bool have_format(const tp_files *f, const char *path)
{
	for (size_t i = 0; i < f->nr_owned; i++)
		if (!strcmp(f->owned[i], path))
			return true;
	return false;
}

/* The format of one tracepoint evsel, checked against its id. */
static int add_event(const pk_kernel *k, tp_files *f, const pk_evsel *e, pk_error *err)
{
	char sys[256], name[256], path[600];
	if (!split_name(pk_evsel_name(e), sys, name))
		return pk_err(err, -EINVAL, "tracepoint event '%s' is not named system:name",
			      pk_evsel_name(e));
	snprintf(path, sizeof(path), "events/%s/%s/format", sys, name);
	if (have_format(f, path))
		return 0;
	char *p = strdup(path), *s = strdup(sys);
	if (!p || !s || keep(f, p) < 0 || keep(f, s) < 0) {
		if (!p)
			free(s);
		return pk_err(err, -ENOMEM, "out of memory");
	}
	pk_trace_text t;
	int rc = read_part(k, f, path, false, &t, err);
	if (rc < 0)
		return rc;
	const char *id = strstr(t.data, "\nID: ");
	uint64_t config = pk_evsel_attr(e)->config;
	if (!id || strtoull(id + 5, NULL, 10) != config)
		return pk_err(err, -ESTALE, "tracefs format %s does not have the id %" PRIu64
				  " the event was opened with", path, config);
	if (pki_grow(&f->td.formats, &f->cap, f->td.nr_formats + 1, sizeof(*f->td.formats)) < 0)
		return pk_err(err, -ENOMEM, "out of memory");
	f->td.formats[f->td.nr_formats++] = (pk_trace_format){s, t};
	return 0;
}

static int gather(const pk_kernel *k, const pk_evlist *l, tp_files *f, pk_error *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < pk_evlist_count(l); i++) {
		const pk_evsel *e = pk_evlist_at(l, i);
		if (pk_evsel_attr(e)->type == PERF_TYPE_TRACEPOINT)
			rc = add_event(k, f, e, err);
	}
	if (rc < 0 || !f->td.nr_formats)
		return rc;
	if ((rc = read_part(k, f, "events/header_page", false, &f->td.header_page, err)) < 0 ||
	    (rc = read_part(k, f, "events/header_event", false, &f->td.header_event, err)) < 0 ||
	    (rc = read_part(k, f, "printk_formats", true, &f->td.printk, err)) < 0 ||
	    (rc = read_part(k, f, "saved_cmdlines", true, &f->td.cmdlines, err)) < 0)
		return rc;
	strcpy(f->td.version, "0.6");
	f->td.long_size = sizeof(long);
	f->td.page_size = (uint32_t)pk_host_number(k, PK_HOST_PAGE_SIZE, 4096);
	return 0;
}

int pk_pd_writer_tracing_data(pk_pd_writer *w, const pk_kernel *k, const pk_evlist *evlist,
			      pk_error *err)
{
	k = k ? k : pk_kernel_linux();
	bool any = false;
	for (size_t i = 0; i < pk_evlist_count(evlist); i++)
		any |= pk_evsel_attr(pk_evlist_at(evlist, i))->type == PERF_TYPE_TRACEPOINT;
	if (!any)
		return 0;
	if (!k->ops->host.tracefs_file)
		return pk_err(err, -ENOENT, "the %s kernel has no tracefs to describe the "
					    "tracepoints with", k->name ? k->name : "");
	tp_files f;
	memset(&f, 0, sizeof(f));
	int rc = gather(k, evlist, &f, err);
	if (rc == 0) {
		pk_pd_buf b = {0};
		rc = pk_trace_data_write(&f.td, &b, err);
		if (rc == 0)
			rc = pk_pd_writer_set_feature(w, PK_FEAT_TRACING_DATA, b.data, b.len, err);
		pk_pd_buf_release(&b);
	}
	for (size_t i = 0; i < f.nr_owned; i++)
		free(f.owned[i]);
	free(f.owned);
	pk_trace_data_release(&f.td);
	return rc;
}
