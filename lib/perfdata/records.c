/* Names of record types and features, typed views of common records. */
#include "pd_internal.h"

#include "core/util.h"
#include "events/names.h"
#include <pmukit/cpumap.h>
#include <pmukit/events.h>

#include <linux/hw_breakpoint.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const kernel_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PD_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
};

static const char *const user_names[] = {
	"ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID", "FINISHED_ROUND", "ID_INDEX",
	"AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
	"STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "FEATURE", "COMPRESSED",
	"FINISHED_INIT", "COMPRESSED2",
};

const char *pk_pd_record_name(uint32_t type)
{
	if (type < PK_ARRAY_SIZE(kernel_names))
		return kernel_names[type];
	if (type >= PK_RECORD_HEADER_ATTR && type - PK_RECORD_HEADER_ATTR < PK_ARRAY_SIZE(user_names))
		return user_names[type - PK_RECORD_HEADER_ATTR];
	return NULL;
}

static const char *const feat_names[] = {
	[PK_FEAT_TRACING_DATA] = "TRACING_DATA", [PK_FEAT_BUILD_ID] = "BUILD_ID",
	[PK_FEAT_HOSTNAME] = "HOSTNAME", [PK_FEAT_OSRELEASE] = "OSRELEASE",
	[PK_FEAT_VERSION] = "VERSION", [PK_FEAT_ARCH] = "ARCH", [PK_FEAT_NRCPUS] = "NRCPUS",
	[PK_FEAT_CPUDESC] = "CPUDESC", [PK_FEAT_CPUID] = "CPUID", [PK_FEAT_TOTAL_MEM] = "TOTAL_MEM",
	[PK_FEAT_CMDLINE] = "CMDLINE", [PK_FEAT_EVENT_DESC] = "EVENT_DESC",
	[PK_FEAT_CPU_TOPOLOGY] = "CPU_TOPOLOGY", [PK_FEAT_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[PK_FEAT_BRANCH_STACK] = "BRANCH_STACK", [PK_FEAT_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[PK_FEAT_GROUP_DESC] = "GROUP_DESC", [PK_FEAT_AUXTRACE] = "AUXTRACE",
	[PK_FEAT_STAT] = "STAT", [PK_FEAT_CACHE] = "CACHE", [PK_FEAT_SAMPLE_TIME] = "SAMPLE_TIME",
	[PK_FEAT_MEM_TOPOLOGY] = "MEM_TOPOLOGY", [PK_FEAT_CLOCKID] = "CLOCKID",
	[PK_FEAT_DIR_FORMAT] = "DIR_FORMAT", [PK_FEAT_BPF_PROG_INFO] = "BPF_PROG_INFO",
	[PK_FEAT_BPF_BTF] = "BPF_BTF", [PK_FEAT_COMPRESSED] = "COMPRESSED",
	[PK_FEAT_CPU_PMU_CAPS] = "CPU_PMU_CAPS", [PK_FEAT_CLOCK_DATA] = "CLOCK_DATA",
	[PK_FEAT_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY", [PK_FEAT_PMU_CAPS] = "PMU_CAPS",
	[32] = "CPU_DOMAIN_INFO",
};

const char *pk_pd_feature_name(int feat)
{
	if (feat < 0 || (size_t)feat >= PK_ARRAY_SIZE(feat_names))
		return NULL;
	return feat_names[feat];
}

int pki_pd_too_short(const pk_pd_event *ev, pk_error *err, const char *what)
{
	pk_err_at(err, -EINVAL, "perf.data", "record", (long)ev->offset,
		  "%s record too short (%u bytes)", what, ev->size);
	if (err)
		err->pos_is_offset = 1;
	return -EINVAL;
}

/* Payload end before the sample_id trailer. */
static size_t payload_end(const pk_pd_event *ev)
{
	size_t t = ev->evsel ? ev->evsel->trailer_size : 0;
	return ev->size >= 8 + t ? ev->size - t : ev->size;
}

/* A NUL-terminated string within [p, end); NULL when unterminated. */
static const char *bounded_str(const uint8_t *p, const uint8_t *end)
{
	if (p >= end || !memchr(p, 0, (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

int pk_pd_rec_mmap_parse(const pk_pd_event *ev, pk_pd_rec_mmap *m, pk_error *err)
{
	const uint8_t *d = ev->data, *end = d + payload_end(ev);
	memset(m, 0, sizeof(*m));
	if (ev->type == PERF_RECORD_MMAP) {
		if (ev->size < 8 + 32)
			return pki_pd_too_short(ev, err, "MMAP");
		m->pid = pd_ld32(d + 8);
		m->tid = pd_ld32(d + 12);
		m->addr = pd_ld64(d + 16);
		m->len = pd_ld64(d + 24);
		m->pgoff = pd_ld64(d + 32);
		m->filename = bounded_str(d + 40, end);
	} else if (ev->type == PERF_RECORD_MMAP2) {
		if (ev->size < 8 + 72)
			return pki_pd_too_short(ev, err, "MMAP2");
		m->pid = pd_ld32(d + 8);
		m->tid = pd_ld32(d + 12);
		m->addr = pd_ld64(d + 16);
		m->len = pd_ld64(d + 24);
		m->pgoff = pd_ld64(d + 32);
		if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->has_build_id = true;
			m->build_id_size = d[40] > 20 ? 20 : d[40];
			memcpy(m->build_id, d + 44, 20);
		} else {
			m->maj = pd_ld32(d + 40);
			m->min = pd_ld32(d + 44);
			m->ino = pd_ld64(d + 48);
			m->ino_generation = pd_ld64(d + 56);
		}
		m->prot = pd_ld32(d + 64);
		m->flags = pd_ld32(d + 68);
		m->filename = bounded_str(d + 72, end);
	} else {
		return pki_pd_too_short(ev, err, "MMAP");
	}
	if (!m->filename)
		m->filename = "";
	return 0;
}

int pk_pd_rec_comm_parse(const pk_pd_event *ev, pk_pd_rec_comm *c, pk_error *err)
{
	if (ev->type != PERF_RECORD_COMM || ev->size < 16)
		return pki_pd_too_short(ev, err, "COMM");
	c->pid = pd_ld32(ev->data + 8);
	c->tid = pd_ld32(ev->data + 12);
	c->comm = bounded_str(ev->data + 16, ev->data + payload_end(ev));
	if (!c->comm)
		c->comm = "";
	c->exec = !!(ev->misc & PERF_RECORD_MISC_COMM_EXEC);
	return 0;
}

int pk_pd_rec_fork_parse(const pk_pd_event *ev, pk_pd_rec_fork *f, pk_error *err)
{
	if ((ev->type != PERF_RECORD_FORK && ev->type != PERF_RECORD_EXIT) || ev->size < 32)
		return pki_pd_too_short(ev, err, "FORK/EXIT");
	f->pid = pd_ld32(ev->data + 8);
	f->ppid = pd_ld32(ev->data + 12);
	f->tid = pd_ld32(ev->data + 16);
	f->ptid = pd_ld32(ev->data + 20);
	f->time = pd_ld64(ev->data + 24);
	return 0;
}

/* perf_record_header_build_id: header, pid, build_id[24] (20 bytes of id,
 * then, with PERF_RECORD_MISC_BUILD_ID_SIZE in misc, its size), filename. */
#define PD_BUILD_ID_MISC_SIZE (1 << 15)

int pk_pd_build_id_parse(const uint8_t *p, size_t size, bool swap, pk_pd_rec_build_id *b)
{
	memset(b, 0, sizeof(*b));
	if (size < 8)
		return -EINVAL;
	uint16_t misc = pd_get16(p + 4, swap);
	size_t len = pd_get16(p + 6, swap);
	if (len < 36 || len > size)
		return -EINVAL;
	b->misc = misc;
	b->pid = pd_get32(p + 8, swap);
	memcpy(b->id, p + 12, 20);
	b->id_len = 20;
	if ((misc & PD_BUILD_ID_MISC_SIZE) && p[32] <= 20)
		b->id_len = p[32];
	b->filename = bounded_str(p + 36, p + len);
	if (!b->filename)
		return -EINVAL;
	return (int)len;
}

int pk_pd_rec_auxtrace_parse(const pk_pd_event *ev, pk_pd_rec_auxtrace *a, pk_error *err)
{
	if (ev->type != PK_RECORD_AUXTRACE || ev->size < PD_AUXTRACE_SIZE)
		return pki_pd_too_short(ev, err, "AUXTRACE");
	a->size = pd_ld64(ev->data + 8);
	a->offset = pd_ld64(ev->data + 16);
	a->reference = pd_ld64(ev->data + 24);
	a->idx = pd_ld32(ev->data + 32);
	a->tid = pd_ld32(ev->data + 36);
	a->cpu = pd_ld32(ev->data + 40);
	return 0;
}

int pk_pd_rec_time_conv_parse(const pk_pd_event *ev, pk_pd_rec_time_conv *t, pk_error *err)
{
	memset(t, 0, sizeof(*t));
	if (ev->type != PK_RECORD_TIME_CONV || ev->size < 32)
		return pki_pd_too_short(ev, err, "TIME_CONV");
	t->time_shift = pd_ld64(ev->data + 8);
	t->time_mult = pd_ld64(ev->data + 16);
	t->time_zero = pd_ld64(ev->data + 24);
	if (ev->size >= 56) {
		/* the extended form (perf 5.10+) */
		t->time_cycles = pd_ld64(ev->data + 32);
		t->time_mask = pd_ld64(ev->data + 40);
		t->cap_user_time_zero = ev->data[48];
		t->cap_user_time_short = ev->data[49];
		t->extended = true;
	}
	return 0;
}

uint64_t pk_pd_tsc_to_time(const pk_pd_rec_time_conv *tc, uint64_t cyc)
{
	if (tc->cap_user_time_short)
		cyc = tc->time_cycles + ((cyc - tc->time_cycles) & tc->time_mask);
	uint64_t shift = tc->time_shift & 63;
	uint64_t quot = cyc >> shift, rem = cyc & ((1ull << shift) - 1);
	return tc->time_zero + quot * tc->time_mult + ((rem * tc->time_mult) >> shift);
}

uint64_t pk_pd_time_to_tsc(const pk_pd_rec_time_conv *tc, uint64_t ns)
{
	if (!tc->time_mult)
		return ns;
	uint64_t shift = tc->time_shift & 63, t = ns - tc->time_zero;
	uint64_t quot = t / tc->time_mult, rem = t % tc->time_mult;
	return (quot << shift) + (rem << shift) / tc->time_mult;
}

uint64_t pk_pd_rec_u64(const pk_pd_event *ev, size_t i)
{
	size_t off = 8 + i * 8;
	if (off + 8 > ev->size)
		return 0;
	return pd_ld64(ev->data + off);
}

/* Fills evsel->attr_name the way perf names an attr without a stored name. */
void pki_pd_make_attr_name(pk_pd_evsel *e)
{
	const struct perf_event_attr *a = &e->attr;
	char base[48], mod[24];
	pk_attr_modifiers(a, mod, sizeof(mod));
	switch (a->type) {
	case PERF_TYPE_HARDWARE: {
		const char *n = pki_symbolic_evsel_name(a->type, a->config & 0xffffffff);
		snprintf(base, sizeof(base), "%s", n ? n : "unknown-hardware");
		break;
	}
	case PERF_TYPE_SOFTWARE: {
		const char *n = pki_symbolic_evsel_name(a->type, a->config);
		snprintf(base, sizeof(base), "%s", n ? n : "unknown-software");
		break;
	}
	case PERF_TYPE_HW_CACHE:
		pki_cache_config_name(a->config, base, sizeof(base));
		break;
	case PERF_TYPE_RAW:
		snprintf(base, sizeof(base), "raw 0x%llx", (unsigned long long)a->config);
		break;
	case PERF_TYPE_BREAKPOINT:
		snprintf(base, sizeof(base), "mem:0x%llx:%s%s%s", (unsigned long long)a->bp_addr,
			 a->bp_type & HW_BREAKPOINT_R ? "r" : "", a->bp_type & HW_BREAKPOINT_W ? "w" : "",
			 a->bp_type & HW_BREAKPOINT_X ? "x" : "");
		break;
	case PERF_TYPE_TRACEPOINT:
		snprintf(base, sizeof(base), "tracepoint:%llu", (unsigned long long)a->config);
		mod[0] = '\0';
		break;
	default:
		snprintf(base, sizeof(base), "unknown attr type: %u", a->type);
		mod[0] = '\0';
		break;
	}
	snprintf(e->attr_name, sizeof(e->attr_name), "%s%s", base, mod);
}

const char *pk_pd_evsel_name(const pk_pd_evsel *e)
{
	if (!e)
		return "unknown";
	return e->name ? e->name : e->attr_name;
}

/* Whether cpu is in cpu_map_data p (n bytes): u16 type, then a u16 list
 * (0), a mask of u32 or u64 words (1) or a u16 range (2). */
static bool cpu_map_has(const uint8_t *p, size_t n, uint16_t type, int cpu)
{
	if (type == 0 && n >= 4) {
		uint16_t nr = pd_ld16(p + 2);
		for (uint16_t i = 0; i < nr && 4 + 2 * (size_t)i + 2 <= n; i++)
			if (pd_ld16(p + 4 + 2 * i) == cpu)
				return true;
	} else if (type == 1 && n >= 6) {
		uint16_t nr = pd_ld16(p + 2), ls = pd_ld16(p + 4);
		/* u32 words after long_size; u64 words after 4 more bytes */
		size_t base = ls == 4 ? 6 : 10, bits = (size_t)nr * (ls == 4 ? 32 : 64);
		return (size_t)cpu < bits && base + (size_t)cpu / 8 < n &&
		       (p[base + (size_t)cpu / 8] >> (cpu % 8) & 1);
	} else if (type == 2 && n >= 6) {
		uint16_t lo = pd_ld16(p + 4), hi = n >= 8 ? pd_ld16(p + 6) : lo;
		return cpu >= lo && cpu <= hi;
	}
	return false;
}

pk_cpumap *pk_pd_cpu_map_data(const uint8_t *p, size_t n)
{
	uint16_t type = n >= 2 ? pd_ld16(p) : 0xffff;
	int *cpus = malloc(65536 * sizeof(int)), nr = 0;
	if (!cpus)
		return NULL;
	for (int cpu = 0; cpu < 65536; cpu++)
		if (cpu_map_has(p, n, type, cpu))
			cpus[nr++] = cpu;
	/* perf's list ends with the last run that ends below 65535 */
	if (nr && cpus[nr - 1] == 65535) {
		int k = nr - 1;
		while (k > 0 && cpus[k - 1] == cpus[k] - 1)
			k--;
		nr = k;
	}
	pk_cpumap *m = pk_cpumap_from_array(cpus, nr);
	free(cpus);
	return m;
}
