/* Fuzz target: the perf event parser, then what every caller does next
 * (config, pack the attrs, render the error); the same input as a branch
 * filter list (record -j). The PMUs of one fixture tree
 * are loaded once: $PK_FUZZ_SYSFS, default the Alder Lake tree (hybrid, so
 * the expansion and regrouping paths run). $PK_FUZZ_CPUID sets the CPU for
 * named events. A small fake tracefs makes tracepoint lookups real. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_input.h"
#include <pmukit/events.h>
#include <pmukit/pmu.h>

static pk_pmus *pmus;
static pk_parse_opts opts;
static char tracefs[64];

static const char *const tp_dirs[] = {"events", "events/sched", "events/sched/sched_switch",
				       "events/irq", "events/irq/irq_handler_entry"};
static const char *const tp_ids[][2] = {{"sched/sched_switch", "316\n"},
					{"irq/irq_handler_entry", "42"}};

static void remove_tracefs(void)
{
	char path[256];
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/id", tracefs, tp_ids[i][0]);
		unlink(path);
	}
	for (size_t i = sizeof(tp_dirs) / sizeof(tp_dirs[0]); i-- > 0;) {
		snprintf(path, sizeof(path), "%s/%s", tracefs, tp_dirs[i]);
		rmdir(path);
	}
	rmdir(tracefs);
}

static void fake_tracefs(void)
{
	snprintf(tracefs, sizeof(tracefs), "/tmp/pk-fuzz-tracefs-XXXXXX");
	if (!mkdtemp(tracefs)) {
		snprintf(tracefs, sizeof(tracefs), "/nonexistent");
		return;
	}
	atexit(remove_tracefs);
	char path[256];
	for (size_t i = 0; i < sizeof(tp_dirs) / sizeof(tp_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tracefs, tp_dirs[i]);
		mkdir(path, 0755);
	}
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/id", tracefs, tp_ids[i][0]);
		FILE *f = fopen(path, "w");
		if (f) {
			fputs(tp_ids[i][1], f);
			fclose(f);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *root = getenv("PK_FUZZ_SYSFS");
	char def[1024];
	if (!root || !*root) {
		snprintf(def, sizeof(def), "%s/sysfs/alderlake", PK_FUZZ_FIXTURES);
		root = def;
	}
	pk_error err;
	pk_error_clear(&err);
	pmus = pk_pmus_load(root, &err);
	if (!pmus) {
		fprintf(stderr, "event_parse_fuzz: cannot load %s: %s\n", root, err.msg);
		abort();
	}
	const char *cpuid = getenv("PK_FUZZ_CPUID");
	opts.cpuid = cpuid && *cpuid ? cpuid : "GenuineIntel-6-97-2";
	fake_tracefs();
	opts.tracefs = tracefs;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *str = fuzz_cstr(data, size, 4096);
	if (!str)
		return 0;
	pk_evlist *evlist = pk_evlist_new();
	pk_error err;
	pk_error_clear(&err);
	char render[8192];
	if (pk_evlist_parse(evlist, pmus, str, &opts, &err) == 0) {
		pk_config_opts copts = {0};
		copts.mode = (size & 1) ? PK_CONFIG_RECORD : PK_CONFIG_STAT;
		copts.forked_workload = true;
		copts.system_wide = (size & 2) != 0;
		if (pk_evlist_config(evlist, &copts, &err) == 0) {
			unsigned char attr[PK_ATTR_SIZE_CONFIG3 + 64];
			for (size_t i = 0; i < pk_evlist_count(evlist); i++) {
				size_t n = pk_evsel_pack_attr(pk_evlist_at(evlist, i), attr);
				if (n != PK_ATTR_SIZE && n != PK_ATTR_SIZE_CONFIG3)
					abort();
			}
		}
		for (size_t i = 0; i < pk_evlist_nr_warnings(evlist); i++)
			if (!pk_evlist_warning(evlist, i))
				abort();
	} else if (err.code == 0 || err.msg[0] == '\0') {
		abort(); /* a failure must say why */
	}
	pk_error_render(&err, render, sizeof(render));
	/* the same text as record -j's branch filter list */
	uint64_t bst = 0;
	pk_error_clear(&err);
	if (pk_branch_filter_parse(str, &bst, &err) == 0 ? bst == 0 : err.msg[0] == '\0')
		abort(); /* a filter means some branches; a failure says why */
	pk_error_render(&err, render, sizeof(render));
	pk_evlist_put(evlist);
	free(str);
	return 0;
}
