/* pmukit: the engine of perf script 6.1 on a pk_session (lib/session),
 * what another program printing a perf.data's samples would need; the
 * printing stays with the caller.
 *
 * - Sample filters (pk_script_filter, script_filter.c): perf script's
 *   --comms, --pid, --tid, --time, -C, -S and --dsos, each list parsed once
 *   when added; pk_script_filter_keep only compares (the thread's name and
 *   the address's symbol and dso come from the session's machine).
 * - The `metric` field (pk_script_metric, script_metric.c): perf script's
 *   running state for the shadow metrics of group samples, the formulas
 *   being lib/metrics' stat table (the rules in script_metric.c).
 * - The -F field list (pk_script_fields, script_select.c): parsed into the
 *   fields asked, added and taken away, then checked once per event
 *   against its sample_type as perf 6.1 does (the defaults per event type,
 *   what a missing attribute drops or refuses, the event names' width).
 * - Address lines remembered (pk_line_cache, script_lines.c): the text the
 *   caller formatted for an address kept in a slot under a tag, so that it
 *   is copied when the address comes again; a sample's call chain gathered
 *   with each entry's slot prefetched (pk_script_chain_gather). What runs
 *   per sample is inline here, on state the caller owns (no call into the
 *   library per sample: bench/script). */
#ifndef PMUKIT_SCRIPT_H
#define PMUKIT_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>
#include <pmukit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sample filters ---------------------------------------------------- */

typedef struct pk_script_filter pk_script_filter;

/* The filters, as perf script's options name them. */
typedef enum pk_script_filter_kind {
	PK_SF_COMMS,  /* --comms a,b: the thread's name */
	PK_SF_PIDS,   /* --pid 1,2 */
	PK_SF_TIDS,   /* --tid 1,2 */
	PK_SF_TIME,   /* --time: perf's windows (pmukit/timerange.h) */
	PK_SF_CPUS,   /* -C 0-3,8 */
	PK_SF_SYMS,   /* -S a,b: the symbol of the sample's address */
	PK_SF_DSOS,   /* --dsos a,b: its dso, as a path or a file name */
} pk_script_filter_kind;

/* An empty filter (keeps every sample); NULL when out of memory. */
pk_script_filter *pk_script_filter_new(void);
/* Adds one option's list: 0, -EINVAL (err says what is wrong, in perf
 * script's words after "pmukit script: ") or -ENOMEM. */
int pk_script_filter_add(pk_script_filter *f, pk_script_filter_kind kind, const char *arg,
			 pk_error *err);
/* The file's first and last sample times (its SAMPLE_TIME feature;
 * has_span false without one), which a percent --time needs: 0, or
 * -ENODATA without a span, -ENOMEM (err says so). NULL f: 0. */
int pk_script_filter_span(pk_script_filter *f, bool has_span, uint64_t first, uint64_t last,
			  pk_error *err);
/* Whether the sample passes every filter added. */
bool pk_script_filter_keep(const pk_script_filter *f, pk_session *s, const pk_pd_event *ev,
			   const pk_pd_sample *smp);
void pk_script_filter_free(pk_script_filter *f);

/* ---- The metric field ---------------------------------------------------- */

typedef struct pk_script_metric pk_script_metric;

/* A metric line: its text ("value unit", as perf prints it after
 * "\tmetric: ") and how many times the sample's start and "\tmetric: " come
 * before it: 1, or 2 for a further line (a PK_METRIC_NEW_LINE row: perf
 * script's new_line prints them once more). */
typedef struct pk_script_metric_line {
	char text[96];
	unsigned starts;
} pk_script_metric_line;

/* The running state for the session's file (its events and groups); NULL
 * with err set (its message begins "metric: ", or the header's error). */
pk_script_metric *pk_script_metric_new(pk_session *s, pk_error *err);
void pk_script_metric_free(pk_script_metric *m);
/* One printed sample of e; returns the number of metric lines the round
 * ends with (0 while it goes on), read with pk_script_metric_line_at. */
size_t pk_script_metric_sample(pk_script_metric *m, const pk_pd_evsel *e,
			       const pk_pd_sample *smp);
/* Line i of the last round's (an empty one past them). */
const pk_script_metric_line *pk_script_metric_line_at(const pk_script_metric *m, size_t i);

/* ---- The -F field list ---------------------------------------------------- */

/* perf script's fields, one bit each (PK_SCRIPT_F_SYNTH: Intel PT's psb and
 * cbr payload, never named by -F). */
#define PK_SCRIPT_F_COMM (1u << 0)
#define PK_SCRIPT_F_TID (1u << 1)
#define PK_SCRIPT_F_PID (1u << 2)
#define PK_SCRIPT_F_CPU (1u << 3)
#define PK_SCRIPT_F_TIME (1u << 4)
#define PK_SCRIPT_F_EVNAME (1u << 5)
#define PK_SCRIPT_F_IP (1u << 6)
#define PK_SCRIPT_F_SYM (1u << 7)
#define PK_SCRIPT_F_SYMOFF (1u << 8)
#define PK_SCRIPT_F_DSO (1u << 9)
#define PK_SCRIPT_F_ADDR (1u << 10)
#define PK_SCRIPT_F_PHYS_ADDR (1u << 11)
#define PK_SCRIPT_F_PERIOD (1u << 12)
#define PK_SCRIPT_F_WEIGHT (1u << 13)
#define PK_SCRIPT_F_DATA_SRC (1u << 14)
#define PK_SCRIPT_F_DATA_PAGE_SIZE (1u << 15)
#define PK_SCRIPT_F_CODE_PAGE_SIZE (1u << 16)
#define PK_SCRIPT_F_CGROUP (1u << 17)
#define PK_SCRIPT_F_INS_LAT (1u << 18)
#define PK_SCRIPT_F_TRACE (1u << 19)
#define PK_SCRIPT_F_IREGS (1u << 20)
#define PK_SCRIPT_F_UREGS (1u << 21)
#define PK_SCRIPT_F_FLAGS (1u << 22)
#define PK_SCRIPT_F_MISC (1u << 23)
#define PK_SCRIPT_F_TOD (1u << 24)
#define PK_SCRIPT_F_CALLINDENT (1u << 25)
#define PK_SCRIPT_F_BRSTACK (1u << 26)
#define PK_SCRIPT_F_BRSTACKSYM (1u << 27)
#define PK_SCRIPT_F_BRSTACKOFF (1u << 28)
#define PK_SCRIPT_F_SRCLINE (1u << 29)
#define PK_SCRIPT_F_METRIC (1u << 30)
#define PK_SCRIPT_F_SYNTH (1u << 31)

/* What -F asked: a list that replaces the defaults (user), or changes to
 * them (+field, -field), for the events of type_filter ("hw", "sw",
 * "trace", "raw") or of every type (NULL). Zeroed: perf's defaults. */
typedef struct pk_script_fields {
	unsigned fields;             /* the list, when user */
	bool user;                   /* a list without + or - */
	unsigned add, del;           /* +field, -field */
	const char *type_filter;     /* a static string, or NULL */
} pk_script_fields;

/* Parses -F's argument into sel: 0 or -EINVAL (err in perf's words, to be
 * printed after "pmukit script: "), -ENOMEM. */
int pk_script_fields_parse(pk_script_fields *sel, const char *arg, pk_error *err);
/* Each event's fields after checking them against its sample_type, into
 * out[pk_session_nr_evsels(s)] (0: the event is not printed), and the
 * widest name of an event printed into *name_width (left as it is when
 * none is wider). hide_callchain: -G. -EINVAL when a field asked for needs
 * an attribute the samples lack (err: perf's line, printed as it is). */
int pk_script_fields_check(const pk_script_fields *sel, pk_session *s, bool hide_callchain,
			   unsigned *out, int *name_width, pk_error *err);

/* ---- Address lines remembered ------------------------------------------ */

typedef struct pk_line_cache pk_line_cache;

/* One remembered line, two cache lines: its text under (addr, version)
 * and the caller's key (the fields it was formatted with); version 0:
 * empty. Nearly every line fits text[]; a longer one lives in long_text. */
typedef struct pk_line_slot {
	uint64_t addr, version;
	unsigned key;
	char *long_text;
	uint32_t len, long_cap;
	char text[88];
} pk_line_slot;

#define PK_LINE_CACHE_BITS 14
#define PK_LINE_CACHE (1u << PK_LINE_CACHE_BITS)

/* The tables (10 MiB, on 2 MiB pages where the kernel gives them); NULL
 * when out of memory (the caller formats every line then). */
pk_line_cache *pk_line_cache_new(void);
void pk_line_cache_free(pk_line_cache *c);
/* The line table: PK_LINE_CACHE slots, found by pk_line_slot_at. */
pk_line_slot *pk_line_cache_lines(pk_line_cache *c);
/* Keeps len bytes of text in ls under (addr, version, key). */
void pk_line_slot_keep(pk_line_cache *c, pk_line_slot *ls, const char *text, size_t len,
		       uint64_t addr, uint64_t version, unsigned key);

/* The slots' hash of a tag (a, b). */
static inline uint64_t pk_line_hash(uint64_t a, uint64_t b)
{
	return (a ^ b * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;
}

/* The slot of (version, addr) in the line table. */
static inline pk_line_slot *pk_line_slot_at(pk_line_slot *lines, uint64_t version, uint64_t addr)
{
	return &lines[pk_line_hash(addr, version) >> (64 - PK_LINE_CACHE_BITS)];
}

/* Sample lines (not chains) and the line table: a slot costs a memory
 * touch at a random place and saves the lookup only when the address
 * comes again before the slot is reused. Where addresses are spread (Arm
 * SPE: a new pc in nearly every record) it misses almost always, so its
 * hits are counted over windows of 4096 probes: under one in four, the
 * next 65536 lines are formatted without a slot (their stand-in, own,
 * stays empty), then the table is probed again. The slot of the latest
 * line is tried first, untouched by the counts. The caller's state, zeroed
 * at first; inline, as it runs once per sample. */
typedef struct pk_line_probe {
	pk_line_slot *recent;        /* the slot of the latest sample line */
	uint32_t probes, hits;       /* in the current window */
	uint32_t bypass;             /* sample lines left to format without a slot */
	pk_line_slot own;            /* the stand-in: keep no text in it */
} pk_line_probe;

/* How a sample's line comes out of its slot (pk_line_probe_slot). */
enum { PK_LS_NONE, PK_LS_RECENT, PK_LS_PROBE, PK_LS_OWN };

/* The slot of a sample's line at (version, ip) with key, and how: RECENT
 * the latest line's, holding it; PROBE the table's (prefetched, its hit
 * counted by pk_line_probe_used); OWN the stand-in, bypassing the table. */
static inline pk_line_slot *pk_line_probe_slot(pk_line_probe *pr, pk_line_slot *lines,
					       uint64_t version, uint64_t ip, unsigned key,
					       int *how)
{
	pk_line_slot *l = pr->recent;
	if (l && l->addr == ip && l->version == version && l->key == key) {
		*how = PK_LS_RECENT;
		return l;
	}
	if (pr->bypass) {
		pr->bypass--;
		*how = PK_LS_OWN;
		return &pr->own;
	}
	*how = PK_LS_PROBE;
	l = pk_line_slot_at(lines, version, ip);
	__builtin_prefetch(l);
	return l;
}

/* The sample's line goes out through ls (not RECENT): a probe's hit
 * (ls holds (ip, version, key)) counted, ls made the latest. */
static inline void pk_line_probe_used(pk_line_probe *pr, pk_line_slot *ls, int how, uint64_t ip,
				      uint64_t version, unsigned key)
{
	if (how == PK_LS_PROBE) {
		pr->hits += ls->addr == ip && ls->version == version && ls->key == key;
		if (++pr->probes == 4096) {
			if (pr->hits * 4 < 4096)
				pr->bypass = 1 << 16;
			pr->probes = pr->hits = 0;
		}
	}
	pr->recent = ls;
}

/* What a sample's line is made of, for printing the line again (script's
 * Arm SPE samples of one record differ mostly by their event only: the next
 * one's line is the previous text with its own label when the two keys are
 * the same): the record, the sample's values the fields show, the fields. */
typedef struct pk_line_key {
	uint64_t offset, time, ip, period, addr, data_src, phys_addr, weight, ins_lat;
	uint32_t pid, tid, cpu;
	uint16_t misc;
	unsigned fields;
} pk_line_key;

static inline pk_line_key pk_line_key_of(const pk_pd_event *ev, const pk_pd_sample *smp,
					 unsigned fields)
{
	return (pk_line_key){ev->offset, smp->time, smp->ip, smp->period, smp->addr,
			     smp->data_src, smp->phys_addr, smp->weight, smp->weight_var2,
			     smp->pid, smp->tid, smp->cpu, ev->misc, fields};
}

static inline bool pk_line_key_same(const pk_line_key *a, const pk_line_key *b)
{
	return a->offset == b->offset && a->fields == b->fields && a->time == b->time &&
	       a->ip == b->ip && a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu &&
	       a->misc == b->misc && a->period == b->period && a->addr == b->addr &&
	       a->data_src == b->data_src && a->phys_addr == b->phys_addr &&
	       a->weight == b->weight && a->ins_lat == b->ins_lat;
}

/* A sample's call chain, the entries perf prints (at most max_stack). */
typedef struct pk_chain_ent {
	uint64_t ip, version;        /* the address, its maps version */
	unsigned mode;               /* its cpumode (from the chain's markers) */
	const char *inl;             /* an inlined function's line, or NULL */
	pk_line_slot *ls;            /* its slot (prefetched), or NULL: none */
	uint64_t tag_addr, tag_version; /* what the slot's line is kept under */
} pk_chain_ent;

typedef struct pk_chain_plan {
	int n;                       /* entries; 0 also for a chain perf drops */
	pk_chain_ent e[PK_MAX_STACK];
} pk_chain_plan;

/* The gatherer's state, the caller's (zeroed at first): a memo of
 * user-space maps (and of the room between them) by (maps
 * version, 64 KiB block of the address), valid while the process's maps
 * version holds: a chain's frames lie in a few maps, the next sample's
 * mostly in the same. */
#define PK_FRAME_CACHE_BITS 16
#define PK_FRAME_MEMO_BITS 8
typedef struct pk_chain_gatherer {
	struct pk_frame_memo {
		uint64_t version;    /* 0: empty */
		pk_frame_map fm;
	} maps[1u << PK_FRAME_MEMO_BITS];
} pk_chain_gatherer;

/* The frame table: 1 << PK_FRAME_CACHE_BITS slots. */
pk_line_slot *pk_line_cache_frames(pk_line_cache *c);

/* The map of a user-space address (NULL: none), through the memo. */
static inline const pk_frame_map *pk_chain_frame_map(pk_chain_gatherer *g, pk_machine *m,
						     uint32_t pid, unsigned mode,
						     uint64_t version, uint64_t ip)
{
	struct pk_frame_memo *mm = &g->maps[pk_line_hash(ip >> 16, version) >>
					    (64 - PK_FRAME_MEMO_BITS)];
	if (mm->version != version || ip - mm->fm.start >= mm->fm.end - mm->fm.start) {
		pk_machine_frame_map(m, pid, mode, ip, &mm->fm);
		mm->version = version;
	}
	return mm->fm.dso ? &mm->fm : NULL;
}

/* The entries of smp's chain (at most max_stack; its inlined functions'
 * lines inls, from pk_session_chain_inlines, or NULL), each with its slot
 * prefetched (lines and frames, pk_line_cache_lines and _frames; NULL: no
 * slots): a user-space line in the frame table under (offset, dso),
 * the same text in every process that maps the dso; others in the line
 * table under (address, maps version). Inline: once per sample, a loop
 * over the chain. */
static inline void pk_script_chain_gather(pk_chain_gatherer *g, pk_line_slot *lines,
					  pk_line_slot *frames, pk_machine *m,
					  const char *const *inls, const pk_pd_sample *smp,
					  unsigned cpumode, int max_stack, pk_chain_plan *cp)
{
	int n = 0;
	unsigned mode = cpumode;
	uint64_t version = pk_machine_maps_version(m, smp->pid, mode);
	cp->n = 0;
	/* perf reads no further than max_stack entries: a bad marker past
	 * them is not seen */
	for (uint64_t i = 0; i < smp->callchain_nr && n < max_stack; i++) {
		uint64_t ip = smp->callchain[i];
		int mk = pk_callchain_marker(ip, &mode);
		if (mk < 0)
			return; /* perf 6.1 drops the chain as corrupt */
		if (mk) {
			version = pk_machine_maps_version(m, smp->pid, mode);
			continue;
		}
		pk_chain_ent *ce = &cp->e[n++];
		ce->ip = ce->tag_addr = ip;
		ce->version = ce->tag_version = version;
		ce->mode = mode;
		ce->inl = inls ? inls[i] : NULL;
		ce->ls = NULL;
		if (!lines || !version || ce->inl)
			continue;
		const pk_frame_map *fm = mode == PERF_RECORD_MISC_USER
						  ? pk_chain_frame_map(g, m, smp->pid, mode, version, ip)
						  : NULL;
		if (fm) {
			uint64_t off = ip - fm->start + fm->pgoff;
			ce->tag_addr = off;
			ce->tag_version = (uint64_t)(uintptr_t)fm->dso;
			ce->ls = &frames[pk_line_hash(off, (uint64_t)(uintptr_t)fm->dso) >>
					    (64 - PK_FRAME_CACHE_BITS)];
		} else {
			ce->ls = pk_line_slot_at(lines, version, ip);
		}
		__builtin_prefetch(ce->ls);
	}
	cp->n = n;
}

#ifdef __cplusplus
}
#endif

#endif
