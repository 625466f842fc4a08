/* bench/topdown: the error of a TopDown breakdown against the time since
 * PERF_METRICS was last reset (issue 9; why perf's TopDown document asks for
 * -I and resets). On the PMU model's register arithmetic (lib/model
 * perf_metrics.c: eight 8-bit fields of the shares since the last reset,
 * fixed counter 3), a workload alternates two breakdowns every interval;
 * the breakdown of each interval is computed two ways:
 *   region deltas (rdpmc without reset): each byte scaled by slots at both
 *     ends, subtracted, divided by the slots delta (topdown.md 1.4);
 *   read() per interval: the kernel clears both registers on every read, so
 *     each interval's bytes are its own.
 * Printed: per time since the last reset, the largest error over the
 * intervals (percentage points), and its bound (1/255 of the slots since
 * the reset over the interval's slots). Deterministic; no timing. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/model.h"

#define WIDTH 6
#define GHZ 3.0
#define INTERVAL_MS 10

/* Two breakdowns (Level 1, then Level 2 children), alternating. */
static const double shares[2][PKI_TMA_NR] = {
	{0.47, 0.07, 0.16, 0.30, 0.20, 0.05, 0.09, 0.11},
	{0.21, 0.13, 0.27, 0.39, 0.03, 0.10, 0.18, 0.30},
};

static void node_slots(int phase, uint64_t slots, uint64_t out[PKI_TMA_NR])
{
	uint64_t sum = 0;
	for (int i = 0; i < PKI_TMA_L1_NR; i++) {
		out[i] = (uint64_t)llround((double)slots * shares[phase][i]);
		sum += out[i];
	}
	out[PKI_TMA_BE_BOUND] += slots - sum; /* Level 1 sums to the slots */
	for (int i = PKI_TMA_L1_NR; i < PKI_TMA_NR; i++)
		out[i] = (uint64_t)llround((double)slots * shares[phase][i]);
}

/* Largest error (pp) of the last `check` intervals of a run of n intervals
 * since one reset, by region deltas (rdpmc) or by a read() each interval. */
static double run(long n, long check, int by_read)
{
	pki_pm_regs r;
	pki_pm_reset(&r);
	uint64_t per = (uint64_t)(INTERVAL_MS * GHZ * 1e6 * WIDTH);
	uint64_t prev_slots = 0, prev_metrics = 0;
	double worst = 0;
	for (long k = 0; k < n; k++) {
		uint64_t node[PKI_TMA_NR];
		int ph = (int)(k % 2);
		node_slots(ph, per, node);
		pki_pm_run(&r, node);
		uint64_t s = pki_pm_slots(&r), m = pki_pm_metrics(&r);
		if (k >= n - check) {
			for (int f = 0; f < PKI_TMA_NR; f++) {
				double now = (double)s * pki_pm_field(m, f) / 255.0;
				double before = by_read ? 0 : (double)prev_slots * pki_pm_field(prev_metrics, f) / 255.0;
				double got = (now - before) / (double)(by_read ? s : s - prev_slots);
				worst = fmax(worst, fabs(got - shares[ph][f]) * 100);
			}
		}
		if (by_read) {
			uint64_t count[1 + PKI_TMA_NR] = {0};
			pki_pm_read(&r, count); /* clears both registers */
			s = m = 0;
		}
		prev_slots = s;
		prev_metrics = m;
	}
	return worst;
}

int main(void)
{
	static const double since_s[] = {0.01, 0.1, 1, 10, 100, 1000};
	printf("interval %d ms, %d GHz x width %d; error of one interval's breakdown, max over "
	       "the last 100 intervals and 8 nodes (percentage points)\n",
	       INTERVAL_MS, (int)GHZ, WIDTH);
	printf("%-22s %-18s %-18s %s\n", "time since reset", "region deltas", "read() each -I",
	       "bound of deltas");
	for (size_t i = 0; i < sizeof(since_s) / sizeof(since_s[0]); i++) {
		long n = (long)llround(since_s[i] * 1000 / INTERVAL_MS);
		long check = n < 100 ? n : 100;
		double bound = 100.0 / 255 * (2.0 * (double)n - 1); /* (2 S_k/255) / S_interval */
		printf("%-22g %-18.3f %-18.3f %.3f\n", since_s[i], run(n, check, 0), run(n, check, 1),
		       bound > 100 ? 100 : bound);
	}
	return 0;
}
