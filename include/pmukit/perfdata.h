/* pmukit: the perf.data format, read and written as a stream (lib/perfdata).
 *
 * Reader (reader.c): file mode (header, attrs, data, feature sections) and
 * pipe mode (records only), both byte orders (swap.c), attr sizes 64..136 and
 * beyond, records delivered one at a time, COMPRESSED (zstd) records
 * expanded. A regular file is mapped whole and its records used in place,
 * its pages given back as they are read; a pipe or another source is read in
 * chunks (source.c): memory does not depend on the input size. In time order
 * when asked (order.c): records queued per round, held where the mapped file
 * has them (no event built) or copied; at FINISHED_ROUND everything up to the
 * previous round's highest timestamp is handed out, the ring buffers' runs
 * merged, in a bounded queue. Each evsel's sample layout is decoded once; the
 * session's and script's sample loop reads through a fast path that parses
 * each sample once (pk_pd_next_parsed). A damaged file gives an error with the
 * file offset after every good record has been delivered. perf record
 * --threads' directories are read as one file in perf's order (dirfmt.c). No
 * live capture here: that is lib/record.
 *
 * Writer (writer.c): files Linux perf 6.1 reads (attr.size 128, records
 * padded to 8, ids per attr, feature sections), in file or pipe mode.
 *
 * Shared pieces: the fixed layout reader and writer share (header.c), header
 * and feature sections (features.c), the sample and sample_id layout
 * (sample.c, one walk driven by sample_type); samples, READ values and LOST
 * records built as the kernel lays them out (sample_write.c, internal
 * perfdata/sample_write.h, the parser's inverse); branch entry flags
 * (branch.c); the data source text (datasrc.c, pmukit/datasrc.h); the tracing
 * data blob and tracepoint payloads (tracedata.c, trace.c, trace_check.c,
 * pmukit/tracedata.h). docs/perfdata.md describes the format and the tools. */
#ifndef PMUKIT_PERFDATA_H
#define PMUKIT_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/counting.h>
#include <pmukit/cpumap.h>
#include <pmukit/error.h>
#include <pmukit/stat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record types perf itself synthesizes (tools/lib/perf event.h). */
enum pk_pd_user_type {
	PK_RECORD_HEADER_ATTR = 64,
	PK_RECORD_HEADER_EVENT_TYPE = 65,
	PK_RECORD_HEADER_TRACING_DATA = 66,
	PK_RECORD_HEADER_BUILD_ID = 67,
	PK_RECORD_FINISHED_ROUND = 68,
	PK_RECORD_ID_INDEX = 69,
	PK_RECORD_AUXTRACE_INFO = 70,
	PK_RECORD_AUXTRACE = 71,
	PK_RECORD_AUXTRACE_ERROR = 72,
	PK_RECORD_THREAD_MAP = 73,
	PK_RECORD_CPU_MAP = 74,
	PK_RECORD_STAT_CONFIG = 75,
	PK_RECORD_STAT = 76,
	PK_RECORD_STAT_ROUND = 77,
	PK_RECORD_EVENT_UPDATE = 78,
	PK_RECORD_TIME_CONV = 79,
	PK_RECORD_HEADER_FEATURE = 80,
	PK_RECORD_COMPRESSED = 81,
	PK_RECORD_FINISHED_INIT = 82,
	PK_RECORD_COMPRESSED2 = 83,
	PK_RECORD_TYPE_MAX = 128, /* size of the per-type counters */
};

/* perf's internal mark on the FORK records it synthesizes for tasks that
 * already ran (tools/perf/util/event.h): the maps are not the parent's. */
#define PK_RECORD_MISC_FORK_EXEC (1 << 13)

/* Header feature bits. */
enum pk_pd_feature {
	PK_FEAT_TRACING_DATA = 1,
	PK_FEAT_BUILD_ID = 2,
	PK_FEAT_HOSTNAME = 3,
	PK_FEAT_OSRELEASE = 4,
	PK_FEAT_VERSION = 5,
	PK_FEAT_ARCH = 6,
	PK_FEAT_NRCPUS = 7,
	PK_FEAT_CPUDESC = 8,
	PK_FEAT_CPUID = 9,
	PK_FEAT_TOTAL_MEM = 10,
	PK_FEAT_CMDLINE = 11,
	PK_FEAT_EVENT_DESC = 12,
	PK_FEAT_CPU_TOPOLOGY = 13,
	PK_FEAT_NUMA_TOPOLOGY = 14,
	PK_FEAT_BRANCH_STACK = 15,
	PK_FEAT_PMU_MAPPINGS = 16,
	PK_FEAT_GROUP_DESC = 17,
	PK_FEAT_AUXTRACE = 18,
	PK_FEAT_STAT = 19,
	PK_FEAT_CACHE = 20,
	PK_FEAT_SAMPLE_TIME = 21,
	PK_FEAT_MEM_TOPOLOGY = 22,
	PK_FEAT_CLOCKID = 23,
	PK_FEAT_DIR_FORMAT = 24,
	PK_FEAT_BPF_PROG_INFO = 25,
	PK_FEAT_BPF_BTF = 26,
	PK_FEAT_COMPRESSED = 27,
	PK_FEAT_CPU_PMU_CAPS = 28,
	PK_FEAT_CLOCK_DATA = 29,
	PK_FEAT_HYBRID_TOPOLOGY = 30,
	PK_FEAT_PMU_CAPS = 31,
	PK_FEAT_LAST_6_1 = 32,     /* perf 6.1's HEADER_LAST_FEATURE: pipe end marker */
	PK_FEAT_MAX = 256,
};

/* Name of a record type ("SAMPLE", "MMAP2", "FINISHED_ROUND"), NULL if unknown. */
const char *pk_pd_record_name(uint32_t type);
/* Name of a feature ("HOSTNAME"), NULL if unknown. */
const char *pk_pd_feature_name(int feat);

/* ---- Reader ------------------------------------------------------------ */

typedef struct pk_pd_reader pk_pd_reader;

/* One event (attr) of the file. */
typedef struct pk_pd_evsel {
	struct perf_event_attr attr; /* native order; fields past the file's size are 0 */
	uint64_t config3;            /* attr.size >= 136 */
	uint32_t file_attr_size;     /* attr.size as written (0 read as 64) */
	uint64_t *ids;
	size_t nr_ids;
	char *name;                  /* EVENT_DESC or EVENT_UPDATE name; NULL when none */
	char attr_name[64];          /* a name made from the attr ("cpu-clock", "r3c:u") */
	char *unit;                  /* EVENT_UPDATE unit, NULL when none */
	double scale;                /* EVENT_UPDATE scale, 0 when none */
	int idx;
	size_t trailer_size;         /* size of the sample_id trailer of non-sample records */
} pk_pd_evsel;

/* Sample identification: the sample_id trailer of non-sample records, and
 * the same fields of samples. `fields` holds the PERF_SAMPLE_* bits present. */
typedef struct pk_pd_sample_id {
	uint64_t fields;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id, stream_id;
	uint32_t cpu;
} pk_pd_sample_id;

typedef struct pk_pd_event {
	uint32_t type;
	uint16_t misc;
	uint16_t size;               /* header.size */
	/* The record, header included, in native byte order, 8-byte aligned.
	 * Valid until the next pk_pd_next() call. */
	const uint8_t *data;
	uint64_t offset;             /* file (stream) offset of the record; inside a
					COMPRESSED record, the offset of that record */
	bool in_compressed;
	const pk_pd_evsel *evsel;    /* the event it belongs to; NULL when unknown */
	pk_pd_sample_id id;          /* trailer (or sample) identification */
	bool has_time;
	/* PERF_RECORD_AUXTRACE, HEADER_TRACING_DATA: the data that follows
	 * the record (the latter's padded to 8). */
	const uint8_t *aux;
	uint64_t aux_size;
} pk_pd_event;

typedef struct pk_pd_open_opts {
	bool no_order;               /* deliver in file order (perf script --no-ordered... ) */
	bool rounds;                 /* time order: FINISHED_ROUND records delivered too,
					each before the records its round releases (-D) */
	size_t queue_limit;          /* bytes queued for ordering before a forced flush; 0: 64 MiB */
	size_t chunk_size;           /* read size; 0: 4 MiB */
} pk_pd_open_opts;

/* Opens a file ("-": standard input). Reads the file header, attrs and
 * feature table (file mode) or the stream header (pipe mode). */
int pk_pd_reader_open(const char *path, const pk_pd_open_opts *opts, pk_pd_reader **out,
		      pk_error *err);
/* The same on an open descriptor (owned by the caller); name is for errors. */
int pk_pd_reader_open_fd(int fd, const char *name, const pk_pd_open_opts *opts,
			 pk_pd_reader **out, pk_error *err);
/* The same on a memory buffer (kept by the caller until close). */
int pk_pd_reader_open_mem(const void *buf, size_t len, const pk_pd_open_opts *opts,
			  pk_pd_reader **out, pk_error *err);
void pk_pd_reader_close(pk_pd_reader *r);

/* Next event: 1 and *ev filled, 0 at the end, or a negative errno with err
 * naming the file offset. After an error, further calls return 0. */
int pk_pd_next(pk_pd_reader *r, pk_pd_event *ev, pk_error *err);

/* Whether ev's record and aux data (ev from pk_pd_next) stay valid until
 * the reader is closed, so they may be kept without a copy: a regular file
 * (mapped whole) or a memory buffer, outside COMPRESSED records. */
bool pk_pd_event_stable(const pk_pd_reader *r, const pk_pd_event *ev);
/* The caller is done with [p, p + n) of stable data: the pages wholly
 * inside it are given back (memory stays bounded when large AUXTRACE data
 * is used in place; reading them again faults them in from the file). */
void pk_pd_reader_unneeded(pk_pd_reader *r, const void *p, size_t n);
bool pk_pd_is_pipe(const pk_pd_reader *r);
bool pk_pd_needs_swap(const pk_pd_reader *r);
const char *pk_pd_path(const pk_pd_reader *r);
size_t pk_pd_nr_evsels(const pk_pd_reader *r);
/* The sample_type bits of the first n evsels, or'ed (what perf's -D
 * prints a record's CPU and TIME by). */
uint64_t pk_pd_sample_types(const pk_pd_reader *r, size_t n);
/* The offset perf names a record by (-D): a pipe's counts from the end of
 * its header. */
uint64_t pk_pd_event_offset(const pk_pd_reader *r, const pk_pd_event *ev);
const pk_pd_evsel *pk_pd_evsel_at(const pk_pd_reader *r, size_t idx);
const pk_pd_evsel *pk_pd_evsel_by_id(const pk_pd_reader *r, uint64_t id);
/* The name perf would show: the stored name, else one made from the attr. */
const char *pk_pd_evsel_name(const pk_pd_evsel *evsel);

/* File-mode layout (all 0 in pipe mode). */
typedef struct pk_pd_layout {
	uint64_t header_size, attr_size;
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t feat_offset;
	uint64_t file_size;
	uint32_t version; /* the header's version: 0 for the v1 `PERFFILE` magic, else 1 */
} pk_pd_layout;
void pk_pd_get_layout(const pk_pd_reader *r, pk_pd_layout *out);

/* What reading skipped, by kind: none of it is fatal, all of it is counted so
 * that a tool can say what was left out, how much and where. */
enum pk_pd_drop_kind {
	PK_PD_DROP_BAD_SAMPLE,       /* sample fields run past the record end (counted by
					pk_pd_reader_parse_sample) */
	PK_PD_DROP_UNKNOWN_ID,       /* samples whose id matches no event */
	PK_PD_DROP_NO_EVENT,         /* samples in a file without event attrs */
	PK_PD_DROP_UNKNOWN_TYPE,     /* records of types this reader does not know */
	PK_PD_DROP_MAX,
};

typedef struct pk_pd_drop {
	uint64_t count;
	uint64_t first_offset;       /* the lowest file offset of one (inside COMPRESSED
					data: of the COMPRESSED record) */
	const char *first_detail;    /* static text about that one (the sample field
					that ran past the end), or NULL */
	uint32_t first_type;         /* its record type */
} pk_pd_drop;

/* "unparsable samples", "samples of unknown events" ... for messages. */
const char *pk_pd_drop_name(int kind);

typedef struct pk_pd_stats {
	uint64_t nr_records[PK_RECORD_TYPE_MAX]; /* by type, as read (compressed ones expanded) */
	pk_pd_drop drops[PK_PD_DROP_MAX];
	uint64_t nr_lost_events;     /* sum of PERF_RECORD_LOST.lost */
	uint64_t nr_lost_samples;    /* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t nr_forced_flush;    /* queue limit hits (order may be off there) */
	uint64_t nr_out_of_order;    /* events older than what was already delivered */
	uint64_t nr_bad_features;    /* damaged feature sections (not fatal) */
	uint64_t bytes_read;
	/* PERF_RECORD_AUX records flagged TRUNCATED (data lost), PARTIAL (gaps),
	 * COLLISION (by the kernel) */
	uint64_t nr_aux_truncated, nr_aux_partial, nr_aux_collision;
} pk_pd_stats;
const pk_pd_stats *pk_pd_get_stats(const pk_pd_reader *r);
/* Warnings (damaged features, unknown ids ...), oldest first. */
size_t pk_pd_nr_warnings(const pk_pd_reader *r);
const char *pk_pd_warning(const pk_pd_reader *r, size_t idx);

/* ---- Samples ----------------------------------------------------------- */

typedef struct pk_pd_branch_entry {
	uint64_t from, to, flags;
} pk_pd_branch_entry;

/* The PERF_BR_* name of a branch entry's type as perf 6.1 prints it ("" for
 * UNKNOWN, "COND", ...; for EXTEND_ABI the new_type's, "FAULT_ALGN" ...);
 * NULL for a new_type that has none. */
const char *pk_pd_branch_type_name(uint64_t flags);

/* A parsed PERF_RECORD_SAMPLE. Pointers point into the event's data.
 * The struct grows only at its end; the caller states the size it was built
 * with in .size (PK_PD_SAMPLE_INIT) before handing it to a function that
 * fills or reads it, so that no library writes or reads past the caller's
 * struct. Today's functions take exactly sizeof(pk_pd_sample) and refuse
 * any other size with -EINVAL; a later library with a longer struct fills
 * an older caller's prefix. */
typedef struct pk_pd_sample {
	uint32_t size;               /* sizeof(pk_pd_sample) the caller was built with */
	uint64_t type;               /* sample_type it was parsed with */
	uint16_t misc;
	uint64_t identifier;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id, stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;
	const uint64_t *read; size_t read_nr;          /* raw read_format u64s */
	const uint64_t *callchain; uint64_t callchain_nr;
	const uint8_t *raw; uint32_t raw_size;
	const pk_pd_branch_entry *branch; uint64_t branch_nr;
	uint64_t branch_hw_idx; bool has_branch_hw_idx;
	const uint64_t *branch_counters;
	uint64_t user_abi; const uint64_t *user_regs; size_t user_regs_nr;
	const uint8_t *stack; uint64_t stack_size, stack_dyn_size;
	uint64_t weight;             /* WEIGHT, or WEIGHT_STRUCT's var1_dw */
	uint16_t weight_var2, weight_var3;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t intr_abi; const uint64_t *intr_regs; size_t intr_regs_nr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size, code_page_size;
	const uint8_t *aux; uint64_t aux_size;
} pk_pd_sample;

/* An empty sample of this header's size, for every pk_pd_sample a caller
 * declares: pk_pd_sample s = PK_PD_SAMPLE_INIT; */
#define PK_PD_SAMPLE_INIT {.size = sizeof(pk_pd_sample)}
/* 0, or -EINVAL in err when s->size is not one this library takes. */
int pk_pd_sample_check(const pk_pd_sample *s, pk_error *err);

/* Parses a SAMPLE event with its evsel's sample_type, in the kernel's order.
 * A field running past the record end is an error naming it and the offset. */
int pk_pd_parse_sample(const pk_pd_event *ev, pk_pd_sample *s, pk_error *err);
/* The offset in ev's record of the user stack's size word (perf's -D
 * "ustack ... offset"), from the sample parsed out of it. */
size_t pk_pd_sample_ustack_offset(const pk_pd_event *ev, const pk_pd_sample *smp);
/* pk_pd_parse_sample, and a failure is counted in the reader's stats
 * (PK_PD_DROP_BAD_SAMPLE with the first offset and field); a sample without
 * an evsel fails without being counted again (the reader counted it). */
int pk_pd_reader_parse_sample(pk_pd_reader *r, const pk_pd_event *ev, pk_pd_sample *s,
			      pk_error *err);
/* The same on raw bytes of a sample body (after the header). */
int pk_pd_parse_sample_body(const pk_pd_evsel *evsel, const uint8_t *body, size_t len,
			    pk_pd_sample *s, pk_error *err);

/* The fast sample loop (pmukit script and report, the session): what
 * pk_pd_next and pk_pd_reader_parse_sample give together, with less work
 * per sample: a sample held in place has its id fields read once, by the
 * parse, into *s only, and the checks the public parse makes on an event
 * from anywhere are left out (the event is the reader's own). Each sample
 * comes parsed into *s; samples of no known event or that do not parse are
 * counted (pk_pd_get_stats) and skipped, as pk_pd_reader_parse_sample
 * counts them. A sample's ev->id may be left unread (id.fields 0): its
 * fields are in *s. For other records *s is not touched and ev is all
 * pk_pd_next gives. The caller leaves *s as the call filled it until the
 * next call: a sample of the same event as the one before, with a simple
 * layout (the head, PERIOD, CALLCHAIN, RAW), then only has those fields
 * written again, not the whole struct cleared. Returns as pk_pd_next.
 * tests/perfdata/test_fast_path.c holds it equal to the two calls. */
int pk_pd_next_parsed(pk_pd_reader *r, pk_pd_event *ev, pk_pd_sample *s, pk_error *err);
/* A number that changes whenever pk_pd_evsel_name of one of the reader's
 * evsels may have (an evsel added, EVENT_UPDATE, EVENT_DESC): a name kept
 * with the number it was read under needs no check while it is the same. */
uint64_t pk_pd_names_version(const pk_pd_reader *r);

/* ---- Typed records ------------------------------------------------------ */

typedef struct pk_pd_rec_mmap {       /* MMAP and MMAP2 */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id[20]; uint8_t build_id_size; bool has_build_id;
	uint32_t prot, flags;
	const char *filename;
} pk_pd_rec_mmap;

typedef struct pk_pd_rec_comm {
	uint32_t pid, tid;
	const char *comm;
	bool exec;
} pk_pd_rec_comm;

typedef struct pk_pd_rec_fork {       /* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
} pk_pd_rec_fork;

typedef struct pk_pd_rec_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
} pk_pd_rec_auxtrace;

typedef struct pk_pd_rec_time_conv {
	uint64_t time_shift, time_mult, time_zero, time_cycles, time_mask;
	bool cap_user_time_zero, cap_user_time_short;
	bool extended;
} pk_pd_rec_time_conv;
/* The perf time of a hardware timestamp (counter ticks) through TIME_CONV,
 * and back (perf's tsc_to_perf_time and perf_time_to_tsc, with their
 * rounding and wrap-around); the way back is the identity when time_mult
 * is 0 (no TIME_CONV). */
uint64_t pk_pd_tsc_to_time(const pk_pd_rec_time_conv *tc, uint64_t cyc);
uint64_t pk_pd_time_to_tsc(const pk_pd_rec_time_conv *tc, uint64_t ns);

/* A build id entry: a HEADER_BUILD_ID record (pipe mode) or one entry of
 * the BUILD_ID feature (file mode), which share the layout. */
typedef struct pk_pd_rec_build_id {
	uint16_t misc;               /* PERF_RECORD_MISC_KERNEL / _USER ... */
	uint32_t pid;
	uint8_t id[20];
	size_t id_len;               /* 20 unless the entry says otherwise */
	const char *filename;        /* points into the entry */
} pk_pd_rec_build_id;

/* Parses one entry at p (size bytes available; swap: foreign byte
 * order); returns its size, or -EINVAL when damaged. */
int pk_pd_build_id_parse(const uint8_t *p, size_t size, bool swap, pk_pd_rec_build_id *out);
/* Calls fn for each entry of the BUILD_ID feature (file mode); returns 0,
 * fn's nonzero return, or an error (-ENOENT without the feature). */
int pk_pd_build_ids(pk_pd_reader *r, int (*fn)(void *arg, const pk_pd_rec_build_id *b),
		    void *arg, pk_error *err);

/* Each returns 0 or -EINVAL (record too short or not that type). */
int pk_pd_rec_mmap_parse(const pk_pd_event *ev, pk_pd_rec_mmap *out, pk_error *err);
int pk_pd_rec_comm_parse(const pk_pd_event *ev, pk_pd_rec_comm *out, pk_error *err);
int pk_pd_rec_fork_parse(const pk_pd_event *ev, pk_pd_rec_fork *out, pk_error *err);
int pk_pd_rec_auxtrace_parse(const pk_pd_event *ev, pk_pd_rec_auxtrace *out, pk_error *err);
int pk_pd_rec_time_conv_parse(const pk_pd_event *ev, pk_pd_rec_time_conv *out, pk_error *err);
/* The CPUs of a cpu_map_data (CPU_MAP records, EVENT_UPDATE's cpus) at p,
 * n bytes, as perf 6.1's dump lists them (a run reaching CPU 65535 left
 * out); empty when damaged, NULL when out of memory. */
pk_cpumap *pk_pd_cpu_map_data(const uint8_t *p, size_t n);
/* Payload u64 number i after the header (LOST, THROTTLE, AUX, LOST_SAMPLES,
 * ID_INDEX, AUXTRACE_INFO priv ...). 0 past the end. */
uint64_t pk_pd_rec_u64(const pk_pd_event *ev, size_t i);
/* The last TIME_CONV record seen so far (false when none). */
bool pk_pd_time_conv(const pk_pd_reader *r, pk_pd_rec_time_conv *out);

/* ---- perf stat record's records (statrec.c) ------------------------------ */

/* STAT: one counter's reading at one CPU (the number; -1: any) and thread
 * (an index into the THREAD_MAP). */
typedef struct pk_pd_rec_stat {
	uint64_t id;
	int32_t cpu;
	uint32_t thread;
	uint64_t val, ena, run;
} pk_pd_rec_stat;

enum { PK_PD_STAT_ROUND_INTERVAL = 0, PK_PD_STAT_ROUND_FINAL = 1 };
/* STAT_ROUND: the readings before it make a round (-I's interval, or the
 * end); time: ns since the run's start (the run's length when FINAL). */
typedef struct pk_pd_rec_stat_round {
	uint64_t type, time;
} pk_pd_rec_stat_round;

/* perf 6.1's aggregation modes (STAT_CONFIG's aggr_mode). */
enum pk_pd_aggr {
	PK_PD_AGGR_NONE = 0, PK_PD_AGGR_GLOBAL = 1, PK_PD_AGGR_SOCKET = 2, PK_PD_AGGR_DIE = 3,
	PK_PD_AGGR_CORE = 4, PK_PD_AGGR_THREAD = 5, PK_PD_AGGR_UNSET = 6, PK_PD_AGGR_NODE = 7,
};
/* STAT_CONFIG: (tag, value) terms; the ones perf 6.1 knows. */
typedef struct pk_pd_stat_config {
	uint64_t aggr_mode, interval, scale;
	uint32_t nr_unknown;         /* terms of a tag not known (skipped) */
} pk_pd_stat_config;

/* Each returns 0 or -EINVAL (not that type, too short, a count past the
 * record's end) with err naming the record's offset. */
int pk_pd_rec_stat_parse(const pk_pd_event *ev, pk_pd_rec_stat *out, pk_error *err);
int pk_pd_rec_stat_round_parse(const pk_pd_event *ev, pk_pd_rec_stat_round *out, pk_error *err);
int pk_pd_rec_stat_config_parse(const pk_pd_event *ev, pk_pd_stat_config *out, pk_error *err);
/* THREAD_MAP: its entries' count (each a u64 pid and a 16-byte comm),
 * checked against the record's size. */
int pk_pd_rec_thread_map_nr(const pk_pd_event *ev, uint64_t *nr, pk_error *err);
/* Entry i (i < the count): its pid, its comm (NUL-terminated) into comm. */
void pk_pd_rec_thread_map_entry(const pk_pd_event *ev, uint64_t i, int32_t *pid, char comm[17]);
/* CPU_MAP: the CPUs in the record's order, -1 (65535 in a list) kept;
 * NULL when out of memory, an empty map when damaged. */
pk_cpumap *pk_pd_rec_cpu_map(const pk_pd_event *ev);

/* ---- perf stat record's files (statfile.c) ------------------------------ */

typedef struct pk_pd_writer pk_pd_writer; /* below */

/* Writing one from a counting's last reading (pmukit stat record; its
 * evsels opened with PERF_FORMAT_ID so that their ids are known). Before
 * pk_pd_writer_begin: c's evsels, each as opened with IDENTIFIER in its
 * sample_type (in a pipe without: perf 6.1's) and PERF_FORMAT_ID only in
 * a group's read_format, and the ids of its open counters. */
int pk_pd_stat_add_evsels(pk_pd_writer *w, pk_counting *c, bool pipe, pk_error *err);
/* After begin: each evsel's unit and scale (and, in a pipe, its name) as
 * EVENT_UPDATE records, the THREAD_MAP and CPU_MAP, the STAT_CONFIG. */
int pk_pd_stat_write_setup(pk_pd_writer *w, pk_counting *c, const pk_pd_stat_config *cfg,
			   bool pipe, pk_error *err);
/* A STAT record per open counter (evsel, CPU, thread) with c's last
 * reading. */
int pk_pd_stat_write_counts(pk_pd_writer *w, pk_counting *c, pk_error *err);
/* The STAT_ROUND that ends them (type, time: ns since the start). */
int pk_pd_stat_write_round(pk_pd_writer *w, uint64_t type, uint64_t time_ns, pk_error *err);

/* Reading one (stat report, script): the records taken in as they come,
 * each STAT's reading kept by evsel, CPU and thread (the maps' indexes). */
typedef struct pk_pd_stat_data pk_pd_stat_data;
/* Borrows r (its evsels name STATs' ids); NULL when out of memory. */
pk_pd_stat_data *pk_pd_stat_data_new(pk_pd_reader *r);
void pk_pd_stat_data_free(pk_pd_stat_data *d);
/* Takes in THREAD_MAP, CPU_MAP, STAT_CONFIG, STAT (other records are
 * left alone): 0; 1 for a STAT_ROUND (in *round); < 0 with err for a
 * damaged record, a STAT of an id no evsel has, of a CPU or thread not in
 * the maps, or before them. */
int pk_pd_stat_data_add(pk_pd_stat_data *d, const pk_pd_event *ev, pk_pd_rec_stat_round *round,
			pk_error *err);
/* Whether a STAT_CONFIG, a STAT or a map came. */
bool pk_pd_stat_data_seen(const pk_pd_stat_data *d);
const pk_pd_stat_config *pk_pd_stat_data_config(const pk_pd_stat_data *d);
/* The maps (empty before they came): nr, the CPU of index i, the pid and
 * comm of thread index i. */
int pk_pd_stat_data_nr_cpus(const pk_pd_stat_data *d);
int pk_pd_stat_data_cpu(const pk_pd_stat_data *d, int idx);
int pk_pd_stat_data_nr_threads(const pk_pd_stat_data *d);
int32_t pk_pd_stat_data_pid(const pk_pd_stat_data *d, int idx);
const char *pk_pd_stat_data_comm(const pk_pd_stat_data *d, int idx);
/* The last reading of evsel idx at (cpu index, thread index); zeros when
 * none came. */
pk_counts pk_pd_stat_data_counts(const pk_pd_stat_data *d, size_t evsel, int cpu_idx,
				 int thread_idx);
/* The readings as stat's rows (pmukit/stat.h): per evsel, summed over the
 * CPUs and threads (PK_AGGR_GLOBAL), per CPU or per thread; an evsel no
 * STAT came for is PK_OPEN_UNSUPPORTED. The rows' evsels live as long as
 * d. 0 or -ENOMEM. */
int pk_pd_stat_data_rows(pk_pd_stat_data *d, pk_aggr_mode aggr, pk_stat_rows *rows);

/* ---- Header features ----------------------------------------------------- */

bool pk_pd_has_feature(const pk_pd_reader *r, int feat);
/* Raw payload of a feature section (file mode: read on first use; pipe mode:
 * from its HEADER_FEATURE record). The data stays valid until close. */
int pk_pd_feature_raw(pk_pd_reader *r, int feat, const uint8_t **data, size_t *len,
		      pk_error *err);

/* A jited function of a BPF program (BPF_PROG_INFO, named with BPF_BTF's
 * help as perf 6.1 names it: "bpf_prog_<tag>_<name>"). */
typedef struct pk_pd_bpf_func {
	uint32_t prog_id;            /* the program's id */
	uint32_t index, nr;          /* the sub-program's index, the program's count */
	uint64_t addr;
	uint32_t size;
	char name[272];
} pk_pd_bpf_func;

/* The functions of BPF_PROG_INFO's programs, in program id order (the
 * first of equal ids kept; a program whose arrays are absent or damaged
 * left out); the caller frees *out with free(). 0 (none: nr 0) or -ENOMEM. */
int pk_pd_bpf_funcs(pk_pd_reader *r, pk_pd_bpf_func **out, size_t *nr);
/* The ids of BPF_BTF's blobs, in order, each once; free() *out. */
int pk_pd_btf_ids(pk_pd_reader *r, uint32_t **out, size_t *nr);

/* A PMU's capabilities (CPU_PMU_CAPS: the "cpu" PMU's; PMU_CAPS: every
 * other PMU's): name, value pairs in caps[2 * i], caps[2 * i + 1]. */
#define PK_PD_PMU_CAPS_MAX 64
typedef struct pk_pd_pmu_cap_set {
	const char *pmu;
	uint32_t nr;
	const char *caps[2 * PK_PD_PMU_CAPS_MAX];
} pk_pd_pmu_cap_set;

/* The PMUs of feature feat (PK_FEAT_CPU_PMU_CAPS or PK_FEAT_PMU_CAPS) up to
 * the first damaged one (none in a byte-swapped file); the strings live
 * as long as the reader; free() *out. 0 or -ENOMEM. */
int pk_pd_pmu_caps(pk_pd_reader *r, int feat, pk_pd_pmu_cap_set **out, size_t *nr);
/* What perf report --header -I shows (lib/perfdata/topofeat.c): the
 * NUMA nodes (memory in kB, the CPU list as written), the CPU caches
 * (CACHE: level, type, size, the CPUs sharing it), the memory nodes
 * (MEM_TOPOLOGY: block size, per node a bitmap of its blocks, read with
 * pk_pd_mem_node_bit), the core types (HYBRID_TOPOLOGY). Each list up to the first damaged entry (none in a
 * byte-swapped file); strings and bitmaps live as long as the reader; free()
 * *out. 0 or -ENOMEM. */
typedef struct pk_pd_numa_node {
	uint32_t node;
	uint64_t mem_total, mem_free;
	const char *cpus;
} pk_pd_numa_node;
typedef struct pk_pd_cache {
	uint32_t level, line_size, sets, ways;
	const char *type, *size, *map;
} pk_pd_cache;
typedef struct pk_pd_mem_node {
	uint64_t node, size, nr_bits;
	const uint8_t *bits;         /* nr_bits, in u64 words of the file's order */
} pk_pd_mem_node;
int pk_pd_numa_nodes(pk_pd_reader *r, pk_pd_numa_node **out, size_t *nr);
int pk_pd_caches(pk_pd_reader *r, pk_pd_cache **out, size_t *nr);
int pk_pd_mem_nodes(pk_pd_reader *r, uint64_t *block_size, pk_pd_mem_node **out, size_t *nr);
bool pk_pd_mem_node_bit(const pk_pd_mem_node *n, uint64_t bit);
/* HYBRID_TOPOLOGY: each core type's PMU and its CPU list. */
typedef struct pk_pd_hybrid_node {
	const char *pmu, *cpus;
} pk_pd_hybrid_node;
int pk_pd_hybrid_nodes(pk_pd_reader *r, pk_pd_hybrid_node **out, size_t *nr);
/* DIR_FORMAT's version (perf record --threads' directory): 0, or
 * -ENODATA when the file has none or it is damaged. */
int pk_pd_dir_format(pk_pd_reader *r, uint64_t *version);
/* perf's name of a clock (CLOCK_DATA's clockid: "monotonic", "realtime",
 * ...); NULL for one perf does not name. */
const char *pk_pd_clockid_name(uint32_t clockid);

typedef struct pk_pd_event_desc {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	uint32_t nr_ids;
} pk_pd_event_desc;

typedef struct pk_pd_header {
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	bool has_nrcpus;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem;          /* kB */
	char **cmdline; uint32_t nr_cmdline;
	pk_pd_event_desc *event_desc; uint32_t nr_event_desc;
	/* CPU_TOPOLOGY */
	char **core_siblings; uint32_t nr_core_siblings;     /* "sibling sockets" */
	char **thread_siblings; uint32_t nr_thread_siblings; /* "sibling threads" */
	struct { uint32_t core_id, socket_id, die_id; } *cpu_topo; uint32_t nr_cpu_topo;
	char **die_siblings; uint32_t nr_die_siblings;
	bool has_die_ids;
	/* PMU_MAPPINGS */
	struct { uint32_t type; char *name; } *pmu_mappings; uint32_t nr_pmu_mappings;
	/* GROUP_DESC */
	struct { char *name; uint32_t leader_idx, nr_members; } *groups; uint32_t nr_groups;
	/* AUXTRACE */
	struct { uint64_t offset, size; } *auxtrace; uint64_t nr_auxtrace;
	bool has_clockid; uint64_t clockid_res_ns;
	/* HYBRID_TOPOLOGY */
	struct { char *pmu_name, *cpus; } *hybrid; uint32_t nr_hybrid;
	bool has_sample_time; uint64_t sample_time_first, sample_time_last;
	bool has_compressed; uint32_t comp_ver, comp_type, comp_level, comp_ratio, comp_mmap_len;
	bool has_clock_data; uint32_t clock_data_clockid; uint64_t clock_wall_ns, clock_clockid_ns;
} pk_pd_header;

/* Parses the features this module knows. A damaged section is skipped with a
 * reader warning; the call fails only on ENOMEM. */
int pk_pd_header_read(pk_pd_reader *r, pk_pd_header *out, pk_error *err);
/* Frees what the header holds (the struct is the caller's) and zeroes it. */
void pk_pd_header_release(pk_pd_header *h);

/* ---- Writer ---------------------------------------------------------------- */

typedef struct pk_pd_writer pk_pd_writer;

/* Creates path ("-": standard output; pipe forces pipe mode). */
int pk_pd_writer_open(const char *path, bool pipe, pk_pd_writer **out, pk_error *err);
/* On an open descriptor (not closed by the writer). */
int pk_pd_writer_open_fd(int fd, const char *name, bool pipe, pk_pd_writer **out,
			 pk_error *err);

/* Adds an event before begin(). The attr is written with size 128 (136 when
 * config3 is set). */
int pk_pd_writer_add_evsel(pk_pd_writer *w, const struct perf_event_attr *attr, uint64_t config3,
			   const char *name, const uint64_t *ids, size_t nr_ids, pk_error *err);
/* Sets a feature payload (copied). In pipe mode, before begin(). */
int pk_pd_writer_set_feature(pk_pd_writer *w, int feat, const void *data, size_t len,
			     pk_error *err);
/* A pipe without HEADER_FEATURE records, not even the end marker (perf
 * stat record's pipe); before begin(). */
void pk_pd_writer_no_pipe_features(pk_pd_writer *w);
/* Writes the header and attrs (pipe: HEADER_ATTR and HEADER_FEATURE records). */
int pk_pd_writer_begin(pk_pd_writer *w, pk_error *err);
/* Appends one whole record (len == header.size, a multiple of 8). On a full
 * disk (ENOSPC, EFBIG, EDQUOT) the file is cut back to the last whole record
 * and -ENOSPC returned; close() then still leaves a valid file. */
int pk_pd_writer_write(pk_pd_writer *w, const void *rec, size_t len, pk_error *err);
/* Appends a PERF_RECORD_AUXTRACE record and its data (padded to 8). */
int pk_pd_writer_write_auxtrace(pk_pd_writer *w, const void *rec, size_t len, const void *data,
				size_t data_len, pk_error *err);
/* Writes the buffered records through (one write) and, in file mode,
 * the header's data size: a reader of the file sees every record written
 * so far even if the writer dies. */
int pk_pd_writer_flush(pk_pd_writer *w, pk_error *err);
/* Flushes, writes the features (file mode) and the final header. Frees w. */
int pk_pd_writer_close(pk_pd_writer *w, pk_error *err);
/* From now on (after begin, file mode) records are written zstd-compressed
 * at level 1..22 as perf record -z writes them (COMPRESSED records and
 * feature; mmap_len: the ring size recorded in it). */
int pk_pd_writer_compress(pk_pd_writer *w, int level, uint32_t mmap_len, pk_error *err);
/* Frees w without finishing the file. */
void pk_pd_writer_abort(pk_pd_writer *w);
/* Bytes of the data section so far (written or buffered). */
uint64_t pk_pd_writer_data_size(const pk_pd_writer *w);
/* SAMPLE records in the output (written; after a full disk, those kept). */
uint64_t pk_pd_writer_nr_samples(const pk_pd_writer *w);
bool pk_pd_writer_is_full(const pk_pd_writer *w);

/* Builder for feature payloads and records. */
typedef struct pk_pd_buf {
	uint8_t *data;
	size_t len, cap;
	bool oom;
} pk_pd_buf;
void pk_pd_buf_u16(pk_pd_buf *b, uint16_t v);
void pk_pd_buf_u32(pk_pd_buf *b, uint32_t v);
void pk_pd_buf_u64(pk_pd_buf *b, uint64_t v);
void pk_pd_buf_bytes(pk_pd_buf *b, const void *p, size_t n);
/* perf_header_string: u32 len (NUL included, padded to 64) + bytes. */
void pk_pd_buf_string(pk_pd_buf *b, const char *s);
/* A NUL-terminated name padded with zeros to a multiple of 8 (records). */
void pk_pd_buf_name(pk_pd_buf *b, const char *s);
void pk_pd_buf_pad8(pk_pd_buf *b);
/* Frees the bytes (the struct is the caller's) and zeroes it. */
void pk_pd_buf_release(pk_pd_buf *b);

/* Writes the EVENT_DESC feature from the evsels added so far. */
int pk_pd_writer_event_desc(pk_pd_writer *w, pk_error *err);

/* perf stat record's records (statrec.c; parsed above) built, header
 * included and padded to 8, into b for pk_pd_writer_write: */
void pk_pd_build_stat(pk_pd_buf *b, const pk_pd_rec_stat *st);
void pk_pd_build_stat_round(pk_pd_buf *b, const pk_pd_rec_stat_round *rd);
/* Its three terms in perf 6.1's order (aggr_mode, interval, scale). */
void pk_pd_build_stat_config(pk_pd_buf *b, const pk_pd_stat_config *c);
/* pids[i] with comms[i] (NULL or comms NULL: empty). */
void pk_pd_build_thread_map(pk_pd_buf *b, const int32_t *pids, const char *const *comms, size_t nr);
/* A CPU list (-1 written as 65535). */
void pk_pd_build_cpu_map(pk_pd_buf *b, const pk_cpumap *cpus);
/* EVENT_UPDATE of event id: its unit or name (kind 0 or 2, text), its
 * scale (kind 1, scale). */
void pk_pd_build_event_update(pk_pd_buf *b, uint64_t kind, uint64_t id, const char *text,
			      double scale);

#ifdef __cplusplus
}
#endif
#endif
