/* libFuzzer target: the perf.data reader on arbitrary bytes (file and pipe
 * mode, both byte orders, every record, sample and feature parser; the
 * HEADER_BUILD_ID records inject reads). */
#include <stddef.h>
#include <stdint.h>

#include <pmukit/perfdata.h>
#include <pmukit/symbols.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pk_pd_reader *r;
	pk_pd_open_opts o = {.queue_limit = 1 << 20, .chunk_size = 4096};
	if (pk_pd_reader_open_mem(data, size, &o, &r, NULL) < 0)
		return 0;
	pk_pd_header h;
	if (pk_pd_header_read(r, &h, NULL) == 0)
		pk_pd_header_release(&h);
	/* maps and comms without touching the file system */
	pk_machine_opts mo = {.kallsyms = "", .no_symbols = true};
	pk_machine *m = pk_machine_new(&mo);
	pk_pd_event ev;
	int n = 0;
	while (pk_pd_next(r, &ev, NULL) > 0 && n++ < 100000) {
		if (ev.type == PERF_RECORD_SAMPLE) {
			pk_pd_sample s = PK_PD_SAMPLE_INIT;
			if (ev.evsel && pk_pd_parse_sample(&ev, &s, NULL) == 0 && m) {
				pk_addr_loc loc;
				pk_machine_resolve(m, s.pid, ev.misc & 7, s.ip, &loc);
				pk_machine_comm(m, s.pid, s.tid);
				unsigned mode = 0;
				for (uint64_t i = 0; i < s.callchain_nr; i++)
					pk_callchain_context(s.callchain[i], &mode);
				/* --call-graph dwarf: the unwinder on the sample's
				 * registers and stack bytes (fuzz/unwind_fuzz.c goes
				 * deeper, over real CFI) */
				uint64_t ips[16];
				if (s.type & PERF_SAMPLE_REGS_USER)
					pk_machine_unwind(m, &s, ev.evsel->attr.sample_regs_user, NULL,
							  ips, 16, NULL);
			}
			continue;
		}
		if (m)
			pk_machine_event(m, &ev);
		pk_pd_rec_auxtrace a;
		pk_pd_rec_time_conv t;
		pk_pd_rec_auxtrace_parse(&ev, &a, NULL);
		pk_pd_rec_time_conv_parse(&ev, &t, NULL);
		pk_pd_rec_u64(&ev, 3);
		/* a HEADER_BUILD_ID record as inject reads it (lib/record/inject.c) */
		pk_pd_rec_build_id b;
		if (ev.type == PK_RECORD_HEADER_BUILD_ID)
			pk_pd_build_id_parse(ev.data, ev.size, false, &b);
	}
	pk_machine_free(m);
	pk_pd_reader_close(r);
	return 0;
}
