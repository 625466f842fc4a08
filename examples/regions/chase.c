/* A region library example: a pointer chase, bound by memory latency.
 *
 * Regions: "build" (fills and shuffles a 64 MiB ring of pointers: stores,
 * streaming) and "chase" (follows it: every load waits for the previous
 * one, a TopDown backend/memory-bound region on a real PMU). The program
 * asks for its results as data and prints them; PMUKIT_REGION_REPORT=FILE
 * writes the library's report too.
 *
 *     cc chase.c $(pkg-config --cflags --libs libpmukit) -o chase
 *     ./chase [MiB] [steps]        (64, 20000000)
 *     PMUKIT_MODEL=examples/model/sapphirerapids.json ./chase   (modeled) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <pmukit/region.h>

static size_t *build(size_t n)
{
	size_t *next = malloc(n * sizeof(*next));
	size_t *order = malloc(n * sizeof(*order));
	if (!next || !order) {
		free(next);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	uint64_t x = 88172645463325252ull; /* xorshift: a fixed random ring */
	for (size_t i = n - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = (size_t)(x % (i + 1)), t = order[i];
		order[i] = order[j], order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		next[order[i]] = order[(i + 1) % n];
	free(order);
	return next;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	long steps = argc > 2 ? strtol(argv[2], NULL, 10) : 20000000;
	size_t n = (mib << 20) / sizeof(size_t);
	if (n < 2 || steps < 1) {
		fprintf(stderr, "usage: chase [MiB >= 1] [steps >= 1]\n");
		return 2;
	}
	pk_region_begin("build");
	size_t *next = build(n);
	pk_region_end("build");
	if (!next) {
		fprintf(stderr, "chase: out of memory\n");
		return 1;
	}
	size_t p = 0;
	pk_region_begin("chase");
	for (long i = 0; i < steps; i++)
		p = next[p];
	pk_region_end("chase");
	printf("chase: end at %zu after %ld steps over %zu MiB\n", p, steps, mib);
	free(next);

	pk_region_info in;
	pk_region_get_info(&in);
	pk_region_result r[8];
	size_t nr = pk_region_results(r, 8);
	printf("chase: %s%s\n", in.topdown ? "TopDown by " : "no TopDown: ",
	       in.topdown ? in.method : in.why);
	for (size_t i = 0; i < nr && i < 8; i++) {
		printf("  %-6s %6.1f ms", r[i].name, r[i].bd.time_ns / 1e6);
		for (size_t j = 0; j < r[i].bd.nr; j++)
			if (r[i].bd.node[j].level == 1 && !isnan(r[i].bd.node[j].value))
				printf("  %s %.1f%%", r[i].bd.node[j].name + 4, r[i].bd.node[j].value);
		if (!in.topdown)
			printf("  %s %.0f", in.fallback, r[i].bd.count);
		printf("\n");
	}
	return 0;
}
