/* Intel's PERF_METRICS register as the kernel documents it (Ice Lake and
 * later, perf's topdown.txt): eight 8-bit fractions of the slots in fixed
 * counter 3 since the last reset, Level 1 in bytes 0-3 (retiring, bad
 * speculation, frontend bound, backend bound), Level 2 in bytes 4-7; RDPMC
 * reads it with ECX 1 << 29. A metric event's value is the driver's
 * slots x byte / 0xff, truncated (mul_u64_u32_div).
 *
 * The one place of this arithmetic in the library: the region reader
 * decodes what RDPMC returned with it, the PMU model (lib/model) computes
 * its driver's values with it. Pure functions; internal to lib/, not
 * exported. */
#ifndef PK_TOPDOWN_PERF_METRICS_H
#define PK_TOPDOWN_PERF_METRICS_H

#include <stdint.h>

/* RDPMC's ECX for PERF_METRICS; fixed counter n is n | PKI_PM_ECX_FIXED
 * (SLOTS is fixed counter 3). */
#define PKI_PM_ECX (1u << 29)
#define PKI_PM_ECX_FIXED (1u << 30)

/* a * b / c with a 128-bit product (the kernel's mul_u64_u32_div); 0 when
 * c is 0. */
uint64_t pki_mul_u64_u32_div(uint64_t a, uint32_t b, uint32_t c);
/* Byte `field` (0-7) of the register. */
unsigned pki_pm_field(uint64_t metrics, int field);
/* The driver's value of a metric event: slots x field / 0xff, truncated.
 * field -1 is the slots event itself. */
uint64_t pki_pm_value(uint64_t slots, uint64_t metrics, int field);

#endif
