/* perf probe's engine (pmukit/probe.h) without root or tracefs: perf 6.1's
 * group and event names (facts taken from perf probe runs: "my-prog.x1"
 * gives probe_my, a name taken in any group needs -f and then gets "_1",
 * "main%return" is main__return), probe points and --funcs' filter words,
 * the uprobe_events lines written and read back through a tracefs folder
 * made here, and the function offsets of sym_progs/lines.c (built by meson,
 * PK_SYM_LINES) against its ELF symbol table read here with libelf: DWARF
 * finds the static outer() and main() at their symbols' file offsets.
 * The live comparison with perf probe 6.1 is tests/cli/probe_perf61.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/probe.h>

static void test_names(void **state)
{
	(void)state;
	char g[64], ev[64];
	pk_probe_group("/usr/lib/x86_64-linux-gnu/libc.so.6", g, sizeof(g));
	assert_string_equal(g, "probe_libc");
	pk_probe_group("/tmp/x/my-prog.x1", g, sizeof(g));
	assert_string_equal(g, "probe_my");
	pk_probe_event have[2] = {{.group = "probe_a", .event = "foo", .uprobe = true},
				  {.group = "probe_b", .event = "foo_1", .uprobe = true}};
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_probe_event_name(have, 2, NULL, 0, "bar", false, false, ev, 64, &err), 0);
	assert_string_equal(ev, "bar");
	assert_int_equal(pk_probe_event_name(have, 2, NULL, 0, "main", true, false, ev, 64, &err), 0);
	assert_string_equal(ev, "main__return");
	/* taken in another group: refused without force, with perf's words */
	assert_int_equal(pk_probe_event_name(have, 2, NULL, 0, "foo", false, false, ev, 64, &err),
			 -EEXIST);
	assert_string_equal(err.msg, "event \"foo\" already exists.");
	assert_int_equal(pk_probe_event_name(have, 2, NULL, 0, "foo", false, true, ev, 64, &err), 0);
	assert_string_equal(ev, "foo_2");
	const char *taken[] = {"bar"};
	assert_int_equal(pk_probe_event_name(have, 2, taken, 1, "bar", false, true, ev, 64, &err), 0);
	assert_string_equal(ev, "bar_1");
	assert_true(pk_probe_matches(&have[0], "foo"));
	assert_true(pk_probe_matches(&have[0], "probe_*:f*"));
	assert_false(pk_probe_matches(&have[0], "probe_b:*"));
}

static void test_points_and_filters(void **state)
{
	(void)state;
	pk_probe_point pp;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_probe_point_parse("main+4", &pp, &err), 0);
	assert_string_equal(pp.func, "main");
	assert_int_equal(pp.off, 4);
	assert_int_equal(pk_probe_point_parse("main%return", &pp, &err), 0);
	assert_true(pp.ret);
	assert_int_equal(pk_probe_point_parse("main+4%return", &pp, &err), -EINVAL);
	assert_int_equal(pk_probe_point_parse("main:3", &pp, &err), -EINVAL);
	assert_int_equal(pk_probe_point_parse("", &pp, &err), -EINVAL);
	assert_true(pk_probe_filter_match(NULL, "main"));
	assert_false(pk_probe_filter_match(NULL, "_start"));
	assert_false(pk_probe_filter_match(NULL, "puts@plt"));
	assert_true(pk_probe_filter_match("main|foo", "foo"));
	assert_false(pk_probe_filter_match("!f* & !*_*", "frame_dummy"));
	assert_true(pk_probe_filter_match("!f* & !*_*", "main"));
}

/* A tracefs folder with uprobe_events and kprobe_events files. */
static void fake_tracefs(char *dir)
{
	strcpy(dir, "/tmp/pk-probe-test-XXXXXX");
	assert_non_null(mkdtemp(dir));
	char p[128];
	snprintf(p, sizeof(p), "%s/kprobe_events", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("p:probe/vfs_getname getname_flags+72 pathname=+0(+0(%ax)):string\n", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/uprobe_events", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("garbage\n", f);
	fclose(f);
}

static void test_tracefs_lines(void **state)
{
	(void)state;
	char dir[64], p[128], text[512] = "";
	fake_tracefs(dir);
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_uprobe_add(dir, "probe_x", "f", "/bin/x", 0x1129, false, &err), 0);
	assert_int_equal(pk_uprobe_add(dir, "probe_x", "m__return", "/bin/x", 0x114e, true, &err), 0);
	pk_probe_event *v;
	size_t n;
	assert_int_equal(pk_probe_events(dir, &v, &n, &err), 0);
	assert_int_equal(n, 3); /* the garbage line skipped */
	assert_string_equal(v[0].group, "probe"); /* sorted by group:event */
	assert_false(v[0].uprobe);
	assert_string_equal(v[0].target, "getname_flags+72");
	assert_string_equal(v[1].event, "f");
	assert_string_equal(v[1].path, "/bin/x");
	assert_int_equal(v[1].offset, 0x1129);
	assert_true(v[2].ret);
	assert_int_equal(pk_probe_delete(dir, &v[1], &err), 0);
	pk_probe_events_free(v, n);
	snprintf(p, sizeof(p), "%s/uprobe_events", dir);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = '\0';
	fclose(f);
	/* perf's lines: the offset as 0x%016lx; removal as "-:group/event" */
	assert_string_equal(text, "garbage\n"
				  "p:probe_x/f /bin/x:0x0000000000001129\n"
				  "r:probe_x/m__return /bin/x:0x000000000000114e\n"
				  "-:probe_x/f\n");
	unlink(p);
	snprintf(p, sizeof(p), "%s/kprobe_events", dir);
	unlink(p);
	rmdir(dir);
}

/* The file offset of symbol name in path, from its symbol table and
 * program headers. */
static uint64_t sym_offset(const char *path, const char *name)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	uint64_t value = 0, off = 0;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			Elf_Data *d = elf_getdata(scn, NULL);
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				if (gelf_getsym(d, (int)i, &s) &&
				    !strcmp(elf_strptr(e, sh.sh_link, s.st_name), name))
					value = s.st_value;
			}
		}
	size_t nph;
	elf_getphdrnum(e, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr <= value &&
		    value < ph.p_vaddr + ph.p_memsz)
			off = value - ph.p_vaddr + ph.p_offset;
	}
	elf_end(e);
	close(fd);
	assert_true(value != 0);
	return off;
}

static void test_resolve(void **state)
{
	(void)state;
	const char *bin = getenv("PK_SYM_LINES");
	if (!bin)
		skip();
	pk_error err;
	pk_error_clear(&err);
	const char *funcs[] = {"main", "outer"};
	for (size_t k = 0; k < 2; k++) {
		pk_probe_point pp;
		assert_int_equal(pk_probe_point_parse(funcs[k], &pp, &err), 0);
		uint64_t *offs;
		size_t n;
		assert_int_equal(pk_probe_resolve(bin, &pp, &offs, &n, &err), 0);
		assert_int_equal(n, 1);
		assert_int_equal(offs[0], sym_offset(bin, funcs[k]));
		char place[256];
		pk_probe_place(bin, offs[0], false, place, sizeof(place));
		char want[64];
		snprintf(want, sizeof(want), "%s@", funcs[k]);
		assert_memory_equal(place, want, strlen(want)); /* func@file from DWARF */
		free(offs);
	}
	pk_probe_point pp;
	uint64_t *offs;
	size_t n;
	pk_probe_point_parse("nosuch", &pp, &err);
	assert_int_equal(pk_probe_resolve(bin, &pp, &offs, &n, &err), -ENOENT);
	assert_string_equal(err.msg, "Probe point 'nosuch' not found.");
	assert_int_equal(pk_probe_resolve("/nonexistent/bin", &pp, &offs, &n, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "Failed to get the absolute path of /nonexistent/bin"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_points_and_filters),
		cmocka_unit_test(test_tracefs_lines),
		cmocka_unit_test(test_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
