#include <stdio.h>
#include "builtin.h"
const char encode_usage[] = "usage: pmukit encode [--json] -e EVENTS\n";
int cmd_encode(int argc, char **argv) { (void)argc; (void)argv; return 1; }
