/* The PMU model's kernel (issue 8): pk_model_new/free and the perf calls of
 * pk_kernel_ops over a scenario. open validates the attr as Linux does (size,
 * type, target, group), resolves the event to its core PMU and counter row,
 * applies the driver's TopDown rules (mrules.c) and refuses what the model
 * has no count for; read writes read_format's layout (PERF_FORMAT_GROUP, ID,
 * TOTAL_TIME_ENABLED/RUNNING, LOST); ioctl does ENABLE, DISABLE, RESET
 * (PERF_IOC_FLAG_GROUP) and ID; poll says POLLHUP once a followed thread has
 * ended. Counting itself happens in virtual time (msched.c). Every refusal
 * keeps its reason for ops.explain. See mkernel.h for the invariants. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "core/util.h"
#include "model/mkernel.h"
#include "topdown/td_internal.h"
#include "model/mspe.h"
#include <pmukit/events.h>
#include <pmukit/spe_record.h>
#include "perfdata/sample_write.h"

int pki_mk_refuse(pk_model *m, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->reason, sizeof(m->reason), fmt, ap);
	va_end(ap);
	return code;
}

static mk_event *event_of(pk_model *m, int fd)
{
	long i = (long)fd - MK_FD_BASE;
	return i >= 0 && (size_t)i < m->nr_ev && m->ev[i].open ? &m->ev[i] : NULL;
}

/* The attr as the kernel copies it: size 0 is PERF_ATTR_SIZE_VER0; a smaller
 * one, or a larger one with non-zero bytes past what we know, is E2BIG.
 * The model is a current kernel: it knows config3 (attr.size 136, Linux
 * 6.3) even when the installed UAPI header's attr ends before it. */
static int copy_attr(pk_model *m, const struct perf_event_attr *a, mk_event *e)
{
	size_t size = a->size ? a->size : PERF_ATTR_SIZE_VER0;
	size_t known = sizeof(e->attr) > PK_ATTR_SIZE_CONFIG3 ? sizeof(e->attr) : PK_ATTR_SIZE_CONFIG3;
	if (size < PERF_ATTR_SIZE_VER0)
		return pki_mk_refuse(m, -E2BIG, "attr.size %zu is below PERF_ATTR_SIZE_VER0 (%d)",
				     size, PERF_ATTR_SIZE_VER0);
	for (size_t i = known; i < size; i++)
		if (((const unsigned char *)a)[i])
			return pki_mk_refuse(m, -E2BIG, "attr.size %zu: byte %zu past the "
							"attr the model knows is not zero",
					     size, i);
	memset(&e->attr, 0, sizeof(e->attr));
	memcpy(&e->attr, a, size < sizeof(e->attr) ? size : sizeof(e->attr));
	if (size >= PK_ATTR_SIZE_CONFIG3)
		memcpy(&e->config3, (const char *)a + PK_ATTR_SIZE, sizeof(e->config3));
	return 0;
}

/* pid/cpu to a context: a scenario thread, or a CPU of the machine. */
static int resolve_target(pk_model *m, pid_t pid, int cpu, mk_event *e)
{
	if (cpu != -1 && !pk_cpumap_has(m->cpus, cpu))
		return pki_mk_refuse(m, -ENODEV, "CPU %d is not a CPU of machine '%s'", cpu,
				     m->sc.machine);
	if (pid == -1) {
		if (cpu == -1)
			return pki_mk_refuse(m, -EINVAL, "pid -1 needs a CPU (cpu -1 given)");
		e->ctx = (int)m->sc.nr_threads + cpu;
		return 0;
	}
	for (size_t t = 0; t < m->sc.nr_threads; t++) {
		if (m->sc.threads[t].tid == pid) {
			e->ctx = (int)t;
			return 0;
		}
	}
	return pki_mk_refuse(m, -ESRCH, "no task %d in the scenario (its threads are the "
					"model's only tasks)",
			     (int)pid);
}

/* The fixed counter an event takes when free (-1: generic only). Intel:
 * instructions 0, cycles 1, ref-cycles 2, slots 3, Skymont's TopDown 4-6;
 * Arm: the cycle counter (cycles, or the raw CPU_CYCLES event 0x11). */
static int fixed_of(const pki_counters *row, const pki_event_key *k)
{
	static const struct { uint32_t kind; uint64_t config; int fixed; } intel[] = {
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0},
		{PERF_TYPE_RAW, 0x00c0, 0},
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1},
		{PERF_TYPE_RAW, 0x003c, 1},
		{PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 2},
		{PERF_TYPE_RAW, 0x0300, 2},
		{PERF_TYPE_RAW, 0x0100, 0}, /* counted only where a row has it (ICL on) */
		{PERF_TYPE_RAW, 0x0400, 3},
		/* Skymont's perfmon v6 TopDown counters (intel_skt_event_constraints) */
		{PERF_TYPE_RAW, 0x0073, 4},
		{PERF_TYPE_RAW, 0x019c, 5},
		{PERF_TYPE_RAW, 0x02c2, 6},
	};
	if (row->vendor == PK_VENDOR_ARM) /* the PMUv3 driver: event 0x11, however asked */
		return ((k->kind == PERF_TYPE_HARDWARE && k->config == PERF_COUNT_HW_CPU_CYCLES) ||
			(k->kind == PERF_TYPE_RAW && (k->config & 0xffff) == 0x11)) &&
			       (row->fixed & 1) ? 0 : -1;
	if (row->vendor != PK_VENDOR_INTEL)
		return -1;
	/* the kernel matches a fixed counter's constraint on the event's bits
	 * under X86_RAW_EVENT_MASK (event, umask, edge, inv, cmask): the
	 * AnyThread bit (21) is not among them, the fixed counter takes it
	 * (Skylake's CPU_CLK_UNHALTED.THREAD_ANY is fixed counter 1) */
	uint64_t config = k->kind == PERF_TYPE_RAW ? k->config & 0xff84ffffull : k->config;
	for (size_t i = 0; i < PK_ARRAY_SIZE(intel); i++)
		if (intel[i].kind == k->kind && intel[i].config == config &&
		    (row->fixed >> intel[i].fixed & 1))
			return intel[i].fixed;
	return -1;
}

/* The core PMU of a hardware or raw event: the hybrid type in config[63:32]
 * (PERF_TYPE_HARDWARE), the PMU's own sysfs type, or the CPU's core PMU. */
static const pk_pmu *core_pmu_of(pk_model *m, const mk_event *e, uint32_t *kind)
{
	const struct perf_event_attr *a = &e->attr;
	const pk_pmu *p = pk_pmus_find_type(m->pmus, a->type);
	if (a->type == PERF_TYPE_HARDWARE && (a->config >> 32)) {
		*kind = PERF_TYPE_HARDWARE;
		p = pk_pmus_find_type(m->pmus, (uint32_t)(a->config >> 32));
		return p && p->kind == PK_PMU_CORE ? p : NULL;
	}
	if (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_RAW ||
	    (p && p->kind == PK_PMU_CORE)) {
		*kind = a->type == PERF_TYPE_HARDWARE ? PERF_TYPE_HARDWARE : PERF_TYPE_RAW;
		if (p && p->kind == PK_PMU_CORE)
			return p;
		if (e->cpu >= 0 && pki_mk_pmu_on_cpu(m, e->cpu))
			return pki_mk_pmu_on_cpu(m, e->cpu);
		return pk_pmus_core_at(m->pmus, 0);
	}
	return NULL;
}

static int resolve_software(pk_model *m, mk_event *e)
{
	if (e->attr.config == PERF_COUNT_SW_TASK_CLOCK || e->attr.config == PERF_COUNT_SW_CPU_CLOCK) {
		e->kind = e->attr.config == PERF_COUNT_SW_TASK_CLOCK ? MK_TASK_CLOCK : MK_CPU_CLOCK;
		return 0;
	}
	if (e->attr.config == PERF_COUNT_SW_DUMMY) {
		e->kind = MK_DUMMY; /* record's tracking event: it never counts */
		return 0;
	}
	return pki_mk_refuse(m, -ENOENT, "the model counts no software event but task-clock and "
					 "cpu-clock, and opens dummy (config %llu): it models no faults, switches "
					 "or migrations",
			     (unsigned long long)e->attr.config);
}

/* Type and config to a kind, PMU, counter row and event key. */
static int resolve_event(pk_model *m, mk_event *e)
{
	pk_error err;
	uint32_t kind = 0;
	pk_error_clear(&err);
	e->fixed = -1;
	e->field = -1;
	if (e->attr.type == PERF_TYPE_SOFTWARE)
		return resolve_software(m, e);
	const pk_pmu *spe = pk_pmus_find_type(m->pmus, e->attr.type);
	if (pk_spe_pmu_is(spe))
		return pki_mk_spe_open(m, e, spe);
	e->pmu = core_pmu_of(m, e, &kind);
	if (!e->pmu) {
		const pk_pmu *p = pk_pmus_find_type(m->pmus, e->attr.type);
		return pki_mk_refuse(m, -ENOENT, "the model counts only core PMU and clock events, "
						 "not type %u%s%s%s",
				     e->attr.type, p ? " (PMU '" : "", p ? p->name : "", p ? "')" : "");
	}
	if (e->cpu >= 0 && e->pmu->cpus && !pk_cpumap_has(e->pmu->cpus, e->cpu))
		return pki_mk_refuse(m, -ENOENT, "PMU '%s' does not count on CPU %d", e->pmu->name,
				     e->cpu);
	e->core.row = pki_counters_find(&m->sc.cpuid, e->pmu->name, &err);
	if (!e->core.row)
		return pki_mk_refuse(m, -ENOENT, "%s", err.msg);
	int own = kind == PERF_TYPE_RAW ? pki_mk_spe_event(m, e->pmu, e->attr.config) : 0;
	if (own < 0)
		return own;
	if (own) {
		e->key = (pki_event_key){.kind = kind, .config = e->attr.config};
		e->kind = MK_SPE_COUNT;
		return 0;
	}
	e->core.smt = m->sc.smt;
	e->core.ref_ghz = m->sc.ref_ghz;
	e->core.midr = m->sc.cpuid.midr;
	const pki_td_method *td = pki_td_find(&m->sc.cpuid, e->pmu->name);
	e->core.tree = td ? td->table : NULL; /* the deeper nodes' events (events_tree.c) */
	e->key.kind = kind;
	e->key.config = kind == PERF_TYPE_HARDWARE ? e->attr.config & 0xffffffffu : e->attr.config;
	e->fixed = fixed_of(e->core.row, &e->key);
	e->kind = MK_RATE;
	if (e->core.row->perf_metrics && pki_mk_is_slots(e)) {
		e->kind = MK_PM_SLOTS;
		e->regs.driver = m->sc.kernel; /* the scenario's driver arithmetic */
	} else if (e->core.row->perf_metrics && pki_mk_metric_field(e) >= 0) {
		e->kind = MK_PM_METRIC;
		e->field = pki_mk_metric_field(e);
	}
	return 0;
}

/* The model must have a count for the event in every phase of the
 * scenario (a row over a rate the scenario gives only in some phases is
 * refused: never a silent 0). Which rates a phase gives is all that can
 * make a row fail, so one phase per set of given rates is evaluated
 * (m->rates_ph). */
static int check_known(pk_model *m, const mk_event *e)
{
	pk_error err;
	double rate;
	if (e->kind != MK_RATE)
		return 0;
	for (size_t i = 0; i < PK_ARRAY_SIZE(m->rates_ph); i++) {
		if (!m->rates_ph[i])
			continue;
		pk_error_clear(&err);
		if (pki_event_rate(&e->core, &e->key, m->rates_ph[i], &rate, &err) < 0)
			return pki_mk_refuse(m, -ENOENT, "%s", err.msg);
	}
	return 0;
}

/* Linux's validate_group (arch/x86/events/core.c; Arm's and AMD's drivers
 * alike): a group its PMU could not schedule even alone on an empty PMU is
 * refused at open with -EINVAL, so perf's weak groups (:W) fall back to
 * lone events. Counts the counters the open members and e take: a fixed
 * counter each once, a second user of the same fixed counter or any other
 * event a generic one; metric events ride their slots leader's register. */
static int check_fits(pk_model *m, const mk_event *e, const mk_event *l)
{
	const pki_counters *row = e->core.row;
	if (!row || !e->pmu || e->kind == MK_SPE || e->kind == MK_SPE_COUNT)
		return 0;
	uint32_t fixed = row->fixed;
	int generic = pki_counters_generic(row, m->sc.smt), need = 0, n = 0;
	for (size_t i = 0; i <= m->nr_ev; i++) {
		const mk_event *o = i < m->nr_ev ? &m->ev[i] : e;
		if (i < m->nr_ev && (!o->open || &m->ev[o->leader] != l))
			continue;
		n++;
		if (o->kind == MK_PM_METRIC || !o->pmu)
			continue;
		if (o->fixed >= 0 && (fixed >> o->fixed & 1))
			fixed &= ~(1u << o->fixed);
		else
			need++;
	}
	if (need <= generic)
		return 0;
	return pki_mk_refuse(m, -EINVAL, "a group of %d events needs %d generic counters, and "
					 "%s has %d per thread%s: it could never be scheduled "
					 "(validate_group)",
			     n, need, row->core, generic, m->sc.smt ? " with SMT on" : "");
}

static int check_group(pk_model *m, const mk_event *e, int group_fd, int *leader)
{
	if (group_fd == -1) {
		*leader = (int)m->nr_ev;
		return 0;
	}
	mk_event *l = event_of(m, group_fd);
	if (!l)
		return pki_mk_refuse(m, -EBADF, "group_fd %d is not an open event", group_fd);
	if (l->leader != l - m->ev)
		return pki_mk_refuse(m, -EINVAL, "group_fd %d is a group member, not a leader",
				     group_fd);
	if (l->pid != e->pid || l->cpu != e->cpu)
		return pki_mk_refuse(m, -EINVAL, "a group's events share one task and CPU "
						 "(leader: pid %d cpu %d; this: pid %d cpu %d)",
				     (int)l->pid, l->cpu, (int)e->pid, e->cpu);
	for (size_t i = 0; i < m->nr_ev; i++) {
		const mk_event *o = &m->ev[i];
		if (o->open && o->leader == l - m->ev && o->pmu && e->pmu && o->pmu != e->pmu)
			return pki_mk_refuse(m, -EINVAL, "a group counts on one core PMU ('%s' "
							 "and '%s' given)",
					     o->pmu->name, e->pmu->name);
	}
	*leader = (int)(l - m->ev);
	return check_fits(m, e, l);
}

static int mk_open(const pk_kernel *k, const struct perf_event_attr *attr, pid_t pid, int cpu,
		   int group_fd, unsigned long flags)
{
	pk_model *m = MK(k);
	mk_event e = {.pid = pid, .cpu = cpu};
	m->reason[0] = '\0';
	int r = copy_attr(m, attr, &e);
	if (r == 0 && (flags & PERF_FLAG_PID_CGROUP))
		r = pki_mk_refuse(m, -EINVAL, "the model has no cgroups");
	if (r == 0)
		r = resolve_target(m, pid, cpu, &e);
	if (r == 0)
		r = resolve_event(m, &e);
	if (r == 0)
		r = check_group(m, &e, group_fd, &e.leader);
	if (r == 0)
		r = pki_mk_check_topdown(m, &e, e.leader == (int)m->nr_ev ? &e : &m->ev[e.leader]);
	if (r == 0)
		r = check_known(m, &e);
	e.output = -1;
	if (r == 0)
		r = pki_mk_sampling_open(m, &e);
	if (r < 0) {
		pki_mk_spe_free(&e);
		return r;
	}
	mk_ctx_ev *c = &m->cev[e.ctx];
	if (pki_grow(&m->ev, &m->cap_ev, m->nr_ev + 1, sizeof(*m->ev)) < 0 ||
	    pki_grow(&c->idx, &c->cap, c->n + 1, sizeof(*c->idx)) < 0) {
		pki_mk_spe_free(&e);
		return pki_mk_refuse(m, -ENOMEM, "out of memory");
	}
	e.open = true;
	e.enabled = !e.attr.disabled;
	c->idx[c->n++] = m->nr_ev;
	m->ev[m->nr_ev] = e;
	int fd = MK_FD_BASE + (int)m->nr_ev++;
	pki_mk_schedule(m, e.ctx); /* an enabled event goes on the PMU at once */
	return fd;
}

/* One event's entry of a read: count, id and lost as asked. */
static pk_counts counts_of(const pk_model *m, const mk_event *e)
{
	pk_counts c = {.val = pki_mk_value(m, e), .ena = e->ena, .run = e->run,
		       .id = pki_mk_id(m, e), .lost = e->lost};
	return c;
}

int pki_mk_read_values(pk_model *m, mk_event *e, uint64_t *out, size_t cap)
{
	mk_event *l = &m->ev[e->leader];
	uint64_t rf = e->attr.read_format;
	pk_counts c[MK_READ_MAX / 3];
	size_t nr = 0;
	if (!(rf & PERF_FORMAT_GROUP))
		return pki_pd_read_values(rf, (c[0] = counts_of(m, e), c), 1, out, cap);
	for (size_t i = 0; i < m->nr_ev; i++) { /* the leader first: the lowest index */
		const mk_event *o = &m->ev[i];
		if (!o->open || o->leader != l - m->ev)
			continue;
		if (nr == PK_ARRAY_SIZE(c))
			return -ENOSPC;
		c[nr++] = counts_of(m, o);
	}
	return pki_pd_read_values(rf, c, nr, out, cap);
}

static ssize_t mk_read(const pk_kernel *k, int fd, void *buf, size_t len)
{
	pk_model *m = MK(k);
	mk_event *e = event_of(m, fd);
	uint64_t w[MK_READ_MAX];
	if (!e)
		return -EBADF;
	mk_event *l = &m->ev[e->leader];
	pki_mk_pm_read(m, l);
	pki_mk_publish_group(m, l); /* the registers were read and cleared */
	int n = pki_mk_read_values(m, e, w, MK_READ_MAX);
	if (n < 0 || (size_t)n * sizeof(uint64_t) > len)
		return -ENOSPC;
	memcpy(buf, w, (size_t)n * sizeof(uint64_t));
	return (ssize_t)n * (ssize_t)sizeof(uint64_t);
}

/* IOC_RESET: the count to 0; the counter keeps its value (pmc_off follows
 * the count), PERF_METRICS and SLOTS are cleared together. */
static void reset_event(pk_model *m, mk_event *e, mk_event *l)
{
	uint64_t before = pki_mk_value(m, e);
	e->base = pki_mk_whole(e->acc);
	e->pmc_off -= (int64_t)(before - pki_mk_value(m, e));
	if (e->kind == MK_PM_SLOTS || e->kind == MK_PM_METRIC) {
		pki_pm_reset(&l->regs);
		l->pmcount[e->kind == MK_PM_SLOTS ? 0 : 1 + e->field] = 0;
	}
}

/* SET_OUTPUT (arg: the target fd, -1 for none) and PERIOD (arg: a u64 *). */
static int ioctl_sampling(pk_model *m, mk_event *e, unsigned long req, unsigned long arg)
{
	pk_error err;
	if (req == PERF_EVENT_IOC_SET_OUTPUT) {
		mk_event *t = (int)arg == -1 ? NULL : event_of(m, (int)arg);
		if ((int)arg != -1 && !t)
			return pki_mk_refuse(m, -EBADF, "SET_OUTPUT: %d is not an open event", (int)arg);
		return pki_mk_set_output(m, e, t);
	}
	if (!e->sampling)
		return pki_mk_refuse(m, -EINVAL, "PERF_EVENT_IOC_PERIOD on an event that does not "
						 "sample");
	pk_error_clear(&err);
	int r = pki_overflow_set_period(&e->ovf, *(const uint64_t *)arg, &err);
	return r < 0 ? pki_mk_refuse(m, r, "%s", err.msg) : 0;
}

static int mk_ioctl(const pk_kernel *k, int fd, unsigned long req, unsigned long arg)
{
	pk_model *m = MK(k);
	mk_event *e = event_of(m, fd);
	if (!e)
		return -EBADF;
	if (req == PERF_EVENT_IOC_ID) {
		*(uint64_t *)arg = pki_mk_id(m, e);
		return 0;
	}
	if (req == PERF_EVENT_IOC_SET_OUTPUT || req == PERF_EVENT_IOC_PERIOD)
		return ioctl_sampling(m, e, req, arg);
	if (req != PERF_EVENT_IOC_ENABLE && req != PERF_EVENT_IOC_DISABLE &&
	    req != PERF_EVENT_IOC_RESET)
		return pki_mk_refuse(m, -ENOTTY, "the model does not serve ioctl %#lx", req);
	bool group = arg & PERF_IOC_FLAG_GROUP;
	for (size_t i = 0; i < m->nr_ev; i++) {
		mk_event *o = &m->ev[i];
		if (!o->open || (o != e && !(group && o->leader == e->leader)))
			continue;
		if (req == PERF_EVENT_IOC_RESET)
			reset_event(m, o, &m->ev[o->leader]);
		else
			o->enabled = req == PERF_EVENT_IOC_ENABLE;
	}
	if (req != PERF_EVENT_IOC_RESET) {
		pki_mk_schedule(m, e->ctx); /* in or out of the PMU at once */
		pki_mk_spe_sync(m); /* a stopped SPE event ends its AUX handle */
	}
	for (size_t i = 0; i < m->nr_ev; i++)
		if (m->ev[i].open && m->ev[i].leader == e->leader)
			pki_mk_publish(m, &m->ev[i]);
	return 0;
}

static int mk_mmap(const pk_kernel *k, int fd, size_t len, int prot, uint64_t offset, void **addr)
{
	pk_model *m = MK(k);
	mk_event *e = event_of(m, fd);
	return e ? pki_mk_mmap(m, e, len, prot, offset, addr) : -EBADF;
}

static int mk_munmap(const pk_kernel *k, void *addr, size_t len)
{
	return pki_mk_munmap(MK(k), addr, len);
}

static int mk_close(const pk_kernel *k, int fd)
{
	mk_event *e = event_of(MK(k), fd);
	if (!e)
		return -EBADF;
	e->open = false;
	return 0;
}

/* Readiness now: POLLIN once per ring wakeup, POLLHUP once the followed
 * thread has ended, POLLNVAL for a closed fd. peek: leave POLLIN pending. */
static int poll_now(pk_model *m, struct pollfd *fds, size_t nr, bool peek)
{
	int n = 0;
	for (size_t i = 0; i < nr; i++) {
		mk_event *e = fds[i].fd >= 0 ? event_of(m, fds[i].fd) : NULL;
		fds[i].revents = 0;
		if (fds[i].fd < 0)
			continue;
		if (!e)
			fds[i].revents = POLLNVAL;
		else if (e->map && e->ring.size)
			fds[i].revents = peek ? (e->ring.pollin ? POLLIN : 0)
					      : pki_ring_revents(&e->ring);
		if (e && e->pid > 0 && m->now >= m->thread_end[e->ctx])
			fds[i].revents |= POLLHUP;
		fds[i].revents &= (short)(fds[i].events | POLLHUP | POLLNVAL);
		n += fds[i].revents != 0;
	}
	return n;
}

/* Waiting is in virtual time: with nothing ready, the model runs until a
 * ring wakes its reader, timeout_ms pass (-1: no limit) or the scenario
 * ends. */
static int mk_poll(const pk_kernel *k, struct pollfd *fds, size_t nr, int timeout_ms)
{
	pk_model *m = MK(k);
	uint64_t limit = timeout_ms < 0 ? UINT64_MAX : m->now + (uint64_t)timeout_ms * 1000000u;
	if (limit > m->end)
		limit = m->end;
	while (poll_now(m, fds, nr, true) == 0 && m->now < limit)
		pki_mk_run_to(m, limit, true);
	return poll_now(m, fds, nr, false);
}

static size_t mk_explain(const pk_kernel *k, char *buf, size_t len)
{
	const pk_model *m = MK(k);
	if (!m->reason[0] || !len)
		return 0;
	snprintf(buf, len, "%s", m->reason);
	return strlen(buf);
}

/* ---- the seam's simulated-kernel entries (kernel.h): over the model's API */

static int mk_rdpmc(const pk_kernel *k, pid_t tid, uint32_t ecx, uint64_t *value)
{
	return pk_model_rdpmc(MK(k), tid, ecx, value, NULL);
}

static uint64_t mk_now(const pk_kernel *k)
{
	return pk_model_now(MK(k));
}

static void mk_run_to(const pk_kernel *k, uint64_t ns)
{
	pk_model *m = MK(k);
	uint64_t end = pk_model_end(m);
	if (ns >= end)
		ns = end - 1;
	if (ns > m->now)
		pk_model_advance(m, ns - m->now);
}

static const char *mk_sysfs_root(const pk_kernel *k)
{
	return pk_model_sysfs_root(MK(k));
}

static const char *mk_source(const pk_kernel *k)
{
	return pk_model_scenario(MK(k));
}

static const pk_kernel_ops calls = {
	.open = mk_open,
	.read = mk_read,
	.ioctl = mk_ioctl,
	.mmap = mk_mmap,
	.munmap = mk_munmap,
	.close = mk_close,
	.poll = mk_poll,
	.explain = mk_explain,
	.rdpmc = mk_rdpmc,
	.now = mk_now,
	.run_to = mk_run_to,
	.sysfs_root = mk_sysfs_root,
	.source = mk_source,
};

void pki_mk_ops(pk_kernel_ops *ops)
{
	*ops = calls;
	ops->host = pki_mk_host_ops;
}
