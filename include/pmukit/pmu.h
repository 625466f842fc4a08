/* pmukit: PMU discovery from sysfs (lib/pmu).
 *
 * A pk_pmus is a snapshot of <root>/bus/event_source/devices: every PMU with
 * its type, format fields, event aliases (with scale and unit), caps and CPU
 * list; which PMUs are core PMUs and, on hybrid machines, which are cpu_core
 * and cpu_atom; perf's PMU-name matching. The root is /sys, or $PMUKIT_SYSFS,
 * or a directory given by the caller (the fixture trees), so every machine in
 * tests/data/sysfs/ can be loaded on any host. It is read once (pmu.c).
 *
 * PMU knowledge here is plain data; encoding lives in events. What a PMU can
 * count and how its config words are laid out comes from its sysfs
 * directory: format fields are bit-range lists applied by one routine
 * (pk_format_apply), with no per-PMU encoding code. Config words and format
 * fields are spelled in one place (pk_config_word_name, pk_format_describe).
 *
 * CPU identification (cpuid.c, pmukit/cpuid.h) and the vendor a tree's PMUs
 * belong to. The one table of CPU models (cpu_models.c, internal
 * pmu/cpu_models.h, test cpu_models): vendor, family, model ranges,
 * stepping, core PMU -> the core and libpfm4's names, best first; TopDown's
 * methods, the PMU model's counters and lib/events/pfm.c key their data by
 * that core. */
#ifndef PMUKIT_PMU_H
#define PMUKIT_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/cpumap.h>
#include <pmukit/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PK_NR_CONFIGS 4 /* config, config1, config2, config3 */
#define PK_FORMAT_MAX_RANGES 8

/* One format field: name -> bit ranges of one config word, e.g.
 * "event" = config:0-7,32-35 (two ranges, 12 bits). */
typedef struct pk_format {
	char *name;
	int word;                  /* 0: config, 1: config1, 2: config2, 3: config3 */
	int nr_ranges;
	struct { uint8_t lo, hi; } ranges[PK_FORMAT_MAX_RANGES];
	unsigned width;            /* total number of bits */
} pk_format;

/* One events/<name> alias with its optional companion files. */
typedef struct pk_alias {
	char *name;
	char *terms;               /* e.g. "event=0x3c,umask=0x0" (trailing newline removed) */
	char *unit;                /* from <name>.unit, or NULL */
	double scale;              /* from <name>.scale, 1.0 when absent */
	bool per_pkg;              /* <name>.per-pkg */
	bool snapshot;             /* <name>.snapshot */
} pk_alias;

typedef struct pk_cap {
	char *name;
	char *value;
} pk_cap;

typedef struct pk_pmus pk_pmus;

typedef enum pk_pmu_kind {
	PK_PMU_OTHER = 0,          /* uncore, SPE, IBS, msr ... */
	PK_PMU_CORE,               /* the CPU's core PMU (cpu, armv8_pmuv3_0, cpu_core, cpu_atom) */
	PK_PMU_SOFTWARE,
	PK_PMU_TRACEPOINT,
	PK_PMU_BREAKPOINT,
} pk_pmu_kind;

typedef struct pk_pmu {
	char *name;
	uint32_t type;
	pk_pmu_kind kind;
	bool hybrid;               /* a core PMU on a machine with several (cpu_core/cpu_atom) */
	pk_format *formats;
	size_t nr_formats;
	pk_alias *aliases;         /* sorted by name */
	size_t nr_aliases;
	pk_cap *caps;
	size_t nr_caps;
	pk_cpumap *cpus;           /* from `cpus` or `cpumask`; NULL when neither exists */
	bool cpus_from_mask;       /* true when read from `cpumask` (uncore style: one CPU per scope) */
	/* The snapshot this PMU (and its formats, aliases, caps) belongs to.
	 * An object that keeps a pointer into a PMU holds a reference on its
	 * owner (pk_pmus_get), as every pk_evsel does. NULL for a PMU built by
	 * the caller, who then keeps it alive. */
	struct pk_pmus *owner;
} pk_pmu;


/* The sysfs root PMUs and the real kernel's CPU facts are read under:
 * $PMUKIT_SYSFS when set and not empty (a fixture tree), else "/sys". */
const char *pk_sysfs_root(void);

/* Loads every PMU under <root>/bus/event_source/devices. root NULL means
 * $PMUKIT_SYSFS when set, otherwise "/sys". Unreadable or malformed files
 * give an error naming the file. */
pk_pmus *pk_pmus_load(const char *root, pk_error *err);
pk_pmus *pk_pmus_get(pk_pmus *pmus);
void pk_pmus_put(pk_pmus *pmus);

const char *pk_pmus_root(const pk_pmus *pmus);
size_t pk_pmus_count(const pk_pmus *pmus);
/* PMUs in a stable order: core PMUs first (cpu_core before cpu_atom, as in
 * perf's hybrid documentation), then the others by name. */
const pk_pmu *pk_pmus_at(const pk_pmus *pmus, size_t idx);
const pk_pmu *pk_pmus_find(const pk_pmus *pmus, const char *name);
const pk_pmu *pk_pmus_find_type(const pk_pmus *pmus, uint32_t type);
/* Number of core PMUs; pk_pmus_core_at(i) gives them in order. */
size_t pk_pmus_nr_core(const pk_pmus *pmus);
const pk_pmu *pk_pmus_core_at(const pk_pmus *pmus, size_t idx);
/* True when more than one core PMU exists (Intel hybrid). */
bool pk_pmus_is_hybrid(const pk_pmus *pmus);
/* --cputype's core PMU (NULL: none asked, 0): -EINVAL with err naming the
 * core PMUs when the machine is not hybrid or has no such core PMU. */
int pk_pmus_check_cputype(const pk_pmus *pmus, const char *pmu_name, pk_error *err);
/* The PMU a --cputype word names: perf's "core" and "atom" are cpu_core
 * and cpu_atom; any other word as it is. */
const char *pk_pmus_cputype_name(const char *arg);
/* Things in the tree that were skipped (a PMU without a readable type, a
 * malformed format file ...), one line each, naming the file. */
size_t pk_pmus_nr_warnings(const pk_pmus *pmus);
const char *pk_pmus_warning(const pk_pmus *pmus, size_t idx);
/* Finds PMUs by perf's name matching: the exact name, else every PMU named
 * <name>_<digits> or uncore_<name>[_<digits>] (arm_spe -> arm_spe_0).
 * Returns how many matched (written to out up to max). */
size_t pk_pmus_match(const pk_pmus *pmus, const char *name, const pk_pmu **out, size_t max);

const pk_format *pk_pmu_format(const pk_pmu *pmu, const char *name);
const pk_alias *pk_pmu_alias(const pk_pmu *pmu, const char *name); /* case-insensitive */
const char *pk_pmu_cap(const pk_pmu *pmu, const char *name);

/* The name of config word `word` ("config", "config1" ... "config3"), or NULL
 * outside 0..PK_NR_CONFIGS-1: the one spelling of the attr's config words. */
const char *pk_config_word_name(int word);
/* Writes a format field as its sysfs text ("config1:0-7,32-35") into buf
 * (truncated to len) and returns buf. */
const char *pk_format_describe(const pk_format *fmt, char *buf, size_t len);
/* Parses a format file's text ("config1:0-7,32-35", "config:18"). */
int pk_format_parse(const char *text, pk_format *out, pk_error *err);
/* Largest value the field holds. */
uint64_t pk_format_max(const pk_format *fmt);
/* Scatters value into the field's bits of config[fmt->word]. The value must
 * fit the field's width (-ERANGE otherwise). */
int pk_format_apply(const pk_format *fmt, uint64_t value, uint64_t config[PK_NR_CONFIGS]);
/* Gathers the field's value back out of config words. */
uint64_t pk_format_extract(const pk_format *fmt, const uint64_t config[PK_NR_CONFIGS]);

#ifdef __cplusplus
}
#endif
#endif
