/* The JIT case of tests/perfdata/pd_sym_diff.py: runs code copied into an
 * anonymous executable page and describes it in /tmp/perf-<pid>.map as a
 * JIT would (two functions, one name with spaces), so that script and
 * report symbolize it from that file. x86-64 only (the copied bytes are
 * "mov eax, edi; mov ecx, 4096; 1: inc eax; dec ecx; jnz 1b; ret").
 * argv[1]: loop count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const unsigned char code[] = {0x89, 0xf8, 0xb9, 0x00, 0x10, 0x00, 0x00,
				     0xff, 0xc0, 0xff, 0xc9, 0x75, 0xfa, 0xc3};

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p + 0x40, code, sizeof(code));
	memcpy(p + 0x80, code, sizeof(code));
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx e jit_one\n0x%lx 10 jit two spaced\nnot a line\n",
		(unsigned long)(p + 0x40), (unsigned long)(p + 0x80));
	fclose(f);
	int (*f1)(int) = (int (*)(int))(p + 0x40);
	int (*f2)(int) = (int (*)(int))(p + 0x80);
	volatile int s = 0;
	for (long i = 0; i < n; i++)
		s = f1(s) + f2(0);
	printf("%d\n", s);
	return 0;
}
