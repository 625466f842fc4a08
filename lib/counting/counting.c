/* Counting sessions: open every evsel on (cpu, thread) through the kernel
 * seam, read (plain and group), enable/disable/reset, aggregate. */
#include <pmukit/counting.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>

#include "core/util.h"
#include "events/ast.h"
#include "events/evlist_internal.h"

/* Per-evsel state; the evsel itself belongs to the events module and is
 * never written here: what an open changes (a member counted apart from its
 * leader, the user-space fallback) is kept in this state and applied to a
 * copy of the attr, `open`, packed again at every pk_counting_open. */
typedef union attr_buf {
	struct perf_event_attr attr;
	unsigned char bytes[PK_ATTR_SIZE_CONFIG3 + 64];
} attr_buf;

typedef struct evsel_state {
	attr_buf open;             /* the attr as opened (before the per-open tweak) */
	bool apart;                /* a member counted apart: starts as its leader would */
	bool weak_apart;           /* of a weak group (:W) the PMU refused: opened alone */
	bool user_only;            /* the EACCES fallback: exclude_kernel, exclude_hv */
	char *name;                /* the name as opened ("cycles:u"); NULL: the evsel's */
	pk_cpumap *cpus;           /* where it is opened; {-1} in per-thread counting */
	int ncpu;
	int group;                 /* evsel index of the leader it is opened with */
	int *fd;                   /* [ncpu * nthr], -1 where not open */
	uint64_t *id;
	pk_counts *cur, *prev;
	pk_open_status status;
	int err;                   /* positive errno of the failure */
	int fail_cpu;              /* where it failed */
	pid_t fail_tid;
	char why[400];             /* the kernel's own reason (ops.explain), "" */
} evsel_state;

struct pk_counting {
	pk_evlist *evlist;
	const pk_kernel *k;
	pk_counting_opts opts;
	pk_cpumap *target_cpus;    /* NULL: per-thread */
	pk_threadmap *threads;
	int nthr;
	bool *thread_gone;         /* exited before we could open on it */
	size_t nr;
	evsel_state *st;
	bool any_open;
	uint64_t tool[PK_TOOL_NR];  /* the tool events' values (pk_counting_set_tool) */
};

void pk_counting_opts_init(pk_counting_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->skip_unsupported = true;
	o->exclude_kernel_fallback = true;
	o->drop_exited_threads = true;
	o->paranoid = INT_MIN;
	o->perfmon_capable = -1;
}

static int paranoid_of(pk_counting *c)
{
	if (c->opts.paranoid == INT_MIN)
		c->opts.paranoid = (int)pk_host_number(c->k, PK_HOST_PARANOID, INT_MIN);
	return c->opts.paranoid;
}

static bool perfmon_capable_of(pk_counting *c)
{
	if (c->opts.perfmon_capable < 0)
		c->opts.perfmon_capable = pk_host_number(c->k, PK_HOST_PERFMON_CAPABLE, 0) > 0;
	return c->opts.perfmon_capable > 0;
}

static evsel_state *state(const pk_counting *c, size_t idx)
{
	return idx < c->nr ? &c->st[idx] : NULL;
}

static size_t slot(const pk_counting *c, int ci, int ti)
{
	return (size_t)ci * (size_t)c->nthr + (size_t)ti;
}

static void state_free(evsel_state *s)
{
	free(s->name);
	pk_cpumap_put(s->cpus);
	free(s->fd);
	free(s->id);
	free(s->cur);
	free(s->prev);
}

void pk_counting_free(pk_counting *c)
{
	if (!c)
		return;
	pk_counting_close(c);
	for (size_t i = 0; i < c->nr; i++)
		state_free(&c->st[i]);
	free(c->st);
	free(c->thread_gone);
	pk_cpumap_put(c->target_cpus);
	pk_threadmap_put(c->threads);
	pk_evlist_put(c->evlist);
	free(c);
}

/* The evsel's attr with what this session changes for the open. */
static void pack_open_attr(pk_counting *c, size_t i)
{
	const pk_evsel *e = pk_evlist_at(c->evlist, i);
	evsel_state *s = &c->st[i];
	struct perf_event_attr *a = &s->open.attr;
	pk_evsel_pack_attr(e, s->open.bytes);
	if (s->apart) {
		const pk_evsel *lead = pk_evlist_at(c->evlist, (size_t)e->leader);
		if (lead) {
			a->disabled = lead->attr.disabled;
			a->enable_on_exec = lead->attr.enable_on_exec;
		}
	}
	if (s->user_only) {
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
	}
	if (s->weak_apart) /* read alone, as perf reopens a failed weak group */
		a->read_format &= ~(uint64_t)(PERF_FORMAT_GROUP | PERF_FORMAT_ID);
}

static const char *name_or(const pk_counting *c, size_t i, const char *dflt)
{
	const char *n = pk_counting_name(c, i);
	return n ? n : dflt;
}

const char *pk_counting_name(const pk_counting *c, size_t i)
{
	if (i >= c->nr)
		return NULL;
	if (c->st[i].name)
		return c->st[i].name;
	return pk_evlist_at(c->evlist, i)->name;
}

size_t pk_counting_attr(const pk_counting *c, size_t i, void *buf)
{
	if (i >= c->nr)
		return 0;
	const evsel_state *s = &c->st[i];
	memcpy(buf, s->open.bytes, PK_ATTR_SIZE_CONFIG3);
	return s->open.attr.size;
}

/* An evsel's status before it is opened: on no CPU of the target, absent
 * (no PMU here counts it: never opened), or still to open. */
static pk_open_status preset_status(const pk_evsel *e, const evsel_state *s)
{
	if (s->ncpu == 0)
		return PK_OPEN_NO_CPUS;
	return e->absent ? PK_OPEN_UNSUPPORTED : PK_OPEN_NONE;
}

/* The CPUs an evsel is opened on, from the target and its PMU. */
static pk_cpumap *evsel_cpus(const pk_counting *c, const pk_evsel *e)
{
	if (c->target_cpus) {
		if (e->cpus)
			return pk_cpumap_intersect(e->cpus, c->target_cpus);
		return pk_cpumap_get(c->target_cpus);
	}
	/* Per-thread counting: cpu -1, except PMUs that only count per CPU
	 * (a cpumask file, as uncore and SPE have), which perf opens on the mask. */
	if (e->cpus && e->pmu && e->pmu->cpus_from_mask)
		return pk_cpumap_get(e->cpus);
	return pk_cpumap_any();
}

pk_counting *pk_counting_new(pk_evlist *evlist, const pk_counting_opts *opts, pk_error *err)
{
	pk_counting *c = calloc(1, sizeof(*c));
	if (!c) {
		pk_err(err, -ENOMEM, "out of memory");
		return NULL;
	}
	if (opts)
		c->opts = *opts;
	else
		pk_counting_opts_init(&c->opts);
	c->k = c->opts.kernel ? c->opts.kernel : pk_kernel_linux();
	c->evlist = pk_evlist_get(evlist);
	c->target_cpus = pk_cpumap_get(c->opts.cpus);
	if (c->opts.threads)
		c->threads = pk_threadmap_get(c->opts.threads);
	else if (c->target_cpus)
		c->threads = pk_threadmap_any();
	else {
		pk_err(err, -EINVAL, "nothing to count on: give CPUs (-a, -C) or tasks (a command, -p, -t)");
		pk_counting_free(c);
		return NULL;
	}
	c->opts.cpus = NULL; /* held in target_cpus / threads; not to be used after return */
	c->opts.threads = NULL;
	c->nthr = pk_threadmap_nr(c->threads);
	c->nr = pk_evlist_count(evlist);
	c->st = calloc(c->nr ? c->nr : 1, sizeof(*c->st));
	c->thread_gone = calloc((size_t)(c->nthr > 0 ? c->nthr : 1), sizeof(bool));
	if (!c->threads || !c->st || !c->thread_gone)
		goto oom;
	for (size_t i = 0; i < c->nr; i++) {
		pk_evsel *e = pk_evlist_at(evlist, i);
		evsel_state *s = &c->st[i];
		s->group = e->leader;
		s->cpus = evsel_cpus(c, e);
		if (!s->cpus)
			goto oom;
		s->ncpu = pk_cpumap_nr(s->cpus);
		size_t n = slot(c, s->ncpu, 0);
		s->fd = malloc((n ? n : 1) * sizeof(int));
		s->id = calloc(n ? n : 1, sizeof(uint64_t));
		s->cur = calloc(n ? n : 1, sizeof(pk_counts));
		s->prev = calloc(n ? n : 1, sizeof(pk_counts));
		if (!s->fd || !s->id || !s->cur || !s->prev)
			goto oom;
		for (size_t k = 0; k < n; k++)
			s->fd[k] = -1;
		s->status = preset_status(e, s);
		/* A member must be opened on its leader's CPUs; when they differ
		 * (hybrid PMUs in one group), perf counts it outside the group. */
		if (s->group != (int)i && (s->group < 0 || (size_t)s->group >= i ||
					   !pk_cpumap_equal(c->st[s->group].cpus, s->cpus))) {
			pk_evsel *lead = pk_evlist_at(evlist, (size_t)(s->group >= 0 ? s->group : 0));
			pk_evlist_warn(evlist,
				       "grouped events cpus do not match, disabling group: "
				       "'%s' is counted apart from its leader '%s'",
				       e->name ? e->name : "?", lead && lead->name ? lead->name : "?");
			s->group = (int)i;
			s->apart = true; /* it starts on its own, when its leader would have */
		}
		pack_open_attr(c, i);
	}
	return c;
oom:
	pk_err(err, -ENOMEM, "out of memory");
	pk_counting_free(c);
	return NULL;
}

static void close_evsel(pk_counting *c, evsel_state *s)
{
	size_t n = slot(c, s->ncpu, 0);
	for (size_t k = 0; k < n; k++) {
		if (s->fd[k] >= 0)
			c->k->ops->close(c->k, s->fd[k]);
		s->fd[k] = -1;
		s->id[k] = 0;
	}
}

void pk_counting_close(pk_counting *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++) {
		close_evsel(c, &c->st[i]);
		size_t n = slot(c, c->st[i].ncpu, 0);
		memset(c->st[i].cur, 0, n * sizeof(pk_counts));
		memset(c->st[i].prev, 0, n * sizeof(pk_counts));
	}
	c->any_open = false;
}

static bool errno_unsupported(int e)
{
	switch (e) {
	case ENOENT:
	case EOPNOTSUPP:
	case EINVAL:
	case ENXIO:
	case ENODEV:
	case ENOSYS:
	case E2BIG:
		return true;
	default:
		return false;
	}
}

/* Does the name end in a modifier string ("cycles:k", "cpu/.../")? The
 * last ':' segment of "sched:sched_switch" or "mem:0x10:rw" is not one. */
static bool name_has_mods(const char *name)
{
	size_t n = strlen(name);
	if (n && name[n - 1] == '/')
		return true;
	const char *colon = strrchr(name, ':');
	if (!colon || colon == name || colon[-1] == ':' || !colon[1])
		return false;
	return strspn(colon + 1, PK_MODIFIER_CHARS) == strlen(colon + 1);
}

/* perf's user-space-only fallback counts "cycles" as "cycles:u". */
static int fall_back_to_user(pk_counting *c, size_t i)
{
	evsel_state *s = &c->st[i];
	const char *name = pk_counting_name(c, i);
	s->user_only = true;
	pack_open_attr(c, i);
	if (!name)
		return 0;
	size_t n = strlen(name);
	bool has_mods = name_has_mods(name);
	char *nn = malloc(n + 3);
	if (!nn)
		return -ENOMEM;
	snprintf(nn, n + 3, "%s%su", name, has_mods ? "" : ":");
	free(s->name);
	s->name = nn;
	return 0;
}

/* Ids are needed to match group reads (PERF_FORMAT_ID) and samples to
 * events; plain counting needs none and saves an ioctl per fd. */
static bool wants_id(const struct perf_event_attr *a)
{
	bool samples = a->sample_period != 0; /* sample_freq shares the field */
	return (a->read_format & PERF_FORMAT_ID) ||
	       (samples && (a->sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)));
}

/* Whether a failure of member i takes its weak group apart (perf's :W,
 * its evlist__reset_weak_group): the leader's group is weak and has a
 * member to take apart (Intel's metric events stay with their slots
 * leader: they count only there). */
static bool weak_group_splits(const pk_counting *c, size_t i)
{
	size_t li = (size_t)c->st[i].group;
	const pk_evsel *lead = pk_evlist_at(c->evlist, li);
	if (li == i || !lead->weak_group)
		return false;
	bool slots = lead->td_role == 1;
	for (size_t j = li + 1; j < c->nr; j++)
		if (c->st[j].group == (int)li && !(slots && pk_evlist_at(c->evlist, j)->td_role == 2))
			return true;
	return false;
}

/* open_evsel's answer for a member of a weak group that failed */
enum { WEAK_GROUP_FAILED = 1 };

/* Opens one evsel on all its pairs. Returns 0 (open, skipped or marked
 * unsupported), WEAK_GROUP_FAILED, or a negative errno that stops the
 * whole open. */
static int open_evsel(pk_counting *c, size_t i, pk_error *err)
{
	pk_evsel *e = pk_evlist_at(c->evlist, i);
	evsel_state *s = &c->st[i];
	evsel_state *lead = s->group != (int)i ? &c->st[s->group] : NULL;
	unsigned long flags = c->opts.open_flags | PERF_FLAG_FD_CLOEXEC;
	if (s->status == PK_OPEN_NO_CPUS || s->status == PK_OPEN_UNSUPPORTED)
		return 0; /* preset: never opened */
	if (lead && lead->status != PK_OPEN_OK) {
		s->status = PK_OPEN_GROUP_FAILED;
		return 0;
	}
	s->err = 0;
retry:
	for (int ci = 0; ci < s->ncpu; ci++) {
		int cpu = pk_cpumap_cpu(s->cpus, ci);
		int lci = lead ? pk_cpumap_idx(lead->cpus, cpu) : -1;
		for (int ti = 0; ti < c->nthr; ti++) {
			pid_t tid = pk_threadmap_tid(c->threads, ti);
			int group_fd = -1;
			if (c->thread_gone[ti])
				continue;
			if (lead) {
				group_fd = lci >= 0 ? lead->fd[slot(c, lci, ti)] : -1;
				if (group_fd < 0)
					continue; /* the leader is not on this pair */
			}
			attr_buf buf = s->open; /* a copy: the tweak may change it per open */
			int fd = 0;
			if (c->opts.tweak)
				fd = c->opts.tweak(c->opts.tweak_arg, e, cpu, tid, &buf.attr);
			if (fd == 0)
				fd = c->k->ops->open(c->k, &buf.attr, tid, cpu, group_fd, flags);
			if (fd >= 0) {
				size_t k = slot(c, ci, ti);
				s->fd[k] = fd;
				if (wants_id(&buf.attr)) {
					uint64_t id = 0;
					int r = c->k->ops->ioctl(c->k, fd, PERF_EVENT_IOC_ID,
								 (unsigned long)&id);
					s->id[k] = r < 0 ? 0 : id;
				}
				continue;
			}
			int en = -fd;
			s->why[0] = '\0';
			if (c->k->ops->explain)
				c->k->ops->explain(c->k, s->why, sizeof(s->why));
			if (en == ESRCH && c->opts.drop_exited_threads && c->nthr > 1 && tid != -1) {
				c->thread_gone[ti] = true;
				continue;
			}
			s->err = en;
			s->fail_cpu = cpu;
			s->fail_tid = tid;
			if ((en == EACCES || en == EPERM) && c->opts.exclude_kernel_fallback &&
			    !s->open.attr.exclude_kernel && paranoid_of(c) > 1 && !perfmon_capable_of(c)) {
				close_evsel(c, s);
				if (fall_back_to_user(c, i) < 0)
					return pk_err(err, -ENOMEM, "out of memory");
				s->err = 0;
				goto retry;
			}
			/* a weak group the PMU cannot hold: opened ungrouped (perf's :W) */
			if (lead && (en == EINVAL || en == EBADF) && weak_group_splits(c, i)) {
				close_evsel(c, s);
				return WEAK_GROUP_FAILED;
			}
			if (c->opts.skip_unsupported && errno_unsupported(en)) {
				close_evsel(c, s);
				s->status = PK_OPEN_UNSUPPORTED;
				return 0;
			}
			s->status = PK_OPEN_UNSUPPORTED;
			pk_counting_explain(c, i, NULL, err);
			return -en;
		}
	}
	s->status = PK_OPEN_OK;
	return 0;
}

/* perf's weak group fallback: the group of member i is closed and its
 * events opened one by one (metric events kept with their slots leader),
 * said as perf says it (-v); returns the leader's index, where the open
 * starts again. */
static size_t ungroup_weak(pk_counting *c, size_t i)
{
	size_t li = (size_t)c->st[i].group;
	const pk_evsel *lead = pk_evlist_at(c->evlist, li);
	bool slots = lead->td_role == 1, kept = false;
	pk_evlist_warn(c->evlist, "Weak group for %s/%d failed", lead->name ? lead->name : "?",
		       lead->nr_members);
	for (size_t k = li; k < c->nr; k++) {
		evsel_state *s = &c->st[k];
		if (s->group != (int)li)
			continue;
		close_evsel(c, s);
		s->status = preset_status(pk_evlist_at(c->evlist, k), s);
		s->err = 0;
		if (k == li || (slots && pk_evlist_at(c->evlist, k)->td_role == 2)) {
			kept |= k != li;
			continue; /* the leader, and metric events with their slots */
		}
		s->group = (int)k;
		s->apart = true; /* it starts as its leader would have */
		s->weak_apart = true;
		pack_open_attr(c, k);
	}
	c->st[li].weak_apart = !kept; /* alone now: read alone */
	pack_open_attr(c, li);
	return li;
}

int pk_counting_open(pk_counting *c, pk_error *err)
{
	pk_counting_close(c);
	memset(c->thread_gone, 0, (size_t)(c->nthr > 0 ? c->nthr : 1) * sizeof(bool));
	for (size_t i = 0; i < c->nr; i++) {
		c->st[i].status = preset_status(pk_evlist_at(c->evlist, i), &c->st[i]);
		c->st[i].err = 0;
		pack_open_attr(c, i); /* the evsel as it is now, with this session's changes */
	}
	for (size_t i = 0; i < c->nr; i++) {
		int r = open_evsel(c, i, err);
		if (r == WEAK_GROUP_FAILED) {
			i = ungroup_weak(c, i) - 1; /* size_t wraps; the loop's ++ undoes it */
			continue;
		}
		if (r < 0) {
			pk_counting_close(c);
			return r;
		}
	}
	c->any_open = true;
	return 0;
}

/* Runs one ioctl on the fds of every open evsel (leaders only when
 * leaders_only: enabling a leader starts its group). */
static int ioctl_all(pk_counting *c, unsigned long req, bool leaders_only, const char *what,
		     pk_error *err)
{
	for (size_t i = 0; i < c->nr; i++) {
		evsel_state *s = &c->st[i];
		if (s->status != PK_OPEN_OK || (leaders_only && s->group != (int)i))
			continue;
		size_t n = slot(c, s->ncpu, 0);
		for (size_t k = 0; k < n; k++) {
			if (s->fd[k] < 0)
				continue;
			int r = c->k->ops->ioctl(c->k, s->fd[k], req, 0);
			if (r < 0) {
				return pk_err(err, r, "cannot %s '%s': %s", what, name_or(c, i, "?"),
					      strerror(-r));
			}
		}
	}
	return 0;
}

int pk_counting_enable(pk_counting *c, pk_error *err)
{
	return ioctl_all(c, PERF_EVENT_IOC_ENABLE, true, "enable", err);
}

int pk_counting_disable(pk_counting *c, pk_error *err)
{
	return ioctl_all(c, PERF_EVENT_IOC_DISABLE, true, "disable", err);
}

int pk_counting_reset(pk_counting *c, pk_error *err)
{
	return ioctl_all(c, PERF_EVENT_IOC_RESET, false, "reset", err);
}

static bool reads_group(const pk_counting *c, size_t i)
{
	return (c->st[i].open.attr.read_format & PERF_FORMAT_GROUP) != 0;
}

/* Puts a group reading on the members opened with leader li on slot k. The
 * kernel lists the leader, then members in the order they were opened;
 * with ids, values are matched by id (robust to members it refused). */
static void spread_group(pk_counting *c, size_t li, size_t k, int ci, const pk_counts *vals,
			 int n)
{
	evsel_state *ls = &c->st[li];
	int cpu = pk_cpumap_cpu(ls->cpus, ci);
	int ti = (int)(k % (size_t)c->nthr);
	int ord = 0;
	for (size_t j = li; j < c->nr && ord < n; j++) {
		evsel_state *s = &c->st[j];
		if (s->group != (int)li || s->status != PK_OPEN_OK)
			continue;
		int mci = j == li ? ci : pk_cpumap_idx(s->cpus, cpu);
		if (mci < 0)
			continue;
		size_t mk = slot(c, mci, ti);
		if (s->fd[mk] < 0)
			continue;
		const pk_counts *v = &vals[ord];
		if (s->id[mk]) {
			v = NULL;
			for (int x = 0; x < n; x++)
				if (vals[x].id == s->id[mk])
					v = &vals[x];
		}
		if (v)
			s->cur[mk] = *v;
		ord++;
	}
}

void pk_counting_set_tool(pk_counting *c, pk_tool_event t, uint64_t ns)
{
	if (t > PK_TOOL_NONE && t < PK_TOOL_NR)
		c->tool[t] = ns;
}

/* Evsel i's reading when it is a tool event: its value in the first slot
 * open (perf's count, enabled and running times alike); false otherwise. */
static bool tool_read(pk_counting *c, size_t i)
{
	pk_tool_event t = pk_evsel_tool(pk_evlist_at(c->evlist, i));
	evsel_state *s = &c->st[i];
	if (!t)
		return false;
	bool first = true;
	for (size_t k = 0; k < slot(c, s->ncpu, 0); k++) {
		uint64_t v = first && s->fd[k] >= 0 ? c->tool[t] : 0;
		first &= s->fd[k] < 0;
		s->cur[k] = (pk_counts){.val = v, .ena = v, .run = v};
	}
	return true;
}

int pk_counting_read(pk_counting *c, pk_error *err)
{
	size_t maxw = 5;
	for (size_t i = 0; i < c->nr; i++)
		if (c->st[i].group == (int)i)
			maxw = maxw > 3 + 3 * c->nr ? maxw : 3 + 3 * c->nr;
	uint64_t *buf = malloc(maxw * sizeof(uint64_t));
	pk_counts *vals = malloc((c->nr ? c->nr : 1) * sizeof(pk_counts));
	int ret = 0;
	if (!buf || !vals) {
		ret = pk_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->nr; i++) {
		evsel_state *s = &c->st[i];
		size_t n = slot(c, s->ncpu, 0);
		memcpy(s->prev, s->cur, n * sizeof(pk_counts));
	}
	for (size_t i = 0; i < c->nr && ret == 0; i++) {
		evsel_state *s = &c->st[i];
		bool group_read = reads_group(c, i);
		if (s->status != PK_OPEN_OK)
			continue;
		if (tool_read(c, i) || pk_evsel_tool(pk_evlist_at(c->evlist, (size_t)s->group)))
			continue; /* a tool event's own value; its group is not read */
		/* members of a group read come with their leader's read */
		if (group_read && s->group != (int)i)
			continue;
		for (int ci = 0; ci < s->ncpu && ret == 0; ci++) {
			for (int ti = 0; ti < c->nthr; ti++) {
				size_t k = slot(c, ci, ti);
				if (s->fd[k] < 0)
					continue;
				ssize_t got = c->k->ops->read(c->k, s->fd[k], buf, maxw * sizeof(uint64_t));
				int nv = got < 0 ? (int)got
						 : pk_counts_parse(s->open.attr.read_format, buf, (size_t)got,
								   vals, c->nr);
				if (nv < 0) {
					ret = pk_err(err, nv, "cannot read '%s' (cpu %d, tid %d): %s",
						     name_or(c, i, "?"), pk_cpumap_cpu(s->cpus, ci),
						     (int)pk_threadmap_tid(c->threads, ti),
						     got < 0 ? strerror((int)-got)
							     : "unexpected read layout");
					break;
				}
				if (group_read)
					spread_group(c, i, k, ci, vals, nv);
				else
					s->cur[k] = vals[0];
			}
		}
	}
out:
	free(buf);
	free(vals);
	return ret;
}

pk_evlist *pk_counting_evlist(const pk_counting *c)
{
	return c->evlist;
}

const pk_kernel *pk_counting_kernel(const pk_counting *c)
{
	return c->k;
}

pk_threadmap *pk_counting_threads(const pk_counting *c)
{
	return c->threads;
}

pk_cpumap *pk_counting_cpus(const pk_counting *c, size_t idx)
{
	evsel_state *s = state(c, idx);
	return s ? s->cpus : NULL;
}

pk_open_status pk_counting_status(const pk_counting *c, size_t idx)
{
	evsel_state *s = state(c, idx);
	return s ? s->status : PK_OPEN_NONE;
}

long pk_counting_leader(const pk_counting *c, size_t idx)
{
	evsel_state *s = state(c, idx);
	return s ? s->group : -1;
}

int pk_counting_errno(const pk_counting *c, size_t idx)
{
	evsel_state *s = state(c, idx);
	return s ? s->err : 0;
}

static bool valid_slot(const pk_counting *c, const evsel_state *s, int ci, int ti)
{
	return s && ci >= 0 && ci < s->ncpu && ti >= 0 && ti < c->nthr;
}

int pk_counting_fd(const pk_counting *c, size_t idx, int ci, int ti)
{
	evsel_state *s = state(c, idx);
	return valid_slot(c, s, ci, ti) ? s->fd[slot(c, ci, ti)] : -1;
}

uint64_t pk_counting_id(const pk_counting *c, size_t idx, int ci, int ti)
{
	evsel_state *s = state(c, idx);
	return valid_slot(c, s, ci, ti) ? s->id[slot(c, ci, ti)] : 0;
}

const pk_counts *pk_counting_counts(const pk_counting *c, size_t idx, int ci, int ti)
{
	static const pk_counts zero;
	evsel_state *s = state(c, idx);
	return valid_slot(c, s, ci, ti) ? &s->cur[slot(c, ci, ti)] : &zero;
}

int pk_counting_nr_aggr(const pk_counting *c, size_t idx, pk_aggr_mode mode)
{
	evsel_state *s = state(c, idx);
	if (!s)
		return 0;
	switch (mode) {
	case PK_AGGR_CPU:
		return s->ncpu;
	case PK_AGGR_THREAD:
		return c->nthr;
	default:
		return 1;
	}
}

static void add_counts(pk_counts *sum, const pk_counts *a, const pk_counts *b)
{
	/* b is the earlier reading for a delta, or NULL */
	sum->val += a->val - (b ? b->val : 0);
	sum->ena += a->ena - (b ? b->ena : 0);
	sum->run += a->run - (b ? b->run : 0);
	sum->lost += a->lost - (b ? b->lost : 0);
}

int pk_counting_aggr(const pk_counting *c, size_t idx, pk_aggr_mode mode, int bucket, bool delta,
		     pk_counts *out, int *key)
{
	evsel_state *s = state(c, idx);
	memset(out, 0, sizeof(*out));
	if (key)
		*key = -1;
	if (!s || bucket < 0 || bucket >= pk_counting_nr_aggr(c, idx, mode))
		return -EINVAL;
	int c0 = 0, c1 = s->ncpu, t0 = 0, t1 = c->nthr;
	if (mode == PK_AGGR_CPU) {
		c0 = bucket;
		c1 = bucket + 1;
		if (key)
			*key = pk_cpumap_cpu(s->cpus, bucket);
	} else if (mode == PK_AGGR_THREAD) {
		t0 = bucket;
		t1 = bucket + 1;
		if (key)
			*key = pk_threadmap_tid(c->threads, bucket);
	}
	for (int ci = c0; ci < c1; ci++)
		for (int ti = t0; ti < t1; ti++) {
			size_t k = slot(c, ci, ti);
			if (s->fd[k] >= 0)
				add_counts(out, &s->cur[k], delta ? &s->prev[k] : NULL);
		}
	return 0;
}

/* ---- Explaining failures ------------------------------------------------ */

/* Bits of config word `word` that some format field of the PMU covers. */
static uint64_t format_mask(const pk_pmu *pmu, int word)
{
	uint64_t m = 0;
	for (size_t f = 0; f < pmu->nr_formats; f++) {
		const pk_format *fmt = &pmu->formats[f];
		if (fmt->word != word)
			continue;
		for (int r = 0; r < fmt->nr_ranges; r++)
			for (unsigned b = fmt->ranges[r].lo; b <= fmt->ranges[r].hi && b < 64; b++)
				m |= 1ull << b;
	}
	return m;
}

static bool is_hw_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

static void explain_einval(const pk_counting *c, size_t i, const pk_evsel *e, pk_error *err)
{
	const evsel_state *s = &c->st[i];
	const struct perf_event_attr *a = &s->open.attr;
	const pk_pmu *pmu = e->pmu;
	pk_err(err, -EINVAL, "the kernel rejected '%s' (type %u, config %#llx): invalid argument",
	       name_or(c, i, "event"), a->type, (unsigned long long)a->config);
	if (pmu && pmu->cpus_from_mask && s->fail_cpu == -1) {
		pk_err_hint(err, "  PMU '%s' counts per CPU only (it has a cpumask): use -a or -C",
			    pmu->name);
		return;
	}
	if (a->precise_ip) {
		pk_err_hint(err, "  most likely precise_ip=%u (the :p modifiers): the PMU does not "
				 "support that precision; use fewer p's",
			    (unsigned)a->precise_ip);
		return;
	}
	if (s->group != (int)i) {
		const pk_evsel *lead = pk_evlist_at(c->evlist, (size_t)s->group);
		if (lead->pmu && pmu && lead->pmu != pmu && lead->pmu->kind != PK_PMU_SOFTWARE &&
		    pmu->kind != PK_PMU_SOFTWARE) {
			pk_err_hint(err, "  most likely the group: it mixes PMUs '%s' and '%s', which "
					 "the kernel refuses in one group",
				    lead->pmu->name, pmu->name);
			return;
		}
		pk_err_hint(err, "  most likely the group: the PMU cannot schedule these events "
				 "together; try them without {}");
		return;
	}
	if (pmu && pmu->nr_formats && a->type == pmu->type) {
		uint64_t cfg[3] = {a->config, a->config1, a->config2};
		for (int w = 0; w < 3; w++) {
			uint64_t extra = cfg[w] & ~format_mask(pmu, w);
			if (extra) {
				pk_err_hint(err, "  most likely %s=%#llx: bits %#llx are outside every "
						 "format field of PMU '%s'",
					    pk_config_word_name(w), (unsigned long long)cfg[w],
					    (unsigned long long)extra, pmu->name);
				return;
			}
		}
	}
	if (a->config1 || a->config2) {
		pk_err_hint(err, "  most likely config1=%#llx/config2=%#llx: an extra field (ldlat, "
				 "offcore_rsp, frontend ...) has a value the PMU refuses",
			    (unsigned long long)a->config1, (unsigned long long)a->config2);
		return;
	}
	if (a->exclude_user || a->exclude_kernel || a->exclude_hv || a->exclude_idle ||
	    a->exclude_host || a->exclude_guest) {
		pk_err_hint(err, "  most likely the exclude_* bits (modifiers :u :k :h :H :G): "
				 "this PMU may not filter by privilege level");
		return;
	}
	pk_err_hint(err, "  most likely config=%#llx: the event code is not valid for %s",
		    (unsigned long long)a->config, pmu ? pmu->name : "this PMU type");
}

#define FTRACE_FUNCTION "ftrace:function"

/* The tracepoint that drives the kernel's function tracer. */
static bool is_ftrace_function(const pk_evsel *e)
{
	size_t n = strlen(FTRACE_FUNCTION);
	return e->attr.type == PERF_TYPE_TRACEPOINT && e->name &&
	       !strncmp(e->name, FTRACE_FUNCTION, n) && (!e->name[n] || e->name[n] == ':');
}

/* The kernel lets only CAP_PERFMON (or paranoid -1) open ftrace:function,
 * or tracepoints that sample raw data (perf_allow_tracepoint). */
static bool needs_tracepoint_privilege(const pk_evsel *e)
{
	const struct perf_event_attr *a = &e->attr;
	return is_ftrace_function(e) || (a->type == PERF_TYPE_TRACEPOINT && a->sample_period &&
					 (a->sample_type & PERF_SAMPLE_RAW));
}

/* EACCES/EPERM although the process has CAP_PERFMON: perf_event_paranoid
 * is not the cause, so advice about it would be wrong. */
static void explain_access_capable(const pk_counting *c, size_t i, const pk_evsel *e, int en,
				   pk_error *err)
{
	pk_err(err, -en, "no permission to count '%s' (%s), although pmukit runs with "
			 "CAP_PERFMON/CAP_SYS_ADMIN: kernel.perf_event_paranoid does not apply",
	       name_or(c, i, "event"), strerror(en));
	if (is_ftrace_function(e))
		pk_err_hint(err, "  " FTRACE_FUNCTION " runs the kernel's function tracer, and the "
				 "kernel refuses function tracing here: kernel lockdown (dmesg: "
				 "'Kernel is locked down') or a security module");
	else
		pk_err_hint(err, "  a security module (LSM, seccomp in a container) or kernel "
				 "lockdown refuses perf_event_open for this event");
}

static void explain_access(pk_counting *c, size_t i, const pk_evsel *e, pk_error *err)
{
	const evsel_state *s = &c->st[i];
	if (perfmon_capable_of(c)) {
		explain_access_capable(c, i, e, s->err, err);
		return;
	}
	int par = paranoid_of(c);
	bool cpu_wide = s->fail_tid == -1;
	bool kernel = !s->open.attr.exclude_kernel;
	bool tracepoint = needs_tracepoint_privilege(e);
	char pbuf[16];
	if (par == INT_MIN)
		snprintf(pbuf, sizeof(pbuf), "unknown");
	else
		snprintf(pbuf, sizeof(pbuf), "%d", par);
	pk_err(err, -s->err, "no permission to count '%s'%s (%s): kernel.perf_event_paranoid is %s",
	       name_or(c, i, "event"), cpu_wide ? " system-wide" : "", strerror(s->err), pbuf);
	int need = tracepoint ? -1 : cpu_wide ? 0 : kernel ? 1 : 2;
	pk_err_hint(err, "  perf_event_paranoid: -1 no limits, 0 CPU-wide counting allowed, 1 "
			 "kernel counting of own tasks, 2 user space of own tasks only");
	if (tracepoint)
		pk_err_hint(err, "  the kernel allows " FTRACE_FUNCTION " and raw tracepoint samples only "
				 "with CAP_PERFMON or -1: sysctl -w kernel.perf_event_paranoid=-1");
	else
		pk_err_hint(err, "  this needs %d or lower, or CAP_PERFMON (root): "
				 "sysctl -w kernel.perf_event_paranoid=%d",
			    need, need);
	if (kernel && !cpu_wide && !tracepoint)
		pk_err_hint(err, "  or count user space only: '%s:u'", name_or(c, i, "event"));
	if (!cpu_wide && s->fail_tid > 0)
		pk_err_hint(err, "  following task %d also needs ptrace access to it (same user)",
			    (int)s->fail_tid);
	if (par != INT_MIN && par <= need)
		pk_err_hint(err, "  paranoid allows it: a seccomp filter (containers) or "
				 "lockdown may block perf_event_open");
}

static void explain_emfile(const pk_counting *c, size_t i, pk_error *err)
{
	struct rlimit rl;
	size_t need = 0;
	for (size_t j = 0; j < c->nr; j++)
		need += slot(c, c->st[j].ncpu, 0);
	getrlimit(RLIMIT_NOFILE, &rl);
	pk_err(err, -EMFILE, "too many open files opening '%s': %zu counters need %zu fds, "
			     "the limit (ulimit -n) is %llu",
	       name_or(c, i, "event"), c->nr, need, (unsigned long long)rl.rlim_cur);
	pk_err_hint(err, "  raise it (ulimit -n %zu; hard limit %llu) or count fewer events, "
			 "CPUs (-C) or threads",
		    need + 64, (unsigned long long)rl.rlim_max);
}

/* x86 has four address breakpoint registers (DR0-DR3); other
 * architectures report theirs at boot (dmesg: "hw-breakpoint: found ..."). */
#if defined(__x86_64__) || defined(__i386__)
#define HOST_DEBUG_REGISTERS 4
#else
#define HOST_DEBUG_REGISTERS 0 /* unknown here */
#endif

/* ENOSPC on a breakpoint: every debug register of the CPU is taken. */
static void explain_breakpoint_slots(const pk_counting *c, size_t i,
				     pk_error *err)
{
	size_t open = 0;
	for (size_t k = 0; k < i; k++) {
		const pk_evsel *o = pk_evlist_at(c->evlist, k);
		open += o->attr.type == PERF_TYPE_BREAKPOINT && c->st[k].status == PK_OPEN_OK;
	}
	if (HOST_DEBUG_REGISTERS)
		pk_err(err, -ENOSPC, "no free breakpoint slot for '%s': the CPU has only %d debug "
				     "registers, and %zu breakpoints of this session hold some",
		       name_or(c, i, "event"), HOST_DEBUG_REGISTERS, open);
	else
		pk_err(err, -ENOSPC, "no free breakpoint slot for '%s': the CPU's breakpoint "
				     "registers are all taken (%zu by this session; dmesg "
				     "'hw-breakpoint: found' says how many there are)",
		       name_or(c, i, "event"), open);
	pk_err_hint(err, "  use fewer mem: events at once; a debugger or another perf session "
			 "may hold slots too");
}

/* ENOENT, EOPNOTSUPP, ENODEV, ENXIO: no such event here, or the PMU cannot
 * do what the attr asks (branch stacks named apart). */
static void explain_unsupported(const pk_counting *c, size_t i, const pk_pmus *pmus,
				const char *pmu, pk_error *err)
{
	const evsel_state *s = state(c, i);
	const pk_evsel *e = pk_evlist_at(c->evlist, i);
	const struct perf_event_attr *a = &s->open.attr;
	if (is_hw_type(a->type) && !e->pmu && pmus && pk_pmus_nr_core(pmus) == 0) {
		pk_err(err, -s->err, "hardware events are not supported here: no core PMU "
				     "('cpu') in %s/bus/event_source/devices, as in a VM "
				     "without PMU virtualization",
		       pk_pmus_root(pmus));
		pk_err_hint(err, "  software events (task-clock, page-faults, ...) still count");
	} else if (s->err == EOPNOTSUPP && (a->sample_type & PERF_SAMPLE_BRANCH_STACK)) {
		pk_err(err, -s->err, "'%s': %s%s%s does not support branch stack sampling "
				     "(-b/-j)",
		       name_or(c, i, "event"), pmu ? "PMU '" : "the event type", pmu ? pmu : "",
		       pmu ? "'" : "");
		pk_err_hint(err, "  branch stacks need a core PMU that records them: Intel "
				 "LBR, Arm BRBE, AMD BRS or LbrExtV2 (none in a VM without "
				 "PMU virtualization)");
	} else if (s->err == EOPNOTSUPP) {
		pk_err(err, -s->err, "'%s' is not supported by %s%s%s: the PMU cannot do what "
				     "the attr asks (privilege filters :u/:k, sampling)",
		       name_or(c, i, "event"), pmu ? "PMU '" : "the kernel", pmu ? pmu : "",
		       pmu ? "'" : "");
	} else {
		pk_err(err, -s->err, "'%s' is not supported by %s%s%s (%s): the kernel has no "
				     "such event (type %u, config %#llx)",
		       name_or(c, i, "event"), pmu ? "PMU '" : "the kernel", pmu ? pmu : "",
		       pmu ? "'" : "", strerror(s->err), a->type,
		       (unsigned long long)a->config);
	}
}

int pk_counting_explain(const pk_counting *c, size_t i, const pk_pmus *pmus, pk_error *err)
{
	const evsel_state *s = state(c, i);
	if (!s)
		return pk_err(err, -EINVAL, "no event %zu", i);
	pk_evsel *e = pk_evlist_at(c->evlist, i);
	const struct perf_event_attr *a = &s->open.attr;
	const char *pmu = e->pmu ? e->pmu->name : e->pmu_name;
	if (s->status == PK_OPEN_NO_CPUS)
		return pk_err(err, -ENODEV, "'%s' not counted: none of the chosen CPUs belongs to "
					    "PMU '%s'",
			      name_or(c, i, "event"), pmu ? pmu : "?");
	if (s->status == PK_OPEN_GROUP_FAILED) {
		return pk_err(err, -ENOENT, "'%s' not counted: its group leader '%s' could not be "
					    "opened",
			      name_or(c, i, "event"), name_or(c, (size_t)s->group, "event"));
	}
	if (!s->err)
		return 0;
	if (s->why[0]) /* the kernel said why: that beats our guess from the errno */
		return pk_err(err, -s->err, "'%s' not counted (%s): %s", name_or(c, i, "event"),
			      strerror(s->err), s->why);
	if (s->err == ENOSPC && a->type == PERF_TYPE_BREAKPOINT) {
		explain_breakpoint_slots(c, i, err);
		return -ENOSPC;
	}
	switch (s->err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case ENXIO:
		explain_unsupported(c, i, pmus, pmu, err);
		break;
	case EINVAL:
		explain_einval(c, i, e, err);
		break;
	case EACCES:
	case EPERM:
		explain_access((pk_counting *)c, i, e, err);
		break;
	case EMFILE:
		explain_emfile(c, i, err);
		break;

	case ENFILE:
		pk_err(err, -ENFILE, "the system's open file table is full opening '%s'",
		       name_or(c, i, "event"));
		pk_err_hint(err, "  raise fs.file-max or count fewer events, CPUs or threads");
		break;
	case EBUSY:
		pk_err(err, -EBUSY, "'%s': the PMU is busy (another profiler or the NMI watchdog "
				    "holds its counters)",
		       name_or(c, i, "event"));
		pk_err_hint(err, "  stop the other tool, or free a counter: "
				 "sysctl -w kernel.nmi_watchdog=0");
		break;
	case ESRCH:
		pk_err(err, -ESRCH, "cannot count '%s' on task %d: no such process (it exited?)",
		       name_or(c, i, "event"), (int)s->fail_tid);
		break;
	case E2BIG:
		pk_err(err, -E2BIG, "the kernel refused the attr size of '%s'%s", name_or(c, i, "event"),
		       e->config3 ? ": config3 needs Linux 6.3 or later" : "");
		break;
	default:
		pk_err(err, -s->err, "cannot open '%s' (cpu %d, tid %d): %s", name_or(c, i, "event"),
		       s->fail_cpu, (int)s->fail_tid, strerror(s->err));
		break;
	}
	return -s->err;
}
