/* The real kernel's host facts (linux_host.c), for the ops table in
 * kernel_sys.c. Internal to lib/kernel. */
#ifndef PK_KERNEL_LINUX_HOST_H
#define PK_KERNEL_LINUX_HOST_H

#include <pmukit/kernel.h>

/* <sysfs root>/<fmt...> into buf; -ENAMETOOLONG when it does not fit. */
int pki_linux_sys_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pki_linux_number(const pk_kernel *k, pk_host_num what, int64_t *out);
int pki_linux_cpus(const pk_kernel *k, pk_host_cpuset which, pk_cpumap **out);
int pki_linux_topology(const pk_kernel *k, int cpu, pk_cpu_topology *out);
int pki_linux_cpu(const pk_kernel *k, pk_host_cpu *out);
int pki_linux_uname(const pk_kernel *k, struct utsname *out);
int pki_linux_tasks(const pk_kernel *k, pid_t pid, pk_host_tid_fn fn, void *arg);
int pki_linux_task(const pk_kernel *k, pid_t tid, pk_host_task *out);
int pki_linux_maps(const pk_kernel *k, pid_t pid, pk_host_map_fn fn, void *arg);
int pki_linux_kernel_text(const pk_kernel *k, uint64_t *start, uint64_t *end);
/* A tracefs root whose events/ can be listed (pk_tracefs_dir's test; lib/events
 * tells an unreadable root from a missing tracepoint with it). */
bool pki_tracefs_usable(const char *dir);
int pki_linux_tracefs_file(const pk_kernel *k, const char *name, char **data, size_t *len);
int pki_linux_nodes(const pk_kernel *k, pk_cpumap **out);
int pki_linux_node(const pk_kernel *k, int node, pk_host_node *out);
int pki_linux_mem_blocks(const pk_kernel *k, int node, uint64_t *block_size, pk_host_block_fn fn,
			 void *arg);
int pki_linux_cache(const pk_kernel *k, int cpu, int index, pk_host_cache *out);
int pki_linux_build_id(const pk_kernel *k, const char *object, uint8_t id[20], size_t *len);
int pki_linux_cache_copy(const pk_kernel *k, const char *object, char **data, size_t *len);

#endif
