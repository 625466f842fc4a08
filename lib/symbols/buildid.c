/* Recorded build ids and perf's build-id cache.
 *
 * The build ids of a recording (the BUILD_ID feature, or HEADER_BUILD_ID
 * records in pipe mode) name the exact binaries that ran, the kernel and
 * its modules: the host's entries count (pid -1), not a guest's kernel.
 * A binary is read only when it carries its recorded id: the copy perf
 * record kept in the cache (<dir>/.build-id/<2 hex digits>/<the rest>/elf),
 * else the file at its path; a mismatch gives no symbols, never another
 * binary's. Without a recorded id, the file at its path, unless it is an
 * ELF file of another machine type than the recording's ARCH. The kernel's
 * kallsyms is this host's only when the recorded kernel is this host's (or
 * none is recorded), else the cache's copy of the recorded one's. */
#include "sy_internal.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/kernel.h>

bool pki_sy_buildid_dir(const char *opt, const char *symfs, char *dir, size_t size)
{
	const char *d, *h;
	int n;
	if (opt)
		n = snprintf(dir, size, "%s", opt);
	else if (symfs && symfs[0]) /* perf's --symfs moves the cache too */
		n = snprintf(dir, size, "%s/.debug", symfs);
	else if ((d = pki_env("PERF_BUILDID_DIR")) && *d)
		n = snprintf(dir, size, "%s", d);
	else if ((h = pki_env("HOME")) && *h)
		n = snprintf(dir, size, "%s/.debug", h);
	else
		return false;
	return n > 0 && (size_t)n < size && dir[0];
}

static bool buildid_dir(const pk_machine *m, char *dir, size_t size)
{
	return pki_sy_buildid_dir(m->opts.buildid_dir, m->opts.symfs, dir, size);
}

/* <dir>/.build-id/<first two hex digits>/<the rest>/elf */
static bool buildid_cache_path(const pk_machine *m, const char *hex, char *path, size_t size)
{
	char dir[2048];
	if (!buildid_dir(m, dir, sizeof(dir)) || strlen(hex) < 3)
		return false;
	int n = snprintf(path, size, "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	return n > 0 && (size_t)n < size;
}

/* An open descriptor on path with *elf on it when it is an ELF file
 * carrying build id want (any file when want is ""); else -1. */
static int open_checked(const char *path, const char *want, Elf **elf)
{
	*elf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	char hex[128];
	if (!want[0] ||
	    (e && pki_sy_elf_build_id(e, hex, sizeof(hex)) && !strcmp(hex, want))) {
		*elf = e;
		return fd;
	}
	if (e)
		elf_end(e);
	close(fd);
	return -1;
}

/* An open descriptor on d's binary (and *elf on it, NULL when not ELF
 * readable), as perf finds it: with a recorded build id, the copy in
 * perf's build-id cache, else the file at its path, else a debuginfod
 * server's (opt-in), and only one that carries that build id (a rebuilt
 * or foreign binary gives no symbols);
 * without one, the file at its path, unless it is an ELF file of another
 * architecture than the recording's. -1 when none opens. */
int pki_sy_open_recorded(const pk_machine *m, const dso *d, Elf **elf)
{
	char at[4096], path[4096];
	const char *symfs = m->opts.symfs;
	/* --symfs DIR: the binary of /usr/bin/x is DIR/usr/bin/x (and only there) */
	snprintf(at, sizeof(at), "%s%s", symfs ? symfs : "", d->name);
	int fd = -1;
	if (d->build_id[0] && buildid_cache_path(m, d->build_id, path, sizeof(path)))
		fd = open_checked(path, d->build_id, elf);
	if (fd < 0 && d->name[0] == '/')
		fd = open_checked(at, d->build_id, elf);
	char *fetched = fd < 0 && d->build_id[0] ? pki_sy_debuginfod_path(d->build_id) : NULL;
	if (fetched) /* a debuginfod server's copy ($DEBUGINFOD_URLS) */
		fd = open_checked(fetched, d->build_id, elf);
	free(fetched);
	/* a binary of another architecture (a file recorded elsewhere,
	 * without build ids) is not the one that ran */
	if (fd >= 0 && *elf && elf_kind(*elf) == ELF_K_ELF && !pki_sy_elf_arch_ok(m, *elf)) {
		elf_end(*elf);
		*elf = NULL;
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether path is an ELF file of build id want ("": any) with a symbol
 * table (*runtime: an ELF at all, what perf can take program headers
 * from). */
static bool file_symtab(const char *path, const char *want, bool *runtime)
{
	Elf *e = NULL;
	int fd = open_checked(path, want, &e); /* perf takes no file of another build id */
	if (fd < 0)
		return false;
	bool elf = e && elf_kind(e) == ELF_K_ELF, tab = false;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while (elf && !tab && (scn = elf_nextscn(e, scn)))
		tab = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size;
	if (e)
		elf_end(e);
	close(fd);
	*runtime = *runtime || elf;
	return tab;
}

/* perf's letter for where a user binary's symbols come from (report -v):
 * the first file with a symbol table in perf's order, the build-id
 * cache's elf (B) and debug (D) copies, /usr/lib/debug/PATH.debug (f),
 * /usr/lib/debug/PATH (u), /usr/lib/debug/.build-id/xx/rest.debug (b),
 * the path (d); with none, the first ELF at all ('B' or 'd'); '!' for
 * no file. Without a recorded build id, the file's own (as perf). */
char pki_sy_dso_origin(const pk_machine *m, const dso *d)
{
	char c[6][4200] = {""};
	static const char letter[] = "BDfubd";
	char own[128] = "";
	const char *hex = d->build_id;
	if (!hex[0] && d->name[0] == '/') { /* perf reads it from the file then */
		Elf *e = NULL;
		int fd = open_checked(d->name, "", &e);
		if (e && !pki_sy_elf_build_id(e, own, sizeof(own)))
			own[0] = '\0';
		if (e)
			elf_end(e);
		if (fd >= 0)
			close(fd);
		hex = own;
	}
	if (hex[0] && buildid_cache_path(m, hex, c[0], sizeof(c[0]))) {
		snprintf(c[1], sizeof(c[1]), "%.*sdebug", (int)strlen(c[0]) - 3, c[0]);
	}
	if (d->name[0] == '/') {
		snprintf(c[2], sizeof(c[2]), "/usr/lib/debug%s.debug", d->name);
		snprintf(c[3], sizeof(c[3]), "/usr/lib/debug%s", d->name);
		snprintf(c[5], sizeof(c[5]), "%s%s", m->opts.symfs ? m->opts.symfs : "", d->name);
	}
	if (hex[0] && strlen(hex) > 2)
		snprintf(c[4], sizeof(c[4]), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	char runtime = '!';
	for (int i = 0; i < 6; i++) {
		bool rt = false;
		if (c[i][0] && file_symtab(c[i], d->build_id, &rt))
			return letter[i];
		if (rt && runtime == '!' && (i == 0 || i == 5))
			runtime = letter[i];
	}
	return runtime;
}

/* This host's build id of the kernel (object NULL) or of its vDSO, as
 * hex; false when it does not publish one. */
static bool host_build_id(const char *object, char *hex, size_t size)
{
	const pk_kernel *k = pk_kernel_linux();
	uint8_t id[20];
	size_t len = 0;
	if (!k->ops->host.build_id || k->ops->host.build_id(k, object, id, &len) < 0 || !len ||
	    len * 2 + 1 > size)
		return false;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + i * 2, 3, "%02x", id[i]);
	return true;
}

bool pki_sy_host_object(const pk_machine *m, const dso *d)
{
	char hex[64];
	/* without a build id, a kernel of another architecture is not this one */
	if (!d->build_id[0])
		return pki_sy_arch_is_host(m);
	return host_build_id(d->is_kernel ? NULL : d->name, hex, sizeof(hex)) &&
	       !strcmp(hex, d->build_id);
}

/* Whether the vdso d is read from this host's image. That image stands
 * for the copy perf record cached in $HOME/.debug: it counts for this
 * host's vdso (by build id, or, without one, when the recorded kernel is
 * this host's), and not under --symfs or another cache directory, where
 * perf reads only that directory's copy. */
bool pki_sy_host_vdso(const pk_machine *m, const dso *d)
{
	if ((m->opts.symfs && m->opts.symfs[0]) || m->opts.buildid_dir)
		return false;
	return pki_sy_host_object(m, d->build_id[0] ? d : m->kernel);
}

bool pki_sy_kallsyms_source(const pk_machine *m, char *path, size_t size)
{
	const dso *k = m->kernel;
	int n;
	const char *symfs = m->opts.symfs;
	if (m->opts.kallsyms) /* the user's file, as it is */
		n = snprintf(path, size, "%s", m->opts.kallsyms);
	else if (symfs && symfs[0] && strcmp(symfs, "/"))
		return false; /* perf reads no kallsyms under another root (a vmlinux only) */
	else if (pki_sy_host_object(m, k))
		n = snprintf(path, size, "/proc/kallsyms");
	else {
		/* another kernel: only the copy perf record cached for it */
		char dir[2048];
		if (!buildid_dir(m, dir, sizeof(dir)))
			return false;
		n = snprintf(path, size, "%s/[kernel.kallsyms]/%s/kallsyms", dir, k->build_id);
		if (n > 0 && (size_t)n < size && access(path, R_OK) != 0)
			return false;
	}
	return n > 0 && (size_t)n < size && path[0];
}

/* A kernel entry of the build-id list naming the kernel image by a path
 * ("/lib/modules/6.6.7/build/vmlinux"): not "[...]", not a module (.ko). */
static bool kernel_image_path(const char *f)
{
	const char *ko = strstr(f, ".ko");
	return f[0] && f[0] != '[' && !(ko && (!ko[3] || ko[3] == '.'));
}

/* perf takes the first kernel entry that is no module as the kernel: it
 * keeps that path as its name (script's), and report's short name is
 * "[kernel.vmlinux]" when the path says vmlinux. 1: named, 0: the
 * kernel was named before (a later entry is another object). */
static int name_kernel(pk_machine *m, const char *path)
{
	dso *k = m->kernel;
	if (k->listed)
		return 0;
	char *name = strdup(path);
	char *short_name = strstr(path, "vmlinux") ? strdup("[kernel.vmlinux]") : NULL;
	if (!name || (!short_name && strstr(path, "vmlinux"))) {
		free(name);
		free(short_name);
		return -ENOMEM;
	}
	free(k->name);
	k->name = name;
	if (short_name) {
		free(k->short_name);
		k->short_name = short_name;
	}
	return 1;
}

/* An entry of the host (pid -1: perf's id of the host machine; other
 * pids are guests): its user space, its kernel and modules. */
int pki_sy_add_build_id(void *arg, const pk_pd_rec_build_id *b)
{
	unsigned mode = b->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (b->pid != (uint32_t)-1 || mode == PERF_RECORD_MISC_GUEST_KERNEL)
		return 0;
	if (mode == PERF_RECORD_MISC_KERNEL && kernel_image_path(b->filename)) {
		int rc = name_kernel(arg, b->filename);
		if (rc <= 0)
			return rc;
		return pk_machine_set_build_id(arg, "[kernel.kallsyms]", b->id, b->id_len);
	}
	return pk_machine_set_build_id(arg, b->filename, b->id, b->id_len);
}

int pk_machine_set_build_id(pk_machine *m, const char *filename, const uint8_t *id, size_t len)
{
	if (!len || len > 20 || !filename[0])
		return 0;
	dso *d = !strncmp(filename, "[kernel.kallsyms]", 17) ? m->kernel
								: pki_sy_dso_get(m, filename);
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		snprintf(d->build_id + i * 2, 3, "%02x", id[i]);
	d->listed = true;
	return 0;
}

int pk_machine_read_build_ids(pk_machine *m, pk_pd_reader *r, pk_error *err)
{
	const uint8_t *raw;
	size_t len;
	if (pk_pd_has_feature(r, PK_FEAT_ARCH) &&
	    pk_pd_feature_raw(r, PK_FEAT_ARCH, &raw, &len, NULL) == 0)
		pki_sy_set_arch(m, raw, len);
	if (!pk_pd_has_feature(r, PK_FEAT_BUILD_ID))
		return 0;
	int rc = pk_pd_build_ids(r, pki_sy_add_build_id, m, err);
	if (rc == -ENOMEM)
		return pk_err(err, rc, "out of memory");
	return rc;
}
