/* Internal helpers shared by the library's modules. Not installed. */
#ifndef PK_CORE_UTIL_H
#define PK_CORE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads a whole small file (sysfs attribute) into a NUL-terminated buffer.
 * Returns 0 or -errno. *len may be NULL. */
int pki_read_file(const char *path, char **out, size_t *len);
/* Removes trailing white space (sysfs files may or may not end in '\n'). */
char *pki_rstrip(char *s);
/* Skips leading white space. */
const char *pki_lskip(const char *s);

/* strtoull for decimal and 0x hex with overflow and trailing-garbage checks.
 * Returns 0 or -EINVAL / -ERANGE; *end (optional) gets the first unparsed char. */
int pki_parse_u64(const char *s, uint64_t *out, const char **end);

/* Growable arrays: pki_grow(&ptr, &cap, want, elem_size). Returns 0 or -ENOMEM. */
int pki_grow(void *pptr, size_t *cap, size_t want, size_t elem);

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

#define PK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
