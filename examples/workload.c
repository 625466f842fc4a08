/* A small, deterministic workload for demos and tests: touches N pages
 * (one page fault each on first touch) and does some arithmetic.
 * usage: workload [pages] [iterations] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 1000;
	long iters = argc > 2 ? atol(argv[2]) : 2000000;
	long psz = sysconf(_SC_PAGESIZE);
	if (pages < 0 || iters < 0 || psz <= 0) {
		fprintf(stderr, "usage: workload [pages] [iterations]\n");
		return 2;
	}
	char *mem = NULL;
	if (pages) {
		mem = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		for (long i = 0; i < pages; i++)
			mem[i * psz] = (char)i;
	}
	volatile unsigned long acc = 1;
	for (long i = 0; i < iters; i++)
		acc = acc * 6364136223846793005UL + 1442695040888963407UL;
	if (mem)
		munmap(mem, (size_t)(pages * psz));
	return (int)(acc & 0) ;
}
