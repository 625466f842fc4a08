/* Conveniences over the host facts of any kernel behind the seam (the real
 * one when k is NULL): defaults for unpublished numbers, errors that name the
 * fact, and the PMUKIT_CPUID override. They hold no state, so the PMU model
 * gets them for free by filling in pk_host_ops. */
#include <pmukit/kernel.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/cpuid_internal.h"

static const pk_kernel *real(const pk_kernel *k)
{
	return k ? k : pk_kernel_linux();
}

int64_t pk_host_number(const pk_kernel *k, pk_host_num what, int64_t dflt)
{
	int64_t v;
	k = real(k);
	return k->ops->host.number(k, what, &v) == 0 ? v : dflt;
}

pk_cpumap *pk_host_cpus(const pk_kernel *k, pk_host_cpuset which, pk_error *err)
{
	pk_cpumap *m = NULL;
	k = real(k);
	int r = k->ops->host.cpus(k, which, &m);
	if (r < 0) {
		pk_err(err, r, "cannot read the %s CPUs (devices/system/cpu/%s) of the %s kernel: %s",
		       which == PK_HOST_CPUS_ONLINE ? "online" : "present",
		       which == PK_HOST_CPUS_ONLINE ? "online" : "present", k->name, strerror(-r));
		return NULL;
	}
	return m;
}

int pk_host_cpuid(const pk_kernel *k, pk_cpuid *out, pk_error *err)
{
	int r = pki_cpuid_env(out, err);
	if (r != 0)
		return r < 0 ? r : 0;
	pk_host_cpu cpu;
	k = real(k);
	r = k->ops->host.cpu(k, &cpu);
	if (r < 0)
		return pk_err(err, r, "cannot identify the CPU of the %s kernel: %s", k->name,
			      strerror(-r));
	*out = cpu.id;
	return 0;
}

const char *pk_host_comm(const pk_kernel *k, pid_t tid, char *buf, size_t len)
{
	pk_host_task t;
	k = real(k);
	if (tid <= 0 || k->ops->host.task(k, tid, &t) < 0)
		return "?";
	snprintf(buf, len, "%s", t.comm);
	return buf;
}

void pk_cpu_topology_release(pk_cpu_topology *t)
{
	pk_cpumap_put(t->core_siblings);
	pk_cpumap_put(t->thread_siblings);
	pk_cpumap_put(t->die_cpus);
	t->core_siblings = t->thread_siblings = t->die_cpus = NULL;
}
