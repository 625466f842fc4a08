/* Inside the library: the PMUKIT_CPUID override, read in one place (cpuid.c)
 * and used by the kernel seam's host identification. Not installed. */
#ifndef PMUKIT_CPUID_INTERNAL_H
#define PMUKIT_CPUID_INTERNAL_H

#include <pmukit/cpuid.h>

/* PMUKIT_CPUID: 0 when unset or empty, 1 when it gave *out, or a negative
 * errno with err naming the variable when it is malformed. */
int pki_cpuid_env(pk_cpuid *out, pk_error *err);

#endif
