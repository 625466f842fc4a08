/* Source lines of addresses: the DWARF line table of a dso, through
 * libdw's Dwfl, as perf 6.1 shows them (its addr2line run on the file the
 * dso's symbols came from).
 *
 * Each dso opens its Dwfl once, on the first question (the file as the
 * symbols were read: the path recorded, else perf's build-id cache copy;
 * its debug file found by libdw as perf finds it, by build id under
 * /usr/lib/debug or by debuglink), and keeps it until the machine is freed;
 * the names handed out point into it. An address is looked up at its
 * link-time address. The answer, as addr2line gives it:
 *   - the line table's row for the address (the innermost inlined line):
 *     its file's base name and line;
 *   - else, when the function holding the address is a local symbol listed
 *     after a FILE symbol, that file with line 0 (addr2line's answer from
 *     the symbol table: "src.c:0");
 *   - else, when a compilation unit's ranges hold the address but its line
 *     table has no row for it (assembly in glibc), an empty name, line 0
 *     (addr2line prints ":?", perf ":0");
 *   - else, when a function of the symbol table (.symtab, else .dynsym)
 *     holds it, nothing known ("??:0" in perf's words);
 *   - else no answer, as for dsos that are no ELF file.
 * Dsos that are no ELF file (the kernel, the vdso, anonymous or JIT
 * memory, a file gone) have no answer at all: callers print perf's
 * fallback forms for them. */
#include "sy_internal.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

Dwfl_Module *pki_sy_dso_module(pk_machine *m, dso *d)
{
	if (d->dwfl_tried)
		return d->dwfl_mod;
	d->dwfl_tried = true;
	if (d->name[0] != '/' || d->is_kernel || pki_sy_is_perfmap(d->name))
		return NULL;
	Elf *e;
	int fd = pki_sy_open_recorded(m, d, &e);
	if (fd < 0)
		return NULL;
	bool elf = e && elf_kind(e) == ELF_K_ELF;
	if (e)
		elf_end(e);
	Dwfl *dw = elf ? dwfl_begin(&offline_callbacks) : NULL;
	if (!dw) {
		close(fd);
		return NULL;
	}
	/* at link-time addresses (base 0); the Dwfl takes fd */
	Dwfl_Module *mod = dwfl_report_elf(dw, d->name, d->name, fd, 0, true);
	dwfl_report_end(dw, NULL, NULL);
	if (!mod) {
		dwfl_end(dw);
		return NULL;
	}
	d->dwfl = dw;
	d->dwfl_mod = mod;
	return mod;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int func_cmp(const void *a, const void *b)
{
	const src_func *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx; /* the first listed wins */
}

/* d's functions of the symbol table (.symtab, else .dynsym), sorted by
 * start, each with the FILE symbol listed before it when it is local
 * (globals come after the last FILE, an empty one, as linkers lay them
 * out). Built on the first address without a line. */
static void load_funcs(dso *d)
{
	d->funcs_tried = true;
	int n = dwfl_module_getsymtab(d->dwfl_mod);
	if (n <= 1 || !(d->funcs = calloc((size_t)n, sizeof(src_func))))
		return;
	const char *file = NULL;
	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr val;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(d->dwfl_mod, i, &s, &val, &shndx, &elf, NULL);
		if (!name)
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		GElf_Shdr sh;
		Elf_Scn *scn = type == STT_FUNC && shndx != SHN_UNDEF ? elf_getscn(elf, shndx) : NULL;
		if (type == STT_FILE)
			file = *name ? name : NULL;
		else if (scn && gelf_getshdr(scn, &sh) && sh.sh_flags & SHF_ALLOC)
			d->funcs[d->nr_funcs++] = (src_func){val, (uint32_t)i,
				GELF_ST_BIND(s.st_info) == STB_LOCAL ? file : NULL,
				sh.sh_addr + sh.sh_size};
	}
	qsort(d->funcs, d->nr_funcs, sizeof(src_func), func_cmp);
}

/* The file of the function nearest at or below addr in its section,
 * whatever its size, as addr2line picks it; *func: whether there is one. Of functions at
 * one address the last listed answers. */
static const char *symtab_file(dso *d, uint64_t addr, bool *func)
{
	if (!d->funcs_tried)
		load_funcs(d);
	size_t k = pki_sy_count_le(d->funcs, d->nr_funcs, sizeof(src_func), addr);
	/* in the address's section only (none below it there: a PLT slot) */
	*func = k > 0 && addr < d->funcs[k - 1].sec_end;
	return *func ? d->funcs[k - 1].file : NULL;
}

/* The file addr2line (binutils 2.40, which perf 6.1 runs) names for a row:
 * the row's file, except that in a DWARF 5 table whose primary file
 * (entry 0) is not listed again (gcc lists it again in ordinary units),
 * it takes file 1 for that primary file. Seen: glibc's handle_amd, defined
 * in dl-cacheinfo.h, shown in dl-get-cpu-features.c, and
 * __libc_start_call_main of libc_start_call_main.h in libc-start.c; and
 * not for Python's thread.c, which lists itself again, whose
 * thread_pthread.h rows keep their file. */
static const char *addr2line_file(Dwarf_Line *dl, Dwarf_Die *cu, const char *src)
{
	Dwarf_Files *files;
	size_t idx, n;
	Dwarf_Half version;
	if (!dl || !cu || dwarf_line_file(dl, &files, &idx) || idx != 1 ||
	    dwarf_cu_info(cu->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL) || version < 5 ||
	    dwarf_getsrcfiles(cu, &files, &n))
		return src;
	const char *primary = dwarf_filesrc(files, 0, NULL, NULL);
	if (!primary)
		return src;
	for (size_t i = 2; i < n; i++) {
		const char *f = dwarf_filesrc(files, i, NULL, NULL);
		if (f && !strcmp(f, primary))
			return src;
	}
	return primary;
}

Dwarf_Die *pki_sy_unit_of(Dwfl_Module *mod, uint64_t addr, uint64_t *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);
	Dwarf_Addr b;
	Dwarf *dw = cu ? NULL : dwfl_module_getdwarf(mod, &b);
	Dwarf_Aranges *ar;
	size_t n;
	if (!dw || dwarf_getaranges(dw, &ar, &n) || n > 0)
		return cu;
	for (cu = dwfl_module_nextcu(mod, NULL, bias); cu; cu = dwfl_module_nextcu(mod, cu, bias))
		if (dwarf_haspc(cu, addr - *bias) > 0)
			return cu;
	return NULL;
}

/* Whether a compilation unit's ranges hold vaddr. libdw's lookup of the
 * unit by address answers from the units' overall spans when the file has
 * no .debug_aranges, so an address between two ranges of a unit (crt1's
 * _start between main and the unit's other functions) gets that unit: its
 * own ranges decide. */
static bool unit_holds(Dwfl_Module *mod, uint64_t vaddr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = pki_sy_unit_of(mod, vaddr, &bias);
	return cu && dwarf_haspc(cu, vaddr - bias) > 0;
}

int pki_sy_dso_srcline(pk_machine *m, dso *d, uint64_t vaddr, const char **file,
		       unsigned *line)
{
	*file = NULL;
	*line = 0;
	Dwfl_Module *mod = pki_sy_dso_module(m, d);
	if (!mod)
		return -1;
	Dwfl_Line *l = dwfl_module_getsrc(mod, vaddr);
	Dwarf_Addr bias;
	Dwarf_Die *cu = l ? dwfl_linecu(l) : pki_sy_unit_of(mod, vaddr, &bias);
	Dwarf_Line *dl = l ? dwfl_dwarf_line(l, &bias) : cu ? dwarf_getsrc_die(cu, vaddr - bias) : NULL;
	int lineno = 0;
	const char *src = dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
	if (src) {
		dwarf_lineno(dl, &lineno);
		src = addr2line_file(dl, cu, src);
		*file = base_name(src);
		*line = lineno > 0 ? (unsigned)lineno : 0;
		return 1;
	}
	bool func;
	src = symtab_file(d, vaddr, &func);
	if (!src && unit_holds(mod, vaddr))
		src = ""; /* a unit holds it, its table has no row: addr2line's ":?" */
	if (!src)
		return func ? 0 : -1; /* addr2line's "??:?" and "??:0" */
	*file = base_name(src);
	return 1;
}

void pki_sy_dso_srcline_free(dso *d)
{
	free(d->funcs);
	d->funcs = NULL;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->dwfl_mod = NULL;
}
