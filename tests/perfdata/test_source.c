/* The mapped byte source (lib/perfdata/source.c): a regular file read with
 * the default chunk is mapped whole, and a segment is given back only once
 * the reader is past it and no queued record lies in it; with a chunk size
 * asked for, the pread window stays. Checked on the source's own state
 * (which segments it gave back), not on the process's memory, and the
 * bytes read through it after a give-back are still the file's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd_test.h"
#include "perfdata/pd_internal.h"

#define SEG ((size_t)4 << 20) /* PD_SEG_SHIFT */
#define FILE_SIZE (4 * SEG + 100)

static char path[512];

/* A file whose every u64 holds its own offset. */
static int setup(void **state)
{
	if (pd_test_setup(state))
		return -1;
	snprintf(path, sizeof(path), "%s/src.bin", pd_test_dir);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	for (uint64_t off = 0; off + 8 <= FILE_SIZE; off += 8)
		fwrite(&off, 8, 1, f);
	fputs("tail", f);
	return fclose(f);
}

static const uint8_t *at(pd_src *s, uint64_t off)
{
	const uint8_t *p;
	size_t got;
	assert_int_equal(pki_pd_src_peek(s, off, 8, &p, &got), 0);
	assert_int_equal(got, 8);
	return p;
}

/* The source over the file with chunk (0: the default); its fd. */
static int open_src(pd_src *s, size_t chunk)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	pki_pd_src_init_fd(s, fd, chunk);
	return fd;
}

static void test_segments_given_back(void **state)
{
	(void)state;
	pd_src s;
	int fd = open_src(&s, 0);
	assert_true(s.mapped);
	const uint8_t *held = at(&s, SEG + 64); /* a queued record in segment 1 */
	assert_true(pki_pd_src_stable(&s, held));
	pki_pd_src_hold(&s, held);
	pki_pd_src_trim(&s, 3 * SEG + 8); /* the reader in segment 3 */
	assert_true(s.seg_gone[0]);
	assert_false(s.seg_gone[1]);     /* still held */
	assert_true(s.seg_gone[2]);
	assert_false(s.seg_gone[3]);     /* the reader's own */
	assert_int_equal(pd_ld64(held), SEG + 64);
	pki_pd_src_release(&s, held);    /* delivered: given back now */
	assert_true(s.seg_gone[1]);
	/* what was given back reads as the file still */
	assert_int_equal(pd_ld64(at(&s, 8)), 8);
	assert_int_equal(pd_ld64(at(&s, SEG + 64)), SEG + 64);
	pki_pd_src_free(&s);
	close(fd);
}

static void test_chunk_keeps_window(void **state)
{
	(void)state;
	pd_src s;
	int fd = open_src(&s, 4096);
	assert_false(s.mapped);
	const uint8_t *p = at(&s, 2 * SEG);
	assert_false(pki_pd_src_stable(&s, p));
	assert_int_equal(pd_ld64(p), 2 * SEG);
	pki_pd_src_hold(&s, p); /* no-ops without a mapping */
	pki_pd_src_trim(&s, 3 * SEG);
	pki_pd_src_release(&s, p);
	pki_pd_src_free(&s);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segments_given_back),
		cmocka_unit_test(test_chunk_keeps_window),
	};
	return cmocka_run_group_tests(tests, setup, pd_test_teardown);
}
