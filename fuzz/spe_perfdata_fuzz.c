/* libFuzzer target: the SPE path of the perf.data reader: AUXTRACE_INFO
 * metadata (v1, v2) and the AUXTRACE buffers' data through the decoder,
 * as `pmukit script` / `report -D` take them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <pmukit/perfdata.h>
#include <pmukit/spe.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pk_pd_reader *r;
	pk_pd_open_opts o = {.queue_limit = 1 << 20, .chunk_size = 4096};
	if (pk_pd_reader_open_mem(data, size, &o, &r, NULL) < 0)
		return 0;
	pk_spe_info info = {0};
	pk_pd_event ev;
	int n = 0;
	while (pk_pd_next(r, &ev, NULL) > 0 && n++ < 100000) {
		if (ev.type == PK_RECORD_AUXTRACE_INFO) {
			pk_spe_info_release(&info);
			pk_spe_info_parse(&ev, &info, NULL);
			continue;
		}
		pk_pd_rec_auxtrace a;
		if (ev.type != PK_RECORD_AUXTRACE || pk_pd_rec_auxtrace_parse(&ev, &a, NULL) < 0)
			continue;
		uint32_t midr = pk_spe_info_midr(&info, a.cpu, 0);
		pk_spe_decoder d;
		pk_spe_decoder_init(&d, ev.aux, ev.aux_size, ev.offset);
		pk_spe_record rec;
		while (pk_spe_next(&d, &rec) != PK_SPE_DONE)
			pk_spe_source_name(midr, rec.source);
	}
	pk_spe_info_release(&info);
	pk_pd_reader_close(r);
	return 0;
}
