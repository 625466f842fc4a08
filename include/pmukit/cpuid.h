/* pmukit: CPU identification, the key for model-specific PMU knowledge
 * (lib/pmu/cpuid.c).
 *
 * The string form is perf's PERF_CPUID form: "GenuineIntel-6-97-2",
 * "AuthenticAMD-25-11-1"; on Arm "0x00000000410fd0c0" (MIDR) or "ARM-..."
 * The environment variable PMUKIT_CPUID overrides the host, then perf's
 * PERF_CPUID (in that order, read with secure_getenv); a malformed value is
 * an error naming the variable, never silently the host's. The host's comes
 * through the kernel seam (pk_host_cpuid in pmukit/kernel.h).
 *
 * TopDown refuses a CPUID of another vendor than the tree's PMUs
 * (pki_cpuid_check_pmus: an AMD CPUID over Intel PMUs), naming both. */
#ifndef PMUKIT_CPUID_H
#define PMUKIT_CPUID_H

#include <stdbool.h>
#include <stdint.h>
#include <pmukit/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pk_vendor {
	PK_VENDOR_UNKNOWN = 0,
	PK_VENDOR_INTEL,
	PK_VENDOR_AMD,
	PK_VENDOR_ARM,
} pk_vendor;

typedef struct pk_cpuid {
	pk_vendor vendor;
	int family;       /* x86 display family; Arm: implementer */
	int model;        /* x86 display model; Arm: part number */
	int stepping;     /* x86 stepping; Arm: revision */
	uint64_t midr;    /* Arm MIDR_EL1, 0 elsewhere */
	char str[64];     /* the identification string */
} pk_cpuid;

/* Parses a PERF_CPUID-style string. */
int pk_cpuid_parse(const char *s, pk_cpuid *out, pk_error *err);
#define PK_CPUID_ENV "PMUKIT_CPUID"

/* The host's identification is pk_host_cpuid (pmukit/kernel.h): a fact of
 * the kernel seam, overridden by PMUKIT_CPUID or PERF_CPUID. */
/* True when PMUKIT_CPUID or PERF_CPUID is set and not empty: a failure of pk_host_cpuid is then the
 * user's, to be reported, not a host without identification. */
bool pk_cpuid_overridden(void);

#ifdef __cplusplus
}
#endif
#endif
