/* Intel PT's AUXTRACE_INFO (type 1) as perf 6.1's `-D` prints it: one
 * "  NAME VALUE" line per field, the name left-aligned in 20 columns.
 *
 * Invariants: the fields are the record's u64 words in perf's order
 * (pk_ipt_info_word); perf prints the first block (PMU type ... per-cpu
 * maps) when the record has it, the MTC/CYC block and the turbo ratio and
 * filter string only when the record is long enough to hold them. The
 * names are perf's, its spelling included ("Muliplier"). No I/O. */
#include <pmukit/intelpt.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct field {
	const char *name;
	char fmt; /* d (signed), u or x ("%#x") */
} fields[PK_IPT_INFO_WORDS] = {
	[PK_IPT_PMU_TYPE] = {"PMU Type", 'd'},
	[PK_IPT_TIME_SHIFT] = {"Time Shift", 'u'},
	[PK_IPT_TIME_MULT] = {"Time Muliplier", 'u'},
	[PK_IPT_TIME_ZERO] = {"Time Zero", 'u'},
	[PK_IPT_CAP_USER_TIME_ZERO] = {"Cap Time Zero", 'd'},
	[PK_IPT_TSC_BIT] = {"TSC bit", 'x'},
	[PK_IPT_NORETCOMP_BIT] = {"NoRETComp bit", 'x'},
	[PK_IPT_HAVE_SCHED_SWITCH] = {"Have sched_switch", 'd'},
	[PK_IPT_SNAPSHOT_MODE] = {"Snapshot mode", 'd'},
	[PK_IPT_PER_CPU_MMAPS] = {"Per-cpu maps", 'd'},
	[PK_IPT_MTC_BIT] = {"MTC bit", 'x'},
	[PK_IPT_MTC_FREQ_BITS] = {"MTC freq bits", 'x'},
	[PK_IPT_TSC_CTC_N] = {"TSC:CTC numerator", 'u'},
	[PK_IPT_TSC_CTC_D] = {"TSC:CTC denominator", 'u'},
	[PK_IPT_CYC_BIT] = {"CYC bit", 'x'},
	[PK_IPT_MAX_NONTURBO_RATIO] = {"Max non-turbo ratio", 'u'},
	[PK_IPT_FILTER_STR_LEN] = {"Filter string len.", 'u'},
};

/* The blocks perf prints: [first, last] each, all or nothing. */
static const uint8_t blocks[][2] = {
	{PK_IPT_PMU_TYPE, PK_IPT_PER_CPU_MMAPS},
	{PK_IPT_MTC_BIT, PK_IPT_CYC_BIT},
	{PK_IPT_MAX_NONTURBO_RATIO, PK_IPT_MAX_NONTURBO_RATIO},
	{PK_IPT_FILTER_STR_LEN, PK_IPT_FILTER_STR_LEN},
};

static size_t put(char *out, size_t size, size_t at, const char *fmt, const char *name,
		  uint64_t v)
{
	char *p = at < size ? out + at : NULL;
	size_t room = at < size ? size - at : 0;
	return (size_t)snprintf(p, room, fmt, name, v);
}

size_t pk_ipt_info_text(const uint64_t *w, size_t n, const char *filter, size_t filter_len,
			char *out, size_t size)
{
	size_t at = 0;
	if (size)
		out[0] = '\0';
	for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
		if (n <= blocks[b][1])
			break;
		for (unsigned i = blocks[b][0]; i <= blocks[b][1]; i++)
			at += put(out, size, at, fields[i].fmt == 'x'   ? "  %-20s%#" PRIx64 "\n"
						 : fields[i].fmt == 'd' ? "  %-20s%" PRId64 "\n"
									: "  %-20s%" PRIu64 "\n",
				  fields[i].name, w[i]);
		if (blocks[b][0] == PK_IPT_FILTER_STR_LEN) {
			char *p = at < size ? out + at : NULL;
			at += (size_t)snprintf(p, at < size ? size - at : 0, "  %-20s%.*s\n",
					       "Filter string", (int)filter_len, filter ? filter : "");
		}
	}
	return at;
}

size_t pk_ipt_info_words(const uint8_t *rec, size_t size, uint64_t w[PK_IPT_INFO_WORDS])
{
	/* header (8), u32 type, u32 reserved, then the words */
	size_t n = size > 16 ? (size - 16) / 8 : 0;
	if (n > PK_IPT_INFO_WORDS)
		n = PK_IPT_INFO_WORDS;
	memset(w, 0, PK_IPT_INFO_WORDS * sizeof(*w));
	memcpy(w, rec + 16, n * sizeof(*w));
	return n;
}
