/* Event string -> syntax tree, by recursive descent over perf's grammar:
 *
 *   list   := item (',' item)*
 *   item   := [name] '{' event (',' event)* '}' [':' mods] | event
 *   event  := pmu '/' [terms] '/' [[':'] mods]
 *           | 'mem:' addr ['/' len] [':' access] [':' mods]
 *           | sys ':' name ['/' terms '/'] [':' mods] (tracepoint)
 *           | pfmpmu '::' EVENT (':' UMASK)* [':' mods]
 *           | name [':' mods]                      (rNNN, symbolic, alias, named)
 *
 * No resolution happens here: names stay names until encode.c looks them up,
 * so the grammar is testable without any PMU. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hw_breakpoint.h>

#include "core/util.h"
#include "events/ast.h"
#include "events/names.h"

/* Longer event strings are refused before parsing (1 MiB). */
#define EVENT_STRING_MAX (1u << 20)

/* strchr() finds the terminating NUL too; a set test must not. */
static bool in_set(char c, const char *set)
{
	return c && strchr(set, c) != NULL;
}

static bool name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == '*' || c == '?' || c == '[';
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || in_set(c, "_-.*?[]!@");
}

static bool is_mod_string(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t k = 0; k < n; k++)
		if (!in_set(s[k], PK_MODIFIER_CHARS))
			return false;
	return true;
}

static int syntax(pk_error *err, const char *s, int pos, const char *msg)
{
	return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, pos, "%s", msg);
}

static char *dup_span(const char *s, int from, int to)
{
	return strndup(s + from, (size_t)(to - from));
}

static int read_name(const char *s, int *i)
{
	int start = *i;
	if (!name_start(s[*i]))
		return 0;
	while (name_char(s[*i]))
		(*i)++;
	return *i - start;
}

void pki_terms_free(pk_term *terms, size_t nr)
{
	for (size_t k = 0; k < nr; k++) {
		free(terms[k].name);
		free(terms[k].value);
	}
	free(terms);
}

int pki_parse_terms(const char *s, int *i, char stop, pk_term **terms, size_t *nr, pk_error *err)
{
	size_t cap = 0;
	*terms = NULL;
	*nr = 0;
	while (s[*i] && s[*i] != stop) {
		int start = *i;
		/* Term names may start with a digit-free letter or '_' and contain
		 * '-' and '.' (topdown-retiring, inst_retired.any, call-graph). */
		while (isalnum((unsigned char)s[*i]) || in_set(s[*i], "_-."))
			(*i)++;
		if (*i == start) {
			pki_terms_free(*terms, *nr);
			*terms = NULL;
			*nr = 0;
			return syntax(err, s, start, "expected a term (name or name=value)");
		}
		if (pki_grow(terms, &cap, *nr + 1, sizeof(pk_term)) < 0) {
			pki_terms_free(*terms, *nr);
			*terms = NULL;
			*nr = 0;
			return pk_err(err, -ENOMEM, "out of memory");
		}
		pk_term *t = &(*terms)[(*nr)++];
		memset(t, 0, sizeof(*t));
		t->pos = start;
		t->value_pos = -1;
		t->name = dup_span(s, start, *i);
		if (s[*i] == '=') {
			(*i)++;
			int vstart = *i;
			while (s[*i] && s[*i] != ',' && s[*i] != stop && !isspace((unsigned char)s[*i]))
				(*i)++;
			t->value_pos = vstart;
			t->value = dup_span(s, vstart, *i);
			/* perf 6.1: "name=a b" is a "parser error" at the space */
			if (*i == vstart || isspace((unsigned char)s[*i])) {
				int r = syntax(err, s, *i, *i == vstart ? "expected a value after '='"
									  : "a term's value cannot contain a space");
				pki_terms_free(*terms, *nr);
				*terms = NULL;
				*nr = 0;
				return r;
			}
		}
		if (!t->name || (t->value_pos >= 0 && !t->value)) {
			pki_terms_free(*terms, *nr);
			*terms = NULL;
			*nr = 0;
			return pk_err(err, -ENOMEM, "out of memory");
		}
		if (s[*i] == ',') {
			(*i)++;
			if (s[*i] == stop || !s[*i]) {
				pki_terms_free(*terms, *nr);
				*terms = NULL;
				*nr = 0;
				return syntax(err, s, *i, "expected a term after ','");
			}
		} else if (s[*i] && s[*i] != stop) {
			pki_terms_free(*terms, *nr);
			*terms = NULL;
			*nr = 0;
			return syntax(err, s, *i, "unexpected character in terms");
		}
	}
	return 0;
}

/* How often one modifier letter may appear in one modifier string: once,
 * except 'p' (precise_ip counts them, up to 3). perf 6.1 refuses the rest
 * ("cycles:uu", "cycles:PP", "{...}:SS": "Bad modifier"). */
static int mod_limit(char c)
{
	return c == 'p' ? PK_PRECISE_MAX : 1;
}

/* Reads modifier letters at s[*i] up to the end of the event. */
static int read_mods(const char *s, int *i, char **mods, int *mods_pos, pk_error *err)
{
	int start = *i;
	int seen[UCHAR_MAX + 1] = {0};
	while (s[*i] && s[*i] != ',' && s[*i] != '}' && !isspace((unsigned char)s[*i])) {
		char c = s[*i];
		if (!in_set(c, PK_MODIFIER_CHARS)) {
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, *i,
					 "unknown modifier '%c' (valid: %s)", c,
					 PK_MODIFIER_CHARS);
		}
		if (++seen[(unsigned char)c] > mod_limit(c)) {
			if (c == 'p')
				return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, *i,
						 "too many 'p' modifiers: precise_ip goes up to %d",
						 PK_PRECISE_MAX);
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, *i,
					 "modifier '%c' repeated", c);
		}
		(*i)++;
	}
	if (*i == start)
		return syntax(err, s, start, "expected modifiers after ':'");
	*mods = dup_span(s, start, *i);
	*mods_pos = start;
	return *mods ? 0 : pk_err(err, -ENOMEM, "out of memory");
}

static void ev_free(pk_ev_ast *ev)
{
	free(ev->name);
	free(ev->name2);
	free(ev->mods);
	pki_terms_free(ev->terms, ev->nr_terms);
}

/* Length of the segment after a ':' at s[i] (up to the next ':', ',', '}' or end). */
static size_t segment_len(const char *s, int i)
{
	size_t n = 0;
	while (s[i + (int)n] && !in_set(s[i + (int)n], ":,}/") && !isspace((unsigned char)s[i + (int)n]))
		n++;
	return n;
}

/* Hex digits in a 64-bit value. */
#define U64_HEX_DIGITS 16

bool pki_is_raw_name(const char *name)
{
	if (name[0] != 'r' || !name[1])
		return false;
	for (const char *p = name + 1; *p; p++)
		if (!isxdigit((unsigned char)*p))
			return false;
	return true;
}

int pki_parse_raw_name(const char *name, uint64_t *out)
{
	if (!pki_is_raw_name(name) || strlen(name + 1) > U64_HEX_DIGITS)
		return -EINVAL;
	*out = 0;
	for (const char *p = name + 1; *p; p++) {
		unsigned char c = (unsigned char)*p;
		*out = *out << 4 | (uint64_t)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	return 0;
}

static int parse_breakpoint(const char *s, int *i, pk_ev_ast *ev, pk_error *err)
{
	ev->kind = PK_EV_BREAKPOINT;
	const char *end;
	if (pki_parse_u64(s + *i, &ev->raw, &end) < 0)
		return syntax(err, s, *i, "expected a breakpoint address (mem:0x1000[/len][:rwx])");
	*i = (int)(end - s);
	if (s[*i] == '/') {
		(*i)++;
		if (pki_parse_u64(s + *i, &ev->bp_len, &end) < 0 ||
		    !(ev->bp_len == 1 || ev->bp_len == 2 || ev->bp_len == 4 || ev->bp_len == 8))
			return syntax(err, s, *i, "breakpoint length must be 1, 2, 4 or 8");
		*i = (int)(end - s);
	}
	if (s[*i] == ':') {
		size_t n = segment_len(s, *i + 1);
		bool access = n > 0;
		for (size_t k = 0; k < n && access; k++)
			access = in_set(s[*i + 1 + (int)k], "rwx");
		if (access) {
			for (size_t k = 0; k < n; k++) {
				int at = *i + 1 + (int)k;
				unsigned bit = s[at] == 'r' ? HW_BREAKPOINT_R : s[at] == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;
				/* perf 6.1 refuses "mem:0x1000:rr" (no caret, only
				 * "Run 'perf list'") */
				if (ev->bp_type & bit)
					return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, at,
							 "breakpoint access '%c' repeated", s[at]);
				ev->bp_type |= bit;
			}
			if ((ev->bp_type & HW_BREAKPOINT_X) && (ev->bp_type & HW_BREAKPOINT_RW))
				return syntax(err, s, *i + 1,
					      "an execute breakpoint cannot also be read/write");
			*i += 1 + (int)n;
		}
	}
	if (!ev->bp_type)
		ev->bp_type = HW_BREAKPOINT_RW; /* perf's default */
	return 0;
}

static int parse_event(const char *s, int *i, pk_ev_ast *ev, pk_error *err)
{
	memset(ev, 0, sizeof(*ev));
	ev->pos = *i;
	ev->name_pos = *i;
	int r;
	int nstart = *i;
	if (!read_name(s, i)) {
		if (!s[*i])
			return syntax(err, s, *i, "expected an event");
		return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, *i,
				 "unexpected character '%c': expected an event name", s[*i]);
	}
	ev->name = dup_span(s, nstart, *i);
	if (!ev->name)
		return pk_err(err, -ENOMEM, "out of memory");

	if (s[*i] == '/') {
		ev->kind = PK_EV_PMU;
		(*i)++;
		if ((r = pki_parse_terms(s, i, '/', &ev->terms, &ev->nr_terms, err)) < 0)
			return r;
		if (s[*i] != '/')
			return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, *i,
					 "missing '/' to close the terms of PMU '%s'", ev->name);
		(*i)++;
		if (s[*i] == ':')
			(*i)++;
		if (s[*i] && s[*i] != ',' && s[*i] != '}' &&
		    (r = read_mods(s, i, &ev->mods, &ev->mods_pos, err)) < 0)
			return r;
	} else if (s[*i] == ':' && s[*i + 1] == ':') {
		/* libpfm4 "pmu::EVENT:UMASK[:mods]" */
		ev->kind = PK_EV_PFM;
		*i += 2;
		for (;;) {
			size_t n = segment_len(s, *i);
			if (n == 0)
				return syntax(err, s, *i, "expected an event name after '::' or ':'");
			*i += (int)n;
			if (s[*i] != ':')
				break;
			size_t next = segment_len(s, *i + 1);
			const char *after = s + *i + 1 + next;
			if (is_mod_string(s + *i + 1, next) && (!*after || *after == ',' || *after == '}')) {
				(*i)++;
				if ((r = read_mods(s, i, &ev->mods, &ev->mods_pos, err)) < 0)
					return r;
				break;
			}
			(*i)++;
		}
		int body_end = ev->mods ? ev->mods_pos - 1 : *i;
		free(ev->name);
		ev->name = dup_span(s, nstart, body_end);
		if (!ev->name)
			return pk_err(err, -ENOMEM, "out of memory");
	} else if (s[*i] == ':' && !strcmp(ev->name, "mem")) {
		(*i)++;
		if ((r = parse_breakpoint(s, i, ev, err)) < 0)
			return r;
		if (s[*i] == ':') {
			(*i)++;
			if ((r = read_mods(s, i, &ev->mods, &ev->mods_pos, err)) < 0)
				return r;
		}
	} else if (s[*i] == ':' && !is_mod_string(s + *i + 1, segment_len(s, *i + 1)) &&
		   !pki_symbolic_lookup(ev->name, &(uint32_t){0}, &(uint64_t){0})) {
		/* "sys:name" is a tracepoint unless the left side is a symbolic
		 * event, whose ':' can only start modifiers (cycles:z is a typo). */
		ev->kind = PK_EV_TRACEPOINT;
		(*i)++;
		int tstart = *i;
		while (isalnum((unsigned char)s[*i]) || in_set(s[*i], "_-*?[]!."))
			(*i)++;
		if (*i == tstart)
			return syntax(err, s, tstart, "expected a tracepoint name after 'subsystem:'");
		ev->name2 = dup_span(s, tstart, *i);
		if (!ev->name2)
			return pk_err(err, -ENOMEM, "out of memory");
		if (s[*i] == '/') { /* config terms: sys:name/max-stack=3/ */
			(*i)++;
			if ((r = pki_parse_terms(s, i, '/', &ev->terms, &ev->nr_terms, err)) < 0)
				return r;
			if (s[*i] != '/')
				return pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, *i,
						 "missing '/' to close the terms of tracepoint '%s:%s'",
						 ev->name, ev->name2);
			(*i)++;
		}
		if (s[*i] == ':') {
			(*i)++;
			if ((r = read_mods(s, i, &ev->mods, &ev->mods_pos, err)) < 0)
				return r;
		}
	} else {
		ev->kind = pki_is_raw_name(ev->name) ? PK_EV_RAW : PK_EV_NAME;
		if (ev->kind == PK_EV_RAW && pki_parse_raw_name(ev->name, &ev->raw) < 0)
			return syntax(err, s, nstart + 1, "raw event value does not fit 64 bits");
		if (s[*i] == ':') {
			(*i)++;
			if ((r = read_mods(s, i, &ev->mods, &ev->mods_pos, err)) < 0)
				return r;
		}
	}
	ev->len = *i - ev->pos;
	return 0;
}

void pki_ast_free(pk_ast *ast)
{
	for (size_t g = 0; g < ast->nr; g++) {
		pk_group_ast *grp = &ast->items[g];
		for (size_t k = 0; k < grp->nr; k++)
			ev_free(&grp->events[k]);
		free(grp->events);
		free(grp->group_name);
		free(grp->mods);
	}
	free(ast->items);
	ast->items = NULL;
	ast->nr = 0;
}

static int add_event(pk_group_ast *grp, size_t *cap, const pk_ev_ast *ev)
{
	if (pki_grow(&grp->events, cap, grp->nr + 1, sizeof(pk_ev_ast)) < 0)
		return -ENOMEM;
	grp->events[grp->nr++] = *ev;
	return 0;
}

/* Parses one event at s[*i] and appends it to the group. */
static int parse_event_into(pk_group_ast *grp, size_t *cap, const char *s, int *i, pk_error *err)
{
	pk_ev_ast ev;
	int r = parse_event(s, i, &ev, err);
	if (r == 0 && add_event(grp, cap, &ev) < 0)
		r = pk_err(err, -ENOMEM, "out of memory");
	if (r < 0)
		ev_free(&ev);
	return r;
}

static void skip_space(const char *s, int *i)
{
	while (isspace((unsigned char)s[*i]))
		(*i)++;
}

/* Is there a "name{" at s[i]? (a named group) */
static int group_name_len(const char *s, int i)
{
	int j = i;
	if (!read_name(s, &j))
		return 0;
	return s[j] == '{' ? j - i : 0;
}

int pki_ast_parse(const char *s, pk_ast *ast, pk_error *err)
{
	memset(ast, 0, sizeof(*ast));
	size_t cap = 0;
	int i = 0, r = 0;
	if (!s)
		return pk_err(err, -EINVAL, "no event string");
	if (strlen(s) > EVENT_STRING_MAX)
		return pk_err(err, -E2BIG, "event string longer than %u bytes", EVENT_STRING_MAX);
	skip_space(s, &i);
	if (!s[i])
		return syntax(err, s, i, "empty event list");
	for (;;) {
		skip_space(s, &i);
		if (pki_grow(&ast->items, &cap, ast->nr + 1, sizeof(pk_group_ast)) < 0) {
			r = pk_err(err, -ENOMEM, "out of memory");
			goto fail;
		}
		pk_group_ast *grp = &ast->items[ast->nr++];
		memset(grp, 0, sizeof(*grp));
		grp->pos = i;
		size_t ecap = 0;
		int gname = group_name_len(s, i);
		if (gname) {
			grp->group_name = dup_span(s, i, i + gname);
			i += gname;
		}
		if (s[i] == '{') {
			grp->is_group = true;
			i++;
			for (;;) {
				skip_space(s, &i);
				if (s[i] == '{') {
					r = syntax(err, s, i, "groups cannot be nested");
					goto fail;
				}
				if ((r = parse_event_into(grp, &ecap, s, &i, err)) < 0)
					goto fail;
				skip_space(s, &i);
				if (s[i] == ',') {
					i++;
					continue;
				}
				if (s[i] == '}')
					break;
				r = s[i] ? pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, i,
						     "unexpected character '%c': expected ',' or '}'", s[i])
					 : syntax(err, s, i, "missing '}' to close the group");
				goto fail;
			}
			i++;
			if (s[i] == ':') {
				i++;
				if ((r = read_mods(s, &i, &grp->mods, &grp->mods_pos, err)) < 0)
					goto fail;
			}
		} else {
			if ((r = parse_event_into(grp, &ecap, s, &i, err)) < 0)
				goto fail;
		}
		grp->len = i - grp->pos;
		skip_space(s, &i);
		if (s[i] == ',') {
			i++;
			skip_space(s, &i);
			if (!s[i]) {
				r = syntax(err, s, i, "expected an event after ','");
				goto fail;
			}
			continue;
		}
		if (!s[i])
			break;
		r = pk_err_at(err, -EINVAL, PK_EVENT_SYNTAX, s, i,
			      s[i] == '}' ? "unexpected '}' outside a group"
					  : "unexpected character '%c': expected ',' between events",
			      s[i]);
		goto fail;
	}
	return 0;
fail:
	pki_ast_free(ast);
	return r;
}
