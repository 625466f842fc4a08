/* Intel's fixed counter 3 (SLOTS) and PERF_METRICS, and the kernel driver's
 * arithmetic on them (facts: shared reference topdown.md 1.1 and 1.4, the
 * Ice Lake / Sapphire Rapids TopDown patches).
 *
 * The hardware keeps slots since the last reset and eight 8-bit fractions of
 * them: Level 1 in bytes 0-3 summing to 0xff, Level 2 in bytes 4-7. The
 * model keeps the exact slots per node and quantizes on demand, so a read
 * sees what the register would hold for the whole period since the reset.
 *
 * Rounding (the hardware's rule is not published): Level 1 by largest
 * remainder, so the bytes sum to exactly 0xff and each byte is within one
 * unit (1/255 of the slots) of the exact share; ties go to the lower byte.
 * Level 2 bytes round to nearest (half up) and are capped at the parent's
 * byte, so a child never reads above its parent.
 *
 * The driver: value = mul_u64_u32_div(slots, field, 0xff); on each update
 * delta = value(now) - value(saved), added only when positive (the driver's
 * guard against a fraction that dropped); a read through the kernel clears
 * both registers and the saved values; a context switch saves them. The
 * decoding (a byte, the driver's value) is lib/topdown/perf_metrics.c's,
 * shared with the region reader. */
#include <string.h>

#include "model/model.h"

/* Level 1: floor of each share of 0xff, then the units left over go to the
 * largest remainders. */
static void encode_l1(const uint64_t slots[PKI_TMA_NR], uint64_t total, unsigned byte[])
{
	unsigned __int128 rem[PKI_TMA_L1_NR];
	unsigned sum = 0;
	for (int i = 0; i < PKI_TMA_L1_NR; i++) {
		unsigned __int128 x = (unsigned __int128)slots[i] * 0xff;
		byte[i] = (unsigned)(x / total);
		rem[i] = x % total;
		sum += byte[i];
	}
	while (sum < 0xff) {
		int best = 0;
		for (int i = 1; i < PKI_TMA_L1_NR; i++)
			if (rem[i] > rem[best])
				best = i;
		byte[best]++;
		rem[best] = 0;
		sum++;
	}
}

uint64_t pki_pm_encode(const uint64_t slots[PKI_TMA_NR])
{
	uint64_t total = 0;
	for (int i = 0; i < PKI_TMA_L1_NR; i++)
		total += slots[i];
	if (!total)
		return 0;
	unsigned byte[PKI_TMA_NR];
	encode_l1(slots, total, byte);
	for (int i = PKI_TMA_L1_NR; i < PKI_TMA_NR; i++) {
		unsigned __int128 x = (unsigned __int128)slots[i] * 0xff * 2 + total;
		unsigned __int128 b = x / (2 * (unsigned __int128)total);
		unsigned parent = byte[i - PKI_TMA_L1_NR];
		byte[i] = b > parent ? parent : (unsigned)b;
	}
	uint64_t reg = 0;
	for (int i = 0; i < PKI_TMA_NR; i++)
		reg |= (uint64_t)byte[i] << (8 * i);
	return reg;
}

const char *const pki_pm_driver_names[2] = {"current", "icl-patch-2019"};

uint64_t pki_pm_value_of(pki_pm_driver d, uint64_t slots, uint64_t metrics, int field)
{
	if (d == PKI_PM_CURRENT || field < 0)
		return pki_pm_value(slots, metrics, field);
	uint64_t frac = ((uint64_t)pki_pm_field(metrics, field) * 0xffff) >> 8; /* 16-bit fraction */
	return (frac * slots) >> 16; /* 64-bit product, as the patch: wraps past 48-bit slots */
}

void pki_pm_run(pki_pm_regs *r, const uint64_t node[PKI_TMA_NR])
{
	for (int i = 0; i < PKI_TMA_NR; i++)
		r->node[i] += node[i];
}

uint64_t pki_pm_slots(const pki_pm_regs *r)
{
	uint64_t s = 0;
	for (int i = 0; i < PKI_TMA_L1_NR; i++)
		s += r->node[i];
	return s;
}

uint64_t pki_pm_metrics(const pki_pm_regs *r)
{
	return pki_pm_encode(r->node);
}

uint64_t pki_pm_delta(const pki_pm_regs *r, int field)
{
	uint64_t now = pki_pm_value_of(r->driver, pki_pm_slots(r), pki_pm_metrics(r), field);
	uint64_t last = 0;
	if (r->last_slots)
		last = pki_pm_value_of(r->driver, r->last_slots, r->last_metrics, field);
	if (r->driver == PKI_PM_PATCH_2019)
		return now - last;
	return now > last ? now - last : 0;
}

/* Every event's delta into count[] (slots first, then the eight fields). */
static void update(const pki_pm_regs *r, uint64_t count[1 + PKI_TMA_NR])
{
	for (int f = -1; f < PKI_TMA_NR; f++)
		count[1 + f] += pki_pm_delta(r, f);
}

void pki_pm_read(pki_pm_regs *r, uint64_t count[1 + PKI_TMA_NR])
{
	update(r, count);
	pki_pm_reset(r);
}

void pki_pm_reset(pki_pm_regs *r)
{
	pki_pm_driver d = r->driver;
	memset(r, 0, sizeof(*r));
	r->driver = d;
}

void pki_pm_save(pki_pm_regs *r, uint64_t count[1 + PKI_TMA_NR])
{
	update(r, count);
	r->last_slots = pki_pm_slots(r);
	r->last_metrics = pki_pm_metrics(r);
}
