/* Inside the library: the PMUKIT_CPUID override, read in one place (cpuid.c)
 * and used by the kernel seam's host identification. Not installed. */
#ifndef PMUKIT_CPUID_INTERNAL_H
#define PMUKIT_CPUID_INTERNAL_H

#include <pmukit/cpuid.h>
#include <pmukit/pmu.h>

/* PMUKIT_CPUID: 0 when unset or empty, 1 when it gave *out, or a negative
 * errno with err naming the variable when it is malformed. */
int pki_cpuid_env(pk_cpuid *out, pk_error *err);

/* The vendor whose PMUs a tree holds, from what only that vendor's
 * drivers publish (Arm: armv* core PMUs; AMD: ibs_op/ibs_fetch or amd_*
 * PMUs; Intel: cpu_core/cpu_atom, or a core PMU with the offcore_rsp, ldlat
 * or frontend format), with the evidence in why (a PMU's name); UNKNOWN
 * when nothing tells. */
pk_vendor pki_pmus_vendor(const pk_pmus *pmus, const char **why);
/* A CPU identification that contradicts the tree's PMUs (an AMD CPUID over
 * Intel PMUs): -EINVAL naming both, else 0. */
int pki_cpuid_check_pmus(const pk_cpuid *id, const pk_pmus *pmus, pk_error *err);

/* Arm: whether MIDR midr is the part of ref (same implementer and part
 * number) at ref's variant and revision or later (r1p0 > r0p3 > r0p0);
 * perf's strcmp_cpuid_str in metric formulas (0 elsewhere). */
bool pki_midr_at_least(uint64_t midr, uint64_t ref);

#endif
