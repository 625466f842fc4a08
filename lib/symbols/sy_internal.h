/* lib/symbols internals: the objects a pk_machine is made of, shared by the
 * files of this module and by nothing else.
 *
 *   symtab.c    symbol tables: building, perf's choice among aliases, lookup
 *   elf.c       symbols and segments from ELF files (libelf), the vdso
 *   kallsyms.c  the kernel's symbols (/proc/kallsyms), loaded on first use
 *   kcache.c    the kallsyms cache: the finished table saved per boot, mapped
 *               and checked
 *   buildid.c   recorded build ids and perf's build-id cache
 *   debuginfod.c  binaries by build id from debuginfod servers (opt-in)
 *   dso.c       the registry of dsos and loading each one's symbols once
 *   maps.c      address maps of a process (or the kernel), MMAP records
 *   perfmap.c   JIT symbols from /tmp/perf-<pid>.map
 *   srcline.c   source lines from DWARF line tables (libdw's Dwfl, per dso)
 *   thread.c    the one thread table (perf's rules): names, parents, maps;
 *               COMM and FORK records
 *   tasks.c     its listing in perf's order (report --tasks/--mmaps)
 *   machine.c   pk_machine: records in, address lookups (cached) out
 *   probe_funcs.c  probe points of a binary (pmukit/probe.h), --funcs
 *   uprobe.c    tracefs' uprobe_events and kprobe_events (pmukit/probe.h)
 *   unwind.c    user stacks of --call-graph dwarf samples (libdw), a Dwfl
 *               per process map version
 *
 * Ownership: the machine owns every thread and dso (hash tables, freed with
 * it; a thread a FORK replaces is freed then); threads of one process share one refcounted map group; maps point at
 * dsos without a reference (dsos live as long as the machine). Every change
 * to a map group gives it a new version, unique across groups, so that
 * (group, version, address) keys the lookup cache. */
#ifndef PK_SYMBOLS_INTERNAL_H
#define PK_SYMBOLS_INTERNAL_H

#include <pmukit/symbols.h>

#include "core/strmap.h"

#include <elfutils/libdwfl.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/refcount.h"

typedef struct sym {
	uint64_t start, end;
	const char *name;
	uint32_t idx;                /* load order, for a stable sort */
	uint8_t bind;                /* STB_* (kallsyms: t local, T global, W weak) */
	bool mangled;                /* name still to be demangled (on first use) */
	bool module;                 /* kallsyms: a module's symbol ("\t[name]") */
} sym;

/* plt_shadow.c: PLT slots whose lookup answers an earlier symbol (perf's
 * tree shape), with that symbol's start */
typedef struct plt_shadow {
	uint64_t start, end, owner;
} plt_shadow;

typedef struct seg {
	uint64_t offset, vaddr;
} seg;

/* srcline.c: a function of the symbol table and the file it is listed under */
typedef struct src_func {
	uint64_t start;              /* first: pki_sy_count_le searches it */
	uint32_t idx;                /* symbol table order */
	const char *file;            /* NULL: none (a global, or no FILE before) */
	uint64_t sec_end;            /* the end of its section */
} src_func;

typedef struct dso {
	char *name;
	char *short_name;            /* perf's short name: the base name of name,
					"[i915]" for a kernel module */
	uint64_t ordinal;            /* 1 for the machine's first dso, and so on */
	bool loaded, is_kernel;
	bool is_module;              /* a kernel module's map (kernel MMAP) */
	bool bpf;                    /* a KSYMBOL's code (a BPF program): its own
					kernel map and symbols, not the kernel's */
	bool bpf_image;              /* a trampoline or dispatcher: perf's long name "" */
	const char *bpf_last;        /* perf's last-lookup cache of a KSYMBOL dso (at
					bpf_last_at): a symbol registered inside its map
					takes it when it covers that address */
	uint64_t bpf_last_at;
	char *bpf_alias;             /* the last registration's name inside its map */
	bool listed;                 /* named by a BUILD_ID entry: script shows
					a module by its path, else by short name */
	bool keep_mangled;           /* the machine's no_demangle */
	bool keep_aliases;           /* every symbol at an address kept (perf
					probe's table, allow_aliases), not one */
	bool elf;                    /* its file was read as an ELF */
	bool exec;                   /* an ET_EXEC: perf moves its symbols to file offsets */
	sym *syms;
	size_t nr_syms;
	char *strs;                  /* names, one block */
	size_t slen, scap, cap_syms; /* while loading, sym.name is an offset into strs */
	seg *segs;
	size_t nr_segs;
	struct sym_index {           /* symtab.c: buckets over a big table */
		const sym *syms;     /* the table it was made for (NULL: none) */
		size_t nr_syms;
		uint64_t base;       /* the first symbol's start */
		unsigned shift;      /* a bucket is 1 << shift bytes */
		size_t nr;           /* buckets */
		uint32_t *first;     /* per bucket, the first symbol starting in or after it */
	} index;
	plt_shadow *shadows;         /* sorted, disjoint; usually none */
	size_t nr_shadows;
	char **dnames;               /* demangled names, owned */
	size_t nr_dnames, cap_dnames;
	char build_id[41];           /* as recorded, hex; "" when unknown */
	struct Dwfl *dwfl;           /* srcline.c: the line tables, opened on first use */
	struct Dwfl_Module *dwfl_mod;
	bool dwfl_tried, funcs_tried;
	src_func *funcs;             /* sorted by start; built on first need */
	size_t nr_funcs;
	void *kmap;                  /* the kallsyms cache the names lie in, or NULL */
	size_t kmap_len;
} dso;

typedef struct map {
	uint64_t start, end, pgoff;  /* pgoff as recorded (a vdso's 0) */
	dso *dso;
	uint64_t ino;                /* MMAP2's inode (0: MMAP, or a build id) */
	uint32_t prot;               /* PROT_* (MMAP: PROT_EXEC unless data), and
					MAP_FILELESS */
	uint32_t flags;              /* MAP_* */
} map;

/* In map.prot: no file, the addresses are their own (perf's identity map). */
#define MAP_FILELESS 0x80000000u

/* The offset lookups use: the address itself for memory without a file,
 * else the recorded one. */
static inline uint64_t pki_sy_map_pgoff(const map *mp)
{
	return mp->prot & MAP_FILELESS ? mp->start : mp->pgoff;
}

typedef struct mapgroup {
	map *maps;
	size_t nr, cap;
	size_t last;
	pki_ref ref;
	uint64_t version;            /* bumped by every change, for the lookup cache */
	uint64_t listed;             /* tasks.c: the listing its maps are in (0: none) */
	size_t listed_at;            /* tasks.c: where, in the machine's listed maps */
} mapgroup;

typedef struct thread {
	uint32_t tid, pid;
	int32_t ppid;                /* the parent's tid from FORK, -1 without one */
	uint32_t idx;                /* tasks.c: its place in the last listing */
	bool idle;                   /* the machine's swapper, no record named it yet */
	bool by_task;                /* made or named by a COMM or FORK (report --tasks
					without --mmaps takes no MMAP: lists only these) */
	char *comm;                  /* NULL: never named */
	uint64_t gen;                /* unique per thread made */
	mapgroup *mg;                /* the process's maps (its leader's, shared) */
	uint64_t cg_dev, cg_ino;     /* its cgroup namespace, from NAMESPACES (0: none) */
	struct thread *next;
} thread;

#define THREAD_HASH 4096

/* Resolved addresses, direct mapped; an entry is stale once any map
 * changed (gen). Call chains repeat the same addresses over and over. */
#define LOC_CACHE 16384
typedef struct loc_entry {
	uint64_t addr, version;
	const mapgroup *mg;
	unsigned cpumode;
	pk_addr_loc loc;
} loc_entry;

struct pk_machine {
	pk_machine_opts opts;
	loc_entry *cache;
	loc_entry scratch;           /* lookups that cannot be cached */
	uint64_t next_version;       /* versions are unique across map groups */
	uint64_t comm_version;       /* changed with any thread's name or a new thread */
	thread *threads[THREAD_HASH];
	pki_strmap dsos;             /* dso * by file name */
	uint64_t nr_dsos;            /* dsos made so far: the next one's ordinal - 1 */
	dso *kernel;                 /* [kernel.kallsyms], symbols from kallsyms */
	char arch[32];               /* the recording's ARCH ("" unknown): binaries
					of another machine type are not read */
	mapgroup kmaps;
	/* KASLR: the kernel MMAP names a symbol ("[kernel.kallsyms]_text")
	 * and its address at record time (pgoff); kallsyms' addresses are
	 * this boot's: kdelta = kallsyms' address of it - the recorded one */
	char kref[64];
	uint64_t kref_addr;
	int64_t kdelta;
	char commbuf[32];
	thread *last_thread;
	struct pki_sy_unwind *unwind; /* unwind.c's Dwfl cache, made on first use */
	size_t nr_threads;           /* live threads in the table */
	uint64_t thread_gen;         /* threads made so far */
	bool in_task_rec;            /* thread.c: a COMM or FORK being taken in */
	struct pki_sy_tasks *tasks;  /* tasks.c's listing, NULL unless kept */
	struct pki_sy_cgroup {       /* PERF_RECORD_CGROUP's ids and paths */
		uint64_t id;
		char *path;
	} *cgroups;
	size_t nr_cgroups;
};

/* symtab.c */
bool pki_sy_syms_reserve(dso *d, size_t nsyms, size_t nstr);
bool pki_sy_add_sym(dso *d, uint64_t start, uint64_t end, const char *name, size_t nl,
		uint8_t bind);
void pki_sy_syms_finish(dso *d);
size_t pki_sy_count_le(const void *base, size_t n, size_t stride, uint64_t addr);
sym *pki_sy_sym_find(dso *d, uint64_t addr);
const char *pki_sy_sym_name(dso *d, sym *s);
bool pki_sy_sym_better(dso *d, sym *a, sym *b);
uint64_t pki_sy_page_after(uint64_t addr);

/* plt_shadow.c */
bool pki_sy_plt_owners(dso *d, uint64_t plt, uint64_t entsize, size_t nslots, int32_t *owner);
bool pki_sy_plt_shadows(dso *d, uint64_t plt, uint64_t entsize, size_t nslots,
		const int32_t *owner);
const plt_shadow *pki_sy_plt_shadow_find(const dso *d, uint64_t addr);

/* elf.c */
void pki_sy_elf_load(dso *d, Elf *e);
void pki_sy_load_vdso(const pk_machine *m, dso *d);
bool pki_sy_elf_build_id(Elf *e, char *hex, size_t hexlen);
/* buildid.c: perf's build-id cache directory: opt, else <symfs>/.debug,
 * else $PERF_BUILDID_DIR, else $HOME/.debug; false when there is none. */
bool pki_sy_buildid_dir(const char *opt, const char *symfs, char *dir, size_t size);
/* A descriptor on a copy of this host's vdso image when the [vdso] d of
 * a recording is this host's (no build id recorded for it, or this host's
 * vdso's: perf reads it then; the unwinder reads its CFI), else -1. */
int pki_sy_vdso_fd(const dso *d);
uint64_t pki_sy_seg_vaddr(const dso *d, uint64_t off);
/* The file offset of link-time address vaddr (the segment starting last
 * at or below it), the inverse of pki_sy_seg_vaddr. */
uint64_t pki_sy_seg_offset(const dso *d, uint64_t vaddr);

/* tasks.c */
typedef struct pki_sy_tasks pki_sy_tasks;
void pki_sy_tasks_free(pki_sy_tasks *tk);
/* The listing is to be made again (a record changed the table). */
void pki_sy_tasks_changed(pki_sy_tasks *tk);

/* kallsyms.c */
void pki_sy_kernel_load(pk_machine *m);

/* kcache.c */
char *pki_sy_kcache_path(const pk_machine_opts *o);
bool pki_sy_kcache_key(const char *src, char *key, size_t size);
/* d's table from the cache at path when it is whole and for key (d
 * keeps the mapping), else false and d unchanged. */
bool pki_sy_kcache_read(const char *path, const char *key, dso *d);
/* The same checks and table on the bytes of a cache file (names point
 * into buf, which must outlive d's table). */
bool pki_sy_kcache_parse(dso *d, const void *buf, size_t len, const char *key);
/* Writes the checksum of the len bytes of a cache file at buf into its
 * header: tests and the fuzz target reach the table checks behind it. */
void pki_sy_kcache_seal(void *buf, size_t len);
/* Saves d's finished table (names in d->strs) under key. */
void pki_sy_kcache_write(const char *path, const char *key, const dso *d);

/* buildid.c */
int pki_sy_open_recorded(const pk_machine *m, const dso *d, Elf **elf);
/* perf's letter for the file d's symbols come from (report -v): B, D,
 * f, u, b, d; '!' for none. */
char pki_sy_dso_origin(const pk_machine *m, const dso *d);
/* The kallsyms file for the kernel dso: opts.kallsyms; none under a
 * --symfs other than "/"; this host's when the recorded kernel build id is
 * this host's (or none was recorded), else the build-id cache's copy;
 * false when none may be used. */
bool pki_sy_kallsyms_source(const pk_machine *m, char *path, size_t size);
/* Whether the ELF file e may be read for the recording's architecture. */
bool pki_sy_elf_arch_ok(const pk_machine *m, Elf *e);
/* Whether the recording's architecture may be this host's (the same
 * machine type, or not known). */
bool pki_sy_arch_is_host(const pk_machine *m);
/* m's architecture from the ARCH feature's payload (perf's string). */
void pki_sy_set_arch(pk_machine *m, const uint8_t *raw, size_t len);
/* Whether d (the kernel, or "[vdso]") is this host's: the host's own
 * build id recorded, or none and a recording of this architecture. */
bool pki_sy_host_object(const pk_machine *m, const dso *d);
bool pki_sy_host_vdso(const pk_machine *m, const dso *d);
int pki_sy_add_build_id(void *machine, const pk_pd_rec_build_id *b);

/* debuginfod.c: the path of the executable with build id hex (a
 * malloc'd string) fetched by libdebuginfod when $DEBUGINFOD_URLS is set;
 * NULL when not asked, not loaded, or not found. */
char *pki_sy_debuginfod_path(const char *hex);

/* dso.c */
dso *pki_sy_dso_get(pk_machine *m, const char *name);
/* Makes d a kernel module's dso with perf's short name; false when out
 * of memory. */
bool pki_sy_dso_set_module(dso *d);
void pki_sy_dso_load(pk_machine *m, dso *d);
void pki_sy_dsos_free(pk_machine *m);

/* perfmap.c: d's symbols from the JIT map file d names; one line's */
bool pki_sy_is_perfmap(const char *name);
void pki_sy_perfmap_load(dso *d);
bool pki_sy_perfmap_line(dso *d, const char *line, size_t len);

/* srcline.c: pk_machine_srcline's answer for vaddr in d; the Dwfl freed */
int pki_sy_dso_srcline(pk_machine *m, dso *d, uint64_t vaddr, const char **file,
		       unsigned *line);
void pki_sy_dso_srcline_free(dso *d);
/* srcline.c: d's Dwfl module (at link-time addresses), opened on first use;
 * NULL when d is no readable ELF file (then never tried again). */
Dwfl_Module *pki_sy_dso_module(pk_machine *m, dso *d);
/* srcline.c: the compilation unit of mod holding addr (a module address),
 * *bias set; NULL when none does. Units are found by libdw's lookup, or,
 * in a file where libdw finds no address ranges (clang's DWARF 5 without
 * .debug_aranges: libdw 0.188 answers nothing there), by asking each. */
Dwarf_Die *pki_sy_unit_of(Dwfl_Module *mod, uint64_t addr, uint64_t *bias);

/* maps.c */
mapgroup *pki_sy_mg_new(void);
void pki_sy_mg_put(mapgroup *g);
int pki_sy_mg_copy(pk_machine *m, mapgroup *g, const mapgroup *src);
int pki_sy_mg_insert(pk_machine *m, mapgroup *g, map nm);
/* The maps over [start, end) cut out (a range dropped). */
void pki_sy_mg_cut(pk_machine *m, mapgroup *g, uint64_t start, uint64_t end);
const map *pki_sy_mg_find(mapgroup *g, uint64_t addr);
void pki_sy_mg_gap(const mapgroup *g, uint64_t addr, uint64_t *lo, uint64_t *hi);
int pki_sy_on_mmap(pk_machine *m, const pk_pd_event *ev);
/* KSYMBOL: a BPF program's (or other kernel text's) map made or dropped. */
int pki_sy_on_ksymbol(pk_machine *m, const pk_pd_event *ev);
uint64_t pki_sy_mmap_pgoff(const pk_pd_rec_mmap *r);

/* unwind.c */
void pki_sy_unwind_free(pk_machine *m);

/* thread.c */
thread *pki_sy_thread_find(pk_machine *m, uint32_t tid);
/* The live thread of tid, made when missing (with its leader); its pid
 * set only when unknown. NULL when out of memory. */
thread *pki_sy_thread_findnew(pk_machine *m, uint32_t pid, uint32_t tid);
/* t's maps, made when it has none yet; NULL when out of memory. */
mapgroup *pki_sy_thread_maps(pk_machine *m, thread *t);
/* The machine's idle task, swapper 0/0. 0 or -ENOMEM. */
int pki_sy_idle_thread(pk_machine *m);
/* The maps lookups of process pid use (its leader's), NULL when none. */
static inline mapgroup *pki_sy_process_maps(pk_machine *m, uint32_t pid)
{
	thread *leader = pki_sy_thread_find(m, pid);
	return leader ? leader->mg : NULL;
}
int pki_sy_on_comm(pk_machine *m, const pk_pd_event *ev);
int pki_sy_on_fork(pk_machine *m, const pk_pd_event *ev);
void pki_sy_threads_free(pk_machine *m);

#endif
