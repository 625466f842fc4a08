/* perf daemon's configuration file read (daemon_conf.h: the format, what
 * is kept). */
#include "daemon_conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* s with the blanks at both ends cut (in place). */
static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* A value unquoted ("...", in place). */
static char *unquote(char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v[n - 1] = '\0';
		return v + 1;
	}
	return v;
}

/* run= of session name: set (replacing), or a new session. */
static int set_run(dconf *c, const char *name, const char *run)
{
	char *copy = strdup(run);
	if (!copy)
		return -1;
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->sessions[i].name, name)) {
			free(c->sessions[i].run);
			c->sessions[i].run = copy;
			return 0;
		}
	dconf_session *s = realloc(c->sessions, (c->nr + 1) * sizeof(*s));
	if (!s) {
		free(copy);
		return -1;
	}
	c->sessions = s;
	size_t len = strnlen(name, sizeof(s->name) - 1); /* checked by section_line */
	memcpy(s[c->nr].name, name, len);
	s[c->nr].name[len] = '\0';
	s[c->nr++].run = copy;
	return 0;
}

/* "[section]": its name into section; why set on a bad one. */
static int section_line(char *line, char *section, size_t size, char *why, size_t n)
{
	char *end = strchr(line, ']');
	if (!end || *trim(end + 1)) {
		snprintf(why, n, "'%s': a section needs a closing ']'", line);
		return -1;
	}
	*end = '\0';
	char *name = trim(line + 1);
	if (!strncasecmp(name, "session-", 8) && (!name[8] || strlen(name + 8) >= DCONF_NAME_MAX)) {
		snprintf(why, n, "[%s]: a session's name needs 1 to %d characters", name,
			 DCONF_NAME_MAX - 1);
		return -1;
	}
	snprintf(section, size, "%s", name);
	return 0;
}

/* "key = value" in section. */
static int key_line(dconf *c, const char *section, char *line, char *why, size_t n)
{
	char *eq = strchr(line, '=');
	if (!eq) {
		snprintf(why, n, "'%s': neither [section] nor key = value", line);
		return -1;
	}
	*eq = '\0';
	char *key = trim(line), *val = unquote(trim(eq + 1));
	int rc = 0;
	if (!strcasecmp(section, "daemon") && !strcasecmp(key, "base")) {
		free(c->base);
		rc = (c->base = strdup(val)) ? 0 : -1;
	} else if (!strncasecmp(section, "session-", 8) && !strcasecmp(key, "run")) {
		rc = set_run(c, section + 8, val);
	}
	if (rc < 0)
		snprintf(why, n, "%s", strerror(ENOMEM));
	return rc;
}

static int parse(FILE *f, dconf *c, const char *path, char *why, size_t n)
{
	char buf[8192], section[128] = "", what[4096];
	for (int nr = 1; fgets(buf, sizeof(buf), f); nr++) {
		char *line = trim(buf);
		int rc = 0;
		if (*line == '[')
			rc = section_line(line, section, sizeof(section), what, sizeof(what));
		else if (*line && *line != '#' && *line != ';')
			rc = key_line(c, section, line, what, sizeof(what));
		if (rc < 0) {
			snprintf(why, n, "%s:%d: %s", path, nr, what);
			return -1;
		}
	}
	return 0;
}

int dconf_load(const char *path, dconf *c, char *why, size_t n)
{
	memset(c, 0, sizeof(*c));
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(why, n, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = parse(f, c, path, why, n);
	fclose(f);
	if (rc < 0)
		dconf_free(c);
	return rc;
}

void dconf_free(dconf *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->sessions[i].run);
	free(c->sessions);
	free(c->base);
	memset(c, 0, sizeof(*c));
}

const dconf_session *dconf_find(const dconf *c, const char *name)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->sessions[i].name, name))
			return &c->sessions[i];
	return NULL;
}
