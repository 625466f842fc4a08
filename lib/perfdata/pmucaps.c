/* The CPU_PMU_CAPS and PMU_CAPS features of perf.data decoded
 * (pk_pd_pmu_caps, perfdata.h): CPU_PMU_CAPS is one PMU's caps ({u32 nr;
 * {string name; string value}}, the PMU named "cpu"), PMU_CAPS u32 nr, then
 * per PMU its caps and its string name. A string is u32 len, then len bytes
 * ending in NUL. Bounds-checked: a damaged entry ends the list there (perf
 * stops reading the section there too); at most 64 caps per PMU. Native
 * byte order only (perf swaps neither). The strings point into the
 * feature's data, valid until the reader is closed. */
#include "pd_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* One PMU's caps at *p (then its name when named); false when damaged. */
static bool read_caps(const uint8_t **p, const uint8_t *end, bool named, pk_pd_pmu_cap_set *out)
{
	uint32_t nr;
	if (end - *p < 4)
		return false;
	memcpy(&nr, *p, 4);
	*p += 4;
	if (nr > PK_PD_PMU_CAPS_MAX)
		return false;
	out->nr = nr;
	for (uint32_t i = 0; i < 2 * nr + named; i++) {
		uint32_t len;
		if (end - *p < 4 || (memcpy(&len, *p, 4), (size_t)(end - *p - 4) < len) || !len ||
		    (*p)[4 + len - 1])
			return false;
		if (i < 2 * nr)
			out->caps[i] = (const char *)*p + 4;
		else
			out->pmu = (const char *)*p + 4;
		*p += 4 + len;
	}
	return true;
}

int pk_pd_pmu_caps(pk_pd_reader *r, int feat, pk_pd_pmu_cap_set **out, size_t *nr)
{
	const uint8_t *p, *end;
	size_t len, cap = 0;
	uint32_t count = 1;
	*out = NULL;
	*nr = 0;
	if (pk_pd_needs_swap(r) || pk_pd_feature_raw(r, feat, &p, &len, NULL) < 0)
		return 0;
	end = p + len;
	bool named = feat == PK_FEAT_PMU_CAPS;
	if (named) {
		if (len < 4)
			return 0;
		memcpy(&count, p, 4);
		p += 4;
	}
	for (uint32_t i = 0; i < count; i++) {
		pk_pd_pmu_cap_set c = {.pmu = "cpu"};
		if (!read_caps(&p, end, named, &c))
			break;
		if (pki_grow(out, &cap, *nr + 1, sizeof(**out)) < 0)
			return -ENOMEM;
		(*out)[(*nr)++] = c;
	}
	return 0;
}
