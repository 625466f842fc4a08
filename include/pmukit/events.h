/* pmukit: events, from perf's event syntax to perf_event_attr (lib/events).
 *
 *   "cpu_core/event=0x3c/u"  --parse-->  terms, modifiers, groups
 *                            --resolve-> PMU, aliases, libpfm4 names
 *                            --expand--> one event per core PMU (hybrid)
 *                            --encode--> perf_event_attr
 *
 * A pk_evlist owns its pk_evsels. Parsing appends; pk_evlist_config() then
 * applies the defaults of a command (stat: read_format, inherit,
 * enable_on_exec; record: freq, sample_type) the way perf does. Expansion has
 * one routine: stat's default events are parsed through it too.
 *
 * Inside lib/events, the split is by question:
 * - parse.c answers "what did the user write": a syntax tree (ast.h) of
 *   events, terms, modifiers, groups and byte positions for error carets; no
 *   PMU knowledge, so the grammar is testable alone.
 * - encode.c answers "what does it mean on this machine": the resolution
 *   order follows perf (symbolic, then sysfs aliases, then libpfm4), the
 *   hybrid rules, format terms scattered into config words, the extended
 *   type, the modifier bits. perf's config terms (period=, freq=, inherit ...)
 *   are one table there, which also gives the "valid terms" hint.
 * - names.c holds perf's spellings of the symbolic events (hardware,
 *   software, cache) as tables; the perf.data reader names cache attrs
 *   through the same table (pki_cache_config_name).
 * - pfm.c maps a core (lib/pmu's table of CPU models) to libpfm4 tables and
 *   encodes named events. libpfm4 only encodes for PMUs it detects on the
 *   host, so for another model pmukit encodes from libpfm4's event tables
 *   where the layout is plain, checked against libpfm4's own encoder by a
 *   test. Without a libpfm4 table (Gracemont before libpfm4 4.14) the Intel
 *   architectural events pfm.c encodes itself (inst_retired.any, ...) stand
 *   in, for lookups and for `pmukit list`.
 * - tracepoint.c reads tracefs (pmukit/tracepoint.h).
 * - evlist.c owns evsels, groups, warnings and the stat/record defaults.
 * - branch.c holds record -j's branch filter words and their bits as a table;
 *   attr_names.c the attr flag bits' names as perf -vv prints them.
 *
 * Hybrid machines: a plain hardware or cache event becomes one evsel per core
 * PMU (cpu_core, cpu_atom), with the PMU type in config[63:32]; a raw event
 * one per core PMU with that PMU's type; cpu_core/.../ picks one. A group of
 * PMU-less events becomes one group per core PMU; a group that names events
 * of different core PMUs is dissolved with a warning. Core PMUs are ordered
 * cpu_core before cpu_atom, as in perf's hybrid document.
 *
 * TopDown's event rules (metric events in a slots-led group, slots first,
 * never sampling) are applied once, where groups are formed (fix_topdown in
 * encode.c): fixed with a note, or refused with the rule. */
#ifndef PMUKIT_EVENTS_H
#define PMUKIT_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/cpuid.h>
#include <pmukit/cpumap.h>
#include <pmukit/error.h>
#include <pmukit/pmu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* attr.size we write: perf 6.1's (PERF_ATTR_SIZE_VER7). config3 needs 136. */
#define PK_ATTR_SIZE 128
#define PK_ATTR_SIZE_CONFIG3 136

/* Bit position of the PMU type in config for hybrid legacy events. */
#define PK_PMU_TYPE_SHIFT 32

/* One event of an evlist, opaque: read it through the accessors below. An
 * evsel belongs to its evlist (valid while the evlist is) and holds a
 * reference on the PMU snapshot it points into, so pk_pmus_put() after
 * parsing is safe. */
typedef struct pk_evsel pk_evsel;

typedef struct pk_evlist pk_evlist;

typedef struct pk_parse_opts {
	/* Expand events without a PMU only onto this core PMU ("cpu_core" or
	 * "cpu_atom"), as perf's --cputype. NULL: every core PMU. */
	const char *only_pmu;
	/* Identification of the CPU, for named events (libpfm4). NULL: host or
	 * PMUKIT_CPUID. */
	const char *cpuid;
	/* tracefs mount point for tracepoints; NULL: $PMUKIT_TRACEFS, then
	 * /sys/kernel/tracing, then /sys/kernel/debug/tracing. */
	const char *tracefs;
} pk_parse_opts;

pk_evlist *pk_evlist_new(void);
pk_evlist *pk_evlist_get(pk_evlist *evlist);
void pk_evlist_put(pk_evlist *evlist);

/* Parses a perf event string and appends the events. On error, nothing is
 * appended and err holds the position and reason. */
int pk_evlist_parse(pk_evlist *evlist, const pk_pmus *pmus, const char *str,
		    const pk_parse_opts *opts, pk_error *err);

/* Appends one event built by the caller (defaults, tracking events). The
 * evsel is a lone event; name may be NULL. pmu may be NULL; when it belongs
 * to a pk_pmus, the evsel holds a reference on that. Returns the evsel, or
 * NULL on ENOMEM. */
pk_evsel *pk_evlist_add(pk_evlist *evlist, const struct perf_event_attr *attr,
			const char *name, const pk_pmu *pmu);
/* Makes evsels [first, first+n) one group led by `first`. */
void pk_evlist_group(pk_evlist *evlist, size_t first, size_t n);
/* As pk_evlist_group, the group weak (perf's :W): when the PMU refuses
 * it, pk_counting_open opens its events one by one (and warns). */
void pk_evlist_group_weak(pk_evlist *evlist, size_t first, size_t n);

size_t pk_evlist_count(const pk_evlist *evlist);
pk_evsel *pk_evlist_at(const pk_evlist *evlist, size_t idx);

/* The attr as configured (by the parser and pk_evlist_config). What is
 * opened may differ per open (pk_counting_attr); the evsel never changes
 * because of an open. config3 is kept apart (the installed UAPI header may
 * predate it). */
const struct perf_event_attr *pk_evsel_attr(const pk_evsel *evsel);
uint64_t pk_evsel_config3(const pk_evsel *evsel);
/* Replaces the attr: a command's own configuration before any open
 * (record's tracking bits); size 0 means PK_ATTR_SIZE. */
void pk_evsel_set_attr(pk_evsel *evsel, const struct perf_event_attr *attr);
/* The name as perf prints it ("cycles", "cpu_core/cycles/"), or NULL. */
const char *pk_evsel_name(const pk_evsel *evsel);
/* Renames the evsel (a command's own naming, e.g. record's stored names);
 * 0 or -ENOMEM. */
int pk_evsel_set_name(pk_evsel *evsel, const char *name);
/* The modifiers perf derives from an attr's exclude bits and precise_ip
 * (":u", ":ppp", ":HG", "" when none), as perf 6.1 names events in files
 * and listings; returns snprintf's count. */
int pk_attr_modifiers(const struct perf_event_attr *attr, char *buf, size_t len);
/* The PMU it counts on ("cpu_core", "software", "tracepoint"), or NULL. */
const char *pk_evsel_pmu_name(const pk_evsel *evsel);
/* That PMU's sysfs data, NULL when sysfs has none; valid while the evsel is. */
const pk_pmu *pk_evsel_pmu(const pk_evsel *evsel);
/* Position in the list, its group leader's position (its own for leaders
 * and lone events), and on a leader the size of its group (itself
 * included; 0 on members). */
int pk_evsel_idx(const pk_evsel *evsel);
int pk_evsel_leader(const pk_evsel *evsel);
int pk_evsel_nr_members(const pk_evsel *evsel);
bool pk_evsel_is_leader(const pk_evsel *evsel);
/* The CPUs its PMU counts on (sysfs cpus/cpumask), borrowed; NULL: any. */
pk_cpumap *pk_evsel_cpus(const pk_evsel *evsel);
/* Scale and unit of a sysfs alias (1.0 and NULL otherwise). */
double pk_evsel_scale(const pk_evsel *evsel);
const char *pk_evsel_unit(const pk_evsel *evsel);
/* The unit perf shows the event's counts in and the scale to it: the
 * software clocks in msec (scale 1e-6: ns counted), else the sysfs
 * alias's ("" and scale 1 without one). */
const char *pk_evsel_display_unit(const pk_evsel *evsel, double *scale);
/* :P was given: the highest precise_ip the PMU accepts. */
bool pk_evsel_precise_max(const pk_evsel *evsel);

/* Warnings the parser gave (mixed hybrid groups, ...), to be shown to the user. */
size_t pk_evlist_nr_warnings(const pk_evlist *evlist);
const char *pk_evlist_warning(const pk_evlist *evlist, size_t idx);
void pk_evlist_warn(pk_evlist *evlist, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef enum pk_config_mode {
	PK_CONFIG_STAT = 0,
	PK_CONFIG_RECORD,
} pk_config_mode;

typedef struct pk_config_opts {
	pk_config_mode mode;
	bool system_wide;          /* -a/-C: counters per CPU, no inherit or enable_on_exec */
	bool forked_workload;      /* we start the command: enable_on_exec on leaders */
	bool no_inherit;           /* -i */
	uint64_t period;           /* record -c; 0: use freq */
	uint64_t freq;             /* record -F; 0: 4000 */
	uint64_t sample_type;      /* extra sample_type bits (-g: PERF_SAMPLE_CALLCHAIN, ...) */
	/* record only, as perf 6.1's evsel__config / evlist__config: */
	bool inherit_stat;         /* -s: inherit_stat, times and ids in read_format */
	bool no_sample_time;       /* --per-thread: samples without TIME */
	bool sample_identifier;    /* --sample-identifier: IDENTIFIER on every event */
	bool all_user, all_kernel; /* --all-user / --all-kernel: exclude the other side */
	uint64_t sample_regs_user; /* --user-regs mask (REGS_USER in sample_type) */
	uint64_t sample_regs_intr; /* -I mask (REGS_INTR in sample_type) */
	/* -b / -j: branch_sample_type, with BRANCH_STACK in sample_type, on
	 * every event but the tracking dummy; 0: none */
	uint64_t branch_sample_type;
	/* -g / --call-graph: PK_CALL_GRAPH_FP, _DWARF or _LBR (0: none).
	 * An event's call-graph= (and stack-size=) term replaces it for that
	 * event, as perf 6.1's evsel__apply_config_terms. */
	int call_graph;
	uint32_t stack_dump_size;  /* dwarf: sample_stack_user (a multiple of 8) */
	uint64_t dwarf_regs_user;  /* dwarf: the registers the unwinder needs */
	uint16_t max_stack;        /* sample_max_stack (fp,N); 0: the kernel's */
} pk_config_opts;

#define PK_CALL_GRAPH_FP 1
#define PK_CALL_GRAPH_DWARF 2
#define PK_CALL_GRAPH_LBR 3
/* perf's default stack dump of --call-graph dwarf, and its largest */
#define PK_STACK_DUMP_DEFAULT 8192u
#define PK_STACK_DUMP_MAX 65528u

/* Applies the defaults a command sets on every attr (read_format,
 * sample_type, disabled, inherit, ...), as perf stat / perf record do.
 * Record: an attr whose sample_period the parser preset (breakpoints: 1; a
 * command's dummy event) keeps it unless -c or -F was given; PERIOD is
 * sampled with a frequency (or -P: PERIOD in opts->sample_type, not with a
 * period= term); several events share ID, or IDENTIFIER when their
 * sample_types differ or sample_identifier is asked for. */
int pk_evlist_config(pk_evlist *evlist, const pk_config_opts *opts, pk_error *err);

/* Writes the attr as the kernel wants it into buf (at least
 * PK_ATTR_SIZE_CONFIG3 bytes): size 128, or 136 when config3 is used. */
size_t pk_evsel_pack_attr(const pk_evsel *evsel, void *buf);

/* record -j's comma-separated filter words (any, any_call, any_ret,
 * ind_call, ind_jmp, call, cond, u, k, hv, in_tx, no_tx, abort_tx,
 * save_type, stack, priv) into branch_sample_type bits, as perf 6.1
 * combines them (privilege words alone mean "any"). -EINVAL with the word
 * and the known ones on an unknown word. */
int pk_branch_filter_parse(const char *s, uint64_t *mask, pk_error *err);

/* Flag names as perf -vv and perf's headers print them ("IP|TID|TIME"), in
 * perf 6.1's order, bits it has no name for left out; return snprintf's
 * count. */
int pk_sample_type_str(uint64_t sample_type, char *buf, size_t len);
int pk_read_format_str(uint64_t read_format, char *buf, size_t len);
int pk_branch_sample_type_str(uint64_t branch_sample_type, char *buf, size_t len);

/* An evsel's attr as named fields, for `pmukit encode`'s views
 * (attr_fields.c). */
typedef enum pk_attr_view {
	PK_ATTR_VIEW_FLAGS,        /* the modifiers set ("precise_ip=2", "config3") */
	PK_ATTR_VIEW_TEXT,         /* perf -vv's lines: type, size, config words, bits */
	PK_ATTR_VIEW_JSON,         /* every field, JSON's names */
} pk_attr_view;

typedef enum pk_attr_kind {
	PK_ATTR_UINT,              /* a number */
	PK_ATTR_HEX,               /* a number shown in hex (masks, configs) */
	PK_ATTR_BOOL,              /* a flag (value 0 or 1) */
	PK_ATTR_SAMPLE_TYPE,       /* a mask shown by pk_sample_type_str */
	PK_ATTR_READ_FORMAT,       /* a mask shown by pk_read_format_str */
	PK_ATTR_EVSEL,             /* another evsel's index (group leader); unset: none */
	PK_ATTR_INT,               /* a signed number (value: its two's complement) */
	PK_ATTR_BRANCH_TYPE,       /* a mask shown by pk_branch_sample_type_str */
} pk_attr_kind;

typedef struct pk_attr_field {
	const char *name;
	uint64_t value;
	pk_attr_kind kind;
	bool set;                  /* the view shows it for this attr (text, flags:
				    * non-zero; json: a breakpoint's on breakpoints) */
} pk_attr_field;

/* The fields view shows of evsel e, in the view's fixed order, set or not:
 * at most cap into out (out may be NULL); returns the view's count. */
size_t pk_attr_fields(const pk_evsel *e, pk_attr_view view, pk_attr_field *out, size_t cap);
/* A bare attr's fields as perf 6.1's perf_event_attr__fprintf lists them
 * (a perf.data header's event lines), set where non-zero; the same
 * contract as pk_attr_fields. */
size_t pk_attr_fields_perf(const struct perf_event_attr *a, pk_attr_field *out, size_t cap);

/* Names of the symbolic events, for listings: hardware, software, cache.
 * Each returns the number of names; name(i) gives one. */
size_t pk_hw_event_count(void);
const char *pk_hw_event_name(size_t idx, uint64_t *config);
size_t pk_sw_event_count(void);
const char *pk_sw_event_name(size_t idx, uint64_t *config);
/* The other spellings perf accepts for hardware/software event idx, n = 0,
 * 1 ... ("cycles" for "cpu-cycles"); NULL past the last. */
const char *pk_hw_event_alias(size_t idx, size_t n);
const char *pk_sw_event_alias(size_t idx, size_t n);
/* perf's tool events: counts the tool makes, not the kernel. duration_time
 * is the run's (or -I interval's) wall time, user_time and system_time the
 * measured command's CPU times (its rusage, at the end of the run; 0 in
 * intervals), all in ns. They are opened as a software dummy event as perf
 * 6.1 opens them (so a group they lead reads nothing) and their values come
 * from pk_counting_set_tool. */
typedef enum pk_tool_event {
	PK_TOOL_NONE,
	PK_TOOL_DURATION,
	PK_TOOL_USER,
	PK_TOOL_SYSTEM,
	PK_TOOL_NR
} pk_tool_event;
/* "duration_time", "user_time", "system_time"; NULL for PK_TOOL_NONE. */
const char *pk_tool_event_name(pk_tool_event t);
/* Which tool event the evsel is (PK_TOOL_NONE: a kernel event). */
pk_tool_event pk_evsel_tool(const pk_evsel *evsel);

/* Valid cache events in perf's order ("L1-dcache-loads", ...). */
size_t pk_cache_event_count(void);
const char *pk_cache_event_name(size_t idx, uint64_t *config);

/* The event catalog (catalog.c): perf list's sections of a machine's
 * events, but libpfm4's named events (pk_pfm_foreach) and tracepoints
 * (pk_tracepoint_foreach). */
enum {
	PK_CATALOG_HW = 1 << 0,     /* the symbolic hardware events a core PMU supports */
	PK_CATALOG_SW = 1 << 1,     /* the software events, then the tool events */
	PK_CATALOG_CACHE = 1 << 2,  /* the cache events (with a core PMU) */
	PK_CATALOG_PMU = 1 << 3,    /* each PMU, then its sysfs events */
	PK_CATALOG_RAW = 1 << 4,    /* the raw descriptors (with a core PMU) */
	PK_CATALOG_FORMAT = 1 << 5, /* each PMU's format fields */
};
typedef struct pk_catalog_entry {
	const char *name;          /* as perf lists it: "cpu-cycles OR cycles", "cpu/branches/" */
	const char *match[3];      /* the names a pattern is matched against (NULL-padded) */
	const char *kind;          /* perf's words: "Hardware event", "Kernel PMU event" */
} pk_catalog_entry;
/* Called for each entry; a nonzero return stops the walk. */
typedef int (*pk_catalog_fn)(const pk_catalog_entry *e, void *arg);
/* The entries of the sections (PK_CATALOG_* bits) of pmus, in perf 6.1's
 * order (sections in bit order); 0 or fn's nonzero return. */
int pk_event_catalog(const pk_pmus *pmus, unsigned sections, pk_catalog_fn fn, void *arg);
/* perf list's filter: true when no pattern is given or one matches one of
 * the names (NULLs skipped); a pattern with *, ? or [ is a glob matched
 * whole, else a substring; case is ignored either way. */
bool pk_catalog_match(const char *const *patterns, size_t nr_patterns, const char *const *names,
		      size_t nr);

/* Every libpfm4 event of each core PMU of this machine (`pmukit list`'s
 * named events; cpuid NULL: the host's or PMUKIT_CPUID): cb for each, with
 * its name and description; a nonzero return of cb stops the walk and is
 * returned. 0, that return, or a negative errno (err set). */
typedef int (*pk_pfm_event_cb)(const pk_pmu *pmu, const char *name, const char *desc, void *arg);
int pk_pfm_foreach(const pk_pmus *pmus, const pk_cpuid *cpuid, pk_pfm_event_cb cb, void *arg,
		   pk_error *err);

#ifdef __cplusplus
}
#endif
#endif
