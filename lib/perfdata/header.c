/* The fixed layout of a perf.data file that reader and writer share: the
 * file header's fields (pd_internal.h names their offsets) and the attr
 * sizes. Each fact is written once here; the reader decodes with it, the
 * writer encodes with it. */
#include "pd_internal.h"

void pki_pd_header_encode(const pd_file_header *h, uint8_t *out)
{
	memset(out, 0, PD_FILE_HEADER_SIZE);
	pd_st64(out + PD_HDR_MAGIC, PD_MAGIC);
	pd_st64(out + PD_HDR_SIZE, PD_FILE_HEADER_SIZE);
	pd_st64(out + PD_HDR_ATTR_SIZE, h->attr_size);
	pd_st64(out + PD_HDR_ATTRS, h->attrs_offset);
	pd_st64(out + PD_HDR_ATTRS + 8, h->attrs_size);
	pd_st64(out + PD_HDR_DATA, h->data_offset);
	pd_st64(out + PD_HDR_DATA + 8, h->data_size);
	for (int i = 0; i < PD_HDR_FEAT_WORDS; i++)
		pd_st64(out + PD_HDR_FEATURES + i * 8, h->features[i]);
}

void pki_pd_header_decode(const uint8_t *in, uint64_t hsize, bool swap, pd_file_header *h)
{
	memset(h, 0, sizeof(*h));
	h->size = hsize;
	h->attr_size = pd_get64(in + PD_HDR_ATTR_SIZE, swap);
	h->attrs_offset = pd_get64(in + PD_HDR_ATTRS, swap);
	h->attrs_size = pd_get64(in + PD_HDR_ATTRS + 8, swap);
	h->data_offset = pd_get64(in + PD_HDR_DATA, swap);
	h->data_size = pd_get64(in + PD_HDR_DATA + 8, swap);
	if (hsize < PD_HDR_FEATURES + PD_HDR_FEAT_WORDS * 8)
		return;
	for (int i = 0; i < PD_HDR_FEAT_WORDS; i++)
		h->features[i] = pd_get64(in + PD_HDR_FEATURES + i * 8, swap);
}

uint32_t pki_pd_attr_size_check(uint64_t size)
{
	if (size == 0)
		return PD_ATTR_SIZE_VER0;
	if (size < PD_ATTR_SIZE_VER0 || size > PD_ATTR_SIZE_MAX || size % 8)
		return 0;
	return (uint32_t)size;
}

uint32_t pki_pd_attr_size(const uint8_t *attr, bool swap)
{
	return pki_pd_attr_size_check(pd_get32(attr + PD_ATTR_SIZE_OFF, swap));
}
