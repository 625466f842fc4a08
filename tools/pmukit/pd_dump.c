/* pmukit CLI: perf 6.1's raw trace dump (`report -D`, `script -D`): every
 * record as it is delivered (time order), first its file offset, size and
 * bytes in hex, then the record decoded per type (the sample's fields, call
 * chain, branch stack, registers, read values), a sample's thread and dso,
 * and at the end perf's "Aggregated stats" blocks (report --stats'); for
 * script, after a record's dump, what script prints for it (its sample line,
 * its side events' lines).
 * Invariants: the text is perf's byte for byte; Arm SPE's AUXTRACE data keeps
 * its own dump (pd_spe.c), printed where the record is; nothing here changes
 * the session's state (the task state is updated by pk_session as usual). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_dump.h"
#include "pd_ipt.h"
#include "script_side_events.h"

#include <pmukit/intelpt.h>
#include <pmukit/regs.h>
#include "report_tasks.h"

#define PK_CONTEXT_USER_MARK ((uint64_t)-512) /* PERF_CONTEXT_USER */
enum { PD_USER_TYPES = 64 }; /* records of perf's own (FINISHED_ROUND ...) from here */

typedef struct dump_ctx {
	pk_session *s;
	uint64_t combined;           /* the evsels' sample_type bits, or'ed */
	bool id_all;                 /* the first evsel's sample_id_all */
	size_t nr_evsels;            /* when combined was made */
	bool branch_view;            /* report shows branches: its stats count them */
	bool stats;                  /* print the stats (report) */
	bool rounds_shown;           /* script prints FINISHED_ROUND's line */
	pk_session_sample_fn then;           /* script: its lines after each sample's dump */
	void *then_arg;
	/* the caller's on_event (script's side events), after each record's dump */
	void (*next_event)(void *arg, pk_session *s, const pk_pd_event *ev, bool before);
	void *next_arg;
	const pk_regs_arch *regs;
	pk_session_stats c;
	pd_out out;                  /* pd_record_text's, flushed at once */
} dump_ctx;

/* "\n0xOFF@FILE [0xSIZE]: event: TYPE" and the record's bytes in hex. */
static void dump_raw(const pk_session *s, const pk_pd_event *ev)
{
	if (pk_pd_is_pipe(pk_session_reader(s)))
		printf("\n%#" PRIx64 "@pipe [%#x]: event: %u\n", pk_pd_event_offset(pk_session_reader(s), ev), ev->size,
		       ev->type);
	else
		printf("\n%#" PRIx64 "@%s [%#x]: event: %u\n", ev->offset, pk_session_input(s), ev->size,
		       ev->type);
	printf(".\n. ... raw event: size %u bytes\n", ev->size);
	for (size_t at = 0; at < ev->size; at += 16) {
		char line[96];
		int n = snprintf(line, sizeof line, ".  %04zx: ", at);
		size_t k;
		for (k = 0; k < 16; k++)
			n += at + k < ev->size ? snprintf(line + n, sizeof line - (size_t)n, " %02x",
							  ev->data[at + k])
					       : snprintf(line + n, sizeof line - (size_t)n, "   ");
		line[n++] = ' ';
		line[n++] = ' ';
		for (k = 0; k < 16; k++) {
			int ch = at + k < ev->size ? ev->data[at + k] : ' ';
			line[n++] = at + k < ev->size && !(isascii(ch) && isprint(ch)) ? '.' : (char)ch;
		}
		line[n] = 0;
		printf("%s\n", line);
	}
}

/* The evsels' sample_type bits and the first one's sample_id_all, again
 * when a pipe's ATTR records have added evsels (an ATTR record is dumped
 * before perf adds its evsel). */
static void dump_evlist(dump_ctx *d, const pk_pd_event *ev)
{
	size_t n = pk_pd_nr_evsels(pk_session_reader(d->s));
	if (ev->type == PK_RECORD_HEADER_ATTR && n)
		n--;
	if (n == d->nr_evsels)
		return;
	d->nr_evsels = n;
	d->combined = pk_pd_sample_types(pk_session_reader(d->s), n);
	d->id_all = n && pk_pd_evsel_at(pk_session_reader(d->s), 0)->attr.sample_id_all;
}

/* perf's "CPU TIME " before a decoded record. */
static void dump_tstamp(dump_ctx *d, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	dump_evlist(d, ev);
	if (ev->type != PERF_RECORD_SAMPLE && !d->id_all) {
		fputs("-1 -1 ", stdout);
		return;
	}
	bool user = ev->type >= PD_USER_TYPES;
	uint32_t cpu = smp ? smp->cpu : user ? 0 : ev->id.cpu;
	uint64_t time = smp ? smp->time : user ? 0 : ev->id.time;
	if (d->combined & PERF_SAMPLE_CPU)
		printf("%u ", cpu);
	if (d->combined & PERF_SAMPLE_TIME)
		printf("%" PRIu64 " ", time);
}

/* cpu_map_data at p (n bytes) as perf's list ("0-3,8"). */
/* A CPU list as perf prints it ("0-3,8", "-1"). */
static void print_cpus(const pk_cpumap *m)
{
	int len = m ? pk_cpumap_format(m, NULL, 0) : -1;
	char *list = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (list && pk_cpumap_format(m, list, (size_t)len + 1) >= 0)
		fputs(list, stdout);
	free(list);
}

static void dump_cpus(const uint8_t *p, size_t n)
{
	pk_cpumap *m = pk_pd_cpu_map_data(p, n);
	print_cpus(m);
	pk_cpumap_put(m);
}

/* perf stat record's records, their lines after the name; false when
 * damaged. */
static bool dump_stat(const pk_pd_event *ev)
{
	pk_pd_stat_config c;
	pk_pd_rec_stat st;
	pk_pd_rec_stat_round rd;
	if (ev->type == PK_RECORD_STAT_CONFIG && pk_pd_rec_stat_config_parse(ev, &c, NULL) == 0)
		printf("\n... aggr_mode %" PRIu64 "\n... scale     %" PRIu64 "\n... interval  %" PRIu64 "\n",
		       c.aggr_mode, c.scale, c.interval);
	else if (ev->type == PK_RECORD_STAT && pk_pd_rec_stat_parse(ev, &st, NULL) == 0)
		printf("\n... id %" PRIu64 ", cpu %d, thread %u\n... value %" PRIu64 ", enabled %" PRIu64
		       ", running %" PRIu64 "\n",
		       st.id, st.cpu, st.thread, st.val, st.ena, st.run);
	else if (ev->type == PK_RECORD_STAT_ROUND && pk_pd_rec_stat_round_parse(ev, &rd, NULL) == 0)
		printf("\n... time %" PRIu64 ", type %s\n", rd.time,
		       rd.type == PK_PD_STAT_ROUND_FINAL ? "FINAL" : "INTERVAL");
	else
		return false;
	return true;
}

static void dump_time_conv(const pk_pd_event *ev)
{
	printf("\n... Time Shift      %" PRIu64 "\n... Time Muliplier  %" PRIu64
	       "\n... Time Zero       %" PRIu64 "\n", pk_pd_rec_u64(ev, 0), pk_pd_rec_u64(ev, 1),
	       pk_pd_rec_u64(ev, 2));
	if (ev->size >= 56) {
		const uint8_t *c = ev->data + 48;
		printf("... Time Cycles     %" PRIu64 "\n... Time Mask       %#" PRIx64
		       "\n... Cap Time Zero   %d\n... Cap Time Short  %d\n", pk_pd_rec_u64(ev, 3),
		       pk_pd_rec_u64(ev, 4), c[0] & 1, c[1] & 1);
	}
	printf(": unhandled!\n");
}

static void dump_event_update(const pk_pd_event *ev)
{
	uint64_t type = pk_pd_rec_u64(ev, 0);
	printf("\n... id:    %" PRIu64 "\n", pk_pd_rec_u64(ev, 1));
	const char *str = ev->size > 24 ? (const char *)ev->data + 24 : "";
	switch (type) {
	case 0: printf("... unit:  %.*s\n", (int)(ev->size - 24), str); break;
	case 1: {
		double d;
		memcpy(&d, ev->data + 24, sizeof d);
		printf("... scale: %f\n", d);
		break;
	}
	case 2: printf("... name:  %.*s\n", (int)(ev->size - 24), str); break;
	case 3:
		printf("... ");
		dump_cpus(ev->data + 24, ev->size > 24 ? ev->size - 24u : 0);
		printf("\n");
		break;
	default: printf("... unknown type\n"); break;
	}
}

static void dump_id_index(const pk_pd_event *ev)
{
	uint64_t nr = pk_pd_rec_u64(ev, 0);
	printf(" nr: %" PRIu64 "\n", nr);
	for (uint64_t i = 0; i < nr && 16 + 32 * (i + 1) <= ev->size; i++)
		printf(" ... id: %" PRIu64 "  idx: %" PRIu64 "  cpu: %" PRId64 "  tid: %" PRId64 "\n",
		       pk_pd_rec_u64(ev, 1 + 4 * i), pk_pd_rec_u64(ev, 2 + 4 * i),
		       (int64_t)pk_pd_rec_u64(ev, 3 + 4 * i), (int64_t)pk_pd_rec_u64(ev, 4 + 4 * i));
}

/* The rest of the line of a kernel record other than those script's side
 * events print too (pd_record_text) and SAMPLE; false when perf prints it
 * as unhandled. */
static bool dump_kernel_other(const pk_pd_event *ev)
{
	const uint32_t *w = (const uint32_t *)(const void *)(ev->data + 8);
	uint64_t f;
	switch (ev->type) {
	case PERF_RECORD_KSYMBOL:
		printf(" addr %" PRIx64 " len %u type %u flags 0x%x name %s\n", pk_pd_rec_u64(ev, 0),
		       w[2], (unsigned)(w[3] & 0xffff), (unsigned)(w[3] >> 16), (const char *)ev->data + 24);
		return true;
	case PERF_RECORD_BPF_EVENT:
		printf(" type %u, flags %u, id %u\n", (unsigned)(w[0] & 0xffff), (unsigned)(w[0] >> 16),
		       w[1]);
		return true;
	case PERF_RECORD_ITRACE_START: printf(" pid: %u tid: %u\n", w[0], w[1]); return true;
	case PERF_RECORD_AUX:
		f = pk_pd_rec_u64(ev, 2);
		printf(" offset: %#" PRIx64 " size: %#" PRIx64 " flags: %#" PRIx64 " [%s%s%s]\n",
		       pk_pd_rec_u64(ev, 0), pk_pd_rec_u64(ev, 1), f, f & 1 ? "T" : "", f & 2 ? "O" : "",
		       f & 4 ? "P" : "");
		return true;
	case PERF_RECORD_LOST_SAMPLES:
		printf(": id:%" PRIu64 ": lost samples :%" PRIu64 "\n", ev->id.id, pk_pd_rec_u64(ev, 0));
		return true;
	case PERF_RECORD_LOST:
		printf(": id:%" PRIu64 ": lost:%" PRIu64 "\n", pk_pd_rec_u64(ev, 0), pk_pd_rec_u64(ev, 1));
		return true;
	default: return false;
	}
}

/* The rest of the line of perf's own records; false when unhandled.
 * script: perf script's tool takes in thread and CPU maps (report's says
 * "unhandled"), and FINISHED_ROUND when it shows them (its line follows). */
static bool dump_user(const dump_ctx *d, const pk_pd_event *ev)
{
	bool script = d->then != NULL;
	const char *unhandled = script ? "\n" : "\n: unhandled!\n";
	switch (ev->type) {
	case PK_RECORD_FINISHED_ROUND: printf("%s", d->rounds_shown ? "" : "\n"); return true;
	case PK_RECORD_TIME_CONV: dump_time_conv(ev); return true;
	case PK_RECORD_EVENT_UPDATE: dump_event_update(ev); return true;
	case PK_RECORD_ID_INDEX: dump_id_index(ev); return true;
	case PK_RECORD_THREAD_MAP: {
		uint64_t nr = pk_pd_rec_u64(ev, 0);
		printf(" nr: %" PRIu64, nr);
		for (uint64_t i = 0; i < nr && 16 + 24 * (i + 1) <= ev->size; i++)
			printf("%s thread: %d", i ? "," : "", (int)pk_pd_rec_u64(ev, 1 + 3 * i));
		printf("%s", unhandled);
		return true;
	}
	case PK_RECORD_CPU_MAP: {
		pk_cpumap *m = pk_pd_rec_cpu_map(ev); /* its -1 kept */
		printf(": ");
		print_cpus(m);
		pk_cpumap_put(m);
		printf("%s", unhandled);
		return true;
	}
	case PK_RECORD_STAT_CONFIG:
	case PK_RECORD_STAT:
	case PK_RECORD_STAT_ROUND:
		/* script's tool takes them in, its lines (a round's) follow at once */
		if (script)
			return true;
		if (!dump_stat(ev))
			return false;
		printf(": unhandled!\n");
		return true;
	case PK_RECORD_AUXTRACE_INFO:
		printf(" type: %u\n", (unsigned)pk_pd_rec_u64(ev, 0));
		if (pk_pd_rec_u64(ev, 0) == PK_IPT_AUXTRACE_TYPE)
			pd_ipt_dump_info(ev);
		return true;
	case PK_RECORD_AUXTRACE: {
		pk_pd_rec_auxtrace a;
		pk_error err;
		if (pk_pd_rec_auxtrace_parse(ev, &a, &err) < 0)
			return false;
		printf(" size: %#" PRIx64 "  offset: %#" PRIx64 "  ref: %#" PRIx64 "  idx: %u  tid: %d  cpu: %d\n",
		       a.size, a.offset, a.reference, a.idx, (int32_t)a.tid, (int32_t)a.cpu);
		return true;
	}
	case PK_RECORD_HEADER_ATTR:
	case PK_RECORD_HEADER_EVENT_TYPE:
	case PK_RECORD_HEADER_TRACING_DATA:
	case PK_RECORD_HEADER_BUILD_ID:
	case PK_RECORD_HEADER_FEATURE:
		return true; /* perf ends no line there */
	default: return false;
	}
}

/* The caller's lines for a record (script's side events), once. */
static void dump_next(dump_ctx *d, const pk_pd_event *ev)
{
	if (d->next_event) {
		fflush(stdout);
		d->next_event(d->next_arg, d->s, ev, true);
	}
}

/* The decoded line of a record other than a sample (script: read by perf
 * script's tool, whose lines follow, an EXIT's amid it, as perf's). */
static void dump_other(dump_ctx *d, const pk_pd_event *ev)
{
	const pk_session *s = d->s;
	bool script = d->then != NULL;
	const char *name = pk_pd_record_name(ev->type);
	printf("%#" PRIx64 " [%#x]: PERF_RECORD_%s", pk_pd_event_offset(pk_session_reader(s), ev), ev->size, name ? name : "UNKNOWN");
	if (ev->type == PERF_RECORD_EXIT && script)
		dump_next(d, ev);
	if (pd_record_text(&d->out, ev)) { /* the text script's side events print too */
		pd_out_flush(&d->out);
		return;
	}
	switch (ev->type) {
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (script)
			return; /* script's tool takes them in and ends no line */
		break;
	default:
		if (ev->type < PD_USER_TYPES ? dump_kernel_other(ev) : dump_user(d, ev))
			return;
		break;
	}
	printf(": unhandled!\n");
}

/* PERF_SAMPLE_READ's values as read_format lays them out: a group's nr,
 * the times, then value, id, lost per counter (one counter: value, the
 * times, id, lost). */
static void dump_read(uint64_t rf, const uint64_t *r, size_t n)
{
	bool group = rf & PERF_FORMAT_GROUP, id = rf & PERF_FORMAT_ID, lost = rf & PERF_FORMAT_LOST;
	size_t at = 1, per = 1 + id + lost; /* past a group's nr or the one value */
	printf("... sample_read:\n");
	if ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && at < n)
		printf("...... time enabled %016" PRIx64 "\n", r[at++]);
	if ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && at < n)
		printf("...... time running %016" PRIx64 "\n", r[at++]);
	uint64_t nr = group ? r[0] : 1;
	if (group)
		printf(".... group nr %" PRIu64 "\n", nr);
	for (uint64_t i = 0; i < nr; i++) {
		size_t v = group ? at + i * per : 0, next = group ? v + 1 : at;
		if (v >= n || next + id + lost > n)
			break;
		printf("..... id %016" PRIx64 ", value %016" PRIx64, id ? r[next] : 0, r[v]);
		if (lost)
			printf(", lost %" PRIu64, r[next + id]);
		printf("\n");
	}
}

static void dump_regs(const dump_ctx *d, const char *kind, uint64_t abi, uint64_t mask,
		      const uint64_t *v, size_t n)
{
	printf("... %s regs: mask %#" PRIx64 " ABI %s\n", kind, mask,
	       abi == 2 ? "64-bit" : abi == 1 ? "32-bit" : "none");
	size_t k = 0;
	for (int bit = 0; bit < 64 && k < n; bit++) {
		if (!(mask >> bit & 1))
			continue;
		const char *nm = d->regs ? pk_regs_name(d->regs, bit) : NULL;
		printf(".... %-5s 0x%016" PRIx64 "\n", nm ? nm : "unknown", v[k++]);
	}
}

/* A --call-graph lbr sample's chain as perf stitches it: the kernel's part
 * up to the user context marker, the first branch's target, each source. */
static void dump_lbr_chain(const pk_pd_sample *smp)
{
	uint64_t k = 0;
	while (k < smp->callchain_nr && smp->callchain[k] != PK_CONTEXT_USER_MARK)
		k++;
	k = k < smp->callchain_nr ? k + 1 : smp->callchain_nr;
	printf("... LBR call chain: nr:%" PRIu64 "\n", k + smp->branch_nr + 1);
	uint64_t i = 0;
	for (; i < k; i++)
		printf("..... %2" PRIu64 ": %016" PRIx64 "\n", i, smp->callchain[i]);
	printf("..... %2" PRIu64 ": %016" PRIx64 "\n", i++, smp->branch[0].to);
	for (uint64_t b = 0; b < smp->branch_nr; b++, i++)
		printf("..... %2" PRIu64 ": %016" PRIx64 "\n", i, smp->branch[b].from);
}

/* The sample's fields after its first line, in perf's order. */
static void dump_sample_fields(const dump_ctx *d, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	const struct perf_event_attr *a = &ev->evsel->attr;
	uint64_t t = smp->type;
	bool lbr = (t & PERF_SAMPLE_BRANCH_STACK) &&
		   (a->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK);
	if ((t & PERF_SAMPLE_CALLCHAIN) && lbr && smp->branch_nr)
		dump_lbr_chain(smp);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		printf("... FP chain: nr:%" PRIu64 "\n", smp->callchain_nr);
		for (uint64_t i = 0; i < smp->callchain_nr; i++)
			printf("..... %2" PRIu64 ": %016" PRIx64 "\n", i, smp->callchain[i]);
	}
	if (lbr) { /* the call stack: the first branch's target, then each source */
		printf("... branch callstack: nr:%" PRIu64 "\n", smp->branch_nr + 1);
		for (uint64_t i = 0; i < smp->branch_nr + 1 && smp->branch_nr; i++)
			printf("..... %2" PRIu64 ": %016" PRIx64 "\n", i,
			       i ? smp->branch[i - 1].from : smp->branch[0].to);
	} else if (t & PERF_SAMPLE_BRANCH_STACK) {
		printf("... branch stack: nr:%" PRIu64 "\n", smp->branch_nr);
		for (uint64_t i = 0; i < smp->branch_nr; i++) {
			uint64_t f = smp->branch[i].flags;
			const char *ty = pk_pd_branch_type_name(f);
			printf("..... %2" PRIu64 ": %016" PRIx64 " -> %016" PRIx64 " %u cycles %s%s%s%s %x %s\n",
			       i, smp->branch[i].from, smp->branch[i].to, (unsigned)(f >> 4 & 0xffff),
			       f & 1 ? "M" : " ", f & 2 ? "P" : " ", f & 8 ? "A" : " ", f & 4 ? "T" : " ",
			       (unsigned)(f >> 33), ty ? ty : "");
		}
	}
	if ((t & PERF_SAMPLE_REGS_USER) && smp->user_abi) /* ABI none: perf prints none */
		dump_regs(d, "user", smp->user_abi, a->sample_regs_user, smp->user_regs,
			  smp->user_regs_nr);
	if ((t & PERF_SAMPLE_REGS_INTR) && smp->intr_abi)
		dump_regs(d, "intr", smp->intr_abi, a->sample_regs_intr, smp->intr_regs,
			  smp->intr_regs_nr);
	if (t & PERF_SAMPLE_STACK_USER) /* perf: the dynamic size, the offset of the size word */
		printf("... ustack: size %" PRIu64 ", offset 0x%x\n",
		       smp->stack_size ? smp->stack_dyn_size : 0,
		       (unsigned)pk_pd_sample_ustack_offset(ev, smp));
	if (t & PERF_SAMPLE_WEIGHT_STRUCT)
		printf("... weight: %" PRIu64 ",0x%x,0x%x\n", smp->weight, smp->weight_var2,
		       smp->weight_var3);
	else if (t & PERF_SAMPLE_WEIGHT)
		printf("... weight: %" PRIu64 "\n", smp->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		printf(" . data_src: 0x%" PRIx64 "\n", smp->data_src);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		printf(" .. phys_addr: 0x%" PRIx64 "\n", smp->phys_addr);
	if (t & PERF_SAMPLE_TRANSACTION)
		printf("... transaction: %" PRIx64 "\n", smp->transaction);
	if ((t & PERF_SAMPLE_READ) && smp->read_nr)
		dump_read(ev->evsel->attr.read_format, smp->read, smp->read_nr);
}

/* What happens to a sample once dumped, per sample handed out (a
 * PERF_SAMPLE_READ one: per counter that grew, pk_session): its thread and
 * dso, then report's stats count it or script prints its lines. */
static int dump_delivered(void *arg, pk_session *s, const pk_pd_event *ev,
			  const pk_pd_sample *smp)
{
	dump_ctx *d = arg;
	unsigned mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	printf(" ... thread: %s:%d\n", pk_machine_comm(pk_session_machine(s), smp->pid, smp->tid),
	       (int32_t)smp->tid);
	const pk_addr_loc *loc = pk_machine_lookup(pk_session_machine(s), smp->pid, mode, smp->ip);
	printf(" ...... dso: %s\n", loc && loc->has_map ? loc->dso_long : "<not found>");
	if (d->then) {
		fflush(stdout); /* the caller's lines follow */
		return d->then(d->then_arg, s, ev, smp);
	}
	return d->branch_view ? pk_session_stats_branches(&d->c, s, ev, smp) /* each branch */
			      : pk_session_stats_sample(&d->c, s, ev, smp);
}

static int dump_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	dump_ctx *d = arg;
	dump_raw(s, ev);
	printf("\n");
	dump_tstamp(d, ev, smp);
	printf("%#" PRIx64 " [%#x]: PERF_RECORD_SAMPLE(IP, 0x%x): %d/%d: %#" PRIx64
	       " period: %" PRIu64 " addr: %#" PRIx64 "\n",
	       pk_pd_event_offset(pk_session_reader(s), ev), ev->size, ev->misc, (int32_t)smp->pid, (int32_t)smp->tid, smp->ip,
	       smp->period, smp->addr);
	dump_sample_fields(d, ev, smp);
	return 0; /* the rest: dump_delivered, as the session hands it out */
}

static void dump_event(void *arg, pk_session *s, const pk_pd_event *ev, bool before)
{
	dump_ctx *d = arg;
	if (!before) {
		pk_session_stats_event(&d->c, s, ev, before);
		if (d->next_event)
			d->next_event(d->next_arg, s, ev, false);
		return;
	}
	if (ev->type != PK_RECORD_AUXTRACE || !pk_session_has_spe(s)) {
		/* (Arm SPE's AUXTRACE data: its own dump, pd_spe.c) */
		dump_raw(s, ev);
		printf("\n");
		dump_tstamp(d, ev, NULL);
		dump_other(d, ev); /* script: an EXIT's lines in it */
		if (ev->type == PK_RECORD_AUXTRACE && pk_session_aux_type(s) == PK_IPT_AUXTRACE_TYPE)
			pd_ipt_dump_data(ev); /* Intel PT: its packets (pd_ipt.c) */
	}
	if (ev->type != PERF_RECORD_EXIT || !d->then)
		dump_next(d, ev);
}

void pd_dump_unordered_note(const pk_session *s)
{
	const pk_pd_evsel *e = pk_pd_evsel_at(pk_session_reader(s), 0);
	if (e && !e->attr.sample_id_all)
		printf("WARNING: No sample_id_all support, falling back to unordered processing\n");
}

int pd_dump_run(pk_session *s, unsigned flags, pk_session_sample_fn then, void *then_arg)
{
	bool stats = flags & PD_DUMP_STATS;
	dump_ctx d = {.s = s, .nr_evsels = (size_t)-1, .branch_view = flags & PD_DUMP_BRANCHES,
		      .stats = stats, .rounds_shown = flags & PD_DUMP_ROUNDS_SHOWN,
		      .then = then, .then_arg = then_arg, .next_arg = NULL};
	d.next_event = pk_session_event_hook(s, &d.next_arg);
	d.regs = pk_regs_host();
	if (report_stats_begin(&d.c, s) < 0)
		return 1;
	pk_session_on_event(s, dump_event, &d);
	pk_session_after_dump(s, dump_delivered, &d);
	pd_out_init(&d.out, stdout);
	int status = pd_session_run(s, dump_sample, &d);
	pd_out_free(&d.out);
	pk_session_on_event(s, NULL, NULL);
	pk_session_after_dump(s, NULL, NULL);
	if (!status && stats)
		report_stats_print(s, d.c.samples, d.c.lost, true, stdout);
	pk_session_stats_end(&d.c);
	return status;
}
