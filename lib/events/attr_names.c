/* Names of perf_event_attr flag bits, as perf prints them with -vv. */
#include <pmukit/events.h>

#include <stdio.h>

#include "core/util.h"

struct bit_name {
	uint64_t bit;
	const char *name;
};

/* perf 6.1's order, which is not the bits' (IDENTIFIER and REGS_INTR
 * before DATA_SRC); perf has no name for TRANSACTION. */
static const struct bit_name sample_type_bits[] = {
	{PERF_SAMPLE_IP, "IP"},
	{PERF_SAMPLE_TID, "TID"},
	{PERF_SAMPLE_TIME, "TIME"},
	{PERF_SAMPLE_ADDR, "ADDR"},
	{PERF_SAMPLE_READ, "READ"},
	{PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
	{PERF_SAMPLE_ID, "ID"},
	{PERF_SAMPLE_CPU, "CPU"},
	{PERF_SAMPLE_PERIOD, "PERIOD"},
	{PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
	{PERF_SAMPLE_RAW, "RAW"},
	{PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
	{PERF_SAMPLE_REGS_USER, "REGS_USER"},
	{PERF_SAMPLE_STACK_USER, "STACK_USER"},
	{PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"},
	{PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
	{PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
	{PERF_SAMPLE_WEIGHT, "WEIGHT"},
	{PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
	{PERF_SAMPLE_AUX, "AUX"},
	{PERF_SAMPLE_CGROUP, "CGROUP"},
	{PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
	{PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
	{PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
};

/* perf_event.h's order (perf 6.1 has no name for bits past PRIV_SAVE). */
static const struct bit_name branch_sample_bits[] = {
	{PERF_SAMPLE_BRANCH_USER, "USER"},
	{PERF_SAMPLE_BRANCH_KERNEL, "KERNEL"},
	{PERF_SAMPLE_BRANCH_HV, "HV"},
	{PERF_SAMPLE_BRANCH_ANY, "ANY"},
	{PERF_SAMPLE_BRANCH_ANY_CALL, "ANY_CALL"},
	{PERF_SAMPLE_BRANCH_ANY_RETURN, "ANY_RETURN"},
	{PERF_SAMPLE_BRANCH_IND_CALL, "IND_CALL"},
	{PERF_SAMPLE_BRANCH_ABORT_TX, "ABORT_TX"},
	{PERF_SAMPLE_BRANCH_IN_TX, "IN_TX"},
	{PERF_SAMPLE_BRANCH_NO_TX, "NO_TX"},
	{PERF_SAMPLE_BRANCH_COND, "COND"},
	{PERF_SAMPLE_BRANCH_CALL_STACK, "CALL_STACK"},
	{PERF_SAMPLE_BRANCH_IND_JUMP, "IND_JUMP"},
	{PERF_SAMPLE_BRANCH_CALL, "CALL"},
	{PERF_SAMPLE_BRANCH_NO_FLAGS, "NO_FLAGS"},
	{PERF_SAMPLE_BRANCH_NO_CYCLES, "NO_CYCLES"},
	{PERF_SAMPLE_BRANCH_TYPE_SAVE, "TYPE_SAVE"},
	{PERF_SAMPLE_BRANCH_HW_INDEX, "HW_INDEX"},
	{PERF_SAMPLE_BRANCH_PRIV_SAVE, "PRIV_SAVE"},
};

static const struct bit_name read_format_bits[] = {
	{PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
	{PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
	{PERF_FORMAT_ID, "ID"},
	{PERF_FORMAT_GROUP, "GROUP"},
	{1U << 4 /* PERF_FORMAT_LOST, newer than some headers */, "LOST"},
};

/* The names of v's bits in the table's order, as perf prints them: bits
 * without a name are left out, as perf leaves them. */
static int bits_str(const struct bit_name *t, size_t n, uint64_t v, char *buf, size_t len)
{
	pk_strbuf sb = {0};
	for (size_t i = 0; i < n; i++)
		if (v & t[i].bit)
			pki_sb_addf(&sb, "%s%s", sb.len ? "|" : "", t[i].name);
	int r = snprintf(buf, len, "%s", sb.buf ? sb.buf : "");
	pki_sb_free(&sb);
	return r;
}

int pk_sample_type_str(uint64_t v, char *buf, size_t len)
{
	return bits_str(sample_type_bits, PK_ARRAY_SIZE(sample_type_bits), v, buf, len);
}

int pk_read_format_str(uint64_t v, char *buf, size_t len)
{
	return bits_str(read_format_bits, PK_ARRAY_SIZE(read_format_bits), v, buf, len);
}

int pk_branch_sample_type_str(uint64_t v, char *buf, size_t len)
{
	return bits_str(branch_sample_bits, PK_ARRAY_SIZE(branch_sample_bits), v, buf, len);
}
