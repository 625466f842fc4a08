/* libFuzzer target: the Arm SPE packet decoder on arbitrary bytes: every
 * packet with its text and dump line, and the records (each record's
 * offsets inside the buffer, progress on every call), their synthetic
 * samples, and the first bytes as an --itrace string. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <pmukit/spe.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t midr = size ? (data[0] & 1 ? PK_SPE_MIDR_NEOVERSE_N1 : 0) : 0;
	char line[320];
	size_t pos = 0;
	int n;
	while ((n = pk_spe_dump_line(data, size, pos, midr, line, sizeof line)) > 0) {
		pk_spe_packet p;
		if (pk_spe_packet_decode(data, size, pos, &p, NULL) != n || p.len != (unsigned)n)
			abort();
		char small[8];
		pk_spe_packet_desc(&p, midr, small, sizeof small);
		pos += (size_t)n;
	}
	if (pos != size)
		abort();
	pk_spe_decoder d;
	pk_spe_decoder_init(&d, data, size, 0);
	pk_spe_record r;
	int rc;
	size_t last = 0;
	while ((rc = pk_spe_next(&d, &r)) != PK_SPE_DONE) {
		if (d.pos <= last || d.pos > size)
			abort();
		last = d.pos;
		if (rc == PK_SPE_RECORD && (r.offset >= r.end || r.end > size))
			abort();
		pk_spe_source_name(midr, r.source);
		if (rc != PK_SPE_RECORD)
			continue;
		pk_spe_sample smp;
		for (uint32_t k = pk_spe_record_kinds(&r); k; k &= k - 1)
			pk_spe_sample_fill(&r, (unsigned)__builtin_ctz(k), midr, &smp);
	}
	/* the first bytes as an --itrace string */
	char it[16];
	size_t n_it = size < sizeof it - 1 ? size : sizeof it - 1;
	for (size_t i = 0; i < n_it; i++)
		it[i] = data[i] ? (char)data[i] : 'i';
	it[n_it] = 0;
	pk_spe_itrace itr;
	pk_spe_itrace_parse(it, &itr, NULL);
	return 0;
}
