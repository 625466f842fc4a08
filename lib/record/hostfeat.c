/* The host description perf record puts in the header features. Every
 * fact comes from the kernel seam (pk_kernel host facts), so a recording on
 * the PMU model describes the modelled machine; the PMU list comes from the
 * pk_pmus snapshot the events were resolved with, not a second scan. */
#include "record/rec_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>

#include <pmukit/kernel.h>
#include <pmukit/pmu.h>

#include "core/util.h"

#ifndef PMUKIT_VERSION_STRING
#define PMUKIT_VERSION_STRING "pmukit 0.1"
#endif

static int set_string(pk_pd_writer *w, int feat, const char *s, pk_error *err)
{
	pk_pd_buf b = {0};
	pk_pd_buf_string(&b, s);
	int rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
		       : pk_pd_writer_set_feature(w, feat, b.data, b.len, err);
	pk_pd_buf_release(&b);
	return rc;
}

/* The highest present CPU + 1 (perf's nr_cpus_avail), or -1. */
static int cpus_avail(const pk_kernel *k)
{
	pk_cpumap *present = NULL;
	if (k->ops->host.cpus(k, PK_HOST_CPUS_PRESENT, &present) < 0)
		return -1;
	int nr = pk_cpumap_nr(present);
	int avail = nr ? pk_cpumap_cpu(present, nr - 1) + 1 : -1;
	pk_cpumap_put(present);
	return avail;
}

/* A cpulist as the kernel writes it ("0-3,8"), as a header string
 * (rec_internal.h). */
void pki_rec_buf_cpulist(pk_pd_buf *b, const pk_cpumap *m)
{
	int n = pk_cpumap_format(m, NULL, 0);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!s) {
		b->oom = true;
		return;
	}
	pk_cpumap_format(m, s, (size_t)n + 1);
	pk_pd_buf_string(b, s);
	free(s);
}

/* The distinct sibling lists of every CPU, in first-seen order (perf's). */
typedef struct sibling_set {
	pk_cpumap **maps;
	int nr;
} sibling_set;

static void sibling_add(sibling_set *set, pk_cpumap *m)
{
	for (int j = 0; j < set->nr; j++)
		if (pk_cpumap_equal(set->maps[j], m)) {
			pk_cpumap_put(m);
			return;
		}
	set->maps[set->nr++] = m;
}

static void sibling_write(pk_pd_buf *b, const sibling_set *set)
{
	pk_pd_buf_u32(b, (uint32_t)set->nr);
	for (int i = 0; i < set->nr; i++)
		pki_rec_buf_cpulist(b, set->maps[i]);
}

static uint32_t topo_id(int id)
{
	return id < 0 ? 0 : (uint32_t)id;
}

static int add_topology(pk_pd_writer *w, const pk_kernel *k, int nr_avail, pk_error *err)
{
	/* perf's lists: package siblings ("sibling sockets"), thread siblings,
	 * then core and socket ids per CPU, then die siblings and die ids */
	sibling_set set[3] = {{calloc((size_t)nr_avail, sizeof(pk_cpumap *)), 0},
			      {calloc((size_t)nr_avail, sizeof(pk_cpumap *)), 0},
			      {calloc((size_t)nr_avail, sizeof(pk_cpumap *)), 0}};
	pk_cpu_topology *topo = calloc((size_t)nr_avail, sizeof(*topo));
	int rc = 0;
	if (!set[0].maps || !set[1].maps || !set[2].maps || !topo) {
		rc = pk_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (int cpu = 0; cpu < nr_avail; cpu++) {
		pk_cpu_topology *t = &topo[cpu];
		if (k->ops->host.topology(k, cpu, t) < 0)
			*t = (pk_cpu_topology){.core_id = -1, .package_id = -1, .die_id = -1};
		pk_cpumap *lists[3] = {t->core_siblings, t->thread_siblings, t->die_cpus};
		for (int i = 0; i < 3; i++)
			if (lists[i])
				sibling_add(&set[i], pk_cpumap_get(lists[i]));
	}
	if (!set[0].nr || !set[1].nr)
		goto out; /* no topology published: leave the feature out */
	pk_pd_buf b = {0};
	sibling_write(&b, &set[0]);
	sibling_write(&b, &set[1]);
	for (int cpu = 0; cpu < nr_avail; cpu++) {
		pk_pd_buf_u32(&b, topo_id(topo[cpu].core_id));
		pk_pd_buf_u32(&b, topo_id(topo[cpu].package_id));
	}
	if (set[2].nr) {
		sibling_write(&b, &set[2]);
		for (int cpu = 0; cpu < nr_avail; cpu++)
			pk_pd_buf_u32(&b, topo_id(topo[cpu].die_id));
	}
	rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
		   : pk_pd_writer_set_feature(w, PK_FEAT_CPU_TOPOLOGY, b.data, b.len, err);
	pk_pd_buf_release(&b);
out:
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < set[i].nr; j++)
			pk_cpumap_put(set[i].maps[j]);
		free(set[i].maps);
	}
	for (int cpu = 0; topo && cpu < nr_avail; cpu++)
		pk_cpu_topology_release(&topo[cpu]);
	free(topo);
	return rc;
}

/* Every PMU of the snapshot the events were resolved with, as type and
 * name: what perf report needs to name PMU types. */
static int add_pmu_mappings(pk_pd_writer *w, const pk_pmus *pmus, pk_error *err)
{
	size_t n = pk_pmus_count(pmus);
	if (!n)
		return 0;
	pk_pd_buf b = {0};
	pk_pd_buf_u32(&b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		const pk_pmu *pmu = pk_pmus_at(pmus, i);
		pk_pd_buf_u32(&b, pmu->type);
		pk_pd_buf_string(&b, pmu->name);
	}
	int rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
		       : pk_pd_writer_set_feature(w, PK_FEAT_PMU_MAPPINGS, b.data, b.len, err);
	pk_pd_buf_release(&b);
	return rc;
}

/* A PMU's caps as perf writes them: u32 nr; {string name; string value}. */
static void buf_caps(pk_pd_buf *b, const pk_pmu *pmu)
{
	pk_pd_buf_u32(b, (uint32_t)pmu->nr_caps);
	for (size_t i = 0; i < pmu->nr_caps; i++) {
		pk_pd_buf_string(b, pmu->caps[i].name);
		pk_pd_buf_string(b, pmu->caps[i].value ? pmu->caps[i].value : "");
	}
}

/* CPU_PMU_CAPS: the caps of the PMU named "cpu" (when there is one);
 * PMU_CAPS: {caps; string name} of every other PMU with caps, hybrid core
 * PMUs first, as perf 6.1 writes them (u32 0 when none has any). */
static int add_pmu_caps(pk_pd_writer *w, const pk_pmus *pmus, pk_error *err)
{
	size_t n = pk_pmus_count(pmus);
	pk_pd_buf b = {0};
	int rc = 0;
	const pk_pmu *cpu = pk_pmus_find(pmus, "cpu");
	if (cpu) {
		buf_caps(&b, cpu);
		rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
			   : pk_pd_writer_set_feature(w, PK_FEAT_CPU_PMU_CAPS, b.data, b.len, err);
		pk_pd_buf_release(&b);
	}
	uint32_t nr = 0;
	for (size_t i = 0; i < n; i++)
		nr += pk_pmus_at(pmus, i)->nr_caps && pk_pmus_at(pmus, i) != cpu;
	pk_pd_buf_u32(&b, nr);
	for (int hybrid = 1; hybrid >= 0; hybrid--)
		for (size_t i = 0; i < n; i++) {
			const pk_pmu *pmu = pk_pmus_at(pmus, i);
			if (!pmu->nr_caps || pmu == cpu || pmu->hybrid != hybrid)
				continue;
			buf_caps(&b, pmu);
			pk_pd_buf_string(&b, pmu->name);
		}
	if (rc == 0)
		rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
			   : pk_pd_writer_set_feature(w, PK_FEAT_PMU_CAPS, b.data, b.len, err);
	pk_pd_buf_release(&b);
	return rc;
}

/* perf 6.1 writes BPF_PROG_INFO and BPF_BTF as empty lists (u32 0) when
 * it records no BPF programs; pmukit records none. */
static int add_bpf(pk_pd_writer *w, pk_error *err)
{
	uint32_t zero = 0;
	int rc = pk_pd_writer_set_feature(w, PK_FEAT_BPF_PROG_INFO, &zero, sizeof(zero), err);
	return rc < 0 ? rc : pk_pd_writer_set_feature(w, PK_FEAT_BPF_BTF, &zero, sizeof(zero), err);
}

/* perf's CPUID feature: "GenuineIntel,6,151,2" on x86 (decimal), the MIDR
 * ("0x00000000410fd0c0") on Arm. */
static void header_cpuid(const pk_cpuid *id, char *buf, size_t len)
{
	const char *dash = strchr(id->str, '-');
	if (id->vendor == PK_VENDOR_ARM || !dash)
		snprintf(buf, len, "%s", id->str);
	else
		snprintf(buf, len, "%.*s,%d,%d,%d", (int)(dash - id->str), id->str, id->family,
			 id->model, id->stepping);
}

/* NRCPUS, CPUDESC, CPUID and TOTAL_MEM: the machine, from the seam. */
static int add_machine(pk_pd_writer *w, const pk_kernel *k, int avail, pk_error *err)
{
	int rc = 0;
	pk_cpumap *online = NULL;
	if (k->ops->host.cpus(k, PK_HOST_CPUS_ONLINE, &online) == 0) {
		int nr_online = pk_cpumap_nr(online);
		if (avail < 0)
			avail = nr_online;
		uint32_t v[2] = {(uint32_t)avail, (uint32_t)nr_online};
		if (nr_online > 0 && avail > 0)
			rc = pk_pd_writer_set_feature(w, PK_FEAT_NRCPUS, v, sizeof(v), err);
		pk_cpumap_put(online);
	}
	pk_host_cpu cpu;
	if (rc == 0 && k->ops->host.cpu(k, &cpu) == 0) {
		char id[160];
		header_cpuid(&cpu.id, id, sizeof(id));
		if (cpu.model_name[0])
			rc = set_string(w, PK_FEAT_CPUDESC, cpu.model_name, err);
		if (rc == 0)
			rc = set_string(w, PK_FEAT_CPUID, id, err);
	}
	int64_t kb;
	if (rc == 0 && k->ops->host.number(k, PK_HOST_MEM_TOTAL_KB, &kb) == 0 && kb >= 0) {
		uint64_t v = (uint64_t)kb;
		rc = pk_pd_writer_set_feature(w, PK_FEAT_TOTAL_MEM, &v, sizeof(v), err);
	}
	return rc;
}

int pk_pd_writer_host_features(pk_pd_writer *w, const pk_kernel *k, const pk_pmus *pmus,
			       int argc, char *const *argv, pk_error *err)
{
	struct utsname u;
	int rc = 0;
	k = k ? k : pk_kernel_linux();
	if (k->ops->host.uname(k, &u) == 0) {
		rc = set_string(w, PK_FEAT_HOSTNAME, u.nodename, err);
		if (rc == 0)
			rc = set_string(w, PK_FEAT_OSRELEASE, u.release, err);
		if (rc == 0)
			rc = set_string(w, PK_FEAT_ARCH, u.machine, err);
	}
	if (rc == 0)
		rc = set_string(w, PK_FEAT_VERSION, PMUKIT_VERSION_STRING, err);
	int avail = cpus_avail(k);
	if (rc == 0)
		rc = add_machine(w, k, avail, err);
	if (rc == 0 && argc > 0) {
		pk_pd_buf b = {0};
		pk_pd_buf_u32(&b, (uint32_t)argc);
		for (int i = 0; i < argc; i++)
			pk_pd_buf_string(&b, argv[i]);
		rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
			   : pk_pd_writer_set_feature(w, PK_FEAT_CMDLINE, b.data, b.len, err);
		pk_pd_buf_release(&b);
	}
	if (rc == 0 && avail > 0)
		rc = add_topology(w, k, avail, err);
	if (rc == 0 && pmus)
		rc = add_pmu_mappings(w, pmus, err);
	if (rc == 0 && pmus)
		rc = add_pmu_caps(w, pmus, err);
	if (rc == 0)
		rc = pki_rec_mem_features(w, k, avail, err);
	if (rc == 0)
		rc = add_bpf(w, err);
	if (rc == 0)
		rc = pk_pd_writer_event_desc(w, err);
	return rc;
}
