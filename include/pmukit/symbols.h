/* pmukit: symbolization of perf.data addresses.
 *
 * A pk_machine follows the task records of a perf.data stream (COMM, FORK,
 * EXIT, MMAP, MMAP2), keeps each process's memory maps, and resolves an
 * address to dso and symbol: ELF .symtab (else .dynsym) through libelf,
 * cached per dso, and kernel addresses through /proc/kallsyms when readable.
 * Only the recorded binaries are read, as perf finds them: a file whose
 * build id differs from the recorded one, or (without one) of another
 * architecture, gives no symbols; so does another kernel's kallsyms.
 *
 * lib/symbols, one file per concept: thread.c (the one thread table, kept
 * by perf's rules, that samples resolve against and report --tasks lists:
 * tasks, their names, and a comm version that changes with any name:
 * callers keep text made of names while it stays), maps.c (a process's maps; pk_mmap_dso_name, the one rule
 * naming anonymous and JIT maps), dso.c, symtab.c, elf.c, demangle.c,
 * kallsyms.c, machine.c (lookups and their cache), tasks.c (the table's
 * listing, report --tasks/--mmaps). Kernel modules are dsos
 * of their own with perf's names ([i915]).
 *
 * Where symbols come from: buildid.c (only the recorded binaries: a file's
 * build id must be the recorded one, from perf's build-id cache or its
 * path; without one, never an ELF of another machine type than the file's
 * ARCH; the kernel's kallsyms only when the recorded kernel build id is
 * this host's or none was recorded, else the cache's copy, moved by KASLR's
 * slide since the recording); kcache.c (the kallsyms cache: the finished
 * kernel table in binary, per boot, under $XDG_CACHE_HOME/pmukit, mapped
 * and checked; $PMUKIT_KALLSYMS_CACHE= turns it off); debuginfod.c (a
 * recorded binary found nowhere else, from debuginfod servers when
 * $DEBUGINFOD_URLS is set, libdebuginfod loaded on first use); perfmap.c
 * (JIT symbols from /tmp/perf-<pid>.map); plt_shadow.c (which PLT slots
 * perf's symbol tree answers with the symbol grown over the PLT).
 *
 * Beyond the symbol: srcline.c (source lines from DWARF line tables through
 * libdw, per dso, pk_machine_srcline); unwind.c (the user stacks of
 * --call-graph dwarf samples unwound with libdw, pk_machine_unwind: a Dwfl
 * per process map version, the registers from lib/core's table, memory from
 * the sample's stack copy; where a frame has no CFI, the frame pointer as
 * perf's libunwind follows it; a preserved register libdw loses carried
 * from the frames before; and the inlined functions of a frame,
 * pk_machine_inlines; docs/perfdata.md "DWARF unwinding"). Script's call
 * chain printing asks where an address lies without the symbol lookup
 * (pk_machine_frame, pk_machine_frame_map, pk_machine_locate).
 * sy_internal.h lists the files' shared functions, internal names pki_sy_. */
#ifndef PMUKIT_SYMBOLS_H
#define PMUKIT_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <pmukit/perfdata.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_machine pk_machine;

typedef struct pk_machine_opts {
	const char *kallsyms;        /* NULL: /proc/kallsyms; "" : no kernel symbols */
	bool no_symbols;             /* maps only: no ELF reading */
	bool no_demangle;            /* C++ names as in the symbol table */
	const char *buildid_dir;     /* perf's build-id cache; NULL: $PERF_BUILDID_DIR,
					else $HOME/.debug; "": none */
	/* The file caching the kallsyms lines kept, per boot (see
	 * lib/symbols/kcache.c); NULL: $PMUKIT_KALLSYMS_CACHE, else
	 * $XDG_CACHE_HOME/pmukit/kallsyms, else $HOME/.cache/pmukit/kallsyms;
	 * "" (here or in the variable): no cache. */
	const char *kallsyms_cache;
	/* perf's --symfs: binaries are read under this directory (their
	 * recorded path appended to it), no kallsyms (unless kallsyms names
	 * a file; "/" is this root), the build-id cache is its .debug
	 * (unless buildid_dir is set). NULL or "": none. */
	const char *symfs;
} pk_machine_opts;

pk_machine *pk_machine_new(const pk_machine_opts *opts);
void pk_machine_free(pk_machine *m);

/* Feeds one record; records other than COMM, FORK, EXIT, MMAP, MMAP2 and
 * HEADER_BUILD_ID are ignored. Returns 0 or -ENOMEM. */
int pk_machine_event(pk_machine *m, const pk_pd_event *ev);

/* The build id recorded for a file. When the file at that path is gone or
 * is no longer the one recorded, its symbols come from perf's build-id
 * cache (<buildid_dir>/.build-id/xx/yyyy.../elf), as perf reads them.
 * Returns 0 or -ENOMEM. */
int pk_machine_set_build_id(pk_machine *m, const char *filename, const uint8_t *id, size_t len);
/* pk_machine_set_build_id for every entry of r's BUILD_ID feature (file
 * mode; pipe mode has HEADER_BUILD_ID records, fed by pk_machine_event).
 * Returns 0, or a negative errno when the feature is damaged (0 when the
 * file has none). */
int pk_machine_read_build_ids(pk_machine *m, pk_pd_reader *r, pk_error *err);

/* The thread's current command name, or ":<tid>" when unknown (perf's form).
 * Valid until the next call into m. */
const char *pk_machine_comm(pk_machine *m, uint32_t pid, uint32_t tid);
/* The path a PERF_RECORD_CGROUP named for cgroup id (as perf's env keeps
 * them: the first record of an id), or NULL when none has. */
const char *pk_machine_cgroup(const pk_machine *m, uint64_t id);
/* Thread tid's cgroup namespace (its device and inode) as its last
 * NAMESPACES record gave it; 0, 0 without one. False: no such thread. */
bool pk_machine_cgroup_ns(pk_machine *m, uint32_t tid, uint64_t *dev, uint64_t *ino);
/* The process of a thread seen in COMM, FORK or MMAP records (the pid it
 * was made with); -1 when unknown (perf's machine__find_thread(-1, tid)),
 * also for the idle task until a record names it. */
int64_t pk_machine_pid_of(pk_machine *m, uint32_t tid);
/* A counter that changes whenever any answer of pk_machine_comm or
 * pk_machine_pid_of may change (a thread's name set, a thread made,
 * replaced or given its pid): while it stays the same, a name
 * pk_machine_comm gave for (pid, tid) is still its answer. */
uint64_t pk_machine_comm_version(const pk_machine *m);

/* Whether the recording's architecture (its ARCH header) is this host's,
 * perf's "native arch" (true when either is not known, as perf then
 * assumes). */
bool pk_machine_arch_is_host(const pk_machine *m);

/* The machine's thread table listed, perf report --tasks / --mmaps' view:
 * the tasks and maps perf's machine keeps from COMM, FORK, EXIT and MMAP
 * records, the same table samples resolve against (thread.c lists its
 * rules: a FORK of a known tid makes a new task, maps keep their recorded
 * offsets, the idle task 0/0 "swapper" is there; tasks.c where lookups
 * still part from perf's). Listed only after pk_machine_keep_tasks
 * (with_maps: the maps too). Valid until the next pk_machine_event or
 * pk_machine_free. */
typedef struct pk_task {
	int32_t pid, tid;
	int32_t ppid;                /* the parent's tid from FORK, -1 without one */
	char *comm;                  /* ":<tid>" until named */
	size_t idx;                  /* its place in the table order (pk_machine_task_at) */
} pk_task;
typedef struct pk_task_map {
	uint64_t start, end;
	uint64_t pgoff;              /* as recorded (a vdso's: 0, as perf keeps it) */
	uint64_t ino;                /* MMAP2's inode (0: MMAP, or a build id instead) */
	uint32_t prot, flags;        /* PROT_*, MAP_* (MMAP: PROT_EXEC unless a data map) */
	char *name;                  /* pk_mmap_dso_name's */
} pk_task_map;
/* Lets the iterators list the table (the machine keeps it anyway). 0 or
 * -ENOMEM. */
int pk_machine_keep_tasks(pk_machine *m, bool with_maps);
/* *n the live tasks. 0, -EINVAL when the table is not kept, or -ENOMEM. */
int pk_machine_tasks(pk_machine *m, size_t *n);
/* The i-th live task in perf 6.1's table order (tid modulo 256, then tid);
 * NULL past the end. */
const pk_task *pk_machine_task_at(pk_machine *m, size_t i);
/* The live task of tid, NULL when none. */
const pk_task *pk_machine_task_find(pk_machine *m, int32_t tid);
/* t's process maps, sorted by address: *n of them (with_maps only). */
const pk_task_map *pk_machine_task_maps(pk_machine *m, const pk_task *t, size_t *n);
/* The tasks as perf report --tasks prints them, a tree: from each task in
 * table order not yet placed, up its parents to one without a parent (the
 * top of a tree, in the order tops are reached); each task under its
 * parent, children in the order placed. *out (the caller frees it) gets
 * *n places depth first: the task's table index (pk_machine_task_at) and
 * its depth. 0, -EINVAL when the table is not kept, -ENOMEM, or -ESRCH
 * when a task's parent is not in the table. */
typedef struct pk_task_place {
	size_t idx;
	int level;
} pk_task_place;
int pk_machine_task_tree(pk_machine *m, pk_task_place **out, size_t *n);

typedef struct pk_addr_loc {
	const char *dso;             /* "[kernel.kallsyms]", a path, "[unknown]" */
	const char *dso_short;       /* perf's short name (report's): a path's base
					name, "[i915]" for a kernel module's path */
	const char *dso_long;        /* perf's long name (-D's): dso, but a kernel
					module by the path it was mapped from */
	const char *sym;             /* NULL when not found */
	uint64_t sym_start;          /* in the dso's address space */
	uint64_t symoff;             /* address - symbol start */
	uint64_t dso_addr;           /* the address inside the dso (perf's map_ip) */
	bool kernel;
	bool has_map;
	bool dso_read;               /* the dso's file was read (an ELF): perf then keeps
					file addresses as they are (adjust_symbols) */
	size_t sym_len, dso_len;     /* strlen of sym (0 when NULL) and dso */
	uint64_t sym_size;           /* end - start of the symbol (0 when NULL) */
	uint64_t map_size;           /* end - start of the map (0 when none) */
	uint64_t dso_ordinal;        /* the dso's place in the order the machine made
					them (perf's order of its dso allocations:
					report's tie order); 0 without a map */
	uint64_t objdump_addr;       /* the address as objdump shows the file's code
					(its link-time address; the kernel's as is) */
	bool dso_exec;               /* an ET_EXEC read: perf takes its symbols' starts
					as file offsets (sym_start - objdump_addr +
					dso_addr there) */
} pk_addr_loc;

/* The recorded address of the kernel symbol called name, from the kernel's
 * table as lookups see it (kallsyms, one name per address: a name that
 * lost its address to another is not there): 0, or -ENOENT. */
int pk_machine_kernel_symbol(pk_machine *m, const char *name, uint64_t *addr);

/* perf report -v's letter for where the symbols of the object holding
 * addr come from: 'k' kallsyms, 'B'/'D' the build-id cache's elf/debug
 * copy, 'd' the path, 'f'/'u'/'b' /usr/lib/debug's files, 'j' a JIT map,
 * 'K' a module's file, '!' none. */
char pk_machine_origin(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr);
/* cpumode: PERF_RECORD_MISC_KERNEL / _USER / ... (header.misc & 7). */
void pk_machine_resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
			pk_addr_loc *loc);

/* The name perf gives the dso of an MMAP or MMAP2 record's map: memory
 * without a file (//anon, /dev/zero, /anon_hugepage, [stack, [heap], /SYSV
 * shared memory) that is executable is named after the symbol map a JIT
 * may write, "/tmp/perf-<pid>.map" (made in buf); any other map keeps its
 * file name. *fileless (NULL: not asked) says whether it has no file. */
const char *pk_mmap_dso_name(const pk_pd_event *ev, const pk_pd_rec_mmap *r, char *buf,
			     size_t size, bool *fileless);

/* The same, answered from the lookup cache without a copy: the result is
 * valid until the next call into m. */
const pk_addr_loc *pk_machine_lookup(pk_machine *m, uint32_t pid, unsigned cpumode,
				     uint64_t addr);

/* The source line of addr from the DWARF line table of its dso (or of the
 * dso's debug file), as perf's addr2line finds it: 1 with *file (the base
 * name, valid while m lives) and *line (0 when only the symbol table names
 * the file of the function, as addr2line answers without line tables);
 * 0 when the dso is an ELF file with nothing for addr but a function of its
 * symbol table holding it (perf's "??:0"); -1 when addr lies in no map, in
 * no ELF file (the kernel, the vdso, anonymous or JIT memory) or in no
 * function known, where perf prints its fallback forms. */
int pk_machine_srcline(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
		       const char **file, unsigned *line);

/* The version of the maps pk_machine_lookup(m, pid, cpumode, ...) looks
 * addresses up in: unique across processes and changed by every change to
 * those maps, so (version, addr) keys a lookup's answer. 0: no maps known
 * for pid (answers then must not be kept). */
uint64_t pk_machine_maps_version(pk_machine *m, uint32_t pid, unsigned cpumode);

/* The fast call chain lines (pmukit script): where a user-space address
 * lies (its dso and the offset in it) without the symbol lookup. What
 * pk_machine_lookup answers for such an address depends on nothing else,
 * so a text made of that answer can be kept under (dso, offset) and shared
 * by every process that maps the same file (short-lived processes each
 * have their own maps version).
 * pk_machine_frame: the dso (an identity, valid while m lives) of the map
 * of pid that holds addr, with *off the address inside it
 * (pk_addr_loc.dso_addr), for a user-space cpumode; NULL for kernel modes
 * and addresses in no map. Two equal answers mean equal pk_machine_lookup
 * answers (but for has_map's map_size, which no text uses). */
const void *pk_machine_frame(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
			     uint64_t *off);
/* The same for a whole map: the dso, and the map's [start, end) and file
 * offset (an address's offset is addr - start + pgoff); for an address in
 * no map (NULL returned, fm->dso NULL), [start, end) is the room around it
 * that no map holds. The answer stays true for every address of the range
 * while the process's maps version (pk_machine_maps_version) stays the
 * same: a caller may keep it (for a user-space cpumode). */
typedef struct pk_frame_map {
	const void *dso;
	uint64_t start, end, pgoff;
} pk_frame_map;
const void *pk_machine_frame_map(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
				 pk_frame_map *fm);
/* pk_machine_lookup's answer for addr, into *loc, without its cache: for a
 * caller that keeps what it makes of the answer itself (script's line
 * cache), where the lookup cache would mostly miss and only take room in
 * the CPU caches. */
void pk_machine_locate(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
		       pk_addr_loc *loc);

/* Callchain context markers (PERF_CONTEXT_*): 0 for an address, 1 for a
 * marker (*cpumode gets the new mode), -1 for a value in the marker range
 * that is none of them (perf then drops the whole chain as corrupt). */
int pk_callchain_context(uint64_t ip, unsigned *cpumode);
/* A call chain entry seen as perf 6.1 follows chains: 0 an address, 1 a
 * context marker (*mode set), -1 a marker for which perf drops the whole
 * chain (corrupt, or a guest context). Inline: asked per chain entry. */
static inline int pk_callchain_marker(uint64_t ip, unsigned *mode)
{
	if (ip < (uint64_t)-4095)
		return 0;
	int c = pk_callchain_context(ip, mode);
	if (c < 0 || *mode == PERF_RECORD_MISC_GUEST_KERNEL || *mode == PERF_RECORD_MISC_GUEST_USER)
		return -1;
	return 1;
}

/* A C++ symbol name as perf 6.1 prints it: demangled, without the
 * function's parameters, qualifiers, return type or clone suffix
 * ("_ZNK2ns1C2opEl" -> "ns::C::op"). Returns a malloc'd string, or NULL
 * when name is not mangled, cannot be demangled, or the C++ runtime's
 * demangler (libstdc++, loaded on first use) is not available. */
char *pk_demangle(const char *name);
/* Whether name looks mangled ("_Z..."), i.e. pk_demangle() would try it. */
bool pk_is_mangled(const char *name);
/* Whether the demangler could be loaded (loads it). */
bool pk_demangle_available(void);

/* The user stack of a sample recorded with --call-graph dwarf (REGS_USER
 * and STACK_USER), unwound with the DWARF CFI of the files the process
 * had mapped (libdw): at most max addresses into ips, innermost first,
 * the sample's IP first and each caller at its call (return address - 1),
 * as perf shows them. regs_mask: the evsel's sample_regs_user; arch:
 * perf's ARCH feature ("x86_64", "aarch64"), NULL for this host's. Files
 * are opened as for symbols (--symfs, the build-id cache). Bad input ends
 * the walk: a stack copy that does not reach, a register missing, a file
 * gone give fewer frames, at least the IP. As perf 6.1: a sample without
 * a stack copy (dyn_size 0) gives 0 frames, and a process none of whose
 * mapped files opens (nor its vdso is this host's) gives none: -ENOENT.
 * Returns the number of addresses, or -ENODATA (no user IP in the
 * sample) / -ENOTSUP (an architecture without a register table) /
 * -ENOENT with err set. */
int pk_machine_unwind(pk_machine *m, const pk_pd_sample *smp, uint64_t regs_mask,
		      const char *arch, uint64_t *ips, size_t max, pk_error *err);

/* The functions at addr of process pid from the DWARF of its file
 * (libdw), as perf 6.1 lists them for the frames of --call-graph dwarf
 * chains: the inlined ones innermost first, then the function they are
 * inlined into; at most max names into names, valid until the next call
 * into m. Returns the count; 0 when the file has no debug info there. */
int pk_machine_inlines(pk_machine *m, uint32_t pid, uint64_t addr, const char **names,
		       size_t max);

/* perf script's default --max-stack: entries printed per chain. */
#define PK_MAX_STACK 127

#ifdef __cplusplus
}
#endif
#endif
