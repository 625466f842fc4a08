/* Internal helpers shared by the library's modules, one implementation each:
 * file reads, integer parsing, growable arrays (pki_grow), byte buffers
 * (pki_buf_reserve, behind the string buffer and pk_pd_buf), warning lists
 * (pki_warnings, behind pk_pmus_warning, pk_evlist_warning and the perf.data
 * reader's warnings). Not installed; the names are pki_ and not exported.
 *
 * String-keyed tables use core/strmap.h (pki_strmap): the machine's dsos by
 * name, the unwound chains' inlined names. Still private: report's histogram
 * (lib/hist/report_hist.c) and --spe-latency groups (lib/hist/report_spe.c),
 * per-sample hot paths left as they are; the region library's names
 * (lib/region/named.c: looked up without a lock while another thread adds
 * one, in a fixed array that never moves and never allocates; its header says
 * why strmap cannot serve); tables keyed by integers (threads by tid, the
 * reader's ids) are not string tables. */
#ifndef PK_CORE_UTIL_H
#define PK_CORE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/util.h>

/* Reads a whole small file (sysfs attribute) into a NUL-terminated buffer.
 * Returns 0 or -errno. *len may be NULL. */
int pki_read_file(const char *path, char **out, size_t *len);
/* mkdir -p: dir and every missing parent made with mode (less the umask);
 * 0 when dir is a directory at the end, else -errno. */
int pki_mkdir_p(const char *dir, unsigned mode);
/* Removes trailing white space (sysfs files may or may not end in '\n'). */
char *pki_rstrip(char *s);
/* Skips leading white space. */
const char *pki_lskip(const char *s);

/* strtoull for decimal and 0x hex with overflow and trailing-garbage checks.
 * Returns 0 or -EINVAL / -ERANGE; *end (optional) gets the first unparsed char. */
int pki_parse_u64(const char *s, uint64_t *out, const char **end);

/* Growable arrays: pki_grow(&ptr, &cap, want, elem_size), the public
 * pk_grow (include/pmukit/util.h) under the library's internal name. */
static inline int pki_grow(void *pptr, size_t *cap, size_t want, size_t elem)
{
	return pk_grow(pptr, cap, want, elem);
}

/* Growable string buffer. */
typedef struct pk_strbuf {
	char *buf;
	size_t len, cap;
	bool oom;
} pk_strbuf;
void pki_sb_addf(pk_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pki_sb_addn(pk_strbuf *sb, const char *s, size_t n);
char *pki_sb_steal(pk_strbuf *sb); /* NULL after an allocation failure */
void pki_sb_free(pk_strbuf *sb);

/* Growth of a byte buffer with a sticky out-of-memory flag, shared by the
 * string buffer above and pk_pd_buf: makes room for `extra` more bytes after
 * *len. Returns false (and sets *oom) when memory ran out, or *oom was set. */
bool pki_buf_reserve(void *pdata, size_t *cap, size_t len, size_t extra, bool *oom);

/* A list of warnings, formatted lines kept for the caller to show. Each
 * object that warns (pk_pmus, pk_evlist, the perf.data reader) keeps one.
 * Lines are cut at PKI_WARNING_MAX_LEN bytes (a whole file's contents is no
 * warning). Zero-initialized it is empty and has no limits. */
#define PKI_WARNING_MAX_LEN 512
typedef struct pki_warnings {
	char **v;
	size_t nr, cap;
	size_t max;                /* keep at most this many lines; 0: no limit */
	size_t dropped;            /* lines past max, or lost to ENOMEM */
	bool unique;               /* say each line once */
} pki_warnings;
void pki_warnings_vadd(pki_warnings *w, const char *fmt, va_list ap);
void pki_warnings_add(pki_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *pki_warnings_at(const pki_warnings *w, size_t idx);
void pki_warnings_free(pki_warnings *w);

/* secure.c: the library's settings from the environment, every one
 * through here: secure_getenv (none when the process runs privileged). */
const char *pki_env(const char *name);

/* secure.c: a file written at a path the library was given (a report, a
 * cache), whole or not at all: a link on the way followed only when it is
 * the (effective) user's or root's; a regular file (or none) replaced
 * at commit by a new file created exclusively beside it (mode, less the
 * umask); a device or FIFO written in place. open and commit return 0 or
 * -errno with err (NULL allowed); abort drops the new file. */
struct pk_error;
typedef struct pki_wfile {
	int fd;                    /* write here */
	char *tmp;                 /* renamed onto path at commit; NULL: fd is path */
	char *path;                /* the path, its links followed */
} pki_wfile;
int pki_wfile_open(pki_wfile *w, const char *path, unsigned mode, struct pk_error *err);
int pki_wfile_commit(pki_wfile *w, struct pk_error *err);
void pki_wfile_abort(pki_wfile *w);

/* FNV-1a over n bytes, from h (PKI_FNV_INIT to start). */
#define PKI_FNV_INIT 0xcbf29ce484222325ULL
static inline uint64_t pki_fnv1a(uint64_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ULL;
	return h;
}

#define PK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Whether a PMU name matches a name or a prefix ending in '*' (the table
 * of CPU models, lib/pmu/cpu_models.c). */
bool pki_name_matches(const char *pattern, const char *name);

/* "Did you mean": how far apart two words are (Damerau-Levenshtein: an
 * insert, delete, change or swap of neighbours costs 1; the first 63 bytes
 * of each word count). pk_similar (include/pmukit/util.h) decides from it. */
unsigned pki_edit_distance(const char *a, const char *b);

/* Defines `static size_t NAME(const T *a, T *b, size_t n)`: one pass of a
 * natural merge sort, the sorted runs of a[0, n) merged two by two into
 * b[0, n) (stable: of equal elements the left run's first), returning the
 * number of runs written (1: b is sorted). LESS(x, y) compares two
 * `const T *`; the compare stays inline, as qsort's call would not. */
#define PKI_DEFINE_MERGE_PASS(NAME, T, LESS)                                                     \
	static size_t NAME(const T *a, T *b, size_t n)                                            \
	{                                                                                         \
		size_t runs = 0, i = 0, o = 0;                                                    \
		while (i < n) {                                                                   \
			size_t m = i + 1;                                                         \
			while (m < n && !LESS(&a[m], &a[m - 1]))                                  \
				m++;                                                              \
			size_t e = m;                                                             \
			if (m < n) {                                                              \
				e = m + 1;                                                        \
				while (e < n && !LESS(&a[e], &a[e - 1]))                          \
					e++;                                                      \
			}                                                                         \
			size_t x = i, y = m;                                                      \
			while (x < m && y < e)                                                    \
				b[o++] = LESS(&a[y], &a[x]) ? a[y++] : a[x++];                    \
			while (x < m)                                                             \
				b[o++] = a[x++];                                                  \
			while (y < e)                                                             \
				b[o++] = a[y++];                                                  \
			i = e;                                                                    \
			runs++;                                                                   \
		}                                                                                 \
		return runs;                                                                      \
	}

#endif
