/* The kallsyms cache: the kernel's finished symbol table (sorted, one
 * symbol per address, sized), saved once and used again while the running
 * kernel is the same one.
 *
 * Producing /proc/kallsyms costs the kernel ~75 ms (every line formatted
 * by vsnprintf), and parsing it and building the table ~70 M instructions,
 * more than the rest of a small `script` run. The table goes to a cache
 * file (opts.kallsyms_cache; by default $XDG_CACHE_HOME/pmukit/kallsyms,
 * else $HOME/.cache/pmukit/kallsyms; $PMUKIT_KALLSYMS_CACHE names another
 * file, "" turns it off), written to a new file (mode 0600: the
 * addresses are privileged) renamed into place (pki_wfile: no link
 * written through), so a reader sees a whole file or the old one. The
 * file, in the machine's byte order, is mapped and used in place, with no
 * parsing:
 *
 *   kc_head (64 bytes): magic, byte-order mark, file size, symbol count,
 *                       names' size, key length, record size, checksum
 *   key                 key_len bytes, zero-padded to 8
 *   symbols             nr_syms kc_sym records: start, end, name offset,
 *                       binding, module mark
 *   names               names_len bytes of NUL-terminated names
 *
 * The key names the source: for /proc/kallsyms the boot (boot_id, which
 * changes with every boot and so with KASLR's offsets), the kernel release
 * and the loaded modules (names and sizes from /proc/modules); for another
 * file its path, size, mtime and inode. A cache is used only when every
 * check holds: magic, byte order, sizes adding up to the file's, its key,
 * the checksum over all after the header, and a table as the loader makes
 * it (names inside the names block, starts strictly increasing, ends past
 * starts, known bindings). Anything else (missing, short, damaged, another
 * key, an older format) and the source is read, and the cache rewritten:
 * a bad cache costs time, never a wrong symbol. Not covered by the key:
 * BPF programs and ftrace trampolines added since the cache was written
 * (their symbols come and go without a module change). */
#include "sy_internal.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <gelf.h>
#include <sys/mman.h>

#define MAGIC "pmukit ksyms 3\n"
#define ORDER_MARK 0x0102030405060708ULL
#define MAX_FILE ((size_t)256 << 20)

typedef struct kc_head {
	char magic[16];
	uint64_t order;              /* ORDER_MARK as written */
	uint64_t file_size;
	uint64_t nr_syms;
	uint64_t names_len;
	uint32_t key_len;
	uint32_t rec_size;           /* sizeof(kc_sym) */
	uint64_t sum;                /* body_sum() of the bytes after the header */
} kc_head;

typedef struct kc_sym {
	uint64_t start, end;
	uint32_t name;               /* offset in the names block */
	uint8_t bind, module;
	uint16_t zero;
} kc_sym;

_Static_assert(sizeof(kc_head) == 64, "the cache header is 64 bytes");
_Static_assert(sizeof(kc_sym) == 24, "a cached symbol is 24 bytes");


/* The body's checksum: FNV-1a's multiply over 8-byte words (a byte at a
 * time costs 30 M instructions on 5 MB), rotated so that every bit counts;
 * the tail bytes by FNV-1a. */
static uint64_t body_sum(const char *p, size_t n)
{
	uint64_t h = PKI_FNV_INIT;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h = h << 23 | h >> 41;
	}
	return pki_fnv1a(h, p + i, n - i);
}

/* The whole of a file (up to max bytes) in *buf (malloc'd, NUL
 * terminated); its length, or -1. */
static ssize_t slurp(const char *path, size_t max, char **buf)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t cap = 1 << 16, len = 0;
	char *b = malloc(cap + 1);
	while (b) {
		if (len == cap) {
			char *nb = cap < max ? realloc(b, (cap *= 2) + 1) : NULL;
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
		}
		ssize_t n = read(fd, b + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(b);
			b = NULL;
		}
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!b)
		return -1;
	b[len] = '\0';
	*buf = b;
	return (ssize_t)len;
}

char *pki_sy_kcache_path(const pk_machine_opts *o)
{
	const char *p = o->kallsyms_cache;
	if (!p)
		p = pki_env("PMUKIT_KALLSYMS_CACHE");
	if (p)
		return p[0] ? strdup(p) : NULL;
	const char *xdg = pki_env("XDG_CACHE_HOME"), *home = pki_env("HOME");
	char *out = NULL;
	int n = xdg && xdg[0] ? asprintf(&out, "%s/pmukit/kallsyms", xdg)
	      : home && home[0] ? asprintf(&out, "%s/.cache/pmukit/kallsyms", home) : -1;
	return n < 0 ? NULL : out;
}

/* FNV-1a of the first two fields (name, size) of each /proc/modules line:
 * the other fields (use counts, state, address) change while loaded. A
 * kernel without module support has no /proc/modules: the hash of none. */
static bool modules_hash(uint64_t *h)
{
	char *buf;
	*h = PKI_FNV_INIT;
	ssize_t n = slurp("/proc/modules", 16 << 20, &buf);
	if (n < 0)
		return errno == ENOENT;
	for (char *line = buf; *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		size_t f = 0, i = 0;
		while (i < len && f < 2)
			f += line[i++] == ' ';
		*h = pki_fnv1a(*h, line, i);
		*h = pki_fnv1a(*h, "\n", 1);
		line += len + (nl != NULL);
	}
	free(buf);
	return true;
}

bool pki_sy_kcache_key(const char *src, char *key, size_t size)
{
	int n;
	if (strchr(src, '\n'))
		return false;
	if (!strcmp(src, "/proc/kallsyms")) {
		char *boot;
		struct utsname u;
		uint64_t mods;
		if (slurp("/proc/sys/kernel/random/boot_id", 256, &boot) < 0)
			return false;
		boot[strcspn(boot, "\n")] = '\0';
		bool ok = boot[0] && uname(&u) == 0 && modules_hash(&mods) && !strchr(u.release, '\n');
		n = ok ? snprintf(key, size, "boot %s release %s modules %016" PRIx64, boot,
				  u.release, mods) : -1;
		free(boot);
	} else {
		struct stat st;
		if (stat(src, &st) < 0 || !S_ISREG(st.st_mode))
			return false;
		n = snprintf(key, size, "file %s size %jd mtime %jd.%09ld inode %ju", src,
			     (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
			     st.st_mtim.tv_nsec, (uintmax_t)st.st_ino);
	}
	return n > 0 && (size_t)n < size;
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The symbols of a cache file checked (see the file's comment); false
 * when anything does not hold. */
static bool check_file(const uint8_t *f, size_t len, const char *key, const kc_head **hp)
{
	kc_head h;
	size_t kl = strlen(key);
	if (len < sizeof(h))
		return false;
	memcpy(&h, f, sizeof(h));
	if (memcmp(h.magic, MAGIC, sizeof(MAGIC)) || h.order != ORDER_MARK || h.file_size != len ||
	    h.rec_size != sizeof(kc_sym) || h.key_len != kl || h.nr_syms > len / sizeof(kc_sym) ||
	    h.names_len > len || !h.names_len || h.names_len > UINT32_MAX)
		return false;
	size_t body = sizeof(h) + pad8(kl) + (size_t)h.nr_syms * sizeof(kc_sym);
	if (body > len || len - body != h.names_len || memcmp(f + sizeof(h), key, kl) ||
	    body_sum((const char *)f + sizeof(h), len - sizeof(h)) != h.sum)
		return false;
	const char *names = (const char *)f + body;
	if (names[h.names_len - 1])
		return false;
	const uint8_t *rec = f + body - (size_t)h.nr_syms * sizeof(kc_sym);
	uint64_t prev = 0;
	for (uint64_t i = 0; i < h.nr_syms; i++) {
		kc_sym k;
		memcpy(&k, rec + i * sizeof(k), sizeof(k));
		if (k.name >= h.names_len || k.end <= k.start || (i && k.start <= prev) ||
		    (k.bind != STB_LOCAL && k.bind != STB_GLOBAL && k.bind != STB_WEAK) ||
		    k.module > 1 || k.zero)
			return false;
		prev = k.start;
	}
	*hp = (const kc_head *)(const void *)f;
	return true;
}

bool pki_sy_kcache_parse(dso *d, const void *buf, size_t len, const char *key)
{
	const uint8_t *f = buf;
	const kc_head *h;
	if (!check_file(f, len, key, &h))
		return false;
	size_t body = sizeof(*h) + pad8(h->key_len);
	sym *syms = malloc(h->nr_syms ? (size_t)h->nr_syms * sizeof(sym) : 1);
	if (!syms)
		return false;
	const char *names = (const char *)f + body + (size_t)h->nr_syms * sizeof(kc_sym);
	for (size_t i = 0; i < h->nr_syms; i++) {
		kc_sym k;
		memcpy(&k, f + body + i * sizeof(k), sizeof(k));
		syms[i] = (sym){.start = k.start, .end = k.end, .name = names + k.name,
				.idx = (uint32_t)i, .bind = k.bind, .module = k.module};
	}
	free(d->syms);
	d->syms = syms;
	d->nr_syms = d->cap_syms = (size_t)h->nr_syms;
	return true;
}

bool pki_sy_kcache_read(const char *path, const char *key, dso *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	void *fmap = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= MAX_FILE)
		fmap = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (fmap == MAP_FAILED)
		return false;
	/* the names stay in the mapping, which the dso keeps */
	if (!pki_sy_kcache_parse(d, fmap, (size_t)st.st_size, key)) {
		munmap(fmap, (size_t)st.st_size);
		return false;
	}
	d->kmap = fmap;
	d->kmap_len = (size_t)st.st_size;
	return true;
}

void pki_sy_kcache_seal(void *buf, size_t len)
{
	kc_head h;
	if (len < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	h.sum = body_sum((const char *)buf + sizeof(h), len - sizeof(h));
	memcpy(buf, &h, sizeof(h));
}

/* The cache file of d's finished table (names in d->strs), in one block. */
static uint8_t *build_file(const dso *d, const char *key, size_t *len)
{
	size_t kl = strlen(key), body = sizeof(kc_head) + pad8(kl) + d->nr_syms * sizeof(kc_sym);
	if (!d->strs || !d->slen || d->slen > UINT32_MAX)
		return NULL;
	*len = body + d->slen;
	uint8_t *f = calloc(1, *len);
	if (!f)
		return NULL;
	kc_head h = {.order = ORDER_MARK, .file_size = *len, .nr_syms = d->nr_syms,
		     .names_len = d->slen, .key_len = (uint32_t)kl, .rec_size = sizeof(kc_sym)};
	memcpy(h.magic, MAGIC, sizeof(MAGIC));
	memcpy(f + sizeof(h), key, kl);
	uint8_t *rec = f + sizeof(h) + pad8(kl);
	for (size_t i = 0; i < d->nr_syms; i++) {
		const sym *s = &d->syms[i];
		kc_sym k = {.start = s->start, .end = s->end, .name = (uint32_t)(s->name - d->strs),
			    .bind = s->bind, .module = s->module};
		memcpy(rec + i * sizeof(k), &k, sizeof(k));
	}
	memcpy(f + body, d->strs, d->slen);
	f[*len - 1] = 0;
	h.sum = body_sum((const char *)f + sizeof(h), *len - sizeof(h));
	memcpy(f, &h, sizeof(h));
	return f;
}

/* mkdir -p of the directory that holds path, owner-only. */
static void make_parent(const char *path)
{
	char *d = strdup(path), *slash = d ? strrchr(d, '/') : NULL;
	if (slash && slash != d) {
		*slash = '\0';
		(void)pki_mkdir_p(d, 0700);
	}
	free(d);
}

void pki_sy_kcache_write(const char *path, const char *key, const dso *d)
{
	size_t len;
	uint8_t *f = build_file(d, key, &len);
	pki_wfile w;
	make_parent(path);
	/* kernel addresses are privileged (kptr_restrict): the owner only */
	if (f && pki_wfile_open(&w, path, 0600, NULL) == 0) {
		size_t done = 0;
		while (done < len) {
			ssize_t n = write(w.fd, f + done, len - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			done += (size_t)n;
		}
		if (done == len)
			pki_wfile_commit(&w, NULL);
		else
			pki_wfile_abort(&w);
	}
	free(f);
}
