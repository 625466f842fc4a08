/* pmukit's drop-in for likwid's marker API (docs/regions.md "likwid").
 *
 * A program instrumented for likwid (LIKWID_MARKER_INIT, _THREADINIT,
 * _REGISTER(tag), _START(tag), _STOP(tag), _CLOSE, compiled with
 * -DLIKWID_PERFMON) builds unchanged with
 *     cc -DLIKWID_PERFMON prog.c $(pkg-config --cflags --libs libpmukit)
 * (the -I of pkg-config points at this folder) and reports TopDown per tag
 * through pmukit's region library: the report goes to stderr at
 * LIKWID_MARKER_CLOSE (or exit), or where PMUKIT_REGION_REPORT=FILE says
 * (empty: no report); PMUKIT_MODEL=SCENARIO counts on the PMU model. Without
 * LIKWID_PERFMON every macro is empty, as in likwid.
 *
 * Mapping: INIT sets the library up from the environment; THREADINIT
 * opens the calling thread's counters; REGISTER names a region ahead (no
 * counting); START/STOP are pk_region_begin/end; CLOSE writes the report
 * (when asked) and closes; GET gives the calling thread's TopDown nodes of
 * a tag (percent, in the method's order), its time in seconds and its call
 * count, RESET zeroes them (likwid's per-thread meaning); SWITCH is likwid's
 * "next event group" and, with TopDown's one group, switches to the same
 * group: a no-op, as in likwid with one group. */
#ifndef PMUKIT_LIKWID_MARKER_H
#define PMUKIT_LIKWID_MARKER_H

#ifdef LIKWID_PERFMON
#include <pmukit/region.h>

#define LIKWID_MARKER_INIT pk_region_likwid_init()
#define LIKWID_MARKER_THREADINIT pk_region_thread_init(NULL)
#define LIKWID_MARKER_SWITCH ((void)0)
#define LIKWID_MARKER_REGISTER(regionTag) pk_region_likwid_register(regionTag)
#define LIKWID_MARKER_START(regionTag) pk_region_begin(regionTag)
#define LIKWID_MARKER_STOP(regionTag) pk_region_end(regionTag)
#define LIKWID_MARKER_CLOSE pk_region_likwid_close()
#define LIKWID_MARKER_RESET(regionTag) pk_region_likwid_reset(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count)                          \
	pk_region_likwid_get(regionTag, nevents, events, time, count)
#else
#define LIKWID_MARKER_INIT
#define LIKWID_MARKER_THREADINIT
#define LIKWID_MARKER_SWITCH
#define LIKWID_MARKER_REGISTER(regionTag)
#define LIKWID_MARKER_START(regionTag)
#define LIKWID_MARKER_STOP(regionTag)
#define LIKWID_MARKER_CLOSE
#define LIKWID_MARKER_RESET(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count)
#endif

#endif
