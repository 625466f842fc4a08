/* Symbols and segments from ELF files, through libelf.
 *
 * A dso's symbols come from its .symtab, else its .dynsym, or from a
 * separate debug file (/usr/lib/debug) when one has a .symtab, as perf
 * prefers; perf's synthesized "name@plt" symbols are added on the PLT slots.
 * The program headers (PT_LOAD segments) always come from the binary
 * itself: they turn a file offset into a link-time address (pki_sy_seg_vaddr).
 * The vdso is read from this process's own memory: it is the same in every
 * process of a kernel. */
#include "sy_internal.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pmukit/kernel.h>

static void load_elf_segs(dso *d, Elf *e)
{
	size_t nph = 0;
	if (elf_getphdrnum(e, &nph) == 0 && nph) {
		d->segs = calloc(nph, sizeof(seg));
		for (size_t i = 0; d->segs && i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			d->segs[d->nr_segs++] = (seg){ph.p_offset, ph.p_vaddr};
		}
	}
}

/* The entries of type t that a section's data holds: counted from the
 * bytes libelf read, never from the header's sh_size, which a damaged
 * file may make anything (a table of 2^40 symbols was asked for); a
 * NOBITS section has a size but no bytes. */
static size_t elf_entries(Elf *e, const Elf_Data *data, Elf_Type t)
{
	size_t one = gelf_fsize(e, t, 1, EV_CURRENT);
	return one && data->d_buf ? data->d_size / one : 0;
}

/* Whether a label (STT_NOTYPE) in section shndx counts, as perf counts
 * them: in code, or in a section named "*data*" (_edata in .data: perf
 * names an address by it, and prefers it to an object there with more
 * leading underscores). */
static bool label_counts(Elf *e, size_t shndx)
{
	GElf_Shdr tsh;
	Elf_Scn *ts = elf_getscn(e, shndx);
	size_t shstr;
	if (!ts || !gelf_getshdr(ts, &tsh))
		return false;
	if (tsh.sh_flags & SHF_EXECINSTR)
		return true;
	const char *name = elf_getshdrstrndx(e, &shstr) ? NULL : elf_strptr(e, shstr, tsh.sh_name);
	return name && strstr(name, "data");
}

/* Whether section shndx is loaded (SHF_ALLOC): symbols of other
 * sections have no address in the running program. */
static bool sec_alloc(Elf *e, size_t shndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(e, shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC);
}

/* .symtab, else .dynsym (allow_dynsym) */
static void load_elf_syms(dso *d, Elf *e, bool allow_dynsym)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	scn = symtab ? symtab : allow_dynsym ? dynsym : NULL;
	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data)
		return;
	size_t n = elf_entries(e, data, ELF_T_SYM);
	Elf_Scn *str_scn = elf_getscn(e, sh.sh_link);
	Elf_Data *str = str_scn ? elf_getdata(str_scn, NULL) : NULL;
	pki_sy_syms_reserve(d, n, str && str->d_buf ? str->d_size : 0); /* NOBITS: no bytes */
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE || !s.st_name)
			continue;
		if (type == STT_NOTYPE ? !label_counts(e, s.st_shndx)
				       : type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
			continue;
		if (!sec_alloc(e, s.st_shndx)) /* glibc's .gnu.warning.* objects: perf skips them */
			continue;
		const char *name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (!pki_sy_add_sym(d, s.st_value, s.st_value + s.st_size, name, strlen(name),
			     (uint8_t)GELF_ST_BIND(s.st_info)))
			break;
	}
}

/* perf's synthesized "name@plt" symbols: one per .rela.plt entry, on the
 * PLT slots in order (after the 16-byte PLT header, or on .plt.sec). */
static void load_plt_syms(dso *d, Elf *e)
{
	Elf_Scn *scn = NULL, *plt = NULL, *plt_sec = NULL, *rela = NULL;
	GElf_Shdr sh, plt_sh, rela_sh;
	size_t shstr;
	if (elf_getshdrstrndx(e, &shstr) < 0)
		return;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *nm = elf_strptr(e, shstr, sh.sh_name);
		if (!nm)
			continue;
		if (!strcmp(nm, ".plt"))
			plt = scn;
		else if (!strcmp(nm, ".plt.sec"))
			plt_sec = scn;
		else if (!strcmp(nm, ".rela.plt") || !strcmp(nm, ".rel.plt"))
			rela = scn;
	}
	if (!rela || !(plt_sec ? plt_sec : plt))
		return;
	if (!gelf_getshdr(plt_sec ? plt_sec : plt, &plt_sh) || !gelf_getshdr(rela, &rela_sh) ||
	    !rela_sh.sh_entsize)
		return;
	Elf_Scn *dsym = elf_getscn(e, rela_sh.sh_link);
	GElf_Shdr dsh;
	Elf_Data *rdata = elf_getdata(rela, NULL);
	Elf_Data *sdata = dsym ? elf_getdata(dsym, NULL) : NULL;
	/* the relocations name their functions in a symbol table; a static
	 * binary's IRELATIVE ones link none (sh_link 0): perf synthesizes no
	 * PLT symbols there and the symbol before the PLT grows over it */
	if (!rdata || !sdata || !gelf_getshdr(dsym, &dsh) ||
	    (dsh.sh_type != SHT_DYNSYM && dsh.sh_type != SHT_SYMTAB))
		return;
	uint64_t entsize = plt_sh.sh_entsize ? plt_sh.sh_entsize : 16;
	uint64_t addr = plt_sh.sh_addr + (plt_sec ? 0 : entsize);
	size_t n = elf_entries(e, rdata, rela_sh.sh_type == SHT_REL ? ELF_T_REL : ELF_T_RELA);
	/* perf adds the PLT symbols after sizing the others: a symbol grown
	 * over the PLT (an unsized _init before it) answers for the slots
	 * its tree node shadows (plt_shadow.c); those are kept aside */
	int32_t *owner = malloc((n ? n : 1) * sizeof(*owner));
	if (!owner || !pki_sy_plt_owners(d, addr, entsize, n, owner) ||
	    !pki_sy_plt_shadows(d, addr, entsize, n, owner)) {
		free(owner);
		return;
	}
	for (size_t i = 0; i < n; i++, addr += entsize) {
		if (owner[i] >= 0)
			continue;
		uint64_t info;
		if (rela_sh.sh_type == SHT_RELA) {
			GElf_Rela r;
			if (!gelf_getrela(rdata, (int)i, &r))
				continue;
			info = r.r_info;
		} else {
			GElf_Rel r;
			if (!gelf_getrel(rdata, (int)i, &r))
				continue;
			info = r.r_info;
		}
		const char *name = "";
		GElf_Sym s;
		if (GELF_R_SYM(info) && gelf_getsym(sdata, (int)GELF_R_SYM(info), &s))
			name = elf_strptr(e, dsh.sh_link, s.st_name);
		char buf[512];
		snprintf(buf, sizeof(buf), "%s@plt", name ? name : "");
		if (!pki_sy_add_sym(d, addr, addr + entsize, buf, strlen(buf), STB_GLOBAL))
			break;
	}
	free(owner);
}

/* A copy of this host's vdso image (the same in every process of this
 * kernel), *len its size; NULL when there is none. */
static char *host_vdso(size_t *len)
{
	const pk_kernel *k = pk_kernel_linux();
	char *copy = NULL;
	return k->ops->host.cache_copy(k, "[vdso]", &copy, len) == 0 ? copy : NULL;
}

/* The vdso is the same in every process of this kernel: read ours
 * (unless the recording is of another architecture). */
void pki_sy_load_vdso(const pk_machine *m, dso *d)
{
	size_t len;
	char *copy = host_vdso(&len);
	Elf *e = copy ? elf_memory(copy, len) : NULL;
	if (e && pki_sy_elf_arch_ok(m, e)) {
		load_elf_segs(d, e);
		load_elf_syms(d, e, true);
		pki_sy_syms_finish(d);
	}
	if (e)
		elf_end(e);
	free(copy);
}

int pki_sy_vdso_fd(const dso *d)
{
	size_t len;
	char *copy = host_vdso(&len), hex[128];
	Elf *e = copy ? elf_memory(copy, len) : NULL;
	/* no build id recorded: perf takes this host's */
	bool same = e && (!d->build_id[0] ||
			  (pki_sy_elf_build_id(e, hex, sizeof(hex)) && !strcmp(hex, d->build_id)));
	if (e)
		elf_end(e);
	int fd = same ? memfd_create("vdso", MFD_CLOEXEC) : -1;
	if (fd >= 0 && write(fd, copy, len) != (ssize_t)len) {
		close(fd);
		fd = -1;
	}
	free(copy);
	return fd;
}

/* The GNU build id of an ELF file, as hex; false when it has none. */
bool pki_sy_elf_build_id(Elf *e, char *hex, size_t hexlen)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
				continue;
			const uint8_t *id = (const uint8_t *)data->d_buf + desc_off;
			if (nh.n_descsz * 2 + 1 > hexlen)
				return false;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(hex + i * 2, 3, "%02x", id[i]);
			return true;
		}
	}
	return false;
}

static bool has_symtab(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size)
			return true;
	return false;
}

/* Symbols from a separate debug file when there is one (by build id under
 * /usr/lib/debug/.build-id, or /usr/lib/debug/<path>.debug), as perf
 * prefers them; the program headers always come from the binary itself. */
static bool load_debug_file(dso *d, Elf *bin)
{
	char hex[128], path[4096];
	const char *cands[3];
	int n = 0;
	char p1[4200], p2[4200];
	if (pki_sy_elf_build_id(bin, hex, sizeof(hex)) && strlen(hex) > 2) {
		snprintf(p1, sizeof(p1), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		cands[n++] = p1;
	}
	snprintf(p2, sizeof(p2), "/usr/lib/debug%s.debug", d->name);
	cands[n++] = p2;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s", cands[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		bool ok = e && elf_kind(e) == ELF_K_ELF && has_symtab(e);
		if (ok)
			load_elf_syms(d, e, false);
		if (e)
			elf_end(e);
		close(fd);
		if (ok && d->nr_syms)
			return true;
	}
	return false;
}


/* Segments and symbols of the ELF file e for d, and the table closed. */
void pki_sy_elf_load(dso *d, Elf *e)
{
	load_elf_segs(d, e);
	if (!load_debug_file(d, e))
		load_elf_syms(d, e, true);
	/* perf adds PLT symbols only to a table it found symbols in
	 * (not to a program that only imports) */
	if (d->nr_syms)
		load_plt_syms(d, e);
	pki_sy_syms_finish(d);
}

/* The segment that places x, a file offset (or a link-time address,
 * by_vaddr): the one starting last at or below it. */
static const seg *seg_of(const dso *d, uint64_t x, bool by_vaddr)
{
	const seg *best = NULL;
	for (size_t i = 0; i < d->nr_segs; i++) {
		const seg *sg = &d->segs[i];
		uint64_t start = by_vaddr ? sg->vaddr : sg->offset;
		if (start <= x && (!best || start >= (by_vaddr ? best->vaddr : best->offset)))
			best = sg;
	}
	return best;
}

/* The link-time address of file offset off. perf keeps ELF symbols at
 * their file offsets (value - section address + section offset) and looks
 * offsets up, so every offset from a segment's start on, even past its
 * file part (.bss) or its memory, goes by that segment's placement. */
uint64_t pki_sy_seg_vaddr(const dso *d, uint64_t off)
{
	const seg *sg = seg_of(d, off, false);
	return sg ? off - sg->offset + sg->vaddr : off;
}

uint64_t pki_sy_seg_offset(const dso *d, uint64_t vaddr)
{
	const seg *sg = seg_of(d, vaddr, true);
	return sg ? vaddr - sg->vaddr + sg->offset : vaddr;
}

/* The ELF machine types a recording's ARCH runs (uname -m; a 64-bit
 * kernel runs its 32-bit binaries too); 0 ends the list, an empty list
 * is an architecture this table does not know. */
static void arch_machines(const char *arch, uint16_t em[3])
{
	static const struct {
		const char *prefix;
		uint16_t em[2];
	} table[] = {
		{"x86_64", {EM_X86_64, EM_386}}, {"amd64", {EM_X86_64, EM_386}},
		{"i386", {EM_386, 0}}, {"i486", {EM_386, 0}}, {"i586", {EM_386, 0}},
		{"i686", {EM_386, 0}}, {"aarch64", {EM_AARCH64, EM_ARM}},
		{"arm64", {EM_AARCH64, EM_ARM}}, {"arm", {EM_ARM, 0}},
		{"ppc64", {EM_PPC64, EM_PPC}}, {"ppc", {EM_PPC, 0}}, {"s390", {EM_S390, 0}},
		{"mips", {EM_MIPS, 0}}, {"riscv", {EM_RISCV, 0}}, {"sparc", {EM_SPARCV9, EM_SPARC}},
	};
	em[0] = em[1] = em[2] = 0;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strncmp(arch, table[i].prefix, strlen(table[i].prefix))) {
			em[0] = table[i].em[0];
			em[1] = table[i].em[1];
			return;
		}
}

bool pki_sy_elf_arch_ok(const pk_machine *m, Elf *e)
{
	uint16_t em[3];
	arch_machines(m->arch, em);
	GElf_Ehdr eh;
	if (!em[0] || !gelf_getehdr(e, &eh))
		return true; /* an architecture not known here: as perf, unchecked */
	return eh.e_machine == em[0] || (em[1] && eh.e_machine == em[1]);
}

bool pki_sy_arch_is_host(const pk_machine *m)
{
	struct utsname u;
	uint16_t file[3], host[3];
	arch_machines(m->arch, file);
	if (!file[0] || uname(&u) < 0)
		return true; /* not known here: as perf, unchecked */
	arch_machines(u.machine, host);
	return file[0] == host[0];
}

bool pk_machine_arch_is_host(const pk_machine *m)
{
	return pki_sy_arch_is_host(m);
}

void pki_sy_set_arch(pk_machine *m, const uint8_t *raw, size_t len)
{
	/* perf's string: a u32 length, then the text, NUL padded */
	size_t n = 0;
	while (4 + n < len && n + 1 < sizeof(m->arch) && raw[4 + n])
		n++;
	if (n)
		memcpy(m->arch, raw + 4, n);
	m->arch[n] = '\0';
}
