/* The real kernel's host facts (linux_host.c), for the ops table in
 * kernel_sys.c. Internal to lib/kernel. */
#ifndef PK_KERNEL_LINUX_HOST_H
#define PK_KERNEL_LINUX_HOST_H

#include <pmukit/kernel.h>

int pki_linux_number(const pk_kernel *k, pk_host_num what, int64_t *out);
int pki_linux_cpus(const pk_kernel *k, pk_host_cpuset which, pk_cpumap **out);
int pki_linux_topology(const pk_kernel *k, int cpu, pk_cpu_topology *out);
int pki_linux_cpu(const pk_kernel *k, pk_host_cpu *out);
int pki_linux_uname(const pk_kernel *k, struct utsname *out);
int pki_linux_tasks(const pk_kernel *k, pid_t pid, pk_host_tid_fn fn, void *arg);
int pki_linux_task(const pk_kernel *k, pid_t tid, pk_host_task *out);
int pki_linux_maps(const pk_kernel *k, pid_t pid, pk_host_map_fn fn, void *arg);
int pki_linux_kernel_text(const pk_kernel *k, uint64_t *start, uint64_t *end);
int pki_linux_tracefs_file(const pk_kernel *k, const char *name, char **data, size_t *len);

#endif
