/* Man pages from the option tables: `pmukit help --man [CMD]` writes the
 * page of CMD (pmukit-CMD(1)) or of pmukit itself (pmukit(1)) in troff's
 * man macros, from the same pk_optspec that `pmukit help CMD` prints, so a
 * page never lists an option the command lacks nor misses one it has. The
 * build makes one page per command with this (tools/pmukit/meson.build) and
 * installs them in man1.
 *
 * The synopsis text of an optspec is its usage lines (up to the first blank
 * line: SYNOPSIS), then the description (DESCRIPTION): paragraphs of text,
 * and indented lines kept as they are (tables such as list's filters). Each
 * option is a .TP entry: its names and value, then its help lines.
 *
 * Invariant: every text from the tables goes out through put_text, which
 * makes it inert for troff (a backslash as \e, '-' as \-, a line's leading
 * '.' or '\'' behind \&), so no table text can be read as a request. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"

/* n bytes of s, escaped for troff, at the start of an output line. */
static void put_text(FILE *out, const char *s, size_t n)
{
	if (n && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", out);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", out);
		else if (s[i] == '-')
			fputs("\\-", out);
		else
			fputc(s[i], out);
	}
}

static void put_line(FILE *out, const char *s, size_t n)
{
	put_text(out, s, n);
	fputc('\n', out);
}

/* The upper-case title: "PMUKIT-REPORT". */
static void put_title(FILE *out, const char *cmd)
{
	fputs(".TH PMUKIT", out);
	if (cmd) {
		fputs("\\-", out);
		for (const char *c = cmd; *c; c++)
			fputc(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c, out);
	}
	fprintf(out, " 1 \"\" \"pmukit %s\" \"pmukit Manual\"\n", PMUKIT_VERSION);
}

/* The usage lines (without "usage: "), each on its own line; returns the
 * text after the blank line that ends them. */
static const char *put_synopsis(FILE *out, const char *t)
{
	fputs(".SH SYNOPSIS\n.nf\n", out);
	while (*t && *t != '\n') {
		const char *nl = strchr(t, '\n');
		size_t n = nl ? (size_t)(nl - t) : strlen(t);
		const char *s = t;
		if (!strncmp(s, "usage: ", 7))
			s += 7;
		else
			while (s < t + n && s - t < 7 && *s == ' ')
				s++; /* the continuation lines' alignment under "usage: " */
		put_line(out, s, n - (size_t)(s - t));
		t += n + (nl != NULL);
	}
	fputs(".fi\n", out);
	return *t == '\n' ? t + 1 : t;
}

/* Paragraphs: a blank line starts one; indented lines are kept as typed. */
static void put_paragraphs(FILE *out, const char *t)
{
	bool fill = true;
	while (*t) {
		const char *nl = strchr(t, '\n');
		size_t n = nl ? (size_t)(nl - t) : strlen(t);
		bool indented = n && t[0] == ' ';
		if (!n) {
			if (!fill)
				fputs(".fi\n", out);
			fill = true;
			fputs(".PP\n", out);
		} else {
			if (indented == fill) {
				fputs(indented ? ".nf\n" : ".fi\n", out);
				fill = !indented;
			}
			put_line(out, t, n);
		}
		t += n + (nl != NULL);
	}
	if (!fill)
		fputs(".fi\n", out);
}

static void put_option(FILE *out, const pk_opt *o)
{
	fputs(".TP\n", out);
	if (o->key)
		fprintf(out, "\\fB\\-%c\\fR%s", o->key, o->name ? ", " : "");
	if (o->name) {
		fputs("\\fB\\-\\-", out);
		put_text(out, o->name, strlen(o->name));
		fputs("\\fR", out);
	}
	if (o->has_arg != no_argument) {
		const char *a = o->arg ? o->arg : "VALUE";
		bool opt = o->has_arg == optional_argument;
		fputs(opt ? (o->name ? "[=" : "[") : " ", out);
		fputs("\\fI", out);
		put_text(out, a, strlen(a));
		fputs(opt ? "\\fR]" : "\\fR", out);
	}
	fputc('\n', out);
	const char *h = o->help && *o->help ? o->help : "(no description)";
	while (*h) { /* the help's lines joined into one filled paragraph */
		const char *nl = strchr(h, '\n');
		size_t n = nl ? (size_t)(nl - h) : strlen(h);
		put_line(out, h, n);
		h += n + (nl != NULL);
	}
}

void pk_man_command(const struct pk_cmd *c, FILE *out)
{
	const pk_optspec *s = c->opts;
	put_title(out, c->name);
	fprintf(out, ".SH NAME\npmukit\\-%s \\- ", c->name);
	put_line(out, c->summary, strlen(c->summary));
	const char *desc = put_synopsis(out, s->synopsis);
	fputs(".SH DESCRIPTION\n", out);
	put_paragraphs(out, desc);
	fputs(".SH OPTIONS\n", out);
	for (const pk_opt *o = s->opts; o->name || o->key; o++)
		put_option(out, o);
	if (s->notes) {
		fputs(".SH NOTES\n", out);
		put_paragraphs(out, s->notes);
	}
	fprintf(out, ".SH SEE ALSO\n\\fBpmukit\\fR(1), \\fBperf\\-%s\\fR(1)\n", c->name);
}

void pk_man_overview(const struct pk_cmd *cmds, size_t n, FILE *out)
{
	put_title(out, NULL);
	fputs(".SH NAME\npmukit \\- CPU performance monitoring: counting, sampling, TopDown\n"
	      ".SH SYNOPSIS\n.nf\npmukit [\\-\\-version] [\\-\\-help] \\fIcommand\\fR [\\fIargs\\fR]\n.fi\n"
	      ".SH DESCRIPTION\npmukit is a member of the perf family: its commands, options, event\n"
	      "syntax and perf.data files are perf's, so perf's habits and scripts carry\n"
	      "over. Each command has its page, pmukit\\-\\fIcommand\\fR(1), and its\n"
	      "options with \\fBpmukit help\\fR \\fIcommand\\fR.\n.SH COMMANDS\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, ".TP\n\\fBpmukit\\-%s\\fR(1)\n", cmds[i].name);
		put_line(out, cmds[i].summary, strlen(cmds[i].summary));
	}
	fputs(".SH SEE ALSO\n\\fBperf\\fR(1)\n", out);
}
