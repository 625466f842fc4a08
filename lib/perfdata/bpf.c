/* The BPF_PROG_INFO and BPF_BTF features of perf.data decoded as perf 6.1
 * reads them (pk_pd_bpf_funcs, pk_pd_btf_ids; perfdata.h): the programs in
 * id order, each with its jited functions (one, or one per sub-program),
 * named "bpf_prog_<tag>_<name>" where the name is the function's from the
 * program's BTF (BPF_BTF, by the program's btf_id), else the program's own
 * name (one sub-program) or "F"; the BTF blobs' ids in order. A duplicate
 * id keeps the first entry.
 *
 * A program entry is u32 info_len, u32 data_len, u64 arrays (which arrays
 * the data holds), struct bpf_prog_info (info_len bytes; its array fields
 * hold offsets into the data), then the data. Everything is bounds-checked:
 * an entry whose arrays are absent or out of its data gives nothing (perf
 * would follow a stale pointer); a damaged section stops where it breaks,
 * as perf stops reading it. Native byte order only (perf reads no other). */
#include "pd_internal.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* perf's array numbers (bits of `arrays`) */
enum { BPIL_JITED_KSYMS = 3, BPIL_JITED_FUNC_LENS = 4, BPIL_FUNC_INFO = 5, BPIL_PROG_TAGS = 8 };

typedef struct blob {
	uint32_t id;
	const uint8_t *p; /* a prog entry's info (a copy's), or a BTF blob */
	size_t len;
	const uint8_t *data; /* a prog entry's data */
	uint32_t data_len;
	uint64_t arrays;
} blob;

static int blob_cmp(const void *a, const void *b)
{
	uint32_t x = ((const blob *)a)->id, y = ((const blob *)b)->id;
	return x < y ? -1 : x > y;
}

/* Sorted by id, the later of equal ids dropped; returns the count kept. */
static size_t by_id(blob *v, size_t n)
{
	/* a stable order: the first of equal ids keeps its place */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && blob_cmp(&v[j - 1], &v[j]) > 0; j--) {
			blob t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!m || v[m - 1].id != v[i].id)
			v[m++] = v[i];
	return m;
}

static uint32_t ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* The section's entries (u32 count first): progs (info copied into
 * infos[i]) or BTF blobs; the count read before the section broke. */
static size_t read_blobs(pk_pd_reader *r, int feat, blob **out, struct bpf_prog_info **infos)
{
	const uint8_t *p;
	size_t len, n = 0;
	*out = NULL;
	if (pk_pd_needs_swap(r) || pk_pd_feature_raw(r, feat, &p, &len, NULL) < 0 || len < 4)
		return 0;
	uint32_t count = ld32(p);
	size_t off = 4, cap = count < len / 8 ? count : len / 8;
	blob *v = calloc(cap ? cap : 1, sizeof(*v));
	struct bpf_prog_info *in = infos ? calloc(cap ? cap : 1, sizeof(*in)) : NULL;
	if (!v || (infos && !in)) {
		free(v);
		free(in);
		return 0;
	}
	for (; n < cap && len - off >= 8; n++) {
		uint32_t a = ld32(p + off), b = ld32(p + off + 4);
		if (!infos) { /* u32 id, u32 size, the blob */
			if (len - off - 8 < b)
				break;
			v[n] = (blob){.id = a, .p = p + off + 8, .len = b};
			off += 8 + (size_t)b;
			continue;
		}
		/* u32 info_len, u32 data_len, u64 arrays, info, data */
		if (a > sizeof(*in) || len - off < 16 || len - off - 16 < (uint64_t)a + b)
			break;
		memcpy(&in[n], p + off + 16, a);
		v[n] = (blob){.id = in[n].id, .p = (const uint8_t *)&in[n], .len = a,
			      .data = p + off + 16 + a, .data_len = b, .arrays = ld64(p + off + 8)};
		off += 16 + (size_t)a + b;
	}
	*out = v;
	if (infos)
		*infos = in;
	return n;
}

/* The name of BTF type `id` in blob b (NULL when there is none); false
 * when b is not a BTF blob libbpf would take (perf then names the program
 * as without BTF). */
static bool btf_type_name(const blob *b, uint32_t id, const char **out)
{
	static const uint8_t fixed[20] = {[1] = 4, [3] = 12, [14] = 4, [17] = 4};
	static const uint8_t per_member[20] = {[4] = 12, [5] = 12, [6] = 8, [13] = 8, [15] = 12,
					       [19] = 12};
	*out = NULL;
	if (b->len < 24 || (ld32(b->p) & 0xffff) != 0xeb9f)
		return false;
	uint32_t hl = ld32(b->p + 4), toff = ld32(b->p + 8), tlen = ld32(b->p + 12);
	uint32_t soff = ld32(b->p + 16), slen = ld32(b->p + 20);
	if (hl > b->len || (uint64_t)hl + toff + tlen > b->len || (uint64_t)hl + soff + slen > b->len)
		return false;
	const uint8_t *t = b->p + hl + toff, *end = t + tlen, *str = b->p + hl + soff;
	for (uint32_t i = 1; end - t >= 12; i++) {
		uint32_t info = ld32(t + 4), kind = info >> 24 & 0x1f, vlen = info & 0xffff;
		if (!kind || kind >= 20)
			return false;
		size_t step = 12 + fixed[kind] + (size_t)per_member[kind] * vlen;
		if ((size_t)(end - t) < step)
			return false;
		uint32_t name = ld32(t);
		if (i == id && name < slen && memchr(str + name, 0, slen - name))
			*out = (const char *)str + name;
		t += step;
	}
	return true;
}

/* Array `bit` of a prog's data at its offset, n elements of size sz; NULL
 * when absent or out of the data. */
static const uint8_t *array(const blob *b, int bit, uint64_t offs, uint64_t n, size_t sz)
{
	if (!(b->arrays >> bit & 1) || offs > b->data_len || n * sz > b->data_len - offs)
		return NULL;
	return b->data + offs;
}

/* The name of sub-program i of program in, whose BTF blob is btf (NULL:
 * none), into full: "bpf_prog_<tag>[_<name>]". */
static void func_name(const blob *b, const blob *btf, uint32_t i, const uint8_t *tags,
		      char *full, size_t size)
{
	const struct bpf_prog_info *in = (const struct bpf_prog_info *)(const void *)b->p;
	const uint8_t *finfo = array(b, BPIL_FUNC_INFO, in->func_info, in->nr_func_info,
				     in->func_info_rec_size);
	const char *name = NULL;
	if (btf) {
		if (finfo && i < in->nr_func_info && in->func_info_rec_size >= 8)
			btf_type_name(btf, ld32(finfo + (size_t)i * in->func_info_rec_size + 4), &name);
	} else if (in->nr_jited_ksyms == 1) {
		name = in->name[0] ? in->name : NULL;
	} else {
		name = "F";
	}
	char tag[2 * BPF_TAG_SIZE + 1];
	for (int k = 0; k < BPF_TAG_SIZE; k++)
		snprintf(tag + 2 * k, 3, "%02x", tags[(size_t)i * BPF_TAG_SIZE + (size_t)k]);
	snprintf(full, size, "bpf_prog_%s%s%.200s", tag, name ? "_" : "", name ? name : "");
}

/* Program b's functions appended to *out (n so far, cap its room); false
 * when out of memory. */
static bool add_prog(const blob *b, const blob *btfs, size_t nbtf, pk_pd_bpf_func **out,
		     size_t *n, size_t *cap)
{
	const struct bpf_prog_info *in = (const struct bpf_prog_info *)(const void *)b->p;
	uint32_t cnt = in->nr_jited_ksyms;
	if (cnt != in->nr_prog_tags || cnt != in->nr_jited_func_lens)
		return true;
	const uint8_t *addrs = array(b, BPIL_JITED_KSYMS, in->jited_ksyms, cnt, 8);
	const uint8_t *lens = array(b, BPIL_JITED_FUNC_LENS, in->jited_func_lens, cnt, 4);
	const uint8_t *tags = array(b, BPIL_PROG_TAGS, in->prog_tags, cnt, BPF_TAG_SIZE);
	if (!addrs || !lens || !tags)
		return true;
	const blob *btf = NULL;
	blob key = {.id = in->btf_id};
	const char *unused;
	if (in->btf_id && nbtf)
		btf = bsearch(&key, btfs, nbtf, sizeof(*btfs), blob_cmp);
	if (btf && !btf_type_name(btf, 0, &unused))
		btf = NULL;
	if (pki_grow(out, cap, *n + cnt, sizeof(**out)) < 0)
		return false;
	for (uint32_t i = 0; i < cnt; i++) {
		pk_pd_bpf_func *f = &(*out)[(*n)++];
		*f = (pk_pd_bpf_func){.prog_id = in->id, .index = i, .nr = cnt,
				      .addr = ld64(addrs + 8 * (size_t)i),
				      .size = ld32(lens + 4 * (size_t)i)};
		func_name(b, btf, i, tags, f->name, sizeof(f->name));
	}
	return true;
}

int pk_pd_bpf_funcs(pk_pd_reader *r, pk_pd_bpf_func **out, size_t *nr)
{
	blob *btfs, *progs;
	struct bpf_prog_info *infos = NULL;
	size_t cap = 0, nbtf = read_blobs(r, PK_FEAT_BPF_BTF, &btfs, NULL);
	size_t n = read_blobs(r, PK_FEAT_BPF_PROG_INFO, &progs, &infos);
	nbtf = by_id(btfs, nbtf);
	n = by_id(progs, n);
	*out = NULL;
	*nr = 0;
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++)
		ok = add_prog(&progs[i], btfs, nbtf, out, nr, &cap);
	free(btfs);
	free(progs);
	free(infos);
	return ok ? 0 : -ENOMEM;
}

int pk_pd_btf_ids(pk_pd_reader *r, uint32_t **out, size_t *nr)
{
	blob *btfs;
	size_t n = read_blobs(r, PK_FEAT_BPF_BTF, &btfs, NULL);
	n = by_id(btfs, n);
	*out = calloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; *out && i < n; i++)
		(*out)[i] = btfs[i].id;
	*nr = *out ? n : 0;
	free(btfs);
	return *out ? 0 : -ENOMEM;
}
