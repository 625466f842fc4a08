/* Arm SPE metadata in perf.data: PERF_RECORD_AUXTRACE_INFO of type 4.
 * v1 (perf <= 6.12): PMU type, per-CPU mmaps, detected by its size (two
 * words). v2: version, header size (words), PMU type, CPU count, then per
 * CPU: magic, cpu, number of parameters, MIDR, PMU type, min interval, ...
 * (entries may carry more parameters than this reader knows; their count
 * says how far to skip). Damage is an error naming the word. */
#include <pmukit/spe.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmukit/perfdata.h>

#define SPE_MAGIC 0x1010101010101010ull
#define MAX_CPUS 4096

static int parse_cpus(const pk_pd_event *ev, pk_spe_info *in, size_t nr_priv, size_t hdr,
		      uint64_t nr_cpu, pk_error *err)
{
	in->cpus = calloc(nr_cpu ? nr_cpu : 1, sizeof(*in->cpus));
	if (!in->cpus)
		return pk_err(err, -ENOMEM, "out of memory");
	size_t i = hdr; /* word index into priv[] */
	for (uint64_t c = 0; c < nr_cpu; c++) {
		if (i + 3 > nr_priv || pk_pd_rec_u64(ev, 1 + i) != SPE_MAGIC)
			return pk_err(err, -EINVAL, "Arm SPE AUXTRACE_INFO at file offset %llu: "
				      "CPU entry %llu (word %zu) has no magic", (unsigned long long)ev->offset,
				      (unsigned long long)c, i);
		uint64_t nr = pk_pd_rec_u64(ev, 1 + i + 2);
		if (nr > nr_priv - i - 3)
			return pk_err(err, -EINVAL, "Arm SPE AUXTRACE_INFO at file offset %llu: CPU "
				      "entry %llu says %llu parameters, past the record's end",
				      (unsigned long long)ev->offset, (unsigned long long)c,
				      (unsigned long long)nr);
		pk_spe_cpu_info *ci = &in->cpus[in->nr_cpus++];
		ci->cpu = (uint32_t)pk_pd_rec_u64(ev, 1 + i + 1);
		ci->midr = nr > 0 ? (uint32_t)pk_pd_rec_u64(ev, 1 + i + 3) : 0;
		ci->pmu_type = nr > 1 ? pk_pd_rec_u64(ev, 1 + i + 4) : UINT64_MAX;
		ci->min_interval = nr > 2 ? pk_pd_rec_u64(ev, 1 + i + 5) : 0;
		i += 3 + (size_t)nr;
	}
	return 0;
}

int pk_spe_info_parse(const pk_pd_event *ev, pk_spe_info *in, pk_error *err)
{
	memset(in, 0, sizeof(*in));
	if (ev->type != PK_RECORD_AUXTRACE_INFO || ev->size < 16)
		return pk_err(err, -EINVAL, "not an AUXTRACE_INFO record");
	if ((uint32_t)pk_pd_rec_u64(ev, 0) != PK_AUXTRACE_ARM_SPE)
		return -ENOENT;
	size_t nr_priv = (size_t)(ev->size - 16) / 8;
	if (nr_priv == 2) {
		in->version = 1;
		in->pmu_type = pk_pd_rec_u64(ev, 1);
		in->per_cpu_mmaps = pk_pd_rec_u64(ev, 2) != 0;
		return 0;
	}
	uint64_t version = pk_pd_rec_u64(ev, 1), hdr = pk_pd_rec_u64(ev, 2);
	uint64_t nr_cpu = pk_pd_rec_u64(ev, 4);
	if (nr_priv < 4 || version != 2)
		return pk_err(err, -EINVAL, "Arm SPE AUXTRACE_INFO at file offset %llu: metadata "
			      "version %llu in %zu words is unknown (v1 has 2 words, v2 a header "
			      "of 4)", (unsigned long long)ev->offset, (unsigned long long)version,
			      nr_priv);
	if (hdr < 4 || hdr > nr_priv || nr_cpu > MAX_CPUS)
		return pk_err(err, -EINVAL, "Arm SPE AUXTRACE_INFO at file offset %llu: header "
			      "size %llu or CPU count %llu impossible in %zu words",
			      (unsigned long long)ev->offset, (unsigned long long)hdr,
			      (unsigned long long)nr_cpu, nr_priv);
	in->version = 2;
	in->pmu_type = pk_pd_rec_u64(ev, 3);
	int rc = parse_cpus(ev, in, nr_priv, (size_t)hdr, nr_cpu, err);
	if (rc < 0)
		pk_spe_info_release(in);
	return rc;
}

uint32_t pk_spe_info_midr(const pk_spe_info *in, uint32_t cpu, uint32_t fallback)
{
	for (size_t i = 0; i < in->nr_cpus; i++)
		if (in->cpus[i].cpu == cpu)
			return in->cpus[i].midr;
	return fallback;
}

void pk_spe_info_release(pk_spe_info *in)
{
	free(in->cpus);
	memset(in, 0, sizeof(*in));
}
