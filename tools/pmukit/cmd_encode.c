/* pmukit encode: shows the perf_event_attrs an event string turns into, in
 * open order, one per distinct attr (not per CPU) -- what perf prints with
 * -vv, and the base of our differential tests against perf. */
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/events.h>
#include <pmukit/pmu.h>

#include "builtin.h"
#include "pd_header.h"

enum { OPT_RECORD = 256, OPT_CPUTYPE, OPT_MODEL };

static const pk_opt encode_opts_table[] = {
	{"event", 'e', 0, required_argument, "EVENTS",
	 "events in perf's syntax (may be given many times)"},
	{"json", 'j', 0, no_argument, NULL, "a JSON array instead of text"},
	{"verbose", 'v', 0, no_argument, NULL, "every attr field, as perf -vv prints them"},
	{"record", 0, OPT_RECORD, no_argument, NULL,
	 "the attrs 'pmukit record' would open (default: stat's)"},
	{"all-cpus", 'a', 0, no_argument, NULL,
	 "system-wide defaults (no inherit, no enable_on_exec)"},
	{"freq", 'F', 0, required_argument, "N", "record: sampling frequency"},
	{"count", 'c', 0, required_argument, "N", "record: sampling period"},
	{"cputype", 0, OPT_CPUTYPE, required_argument, "TYPE",
	 "hybrid: only 'core' or 'atom' (or a core PMU name)"},
	{"model", 0, OPT_MODEL, required_argument, "SCENARIO",
	 "the scenario's modeled machine (PMUs, CPUID)"},
	{0},
};

const pk_optspec encode_optspec = {
	.cmd = "encode",
	.synopsis = "usage: pmukit encode [options] -e EVENTS [-e EVENTS ...]\n"
		    "\n"
		    "Shows the perf_event_attr of every event the string gives, in open order.\n",
	.opts = encode_opts_table,
	.notes = "PMUs come from /sys, or from $PMUKIT_SYSFS (a folder holding\n"
		 "bus/event_source/devices); $PMUKIT_CPUID (or perf's $PERF_CPUID) overrides\n"
		 "the CPU identification.\n",
	.stop_at_arg = true,
};

/* One line per attr: what differs between events at a glance. */
static void print_table(const pk_evlist *evlist)
{
	printf("%-3s %-32s %-10s %5s %-20s %-10s %-8s %-6s %-8s %s\n", "#", "name", "pmu", "type",
	       "config", "config1", "config2", "leader", "cpus", "flags");
	for (size_t i = 0; i < pk_evlist_count(evlist); i++) {
		const pk_evsel *e = pk_evlist_at(evlist, i);
		const struct perf_event_attr *a = pk_evsel_attr(e);
		char cpus[64] = "any", leader[16] = "-", c1[24] = "-", c2[24] = "-", flags[160] = "";
		if (pk_evsel_cpus(e))
			pk_cpumap_format(pk_evsel_cpus(e), cpus, sizeof(cpus));
		if (!pk_evsel_is_leader(e))
			snprintf(leader, sizeof(leader), "#%d", pk_evsel_leader(e));
		if (a->config1)
			snprintf(c1, sizeof(c1), "0x%llx", (unsigned long long)a->config1);
		if (a->config2)
			snprintf(c2, sizeof(c2), "0x%llx", (unsigned long long)a->config2);
		pk_attr_field f[16];
		size_t nf = pk_attr_fields(e, PK_ATTR_VIEW_FLAGS, f, 16), n = 0;
		for (size_t k = 0; k < nf && k < 16; k++)
			if (f[k].set && n < sizeof(flags))
				n += (size_t)snprintf(flags + n, sizeof(flags) - n, "%s%s", n ? "," : "",
						      f[k].name);
		char cfg[24];
		snprintf(cfg, sizeof(cfg), "0x%llx", (unsigned long long)a->config);
		const char *name = pk_evsel_name(e), *pmu = pk_evsel_pmu_name(e);
		printf("%-3zu %-32s %-10s %5u %-20s %-10s %-8s %-6s %-8s %s\n", i, name ? name : "?",
		       pmu ? pmu : "-", a->type, cfg, c1, c2, leader, cpus, flags);
	}
}

static void print_text(const pk_evlist *evlist)
{
	for (size_t i = 0; i < pk_evlist_count(evlist); i++) {
		const pk_evsel *e = pk_evlist_at(evlist, i);
		char cpus[256] = "any";
		if (pk_evsel_cpus(e))
			pk_cpumap_format(pk_evsel_cpus(e), cpus, sizeof(cpus));
		const char *name = pk_evsel_name(e), *pmu = pk_evsel_pmu_name(e);
		printf("#%zu %s (pmu %s, cpus %s", i, name ? name : "?", pmu ? pmu : "-", cpus);
		if (!pk_evsel_is_leader(e))
			printf(", group leader #%d", pk_evsel_leader(e));
		printf(")\n");
		pk_attr_field f[40];
		size_t nf = pk_attr_fields(e, PK_ATTR_VIEW_TEXT, f, 40);
		char buf[256];
		for (size_t k = 0; k < nf && k < 40; k++)
			if (f[k].set)
				printf("    %-32s %s\n", f[k].name, pd_attr_field_str(&f[k], buf, sizeof(buf)));
	}
}

/* A field as JSON: numbers, hex strings, booleans, names; an unset
 * evsel index is null. */
static json_t *field_json(const pk_attr_field *f)
{
	char buf[256];
	switch (f->kind) {
	case PK_ATTR_BOOL:
		return json_boolean(f->value);
	case PK_ATTR_UINT:
		return json_integer((json_int_t)f->value);
	case PK_ATTR_EVSEL:
		return f->set ? json_integer((json_int_t)f->value) : json_null();
	default:
		return json_string(pd_attr_field_str(f, buf, sizeof(buf)));
	}
}

static json_t *evsel_json(const pk_evsel *e, size_t idx)
{
	json_t *o = json_object();
	char buf[256];
	json_object_set_new(o, "index", json_integer((json_int_t)idx));
	const char *name = pk_evsel_name(e), *pmu = pk_evsel_pmu_name(e);
	json_object_set_new(o, "name", json_string(name ? name : ""));
	json_object_set_new(o, "pmu", pmu ? json_string(pmu) : json_null());
	pk_attr_field f[40];
	size_t nf = pk_attr_fields(e, PK_ATTR_VIEW_JSON, f, 40);
	for (size_t k = 0; k < nf && k < 40; k++)
		if (f[k].set || f[k].kind == PK_ATTR_EVSEL)
			json_object_set_new(o, f[k].name, field_json(&f[k]));
	if (pk_evsel_cpus(e)) {
		pk_cpumap_format(pk_evsel_cpus(e), buf, sizeof(buf));
		json_object_set_new(o, "cpus", json_string(buf));
	} else {
		json_object_set_new(o, "cpus", json_null());
	}
	if (pk_evsel_unit(e))
		json_object_set_new(o, "unit", json_string(pk_evsel_unit(e)));
	if (pk_evsel_scale(e) != 1.0)
		json_object_set_new(o, "scale", json_real(pk_evsel_scale(e)));
	return o;
}

static int print_json(const pk_evlist *evlist)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < pk_evlist_count(evlist); i++)
		json_array_append_new(arr, evsel_json(pk_evlist_at(evlist, i), i));
	int r = json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(arr);
	return r;
}

struct encode_opts {
	const char **events;
	size_t nr_events;
	bool json, verbose;
	pk_config_opts copts;
	pk_parse_opts popts;
	const char *model;         /* --model: a scenario file */
	char root[PATH_MAX];       /* its machine's sysfs root */
	char cpuid[64];
};

/* 0, or the usage exit code (said here). */
static int parse_options(int argc, char **argv, struct encode_opts *o)
{
	int c, r;
	pk_opt_begin(&encode_optspec);
	while ((c = pk_opt_next(&encode_optspec, argc, argv)) != -1) {
		switch (c) {
		case 'e':
			o->events[o->nr_events++] = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_RECORD:
			o->copts.mode = PK_CONFIG_RECORD;
			break;
		case 'a':
			o->copts.system_wide = true;
			break;
		case 'F':
			if ((r = pk_cli_parse_u64("encode", "-F", optarg, 1, UINT32_MAX, &o->copts.freq)))
				return r;
			break;
		case 'c':
			if ((r = pk_cli_parse_u64("encode", "-c", optarg, 1, UINT64_MAX, &o->copts.period)))
				return r;
			break;
		case OPT_CPUTYPE:
			o->popts.only_pmu = pk_pmus_cputype_name(optarg);
			break;
		case OPT_MODEL:
			o->model = optarg;
			break;
		default:
			return 129; /* PK_OPT_ERROR, said */
		}
	}
	if (optind < argc)
		return pk_cli_usage_error("encode", "unexpected argument '%s'", argv[optind]);
	if (!o->nr_events)
		return pk_cli_usage_error("encode", "no events: give them with -e");
	for (size_t i = 0; i < o->nr_events; i++)
		if ((r = pk_cli_nonempty("encode", "-e", o->events[i], "event")))
			return r;
	return 0;
}

/* The events parsed and configured on this machine's PMUs; 0, a usage exit
 * code, or 1 (said here). */
static int build(const struct encode_opts *o, pk_pmus **pmus, pk_evlist *evlist)
{
	pk_error err;
	pk_error_clear(&err);
	*pmus = pk_pmus_load(o->model ? o->root : NULL, &err);
	if (!*pmus) {
		pk_cli_print_error("encode", &err);
		return 1;
	}
	for (size_t i = 0; i < pk_pmus_nr_warnings(*pmus); i++)
		fprintf(stderr, "pmukit encode: warning: %s\n", pk_pmus_warning(*pmus, i));
	int usage = pk_cli_check_cputype("encode", *pmus, o->popts.only_pmu);
	if (usage)
		return usage;
	for (size_t i = 0; i < o->nr_events; i++) {
		if (pk_evlist_parse(evlist, *pmus, o->events[i], &o->popts, &err) < 0) {
			pk_cli_print_error("encode", &err);
			return 1;
		}
	}
	for (size_t i = 0; i < pk_evlist_nr_warnings(evlist); i++)
		fprintf(stderr, "%s\n", pk_evlist_warning(evlist, i));
	if (pk_evlist_config(evlist, &o->copts, &err) < 0) {
		pk_cli_print_error("encode", &err);
		return 1;
	}
	return 0;
}

int cmd_encode(int argc, char **argv)
{
	struct encode_opts o = {
		.events = calloc((size_t)argc, sizeof(char *)),
		.copts = {.mode = PK_CONFIG_STAT, .forked_workload = true},
	};
	if (!o.events)
		return 1;
	int rc = parse_options(argc, argv, &o);
	if (rc == 0 && o.model) {
		rc = pk_cli_model_machine("encode", o.model, o.root, o.cpuid);
		o.popts.cpuid = o.cpuid;
	}
	if (rc) {
		free(o.events);
		return rc;
	}
	pk_pmus *pmus = NULL;
	pk_evlist *evlist = pk_evlist_new();
	rc = evlist ? build(&o, &pmus, evlist) : 1;
	if (rc == 0 && o.json)
		rc = print_json(evlist) < 0;
	else if (rc == 0 && o.verbose)
		print_text(evlist);
	else if (rc == 0)
		print_table(evlist);
	pk_evlist_put(evlist);
	pk_pmus_put(pmus);
	free(o.events);
	return rc;
}
