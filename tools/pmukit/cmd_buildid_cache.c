/* pmukit buildid-cache: perf's build-id cache managed as perf buildid-cache
 * 6.1 does: -a (add files), -r (remove their ids), -p (remove every id
 * cached under their names), -P (remove all), -u (add again), -l (list the
 * valid ids: "ID NAME"). The lists are comma-separated, as perf's, and
 * repeated options add up. -v says each step ("Adding ID FILE: Ok") on
 * stderr; a step that fails is said always ("Couldn't add FILE: why"),
 * the others still run, and the exit status is then 1 (perf's is 0). The
 * cache is the one --buildid-dir (before the command) names, else the
 * library's default; its layout and rules are the library's
 * (<pmukit/buildid_cache.h>). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/buildid_cache.h>

#include "builtin.h"

static const pk_opt buildid_cache_opts_table[] = {
	{"add", 'a', 0, required_argument, "FILES", "file(s) to add"},
	{"remove", 'r', 0, required_argument, "FILES", "file(s) to remove"},
	{"purge", 'p', 0, required_argument, "FILES",
	 "file(s) to remove (remove old caches too)"},
	{"purge-all", 'P', 0, no_argument, NULL, "purge all cached files"},
	{"update", 'u', 0, required_argument, "FILES", "file(s) to update"},
	{"list", 'l', 0, no_argument, NULL, "list all cached files"},
	{"force", 'f', 0, no_argument, NULL, "accepted"},
	{"verbose", 'v', 0, no_argument, NULL, "say each step"},
	{0},
};

const pk_optspec buildid_cache_optspec = {
	.cmd = "buildid-cache",
	.synopsis = "usage: pmukit [--buildid-dir DIR] buildid-cache [-a|-r|-p|-u FILES] [-P] [-l]\n"
		    "\n"
		    "Manages perf's build-id cache (DIR, default ~/.debug) as perf\n"
		    "buildid-cache does.\n",
	.opts = buildid_cache_opts_table,
};

typedef struct bc {
	bool verbose;
	int failed;
} bc;

/* "Couldn't <verb> FILE: why" (always), and the step counted as failed. */
static void failed(bc *b, const char *verb, const char *file, const pk_error *err)
{
	fprintf(stderr, "Couldn't %s %s: %s\n", verb, file, err->msg);
	b->failed++;
}

static void add_one(bc *b, const char *file)
{
	pk_error err;
	pk_error_clear(&err);
	char hex[PK_BUILD_ID_HEX];
	if (pk_buildid_cache_add_file(NULL, file, hex, &err) < 0) {
		failed(b, "add", file, &err);
		return;
	}
	if (b->verbose)
		fprintf(stderr, "Adding %s %s: Ok\n", hex, file);
}

static void remove_one(bc *b, const char *file)
{
	pk_error err;
	pk_error_clear(&err);
	char hex[PK_BUILD_ID_HEX];
	if (pk_buildid_file(file, hex, &err) < 0 || pk_buildid_cache_remove(NULL, hex, &err) < 0) {
		failed(b, "remove", file, &err);
		return;
	}
	if (b->verbose)
		fprintf(stderr, "Removing %s %s: Ok\n", hex, file);
}

static int say_removing(void *arg, const char *hex, const char *name)
{
	if (((bc *)arg)->verbose)
		fprintf(stderr, "Removing %s %s: Ok\n", hex, name);
	return 0;
}

static void purge_one(bc *b, const char *file)
{
	pk_error err;
	pk_error_clear(&err);
	if (pk_buildid_cache_purge(NULL, file, say_removing, b, &err) < 0) {
		failed(b, "purge", file, &err);
		return;
	}
	if (b->verbose)
		fprintf(stderr, "Purging %s: Ok\n", file);
}

/* -u: the file's id removed (when cached) and added again. */
static void update_one(bc *b, const char *file)
{
	pk_error err;
	pk_error_clear(&err);
	char hex[PK_BUILD_ID_HEX];
	int rc = pk_buildid_file(file, hex, &err);
	if (rc == 0) /* its old copy, when cached (none: nothing to remove) */
		(void)pk_buildid_cache_remove(NULL, hex, NULL);
	if (rc == 0)
		rc = pk_buildid_cache_add_file(NULL, file, hex, &err);
	if (rc < 0) {
		failed(b, "update", file, &err);
		return;
	}
	if (b->verbose)
		fprintf(stderr, "Updating %s %s: Ok\n", hex, file);
}

/* Each file of a comma-separated list. */
static void each(bc *b, const char *list, void (*fn)(bc *, const char *))
{
	char *copy = strdup(list), *save = NULL;
	if (!copy) {
		fprintf(stderr, "pmukit buildid-cache: out of memory\n");
		b->failed++;
		return;
	}
	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save))
		fn(b, f);
	free(copy);
}

static int print_entry(void *arg, const char *hex, const char *name)
{
	(void)arg;
	printf("%s %s\n", hex, name);
	return 0;
}

static int remove_entry(void *arg, const char *hex, const char *name)
{
	bc *b = arg;
	pk_error err;
	pk_error_clear(&err);
	if (pk_buildid_cache_remove(NULL, hex, &err) < 0)
		failed(b, "remove", name, &err);
	else
		say_removing(b, hex, name);
	return 0;
}

typedef struct step {
	char kind;                   /* 'a', 'r', 'p', 'u' */
	const char *list;
} step;

static int run_steps(bc *b, const step *steps, size_t nr, bool purge_all)
{
	static const char order[] = "arpPu"; /* perf's */
	static void (*const fns[])(bc *, const char *) = {add_one, remove_one, purge_one, NULL,
							  update_one};
	for (size_t o = 0; order[o]; o++) {
		pk_error err;
		pk_error_clear(&err);
		if (order[o] == 'P' && purge_all &&
		    pk_buildid_cache_list(NULL, NULL, true, remove_entry, b, &err) < 0)
			failed(b, "purge", "the build-id cache", &err);
		for (size_t i = 0; i < nr && fns[o]; i++)
			if (steps[i].kind == order[o])
				each(b, steps[i].list, fns[o]);
	}
	return b->failed ? 1 : 0;
}

int cmd_buildid_cache(int argc, char **argv)
{
	bc b = {0};
	step steps[64];
	size_t nr = 0;
	bool list = false, purge_all = false;
	int c;
	pk_opt_begin(&buildid_cache_optspec);
	while ((c = pk_opt_next(&buildid_cache_optspec, argc, argv)) != -1) {
		switch (c) {
		case 'a': case 'r': case 'p': case 'u':
			if (nr == sizeof(steps) / sizeof(steps[0]))
				return pk_cli_usage_error("buildid-cache", "more than %zu file lists",
							  nr);
			steps[nr++] = (step){(char)c, optarg};
			break;
		case 'P': purge_all = true; break;
		case 'l': list = true; break;
		case 'v': b.verbose = true; break;
		case 'f': break;
		default: return 129;
		}
	}
	if (optind < argc)
		return pk_cli_usage_error("buildid-cache", "unexpected argument '%s'", argv[optind]);
	if (list) { /* perf lists and does nothing else */
		pk_error err;
		pk_error_clear(&err);
		if (pk_buildid_cache_list(NULL, NULL, false, print_entry, NULL, &err) < 0) {
			pk_cli_print_error("buildid-cache", &err);
			return 1;
		}
		return 0;
	}
	return run_steps(&b, steps, nr, purge_all);
}
