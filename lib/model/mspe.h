/* Inside the library: the PMU model's SPE unit (issue 11), docs/model.md
 * "The SPE unit".
 *  - spe_unit.c (pure): which operation a sample is (deterministic, by the
 *    phase's "spe" shares), the driver's filters, the record's bytes;
 *  - mspe.c (the model's kernel): opening an arm_spe event with the
 *    driver's checks (pk_spe_check), the AUX area (mmap at the user page's
 *    aux_offset), samples every `period` operations in virtual time into
 *    the AUX buffer, PERF_RECORD_AUX records into the event's ring with
 *    the TRUNCATED flag when the consumer is slow, discard mode.
 * Names are pki_; nothing here is exported. */
#ifndef PK_MODEL_MSPE_H
#define PK_MODEL_MSPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Every record the unit writes has this size (the N1 captures' 64 bytes,
 * PAD-filled); it divides every AUX buffer, so a record never wraps. */
#define PKI_SPE_REC_SIZE 64

/* What the driver programs from the event's terms. */
typedef struct pki_spe_cfg {
	bool ts, pa, context, discard;
	bool type_filter[PKI_SPE_OP_NR]; /* load, store, branch (other: never) */
	uint64_t event_filter, inv_event_filter;
	unsigned min_latency;
	unsigned count_max;              /* (1 << caps/count_size) - 1 */
} pki_spe_cfg;

/* The round-robin state of one event's choices. */
typedef struct pki_spe_gen {
	double op_acc[PKI_SPE_OP_NR];
	double src_acc[PKI_SPE_SRC_NR];
	double misp_acc[2];
	uint64_t n;
} pki_spe_gen;

/* One sampled operation. */
typedef struct pki_spe_op {
	int op;                          /* enum pki_spe_kind */
	int src;                         /* loads: enum pki_spe_src, else -1 */
	bool mispred;
	unsigned latency;                /* total, cycles */
	uint64_t events;                 /* EVENTS packet bits */
} pki_spe_op;

/* Where and when: the PC, the thread (CONTEXT), the timestamp. */
typedef struct pki_spe_where {
	uint64_t pc, ts;
	uint32_t tid;
} pki_spe_where;

void pki_spe_next_op(pki_spe_gen *g, const pki_spe_phase *p, pki_spe_op *out);
bool pki_spe_keep(const pki_spe_cfg *c, const pki_spe_op *r);
void pki_spe_encode(const pki_spe_cfg *c, const pki_spe_phase *ph, const pki_spe_op *r,
		    const pki_spe_where *w, uint8_t out[PKI_SPE_REC_SIZE]);

/* ---- the kernel side (mspe.c) ---- */
struct pk_model;
struct mk_event;
struct pk_pmu;
/* At open of an event of an arm_spe PMU: the driver's checks, the phases'
 * "spe" objects; the event becomes MK_SPE. 0 or the refusal. */
int pki_mk_spe_open(struct pk_model *m, struct mk_event *e, const struct pk_pmu *pmu);
void pki_mk_spe_free(struct mk_event *e);
/* mmap at a non-zero offset: the AUX area. */
int pki_mk_spe_mmap(struct pk_model *m, struct mk_event *e, size_t len, int prot,
		    uint64_t offset, void **addr);
/* True when addr was an AUX area (unmapped when len matches). */
bool pki_mk_spe_munmap(struct pk_model *m, void *addr, size_t len);
/* After the step [t0, t1): the samples of every running SPE event. */
/* True when a handle ended (its reader was woken). */
bool pki_mk_spe_step(struct pk_model *m, uint64_t t0, uint64_t t1);
/* After ENABLE/DISABLE: stopped SPE events end their handle. */
void pki_mk_spe_sync(struct pk_model *m);
/* samples, filtered, written, dropped, discarded, collisions. */
void pki_mk_spe_stats(const struct mk_event *e, uint64_t out[6]);
/* Whether a raw event of core PMU core is one of the SPE's own (SAMPLE_POP,
 * SAMPLE_FEED, SAMPLE_FILTRATE, SAMPLE_COLLISION, and the SAMPLE_FEED_*
 * where the PMU lists them) on a machine with an SPE: 1, 0 (not one), or
 * the refusal. The unit counts them while it samples (MK_SPE_COUNT). */
int pki_mk_spe_event(struct pk_model *m, const struct pk_pmu *core, uint64_t config);

#endif
