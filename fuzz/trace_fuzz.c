/* libFuzzer target: the tracing data blob (lib/perfdata/tracedata.c) and
 * the payload decoder over it (lib/perfdata/trace.c). Input: u16 payload
 * length L, L payload bytes, then the blob. The blob is parsed, written
 * back and parsed again (the two must agree part for part); loaded into
 * the decoder, and the payload printed with every event's id in both modes
 * (whole, and cut short), so damaged formats and payloads that lie about
 * their dynamic arrays are tried. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/tracedata.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const uint8_t *blob, size_t len)
{
	pk_trace_data a, b;
	if (pk_trace_data_parse(blob, len, &a, NULL) < 0)
		return;
	pk_pd_buf out = {0};
	if (pk_trace_data_write(&a, &out, NULL) == 0) {
		if (pk_trace_data_parse(out.data, out.len, &b, NULL) < 0)
			abort(); /* what we write must read back */
		if (b.nr_formats != a.nr_formats || b.nr_ftrace != a.nr_ftrace ||
		    b.printk.len != a.printk.len || b.header_page.len != a.header_page.len)
			abort();
		for (size_t i = 0; i < a.nr_formats; i++)
			if (a.formats[i].text.len != b.formats[i].text.len && !a.big_endian)
				abort();
		pk_trace_data_release(&b);
	}
	pk_pd_buf_release(&out);
	pk_trace_data_release(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t plen = (size_t)(data[0] | data[1] << 8);
	if (plen > size - 2)
		plen = size - 2;
	const uint8_t *payload = data + 2, *blob = payload + plen;
	size_t blen = size - 2 - plen;
	round_trip(blob, blen);
	pk_trace *t = NULL;
	if (pk_trace_new(blob, blen, &t, NULL) < 0)
		return 0;
	/* ids: the payload's common_type and the first few */
	uint64_t ids[4] = {plen >= 2 ? (uint64_t)(payload[0] | payload[1] << 8) : 0, 1, 2, 3};
	for (int i = 0; i < 4; i++) {
		if (!pk_trace_event_name(t, ids[i]))
			continue;
		size_t n;
		for (int mode = 0; mode < 2; mode++) {
			pk_trace_print(t, ids[i], payload, (uint32_t)plen, 0, (pk_trace_mode)mode, &n);
			pk_trace_print(t, ids[i], payload, (uint32_t)(plen / 2), 1, (pk_trace_mode)mode,
				       &n);
		}
	}
	pk_trace_free(t);
	return 0;
}
