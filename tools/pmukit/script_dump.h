/* pmukit script --per-event-dump: each event's lines into its own file,
 * "<input>.<event name>.dump" (perf 6.1's names), opened for every event
 * of the file before the run, then closed with perf's line per file on
 * stdout: "[ perf script: Wrote N MB FILE (S samples) ]". Invariant: the
 * size said is perf's, taken before its last write-out (the bytes in whole
 * blocks of the file's st_blksize), the samples those printed. */
#ifndef PMUKIT_SCRIPT_DUMP_H
#define PMUKIT_SCRIPT_DUMP_H

#include <stdint.h>
#include <stdio.h>
#include <pmukit/session.h>

typedef struct script_dumps {
	FILE **f;                    /* per evsel index */
	char **name;
	uint64_t *samples;
	size_t n;
} script_dumps;

/* Opens a file per event of s; 0, or 1 after saying which file failed. */
int script_dumps_open(script_dumps *d, pk_session *s);
/* The file of event idx, its sample counted (NULL past the events). */
FILE *script_dumps_for(script_dumps *d, int idx);
/* Closes the files (after the caller wrote out what it buffered), each
 * said on out (NULL: not said); 0, or 1 when writing one failed. */
int script_dumps_close(script_dumps *d, FILE *out);

#endif
