/* Intel PT's trace decoder (lib/intelpt/decoder.c) on packet sequences
 * taken from quipper/perf.data.intel_pt-4.14 (the bytes of its cpu 3
 * queue, as perf 6.1's `report -D` shows them): the events and times perf
 * 6.1's `perf script --ns` prints for them (psb, cbr, the instruction trace
 * error of a walk without code, an asynchronous branch timed by MTC, a
 * trace end), and, on hand-made packets, the walker hook's contract
 * (conditional, direct and indirect branches; a never-ending loop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <pmukit/intelpt.h>
#include <pmukit/perfdata.h>

/* the file's TIME_CONV (and AUXTRACE_INFO) */
static const pk_pd_rec_time_conv tc = {.time_shift = 31, .time_mult = 1789569706,
				       .time_zero = 18446744041015200657ull,
				       .cap_user_time_zero = true};
static const pk_ipt_params file_params = {.mtc_period = 3, .tsc_ctc_n = 100, .tsc_ctc_d = 2};

/* cpu 3's data from offset 0: PSB+ (FUP, PIP, TSC, TMA, CBR), TIP.PGE,
 * TNT, TIP, TIP (compressed IPs), then the TIP at 0x2ef (a full IP) and a
 * TNT */
static const uint8_t first_psb[] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x00, 0x00, 0x00, 0x99, 0x20, 0x99, 0x01, 0x7d, 0x00, 0xd3, 0x60, 0xb9,
	0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x43, 0x00, 0x34,
	0xd4, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x19, 0x32,
	0xfc, 0xbe, 0x4c, 0xbc, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x73, 0xb9, 0x4c, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x1d, 0x00,
	0x02, 0x23, 0x00, 0x71, 0x02, 0xd3, 0x60, 0xb9, 0xff, 0xff, 0x00, 0x00, 0x06, 0x2d,
	0x94, 0xd7, 0x00, 0x00, 0x00, 0x00, 0x4d, 0xa2, 0x20, 0x74, 0xb9,
	/* 0x2ef: the next TIP with a full IP, then a TNT (0x2f7) */
	0x6d, 0x51, 0xb9, 0x8a, 0xb9, 0xff, 0xff, 0x00, 0x06,
};

/* cpu 3's data at 0x8078: PSB+, FUP, TIP.PGD without IP (the task is
 * switched out), TSC, TMA, CBR, MODE.Exec, TIP.PGE, TNT */
static const uint8_t trace_end[] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x00, 0x00, 0x00, 0x99, 0x20, 0x99, 0x01, 0x7d, 0x00, 0xd3, 0x60, 0xb9,
	0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x43, 0x00, 0x34,
	0xd4, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x19, 0xcc,
	0x29, 0xc5, 0x4c, 0xbc, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x73, 0x5b, 0x6c, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x1d, 0x00,
	0x02, 0x23, 0x00, 0x7d, 0x00, 0xd3, 0x60, 0xb9, 0xff, 0xff, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x19, 0x94,
	0x6d, 0xc5, 0x4c, 0xbc, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x73, 0xb6, 0x6d, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x1d, 0x00,
	0x00, 0x99, 0x01, 0x71, 0x02, 0xd3, 0x60, 0xb9, 0xff, 0xff, 0x00, 0x00, 0x06,
};

/* The file's packets around cpu 3's first system call (0x476: TSC, TMA;
 * 0x1398: MTC; 0x139f: FUP, TIP), after a PSB and with a TIP.PGE to the
 * FUP's IP in place of the TIP there (the trace between left out). */
static const uint8_t syscall[] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x19, 0x6e, 0x80, 0xbf, 0x4c, 0xbc, 0x00, 0x00, 0x02, 0x73, 0x5e, 0x4f,
	0x00, 0x12, 0x00, 0x00, 0x02, 0x23, 0x71, 0x60, 0xbd, 0x08, 0x6d, 0xb3, 0x7f, 0x00,
	0x59, 0x5e, 0x7d, 0x60, 0xbd, 0x08, 0x6d, 0xb3, 0x7f, 0x00, 0x6d, 0x40, 0x13, 0x00,
	0xba, 0xff, 0xff, 0x00,
};

static size_t run(const pk_ipt_params *p, const uint8_t *a, size_t na, const uint8_t *b,
		  size_t nb, pk_ipt_event *ev, size_t max)
{
	pk_ipt_decoder *d = pk_ipt_decoder_new(p);
	assert_non_null(d);
	size_t n = 0;
	pk_ipt_feed(d, a, na);
	for (int part = 0; part < 2; part++) {
		while (n < max && pk_ipt_next(d, &ev[n]))
			n++;
		if (b)
			pk_ipt_feed(d, b, nb);
		b = NULL;
	}
	pk_ipt_decoder_free(d);
	return n;
}

static uint64_t perf_time(const pk_ipt_event *e)
{
	return pk_pd_tsc_to_time(&tc, e->tsc);
}

/* perf script: psb offs: 0 and cbr: 29 at 641.256845844 (ip
 * ffffffffb960d300, the PSB+'s FUP), then "instruction trace error type 1
 * time 641.256845844 ... ip 0xffffffffb960d302 code 5: Failed to get
 * instruction" (the TNT after TIP.PGE needs the code). */
static void test_first_psb_without_code(void **state)
{
	(void)state;
	pk_ipt_event ev[8];
	size_t n = run(&file_params, first_psb, sizeof first_psb, NULL, 0, ev, 8);
	assert_true(n >= 4);
	assert_int_equal(ev[0].type, PK_IPT_EV_PSB);
	assert_int_equal(ev[0].offset, 0);
	assert_int_equal(ev[0].ip, 0xffffffffb960d300ull);
	assert_int_equal(perf_time(&ev[0]), 641256845844ull);
	assert_int_equal(ev[1].type, PK_IPT_EV_CBR);
	assert_int_equal(ev[1].cbr, 29);
	assert_int_equal(ev[1].ip, 0xffffffffb960d300ull);
	assert_int_equal(ev[2].type, PK_IPT_EV_BRANCH); /* TIP.PGE: trace begin */
	assert_int_equal(ev[2].flags, PK_IPT_BR_TRACE_BEGIN);
	assert_int_equal(ev[2].to, 0xffffffffb960d302ull);
	assert_int_equal(ev[3].type, PK_IPT_EV_ERROR);
	assert_int_equal(ev[3].code, PK_IPT_ERR_NOINSN);
	assert_string_equal(pk_ipt_err_text(ev[3].code), "Failed to get instruction");
	assert_int_equal(ev[3].ip, 0xffffffffb960d302ull);
	assert_int_equal(perf_time(&ev[3]), 641256845844ull);
	/* no resync at the TIPs with compressed IPs (they build on an IP that
	 * may be wrong): at the next full one (perf's `--itrace=b` shows
	 * "0 => ffffffffb98ab951"), whose TNT needs the code again */
	assert_int_equal(n, 6);
	assert_int_equal(ev[4].type, PK_IPT_EV_BRANCH);
	assert_int_equal(ev[4].flags, PK_IPT_BR_TRACE_BEGIN);
	assert_int_equal(ev[4].ip, 0);
	assert_int_equal(ev[4].to, 0xffffffffb98ab951ull);
	assert_int_equal(ev[5].type, PK_IPT_EV_ERROR);
	assert_int_equal(ev[5].ip, 0xffffffffb98ab951ull);
}

static int skip_walk(void *arg, uint64_t ip, uint64_t stop, pk_ipt_insn *insn)
{
	(void)arg, (void)ip, (void)stop, (void)insn;
	return PK_IPT_WALK_SKIP;
}

/* perf script: "psb offs: 0x8078 ... 0" and "branches: ffffffffb960d300
 * => 0" at 641.257183253: a later PSB shows no IP; the FUP reached and the
 * TIP.PGD without IP end the trace. A walker's SKIP gives no error. */
static void test_trace_end(void **state)
{
	(void)state;
	pk_ipt_params p = file_params;
	p.walk = skip_walk;
	pk_ipt_event ev[16];
	size_t n = run(&p, first_psb, sizeof first_psb, trace_end, sizeof trace_end, ev, 16);
	size_t i = 0;
	while (i < n && !(ev[i].type == PK_IPT_EV_PSB && ev[i].offset))
		assert_int_not_equal(ev[i++].type, PK_IPT_EV_ERROR);
	assert_true(i + 2 < n);
	assert_int_equal(ev[i].offset, sizeof first_psb); /* 0x8078 in the file */
	assert_int_equal(ev[i].ip, 0);
	assert_int_equal(perf_time(&ev[i]), 641257183253ull);
	assert_int_equal(ev[i + 1].type, PK_IPT_EV_BRANCH);
	assert_int_equal(ev[i + 1].ip, 0xffffffffb960d300ull);
	assert_int_equal(ev[i + 1].to, 0);
	assert_int_equal(ev[i + 1].flags, PK_IPT_BR_TRACE_END);
	assert_int_equal(perf_time(&ev[i + 1]), 641257183253ull);
	/* tracing on again: the CBR did not change, no cbr event */
	assert_int_equal(ev[i + 2].type, PK_IPT_EV_BRANCH);
	assert_int_equal(ev[i + 2].flags, PK_IPT_BR_TRACE_BEGIN);
	assert_int_equal(perf_time(&ev[i + 2]), 641257197713ull);
	assert_int_equal(n, i + 3);
}

/* perf script: "branches: 7fb36d08bd60 ... => ffffffffba001340" at
 * 641.256912123: TSC and TMA, then 115 MTC periods of 8 CTC ticks at 50
 * TSC ticks each, less TMA's CTC remainder and FC. */
static void test_syscall_mtc_time(void **state)
{
	(void)state;
	pk_ipt_event ev[8];
	size_t n = run(&file_params, syscall, sizeof syscall, NULL, 0, ev, 8);
	assert_int_equal(n, 3); /* psb (no FUP: no IP), trace begin, the system call */
	assert_int_equal(ev[1].flags, PK_IPT_BR_TRACE_BEGIN);
	assert_int_equal(ev[2].type, PK_IPT_EV_BRANCH);
	assert_int_equal(ev[2].ip, 0x7fb36d08bd60ull);
	assert_int_equal(ev[2].to, 0xffffffffba001340ull);
	assert_int_equal(ev[2].flags, PK_IPT_BR_CALL | PK_IPT_BR_ASYNC);
	assert_int_equal(perf_time(&ev[2]), 641256912123ull);
	/* the AUXTRACE_INFO's words and the intel_pt event's config give the
	 * same parameters */
	uint64_t rec[2 + PK_IPT_INFO_WORDS] = {0x0098000000000046ull, 1,
					      [2 + PK_IPT_MTC_FREQ_BITS] = 0x3c000,
					      [2 + PK_IPT_TSC_CTC_N] = 100, [2 + PK_IPT_TSC_CTC_D] = 2};
	uint64_t w[PK_IPT_INFO_WORDS];
	assert_int_equal(pk_ipt_info_words((const uint8_t *)rec, sizeof rec, w), PK_IPT_INFO_WORDS);
	assert_int_equal(pk_ipt_info_words((const uint8_t *)rec, 16 + 8 * 3, w), 3);
	assert_int_equal(w[PK_IPT_TSC_CTC_N], 0); /* past the record: zero */
	pk_ipt_info_words((const uint8_t *)rec, sizeof rec, w);
	pk_ipt_params p;
	pk_ipt_params_from_info(&p, w, PK_IPT_INFO_WORDS, 0x300e601);
	assert_int_equal(p.mtc_period, 3);
	assert_int_equal(p.tsc_ctc_n, 100);
	assert_int_equal(p.tsc_ctc_d, 2);
}

/* A walker over a made-up program: 0x1000 jcc 0x2000; 0x2000 call 0x2100;
 * 0x2100 jcc 0x2200 (not taken); 0x2112 ret. */
static int table_walk(void *arg, uint64_t ip, uint64_t stop, pk_ipt_insn *in)
{
	(void)stop;
	unsigned *calls = arg;
	++*calls;
	if (ip == 0x1000)
		*in = (pk_ipt_insn){PK_IPT_INSN_COND, 0x1004, 0x1006, 0x2000, false};
	else if (ip == 0x2000)
		*in = (pk_ipt_insn){PK_IPT_INSN_DIRECT, 0x2002, 0x2007, 0x2100, true};
	else if (ip == 0x2100)
		*in = (pk_ipt_insn){PK_IPT_INSN_COND, 0x2110, 0x2112, 0x2200, false};
	else if (ip == 0x2112)
		*in = (pk_ipt_insn){PK_IPT_INSN_INDIRECT, 0x2120, 0x2121, 0, false};
	else if (ip == 0x5000)
		*in = (pk_ipt_insn){PK_IPT_INSN_DIRECT, 0x5000, 0x5002, 0x5000, false};
	else
		return PK_IPT_WALK_NOINSN;
	return 0;
}

static void test_walker(void **state)
{
	(void)state;
	/* PSB, PSBEND, TIP.PGE 0x1000 (2 bytes), TNT T N, TIP 0x3000, TIP 0x5000,
	 * TNT T (0x5000 jumps to itself forever) */
	static const uint8_t pk[] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02,
				     0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x23,
				     0x31, 0x00, 0x10, 0x0c, 0x2d, 0x00, 0x30, 0x2d, 0x00,
				     0x50, 0x06};
	unsigned calls = 0;
	pk_ipt_params p = file_params;
	p.walk = table_walk;
	p.walk_arg = &calls;
	pk_ipt_event ev[8];
	size_t n = run(&p, pk, sizeof pk, NULL, 0, ev, 8);
	assert_int_equal(n, 6);
	assert_int_equal(ev[0].type, PK_IPT_EV_PSB);
	assert_int_equal(ev[1].flags, PK_IPT_BR_TRACE_BEGIN);
	assert_int_equal(ev[1].to, 0x1000);
	assert_int_equal(ev[2].flags, PK_IPT_BR_COND);
	assert_int_equal(ev[2].ip, 0x1004);
	assert_int_equal(ev[2].to, 0x2000);
	assert_int_equal(ev[3].flags, PK_IPT_BR_CALL);
	assert_int_equal(ev[3].to, 0x2100);
	assert_int_equal(ev[4].flags, 0); /* the return, to the TIP's IP */
	assert_int_equal(ev[4].ip, 0x2120);
	assert_int_equal(ev[4].to, 0x3000);
	/* TIP 0x5000 from 0x3000: no code there */
	assert_int_equal(ev[5].type, PK_IPT_EV_ERROR);
	assert_int_equal(ev[5].code, PK_IPT_ERR_NOINSN);
	assert_int_equal(ev[5].ip, 0x3000);
	/* that error was TIP 0x5000's: the TNT after it has no IP to resync
	 * at. Walker calls: 0x1000, 0x2000, 0x2100, 0x2112, 0x3000. */
	assert_int_equal(calls, 5);
}

static void test_never_ending_loop(void **state)
{
	(void)state;
	/* PSB, PSBEND, TIP.PGE 0x5000, TNT T: the walk never finds the jcc */
	static const uint8_t pk[] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02,
				     0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x23,
				     0x31, 0x00, 0x50, 0x06, 0x02, 0xf3};
	unsigned calls = 0;
	pk_ipt_params p = file_params;
	p.walk = table_walk;
	p.walk_arg = &calls;
	pk_ipt_decoder *d = pk_ipt_decoder_new(&p);
	pk_ipt_feed(d, pk, sizeof pk);
	pk_ipt_event e;
	size_t branches = 0;
	int code = 0;
	while (pk_ipt_next(d, &e)) {
		if (e.type == PK_IPT_EV_BRANCH)
			branches++;
		else if (e.type == PK_IPT_EV_ERROR && !code)
			code = e.code;
	}
	pk_ipt_decoder_free(d);
	assert_int_equal(code, PK_IPT_ERR_NELOOP);
	assert_true(branches > 1000);
	assert_true(calls <= 100001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_psb_without_code), cmocka_unit_test(test_trace_end),
		cmocka_unit_test(test_syscall_mtc_time),       cmocka_unit_test(test_walker),
		cmocka_unit_test(test_never_ending_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
