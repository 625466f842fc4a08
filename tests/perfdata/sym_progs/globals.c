/* The data-address case of tests/perfdata/pd_sym_diff.py: page faults on
 * globals in .data and .bss (recorded with -e page-faults -d), so that
 * script -F addr,sym names the objects the faulting addresses lie in. */
#include <stdio.h>

char big_bss[1 << 20];
int data_arr[1 << 16] = {1};
const char ro_table[1 << 16] = "read only";

static __attribute__((noinline)) int touch(int i)
{
	big_bss[(i * 4096) % sizeof(big_bss)] = (char)i;
	data_arr[(i * 1024) % (1 << 16)] += i;
	return ro_table[(i * 4096) % sizeof(ro_table)];
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 256; i++)
		s += touch(i);
	printf("%d\n", s);
	return 0;
}
