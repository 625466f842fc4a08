/* pmukit CLI: Arm SPE data in perf.data (see pd_spe.h). The metadata gives
 * the CPUs' MIDRs (v2 per CPU; v1 files fall back to the CPUID header
 * feature, as perf does); every AUXTRACE buffer is decoded with lib/spe,
 * printed with -D in perf's layout, and counted, so that the end of the
 * run can say how much SPE data there was and what became of it. */
#include "pd_spe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/spe.h>

#include "builtin.h"
#include "pd_session.h"

static int parse_info(pd_spe *sp, const pk_pd_event *ev)
{
	sp->info_type = (uint32_t)pk_pd_rec_u64(ev, 0);
	pk_spe_info_release(&sp->info);
	pk_error err;
	pk_error_clear(&err);
	int rc = pk_spe_info_parse(ev, &sp->info, &err);
	if (rc == -ENOMEM)
		return rc;
	sp->have_info = rc == 0;
	if (rc == -EINVAL)
		snprintf(sp->info_error, sizeof sp->info_error, "%s", err.msg);
	return 0;
}

/* v1 files: the MIDR of the CPUID header feature (hex), perf's fallback. */
static void read_header_midr(pd_spe *sp, pd_session *s)
{
	sp->header_read = true;
	pk_pd_header h;
	if (pk_pd_header_read(s->reader, &h, NULL) < 0)
		return;
	if (h.cpuid)
		sp->midr_all = (uint32_t)strtoull(h.cpuid, NULL, 16);
	pk_pd_header_release(&h);
}

static uint32_t midr_of(pd_spe *sp, pd_session *s, uint32_t cpu)
{
	if (sp->info.nr_cpus)
		return pk_spe_info_midr(&sp->info, cpu, 0);
	if (!sp->header_read)
		read_header_midr(sp, s);
	return sp->midr_all;
}

static void dump(const pk_pd_event *ev, const pk_pd_rec_auxtrace *a, uint32_t midr)
{
	printf("\n%#" PRIx64 " [%#x]: PERF_RECORD_AUXTRACE size: %#" PRIx64 "  offset: %#" PRIx64
	       "  ref: %#" PRIx64 "  idx: %" PRIu32 "  tid: %" PRId32 "  cpu: %" PRId32 "\n.\n",
	       ev->offset, ev->size, a->size, a->offset, a->reference, a->idx, (int32_t)a->tid,
	       (int32_t)a->cpu);
	printf(". ... ARM SPE data: size %#" PRIx64 " bytes\n", ev->aux_size);
	/* the packet lines go out in 64 KiB blocks (one write each, not one
	 * per 4 KiB stdio buffer: a dump has tens of millions of lines) */
	enum { LINE = 320 };
	char block[1 << 16];
	size_t used = 0, pos = 0;
	int n;
	for (;;) {
		if (sizeof block - used <= LINE) {
			fwrite(block, 1, used, stdout);
			used = 0;
		}
		n = pk_spe_dump_line(ev->aux, ev->aux_size, pos, midr, block + used, LINE);
		if (n <= 0)
			break;
		used += strlen(block + used);
		block[used++] = '\n';
		pos += (size_t)n;
	}
	fwrite(block, 1, used, stdout);
}

static void decode(pd_spe *sp, const pk_pd_event *ev)
{
	pk_spe_decoder d;
	pk_spe_decoder_init(&d, ev->aux, ev->aux_size, ev->offset + ev->size);
	pk_spe_record r;
	int rc;
	while ((rc = pk_spe_next(&d, &r)) != PK_SPE_DONE) {
		if (rc == PK_SPE_WARN) {
			if (!sp->nr_bad++)
				sp->first_bad = d.warn_offset;
			continue;
		}
		sp->nr_records++;
		sp->nr_unclosed += !r.closed;
		if (!r.closed)
			continue; /* perf drops a record the data ends inside */
		uint32_t k = pk_spe_record_kinds(&r) & sp->itrace.kinds;
		/* instructions: every period-th record (perf's i<N>i) */
		if ((k >> PK_SPE_K_INSTRUCTIONS & 1) && (sp->nr_records - sp->nr_unclosed) % sp->itrace.period)
			k &= ~(1u << PK_SPE_K_INSTRUCTIONS);
		for (; k; k &= k - 1)
			sp->kinds[__builtin_ctz(k)]++;
	}
}

int pd_spe_event(pd_spe *sp, pd_session *s, const pk_pd_event *ev)
{
	if (!sp->itrace_set) {
		pk_spe_itrace_default(&sp->itrace);
		sp->itrace_set = true;
	}
	if (ev->type == PK_RECORD_AUXTRACE_INFO)
		return parse_info(sp, ev);
	pk_pd_rec_auxtrace a;
	if (ev->type != PK_RECORD_AUXTRACE || pk_pd_rec_auxtrace_parse(ev, &a, NULL) < 0)
		return 0;
	sp->nr_aux++;
	sp->aux_bytes += ev->aux_size;
	if (!sp->have_info) {
		if (!sp->nr_foreign++)
			sp->foreign_offset = ev->offset;
		sp->foreign_bytes += ev->aux_size;
		return 0;
	}
	if (sp->dump)
		dump(ev, &a, midr_of(sp, s, a.cpu));
	decode(sp, ev);
	return 0;
}

int pd_spe_finish(pd_spe *sp, pd_session *s, int status)
{
	const char *cmd = s->cmd;
	if (sp->info_error[0])
		fprintf(stderr, "pmukit %s: warning: %s\n", cmd, sp->info_error);
	if (sp->nr_foreign)
		fprintf(stderr, "pmukit %s: warning: %" PRIu64 " AUXTRACE buffers (%" PRIu64
				" bytes, first at file offset %#" PRIx64 ") not decoded: %s\n",
			cmd, sp->nr_foreign, sp->foreign_bytes, sp->foreign_offset,
			sp->info_type ? "their trace type is not Arm SPE (the only one pmukit decodes)"
				      : "no AUXTRACE_INFO says what trace they hold");
	if (sp->nr_bad)
		fprintf(stderr, "pmukit %s: warning: %" PRIu64 " undecodable bytes skipped in the Arm "
				"SPE data, first at file offset %#" PRIx64 "\n",
			cmd, sp->nr_bad, sp->first_bad);
	if (!sp->have_info || !sp->nr_aux || sp->dump)
		return status;
	char kinds[512] = "";
	size_t used = 0;
	for (unsigned k = 0; k < PK_SPE_NR_KINDS && used < sizeof kinds; k++)
		if (sp->kinds[k])
			used += (size_t)snprintf(kinds + used, sizeof kinds - used, "%s%" PRIu64 " %s",
						 used ? ", " : "", sp->kinds[k], pk_spe_kind_name(k));
	fprintf(stderr, "pmukit %s: warning: %" PRIu64 " Arm SPE records (%" PRIu64
			" bytes in %" PRIu64 " AUXTRACE buffers) decoded but not shown: they give %s "
			"synthetic samples, which pmukit does not print yet (use -D to dump the "
			"packets)\n",
		cmd, sp->nr_records, sp->aux_bytes, sp->nr_aux, used ? kinds : "no");
	if (sp->nr_unclosed)
		fprintf(stderr, "pmukit %s: warning: %" PRIu64 " Arm SPE records cut by the end of "
				"their buffer (no TS or END) skipped\n", cmd, sp->nr_unclosed);
	return !status && !s->nr_samples ? 1 : status;
}

int pd_spe_set_itrace(pd_spe *sp, const char *cmd, const char *arg)
{
	pk_error err;
	pk_error_clear(&err);
	if (pk_spe_itrace_parse(arg, &sp->itrace, &err) < 0) {
		pk_cli_print_error(cmd, &err);
		return 129;
	}
	sp->itrace_set = true;
	return 0;
}

void pd_spe_release(pd_spe *sp)
{
	pk_spe_info_release(&sp->info);
}
