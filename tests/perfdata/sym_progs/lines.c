/* The source-line case of tests/perfdata/pd_sym_diff.py: built with -g
 * (and once without), recorded with call chains, so that script -F srcline
 * and report -s srcline,srcfile show the lines of an inlined loop (forced
 * inline: its lines inside outer), of outer and of main. argv[1]: loops. */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) long inner(long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 3 + i;
	return x;
}

static __attribute__((noinline)) long outer(long x)
{
	return inner(x) + inner(x + 1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	long s = 0;
	for (long i = 0; i < n; i++)
		s += outer(i + argc);
	printf("%ld\n", s);
	return 0;
}
