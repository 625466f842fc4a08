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
 * registers of each architecture are the library's one table (core/regs.h). */
#include "sy_internal.h"

#include "core/regs.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UW_NREGS PKI_REGS_DWARF

/* The register table of an architecture (core/regs.h); NULL name: the host's. */
static const pk_regs_arch *arch_for(const char *name)
{
	return name ? pk_regs_for(name) : pk_regs_host();
}

/* Registers of one frame, DWARF numbering: values and which are known. */
typedef struct uw_regs {
	Dwarf_Word v[UW_NREGS];
	uint64_t set;
} uw_regs;

/* One process's Dwfl, and the sample being unwound in it. */
typedef struct uw_proc {
	Dwfl *dwfl;
	uint64_t version;            /* the map group version it was built from; 0: free */
	bool attached;
	const pk_pd_sample *smp;
	const pk_regs_arch *arch;
	uint64_t mask;
	uint64_t *ips;
	size_t nr, max;
	/* a walk starts from init at init_pc; resumed: its first frame is the
	 * last one of the walk before (shown already) */
	uw_regs init;
	Dwarf_Addr init_pc;
	bool resumed, first, ended;  /* ended: the walk stopped here, not in libdw */
	/* the last frame seen (its PC as libdw looks it up), and the latest
	 * value of each preserved register along the chain */
	uw_regs last, carry;
	Dwarf_Addr last_pc;
	/* cfi_kind's answers by address (return addresses repeat from sample
	 * to sample): addr + 1, 0 for an empty slot */
	struct { uint64_t key; uint8_t kind; } memo[256];
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

/* The sample's registers as the first walk's start; false without a PC
 * or SP. */
static bool sample_regs(uw_proc *p)
{
	uint64_t v;
	if (!sample_reg(p, p->arch->pc_bit, &p->init_pc) || !sample_reg(p, p->arch->sp_bit, &v))
		return false;
	p->init.set = 0;
	for (size_t i = 0; i < p->arch->nr; i++) {
		const pki_reg *r = &p->arch->regs[i];
		if (r->dwarf >= 0 && sample_reg(p, r->bit, &v)) {
			p->init.v[r->dwarf] = v;
			p->init.set |= 1ULL << r->dwarf;
		}
	}
	return true;
}

static bool set_initial_registers(Dwfl_Thread *th, void *arg)
{
	uw_proc *p = arg;
	for (int i = 0; i < UW_NREGS; i++)
		if ((p->init.set >> i & 1) && !dwfl_thread_state_registers(th, i, 1, &p->init.v[i]))
			return false;
	dwfl_thread_state_register_pc(th, p->init_pc);
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
	uint64_t pgoff = pki_sy_map_pgoff(mp);
	const seg *best = NULL;
	for (size_t i = 0; i < d->nr_segs; i++)
		if ((d->segs[i].offset & ~(uint64_t)0xfff) <= pgoff &&
		    (!best || d->segs[i].offset >= best->offset))
			best = &d->segs[i];
	uint64_t delta = best ? best->vaddr - best->offset : 0;
	return mp->start - pgoff - delta;
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
 * (--symfs, the build-id cache), the vdso from this host's image when
 * pki_sy_host_vdso says so; false when none opens. */
static bool report_dso(pk_machine *m, Dwfl *dwfl, dso *d, const map *mp)
{
	if (!d->loaded)
		pki_sy_dso_load(m, d);
	if (!strcmp(d->name, "[vdso]") && pki_sy_host_vdso(m, d)) {
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

/* The CFI row of addr: the first of its file's .eh_frame and .debug_frame
 * that covers it (the caller frees it); NULL when none does. *any: whether
 * the file has CFI at all. */
static Dwarf_Frame *cfi_frame(Dwfl *dwfl, Dwarf_Addr addr, bool *any)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	*any = false;
	for (int i = 0; mod && i < 2; i++) {
		Dwarf_Addr bias;
		Dwarf_CFI *cfi = i ? dwfl_module_dwarf_cfi(mod, &bias) : dwfl_module_eh_cfi(mod, &bias);
		Dwarf_Frame *fr;
		*any |= cfi != NULL;
		if (cfi && dwarf_cfi_addrframe(cfi, addr - bias, &fr) == 0)
			return fr;
	}
	return NULL;
}

enum { UW_NO_CFI = 1, UW_NO_FDE, UW_FDE };

/* UW_FDE when CFI covers addr, UW_NO_FDE when its file has CFI that does
 * not, else UW_NO_CFI (memoized: return addresses repeat from sample to
 * sample). */
static int cfi_kind(uw_proc *p, Dwarf_Addr addr)
{
	size_t h = (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 56);
	if (p->memo[h].key != addr + 1) {
		bool any;
		Dwarf_Frame *fr = cfi_frame(p->dwfl, addr, &any);
		p->memo[h].key = addr + 1;
		p->memo[h].kind = fr ? UW_FDE : any ? UW_NO_FDE : UW_NO_CFI;
		free(fr);
	}
	return p->memo[h].kind;
}

/* The DWARF registers the CFA rule of addr reads (DW_OP_breg, bregx). */
static uint64_t cfa_regs(uw_proc *p, Dwarf_Addr addr)
{
	bool any;
	Dwarf_Frame *fr = cfi_frame(p->dwfl, addr, &any);
	Dwarf_Op *ops;
	size_t nops;
	uint64_t regs = 0;
	if (fr && dwarf_frame_cfa(fr, &ops, &nops) == 0)
		for (size_t i = 0; i < nops; i++) {
			uint64_t r = ops[i].atom == DW_OP_bregx ? ops[i].number
				     : (uint64_t)ops[i].atom - DW_OP_breg0;
			if ((ops[i].atom == DW_OP_bregx || (ops[i].atom >= DW_OP_breg0 &&
							    ops[i].atom <= DW_OP_breg31)) && r < 64)
				regs |= 1ULL << r;
		}
	free(fr);
	return regs;
}

/* The registers libdw knows in the frame at addr into p->last; the
 * preserved ones also into p->carry. */
static void frame_regs(uw_proc *p, Dwfl_Frame *state, Dwarf_Addr addr)
{
	p->last.set = 0;
	p->last_pc = addr;
	for (size_t r = 0; r < p->arch->nr; r++) {
		int i = p->arch->regs[r].dwarf;
		Dwarf_Word v;
		if (i < 0 || dwfl_frame_reg(state, (unsigned)i, &v) != 0)
			continue;
		p->last.v[i] = v;
		p->last.set |= 1ULL << i;
		if (p->arch->callee_saved >> i & 1) {
			p->carry.v[i] = v;
			p->carry.set |= 1ULL << i;
		}
	}
}

/* Whether the walk goes on past the frame at addr, as perf's (libunwind)
 * does: CFI covers addr; else, in a file with CFI, through the frame
 * pointer when it looks like one (nonzero, at most 16 KiB above the
 * frame's stack pointer, the word it points at readable: libdw then
 * follows it). Code in no file, or in a file without CFI, ends the chain
 * (libdw would follow frame pointers there, and in a --call-graph dwarf
 * program they are often none). */
static bool caller_known(uw_proc *p, Dwarf_Addr addr)
{
	int kind = cfi_kind(p, addr);
	if (kind != UW_NO_FDE)
		return kind == UW_FDE;
	const pk_regs_arch *a = p->arch;
	uint64_t need = 1ULL << a->fp | 1ULL << a->sp;
	Dwarf_Word fp = p->last.v[a->fp], sp = p->last.v[a->sp], w;
	return (p->last.set & need) == need && fp && fp >= sp && fp - sp <= 0x4000 &&
	       memory_read(p->dwfl, fp, &w, p);
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	uw_proc *p = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a caller's frame: the call instruction, as perf shows it */
	uint64_t at = activation ? pc : pc - 1;
	bool shown = p->first && p->resumed;
	p->first = false;
	frame_regs(p, state, at);
	if (!shown && p->nr == p->max) {
		p->ended = true;
		return DWARF_CB_ABORT;
	}
	if (!shown)
		p->ips[p->nr++] = at;
	if (caller_known(p, at))
		return DWARF_CB_OK;
	p->ended = true;
	return DWARF_CB_ABORT;
}

/* Whether libdw ended the walk at the last frame for want of a preserved
 * register its CFA reads (elfutils 0.188's x86_64 defaults leave rbx
 * undefined in a frame whose CFI does not name it, where the psABI and
 * libunwind keep the caller's value: ld.so's _dl_runtime_resolve finds its
 * caller through rbx). If so the next walk starts at that frame with the
 * register's value from the frames before. */
static bool resume(uw_proc *p)
{
	if (p->ended)
		return false;
	uint64_t lost = cfa_regs(p, p->last_pc) & ~p->last.set & p->carry.set &
			p->arch->callee_saved;
	if (!lost)
		return false;
	p->init = p->last;
	for (int i = 0; i < UW_NREGS; i++)
		if (lost >> i & 1)
			p->init.v[i] = p->carry.v[i];
	p->init.set |= lost;
	p->init_pc = p->last_pc;
	p->resumed = true;
	return true;
}

/* The frames of p's sample into p->ips: libdw's walks from the sample's
 * registers, resumed where it lost a register (each resumption shows a
 * new frame, so this ends). */
static void walk(uw_proc *p)
{
	p->resumed = false;
	p->carry.set = 0;
	if (!sample_regs(p))
		return;
	size_t before;
	do {
		before = p->nr;
		p->first = true;
		p->ended = false;
		dwfl_getthread_frames(p->dwfl, (pid_t)p->smp->tid, on_frame, p);
	} while (p->nr > before && resume(p));
}

int pk_machine_unwind(pk_machine *m, const pk_pd_sample *smp, uint64_t regs_mask,
		      const char *arch, uint64_t *ips, size_t max, pk_error *err)
{
	const pk_regs_arch *a = arch_for(arch);
	int rc0 = pk_pd_sample_check(smp, err);
	if (rc0 < 0)
		return rc0;
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
	walk(p);
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
	Dwarf_Die *cu = mod ? pki_sy_unit_of(mod, addr, &bias) : NULL;
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
