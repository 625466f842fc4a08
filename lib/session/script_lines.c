/* perf script's address lines remembered (pmukit/script.h, pk_line_cache):
 * the formatted text of an address's line (" ip sym+off (dso)" or a call
 * chain's "\t<addr> sym+off (dso)\n") kept in direct-mapped slots, so that
 * an address that comes again is copied without a symbol lookup, and a
 * sample's call chain gathered with each entry's slot found and prefetched
 * before its line is printed.
 *
 * Two tables of slots on 2 MiB pages (their 10 MiB are touched at random;
 * on 4 KiB pages nearly every first touch was a TLB miss too): the line
 * table under (address, maps version), the frame table for user-space chain
 * entries under (offset in the dso, dso), the same text in every process
 * that maps the dso (short-lived processes each have their own maps
 * version). Invariants: a slot's text is what the caller formatted under
 * its tag and key, nothing else; version 0 is an empty slot; the text
 * depends on nothing but the tag and key (the maps version changes with the
 * maps). What runs per sample is inline in script.h, on the caller's
 * state: the probe of sample lines (pk_line_probe, which stops probing
 * where addresses seldom come again) and the chain's gathering
 * (pk_script_chain_gather, with its memo of maps); here the tables. */
#include <pmukit/script.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FRAME_CACHE (1u << PK_FRAME_CACHE_BITS)

struct pk_line_cache {
	pk_line_slot *lines;         /* PK_LINE_CACHE slots, then the frames' */
	pk_line_slot *frames;        /* FRAME_CACHE slots */
	void *map;
	size_t map_len;
	size_t nr_long;              /* slots with a long_text to free */
};

pk_line_cache *pk_line_cache_new(void)
{
	pk_line_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	const size_t huge = (size_t)2 << 20;
	size_t need = (PK_LINE_CACHE + FRAME_CACHE) * sizeof(pk_line_slot);
	need = (need + huge - 1) / huge * huge;
	c->map_len = need + huge; /* room to start on a 2 MiB boundary */
	c->map = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->map == MAP_FAILED) {
		free(c);
		return NULL;
	}
	char *p = (char *)c->map + (huge - (uintptr_t)c->map % huge) % huge;
#ifdef MADV_HUGEPAGE
	madvise(p, need, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
#endif
	c->lines = (pk_line_slot *)(void *)p;
	c->frames = c->lines + PK_LINE_CACHE;
	return c;
}

void pk_line_cache_free(pk_line_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->nr_long && i < PK_LINE_CACHE + FRAME_CACHE; i++)
		free(c->lines[i].long_text);
	munmap(c->map, c->map_len);
	free(c);
}

pk_line_slot *pk_line_cache_lines(pk_line_cache *c)
{
	return c->lines;
}

pk_line_slot *pk_line_cache_frames(pk_line_cache *c)
{
	return c->frames;
}

void pk_line_slot_keep(pk_line_cache *c, pk_line_slot *ls, const char *text, size_t len,
		       uint64_t addr, uint64_t version, unsigned key)
{
	char *dst = ls->text;
	if (len > sizeof(ls->text)) {
		if (len > ls->long_cap) {
			char *t = realloc(ls->long_text, len);
			if (!t)
				return;
			c->nr_long += !ls->long_text;
			ls->long_text = t;
			ls->long_cap = (uint32_t)len;
		}
		dst = ls->long_text;
	}
	memcpy(dst, text, len);
	ls->len = (uint32_t)len;
	ls->addr = addr;
	ls->version = version;
	ls->key = key;
}
