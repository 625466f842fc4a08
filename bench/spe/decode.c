/* bench/spe: raw SPE decode throughput of lib/spe on one core. Reads a raw
 * packet stream (tests/spe/spe_gen OUT SEED N raw), or a perf.data's
 * AUXTRACE data, into memory and decodes it REPEAT times into records;
 * prints MB/s and records/s of the best pass by wall time and by the
 * thread's CPU time (the one-core rate when the machine is shared). The
 * issue's target: >= 1 GB/s.
 * Usage: spe-decode FILE [REPEAT] [--perfdata] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmukit/perfdata.h>
#include <pmukit/spe.h>

static double now(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The AUXTRACE data of a perf.data, concatenated. */
static unsigned char *aux_of(const char *path, size_t *len)
{
	pk_pd_reader *r;
	if (pk_pd_reader_open(path, NULL, &r, NULL) < 0)
		return NULL;
	unsigned char *buf = NULL;
	size_t n = 0;
	pk_pd_event ev;
	while (pk_pd_next(r, &ev, NULL) > 0) {
		if (ev.type != PK_RECORD_AUXTRACE || !ev.aux_size)
			continue;
		unsigned char *nb = realloc(buf, n + ev.aux_size);
		if (!nb)
			break;
		buf = nb;
		memcpy(buf + n, ev.aux, ev.aux_size);
		n += ev.aux_size;
	}
	pk_pd_reader_close(r);
	*len = n;
	return buf;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(sz > 0 ? (size_t)sz : 1);
	*len = b ? fread(b, 1, (size_t)sz, f) : 0;
	fclose(f);
	return b;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: spe-decode FILE [REPEAT] [--perfdata]\n");
		return 2;
	}
	int repeat = argc > 2 ? atoi(argv[2]) : 5;
	size_t len = 0;
	unsigned char *buf = argc > 3 && !strcmp(argv[3], "--perfdata") ? aux_of(argv[1], &len)
									 : slurp(argv[1], &len);
	if (!buf || !len) {
		fprintf(stderr, "spe-decode: no data in %s\n", argv[1]);
		return 1;
	}
	double best = 1e30, best_cpu = 1e30;
	unsigned long long records = 0, sum = 0;
	for (int i = 0; i < repeat; i++) {
		double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
		pk_spe_decoder d;
		pk_spe_decoder_init(&d, buf, len, 0);
		pk_spe_record r;
		int rc;
		records = 0;
		while ((rc = pk_spe_next(&d, &r)) != PK_SPE_DONE) {
			records += rc == PK_SPE_RECORD;
			sum += r.pc ^ r.lat_total; /* keep the fields live */
		}
		double t = now(CLOCK_MONOTONIC) - t0, c = now(CLOCK_THREAD_CPUTIME_ID) - c0;
		if (t < best)
			best = t;
		if (c < best_cpu)
			best_cpu = c;
	}
	printf("%zu bytes, %llu records: best of %d: wall %.4f s: %.0f MB/s, %.1f M records/s; "
	       "CPU %.4f s: %.0f MB/s, %.1f M records/s (%llx)\n",
	       len, records, repeat, best, (double)len / best / 1e6, (double)records / best / 1e6,
	       best_cpu, (double)len / best_cpu / 1e6, (double)records / best_cpu / 1e6, sum & 0xf);
	free(buf);
	return 0;
}
