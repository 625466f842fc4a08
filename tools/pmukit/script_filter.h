/* pmukit CLI: which samples `pmukit script` prints (perf script's --comms,
 * --pid, --tid, --time, -C, -S, --dsos) and how it shifts their times
 * (--reltime, --deltatime). A filter that is not set costs the sample
 * loop one test of `active`. */
#ifndef PMUKIT_SCRIPT_FILTER_H
#define PMUKIT_SCRIPT_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "session_cli.h"

typedef struct script_filter {
	bool active;                 /* any filter set: consult script_filter_keep */
	char **comms, **syms, **dsos;
	size_t nr_comms, nr_syms, nr_dsos;
	long *pids, *tids;
	size_t nr_pids, nr_tids;
	bool has_time;
	uint64_t t_start, t_end;     /* --time: ns, t_end 0 for no end */
	int *cpus;                   /* -C: CPUs kept */
	size_t nr_cpus;
} script_filter;

/* The options script_filter owns, for getopt_long; ids from 512. */
enum {
	SF_COMMS = 512, SF_PID, SF_TID, SF_TIME, SF_CPU, SF_SYMS, SF_DSOS,
};
/* Takes one option (opt one of the SF_ ids); 0, or -EINVAL after saying
 * what is wrong on stderr. */
int script_filter_option(script_filter *f, int opt, const char *arg);
/* Whether the sample is printed (call only when f->active). */
bool script_filter_keep(const script_filter *f, pk_session *s, const pk_pd_event *ev,
			const pk_pd_sample *smp);
void script_filter_release(script_filter *f);

#endif
