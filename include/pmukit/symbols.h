/* pmukit: symbolization of perf.data addresses.
 *
 * A pk_machine follows the task records of a perf.data stream (COMM, FORK,
 * EXIT, MMAP, MMAP2), keeps each process's memory maps, and resolves an
 * address to dso and symbol: ELF .symtab (else .dynsym) through libelf,
 * cached per dso, and kernel addresses through /proc/kallsyms when readable. */
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
} pk_machine_opts;

pk_machine *pk_machine_new(const pk_machine_opts *opts);
void pk_machine_free(pk_machine *m);

/* Feeds one record; records other than COMM, FORK, EXIT, MMAP, MMAP2 are
 * ignored. Returns 0 or -ENOMEM. */
int pk_machine_event(pk_machine *m, const pk_pd_event *ev);

/* The thread's current command name, or ":<tid>" when unknown (perf's form).
 * Valid until the next call into m. */
const char *pk_machine_comm(pk_machine *m, uint32_t pid, uint32_t tid);

typedef struct pk_addr_loc {
	const char *dso;             /* "[kernel.kallsyms]", a path, "[unknown]" */
	const char *sym;             /* NULL when not found */
	uint64_t sym_start;          /* in the dso's address space */
	uint64_t symoff;             /* address - symbol start */
	uint64_t dso_addr;           /* the address inside the dso (perf's map_ip) */
	bool kernel;
	bool has_map;
	size_t sym_len, dso_len;     /* strlen of sym (0 when NULL) and dso */
} pk_addr_loc;

/* cpumode: PERF_RECORD_MISC_KERNEL / _USER / ... (header.misc & 7). */
void pk_machine_resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
			pk_addr_loc *loc);

/* The same, answered from the lookup cache without a copy: the result is
 * valid until the next call into m. */
const pk_addr_loc *pk_machine_lookup(pk_machine *m, uint32_t pid, unsigned cpumode,
				     uint64_t addr);

/* Callchain context markers (PERF_CONTEXT_*): 0 for an address, 1 for a
 * marker (*cpumode gets the new mode), -1 for a value in the marker range
 * that is none of them (perf then drops the whole chain as corrupt). */
int pk_callchain_context(uint64_t ip, unsigned *cpumode);

/* perf script's default --max-stack: entries printed per chain. */
#define PK_MAX_STACK 127

#ifdef __cplusplus
}
#endif
#endif
