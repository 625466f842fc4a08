#include "fake_kernel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* The served count of an event, or NULL. */
static const fake_count *served_of(const fake_kernel *f, const struct perf_event_attr *a)
{
	for (size_t i = 0; i < f->nr_served; i++)
		if (f->served[i].type == a->type && f->served[i].config == a->config)
			return &f->served[i];
	return NULL;
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
		if (hit && (!f->fail_grouped_only || group_fd != -1))
			return -f->fail_errno;
	}
	if (f->fail_unless_exclude_kernel && !attr->exclude_kernel)
		return -EACCES;
	const fake_count *served = served_of(f, attr);
	if (served && served->fail)
		return -served->fail;
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

/* e's value after its reads: the served one when counts are served. */
static uint64_t read_value(const fake_kernel *f, const fake_event *e, uint64_t reads)
{
	if (!f->served)
		return fake_value(e, reads);
	const fake_count *c = served_of(f, &e->attr);
	return c ? c->value : 0;
}

/* e's times: the served ones, else growing with each read (mux_num/den). */
static void read_times(const fake_kernel *f, const fake_event *e, uint64_t *ena, uint64_t *run)
{
	const fake_count *c = f->served ? served_of(f, &e->attr) : NULL;
	if (f->served) {
		*ena = c && c->ena ? c->ena : 1000000;
		*run = c && c->ena ? c->run : 1000000;
		return;
	}
	*ena = e->reads * 1000000;
	*run = f->mux_den ? *ena * f->mux_num / f->mux_den : *ena;
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
	uint64_t ena, run;
	read_times(f, e, &ena, &run);
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
			w[i++] = read_value(f, m, e->reads);
			if (rf & PERF_FORMAT_ID)
				w[i++] = fake_id(FAKE_FD_BASE + j);
			if (rf & PERF_FORMAT_LOST)
				w[i++] = 0;
			nr++;
		}
		w[nr_at] = nr;
	} else {
		w[i++] = read_value(f, e, e->reads);
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

static int fake_mmap(const pk_kernel *k, int fd, size_t len, int prot, uint64_t offset,
		     void **addr)
{
	(void)prot;
	FAKE(k)->last_mmap_offset = offset;
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

/* POLLHUP for fds that are closed, POLLIN for the others that ask. */
static int fake_poll(const pk_kernel *k, struct pollfd *fds, size_t nr, int timeout_ms)
{
	fake_kernel *f = FAKE(k);
	int n = 0;
	(void)timeout_ms;
	f->polls++;
	for (size_t i = 0; i < nr; i++) {
		fds[i].revents = 0;
		if (fds[i].fd < 0)
			continue;
		if (!fake_event_of(f, fds[i].fd))
			fds[i].revents = POLLHUP;
		else if (fds[i].events & POLLIN)
			fds[i].revents = POLLIN;
		n += fds[i].revents != 0;
	}
	return n;
}

/* ---- the host ---- */

static int host_number(const pk_kernel *k, pk_host_num what, int64_t *out)
{
	const fake_host *h = &FAKE(k)->host;
	if ((unsigned)what >= PK_HOST_NUM_NR)
		return -EINVAL;
	if (h->num_missing & (1u << what))
		return -ENOENT;
	*out = h->num[what];
	return 0;
}

static int host_cpus(const pk_kernel *k, pk_host_cpuset which, pk_cpumap **out)
{
	const fake_host *h = &FAKE(k)->host;
	const char *list = which == PK_HOST_CPUS_ONLINE ? h->online : h->present;
	if (!list)
		return -ENOENT;
	*out = pk_cpumap_parse(list, NULL);
	return *out ? 0 : -EINVAL;
}

/* The CPUs of `present` whose number divided by div is cpu / div. */
static pk_cpumap *cpus_sharing(const fake_host *h, int cpu, int div)
{
	pk_cpumap *all = pk_cpumap_parse(h->present, NULL);
	int v[256], n = 0;
	for (int i = 0; i < pk_cpumap_nr(all) && n < 256; i++)
		if (pk_cpumap_cpu(all, i) / div == cpu / div)
			v[n++] = pk_cpumap_cpu(all, i);
	pk_cpumap_put(all);
	return pk_cpumap_from_array(v, n);
}

static int host_topology(const pk_kernel *k, int cpu, pk_cpu_topology *t)
{
	const fake_host *h = &FAKE(k)->host;
	pk_cpumap *present = h->present ? pk_cpumap_parse(h->present, NULL) : NULL;
	bool here = pk_cpumap_has(present, cpu);
	pk_cpumap_put(present);
	if (!here)
		return -ENOENT;
	int smt = h->smt > 0 ? h->smt : 1;
	*t = (pk_cpu_topology){.core_id = cpu / smt, .package_id = 0, .die_id = 0};
	t->core_siblings = cpus_sharing(h, cpu, 1 << 30);
	t->thread_siblings = cpus_sharing(h, cpu, smt);
	t->die_cpus = cpus_sharing(h, cpu, 1 << 30);
	return 0;
}

static int host_cpu(const pk_kernel *k, pk_host_cpu *out)
{
	const fake_host *h = &FAKE(k)->host;
	memset(out, 0, sizeof(*out));
	if (!h->cpuid || pk_cpuid_parse(h->cpuid, &out->id, NULL) < 0)
		return -ENOENT;
	snprintf(out->model_name, sizeof(out->model_name), "%s", h->model_name ? h->model_name : "");
	return 0;
}

static int host_uname(const pk_kernel *k, struct utsname *out)
{
	const fake_host *h = &FAKE(k)->host;
	memset(out, 0, sizeof(*out));
	snprintf(out->nodename, sizeof(out->nodename), "%s", h->nodename);
	snprintf(out->release, sizeof(out->release), "%s", h->release);
	snprintf(out->machine, sizeof(out->machine), "%s", h->machine);
	return 0;
}

static const fake_task *task_of(const fake_host *h, pid_t tid)
{
	for (int i = 0; i < h->nr_tasks; i++)
		if (h->tasks[i].tid == tid)
			return &h->tasks[i];
	return NULL;
}

static int host_tasks(const pk_kernel *k, pid_t pid, pk_host_tid_fn fn, void *arg)
{
	const fake_host *h = &FAKE(k)->host;
	int r = 0, seen = 0;
	for (int i = 0; i < h->nr_tasks && r == 0; i++) {
		const fake_task *t = &h->tasks[i];
		if (pid > 0 ? t->tgid != pid : t->tid != t->tgid)
			continue;
		seen++;
		r = fn(arg, t->tid);
	}
	return pid > 0 && !seen ? -ESRCH : r;
}

static int host_task(const pk_kernel *k, pid_t tid, pk_host_task *out)
{
	const fake_task *t = task_of(&FAKE(k)->host, tid);
	if (!t)
		return -ESRCH;
	out->tgid = t->tgid;
	snprintf(out->comm, sizeof(out->comm), "%s", t->comm);
	return 0;
}

static int host_maps(const pk_kernel *k, pid_t pid, pk_host_map_fn fn, void *arg)
{
	const fake_host *h = &FAKE(k)->host;
	const fake_task *t = task_of(h, pid);
	if (!t || t->tgid != pid)
		return -ESRCH;
	int r = 0;
	for (int i = 0; i < h->nr_maps && r == 0; i++)
		r = fn(arg, &h->maps[i]);
	return r;
}

static int host_kernel_text(const pk_kernel *k, uint64_t *start, uint64_t *end)
{
	const fake_host *h = &FAKE(k)->host;
	if (!h->text)
		return -ENOENT;
	*start = h->text;
	*end = h->etext;
	return 0;
}

static const pk_kernel_ops fake_ops = {
	.open = fake_open,
	.read = fake_read,
	.ioctl = fake_ioctl,
	.mmap = fake_mmap,
	.munmap = fake_munmap,
	.close = fake_close,
	.poll = fake_poll,
	.host =
		{
			.number = host_number,
			.cpus = host_cpus,
			.topology = host_topology,
			.cpu = host_cpu,
			.uname = host_uname,
			.tasks = host_tasks,
			.task = host_task,
			.maps = host_maps,
			.kernel_text = host_kernel_text,
		},
};

static const fake_host default_host = {
	.num = {[PK_HOST_PARANOID] = 2,
		[PK_HOST_MAX_SAMPLE_RATE] = 100000,
		[PK_HOST_MLOCK_KB] = 516,
		[PK_HOST_PAGE_SIZE] = 4096,
		[PK_HOST_MEM_TOTAL_KB] = 16318412},
	.online = "0-3",
	.present = "0-3",
	.smt = 2,
	.cpuid = "GenuineIntel-6-97-2",
	.model_name = "Fake(R) Core(TM) i9-12900K",
	.nodename = "fakehost",
	.release = "6.1.0-fake",
	.machine = "x86_64",
	.tasks = {{100, 100, "fakeproc"}, {101, 100, "fakeworker"}, {200, 200, "other"}},
	.nr_tasks = 3,
	.maps = {{.start = 0x400000, .end = 0x401000, .pgoff = 0, .ino = 42, .maj = 8, .min = 1,
		  .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .name = "/usr/bin/fakeproc"},
		 {.start = 0x600000, .end = 0x602000, .prot = PROT_READ | PROT_WRITE,
		  .flags = MAP_PRIVATE, .name = "[heap]"}},
	.nr_maps = 2,
	.text = 0xffffffff81000000ull,
	.etext = 0xffffffff82000000ull,
};

void fake_kernel_init(fake_kernel *f)
{
	memset(f, 0, sizeof(*f));
	f->k.ops = &fake_ops;
	f->k.ctx = f;
	f->k.name = "fake";
	f->fail_after = -1;
	f->host = default_host;
}
