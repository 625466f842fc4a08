/* Threads, maps and symbols for perf.data streams. */
#include <pmukit/symbols.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* PERF_CONTEXT_* (include/uapi/linux/perf_event.h) */
#define CTX_HV ((uint64_t)-32)
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)
#define CTX_GUEST ((uint64_t)-2048)
#define CTX_GUEST_KERNEL ((uint64_t)-2176)
#define CTX_GUEST_USER ((uint64_t)-2560)
#define CTX_MAX ((uint64_t)-4095)

/* perf's internal mark on the FORK records it synthesizes for tasks that
 * already ran (tools/perf/util/event.h): the maps are not the parent's. */
#define PK_RECORD_MISC_FORK_EXEC (1 << 13)

typedef struct sym {
	uint64_t start, end;
	const char *name;
	uint32_t idx;                /* load order, for a stable sort */
	uint8_t bind;                /* STB_* (kallsyms: t local, T global, W weak) */
	bool mangled;                /* name still to be demangled (on first use) */
	bool module;                 /* kallsyms: a module's symbol ("\t[name]") */
} sym;

typedef struct seg {
	uint64_t offset, vaddr;
} seg;

typedef struct dso {
	char *name;
	bool loaded, is_kernel;
	sym *syms;
	size_t nr_syms;
	char *strs;                  /* names, one block */
	size_t slen, scap, cap_syms; /* while loading, sym.name is an offset into strs */
	seg *segs;
	size_t nr_segs;
	char **dnames;               /* demangled names, owned */
	size_t nr_dnames, cap_dnames;
	char build_id[41];           /* as recorded, hex; "" when unknown */
	struct dso *next;            /* hash chain */
} dso;

typedef struct map {
	uint64_t start, end, pgoff;
	dso *dso;
} map;

typedef struct mapgroup {
	map *maps;
	size_t nr, cap;
	size_t last;
	int refs;
	uint64_t version;            /* bumped by every change, for the lookup cache */
} mapgroup;

typedef struct thread {
	uint32_t tid, pid;
	char *comm;
	mapgroup *mg;                /* the process's maps (shared by its threads) */
	struct thread *next;
} thread;

#define THREAD_HASH 4096
#define DSO_HASH 1024

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
	thread *threads[THREAD_HASH];
	dso *dsos[DSO_HASH];
	dso *kernel;                 /* [kernel.kallsyms], symbols from kallsyms */
	mapgroup kmaps;
	char commbuf[32];
	thread *last_thread;
};

/* ---- symbol tables ---- */

static int sym_cmp(const void *a, const void *b)
{
	const sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* The name perf shows: C++ names demangled, once per symbol. When the
 * demangler is missing or fails, the mangled name stays. */
static const char *sym_name(dso *d, sym *s)
{
	if (!s->mangled)
		return s->name;
	s->mangled = false;
	if (d->nr_dnames == d->cap_dnames) {
		size_t cap = d->cap_dnames ? d->cap_dnames * 2 : 64;
		char **n = realloc(d->dnames, cap * sizeof(*n));
		if (!n)
			return s->name;
		d->dnames = n;
		d->cap_dnames = cap;
	}
	/* "name@plt": perf demangles the name, then adds "@plt" */
	size_t n = strlen(s->name);
	bool plt = n > 4 && !strcmp(s->name + n - 4, "@plt");
	char *dn = NULL;
	if (plt) {
		char *cut = strndup(s->name, n - 4);
		char *dc = cut ? pk_demangle(cut) : NULL;
		size_t dl = dc ? strlen(dc) : 0;
		if (dc && (dn = malloc(dl + 5)))
			memcpy(dn, dc, dl), memcpy(dn + dl, "@plt", 5);
		free(dc);
		free(cut);
	} else {
		dn = pk_demangle(s->name);
	}
	if (dn) {
		d->dnames[d->nr_dnames++] = dn;
		s->name = dn;
	}
	return s->name;
}

/* Of two ELF symbols at one address, the one perf shows: sized over unsized,
 * non-weak over weak, global over local, fewer leading underscores, longer
 * name (the names as shown, demangled). */
static bool sym_better(dso *d, sym *a, sym *b)
{
	/* kallsyms has no sizes: the last alias, the only one that reaches
	 * the next symbol, wins (seen: __pi_memcpy over memcpy) */
	bool as = a->end > a->start, bs = b->end > b->start;
	if (as != bs)
		return as;
	bool wa = a->bind == STB_WEAK, wb = b->bind == STB_WEAK;
	if (wa != wb)
		return !wa;
	bool ga = a->bind == STB_GLOBAL, gb = b->bind == STB_GLOBAL;
	if (ga != gb)
		return ga;
	const char *na = sym_name(d, a), *nb = sym_name(d, b);
	size_t ua = leading_underscores(na), ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub;
	size_t la = strlen(na), lb = strlen(nb);
	if (la != lb)
		return la > lb;
	return a->idx < b->idx; /* a full tie: the one listed first */
}

/* The end given to a last unsized symbol: the end of its page + 4 KiB. */
static uint64_t page_after(uint64_t addr)
{
	return ((addr + 4095) & ~4095ULL) + 4096;
}

/* Sorts, gives unsized symbols the room up to the next one (the last one,
 * and the last of the kernel before its modules, to page_after()), and
 * keeps one symbol per address. */
static void syms_finish(dso *d)
{
	for (size_t i = 0; i < d->nr_syms; i++) {
		sym *s = &d->syms[i];
		s->name = d->strs + (uintptr_t)s->name;
		/* perf demangles ELF symbols, never the kernel's */
		s->mangled = !d->is_kernel && pk_is_mangled(s->name);
	}
	if (!d->nr_syms)
		return;
	/* kallsyms comes sorted already, ELF tables often nearly so */
	bool sorted = true;
	for (size_t i = 1; i < d->nr_syms && sorted; i++)
		sorted = d->syms[i - 1].start <= d->syms[i].start;
	if (!sorted)
		qsort(d->syms, d->nr_syms, sizeof(sym), sym_cmp);
	/* Sizes first, then aliases, in perf's order: of unsized aliases at
	 * one address only the last one reaches the next symbol and so counts
	 * as sized when the aliases are compared. */
	size_t n = d->nr_syms;
	for (size_t i = 0; i + 1 < n; i++) {
		sym *s = &d->syms[i];
		if (s->end == s->start)
			s->end = s->module == s[1].module ? s[1].start : page_after(s->start);
	}
	sym *last = &d->syms[n - 1];
	if (last->end == last->start)
		last->end = page_after(last->start);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		if (out && d->syms[out - 1].start == d->syms[i].start) {
			if (!sym_better(d, &d->syms[out - 1], &d->syms[i]))
				d->syms[out - 1] = d->syms[i];
			continue;
		}
		d->syms[out++] = d->syms[i];
	}
	d->nr_syms = out;
}

/* Number of elements whose start (their first field) is <= addr, in an
 * array sorted by start: syms and maps share this search. */
static size_t count_le(const void *base, size_t n, size_t stride, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t start;
		memcpy(&start, (const char *)base + mid * stride, sizeof(start));
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static sym *sym_find(const dso *d, uint64_t addr)
{
	size_t lo = count_le(d->syms, d->nr_syms, sizeof(sym), addr);
	if (!lo)
		return NULL;
	sym *s = &d->syms[lo - 1];
	return addr < s->end ? s : NULL;
}

/* Appends a symbol; names stay offsets until syms_finish(). */
/* Room for nsyms more symbols with nstr more bytes of names: one
 * allocation for a whole table instead of a doubling series of copies. */
static bool syms_reserve(dso *d, size_t nsyms, size_t nstr)
{
	if (d->nr_syms + nsyms > d->cap_syms) {
		size_t cap = d->cap_syms ? d->cap_syms * 2 : 1024;
		while (cap < d->nr_syms + nsyms)
			cap *= 2;
		sym *ns = realloc(d->syms, cap * sizeof(sym));
		if (!ns)
			return false;
		d->syms = ns;
		d->cap_syms = cap;
	}
	if (d->slen + nstr > d->scap) {
		size_t cap = d->scap ? d->scap * 2 : 65536;
		while (cap < d->slen + nstr)
			cap *= 2;
		char *nsb = realloc(d->strs, cap);
		if (!nsb)
			return false;
		d->strs = nsb;
		d->scap = cap;
	}
	return true;
}

static bool add_sym(dso *d, uint64_t start, uint64_t end, const char *name, size_t nl, uint8_t bind)
{
	if (!syms_reserve(d, 1, nl + 1))
		return false;
	memcpy(d->strs + d->slen, name, nl);
	d->strs[d->slen + nl] = 0;
	sym *o = &d->syms[d->nr_syms++];
	o->start = start;
	o->end = end;
	o->name = (const char *)(uintptr_t)d->slen;
	o->bind = bind;
	o->mangled = false;
	o->module = false;
	o->idx = (uint32_t)(d->nr_syms - 1);
	d->slen += nl + 1;
	return true;
}

static int load_kallsyms(dso *d, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	/* /proc/kallsyms costs per read: fewer, larger ones */
	setvbuf(f, NULL, _IOFBF, (size_t)1 << 18);
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		char *end;
		uint64_t addr = strtoull(line, &end, 16);
		if (end == line || *end != ' ')
			continue;
		char type = end[1];
		if (end[2] != ' ')
			continue;
		/* code and data, as perf loads them (data symbols bound the
		 * code symbols before them) */
		char T = (char)(type & ~0x20);
		if (T != 'T' && T != 'W' && T != 'D' && T != 'B')
			continue;
		char *name = end + 3;
		size_t nl = strcspn(name, "\t\n");
		/* kptr_restrict shows every address as 0: no usable symbols */
		if (!nl || addr == 0)
			continue;
		uint8_t bind = type == 'W' ? STB_WEAK : T == type ? STB_GLOBAL : STB_LOCAL;
		if (!add_sym(d, addr, addr, name, nl, bind))
			break;
		d->syms[d->nr_syms - 1].module = name[nl] == '\t';
	}
	fclose(f);
	syms_finish(d);
	return 0;
}

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
	size_t n = sh.sh_size / sh.sh_entsize;
	GElf_Shdr str_sh;
	Elf_Scn *str_scn = elf_getscn(e, sh.sh_link);
	syms_reserve(d, n, str_scn && gelf_getshdr(str_scn, &str_sh) ? (size_t)str_sh.sh_size : 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE || !s.st_name)
			continue;
		if (type == STT_NOTYPE) {
			/* assembly labels in code count, as perf counts them */
			GElf_Shdr tsh;
			Elf_Scn *ts = elf_getscn(e, s.st_shndx);
			if (!ts || !gelf_getshdr(ts, &tsh) || !(tsh.sh_flags & SHF_EXECINSTR))
				continue;
		} else if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT) {
			continue;
		}
		const char *name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (!add_sym(d, s.st_value, s.st_value + s.st_size, name, strlen(name),
			     (uint8_t)GELF_ST_BIND(s.st_info)))
			break;
	}
}

/* Whether a symbol loaded so far covers addr once unsized symbols reach
 * to the next one (perf's sizing). */
static bool covered(const dso *d, uint64_t addr)
{
	const sym *best = NULL;
	uint64_t next = UINT64_MAX;
	for (size_t i = 0; i < d->nr_syms; i++) {
		const sym *s = &d->syms[i];
		if (s->start <= addr && (!best || s->start > best->start || s->end > best->end))
			best = s;
	}
	if (!best)
		return false;
	if (best->end > best->start)
		return addr < best->end;
	for (size_t i = 0; i < d->nr_syms; i++)
		if (d->syms[i].start > best->start && d->syms[i].start < next)
			next = d->syms[i].start;
	return addr < next;
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
	if (!rdata || !sdata || !gelf_getshdr(dsym, &dsh))
		return;
	uint64_t entsize = plt_sh.sh_entsize ? plt_sh.sh_entsize : 16;
	uint64_t addr = plt_sh.sh_addr + (plt_sec ? 0 : entsize);
	size_t n = rela_sh.sh_size / rela_sh.sh_entsize;
	/* perf adds the PLT symbols after sizing the others: a symbol grown
	 * over the PLT (an unsized _init before it) still answers for the
	 * first slot in perf's lookup (seen on every binary tried), the
	 * later slots get their own names */
	bool first_shadowed = covered(d, addr);
	for (size_t i = 0; i < n; i++, addr += entsize) {
		if (i == 0 && first_shadowed)
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
		if (!add_sym(d, addr, addr + entsize, buf, strlen(buf), STB_GLOBAL))
			break;
	}
}

/* The vdso is the same in every process of this kernel: read ours. */
static void load_vdso(dso *d)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	char line[512];
	uint64_t start = 0, end = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[vdso]")) {
			sscanf(line, "%lx-%lx", (unsigned long *)&start, (unsigned long *)&end);
			break;
		}
	}
	fclose(f);
	if (!start || end <= start)
		return;
	size_t len = (size_t)(end - start);
	char *copy = malloc(len);
	if (!copy)
		return;
	memcpy(copy, (const void *)(uintptr_t)start, len);
	Elf *e = elf_memory(copy, len);
	if (e) {
		load_elf_segs(d, e);
		load_elf_syms(d, e, true);
		syms_finish(d);
		elf_end(e);
	}
	free(copy);
}

/* The GNU build id of an ELF file, as hex; false when it has none. */
static bool elf_build_id(Elf *e, char *hex, size_t hexlen)
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
	if (elf_build_id(bin, hex, sizeof(hex)) && strlen(hex) > 2) {
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

/* <dir>/.build-id/<first two hex digits>/<the rest>/elf */
static bool buildid_cache_path(const pk_machine *m, const char *hex, char *path, size_t size)
{
	const char *dir = m->opts.buildid_dir;
	char home[2048];
	if (!dir) {
		dir = getenv("PERF_BUILDID_DIR");
		if (!dir || !*dir) {
			const char *h = getenv("HOME");
			if (!h || !*h)
				return false;
			snprintf(home, sizeof(home), "%s/.debug", h);
			dir = home;
		}
	}
	if (!*dir || strlen(hex) < 3)
		return false;
	int n = snprintf(path, size, "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	return n > 0 && (size_t)n < size;
}

static void dso_load(pk_machine *m, dso *d)
{
	d->loaded = true;
	if (m->opts.no_symbols)
		return;
	if (!strcmp(d->name, "[vdso]")) {
		load_vdso(d);
		return;
	}
	if (d->name[0] != '/')
		return;
	int fd = open(d->name, O_RDONLY | O_CLOEXEC);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	char hex[128];
	if (d->build_id[0] && !(e && elf_build_id(e, hex, sizeof(hex)) && !strcmp(hex, d->build_id))) {
		/* gone, or rebuilt since: the copy perf record cached */
		char path[4096];
		if (buildid_cache_path(m, d->build_id, path, sizeof(path))) {
			int cfd = open(path, O_RDONLY | O_CLOEXEC);
			if (cfd >= 0) {
				if (e)
					elf_end(e);
				if (fd >= 0)
					close(fd);
				fd = cfd;
				e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
			}
		}
	}
	if (fd < 0)
		return;
	if (e && elf_kind(e) == ELF_K_ELF) {
		load_elf_segs(d, e);
		if (!load_debug_file(d, e))
			load_elf_syms(d, e, true);
		/* perf adds PLT symbols only to a table it found symbols in
		 * (not to a program that only imports) */
		if (d->nr_syms)
			load_plt_syms(d, e);
		syms_finish(d);
	}
	if (e)
		elf_end(e);
	close(fd);
}

static size_t str_hash(const char *s)
{
	size_t h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static dso *dso_get(pk_machine *m, const char *name)
{
	size_t h = str_hash(name) % DSO_HASH;
	for (dso *d = m->dsos[h]; d; d = d->next)
		if (!strcmp(d->name, name))
			return d;
	dso *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->name = strdup(name);
	if (!d->name) {
		free(d);
		return NULL;
	}
	d->next = m->dsos[h];
	m->dsos[h] = d;
	return d;
}

static void dso_free(dso *d)
{
	free(d->name);
	free(d->syms);
	free(d->strs);
	free(d->segs);
	for (size_t i = 0; i < d->nr_dnames; i++)
		free(d->dnames[i]);
	free(d->dnames);
	free(d);
}

/* ---- maps ---- */

static mapgroup *mg_new(void)
{
	mapgroup *g = calloc(1, sizeof(*g));
	if (g)
		g->refs = 1;
	return g;
}

static void mg_put(mapgroup *g)
{
	if (g && --g->refs == 0) {
		free(g->maps);
		free(g);
	}
}

static mapgroup *mg_clone(const mapgroup *src)
{
	mapgroup *g = mg_new();
	if (!g || !src || !src->nr)
		return g;
	g->maps = malloc(src->nr * sizeof(map));
	if (!g->maps) {
		free(g);
		return NULL;
	}
	memcpy(g->maps, src->maps, src->nr * sizeof(map));
	g->nr = g->cap = src->nr;
	return g;
}

/* Inserts [start, end): what it overlaps is cut away, as a new mmap over an
 * old range replaces it. */
static int mg_insert(pk_machine *m, mapgroup *g, map nm)
{
	g->version = m->next_version++;
	size_t i = 0;
	while (i < g->nr && g->maps[i].end <= nm.start)
		i++;
	/* pieces of overlapped maps that stay */
	map left = {0}, right = {0};
	bool has_left = false, has_right = false;
	size_t j = i;
	while (j < g->nr && g->maps[j].start < nm.end) {
		map *o = &g->maps[j];
		if (o->start < nm.start) {
			left = *o;
			left.end = nm.start;
			has_left = true;
		}
		if (o->end > nm.end) {
			right = *o;
			right.pgoff += nm.end - o->start;
			right.start = nm.end;
			has_right = true;
		}
		j++;
	}
	size_t add = 1 + has_left + has_right;
	size_t removed = j - i;
	size_t nr = g->nr - removed + add;
	if (nr > g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		while (cap < nr)
			cap *= 2;
		map *nmaps = realloc(g->maps, cap * sizeof(map));
		if (!nmaps)
			return -ENOMEM;
		g->maps = nmaps;
		g->cap = cap;
	}
	memmove(g->maps + i + add, g->maps + j, (g->nr - j) * sizeof(map));
	size_t k = i;
	if (has_left)
		g->maps[k++] = left;
	g->maps[k++] = nm;
	if (has_right)
		g->maps[k++] = right;
	g->nr = nr;
	g->last = 0;
	return 0;
}

static const map *mg_find(mapgroup *g, uint64_t addr)
{
	if (!g || !g->nr)
		return NULL;
	if (g->last < g->nr && addr >= g->maps[g->last].start && addr < g->maps[g->last].end)
		return &g->maps[g->last];
	size_t lo = count_le(g->maps, g->nr, sizeof(map), addr);
	if (!lo || addr >= g->maps[lo - 1].end)
		return NULL;
	g->last = lo - 1;
	return &g->maps[lo - 1];
}

/* ---- threads ---- */

static thread *thread_find(pk_machine *m, uint32_t tid)
{
	if (m->last_thread && m->last_thread->tid == tid)
		return m->last_thread;
	for (thread *t = m->threads[tid % THREAD_HASH]; t; t = t->next)
		if (t->tid == tid)
			return m->last_thread = t;
	return NULL;
}

static thread *thread_new(pk_machine *m, uint32_t pid, uint32_t tid)
{
	thread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = pid;
	t->next = m->threads[tid % THREAD_HASH];
	m->threads[tid % THREAD_HASH] = t;
	return t;
}

/* The map group of process pid: the leader's, created on first use. */
static mapgroup *process_maps(pk_machine *m, uint32_t pid)
{
	thread *leader = thread_find(m, pid);
	if (!leader)
		leader = thread_new(m, pid, pid);
	if (!leader)
		return NULL;
	if (!leader->mg) {
		leader->mg = mg_new();
		if (leader->mg)
			leader->mg->version = m->next_version++;
	}
	return leader->mg;
}

static thread *thread_get(pk_machine *m, uint32_t pid, uint32_t tid)
{
	thread *t = thread_find(m, tid);
	if (!t)
		t = thread_new(m, pid, tid);
	if (t && t->pid != pid && pid != (uint32_t)-1)
		t->pid = pid;
	return t;
}

pk_machine *pk_machine_new(const pk_machine_opts *opts)
{
	pk_machine *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	if (opts)
		m->opts = *opts;
	elf_version(EV_CURRENT);
	m->kernel = dso_get(m, "[kernel.kallsyms]");
	if (!m->kernel) {
		free(m);
		return NULL;
	}
	m->kernel->is_kernel = true;
	m->cache = calloc(LOC_CACHE, sizeof(loc_entry));
	m->next_version = 1;
	m->kmaps.version = m->next_version++;
	return m;
}

void pk_machine_free(pk_machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < THREAD_HASH; i++) {
		thread *t = m->threads[i];
		while (t) {
			thread *n = t->next;
			free(t->comm);
			mg_put(t->mg);
			free(t);
			t = n;
		}
	}
	for (size_t i = 0; i < DSO_HASH; i++) {
		dso *d = m->dsos[i];
		while (d) {
			dso *n = d->next;
			dso_free(d);
			d = n;
		}
	}
	free(m->kmaps.maps);
	free(m->cache);
	free(m);
}

static int on_comm(pk_machine *m, const pk_pd_event *ev)
{
	pk_pd_rec_comm c;
	if (pk_pd_rec_comm_parse(ev, &c, NULL) < 0)
		return 0;
	thread *t = thread_get(m, c.pid, c.tid);
	if (!t)
		return -ENOMEM;
	char *s = strdup(c.comm);
	if (!s)
		return -ENOMEM;
	free(t->comm);
	t->comm = s;
	return 0;
}

static int on_fork(pk_machine *m, const pk_pd_event *ev)
{
	pk_pd_rec_fork f;
	if (pk_pd_rec_fork_parse(ev, &f, NULL) < 0)
		return 0;
	if (ev->type == PERF_RECORD_EXIT)
		return 0; /* samples may still follow; keep the thread */
	thread *parent = thread_find(m, f.ptid);
	char *comm = parent && parent->comm ? strdup(parent->comm) : NULL;
	thread *t = thread_find(m, f.tid);
	if (!t)
		t = thread_new(m, f.pid, f.tid);
	if (!t) {
		free(comm);
		return -ENOMEM;
	}
	t->pid = f.pid;
	if (comm) {
		free(t->comm);
		t->comm = comm;
	}
	if (f.pid != f.ppid && f.tid == f.pid) {
		/* a new process starts with a copy of its parent's maps; not
		 * one perf synthesized for a running task (FORK_EXEC flag):
		 * its own maps follow */
		thread *pl = thread_find(m, f.ppid);
		bool clone = !(ev->misc & PK_RECORD_MISC_FORK_EXEC);
		mapgroup *g = mg_clone(pl && clone ? pl->mg : NULL);
		if (!g)
			return -ENOMEM;
		g->version = m->next_version++; /* a fresh key for the lookup cache */
		mg_put(t->mg);
		t->mg = g;
	}
	return 0;
}

static int on_mmap(pk_machine *m, const pk_pd_event *ev)
{
	pk_pd_rec_mmap r;
	if (pk_pd_rec_mmap_parse(ev, &r, NULL) < 0 || !r.len)
		return 0;
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL || r.pid == (uint32_t)-1;
	if (kernel) {
		/* "[kernel.kallsyms]_text" and modules: symbols come from
		 * kallsyms, addresses are used as they are */
		dso *d = strncmp(r.filename, "[kernel.kallsyms]", 17) ? dso_get(m, r.filename) : m->kernel;
		if (!d)
			return -ENOMEM;
		if (d == m->kernel || r.filename[0] == '[')
			d->is_kernel = true;
		map nm = {r.addr, r.addr + r.len, r.addr, d};
		if (nm.end < nm.start)
			nm.end = UINT64_MAX;
		return mg_insert(m, &m->kmaps, nm);
	}
	mapgroup *g = process_maps(m, r.pid);
	if (!g)
		return -ENOMEM;
	dso *d = dso_get(m, r.filename);
	if (!d)
		return -ENOMEM;
	map nm = {r.addr, r.addr + r.len, r.pgoff, d};
	if (nm.end < nm.start)
		return 0;
	return mg_insert(m, g, nm);
}

/* An entry of the host's user space (pid -1: perf's id of the host
 * machine; other pids are guests). */
static int add_build_id(void *arg, const pk_pd_rec_build_id *b)
{
	unsigned mode = b->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (b->pid != (uint32_t)-1 ||
	    (mode != PERF_RECORD_MISC_USER && mode != PERF_RECORD_MISC_GUEST_USER))
		return 0;
	return pk_machine_set_build_id(arg, b->filename, b->id, b->id_len);
}

int pk_machine_event(pk_machine *m, const pk_pd_event *ev)
{
	switch (ev->type) {
	case PERF_RECORD_COMM:
		return on_comm(m, ev);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return on_fork(m, ev);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mmap(m, ev);
	case PK_RECORD_HEADER_BUILD_ID: {
		pk_pd_rec_build_id b;
		if (pk_pd_build_id_parse(ev->data, ev->size, false, &b) < 0)
			return 0;
		return add_build_id(m, &b);
	}
	default:
		return 0;
	}
}

int pk_machine_set_build_id(pk_machine *m, const char *filename, const uint8_t *id, size_t len)
{
	/* kernel and vdso symbols come from the running system */
	if (filename[0] != '/' || !len || len > 20)
		return 0;
	dso *d = dso_get(m, filename);
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		snprintf(d->build_id + i * 2, 3, "%02x", id[i]);
	return 0;
}


int pk_machine_read_build_ids(pk_machine *m, pk_pd_reader *r, pk_error *err)
{
	if (!pk_pd_has_feature(r, PK_FEAT_BUILD_ID))
		return 0;
	int rc = pk_pd_build_ids(r, add_build_id, m, err);
	if (rc == -ENOMEM)
		return pk_err(err, rc, "out of memory");
	return rc;
}

const char *pk_machine_comm(pk_machine *m, uint32_t pid, uint32_t tid)
{
	if (tid == (uint32_t)-1)
		return ":-1"; /* samples without a task, as perf shows them */
	thread *t = thread_find(m, tid);
	if (t && t->comm)
		return t->comm;
	if (tid == 0)
		return "swapper"; /* the idle task, as perf names it */
	if (!t && tid != pid) {
		/* a thread we never heard of: its process's name, as perf does */
		thread *l = thread_find(m, pid);
		if (l && l->comm)
			return l->comm;
	}
	snprintf(m->commbuf, sizeof(m->commbuf), ":%d", (int)tid);
	return m->commbuf;
}

/* Once kallsyms is loaded, perf's kernel map reaches the end of the last
 * kernel symbol (init text and data after _etext), never into a module's
 * map. Only addresses looked up from then on see the larger map. */
static void kernel_map_extend(pk_machine *m)
{
	const dso *k = m->kernel;
	uint64_t end = 0;
	for (size_t i = k->nr_syms; i > 0; i--)
		if (!k->syms[i - 1].module) {
			end = k->syms[i - 1].end;
			break;
		}
	mapgroup *g = &m->kmaps;
	for (size_t i = 0; i < g->nr; i++) {
		map *mp = &g->maps[i];
		uint64_t limit = i + 1 < g->nr ? g->maps[i + 1].start : UINT64_MAX;
		if (mp->dso != m->kernel || end <= mp->end)
			continue;
		mp->end = end < limit ? end : limit;
		g->version = m->next_version++;
	}
}

static void resolve_kernel(pk_machine *m, uint64_t addr, pk_addr_loc *loc)
{
	const map *mp = mg_find(&m->kmaps, addr);
	/* An address no kernel map holds is unknown, as perf shows it (a kernel
	 * callchain can run on into user addresses without a context marker;
	 * a file without the kernel MMAP has no kernel symbols at all). */
	if (!mp)
		return;
	loc->kernel = true;
	dso *d = mp->dso;
	if (!d->is_kernel)
		d = m->kernel;
	loc->dso = d->name;
	loc->has_map = true;
	loc->dso_addr = addr;
	if (!m->kernel->loaded) {
		m->kernel->loaded = true;
		if (!m->opts.no_symbols && !(m->opts.kallsyms && !m->opts.kallsyms[0])) {
			load_kallsyms(m->kernel, m->opts.kallsyms ? m->opts.kallsyms : "/proc/kallsyms");
			kernel_map_extend(m);
		}
	}
	const sym *s = sym_find(m->kernel, addr);
	if (s) {
		loc->sym = s->name; /* kernel names are never demangled */
		loc->sym_start = s->start;
		loc->symoff = addr - s->start;
	}
}

static void resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
		    pk_addr_loc *loc);

static bool kernel_mode(unsigned cpumode)
{
	return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	       cpumode == PERF_RECORD_MISC_HYPERVISOR;
}

/* The maps a lookup uses: the kernel's, or the process's. */
static const mapgroup *lookup_maps(pk_machine *m, uint32_t pid, unsigned cpumode)
{
	if (kernel_mode(cpumode))
		return &m->kmaps;
	thread *leader = thread_find(m, pid);
	return leader ? leader->mg : NULL;
}

uint64_t pk_machine_maps_version(pk_machine *m, uint32_t pid, unsigned cpumode)
{
	const mapgroup *g = lookup_maps(m, pid, cpumode);
	return g ? g->version : 0;
}

const pk_addr_loc *pk_machine_lookup(pk_machine *m, uint32_t pid, unsigned cpumode,
				     uint64_t addr)
{
	/* the cache key is the map group and its version: a change to one
	 * process's maps leaves the others' cached lookups valid */
	const mapgroup *g = lookup_maps(m, pid, cpumode);
	loc_entry *c = &m->scratch;
	if (m->cache && g) {
		uint64_t h = (addr ^ (uint64_t)(uintptr_t)g) * 0x9e3779b97f4a7c15ULL;
		c = &m->cache[(h >> 40) % LOC_CACHE];
		if (c->mg == g && c->version == g->version && c->addr == addr &&
		    c->cpumode == cpumode)
			return &c->loc;
	}
	pk_addr_loc *loc = &c->loc;
	resolve(m, pid, cpumode, addr, loc);
	loc->sym_len = loc->sym ? strlen(loc->sym) : 0;
	loc->dso_len = strlen(loc->dso);
	c->mg = g;
	c->version = g ? g->version : 0;
	c->addr = addr;
	c->cpumode = cpumode;
	if (c == &m->scratch)
		c->mg = NULL; /* never a hit */
	return loc;
}

void pk_machine_resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
			pk_addr_loc *loc)
{
	*loc = *pk_machine_lookup(m, pid, cpumode, addr);
}

/* The link-time address of file offset off. perf keeps ELF symbols at
 * their file offsets (value - section address + section offset) and looks
 * offsets up, so every offset from a segment's start on, even past its
 * file part (.bss) or its memory, goes by that segment's placement. */
static uint64_t seg_vaddr(const dso *d, uint64_t off)
{
	const seg *best = NULL;
	for (size_t i = 0; i < d->nr_segs; i++) {
		const seg *sg = &d->segs[i];
		if (sg->offset <= off && (!best || sg->offset >= best->offset))
			best = sg;
	}
	return best ? off - best->offset + best->vaddr : off;
}

static void resolve(pk_machine *m, uint32_t pid, unsigned cpumode, uint64_t addr,
		    pk_addr_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->dso = "[unknown]";
	if (kernel_mode(cpumode)) {
		resolve_kernel(m, addr, loc);
		return;
	}
	thread *leader = thread_find(m, pid);
	const map *mp = leader ? mg_find(leader->mg, addr) : NULL;
	if (!mp)
		return;
	dso *d = mp->dso;
	loc->has_map = true;
	loc->dso = d->name;
	if (!d->loaded)
		dso_load(m, d);
	uint64_t off = addr - mp->start + mp->pgoff;
	uint64_t vaddr = seg_vaddr(d, off);
	loc->dso_addr = off;
	sym *s = sym_find(d, vaddr);
	if (s) {
		loc->sym = sym_name(d, s);
		loc->sym_start = s->start;
		loc->symoff = vaddr - s->start;
	}
}

int pk_callchain_context(uint64_t ip, unsigned *cpumode)
{
	if (ip < CTX_MAX)
		return 0;
	switch (ip) {
	case CTX_HV: *cpumode = PERF_RECORD_MISC_HYPERVISOR; break;
	case CTX_KERNEL: *cpumode = PERF_RECORD_MISC_KERNEL; break;
	case CTX_USER: *cpumode = PERF_RECORD_MISC_USER; break;
	case CTX_GUEST: *cpumode = PERF_RECORD_MISC_GUEST_KERNEL; break;
	case CTX_GUEST_KERNEL: *cpumode = PERF_RECORD_MISC_GUEST_KERNEL; break;
	case CTX_GUEST_USER: *cpumode = PERF_RECORD_MISC_GUEST_USER; break;
	default: return -1;
	}
	return 1;
}
