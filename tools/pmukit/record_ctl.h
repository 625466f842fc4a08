/* record's run-time controls: --control's commands (ctl_fifo.h's channel)
 * acted on a pk_recording, and --switch-output's dumps (SIGUSR2: the file
 * so far kept as <output>.<timestamp>, a new one begun).
 *
 * A dump's name is perf's: the output, '.', the local time as
 * YYYYmmddHHMMSS and its hundredths of a second; a name already taken is
 * never overwritten (the next hundredth is waited for). With
 * --switch-max-files N, at most N dumps are left: the oldest removed. */
#ifndef PMUKIT_RECORD_CTL_H
#define PMUKIT_RECORD_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <pmukit/recording.h>

#include "ctl_fifo.h"

/* The commands waiting on c acted on, each acked: enable, disable, ping,
 * stop (*stop set), evlist (the event names on stderr); snapshot and
 * unknown ones said on stderr. */
void rec_ctl_handle(ctl_chan *c, pk_recording *r, bool *stop);
/* output's dump name (perf's, unused yet) into buf. */
void rec_dump_name(const char *output, char *buf, size_t n);
/* --switch-max-files N: the last N dumps' names (max 0: no limit, none
 * kept); a dump beyond N removes the oldest, as perf does. */
typedef struct rec_dumps {
	unsigned max, next;
	char **names;                /* max slots, NULL: empty */
} rec_dumps;
/* One switch of the output: the file so far dumped (counted in d, which
 * may be NULL), said on stderr as perf says it. false when it failed
 * (said). */
bool rec_switch_output(pk_recording *r, const char *output, rec_dumps *d);
/* The finished output renamed to its dump name (the last file of
 * --switch-output, --timestamp-filename's file), counted in d (may be
 * NULL), said on stderr. false when the rename failed (said). */
bool rec_dump_final(const char *output, rec_dumps *d);
void rec_dumps_free(rec_dumps *d);

#endif
