/* Synthesized records: the state that existed before recording started,
 * asked of the kernel seam's host facts (tasks, comms, maps, kernel text),
 * in the form the kernel would have written. */
#include <pmukit/record.h>

#include "perfdata/pd_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include "core/util.h"

static int emit(const pk_synth *s, pk_pd_buf *b, pk_error *err)
{
	/* zeroed sample_id trailer: perf reads id 0 as "synthesized" */
	if (s->sample_id_all) {
		size_t t = pki_pd_trailer_size(s->sample_type);
		for (size_t i = 0; i < t / 8; i++)
			pk_pd_buf_u64(b, 0);
	}
	if (b->oom)
		return pk_err(err, -ENOMEM, "out of memory");
	if (b->len > 0xffff)
		return 0; /* cannot be one record (absurd file name): leave it out */
	pd_st16(b->data + 6, (uint16_t)b->len);
	return pk_pd_writer_write(s->w, b->data, b->len, err);
}

static void rec_header(pk_pd_buf *b, uint32_t type, uint16_t misc)
{
	b->len = 0;
	pk_pd_buf_u32(b, type);
	pk_pd_buf_u16(b, misc);
	pk_pd_buf_u16(b, 0);
}

static const pk_kernel *kernel_of(const pk_synth *s)
{
	return s->kernel ? s->kernel : pk_kernel_linux();
}

int pk_synth_kernel_mmap(const pk_synth *s, pk_error *err)
{
	const pk_kernel *k = kernel_of(s);
	uint64_t text = 0, etext = 0;
	if (k->ops->host.kernel_text(k, &text, &etext) < 0 || !text)
		return 0; /* addresses hidden (kptr_restrict): nothing to map */
	pk_pd_buf b = {0};
	rec_header(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	pk_pd_buf_u32(&b, (uint32_t)-1);
	pk_pd_buf_u32(&b, 0);
	pk_pd_buf_u64(&b, text);
	pk_pd_buf_u64(&b, etext > text ? etext - text : ~0ULL - text);
	pk_pd_buf_u64(&b, text);
	pk_pd_buf_name(&b, "[kernel.kallsyms]_text");
	int rc = emit(s, &b, err);
	pk_pd_buf_release(&b);
	return rc;
}

int pk_synth_comm(const pk_synth *s, pid_t pid, pid_t tid, const char *comm, pk_error *err)
{
	pk_pd_buf b = {0};
	rec_header(&b, PERF_RECORD_COMM, 0);
	pk_pd_buf_u32(&b, (uint32_t)pid);
	pk_pd_buf_u32(&b, (uint32_t)tid);
	pk_pd_buf_name(&b, comm);
	int rc = emit(s, &b, err);
	pk_pd_buf_release(&b);
	return rc;
}

/* MMAP2 of one executable mapping (perf synthesizes only those by default). */
struct maps_walk {
	const pk_synth *s;
	pid_t pid;
	pk_pd_buf b;
	pk_error *err;
	int rc;                      /* what writing failed with (err is set) */
};

static int synth_map(void *arg, const pk_host_map *m)
{
	struct maps_walk *mw = arg;
	pk_pd_buf *b = &mw->b;
	if (!(m->prot & PROT_EXEC))
		return 0;
	rec_header(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	pk_pd_buf_u32(b, (uint32_t)mw->pid);
	pk_pd_buf_u32(b, (uint32_t)mw->pid);
	pk_pd_buf_u64(b, m->start);
	pk_pd_buf_u64(b, m->end - m->start);
	pk_pd_buf_u64(b, m->pgoff);
	pk_pd_buf_u32(b, m->maj);
	pk_pd_buf_u32(b, m->min);
	pk_pd_buf_u64(b, m->ino);
	pk_pd_buf_u64(b, 0);
	pk_pd_buf_u32(b, m->prot);
	pk_pd_buf_u32(b, m->flags);
	pk_pd_buf_name(b, m->name && *m->name ? m->name : "//anon");
	return mw->rc = emit(mw->s, b, mw->err);
}

static int synth_maps(const pk_synth *s, pid_t pid, pk_error *err)
{
	const pk_kernel *k = kernel_of(s);
	struct maps_walk mw = {.s = s, .pid = pid, .err = err};
	int rc = k->ops->host.maps(k, pid, synth_map, &mw);
	pk_pd_buf_release(&mw.b);
	return mw.rc ? rc : 0; /* else gone, or not ours to read */
}

/* COMM of one thread of the process being synthesized. */
struct task_walk {
	const pk_synth *s;
	pid_t pid;
	pk_error *err;
	int rc;                      /* what a visit failed with (err is set) */
};

static int synth_thread(void *arg, pid_t tid)
{
	struct task_walk *tw = arg;
	const pk_kernel *k = kernel_of(tw->s);
	pk_host_task t;
	if (k->ops->host.task(k, tid, &t) < 0)
		return 0; /* gone meanwhile */
	return tw->rc = pk_synth_comm(tw->s, tw->pid, tid, t.comm, tw->err);
}

int pk_synth_task(const pk_synth *s, pid_t pid, bool comm_only, pk_error *err)
{
	const pk_kernel *k = kernel_of(s);
	struct task_walk tw = {.s = s, .pid = pid, .err = err};
	int rc = k->ops->host.tasks(k, pid, synth_thread, &tw);
	if (rc < 0 && !tw.rc)
		return 0; /* gone already, or not ours to see */
	if (rc == 0 && !comm_only && !s->comm_only)
		rc = synth_maps(s, pid, err);
	return rc;
}

static int synth_process(void *arg, pid_t pid)
{
	struct task_walk *tw = arg;
	return tw->rc = pk_synth_task(tw->s, pid, false, tw->err);
}

int pk_synth_all_tasks(const pk_synth *s, pk_error *err)
{
	const pk_kernel *k = kernel_of(s);
	struct task_walk tw = {.s = s, .err = err};
	int rc = k->ops->host.tasks(k, 0, synth_process, &tw);
	if (rc < 0 && !tw.rc)
		return pk_err(err, rc, "cannot list the tasks of the %s kernel: %s", k->name,
			      strerror(-rc));
	return rc;
}

int pk_synth_finished_init(const pk_synth *s, pk_error *err)
{
	uint8_t rec[8] = {0};
	pd_st32(rec, PK_RECORD_FINISHED_INIT);
	pd_st16(rec + 6, 8);
	return pk_pd_writer_write(s->w, rec, sizeof(rec), err);
}
