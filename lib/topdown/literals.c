/* The machine's literals that metric formulas name beside event counts
 * (the #names of perf's metric expressions), read through the kernel seam
 * so that the model and fixture machines answer for themselves:
 *   #smt_on, #threads   SMT on (CPU 0 has thread siblings): 1 / 2, else 0 / 1
 *   #num_cpus           present CPUs counted as perf counts them: the
 *                       highest present CPU + 1
 *   #num_cores          distinct (package, die, core) among present CPUs
 *   #num_dies           distinct (package, die)
 *   #num_packages       distinct packages (#sockets: Intel's name)
 *   #tsc_hz             the TSC's rate in Hz (PK_HOST_TSC_HZ); perf's later
 *   #system_tsc_freq    files name it so, the same value
 *   #num_cpus_online    the online CPUs (perf's: the number in sysfs'
 *                       devices/system/cpu/online)
 *   #has_pmem           1 when the firmware describes persistent memory
 *                       (PK_HOST_HAS_PMEM: perf's test, the ACPI NFIT table
 *                       in sysfs), else 0
 * Invariant: a fact the kernel does not publish is left out, never
 * guessed, so a formula that needs it evaluates to NaN (not computable).
 * Intel's #duration_ms, #duration_s and #tsc (the TSC's ticks in the
 * measured time) are the engine's (engine.c: from the caller's #wall_ns).
 * The CPU identification's (pki_cpuid_literals): #midr, Arm's MIDR_EL1, from
 * which the engine answers the files' strcmp_cpuid_str (#midr_ge_0x...). */
#include <errno.h>
#include <stdlib.h>

#include <pmukit/kernel.h>
#include <pmukit/topdown.h>

#include "topdown/td_internal.h"

#define LIT_CPUS 4096

typedef struct lit_ids {
	int pkg, die, core;
} lit_ids;

/* How many distinct ids among v[0..n): the first `depth` of pkg, die, core. */
static size_t distinct(const lit_ids *v, size_t n, int depth)
{
	size_t d = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		for (; j < i; j++)
			if (v[j].pkg == v[i].pkg && (depth < 2 || v[j].die == v[i].die) &&
			    (depth < 3 || v[j].core == v[i].core))
				break;
		d += j == i;
	}
	return d;
}

/* The present CPUs' ids (into v, at most LIT_CPUS), their number, and the
 * highest CPU in *max; -errno when the kernel publishes no topology. */
static long present_ids(const pk_kernel *k, lit_ids *v, int *max)
{
	pk_cpumap *cpus = NULL;
	if (!k->ops->host.cpus || !k->ops->host.topology ||
	    k->ops->host.cpus(k, PK_HOST_CPUS_PRESENT, &cpus) < 0 || !cpus)
		return -ENOENT;
	long n = 0;
	*max = -1;
	for (int i = 0; i < pk_cpumap_nr(cpus) && n < LIT_CPUS; i++) {
		int cpu = pk_cpumap_cpu(cpus, i);
		pk_cpu_topology t = {0};
		if (k->ops->host.topology(k, cpu, &t) < 0)
			continue;
		v[n++] = (lit_ids){t.package_id, t.die_id, t.core_id};
		pk_cpu_topology_release(&t);
		if (cpu > *max)
			*max = cpu;
	}
	pk_cpumap_put(cpus);
	return n ? n : -ENOENT;
}

size_t pk_topdown_host_literals(const pk_kernel *k, pk_metric_literal *out, size_t cap)
{
	if (!k)
		k = pk_kernel_linux();
	size_t n = 0;
#define PUT(name, v) do { if (n < cap) out[n++] = (pk_metric_literal){name, (double)(v)}; } while (0)
	bool smt = pk_topdown_host_smt(k);
	PUT("#smt_on", smt ? 1 : 0);
	PUT("#threads", smt ? 2 : 1);
	lit_ids *ids = malloc(LIT_CPUS * sizeof(*ids));
	int max = -1;
	long nr = ids ? present_ids(k, ids, &max) : -ENOMEM;
	if (nr > 0) {
		PUT("#num_cpus", max + 1);
		PUT("#num_packages", distinct(ids, (size_t)nr, 1));
		PUT("#sockets", distinct(ids, (size_t)nr, 1));
		PUT("#num_dies", distinct(ids, (size_t)nr, 2));
		PUT("#num_cores", distinct(ids, (size_t)nr, 3));
	}
	free(ids);
	pk_cpumap *online = NULL;
	if (k->ops->host.cpus && k->ops->host.cpus(k, PK_HOST_CPUS_ONLINE, &online) == 0 && online) {
		PUT("#num_cpus_online", pk_cpumap_nr(online));
		pk_cpumap_put(online);
	}
	int64_t pmem;
	if (k->ops->host.number && k->ops->host.number(k, PK_HOST_HAS_PMEM, &pmem) == 0)
		PUT("#has_pmem", pmem != 0);
	int64_t hz;
	if (k->ops->host.number && k->ops->host.number(k, PK_HOST_TSC_HZ, &hz) == 0 && hz > 0) {
		PUT("#tsc_hz", hz);
		PUT("#system_tsc_freq", hz);
	}
#undef PUT
	return n;
}

size_t pki_cpuid_literals(const pk_cpuid *id, pk_metric_literal *out, size_t cap)
{
	if (!id || !id->midr || !cap)
		return 0;
	out[0] = (pk_metric_literal){"#midr", (double)id->midr};
	return 1;
}

size_t pki_literals_append(pk_metric_literal *dst, size_t nr, size_t cap,
			   const pk_metric_literal *src, size_t n)
{
	for (size_t i = 0; i < n && nr < cap; i++)
		dst[nr++] = src[i];
	return nr;
}
