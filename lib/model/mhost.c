/* The host facts of the modeled machine (issue 8), ops->host of the model's
 * kernel: the perf sysctls as a default Linux has them (paranoid -1 and
 * CAP_PERFMON, unless the scenario says "privileged": false: paranoid 2,
 * Linux's default, and no CAP_PERFMON), page size 4096,
 * no MemTotal, no persistent memory (PK_HOST_HAS_PMEM 0: no NFIT); the machine's CPUs (online = present), topology with SMT
 * siblings (2k, 2k+1) when the scenario says smt; the scenario's CPUID;
 * uname marked as the model; the scenario's threads as tasks, each its own
 * process; no mappings and no kernel text; no NUMA nodes, caches, memory
 * blocks or build ids (memory and caches are not modeled: the optional
 * facts stay NULL, so a model recording has no NUMA_TOPOLOGY, CACHE,
 * MEM_TOPOLOGY or BUILD_ID, as perf leaves out a feature it cannot read). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/mkernel.h"

static int host_number(const pk_kernel *k, pk_host_num what, int64_t *out)
{
	bool priv = !MK(k)->sc.unprivileged;
	switch (what) {
	case PK_HOST_PARANOID: *out = priv ? -1 : 2; return 0;
	case PK_HOST_MAX_SAMPLE_RATE: *out = MK_MAX_SAMPLE_RATE; return 0;
	case PK_HOST_MLOCK_KB: *out = MK_MLOCK_KB; return 0;
	case PK_HOST_PAGE_SIZE: *out = 4096; return 0;
	case PK_HOST_PERFMON_CAPABLE: *out = priv; return 0;
	case PK_HOST_TSC_HZ: /* ref-cycles' rate, when the scenario gives one */
		if (!(MK(k)->sc.ref_ghz > 0))
			return -ENOENT;
		*out = (int64_t)(MK(k)->sc.ref_ghz * 1e9 + 0.5);
		return 0;
	case PK_HOST_HAS_PMEM: *out = 0; return 0; /* no NFIT: no persistent memory */
	default: return -ENOENT; /* MemTotal: memory is not modeled */
	}
}

static int host_cpus(const pk_kernel *k, pk_host_cpuset which, pk_cpumap **out)
{
	(void)which;
	*out = pk_cpumap_get(MK(k)->cpus);
	return 0;
}

/* The machine's CPUs whose number divided by div equals cpu's. */
static pk_cpumap *sharing(const pk_model *m, int cpu, int div)
{
	int v[4096], n = 0;
	for (int i = 0; i < pk_cpumap_nr(m->cpus) && n < 4096; i++)
		if (pk_cpumap_cpu(m->cpus, i) / div == cpu / div)
			v[n++] = pk_cpumap_cpu(m->cpus, i);
	return pk_cpumap_from_array(v, n);
}

static int host_topology(const pk_kernel *k, int cpu, pk_cpu_topology *t)
{
	const pk_model *m = MK(k);
	int smt = m->sc.smt ? 2 : 1;
	if (!pk_cpumap_has(m->cpus, cpu))
		return -ENOENT;
	*t = (pk_cpu_topology){.core_id = cpu / smt, .package_id = 0, .die_id = 0};
	t->core_siblings = pk_cpumap_get(m->cpus);
	t->thread_siblings = sharing(m, cpu, smt);
	t->die_cpus = pk_cpumap_get(m->cpus);
	return 0;
}

static int host_cpu(const pk_kernel *k, pk_host_cpu *out)
{
	const pk_model *m = MK(k);
	memset(out, 0, sizeof(*out));
	out->id = m->sc.cpuid;
	snprintf(out->model_name, sizeof(out->model_name), "pmukit model of %.100s",
		 m->sc.machine);
	return 0;
}

static int host_uname(const pk_kernel *k, struct utsname *out)
{
	const pk_model *m = MK(k);
	memset(out, 0, sizeof(*out));
	snprintf(out->sysname, sizeof(out->sysname), "Linux");
	snprintf(out->nodename, sizeof(out->nodename), "%s", PK_MODEL_NODENAME);
	snprintf(out->release, sizeof(out->release), "%s", PK_MODEL_RELEASE);
	snprintf(out->version, sizeof(out->version), "pmukit PMU model (no hardware)");
	snprintf(out->machine, sizeof(out->machine), "%s",
		 m->sc.cpuid.vendor == PK_VENDOR_ARM ? "aarch64" : "x86_64");
	return 0;
}

static const pki_thread *thread_of(const pk_model *m, pid_t tid)
{
	for (size_t i = 0; i < m->sc.nr_threads; i++)
		if (m->sc.threads[i].tid == tid)
			return &m->sc.threads[i];
	return NULL;
}

static int host_tasks(const pk_kernel *k, pid_t pid, pk_host_tid_fn fn, void *arg)
{
	const pk_model *m = MK(k);
	if (pid > 0)
		return thread_of(m, pid) ? fn(arg, pid) : -ESRCH;
	int r = 0;
	for (size_t i = 0; i < m->sc.nr_threads && r == 0; i++)
		r = fn(arg, m->sc.threads[i].tid);
	return r;
}

static int host_task(const pk_kernel *k, pid_t tid, pk_host_task *out)
{
	const pki_thread *t = thread_of(MK(k), tid);
	if (!t)
		return -ESRCH;
	out->tgid = t->tid;
	out->uid = 0;
	snprintf(out->comm, sizeof(out->comm), "%s", t->comm);
	return 0;
}

static int host_maps(const pk_kernel *k, pid_t pid, pk_host_map_fn fn, void *arg)
{
	(void)fn, (void)arg;
	return thread_of(MK(k), pid) ? 0 : -ESRCH;
}

static int host_kernel_text(const pk_kernel *k, uint64_t *start, uint64_t *end)
{
	(void)k, (void)start, (void)end;
	return -ENOENT;
}

const pk_host_ops pki_mk_host_ops = {
	.number = host_number,
	.cpus = host_cpus,
	.topology = host_topology,
	.cpu = host_cpu,
	.uname = host_uname,
	.tasks = host_tasks,
	.task = host_task,
	.maps = host_maps,
	.kernel_text = host_kernel_text,
};
