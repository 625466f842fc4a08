/* pmukit stat: placeholder until its issue lands. */
#include <stdio.h>

#include "builtin.h"

const char stat_usage[] = "usage: pmukit stat [options]\n";

int cmd_stat(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pmukit stat: not available in this build yet\n");
	return 1;
}
