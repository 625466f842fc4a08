/* KSYMBOL records (issue 20, kernel maps from the file): a BPF program the
 * kernel announces is a kernel map of its own, [addr, addr + len), named
 * and holding one symbol of that name; a second announcement inside it adds
 * its symbol there; an unregistered one is gone. A hand-made file has three
 * programs and two trampolines at address 0 (kptr_restrict), kernel samples
 * in each and one in none; report's and script's texts of them must be
 * perf 6.1's, byte for byte (skipped without perf). */
#include "helpers.h"
#include "pd_test.h"
#include "perfdata/sample_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>

#define PID 4747
#define T0 1000000000ULL
#define PROG_A 0xffffffffc0001000ULL
#define PROG_B 0xffffffffc0002000ULL

static void put_ksymbol(pk_pd_writer *w, const struct perf_event_attr *a, pk_pd_buf *b,
			uint64_t addr, uint32_t len, uint16_t flags, const char *name, uint64_t t)
{
	pk_pd_buf_u64(b, 0); /* header, set by pd_test_put_record_at */
	pk_pd_buf_u64(b, addr);
	pk_pd_buf_u32(b, len);
	pk_pd_buf_u16(b, PERF_RECORD_KSYMBOL_TYPE_BPF);
	pk_pd_buf_u16(b, flags);
	pk_pd_buf_name(b, name);
	pd_test_put_record_at(w, a, b, PERF_RECORD_KSYMBOL, PERF_RECORD_MISC_KERNEL, 0, t);
}

static void put_sample(pk_pd_writer *w, const struct perf_event_attr *a, uint64_t ip, uint64_t t)
{
	pk_pd_sample s = {.misc = PERF_RECORD_MISC_KERNEL, .ip = ip, .pid = PID, .tid = PID,
			  .time = t, .period = 1000};
	uint8_t buf[256];
	pk_error err;
	ssize_t len = pki_pd_sample_write(a, &s, buf, sizeof(buf), &err);
	assert_true(len > 0);
	assert_int_equal(pk_pd_writer_write(w, buf, (size_t)len, &err), 0);
}

static const char *make_file(void)
{
	static char path[1024];
	snprintf(path, sizeof(path), "%s/ksymbol.data", pd_test_dir);
	struct perf_event_attr a;
	pk_pd_writer *w = pd_test_clock_writer(path, &a);
	pk_error err;
	pk_pd_buf b = {0};
	put_ksymbol(w, &a, &b, PROG_A, 0x80, 0, "bpf_prog_3333333333333333_F", T0);
	put_ksymbol(w, &a, &b, PROG_A + 0x40, 0x20, 0, "bpf_prog_5555555555555555_sub", T0 + 1);
	put_ksymbol(w, &a, &b, PROG_B, 0x100, 0, "bpf_prog_4444444444444444_G", T0 + 2);
	put_ksymbol(w, &a, &b, 0, 4096, 0, "bpf_trampoline_6442531879", T0 + 3);
	/* kptr_restrict: a second trampoline at 0 goes into the first's map;
	 * perf's last-lookup cache names address 0 after it */
	put_ksymbol(w, &a, &b, 0, 4096, 0, "bpf_trampoline_6442473402", T0 + 4);
	for (int i = 0; i < 5; i++)
		put_sample(w, &a, PROG_A + 0x10 + (uint64_t)i, T0 + 100 + (uint64_t)i);
	put_sample(w, &a, PROG_A + 0x48, T0 + 110);
	for (int i = 0; i < 3; i++)
		put_sample(w, &a, PROG_B + 0x20, T0 + 200 + (uint64_t)i);
	put_sample(w, &a, 0x10, T0 + 300);
	put_sample(w, &a, 0xffffffffc0009000ULL, T0 + 310); /* in no program */
	put_ksymbol(w, &a, &b, PROG_B, 0x100, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
		    "bpf_prog_4444444444444444_G", T0 + 400);
	put_sample(w, &a, PROG_B + 0x20, T0 + 500); /* after it was unloaded */
	pk_pd_buf_release(&b);
	assert_int_equal(pk_pd_writer_close(w, &err), 0);
	return path;
}

static void test_ksymbol_vs_perf(void **state)
{
	(void)state;
	PD_TEST_NEED("perf");
	const char *file = make_file();
	static const char *const views[] = {
		"report --stdio -n -s dso,sym", "report --stdio -n -s sym", "report --stdio -s dso",
		"script -F ip,sym,symoff,dso", "report --stdio -v -n -s dso,sym",
		"report --stdio -n -s dso_size,dso", "report --stdio --hierarchy",
		"buildid-list --with-hits",
	};
	pd_test_views_as_perf(file, views, sizeof(views) / sizeof(views[0]));
	char o[1400];
	snprintf(o, sizeof(o), "%s script -F ip,sym -i %s 2>/dev/null", pk_test_pmukit(), file);
	char *ours = pd_test_output(o);
	assert_non_null(strstr(ours, "ffffffffc0001010 bpf_prog_3333333333333333_F"));
	free(ours);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksymbol_vs_perf),
	};
	return cmocka_run_group_tests(tests, pd_test_setup, pd_test_teardown);
}
