/* pmukit inject: a perf.data stream read and written again as perf inject
 * 6.1 does (-i, default standard input; -o, default standard output in
 * pipe mode), with build ids put in (-b, --buildid-all). The engine is the
 * library's (pk_inject, <pmukit/inject.h>); this file parses the options
 * and says what went wrong. */
#include <errno.h>
#include <string.h>

#include <pmukit/inject.h>

#include "builtin.h"

enum { O_BUILDID_ALL = 256 };

static const pk_opt inject_opts_table[] = {
	{"input", 'i', 0, required_argument, "FILE", "input file (default standard input)"},
	{"output", 'o', 0, required_argument, "FILE",
	 "output file (default standard output, pipe mode)"},
	{"build-ids", 'b', 0, no_argument, NULL,
	 "put in a HEADER_BUILD_ID record for each binary samples hit"},
	{"buildid-all", 0, O_BUILDID_ALL, no_argument, NULL,
	 "put in a HEADER_BUILD_ID record for each binary mapped"},
	{"force", 'f', 0, no_argument, NULL, "accepted (perf's: read a file another user owns)"},
	{0},
};

const pk_optspec inject_optspec = {
	.cmd = "inject",
	.synopsis = "usage: pmukit inject [-i FILE] [-o FILE] [-b | --buildid-all]\n"
		    "\n"
		    "Copies a perf.data stream, with build ids put in, as perf inject does.\n",
	.opts = inject_opts_table,
};

int cmd_inject(int argc, char **argv)
{
	pk_inject_opts o = {.size = sizeof(o)};
	const char *in = "-", *out = "-";
	int c;
	pk_opt_begin(&inject_optspec);
	while ((c = pk_opt_next(&inject_optspec, argc, argv)) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 'b': o.build_ids = true; break;
		case O_BUILDID_ALL: o.buildid_all = true; break;
		case 'f': break;
		default: return 129;
		}
	}
	if (optind < argc)
		return pk_cli_usage_error("inject", "unexpected argument '%s'", argv[optind]);
	pk_error err;
	pk_error_clear(&err);
	pk_inject_stats st;
	if (pk_inject(in, out, &o, &st, &err) < 0) {
		pk_cli_print_error("inject", &err);
		return 1;
	}
	return 0;
}
