/* libFuzzer target: the Intel PT packet decoder on arbitrary bytes: every
 * packet with its text (into a full and a tiny buffer) and its dump line;
 * each call makes progress and stays in the buffer; the first byte picks
 * the starting block context; and the words as an AUXTRACE_INFO. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/intelpt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pk_ipt_ctx start = size ? (pk_ipt_ctx)(data[0] % 3) : PK_IPT_NO_CTX;
	pk_ipt_ctx ctx = start, ctx2 = start;
	char line[PK_IPT_LINE_MAX], small[6];
	size_t pos = 0, n;
	while ((n = pk_ipt_dump_line(data, size, pos, &ctx, line, sizeof line)) > 0) {
		pk_ipt_packet p;
		size_t len = pk_ipt_decode(data + pos, size - pos, &ctx2, &p);
		if (len != p.len || !len || p.span != n || n < len || n > 16 || pos + n > size ||
		    ctx != ctx2 || (unsigned)p.type >= PK_IPT_NR_TYPES || strlen(line) >= sizeof line)
			abort();
		if (pk_ipt_pkt_desc(&p, small, sizeof small) < strlen(small))
			abort();
		pos += n;
	}
	if (pos != size)
		abort();
	uint64_t w[PK_IPT_INFO_WORDS] = {0};
	size_t nw = size / 8 < PK_IPT_INFO_WORDS ? size / 8 : PK_IPT_INFO_WORDS;
	memcpy(w, data, nw * 8);
	char text[2048];
	pk_ipt_info_text(w, nw, (const char *)data, size, text, sizeof text);
	return 0;
}
