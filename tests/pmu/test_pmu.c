/* PMU discovery on the fixture trees and on deliberately odd trees. */
#include "helpers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pmukit/cpuid.h>
#include <pmukit/kernel.h>
#include <pmukit/pmu.h>

static pk_pmus *load(const char *machine)
{
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *p = pk_pmus_load(pk_test_sysfs(machine), &err);
	if (!p)
		fail_msg("loading %s: %s", machine, err.msg);
	return p;
}

static void cpus_are(const pk_pmu *pmu, const char *want)
{
	char buf[64];
	assert_non_null(pmu->cpus);
	pk_cpumap_format(pmu->cpus, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_alderlake_hybrid(void **state)
{
	(void)state;
	pk_pmus *p = load("alderlake");
	assert_true(pk_pmus_is_hybrid(p));
	assert_int_equal(pk_pmus_nr_core(p), 2);
	const pk_pmu *core = pk_pmus_core_at(p, 0), *atom = pk_pmus_core_at(p, 1);
	assert_string_equal(core->name, "cpu_core");
	assert_string_equal(atom->name, "cpu_atom");
	assert_int_equal(core->type, 4);
	assert_int_equal(atom->type, 8);
	assert_true(core->hybrid && atom->hybrid);
	cpus_are(core, "0-15");
	cpus_are(atom, "16-23");
	assert_false(core->cpus_from_mask);
	/* the atom PMU has no frontend field; the core one does */
	assert_non_null(pk_pmu_format(core, "frontend"));
	assert_null(pk_pmu_format(atom, "frontend"));
	assert_null(pk_pmu_format(core, "any"));
	/* hybrid topdown files have no trailing newline in real sysfs */
	const pk_alias *a = pk_pmu_alias(atom, "topdown-retiring");
	assert_non_null(a);
	assert_string_equal(a->terms, "event=0xc2,umask=0x0");
	assert_non_null(pk_pmu_alias(core, "TOPDOWN-RETIRING")); /* case-insensitive */
	assert_string_equal(pk_pmu_cap(core, "pmu_name"), "alderlake_hybrid");
	assert_int_equal(pk_pmus_find(p, "software")->kind, PK_PMU_SOFTWARE);
	assert_int_equal(pk_pmus_find(p, "tracepoint")->kind, PK_PMU_TRACEPOINT);
	assert_int_equal(pk_pmus_find(p, "msr")->kind, PK_PMU_OTHER);
	assert_ptr_equal(pk_pmus_find_type(p, 8), atom);
	assert_int_equal(pk_pmus_nr_warnings(p), 0);
	/* --cputype: a core PMU of this hybrid machine, or none asked */
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pmus_check_cputype(p, "cpu_atom", &err), 0);
	assert_int_equal(pk_pmus_check_cputype(p, pk_pmus_cputype_name("core"), &err), 0);
	assert_string_equal(pk_pmus_cputype_name("atom"), "cpu_atom"); /* perf's words */
	assert_string_equal(pk_pmus_cputype_name("cpu_core"), "cpu_core");
	assert_int_equal(pk_pmus_check_cputype(p, NULL, &err), 0);
	assert_int_equal(pk_pmus_check_cputype(p, "msr", &err), -EINVAL);
	assert_string_equal(err.msg, "--cputype msr: no such core PMU (core PMUs: cpu_core, cpu_atom)");
	pk_pmus_put(p);
}

static void test_non_hybrid_and_arm(void **state)
{
	(void)state;
	pk_pmus *p = load("sapphirerapids");
	assert_false(pk_pmus_is_hybrid(p));
	assert_int_equal(pk_pmus_nr_core(p), 1);
	assert_string_equal(pk_pmus_core_at(p, 0)->name, "cpu");
	assert_null(pk_pmus_core_at(p, 0)->cpus);
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_pmus_check_cputype(p, "cpu_core", &err), -EINVAL);
	assert_string_equal(err.msg, "--cputype cpu_core: not a hybrid machine (core PMUs: cpu)");
	pk_pmus_put(p);

	p = load("neoverse-n1-spe");
	assert_int_equal(pk_pmus_nr_core(p), 1);
	assert_string_equal(pk_pmus_core_at(p, 0)->name, "armv8_pmuv3_0");
	const pk_pmu *spe = pk_pmus_find(p, "arm_spe_0");
	assert_non_null(spe);
	assert_int_equal(spe->kind, PK_PMU_OTHER);
	assert_true(spe->cpus_from_mask);
	assert_string_equal(pk_pmu_cap(spe, "min_interval"), "1024");
	const pk_format *ml = pk_pmu_format(spe, "min_latency");
	assert_non_null(ml);
	assert_int_equal(ml->word, 2);
	assert_int_equal(ml->width, 12);
	const pk_pmu *m[4];
	assert_int_equal(pk_pmus_match(p, "arm_spe", m, 4), 1);
	assert_ptr_equal(m[0], spe);
	assert_int_equal(pk_pmus_match(p, "arm_spe_0", m, 4), 1);
	assert_int_equal(pk_pmus_match(p, "arm", m, 4), 0);
	pk_pmus_put(p);
}

static void test_format_parse(void **state)
{
	(void)state;
	pk_format f;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_format_parse("config:0-7,32-35\n", &f, &err), 0);
	assert_int_equal(f.word, 0);
	assert_int_equal(f.nr_ranges, 2);
	assert_int_equal(f.width, 12);
	uint64_t cfg[PK_NR_CONFIGS] = {0};
	assert_int_equal(pk_format_apply(&f, 0x1c0, cfg), 0);
	assert_int_equal(cfg[0], 0x1000000c0ULL);
	assert_int_equal(pk_format_extract(&f, cfg), 0x1c0);
	assert_int_equal(pk_format_apply(&f, 0x1000, cfg), -ERANGE);

	assert_int_equal(pk_format_parse("config1:0-63", &f, &err), 0);
	assert_int_equal(f.word, 1);
	assert_int_equal(f.width, 64);
	assert_true(pk_format_max(&f) == ~0ULL);
	assert_int_equal(pk_format_parse("config3:5", &f, &err), 0);
	assert_int_equal(f.word, 3);
	assert_int_equal(f.width, 1);

	/* the value replaces what the field held before */
	assert_int_equal(pk_format_parse("config1:0-15", &f, &err), 0);
	memset(cfg, 0, sizeof(cfg));
	pk_format_apply(&f, 3, cfg);
	pk_format_apply(&f, 30, cfg);
	assert_int_equal(cfg[1], 30);

	static const char *const bad[] = {"config4:0", "config:64", "config:5-3", "config:0-7,4",
					  "config:", "conf:1", "config:1-", "config:1 x", ""};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pk_error_clear(&err);
		assert_int_equal(pk_format_parse(bad[i], &f, &err), -EINVAL);
		assert_true(err.msg[0] != '\0');
	}
}

static void write_file(const char *dir, const char *name, const char *text)
{
	pk_test_put_file(dir, name, text);
}

static void test_odd_tree(void **state)
{
	(void)state;
	char *root = pk_test_tmpdir();
	assert_non_null(root);
	char cmd[2048], dir[1024];
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/bus/event_source/devices/good/format %s/bus/event_source/devices/good/events "
		 "%s/bus/event_source/devices/notype %s/bus/event_source/devices/badtype",
		 root, root, root, root);
	assert_int_equal(system(cmd), 0);
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices/good", root);
	write_file(dir, "type", "42"); /* no newline, as some drivers write */
	write_file(dir, "cpumask", "0-1\n");
	write_file(dir, "format/event", "config:0-7\n");
	write_file(dir, "format/broken", "config9:0-7\n");
	write_file(dir, "events/ev", "event=0x1\n");
	write_file(dir, "events/ev.scale", "not-a-number\n");
	write_file(dir, "events/ev.unit", "MiB\n");
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices/badtype", root);
	write_file(dir, "type", "abc\n");

	pk_error err;
	pk_error_clear(&err);
	pk_pmus *p = pk_pmus_load(root, &err);
	assert_non_null(p);
	assert_int_equal(pk_pmus_count(p), 1);
	const pk_pmu *good = pk_pmus_find(p, "good");
	assert_non_null(good);
	assert_int_equal(good->type, 42);
	assert_int_equal(good->nr_formats, 1);
	const pk_alias *a = pk_pmu_alias(good, "ev");
	assert_non_null(a);
	assert_true(a->scale == 1.0);
	assert_string_equal(a->unit, "MiB");
	/* every skipped thing is reported, naming its file */
	size_t nw = pk_pmus_nr_warnings(p);
	assert_true(nw >= 3);
	bool saw_broken = false, saw_scale = false, saw_badtype = false;
	for (size_t i = 0; i < nw; i++) {
		const char *w = pk_pmus_warning(p, i);
		saw_broken |= strstr(w, "format/broken") != NULL;
		saw_scale |= strstr(w, "ev.scale") != NULL;
		saw_badtype |= strstr(w, "badtype/type") != NULL;
	}
	assert_true(saw_broken && saw_scale && saw_badtype);
	pk_pmus_put(p);

	/* Issue 7: a 1 MiB sysfs file was echoed whole in the warning. perf
	 * 6.1 skips such a PMU without a word. The quote stops at 64 bytes. */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/bus/event_source/devices/huge", root);
	assert_int_equal(system(cmd), 0);
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices/huge", root);
	size_t big = 1u << 20;
	char *junk = malloc(big + 1);
	assert_non_null(junk);
	memset(junk, 'x', big);
	junk[big] = '\0';
	write_file(dir, "type", junk);
	free(junk);
	p = pk_pmus_load(root, &err);
	assert_non_null(p);
	bool saw_huge = false;
	for (size_t i = 0; i < pk_pmus_nr_warnings(p); i++) {
		const char *w = pk_pmus_warning(p, i);
		assert_true(strlen(w) < 1024);
		if (strstr(w, "huge/type")) {
			saw_huge = true;
			assert_non_null(strstr(w, "... (1048576 bytes)"));
		}
	}
	assert_true(saw_huge);
	pk_pmus_put(p);

	/* a root without the PMU folder is an error that names the path */
	pk_error_clear(&err);
	snprintf(dir, sizeof(dir), "%s/nothing", root);
	assert_null(pk_pmus_load(dir, &err));
	assert_int_equal(err.code, -ENOENT);
	assert_non_null(strstr(err.where, "nothing/bus/event_source/devices"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	free(root);
}

static void test_env_root(void **state)
{
	(void)state;
	setenv("PMUKIT_SYSFS", pk_test_sysfs("zen4"), 1);
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *p = pk_pmus_load(NULL, &err);
	unsetenv("PMUKIT_SYSFS");
	assert_non_null(p);
	assert_non_null(pk_pmus_find(p, "ibs_op"));
	assert_string_equal(pk_pmus_root(p), pk_test_sysfs("zen4"));
	pk_pmus_put(p);
}

static void test_cpuid(void **state)
{
	(void)state;
	pk_cpuid id;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_cpuid_parse("GenuineIntel-6-97-2", &id, &err), 0);
	assert_int_equal(id.vendor, PK_VENDOR_INTEL);
	assert_int_equal(id.family, 6);
	assert_int_equal(id.model, 0x97);
	assert_int_equal(id.stepping, 2);
	assert_int_equal(pk_cpuid_parse("AuthenticAMD-25-11-1", &id, &err), 0);
	assert_int_equal(id.vendor, PK_VENDOR_AMD);
	assert_int_equal(id.family, 25);
	assert_int_equal(id.model, 0x11);
	assert_int_equal(pk_cpuid_parse("0x00000000413fd0c1", &id, &err), 0);
	assert_int_equal(id.vendor, PK_VENDOR_ARM);
	assert_int_equal(id.family, 0x41);
	assert_int_equal(id.model, 0xd0c);
	static const char *const bad[] = {"", "GenuineIntel", "GenuineIntel-x-97", "GenuineIntel-6-zz",
					  "GenuineIntel-6-97-2-9", "0xnothex"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pk_error_clear(&err);
		assert_int_equal(pk_cpuid_parse(bad[i], &id, &err), -EINVAL);
	}
	setenv("PMUKIT_CPUID", "GenuineIntel-6-8F-8", 1);
	assert_int_equal(pk_host_cpuid(NULL, &id, &err), 0);
	unsetenv("PMUKIT_CPUID");
	assert_int_equal(id.model, 0x8f);
	/* a malformed override is refused with the variable's name and the form
	 * (perf 6.1: "Invalid CPUID garbage. Full CPUID is required,
	 * vendor-family-model-stepping") */
	setenv("PMUKIT_CPUID", "GenuineIntel-6-9x-2", 1);
	pk_error_clear(&err);
	assert_int_equal(pk_host_cpuid(NULL, &id, &err), -EINVAL);
	unsetenv("PMUKIT_CPUID");
	assert_string_equal(err.subject, "PMUKIT_CPUID");
	assert_string_equal(err.where, "GenuineIntel-6-9x-2");
	assert_int_equal(err.pos, 16);
	assert_non_null(strstr(err.msg, "malformed PMUKIT_CPUID"));
	assert_non_null(strstr(err.hint, "GenuineIntel-6-97-2"));
	assert_non_null(strstr(err.hint, "MIDR"));
	/* the host itself identifies somehow */
	pk_error_clear(&err);
	assert_int_equal(pk_host_cpuid(NULL, &id, &err), 0);
	assert_true(id.str[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alderlake_hybrid), cmocka_unit_test(test_non_hybrid_and_arm),
		cmocka_unit_test(test_format_parse),     cmocka_unit_test(test_odd_tree),
		cmocka_unit_test(test_env_root),         cmocka_unit_test(test_cpuid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
