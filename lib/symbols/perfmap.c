/* Symbols of JIT code from the map file a JIT writes for its process,
 * "/tmp/perf-<pid>.map" (the name the dso of anonymous executable memory
 * takes, maps.c), as perf 6.1 reads it.
 *
 * Each line is "START SIZE NAME": START and SIZE in hex (an optional "0x"),
 * NAME the rest of the line, spaces and all. Lines that do not have that
 * shape are skipped. A symbol covers [START, START + SIZE) exactly: perf
 * does not stretch these symbols to the next one; one of size 0 answers
 * for its first byte only. A file owned by another user (neither root nor
 * us) is ignored, as perf ignores it without -f. */
#include "sy_internal.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool pki_sy_is_perfmap(const char *name)
{
	unsigned pid;
	char tail;
	return sscanf(name, "/tmp/perf-%u.ma%c", &pid, &tail) == 2 && tail == 'p' &&
	       !strcmp(name + strlen(name) - 4, ".map");
}

/* A hex number at *p (optional 0x), *p moved past it; false when none. */
static bool hex_field(const char **p, uint64_t *v)
{
	const char *s = *p;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	char *end;
	if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
		return false;
	*v = strtoull(s, &end, 16);
	*p = end;
	return true;
}

/* One line of the file into a symbol of d; false when it is not one. */
bool pki_sy_perfmap_line(dso *d, const char *line, size_t len)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	char buf[4096];
	if (len >= sizeof(buf))
		return false;
	memcpy(buf, line, len);
	buf[len] = 0;
	const char *p = buf;
	uint64_t start, size;
	if (!hex_field(&p, &start) || *p != ' ')
		return false;
	while (*p == ' ')
		p++;
	if (!hex_field(&p, &size) || *p != ' ' || !p[1])
		return false;
	p++;
	uint64_t end = start + (size ? size : 1);
	if (end < start)
		return false;
	return pki_sy_add_sym(d, start, end, p, strlen(p), STB_GLOBAL);
}

void pki_sy_perfmap_load(dso *d)
{
	struct stat st;
	if (lstat(d->name, &st) < 0 || (st.st_uid && st.st_uid != geteuid()))
		return;
	FILE *f = fopen(d->name, "r");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0)
		pki_sy_perfmap_line(d, line, (size_t)n);
	free(line);
	fclose(f);
	d->keep_mangled = true; /* JIT names are shown as written */
	pki_sy_syms_finish(d);
}
