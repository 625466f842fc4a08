/* perf's build-id cache, as perf 6.1 lays it out and as `perf buildid-cache`
 * and `perf record` fill it, and the build ids a recording names, as `perf
 * buildid-list` prints them (lib/record/buildid_cache.c).
 *
 * The cache is a directory, DIR (perf's --buildid-dir; NULL here: the
 * library's default, $PERF_BUILDID_DIR, else $HOME/.debug, the rule the
 * symbol reader finds cached binaries by). An object with build id ID (hex)
 * is kept in DIR/NAME/ID/, NAME being the object's real path (a file),
 * "[kernel.kallsyms]" or "[vdso]"; that folder holds `elf` (a file: a hard
 * link to it, or a copy), `kallsyms` (the kernel: its kallsyms text) or
 * `vdso` (its image), `debug` (a file's separate debug file from
 * /usr/lib/debug/.build-id, when there is one) and `probes` (empty: perf's
 * SDT probe cache, for all but the kernel). The index is a symbolic link per
 * id, DIR/.build-id/ID[0:2]/ID[2:] -> ../..NAME/ID (a relative link to the
 * folder, "../../[kernel.kallsyms]/ID" for the kernel). A link that is there
 * already stays (another path with the same id: the first one named); a
 * file that is there already is not copied again.
 *
 * Invariants: nothing here prints; every failure is a negative errno with
 * err naming the object and the path. The kernel's and the vDSO's copies
 * come through the kernel seam (host.cache_copy of k; NULL k: the real
 * kernel); a kernel without that entry gets the link and folder only. */
#ifndef PMUKIT_BUILDID_CACHE_H
#define PMUKIT_BUILDID_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include <pmukit/error.h>
#include <pmukit/kernel.h>
#include <pmukit/perfdata.h>

/* A build id in hex, at most 20 bytes: 40 digits and the NUL. */
#define PK_BUILD_ID_HEX 41

/* Called per cached object: its id (hex) and name (a path,
 * "[kernel.kallsyms]", "[vdso]"); nonzero stops the walk (returned). */
typedef int (*pk_buildid_cache_fn)(void *arg, const char *hex, const char *name);

/* The cache directory that dir stands for (NULL: the default above) into
 * out; -ENOENT when there is none (no HOME), -ENAMETOOLONG. */
int pk_buildid_cache_dir(const char *dir, char *out, size_t size, pk_error *err);
/* The GNU build id of the ELF file at path into hex: 0, -errno, -ENOENT
 * for a file that is not ELF or carries no build id (err says which). */
int pk_buildid_file(const char *path, char hex[PK_BUILD_ID_HEX], pk_error *err);

/* Adds object name (a file's path, "[kernel.kallsyms]", "[vdso]") with
 * build id hex to the cache: perf record's step for each object of the
 * BUILD_ID feature. */
int pk_buildid_cache_add(const char *dir, const char *name, const char *hex, const pk_kernel *k,
			 pk_error *err);
/* buildid-cache -a: the ELF file at path under its own build id (into hex). */
int pk_buildid_cache_add_file(const char *dir, const char *path, char hex[PK_BUILD_ID_HEX],
			      pk_error *err);
/* Removes id hex: its link and the folder it points to. -ENOENT when hex
 * is not cached. */
int pk_buildid_cache_remove(const char *dir, const char *hex, pk_error *err);
/* buildid-cache -p: every id cached under path's name (the file may be
 * gone), fn told of each before it goes. */
int pk_buildid_cache_purge(const char *dir, const char *path, pk_buildid_cache_fn fn, void *arg,
			   pk_error *err);
/* buildid-cache -l: fn for each cached id in the order of the ids (all:
 * every one; else only those still valid as perf 6.1 takes it: the
 * kernel's when it is k's running kernel's, a file's when the file at its
 * path still carries that id, the vDSO's never). */
int pk_buildid_cache_list(const char *dir, const pk_kernel *k, bool all, pk_buildid_cache_fn fn,
			  void *arg, pk_error *err);

/* buildid-list -i: fn for each object r's recording names (hex "" when
 * no id is recorded for it) as perf 6.1's buildid-list finds them: the
 * BUILD_ID feature's kernel and user entries (other cpumodes dropped),
 * one per machine and name (a later entry's id wins, the first one's
 * place stays), the host's first, then each guest's by pid. With
 * with_hits, and always for a pipe (its HEADER_BUILD_ID records) or a
 * file without BUILD_ID, only the objects a sample's address fell in
 * (then also those without an id, by perf's long name, in the order perf
 * made them from the maps); never for a file with AUX data (perf decodes
 * none of it). */
int pk_buildid_list(pk_pd_reader *r, bool with_hits, pk_buildid_cache_fn fn, void *arg,
		    pk_error *err);

#endif
