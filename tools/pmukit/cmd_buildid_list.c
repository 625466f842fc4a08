/* pmukit buildid-list: the build ids a recording names, as perf
 * buildid-list 6.1 prints them ("ID NAME" lines: -i, default perf.data;
 * an ELF file given as input: its own id alone), or the running kernel's
 * (-k). Which entries and in what order is the library's (pk_buildid_list,
 * <pmukit/buildid_cache.h>); this file parses the options and prints. */
#include <stdio.h>
#include <string.h>

#include <pmukit/buildid_cache.h>
#include <pmukit/kernel.h>
#include <pmukit/perfdata.h>

#include "builtin.h"

static const pk_opt buildid_list_opts_table[] = {
	{"input", 'i', 0, required_argument, "FILE", "input file name (default perf.data)"},
	{"kernel", 'k', 0, no_argument, NULL, "show the running kernel's build id"},
	{"with-hits", 'H', 0, no_argument, NULL, "show only the objects samples hit"},
	{"force", 'f', 0, no_argument, NULL, "accepted (perf's: read a file another user owns)"},
	{"verbose", 'v', 0, no_argument, NULL, "accepted"},
	{0},
};

const pk_optspec buildid_list_optspec = {
	.cmd = "buildid-list",
	.synopsis = "usage: pmukit buildid-list [-i FILE] [-k] [-H]\n"
		    "\n"
		    "Lists the build ids of the objects a perf.data file names, as perf\n"
		    "buildid-list does.\n",
	.opts = buildid_list_opts_table,
};

static int print_id(void *arg, const char *hex, const char *name)
{
	(void)arg;
	printf("%-40s %s\n", hex, name); /* perf's: an id shorter than 20 bytes padded */
	return 0;
}

/* -k: the running kernel's id alone (nothing when it is not published). */
static int kernel_id(void)
{
	const pk_kernel *k = pk_kernel_linux();
	uint8_t id[20];
	size_t len = 0;
	if (!k->ops->host.build_id || k->ops->host.build_id(k, NULL, id, &len) < 0)
		return 0;
	for (size_t i = 0; i < len; i++)
		printf("%02x", id[i]);
	printf("\n");
	return 0;
}

int cmd_buildid_list(int argc, char **argv)
{
	const char *in = "perf.data";
	bool kernel = false, with_hits = false;
	int c;
	pk_opt_begin(&buildid_list_optspec);
	while ((c = pk_opt_next(&buildid_list_optspec, argc, argv)) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'k': kernel = true; break;
		case 'H': with_hits = true; break;
		case 'f': case 'v': break;
		default: return 129;
		}
	}
	if (optind < argc)
		return pk_cli_usage_error("buildid-list", "unexpected argument '%s'", argv[optind]);
	if (kernel)
		return kernel_id();
	char hex[PK_BUILD_ID_HEX];
	if (pk_buildid_file(in, hex, NULL) == 0) { /* an ELF file: its own id */
		printf("%s\n", hex);
		return 0;
	}
	pk_error err;
	pk_error_clear(&err);
	pk_pd_reader *r = NULL;
	int rc = pk_pd_reader_open(in, NULL, &r, &err);
	if (rc == 0)
		rc = pk_buildid_list(r, with_hits, print_id, NULL, &err);
	pk_pd_reader_close(r);
	if (rc < 0) {
		pk_cli_print_error("buildid-list", &err);
		return 255;
	}
	return 0;
}
