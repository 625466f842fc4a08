/* The kallsyms cache: the lines of /proc/kallsyms that the loader keeps,
 * saved once and read back while the running kernel is the same one.
 *
 * Producing /proc/kallsyms costs the kernel ~75 ms (every line formatted
 * by vsnprintf), more than the rest of a small `script` run. The kept lines
 * go to a cache file (opts.kallsyms_cache; by default
 * $XDG_CACHE_HOME/pmukit/kallsyms, else $HOME/.cache/pmukit/kallsyms;
 * $PMUKIT_KALLSYMS_CACHE names another file, "" turns it off), written
 * to a temporary file (mode 0600: the addresses are privileged) and
 * renamed into place, so a reader sees a whole file
 * or the old one. The file:
 *
 *   pmukit kallsyms cache 2\n
 *   key <key>\n
 *   body <bytes> <body_sum() of the body, 16 hex digits>\n
 *   <body: kallsyms lines, each ending '\n'>
 *
 * The key names the source: for /proc/kallsyms the boot (boot_id, which
 * changes with every boot and so with KASLR's offsets), the kernel release
 * and the loaded modules (names and sizes from /proc/modules); for another
 * file its path, size, mtime and inode. A cache is used only when its key
 * is the current one and its header, size and checksum hold; anything else
 * (missing, short, damaged, another key) and the source is read, and the
 * cache rewritten. The body then goes through the same line parser as the
 * source, which takes any bytes. Not covered by the key: BPF programs and
 * ftrace trampolines added since the cache was written (their symbols come
 * and go without a module change). */
#include "sy_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAGIC "pmukit kallsyms cache 2\n"
#define MAX_FILE ((size_t)256 << 20)

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ULL;
	return h;
}
#define FNV_INIT 0xcbf29ce484222325ULL

/* The body's checksum: FNV-1a's multiply over 8-byte words (a byte at a
 * time costs 30 M instructions on 5 MB), rotated so that every bit counts;
 * the tail bytes by FNV-1a. */
static uint64_t body_sum(const char *p, size_t n)
{
	uint64_t h = FNV_INIT;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h = h << 23 | h >> 41;
	}
	return fnv1a(h, p + i, n - i);
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
		p = getenv("PMUKIT_KALLSYMS_CACHE");
	if (p)
		return p[0] ? strdup(p) : NULL;
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
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
	*h = FNV_INIT;
	ssize_t n = slurp("/proc/modules", 16 << 20, &buf);
	if (n < 0)
		return errno == ENOENT;
	for (char *line = buf; *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		size_t f = 0, i = 0;
		while (i < len && f < 2)
			f += line[i++] == ' ';
		*h = fnv1a(*h, line, i);
		*h = fnv1a(*h, "\n", 1);
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

/* Parses the header of a cache file of len bytes; the body's offset,
 * or 0 when the header is not one for key, or the sizes do not match. */
static size_t check_header(const char *f, size_t len, const char *key, uint64_t *sum,
			   size_t *blen)
{
	size_t ml = sizeof(MAGIC) - 1, kl = strlen(key);
	if (len < ml + 4 + kl + 1 || memcmp(f, MAGIC, ml) || memcmp(f + ml, "key ", 4) ||
	    memcmp(f + ml + 4, key, kl) || f[ml + 4 + kl] != '\n')
		return 0;
	const char *b = f + ml + 4 + kl + 1, *e = f + len;
	const char *nl = memchr(b, '\n', (size_t)(e - b));
	unsigned long long bl;
	char hex[17];
	int used = 0;
	if (!nl || sscanf(b, "body %llu %16[0-9a-f]%n", &bl, hex, &used) != 2 || b + used != nl ||
	    strlen(hex) != 16)
		return 0;
	size_t off = (size_t)(nl + 1 - f);
	if (bl != len - off)
		return 0;
	*sum = strtoull(hex, NULL, 16);
	*blen = (size_t)bl;
	return off;
}

bool pki_sy_kcache_read(const char *path, const char *key, char **body, size_t *len)
{
	char *f;
	ssize_t n = slurp(path, MAX_FILE, &f);
	if (n < 0)
		return false;
	uint64_t sum = 0;
	size_t blen = 0, off = check_header(f, (size_t)n, key, &sum, &blen);
	if (!off || body_sum(f + off, blen) != sum || (blen && f[off + blen - 1] != '\n')) {
		free(f);
		return false;
	}
	memmove(f, f + off, blen);
	*body = f;
	*len = blen;
	return true;
}

/* mkdir -p of the directory that holds path (a copy is cut). */
static void make_parent(const char *path)
{
	char *d = strdup(path);
	for (char *p = d ? d + 1 : NULL; p && *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(d, 0700);
		*p = '/';
	}
	free(d);
}

void pki_sy_kcache_write(const char *path, const char *key, const char *body, size_t len)
{
	char *tmp = NULL;
	if (asprintf(&tmp, "%s.%ld.tmp", path, (long)getpid()) < 0)
		return;
	make_parent(path);
	/* kernel addresses are privileged (kptr_restrict): the owner only */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (fd >= 0 && !f) {
		close(fd);
		unlink(tmp);
	}
	if (f) {
		fprintf(f, MAGIC "key %s\nbody %zu %016" PRIx64 "\n", key, len,
			body_sum(body, len));
		fwrite(body, 1, len, f);
		bool ok = !ferror(f);
		ok = fclose(f) == 0 && ok;
		if (!ok || rename(tmp, path) < 0)
			unlink(tmp);
	}
	free(tmp);
}
