/* pmukit CLI: `pmukit script [options] report NAME [script options]`, the
 * two perf 6.1 report scripts pmukit runs natively, flamegraph and
 * stackcollapse (their options and output as perf's flamegraph.py and
 * stackcollapse.py). The engine is lib/session's pk_flame; this file parses
 * the script's options, runs the session and writes the text (the HTML
 * page: flame_html.c). Any other name gets perf's words and status. */
#include "script_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <pmukit/flame.h>

#include "builtin.h"
#include "flame_html.h"
#include "pd_header.h"
#include "session_cli.h"

void script_report_list(FILE *f)
{
	fprintf(f, "List of available trace scripts:\n");
	fprintf(f, "  %-36s %s\n", "flamegraph", "create flame graphs");
	fprintf(f, "  %-36s %s\n", "stackcollapse",
		"produce callgraphs in short form for scripting use");
}

typedef struct report_opts {
	unsigned fold;               /* PK_FOLD_* */
	bool html;                   /* flamegraph -f */
	const char *output;          /* flamegraph -o; NULL: the default */
	const char *input;           /* -i after the name; NULL: script's */
	int max_stack;               /* --max-stack after the name; -1: script's */
} report_opts;

static const struct {
	const char *name;
	unsigned flag;
} fold_opts[] = {
	{"--include-tid", PK_FOLD_TID}, {"--include-pid", PK_FOLD_PID},
	{"--no-comm", PK_FOLD_NO_COMM}, {"--tidy-java", PK_FOLD_TIDY_JAVA},
	{"--kernel", PK_FOLD_KERNEL},
};

/* The value of option argv[*i] ("-o X", "--output X", "--output=X"), or
 * NULL when it is not that option. */
static const char *opt_value(int argc, char **argv, int *i, const char *s, const char *l,
			     bool *missing)
{
	const char *a = argv[*i];
	size_t ll = strlen(l);
	if (!strncmp(a, l, ll) && a[ll] == '=')
		return a + ll + 1;
	if (strcmp(a, l) && (!s || strcmp(a, s)))
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

/* stackcollapse's options (perf's: script options, then "--" and the
 * script's; here in any order, -i and --max-stack among them): 0 or 129
 * after the error. */
static int parse_fold(int argc, char **argv, report_opts *o)
{
	for (int i = 0; i < argc; i++) {
		bool miss = false;
		const char *v = opt_value(argc, argv, &i, "-i", "--input", &miss);
		if (v || !strcmp(argv[i], "--")) {
			o->input = v ? v : o->input;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, NULL, "--max-stack", &miss))) {
			uint64_t n;
			if (pk_cli_parse_u64("script", "--max-stack", v, 0, PK_MAX_STACK, &n))
				return 129;
			o->max_stack = (int)n;
			continue;
		}
		size_t k = 0;
		while (k < sizeof(fold_opts) / sizeof(fold_opts[0]) && strcmp(argv[i], fold_opts[k].name))
			k++;
		if (k == sizeof(fold_opts) / sizeof(fold_opts[0])) {
			fprintf(stderr, "pmukit script report stackcollapse: error: %s: %s\n",
				argv[i][0] == '-' ? "no such option" : "unexpected command line argument",
				argv[i]);
			return 129;
		}
		o->fold |= fold_opts[k].flag;
	}
	if ((o->fold & PK_FOLD_NO_COMM) && (o->fold & (PK_FOLD_TID | PK_FOLD_PID))) {
		fprintf(stderr, "pmukit script report stackcollapse: error: requesting %s but not "
				"comm is invalid\n", o->fold & PK_FOLD_TID ? "tid" : "pid");
		return 129;
	}
	return 0;
}

/* flamegraph's options: 0 or 129 after the error. */
static int parse_flame(int argc, char **argv, report_opts *o)
{
	o->html = true;
	for (int i = 0; i < argc; i++) {
		bool miss = false;
		const char *v;
		if ((v = opt_value(argc, argv, &i, "-f", "--format", &miss))) {
			if (strcmp(v, "json") && strcmp(v, "html")) {
				fprintf(stderr, "pmukit script report flamegraph: error: argument "
						"-f/--format: invalid choice: '%s' (choose from "
						"'json', 'html')\n", v);
				return 129;
			}
			o->html = !strcmp(v, "html");
		} else if ((v = opt_value(argc, argv, &i, "-o", "--output", &miss))) {
			o->output = v;
		} else if ((v = opt_value(argc, argv, &i, "-i", "--input", &miss))) {
			o->input = v;
		} else if (opt_value(argc, argv, &i, NULL, "--colorscheme", &miss) ||
			   opt_value(argc, argv, &i, NULL, "--template", &miss)) {
			/* the page is pmukit's own: no template, one colour scheme */
		} else if (strcmp(argv[i], "--")) {
			fprintf(stderr, "pmukit script report flamegraph: error: %s: %s\n",
				miss ? "expected one argument" : "unrecognized arguments", argv[i]);
			return 129;
		}
	}
	return 0;
}

/* The report header's text (report --header-only's), malloc'd; NULL for a
 * pipe (perf has none then either) or when out of memory. */
static char *header_text(pk_session *s)
{
	pk_pd_reader *r = pk_session_reader(s);
	if (pk_pd_is_pipe(r))
		return NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return NULL;
	pd_header_print(r, pk_session_input(s), m);
	fclose(m);
	return text;
}

/* The text into o->output or the default file (perf's "dumping data to"
 * line), "-": stdout. 0 or 1 after the error. */
static int write_out(const report_opts *o, pk_session *s, const char *text, size_t len)
{
	const char *path = o->output ? o->output : o->html ? "flamegraph.html" : "stacks.json";
	FILE *f = stdout;
	if (strcmp(path, "-")) {
		printf("dumping data to %s\n", path);
		fflush(stdout);
		if (!(f = fopen(path, "w"))) {
			fprintf(stderr, "Error writing output file: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	if (o->html) {
		char *header = header_text(s);
		flame_html_write(f, text, len, header);
		free(header);
	} else {
		fwrite(text, 1, len, f);
	}
	if (f == stdout ? fflush(f) : fclose(f)) {
		fprintf(stderr, "Error writing output file: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static int on_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	return pk_flame_sample(arg, s, ev, smp) ? 1 : 0;
}

/* The samples read, then the chosen text written. */
static int run_report(const script_report_in *in, bool flame, const report_opts *o)
{
	pk_session *s = NULL;
	int rc = pd_session_open(&s, "script", o->input ? o->input : in->input, false, in->force,
				 false);
	if (rc)
		return rc;
	pk_flame *f = pk_flame_new(o->max_stack >= 0 ? o->max_stack : in->max_stack);
	rc = 1;
	if (!f)
		fprintf(stderr, "pmukit script: out of memory\n");
	else if (in->mopts && pd_session_machine(s, in->mopts))
		;
	else
		rc = pd_session_finish(s, pd_session_run(s, on_sample, f));
	char *text = NULL;
	size_t len = 0;
	if (!rc) {
		int e = flame ? pk_flame_json(f, &text, &len) : pk_flame_folded(f, o->fold, &text, &len);
		if (e) {
			fprintf(stderr, "pmukit script: out of memory\n");
			rc = 1;
		} else if (flame) {
			rc = write_out(o, s, text, len);
		} else {
			fwrite(text, 1, len, stdout);
		}
	}
	free(text);
	pk_flame_free(f);
	pk_session_close(s);
	return rc;
}

int script_report(int argc, char **argv, const script_report_in *in)
{
	report_opts o = {.max_stack = -1};
	bool flame = argc > 0 && !strcmp(argv[0], "flamegraph");
	if (!flame && (argc < 1 || strcmp(argv[0], "stackcollapse"))) {
		fprintf(stderr, "Please specify a valid report script(see 'perf script -l' for "
				"listing)\n");
		return 255;
	}
	int rc = flame ? parse_flame(argc - 1, argv + 1, &o) : parse_fold(argc - 1, argv + 1, &o);
	return rc ? rc : run_report(in, flame, &o);
}
