/* The CLI's option tables: one table per subcommand says every option it
 * accepts once (long name, short letter, value, help text), and the parser
 * (getopt_long's long options and short string), `pmukit help CMD` and the
 * shell completion (`pmukit CMD --list-opts`, pmukit-completion.bash) are all
 * made from it, so an accepted option cannot be missing from the help.
 *
 * Errors are said here, naming the option: a missing value ("option
 * '-s' (--sort) needs a value: KEYS"), an unknown option with the nearest
 * names ("did you mean --sort?"), an ambiguous abbreviation with its
 * candidates, a value given to an option that takes none. Values echoed in
 * messages are clipped (pk_cli_clip), never printed whole. */
#ifndef PMUKIT_CLI_OPTS_H
#define PMUKIT_CLI_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

typedef struct pk_opt {
	const char *name;  /* --name; NULL: short only */
	int key;           /* -k: the short letter; 0: long only */
	int val;           /* what pk_opt_next returns; 0: key */
	int has_arg;       /* no_argument, required_argument, optional_argument */
	const char *arg;   /* the value's name in help ("FILE") */
	const char *help;  /* help text; '\n' starts a further line */
} pk_opt;

typedef struct pk_optspec {
	const char *cmd;      /* "report" */
	const char *synopsis; /* the usage lines and description, before the options */
	const pk_opt *opts;   /* ends with an entry without name and key */
	const char *notes;    /* after the options, or NULL */
	bool stop_at_arg;     /* options end at the first argument (the command's) */
} pk_optspec;

/* pk_opt_next's answer for a bad option, already said: exit with 129 (perf's). */
#define PK_OPT_ERROR (-2)

/* Starts a parse of argv (optind back to 1, getopt's own messages off). */
void pk_opt_begin(const pk_optspec *s);
/* The next option's val (optarg holds its value), -1 after the last, or
 * PK_OPT_ERROR after saying what is wrong on stderr. */
int pk_opt_next(const pk_optspec *s, int argc, char **argv);
/* The option pk_opt_next gave last, by its long name ("--name", else
 * "-k"), whichever way it was written: for messages. */
const char *pk_opt_last_name(void);
/* `pmukit help CMD`: synopsis, one entry per option, notes. */
void pk_opt_help(const pk_optspec *s, FILE *out);
/* `pmukit CMD --list-opts` (perf's, for bash completion): every long
 * option as --name, space separated, on one line. */
void pk_opt_list(const pk_optspec *s, FILE *out);
/* A value for a message: s itself when short, else its start, "...", and
 * its length, in buf. */
#define PK_CLIP_LEN 96
const char *pk_cli_clip(const char *s, char buf[PK_CLIP_LEN]);

#endif
