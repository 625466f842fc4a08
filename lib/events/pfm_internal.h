/* Internal to pfm.c and its tests: the CPU-model table, name mapping and the
 * two encoders (libpfm4's own, and the one from libpfm4's event tables that
 * is used for PMUs libpfm4 did not detect on this host). */
#ifndef PK_EVENTS_PFM_INTERNAL_H
#define PK_EVENTS_PFM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/cpuid.h>
#include <pmukit/error.h>
#include <pmukit/pmu.h>

/* libpfm4 PMU names that describe core PMU `core_pmu` on this CPU, best
 * first (names this libpfm4 lacks are included; callers skip them).
 * Returns how many were written. */
size_t pki_pfm_model_pmus(const pk_cpuid *cpuid, const char *core_pmu, const char **names,
			 size_t max);

/* Splits and normalizes an event name: "inst_retired.any" -> pmu "",
 * event "INST_RETIRED:ANY"; "icl::TOPDOWN:SLOTS" -> "icl", "TOPDOWN:SLOTS".
 * -EINVAL for names that cannot be libpfm4 events. */
int pki_pfm_split_name(const char *event, char *pmu, size_t pmu_len, char *name,
		      size_t name_len);

/* True when this libpfm4 has a PMU table of that name; *present tells
 * whether libpfm4 detected it on this host (and so will encode for it). */
bool pki_pfm_has_pmu(const char *pfm_pmu, bool *present);

/* libpfm4's encoder. "pmu::EVENT:UMASK". Returns 0, -ENOENT (libpfm4 does
 * not know or will not encode it) or -EINVAL (bad umask/modifier). */
int pki_pfm_encode_libpfm(const char *pfm_pmu, const char *name, uint64_t config[PK_NR_CONFIGS],
			 pk_error *err);

/* Encodes from libpfm4's event tables (event code, umask codes), for x86
 * core PMUs only, and only the forms whose layout is known: one umask whose
 * code holds umask/edge/inv/cmask bits, modifiers c= and i. Everything else
 * gives -EOPNOTSUPP. -ENOENT: no such event; -EINVAL: bad umask/modifier. */
int pki_pfm_encode_tables(const char *pfm_pmu, const char *name, pk_vendor vendor,
			 uint64_t config[PK_NR_CONFIGS], pk_error *err);

#endif
