/* spe_gen: writes a generated SPE perf.data (tests/spe/spe_gen.h) for the
 * differential test, the fuzz corpus and the bench.
 * Usage: spe_gen OUT SEED RECORDS [perf61] [end] [bad] [cpus=N] [midr=HEX]
 *        [tid=N] [hot=N] [noctx] [oldorder] [pipe] [raw]   (raw: the bare packet stream of
 *        CPU 0; pipe: a pipe-mode file) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spe_gen.h"

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: spe_gen OUT SEED RECORDS [perf61] [end] [bad] [cpus=N] "
				"[midr=HEX] [tid=N] [hot=N] [noctx] [oldorder] [pipe] [raw]\n");
		return 2;
	}
	spe_gen_opts o = {.seed = strtoull(argv[2], NULL, 0), .nr_records = atoi(argv[3])};
	bool raw = false;
	for (int i = 4; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "perf61")) o.perf61 = true;
		else if (!strcmp(a, "end")) o.end_packets = true;
		else if (!strcmp(a, "bad")) o.bad_bytes = true;
		else if (!strcmp(a, "noctx")) o.no_context = true;
		else if (!strcmp(a, "raw")) raw = true;
		else if (!strcmp(a, "oldorder")) o.old_order = true;
		else if (!strcmp(a, "pipe")) o.pipe = true;
		else if (!strncmp(a, "cpus=", 5)) o.nr_cpus = atoi(a + 5);
		else if (!strncmp(a, "midr=", 5)) o.midr = (uint32_t)strtoul(a + 5, NULL, 16);
		else if (!strncmp(a, "tid=", 4)) o.context_tid = (uint32_t)atoi(a + 4);
		else if (!strncmp(a, "hot=", 4)) o.hot_pcs = (unsigned)atoi(a + 4);
		else {
			fprintf(stderr, "spe_gen: unknown option %s\n", a);
			return 2;
		}
	}
	if (!raw)
		return spe_gen_perfdata(argv[1], &o) ? 1 : 0;
	size_t cap = (size_t)o.nr_records * 160 + 64;
	unsigned char *b = malloc(cap);
	FILE *f = fopen(argv[1], "wb");
	if (!b || !f)
		return 1;
	size_t n = spe_gen_stream(&o, 0, b, cap);
	int rc = fwrite(b, 1, n, f) == n ? 0 : 1;
	free(b);
	return fclose(f) || rc;
}
