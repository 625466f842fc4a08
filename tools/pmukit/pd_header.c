/* perf.data's header printed as perf 6.1 prints it (`--header`,
 * `--header-only`). The attr fields are the library's list in perf's order
 * (pk_attr_fields_perf: zero ones skipped, flags and sample_type/read_format
 * by name); the features print in feature order,
 * the ones perf shows only with -I as "<NAME> info available". */
#include "pd_header.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include <pmukit/events.h>
#include <pmukit/model.h>

const char *pd_attr_field_str(const pk_attr_field *f, char *buf, size_t len)
{
	if (f->kind == PK_ATTR_SAMPLE_TYPE)
		pk_sample_type_str(f->value, buf, len);
	else if (f->kind == PK_ATTR_READ_FORMAT)
		pk_read_format_str(f->value, buf, len);
	else if (f->kind == PK_ATTR_BRANCH_TYPE)
		pk_branch_sample_type_str(f->value, buf, len);
	else
		snprintf(buf, len, f->kind == PK_ATTR_HEX ? "0x%" PRIx64 : f->kind == PK_ATTR_INT ? "%" PRId64 : "%" PRIu64,
			 f->value);
	return buf;
}

void pd_attr_print(FILE *f, const struct perf_event_attr *a, const char *sep, const char *eq)
{
	pk_attr_field v[64];
	size_t n = pk_attr_fields_perf(a, v, 64);
	char buf[512];
	for (size_t i = 0; i < n && i < 64; i++)
		if (v[i].set)
			fprintf(f, "%s%s%s%s", sep, v[i].name, eq, pd_attr_field_str(&v[i], buf, sizeof(buf)));
}

static void print_file_info(pk_pd_reader *r, const char *input, FILE *f)
{
	pk_pd_layout l;
	pk_pd_get_layout(r, &l);
	struct stat st;
	char data[4096];
	if (strcmp(input, "-") && stat(input, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* perf record --threads' directory: its header file's time */
		snprintf(data, sizeof(data), "%s/data", input);
		input = data;
	}
	if (strcmp(input, "-") && stat(input, &st) == 0) {
		char tb[64];
		struct tm tm;
		localtime_r(&st.st_mtime, &tm);
		strftime(tb, sizeof(tb), "%a %b %e %H:%M:%S %Y", &tm);
		fprintf(f, "# captured on    : %s\n", tb);
	}
	unsigned version = l.version;
	if (pk_pd_is_pipe(r)) { /* perf's for a pipe */
		version = 1;
		l.data_offset = l.data_size = l.feat_offset = 0;
	}
	fprintf(f, "# header version : %u\n", version);
	fprintf(f, "# data offset    : %" PRIu64 "\n", l.data_offset);
	fprintf(f, "# data size      : %" PRIu64 "\n", l.data_size);
	fprintf(f, "# feat offset    : %" PRIu64 "\n", l.feat_offset);
}

/* The features of the host, one each: HOSTNAME ... CMDLINE. */
static void print_host(pk_pd_reader *r, const pk_pd_header *h, int feat, FILE *f)
{
	const struct {
		int feat;
		const char *label, *value;
	} strings[] = {{PK_FEAT_HOSTNAME, "hostname", h->hostname},
		       {PK_FEAT_OSRELEASE, "os release", h->osrelease},
		       {PK_FEAT_VERSION, "perf version", h->version},
		       {PK_FEAT_ARCH, "arch", h->arch},
		       {PK_FEAT_CPUDESC, "cpudesc", h->cpudesc},
		       {PK_FEAT_CPUID, "cpuid", h->cpuid}};
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (strings[i].feat == feat && strings[i].value)
			fprintf(f, "# %s : %s\n", strings[i].label, strings[i].value);
	if (feat == PK_FEAT_NRCPUS && h->has_nrcpus) {
		fprintf(f, "# nrcpus online : %u\n", h->nr_cpus_online);
		fprintf(f, "# nrcpus avail : %u\n", h->nr_cpus_avail);
	}
	if (feat == PK_FEAT_TOTAL_MEM && pk_pd_has_feature(r, PK_FEAT_TOTAL_MEM))
		fprintf(f, "# total memory : %" PRIu64 " kB\n", h->total_mem);
	if (feat == PK_FEAT_CMDLINE && h->cmdline) {
		fprintf(f, "# cmdline :");
		for (uint32_t i = 0; i < h->nr_cmdline; i++)
			fprintf(f, " %s", h->cmdline[i] ? h->cmdline[i] : "");
		fprintf(f, " \n");
	}
}

/* EVENT_DESC as perf prints it, from the feature's own attrs, names and
 * ids (in a pipe it may come before the attrs). */
static void print_events(const pk_pd_header *h, FILE *f)
{
	if (!h->event_desc) {
		fprintf(f, "# event desc: not available or unable to read\n");
		return;
	}
	for (uint32_t i = 0; i < h->nr_event_desc; i++) {
		const pk_pd_event_desc *e = &h->event_desc[i];
		fprintf(f, "# event : name = %s, ", e->name ? e->name : "(null)");
		if (e->nr_ids) /* perf leaves out an empty list */
			fprintf(f, ", id = {");
		for (size_t k = 0; k < e->nr_ids; k++)
			fprintf(f, "%s %" PRIu64, k ? "," : "", e->ids[k]);
		if (e->nr_ids)
			fprintf(f, " }");
		pd_attr_print(f, &e->attr, ", ", " = ");
		fprintf(f, "\n");
	}
}

/* perf prints a group by its members' names: "# group: {a,b}". */
static void print_groups(pk_pd_reader *r, const pk_pd_header *h, FILE *f)
{
	size_t n = pk_pd_nr_evsels(r);
	for (uint32_t i = 0; i < h->nr_groups; i++) {
		uint32_t lead = h->groups[i].leader_idx, nr = h->groups[i].nr_members;
		const char *name = h->groups[i].name; /* perf writes unnamed ones so */
		fprintf(f, "# group: %s{", name && strcmp(name, "{anon_group}") ? name : "");
		for (uint32_t k = 0; k < nr && lead + k < n; k++)
			fprintf(f, "%s%s", k ? "," : "", pk_pd_evsel_name(pk_pd_evsel_at(r, lead + k)));
		fprintf(f, "}\n");
	}
}

static void print_sample_time(const pk_pd_header *h, FILE *f)
{
	uint64_t a = h->sample_time_first, b = h->sample_time_last;
	fprintf(f, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n", a / 1000000000,
		a % 1000000000 / 1000);
	fprintf(f, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n", b / 1000000000,
		b % 1000000000 / 1000);
	fprintf(f, "# sample duration : %10.3f ms\n", (double)(b - a) / 1e6);
}

/* CLOCK_DATA: the clock of the samples and the reference time of day, the
 * date in local time as perf prints it, the clock by perf's name
 * (pk_pd_clockid_name). */
static void print_clock_data(const pk_pd_header *h, FILE *f)
{
	if (!h->has_clock_data) {
		fprintf(f, "# reference time disabled\n");
		return;
	}
	const char *name = pk_pd_clockid_name(h->clock_data_clockid);
	if (!name)
		name = "(not found)";
	time_t sec = (time_t)(h->clock_wall_ns / 1000000000);
	unsigned usec = (unsigned)(h->clock_wall_ns % 1000000000 / 1000);
	char date[64] = "<error>";
	struct tm tm;
	if (localtime_r(&sec, &tm)) {
		char day[48];
		strftime(day, sizeof(day), "%F %T", &tm);
		snprintf(date, sizeof(date), "%s.%06u", day, usec);
	}
	fprintf(f, "# clockid: %s (%u)\n", name, h->clock_data_clockid);
	fprintf(f, "# reference time: %s = %ld.%06u (TOD) = %" PRIu64 ".%09" PRIu64 " (%s)\n", date,
		(long)sec, usec, h->clock_clockid_ns / 1000000000, h->clock_clockid_ns % 1000000000,
		name);
}

/* CPU_PMU_CAPS or PMU_CAPS: "# <pmu> pmu capabilities: a=1, b=2" per PMU
 * (pk_pd_pmu_caps). */
static void print_pmu_caps(pk_pd_reader *r, int feat, FILE *f)
{
	pk_pd_pmu_cap_set *c;
	size_t n;
	if (pk_pd_pmu_caps(r, feat, &c, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "# %s pmu capabilities: ", c[i].pmu);
		if (!c[i].nr)
			fprintf(f, "not available");
		for (uint32_t k = 0; k < c[i].nr; k++)
			fprintf(f, "%s%s=%s", k ? ", " : "", c[i].caps[2 * k], c[i].caps[2 * k + 1]);
		fprintf(f, "\n");
	}
	free(c);
}

/* BPF_BTF: a line per blob; BPF_PROG_INFO: a line per program, or a
 * line and one per sub-program (pk_pd_bpf_funcs). */
static void print_bpf(pk_pd_reader *r, int feat, FILE *f)
{
	size_t n;
	if (feat == PK_FEAT_BPF_BTF) {
		uint32_t *ids;
		if (pk_pd_btf_ids(r, &ids, &n) < 0)
			return;
		for (size_t i = 0; i < n; i++)
			fprintf(f, "# btf info of id %u\n", ids[i]);
		free(ids);
		return;
	}
	pk_pd_bpf_func *fn;
	if (pk_pd_bpf_funcs(r, &fn, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		const pk_pd_bpf_func *b = &fn[i];
		if (b->nr == 1) {
			fprintf(f, "# bpf_prog_info %u: %s addr 0x%" PRIx64 " size %u\n", b->prog_id,
				b->name, b->addr, b->size);
			continue;
		}
		if (!b->index)
			fprintf(f, "# bpf_prog_info %u:\n", b->prog_id);
		fprintf(f, "# \tsub_prog %u: %s addr 0x%" PRIx64 " size %u\n", b->index, b->name,
			b->addr, b->size);
	}
	free(fn);
}

static bool show_info; /* -I */

void pd_header_set_info(bool on)
{
	show_info = on;
}

static void print_feature(pk_pd_reader *r, const pk_pd_header *h, int feat, FILE *f)
{
	uint64_t v;
	if (show_info && pd_header_info_print(r, h, feat, f))
		return;
	switch (feat) {
	case PK_FEAT_HOSTNAME:
	case PK_FEAT_OSRELEASE:
	case PK_FEAT_VERSION:
	case PK_FEAT_ARCH:
	case PK_FEAT_NRCPUS:
	case PK_FEAT_CPUDESC:
	case PK_FEAT_CPUID:
	case PK_FEAT_TOTAL_MEM:
	case PK_FEAT_CMDLINE: print_host(r, h, feat, f); break;
	case PK_FEAT_EVENT_DESC: print_events(h, f); break;
	case PK_FEAT_PMU_MAPPINGS:
		if (!h->nr_pmu_mappings) {
			fprintf(f, "# pmu mappings: not available\n");
			break;
		}
		fprintf(f, "# pmu mappings:");
		for (uint32_t i = 0; i < h->nr_pmu_mappings; i++)
			fprintf(f, "%s %s = %u", i ? "," : "",
				h->pmu_mappings[i].name ? h->pmu_mappings[i].name : "?",
				h->pmu_mappings[i].type);
		fprintf(f, "\n");
		break;
	case PK_FEAT_GROUP_DESC: print_groups(r, h, f); break;
	case PK_FEAT_AUXTRACE:
		fprintf(f, "# contains AUX area data (e.g. instruction trace)\n");
		break;
	case PK_FEAT_SAMPLE_TIME:
		if (h->has_sample_time)
			print_sample_time(h, f);
		break;
	case PK_FEAT_CLOCKID:
		if (h->has_clockid)
			fprintf(f, "# clockid frequency: %" PRIu64 " MHz\n",
				h->clockid_res_ns ? 1000 / h->clockid_res_ns : 0);
		break;
	case PK_FEAT_COMPRESSED:
		if (h->has_compressed)
			fprintf(f, "# compressed : %s, level = %u, ratio = %u\n",
				h->comp_type == 1 ? "Zstd" : "Unknown", h->comp_level, h->comp_ratio);
		break;
	case PK_FEAT_BRANCH_STACK: fprintf(f, "# contains samples with branch stack\n"); break;
	case PK_FEAT_CLOCK_DATA: print_clock_data(h, f); break;
	case PK_FEAT_CPU_PMU_CAPS:
	case PK_FEAT_PMU_CAPS: print_pmu_caps(r, feat, f); break;
	case PK_FEAT_DIR_FORMAT: /* perf record --threads' directory */
		if (pk_pd_dir_format(r, &v) == 0)
			fprintf(f, "# directory data version : %" PRIu64 "\n", v);
		break;
	case PK_FEAT_BPF_PROG_INFO:
	case PK_FEAT_BPF_BTF: print_bpf(r, feat, f); break;
	case PK_FEAT_CPU_TOPOLOGY:
	case PK_FEAT_NUMA_TOPOLOGY:
	case PK_FEAT_CACHE:
	case PK_FEAT_MEM_TOPOLOGY:
	case PK_FEAT_HYBRID_TOPOLOGY:
		/* perf shows these only with -I (its BPF ones not at all) */
		fprintf(f, "# %s info available, use -I to display\n", pk_pd_feature_name(feat));
		break;
	default:
		break;
	}
}

void pd_header_print(pk_pd_reader *r, const char *input, FILE *f)
{
	fprintf(f, "# ========\n");
	print_file_info(r, input, f);
	if (pk_pd_is_pipe(r)) {
		/* the features come later, in the stream (pd_header_feature) */
		fprintf(f, "# ========\n#\n");
		return;
	}
	pk_pd_header h;
	pk_error err;
	pk_error_clear(&err);
	pk_pd_header_read(r, &h, &err);
	for (int feat = 1; feat < PK_FEAT_LAST_6_1; feat++)
		if (pk_pd_has_feature(r, feat))
			print_feature(r, &h, feat, f);
	fprintf(f, "# missing features:");
	for (int feat = 1; feat < PK_FEAT_LAST_6_1; feat++)
		if (!pk_pd_has_feature(r, feat) && pk_pd_feature_name(feat))
			fprintf(f, " %s", pk_pd_feature_name(feat));
	fprintf(f, " \n# ========\n#\n");
	pk_pd_header_release(&h);
}

char *pd_header_modeled(pk_pd_reader *r)
{
	pk_pd_header h;
	pk_error err;
	pk_error_clear(&err);
	memset(&h, 0, sizeof(h));
	char *desc = pk_pd_header_read(r, &h, &err) == 0 ? pk_model_recorded(&h) : NULL;
	pk_pd_header_release(&h);
	return desc;
}

void pd_header_note_modeled(pk_pd_reader *r, const char *cmd, bool comment, FILE *f)
{
	char *desc = pd_header_modeled(r);
	if (!desc)
		return;
	if (comment)
		fprintf(f, "# modeled: these samples come from the PMU model (%s, pmukit record "
			   "--model) -- no hardware was measured\n#\n", desc);
	else
		fprintf(f, "pmukit %s: note: these samples come from the PMU model (%s, pmukit "
			   "record --model) -- no hardware was measured\n", cmd, desc);
	free(desc);
}

int pd_header_feature(pk_pd_reader *r, const pk_pd_event *ev, FILE *f)
{
	uint64_t feat = pk_pd_rec_u64(ev, 0);
	if (ev->type != PK_RECORD_HEADER_FEATURE)
		return 0;
	if (feat >= PK_FEAT_LAST_6_1 || feat == PK_FEAT_BRANCH_STACK || feat == PK_FEAT_STAT)
		return feat == PK_FEAT_LAST_6_1; /* perf reads these two from a file only */
	pk_pd_header h;
	pk_error err;
	pk_error_clear(&err);
	pk_pd_header_read(r, &h, &err);
	print_feature(r, &h, (int)feat, f);
	pk_pd_header_release(&h);
	return 0;
}

int pd_header_pipe_features(pk_pd_reader *r, FILE *f)
{
	pk_pd_event ev;
	pk_error err;
	pk_error_clear(&err);
	int rc;
	while ((rc = pk_pd_next(r, &ev, &err)) > 0)
		if (pd_header_feature(r, &ev, f))
			return 0;
	return rc;
}
