/* perf daemon's configuration: the perf config file's [daemon] base= and
 * its [session-NAME] run= sections, as perf 6.1's daemon reads them.
 *
 * The file is git-style INI: "[section]" lines, "key = value" lines,
 * '#' and ';' comments, values trimmed and unquoted ("..."). Keys and
 * section words compare without case, session names keep theirs. Other
 * sections (report, record, ...) are perf's and ignored here; a later
 * run= of the same session replaces the earlier one. Sessions keep the
 * file's order. */
#ifndef PMUKIT_DAEMON_CONF_H
#define PMUKIT_DAEMON_CONF_H

#include <stddef.h>

#define DCONF_NAME_MAX 64

typedef struct dconf_session {
	char name[DCONF_NAME_MAX];
	char *run;                  /* record's arguments, as written */
} dconf_session;

typedef struct dconf {
	char *base;                 /* [daemon] base=, NULL: not set */
	dconf_session *sessions;
	size_t nr;
} dconf;

/* path read into c (emptied first). 0, or -1 with why ("FILE:LINE: ...")
 * in why: a file that cannot be read, a line that is neither a section,
 * a key = value nor a comment, a session name that is empty or too long,
 * or no memory. */
int dconf_load(const char *path, dconf *c, char *why, size_t n);
void dconf_free(dconf *c);
/* The session named name, or NULL. */
const dconf_session *dconf_find(const dconf *c, const char *name);

#endif
