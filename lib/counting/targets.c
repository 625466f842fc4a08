/* The CPUs a counting or a recording runs on: every online CPU of the
 * kernel seam (system-wide, -a), or a list of them (-C), each of which must
 * be online. The error names the list as the user gave it. */
#include <pmukit/counting.h>

#include <errno.h>

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
