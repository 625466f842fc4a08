/* The non-sample records of `pmukit script --show-*-events` in perf 6.1's
 * words (perf_event__fprintf): "PERF_RECORD_<NAME>" and the record's own
 * text. The thread shown is the one the record is about (COMM, FORK,
 * EXIT, MMAP: its pid/tid; SWITCH, LOST: the sample id's), the tid and
 * time those of the record's sample id, as perf prints them. */
#include "script_side_events.h"

#include <inttypes.h>
#include <string.h>

#ifndef PERF_RECORD_MISC_SWITCH_OUT_PREEMPT
#define PERF_RECORD_MISC_SWITCH_OUT_PREEMPT (1 << 14)
#endif
#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

static unsigned kind_of(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: return SIDE_TASK;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: return SIDE_MMAP;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: return SIDE_SWITCH;
	case PERF_RECORD_LOST: return SIDE_LOST;
	case PERF_RECORD_NAMESPACES: return SIDE_NAMESPACES;
	case PERF_RECORD_CGROUP: return SIDE_CGROUP;
	case PK_RECORD_FINISHED_ROUND: return SIDE_ROUND;
	default: return 0;
	}
}

bool side_events_wants(const side_events *se, const pk_pd_event *ev, bool before)
{
	return (se->kinds & kind_of(ev->type)) && before == (ev->type == PERF_RECORD_EXIT);
}

static void text_mmap(pd_out *o, const pk_pd_event *ev, const pk_pd_rec_mmap *m)
{
	pd_out_printf(o, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (int)m->pid, (int)m->tid,
		      m->addr, m->len, m->pgoff);
	if (ev->type == PERF_RECORD_MMAP) {
		pd_out_printf(o, "]: %c %s\n", (ev->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x',
			      m->filename);
		return;
	}
	if (m->has_build_id) {
		pd_out_lit(o, " <");
		for (unsigned i = 0; i < m->build_id_size; i++)
			pd_out_printf(o, "%02x", m->build_id[i]);
		pd_out_ch(o, '>');
	} else {
		pd_out_printf(o, " %02x:%02x %" PRIu64 " %" PRIu64, m->maj, m->min, m->ino,
			      m->ino_generation);
	}
	pd_out_printf(o, "]: %c%c%c%c %s\n", (m->prot & 1) ? 'r' : '-', (m->prot & 2) ? 'w' : '-',
		      (m->prot & 4) ? 'x' : '-', (m->flags & 1) ? 's' : 'p', m->filename);
}

static void text_switch(pd_out *o, const pk_pd_event *ev)
{
	bool out = ev->misc & PERF_RECORD_MISC_SWITCH_OUT;
	const char *in_out = !out ? "IN         "
			     : (ev->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? "OUT preempt"
										: "OUT        ";
	if (ev->type == PERF_RECORD_SWITCH) {
		pd_out_printf(o, " %s\n", in_out);
		return;
	}
	uint64_t w = pk_pd_rec_u64(ev, 0);
	pd_out_printf(o, " %s  %s pid/tid: %5d/%-5d\n", in_out, out ? "next" : "prev",
		      (int)(uint32_t)w, (int)(uint32_t)(w >> 32));
}

/* "<pid>/<tid> - nr_namespaces: N" and each namespace's dev/inode, four
 * to a line, as perf_event__fprintf_namespaces (the ones the record
 * holds). */
static void text_namespaces(pd_out *o, const pk_pd_event *ev)
{
	static const char *const names[] = {"net", "uts", "ipc", "pid", "user", "mnt", "cgroup"};
	uint64_t w = pk_pd_rec_u64(ev, 0), nr = pk_pd_rec_u64(ev, 1);
	pd_out_printf(o, " %d/%d - nr_namespaces: %" PRIu64 "\n\t\t[", (int)(uint32_t)w,
		      (int)(uint32_t)(w >> 32), nr);
	for (uint64_t i = 0; i < nr && 24 + 16 * (i + 1) <= ev->size; i++) {
		if (i && i % 4 == 0)
			pd_out_lit(o, "\n\t\t ");
		pd_out_printf(o, "%u/%s: %" PRIu64 "/%#" PRIx64 "%s", (unsigned)i,
			      i < 7 ? names[i] : "UNKNOWN", pk_pd_rec_u64(ev, 2 + 2 * i),
			      pk_pd_rec_u64(ev, 3 + 2 * i), i + 1 != nr ? ", " : "]\n");
	}
}

bool pd_record_text(pd_out *o, const pk_pd_event *ev)
{
	pk_error err;
	union {
		pk_pd_rec_mmap m;
		pk_pd_rec_comm c;
		pk_pd_rec_fork f;
	} r;
	const char *path = ev->size > 16 ? (const char *)ev->data + 16 : "";
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (pk_pd_rec_mmap_parse(ev, &r.m, &err) < 0)
			return false;
		text_mmap(o, ev, &r.m);
		return true;
	case PERF_RECORD_COMM:
		if (pk_pd_rec_comm_parse(ev, &r.c, &err) < 0)
			return false;
		pd_out_printf(o, "%s: %s:%d/%d\n", r.c.exec ? " exec" : "", r.c.comm, (int)r.c.pid,
			      (int)r.c.tid);
		return true;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (pk_pd_rec_fork_parse(ev, &r.f, &err) < 0)
			return false;
		pd_out_printf(o, "(%d:%d):(%d:%d)\n", (int)r.f.pid, (int)r.f.tid, (int)r.f.ppid,
			      (int)r.f.ptid);
		return true;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: text_switch(o, ev); return true;
	case PERF_RECORD_NAMESPACES: text_namespaces(o, ev); return true;
	case PERF_RECORD_CGROUP: /* the path: the NUL-ended text after the id */
		pd_out_printf(o, " cgroup: %" PRIu64 " %.*s\n", pk_pd_rec_u64(ev, 0),
			      (int)strnlen(path, ev->size > 16 ? ev->size - 16u : 0), path);
		return true;
	default: return false;
	}
}

void side_events_print(side_events *se, pk_session *s, const pk_pd_event *ev)
{
	pd_out *o = se->out;
	if (ev->type == PK_RECORD_FINISHED_ROUND) { /* no prefix: not about a task */
		pd_out_lit(o, "PERF_RECORD_FINISHED_ROUND\n");
		return;
	}
	pk_error err;
	union {
		pk_pd_rec_mmap m;
		pk_pd_rec_comm c;
		pk_pd_rec_fork f;
	} r;
	uint32_t pid = ev->id.pid, tid = ev->id.tid; /* the thread shown */
	if ((ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2) &&
	    pk_pd_rec_mmap_parse(ev, &r.m, &err) == 0)
		pid = r.m.pid, tid = r.m.tid;
	else if (ev->type == PERF_RECORD_COMM && pk_pd_rec_comm_parse(ev, &r.c, &err) == 0)
		pid = r.c.pid, tid = r.c.tid;
	else if ((ev->type == PERF_RECORD_FORK || ev->type == PERF_RECORD_EXIT) &&
		 pk_pd_rec_fork_parse(ev, &r.f, &err) == 0)
		pid = r.f.pid, tid = r.f.tid;
	else if (ev->type == PERF_RECORD_NAMESPACES && ev->size >= 24)
		pid = (uint32_t)pk_pd_rec_u64(ev, 0), tid = (uint32_t)(pk_pd_rec_u64(ev, 0) >> 32);
	else if (kind_of(ev->type) & (SIDE_TASK | SIDE_MMAP | SIDE_NAMESPACES))
		return; /* damaged: the reader's warnings say so */
	se->prefix(se->prefix_arg, s, ev, pk_machine_comm(pk_session_machine(s), pid, tid), pid, tid);
	pd_out_lit(o, "PERF_RECORD_");
	pd_out_str(o, pk_pd_record_name(ev->type));
	if (ev->type == PERF_RECORD_LOST)
		pd_out_printf(o, " lost %" PRIu64 "\n", pk_pd_rec_u64(ev, 1));
	else
		pd_record_text(o, ev);
}
