/* pmukit evlist: the events of a perf.data file as perf evlist 6.1 lists
 * them: their names (-i, default perf.data), every attr field set (-v, the
 * header's list: pk_attr_fields_perf), the sample period or frequency (-F),
 * or the event groups of the file's GROUP_DESC (-g, alone as perf's); a
 * pipe is read through for its ATTR and FEATURE records. The
 * reading is the library's (pk_pd_reader); this file only prints. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/perf_event.h>
#include <pmukit/events.h>
#include <pmukit/perfdata.h>

#include "builtin.h"
#include "pd_header.h"

enum { O_TRACE_FIELDS = 256 };

static const pk_opt evlist_opts_table[] = {
	{"input", 'i', 0, required_argument, "FILE", "input file (default perf.data)"},
	{"force", 'f', 0, no_argument, NULL, "accepted (perf's: read a file another user owns)"},
	{"freq", 'F', 0, no_argument, NULL, "show the sample frequency or period"},
	{"group", 'g', 0, no_argument, NULL, "show the event groups (alone)"},
	{"verbose", 'v', 0, no_argument, NULL, "show every attr field set"},
	{"trace-fields", 0, O_TRACE_FIELDS, no_argument, NULL,
	 "refused: tracepoint fields not supported"},
	{0},
};

const pk_optspec evlist_optspec = {
	.cmd = "evlist",
	.synopsis = "usage: pmukit evlist [-i FILE] [-F | -v | -g]\n"
		    "\n"
		    "Lists the events of a perf.data file, as perf evlist does.\n",
	.opts = evlist_opts_table,
};

/* The name perf evlist shows: a pipe's events by their attrs (perf names
 * them as their attr records come, before any name the stream gives). */
static const char *evsel_name(const pk_pd_reader *r, const pk_pd_evsel *e)
{
	return pk_pd_is_pipe(r) && e->attr_name[0] ? e->attr_name : pk_pd_evsel_name(e);
}

/* One event's line: its name, then -v's fields or -F's period. */
static void print_evsel(const pk_pd_reader *r, const pk_pd_evsel *e, bool verbose, bool freq)
{
	const struct perf_event_attr *a = &e->attr;
	fputs(evsel_name(r, e), stdout);
	if (verbose) {
		pk_attr_field v[64];
		size_t n = pk_attr_fields_perf(a, v, 64);
		char buf[512];
		const char *sep = ": ";
		for (size_t i = 0; i < n && i < 64; i++) {
			if (!v[i].set)
				continue;
			printf("%s%s: %s", sep, v[i].name, pd_attr_field_str(&v[i], buf, sizeof(buf)));
			sep = ", ";
		}
	} else if (freq) {
		printf(": %s=%llu", a->freq ? "sample_freq" : "sample_period",
		       (unsigned long long)a->sample_period);
	}
	putchar('\n');
}

/* -g: the groups as "{leader,member...}", the events outside one alone. */
static void print_groups(pk_pd_reader *r, const pk_pd_header *h)
{
	size_t n = pk_pd_nr_evsels(r);
	for (size_t i = 0; i < n; i++) {
		const pk_pd_evsel *e = pk_pd_evsel_at(r, i);
		size_t members = 1;
		for (uint32_t g = 0; g < h->nr_groups; g++)
			if (h->groups[g].leader_idx == i && h->groups[g].nr_members > 1)
				members = h->groups[g].nr_members;
		if (members == 1) {
			puts(evsel_name(r, e));
			continue;
		}
		putchar('{');
		for (size_t m = 0; m < members && i + m < n; m++)
			printf("%s%s", m ? "," : "", evsel_name(r, pk_pd_evsel_at(r, i + m)));
		puts("}");
		i += members - 1;
	}
}

/* A pipe's events and features come as records: read through them all. */
static int pipe_attrs(pk_pd_reader *r, pk_error *err)
{
	pk_pd_event ev;
	int rc = 0;
	while (pk_pd_is_pipe(r) && (rc = pk_pd_next(r, &ev, err)) > 0)
		;
	return rc;
}

int cmd_evlist(int argc, char **argv)
{
	const char *in = "perf.data";
	bool verbose = false, freq = false, group = false;
	int c;
	pk_opt_begin(&evlist_optspec);
	while ((c = pk_opt_next(&evlist_optspec, argc, argv)) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'f': break;
		case 'F': freq = true; break;
		case 'g': group = true; break;
		case 'v': verbose = true; break;
		case O_TRACE_FIELDS:
			return pk_cli_usage_error("evlist", "--trace-fields: not supported");
		default: return 129;
		}
	}
	if (optind < argc)
		return pk_cli_usage_error("evlist", "unexpected argument '%s'", argv[optind]);
	if (group && (verbose || freq)) /* perf's words and status */
		return pk_cli_usage_error("evlist", "--group option is not compatible with other options");
	pk_error err;
	pk_error_clear(&err);
	pk_pd_reader *r = NULL;
	pk_pd_header h;
	memset(&h, 0, sizeof(h));
	if (pk_pd_reader_open(in, NULL, &r, &err) < 0 || pipe_attrs(r, &err) < 0 ||
	    pk_pd_header_read(r, &h, &err) < 0) {
		pk_cli_print_error("evlist", &err);
		pk_pd_reader_close(r);
		return 255;
	}
	bool tracepoints = false;
	if (group)
		print_groups(r, &h);
	for (size_t i = 0; i < pk_pd_nr_evsels(r); i++) {
		const pk_pd_evsel *e = pk_pd_evsel_at(r, i);
		tracepoints |= e->attr.type == PERF_TYPE_TRACEPOINT;
		if (!group)
			print_evsel(r, e, verbose, freq);
	}
	if (tracepoints)
		puts("# Tip: use 'perf evlist --trace-fields' to show fields for tracepoint events");
	pk_pd_header_release(&h);
	pk_pd_reader_close(r);
	return 0;
}
