/* The header features record writes from the host facts: NRCPUS on a fake
 * host's CPU sets (2 and 96 CPUs, one offline: "nrcpus avail" is the
 * highest present CPU + 1, never a parse of "0-1" as a number); NUMA_TOPOLOGY,
 * CACHE, MEM_TOPOLOGY and the kernel's build id through the real kernel's
 * implementation over a sysfs tree written by the test (PMUKIT_SYSFS),
 * checked byte by byte against the layouts of docs/perfdata.md; a kernel
 * without those facts (the fake) gets none of those features; BUILD_ID
 * entries for exactly the objects samples hit, the kernel first. */
#include "helpers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A new file <tmpdir>/perf.data with one cpu-clock event sampling st;
 * returns the directory. */
static char *new_file(uint64_t st, char *path, size_t len, pk_pd_writer **w)
{
	char *dir = pk_test_tmpdir();
	snprintf(path, len, "%s/perf.data", dir);
	assert_int_equal(pk_pd_writer_open(path, false, w, NULL), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .sample_period = 1000, .sample_type = st};
	uint64_t id = 1;
	assert_int_equal(pk_pd_writer_add_evsel(*w, &a, 0, "cpu-clock", &id, 1, NULL), 0);
	return dir;
}

/* Writes a file with k's host features and opens it again. */
static pk_pd_reader *features_of(const pk_kernel *k, char **dir_out)
{
	char path[4096];
	pk_error err;
	pk_error_clear(&err);
	pk_pd_writer *w;
	struct perf_event_attr a = {.sample_type = PERF_SAMPLE_IP};
	char *dir = new_file(a.sample_type, path, sizeof(path), &w);
	char *argv[] = {"pmukit"};
	assert_int_equal(pk_pd_writer_host_features(w, k, NULL, 1, argv, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	pk_synth s = {.w = w, .sample_type = a.sample_type};
	assert_int_equal(pk_synth_finished_init(&s, &err), 0);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, &err), 0);
	*dir_out = dir;
	return r;
}

static void done(pk_pd_reader *r, char *dir)
{
	if (r)
		pk_pd_reader_close(r);
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

static void nrcpus_of(const char *present, const char *online, uint32_t avail, uint32_t nr_online)
{
	fk.host.present = present;
	fk.host.online = online;
	char *dir;
	pk_pd_reader *r = features_of(&fk.k, &dir);
	pk_pd_header h;
	assert_int_equal(pk_pd_header_read(r, &h, NULL), 0);
	assert_true(h.has_nrcpus);
	assert_int_equal(h.nr_cpus_avail, avail);
	assert_int_equal(h.nr_cpus_online, nr_online);
	/* one topology entry per available CPU */
	assert_int_equal(h.nr_cpu_topo, avail);
	pk_pd_header_release(&h);
	/* the fake publishes no nodes, caches, memory blocks or build ids */
	assert_false(pk_pd_has_feature(r, PK_FEAT_NUMA_TOPOLOGY));
	assert_false(pk_pd_has_feature(r, PK_FEAT_CACHE));
	assert_false(pk_pd_has_feature(r, PK_FEAT_MEM_TOPOLOGY));
	assert_true(pk_pd_has_feature(r, PK_FEAT_BPF_PROG_INFO));
	done(r, dir);
}

static void test_nrcpus(void **state)
{
	(void)state;
	nrcpus_of("0-1", "0-1", 2, 2);
	nrcpus_of("0-95", "0-95", 96, 96);
	nrcpus_of("0-95", "0-47,49-95", 96, 95);
}

/* ---- the real kernel's implementation over a written sysfs tree ---------- */

static uint32_t u32_at(const uint8_t *p, size_t off)
{
	uint32_t v;
	memcpy(&v, p + off, 4);
	return v;
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
	uint64_t v;
	memcpy(&v, p + off, 8);
	return v;
}

static void put_cache(const char *root, int cpu, int idx, const char *level, const char *type,
		      const char *size, const char *shared)
{
	const char *names[] = {"level", "type", "size", "shared_cpu_list", "coherency_line_size",
			       "number_of_sets", "ways_of_associativity"};
	const char *vals[] = {level, type, size, shared, "64", "64", "8"};
	for (int i = 0; i < 7; i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index%d/%s", cpu, idx,
			 names[i]);
		pk_test_put_file(root, rel, vals[i]);
	}
}

static char *write_tree(void)
{
	char *root = pk_test_tmpdir();
	pk_test_put_file(root, "devices/system/cpu/online", "0-1\n");
	pk_test_put_file(root, "devices/system/cpu/present", "0-1\n");
	pk_test_put_file(root, "devices/system/node/online", "0\n");
	pk_test_put_file(root, "devices/system/node/node0/meminfo",
			 "Node 0 MemTotal:       1000 kB\nNode 0 MemFree:         250 kB\n");
	pk_test_put_file(root, "devices/system/node/node0/cpulist", "0-1\n");
	pk_test_put_file(root, "devices/system/node/node0/memory1", "");
	pk_test_put_file(root, "devices/system/node/node0/memory66", "");
	pk_test_put_file(root, "devices/system/memory/block_size_bytes", "8000000\n");
	/* cpu0: L1d, L2 shared; cpu1: its own L1d, the same L2 */
	put_cache(root, 0, 0, "1", "Data", "32K", "0");
	put_cache(root, 0, 1, "2", "Unified", "512K", "0-1");
	put_cache(root, 1, 0, "1", "Data", "32K", "1");
	put_cache(root, 1, 1, "2", "Unified", "512K", "0-1");
	return root;
}

static void check_cache(const uint8_t *p, size_t len)
{
	/* version 1, 3 distinct caches by level: L1 cpu0, L1 cpu1, L2 */
	assert_int_equal(u32_at(p, 0), 1);
	assert_int_equal(u32_at(p, 4), 3);
	size_t off = 8;
	const char *want[3][3] = {{"Data", "32K", "0"}, {"Data", "32K", "1"},
				  {"Unified", "512K", "0-1"}};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(u32_at(p, off), i < 2 ? 1 : 2);
		assert_int_equal(u32_at(p, off + 4), 64);
		off += 16;
		for (int s = 0; s < 3; s++) {
			assert_int_equal(u32_at(p, off), 64); /* padded to 64 */
			assert_string_equal((const char *)p + off + 4, want[i][s]);
			off += 4 + 64;
		}
	}
	assert_int_equal(off, len);
}

static void test_linux_memory_facts(void **state)
{
	(void)state;
	char *root = write_tree();
	setenv("PMUKIT_SYSFS", root, 1);
	char *dir;
	pk_pd_reader *r = features_of(pk_kernel_linux(), &dir);
	const uint8_t *p;
	size_t len;
	/* NUMA: u32 nr; {u32 node; u64 total; u64 free; string cpus} */
	assert_int_equal(pk_pd_feature_raw(r, PK_FEAT_NUMA_TOPOLOGY, &p, &len, NULL), 0);
	assert_int_equal(len, 4 + 4 + 16 + 4 + 64);
	assert_int_equal(u32_at(p, 0), 1);
	assert_int_equal(u32_at(p, 4), 0);
	assert_int_equal(u64_at(p, 8), 1000);
	assert_int_equal(u64_at(p, 16), 250);
	assert_string_equal((const char *)p + 28, "0-1");
	assert_int_equal(pk_pd_feature_raw(r, PK_FEAT_CACHE, &p, &len, NULL), 0);
	check_cache(p, len);
	/* MEM_TOPOLOGY: blocks 1 and 66 of node 0, 67 bits in two words */
	assert_int_equal(pk_pd_feature_raw(r, PK_FEAT_MEM_TOPOLOGY, &p, &len, NULL), 0);
	assert_int_equal(len, 24 + 24 + 16);
	assert_int_equal(u64_at(p, 0), 1);
	assert_int_equal(u64_at(p, 8), 0x8000000);
	assert_int_equal(u64_at(p, 16), 1);
	assert_int_equal(u64_at(p, 24), 0);
	assert_int_equal(u64_at(p, 32), 67);
	assert_int_equal(u64_at(p, 40), 67);
	assert_int_equal(u64_at(p, 48), 1u << 1);
	assert_int_equal(u64_at(p, 56), 1u << 2);
	done(r, dir);

	/* the kernel's build id from its notes: one GNU note after another */
	uint8_t notes[16 + 8 + 16 + 20] = {0};
	uint32_t other[3] = {4, 8, 1}, gnu[3] = {4, 20, 3};
	memcpy(notes, other, 12);
	memcpy(notes + 12, "Xen", 4);
	memcpy(notes + 24, gnu, 12);
	memcpy(notes + 36, "GNU", 4);
	for (int i = 0; i < 20; i++)
		notes[40 + i] = (uint8_t)(0xa0 + i);
	char path[4200];
	snprintf(path, sizeof(path), "%s/kernel/notes", root);
	pk_test_put_file(root, "kernel/notes", "");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(notes, 1, sizeof(notes), f), sizeof(notes));
	fclose(f);
	const pk_kernel *k = pk_kernel_linux();
	uint8_t id[20];
	size_t n = 0;
	assert_int_equal(k->ops->host.build_id(k, NULL, id, &n), 0);
	assert_int_equal(n, 20);
	assert_memory_equal(id, notes + 40, 20);
	assert_int_equal(k->ops->host.build_id(k, "nosuchmodule", id, &n), -ENOENT);
	assert_int_equal(k->ops->host.build_id(k, "../x", id, &n), -EINVAL);
	unsetenv("PMUKIT_SYSFS");
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	free(root);
}

/* ---- BUILD_ID: the objects samples fell in ---------------------------------- */

static const uint8_t kernel_id[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
				      13, 14, 15, 16};

static int fake_build_id(const pk_kernel *k, const char *object, uint8_t id[20], size_t *len)
{
	(void)k;
	if (object)
		return -ENOENT; /* no vDSO, no modules */
	memcpy(id, kernel_id, 20);
	*len = 20;
	return 0;
}

static void put_sample(pk_pd_writer *w, uint16_t misc, uint64_t ip, uint32_t pid)
{
	struct {
		uint32_t type;
		uint16_t misc, size;
		uint64_t ip;
		uint32_t pid, tid;
	} rec = {PERF_RECORD_SAMPLE, misc, sizeof(rec), ip, pid, pid};
	assert_int_equal(pk_pd_writer_write(w, &rec, sizeof(rec), NULL), 0);
}

/* A recording of the fake host whose program is the file at exe: samples
 * in the kernel (kernel_hit) and at the program's text (user_hit). */
static char *record_samples(const pk_kernel *k, const char *exe, bool kernel_hit, bool user_hit,
			    char *path, size_t len)
{
	fk.host.maps[0].name = exe;
	pk_pd_writer *w;
	pk_error err;
	pk_error_clear(&err);
	struct perf_event_attr a = {.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID};
	char *dir = new_file(a.sample_type, path, len, &w);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	pk_synth s = {.w = w, .sample_type = a.sample_type, .kernel = k};
	assert_int_equal(pk_synth_kernel_mmap(&s, &err), 0);
	assert_int_equal(pk_synth_all_tasks(&s, &err), 0);
	if (kernel_hit)
		put_sample(w, PERF_RECORD_MISC_KERNEL, 0xffffffff81000100ull, 100);
	if (user_hit)
		put_sample(w, PERF_RECORD_MISC_USER, 0x400010, 100);
	put_sample(w, PERF_RECORD_MISC_USER, 0x600010, 100); /* [heap]: no id */
	assert_int_equal(pk_pd_writer_flush(w, &err), 0);
	assert_int_equal(pk_record_build_ids(w, path, k, &err), 0);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	return dir;
}

typedef struct seen_ids {
	char names[4][256];
	uint16_t misc[4];
	int nr;
	bool kernel_ok;
} seen_ids;

static int note_id(void *arg, const pk_pd_rec_build_id *b)
{
	seen_ids *s = arg;
	assert_true(s->nr < 4);
	snprintf(s->names[s->nr], sizeof(s->names[0]), "%s", b->filename);
	s->misc[s->nr++] = b->misc;
	assert_int_equal(b->pid, UINT32_MAX);
	if (!strcmp(b->filename, "[kernel.kallsyms]"))
		s->kernel_ok = b->id_len == 20 && !memcmp(b->id, kernel_id, 20);
	return 0;
}

static void ids_of(const char *path, seen_ids *s)
{
	memset(s, 0, sizeof(*s));
	pk_pd_reader *r;
	assert_int_equal(pk_pd_reader_open(path, NULL, &r, NULL), 0);
	int rc = pk_pd_build_ids(r, note_id, s, NULL);
	assert_true(rc == 0 || (rc == -ENOENT && s->nr == 0));
	pk_pd_reader_close(r);
}

static void test_build_ids(void **state)
{
	(void)state;
	pk_kernel_ops ops = *fk.k.ops;
	ops.host.build_id = fake_build_id;
	pk_kernel k = fk.k;
	k.ops = &ops;
	char exe[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	seen_ids s;
	/* both hit: the kernel first, then the program (an ELF with an id) */
	char *dir = record_samples(&k, exe, true, true, path, sizeof(path));
	ids_of(path, &s);
	assert_int_equal(s.nr, 2);
	assert_string_equal(s.names[0], "[kernel.kallsyms]");
	assert_int_equal(s.misc[0], PERF_RECORD_MISC_KERNEL | 0x8000);
	assert_true(s.kernel_ok);
	assert_string_equal(s.names[1], exe);
	assert_int_equal(s.misc[1], PERF_RECORD_MISC_USER | 0x8000);
	done(NULL, dir);
	/* only what samples hit gets an entry */
	dir = record_samples(&k, exe, false, true, path, sizeof(path));
	ids_of(path, &s);
	assert_int_equal(s.nr, 1);
	assert_string_equal(s.names[0], exe);
	done(NULL, dir);
	/* a kernel without build ids and a file that is not there: none */
	dir = record_samples(&fk.k, "/nonexistent/prog", true, true, path, sizeof(path));
	ids_of(path, &s);
	assert_int_equal(s.nr, 0);
	done(NULL, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_nrcpus, setup),
		cmocka_unit_test(test_linux_memory_facts),
		cmocka_unit_test_setup(test_build_ids, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
