/* pmukit diff: perf diff 6.1's table of two perf.data files or more (the
 * baseline first; perf.data.old and perf.data by default). Each file is
 * read into report's histogram (lib/hist) with diff's keys (dso,sym) and
 * no chains; the pairing, the values and the order are the library's
 * (pk_diff, <pmukit/diff.h>); this file parses the options and prints the
 * columns as perf does: Baseline, then per file its value (Delta, Delta
 * Abs, Ratio, Weighted diff), -F's Formula, -p's periods, then the keys.
 * Invariant: the sessions and histograms outlive the pk_diff. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/diff.h>

#include "builtin.h"
#include "report_print.h"
#include "session_cli.h"

enum { O_PERCENTAGE = 256, O_STDIO };

static const pk_opt diff_opts_table[] = {
	{"baseline-only", 'b', 0, no_argument, NULL, "show only items with a match in baseline"},
	{"compute", 'c', 0, required_argument, "delta|delta-abs|ratio|wdiff:W1,W2",
	 "the value of each file against the baseline\n(default delta-abs)"},
	{"sort", 's', 0, required_argument, "KEYS", "sort by keys (report's; default dso,sym)"},
	{"period", 'p', 0, no_argument, NULL, "show the periods (Base period, Period)"},
	{"formula", 'F', 0, no_argument, NULL, "show the formula of each value"},
	{"order", 'o', 0, required_argument, "N", "sort by file N's values first (default 1)"},
	{"percentage", 0, O_PERCENTAGE, required_argument, "relative|absolute",
	 "of all samples, or of those shown"},
	{"quiet", 'q', 0, no_argument, NULL, "the rows only"},
	{"force", 'f', 0, no_argument, NULL, "read files another user owns"},
	{"stdio", 0, O_STDIO, no_argument, NULL, "text output (the only one there is)"},
	{0},
};

const pk_optspec diff_optspec = {
	.cmd = "diff",
	.synopsis = "usage: pmukit diff [OPTIONS] [old_file] [new_file ...]\n"
		    "\n"
		    "Compares perf.data files (default perf.data.old and perf.data) as perf diff does.\n",
	.opts = diff_opts_table,
};

typedef struct diff_args {
	pk_diff_opts d;
	const char *sort;
	bool period, formula, quiet, relative, force;
} diff_args;

static int diff_opt(diff_args *a, int c)
{
	pk_error err;
	pk_error_clear(&err);
	uint64_t v;
	switch (c) {
	case 'b': a->d.baseline_only = true; break;
	case 'c':
		if (pk_diff_opts_compute(&a->d, optarg, &err)) {
			fprintf(stderr, "Failed: %s\n", err.msg);
			return 129;
		}
		break;
	case 's': a->sort = optarg; break;
	case 'p': a->period = true; break;
	case 'F': a->formula = true; break;
	case 'o':
		if (pk_cli_parse_u64("diff", "--order", optarg, 0, 1000, &v))
			return 129;
		a->d.order = (unsigned)v;
		break;
	case O_PERCENTAGE:
		if (strcmp(optarg, "absolute") && strcmp(optarg, "relative"))
			return pk_cli_usage_error("diff", "--percentage takes absolute or relative");
		a->relative = optarg[0] == 'r';
		break;
	case 'q': a->quiet = true; break;
	case 'f': a->force = true; break;
	case O_STDIO: break;
	default: return 129;
	}
	return 0;
}

/* One file read into its histogram; 0, or the exit status after the error. */
typedef struct diff_file {
	const char *path;
	pk_session *s;
	pk_hist *h;
	pk_pd_header hdr;
} diff_file;

static int file_read(diff_file *f, const diff_args *a)
{
	pk_error err;
	pk_error_clear(&err);
	if (!(f->h = pk_hist_new()))
		return 1;
	pk_hist_opts *o = pk_hist_options(f->h);
	if (pk_hist_opts_sort(o, a->sort ? a->sort : "dso,sym", &err)) {
		fprintf(stderr, "Error:\nUnknown --sort key: `%s'\n", err.where);
		return 129;
	}
	o->sort_ipc_null = false; /* perf report's column, not diff's */
	pk_hist_opts_callgraph(o, "none");
	o->children = false;
	o->children_set = o->cg_set = o->group_set = true;
	o->group = false;
	o->branch = 0;
	o->relative = a->relative;
	int rc = pd_session_open(&f->s, "diff", f->path, false, a->force, false);
	if (rc)
		return rc;
	pk_session_itrace_default(f->s, PK_ITRACE_REPORT);
	pk_pd_header_read(pk_session_reader(f->s), &f->hdr, &err);
	pk_error_clear(&err);
	if (pk_hist_settle(f->h, f->s, &f->hdr, &err)) {
		fprintf(stderr, "Error:\nInvalid --sort key: `%s'\n", err.where);
		return 129;
	}
	if (pk_hist_setup(f->h, f->s, &f->hdr) < 0) {
		fprintf(stderr, "pmukit diff: out of memory\n");
		return 1;
	}
	return pd_session_finish(f->s, pd_session_run(f->s, pk_hist_sample, f->h));
}

/* ---- the columns ---- */

enum col_kind { C_BASELINE, C_VALUE, C_FORMULA, C_PERIOD, C_BASE_PERIOD };

typedef struct diff_col {
	enum col_kind kind;
	size_t file;
	int width;
	char title[64];
} diff_col;

/* perf's columns: per file its value (the baseline's share), -F's formula,
 * -p's period; a title with "/N" past two files, as wide as the greater
 * of it and perf's width. */
static size_t cols_make(const diff_args *a, size_t nf, diff_col *c)
{
	static const char *const values[] = {"Delta", "Delta Abs", "Ratio", "Weighted diff"};
	static const int value_w[] = {7, 7, 14, 14};
	size_t n = 0;
	for (size_t f = 0; f < nf; f++) {
		enum col_kind kinds[3] = {f ? C_VALUE : C_BASELINE, C_FORMULA, f ? C_PERIOD : C_BASE_PERIOD};
		bool on[3] = {true, a->formula && f, a->period};
		for (int i = 0; i < 3; i++) {
			if (!on[i])
				continue;
			const char *name = kinds[i] == C_BASELINE ? "Baseline"
					   : kinds[i] == C_VALUE  ? values[a->d.compute]
					   : kinds[i] == C_FORMULA ? "Formula"
					   : kinds[i] == C_PERIOD  ? "Period"
								   : "Base period";
			int w = kinds[i] == C_BASELINE ? 0 : kinds[i] == C_VALUE ? value_w[a->d.compute]
							     : kinds[i] == C_FORMULA ? 70 : 14;
			diff_col *col = &c[n++];
			col->kind = kinds[i];
			col->file = f;
			if (nf > 2)
				snprintf(col->title, sizeof(col->title), "%s/%zu", name, f);
			else
				snprintf(col->title, sizeof(col->title), "%s", name);
			col->width = (int)strlen(col->title) > w ? (int)strlen(col->title) : w;
		}
	}
	return n;
}

/* perf's formula of a pair (cut to 69 characters). */
static void formula(const diff_args *a, const pk_diff_row *r, const pk_diff_cell *c,
		    uint64_t base_total, char *b, size_t n)
{
	switch (a->d.compute) {
	case PK_DIFF_DELTA:
	case PK_DIFF_DELTA_ABS:
		snprintf(b, n, "(%" PRIu64 " * 100 / %" PRIu64 ") - (%" PRIu64 " * 100 / %" PRIu64 ")",
			 c->period, c->total, r->period, base_total);
		break;
	case PK_DIFF_RATIO:
		snprintf(b, n, "%.0F / %.0F", (double)c->period, (double)r->period);
		break;
	case PK_DIFF_WDIFF:
		snprintf(b, n, "(%" PRIu64 " * %" PRId64 ") - (%" PRIu64 " * %" PRId64 ")", c->period,
			 a->d.w2, r->period, a->d.w1);
		break;
	}
}

/* A cell's text as perf makes it (" " when it has none): the values as
 * perf's colour printers make them (used with or without colours). */
static void cell_text(const diff_args *a, const diff_col *col, const pk_diff_row *r,
		      uint64_t base_total, char b[70])
{
	const pk_diff_cell *c = &r->cell[col->file];
	strcpy(b, " ");
	if (col->kind == C_BASELINE) {
		if (!r->dummy)
			snprintf(b, 70, "%.2f%%", 100.0 * (double)r->period / (double)base_total);
	} else if (col->kind == C_BASE_PERIOD) {
		snprintf(b, 70, "%" PRIu64, r->period);
	} else if (!c->paired) {
		;
	} else if (col->kind == C_PERIOD) {
		snprintf(b, 70, "%" PRIu64, c->period);
	} else if (col->kind == C_FORMULA) {
		formula(a, r, c, base_total, b, 70);
	} else if (a->d.compute == PK_DIFF_DELTA || a->d.compute == PK_DIFF_DELTA_ABS) {
		snprintf(b, 70, "%+*.2f%%", col->width - 1, c->delta);
	} else if (r->dummy) {
		strcpy(b, "N/A");
	} else if (a->d.compute == PK_DIFF_RATIO) {
		snprintf(b, 70, "%*.6f", col->width, c->ratio);
	} else {
		/* perf's "%14ld" whatever the column's width, padded after */
		snprintf(b, 70, "%-*s", col->width, "");
		char v[32];
		int l = snprintf(v, sizeof(v), "%14" PRId64, c->wdiff);
		memcpy(b, v, (size_t)l < 69 ? (size_t)l : 69);
		if (l > col->width)
			b[l < 69 ? l : 69] = '\0';
	}
}

static void print_heads(const pk_hist *h, const diff_col *c, size_t nc, const int *w)
{
	const pk_hist_opts *o = pk_hist_config(h);
	for (int dots = 0; dots < 2; dots++) {
		printf("#");
		for (size_t i = 0; i < nc; i++) {
			printf(i ? "  " : " ");
			if (dots)
				printf("%.*s", c[i].width, "................................................"
							   "..........................");
			else
				printf("%*s", c[i].width, c[i].title);
		}
		for (int k = 0; k < o->nr_keys; k++) {
			printf("  ");
			if (dots)
				for (int j = 0; j < w[k]; j++)
					putchar('.');
			else
				printf(o->keys[k]->right ? "%*s" : "%-*s", w[k], o->keys[k]->title);
		}
		printf("\n");
	}
	printf("#\n");
}

static void print_event(const diff_args *a, const pk_diff *d, size_t ev, const diff_file *f,
			size_t nf, const diff_col *c, size_t nc)
{
	int w[PK_HIST_MAX_KEYS];
	pk_diff_widths(d, ev, w);
	if (!a->quiet) {
		printf("%s# Event '%s'\n#\n", ev ? "\n" : "",
		       pk_pd_evsel_name(pk_session_evsel_at(f[0].s, ev)));
		if (nf > 2) {
			printf("# Data files:\n");
			for (size_t i = 0; i < nf; i++)
				printf("#  [%zu] %s %s\n", i, f[i].path, i ? "" : "(Baseline)");
			printf("#\n");
		}
		print_heads(f[0].h, c, nc, w);
	}
	size_t n;
	const pk_diff_row *rows = pk_diff_rows(d, ev, &n);
	uint64_t total = pk_diff_base_total(d, ev);
	for (size_t r = 0; r < n; r++) {
		for (size_t i = 0; i < nc; i++) {
			char t[70];
			cell_text(a, &c[i], &rows[r], total, t);
			printf("  %*s", c[i].width, t);
		}
		report_key_cols(rows[r].hist, rows[r].entry, w);
		printf("\n");
	}
}

static int diff_run(const diff_args *a, diff_file *f, size_t nf)
{
	for (size_t i = 0; i < nf; i++) {
		int rc = file_read(&f[i], a);
		if (rc)
			return rc;
	}
	pk_hist **h = malloc(nf * sizeof(*h));
	diff_col *c = malloc(nf * 3 * sizeof(*c));
	pk_diff *d = NULL;
	pk_error err;
	pk_error_clear(&err);
	int rc = h && c ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < nf; i++)
		h[i] = f[i].h;
	if (!rc)
		rc = pk_diff_new(h, nf, &a->d, &d, &err);
	if (rc) {
		pk_cli_print_error("diff", &err);
	} else {
		size_t nc = cols_make(a, nf, c);
		for (size_t ev = 0; ev < pk_diff_nr_events(d); ev++)
			print_event(a, d, ev, f, nf, c, nc);
	}
	pk_diff_free(d);
	free(h);
	free(c);
	return rc ? 1 : 0;
}

int cmd_diff(int argc, char **argv)
{
	diff_args a = {.d = PK_DIFF_OPTS_INIT};
	int c, status = 0;
	pk_opt_begin(&diff_optspec);
	while (!status && (c = pk_opt_next(&diff_optspec, argc, argv)) != -1)
		status = diff_opt(&a, c);
	if (status)
		return status;
	static char *defaults[] = {"perf.data.old", "perf.data"};
	int nargs = argc - optind;
	size_t nf = nargs > 1 ? (size_t)nargs : 2;
	diff_file *f = calloc(nf, sizeof(*f));
	if (!f)
		return 1;
	for (size_t i = 0; i < nf; i++)
		f[i].path = nargs > 1 ? argv[optind + (int)i] : i == 1 && nargs == 1 ? argv[optind] : defaults[i];
	if (a.d.order >= nf) {
		fprintf(stderr, "Order option out of limit.\n");
		status = 255;
	} else {
		status = diff_run(&a, f, nf);
	}
	for (size_t i = 0; i < nf; i++) {
		if (f[i].h)
			pk_hist_opts_release(pk_hist_options(f[i].h));
		pk_hist_free(f[i].h);
		pk_pd_header_release(&f[i].hdr);
		pk_session_close(f[i].s);
	}
	free(f);
	return status;
}
