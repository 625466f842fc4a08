/* PERF_METRICS decoded as the kernel driver does (perf_metrics.h): a
 * byte of the register as a fraction of 0xff of the slots. */
#include "topdown/perf_metrics.h"

#include <pmukit/topdown.h>

uint64_t pki_mul_u64_u32_div(uint64_t a, uint32_t b, uint32_t c)
{
	if (!c)
		return 0;
	return (uint64_t)(((unsigned __int128)a * b) / c);
}

int pk_topdown_metric_field(uint64_t config)
{
	if (config < 0x8000 || config > 0x8700 || (config & 0xff))
		return -1;
	return (int)((config >> 8) - 0x80);
}

unsigned pki_pm_field(uint64_t metrics, int field)
{
	return (unsigned)(metrics >> (8 * field)) & 0xff;
}

uint64_t pki_pm_value(uint64_t slots, uint64_t metrics, int field)
{
	if (field < 0)
		return slots;
	return pki_mul_u64_u32_div(slots, pki_pm_field(metrics, field), 0xff);
}
