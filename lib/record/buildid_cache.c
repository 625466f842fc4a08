/* perf's build-id cache: adding an object (perf record's step after the
 * BUILD_ID pass, buildid-cache -a), removing an id (-r, -p) and listing
 * the ids (-l). The layout, the rules and the API: include/pmukit/
 * buildid_cache.h. The directory is lib/symbols' (pki_sy_buildid_dir), so
 * that what is added here is what the symbol reader finds.
 *
 * Invariants: a copy is written whole or not at all (pki_wfile); a file or
 * link that is there already is kept; the folder an id link points to is
 * removed only through that link, and only its plain files (the cache's
 * own: elf, kallsyms, vdso, debug, probes). */
#include "record/rec_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/buildid_cache.h>
#include <pmukit/symbols.h>

#include "core/util.h"
#include "symbols/sy_internal.h"

#define KERNEL_NAME "[kernel.kallsyms]"
#define VDSO_NAME "[vdso]"

int pk_buildid_cache_dir(const char *dir, char *out, size_t size, pk_error *err)
{
	if (!pki_sy_buildid_dir(dir, NULL, out, size))
		return pk_err(err, dir ? -ENAMETOOLONG : -ENOENT,
			      dir ? "build-id cache directory '%.200s': name too long"
				  : "no build-id cache directory: HOME is not set (--buildid-dir)",
			      dir);
	return 0;
}

int pk_buildid_file(const char *path, char hex[PK_BUILD_ID_HEX], pk_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pk_err(err, -errno, "cannot open '%s': %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool elf = e && elf_kind(e) == ELF_K_ELF;
	bool ok = elf && pki_sy_elf_build_id(e, hex, PK_BUILD_ID_HEX);
	if (e)
		elf_end(e);
	close(fd);
	if (!ok)
		return pk_err(err, -ENOENT, "'%s': %s", path,
			      elf ? "no build id (no NT_GNU_BUILD_ID note)" : "not an ELF file");
	return 0;
}

/* A path from printf's format into out; -ENAMETOOLONG (err) when cut. */
__attribute__((format(printf, 4, 5))) static int path_of(char *out, size_t size, pk_error *err,
							  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		return pk_err(err, -ENAMETOOLONG, "build-id cache path too long: %.200s...", out);
	return 0;
}

/* len bytes of data written to w (dst: its name, for messages). */
static int write_all(pki_wfile *w, const char *data, size_t len, const char *dst, pk_error *err)
{
	for (size_t at = 0; at < len;) {
		ssize_t n = write(w->fd, data + at, len - at);
		if (n < 0)
			return pk_err(err, -errno, "cannot write '%s': %s", dst, strerror(errno));
		at += (size_t)n;
	}
	return 0;
}

/* w committed when all went well (rc 0), else dropped; rc or commit's. */
static int finish(pki_wfile *w, int rc, pk_error *err)
{
	if (rc == 0)
		return pki_wfile_commit(w, err);
	if (w->fd >= 0)
		pki_wfile_abort(w);
	return rc;
}

/* src copied to dst (mode: src's), whole or not at all. */
static int copy_file(const char *src, const char *dst, pk_error *err)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (in < 0 || fstat(in, &st) < 0) {
		int e = errno;
		if (in >= 0)
			close(in);
		return pk_err(err, -e, "cannot read '%s': %s", src, strerror(e));
	}
	pki_wfile w;
	int rc = pki_wfile_open(&w, dst, st.st_mode & 07777, err);
	char buf[65536];
	ssize_t n = 0;
	while (rc == 0 && (n = read(in, buf, sizeof(buf))) > 0)
		rc = write_all(&w, buf, (size_t)n, dst, err);
	if (rc == 0 && n < 0)
		rc = pk_err(err, -errno, "cannot read '%s': %s", src, strerror(errno));
	close(in);
	return finish(&w, rc, err);
}

/* dst as a hard link to src (perf's first choice), else a copy; a dst
 * that is there already is kept. */
static int link_or_copy(const char *src, const char *dst, pk_error *err)
{
	if (access(dst, F_OK) == 0 || link(src, dst) == 0 || errno == EEXIST)
		return 0;
	return copy_file(src, dst, err);
}

/* dst with data (the kernel's kallsyms, the vDSO's image), unless there. */
static int write_copy(const char *dst, const char *name, const pk_kernel *k, pk_error *err)
{
	if (access(dst, F_OK) == 0 || !k->ops->host.cache_copy)
		return 0;
	char *data = NULL;
	size_t len = 0;
	int rc = k->ops->host.cache_copy(k, strcmp(name, KERNEL_NAME) ? name : NULL, &data, &len);
	if (rc == -ENOENT)
		return 0; /* not published: the folder and link only */
	if (rc < 0)
		return pk_err(err, rc, "cannot read %s for the build-id cache: %s", name,
			      strerror(-rc));
	pki_wfile w;
	rc = pki_wfile_open(&w, dst, 0600, err);
	if (rc == 0)
		rc = write_all(&w, data, len, dst, err);
	free(data);
	return finish(&w, rc, err);
}

/* The object's copies in its folder: elf (and debug) or kallsyms or vdso. */
static int put_copies(const char *folder, const char *name, const char *real, const char *hex,
		      const pk_kernel *k, pk_error *err)
{
	bool kernel = !strcmp(name, KERNEL_NAME), vdso = !strcmp(name, VDSO_NAME);
	char dst[PATH_MAX], debug[PATH_MAX];
	int rc = path_of(dst, sizeof(dst), err, "%s/%s", folder,
			 kernel ? "kallsyms" : vdso ? "vdso" : "elf");
	if (rc == 0 && (kernel || vdso))
		return write_copy(dst, name, k, err);
	if (rc == 0)
		rc = link_or_copy(real, dst, err);
	struct stat st;
	/* a separate debug file of this id: perf keeps it beside, as debug */
	if (rc == 0 && strlen(hex) > 2 &&
	    path_of(debug, sizeof(debug), NULL, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
		    hex + 2) == 0 &&
	    stat(debug, &st) == 0 && S_ISREG(st.st_mode) &&
	    path_of(dst, sizeof(dst), err, "%s/debug", folder) == 0)
		rc = link_or_copy(debug, dst, err);
	return rc;
}

/* DIR/.build-id/xx/rest -> ../..REL, REL the folder under DIR; a link
 * there already stays. Then probes (not the kernel's) where it points. */
static int put_link(const char *base, const char *rel, const char *hex, bool kernel,
		    pk_error *err)
{
	char link_dir[PATH_MAX], link_path[PATH_MAX], target[PATH_MAX];
	int rc = path_of(link_dir, sizeof(link_dir), err, "%s/.build-id/%.2s", base, hex);
	if (rc == 0)
		rc = path_of(link_path, sizeof(link_path), err, "%s/%s", link_dir, hex + 2);
	if (rc == 0)
		rc = path_of(target, sizeof(target), err, "../..%s", rel);
	if (rc == 0 && (rc = pki_mkdir_p(link_dir, 0755)) < 0)
		return pk_err(err, rc, "cannot make '%s': %s", link_dir, strerror(-rc));
	if (rc == 0 && symlink(target, link_path) < 0 && errno != EEXIST)
		return pk_err(err, -errno, "cannot link '%s': %s", link_path, strerror(errno));
	char probes[PATH_MAX];
	if (rc == 0 && !kernel && path_of(probes, sizeof(probes), err, "%s/probes", link_path) == 0) {
		int fd = open(probes, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0)
			return pk_err(err, -errno, "cannot make '%s': %s", probes, strerror(errno));
		close(fd);
	}
	return rc;
}

int pk_buildid_cache_add(const char *dir, const char *name, const char *hex, const pk_kernel *k,
			 pk_error *err)
{
	char base[PATH_MAX], real[PATH_MAX], folder[PATH_MAX];
	k = k ? k : pk_kernel_linux();
	size_t n = strlen(hex);
	if (n < 3 || n >= PK_BUILD_ID_HEX || strspn(hex, "0123456789abcdef") != n)
		return pk_err(err, -EINVAL, "'%s': not a build id in hex", hex);
	bool file = strcmp(name, KERNEL_NAME) && strcmp(name, VDSO_NAME);
	int rc = pk_buildid_cache_dir(dir, base, sizeof(base), err);
	if (rc == 0 && file && !realpath(name, real))
		return pk_err(err, -errno, "cannot add '%s' to the build-id cache: %s", name,
			      strerror(errno));
	if (rc == 0)
		rc = path_of(folder, sizeof(folder), err, "%s%s%s/%s", base, file ? "" : "/",
			     file ? real : name, hex);
	if (rc == 0 && (rc = pki_mkdir_p(folder, 0755)) < 0)
		return pk_err(err, rc, "cannot make '%s': %s", folder, strerror(-rc));
	if (rc == 0)
		rc = put_copies(folder, name, real, hex, k, err);
	if (rc == 0)
		rc = put_link(base, folder + strlen(base), hex, !strcmp(name, KERNEL_NAME), err);
	return rc;
}

int pk_buildid_cache_add_file(const char *dir, const char *path, char hex[PK_BUILD_ID_HEX],
			      pk_error *err)
{
	int rc = pk_buildid_file(path, hex, err);
	return rc < 0 ? rc : pk_buildid_cache_add(dir, path, hex, NULL, err);
}

/* DIR/.build-id/xx/rest of hex, and (target: PATH_MAX) what it points to,
 * as a path from DIR/.build-id/xx. */
static int id_link(const char *base, const char *hex, char *link_path, char *target, pk_error *err)
{
	int rc = path_of(link_path, PATH_MAX, err, "%s/.build-id/%.2s/%s", base, hex,
			 strlen(hex) > 2 ? hex + 2 : "");
	ssize_t n = rc == 0 ? readlink(link_path, target, PATH_MAX - 1) : -1;
	if (rc == 0 && n < 0)
		return pk_err(err, -errno, "build id %s: not in the build-id cache %s (%s)", hex, base,
			      strerror(errno));
	if (rc == 0)
		target[n] = '\0';
	return rc;
}

/* The cache's files in folder, then folder itself. */
static int remove_folder(const char *folder, pk_error *err)
{
	DIR *d = opendir(folder);
	if (!d)
		return errno == ENOENT ? 0 : pk_err(err, -errno, "cannot read '%s': %s", folder,
						      strerror(errno));
	struct dirent *de;
	char path[PATH_MAX];
	int rc = 0;
	while (rc == 0 && (de = readdir(d)))
		if (de->d_type != DT_DIR &&
		    (rc = path_of(path, sizeof(path), err, "%s/%s", folder, de->d_name)) == 0 &&
		    unlink(path) < 0)
			rc = pk_err(err, -errno, "cannot remove '%s': %s", path, strerror(errno));
	closedir(d);
	if (rc == 0 && rmdir(folder) < 0)
		rc = pk_err(err, -errno, "cannot remove '%s': %s", folder, strerror(errno));
	return rc;
}

int pk_buildid_cache_remove(const char *dir, const char *hex, pk_error *err)
{
	char base[PATH_MAX], link_path[PATH_MAX], target[PATH_MAX], folder[PATH_MAX];
	int rc = pk_buildid_cache_dir(dir, base, sizeof(base), err);
	if (rc == 0)
		rc = id_link(base, hex, link_path, target, err);
	if (rc == 0)
		rc = path_of(folder, sizeof(folder), err, "%s/.build-id/%.2s/%s", base, hex, target);
	if (rc == 0)
		rc = remove_folder(folder, err);
	if (rc == 0 && unlink(link_path) < 0)
		rc = pk_err(err, -errno, "cannot remove '%s': %s", link_path, strerror(errno));
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of dir's entries that are build ids in hex (hex, sorted),
 * into *out (the caller's: free each and the array). */
static int id_names(const char *dir, char ***out, size_t *nr, pk_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return pk_err(err, -errno, "cannot read '%s': %s", dir, strerror(errno));
	struct dirent *de;
	size_t cap = 0;
	int rc = 0;
	*out = NULL;
	*nr = 0;
	while (rc == 0 && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 1 || n >= PK_BUILD_ID_HEX || strspn(de->d_name, "0123456789abcdef") != n)
			continue;
		char *copy = strdup(de->d_name);
		if (!copy || pki_grow(out, &cap, *nr + 1, sizeof(**out)) < 0) {
			free(copy);
			rc = pk_err(err, -ENOMEM, "out of memory");
		} else {
			(*out)[(*nr)++] = copy;
		}
	}
	closedir(d);
	if (*nr)
		qsort(*out, *nr, sizeof(**out), cmp_names);
	return rc;
}

static void free_names(char **v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

int pk_buildid_cache_purge(const char *dir, const char *path, pk_buildid_cache_fn fn, void *arg,
			   pk_error *err)
{
	char base[PATH_MAX], real[PATH_MAX], under[PATH_MAX];
	int rc = pk_buildid_cache_dir(dir, base, sizeof(base), err);
	const char *name = realpath(path, real) ? real : path; /* a file gone: its name */
	if (rc == 0)
		rc = path_of(under, sizeof(under), err, "%s%s%s", base, name[0] == '/' ? "" : "/",
			     name);
	char **ids = NULL;
	size_t nr = 0;
	if (rc == 0)
		rc = id_names(under, &ids, &nr, err);
	for (size_t i = 0; rc == 0 && i < nr; i++) {
		rc = strlen(ids[i]) > 2 && fn ? fn(arg, ids[i], path) : 0;
		if (rc == 0 && strlen(ids[i]) > 2)
			rc = pk_buildid_cache_remove(dir, ids[i], err);
	}
	free_names(ids, nr);
	return rc;
}

/* The object a link's target names: "../..NAME/HEX" -> NAME (the kernel's
 * and the vDSO's without the leading slash); false for another form. */
static bool target_name(char *target, const char *hex, const char **name)
{
	char *slash = strrchr(target, '/');
	if (strncmp(target, "../../", 6) || !slash || strcmp(slash + 1, hex))
		return false;
	*slash = '\0';
	*name = target + (target[6] == '[' ? 6 : 5);
	return true;
}

/* Still valid as perf 6.1's -l takes it (see buildid_cache.h). */
static bool valid(const char *name, const char *hex, const pk_kernel *k)
{
	char now[PK_BUILD_ID_HEX];
	if (!strcmp(name, KERNEL_NAME)) {
		uint8_t id[20];
		size_t len = 0;
		if (!k->ops->host.build_id || k->ops->host.build_id(k, NULL, id, &len) < 0 ||
		    !len || len > 20)
			return false;
		pki_rec_id_hex(id, len, now);
		return !strcmp(now, hex);
	}
	return name[0] == '/' && pk_buildid_file(name, now, NULL) == 0 && !strcmp(now, hex);
}

/* The ids under DIR/.build-id/xx, fn for each (valid unless all). */
static int list_two(const char *base, const char *xx, const pk_kernel *k, bool all,
		    pk_buildid_cache_fn fn, void *arg, pk_error *err)
{
	char sub[PATH_MAX], link_path[PATH_MAX], target[PATH_MAX], hex[PK_BUILD_ID_HEX + 2];
	char **rest = NULL;
	size_t nr = 0;
	int rc = path_of(sub, sizeof(sub), err, "%s/.build-id/%s", base, xx);
	if (rc == 0)
		rc = id_names(sub, &rest, &nr, err);
	for (size_t i = 0; rc == 0 && i < nr; i++) {
		const char *name;
		snprintf(hex, sizeof(hex), "%s%s", xx, rest[i]);
		if (strlen(hex) >= PK_BUILD_ID_HEX || id_link(base, hex, link_path, target, NULL) < 0 ||
		    !target_name(target, hex, &name))
			continue; /* not an id link of the cache */
		if (all || valid(name, hex, k))
			rc = fn(arg, hex, name);
	}
	free_names(rest, nr);
	return rc;
}

int pk_buildid_cache_list(const char *dir, const pk_kernel *k, bool all, pk_buildid_cache_fn fn,
			  void *arg, pk_error *err)
{
	char base[PATH_MAX], index[PATH_MAX];
	k = k ? k : pk_kernel_linux();
	int rc = pk_buildid_cache_dir(dir, base, sizeof(base), err);
	if (rc == 0)
		rc = path_of(index, sizeof(index), err, "%s/.build-id", base);
	if (rc == 0 && access(index, F_OK) < 0 && errno == ENOENT)
		return 0; /* an empty cache */
	char **two = NULL;
	size_t nr = 0;
	if (rc == 0)
		rc = id_names(index, &two, &nr, err);
	for (size_t i = 0; rc == 0 && i < nr; i++)
		if (strlen(two[i]) == 2)
			rc = list_two(base, two[i], k, all, fn, arg, err);
	free_names(two, nr);
	return rc;
}

/* ---- the build ids a recording names (buildid-list) ---- */

typedef struct named_id {
	uint32_t pid;                /* the machine: -1 the host, else a guest */
	uint64_t order;              /* where perf made its dso */
	char *name;
	char hex[PK_BUILD_ID_HEX];   /* "" when none is recorded */
	bool hit;                    /* a sample's address fell in it */
	bool kernel;                 /* the kernel's image (a kernel entry, no module) */
} named_id;

typedef struct named_ids {
	named_id *v;
	size_t nr, cap;
} named_ids;

/* The object pid and name (made at order when new); NULL without memory. */
static named_id *find_named(named_ids *l, uint32_t pid, const char *name, uint64_t order)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].pid == pid && !strcmp(l->v[i].name, name))
			return &l->v[i];
	char *copy = strdup(name);
	if (!copy || pki_grow(&l->v, &l->cap, l->nr + 1, sizeof(*l->v)) < 0) {
		free(copy);
		return NULL;
	}
	named_id *e = &l->v[l->nr++];
	*e = (named_id){.pid = pid, .order = order, .name = copy};
	return e;
}

/* One entry as perf's reader takes it: a kernel or user one (other
 * cpumodes dropped), one object per machine and name, the last id kept. */
static int note_id(void *arg, const pk_pd_rec_build_id *b)
{
	named_ids *l = arg;
	unsigned mode = b->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode != PERF_RECORD_MISC_KERNEL && mode != PERF_RECORD_MISC_USER &&
	    mode != PERF_RECORD_MISC_GUEST_KERNEL && mode != PERF_RECORD_MISC_GUEST_USER)
		return 0;
	named_id *e = find_named(l, b->pid, b->filename, l->nr);
	if (!e)
		return -ENOMEM;
	pki_rec_id_hex(b->id, b->id_len > 20 ? 20 : b->id_len, e->hex);
	/* perf's kernel maps take the kernel entry's object, whatever its
	 * name ([kernel.kallsyms], a vmlinux path): modules are .ko files */
	e->kernel = mode == PERF_RECORD_MISC_KERNEL && !strstr(b->filename, ".ko") &&
		    (b->filename[0] == '/' || !strcmp(b->filename, "[kernel.kallsyms]"));
	return 0;
}

/* The host's recorded kernel image, or NULL. */
static named_id *recorded_kernel(named_ids *l)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].kernel && l->v[i].pid == UINT32_MAX)
			return &l->v[i];
	return NULL;
}

/* A sample's object marked hit: the dso its address falls in, by perf's
 * long name, placed after the recorded ones in the order perf made it. */
static int mark_hit(pk_pd_reader *r, pk_machine *m, const pk_pd_event *ev, named_ids *l)
{
	pk_pd_sample s = PK_PD_SAMPLE_INIT;
	if (pk_pd_reader_parse_sample(r, ev, &s, NULL) < 0 || !(s.type & PERF_SAMPLE_IP))
		return 0;
	const pk_addr_loc *loc = pk_machine_lookup(m, s.pid, s.misc & 7, s.ip);
	if (!loc->has_map)
		return 0;
	named_id *e = loc->kernel && !strcmp(loc->dso_long, "[kernel.kallsyms]") ? recorded_kernel(l)
										   : NULL;
	if (!e)
		e = find_named(l, UINT32_MAX, loc->dso_long, (1ull << 32) + loc->dso_ordinal);
	if (!e)
		return -ENOMEM;
	e->hit = true;
	return 0;
}

/* The records followed as perf's buildid-list does when it looks at hits
 * (and in a pipe): maps, HEADER_BUILD_ID records, samples' objects. */
static int follow_hits(pk_pd_reader *r, named_ids *l, pk_error *err)
{
	pk_machine_opts mo = {.kallsyms = "", .no_symbols = true, .buildid_dir = "",
			      .kallsyms_cache = ""};
	pk_machine *m = pk_machine_new(&mo);
	if (!m)
		return pk_err(err, -ENOMEM, "out of memory");
	pk_pd_event ev;
	int rc;
	while ((rc = pk_pd_next(r, &ev, err)) == 1) {
		pk_pd_rec_build_id b;
		/* perf's hit marking takes no KSYMBOL: BPF code hits nothing */
		if (ev.type != PERF_RECORD_KSYMBOL && pk_machine_event(m, &ev) < 0)
			rc = -ENOMEM;
		else if (ev.type == PK_RECORD_HEADER_BUILD_ID &&
			 pk_pd_build_id_parse(ev.data, ev.size, false, &b) < 0)
			rc = pk_err(err, -EINVAL, "HEADER_BUILD_ID record at offset %llu: damaged",
				    (unsigned long long)ev.offset);
		else if (ev.type == PK_RECORD_HEADER_BUILD_ID)
			rc = note_id(l, &b);
		else if (ev.type == PERF_RECORD_SAMPLE)
			rc = mark_hit(r, m, &ev, l);
		if (rc == -ENOMEM)
			rc = pk_err(err, rc, "out of memory");
		if (rc < 0)
			break;
	}
	pk_machine_free(m);
	return rc;
}

/* The host's objects first, then each guest's by pid (perf's machines);
 * in each, the order perf made them. */
static int by_machine(const void *a, const void *b)
{
	const named_id *x = a, *y = b;
	int32_t px = (int32_t)x->pid, py = (int32_t)y->pid;
	if (px != py)
		return px == -1 ? -1 : py == -1 ? 1 : px < py ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int pk_buildid_list(pk_pd_reader *r, bool with_hits, pk_buildid_cache_fn fn, void *arg,
		    pk_error *err)
{
	named_ids l = {0};
	bool pipe = pk_pd_is_pipe(r);
	/* perf's rules: AUX data is not decoded (all objects), a file without
	 * BUILD_ID (and a pipe) is looked at for hits */
	if (!pipe && pk_pd_has_feature(r, PK_FEAT_AUXTRACE))
		with_hits = false;
	if (pipe || !pk_pd_has_feature(r, PK_FEAT_BUILD_ID))
		with_hits = true;
	int rc = pipe ? 0 : pk_pd_build_ids(r, note_id, &l, err);
	if (rc == -ENOENT && !pk_pd_has_feature(r, PK_FEAT_BUILD_ID))
		rc = 0;
	else if (rc == -ENOMEM)
		rc = pk_err(err, rc, "out of memory");
	if (rc >= 0 && with_hits)
		rc = follow_hits(r, &l, err);
	if (rc >= 0 && l.nr)
		qsort(l.v, l.nr, sizeof(*l.v), by_machine);
	for (size_t i = 0; rc >= 0 && i < l.nr; i++)
		if (!with_hits || l.v[i].hit)
			rc = fn(arg, l.v[i].hex, l.v[i].name);
	for (size_t i = 0; i < l.nr; i++)
		free(l.v[i].name);
	free(l.v);
	return rc < 0 ? rc : 0;
}
