/* pmukit script: print the samples of a perf.data file, one line each, in
 * perf script's layout (fields, widths and order as perf 6.1 prints them). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/datasrc.h>
#include <pmukit/hist.h>
#include <pmukit/script.h>

#include "builtin.h"
#include "pd_dump.h"
#include "pd_header.h"
#include "session_cli.h"
#include "script_fields.h"
#include "script_report.h"
#include "script_side_events.h"
#include "script_dump.h"
#include "stat_file.h"

#define F(name) PK_SCRIPT_F_##name /* the -F fields (pmukit/script.h) */
#define F_BRANCHES (F(BRSTACK) | F(BRSTACKSYM) | F(BRSTACKOFF))
/* the fields printed by script_fields.c, out of the common path */
#define F_RARE (F(IREGS) | F(UREGS) | F(FLAGS) | F(MISC) | F(TOD))

/* perf's BTS-like events (Intel PT's branches): "ip => addr". */
static bool is_bts(const pk_pd_evsel *e)
{
	return e->attr.type == PERF_TYPE_HARDWARE &&
	       e->attr.config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS && e->attr.sample_period == 1;
}

/* Intel PT's psb and cbr payload, padded to perf's 34 columns. */
static void print_synth(pd_out *o, const pk_pd_evsel *e, const pk_pd_sample *smp)
{
	pk_session_ipt_payload p = {0};
	if (smp->raw && smp->raw_size >= sizeof(p))
		memcpy(&p, smp->raw, sizeof(p));
	size_t start = o->len;
	if (e->attr.config == PK_SESSION_SYNTH_PSB) {
		pd_out_printf(o, " psb offs: %#" PRIx64, p.psb_offset);
	} else {
		unsigned pct = p.max_nonturbo ? (5 + 1000 * p.cbr / p.max_nonturbo) / 10 : 0;
		pd_out_printf(o, " cbr: %2u freq: %4u MHz ", p.cbr, p.cbr * 100);
		if (p.max_nonturbo)
			pd_out_printf(o, "(%3u%%)", pct);
	}
	size_t len = o->len - start;
	if (len < 34)
		pd_out_pad(o, (int)(34 - len));
}

/* Formatted address lines are kept in the library's slots
 * (pk_line_cache) under a key: the fields they were made with, and
 * whether a chain's. */
#define LINE_CHAIN (1u << 31)
#define LINE_FIELDS (F(IP) | F(SYM) | F(SYMOFF) | F(DSO) | F(SRCLINE))

/* The task fields of recent threads (print_task), direct mapped by tid. */
#define TASK_CACHE 256
typedef struct task_slot {
	uint32_t pid, tid;
	unsigned mode;               /* fields and layout it was made for */
	uint8_t len;                 /* 0: empty */
	uint64_t comm_version;       /* pk_machine_comm_version when made */
	char text[40];
} task_slot;

typedef struct script {
	pd_out out;
	/* the session's machine and reader (for good after the options' machine
	 * is set), kept here: the sample loop asks for them per line */
	pk_machine *machine;
	pk_pd_reader *reader;
	pk_script_fields sel;        /* -F */
	bool ns;
	bool hide_callchain;
	int name_width;
	int data_src_width;          /* widest data_src text so far */
	unsigned *evsel_fields;      /* per evsel, after checking sample_type */
	size_t nr_evsel_fields;
	struct evlabel {             /* per evsel: "<name, padded>: ", made once */
		char *name, *text;   /* the name it was made of; the text */
		size_t len;
		uint64_t version;    /* pk_pd_names_version when name was checked */
	} *labels;
	bool checked;
	int status;
	pk_line_cache *lines;        /* the lines' slots; NULL: no caching */
	pk_line_slot *table, *frames; /* its line and frame tables */
	task_slot tasks[TASK_CACHE];
	uint64_t sec_val;            /* the seconds of sec_text */
	int sec_len;                 /* 0: none yet */
	char sec_text[PD_OUT_BLOCK]; /* their text, padded to 5 (12 with ".usecs") */
	uint64_t period_val;         /* the period of period_text */
	int period_len;              /* 0: none yet */
	char period_text[PD_OUT_BLOCK];
	pk_script_filter *filter;    /* --comms, --pid, --time ...; NULL: none */
	int time_shift;              /* 0, or --reltime / --deltatime */
	uint64_t time_base;          /* what times are shifted by */
	int max_stack;               /* --max-stack: call chain lines printed */
	side_events side;            /* --show-*-events */
	stat_script stat;            /* a stat file's rounds (stat record's) */
	bool stat_file;              /* the file may hold them (STAT feature, or a pipe) */
	const pk_regs_arch *regs_arch; /* iregs/uregs: the file's architecture */
	uint64_t clock_wall_ns, clock_ns; /* tod: CLOCK_DATA */
	pk_chain_plan chain;         /* the sample's chain (on_sample) */
	pk_line_probe probe;         /* sample lines' use of the lines' slots */
	size_t label_at[2];          /* where the latest label begins and ends in out */
	struct replay {              /* a line the next sample may print again (replay_line) */
		bool valid;
		uint64_t flushes;    /* out.flushes when printed: its text is in out.buf */
		size_t start, label, rest, end; /* its text, the label at [label, rest) */
		pk_line_key key;     /* what it was made of */
	} replay;
	pk_chain_gatherer gather;    /* chains' memo of maps */
	pk_script_metric *metric;    /* -F metric's running state */
	bool cpu_filter;           /* -C was given */
	script_dumps *dumps;         /* --per-event-dump's files; NULL: stdout */
	pk_hist_list stop_bt;        /* --stop-bt: the chain's lines end after these */
} script;

enum { SHIFT_REL = 1, SHIFT_DELTA };

/* --reltime: from the first sample; --deltatime: from the one before. */
static uint64_t shift_time(script *sc, uint64_t t)
{
	if (!sc->time_base)
		sc->time_base = t;
	uint64_t d = t >= sc->time_base ? t - sc->time_base : 0;
	if (sc->time_shift == SHIFT_DELTA)
		sc->time_base = t;
	return d;
}

/* Each event's fields (pk_script_fields_check) and its label's slot. */
static int check_fields(script *sc, pk_session *s)
{
	size_t n = pk_session_nr_evsels(s);
	sc->evsel_fields = calloc(n ? n : 1, sizeof(unsigned));
	sc->labels = calloc(n ? n : 1, sizeof(*sc->labels));
	if (!sc->evsel_fields || !sc->labels)
		return -ENOMEM;
	sc->nr_evsel_fields = n;
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_script_fields_check(&sc->sel, s, sc->hide_callchain, sc->evsel_fields,
					&sc->name_width, &err);
	if (rc < 0)
		fprintf(stderr, "%s\n%s%s", err.msg, err.hint, err.hint[0] ? "\n" : "");
	return rc;
}

static void print_loc(pd_out *o, unsigned f, const pk_addr_loc *loc)
{
	if (f & F(SYM)) {
		pd_out_ch(o, ' ');
		if (loc->sym) {
			pd_out_mem(o, loc->sym, loc->sym_len);
			if (f & F(SYMOFF)) {
				pd_out_lit(o, "+0x");
				pd_out_hex(o, loc->symoff, 0);
			}
		} else {
			pd_out_lit(o, "[unknown]");
		}
	}
	if (f & F(DSO)) {
		pd_out_mem(o, " (", 2);
		pd_out_mem(o, loc->dso, loc->dso_len);
		pd_out_ch(o, ')');
	}
}

/* The srcline field under an address, as perf 6.1: "\n  file:line"; in
 * no ELF file (the kernel, JIT code) "\n  <dso>[<addr>]" at objdump's
 * address; nothing where the file knows no line or no map holds the
 * address. */
static void print_srcline(pd_out *o, pk_machine *m, uint32_t pid, unsigned mode, uint64_t ip,
			  const pk_addr_loc *loc)
{
	const char *file;
	unsigned line;
	int rc = pk_machine_srcline(m, pid, mode, ip, &file, &line);
	if (rc > 0)
		pd_out_printf(o, "\n  %s:%u", file, line);
	else if (rc < 0 && loc->has_map) {
		pd_out_printf(o, "\n  %s[%" PRIx64 "]", loc->dso_short, loc->objdump_addr);
	}
}

/* The text of a slot into the output. */
static inline void slot_out(pd_out *o, const pk_line_slot *ls)
{
	if (ls->len <= sizeof(ls->text) && o->cap - o->len >= sizeof(ls->text)) {
		/* a fixed-size copy: the bytes past len are overwritten next */
		pd_copy_fixed(o->buf + o->len, ls->text, sizeof(ls->text));
		o->len += ls->len;
	} else {
		pd_out_mem(o, ls->len <= sizeof(ls->text) ? ls->text : ls->long_text, ls->len);
	}
}

/* A line not in its slot: looked up, formatted, kept in ls (when not
 * NULL) under its tag. */
static void print_addr_miss(script *sc, unsigned f, uint32_t pid, unsigned mode,
			    uint64_t ip, bool chain, pk_line_slot *ls, uint64_t tag_addr,
			    uint64_t tag_version)
{
	pd_out *o = &sc->out;
	/* a line kept in ls comes back from there: not through the lookup's
	 * own cache, which would keep the same answer once more */
	pk_addr_loc fresh;
	const pk_addr_loc *loc = &fresh;
	if (ls)
		pk_machine_locate(sc->machine, pid, mode, ip, &fresh);
	else
		loc = pk_machine_lookup(sc->machine, pid, mode, ip);
	/* formatted in place, then copied into the slot; not the slot of
	 * lines bypassing the cache (PK_LS_OWN: an address seldom comes back
	 * then, and the copy reads bytes just stored: a store-forwarding
	 * stall), which stays empty */
	size_t need = loc->sym_len + loc->dso_len + 64;
	bool keep = ls && ls != &sc->probe.own && pd_out_room(o, need);
	size_t start = o->len;
	if (chain) {
		pd_out_ch(o, '\t');
		/* perf prints chain entries in a user dso relative to the map */
		pd_out_hex(o, loc->has_map && !loc->kernel ? loc->dso_addr : ip, 16);
	} else {
		pd_out_ch(o, ' ');
		if (f & F(IP))
			pd_out_hex(o, ip, 16);
	}
	print_loc(o, f, loc);
	if (f & F(SRCLINE))
		print_srcline(o, sc->machine, pid, mode, ip, loc);
	if (chain)
		pd_out_ch(o, '\n');
	if (keep)
		pk_line_slot_keep(sc->lines, ls, o->buf + start, o->len - start, tag_addr,
				  tag_version, (f & LINE_FIELDS) | (chain ? LINE_CHAIN : 0));
}

/* An address with its symbol and dso: a call chain line ("\t<addr in
 * the dso> sym+0xoff (dso)\n") or the sample's (" <ip> sym+0xoff (dso)").
 * Call chains repeat the same addresses over and over: the text is kept
 * in slot ls (NULL: none) under its tag and copied when it comes again,
 * without even a symbol lookup. */
static inline void print_addr_tagged(script *sc, unsigned f, uint32_t pid,
				     unsigned mode, uint64_t ip, bool chain, pk_line_slot *ls,
				     uint64_t tag_addr, uint64_t tag_version)
{
	unsigned key = (f & LINE_FIELDS) | (chain ? LINE_CHAIN : 0);
	if (ls && ls->addr == tag_addr && ls->version == tag_version && ls->key == key)
		slot_out(&sc->out, ls);
	else
		print_addr_miss(sc, f, pid, mode, ip, chain, ls, tag_addr, tag_version);
}

/* The sample's address line through its slot ls (not PK_LS_RECENT),
 * counted by the probe (pk_line_probe_used). */
static void ip_line_out(script *sc, unsigned f, const pk_pd_sample *smp,
			unsigned cpumode, pk_line_slot *ls, int how, uint64_t version)
{
	pk_line_probe_used(&sc->probe, ls, how, smp->ip, version, f & LINE_FIELDS);
	print_addr_tagged(sc, f, smp->pid, cpumode, smp->ip, false, ls, smp->ip, version);
}

/* A chain line of an inlined function (--call-graph dwarf), as perf 6.1:
 * the name with the offset from the address's symbol, "(inlined)" in
 * place of the dso. */
static void print_inlined(script *sc, unsigned f, uint32_t pid, uint64_t ip,
			  const char *name)
{
	pd_out *o = &sc->out;
	const pk_addr_loc *loc = pk_machine_lookup(sc->machine, pid, PERF_RECORD_MISC_USER, ip);
	pd_out_ch(o, '\t');
	pd_out_hex(o, loc->has_map ? loc->dso_addr : ip, 16);
	size_t len = strlen(name) - (sizeof(" (inlined)") - 1); /* pk_session_chain_inlines' text */
	if (f & F(SYM)) {
		pd_out_ch(o, ' ');
		pd_out_mem(o, name, len);
		if (f & F(SYMOFF)) {
			pd_out_lit(o, "+0x");
			pd_out_hex(o, loc->symoff, 0);
		}
	}
	pd_out_str(o, name + len);
	pd_out_ch(o, '\n');
}

/* Whether --stop-bt names the function of a chain's entry. */
static bool stop_bt_at(script *sc, uint32_t pid, const pk_chain_ent *ce)
{
	const pk_addr_loc *l = pk_machine_lookup(sc->machine, pid, ce->mode, ce->ip);
	for (size_t i = 0; l && l->sym && i < sc->stop_bt.n; i++)
		if (!strcmp(sc->stop_bt.items[i], l->sym))
			return true;
	return false;
}

static void stop_bt_free(script *sc)
{
	for (size_t i = 0; i < sc->stop_bt.n; i++)
		free(sc->stop_bt.items[i]);
	free(sc->stop_bt.items);
}

/* The call chain gathered, one line per address. */
static void print_chain(script *sc, unsigned f, const pk_pd_sample *smp,
			const pk_chain_plan *cp)
{
	for (int i = 0; i < cp->n; i++) {
		const pk_chain_ent *ce = &cp->e[i];
		if (ce->inl)
			print_inlined(sc, f, smp->pid, ce->ip, ce->inl);
		else
			print_addr_tagged(sc, f, smp->pid, ce->mode, ce->ip, true, ce->ls,
					  ce->tag_addr, ce->tag_version);
		if (sc->stop_bt.n && stop_bt_at(sc, smp->pid, ce))
			break;
	}
}

/* " 4K", " 2M", " 1536B", " N/A" for 0: whole units while more than one
 * of the next fits, up to G, as perf 6.1 prints page sizes. */
static void print_page_size(pd_out *o, uint64_t size)
{
	static const char units[] = "BKMG";
	if (!size) {
		pd_out_lit(o, " N/A");
		return;
	}
	int u = 0;
	while (u < 3 && size / 1024 > 1) {
		size /= 1024;
		u++;
	}
	pd_out_ch(o, ' ');
	pd_out_u64(o, size, 0);
	pd_out_ch(o, units[u]);
}

/* The value and its decoded text, as perf 6.1 prints them: the two cut
 * to 99 characters, then padded to the widest printed so far. */
static void print_data_src(script *sc, uint64_t data_src)
{
	char text[PK_DATA_SRC_TEXT_MAX], field[100];
	pk_data_src_format(data_src, text, sizeof(text));
	int n = snprintf(field, sizeof(field), "%16" PRIx64 " %s", data_src, text);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(field))
		n = (int)sizeof(field) - 1;
	if (n > sc->data_src_width)
		sc->data_src_width = n;
	pd_out_mem(&sc->out, field, (size_t)n);
	pd_out_pad(&sc->out, sc->data_src_width - n);
}

/* Makes l the label of name: right-aligned in the widest name, and ": ";
 * false when out of memory. */
static bool make_label(const script *sc, struct evlabel *l, const char *name)
{
	size_t n = strlen(name), pad = sc->name_width > (int)n ? (size_t)sc->name_width - n : 0;
	/* at least PD_OUT_BLOCK bytes: a short label is one block */
	size_t size = pad + n + 2 < PD_OUT_BLOCK ? PD_OUT_BLOCK : pad + n + 2;
	char *copy = strdup(name), *text = calloc(1, size);
	if (!copy || !text) {
		free(copy);
		free(text);
		return false;
	}
	memset(text, ' ', pad);
	memcpy(text + pad, name, n);
	memcpy(text + pad + n, ": ", 2);
	free(l->name);
	free(l->text);
	l->name = copy;
	l->text = text;
	l->len = pad + n + 2;
	return true;
}

/* The event's label (its length in *len), made once per evsel and again
 * only when its name changed (EVENT_UPDATE): the name is looked at only
 * when the reader's names version moved. NULL when out of memory. */
static inline __attribute__((always_inline)) const char *label_of(script *sc,
								    const pk_pd_evsel *e, size_t *len)
{
	struct evlabel *l = &sc->labels[e->idx];
	uint64_t version = pk_pd_names_version(sc->reader);
	if (!l->text || l->version != version) {
		const char *name = pk_pd_evsel_name(e);
		if ((!l->text || strcmp(l->name, name)) && !make_label(sc, l, name))
			return NULL;
		l->version = version;
	}
	*len = l->len;
	return l->text;
}

static void print_evname(script *sc, const pk_pd_evsel *e)
{
	size_t len;
	const char *text = label_of(sc, e, &len);
	sc->label_at[0] = sc->out.len;
	if (!text) {
		pd_out_pad_str(&sc->out, pk_pd_evsel_name(e), sc->name_width);
		pd_out_lit(&sc->out, ": ");
	} else if (len <= PD_OUT_BLOCK) {
		pd_out_block(&sc->out, text, len);
	} else {
		pd_out_mem(&sc->out, text, len);
	}
	sc->label_at[1] = sc->out.len;
}

/* The task fields as perf prints them: the comm (padded to 16 unless a
 * call chain follows), then pid/tid, pid or tid. */
static void format_task(pd_out *o, unsigned f, bool chain, const char *comm,
			const pk_pd_sample *smp)
{
	if (f & F(COMM)) {
		if (chain)
			pd_out_str(o, comm);
		else
			pd_out_pad_str(o, comm, 16);
		pd_out_ch(o, ' ');
	}
	if ((f & F(PID)) && (f & F(TID))) {
		pd_out_int(o, (int)smp->pid, 5);
		pd_out_ch(o, '/');
		pd_out_int(o, (int)smp->tid, -5);
		pd_out_ch(o, ' ');
	} else if (f & (F(PID) | F(TID))) {
		pd_out_int(o, (int)((f & F(PID)) ? smp->pid : smp->tid), 5);
		pd_out_ch(o, ' ');
	}
}

/* The task fields, copied from the slot of the thread when they were
 * made for the same pid, tid and layout while no thread's name changed
 * (pk_machine_comm_version). */
static void print_task(script *sc, unsigned f, bool chain,
		       const pk_pd_sample *smp)
{
	pd_out *o = &sc->out;
	uint64_t cv = pk_machine_comm_version(sc->machine);
	unsigned mode = (f & (F(COMM) | F(PID) | F(TID))) | (chain ? LINE_CHAIN : 0);
	task_slot *t = &sc->tasks[smp->tid % TASK_CACHE];
	if (t->len && t->tid == smp->tid && t->pid == smp->pid && t->mode == mode &&
	    t->comm_version == cv && o->cap - o->len >= sizeof(t->text)) {
		pd_copy_fixed(o->buf + o->len, t->text, sizeof(t->text)); /* a few moves */
		o->len += t->len;
		return;
	}
	const char *comm = (f & F(COMM)) ? pk_machine_comm(sc->machine, smp->pid, smp->tid) : "";
	bool keep = pd_out_room(o, sizeof(t->text));
	size_t start = o->len;
	format_task(o, f, chain, comm, smp);
	size_t len = o->len - start;
	if (!keep || len > sizeof(t->text))
		return;
	memcpy(t->text, o->buf + start, len);
	t->len = (uint8_t)len;
	t->comm_version = cv;
	t->tid = smp->tid;
	t->pid = smp->pid;
	t->mode = mode;
}

/* The period right-aligned in 10 and a space, its text kept while the
 * period stays the same (a fixed period, most of the time). */
static void print_period(script *sc, uint64_t period)
{
	pd_out *o = &sc->out;
	if (!sc->period_len || period != sc->period_val) {
		bool keep = pd_out_room(o, 32); /* no flush in between */
		size_t start = o->len;
		pd_out_u64(o, period, 10);
		pd_out_ch(o, ' ');
		size_t n = o->len - start;
		if (keep && n <= sizeof(sc->period_text)) {
			memcpy(sc->period_text, o->buf + start, n);
			sc->period_len = (int)n;
			sc->period_val = period;
		}
		return;
	}
	pd_out_block(o, sc->period_text, (size_t)sc->period_len);
}

/* "%12s: " of "secs.usecs" (the usecs truncated), the seconds' text kept
 * while they stay the same. */
static void print_time_us(script *sc, uint64_t t)
{
	pd_out *o = &sc->out;
	uint64_t us = t / 1000, secs = us / 1000000;
	uint32_t frac = (uint32_t)(us % 1000000);
	if (!sc->sec_len || secs != sc->sec_val) {
		char tmp[24];
		int n = pd_dec_digits(tmp + sizeof(tmp), secs), pad = n < 5 ? 5 - n : 0;
		memset(sc->sec_text, ' ', sizeof(sc->sec_text));
		memcpy(sc->sec_text + pad, tmp + sizeof(tmp) - n, (size_t)n);
		sc->sec_len = pad + n;
		sc->sec_val = secs;
	}
	if (o->cap - o->len >= PD_OUT_BLOCK + 16) { /* straight into the buffer */
		char *d = o->buf + o->len;
		memcpy(d, sc->sec_text, PD_OUT_BLOCK);
		d += sc->sec_len;
		pd_dec_usecs(d + 7, frac);
		memcpy(d + 7, ": ", 2);
		o->len += (size_t)sc->sec_len + 9;
		return;
	}
	char tail[16];
	pd_dec_usecs(tail + 7, frac);
	memcpy(tail + 7, ": ", 2);
	pd_out_mem(o, sc->sec_text, (size_t)sc->sec_len);
	pd_out_mem(o, tail, 9);
}

/* The tracepoint's payload in its print format (perf's "trace" field). */
/* The time field, as perf 6.1: shifted by --reltime/--deltatime, in
 * microseconds, or nanoseconds with --ns. */
static inline void print_time(script *sc, uint64_t t)
{
	if (sc->time_shift)
		t = shift_time(sc, t);
	if (sc->ns)
		pd_out_printf(&sc->out, "%5" PRIu64 ".%09" PRIu64 ": ", t / 1000000000,
			      t % 1000000000);
	else
		print_time_us(sc, t);
}

static void print_trace(script *sc, pk_session *s, const pk_pd_evsel *e, const pk_pd_sample *smp)
{
	size_t n;
	const char *text = pk_session_trace_text(s, e, smp, PK_TRACE_PRETTY, &n);
	if (text)
		pd_out_mem(&sc->out, text, n);
}

static void print_brstack(script *sc, unsigned f, const pk_pd_sample *smp,
			  unsigned cpumode)
{
	script_brstack b = {.kind = f & F(BRSTACK)      ? SCRIPT_BR_ADDR
				    : f & F(BRSTACKSYM) ? SCRIPT_BR_SYM
						       : SCRIPT_BR_OFF,
			    .dso = f & F(DSO), .pid = smp->pid, .cpumode = cpumode};
	script_print_brstack(&sc->out, sc->machine, &b, smp);
}

/* Whether a sample's addr names a place in the process's maps that perf
 * symbolizes (page faults' addresses), not a data address it leaves
 * bare. */
static bool addr_has_symbol(const pk_pd_evsel *e)
{
	uint64_t c = e->attr.config;
	return e->attr.type == PERF_TYPE_SOFTWARE &&
	       (c == PERF_COUNT_SW_PAGE_FAULTS || c == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		c == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/* The addr field: the address, then (page faults) its symbol and dso as
 * the sym, symoff and dso fields ask. The address is looked up in the
 * sample's mode first, then in the mode its value belongs to (a fault in
 * the kernel on a user address), as perf does. */
static void print_sample_addr(script *sc, const pk_pd_evsel *e, unsigned f,
			      const pk_pd_sample *smp, unsigned cpumode)
{
	pd_out_hex(&sc->out, smp->addr, 16);
	if (!(f & (F(SYM) | F(DSO))) || !addr_has_symbol(e))
		return;
	const pk_addr_loc *loc = pk_machine_lookup(sc->machine, smp->pid, cpumode, smp->addr);
	unsigned mode = smp->addr >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	if (!loc->has_map && mode != cpumode)
		loc = pk_machine_lookup(sc->machine, smp->pid, mode, smp->addr);
	print_loc(&sc->out, f, loc);
}

/* What starts a sample's line and each of its metric lines: the task,
 * cpu, misc, tod and time fields. */
static void print_start(script *sc, const pk_pd_event *ev, unsigned f, bool chain,
			const pk_pd_sample *smp)
{
	pd_out *o = &sc->out;
	if (f & (F(COMM) | F(PID) | F(TID)))
		print_task(sc, f, chain, smp);
	if (f & F(CPU)) {
		char cb[16];
		int cpu = (int)smp->cpu;
		if (cpu >= 0 && cpu < 1000) {
			cb[0] = '[';
			cb[1] = (char)('0' + cpu / 100);
			memcpy(cb + 2, pd_dec_pairs + cpu % 100 * 2, 2);
			pd_out_mem(o, cb, 4);
			pd_out_lit(o, "] ");
		} else {
			pd_out_printf(o, "[%03d] ", cpu);
		}
	}
	if (f & (F(MISC) | F(TOD))) {
		if (f & F(MISC))
			script_print_misc(o, ev->misc);
		if (f & F(TOD))
			script_print_tod(o, smp->time, sc->clock_wall_ns, sc->clock_ns);
	}
	if (f & F(TIME))
		print_time(sc, smp->time);
}

/* The metric lines a sample ends its group's round with, each started as
 * the sample's line (perf script 6.1). */
static void print_metrics(script *sc, const pk_pd_event *ev, unsigned f,
			  bool chain, const pk_pd_sample *smp)
{
	size_t n = sc->metric ? pk_script_metric_sample(sc->metric, ev->evsel, smp) : 0;
	for (size_t i = 0; i < n; i++) {
		const pk_script_metric_line *l = pk_script_metric_line_at(sc->metric, i);
		for (unsigned k = 0; k < l->starts; k++) {
			print_start(sc, ev, f, chain, smp);
			pd_out_lit(&sc->out, "\tmetric: ");
		}
		pd_out_str(&sc->out, l->text);
		pd_out_ch(&sc->out, '\n');
	}
}

/* Replaying a line: the samples of one Arm SPE record (the session's
 * same_before / same_after) differ mostly by their event only, so the
 * next one's line is the previous line's text with its own label, when it
 * prints the same fields of the same values. Only fields whose text is
 * made of the values compared qualify (not a page fault's symbolized
 * addr), without a call chain or --deltatime/--reltime. */
#define REPLAY_FIELDS                                                                             \
	(F(COMM) | F(TID) | F(PID) | F(CPU) | F(TIME) | F(EVNAME) | F(IP) | F(SYM) | F(SYMOFF) |  \
	 F(DSO) | F(ADDR) | F(PHYS_ADDR) | F(PERIOD) | F(WEIGHT) | F(INS_LAT) | F(DATA_SRC) |     \
	 F(SRCLINE))

static bool replayable(const script *sc, const pk_pd_evsel *e, unsigned f, bool chain)
{
	return !(f & ~REPLAY_FIELDS) && !chain && !sc->time_shift &&
	       !((f & F(ADDR)) && addr_has_symbol(e));
}

/* Keeps the line just printed at pos[0]..pos[3] of the buffer (its label
 * at pos[1]..pos[2]) for the next sample of its record, unless the buffer
 * was emptied since it began (flushes: out.flushes then). */
static void replay_keep(script *sc, const pk_pd_event *ev, unsigned f, const pk_pd_sample *smp,
			const size_t pos[4], uint64_t flushes)
{
	sc->replay = (struct replay){sc->out.flushes == flushes, flushes, pos[0], pos[1], pos[2],
				     pos[3], pk_line_key_of(ev, smp, f)};
}

/* Room past a replayed line: its parts' fixed-size moves (replay_line). */
enum { REPLAY_SLACK = 96 };

/* The kept line again with e's label, when smp prints as it did; false:
 * print it afresh. */
static bool replay_line(script *sc, const pk_session *s, const pk_pd_event *ev,
			const pk_pd_evsel *e, unsigned f, const pk_pd_sample *smp)
{
	struct replay *rp = &sc->replay;
	pd_out *o = &sc->out;
	size_t ll;
	static const char no_label[PD_OUT_BLOCK];
	const char *label = no_label;
	ll = 0;
	if (f & F(EVNAME))
		label = label_of(sc, e, &ll);
	size_t head = rp->label - rp->start, tail = rp->end - rp->rest;
	/* (f is the kept line's, which was replayable: only the event may
	 * differ, a page fault's addr being symbolized) */
	pk_line_key key = pk_line_key_of(ev, smp, f);
	if (!label || rp->flushes != o->flushes || !pk_line_key_same(&rp->key, &key) ||
	    ((f & F(ADDR)) && addr_has_symbol(e)) ||
	    o->cap - o->len < head + ll + tail + REPLAY_SLACK)
		return false;
	char *d = o->buf + o->len;
	const char *h = o->buf + rp->start, *t = o->buf + rp->rest;
	/* the parts as fixed-size moves when they fit (the bytes past each
	 * part are overwritten next; a part's own bytes lie before where it
	 * goes, at least its length back, so no move reads what one wrote) */
	if (head <= 64)
		pd_copy_fixed(d, h, 64);
	else
		memcpy(d, h, head);
	if (ll <= PD_OUT_BLOCK) /* labels have PD_OUT_BLOCK bytes (make_label) */
		pd_copy_fixed(d + head, label, PD_OUT_BLOCK);
	else
		memcpy(d + head, label, ll);
	if (tail <= 96)
		pd_copy_fixed(d + head + ll, t, 96);
	else
		memcpy(d + head + ll, t, tail);
	/* the next sample copies the same kept line: its bytes were written
	 * longer ago (reading bytes just stored by moves of other offsets
	 * stalls on store forwarding) */
	o->len += head + ll + tail;
	bool before;
	pk_session_spe_same(s, &before, &rp->valid);
	return true;
}

static int on_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	script *sc = arg;
	pd_out *o = &sc->out;
	if (!sc->checked) {
		sc->checked = true;
		/* perf's status for a field the file cannot give (a pipe's
		 * attr record failed: -EINVAL) */
		if (check_fields(sc, s) < 0)
			return pk_pd_is_pipe(sc->reader) ? 234 : 255;
	}
	const pk_pd_evsel *e = ev->evsel;
	unsigned f = (size_t)e->idx < sc->nr_evsel_fields ? sc->evsel_fields[e->idx] : 0;
	if (!f || (sc->filter && !pk_script_filter_keep(sc->filter, s, ev, smp)))
		return 0;
	if (sc->dumps) { /* --per-event-dump: the event's file */
		FILE *to = script_dumps_for(sc->dumps, e->idx);
		if (to && o->f != to) {
			pd_out_flush(o);
			o->f = to;
		}
	}
	bool chain = (f & F(IP)) && smp->callchain && !sc->hide_callchain;
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	/* the lines' slots are found and prefetched first, used last */
	uint64_t version = 0;
	pk_line_slot *ls = NULL;
	int how = PK_LS_NONE;
	if (chain) {
		pk_script_chain_gather(&sc->gather, sc->table, sc->frames, sc->machine,
				       pk_session_chain_inlines(s, smp), smp, cpumode, sc->max_stack,
				       &sc->chain);
	} else if (f & F(IP)) {
		version = pk_machine_maps_version(sc->machine, smp->pid, cpumode);
		if (sc->lines && version)
			ls = pk_line_probe_slot(&sc->probe, sc->table, version, smp->ip, f & LINE_FIELDS,
						&how);
	}
	print_start(sc, ev, f, chain, smp);
	if (f & F(PERIOD))
		print_period(sc, smp->period);
	if (f & F(EVNAME))
		print_evname(sc, e);
	if (f & F(FLAGS)) /* perf's "  %-21s " of the flags' text, empty for none */
		script_print_flags(o);
	if (is_bts(e)) /* perf 6.1 prints the branch and its lines, nothing more */
		f &= ~(F(TRACE) | F(SYNTH) | F(DATA_SRC) | F(WEIGHT) | F(INS_LAT) | F(IREGS) |
		       F(UREGS) | F_BRANCHES | F(PHYS_ADDR) | F(DATA_PAGE_SIZE) |
		       F(CODE_PAGE_SIZE) | F(CGROUP) | F(METRIC));
	if (f & F(TRACE))
		print_trace(sc, s, e, smp);
	if (f & F(SYNTH))
		print_synth(o, e, smp);
	if ((f & F(ADDR)) && !is_bts(e))
		print_sample_addr(sc, e, f, smp, cpumode);
	if (f & F(DATA_SRC))
		print_data_src(sc, smp->data_src);
	if (f & F(WEIGHT))
		pd_out_u64(o, smp->weight, 16);
	if (f & F(INS_LAT))
		pd_out_u64(o, smp->weight_var2, 16); /* WEIGHT_STRUCT's second field */
	if (chain) {
		pd_out_ch(o, '\n');
		print_chain(sc, f, smp, &sc->chain);
	} else if (how == PK_LS_RECENT) {
		slot_out(o, ls);
	} else if (f & F(IP)) { /* sym and dso without ip: the addr's, or none (perf) */
		ip_line_out(sc, f, smp, cpumode, ls, how, version);
	}
	if ((f & F(IP)) && (smp->type & PERF_SAMPLE_ADDR) && is_bts(e) &&
	    (!sc->sel.user || (f & F(ADDR)))) {
		pd_out_lit(o, " =>");
		print_addr_miss(sc, f, smp->pid,
				smp->addr >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
				smp->addr, false, NULL, smp->addr, 0);
	}
	if (f & (F(IREGS) | F(UREGS))) {
		if (f & F(IREGS))
			script_print_regs(o, sc->regs_arch, smp->intr_abi, e->attr.sample_regs_intr,
					  smp->intr_regs, smp->intr_regs_nr);
		if (f & F(UREGS))
			script_print_regs(o, sc->regs_arch, smp->user_abi, e->attr.sample_regs_user,
					  smp->user_regs, smp->user_regs_nr);
	}
	if (f & F_BRANCHES) /* one of them, in perf's order of preference */
		print_brstack(sc, f, smp, cpumode);
	if (f & F(PHYS_ADDR))
		pd_out_hex(o, smp->phys_addr, 16);
	if (f & F(DATA_PAGE_SIZE))
		print_page_size(o, smp->data_page_size);
	if (f & F(CODE_PAGE_SIZE))
		print_page_size(o, smp->code_page_size);
	if (f & F(CGROUP))
		pd_out_printf(o, " %" PRIu64, smp->cgroup);
	pd_out_ch(o, '\n');
	if (f & F(METRIC))
		print_metrics(sc, ev, f, chain, smp);
	return 0;
}

/* An instruction trace error (Intel PT) in its place among the samples,
 * perf 6.1's line. */
static int on_itrace_error(void *arg, pk_session *s, const pk_session_itrace_error *e)
{
	(void)s;
	script *sc = arg;
	pd_out_printf(&sc->out,
		      " instruction trace error type %u time %" PRIu64 ".%09" PRIu64
		      " cpu %d pid %d tid %d ip %#" PRIx64 " code %u: %s\n",
		      e->type, e->time / 1000000000, e->time % 1000000000, (int)e->cpu, e->pid,
		      e->tid, e->ip, e->code, e->msg);
	return 0;
}

/* The samples of Arm SPE records (pk_session_on_spe_sample): among the samples
 * of one record (same_before, same_after), the line of the one before
 * again when it was kept, or this one printed and kept for the next. */
static int on_spe_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	script *sc = arg;
	pd_out *o = &sc->out;
	const pk_pd_evsel *e = ev->evsel;
	unsigned f = sc->checked && (size_t)e->idx < sc->nr_evsel_fields ? sc->evsel_fields[e->idx]
									     : 0;
	bool same_before, same_after;
	pk_session_spe_same(s, &same_before, &same_after);
	/* the kept line is this record's when the sample before was */
	if (same_before && sc->replay.valid &&
	    (!sc->filter || pk_script_filter_keep(sc->filter, s, ev, smp)) &&
	    replay_line(sc, s, ev, e, f, smp))
		return 0;
	sc->replay.valid = false;
	uint64_t flushes = o->flushes;
	size_t start = o->len;
	int rc = on_sample(arg, s, ev, smp);
	f = (size_t)e->idx < sc->nr_evsel_fields ? sc->evsel_fields[e->idx] : 0;
	if (rc || !same_after || o->len == start || !replayable(sc, e, f, smp->callchain != NULL))
		return rc;
	size_t pos[4] = {start, o->len, o->len, o->len};
	if (f & F(EVNAME)) {
		pos[1] = sc->label_at[0];
		pos[2] = sc->label_at[1];
	}
	replay_keep(sc, ev, f, smp, pos, flushes);
	return 0;
}

/* The start of a side record's line, as a sample's (script_side_events.c):
 * the fields of the record's event, or of the first one that prints. */
static void side_prefix(void *arg, pk_session *s, const pk_pd_event *ev, const char *comm,
			uint32_t pid, uint32_t tid)
{
	script *sc = arg;
	(void)pid, (void)tid;
	if (!sc->checked) {
		sc->checked = true;
		if (check_fields(sc, s) < 0)
			sc->nr_evsel_fields = 0;
	}
	const pk_pd_evsel *e = ev->evsel ? ev->evsel : pk_pd_evsel_at(pk_session_reader(s), 0);
	unsigned f = e && (size_t)e->idx < sc->nr_evsel_fields ? sc->evsel_fields[e->idx] : 0;
	for (size_t i = 0; !f && i < sc->nr_evsel_fields; i++)
		f = sc->evsel_fields[i];
	pk_pd_sample smp = PK_PD_SAMPLE_INIT;
	smp.pid = ev->id.pid;
	smp.tid = ev->id.tid;
	bool chain = e && (f & F(IP)) && (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		     !sc->hide_callchain;
	format_task(&sc->out, f, chain, comm ? comm : ":-1", &smp);
	if (f & F(CPU))
		pd_out_printf(&sc->out, "[%03u] ", ev->id.cpu);
	if (f & F(TIME))
		print_time(sc, ev->id.time);
}

static void on_side_event(void *arg, pk_session *s, const pk_pd_event *ev, bool before)
{
	script *sc = arg;
	if (sc->side.kinds && side_events_wants(&sc->side, ev, before))
		side_events_print(&sc->side, s, ev);
	if (sc->stat_file && before && ev->type >= PK_RECORD_THREAD_MAP &&
	    ev->type <= PK_RECORD_STAT_ROUND) {
		pd_out_flush(&sc->out);
		stat_script_event(&sc->stat, s, ev);
	}
}

/* -D: script's lines follow each record's dump (stdout), so they are
 * written out at once. */
static int on_dump_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	script *sc = arg;
	int rc = on_sample(arg, s, ev, smp);
	pd_out_flush(&sc->out);
	return rc;
}

static void on_dump_side_event(void *arg, pk_session *s, const pk_pd_event *ev, bool before)
{
	script *sc = arg;
	on_side_event(arg, s, ev, before);
	pd_out_flush(&sc->out);
}

/* What tod and the registers need from the header: the clock pair (perf
 * refuses tod without it, status 255) and the architecture; -C on a file
 * whose samples carry no CPU is refused as perf refuses it (255). */
static int rare_fields_setup(script *sc, pk_session *s)
{
	pk_pd_header h;
	pk_error err;
	pk_error_clear(&err);
	if (pk_pd_header_read(pk_session_reader(s), &h, &err) < 0) {
		pk_cli_print_error("script", &err);
		return 1;
	}
	sc->regs_arch = pk_regs_for(h.arch);
	if (!sc->regs_arch)
		sc->regs_arch = pk_regs_host();
	sc->clock_wall_ns = h.clock_wall_ns;
	sc->clock_ns = h.clock_clockid_ns;
	bool clock = h.has_clock_data;
	pk_pd_header_release(&h);
	if (sc->cpu_filter && !pk_session_samples_with(s, PERF_SAMPLE_CPU)) {
		fprintf(stderr, "File does not contain CPU events. Remove -C option to proceed.\n");
		return 255;
	}
	if ((sc->sel.fields | sc->sel.add) & F(TOD) && !clock) {
		fprintf(stderr, "Can't provide 'tod' time, missing clock data. Please record with -k/--clockid "
		       "option.\n");
		return 255;
	}
	return 0;
}

/* -F metric's state; 0, or 1 after saying why not. */
static int metric_setup(script *sc, pk_session *s)
{
	pk_error err;
	pk_error_clear(&err);
	sc->metric = pk_script_metric_new(s, &err);
	if (!sc->metric)
		pk_cli_print_error("script", &err);
	return sc->metric ? 0 : 1;
}

static int skip_sample(void *arg, pk_session *s, const pk_pd_event *ev, const pk_pd_sample *smp)
{
	(void)arg, (void)s, (void)ev, (void)smp;
	return 0;
}

/* The filters' options (pk_script_filter), in pk_script_filter_kind's
 * order from SF_COMMS. */
enum { SF_COMMS = 512, SF_PID, SF_TID, SF_TIME, SF_CPU, SF_SYMS, SF_DSOS };

/* Adds a filter option (the filter made on the first); -EINVAL or -ENOMEM
 * after saying what is wrong. */
static int filter_option(script *sc, int opt, const char *arg)
{
	pk_error err;
	pk_error_clear(&err);
	sc->cpu_filter |= opt == SF_CPU;
	if (!sc->filter && !(sc->filter = pk_script_filter_new()))
		pk_err(&err, -ENOMEM, "out of memory");
	else
		pk_script_filter_add(sc->filter, (pk_script_filter_kind)(opt - SF_COMMS), arg, &err);
	if (err.code && opt == SF_TIME && err.code != -ENOMEM)
		pd_time_error("script", &err);
	else if (err.code)
		fprintf(stderr, "pmukit script: %s\n", err.msg);
	return err.code;
}

/* long options without a letter (past the filters' SF_* and side kinds) */
enum { O_CSV = 0x300, O_JSONL, O_SWITCH_ON, O_SWITCH_OFF, O_SHOW_ON_OFF, O_PER_EVENT_DUMP,
       O_CALL_TRACE, O_CALL_RET_TRACE, O_STOP_BT, O_ADDR_RANGE, O_MAX_BLOCKS, O_SHOW_INFO,
       O_NOTE, O_REFUSE, O_REFUSE_ARG, O_ACCEPT, O_DEMANGLE, O_LIST };

static const pk_opt script_opts_table[] = {
	{"input", 'i', 0, required_argument, "FILE", "input file ('-' for standard input)"},
	{"fields", 'F', 0, required_argument, "LIST",
	 "fields to print: comm,tid,pid,cpu,time,event,ip,sym,\n"
	 "symoff,dso,addr,phys_addr,period,weight,ins_lat,\n"
	 "data_src,data_page_size,code_page_size,cgroup,\n"
	 "trace (a tracepoint's payload), flags, srcline, iregs,\n"
	 "uregs, misc, tod, brstack, brstacksym, brstackoff,\n"
	 "metric; an optional type prefix (hw:, sw:, trace:,\n"
	 "raw:) as perf; +field / -field change the default set"},
	{"ns", 0, 'n', no_argument, NULL, "times in nanoseconds"},
	{"hide-call-graph", 'G', 0, no_argument, NULL, "do not print call chains"},
	{"no-order", 0, 'O', no_argument, NULL, "print in file order, not time order"},
	{"comms", 0, SF_COMMS, required_argument, "LIST", "only these commands' samples"},
	{"pid", 0, SF_PID, required_argument, "LIST", "only these processes' samples"},
	{"tid", 0, SF_TID, required_argument, "LIST", "only these threads' samples"},
	{"time", 0, SF_TIME, required_argument, "WINDOWS",
	 "only samples in these windows: START,END in seconds (a side may be\n"
	 "empty; several separated by spaces), or slices of the file's span:\n"
	 "10%/2, 0%-10%,30%-40%"},
	{"cpu", 'C', SF_CPU, required_argument, "CPUS", "only samples on these CPUs"},
	{"symbols", 'S', SF_SYMS, required_argument, "LIST", "only samples in these functions"},
	{"dsos", 0, SF_DSOS, required_argument, "LIST",
	 "only samples in these binaries (path or file name)"},
	{"header", 0, 'H', no_argument, NULL, "the file's header first"},
	{"header-only", 0, 'h', no_argument, NULL, "the file's header only"},
	{"reltime", 0, 'r', no_argument, NULL, "times from the first sample"},
	{"deltatime", 0, 'd', no_argument, NULL, "times from the previous sample"},
	{"max-stack", 0, 'm', required_argument, "N", "call chain lines printed per sample"},
	{"kallsyms", 0, 'k', required_argument, "FILE",
	 "kernel symbols from FILE (a copy of /proc/kallsyms)"},
	{"symfs", 0, 'Y', required_argument, "DIR",
	 "binaries looked up under DIR (kernel symbols then\n"
	 "only with --kallsyms)"},
	{"no-demangle", 0, 'N', no_argument, NULL, "C++ names as the symbol table holds them"},
	/* perf 6.1 (as built for Debian, its addr2line run as a program)
	 * shows no inlined frames: accepted, nothing changes */
	{"inline", 0, 'I', no_argument, NULL, "accepted: perf 6.1 shows no inlined frames"},
	{"no-inline", 0, 'I', no_argument, NULL, "accepted: no inlined frames"},
	{"force", 'f', 0, no_argument, NULL, "read a file another user owns (perf's check)"},
	{"show-task-events", 0, 0x100 | SIDE_TASK, no_argument, NULL,
	 "also COMM, FORK and EXIT records"},
	{"show-mmap-events", 0, 0x100 | SIDE_MMAP, no_argument, NULL, "also MMAP records"},
	{"show-switch-events", 0, 0x100 | SIDE_SWITCH, no_argument, NULL, "also SWITCH records"},
	{"show-lost-events", 0, 0x100 | SIDE_LOST, no_argument, NULL, "also LOST records"},
	{"show-namespace-events", 0, 0x100 | SIDE_NAMESPACES, no_argument, NULL,
	 "also NAMESPACES records"},
	{"show-cgroup-events", 0, 0x100 | SIDE_CGROUP, no_argument, NULL, "also CGROUP records"},
	{"show-round-events", 0, 0x100 | SIDE_ROUND, no_argument, NULL,
	 "also FINISHED_ROUND records (file order)"},
	{"itrace", 0, 'T', required_argument, "OPTS",
	 "Arm SPE synthetic samples: f m t b a M i l, i<N>i"},
	{"dump-raw-trace", 'D', 0, no_argument, NULL, "dump the Arm SPE packets as perf does"},
	{"csv", 0, O_CSV, no_argument, NULL,
	 "Arm SPE: every decoded record with all its fields\n"
	 "(spe-parser's columns), instead of samples"},
	{"jsonl", 0, O_JSONL, no_argument, NULL, "Arm SPE: the same as JSON lines"},
	{"switch-on", 0, O_SWITCH_ON, required_argument, "EVENT",
	 "samples only after the first sample of EVENT"},
	{"switch-off", 0, O_SWITCH_OFF, required_argument, "EVENT",
	 "no samples after one of EVENT (until --switch-on's)"},
	{"show-on-off-events", 0, O_SHOW_ON_OFF, no_argument, NULL,
	 "keep the switching samples themselves"},
	{"per-event-dump", 0, O_PER_EVENT_DUMP, no_argument, NULL,
	 "each event's lines into FILE.EVENT.dump"},
	{"call-trace", 0, O_CALL_TRACE, no_argument, NULL,
	 "calls: -F -ip,-addr,-event,-period,+callindent --ns\n"
	 "--itrace=cewp"},
	{"call-ret-trace", 0, O_CALL_RET_TRACE, no_argument, NULL,
	 "calls and returns: --call-trace's, +flags,\n"
	 "--itrace=crewp"},
	{"stop-bt", 0, O_STOP_BT, required_argument, "LIST",
	 "a call chain's lines end after these functions"},
	{"addr-range", 0, O_ADDR_RANGE, required_argument, "N",
	 "refused with -S (perf: samples within N bytes of\n"
	 "its symbols); else no effect"},
	{"max-blocks", 0, O_MAX_BLOCKS, required_argument, "N",
	 "accepted: for brstackinsn, which pmukit lacks"},
	{"show-info", 'I', O_SHOW_INFO, no_argument, NULL,
	 "with --header/--header-only: the CPU, NUMA, cache and\n"
	 "memory topologies in full"},
	{"demangle", 0, O_DEMANGLE, no_argument, NULL, "C++ names demangled (the default)"},
	{"demangle-kernel", 0, O_ACCEPT, no_argument, NULL, "accepted: the kernel's are C names"},
	{"full-source-path", 0, O_ACCEPT, no_argument, NULL,
	 "accepted: srcline shows addr2line's path"},
	{"show-kernel-path", 0, O_ACCEPT, no_argument, NULL,
	 "accepted: kernel symbols come from kallsyms (no\n"
	 "vmlinux path to show)"},
	{"all-cpus", 'a', O_NOTE, no_argument, NULL, "noted: perf's live mode only"},
	{"verbose", 'v', O_NOTE, no_argument, NULL, "noted: no debug messages"},
	{"show-bpf-events", 0, O_REFUSE, no_argument, NULL, "refused: BPF records not shown"},
	{"show-text-poke-events", 0, O_REFUSE, no_argument, NULL,
	 "refused: TEXT_POKE records not shown"},
	{"insn-trace", 0, O_REFUSE, no_argument, NULL,
	 "refused: instruction bytes need an x86 decoder"},
	{"graph-function", 0, O_REFUSE_ARG, required_argument, "SYM",
	 "refused: Intel PT call graphs of a function"},
	{"xed", 0, O_REFUSE, no_argument, NULL, "refused: no XED disassembler"},
	{"stitch-lbr", 0, O_REFUSE, no_argument, NULL, "refused: LBR stitching not supported"},
	{"debug-mode", 0, O_REFUSE, no_argument, NULL, "refused: perf's ordering check"},
	{"dump-unsorted-raw-trace", 0, O_REFUSE, no_argument, NULL,
	 "refused: the raw dump is of sorted records only"},
	{"list", 'l', O_LIST, no_argument, NULL,
	 "the report scripts pmukit runs (script report NAME: flamegraph, stackcollapse)"},
	{"script", 's', O_REFUSE_ARG, required_argument, "NAME",
	 "refused: pmukit runs no perf scripts (Perl, Python)"},
	{"gen-script", 'g', O_REFUSE_ARG, required_argument, "LANG",
	 "refused: pmukit runs no perf scripts"},
	{"dlfilter", 0, O_REFUSE_ARG, required_argument, "FILE", "refused: no dlfilters"},
	{"dlarg", 0, O_REFUSE_ARG, required_argument, "ARG", "refused: no dlfilters"},
	{"list-dlfilters", 0, O_REFUSE, no_argument, NULL, "refused: no dlfilters"},
	{"vmlinux", 'k', O_REFUSE_ARG, required_argument, "FILE",
	 "refused: kernel symbols from kallsyms (--kallsyms)"},
	{"guestmount", 0, O_REFUSE_ARG, required_argument, "DIR", "refused: no guest machines"},
	{"guestkallsyms", 0, O_REFUSE_ARG, required_argument, "FILE", "refused: no guest machines"},
	{"guestmodules", 0, O_REFUSE_ARG, required_argument, "FILE", "refused: no guest machines"},
	{"guestvmlinux", 0, O_REFUSE_ARG, required_argument, "FILE", "refused: no guest machines"},
	{"guest-code", 0, O_REFUSE, no_argument, NULL, "refused: no guest machines"},
	{0},
};

/* The options added for perf's users (issue 24), beyond the loop's. */
typedef struct script_more {
	const char *switch_on, *switch_off, *itrace;
	bool show_on_off, per_event_dump, show_info, addr_range;
} script_more;

/* --call-trace and --call-ret-trace: perf's fields, --itrace and --ns. */
static int call_trace(script *sc, script_more *m, bool ret)
{
	pk_error err;
	pk_error_clear(&err);
	const char *f = ret ? "-ip,-addr,-event,-period,+callindent,+flags"
			    : "-ip,-addr,-event,-period,+callindent";
	if (pk_script_fields_parse(&sc->sel, f, &err) < 0) {
		fprintf(stderr, "pmukit script: %s\n", err.msg);
		return 129;
	}
	m->itrace = ret ? "crewp" : "cewp";
	sc->ns = true;
	return 0;
}

/* One of the options above; 0, or an exit status after saying why. */
static int script_opt_more(script *sc, script_more *m, int c)
{
	uint64_t v;
	switch (c) {
	case O_SWITCH_ON: m->switch_on = optarg; return 0;
	case O_SWITCH_OFF: m->switch_off = optarg; return 0;
	case O_SHOW_ON_OFF: m->show_on_off = true; return 0;
	case O_PER_EVENT_DUMP: m->per_event_dump = true; return 0;
	case O_CALL_TRACE: case O_CALL_RET_TRACE: return call_trace(sc, m, c == O_CALL_RET_TRACE);
	case O_STOP_BT: return pk_hist_list_add(&sc->stop_bt, optarg) ? 1 : 0;
	case O_SHOW_INFO: m->show_info = true; return 0;
	case O_ADDR_RANGE:
		if (pk_cli_parse_u64("script", "--addr-range", optarg, 0, UINT64_MAX, &v))
			return 129;
		m->addr_range = true;
		return 0;
	case O_MAX_BLOCKS:
		return pk_cli_parse_u64("script", "--max-blocks", optarg, 0, UINT32_MAX, &v) ? 129 : 0;
	case O_ACCEPT: return 0;
	case O_NOTE: {
		const char *w = pk_opt_last_name();
		bool live = !strcmp(w, "--all-cpus");
		fprintf(stderr, "pmukit script: note: %s changes nothing here (%s)\n", w,
			live ? "perf's live mode only" : "no debug messages");
		return 0;
	}
	default:
		return pk_cli_usage_error("script", "%s is not supported (see docs/perfdata.md, "
					  "options refused)", pk_opt_last_name());
	}
}

const pk_optspec script_optspec = {
	.cmd = "script",
	.synopsis = "usage: pmukit script [-i FILE] [-F FIELDS] [--ns] [-G]\n"
		    "   or: pmukit script [-i FILE] report flamegraph|stackcollapse [OPTIONS]\n"
		    "\n"
		    "Prints every sample of a perf.data file (default ./perf.data, or standard\n"
		    "input when it is a pipe) the way perf script does; `report` runs perf's\n"
		    "flamegraph (-f json|html, -o FILE) or stackcollapse (--include-tid,\n"
		    "--include-pid, --no-comm, --tidy-java, --kernel) report natively.\n",
	.opts = script_opts_table,
	.stop_at_arg = true,
};

int cmd_script(int argc, char **argv)
{
	script sc;
	memset(&sc, 0, sizeof(sc));
	sc.max_stack = PK_MAX_STACK;
	bool header = false, header_only = false;
	pk_machine_opts mopts = {0};
	uint64_t v;
	const char *input = NULL;
	bool no_order = false, dump = false, force = false;
	int export_fmt = PD_SPE_EXPORT_NONE;
	const char *itrace = NULL;
	script_more more = {0};
	int c;
	pk_error err;
	pk_opt_begin(&script_optspec);
	while ((c = pk_opt_next(&script_optspec, argc, argv)) != -1) {
		if (c >= SF_COMMS && c <= SF_DSOS) {
			if (filter_option(&sc, c, optarg) < 0) {
				pk_script_filter_free(sc.filter);
				return c == SF_TIME ? PD_TIME_STATUS : 129;
			}
			continue;
		}
		if (c > 0x100 && c < 0x200) {
			sc.side.kinds |= (unsigned)c & 0xff;
			continue;
		}
		switch (c) {
		case 'H': header = true; break;
		case 'h': header_only = true; break;
		case 'r': sc.time_shift = SHIFT_REL; break;
		case 'k': mopts.kallsyms = optarg; break;
		case 'Y': mopts.symfs = optarg; break;
		case 'N': mopts.no_demangle = true; break;
		case 'I': break;
		case 'f': force = true; break;
		case 'd': sc.time_shift = SHIFT_DELTA; break;
		case 'm':
			if (pk_cli_parse_u64("script", "--max-stack", optarg, 0, PK_MAX_STACK, &v))
				goto usage;
			sc.max_stack = (int)v;
			break;
		case 'i': input = optarg; break;
		case 'D': dump = true; break;
		case 'T': itrace = optarg; break;
		case 'F':
			if (pk_script_fields_parse(&sc.sel, optarg, &err) < 0) {
				fprintf(stderr, "pmukit script: %s\n", err.msg);
				goto usage;
			}
			break;
		case 'n': sc.ns = true; break;
		case 'G': sc.hide_callchain = true; break;
		case 'O': no_order = true; break;
		case O_CSV: export_fmt = PD_SPE_EXPORT_CSV; break;
		case O_JSONL: export_fmt = PD_SPE_EXPORT_JSONL; break;
		case O_DEMANGLE: mopts.no_demangle = false; break;
		case O_LIST: script_report_list(stdout); return 0;
		case PK_OPT_ERROR: goto usage; /* said */
		default:
			more.itrace = itrace;
			if (script_opt_more(&sc, &more, c))
				goto usage;
			itrace = more.itrace;
		}
	}
	pd_header_set_info(more.show_info);
	if (more.addr_range && sc.filter) {
		pk_cli_usage_error("script", "--addr-range with -S is not supported");
		goto usage;
	}
	if (optind < argc && !strcmp(argv[optind], "report")) {
		pk_script_filter_free(sc.filter);
		stop_bt_free(&sc);
		bool machine = mopts.kallsyms || mopts.no_demangle || mopts.symfs;
		script_report_in in = {input, force, sc.max_stack, machine ? &mopts : NULL};
		return script_report(argc - optind - 1, argv + optind + 1, &in);
	}
	if (optind < argc) {
		pk_cli_usage_error("script", "unexpected argument '%s'", argv[optind]);
		goto usage;
	}
	pk_session *s = NULL;
	/* perf script reads in file order to show where the rounds end */
	int rc = pd_session_open(&s, "script", input, no_order || (sc.side.kinds & SIDE_ROUND), force,
				  dump);
	if (rc) {
		pk_script_filter_free(sc.filter);
		return rc;
	}
	if (dump) {
		pd_session_spe_dump(s);
		pd_dump_unordered_note(s);
	}
	rc = pd_session_time_span(s, "script", sc.filter);
	if (rc)
		goto done;
	rc = 1;
	if ((mopts.kallsyms || mopts.no_demangle || mopts.symfs) && pd_session_machine(s, &mopts))
		goto done;
	sc.machine = pk_session_machine(s);
	sc.reader = pk_session_reader(s);
	pd_session_spe_export(s, export_fmt);
	rc = 129;
	if (itrace && pd_session_itrace(s, itrace))
		goto done;
	rc = pd_session_switch(s, more.switch_on, more.switch_off, more.show_on_off);
	if (rc)
		goto done;
	script_dumps dumps;
	if (more.per_event_dump && (rc = script_dumps_open(&dumps, s)) != 0) {
		script_dumps_close(&dumps, NULL);
		goto done;
	}
	if (more.per_event_dump)
		sc.dumps = &dumps;
	rc = (sc.sel.fields | sc.sel.add) & F_RARE || sc.cpu_filter ? rare_fields_setup(&sc, s) : 0;
	if (!rc && ((sc.sel.fields | sc.sel.add) & F(METRIC)))
		rc = metric_setup(&sc, s);
	if (rc)
		goto done;
	if (header || header_only) {
		pd_header_print(pk_session_reader(s), pk_session_input(s), stdout);
		fflush(stdout);
		if (pk_pd_is_pipe(pk_session_reader(s))) /* perf's script --header-only: not read on */
			pd_session_pipe_features(s, stdout);
	}
	pd_header_note_modeled(pk_session_reader(s), "script", false, stderr);
	if (header_only)
		goto done;
	pd_out_init(&sc.out, stdout);
	sc.stat_file = pk_pd_has_feature(sc.reader, PK_FEAT_STAT) || pk_pd_is_pipe(sc.reader);
	if (sc.side.kinds)
		sc.side = (side_events){sc.side.kinds, side_prefix, &sc, &sc.out};
	if (sc.side.kinds || sc.stat_file)
		pk_session_on_event(s, dump ? on_dump_side_event : on_side_event, &sc);
	sc.lines = pk_line_cache_new();
	if (sc.lines) {
		sc.table = pk_line_cache_lines(sc.lines);
		sc.frames = pk_line_cache_frames(sc.lines);
	}
	/* --csv/--jsonl: the SPE records only, printed by session_cli.c */
	pk_session_on_spe_sample(s, on_spe_sample);
	pk_session_on_itrace_error(s, on_itrace_error, &sc);
	if (dump) /* perf's dump of each record, then script's lines for it */
		rc = pd_dump_run(s, sc.side.kinds & SIDE_ROUND ? PD_DUMP_ROUNDS_SHOWN : 0u,
				 export_fmt ? skip_sample : on_dump_sample, &sc);
	else
		rc = pd_session_run(s, export_fmt ? skip_sample : on_sample, &sc);
	pd_out_flush(&sc.out);
	sc.out.f = stdout;
	if (sc.dumps && script_dumps_close(sc.dumps, stdout) && !rc)
		rc = 1;
	sc.dumps = NULL;
	pd_out_free(&sc.out);
	rc = pd_session_finish(s, rc ? rc : sc.stat.failed ? 1 : 0);
done: /* the session and what the options made freed */
	stat_script_free(&sc.stat);
	pk_line_cache_free(sc.lines);
	free(sc.evsel_fields);
	for (size_t i = 0; sc.labels && i < sc.nr_evsel_fields; i++) {
		free(sc.labels[i].name);
		free(sc.labels[i].text);
	}
	free(sc.labels);
	pk_script_filter_free(sc.filter);
	pk_script_metric_free(sc.metric);
	if (sc.dumps)
		script_dumps_close(sc.dumps, NULL);
	stop_bt_free(&sc);
	pk_session_close(s);
	return rc;
usage: /* an option refused: what was parsed so far freed */
	pk_script_filter_free(sc.filter);
	stop_bt_free(&sc);
	return 129;
}
