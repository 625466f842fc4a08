/* Recorded build ids and perf's build-id cache.
 *
 * The build ids of a recording (the BUILD_ID feature, or HEADER_BUILD_ID
 * records in pipe mode) name the exact binaries that ran. When the file at
 * a recorded path is gone or is no longer that binary, its symbols come
 * from the copy perf record kept in the cache
 * (<dir>/.build-id/<2 hex digits>/<the rest>/elf), as perf reads them.
 * Only host user-space entries count: kernel and vdso symbols come from the
 * running system. */
#include "sy_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* <dir>/.build-id/<first two hex digits>/<the rest>/elf */
static bool buildid_cache_path(const pk_machine *m, const char *hex, char *path, size_t size)
{
	const char *dir = m->opts.buildid_dir;
	char home[2048];
	if (!dir && m->opts.symfs && m->opts.symfs[0]) {
		/* perf's --symfs moves the cache too: <symfs>/.debug */
		snprintf(home, sizeof(home), "%s/.debug", m->opts.symfs);
		dir = home;
	}
	if (!dir) {
		dir = getenv("PERF_BUILDID_DIR");
		if (!dir || !*dir) {
			const char *h = getenv("HOME");
			if (!h || !*h)
				return false;
			snprintf(home, sizeof(home), "%s/.debug", h);
			dir = home;
		}
	}
	if (!*dir || strlen(hex) < 3)
		return false;
	int n = snprintf(path, size, "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	return n > 0 && (size_t)n < size;
}

/* An open descriptor on d's binary (and *elf on it, NULL when not ELF
 * readable), or on the cached copy when the binary is gone or its build id
 * differs from the recorded one; -1 when neither opens. */
int pki_sy_open_recorded(const pk_machine *m, const dso *d, Elf **elf)
{
	char at[4096];
	const char *symfs = m->opts.symfs;
	/* --symfs DIR: the binary of /usr/bin/x is DIR/usr/bin/x (and only there) */
	snprintf(at, sizeof(at), "%s%s", symfs ? symfs : "", d->name);
	int fd = open(at, O_RDONLY | O_CLOEXEC);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	char hex[128];
	if (d->build_id[0] &&
	    !(e && pki_sy_elf_build_id(e, hex, sizeof(hex)) && !strcmp(hex, d->build_id))) {
		/* gone, or rebuilt since: the copy perf record cached */
		char path[4096];
		if (buildid_cache_path(m, d->build_id, path, sizeof(path))) {
			int cfd = open(path, O_RDONLY | O_CLOEXEC);
			if (cfd >= 0) {
				if (e)
					elf_end(e);
				if (fd >= 0)
					close(fd);
				fd = cfd;
				e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
			}
		}
	}
	*elf = e;
	return fd;
}

/* An entry of the host's user space (pid -1: perf's id of the host
 * machine; other pids are guests). */
int pki_sy_add_build_id(void *arg, const pk_pd_rec_build_id *b)
{
	unsigned mode = b->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (b->pid != (uint32_t)-1 ||
	    (mode != PERF_RECORD_MISC_USER && mode != PERF_RECORD_MISC_GUEST_USER))
		return 0;
	return pk_machine_set_build_id(arg, b->filename, b->id, b->id_len);
}

int pk_machine_set_build_id(pk_machine *m, const char *filename, const uint8_t *id, size_t len)
{
	/* kernel symbols come from the running system; the vdso's too, its
	 * build id kept to tell whether it is this host's */
	if ((filename[0] != '/' && strcmp(filename, "[vdso]")) || !len || len > 20)
		return 0;
	dso *d = pki_sy_dso_get(m, filename);
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		snprintf(d->build_id + i * 2, 3, "%02x", id[i]);
	return 0;
}

int pk_machine_read_build_ids(pk_machine *m, pk_pd_reader *r, pk_error *err)
{
	if (!pk_pd_has_feature(r, PK_FEAT_BUILD_ID))
		return 0;
	int rc = pk_pd_build_ids(r, pki_sy_add_build_id, m, err);
	if (rc == -ENOMEM)
		return pk_err(err, rc, "out of memory");
	return rc;
}
