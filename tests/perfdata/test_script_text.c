/* The text pmukit script prints, against perf 6.1 where it is installed:
 * C++ names (demangled as perf shows them), data_src decoding, the names
 * perf gives attrs without a stored name, raw events' default fields, and
 * symbol resolution corner cases (kernel map after kallsyms, .bss, maps of
 * synthesized FORKs). Hand-made files come from the library's writer, so
 * every case is exact and repeatable. Tests that need perf, g++ or readable
 * kernel addresses skip with a message when those are missing. */
#include "helpers.h"
#include "pd_test.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/datasrc.h>
#include <pmukit/perfdata.h>
#include <pmukit/script.h>
#include <pmukit/symbols.h>

static const char *path_in(const char *name)
{
	static char buf[4][1024];
	static int slot;
	char *b = buf[slot++ & 3];
	snprintf(b, sizeof(buf[0]), "%s/%s", pd_test_dir, name);
	return b;
}

static size_t same_script(const char *file, const char *args)
{
	return pd_test_same_script("", file, args);
}

/* ---- hand-made files ---- */

typedef struct synth {
	pk_pd_writer *w;
	pk_pd_buf b;
	uint64_t sample_type;
	uint64_t time;
} synth;

/* One sample's fields; which are written follows sample_type. */
typedef struct fields {
	uint64_t id, ip, addr, period, weight, data_src, phys_addr, data_page, code_page;
	uint32_t pid, tid, cpu;
	uint16_t ins_lat;
	const uint64_t *chain;
	size_t chain_nr;
} fields;

static void synth_open(synth *s, const char *path, const struct perf_event_attr *attrs,
		       size_t nr)
{
	memset(s, 0, sizeof(*s));
	pk_error err;
	assert_int_equal(pk_pd_writer_open(path, false, &s->w, &err), 0);
	for (size_t i = 0; i < nr; i++) {
		/* with more than one event, each has an id the samples carry */
		uint64_t id = 1000 + i;
		assert_int_equal(pk_pd_writer_add_evsel(s->w, &attrs[i], 0, NULL, nr > 1 ? &id : NULL,
							nr > 1, &err),
				 0);
	}
	assert_int_equal(pk_pd_writer_begin(s->w, &err), 0);
	s->sample_type = attrs[0].sample_type;
	s->time = 1000000;
}

static void rec_begin(synth *s, uint32_t type, uint16_t misc)
{
	s->b.len = 0;
	pk_pd_buf_u32(&s->b, type);
	pk_pd_buf_u16(&s->b, misc);
	pk_pd_buf_u16(&s->b, 0);
}

static void rec_end(synth *s)
{
	assert_false(s->b.oom);
	s->b.data[6] = (uint8_t)s->b.len;
	s->b.data[7] = (uint8_t)(s->b.len >> 8);
	pk_error err;
	assert_int_equal(pk_pd_writer_write(s->w, s->b.data, s->b.len, &err), 0);
}

static void synth_comm(synth *s, uint32_t pid, const char *comm)
{
	rec_begin(s, PERF_RECORD_COMM, 0);
	pk_pd_buf_u32(&s->b, pid);
	pk_pd_buf_u32(&s->b, pid);
	pk_pd_buf_name(&s->b, comm);
	rec_end(s);
}

static void synth_mmap2(synth *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
			const char *file)
{
	rec_begin(s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	pk_pd_buf_u32(&s->b, pid);
	pk_pd_buf_u32(&s->b, pid);
	pk_pd_buf_u64(&s->b, start);
	pk_pd_buf_u64(&s->b, len);
	pk_pd_buf_u64(&s->b, pgoff);
	pk_pd_buf_u32(&s->b, 0); /* maj, min, ino, ino generation */
	pk_pd_buf_u32(&s->b, 0);
	pk_pd_buf_u64(&s->b, 0);
	pk_pd_buf_u64(&s->b, 0);
	pk_pd_buf_u32(&s->b, 5); /* PROT_READ | PROT_EXEC */
	pk_pd_buf_u32(&s->b, 2); /* MAP_PRIVATE */
	pk_pd_buf_name(&s->b, file);
	rec_end(s);
}

static void synth_fork(synth *s, uint32_t pid, uint32_t ppid, uint16_t misc)
{
	rec_begin(s, PERF_RECORD_FORK, misc);
	pk_pd_buf_u32(&s->b, pid);
	pk_pd_buf_u32(&s->b, ppid);
	pk_pd_buf_u32(&s->b, pid);
	pk_pd_buf_u32(&s->b, ppid);
	pk_pd_buf_u64(&s->b, 0);
	rec_end(s);
}

static void synth_sample(synth *s, const fields *f, uint16_t misc)
{
	uint64_t st = s->sample_type;
	rec_begin(s, PERF_RECORD_SAMPLE, misc);
	if (st & PERF_SAMPLE_IDENTIFIER)
		pk_pd_buf_u64(&s->b, f->id);
	if (st & PERF_SAMPLE_IP)
		pk_pd_buf_u64(&s->b, f->ip);
	if (st & PERF_SAMPLE_TID) {
		pk_pd_buf_u32(&s->b, f->pid);
		pk_pd_buf_u32(&s->b, f->tid ? f->tid : f->pid);
	}
	if (st & PERF_SAMPLE_TIME)
		pk_pd_buf_u64(&s->b, s->time += 1000);
	if (st & PERF_SAMPLE_ADDR)
		pk_pd_buf_u64(&s->b, f->addr);
	if (st & PERF_SAMPLE_CPU) {
		pk_pd_buf_u32(&s->b, f->cpu);
		pk_pd_buf_u32(&s->b, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		pk_pd_buf_u64(&s->b, f->period ? f->period : 1000);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		pk_pd_buf_u64(&s->b, f->chain_nr);
		for (size_t i = 0; i < f->chain_nr; i++)
			pk_pd_buf_u64(&s->b, f->chain[i]);
	}
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		pk_pd_buf_u32(&s->b, (uint32_t)f->weight);
		pk_pd_buf_u16(&s->b, f->ins_lat);
		pk_pd_buf_u16(&s->b, 0);
	} else if (st & PERF_SAMPLE_WEIGHT) {
		pk_pd_buf_u64(&s->b, f->weight);
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		pk_pd_buf_u64(&s->b, f->data_src);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		pk_pd_buf_u64(&s->b, f->phys_addr);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		pk_pd_buf_u64(&s->b, f->data_page);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		pk_pd_buf_u64(&s->b, f->code_page);
	rec_end(s);
}

static void synth_close(synth *s)
{
	pk_error err;
	assert_int_equal(pk_pd_writer_close(s->w, &err), 0);
	pk_pd_buf_release(&s->b);
}

static struct perf_event_attr attr_of(uint32_t type, uint64_t config, uint64_t extra)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = type;
	a.config = config;
	a.size = sizeof(a);
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | extra;
	return a;
}

/* A fixed pseudo-random sequence (no libc rand: the same on every system). */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Maps every PT_LOAD segment of an ELF file at base, as the loader would,
 * and calls fn for each function symbol of the table of type sh_type. */
typedef void (*sym_fn)(void *arg, uint64_t addr, uint64_t size);
static bool map_elf(synth *s, uint32_t pid, const char *file, uint64_t base, unsigned sh_type,
		    sym_fn fn, void *arg)
{
	int fd = open(file, O_RDONLY);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph = 0;
	if (!e || elf_getphdrnum(e, &nph) != 0) {
		if (e)
			elf_end(e);
		close(fd);
		return false;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t start = base + (ph.p_vaddr & ~0xfffULL);
		uint64_t end = base + ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL);
		synth_mmap2(s, pid, start, end - start, ph.p_offset & ~0xfffULL, file);
	}
	Elf_Scn *scn = NULL;
	while (fn && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			if (gelf_getsym(d, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
			    sym.st_value && sym.st_shndx != SHN_UNDEF)
				fn(arg, base + sym.st_value, sym.st_size);
		}
	}
	elf_end(e);
	close(fd);
	return true;
}

typedef struct sym_samples {
	synth *s;
	uint32_t pid;
	size_t n;
} sym_samples;

static void sample_at_sym(void *arg, uint64_t addr, uint64_t size)
{
	sym_samples *ss = arg;
	fields f = {.ip = addr + (size > 1), .pid = ss->pid};
	synth_sample(ss->s, &f, PERF_RECORD_MISC_USER);
	ss->n++;
}

/* A file with a sample on every function symbol of file's table. */
static size_t write_symbol_file(const char *out, const char *file, unsigned sh_type)
{
	synth s;
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0);
	synth_open(&s, out, &a, 1);
	synth_comm(&s, 4242, "symtest");
	sym_samples ss = {&s, 4242, 0};
	assert_true(map_elf(&s, 4242, file, 0x7f0000000000ULL, sh_type, sample_at_sym, &ss));
	synth_close(&s);
	return ss.n;
}

/* ---- C++ names ---- */

static void test_demangle_names(void **state)
{
	(void)state;
	assert_null(pk_demangle("main"));
	assert_null(pk_demangle("_GLOBAL__sub_I_main.cpp"));
	if (!pk_demangle_available()) {
		fprintf(stderr, "libstdc++ demangler not loadable: skipping\n");
		skip();
	}
	/* expected: what perf 6.1 prints for these (libiberty, no options) */
	static const char *const cases[][2] = {
		{"_ZN2ns1fEi", "ns::f"},
		{"_ZNK2ns1C2opEl", "ns::C::op"},
		{"_ZN2ns1fEi.constprop.0", "ns::f"},
		{"_ZN2ns1fEi.cold", "ns::f"},
		{"_ZN2ns5twiceIlEET_S1_", "ns::twice<long>"},
		{"_ZNSt6vectorIiSaIiEE17_M_realloc_insertIJRKiEEEvN9__gnu_cxx17__normal_iteratorIPiS1_EEDpOT_",
		 "std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>"},
		{"_ZN2nseqIlEEbRKNS_3BoxIT_EES5_", "ns::operator==<long>"},
		{"_ZStrsIfwSt11char_traitsIwEERSt13basic_istreamIT0_T1_ES6_RSt7complexIT_E",
		 "std::operator>><float, wchar_t, std::char_traits<wchar_t> >"},
		{"_ZNK2ns3BoxIlEltERKS1_", "ns::Box<long>::operator<"},
		{"_ZN2ns3BoxIlEclEl", "ns::Box<long>::operator()"},
		{"_ZNK2ns3BoxIlEcvlEv", "ns::Box<long>::operator long"},
		{"_ZNKSt15__exception_ptr13exception_ptrcvMS0_FvvEEv",
		 "std::__exception_ptr::exception_ptr::operator void (std::__exception_ptr::exception_ptr::*)()"},
		{"_ZN2ns6get_fpEi", "ns::get_fp"},
		{"_ZN2ns1hIiEEPFvdEi", "ns::h<int>"}, /* void (*ns::h<int>(int))(double) */
		{"_ZN2ns7DerivedD2Ev", "ns::Derived::~Derived"},
		{"_ZN12_GLOBAL__N_14Anon4spinEl", "(anonymous namespace)::Anon::spin"},
		{"_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()"},
		{"_ZZN2ns11with_staticElE5cache", "ns::with_static(long)::cache"},
		/* special names keep their parameters, as libiberty prints them */
		{"_ZThn8_N2ns5Multi4workEl", "non-virtual thunk to ns::Multi::work(long)"},
		{"_ZTVN2ns7DerivedE", "vtable for ns::Derived"},
		{"_ZN2ns4sinkE", "ns::sink"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = pk_demangle(cases[i][0]);
		if (!d || strcmp(d, cases[i][1]))
			fprintf(stderr, "%s -> %s (want %s)\n", cases[i][0], d ? d : "(null)",
				cases[i][1]);
		assert_non_null(d);
		assert_string_equal(d, cases[i][1]);
		free(d);
	}
	/* not C++ after all: left alone */
	assert_null(pk_demangle("_Zfoo"));
}

/* Functions of many kinds, each busy for a while so that sampling finds
 * it: templates, operators, lambdas, anonymous namespaces, virtual calls
 * through thunks, a function returning a function pointer. */
static const char cxx_program[] =
	"#include <cstdio>\n#include <cstdlib>\n#include <functional>\n#include <map>\n"
	"#include <string>\n#include <vector>\n#include <algorithm>\n"
	"namespace { struct Anon { long v; __attribute__((noinline)) long spin(long n) {"
	" for (long i = 0; i < n; i++) v = v * 31 + i; return v; } }; }\n"
	"namespace ns {\nvolatile long sink;\n"
	"template <typename T> struct Box { T v;\n"
	" __attribute__((noinline)) T get(int k) const { T s = v; for (int i = 0; i < k; i++) s += (T)i; return s; }\n"
	" template <typename U> __attribute__((noinline)) U conv(U u) { for (int i = 0; i < 20000; i++) sink = sink + (long)u; return u; }\n"
	" __attribute__((noinline)) bool operator<(const Box &o) const { for (int i = 0; i < 20000; i++) sink = sink + 1; return v < o.v; }\n"
	" __attribute__((noinline)) T operator()(T a) { for (int i = 0; i < 20000; i++) sink = sink + (long)a; return a; }\n"
	" __attribute__((noinline)) operator long() const { for (int i = 0; i < 20000; i++) sink = sink + 2; return (long)v; } };\n"
	"template <typename T> __attribute__((noinline)) T twice(T x) { for (int i = 0; i < 100000; i++) sink = sink + (long)x; return x + x; }\n"
	"struct Base { virtual ~Base() {} virtual long work(long n) = 0; };\n"
	"struct Other { virtual long other(long n) { return n; } virtual ~Other() {} };\n"
	"struct Multi : Other, Base { __attribute__((noinline)) long work(long n) override {"
	" long s = 0; for (long i = 0; i < n; i++) s += i % 5; return s; } };\n"
	"__attribute__((noinline)) void (*get_fp(int k))(double) { for (int i = 0; i < 20000 * k; i++) sink = sink + 1; return nullptr; }\n"
	"}\n"
	"int main(int argc, char **argv) {\n"
	" long reps = argc > 1 ? atol(argv[1]) : 30, total = 0;\n"
	" ns::Box<long> b{3}, b2{4}; ns::Box<double> bd{1.5}; ns::Multi m; ns::Base *bp = &m; Anon an{1};\n"
	" std::map<std::string, int> mp; std::vector<int> v;\n"
	" auto lam = [&](int k) { long s = 0; for (int i = 0; i < k; i++) s += i ^ k; return s; };\n"
	" std::function<long(long)> fn = [](long k) { long s = 0; for (long i = 0; i < k; i++) s += i % 3; return s; };\n"
	" for (long r = 0; r < reps; r++) {\n"
	"  total += b.get(200000) + (long)bd.get(100000) + b.conv<int>(3) + (b < b2) + b(5) + (long)b + ns::twice(r);\n"
	"  total += bp->work(200000) + an.spin(200000) + lam(200000) + fn(200000) + (ns::get_fp(1) != nullptr);\n"
	"  for (int i = 0; i < 2000; i++) { mp[std::to_string(i % 100)] += i; v.push_back(i); }\n"
	"  std::sort(v.begin(), v.end(), [](int x, int y) { return x > y; }); v.clear();\n"
	" }\n printf(\"%ld %zu\\n\", total, mp.size());\n}\n";

/* The program built into dir/name with the g++ options opts. */
static const char *build_cxx_as(const char *name, const char *opts)
{
	const char *src = path_in("prog.cpp"), *bin = path_in(name);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fputs(cxx_program, f);
	fclose(f);
	char cmd[3000];
	snprintf(cmd, sizeof(cmd), "g++ %s -o '%s' '%s' 2>&1", opts, bin, src);
	char *out = NULL;
	int rc = pk_test_run(cmd, &out, 0);
	if (rc)
		fprintf(stderr, "g++ failed: %s\n", out ? out : "");
	free(out);
	assert_int_equal(rc, 0);
	return bin;
}

static const char *build_cxx(void)
{
	return build_cxx_as("prog", "-O2 -g");
}

/* A sample every 8 bytes over the PLT of file mapped at base (.plt and,
 * when there is one, .plt.sec); returns how many. */
static size_t write_plt_file(const char *out, const char *file)
{
	synth s;
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0);
	synth_open(&s, out, &a, 1);
	synth_comm(&s, 4242, "plt");
	uint64_t base = 0x7f0000000000ULL;
	assert_true(map_elf(&s, 4242, file, base, SHT_NULL, NULL, NULL));
	int fd = open(file, O_RDONLY);
	assert_true(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstr, n = 0;
	assert_int_equal(elf_getshdrstrndx(e, &shstr), 0);
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstr, sh.sh_name)) ||
		    (strcmp(name, ".plt") && strcmp(name, ".plt.sec")))
			continue;
		for (uint64_t off = 0; off < sh.sh_size; off += 8, n++) {
			fields f = {.ip = base + sh.sh_addr + off, .pid = 4242};
			synth_sample(&s, &f, PERF_RECORD_MISC_USER);
		}
	}
	elf_end(e);
	close(fd);
	synth_close(&s);
	return n;
}

static void test_cxx_recorded(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("g++");
	const char *bin = build_cxx();
	char cmd[3000];
	/* recorded by perf, with call chains */
	snprintf(cmd, sizeof(cmd), "perf record -q -N -g -e cpu-clock -o '%s' '%s' 20 >/dev/null 2>&1",
		 path_in("cxx-perf.data"), bin);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	assert_true(same_script(path_in("cxx-perf.data"), "") > 50);
	/* recorded by pmukit */
	snprintf(cmd, sizeof(cmd), "%s record -g -e cpu-clock -o '%s' '%s' 20 >/dev/null 2>&1",
		 pk_test_pmukit(), path_in("cxx-pmukit.data"), bin);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	assert_true(same_script(path_in("cxx-pmukit.data"), "") > 50);
	/* the names really are demangled */
	snprintf(cmd, sizeof(cmd), "%s script -i '%s' | grep -c 'ns::'", pk_test_pmukit(),
		 path_in("cxx-perf.data"));
	char *n = pd_test_output(cmd);
	assert_true(atoi(n) > 0);
	free(n);
}

static void test_cxx_every_symbol(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("g++");
	/* every function of a C++ program's .symtab: aliases, clones, lambdas */
	const char *bin = build_cxx();
	assert_true(write_symbol_file(path_in("prog-syms.data"), bin, SHT_SYMTAB) > 30);
	assert_true(same_script(path_in("prog-syms.data"), "-F ip,sym,dso") > 30);
	/* PLT slots named after what they call, with symbols; a stripped
	 * program that exports nothing gets none (perf adds PLT symbols only
	 * to a table it found symbols in) */
	assert_true(write_plt_file(path_in("plt.data"), bin) > 10);
	assert_true(same_script(path_in("plt.data"), "-F ip,sym") > 10);
	const char *stripped = build_cxx_as("prog-stripped", "-O2 -s");
	assert_true(write_plt_file(path_in("plt-stripped.data"), stripped) > 10);
	assert_true(same_script(path_in("plt-stripped.data"), "-F ip,sym") > 10);
	/* the same code as a shared library: perf's symbol tree puts no PLT
	 * slot under the node of the _init grown over .plt, so even the first
	 * slot answers its own name@plt (the program's answers _init) */
	const char *so = build_cxx_as("prog.so", "-O2 -fPIC -shared");
	assert_true(write_plt_file(path_in("plt-so.data"), so) > 10);
	assert_true(same_script(path_in("plt-so.data"), "-F ip,sym") > 10);
	/* every exported function of libstdc++ (thousands of template
	 * instances, operators, thunks) */
	char cmd[3000];
	snprintf(cmd, sizeof(cmd), "ldd '%s' | awk '/libstdc\\+\\+/ {print $3}' | tr -d '\\n'", bin);
	char *lib = pd_test_output(cmd);
	if (*lib) {
		assert_true(write_symbol_file(path_in("libstdcxx.data"), lib, SHT_DYNSYM) > 1000);
		assert_true(same_script(path_in("libstdcxx.data"), "-F ip,sym") > 1000);
	}
	free(lib);
}

/* --no-demangle: the symbol table's own names, in script and in report, as
 * perf prints them (the comparison needs perf; the names only g++) */
static void test_no_demangle(void **state)
{
	(void)state;
	PD_TEST_NEED("g++");
	const char *bin = build_cxx_as("prog-nd", "-O2");
	const char *data = path_in("prog-nd.data");
	assert_true(write_symbol_file(data, bin, SHT_SYMTAB) > 30);
	char cmd[3000];
	const char *count = "%s %s -i '%s' %s | grep -c '%s' || true";
	snprintf(cmd, sizeof(cmd), count, pk_test_pmukit(), "script -F ip,sym", data, "--no-demangle",
		 "_ZN2ns");
	char *raw = pd_test_output(cmd);
	snprintf(cmd, sizeof(cmd), count, pk_test_pmukit(), "script -F ip,sym", data, "", "_ZN2ns");
	char *dem = pd_test_output(cmd);
	assert_true(atoi(raw) > 5);
	assert_int_equal(atoi(dem), 0);
	free(raw);
	free(dem);
	snprintf(cmd, sizeof(cmd), count, pk_test_pmukit(), "report --stdio", data,
		 "--no-demangle", "_ZN2ns");
	raw = pd_test_output(cmd);
	assert_true(atoi(raw) > 5);
	free(raw);
	if (pd_test_have("perf"))
		assert_true(same_script(data, "-F ip,sym --no-demangle") > 30);
}

/* ---- data_src ---- */

static void test_data_src_format(void **state)
{
	(void)state;
	char buf[PK_DATA_SRC_TEXT_MAX];
	/* the texts perf 6.1 prints for these values */
	static const struct {
		uint64_t v;
		const char *text;
	} cases[] = {
		{0, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		{0x1a88101042ULL, "|OP LOAD|LVL Local RAM or RAM hit|SNP None|TLB Walker hit|LCK No|BLK  N/A"},
		{0x3, "|OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		{0x18, "|OP PFETCH|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		{0x2000000040ULL, "|OP No|LVL Remote  hit|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		{0x2200000100ULL, "|OP No|LVL Remote L1 or L1|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		{0x20a040041040ULL, "|OP No|LVL Remote board  hit|SNP Peer|TLB L2|LCK No|BLK  N/A"},
		{0x280200000000ULL, "|OP No|LVL (null) L1|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		{0xc000a00000ULL, "|OP No|LVL N/A|SNP Hit or HitM or Fwd or Peer|TLB N/A|LCK No|BLK  N/A"},
		{0x60000000000ULL, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  Data Addr"},
		{0x3000000ULL, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A"},
		{0x2000000ULL, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK Yes|BLK  N/A"},
		{0x1e00000000ULL, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
		{0x1200000040ULL, "|OP No|LVL CXL hit|SNP N/A|TLB N/A|LCK No|BLK  N/A"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = pk_data_src_format(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
		assert_int_equal(n, strlen(cases[i].text));
	}
	/* snprintf conventions: cut, terminated, full length returned */
	char small[10];
	size_t n = pk_data_src_format(0x1a88101042ULL, small, sizeof(small));
	assert_int_equal(n, strlen(cases[1].text));
	assert_string_equal(small, "|OP LOAD|");
	assert_int_equal(pk_data_src_part_format(0x1a88101042ULL, PK_DATA_SRC_TLB, buf, sizeof(buf)),
			 strlen("Walker hit"));
	assert_string_equal(buf, "Walker hit");
	assert_int_equal(pk_data_src_format(0, NULL, 0), strlen(cases[0].text));
}

static void test_data_src_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	/* a raw event (the core PMU's memory events are raw) whose samples have
	 * every memory field; values: each bit of each part, then mixtures */
	struct perf_event_attr a = attr_of(PERF_TYPE_RAW, 0x1cd,
					   PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT_STRUCT |
						   PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR |
						   PERF_SAMPLE_DATA_PAGE_SIZE |
						   PERF_SAMPLE_CODE_PAGE_SIZE);
	synth s;
	synth_open(&s, path_in("dsrc.data"), &a, 1);
	synth_comm(&s, 42, "memtest");
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	static const uint64_t pages[] = {0, 1, 1024, 1025, 2048, 3000, 4096, 1 << 20, 2 << 20,
					 1ULL << 30, 3ULL << 30, 1ULL << 40, ~0ULL};
	for (int i = 0; i < 3000; i++) {
		uint64_t v;
		if (i < 64)
			v = 1ULL << i; /* every bit alone */
		else if (i < 1000)
			v = next_rand(&x) & next_rand(&x) & ((1ULL << 46) - 1); /* sparse */
		else
			v = next_rand(&x); /* anything, reserved bits too */
		fields f = {.ip = 0x400100 + (uint64_t)i * 4, .pid = 42, .cpu = (uint32_t)(i % 4),
			    .addr = 0x7fff0000 + (uint64_t)i * 64, .weight = (uint64_t)i % 700,
			    .ins_lat = (uint16_t)(i % 37), .data_src = v,
			    .phys_addr = 0x12345000 + (uint64_t)i,
			    .data_page = pages[i % 13], .code_page = pages[(i + 5) % 13]};
		synth_sample(&s, &f, PERF_RECORD_MISC_USER);
	}
	synth_close(&s);
	const char *file = path_in("dsrc.data");
	assert_int_equal(same_script(file, "-F data_src"), 3000);
	assert_int_equal(same_script(file, ""), 3000); /* raw defaults: memory fields too */
	assert_int_equal(same_script(file, "-F ip,addr,data_src,weight,ins_lat,phys_addr"), 3000);
	assert_int_equal(same_script(file, "-F data_page_size,code_page_size,cpu"), 3000);
}

/* ---- names of attrs without a stored name ---- */

static void test_attr_names_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	struct perf_event_attr attrs[64];
	size_t n = 0;
	uint64_t st = PERF_SAMPLE_IDENTIFIER;
	for (unsigned fl = 0; fl < 128; fl += 3) { /* exclude_* and precise_ip mixtures */
		struct perf_event_attr a = attr_of(PERF_TYPE_HARDWARE, fl % 11, st);
		a.exclude_user = fl & 1;
		a.exclude_kernel = !!(fl & 2);
		a.exclude_hv = !!(fl & 4);
		a.exclude_host = !!(fl & 8);
		a.exclude_guest = !!(fl & 16);
		a.precise_ip = (fl >> 5) & 3;
		attrs[n++] = a;
	}
	static const uint64_t cache[] = {0, 0x10000, 0x101, 0x10203, 0x4, 0x204, 0x7, 0x300, 0x20000};
	for (size_t i = 0; i < sizeof(cache) / sizeof(cache[0]); i++)
		attrs[n++] = attr_of(PERF_TYPE_HW_CACHE, cache[i], st);
	attrs[n++] = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, st);
	attrs[n++] = attr_of(PERF_TYPE_SOFTWARE, 11, st);
	attrs[n++] = attr_of(PERF_TYPE_RAW, 0x1cd, st);
	attrs[n] = attr_of(PERF_TYPE_BREAKPOINT, 0, st);
	attrs[n].bp_type = 3; /* rw */
	attrs[n++].bp_addr = 0x1234;
	attrs[n++] = attr_of(42, 7, st);
	synth s;
	synth_open(&s, path_in("names.data"), attrs, n);
	synth_comm(&s, 42, "names");
	for (size_t i = 0; i < n; i++) {
		fields f = {.id = 1000 + i, .ip = 0x400100, .pid = 42};
		synth_sample(&s, &f, PERF_RECORD_MISC_USER);
	}
	synth_close(&s);
	assert_int_equal(same_script(path_in("names.data"), "-F event"), n);
}

/* ---- symbol resolution corner cases ---- */

/* A synthesized FORK (perf's FORK_EXEC mark) does not copy the parent's
 * maps, a kernel FORK does; addresses past a segment's file part (.bss)
 * use that segment's placement. */
static void test_maps_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	const char *bin = "/proc/self/exe";
	char self[1024];
	ssize_t l = readlink(bin, self, sizeof(self) - 1);
	assert_true(l > 0);
	self[l] = '\0';
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0);
	synth s;
	synth_open(&s, path_in("maps.data"), &a, 1);
	synth_comm(&s, 100, "parent");
	uint64_t base = 0x555500000000ULL;
	/* one map over the file's whole extent, as ld.so reserves it */
	int fd = open(self, O_RDONLY);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	size_t nph = 0;
	assert_int_equal(elf_getphdrnum(e, &nph), 0);
	uint64_t top = 0, bss = 0, bss_end = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr + ph.p_memsz > top)
			top = ph.p_vaddr + ph.p_memsz;
		if (ph.p_memsz > ph.p_filesz) {
			bss = ph.p_vaddr + ph.p_filesz;
			bss_end = ph.p_vaddr + ph.p_memsz;
		}
	}
	elf_end(e);
	close(fd);
	synth_mmap2(&s, 100, base, (top + 0xfff) & ~0xfffULL, 0, self);
	synth_fork(&s, 101, 100, 1 << 13); /* synthesized: FORK_EXEC */
	synth_comm(&s, 101, "synthesized");
	synth_fork(&s, 102, 100, 0); /* the kernel's */
	synth_comm(&s, 102, "forked");
	uint64_t addrs[64];
	size_t n = 0;
	addrs[n++] = base + 0x1100;
	for (uint64_t p = bss; p < bss_end && n < 40; p += 8 + (bss_end - bss) / 32)
		addrs[n++] = base + p;
	for (uint32_t pid = 100; pid <= 102; pid++)
		for (size_t i = 0; i < n; i++) {
			fields f = {.ip = addrs[i], .pid = pid};
			synth_sample(&s, &f, PERF_RECORD_MISC_USER);
		}
	synth_close(&s);
	assert_int_equal(same_script(path_in("maps.data"), "-F comm,tid,ip,sym,dso"), 3 * n);
}

/* Executable memory without a file (anonymous, heap, stack, SysV): perf
 * names its dso "/tmp/perf-<pid>.map", the map a JIT may write, and prints
 * its addresses as they are, whatever the map's offset (seen on
 * system-wide recordings with valgrind or a JIT running). */
static void test_anon_maps_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	static const char *const names[] = {"//anon", "[heap]", "[stack]", "/SYSV00000000 (deleted)",
					    "/dev/zero (deleted)"};
	enum { NN = sizeof(names) / sizeof(names[0]) };
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
					   PERF_SAMPLE_CALLCHAIN);
	synth s;
	synth_open(&s, path_in("anon.data"), &a, 1);
	synth_comm(&s, 100, "jit");
	for (size_t i = 0; i < NN; i++)
		synth_mmap2(&s, 100, 0x100000000ULL * (i + 1), 0x10000, 0x3000 * i, names[i]);
	uint64_t chain[NN + 1];
	chain[0] = (uint64_t)-512; /* PERF_CONTEXT_USER */
	for (size_t i = 0; i < NN; i++)
		chain[i + 1] = 0x100000000ULL * (i + 1) + 0x1234;
	for (size_t i = 0; i < NN; i++) {
		fields f = {.ip = chain[i + 1], .pid = 100, .chain = chain, .chain_nr = NN + 1};
		synth_sample(&s, &f, PERF_RECORD_MISC_USER);
	}
	synth_close(&s);
	assert_int_equal(same_script(path_in("anon.data"), "-F comm,tid,ip,sym,dso"),
			 NN * (NN + 2));
}

/* Call chains with context markers: perf follows the host's (user,
 * kernel, hypervisor) and drops a chain with any other (guest markers,
 * values in the marker range that are none). */
static void test_chain_markers_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	const uint64_t USER = (uint64_t)-512, KERNEL = (uint64_t)-128, HV = (uint64_t)-32;
	const uint64_t GUEST = (uint64_t)-2048, GUEST_K = (uint64_t)-2176, GUEST_U = (uint64_t)-2560;
	const uint64_t BAD = (uint64_t)-1000;
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
					   PERF_SAMPLE_CALLCHAIN);
	synth s;
	synth_open(&s, path_in("chains.data"), &a, 1);
	synth_comm(&s, 42, "chains");
	synth_mmap2(&s, 42, 0x400000, 0x10000, 0, "/nonexistent/prog");
	const uint64_t chains[][5] = {
		{USER, 0x400100, 0x400200, 0, 0},   {USER, 0x400100, GUEST_U, 0, 0},
		{KERNEL, 0x400100, USER, 0x400300, 0}, {USER, 0x400100, GUEST, 0x400200, 0},
		{USER, 0x400100, GUEST_K, 0x400200, 0}, {HV, 0x400100, USER, 0x400200, 0},
		{USER, 0x400100, BAD, 0x400200, 0},  {0x400100, 0x400200, 0x400300, 0x400400, 0},
	};
	const size_t lens[] = {3, 3, 4, 4, 4, 4, 4, 4};
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		fields f = {.ip = 0x400100, .pid = 42, .chain = chains[i], .chain_nr = lens[i]};
		synth_sample(&s, &f, PERF_RECORD_MISC_USER);
	}
	synth_close(&s);
	assert_true(same_script(path_in("chains.data"), "") > 16);
}

/* Once kallsyms is loaded, the kernel map reaches past _etext to the last
 * kernel symbol; an address looked up before that stays unknown. */
static void test_kernel_map_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	FILE *f = fopen("/proc/kallsyms", "r");
	uint64_t text = 0, etext = 0, sinit = 0;
	char line[512];
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char t, name[256];
		if (sscanf(line, "%llx %c %255s", &v, &t, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = v;
		else if (!strcmp(name, "_etext"))
			etext = v;
		else if (!strcmp(name, "_sinittext"))
			sinit = v;
	}
	if (f)
		fclose(f);
	if (!text || !etext || !sinit) {
		fprintf(stderr, "kernel addresses not readable: skipping\n");
		skip();
	}
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0);
	synth s;
	synth_open(&s, path_in("kmap.data"), &a, 1);
	rec_begin(&s, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	pk_pd_buf_u32(&s.b, (uint32_t)-1);
	pk_pd_buf_u32(&s.b, 0);
	pk_pd_buf_u64(&s.b, text);
	pk_pd_buf_u64(&s.b, etext - text);
	pk_pd_buf_u64(&s.b, text);
	pk_pd_buf_name(&s.b, "[kernel.kallsyms]_text");
	rec_end(&s);
	static const uint64_t offs[] = {0x10, 0x1000, 0x20000};
	/* init text before any kernel lookup, then inside, then init text */
	uint64_t ips[] = {sinit + offs[0], text + offs[1], etext + offs[0], sinit + offs[1],
			  sinit + offs[2], 0xffffffffffff0000ULL};
	for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
		fields fl = {.ip = ips[i], .pid = 0};
		synth_sample(&s, &fl, PERF_RECORD_MISC_KERNEL);
	}
	synth_close(&s);
	assert_int_equal(same_script(path_in("kmap.data"), "-F ip,sym,dso"), 6);
}

/* The GNU build id of an ELF file; its length, 0 when none. */
static size_t file_build_id(const char *file, uint8_t id[20])
{
	int fd = open(file, O_RDONLY);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t len = 0;
	Elf_Scn *scn = NULL;
	while (e && !len && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (!len && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= 20) {
				memcpy(id, (const uint8_t *)d->d_buf + desc_off, nh.n_descsz);
				len = nh.n_descsz;
			}
	}
	if (e)
		elf_end(e);
	close(fd);
	return len;
}

/* A binary rebuilt (or deleted) since the recording: both tools take it
 * from perf's build-id cache, found by the BUILD_ID feature. */
static void test_build_id_cache_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	char self[1024];
	ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(l > 0);
	self[l] = '\0';
	uint8_t id[20];
	size_t idlen = file_build_id(self, id);
	if (!idlen) {
		fprintf(stderr, "test binary has no build id: skipping\n");
		skip();
	}
	char hex[41], cmd[8192];
	for (size_t i = 0; i < idlen; i++)
		snprintf(hex + i * 2, 3, "%02x", id[i]);
	/* $HOME/.debug/.build-id/xx/yyyy/elf, a copy of the recorded binary */
	const char *bin = path_in("rebuilt");
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%1$s/home/.debug/.build-id/%2$.2s/%3$s' && "
		 "cp '%4$s' '%1$s/home/.debug/.build-id/%2$.2s/%3$s/elf' && cp '%4$s' '%5$s'",
		 pd_test_dir, hex, hex + 2, self, bin);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	synth s;
	struct perf_event_attr a = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0);
	memset(&s, 0, sizeof(s));
	pk_error err;
	assert_int_equal(pk_pd_writer_open(path_in("bid.data"), false, &s.w, &err), 0);
	assert_int_equal(pk_pd_writer_add_evsel(s.w, &a, 0, "cpu-clock", NULL, 0, &err), 0);
	pk_pd_buf f = {0}; /* one BUILD_ID entry */
	pk_pd_buf_u32(&f, PK_RECORD_HEADER_BUILD_ID);
	pk_pd_buf_u16(&f, PERF_RECORD_MISC_USER);
	pk_pd_buf_u16(&f, 0);
	pk_pd_buf_u32(&f, (uint32_t)-1); /* the host */
	uint8_t raw[24] = {0};
	memcpy(raw, id, idlen);
	pk_pd_buf_bytes(&f, raw, sizeof(raw));
	pk_pd_buf_name(&f, bin);
	f.data[6] = (uint8_t)f.len;
	f.data[7] = (uint8_t)(f.len >> 8);
	assert_int_equal(pk_pd_writer_set_feature(s.w, PK_FEAT_BUILD_ID, f.data, f.len, &err), 0);
	pk_pd_buf_release(&f);
	assert_int_equal(pk_pd_writer_begin(s.w, &err), 0);
	s.sample_type = a.sample_type;
	s.time = 1000000;
	synth_comm(&s, 4242, "rebuilt");
	sym_samples ss = {&s, 4242, 0};
	assert_true(map_elf(&s, 4242, bin, 0x7f0000000000ULL, SHT_SYMTAB, sample_at_sym, &ss));
	synth_close(&s);
	/* now something else lives at that path */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", pk_test_pmukit(), bin);
	assert_int_equal(pk_test_run(cmd, NULL, 0), 0);
	char env[2048];
	snprintf(env, sizeof(env), "HOME='%s/home'", pd_test_dir);
	assert_true(pd_test_same_script(env, path_in("bid.data"), "-F ip,sym") > 20);
	snprintf(cmd, sizeof(cmd), "%s %s script -F ip,sym -i '%s'", env, pk_test_pmukit(),
		 path_in("bid.data"));
	char *ours = pd_test_output(cmd);
	assert_non_null(strstr(ours, " test_build_id_cache_perf\n"));
	free(ours);
}

/* A line's key (pk_line_key, script's replay of SPE samples): the same
 * for samples printing the same values, another when a value, the record
 * or the fields differ; the event is not part of it. */
static void test_line_key(void **state)
{
	(void)state;
	pk_pd_event ev = {.offset = 4096, .misc = PERF_RECORD_MISC_USER};
	pk_pd_sample a = PK_PD_SAMPLE_INIT, b;
	a.ip = 0x400000, a.time = 7, a.pid = a.tid = 9, a.weight_var2 = 3, a.data_src = 5;
	b = a;
	pk_line_key ka = pk_line_key_of(&ev, &a, 3), kb = pk_line_key_of(&ev, &b, 3);
	assert_true(pk_line_key_same(&ka, &kb));
	b.weight_var2 = 4; /* ins_lat */
	kb = pk_line_key_of(&ev, &b, 3);
	assert_false(pk_line_key_same(&ka, &kb));
	kb = pk_line_key_of(&ev, &a, 1);
	assert_false(pk_line_key_same(&ka, &kb));
	ev.offset = 8192;
	kb = pk_line_key_of(&ev, &a, 3);
	assert_false(pk_line_key_same(&ka, &kb));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_key),
		cmocka_unit_test(test_demangle_names),
		cmocka_unit_test(test_data_src_format),
		cmocka_unit_test(test_cxx_recorded),
		cmocka_unit_test(test_cxx_every_symbol),
		cmocka_unit_test(test_no_demangle),
		cmocka_unit_test(test_data_src_perf),
		cmocka_unit_test(test_attr_names_perf),
		cmocka_unit_test(test_maps_perf),
		cmocka_unit_test(test_anon_maps_perf),
		cmocka_unit_test(test_chain_markers_perf),
		cmocka_unit_test(test_kernel_map_perf),
		cmocka_unit_test(test_build_id_cache_perf),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
