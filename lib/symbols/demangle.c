/* C++ symbol names as perf shows them.
 *
 * The demangler is the C++ runtime's own (__cxa_demangle in libstdc++),
 * loaded with dlopen the first time a mangled name needs it, so programs
 * that never meet C++ symbols pay nothing and link nothing more. Without
 * it, names stay mangled.
 *
 * perf 6.1 demangles with libiberty and no options (DMGL_NO_OPTS): the
 * outermost function type is not printed, so "ns::f(int) const" is shown
 * as "ns::f" and "long ns::g<long>(long)" as "ns::g<long>"; clone suffixes
 * (".constprop.0") are dropped. __cxa_demangle always prints the full
 * signature, so pk_demangle() cuts that part off the text. */
#include <pmukit/symbols.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_load(void)
{
	/* already in the process when it is C++; never closed */
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return;
	void *fn = dlsym(h, "__cxa_demangle");
	/* ISO C has no object-to-function pointer conversion; POSIX
	 * guarantees this one works */
	memcpy(&cxa_demangle, &fn, sizeof(fn));
}

bool pk_demangle_available(void)
{
	pthread_once(&cxa_once, cxa_load);
	return cxa_demangle != NULL;
}

bool pk_is_mangled(const char *name)
{
	if (name[0] == '_' && name[1] == 'Z')
		return true;
	/* old-style global constructor/destructor names, which libiberty
	 * demangles too ("global constructors keyed to ...") */
	return !strncmp(name, "_GLOBAL_", 8) && (name[8] == '.' || name[8] == '_' || name[8] == '$') &&
	       (name[9] == 'D' || name[9] == 'I') && name[10] == '_';
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* Index of the bracket that opens the group closing at s[end - 1]
 * (one of ) ] } >), counting every bracket kind; 0 when unbalanced. */
static size_t open_of(const char *s, size_t end)
{
	int depth = 0;
	for (size_t i = end; i > 0; i--) {
		char c = s[i - 1];
		if (c == ')' || c == ']' || c == '}' || c == '>')
			depth++;
		else if (c == '(' || c == '[' || c == '{' || c == '<')
			depth--;
		if (depth == 0)
			return i - 1;
	}
	return 0;
}

/* Length of an operator name ending at s[end] ("operator<", "operator new",
 * "operator delete[]", "operator()"), or 0 when s[..end) does not end
 * with one. */
static size_t operator_before(const char *s, size_t end)
{
	size_t j = end;
	while (j > 0 && strchr("+-*/%^&|~!=<>,()[] ", s[j - 1]) && s[j - 1] != '\0')
		j--;
	/* "operator new", "operator delete": a word after a space */
	size_t w = j;
	while (w > 0 && is_ident(s[w - 1]))
		w--;
	if (w > 0 && s[w - 1] == ' ' && (!strncmp(s + w, "new", 3) || !strncmp(s + w, "delete", 6)))
		j = w - 1;
	if (j >= 8 && !memcmp(s + j - 8, "operator", 8) && (j == 8 || !is_ident(s[j - 9])))
		return end - (j - 8);
	return 0;
}

/* Cuts the top-level function type from a fully demangled name held in
 * s[0..n): the trailing qualifiers, the parameter list, and for function
 * templates the return type in front. Returns the start of what is left
 * and sets *len. */
static const char *strip_function_type(const char *s, size_t n, size_t *len)
{
	static const char *const quals[] = {" const", " volatile", " restrict", " &&", " &",
					    " noexcept", " transaction_safe"};
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < sizeof(quals) / sizeof(quals[0]); i++)
			if (ends_with(s, n, quals[i])) {
				n -= strlen(quals[i]);
				again = true;
			}
		if (n && s[n - 1] == ')') {
			/* exception specifications: " throw(...)", " noexcept(...)" */
			size_t o = open_of(s, n);
			if (ends_with(s, o, " throw") || ends_with(s, o, " noexcept")) {
				n = o - (ends_with(s, o, " throw") ? 6 : 9);
				again = true;
			}
		}
	}
	*len = n;
	if (!n || s[n - 1] != ')')
		return s; /* not a function: a variable, a vtable ... */
	size_t params = open_of(s, n);
	if (!params)
		return s;
	size_t end = params;
	size_t start = 0;
	if (end > 1 && s[end - 1] == ')' && s[end - 2] == ')' && !operator_before(s, end)) {
		/* a function returning a function pointer:
		 * "void (*ns::f(int))(double)", the name inside (a conversion
		 * to one, "operator void (C::*)()", has no name inside) */
		size_t o = open_of(s, end);
		size_t b = o + 1;
		while (b < end && (s[b] == '*' || s[b] == '&' || s[b] == ' '))
			b++;
		size_t inner;
		const char *in = strip_function_type(s + b, end - 1 - b, &inner);
		*len = inner;
		return in;
	}
	/* a return type is printed only for function templates: the name
	 * then ends in template arguments */
	if (end && s[end - 1] == '>' && !operator_before(s, end)) {
		size_t i = open_of(s, end);
		while (i > 0) {
			char c = s[i - 1];
			size_t op;
			if (c == ')' || c == ']' || c == '}' || c == '>') {
				if ((op = operator_before(s, i)) != 0) {
					i -= op;
					continue;
				}
				i = open_of(s, i);
			} else if (is_ident(c) || c == ':' || c == '~') {
				i--;
			} else if ((op = operator_before(s, i)) != 0) {
				i -= op; /* "operator< <int>", "operator new" */
			} else {
				break;
			}
		}
		if (i > 0 && s[i - 1] == ' ')
			start = i;
	}
	*len = end - start;
	return s + start;
}

char *pk_demangle(const char *name)
{
	if (!pk_is_mangled(name) || !pk_demangle_available())
		return NULL;
	int status = 0;
	char *full = cxa_demangle(name, NULL, NULL, &status);
	if (!full && status == -2) {
		/* a suffix __cxa_demangle rejects: perf ignores what follows
		 * the mangled name, so demangle the part before it */
		const char *dot = strchr(name, '.');
		if (dot) {
			char *cut = strndup(name, (size_t)(dot - name));
			if (cut)
				full = cxa_demangle(cut, NULL, NULL, &status);
			free(cut);
		}
	}
	if (!full)
		return NULL;
	size_t n = strlen(full);
	/* " [clone .constprop.0]" ... : perf never shows them */
	while (ends_with(full, n, "]")) {
		const char *c = NULL;
		for (const char *p = full; (p = strstr(p, " [clone ")) && p < full + n; p++)
			c = p;
		if (!c)
			break;
		n = (size_t)(c - full);
	}
	size_t len = n;
	const char *s = full;
	/* special names (vtables, thunks, guard variables) keep their
	 * function types, as libiberty prints them */
	if (name[1] == 'Z' && name[2] != 'T' && name[2] != 'G')
		s = strip_function_type(full, n, &len);
	memmove(full, s, len);
	full[len] = '\0';
	return full;
}
