/* A region library example: dense compute, bound by the core.
 *
 * Regions: "init" (fills three 256 x 256 matrices) and "dgemm" (their
 * product, repeated: the operands stay in cache, a TopDown retiring /
 * core-bound region on a real PMU), with "dgemm_row" nested inside for
 * one row block per call. Set PMUKIT_REGION_REPORT=- (stderr), =FILE or
 * =FILE.json for the report; PMUKIT_MODEL=SCENARIO to count on the model.
 *
 *     cc compute.c $(pkg-config --cflags --libs libpmukit) -o compute
 *     PMUKIT_REGION_REPORT=- ./compute [repeats]     (20) */
#include <stdio.h>
#include <stdlib.h>

#include <pmukit/region.h>

enum { N = 256 };

static double a[N][N], b[N][N], c[N][N];

static void dgemm(void)
{
	for (int i = 0; i < N; i++) {
		if (i % 64 == 0)
			pk_region_begin("dgemm_row");
		for (int k = 0; k < N; k++) {
			double x = a[i][k];
			for (int j = 0; j < N; j++)
				c[i][j] += x * b[k][j];
		}
		if (i % 64 == 63)
			pk_region_end("dgemm_row");
	}
}

int main(int argc, char **argv)
{
	int repeats = argc > 1 ? atoi(argv[1]) : 20;
	if (repeats < 1) {
		fprintf(stderr, "usage: compute [repeats >= 1]\n");
		return 2;
	}
	pk_region_begin("init");
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			a[i][j] = i + j, b[i][j] = i - j, c[i][j] = 0;
	pk_region_end("init");
	for (int r = 0; r < repeats; r++) {
		pk_region_begin("dgemm");
		dgemm();
		pk_region_end("dgemm");
	}
	printf("compute: c[17][42] = %.0f after %d products\n", c[17][42], repeats);
	return 0;
}
