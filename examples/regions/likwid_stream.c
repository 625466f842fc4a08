/* A program written for likwid's marker API, unchanged: with pmukit's
 * likwid-marker.h it reports TopDown per tag.
 *
 *     cc -DLIKWID_PERFMON likwid_stream.c \
 *        $(pkg-config --cflags --libs libpmukit) -o likwid_stream
 *     PMUKIT_REGION_REPORT=- ./likwid_stream
 *
 * Without -DLIKWID_PERFMON the macros are empty (as likwid's). */
#include <stdio.h>
#include <stdlib.h>
#include <likwid-marker.h>

enum { N = 1 << 22 };

int main(void)
{
	double *x = malloc(N * sizeof(*x)), *y = malloc(N * sizeof(*y));
	if (!x || !y)
		return 1;
	LIKWID_MARKER_INIT;
	LIKWID_MARKER_THREADINIT;
	LIKWID_MARKER_REGISTER("triad");
	for (int i = 0; i < N; i++)
		x[i] = i, y[i] = 0;
	for (int r = 0; r < 5; r++) {
		LIKWID_MARKER_START("triad");
		for (int i = 0; i < N; i++)
			y[i] += 3.0 * x[i];
		LIKWID_MARKER_STOP("triad");
	}
	LIKWID_MARKER_CLOSE;
	printf("likwid_stream: y[7] = %.0f\n", y[7]);
	free(x);
	free(y);
	return 0;
}
