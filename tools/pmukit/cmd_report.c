/* pmukit report: placeholder until its issue lands. */
#include <stdio.h>

#include "builtin.h"

const char report_usage[] = "usage: pmukit report [options]\n";

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pmukit report: not available in this build yet\n");
	return 1;
}
