/* report's sort keys whose sample fields this VM's kernel cannot give
 * (issue 24), against perf report 6.1 on a hand-made file: the weight
 * struct's latencies (ins_lat, p_stage_cyc and their local forms),
 * transaction flags and abort codes, data and code page sizes, physical
 * and data addresses, data sources and cgroups (two named by CGROUP
 * records, one by none), in the plain view and in
 * --mem-mode. The samples repeat some values, so entries of several
 * samples (the global keys' "value times samples") and ties are met. */
#include "helpers.h"
#include "pd_test.h"
#include "perfdata/sample_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_KEYS                                                                                   \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |  \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |                      \
	 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |                  \
	 PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_WEIGHT_STRUCT)

/* One sample's fields: ip, var1 (weight), var2 (ins_lat), var3
 * (p_stage_cyc), transaction, addr, phys, data and code page sizes, data
 * source, cgroup id. */
typedef struct row {
	uint64_t ip;
	uint32_t w;
	uint16_t lat, cyc;
	uint64_t txn, addr, phys, dps, cps, src, cg;
} row;

static const row rows[] = {
	{0x401000, 30, 7, 3, 0, 0x7f0000001040, 0x12340040, 4096, 4096, 0x68100142, 1},
	{0x401000, 30, 7, 3, 0, 0x7f0000001040, 0x12340040, 4096, 4096, 0x68100142, 1},
	{0x401010, 12, 7, 9, 0x6, 0x7f0000002000, 0x12350000, 2097152, 4096, 0x6a100142, 1},
	{0x401020, 5, 40, 9, 0x1 | 0x8 | (5ULL << 32), 0x7f0000002010, 0x12350010, 2097152,
	 2097152, 0x68100242, 2},
	{0x401020, 5, 40, 1, 0x20 | 0x80, 0x7f0000003000, 0x0, 0, 2097152, 0x5080021, 2},
	{0x401030, 9, 2, 1, 0x2 | 0x10 | 0x40, 0x7f0000004000, 0x99990000, 1024, 0, 0, 3},
	{0xffffffff81000010, 3, 2, 5, 0, 0xffff888000001000, 0x1000, 4096, 4096, 0x68100142, 1},
};
#define NR_ROWS (sizeof(rows) / sizeof(rows[0]))

static void write_sample(pk_pd_writer *w, const struct perf_event_attr *a, const row *r, int i)
{
	bool k = r->ip >> 63;
	pk_pd_sample s = {.misc = k ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, .ip = r->ip,
			  .pid = 42, .tid = 42, .time = 1000000000ULL + 1000ULL * (uint64_t)i,
			  .addr = r->addr, .cpu = (uint32_t)(i % 2), .period = 1000, .weight = r->w,
			  .weight_var2 = r->lat, .weight_var3 = r->cyc, .data_src = r->src,
			  .transaction = r->txn, .phys_addr = r->phys, .cgroup = r->cg,
			  .data_page_size = r->dps, .code_page_size = r->cps};
	uint8_t buf[512];
	pk_error err;
	ssize_t n = pki_pd_sample_write(a, &s, buf, sizeof(buf), &err);
	assert_true(n > 0);
	assert_int_equal(pk_pd_writer_write(w, buf, (size_t)n, &err), 0);
}

/* A PERF_RECORD_CGROUP naming id (its path NUL-padded to 8 bytes). */
static void write_cgroup(pk_pd_writer *w, uint64_t id, const char *path)
{
	uint8_t buf[256] = {0};
	size_t len = 16 + (strlen(path) + 8) / 8 * 8;
	struct perf_event_header h = {.type = PERF_RECORD_CGROUP, .size = (uint16_t)len};
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 8, &id, sizeof(id));
	memcpy(buf + 16, path, strlen(path));
	pk_error err;
	assert_int_equal(pk_pd_writer_write(w, buf, len, &err), 0);
}

static void make_file(const char *path)
{
	pk_pd_writer *w;
	pk_error err;
	assert_int_equal(pk_pd_writer_open(path, false, &w, &err), 0);
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				    .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
				    .sample_type = ST_KEYS, .sample_id_all = 0};
	uint64_t id = 11;
	assert_int_equal(pk_pd_writer_add_evsel(w, &a, 0, "cpu-clock", &id, 1, &err), 0);
	assert_int_equal(pk_pd_writer_begin(w, &err), 0);
	write_cgroup(w, 1, "/");
	write_cgroup(w, 2, "/system.slice/a-long-unit-name.service");
	for (size_t i = 0; i < NR_ROWS; i++)
		write_sample(w, &a, &rows[i], (int)i);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
}

static const char *const plain[] = {
	"ins_lat", "local_ins_lat", "p_stage", "local_p_stage", "p_stage_cyc,local_p_stage_cyc,cpu",
	"transaction", "transaction,cpu", "code_page_size", "addr", "addr,code_page_size",
	"weight,local_weight", "ins_lat,local_ins_lat,p_s,local_p_s", "cgroup_id", "symbol,cpu",
	"sym,tr", "dso,symbol_size", "cgroup", "cgroup,cpu", "dso_size,sym"};
static const char *const mem[] = {
	"", "dcacheline", "phys_daddr", "data_page_size", "symbol_iaddr", "symbol_daddr",
	"dcacheline,phys_daddr,data_page_size,symbol_iaddr", "mem,snoop,tlb,locked,blocked",
	"dso_daddr,ins_lat", "sym,mem"};

static void compare(const char *path, const char *const *opts, size_t n, const char *mode)
{
	for (size_t i = 0; i < n; i++) {
		char args[2048];
		snprintf(args, sizeof(args), "report --stdio -i %s %s%s%s", path, mode,
			 opts[i][0] ? " -s " : "", opts[i]);
		pd_test_same_as_perf(args);
	}
}

static void test_keys(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	char path[1024];
	snprintf(path, sizeof(path), "%s/keys.data", pd_test_dir);
	make_file(path);
	compare(path, plain, sizeof(plain) / sizeof(plain[0]), "");
	compare(path, mem, sizeof(mem) / sizeof(mem[0]), "--mem-mode");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
