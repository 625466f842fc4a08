/* pmukit: tracepoints from tracefs (subsys:name -> id). */
#ifndef PMUKIT_TRACEPOINT_H
#define PMUKIT_TRACEPOINT_H

#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/kernel.h> /* pk_tracefs_dir: where the kernel mounts tracefs */

#ifdef __cplusplus
extern "C" {
#endif

/* Reads <tracefs>/events/<sys>/<name>/id. -ENOENT when the tracepoint does
 * not exist (err says which), -EACCES when tracefs is not readable. */
int pk_tracepoint_id(const char *tracefs, const char *sys, const char *name, uint64_t *id,
		     pk_error *err);

/* Calls cb for every tracepoint whose subsystem and name match the fnmatch
 * globs (NULL matches all), in sorted order. Stops early when cb returns
 * non-zero and returns that value. */
typedef int (*pk_tracepoint_cb)(const char *sys, const char *name, uint64_t id, void *arg);
int pk_tracepoint_foreach(const char *tracefs, const char *sys_glob, const char *name_glob,
			  pk_tracepoint_cb cb, void *arg, pk_error *err);

#ifdef __cplusplus
}
#endif
#endif
