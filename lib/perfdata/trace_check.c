/* The shape check of an event format text before libtraceevent parses it.
 * libtraceevent trusts the text (the kernel wrote it): a print format with
 * a brace it never opened made its parser follow a NULL pointer (found by
 * fuzz/trace_fuzz.c). So a format reaches it only in the kernel's shape:
 *   name: <name>\nID: <digits>\nformat:\n
 *   \tfield:<decl>;\toffset:<digits>;\tsize:<digits>;\tsigned:<digits>;\n ...
 *   print fmt: "<C string>"<, args with balanced (), [], {} and literals,
 *   REC->x only for declared fields> (to the end of the text)
 * Anything else is refused with the reason; nothing is read past len. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "perfdata/pd_internal.h"

typedef struct span {
	const char *p, *end;
} span;

/* The field names declared so far (views into the text). */
#define MAX_FIELDS 256
typedef struct names {
	span v[MAX_FIELDS];
	int nr;
} names;

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool known(const names *n, const char *p, size_t len)
{
	for (int i = 0; i < n->nr; i++)
		if ((size_t)(n->v[i].end - n->v[i].p) == len && !memcmp(n->v[i].p, p, len))
			return true;
	return false;
}

static bool eat(span *s, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n))
		return false;
	s->p += n;
	return true;
}

static bool digits(span *s)
{
	const char *b = s->p;
	while (s->p < s->end && isdigit((unsigned char)*s->p) && s->p - b < 10)
		s->p++;
	return s->p > b && (s->p == s->end || !isdigit((unsigned char)*s->p));
}

/* Up to and past the next '\n' (or to the end); the line in *line. */
static span next_line(span *s)
{
	const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
	span line = {s->p, nl ? nl : s->end};
	s->p = nl ? nl + 1 : s->end;
	return line;
}

/* The name a declaration ends with ("char comm[16]" -> comm). */
static bool decl_name(const char *p, const char *end, span *name)
{
	if (end > p && end[-1] == ']') {
		const char *open = end;
		while (open > p && open[-1] != '[')
			open--;
		end = open > p ? open - 1 : p;
	}
	while (end > p && end[-1] == ' ')
		end--;
	const char *b = end;
	while (b > p && ident_char(b[-1]))
		b--;
	*name = (span){b, end};
	return b < end;
}

/* \tfield:<decl>;\toffset:N;\tsize:N;\tsigned:N; (its name kept in n) */
static bool field_line(span l, names *n)
{
	if (!eat(&l, "\tfield:"))
		return false;
	const char *semi = memchr(l.p, ';', (size_t)(l.end - l.p));
	if (!semi || semi == l.p || n->nr == MAX_FIELDS || !decl_name(l.p, semi, &n->v[n->nr]))
		return false;
	n->nr++;
	l.p = semi + 1;
	return eat(&l, "\toffset:") && digits(&l) && eat(&l, ";\tsize:") && digits(&l) &&
	       eat(&l, ";\tsigned:") && digits(&l) && eat(&l, ";");
}

/* A string or character literal from its opening quote (new lines may be
 * inside: the kernel prints some formats over several lines); false when
 * it does not end. */
static bool literal(span *s)
{
	char q = *s->p++;
	while (s->p < s->end && *s->p != q) {
		if (*s->p == '\\' && s->p + 1 < s->end)
			s->p++;
		s->p++;
	}
	if (s->p >= s->end)
		return false;
	s->p++;
	return true;
}

/* The arguments after the format string: brackets nest and close in
 * order, literals end, no control bytes, every REC->name a declared field
 * (libtraceevent 1.7 follows a NULL pointer on an unknown one inside
 * __print_symbolic: found by fuzz/trace_fuzz.c). */
static bool args_balanced(span s, const names *n)
{
	char stack[64];
	int depth = 0;
	while (s.p < s.end) {
		char c = *s.p;
		if (c == '"' || c == '\'') {
			if (!literal(&s))
				return false;
			continue;
		}
		if ((unsigned char)c < 0x20 && c != '\t')
			return false;
		if (eat(&s, "REC->")) {
			const char *b = s.p;
			while (s.p < s.end && ident_char(*s.p))
				s.p++;
			if (!known(n, b, (size_t)(s.p - b)))
				return false;
			continue;
		}
		if (c == '(' || c == '[' || c == '{') {
			if (depth == (int)sizeof(stack))
				return false;
			stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
		} else if (c == ')' || c == ']' || c == '}') {
			if (!depth || stack[--depth] != c)
				return false;
		}
		s.p++;
	}
	return depth == 0;
}

const char *pki_trace_format_check(const char *text, size_t len)
{
	span s = {text, text + len};
	names n = {.nr = 0};
	if (memchr(text, '\0', len))
		return "a NUL byte in the text";
	span l = next_line(&s);
	if (!eat(&l, "name: ") || l.p == l.end)
		return "no 'name:' line first";
	l = next_line(&s);
	if (!eat(&l, "ID: ") || !digits(&l) || l.p != l.end)
		return "no 'ID:' line second";
	l = next_line(&s);
	if (!eat(&l, "format:") || l.p != l.end)
		return "no 'format:' line third";
	for (;;) {
		if (s.p == s.end)
			return "no 'print fmt:' line";
		l = next_line(&s);
		if (l.p == l.end)
			continue; /* the blank line between common and own fields */
		if (eat(&l, "print fmt: "))
			break;
		if (!field_line(l, &n))
			return "a field line not in the kernel's form";
	}
	/* the print format runs to the end: its string may hold new lines */
	span pf = {l.p, s.end};
	while (pf.end > pf.p && isspace((unsigned char)pf.end[-1]))
		pf.end--;
	if (pf.p == pf.end || *pf.p != '"' || !literal(&pf))
		return "the print format does not start with a string";
	return args_balanced(pf, &n) ? NULL
				      : "the print format's arguments are not balanced or name an "
					"undeclared field";
}
