/* pmukit CLI: `script report flamegraph|stackcollapse` and the list
 * `script -l` prints (script_report.c). */
#ifndef PMUKIT_SCRIPT_REPORT_H
#define PMUKIT_SCRIPT_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <pmukit/symbols.h>

/* What script's own options chose for the report. */
typedef struct script_report_in {
	const char *input;           /* -i; NULL: perf's default */
	bool force;                  /* -f */
	int max_stack;               /* --max-stack */
	const pk_machine_opts *mopts; /* --kallsyms, --symfs, ...; NULL: the defaults */
} script_report_in;

/* perf script -l's list, of the scripts pmukit runs. */
void script_report_list(FILE *f);
/* argv[0]: the script's name, then its options; the exit status. */
int script_report(int argc, char **argv, const script_report_in *in);

#endif
