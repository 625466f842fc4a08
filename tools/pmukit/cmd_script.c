/* pmukit script: placeholder until its issue lands. */
#include <stdio.h>

#include "builtin.h"

const char script_usage[] = "usage: pmukit script [options]\n";

int cmd_script(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pmukit script: not available in this build yet\n");
	return 1;
}
