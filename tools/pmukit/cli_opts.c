/* The option tables turned into getopt_long's input, help text, completion
 * lists and option errors; see cli_opts.h. The getopt arrays are built per
 * table on first use and kept (a table is static and never changes). */
#include "cli_opts.h"

#include <string.h>

#include <pmukit/util.h>

#include "builtin.h"

#define MAX_OPTS 128

static const pk_optspec *built;
static struct option longopts[MAX_OPTS + 1];
static const pk_opt *long_of[MAX_OPTS + 1]; /* longopts[i]'s entry */
static const pk_opt *last;                 /* the entry pk_opt_next gave last */
static char shortopts[3 * MAX_OPTS + 3];

static int val_of(const pk_opt *o)
{
	return o->val ? o->val : o->key;
}

static void build(const pk_optspec *s)
{
	size_t nl = 0, ns = 0;
	if (s->stop_at_arg)
		shortopts[ns++] = '+';
	shortopts[ns++] = ':'; /* a missing value is ':', not '?' */
	for (const pk_opt *o = s->opts; (o->name || o->key) && nl < MAX_OPTS; o++) {
		if (o->name) {
			long_of[nl] = o;
			longopts[nl++] = (struct option){o->name, o->has_arg, NULL, val_of(o)};
		}
		if (o->key) {
			shortopts[ns++] = (char)o->key;
			for (int i = 0; i < o->has_arg; i++)
				shortopts[ns++] = ':';
		}
	}
	longopts[nl] = (struct option){NULL, 0, NULL, 0};
	shortopts[ns] = '\0';
	built = s;
}

void pk_opt_begin(const pk_optspec *s)
{
	if (built != s)
		build(s);
	optind = 1;
	opterr = 0;
}

const char *pk_cli_clip(const char *s, char buf[PK_CLIP_LEN])
{
	size_t n = strlen(s);
	if (n < 64)
		return s;
	snprintf(buf, PK_CLIP_LEN, "%.48s... (%zu characters)", s, n);
	return buf;
}

/* The entry of a short letter. */
static const pk_opt *short_entry(const pk_optspec *s, int key)
{
	for (const pk_opt *o = s->opts; o->name || o->key; o++)
		if (o->key == key)
			return o;
	return NULL;
}

static void say_entry(const pk_opt *o, char *buf, size_t len)
{
	if (o->key && o->name)
		snprintf(buf, len, "'-%c' (--%s)", o->key, o->name);
	else if (o->key)
		snprintf(buf, len, "'-%c'", o->key);
	else
		snprintf(buf, len, "'--%s'", o->name);
}

/* An unknown --word: the long names it abbreviates (ambiguous), else the
 * names near it, as a list in buf; how many. */
static int near_names(const pk_optspec *s, const char *word, size_t wlen, bool *prefix,
		      char *buf, size_t len)
{
	int n = 0;
	size_t used = 0;
	buf[0] = '\0';
	for (int pass = 0; pass < 2 && !n; pass++) {
		*prefix = pass == 0;
		for (const pk_opt *o = s->opts; o->name || o->key; o++) {
			if (!o->name)
				continue;
			bool hit = pass == 0 ? wlen && !strncmp(o->name, word, wlen)
					     : pk_similar(word, o->name);
			if (hit && used < len)
				used += (size_t)snprintf(buf + used, len - used, "%s--%s",
							 n++ ? ", " : "", o->name);
		}
	}
	return n;
}

/* The long option a word names: exactly, or as its only abbreviation. */
static const pk_opt *long_entry(const pk_optspec *s, const char *word, size_t wlen)
{
	const pk_opt *hit = NULL;
	for (const pk_opt *o = s->opts; o->name || o->key; o++) {
		if (!o->name || strncmp(o->name, word, wlen))
			continue;
		if (!o->name[wlen])
			return o;
		if (hit && val_of(hit) != val_of(o))
			return NULL;
		hit = o;
	}
	return hit;
}

static void long_error(const pk_optspec *s, const char *arg, int c)
{
	char word[64], clip[PK_CLIP_LEN], names[512];
	const char *eq = strchr(arg + 2, '=');
	size_t wlen = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	snprintf(word, sizeof(word), "%.*s", (int)(wlen < 63 ? wlen : 63), arg + 2);
	const pk_opt *o = wlen < 63 ? long_entry(s, word, wlen) : NULL;
	bool prefix;
	if (c == ':' && o)
		pk_cli_usage_error(s->cmd, "option '--%s' needs a value%s%s", o->name,
				   o->arg ? ": " : "", o->arg ? o->arg : "");
	else if (o && o->has_arg == no_argument && eq)
		pk_cli_usage_error(s->cmd, "option '--%s' takes no value", o->name);
	else if (near_names(s, word, wlen, &prefix, names, sizeof(names)) > 1 && prefix)
		pk_cli_usage_error(s->cmd, "ambiguous option '--%s': %s", word, names);
	else if (names[0] && !prefix)
		pk_cli_usage_error(s->cmd, "unknown option '%s'; did you mean %s?",
				   pk_cli_clip(arg, clip), names);
	else
		pk_cli_usage_error(s->cmd, "unknown option '%s'", pk_cli_clip(arg, clip));
}

int pk_opt_next(const pk_optspec *s, int argc, char **argv)
{
	int prev = optind, li = -1;
	int c = getopt_long(argc, argv, shortopts, longopts, &li);
	if (c != '?' && c != ':') {
		const pk_opt *o = li < 0 && c > 0 ? short_entry(s, c) : NULL;
		last = li >= 0 ? long_of[li] : o;
		return o ? val_of(o) : c; /* a short option: its entry's val */
	}
	/* the word getopt stopped on: an error at a word's end moved optind past it */
	const char *arg = optind > prev ? argv[optind - 1] : argv[prev];
	if (arg && !strncmp(arg, "--", 2) && arg[2]) {
		long_error(s, arg, c);
		return PK_OPT_ERROR;
	}
	char what[96];
	const pk_opt *o = short_entry(s, optopt);
	if (c == ':' && o) {
		say_entry(o, what, sizeof(what));
		pk_cli_usage_error(s->cmd, "option %s needs a value%s%s", what, o->arg ? ": " : "",
				   o->arg ? o->arg : "");
	} else if (optopt > ' ' && optopt < 127) {
		pk_cli_usage_error(s->cmd, "unknown option '-%c'", optopt);
	} else {
		char clip[PK_CLIP_LEN];
		pk_cli_usage_error(s->cmd, "unknown option '%s'", arg ? pk_cli_clip(arg, clip) : "?");
	}
	return PK_OPT_ERROR;
}

/* One entry's left column: "  -i, --input FILE". */
static int entry_left(const pk_opt *o, char *buf, size_t len)
{
	const char *a = o->arg ? o->arg : "VALUE";
	int n;
	if (o->name && o->key)
		n = snprintf(buf, len, "  -%c, --%s", o->key, o->name);
	else if (o->name)
		n = snprintf(buf, len, "      --%s", o->name);
	else
		n = snprintf(buf, len, "  -%c", o->key);
	if (o->has_arg == required_argument)
		n += snprintf(buf + n, len - (size_t)n, " %s", a);
	else if (o->has_arg == optional_argument)
		n += snprintf(buf + n, len - (size_t)n, o->name ? "[=%s]" : "[%s]", a);
	return n;
}

void pk_opt_help(const pk_optspec *s, FILE *out)
{
	enum { COL = 26 };
	fputs(s->synopsis, out);
	fputc('\n', out);
	for (const pk_opt *o = s->opts; o->name || o->key; o++) {
		char left[160];
		int n = entry_left(o, left, sizeof(left));
		fputs(left, out);
		if (n >= COL) {
			fputc('\n', out);
			n = 0;
		}
		const char *h = o->help ? o->help : "";
		for (bool first = true; first || *h; first = false) {
			const char *nl = strchr(h, '\n');
			int w = nl ? (int)(nl - h) : (int)strlen(h);
			fprintf(out, "%*s%.*s\n", first ? COL - n : COL, "", w, h);
			h += w + (nl != NULL);
		}
	}
	if (s->notes) {
		fputc('\n', out);
		fputs(s->notes, out);
	}
}

const char *pk_opt_last_name(void)
{
	static char buf[72];
	if (!last)
		return "?";
	if (last->name)
		snprintf(buf, sizeof(buf), "--%s", last->name);
	else
		snprintf(buf, sizeof(buf), "-%c", last->key);
	return buf;
}

void pk_opt_list(const pk_optspec *s, FILE *out)
{
	int n = 0;
	for (const pk_opt *o = s->opts; o->name || o->key; o++)
		if (o->name)
			fprintf(out, "%s--%s", n++ ? " " : "", o->name);
	fputc('\n', out);
}
