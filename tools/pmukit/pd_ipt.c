/* Intel PT in perf.data dumps: prints what lib/intelpt decodes, in perf
 * 6.1's `-D` layout.
 *
 * Invariants: output only (stdout); the packet lines go out in 64 KiB
 * blocks (a trace has millions of packets); the block context starts
 * afresh with each AUXTRACE record, as perf's dump does. */
#include "pd_ipt.h"

#include <pmukit/intelpt.h>

#include <stdio.h>
#include <string.h>

void pd_ipt_dump_info(const pk_pd_event *ev)
{
	/* the record: header, u32 type, u32 reserved, u64 words, filter string */
	uint64_t w[PK_IPT_INFO_WORDS];
	size_t n = pk_ipt_info_words(ev->data, ev->size, w);
	const char *filter = NULL;
	size_t flen = 0, at = 16 + PK_IPT_INFO_WORDS * 8;
	if (n == PK_IPT_INFO_WORDS && at < ev->size) {
		filter = (const char *)ev->data + at;
		flen = strnlen(filter, ev->size - at);
	}
	char text[2048];
	if (pk_ipt_info_text(w, n, filter, flen, text, sizeof text))
		fputs(text, stdout);
}

void pd_ipt_dump_data(const pk_pd_event *ev)
{
	printf(".\n. ... Intel Processor Trace data: size %zu bytes\n", (size_t)ev->aux_size);
	char block[1 << 16];
	size_t used = 0, pos = 0, n;
	pk_ipt_ctx ctx = PK_IPT_NO_CTX;
	for (;;) {
		if (sizeof block - used <= PK_IPT_LINE_MAX) {
			fwrite(block, 1, used, stdout);
			used = 0;
		}
		n = pk_ipt_dump_line(ev->aux, ev->aux_size, pos, &ctx, block + used, PK_IPT_LINE_MAX);
		if (!n)
			break;
		used += strlen(block + used);
		block[used++] = '\n';
		pos += n;
	}
	fwrite(block, 1, used, stdout);
}
