/* The sampled register names of perf_event per architecture: data only
 * (the bit numbers of the kernel's perf_regs.h UAPI enums for x86_64 and
 * arm64, perf 6.1's names), walked by the functions below. */
#include "perf_regs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct reg {
	const char *name;
	int bit;
} reg;

struct perf_regs_arch {
	const char *const *machines; /* uname/ARCH spellings, NULL-ended */
	const reg *regs;
	size_t nr;
	uint64_t default_mask;
	uint64_t dwarf_min;          /* what a DWARF unwinder cannot start without: IP, SP */
};

static const reg x86_64_regs[] = {
	{"AX", 0},    {"BX", 1},    {"CX", 2},     {"DX", 3},     {"SI", 4},     {"DI", 5},
	{"BP", 6},    {"SP", 7},    {"IP", 8},     {"FLAGS", 9},  {"CS", 10},    {"SS", 11},
	{"DS", 12},   {"ES", 13},   {"FS", 14},    {"GS", 15},    {"R8", 16},    {"R9", 17},
	{"R10", 18},  {"R11", 19},  {"R12", 20},   {"R13", 21},   {"R14", 22},   {"R15", 23},
};

static const reg arm64_regs[] = {
	{"x0", 0},   {"x1", 1},   {"x2", 2},   {"x3", 3},   {"x4", 4},   {"x5", 5},   {"x6", 6},
	{"x7", 7},   {"x8", 8},   {"x9", 9},   {"x10", 10}, {"x11", 11}, {"x12", 12}, {"x13", 13},
	{"x14", 14}, {"x15", 15}, {"x16", 16}, {"x17", 17}, {"x18", 18}, {"x19", 19}, {"x20", 20},
	{"x21", 21}, {"x22", 22}, {"x23", 23}, {"x24", 24}, {"x25", 25}, {"x26", 26}, {"x27", 27},
	{"x28", 28}, {"x29", 29}, {"lr", 30},  {"sp", 31},  {"pc", 32},
};

static const char *const x86_64_names[] = {"x86_64", NULL};
static const char *const arm64_names[] = {"aarch64", "arm64", NULL};

/* x86: every general register but the segment ones perf leaves out (DS,
 * ES, FS, GS); arm64: x0..pc */
static const perf_regs_arch arches[] = {
	{x86_64_names, x86_64_regs, sizeof(x86_64_regs) / sizeof(reg), 0xff0fffULL,
	 (1ULL << 7) | (1ULL << 8)},
	{arm64_names, arm64_regs, sizeof(arm64_regs) / sizeof(reg), (1ULL << 33) - 1,
	 (1ULL << 31) | (1ULL << 32)},
};

const perf_regs_arch *perf_regs_for(const char *machine)
{
	for (size_t a = 0; machine && a < sizeof(arches) / sizeof(arches[0]); a++)
		for (const char *const *m = arches[a].machines; *m; m++)
			if (!strcmp(*m, machine))
				return &arches[a];
	return NULL;
}

const perf_regs_arch *perf_regs_host(void)
{
#if defined(__aarch64__)
	return &arches[1];
#else
	return &arches[0];
#endif
}

uint64_t perf_regs_default_mask(const perf_regs_arch *arch)
{
	return arch->default_mask;
}

uint64_t perf_regs_dwarf_mask(const perf_regs_arch *arch, bool user_regs_given)
{
	return user_regs_given ? arch->dwarf_min : arch->default_mask;
}

const char *perf_regs_name(const perf_regs_arch *arch, int bit)
{
	for (size_t i = 0; arch && i < arch->nr; i++)
		if (arch->regs[i].bit == bit)
			return arch->regs[i].name;
	return NULL;
}

int perf_regs_parse(const perf_regs_arch *arch, const char *list, uint64_t *mask, char *bad,
		    size_t bad_len)
{
	*mask = 0;
	if (!list || !*list) {
		*mask = arch->default_mask;
		return 0;
	}
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return -ENOMEM;
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < arch->nr && strcasecmp(arch->regs[i].name, t))
			i++;
		if (i == arch->nr) {
			if (bad)
				snprintf(bad, bad_len, "%s", t);
			rc = -EINVAL;
		} else {
			*mask |= 1ULL << arch->regs[i].bit;
		}
	}
	free(copy);
	return rc;
}

void perf_regs_list(const perf_regs_arch *arch, FILE *f)
{
	fprintf(f, "available registers: ");
	for (size_t i = 0; i < arch->nr; i++)
		if (arch->default_mask >> arch->regs[i].bit & 1)
			fprintf(f, "%s ", arch->regs[i].name);
	fprintf(f, "\n");
}
