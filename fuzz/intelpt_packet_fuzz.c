/* libFuzzer target: the Intel PT packet decoder on arbitrary bytes: every
 * packet with its text (into a full and a tiny buffer) and its dump line;
 * each call makes progress and stays in the buffer; the first byte picks
 * the starting block context; the words as an AUXTRACE_INFO; and the
 * trace decoder over the bytes, fed in two parts, once without code and
 * once with a walker whose answers come from the data (every event's
 * offset inside the data, its type and code valid, the walk bounded). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/intelpt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct walker {
	const uint8_t *data;
	size_t size, at;
};

/* Answers from the data: a kind, or NOINSN/SKIP, targets near ip. */
static int data_walk(void *arg, uint64_t ip, uint64_t stop, pk_ipt_insn *in)
{
	struct walker *w = arg;
	uint8_t b = w->size ? w->data[w->at++ % w->size] : 0;
	if (b >= 0xf0)
		return b & 1 ? PK_IPT_WALK_NOINSN : PK_IPT_WALK_SKIP;
	*in = (pk_ipt_insn){(pk_ipt_insn_kind)(b % 4), ip + (b >> 4), ip + (b >> 4) + 2,
			    ip + b * 16u, b & 0x40};
	if (in->kind == PK_IPT_INSN_STOP && !stop)
		in->kind = PK_IPT_INSN_DIRECT;
	return 0;
}

static void decode_trace(const uint8_t *data, size_t size, bool with_walker)
{
	struct walker w = {data, size, 0};
	pk_ipt_params p;
	uint64_t words[PK_IPT_INFO_WORDS] = {[PK_IPT_MTC_FREQ_BITS] = 0x3c000,
					      [PK_IPT_TSC_CTC_N] = size ? data[0] : 0,
					      [PK_IPT_TSC_CTC_D] = size > 1 ? data[1] : 0};
	pk_ipt_params_from_info(&p, words, PK_IPT_INFO_WORDS, size > 2 ? data[2] * 0x4000ull : 0);
	if (with_walker) {
		p.walk = data_walk;
		p.walk_arg = &w;
	}
	pk_ipt_decoder *d = pk_ipt_decoder_new(&p);
	if (!d)
		return;
	size_t half = size / 2;
	pk_ipt_event e;
	pk_ipt_feed(d, data, half);
	for (int part = 0; part < 2; part++) {
		while (pk_ipt_next(d, &e))
			if (e.offset >= size || e.type < PK_IPT_EV_PSB || e.type > PK_IPT_EV_ERROR ||
			    (e.type == PK_IPT_EV_ERROR && (e.code < 1 || e.code > 10)) ||
			    !pk_ipt_err_text(e.code))
				abort();
		pk_ipt_feed(d, data + half, size - half);
	}
	pk_ipt_decoder_free(d);
}

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
	decode_trace(data, size, false);
	decode_trace(data, size, true);
	return 0;
}
