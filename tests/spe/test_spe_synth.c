/* SPE records as perf's synthetic samples (lib/spe/synth.c): the kinds a
 * record gives, --itrace, and the sample fields, on quipper's real records
 * (tests/data/spe) and hand-made ones; data sources checked through perf's
 * text of perf_mem_data_src (pmukit/datasrc.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/datasrc.h>
#include <pmukit/spe.h>

#include "helpers.h"

#define N1 0x410fd0c1u

static void quipper(pk_spe_record r[2])
{
	FILE *f = fopen(pk_test_fixture("spe/quipper/two-records.bin"), "rb");
	assert_non_null(f);
	uint8_t buf[128];
	assert_int_equal(fread(buf, 1, sizeof buf, f), 128);
	fclose(f);
	pk_spe_decoder d;
	pk_spe_decoder_init(&d, buf, sizeof buf, 0);
	assert_int_equal(pk_spe_next(&d, &r[0]), PK_SPE_RECORD);
	assert_int_equal(pk_spe_next(&d, &r[1]), PK_SPE_RECORD);
}

static void kinds_text(uint32_t k, char *out, size_t size)
{
	out[0] = 0;
	for (unsigned i = 0; i < PK_SPE_NR_KINDS; i++)
		if (k >> i & 1)
			snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? "," : "",
				 pk_spe_kind_name(i));
}

static void check_src(uint64_t v, const char *op, const char *lvl, const char *snoop,
		      const char *tlb)
{
	char t[128];
	pk_data_src_part_format(v, PK_DATA_SRC_OP, t, sizeof t);
	assert_string_equal(t, op);
	pk_data_src_part_format(v, PK_DATA_SRC_LVL, t, sizeof t);
	assert_string_equal(t, lvl);
	pk_data_src_part_format(v, PK_DATA_SRC_SNOOP, t, sizeof t);
	assert_string_equal(t, snoop);
	pk_data_src_part_format(v, PK_DATA_SRC_TLB, t, sizeof t);
	assert_string_equal(t, tlb);
}

static void test_quipper_samples(void **state)
{
	(void)state;
	pk_spe_record r[2];
	quipper(r);
	char k[256];
	kinds_text(pk_spe_record_kinds(&r[0]), k, sizeof k);
	assert_string_equal(k, "l1d-access,tlb-access,memory,instructions");
	kinds_text(pk_spe_record_kinds(&r[1]), k, sizeof k);
	/* not mispredicted: perf 6.1 makes branch-miss samples of MISPRED only */
	assert_string_equal(k, "instructions");
	r[1].events |= 1u << PK_SPE_EV_MISPRED;
	kinds_text(pk_spe_record_kinds(&r[1]), k, sizeof k);
	assert_string_equal(k, "branch-miss,instructions");

	pk_spe_sample s;
	pk_spe_sample_fill(&r[0], PK_SPE_K_MEMORY, N1, &s);
	assert_int_equal(s.ip, 0xffffba66eda1c2d0ull);
	assert_int_equal(s.addr, 0xffff0e3703096b28ull);
	assert_int_equal(s.weight, 12);
	assert_true(s.has_tid);
	assert_int_equal(s.tid, 0x5f80);
	assert_true(s.kernel);
	assert_int_equal(s.time, 44731163950ull);
	/* DATA-SOURCE 0 on N1: an L1D hit, no snoop; TLB-ACCESS without a walk
	 * (perf 6.1 prints level and level number both: "L1 or L1 hit") */
	check_src(s.data_src, "LOAD", "L1 or L1 hit", "None", "Walker hit");

	pk_spe_sample_fill(&r[1], PK_SPE_K_BRANCH_MISS, N1, &s);
	assert_int_equal(s.ip, 0xffffba66edefb0e0ull);
	assert_int_equal(s.addr, 0xffffba66edefb0e4ull); /* the branch target */
	assert_int_equal(s.weight, 17);
	assert_int_equal(s.data_src, 0);
	assert_int_equal(s.tid, 0xe);
}

/* Each EVENTS bit alone gives its kind (perf 6.1's arm_spe_sample_type
 * mapping, by name), the others none; all of them give all eight. */
static void test_event_kinds(void **state)
{
	(void)state;
	static const char *const of_bit[16] = {
		[PK_SPE_EV_L1D_ACCESS] = "l1d-access", [PK_SPE_EV_L1D_REFILL] = "l1d-miss",
		[PK_SPE_EV_TLB_ACCESS] = "tlb-access", [PK_SPE_EV_TLB_WALK] = "tlb-miss",
		[PK_SPE_EV_MISPRED] = "branch-miss",   [PK_SPE_EV_LLC_ACCESS] = "llc-access",
		[PK_SPE_EV_LLC_MISS] = "llc-miss",     [PK_SPE_EV_REMOTE_ACCESS] = "remote-access",
	};
	pk_spe_record r;
	memset(&r, 0, sizeof r);
	r.present = PK_SPE_HAS_EVENTS;
	char k[256], want[64];
	for (unsigned b = 0; b < 64; b++) {
		r.events = 1ull << b;
		kinds_text(pk_spe_record_kinds(&r), k, sizeof k);
		snprintf(want, sizeof want, "%s%sinstructions", b < 16 && of_bit[b] ? of_bit[b] : "",
			 b < 16 && of_bit[b] ? "," : "");
		assert_string_equal(k, want);
	}
	r.events = ~0ull;
	kinds_text(pk_spe_record_kinds(&r), k, sizeof k);
	assert_string_equal(k, "l1d-miss,l1d-access,llc-miss,llc-access,tlb-miss,tlb-access,"
			       "branch-miss,remote-access,instructions");
}

/* The table by MIDR against the generic fallback on the same record. */
static void test_data_sources(void **state)
{
	(void)state;
	pk_spe_record r;
	memset(&r, 0, sizeof r);
	r.present = PK_SPE_HAS_OP | PK_SPE_HAS_SOURCE | PK_SPE_HAS_EVENTS;
	r.op_class = PK_SPE_OP_LDST;
	r.op = 0; /* LD GP-REG */
	r.events = 1u << PK_SPE_EV_L1D_ACCESS | 1u << PK_SPE_EV_L1D_REFILL |
		   1u << PK_SPE_EV_LLC_ACCESS | 1u << PK_SPE_EV_LLC_MISS | 1u << PK_SPE_EV_TLB_ACCESS |
		   1u << PK_SPE_EV_TLB_WALK;
	r.source = 0xe; /* DRAM */
	check_src(pk_spe_data_src(&r, N1), "LOAD", "Local RAM or RAM hit", "None", "Walker miss");
	/* unknown core: the level from the events, LLC first */
	check_src(pk_spe_data_src(&r, 0x12345678), "LOAD", "L3 miss", "N/A", "Walker miss");
	r.events = 1u << PK_SPE_EV_L1D_ACCESS;
	check_src(pk_spe_data_src(&r, 0), "LOAD", "L1 hit", "N/A", "N/A");
	r.source = 0xb; /* system cache */
	check_src(pk_spe_data_src(&r, N1), "LOAD", "L3 or L3 hit", "Hit", "N/A");
	r.op = 1; /* a store: no level on these cores */
	check_src(pk_spe_data_src(&r, N1), "STORE", "N/A or N/A", "N/A", "N/A");
	r.op_class = PK_SPE_OP_BRANCH;
	assert_int_equal(pk_spe_data_src(&r, N1), 0);
}

static void test_itrace(void **state)
{
	(void)state;
	pk_spe_itrace it;
	assert_int_equal(pk_spe_itrace_parse("bxofmtMai100i", &it, NULL), 0);
	assert_int_equal(it.kinds, (1u << PK_SPE_NR_KINDS) - 1);
	assert_int_equal(it.period, 100);
	assert_false(it.last_branch);
	assert_int_equal(pk_spe_itrace_parse("fl", &it, NULL), 0);
	assert_int_equal(it.kinds, 1u << PK_SPE_K_L1D_MISS | 1u << PK_SPE_K_L1D_ACCESS);
	assert_true(it.last_branch);
	pk_error err;
	pk_error_clear(&err);
	assert_int_equal(pk_spe_itrace_parse("fi0i", &it, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "i<N>i"));
	pk_error_clear(&err);
	assert_int_equal(pk_spe_itrace_parse("fz", &it, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'z'"));
	pk_spe_itrace_default(&it);
	assert_false(it.kinds & 1u << PK_SPE_K_INSTRUCTIONS);
	assert_true(it.kinds & 1u << PK_SPE_K_MEMORY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quipper_samples),
		cmocka_unit_test(test_event_kinds),
		cmocka_unit_test(test_data_sources),
		cmocka_unit_test(test_itrace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
