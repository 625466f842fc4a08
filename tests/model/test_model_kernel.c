/* The PMU model's kernel through the pk_kernel seam (issue 8): read layouts,
 * the PERF_METRICS arithmetic over many reads, IOC_RESET, two slots groups
 * rotating on fixed counter 3 (save/restore), enable/disable, the errnos of
 * refusals with their reasons, poll, the host facts, where bundled machines
 * are found, and determinism. Truths come from the parsed scenario. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"
#include "model/mkernel.h"

#define MS 1000000ull

static const char *example(const char *name)
{
	static char path[4096];
	const char *src = getenv("PK_SRCDIR");
	snprintf(path, sizeof(path), "%s/examples/model/%s", src ? src : ".", name);
	return path;
}

static pk_model *model(const char *name)
{
	return pk_test_model(example(name));
}

/* The model and, for the truths, the scenario as parsed. */
static pk_model *model_and_scenario(const char *name, pki_scenario *s)
{
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pki_scenario_load(example(name), s, &err), 0);
	return model(name);
}

static struct perf_event_attr raw(uint64_t config, uint64_t rf)
{
	struct perf_event_attr a = {.type = PERF_TYPE_RAW, .size = sizeof(a), .config = config,
				    .read_format = rf};
	return a;
}

/* slots leader and the 8 metric events of SPR on thread 1001; fds[0..8]. */
static void open_topdown(const pk_kernel *k, int fds[9], uint64_t rf)
{
	struct perf_event_attr a = raw(0x0400, rf);
	fds[0] = k->ops->open(k, &a, 1001, -1, -1, 0);
	assert_true(fds[0] >= 0);
	for (int i = 0; i < 8; i++) {
		a = raw(0x8000 + 0x100u * (unsigned)i, rf);
		fds[1 + i] = k->ops->open(k, &a, 1001, -1, fds[0], 0);
		assert_true(fds[1 + i] >= 0);
	}
}

/* A group read: slots then the metrics into v[0..8]; returns time enabled. */
static uint64_t read_group(const pk_kernel *k, int leader, uint64_t v[9], uint64_t *run)
{
	uint64_t buf[64];
	uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
		      PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	ssize_t n = k->ops->read(k, leader, buf, sizeof(buf));
	(void)rf;
	assert_int_equal(n, (ssize_t)(3 + 9 * 2) * 8);
	assert_int_equal(buf[0], 9);
	for (int i = 0; i < 9; i++)
		v[i] = buf[3 + 2 * i];
	if (run)
		*run = buf[2];
	return buf[1];
}

static const uint64_t GROUP_RF = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;

static double share_between(const pki_thread *t, int node, double from_ms, double to_ms)
{
	double num = 0, den = 0, start = 0;
	for (size_t i = 0; i < t->nr_phases; i++) {
		double a = fmax(start, from_ms), b = fmin(start + t->phases[i].ms, to_ms);
		if (b > a) {
			num += (b - a) * t->phases[i].ghz * t->phases[i].tma[node];
			den += (b - a) * t->phases[i].ghz;
		}
		start += t->phases[i].ms;
	}
	return num / den;
}

static void test_read_layout(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	int fds[9];
	uint64_t v[9], run, id = 0, buf[8];
	open_topdown(k, fds, GROUP_RF);
	assert_int_equal(k->ops->ioctl(k, fds[3], PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	pk_model_advance(m, 100 * MS);
	assert_int_equal(read_group(k, fds[0], v, &run), 100 * MS);
	assert_int_equal(run, 100 * MS);
	/* slots = cycles x width of the CPU's row, within the rounding of 4 nodes */
	const pki_counters *row = pki_counters_find(pk_model_cpuid(m), "cpu", NULL);
	double want = 100 * 3.0e6 * row->width;
	assert_true(fabs((double)v[0] - want) <= 4);
	/* the id in a group read is IOC_ID's */
	assert_int_equal(k->ops->read(k, fds[0], buf, 8), -ENOSPC);
	uint64_t big[64];
	k->ops->read(k, fds[0], big, sizeof(big));
	assert_int_equal(big[3 + 2 * 3 + 1], id); /* fds[3]: the group's 4th */
	/* a plain read of a member: value, enabled, running, id */
	struct perf_event_attr a = raw(0x0400, PERF_FORMAT_TOTAL_TIME_ENABLED |
						 PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID);
	int fd = k->ops->open(k, &a, 1001, -1, -1, 0);
	pk_model_advance(m, 10 * MS);
	assert_int_equal(k->ops->read(k, fd, buf, sizeof(buf)), 32);
	assert_int_equal(buf[1], 10 * MS);
	pk_model_free(m);
}

/* 1000 reads of 1 ms (each clears the registers): the accumulated metric
 * counts are within S/255 + N of S x share (docs/model.md). */
static void test_many_reads(void **state)
{
	(void)state;
	pki_scenario s;
	pk_model *m = model_and_scenario("sapphirerapids.json", &s);
	const pk_kernel *k = pk_model_kernel(m);
	int fds[9], reads = 0;
	uint64_t v[9];
	open_topdown(k, fds, GROUP_RF);
	for (bool more = true; more; reads++) {
		more = pk_model_advance(m, MS);
		read_group(k, fds[0], v, NULL); /* counts accumulate, as the kernel's */
	}
	assert_int_equal(reads, 1000);
	double S = (double)v[0];
	for (int i = 0; i < 8; i++) {
		double want = S * share_between(&s.threads[0], i, 0, 1000);
		if (fabs((double)v[1 + i] - want) > S / 255 + reads)
			fail_msg("field %d: %f vs %f", i, (double)v[1 + i], want);
	}
	pk_model_free(m);
	pki_scenario_release(&s);
}

/* IOC_RESET starts a new period: the next read covers only what follows. */
static void test_reset(void **state)
{
	(void)state;
	pki_scenario s;
	pk_model *m = model_and_scenario("sapphirerapids.json", &s);
	const pk_kernel *k = pk_model_kernel(m);
	int fds[9];
	uint64_t v[9];
	open_topdown(k, fds, GROUP_RF);
	pk_model_advance(m, 300 * MS);
	assert_int_equal(k->ops->ioctl(k, fds[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP), 0);
	pk_model_advance(m, 400 * MS);
	read_group(k, fds[0], v, NULL);
	assert_true(fabs((double)v[0] - 400 * 3.0e6 * 6) <= 8);
	for (int i = 0; i < 4; i++) {
		double ratio = (double)v[1 + i] / (double)v[0];
		double want = share_between(&s.threads[0], i, 300, 700);
		if (fabs(ratio - want) > 1.0 / 255)
			fail_msg("node %d after reset: %f vs %f", i, ratio, want);
	}
	pk_model_free(m);
	pki_scenario_release(&s);
}

/* Two slots groups share fixed counter 3: they rotate at the mux interval,
 * each saved at switch-out (pki_pm_save) and continued at switch-in. Read
 * every ms, each group's counts stay within 2 S/255 + (reads + switches)
 * of S x share (a read after a switch-in covers the saved part too), and
 * together they ran the whole time. */
static void test_two_slots_groups(void **state)
{
	(void)state;
	pki_scenario s;
	pk_model *m = model_and_scenario("sapphirerapids.json", &s);
	const pk_kernel *k = pk_model_kernel(m);
	int a[9], b[9];
	uint64_t va[9], vb[9], ra, rb;
	open_topdown(k, a, GROUP_RF);
	open_topdown(k, b, GROUP_RF);
	/* mid-way through the second switch: the group that is out shows what
	 * it counted up to its switch-out (saved), the other what it runs */
	double per_ns = 3.0 * 6; /* slots per ns: 3 GHz x SPR's width */
	pk_model_advance(m, 6 * MS);
	uint64_t ea = read_group(k, a[0], va, &ra), eb = read_group(k, b[0], vb, &rb);
	assert_int_equal(ra + rb, 6 * MS);
	assert_true(ra > 0 && rb > 0);
	assert_true(fabs((double)va[0] - (double)ra * per_ns) <= 8);
	assert_true(fabs((double)vb[0] - (double)rb * per_ns) <= 8);
	for (int i = 6; i < 1000; i++) {
		pk_model_advance(m, MS);
		ea = read_group(k, a[0], va, &ra);
		eb = read_group(k, b[0], vb, &rb);
	}
	assert_int_equal(ea, 1000 * MS);
	assert_int_equal(eb, 1000 * MS);
	assert_true(ra < ea && rb < eb);
	assert_int_equal(ra + rb, 1000 * MS);
	uint64_t switches = 1000 * MS / m->mux_ns;
	for (int g = 0; g < 2; g++) {
		uint64_t *v = g ? vb : va;
		for (int i = 0; i < 4; i++) {
			double S = (double)v[0];
			double want = S * share_between(&s.threads[0], i, 0, 1000);
			if (fabs((double)v[1 + i] - want) > S / 255 * 2 + 1000.0 + (double)switches)
				fail_msg("group %d node %d: %f vs %f", g, i, (double)v[1 + i], want);
		}
	}
	pk_model_free(m);
	pki_scenario_release(&s);
}

static void test_enable_disable(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = {.type = PERF_TYPE_HARDWARE, .size = sizeof(a),
				    .config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1,
				    .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED};
	uint64_t buf[2];
	int fd = k->ops->open(k, &a, 1001, -1, -1, 0);
	assert_true(fd >= 0);
	pk_model_advance(m, 10 * MS);
	k->ops->read(k, fd, buf, sizeof(buf));
	assert_int_equal(buf[0], 0);
	assert_int_equal(buf[1], 0);
	k->ops->ioctl(k, fd, PERF_EVENT_IOC_ENABLE, 0);
	pk_model_advance(m, 10 * MS);
	k->ops->ioctl(k, fd, PERF_EVENT_IOC_DISABLE, 0);
	pk_model_advance(m, 10 * MS);
	k->ops->read(k, fd, buf, sizeof(buf));
	assert_int_equal(buf[0], 10 * 3000000);
	assert_int_equal(buf[1], 10 * MS);
	pk_model_free(m);
}

static void expect_refused(const pk_kernel *k, struct perf_event_attr *a, pid_t pid, int cpu,
			   int group, int code, const char *why)
{
	char reason[512] = "";
	int r = k->ops->open(k, a, pid, cpu, group, 0);
	assert_int_equal(r, code);
	k->ops->explain(k, reason, sizeof(reason));
	if (!strstr(reason, why))
		fail_msg("want '%s' in '%s'", why, reason);
}

static void expect_mmap_refused(const pk_kernel *k, int fd, size_t len, int prot, const char *why)
{
	char reason[512] = "";
	void *p;
	assert_true(k->ops->mmap(k, fd, len, prot, 0, &p) < 0);
	k->ops->explain(k, reason, sizeof(reason));
	if (!strstr(reason, why))
		fail_msg("want '%s' in '%s'", why, reason);
}

static void test_refusals(void **state)
{
	(void)state;
	pk_model *m = model("sapphirerapids.json");
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = raw(0x8000, 0);
	expect_refused(k, &a, 1001, -1, -1, -EINVAL, "slots group leader");
	a = raw(0x0400, 0);
	expect_refused(k, &a, 4242, -1, -1, -ESRCH, "no task 4242");
	expect_refused(k, &a, -1, -1, -1, -EINVAL, "needs a CPU");
	expect_refused(k, &a, -1, 99, -1, -ENODEV, "CPU 99");
	a.size = 8;
	expect_refused(k, &a, 1001, -1, -1, -E2BIG, "attr.size 8");
	a = (struct perf_event_attr){.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_PAGE_FAULTS};
	expect_refused(k, &a, 1001, -1, -1, -ENOENT, "no software event");
	a = raw(0x01d1, 0); /* MEM_LOAD_RETIRED.L1_HIT: the table has no count for it */
	expect_refused(k, &a, 1001, -1, -1, -ENOENT, "no count");
	a = raw(0x0400, 0);
	int fd = k->ops->open(k, &a, 1001, -1, -1, 0);
	void *p;
	/* perf_mmap's rule (1 + 2^n pages) and the overwrite ring, not modeled */
	expect_mmap_refused(k, fd, 4 * 4096, PROT_READ | PROT_WRITE, "1 + 2^n pages");
	expect_mmap_refused(k, fd, 2 * 4096, PROT_READ, "overwrite ring");
	assert_int_equal(k->ops->mmap(k, fd, 4096, PROT_READ, 4096, &p), -EINVAL);
	assert_int_equal(k->ops->close(k, fd), 0);
	assert_int_equal(k->ops->close(k, fd), -EBADF);
	pk_model_free(m);
}

static void test_poll(void **state)
{
	(void)state;
	pk_model *m = model("alderlake-hybrid.json");
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_TASK_CLOCK};
	struct pollfd p = {.fd = k->ops->open(k, &a, 4001, -1, -1, 0)};
	assert_true(p.fd >= 0);
	assert_true(pk_model_advance(m, 999 * MS));
	assert_int_equal(k->ops->poll(k, &p, 1, 0), 0);
	assert_false(pk_model_advance(m, 1 * MS));
	assert_int_equal(k->ops->poll(k, &p, 1, 0), 1);
	assert_int_equal(p.revents, POLLHUP);
	pk_model_free(m);
}

static int collect(void *arg, pid_t tid)
{
	int *v = arg;
	v[++v[0]] = tid;
	return 0;
}

static void test_host(void **state)
{
	(void)state;
	pk_model *m = model("alderlake-hybrid.json");
	const pk_kernel *k = pk_model_kernel(m);
	pk_cpumap *cpus = pk_host_cpus(k, PK_HOST_CPUS_ONLINE, NULL);
	char list[64];
	pk_cpumap_format(cpus, list, sizeof(list));
	assert_string_equal(list, "0-23"); /* cpu_core 0-15 + cpu_atom 16-23 in the tree */
	pk_cpumap_put(cpus);
	pk_host_cpu c;
	assert_int_equal(k->ops->host.cpu(k, &c), 0);
	assert_string_equal(c.id.str, pk_model_cpuid(m)->str);
	assert_non_null(strstr(c.model_name, "model"));
	struct utsname u;
	k->ops->host.uname(k, &u);
	assert_string_equal(u.release, "model");
	int tids[8] = {0};
	assert_int_equal(k->ops->host.tasks(k, 0, collect, tids), 0);
	assert_int_equal(tids[0], 2);
	assert_int_equal(tids[1], 4001);
	char comm[64];
	assert_string_equal(pk_host_comm(k, 4002, comm, sizeof(comm)), "ecore-only");
	assert_int_equal(k->ops->host.tasks(k, 77, collect, tids), -ESRCH);
	uint64_t s, e;
	assert_int_equal(k->ops->host.kernel_text(k, &s, &e), -ENOENT);
	pk_model_free(m);
	/* SMT from the scenario: siblings 0-1 on the Skylake example */
	m = model("skylake.json");
	k = pk_model_kernel(m);
	pk_cpu_topology t;
	assert_int_equal(k->ops->host.topology(k, 1, &t), 0);
	pk_cpumap_format(t.thread_siblings, list, sizeof(list));
	assert_string_equal(list, "0-1");
	pk_cpu_topology_release(&t);
	pk_model_free(m);
}

static void test_machines(void **state)
{
	(void)state;
	char root[4096], *tmp = pk_test_tmpdir();
	pk_error err;
	pk_error_clear(&err);
	setenv("PMUKIT_MACHINES", tmp, 1);
	assert_int_equal(pki_machine_root("nosuch", root, sizeof(root), &err), -ENOENT);
	assert_non_null(strstr(err.msg, tmp));
	assert_non_null(strstr(err.msg, "machine 'nosuch'"));
	/* the override wins over the source tree */
	char link[4096];
	snprintf(link, sizeof(link), "%s/sapphirerapids", tmp);
	assert_int_equal(symlink(pk_test_sysfs("sapphirerapids"), link), 0);
	assert_int_equal(pki_machine_root("sapphirerapids", root, sizeof(root), &err), 0);
	assert_string_equal(root, link);
	unsetenv("PMUKIT_MACHINES");
	assert_int_equal(pki_machine_root("sapphirerapids", root, sizeof(root), &err), 0);
	assert_string_not_equal(root, link);
	unlink(link);
	rmdir(tmp);
	free(tmp);
}

/* The model of dir/s.json (its path into path[4096]). */
static pk_model *model_in(const char *dir, char *path)
{
	snprintf(path, 4096, "%s/s.json", dir);
	return pk_test_model(path);
}

/* A machine given as a relative path is found from the scenario's folder. */
static void test_machine_path(void **state)
{
	(void)state;
	char *tmp = pk_test_tmpdir(), link[4096], path[4096];
	snprintf(link, sizeof(link), "%s/m", tmp);
	assert_int_equal(symlink(pk_test_sysfs("icelake"), link), 0);
	pk_test_put_file(tmp, "s.json",
			 "{\"machine\": \"./m\", \"cpuid\": \"GenuineIntel-6-7E-5\", \"threads\": "
			 "[{\"tid\": 7, \"comm\": \"t\", \"cpu\": 0, \"phases\": [{\"ms\": 10, "
			 "\"ghz\": 1, \"tma\": {\"retiring\": 1, \"bad_speculation\": 0, "
			 "\"frontend_bound\": 0, \"backend_bound\": 0}}]}]}");
	pk_model *m = model_in(tmp, path);
	assert_non_null(strstr(pk_model_sysfs_root(m), tmp));
	pk_model_free(m);
	unlink(link);
	unlink(path);
	rmdir(tmp);
	free(tmp);
}

/* A machine path that is not a sysfs tree (a file, an empty folder): the
 * error names the scenario and the key, and gives no sysfs hint (issue 26). */
static void test_machine_not_tree(void **state)
{
	(void)state;
	char *tmp = pk_test_tmpdir(), path[4096], text[1024];
	pk_test_put_file(tmp, "file", "not a tree\n");
	const char *names[] = {"file", "."};
	for (int i = 0; i < 2; i++) {
		snprintf(text, sizeof(text),
			 "{\"machine\": \"./%s\", \"cpuid\": \"GenuineIntel-6-7E-5\", \"threads\": "
			 "[{\"tid\": 7, \"comm\": \"t\", \"cpu\": 0, \"phases\": [{\"ms\": 10, "
			 "\"ghz\": 1, \"tma\": {\"retiring\": 1, \"bad_speculation\": 0, "
			 "\"frontend_bound\": 0, \"backend_bound\": 0}}]}]}", names[i]);
		pk_test_put_file(tmp, "s.json", text);
		snprintf(path, sizeof(path), "%s/s.json", tmp);
		pk_error err;
		pk_error_clear(&err);
		assert_null(pk_model_new(path, &err));
		assert_int_equal(err.code, -EINVAL);
		assert_string_equal(err.subject, "scenario");
		assert_string_equal(err.where, path);
		assert_non_null(strstr(err.msg, "machine: \"./"));
		assert_non_null(strstr(err.msg, "not a machine's sysfs tree"));
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/file", tmp);
	unlink(path);
	rmdir(tmp);
	free(tmp);
}

/* {slots,topdown-retiring} over an all-retiring phase on Ice Lake under the
 * scenario's "kernel" (issue 26): retiring = slots with the current driver,
 * slots x 65279 / 65536 (0.39 % less) with the 2019 patch's fixed point. */
static uint64_t retiring_under(const char *kernel, uint64_t *slots)
{
	char *tmp = pk_test_tmpdir(), path[4096], text[1024];
	snprintf(text, sizeof(text),
		 "{\"machine\": \"icelake\"%s%s%s, \"threads\": [{\"tid\": 7, \"comm\": \"t\", "
		 "\"cpu\": 0, \"phases\": [{\"ms\": 10, \"ghz\": 1, \"tma\": {\"retiring\": 1, "
		 "\"bad_speculation\": 0, \"frontend_bound\": 0, \"backend_bound\": 0}}]}]}",
		 kernel ? ", \"kernel\": \"" : "", kernel ? kernel : "", kernel ? "\"" : "");
	pk_test_put_file(tmp, "s.json", text);
	pk_model *m = model_in(tmp, path);
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = raw(0x0400, GROUP_RF);
	int l = k->ops->open(k, &a, 7, -1, -1, 0);
	a = raw(0x8000, GROUP_RF);
	assert_true(l >= 0 && k->ops->open(k, &a, 7, -1, l, 0) >= 0);
	pk_model_advance(m, 10 * MS);
	uint64_t buf[16];
	assert_int_equal(k->ops->read(k, l, buf, sizeof(buf)), 7 * 8);
	*slots = buf[3];
	pk_model_free(m);
	unlink(path);
	rmdir(tmp);
	free(tmp);
	return buf[5];
}

static void test_kernel_arithmetic(void **state)
{
	(void)state;
	uint64_t slots, ret = retiring_under(NULL, &slots);
	assert_int_equal(slots, 10 * MS * 5); /* 1 GHz x width 5 */
	assert_int_equal(ret, slots);
	assert_int_equal(retiring_under("current", &slots), slots);
	assert_int_equal(retiring_under("icl-patch-2019", &slots), slots * 65279 >> 16);
	pk_error err;
	pk_error_clear(&err);
	const char *bad = "{\"machine\": \"icelake\", \"kernel\": \"5.4\", \"threads\": []}";
	pki_scenario s;
	assert_int_equal(pki_scenario_parse(bad, strlen(bad), NULL, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "kernel: \"5.4\": expected \"current\""));
}

/* A thread's event on one CPU runs only while the thread is there (the
 * hybrid thread's atom phase, on CPU 17: CPU 16 is 4002's, so it moves to
 * an idle E-core, issue 26); a member's group read reads the
 * whole group. */
static void test_task_on_cpu(void **state)
{
	(void)state;
	pk_model *m = model("alderlake-hybrid.json");
	const pk_kernel *k = pk_model_kernel(m);
	struct perf_event_attr a = {.type = PERF_TYPE_HARDWARE, .size = sizeof(a),
				    .config = PERF_COUNT_HW_CPU_CYCLES | (8ull << 32),
				    .read_format = GROUP_RF};
	int l = k->ops->open(k, &a, 4001, 17, -1, 0);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	int mem = k->ops->open(k, &a, 4001, 17, l, 0);
	assert_true(l >= 0 && mem >= 0);
	pk_model_advance(m, 1000 * MS);
	uint64_t buf[16];
	assert_int_equal(k->ops->read(k, mem, buf, sizeof(buf)), 7 * 8);
	assert_int_equal(buf[0], 2);
	assert_int_equal(buf[1], 1000 * MS); /* enabled while the thread runs */
	assert_int_equal(buf[2], 700 * MS);  /* running while it is on CPU 17 */
	assert_int_equal(buf[3], 700 * 3600000ull);
	assert_int_equal(buf[5], 700 * MS);
	pk_model_free(m);
}

/* Two models, the same calls: the same bytes. */
static void test_deterministic(void **state)
{
	(void)state;
	uint64_t out[2][64];
	for (int r = 0; r < 2; r++) {
		pk_model *m = model("alderlake-hybrid.json");
		const pk_kernel *k = pk_model_kernel(m);
		struct perf_event_attr a = {.type = PERF_TYPE_HARDWARE, .size = sizeof(a),
					    .config = PERF_COUNT_HW_INSTRUCTIONS | (8ull << 32),
					    .read_format = GROUP_RF};
		int fd = k->ops->open(k, &a, 4001, -1, -1, 0);
		assert_true(fd >= 0);
		pk_model_advance(m, 777 * MS);
		memset(out[r], 0, sizeof(out[r]));
		k->ops->read(k, fd, out[r], sizeof(out[r]));
		pk_model_free(m);
	}
	assert_memory_equal(out[0], out[1], sizeof(out[0]));
	assert_true(out[0][1] > out[0][2]); /* cpu_atom ran only part of the time */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_layout),   cmocka_unit_test(test_many_reads),
		cmocka_unit_test(test_reset),         cmocka_unit_test(test_two_slots_groups),
		cmocka_unit_test(test_enable_disable), cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_poll),          cmocka_unit_test(test_host),
		cmocka_unit_test(test_machines),      cmocka_unit_test(test_machine_path),
		cmocka_unit_test(test_machine_not_tree),
		cmocka_unit_test(test_kernel_arithmetic),
		cmocka_unit_test(test_task_on_cpu),   cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
