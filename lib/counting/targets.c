/* The CPUs a counting or a recording runs on: every online CPU of the
 * kernel seam (system-wide, -a), or a list of them (-C), each of which must
 * be online. The error names the list as the user gave it. And the whole
 * target choice of stat and record (pk_targets_select): -a/-C, -p, -t, or
 * by default every task of the kernel (a model's scenario threads).
 *
 * Invariants: at most one of the CPU and thread choices is made from the
 * options (-a/-C first); on failure nothing is returned (no reference). */
#include <pmukit/counting.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

pk_cpumap *pk_cpumap_targets(const pk_kernel *k, const char *cpu_list, pk_error *err)
{
	pk_cpumap *online = pk_host_cpus(k, PK_HOST_CPUS_ONLINE, err);
	if (!online || !cpu_list)
		return online;
	pk_cpumap *want = pk_cpumap_parse(cpu_list, err);
	for (int i = 0; want && i < pk_cpumap_nr(want); i++) {
		int cpu = pk_cpumap_cpu(want, i);
		if (!pk_cpumap_has(online, cpu)) {
			char list[256];
			pk_cpumap_format(online, list, sizeof(list));
			pk_err(err, -EINVAL, "-C %s: CPU %d is not online (online CPUs: %s)", cpu_list,
			       cpu, list);
			pk_cpumap_put(want);
			want = NULL;
		}
	}
	pk_cpumap_put(online);
	if (want && pk_cpumap_nr(want) == 0) {
		pk_err(err, -EINVAL, "-C '%s': no CPU given", cpu_list);
		pk_cpumap_put(want);
		want = NULL;
	}
	return want;
}

int pk_targets_select(const pk_targets_opts *o, pk_cpumap **cpus, pk_threadmap **threads,
		      pk_error *err)
{
	*cpus = NULL;
	*threads = NULL;
	if (o->all_cpus || o->cpu_list) {
		*cpus = pk_cpumap_targets(o->kernel, o->cpu_list, err);
		if (*cpus && o->any_with_cpus)
			*threads = pk_threadmap_any();
	} else if (o->pids) {
		*threads = pk_threadmap_from_pids(o->kernel, o->pids, err);
	} else if (o->tids) {
		*threads = pk_threadmap_from_tids(o->kernel, o->tids, err);
	} else if (o->every_task) {
		*threads = pk_threadmap_every_task(o->kernel, err);
	} else {
		return 0;
	}
	bool by_cpu = o->all_cpus || o->cpu_list;
	if (by_cpu ? *cpus && (*threads || !o->any_with_cpus) : *threads != NULL)
		return 0;
	pk_cpumap_put(*cpus);
	*cpus = NULL;
	return err && err->code ? err->code : -ENOMEM;
}
