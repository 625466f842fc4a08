#include "fake_kernel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define FAKE(k) ((fake_kernel *)(k)->ctx)

fake_event *fake_event_of(fake_kernel *f, int fd)
{
	int i = fd - FAKE_FD_BASE;
	return (i >= 0 && i < f->nr && f->ev[i].open) ? &f->ev[i] : NULL;
}

uint64_t fake_value(const fake_event *e, uint64_t reads)
{
	/* distinct per event, CPU and task, growing with each read */
	uint64_t per_read = 1000 * ((e->attr.config & 0xffff) + 1) + 10 * (uint64_t)(e->cpu + 1) +
			    (e->pid > 0 ? 1 : 0);
	return per_read * reads;
}

static int fake_open(const pk_kernel *k, const struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	fake_kernel *f = FAKE(k);
	int nth = f->nr;
	if (f->nr >= FAKE_MAX)
		return -EMFILE;
	if (f->fail_errno) {
		bool hit = false;
		if (f->fail_config_set && (attr->config & 0xffffffffull) == f->fail_config)
			hit = true;
		if (f->fail_after >= 0 && nth >= f->fail_after)
			hit = true;
		if (f->fail_tid && pid == f->fail_tid)
			hit = true;
		if (hit)
			return -f->fail_errno;
	}
	if (f->fail_unless_exclude_kernel && !attr->exclude_kernel)
		return -EACCES;
	if (group_fd != -1 && !fake_event_of(f, group_fd))
		return -EBADF;
	fake_event *e = &f->ev[f->nr];
	memset(e, 0, sizeof(*e));
	e->open = true;
	memcpy(&e->attr, attr, sizeof(e->attr));
	e->pid = pid;
	e->cpu = cpu;
	e->group_fd = group_fd;
	e->flags = flags;
	f->nr_open++;
	return FAKE_FD_BASE + f->nr++;
}

static uint64_t fake_id(int fd)
{
	return 0x10000u + (uint64_t)fd;
}

static ssize_t fake_read(const pk_kernel *k, int fd, void *buf, size_t len)
{
	fake_kernel *f = FAKE(k);
	fake_event *e = fake_event_of(f, fd);
	uint64_t w[3 + 3 * FAKE_MAX];
	size_t i = 0;
	if (!e)
		return -EBADF;
	e->reads++;
	uint64_t rf = e->attr.read_format;
	uint64_t ena = e->reads * 1000000;
	uint64_t run = f->mux_den ? ena * f->mux_num / f->mux_den : ena;
	if (rf & PERF_FORMAT_GROUP) {
		size_t nr_at = i++;
		uint64_t nr = 0;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			w[i++] = ena;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			w[i++] = run;
		for (int j = 0; j < f->nr; j++) {
			fake_event *m = &f->ev[j];
			if (!m->open || (FAKE_FD_BASE + j != fd && m->group_fd != fd))
				continue;
			w[i++] = fake_value(m, e->reads);
			if (rf & PERF_FORMAT_ID)
				w[i++] = fake_id(FAKE_FD_BASE + j);
			if (rf & PERF_FORMAT_LOST)
				w[i++] = 0;
			nr++;
		}
		w[nr_at] = nr;
	} else {
		w[i++] = fake_value(e, e->reads);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			w[i++] = ena;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			w[i++] = run;
		if (rf & PERF_FORMAT_ID)
			w[i++] = fake_id(fd);
		if (rf & PERF_FORMAT_LOST)
			w[i++] = 0;
	}
	if (i * sizeof(uint64_t) > len)
		return -ENOSPC;
	memcpy(buf, w, i * sizeof(uint64_t));
	return (ssize_t)(i * sizeof(uint64_t));
}

static int fake_ioctl(const pk_kernel *k, int fd, unsigned long req, unsigned long arg)
{
	fake_kernel *f = FAKE(k);
	if (!fake_event_of(f, fd))
		return -EBADF;
	if (req == PERF_EVENT_IOC_ID) {
		*(uint64_t *)arg = fake_id(fd);
		return 0;
	}
	if (req == PERF_EVENT_IOC_SET_OUTPUT) {
		if (!fake_event_of(f, (int)arg))
			return -EBADF;
		fake_event_of(f, fd)->output_fd = (int)arg;
		return 0;
	}
	if (req == PERF_EVENT_IOC_ENABLE)
		f->enables++;
	else if (req == PERF_EVENT_IOC_DISABLE)
		f->disables++;
	else if (req == PERF_EVENT_IOC_RESET)
		f->resets++;
	else
		return -ENOTTY;
	return 0;
}

static int fake_mmap(const pk_kernel *k, int fd, size_t len, int prot, void **addr)
{
	(void)prot;
	fake_event *e = fake_event_of(FAKE(k), fd);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (!e)
		return -EBADF;
	if (e->ring || len <= page || ((len - page) & (len - page - 1)))
		return -EINVAL; /* one user page + a power-of-2 data area, once */
	void *p;
	if (posix_memalign(&p, page, len))
		return -ENOMEM;
	memset(p, 0, len);
	struct perf_event_mmap_page *pg = p;
	pg->data_offset = page;
	pg->data_size = len - page;
	e->ring = p;
	e->ring_len = len;
	*addr = p;
	return 0;
}

static int fake_munmap(const pk_kernel *k, void *addr, size_t len)
{
	fake_kernel *f = FAKE(k);
	for (int i = 0; i < f->nr; i++) {
		if (f->ev[i].ring == addr && f->ev[i].ring_len == len) {
			free(addr);
			f->ev[i].ring = NULL;
			return 0;
		}
	}
	return -EINVAL;
}

int fake_ring_emit(fake_kernel *f, int fd, const void *rec, size_t len)
{
	fake_event *e = fake_event_of(f, fd);
	if (e && !e->ring && e->output_fd)
		e = fake_event_of(f, e->output_fd);
	if (!e || !e->ring)
		return -ENODEV;
	struct perf_event_mmap_page *pg = e->ring;
	uint8_t *data = (uint8_t *)e->ring + pg->data_offset;
	uint64_t head = pg->data_head, tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);
	if (head - tail + len > pg->data_size)
		return -ENOSPC;
	for (size_t i = 0; i < len; i++)
		data[(head + i) & (pg->data_size - 1)] = ((const uint8_t *)rec)[i];
	__atomic_store_n(&pg->data_head, head + len, __ATOMIC_RELEASE);
	return 0;
}

static int fake_close(const pk_kernel *k, int fd)
{
	fake_kernel *f = FAKE(k);
	fake_event *e = fake_event_of(f, fd);
	if (!e)
		return -EBADF;
	e->open = false;
	f->nr_open--;
	free(e->ring); /* a ring still mapped dies with its last user, here */
	e->ring = NULL;
	return 0;
}

static const pk_kernel_ops fake_ops = {
	.open = fake_open,
	.read = fake_read,
	.ioctl = fake_ioctl,
	.mmap = fake_mmap,
	.munmap = fake_munmap,
	.close = fake_close,
};

void fake_kernel_init(fake_kernel *f)
{
	memset(f, 0, sizeof(*f));
	f->k.ops = &fake_ops;
	f->k.ctx = f;
	f->k.name = "fake";
	f->fail_after = -1;
}
