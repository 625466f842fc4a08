/* Source lines of an ELF file's addresses (lib/symbols/srcline.c) against
 * addr2line's answers, on tests/perfdata/sym_progs/lines.c built with -g
 * -O2 by meson (PK_SYM_LINES): an address inside the compilation unit's
 * ranges gets its line; the entry point _start (crt1's assembly, outside
 * every range of the unit, which libdw's lookup of the unit by address
 * still returns) gets perf's "??:0", never the unit's empty name (":0").
 * Deterministic: the addresses are taken from the ELF file itself, where the
 * differential test perfdata_sym_diff finds them only when a sample falls
 * there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <pmukit/symbols.h>

#define BASE 0x555555554000ull

/* The entry point and the address of symbol name in path. */
static void elf_addrs(const char *path, uint64_t *entry, const char *name, uint64_t *addr)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	GElf_Ehdr eh;
	assert_non_null(gelf_getehdr(e, &eh));
	*entry = eh.e_entry;
	*addr = 0;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		gelf_getshdr(s, &sh);
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			gelf_getsym(d, (int)i, &sym);
			const char *n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name))
				*addr = sym.st_value;
		}
	}
	elf_end(e);
	close(fd);
	assert_true(*addr != 0);
}

/* An MMAP record of path's whole file at BASE for pid. */
static void mmap_file(pk_machine *m, uint32_t pid, const char *path)
{
	union {
		uint8_t b[4096 + 64];
		uint64_t align;
	} r = {{0}};
	size_t n = strlen(path) + 1;
	uint16_t size = (uint16_t)(40 + ((n + 7) & ~(size_t)7));
	struct perf_event_header h = {PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, size};
	uint64_t addr = BASE, len = 0x10000, pgoff = 0;
	memcpy(r.b, &h, sizeof(h));
	memcpy(r.b + 8, &pid, 4);
	memcpy(r.b + 12, &pid, 4);
	memcpy(r.b + 16, &addr, 8);
	memcpy(r.b + 24, &len, 8);
	memcpy(r.b + 32, &pgoff, 8);
	memcpy(r.b + 40, path, n);
	pk_pd_event ev = {.type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_USER, .size = size,
			  .data = r.b};
	assert_int_equal(pk_machine_event(m, &ev), 0);
}

/* addr2line's file:line for addr in path ("??:?" when it knows nothing);
 * NULL when addr2line is not there. opts: "" or "-f -i" (then the lines
 * alternate: function, file:line, innermost first). */
static char *addr2line_opts(const char *path, const char *opts, uint64_t addr, char *buf,
			    size_t size)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "addr2line %s -e '%s' %llx 2>/dev/null", opts, path,
		 (unsigned long long)addr);
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	size_t n = fread(buf, 1, size - 1, p);
	int rc = pclose(p);
	if (!n || rc)
		return NULL;
	buf[n] = 0;
	if (!*opts)
		buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static char *addr2line(const char *path, uint64_t addr, char *buf, size_t size)
{
	return addr2line_opts(path, "", addr, buf, size);
}

/* A machine with PK_SYM_LINES mapped at BASE for pid 4242 and the file's
 * entry point and outer; NULL (the test skips) without the file. */
static pk_machine *lines_machine(const char **path, uint64_t *entry, uint64_t *outer)
{
	*path = getenv("PK_SYM_LINES");
	if (!*path || access(*path, R_OK))
		return NULL;
	elf_addrs(*path, entry, "outer", outer);
	pk_machine *m = pk_machine_new(&(pk_machine_opts){.kallsyms = ""});
	assert_non_null(m);
	mmap_file(m, 4242, *path);
	return m;
}

static void test_entry_and_unit(void **state)
{
	(void)state;
	const char *path;
	uint64_t entry, outer;
	uint32_t pid = 4242;
	pk_machine *m = lines_machine(&path, &entry, &outer);
	if (!m)
		skip();
	const char *file;
	unsigned line;
	/* a function of the unit: its line table's row */
	assert_int_equal(pk_machine_srcline(m, pid, PERF_RECORD_MISC_USER, BASE + outer, &file,
					    &line), 1);
	assert_string_equal(file, "lines.c");
	assert_true(line > 0);
	/* _start: a symbol, no unit's range, no row: perf's "??:0" */
	for (uint64_t off = 0; off < 8; off += 4) {
		assert_int_equal(pk_machine_srcline(m, pid, PERF_RECORD_MISC_USER,
						    BASE + entry + off, &file, &line),
				 0);
		assert_null(file);
	}
	char buf[4200];
	const char *a2l = addr2line(path, entry, buf, sizeof(buf));
	if (a2l) /* the oracle agrees that nothing is known there */
		assert_string_equal(a2l, "??:?");
	pk_machine_free(m);
}

/* The functions addr2line -f -i names at addr (innermost first), *nr set. */
static size_t a2l_functions(const char *path, uint64_t addr, char fn[][64], size_t max)
{
	char buf[4200];
	char *out = addr2line_opts(path, "-f -i", addr, buf, sizeof(buf));
	size_t n = 0;
	for (char *line = out ? strtok(out, "\n") : NULL; line && n < max;
	     line = strtok(NULL, "\n")) {
		snprintf(fn[n++], 64, "%s", line);
		line = strtok(NULL, "\n"); /* its file:line */
		if (!line)
			break;
	}
	return n;
}

/* Inlined frames (pk_machine_inlines) and the innermost line as addr2line
 * gives them, at the first addresses of outer where inner is inlined: in
 * the gcc and the clang build (clang 14's DWARF 5 has no .debug_aranges,
 * where libdw 0.188 finds no unit by address: pmukit then asks each unit). */
static void test_inlines_as_addr2line(void **state)
{
	(void)state;
	const char *path;
	char buf[4200];
	uint64_t entry, outer;
	uint32_t pid = 4242;
	pk_machine *m = lines_machine(&path, &entry, &outer);
	if (!m)
		skip();
	if (!addr2line(path, 0, buf, sizeof(buf))) {
		pk_machine_free(m);
		skip();
	}
	int found = 0;
	for (uint64_t off = 0; off < 512 && found < 4; off++) {
		char want[8][64];
		size_t nw = a2l_functions(path, outer + off, want, 8);
		if (nw < 2)
			continue;
		found++;
		const char *got[8];
		int ng = pk_machine_inlines(m, pid, BASE + outer + off, got, 8);
		if (ng != (int)nw)
			fail_msg("outer+%#llx: %d inlined frames, addr2line %zu (%s ...)",
				 (unsigned long long)off, ng, nw, want[0]);
		for (size_t i = 0; i < nw; i++)
			assert_string_equal(got[i], want[i]);
		const char *file;
		unsigned line;
		assert_int_equal(pk_machine_srcline(m, pid, PERF_RECORD_MISC_USER, BASE + outer + off,
						    &file, &line), 1);
		char mine[300];
		snprintf(mine, sizeof(mine), "%s:%u", file, line);
		const char *a2l = addr2line(path, outer + off, buf, sizeof(buf));
		const char *base = strrchr(a2l, '/');
		base = base ? base + 1 : a2l;
		if (strncmp(base, mine, strlen(mine)) || (base[strlen(mine)] && base[strlen(mine)] != ' '))
			fail_msg("outer+%#llx: %s, addr2line %s", (unsigned long long)off, mine, base);
	}
	assert_true(found > 0); /* inner is inlined into outer (always_inline) */
	pk_machine_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_and_unit),
		cmocka_unit_test(test_inlines_as_addr2line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
