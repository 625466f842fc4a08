/* The real kernel behind the seam: thin syscall wrappers that turn -1/errno
 * into negative errno and retry on EINTR (except poll, whose EINTR tells the
 * caller a signal came), and the table that joins them to the host facts of
 * linux_host.c. The only place in lib/ that calls perf_event_open. */
#include <pmukit/kernel.h>

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel/linux_host.h"

static int sys_open(const pk_kernel *k, const struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags)
{
	(void)k;
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : (int)fd;
}

static ssize_t sys_read(const pk_kernel *k, int fd, void *buf, size_t len)
{
	(void)k;
	ssize_t r;
	do
		r = read(fd, buf, len);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static int sys_ioctl(const pk_kernel *k, int fd, unsigned long request, unsigned long arg)
{
	(void)k;
	int r = ioctl(fd, request, arg);
	return r < 0 ? -errno : r;
}

static int sys_mmap(const pk_kernel *k, int fd, size_t len, int prot, uint64_t offset,
		    void **addr)
{
	(void)k;
	if (offset > (uint64_t)INT64_MAX)
		return -EINVAL;
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)offset);
	if (p == MAP_FAILED)
		return -errno;
	*addr = p;
	return 0;
}

static int sys_munmap(const pk_kernel *k, void *addr, size_t len)
{
	(void)k;
	return munmap(addr, len) < 0 ? -errno : 0;
}

static int sys_close(const pk_kernel *k, int fd)
{
	(void)k;
	return close(fd) < 0 ? -errno : 0;
}

static int sys_poll(const pk_kernel *k, struct pollfd *fds, size_t nr, int timeout_ms)
{
	(void)k;
	int n = poll(fds, (nfds_t)nr, timeout_ms);
	return n < 0 ? -errno : n;
}

static const pk_kernel_ops linux_ops = {
	.open = sys_open,
	.read = sys_read,
	.ioctl = sys_ioctl,
	.mmap = sys_mmap,
	.munmap = sys_munmap,
	.close = sys_close,
	.poll = sys_poll,
	.host =
		{
			.number = pki_linux_number,
			.cpus = pki_linux_cpus,
			.topology = pki_linux_topology,
			.cpu = pki_linux_cpu,
			.uname = pki_linux_uname,
			.tasks = pki_linux_tasks,
			.task = pki_linux_task,
			.maps = pki_linux_maps,
			.kernel_text = pki_linux_kernel_text,
			.tracefs_file = pki_linux_tracefs_file,
			.nodes = pki_linux_nodes,
			.node = pki_linux_node,
			.mem_blocks = pki_linux_mem_blocks,
			.cache = pki_linux_cache,
			.build_id = pki_linux_build_id,
			.cache_copy = pki_linux_cache_copy,
		},
};

static const pk_kernel linux_kernel = {.ops = &linux_ops, .ctx = NULL, .name = "linux"};

const pk_kernel *pk_kernel_linux(void)
{
	return &linux_kernel;
}
