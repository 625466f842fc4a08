/* Unwinding the user stacks of `--call-graph dwarf` samples (libdw).
 *
 * Such a sample carries the user registers at the sample (REGS_USER, the
 * registers of sample_regs_user in bit order) and a copy of the user stack
 * from the stack pointer up (STACK_USER, dyn_size bytes of it valid). The
 * call chain comes from the DWARF CFI (.eh_frame, .debug_frame) of the
 * files the process had mapped: a Dwfl per process holds one module per
 * mapped ELF at its load bias, and libdw's unwinder walks the frames
 * through our callbacks: the initial registers from the sample, memory
 * from the stack copy, else from the mapped file's bytes.
 *
 * Invariants: nothing here trusts the sample: a register not in the mask,
 * a stack copy shorter than its header says (the parser checked the
 * bytes are in the record), an address outside the copy and every file,
 * all end the walk, and the sample's own IP is the first address whenever
 * the registers have it. As perf: a process none of whose mapped files
 * opens as ELF (the binaries of a file recorded elsewhere are missing, and
 * its vdso is not this host's) gives no frames at all: nothing is
 * invented. Files are opened as the symbols' are (--symfs, the build-id
 * cache).
 * A Dwfl is kept per map group version (versions are unique across
 * processes and change with every map change), a few at a time. The
 * register numbering of each architecture is one table. */
#include "sy_internal.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* DWARF register i of an architecture from perf's sample_regs bit
 * perf_bit[i] (-1: not sampled); the PC goes apart. */
typedef struct uw_arch {
	const char *names[3];        /* uname / perf ARCH spellings */
	int nr_dwarf;
	int8_t perf_bit[32];
	int pc_bit, sp_bit;
} uw_arch;

static const uw_arch arches[] = {
	/* x86_64 psABI: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, 16 = RA (rip) */
	{{"x86_64", NULL, NULL}, 17,
	 {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8}, 8, 7},
	/* AAPCS64: x0..x30, sp as perf numbers them */
	{{"aarch64", "arm64", NULL}, 32,
	 {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
	  16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}, 32, 31},
};

static const uw_arch *arch_for(const char *name)
{
	if (!name) {
#if defined(__aarch64__)
		return &arches[1];
#else
		return &arches[0];
#endif
	}
	for (size_t a = 0; a < sizeof(arches) / sizeof(arches[0]); a++)
		for (int i = 0; i < 3 && arches[a].names[i]; i++)
			if (!strcmp(arches[a].names[i], name))
				return &arches[a];
	return NULL;
}

/* One process's Dwfl, and the sample being unwound in it. */
typedef struct uw_proc {
	Dwfl *dwfl;
	uint64_t version;            /* the map group version it was built from; 0: free */
	bool attached;
	const pk_pd_sample *smp;
	const uw_arch *arch;
	uint64_t mask;
	uint64_t *ips;
	size_t nr, max;
	/* has_cfi's answers by address (return addresses repeat from sample
	 * to sample): addr + 1, 0 for an empty slot */
	struct { uint64_t key; bool cfi; } memo[256];
} uw_proc;

#define UW_CACHE 8

struct pki_sy_unwind {
	uw_proc procs[UW_CACHE];
	size_t next;                 /* the entry replaced next */
	char names[4096];            /* pk_machine_inlines' answer */
	size_t names_len;
};

/* The value of perf register bit; false when the sample lacks it. */
static bool sample_reg(const uw_proc *p, int bit, uint64_t *v)
{
	if (bit < 0 || bit > 63 || !(p->mask >> bit & 1) || !p->smp->user_abi)
		return false;
	size_t idx = (size_t)__builtin_popcountll(p->mask & ((1ULL << bit) - 1));
	if (idx >= p->smp->user_regs_nr)
		return false;
	*v = p->smp->user_regs[idx];
	return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	uw_proc *p = arg;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return (pid_t)p->smp->tid;
}

/* A word from a mapped file: the module's ELF, the load segment holding
 * the address, its file bytes. */
static bool file_word(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr bias;
	Elf *e = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t nph, size;
	const char *raw = e ? elf_rawfile(e, &size) : NULL;
	if (!raw || elf_getphdrnum(e, &nph))
		return false;
	uint64_t va = addr - bias;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || va < ph.p_vaddr ||
		    va - ph.p_vaddr + 8 > ph.p_filesz)
			continue;
		uint64_t off = ph.p_offset + (va - ph.p_vaddr);
		if (off > size || size - off < 8)
			return false;
		memcpy(out, raw + off, 8);
		return true;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	uw_proc *p = arg;
	uint64_t sp, len = p->smp->stack_dyn_size;
	if (len > p->smp->stack_size)
		len = p->smp->stack_size;
	if (sample_reg(p, p->arch->sp_bit, &sp) && addr >= sp && addr - sp < len &&
	    len - (addr - sp) >= 8) {
		memcpy(result, p->smp->stack + (addr - sp), 8);
		return true;
	}
	return file_word(dwfl, addr, result);
}

static bool set_initial_registers(Dwfl_Thread *th, void *arg)
{
	uw_proc *p = arg;
	uint64_t pc, v;
	if (!sample_reg(p, p->arch->pc_bit, &pc) || !sample_reg(p, p->arch->sp_bit, &v))
		return false;
	for (int i = 0; i < p->arch->nr_dwarf; i++) {
		Dwarf_Word w;
		if (sample_reg(p, p->arch->perf_bit[i], &v)) {
			w = v;
			if (!dwfl_thread_state_registers(th, i, 1, &w))
				return false;
		}
	}
	dwfl_thread_state_register_pc(th, pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* The load bias of d mapped at mp: the file offset's distance to its
 * link-time address is the same across the load segment holding it. */
static uint64_t load_bias(const dso *d, const map *mp)
{
	const seg *best = NULL;
	for (size_t i = 0; i < d->nr_segs; i++)
		if ((d->segs[i].offset & ~(uint64_t)0xfff) <= mp->pgoff &&
		    (!best || d->segs[i].offset >= best->offset))
			best = &d->segs[i];
	uint64_t delta = best ? best->vaddr - best->offset : 0;
	return mp->start - mp->pgoff - delta;
}

/* Whether d was reported already (one module per file). */
static bool seen(const mapgroup *g, size_t upto, const dso *d)
{
	for (size_t i = 0; i < upto; i++)
		if (g->maps[i].dso == d)
			return true;
	return false;
}

/* A module for d mapped at mp, from the file its symbols come from
 * (--symfs, the build-id cache), the vdso from this host's image when it
 * is the recorded one (perf reads it so); false when none opens. */
static bool report_dso(pk_machine *m, Dwfl *dwfl, dso *d, const map *mp)
{
	if (!d->loaded)
		pki_sy_dso_load(m, d);
	if (!strcmp(d->name, "[vdso]")) {
		int vfd = pki_sy_vdso_fd(d);
		if (vfd >= 0 && dwfl_report_elf(dwfl, d->name, d->name, vfd, load_bias(d, mp), true))
			return true;
		if (vfd >= 0)
			close(vfd);
		return false;
	}
	Elf *e;
	int fd = pki_sy_open_recorded(m, d, &e);
	char hex[128];
	/* another binary at the recorded path (this host's libc for another
	 * machine's) would unwind into garbage: not used */
	bool other = d->build_id[0] &&
		     !(e && pki_sy_elf_build_id(e, hex, sizeof(hex)) && !strcmp(hex, d->build_id));
	if (e)
		elf_end(e);
	if (fd >= 0 && other)
		close(fd);
	if (fd < 0 || other)
		return false;
	/* the descriptor is the module's from here on, unless it fails */
	if (dwfl_report_elf(dwfl, d->name, d->name, fd, load_bias(d, mp), true))
		return true;
	close(fd);
	return false;
}

/* A Dwfl with a module for each mapped ELF file of g; NULL when none. */
static Dwfl *build_dwfl(pk_machine *m, const mapgroup *g)
{
	Dwfl *dwfl = dwfl_begin(&dwfl_cbs);
	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	size_t nr = 0;
	for (size_t i = 0; i < g->nr; i++) {
		const map *mp = &g->maps[i];
		dso *d = mp->dso;
		if (d && (d->name[0] == '/' || !strcmp(d->name, "[vdso]")) && !seen(g, i, d) &&
		    report_dso(m, dwfl, d, mp))
			nr++;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (!nr) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/* The cached Dwfl of g, built when missing; NULL when it cannot be. */
static uw_proc *proc_for(pk_machine *m, const mapgroup *g, uint32_t pid)
{
	struct pki_sy_unwind *u = m->unwind;
	if (!u && !(u = m->unwind = calloc(1, sizeof(*u))))
		return NULL;
	for (size_t i = 0; i < UW_CACHE; i++)
		if (u->procs[i].version == g->version)
			return u->procs[i].dwfl ? &u->procs[i] : NULL;
	uw_proc *p = &u->procs[u->next];
	u->next = (u->next + 1) % UW_CACHE;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
	p->version = g->version;
	p->dwfl = build_dwfl(m, g);
	if (p->dwfl && dwfl_attach_state(p->dwfl, NULL, (pid_t)pid, &thread_cbs, p))
		p->attached = true;
	return p->dwfl && p->attached ? p : NULL;
}

/* Whether a mapped file's CFI (.eh_frame, .debug_frame) covers addr. */
static bool cfi_lookup(Dwfl *dwfl, Dwarf_Addr addr)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr biases[2] = {0, 0};
	Dwarf_CFI *cfis[2] = {NULL, NULL};
	if (mod) {
		cfis[0] = dwfl_module_eh_cfi(mod, &biases[0]);
		cfis[1] = dwfl_module_dwarf_cfi(mod, &biases[1]);
	}
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *fr;
		if (cfis[i] && dwarf_cfi_addrframe(cfis[i], addr - biases[i], &fr) == 0) {
			free(fr);
			return true;
		}
	}
	return false;
}

static bool has_cfi(uw_proc *p, Dwarf_Addr addr)
{
	size_t h = (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 56);
	if (p->memo[h].key != addr + 1) {
		p->memo[h].key = addr + 1;
		p->memo[h].cfi = cfi_lookup(p->dwfl, addr);
	}
	return p->memo[h].cfi;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	uw_proc *p = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation) || p->nr == p->max)
		return DWARF_CB_ABORT;
	/* a caller's frame: the call instruction, as perf shows it */
	uint64_t at = activation ? pc : pc - 1;
	p->ips[p->nr++] = at;
	/* no caller from a frame without CFI (code in no file, a binary
	 * missing): libdw would follow frame pointers there, perf's walk ends
	 * (and frame pointers in a --call-graph dwarf program are often none) */
	return has_cfi(p, at) ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int pk_machine_unwind(pk_machine *m, const pk_pd_sample *smp, uint64_t regs_mask,
		      const char *arch, uint64_t *ips, size_t max, pk_error *err)
{
	const uw_arch *a = arch_for(arch);
	if (!a)
		return pk_err(err, -ENOTSUP, "no DWARF unwinder for architecture '%s'", arch);
	uw_proc tmp = {.smp = smp, .arch = a, .mask = regs_mask};
	uint64_t ip;
	if (!max)
		return 0;
	if (!sample_reg(&tmp, a->pc_bit, &ip))
		return pk_err(err, -ENODATA,
			      "sample at 0x%" PRIx64 " has no user IP register (user regs mask "
			      "0x%" PRIx64 ", abi %" PRIu64 ")",
			      smp->ip, regs_mask, smp->user_abi);
	if (!smp->stack_size || !smp->stack_dyn_size || !ip)
		return 0; /* no stack copied, no user IP (a task in the kernel): no user
			     frames, as perf */
	mapgroup *g = pki_sy_process_maps(m, smp->pid);
	uw_proc *p = g ? proc_for(m, g, smp->pid) : NULL;
	if (!p) /* perf unwinds nothing there either: no invented frame */
		return pk_err(err, -ENOENT, "no mapped binary of process %" PRIu32 " opens "
			      "(user IP 0x%" PRIx64 "; --symfs?)", smp->pid, ip);
	p->smp = smp;
	p->arch = a;
	p->mask = regs_mask;
	p->ips = ips;
	p->nr = 0;
	p->max = max;
	dwfl_getthread_frames(p->dwfl, (pid_t)smp->tid, on_frame, p);
	if (!p->nr)
		ips[p->nr++] = ip;
	p->smp = NULL;
	return (int)p->nr;
}

/* A function DIE's name as addr2line gives it: the linkage name when
 * there is one (demangled as the symbols are), else DW_AT_name, each
 * through the abstract origin of an inlined or out-of-line instance. */
static const char *die_name(Dwarf_Die *d, char **demangled, bool keep_mangled)
{
	Dwarf_Attribute at;
	const char *n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &at));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &at));
	if (!n)
		return dwarf_diename(d);
	if (!keep_mangled && pk_is_mangled(n) && (*demangled = pk_demangle(n)))
		return *demangled;
	return n;
}

/* Appends name to the name block; false when it is full. */
static bool keep_name(struct pki_sy_unwind *u, const char *name, const char **out)
{
	size_t l = strlen(name) + 1;
	if (l > sizeof(u->names) - u->names_len)
		return false;
	*out = memcpy(u->names + u->names_len, name, l);
	u->names_len += l;
	return true;
}

static bool is_function(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);
	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram;
}

/* The first function DIE of scopes[from..nr) into *out. */
static bool first_function(Dwarf_Die *scopes, int from, int nr, Dwarf_Die *out)
{
	for (int i = from; i < nr; i++)
		if (is_function(&scopes[i])) {
			*out = scopes[i];
			return true;
		}
	return false;
}

/* Of functions that follow each other over the same code (the aliases of
 * an assembler function: __munmap, __GI___munmap, munmap, __GI_munmap),
 * addr2line names the last: so does this. */
static void last_alias(Dwarf_Die *fn, Dwarf_Addr pc)
{
	Dwarf_Die cur = *fn, sib;
	Dwarf_Addr lo, l2;
	if (dwarf_lowpc(fn, &lo))
		return;
	while (dwarf_siblingof(&cur, &sib) == 0 && is_function(&sib) && dwarf_haspc(&sib, pc) == 1 &&
	       !dwarf_lowpc(&sib, &l2) && l2 == lo)
		*fn = cur = sib;
}

int pk_machine_inlines(pk_machine *m, uint32_t pid, uint64_t addr, const char **names,
		       size_t max)
{
	mapgroup *g = pki_sy_process_maps(m, pid);
	uw_proc *p = g ? proc_for(m, g, pid) : NULL;
	if (!p)
		return 0;
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, addr);
	Dwarf_Addr bias;
	Dwarf_Die *cu = mod ? dwfl_module_addrdie(mod, addr, &bias) : NULL;
	Dwarf_Die *scopes = NULL, fn;
	int nr = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	bool more = nr > 0 && first_function(scopes, 0, nr, &fn);
	if (more)
		last_alias(&fn, addr - bias);
	size_t n = 0;
	m->unwind->names_len = 0;
	/* an inlined instance's scopes are those of its abstract origin: the
	 * concrete tree around it gives the function it sits in */
	while (more && n < max) {
		char *dm = NULL;
		const char *name = die_name(&fn, &dm, m->opts.no_demangle);
		bool ok = name && keep_name(m->unwind, name, &names[n]);
		free(dm);
		if (!ok)
			break;
		n++;
		if (dwarf_tag(&fn) == DW_TAG_subprogram)
			break; /* the function the others are inlined into */
		free(scopes);
		scopes = NULL;
		nr = dwarf_getscopes_die(&fn, &scopes);
		more = nr > 1 && first_function(scopes, 1, nr, &fn);
	}
	free(scopes);
	return (int)n;
}

void pki_sy_unwind_free(pk_machine *m)
{
	struct pki_sy_unwind *u = m->unwind;
	if (!u)
		return;
	for (size_t i = 0; i < UW_CACHE; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	free(u);
	m->unwind = NULL;
}
