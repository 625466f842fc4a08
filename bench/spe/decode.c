/* bench/spe: raw SPE decode throughput of lib/spe on one core. Reads a raw
 * packet stream (tests/spe/spe_gen OUT SEED N raw) into memory, or takes
 * a perf.data's AUXTRACE buffers in place in the reader's mapping of the
 * file (no copy, as `pmukit script` decodes them), and decodes it all
 * REPEAT times into records;
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

/* The AUXTRACE buffers of a perf.data, in place in the reader's mapping
 * of the file (no copy: as `pmukit script` decodes them); the reader stays
 * open while they are decoded. */
typedef struct span {
	const unsigned char *p;
	size_t len;
} span;

static span *aux_of(const char *path, pk_pd_reader **rp, size_t *nr)
{
	pk_pd_reader *r;
	if (pk_pd_reader_open(path, NULL, &r, NULL) < 0)
		return NULL;
	span *sp = NULL;
	size_t n = 0;
	pk_pd_event ev;
	while (pk_pd_next(r, &ev, NULL) > 0) {
		if (ev.type != PK_RECORD_AUXTRACE || !ev.aux_size)
			continue;
		span *ns = pk_pd_event_stable(r, &ev) ? realloc(sp, (n + 1) * sizeof(*sp)) : NULL;
		if (!ns) {
			fprintf(stderr, "spe-decode: %s: AUXTRACE data not in place\n", path);
			free(sp);
			pk_pd_reader_close(r);
			return NULL;
		}
		sp = ns;
		sp[n++] = (span){ev.aux, ev.aux_size};
	}
	*rp = r;
	*nr = n;
	return sp;
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
	size_t len = 0, nr = 1;
	pk_pd_reader *reader = NULL;
	unsigned char *raw = NULL;
	span one, *spans;
	if (argc > 3 && !strcmp(argv[3], "--perfdata")) {
		spans = aux_of(argv[1], &reader, &nr);
	} else {
		raw = slurp(argv[1], &one.len);
		one.p = raw;
		spans = raw ? &one : NULL;
	}
	for (size_t i = 0; spans && i < nr; i++)
		len += spans[i].len;
	if (!spans || !len) {
		fprintf(stderr, "spe-decode: no data in %s\n", argv[1]);
		return 1;
	}
	double best = 1e30, best_cpu = 1e30;
	unsigned long long records = 0, sum = 0;
	for (int i = 0; i < repeat; i++) {
		double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
		records = 0;
		for (size_t b = 0; b < nr; b++) {
			pk_spe_decoder d;
			pk_spe_decoder_init(&d, spans[b].p, spans[b].len, 0);
			pk_spe_record r;
			int rc;
			while ((rc = pk_spe_next(&d, &r)) != PK_SPE_DONE) {
				records += rc == PK_SPE_RECORD;
				sum += r.pc ^ r.lat_total; /* keep the fields live */
			}
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
	if (reader) {
		free(spans);
		pk_pd_reader_close(reader);
	}
	free(raw);
	return 0;
}
