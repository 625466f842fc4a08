/* Dynamic probes as perf probe 6.1 makes them: user-space probes (uprobes)
 * on a function of an ELF binary, added, listed and deleted through tracefs'
 * uprobe_events (kprobe_events' probes are listed and deleted too, never
 * added here), and the functions of a binary.
 *
 * Two halves, both in lib/symbols:
 *   probe_funcs.c  where a probe point lies in a binary: "FUNC" or
 *                  "FUNC+OFF" to file offsets (the function found in the
 *                  binary's DWARF first, its own or its debug file's, as
 *                  perf does: concrete out-of-line instances by name, an
 *                  LTO unit's instance by its abstract origin's name; else
 *                  in its symbol table, every alias),
 *                  a file offset back to perf -l's words ("func@file" from
 *                  DWARF, else "sym+off"), and --funcs' name list.
 *   uprobe.c       tracefs: the probe lines parsed, perf's group and event
 *                  names (probe_<binary's base name up to its first
 *                  character that is no letter, digit or '_'>; the function,
 *                  "_1", "_2"... when taken), a probe written or removed.
 * Addresses in uprobe_events are file offsets ("path:0x%016lx"). The
 * functions return 0 or a negative errno with err filled; nothing prints. */
#ifndef PMUKIT_PROBE_H
#define PMUKIT_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One line of uprobe_events or kprobe_events. */
typedef struct pk_probe_event {
	char group[64], event[64];
	bool uprobe;                 /* from uprobe_events */
	bool ret;                    /* a return probe ('r') */
	char *path;                  /* uprobe: the binary */
	uint64_t offset;             /* uprobe: its file offset */
	char *target;                /* kprobe: the place as written ("sym+off") */
} pk_probe_event;

/* Every probe of tracefs (NULL: the mounted one), sorted by
 * "group:event" as perf lists them. */
int pk_probe_events(const char *tracefs, pk_probe_event **out, size_t *n, pk_error *err);
void pk_probe_events_free(pk_probe_event *v, size_t n);

/* perf's group of a uprobe on path: "probe_" and the base name up to its
 * first character that is no letter, digit or '_' ("probe_libc"). */
void pk_probe_group(const char *path, char *out, size_t size);
/* perf's event name for a probe on point ("FUNC", "FUNC+OFF",
 * "FUNC%return"): the function, "__return" after it for a return probe;
 * then, when an event of that name exists (in any group of the same kind)
 * or was taken before in taken[0..ntaken), "_1", "_2"... with force, else
 * -EEXIST (err says perf's words). */
int pk_probe_event_name(const pk_probe_event *have, size_t nhave, const char *const *taken,
			size_t ntaken, const char *func, bool ret, bool force, char *out,
			size_t size, pk_error *err);

/* Writes the uprobe "p:group/event path:0x%016lx" ('r' for ret). */
int pk_uprobe_add(const char *tracefs, const char *group, const char *event, const char *path,
		  uint64_t offset, bool ret, pk_error *err);
/* Removes ev from the file it came from. */
int pk_probe_delete(const char *tracefs, const pk_probe_event *ev, pk_error *err);
/* Whether "group:event" matches pattern as perf -d takes it: "[GROUP:]EVENT",
 * globs both, a missing group any group. */
bool pk_probe_matches(const pk_probe_event *ev, const char *pattern);

/* A probe point as perf probe takes it: "FUNC[+OFF|%return]". */
typedef struct pk_probe_point {
	char func[256];
	uint64_t off;
	bool ret;
} pk_probe_point;
int pk_probe_point_parse(const char *s, pk_probe_point *pp, pk_error *err);

/* The file offsets of pp in the ELF binary path (sorted, distinct; *out
 * malloc'd). -ENOENT with perf's words when no function of that name is
 * known ("Probe point 'X' not found." with DWARF, else "Failed to find
 * symbol X in PATH"); -ENOENT/-EACCES when path cannot be read. */
int pk_probe_resolve(const char *path, const pk_probe_point *pp, uint64_t **out, size_t *n,
		     pk_error *err);
/* perf -l's place of the probe at file offset off in path: "func@file"
 * (DWARF: the function holding it, its linkage name when it has one, the
 * file it is declared in; "+OFF" when not at its entry) or "sym" / "sym+OFF"
 * from the symbol table; "%return" after the function of a return
 * probe; "0xOFF" when neither knows it. */
void pk_probe_place(const char *path, uint64_t off, bool ret, char *buf, size_t size);

/* perf probe --funcs: the names of path's functions and data objects
 * (every alias) matching filter (perf's filter
 * words: globs joined by '&' and '|', each maybe negated with '!';
 * NULL: perf's default "!_* & !*@plt"), sorted; a name is listed once per
 * symbol (perf's: 37 local "buffer" objects in glibc, 37 lines). *out is one
 * malloc'd block: free(*out). */
int pk_probe_funcs(const char *path, const char *filter, char ***out, size_t *n, pk_error *err);
/* Whether name passes perf's filter words (above). */
bool pk_probe_filter_match(const char *filter, const char *name);

#ifdef __cplusplus
}
#endif

#endif
