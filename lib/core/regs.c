/* The sampled registers of perf_event per architecture (regs.h): data only,
 * one table per architecture (perf 6.1's names, the kernel's UAPI bits, the
 * psABI's DWARF numbers), walked by the accessors below. */
#include "regs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* x86_64 psABI DWARF numbers: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, and
 * 16 the return address (rip) */
static const pki_reg x86_64_regs[] = {
	{"AX", 0, 0},     {"BX", 1, 3},     {"CX", 2, 2},     {"DX", 3, 1},     {"SI", 4, 4},
	{"DI", 5, 5},     {"BP", 6, 6},     {"SP", 7, 7},     {"IP", 8, 16},    {"FLAGS", 9, -1},
	{"CS", 10, -1},   {"SS", 11, -1},   {"DS", 12, -1},   {"ES", 13, -1},   {"FS", 14, -1},
	{"GS", 15, -1},   {"R8", 16, 8},    {"R9", 17, 9},    {"R10", 18, 10},  {"R11", 19, 11},
	{"R12", 20, 12},  {"R13", 21, 13},  {"R14", 22, 14},  {"R15", 23, 15},
};

/* AAPCS64: x0..x30 and sp are DWARF 0..31; the PC has no DWARF number */
static const pki_reg arm64_regs[] = {
	{"x0", 0, 0},    {"x1", 1, 1},    {"x2", 2, 2},    {"x3", 3, 3},    {"x4", 4, 4},
	{"x5", 5, 5},    {"x6", 6, 6},    {"x7", 7, 7},    {"x8", 8, 8},    {"x9", 9, 9},
	{"x10", 10, 10}, {"x11", 11, 11}, {"x12", 12, 12}, {"x13", 13, 13}, {"x14", 14, 14},
	{"x15", 15, 15}, {"x16", 16, 16}, {"x17", 17, 17}, {"x18", 18, 18}, {"x19", 19, 19},
	{"x20", 20, 20}, {"x21", 21, 21}, {"x22", 22, 22}, {"x23", 23, 23}, {"x24", 24, 24},
	{"x25", 25, 25}, {"x26", 26, 26}, {"x27", 27, 27}, {"x28", 28, 28}, {"x29", 29, 29},
	{"lr", 30, 30},  {"sp", 31, 31},  {"pc", 32, -1},
};

static const char *const x86_64_names[] = {"x86_64", NULL};
static const char *const arm64_names[] = {"aarch64", "arm64", NULL};

/* x86: every general register but the segment ones perf leaves out (DS,
 * ES, FS, GS), preserved rbx rbp r12..r15; arm64: x0..pc, preserved
 * x19..x29 */
static const pk_regs_arch arches[] = {
	{x86_64_names, x86_64_regs, sizeof(x86_64_regs) / sizeof(pki_reg), 0xff0fffULL,
	 (1ULL << 7) | (1ULL << 8), 8, 7, 1u << 3 | 1u << 6 | 0xfu << 12, 6, 7},
	{arm64_names, arm64_regs, sizeof(arm64_regs) / sizeof(pki_reg), (1ULL << 33) - 1,
	 (1ULL << 31) | (1ULL << 32), 32, 31, 0x7ffu << 19, 29, 31},
};

const pk_regs_arch *pk_regs_for(const char *machine)
{
	for (size_t a = 0; machine && a < sizeof(arches) / sizeof(arches[0]); a++)
		for (const char *const *m = arches[a].machines; *m; m++)
			if (!strcmp(*m, machine))
				return &arches[a];
	return NULL;
}

const pk_regs_arch *pk_regs_host(void)
{
#if defined(__aarch64__)
	return &arches[1];
#else
	return &arches[0];
#endif
}

uint64_t pk_regs_default_mask(const pk_regs_arch *arch)
{
	return arch->default_mask;
}

uint64_t pk_regs_dwarf_mask(const pk_regs_arch *arch, bool user_regs_given)
{
	return user_regs_given ? arch->dwarf_min : arch->default_mask;
}

const char *pk_regs_name(const pk_regs_arch *arch, int bit)
{
	for (size_t i = 0; arch && i < arch->nr; i++)
		if (arch->regs[i].bit == bit)
			return arch->regs[i].name;
	return NULL;
}

int pk_regs_bit(const pk_regs_arch *arch, const char *name)
{
	for (size_t i = 0; arch && name && i < arch->nr; i++)
		if (!strcasecmp(arch->regs[i].name, name))
			return arch->regs[i].bit;
	return -1;
}

int pk_regs_parse(const pk_regs_arch *arch, const char *list, uint64_t *mask, char *bad,
		  size_t bad_len)
{
	*mask = 0;
	if (!list || !*list) {
		*mask = pk_regs_default_mask(arch);
		return 0;
	}
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return -ENOMEM;
	int rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		int bit = pk_regs_bit(arch, t);
		if (bit < 0) {
			if (bad)
				snprintf(bad, bad_len, "%s", t);
			rc = -EINVAL;
		} else {
			*mask |= 1ULL << bit;
		}
	}
	free(copy);
	return rc;
}
