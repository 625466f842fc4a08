/* pmukit: the kernel interface seam (lib/kernel).
 *
 * Everything pmukit learns from or asks of the kernel of the measured
 * machine goes through one table of functions, pk_kernel_ops: the perf calls
 * and the host facts. The real table (pk_kernel_linux) calls the syscalls and
 * reads /proc and sysfs; the PMU model (pk_model_kernel, pmukit/model.h,
 * docs/model.md: a core PMU and the perf driver in user space, over a
 * scenario, in virtual time: `pmukit stat --model`, `record --model`) and the
 * tests' fake kernels (tests/counting/fake_kernel.c) implement the same table
 * in user space, so counting, recording, TopDown and SPE recording run
 * unchanged on a machine without the PMU.
 *
 * Calls: open (perf_event_open), read, ioctl, mmap with an offset (the ring
 * at 0, the AUX area at the user page's aux_offset), munmap, close, poll (the
 * recorder's wait for data and for exited tasks), and the optional explain
 * (NULL in Linux's table): the kernel's own reason for the last refused open,
 * which counting keeps per event and puts into pk_counting_explain's message
 * (the model says which driver rule refused an event; Linux only gives an
 * errno, so counting guesses from it).
 *
 * Simulated kernels (optional entries, NULL on Linux; the model fills them):
 * rdpmc (the instruction as a task of the kernel executes it; on Linux the
 * caller executes it, on the model pk_model_rdpmc serves its user pages), now
 * (its clock: the user pages' TSC), run_to (its owner runs virtual time
 * forward), sysfs_root (its PMU tree), source (its scenario). A kernel with
 * now is simulated: not thread-safe, tasks of its own. The region library
 * reads the model through these only.
 *
 * Host facts (ops->host): number (perf_event_paranoid,
 * perf_event_max_sample_rate, perf_event_mlock_kb, page size, MemTotal), cpus
 * (online, present), topology (per CPU: core/package/die ids and sibling
 * maps), cpu (the CPUID in PERF_CPUID form and the model name), uname, tasks
 * (the threads of a process, or every process), task (a task's process and
 * comm), maps (a process's mappings, for MMAP2 synthesis), kernel_text
 * (_text/_etext, for the kernel MMAP); optional (NULL: not published):
 * tracefs_file, nodes/node (NUMA nodes: memory, CPUs), mem_blocks (a node's
 * memory blocks and the block size), cache (a CPU's cache indexes), build_id
 * (the kernel's, a module's, the vDSO's), cache_copy (what perf's build-id
 * cache keeps of the kernel and the vDSO: the kallsyms text, the image).
 *
 * Who asks: counting (paranoid, for the fallback and messages), thread maps
 * (-p/-t, comm), -a's CPU map (pk_host_cpus), CPU identification
 * (pk_host_cpuid = PMUKIT_CPUID or the kernel's cpu; the one public name), the
 * recorder (page size, mlock limit, mmap, poll), the synthesizers (tasks,
 * comm, maps, kernel text), and the perf.data host features (uname, CPU sets,
 * topology, CPU, memory, NUMA nodes, caches, memory blocks, the kernel's and
 * vDSO's build ids), the build-id cache (the kallsyms and vDSO copies). The PMU_MAPPINGS feature comes from the pk_pmus the
 * events were resolved with, not from a second scan of sysfs.
 *
 * Invariants: every function returns a negative errno on failure (never -1
 * with errno); a fact the kernel does not publish is -ENOENT and its feature
 * or message is left out; a task that is gone is -ESRCH. pk_host_number,
 * pk_host_cpus, pk_host_cpuid, pk_host_comm wrap the table with defaults and
 * errors that name the fact. The real table reads its sysfs facts (CPU sets,
 * topology, the Arm MIDR) under pk_sysfs_root(): $PMUKIT_SYSFS when set (the
 * same root the PMU snapshot uses), else /sys; /proc facts have no root.
 *
 * Checked: tests/kernel/seam_check.sh (test seam_check) fails when a file in
 * lib/ outside lib/kernel names a /proc or /sys path or calls poll (ppoll,
 * epoll), sysconf, getpagesize, uname or syscall. Its exceptions, with reasons: lib/pmu (the PMU tree under
 * the sysfs root is the fact source itself), lib/events/tracepoint.c (tracefs,
 * its own root), lib/symbols (ELF files of the recorded program and the
 * analysing host's kallsyms: facts of the machine that reads perf.data, not of
 * the measured one).
 *
 * lib/kernel's files: syscall wrappers (kernel_sys.c); the host facts from
 * /proc, sysfs, cpuid and uname (linux_host.c), with NUMA nodes, memory
 * blocks, caches and the kernel's, modules' and vDSO's build ids in
 * linux_sysmem.c; where tracefs is mounted (pk_tracefs_dir, linux_host.c);
 * conveniences over any kernel's facts (host.c); the loader of a simulated
 * kernel from a file, which the PMU model registers (loader.c, internal
 * kernel/loader.h: the region library's PMUKIT_MODEL without importing
 * lib/model). */
#ifndef PMUKIT_KERNEL_H
#define PMUKIT_KERNEL_H

#include <linux/perf_event.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <pmukit/cpuid.h>
#include <pmukit/cpumap.h>
#include <pmukit/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pk_kernel pk_kernel;

/* ---- host facts ---- */

/* Numbers the kernel publishes about itself. */
typedef enum pk_host_num {
	PK_HOST_PARANOID,          /* kernel.perf_event_paranoid */
	PK_HOST_MAX_SAMPLE_RATE,   /* kernel.perf_event_max_sample_rate, Hz */
	PK_HOST_MLOCK_KB,          /* kernel.perf_event_mlock_kb */
	PK_HOST_PAGE_SIZE,         /* bytes */
	PK_HOST_MEM_TOTAL_KB,      /* MemTotal of /proc/meminfo */
	PK_HOST_PERFMON_CAPABLE,   /* 1: the caller has CAP_PERFMON or CAP_SYS_ADMIN */
	PK_HOST_TSC_HZ,            /* the TSC's rate in Hz (x86: CPUID leaf 0x15, else the
				      "@ 2.50GHz" of the model name; the model: ref_ghz) */
	PK_HOST_HAS_PMEM,          /* 1: the firmware describes persistent memory (an ACPI
				      NFIT table: firmware/acpi/tables/NFIT in sysfs), else 0 */
	PK_HOST_NUM_NR
} pk_host_num;

typedef enum pk_host_cpuset {
	PK_HOST_CPUS_ONLINE,       /* devices/system/cpu/online */
	PK_HOST_CPUS_PRESENT,      /* devices/system/cpu/present */
} pk_host_cpuset;

/* Where one CPU sits (devices/system/cpu/cpuN/topology). Ids are -1 and maps
 * NULL where the kernel does not publish them; the caller owns the maps
 * (pk_cpu_topology_release). */
typedef struct pk_cpu_topology {
	int core_id, package_id, die_id;
	pk_cpumap *core_siblings;    /* the CPUs of its package */
	pk_cpumap *thread_siblings;  /* the CPUs of its core */
	pk_cpumap *die_cpus;         /* the CPUs of its die */
} pk_cpu_topology;

/* The CPU model: identification (PERF_CPUID form, see cpuid.h) and the
 * marketing name ("model name" of /proc/cpuinfo; "" when unknown). */
typedef struct pk_host_cpu {
	pk_cpuid id;
	char model_name[128];
} pk_host_cpu;

/* One task: its process (thread group leader) and command name. */
typedef struct pk_host_task {
	pid_t tgid;
	char comm[64];
	uid_t uid;                   /* its effective user (record -u); the model's: 0 */
} pk_host_task;

/* One line of /proc/<pid>/maps. prot: PROT_* bits; flags: MAP_SHARED or
 * MAP_PRIVATE; name: the file, "[heap]", ... or "" for anonymous memory. */
typedef struct pk_host_map {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	const char *name;
} pk_host_map;

/* A NUMA node (devices/system/node/node<N>): its memory in kB (MemTotal
 * and MemFree of its meminfo) and its CPUs (the caller's: pk_cpumap_put). */
typedef struct pk_host_node {
	uint64_t mem_total_kb, mem_free_kb;
	pk_cpumap *cpus;
} pk_host_node;

/* One cache of a CPU (devices/system/cpu/cpu<N>/cache/index<I>) as the
 * kernel spells it: type "Data", "Instruction" or "Unified", size "32K";
 * cpus: the CPUs sharing it (the caller's: pk_cpumap_put). */
typedef struct pk_host_cache {
	uint32_t level, line_size, sets, ways;
	char type[32], size[32];
	pk_cpumap *cpus;
} pk_host_cache;

/* Visitors: a non-zero return stops the walk and is returned. */
typedef int (*pk_host_tid_fn)(void *arg, pid_t tid);
typedef int (*pk_host_map_fn)(void *arg, const pk_host_map *m);
typedef int (*pk_host_block_fn)(void *arg, uint64_t index);

typedef struct pk_host_ops {
	/* A published number; -ENOENT when the kernel has none. */
	int (*number)(const pk_kernel *k, pk_host_num what, int64_t *out);
	/* A CPU set; *out is the caller's. */
	int (*cpus)(const pk_kernel *k, pk_host_cpuset which, pk_cpumap **out);
	/* Where cpu sits; the fields it cannot tell stay -1/NULL. */
	int (*topology)(const pk_kernel *k, int cpu, pk_cpu_topology *out);
	/* The CPU model (of cpu0). */
	int (*cpu)(const pk_kernel *k, pk_host_cpu *out);
	/* uname(2): node name, release, machine. */
	int (*uname)(const pk_kernel *k, struct utsname *out);
	/* Calls fn for each thread of process pid (pid > 0) or for each
	 * process (pid == 0), in no particular order; -ESRCH when pid is gone. */
	int (*tasks)(const pk_kernel *k, pid_t pid, pk_host_tid_fn fn, void *arg);
	/* One task's process and comm; -ESRCH when it is gone. */
	int (*task)(const pk_kernel *k, pid_t tid, pk_host_task *out);
	/* Calls fn for each mapping of process pid, in address order. */
	int (*maps)(const pk_kernel *k, pid_t pid, pk_host_map_fn fn, void *arg);
	/* The kernel text [_text, _etext); *end is 0 when _etext is not
	 * known; -ENOENT when the addresses are hidden (kptr_restrict). */
	int (*kernel_text)(const pk_kernel *k, uint64_t *start, uint64_t *end);
	/* Optional (NULL: the kernel has no tracefs): a tracefs file read
	 * whole, name relative to its root ("events/header_page",
	 * "events/<sys>/<name>/format", "printk_formats", "saved_cmdlines");
	 * *data is NUL-terminated and the caller's (free). -ENOENT when there
	 * is no such file or no tracefs, -EINVAL for a name leaving the root. */
	int (*tracefs_file)(const pk_kernel *k, const char *name, char **data, size_t *len);
	/* Optional (NULL: the kernel publishes no NUMA, cache or memory
	 * facts; each also -ENOENT for a fact it lacks). The online NUMA
	 * nodes as a set of node numbers (*out the caller's). */
	int (*nodes)(const pk_kernel *k, pk_cpumap **out);
	/* One node's memory and CPUs. */
	int (*node)(const pk_kernel *k, int node, pk_host_node *out);
	/* The memory block size in bytes (devices/system/memory/
	 * block_size_bytes), then fn for each memory block of the node
	 * (node<N>/memory<I>: I), in no particular order. */
	int (*mem_blocks)(const pk_kernel *k, int node, uint64_t *block_size,
			  pk_host_block_fn fn, void *arg);
	/* Cache index of cpu; -ENOENT past the last one. */
	int (*cache)(const pk_kernel *k, int cpu, int index, pk_host_cache *out);
	/* The GNU build id of the running kernel (object NULL), of the vDSO
	 * ("[vdso]") or of a loaded module (its name): up to 20 bytes into
	 * id, their number in *len; -ENOENT when not published. */
	int (*build_id)(const pk_kernel *k, const char *object, uint8_t id[20], size_t *len);
	/* What perf's build-id cache keeps of the running kernel (object
	 * NULL: its kallsyms text) or of the vDSO ("[vdso]": its mapped
	 * image, the same in every process): *data (the caller's, free) of
	 * *len bytes; -ENOENT when not published. */
	int (*cache_copy)(const pk_kernel *k, const char *object, char **data, size_t *len);
} pk_host_ops;

/* ---- the table ---- */

typedef struct pk_kernel_ops {
	/* perf_event_open(2); attr points at attr->size bytes. Returns an fd. */
	int (*open)(const pk_kernel *k, const struct perf_event_attr *attr, pid_t pid,
		    int cpu, int group_fd, unsigned long flags);
	/* read(2) on an event fd; returns bytes read. */
	ssize_t (*read)(const pk_kernel *k, int fd, void *buf, size_t len);
	/* ioctl(2): PERF_EVENT_IOC_ENABLE, _DISABLE, _RESET, _SET_OUTPUT, _ID ... */
	int (*ioctl)(const pk_kernel *k, int fd, unsigned long request, unsigned long arg);
	/* mmap(2) of an event fd, shared: the user page and ring buffer at
	 * offset 0, the AUX area at the user page's aux_offset. Returns 0 and
	 * sets *addr. */
	int (*mmap)(const pk_kernel *k, int fd, size_t len, int prot, uint64_t offset,
		    void **addr);
	int (*munmap)(const pk_kernel *k, void *addr, size_t len);
	int (*close)(const pk_kernel *k, int fd);
	/* poll(2) on event fds: POLLIN when a ring has data past its
	 * watermark, POLLHUP when the task followed is gone. Returns the number
	 * of fds with events, 0 on timeout, -EINTR when a signal came. */
	int (*poll)(const pk_kernel *k, struct pollfd *fds, size_t nr, int timeout_ms);
	pk_host_ops host;
	/* Optional (NULL: none): why the last open was refused, in words, when
	 * the kernel keeps a reason beyond the errno (the PMU model's driver
	 * does; Linux does not). Writes a one-line reason into buf and returns
	 * its length, 0 when there is none. */
	size_t (*explain)(const pk_kernel *k, char *buf, size_t len);

	/* Optional, a simulated kernel's (the PMU model's); NULL on Linux,
	 * where the CPU executes RDPMC and RDTSC itself and time is the
	 * machine's. A kernel with `now` is simulated: it is not thread-safe
	 * (its users serialize their calls) and its tasks are its own (tids
	 * from host.tasks, not the process's threads). */
	/* RDPMC as thread tid executes it now: ECX n (generic counter n),
	 * n | 1 << 30 (fixed counter n), 1 << 29 (Intel's PERF_METRICS); *value
	 * the raw counter, 0 for one no event of tid occupies. -EINVAL for a
	 * counter the core lacks (the hardware's #GP, and on Arm), -ESRCH for
	 * a tid it does not run. */
	int (*rdpmc)(const pk_kernel *k, pid_t tid, uint32_t ecx, uint64_t *value);
	/* Its clock, ns since its start: the TSC of its user pages
	 * (time_mult 1, time_shift 0). */
	uint64_t (*now)(const pk_kernel *k);
	/* Runs its time forward to ns since its start, stopping 1 ns before
	 * its last thread ends (the threads stay alive); never backwards. For
	 * the one who owns the kernel. */
	void (*run_to)(const pk_kernel *k, uint64_t ns);
	/* The sysfs root of its PMUs (for pk_pmus_load); NULL entry:
	 * pk_sysfs_root(). */
	const char *(*sysfs_root)(const pk_kernel *k);
	/* What it was made from (the model's scenario file), for reports. */
	const char *(*source)(const pk_kernel *k);
} pk_kernel_ops;

struct pk_kernel {
	const pk_kernel_ops *ops;
	void *ctx;                 /* implementation data */
	const char *name;          /* "linux", "model", "fake" */
};

/* The real kernel. The PMU model is the other implementation
 * (pmukit/model.h). */
const pk_kernel *pk_kernel_linux(void);

/* ---- conveniences over the host facts (k NULL: the real kernel) ---- */

/* The tracefs mount point: override if non-NULL, else $PMUKIT_TRACEFS, else
 * /sys/kernel/tracing, else /sys/kernel/debug/tracing. NULL when none is
 * readable. The result is static or the override itself. This machine's
 * mount: the real kernel's tracefs_file reads under it. */
const char *pk_tracefs_dir(const char *override);

/* The number, or dflt when the kernel does not publish it. */
int64_t pk_host_number(const pk_kernel *k, pk_host_num what, int64_t dflt);
/* The online or present CPUs, with an error naming the fact. */
pk_cpumap *pk_host_cpus(const pk_kernel *k, pk_host_cpuset which, pk_error *err);
/* PMUKIT_CPUID when set and not empty, else perf's PERF_CPUID likewise (an
 * error naming the variable when it is malformed), else the kernel's CPU
 * identification (the cpuid instruction, the MIDR in sysfs, or the PMU
 * model's CPU). Read with secure_getenv: ignored in a privileged process. */
int pk_host_cpuid(const pk_kernel *k, pk_cpuid *out, pk_error *err);
/* A task's comm, or "?" when it is gone; buf has len bytes. */
const char *pk_host_comm(const pk_kernel *k, pid_t tid, char *buf, size_t len);
void pk_cpu_topology_release(pk_cpu_topology *t);

#ifdef __cplusplus
}
#endif
#endif
