/* The kernel seam's host facts: a fake host's facts (tests/counting/
 * fake_kernel.c) reach what the library produces (the paranoid message, the
 * CPUs of system-wide counting, thread maps, the perf.data header features,
 * synthesized records, the CPU identification), and the real kernel's
 * implementation reads sysfs facts under PMUKIT_SYSFS and passes poll and
 * the mmap offset through. */
#include "helpers.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmukit/counting.h>
#include <pmukit/kernel.h>
#include <pmukit/perfdata.h>
#include <pmukit/record.h>

#include "../counting/fake_kernel.h"

static fake_kernel fk;

static int setup(void **state)
{
	(void)state;
	fake_kernel_init(&fk);
	return 0;
}

static pk_evlist *task_clock(bool system_wide)
{
	pk_evlist *l = pk_evlist_new();
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK};
	assert_non_null(pk_evlist_add(l, &a, "task-clock", NULL));
	pk_config_opts co = {.mode = PK_CONFIG_STAT, .system_wide = system_wide};
	assert_int_equal(pk_evlist_config(l, &co, NULL), 0);
	return l;
}

/* ---- facts of a fake host reach the output ---------------------------------- */

static void test_paranoid_from_host(void **state)
{
	(void)state;
	fk.host.num[PK_HOST_PARANOID] = 3;
	fk.fail_errno = EACCES;
	fk.fail_after = 0;
	pk_evlist *l = task_clock(true);
	pk_counting_opts o;
	pk_counting_opts_init(&o); /* paranoid INT_MIN: ask the kernel */
	o.kernel = &fk.k;
	o.cpus = pk_cpumap_parse("0", NULL);
	pk_error err;
	pk_error_clear(&err);
	pk_counting *c = pk_counting_new(l, &o, &err);
	assert_non_null(c);
	assert_int_equal(pk_counting_open(c, &err), -EACCES);
	assert_non_null(strstr(err.msg, "perf_event_paranoid is 3"));
	pk_counting_free(c);
	pk_cpumap_put(o.cpus);
	pk_evlist_put(l);
}

static void test_online_cpus_for_system_wide(void **state)
{
	(void)state;
	fk.host.online = "0,2,5-6";
	pk_error err;
	pk_error_clear(&err);
	pk_cpumap *cpus = pk_host_cpus(&fk.k, PK_HOST_CPUS_ONLINE, &err);
	assert_non_null(cpus);
	pk_evlist *l = task_clock(true);
	pk_counting_opts o;
	pk_counting_opts_init(&o);
	o.kernel = &fk.k;
	o.cpus = cpus;
	pk_counting *c = pk_counting_new(l, &o, &err);
	assert_non_null(c);
	assert_int_equal(pk_counting_open(c, &err), 0);
	assert_int_equal(fk.nr, 4);
	const int want[] = {0, 2, 5, 6};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(fk.ev[i].cpu, want[i]);
		assert_int_equal(fk.ev[i].pid, -1);
	}
	pk_counting_free(c);
	pk_cpumap_put(cpus);
	pk_evlist_put(l);
	/* a kernel that publishes no CPU set: an error naming the fact */
	fk.host.online = NULL;
	pk_error_clear(&err);
	assert_null(pk_host_cpus(&fk.k, PK_HOST_CPUS_ONLINE, &err));
	assert_int_equal(err.code, -ENOENT);
	assert_non_null(strstr(err.msg, "online CPUs"));
	assert_non_null(strstr(err.msg, "fake"));
}

static void test_threads_from_host(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	pk_threadmap *m = pk_threadmap_from_pids(&fk.k, "100", &err);
	assert_non_null(m);
	assert_int_equal(pk_threadmap_nr(m), 2);
	assert_int_equal(pk_threadmap_tid(m, 0), 100);
	assert_int_equal(pk_threadmap_tid(m, 1), 101);
	assert_string_equal(pk_threadmap_comm(m, 0), "fakeproc");
	assert_string_equal(pk_threadmap_comm(m, 1), "fakeworker");
	pk_threadmap_put(m);
	m = pk_threadmap_from_tids(&fk.k, "101,200", &err);
	assert_non_null(m);
	assert_string_equal(pk_threadmap_comm(m, 1), "other");
	pk_threadmap_put(m);
	/* the real host has no task 100's fake threads, the fake none of ours */
	assert_null(pk_threadmap_from_pids(&fk.k, "300", &err));
	assert_int_equal(err.code, -ESRCH);
	assert_non_null(strstr(err.msg, "300"));
	pk_error_clear(&err);
	assert_null(pk_threadmap_from_tids(&fk.k, "102", &err));
	assert_int_equal(err.code, -ESRCH);
}

static void test_cpuid_from_host(void **state)
{
	(void)state;
	char *saved = getenv("PMUKIT_CPUID") ? strdup(getenv("PMUKIT_CPUID")) : NULL;
	unsetenv("PMUKIT_CPUID");
	fk.host.cpuid = "AuthenticAMD-25-11-1";
	pk_cpuid id;
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_host_cpuid(&fk.k, &id, &err), 0);
	assert_int_equal(id.vendor, PK_VENDOR_AMD);
	assert_int_equal(id.family, 25);
	assert_int_equal(id.model, 0x11);
	setenv("PMUKIT_CPUID", "GenuineIntel-6-97-2", 1); /* the override wins */
	assert_int_equal(pk_host_cpuid(&fk.k, &id, &err), 0);
	assert_int_equal(id.vendor, PK_VENDOR_INTEL);
	unsetenv("PMUKIT_CPUID");
	fk.host.cpuid = NULL;
	assert_int_equal(pk_host_cpuid(&fk.k, &id, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "fake"));
	if (saved)
		setenv("PMUKIT_CPUID", saved, 1);
	free(saved);
}

static void test_numbers(void **state)
{
	(void)state;
	assert_int_equal(pk_host_number(&fk.k, PK_HOST_MAX_SAMPLE_RATE, 0), 100000);
	fk.host.num_missing = 1u << PK_HOST_MAX_SAMPLE_RATE;
	assert_int_equal(pk_host_number(&fk.k, PK_HOST_MAX_SAMPLE_RATE, 4000), 4000);
	assert_int_equal(pk_host_number(&fk.k, PK_HOST_PAGE_SIZE, 0), 4096);
}

/* A perf.data file with the host features of the fake kernel and the PMUs
 * of a fixture; returns its header. */
static void write_features(const pk_pmus *pmus, pk_pd_header *h, char **path_out)
{
	char *dir = pk_test_tmpdir();
	char *path = malloc(strlen(dir) + 16);
	sprintf(path, "%s/perf.data", dir);
	free(dir);
	pk_error err;
	pk_error_clear(&err);
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
				    .size = sizeof(a), .sample_period = 1000,
				    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID};
	uint64_t id = 1;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "task-clock", &id, 1, &err), 0);
	char *argv[] = {"pmukit", "record"};
	assert_int_equal(pk_pd_writer_host_features(w, &fk.k, pmus, 2, argv, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	/* one record: the reader takes a data size of 0 for "to the end of the
	 * file" and then finds no features (perf reads them) */
	pk_synth s = {.w = w, .sample_type = a.sample_type};
	assert_int_equal(pk_synth_finished_init(&s, &err), 0);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, &err), 0);
	assert_int_equal(pk_pd_header_read(r, h, &err), 0);
	pk_pd_reader_close(r);
	*path_out = path;
}

static void remove_file(char *path)
{
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	free(path);
}

static void test_header_features_from_host(void **state)
{
	(void)state;
	pk_error err;
	pk_error_clear(&err);
	pk_pmus *pmus = pk_pmus_load(pk_test_sysfs("alderlake"), &err);
	assert_non_null(pmus);
	pk_pd_header h;
	char *path;
	fk.host.present = "0-4"; /* one CPU offline */
	write_features(pmus, &h, &path);
	assert_string_equal(h.hostname, "fakehost");
	assert_string_equal(h.osrelease, "6.1.0-fake");
	assert_string_equal(h.arch, "x86_64");
	assert_string_equal(h.cpudesc, "Fake(R) Core(TM) i9-12900K");
	assert_string_equal(h.cpuid, "GenuineIntel,6,151,2");
	assert_true(h.has_nrcpus);
	assert_int_equal(h.nr_cpus_avail, 5);
	assert_int_equal(h.nr_cpus_online, 4);
	assert_int_equal(h.total_mem, 16318412);
	/* topology: one package, SMT pairs */
	assert_int_equal(h.nr_core_siblings, 1);
	assert_string_equal(h.core_siblings[0], "0-4");
	assert_int_equal(h.nr_thread_siblings, 3);
	assert_string_equal(h.thread_siblings[0], "0-1");
	assert_string_equal(h.thread_siblings[2], "4");
	assert_int_equal(h.nr_cpu_topo, 5);
	assert_int_equal(h.cpu_topo[3].core_id, 1);
	/* PMU_MAPPINGS: the fixture's PMUs, not this machine's */
	assert_int_equal(h.nr_pmu_mappings, pk_pmus_count(pmus));
	int seen = 0;
	for (uint32_t i = 0; i < h.nr_pmu_mappings; i++) {
		const pk_pmu *p = pk_pmus_find(pmus, h.pmu_mappings[i].name);
		assert_non_null(p);
		assert_int_equal(p->type, h.pmu_mappings[i].type);
		seen += !strcmp(p->name, "cpu_atom") || !strcmp(p->name, "cpu_core");
	}
	assert_int_equal(seen, 2);
	pk_pd_header_release(&h);
	remove_file(path);
	pk_pmus_put(pmus);
}

static void test_header_without_facts(void **state)
{
	(void)state;
	/* a kernel that publishes nothing: those features are left out */
	fk.host.online = fk.host.present = NULL;
	fk.host.cpuid = NULL;
	fk.host.num_missing = ~0u;
	pk_pd_header h;
	char *path;
	write_features(NULL, &h, &path);
	assert_false(h.has_nrcpus);
	assert_null(h.cpuid);
	assert_null(h.cpudesc);
	assert_int_equal(h.total_mem, 0);
	assert_int_equal(h.nr_core_siblings, 0);
	assert_int_equal(h.nr_pmu_mappings, 0);
	assert_string_equal(h.hostname, "fakehost");
	pk_pd_header_release(&h);
	remove_file(path);
}

static void test_synth_from_host(void **state)
{
	(void)state;
	char *dir = pk_test_tmpdir();
	char path[4096];
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	pk_error err;
	pk_error_clear(&err);
	pk_pd_writer *w;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .sample_period = 1000, .sample_type = PERF_SAMPLE_IP};
	uint64_t id = 1;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "cpu-clock", &id, 1, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	pk_synth s = {.w = w, .sample_type = a.sample_type, .kernel = &fk.k};
	assert_int_equal(pk_synth_kernel_mmap(&s, &err), 0);
	assert_int_equal(pk_synth_all_tasks(&s, &err), 0);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);

	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open(path, &(pk_pd_open_opts){.no_order = true}, &r, &err), 0);
	pk_pd_event ev;
	char got[1024] = "";
	while (pk_pd_next(r, &ev, &err) == 1) {
		char line[256] = "";
		pk_pd_rec_mmap m;
		pk_pd_rec_comm c;
		if ((ev.type == PERF_RECORD_MMAP || ev.type == PERF_RECORD_MMAP2) &&
		    pk_pd_rec_mmap_parse(&ev, &m, &err) == 0)
			snprintf(line, sizeof(line), "mmap %d %#llx+%#llx %s\n", (int)m.pid,
				 (unsigned long long)m.addr, (unsigned long long)m.len, m.filename);
		else if (ev.type == PERF_RECORD_COMM && pk_pd_rec_comm_parse(&ev, &c, &err) == 0)
			snprintf(line, sizeof(line), "comm %u/%u %s\n", c.pid, c.tid, c.comm);
		strncat(got, line, sizeof(got) - strlen(got) - 1);
	}
	pk_pd_reader_close(r);
	/* the fake's kernel text, its processes' threads and executable maps */
	assert_string_equal(got, "mmap -1 0xffffffff81000000+0x1000000 [kernel.kallsyms]_text\n"
				 "comm 100/100 fakeproc\n"
				 "comm 100/101 fakeworker\n"
				 "mmap 100 0x400000+0x1000 /usr/bin/fakeproc\n"
				 "comm 200/200 other\n"
				 "mmap 200 0x400000+0x1000 /usr/bin/fakeproc\n");
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* ---- the real kernel's implementation ---------------------------------------- */

static void test_linux_sysfs_root(void **state)
{
	(void)state;
	char *root = pk_test_tmpdir();
	pk_test_put_file(root, "devices/system/cpu/online", "0-2,5\n");
	pk_test_put_file(root, "devices/system/cpu/present", "0-7\n");
	pk_test_put_file(root, "devices/system/cpu/cpu1/topology/core_siblings_list", "0-3\n");
	pk_test_put_file(root, "devices/system/cpu/cpu1/topology/thread_siblings_list", "1,5\n");
	pk_test_put_file(root, "devices/system/cpu/cpu1/topology/core_id", "1\n");
	pk_test_put_file(root, "devices/system/cpu/cpu1/topology/physical_package_id", "0\n");
	setenv("PMUKIT_SYSFS", root, 1);
	const pk_kernel *k = pk_kernel_linux();
	pk_cpumap *m = pk_host_cpus(NULL, PK_HOST_CPUS_ONLINE, NULL);
	char list[64];
	pk_cpumap_format(m, list, sizeof(list));
	assert_string_equal(list, "0-2,5");
	pk_cpumap_put(m);
	pk_cpu_topology t;
	assert_int_equal(k->ops->host.topology(k, 1, &t), 0);
	assert_int_equal(t.core_id, 1);
	assert_int_equal(t.package_id, 0);
	assert_int_equal(t.die_id, -1);
	pk_cpumap_format(t.thread_siblings, list, sizeof(list));
	assert_string_equal(list, "1,5");
	assert_null(t.die_cpus);
	pk_cpu_topology_release(&t);
	assert_int_equal(k->ops->host.topology(k, 2, &t), -ENOENT);
	/* malformed: an error, not a guess */
	pk_test_put_file(root, "devices/system/cpu/online", "0-x\n");
	assert_null(pk_host_cpus(NULL, PK_HOST_CPUS_ONLINE, NULL));
	unsetenv("PMUKIT_SYSFS");
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	free(root);
}

static int count_tid(void *arg, pid_t tid)
{
	if (tid == getpid())
		++*(int *)arg;
	return 0;
}

static int find_exec_map(void *arg, const pk_host_map *m)
{
	if ((m->prot & PROT_EXEC) && strstr(m->name, "test_kernel_seam"))
		++*(int *)arg;
	return 0;
}

static void test_linux_tasks(void **state)
{
	(void)state;
	const pk_kernel *k = pk_kernel_linux();
	pk_host_task t;
	assert_int_equal(k->ops->host.task(k, getpid(), &t), 0);
	assert_int_equal(t.tgid, getpid());
	assert_string_equal(t.comm, "test_kernel_sea"); /* comm keeps 15 bytes */
	int n = 0;
	assert_int_equal(k->ops->host.tasks(k, getpid(), count_tid, &n), 0);
	assert_int_equal(n, 1);
	n = 0;
	assert_int_equal(k->ops->host.tasks(k, 0, count_tid, &n), 0);
	assert_int_equal(n, 1);
	n = 0;
	assert_int_equal(k->ops->host.maps(k, getpid(), find_exec_map, &n), 0);
	assert_true(n >= 1);
	assert_int_equal(k->ops->host.task(k, 2147483000, &t), -ESRCH);
	assert_int_equal(k->ops->host.tasks(k, 2147483000, count_tid, &n), -ESRCH);
	assert_int_equal(pk_host_number(NULL, PK_HOST_PAGE_SIZE, 0), sysconf(_SC_PAGESIZE));
	struct utsname u;
	assert_int_equal(k->ops->host.uname(k, &u), 0);
	assert_true(u.release[0] != '\0');
}

/* poll and the mmap offset reach the kernel: a software sampling event on
 * ourselves, its ring at offset 0, and an AUX area at aux_offset, which a
 * PMU without AUX support refuses with EOPNOTSUPP (an offset lost on the
 * way would remap the ring and give EINVAL). */
static void test_linux_poll_and_mmap_offset(void **state)
{
	(void)state;
	const pk_kernel *k = pk_kernel_linux();
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
				    .size = sizeof(a), .sample_period = 1000000, .disabled = 1,
				    .exclude_kernel = 1, .exclude_hv = 1};
	int fd = k->ops->open(k, &a, 0, -1, -1, 0);
	if (fd < 0)
		skip(); /* perf_event_open not allowed here */
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 2 * page;
	void *base;
	assert_int_equal(k->ops->mmap(k, fd, len, PROT_READ | PROT_WRITE, 0, &base), 0);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	assert_int_equal(k->ops->poll(k, &p, 1, 0), 0); /* nothing written yet */
	struct perf_event_mmap_page *pg = base;
	pg->aux_offset = len;
	pg->aux_size = page;
	void *aux;
	assert_int_equal(k->ops->mmap(k, fd, page, PROT_READ | PROT_WRITE, len, &aux), -EOPNOTSUPP);
	assert_int_equal(k->ops->mmap(k, fd, page, PROT_READ, UINT64_MAX, &aux), -EINVAL);
	assert_int_equal(k->ops->munmap(k, base, len), 0);
	assert_int_equal(k->ops->close(k, fd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_paranoid_from_host, setup),
		cmocka_unit_test_setup(test_online_cpus_for_system_wide, setup),
		cmocka_unit_test_setup(test_threads_from_host, setup),
		cmocka_unit_test_setup(test_cpuid_from_host, setup),
		cmocka_unit_test_setup(test_numbers, setup),
		cmocka_unit_test_setup(test_header_features_from_host, setup),
		cmocka_unit_test_setup(test_header_without_facts, setup),
		cmocka_unit_test_setup(test_synth_from_host, setup),
		cmocka_unit_test(test_linux_sysfs_root),
		cmocka_unit_test(test_linux_tasks),
		cmocka_unit_test(test_linux_poll_and_mmap_offset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
