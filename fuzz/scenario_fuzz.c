/* Fuzz target: the PMU model's scenario parser (lib/model/scenario.c,
 * scenario_tma.c), then what the model does next with an accepted one:
 * each phase's cycles and its shares quantized into PERF_METRICS and read
 * back through the driver's arithmetic. Invariants checked: a refusal is
 * -EINVAL with a message and the input's name; an accepted scenario has
 * Level 1 summing to 1, children within their parents, shares in [0, 1],
 * and a register whose Level 1 bytes sum to 0xff. Seeds: examples/model. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static void check_phase(const pki_phase *p)
{
	double sum = 0;
	uint64_t node[PKI_TMA_NR];
	uint64_t slots = pki_phase_cycles(p) * 6;
	for (int i = 0; i < PKI_TMA_NR; i++) {
		if (!(p->tma[i] >= 0 && p->tma[i] <= 1))
			abort();
		if (i >= PKI_TMA_L1_NR && p->tma[i] > p->tma[i - PKI_TMA_L1_NR])
			abort();
		if (i < PKI_TMA_L1_NR)
			sum += p->tma[i];
		node[i] = (uint64_t)((double)slots * p->tma[i]);
	}
	if (fabs(sum - 1) > PKI_TMA_TOLERANCE)
		abort();
	uint64_t reg = pki_pm_encode(node);
	unsigned l1 = 0;
	for (int i = 0; i < PKI_TMA_L1_NR; i++)
		l1 += pki_pm_field(reg, i);
	if (slots && node[0] + node[1] + node[2] + node[3] && l1 != 0xff)
		abort();
	pki_pm_regs r = {0};
	uint64_t count[1 + PKI_TMA_NR] = {0};
	pki_pm_run(&r, node);
	pki_pm_read(&r, count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pki_scenario s;
	pk_error err;
	pk_error_clear(&err);
	if (pki_scenario_parse((const char *)data, size, "fuzz.json", &s, &err) < 0) {
		if (err.code != -EINVAL || !err.msg[0] || strcmp(err.where, "fuzz.json"))
			abort();
		return 0;
	}
	for (size_t t = 0; t < s.nr_threads; t++)
		for (size_t p = 0; p < s.threads[t].nr_phases; p++)
			check_phase(&s.threads[t].phases[p]);
	pki_scenario_release(&s);
	return 0;
}
