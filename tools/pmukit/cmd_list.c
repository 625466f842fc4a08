#include <stdio.h>
#include "builtin.h"
const char list_usage[] = "usage: pmukit list [filter]\n";
int cmd_list(int argc, char **argv) { (void)argc; (void)argv; return 1; }
