/* A workload with a known number of page faults: maps N pages and writes
 * one byte in each (huge pages off, so each page is one fault). N = 0 gives
 * the start-up faults alone, to subtract. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long page = sysconf(_SC_PAGESIZE);
	if (n < 0 || page <= 0)
		return 2;
	if (n == 0) /* the baseline: the loader's faults alone */
		return 0;
	size_t len = (size_t)n * (size_t)page;
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	return 0;
}
