/* Branch stacks (record -b/-j) read back: a hand-made file whose samples
 * carry PERF_SAMPLE_BRANCH_STACK entries between functions of a real
 * program mapped as the loader maps it, with every flag combination
 * (mispredicted/predicted, in_tx, abort, cycles, branch type) drawn from a
 * fixed pseudo-random sequence (the program: pmukit's own binary). pmukit script's brstack, brstacksym and
 * brstackoff fields must print what perf 6.1 prints on it (skipped without
 * perf); the record side's attrs and refusal are checked without perf. */
#include "helpers.h"
#include "pd_test.h"
#include "perfdata/sample_write.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/events.h>

#define PID 4321
#define BASE 0x555555554000ULL
#define BASE2 0x7f1234560000ULL /* a second object, for the view's dso keys */
#define NR_ENTRIES 16

typedef struct funcs {
	uint64_t addr[1024], size[1024];
	size_t n;
} funcs;

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* An MMAP2 per PT_LOAD segment of file (named shown in the records) at
 * base; adds its first 512 function symbols (.symtab), at their mapped
 * addresses, to f. */
static void map_object(pk_pd_writer *w, const struct perf_event_attr *a, const char *file,
		       const char *shown, uint64_t base, funcs *f)
{
	pk_pd_buf b = {0};
	int fd = open(file, O_RDONLY);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph = 0;
	assert_non_null(e);
	assert_int_equal(elf_getphdrnum(e, &nph), 0);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t start = base + (ph.p_vaddr & ~0xfffULL);
		uint64_t end = base + ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL);
		pk_pd_buf_u64(&b, 0); /* header, set by pd_test_put_record */
		uint64_t v[] = {start, end - start, ph.p_offset & ~0xfffULL, 0, 0, 0};
		pk_pd_buf_u32(&b, PID);
		pk_pd_buf_u32(&b, PID);
		pk_pd_buf_bytes(&b, v, sizeof(v));
		pk_pd_buf_u32(&b, ph.p_flags & PF_X ? 5 : 1); /* prot */
		pk_pd_buf_u32(&b, 2);                         /* MAP_PRIVATE */
		pk_pd_buf_name(&b, shown);
		pd_test_put_record(w, a, &b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, PID);
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t lim = f->n + 512; /* each object's first 512 */
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize && f->n < lim; i++) {
			GElf_Sym s;
			if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC &&
			    s.st_value && s.st_size > 4 && s.st_shndx != SHN_UNDEF) {
				f->addr[f->n] = base + s.st_value;
				f->size[f->n++] = s.st_size;
			}
		}
	}
	elf_end(e);
	close(fd);
	pk_pd_buf_release(&b);
}

/* The task's COMM and its program (and, for the view, a second object:
 * this test's own executable). */
static void map_program(pk_pd_writer *w, const struct perf_event_attr *a, const char *file,
			const char *shown, bool view, funcs *f)
{
	pk_pd_buf b = {0};
	pk_pd_buf_u64(&b, 0); /* header, set by pd_test_put_record */
	pk_pd_buf_u32(&b, PID);
	pk_pd_buf_u32(&b, PID);
	pk_pd_buf_name(&b, "brprog");
	pd_test_put_record(w, a, &b, PERF_RECORD_COMM, 0, PID);
	pk_pd_buf_release(&b);
	map_object(w, a, file, shown, BASE, f);
	if (view) {
		char self[1024];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		assert_true(n > 0);
		self[n] = '\0';
		map_object(w, a, self, self, BASE2, f);
	}
}

/* An address: mostly inside a function, sometimes nowhere mapped. */
static uint64_t some_addr(const funcs *f, uint64_t *x)
{
	uint64_t r = next_rand(x);
	if (r % 8 == 0)
		return 0x7fff00001000ULL + (r >> 40);
	size_t i = (size_t)(r >> 8) % f->n;
	return f->addr[i] + (r >> 20) % f->size[i];
}

/* For the report's branch view: besides some_addr's, addresses in the
 * program's map outside any function (its ELF header) and kernel ones. */
static uint64_t view_addr(const funcs *f, uint64_t *x)
{
	uint64_t r = next_rand(x);
	if (r % 16 == 1)
		return BASE + 0x40 + (r >> 60);
	if (r % 16 == 3)
		return 0xffffffff81000000ULL + (r >> 44);
	return some_addr(f, x);
}

/* 200 samples with up to NR_ENTRIES branches each; for the report's view
 * (view) the branches reach more kinds of address and their extended type
 * stays below 8 (perf 6.1's report dies of SIGSEGV past it). */
static void write_samples(pk_pd_writer *w, const struct perf_event_attr *a, const funcs *f,
			  bool view)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	uint64_t (*addr)(const funcs *, uint64_t *) = view ? view_addr : some_addr;
	for (int i = 0; i < 200; i++) {
		pk_pd_branch_entry br[NR_ENTRIES];
		uint64_t nr = next_rand(&x) % (NR_ENTRIES + 1);
		for (uint64_t k = 0; k < nr; k++) {
			br[k].from = addr(f, &x);
			br[k].to = addr(f, &x);
			/* mispred, predicted, in_tx, abort, cycles:16, type:4,
			 * spec:2, new_type:4, priv:3 */
			br[k].flags = next_rand(&x) & ((1ULL << 36) - 1);
			if (view)
				br[k].flags &= ~(1ULL << 29);
		}
		uint64_t chain[3] = {PERF_CONTEXT_USER, some_addr(f, &x), some_addr(f, &x)};
		uint16_t misc = view && i % 5 == 4 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		pk_pd_sample s = {.misc = misc, .ip = chain[1],
				  .pid = PID, .tid = PID, .time = 1000000000ULL + (uint64_t)i * 1000,
				  .period = 1000, .branch = br, .branch_nr = nr, .callchain = chain,
				  .callchain_nr = 3, .phys_addr = next_rand(&x) >> 20};
		uint8_t buf[2048];
		pk_error err;
		ssize_t n = pki_pd_sample_write(a, &s, buf, sizeof(buf), &err);
		assert_true(n > 0);
		assert_int_equal(pk_pd_writer_write(w, buf, (size_t)n, &err), 0);
	}
}

/* A file of samples with branch stacks of the branch_sample_type bst, the
 * sample_type bits extra besides, the program mapped under its name or
 * (gone) under a name no file has. */
static const char *make_file(const char *name, uint64_t bst, uint64_t extra, bool gone,
			     bool view)
{
	static char path[1024];
	snprintf(path, sizeof(path), "%s/%s", pd_test_dir, name);
	pk_pd_writer *w;
	pk_error err;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
				    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						   PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK | extra,
				    .branch_sample_type = bst, .sample_id_all = 1, .mmap = 1,
				    .comm = 1};
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "cpu-clock", NULL, 0, &err), 0);
	/* as perf record -b writes it: report then shows branches */
	if (view)
		assert_int_equal(pk_pd_writer_set_feature(w, PK_FEAT_BRANCH_STACK, NULL, 0, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	funcs f = {.n = 0};
	char shown[1024];
	snprintf(shown, sizeof(shown), "%s%s", pk_test_pmukit(), gone ? ".gone" : "");
	map_program(w, &a, pk_test_pmukit(), shown, view, &f); /* a program with many functions */
	assert_true(f.n > 10);
	write_samples(w, &a, &f, view);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	return path;
}

static void test_script_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	static const struct {
		const char *name;
		uint64_t bst, extra;
		bool gone;
	} files[] = {
		{"br.data", PERF_SAMPLE_BRANCH_ANY, 0, false},
		{"br-hwidx.data", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX, 0, false},
		/* brstackoff gives file offsets where the file cannot be read */
		{"br-gone.data", PERF_SAMPLE_BRANCH_ANY, 0, true},
		/* where the branches go among the other fields */
		{"br-chain.data", PERF_SAMPLE_BRANCH_ANY, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PHYS_ADDR,
		 false},
	};
	static const char *const fields[] = {
		"-F brstack", "-F brstacksym", "-F brstackoff", "-F ip,sym,brstack",
		"-F comm,tid,time,ip,sym,dso,brstack", "-F ip,brstacksym,dso", "-F ip,dso,brstackoff",
		"-F +brstack", "-F +brstacksym", "-F +brstackoff", "-F brstacksym,brstack",
		"-F brstackoff,brstacksym", "-F ip,phys_addr,brstack", "",
	};
	size_t lines = 0;
	for (size_t t = 0; t < sizeof(files) / sizeof(files[0]); t++) {
		const char *file = make_file(files[t].name, files[t].bst, files[t].extra, files[t].gone,
					     false);
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			if (strstr(fields[i], "phys") && !files[t].extra)
				continue;
			lines += pd_test_same_script("", file, fields[i]);
		}
	}
	assert_true(lines > 5000);
}

/* perf report and pmukit report print the same for file with args. */
static void same_report(const char *file, const char *args)
{
	char cmd[2048];
	char *theirs = NULL, *ours = NULL;
	snprintf(cmd, sizeof(cmd), "perf report --stdio -i %s %s 2>/dev/null", file, args);
	pk_test_run(cmd, &theirs, 0);
	snprintf(cmd, sizeof(cmd), "%s report --stdio -i %s %s 2>&1", pk_test_pmukit(), file, args);
	pk_test_run(cmd, &ours, 0);
	assert_non_null(theirs);
	assert_non_null(ours);
	pd_test_drop_tip(theirs);
	if (strcmp(ours, theirs)) {
		const char *a = theirs, *b = ours;
		while (*a && *a == *b)
			a++, b++;
		fail_msg("report %s %s: differs from perf at byte %zu:\n pmukit: %.160s\n perf:   "
			 "%.160s",
			 file, args, (size_t)(a - theirs), b, a);
	}
	free(theirs);
	free(ours);
}

/* The branch view: perf's own choice for a file with the BRANCH_STACK
 * feature, -b, and --no-branch-stack; the keys perf 6.1 orders (those it
 * does not are listed in docs/perfdata-differences.md). */
static void test_report_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	const char *files[] = {
		make_file("brv.data", PERF_SAMPLE_BRANCH_ANY, 0, false, true),
		make_file("brv-chain.data", PERF_SAMPLE_BRANCH_ANY, PERF_SAMPLE_CALLCHAIN, false, true),
	};
	static const char *const args[] = {
		"", "-b", "-s dso_from,dso_to", "-s cycles", "-s pid", "-s dso,sym", "-s in_tx",
		"-s abort", "-s dso_to,cycles", "-s comm,dso", "-n -s dso_from", "--no-branch-stack",
	};
	for (size_t f = 0; f < 2; f++)
		for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
			same_report(files[f], args[i]);
}

/* A real file (quipper's, perf 3.8, no binaries: most branch ends have no
 * symbol): perf sizes a branch end's dso column by the ends with a symbol
 * only, and cuts the others' names to it ("libglib-2.0.so.0.340"); a JIT
 * map's code is "[JIT] tid N" there too. */
static void test_report_real_widths(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("xz");
	char *path = NULL, *cmd = NULL;
	assert_true(asprintf(&path, "%s/cb-3.8.data", pd_test_dir) > 0);
	assert_true(asprintf(&cmd, "xz -dc '%s.xz' > '%s'",
			     pk_test_fixture("perfdata-real/quipper/perf.data.callgraph_and_branch-3.8"),
			     path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	same_report(path, "-f --no-children");
	same_report(path, "-f -s dso_to,dso_from");
	free(path);
}

/* Without the view its keys are refused; -b on a file without branch
 * stacks says why. */
static void test_report_refused(void **state)
{
	(void)state;
	const char *file = make_file("brv.data", PERF_SAMPLE_BRANCH_ANY, 0, false, true);
	char *out = NULL;
	int rc = pk_test_pmukit_run(&out, "report --stdio --no-branch-stack -s dso_from -i %s 2>&1",
				    file);
	assert_int_equal(rc, 0); /* perf 6.1: its usage after the error, status 0 */
	assert_non_null(strstr(out, "Invalid --sort key: `dso_from'"));
	free(out);
	char plain[1024];
	snprintf(plain, sizeof(plain), "%s/plain.data", pd_test_dir);
	rc = pk_test_pmukit_run(&out, "record -e cpu-clock -o %s true 2>&1", plain);
	assert_int_equal(rc, 0);
	free(out);
	/* perf 6.1: the error, its header lines, status 0 (pd_opts_diff's "-b") */
	rc = pk_test_pmukit_run(&out, "report --stdio -b -i %s 2>&1", plain);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "Selected -b but no branch data"));
	free(out);
}

/* -j's words into bits, perf 6.1's rule for privilege words alone. */
static void test_filter_parse(void **state)
{
	(void)state;
	uint64_t m = 0;
	pk_error err;
	assert_int_equal(pk_branch_filter_parse("any_call,u", &m, &err), 0);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER);
	assert_int_equal(pk_branch_filter_parse("k,hv", &m, &err), 0);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_ANY);
	assert_int_equal(pk_branch_filter_parse("stack,save_type,priv,ind_jmp", &m, &err), 0);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_TYPE_SAVE |
				    PERF_SAMPLE_BRANCH_PRIV_SAVE | PERF_SAMPLE_BRANCH_IND_JUMP);
	static const char *const bad[] = {"", "any,", ",any", "anyx", "hw_index", "any,,u"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pk_error_clear(&err);
		assert_int_equal(pk_branch_filter_parse(bad[i], &m, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "unknown branch filter"));
	}
}

/* The attr each tool asks the kernel for (strace's decoding of the first
 * perf_event_open with a branch stack), for record's -b/-j options. The
 * parent only (no -f): a child's lines would cut the call in two. */
static char *traced_attr(const char *tool, const char *opts)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "strace -v -e trace=perf_event_open %s record %s -e cpu-clock -o %s/x.data "
		 "true 2>&1 | grep -m1 -o 'perf_event_open({type=PERF_TYPE_SOFTWARE.*"
		 "PERF_SAMPLE_BRANCH_STACK.*}' || true",
		 tool, opts, pd_test_dir);
	return pd_test_output(cmd);
}

static void test_record_attrs_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	PD_TEST_NEED("strace");
	static const char *const opts[] = {"-b", "-j any_call,u", "-j k,hv", "-j u",
					   "-j stack,save_type,priv", "-j cond,ind_jmp,call,k",
					   "-j any_ret,ind_call,in_tx,no_tx,abort_tx"};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		char *theirs = traced_attr("perf", opts[i]);
		char *ours = traced_attr(pk_test_pmukit(), opts[i]);
		if (!ours || !theirs)
			fail_msg("no strace output for record %s", opts[i]);
		else if (strcmp(ours, theirs))
			fprintf(stderr, "record %s:\n pmukit: %s\n perf:   %s\n", opts[i], ours, theirs);
		assert_true(strstr(theirs, "branch_sample_type=") != NULL);
		assert_string_equal(ours, theirs);
		free(ours);
		free(theirs);
	}
}

/* Without a PMU that records branches (this VM, software events) record
 * says why and stops; bad filters are refused with the known ones. */
static void test_record_refused(void **state)
{
	(void)state;
	char *out = NULL;
	int rc = pk_test_pmukit_run(&out, "record -b -e cpu-clock -o %s/y.data true 2>&1", pd_test_dir);
	if (rc == 0) { /* a machine whose PMU samples branches: nothing to refuse */
		free(out);
		skip();
	}
	assert_non_null(strstr(out, "does not support branch stack sampling"));
	free(out);
	rc = pk_test_pmukit_run(&out, "record -j any,bogus -o %s/y.data true 2>&1", pd_test_dir);
	assert_int_equal(rc, 129);
	assert_non_null(strstr(out, "unknown branch filter 'bogus'"));
	assert_non_null(strstr(out, "any_call"));
	free(out);
	rc = pk_test_pmukit_run(&out, "record -b -j call -o %s/y.data true 2>&1", pd_test_dir);
	assert_int_equal(rc, 129);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_parse),
		cmocka_unit_test(test_script_vs_perf),
		cmocka_unit_test(test_report_vs_perf),
		cmocka_unit_test(test_report_real_widths),
		cmocka_unit_test(test_report_refused),
		cmocka_unit_test(test_record_attrs_vs_perf),
		cmocka_unit_test(test_record_refused),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
