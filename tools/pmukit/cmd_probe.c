/* pmukit probe: user-space dynamic probes as perf probe 6.1 makes them:
 * -x BINARY [-a] FUNC[+OFF|%return] adds a uprobe (group probe_<binary>,
 * event FUNC, "_1"... with -f when taken), -d [GROUP:]EVENT deletes
 * (globs), -l lists, -F/--funcs lists the binary's functions; perf's
 * messages on the same streams (adding and deleting say so on stderr, -q
 * keeps quiet) and its exit statuses (a negative errno's low byte).
 * Kernel probes (no -x) are refused. The engine is the library's
 * (pmukit/probe.h: tracefs, the functions of a binary); this file prints. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/probe.h>

#include "builtin.h"

enum { O_FILTER = 256, O_NO_INLINES };

static const pk_opt probe_opts_table[] = {
	{"add", 'a', 0, required_argument, "PROBEDEF", "add a probe: FUNC[+OFF|%return]"},
	{"del", 'd', 0, required_argument, "[GROUP:]EVENT", "delete probes (globs)"},
	{"list", 'l', 0, optional_argument, "[GROUP:]EVENT", "list the probes"},
	{"exec", 'x', 0, required_argument, "PATH", "the binary of user-space probes"},
	{"funcs", 'F', 0, optional_argument, "FILTER", "list the functions of -x's binary"},
	{"filter", 0, O_FILTER, required_argument, "FILTER", "--funcs' filter"},
	{"force", 'f', 0, no_argument, NULL, "add an event of a name taken (NAME_1...)"},
	{"quiet", 'q', 0, no_argument, NULL, "say nothing but errors"},
	{"verbose", 'v', 0, no_argument, NULL, "accepted"},
	{"no-inlines", 0, O_NO_INLINES, no_argument, NULL, "accepted (inlined copies are never probed)"},
	{0},
};

const pk_optspec probe_optspec = {
	.cmd = "probe",
	.synopsis = "usage: pmukit probe -x BINARY [-f] [-a] FUNC[+OFF|%return] ...\n"
		    "   or: pmukit probe -d [GROUP:]EVENT ...\n"
		    "   or: pmukit probe -l [[GROUP:]EVENT]\n"
		    "   or: pmukit probe -x BINARY -F [FILTER]\n"
		    "\n"
		    "Adds, deletes and lists user-space probes (uprobes) through tracefs,\n"
		    "as perf probe does. Kernel probes (without -x) are not supported.\n",
	.opts = probe_opts_table,
};

typedef struct probe_args {
	const char *adds[64], *dels[64], *lists[64];
	size_t nadd, ndel, nlist;
	const char *exec, *filter;
	bool list, funcs, force, quiet;
} probe_args;

/* perf's status for a failure: its negative errno's low byte. */
static int status(int rc)
{
	return rc < 0 ? (-rc & 0xff) ? 256 - (-rc & 0xff) : 255 : 0;
}

/* perf's words for a failure; -q keeps even these quiet (as perf's). */
static void say_error(const pk_error *err, const char *action, bool quiet)
{
	if (quiet)
		return;
	if (err->code == -EEXIST)
		fprintf(stderr, "Error: %s\n Hint: %s\n", err->msg, err->hint);
	else
		fprintf(stderr, "%s\n", err->msg);
	if (action)
		fprintf(stderr, "  Error: Failed to %s events.\n", action);
}

static int do_list(const probe_args *a)
{
	pk_error err;
	pk_error_clear(&err);
	pk_probe_event *v;
	size_t n;
	int rc = pk_probe_events(NULL, &v, &n, &err);
	if (rc < 0) {
		say_error(&err, NULL, a->quiet);
		return status(rc);
	}
	for (size_t i = 0; i < n; i++) {
		bool hit = !a->nlist;
		for (size_t j = 0; j < a->nlist; j++)
			hit |= pk_probe_matches(&v[i], a->lists[j]);
		if (!hit)
			continue;
		char name[160], place[PATH_MAX];
		snprintf(name, sizeof(name), "%s:%s", v[i].group, v[i].event);
		if (v[i].uprobe) {
			pk_probe_place(v[i].path, v[i].offset, v[i].ret, place, sizeof(place));
			printf("  %-20s (on %s in %s)\n", name, place, v[i].path);
		} else {
			printf("  %-20s (on %s%s)\n", name, v[i].target, v[i].ret ? "%return" : "");
		}
	}
	pk_probe_events_free(v, n);
	return 0;
}

static int do_delete(const probe_args *a)
{
	pk_error err;
	pk_error_clear(&err);
	pk_probe_event *v;
	size_t n, hits = 0;
	int rc = pk_probe_events(NULL, &v, &n, &err);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		bool hit = false;
		for (size_t j = 0; j < a->ndel; j++)
			hit |= pk_probe_matches(&v[i], a->dels[j]);
		if (!hit)
			continue;
		hits++;
		rc = pk_probe_delete(NULL, &v[i], &err);
		if (rc == 0 && !a->quiet)
			fprintf(stderr, "Removed event: %s:%s\n", v[i].group, v[i].event);
	}
	pk_probe_events_free(v, n);
	if (rc == 0 && !hits) {
		for (size_t j = 0; j < a->ndel && !a->quiet; j++)
			fprintf(stderr, "\"%s\" does not hit any event.\n", a->dels[j]);
		if (!a->quiet)
			fputs("  Error: Failed to delete events.\n", stderr);
		return status(-ENOENT);
	}
	if (rc < 0)
		say_error(&err, "delete", a->quiet);
	return status(rc);
}

static int do_funcs(const probe_args *a)
{
	pk_error err;
	pk_error_clear(&err);
	char **names;
	size_t n;
	int rc = pk_probe_funcs(a->exec, a->filter, &names, &n, &err);
	if (rc < 0) {
		say_error(&err, NULL, a->quiet);
		return status(rc);
	}
	for (size_t i = 0; i < n; i++)
		puts(names[i]);
	free(names);
	return 0;
}

/* One probe to write: its point as given, where, its name. */
typedef struct new_probe {
	const char *def;
	uint64_t offset;
	bool ret;
	char event[128];
} new_probe;

/* Every probe of a->adds resolved and named (none written yet): perf adds
 * all or none. *np probes into out (cap max). */
static int plan_adds(const probe_args *a, const char *path, new_probe *out, size_t max,
		     size_t *np, pk_error *err)
{
	pk_probe_event *have;
	size_t nhave;
	const char *taken[256];
	int rc = pk_probe_events(NULL, &have, &nhave, err);
	*np = 0;
	for (size_t i = 0; rc == 0 && i < a->nadd; i++) {
		pk_probe_point pp;
		uint64_t *offs = NULL;
		size_t n = 0;
		rc = pk_probe_point_parse(a->adds[i], &pp, err);
		if (rc == 0)
			rc = pk_probe_resolve(path, &pp, &offs, &n, err);
		for (size_t k = 0; rc == 0 && k < n; k++) {
			if (*np == max)
				rc = pk_err(err, -E2BIG, "Too many probes (at most %zu)", max);
			new_probe *p = &out[*np];
			if (rc == 0)
				rc = pk_probe_event_name(have, nhave, taken, *np, pp.func, pp.ret,
							 a->force || k, p->event, sizeof(p->event),
							 err);
			if (rc == 0) {
				p->def = a->adds[i];
				p->offset = offs[k];
				p->ret = pp.ret;
				taken[(*np)++] = p->event;
			}
		}
		free(offs);
	}
	pk_probe_events_free(have, nhave);
	return rc;
}

static int do_add(const probe_args *a, const char *path)
{
	char group[128];
	pk_probe_group(path, group, sizeof(group));
	pk_error err;
	pk_error_clear(&err);
	new_probe np[256];
	size_t n = 0;
	int rc = plan_adds(a, path, np, 256, &n, &err);
	size_t done = 0;
	for (; rc == 0 && done < n; done++)
		rc = pk_uprobe_add(NULL, group, np[done].event, path, np[done].offset, np[done].ret,
				   &err);
	if (rc < 0) {
		say_error(&err, "add", a->quiet);
		return status(rc);
	}
	if (a->quiet)
		return 0;
	fprintf(stderr, "Added new event%s\n", n > 1 ? "s:" : ":");
	for (size_t i = 0; i < n; i++) {
		char name[300];
		snprintf(name, sizeof(name), "%s:%s", group, np[i].event);
		fprintf(stderr, "  %-20s (on %s in %s)\n", name, np[i].def, path);
	}
	fprintf(stderr, "\nYou can now use it in all perf tools, such as:\n\n"
			"\tperf record -e %s:%s -aR sleep 1\n\n", group, np[n - 1].event);
	return 0;
}

static int parse_args(int argc, char **argv, probe_args *a)
{
	int c;
	memset(a, 0, sizeof(*a));
	pk_opt_begin(&probe_optspec);
	while ((c = pk_opt_next(&probe_optspec, argc, argv)) != -1) {
		switch (c) {
		case 'a':
			if (a->nadd == 64)
				return pk_cli_usage_error("probe", "too many probes (at most 64)");
			a->adds[a->nadd++] = optarg;
			break;
		case 'd':
			if (a->ndel == 64)
				return pk_cli_usage_error("probe", "too many -d (at most 64)");
			a->dels[a->ndel++] = optarg;
			break;
		case 'l':
			a->list = true;
			if (optarg && a->nlist < 64)
				a->lists[a->nlist++] = optarg;
			break;
		case 'x': a->exec = optarg; break;
		case 'F': a->funcs = true; if (optarg) a->filter = optarg; break;
		case O_FILTER: a->filter = optarg; break;
		case 'f': a->force = true; break;
		case 'q': a->quiet = true; break;
		case 'v': case O_NO_INLINES: break;
		default: return 129;
		}
	}
	/* the words after the options: list patterns, --funcs' filter, or
	 * one probe definition (probe arguments are not supported) */
	for (int i = optind; i < argc; i++) {
		if (a->list && a->nlist < 64)
			a->lists[a->nlist++] = argv[i];
		else if (a->funcs && !a->filter)
			a->filter = argv[i];
		else if (!a->list && !a->funcs && !a->ndel && !a->nadd && i == optind)
			a->adds[a->nadd++] = argv[i];
		else
			return pk_cli_usage_error("probe", "'%s': probe arguments are not supported",
						  argv[i]);
	}
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	probe_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	int actions = !!a.nadd + !!a.ndel + a.list + a.funcs;
	if (actions > 1)
		return pk_cli_usage_error("probe", "-a, -d, -l and --funcs are exclusive");
	if (!actions)
		return pk_cli_usage_error("probe", "no probe given: -x BINARY FUNC, -d, -l or --funcs");
	if (a.list)
		return do_list(&a);
	if (a.ndel)
		return do_delete(&a);
	if (!a.exec)
		return pk_cli_usage_error("probe", "kernel probes are not supported: "
					  "give a user-space binary with -x BINARY");
	/* perf's check of -x, with its words and status */
	char path[PATH_MAX];
	if (!realpath(a.exec, path)) {
		fprintf(stderr, "Failed to get the absolute path of %s: %s\n", a.exec,
			strerror(errno));
		return pk_cli_usage_error("probe", "-x %s: no such binary", a.exec);
	}
	a.exec = path;
	if (a.funcs)
		return do_funcs(&a);
	return do_add(&a, path);
}
