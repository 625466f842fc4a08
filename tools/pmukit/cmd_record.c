/* pmukit record: placeholder until its issue lands. */
#include <stdio.h>

#include "builtin.h"

const char record_usage[] = "usage: pmukit record [options]\n";

int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "pmukit record: not available in this build yet\n");
	return 1;
}
