/* INTERIM (issue 8): a minimal event table behind the contract at the end of
 * model.h, until the full table (events.c) is merged; the lead deletes this
 * file then. It knows exactly:
 *  - cycles (PERF_COUNT_HW_CPU_CYCLES): 1 per core cycle;
 *  - instructions (PERF_COUNT_HW_INSTRUCTIONS): width x (retiring -
 *    heavy_operations) per cycle (light operations retire one per slot);
 *  - slots (raw 0x0400): width per cycle;
 *  - the PERF_METRICS pseudo events (raw 0x8000-0x8700): width x share of
 *    their node per cycle.
 * Everything else is -ENOENT: the model never invents a count. */
#include <errno.h>
#include <linux/perf_event.h>

#include "model/model.h"

void pki_phase_node_rates(const pki_core *core, const pki_phase *ph, double out[PKI_TMA_NR])
{
	for (int i = 0; i < PKI_TMA_NR; i++)
		out[i] = core->row->width * ph->tma[i];
}

int pki_event_rate(const pki_core *core, const pki_event_key *ev, const pki_phase *ph,
		   double *rate, pk_error *err)
{
	double w = core->row->width;
	uint64_t code = ev->config & 0xffff;
	if (ev->kind == PERF_TYPE_HARDWARE && ev->config == PERF_COUNT_HW_CPU_CYCLES) {
		*rate = 1;
		return 0;
	}
	if (ev->kind == PERF_TYPE_HARDWARE && ev->config == PERF_COUNT_HW_INSTRUCTIONS) {
		*rate = w * (ph->tma[PKI_TMA_RETIRING] - ph->tma[PKI_TMA_HEAVY_OPS]);
		return 0;
	}
	if (ev->kind == PERF_TYPE_RAW && code == 0x0400) {
		*rate = w;
		return 0;
	}
	if (ev->kind == PERF_TYPE_RAW && code >= 0x8000 && code <= 0x8700 && !(code & 0xff)) {
		*rate = w * ph->tma[(code >> 8) - 0x80];
		return 0;
	}
	return pk_err(err, -ENOENT, "the model has no count for %s config %#llx on %s",
		      ev->kind == PERF_TYPE_HARDWARE ? "hardware event" : "raw event",
		      (unsigned long long)ev->config, core->row->core);
}
