#include <pmukit/cpumap.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/refcount.h"
#include "core/util.h"

/* Sorted, duplicate-free CPU numbers. Immutable once built, so sharing by
 * reference count is safe. */
struct pk_cpumap {
	pki_ref ref;
	int nr;
	int cpus[];
};

/* Upper bound on CPU numbers we accept from text: far above any machine,
 * low enough that a hostile "0-2000000000" cannot exhaust memory. */
#define PK_MAX_CPU 65536

static pk_cpumap *cpumap_alloc(int nr)
{
	pk_cpumap *m = malloc(sizeof(*m) + (size_t)(nr > 0 ? nr : 0) * sizeof(int));
	if (!m)
		return NULL;
	pki_ref_init(&m->ref);
	m->nr = nr;
	return m;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

pk_cpumap *pk_cpumap_from_array(const int *cpus, int nr)
{
	pk_cpumap *m = cpumap_alloc(nr);
	if (!m)
		return NULL;
	if (nr)
		memcpy(m->cpus, cpus, (size_t)nr * sizeof(int));
	qsort(m->cpus, (size_t)nr, sizeof(int), cmp_int);
	int out = 0;
	for (int i = 0; i < nr; i++)
		if (out == 0 || m->cpus[out - 1] != m->cpus[i])
			m->cpus[out++] = m->cpus[i];
	m->nr = out;
	return m;
}

pk_cpumap *pk_cpumap_parse(const char *list, pk_error *err)
{
	int *cpus = NULL;
	size_t nr = 0, cap = 0;
	const char *p = pki_lskip(list ? list : "");
	while (*p) {
		uint64_t lo, hi;
		const char *end;
		if (pki_parse_u64(p, &lo, &end) < 0 || lo >= PK_MAX_CPU)
			goto bad;
		hi = lo;
		p = end;
		if (*p == '-') {
			if (pki_parse_u64(p + 1, &hi, &end) < 0 || hi >= PK_MAX_CPU || hi < lo)
				goto bad;
			p = end;
		}
		if (pki_grow(&cpus, &cap, nr + (size_t)(hi - lo) + 1, sizeof(int)) < 0) {
			free(cpus);
			pk_err(err, -ENOMEM, "out of memory");
			return NULL;
		}
		for (uint64_t c = lo; c <= hi; c++)
			cpus[nr++] = (int)c;
		if (*p == ',')
			p++;
		else if (*pki_lskip(p))
			goto bad;
		else
			break;
	}
	pk_cpumap *m = pk_cpumap_from_array(cpus, (int)nr);
	free(cpus);
	if (!m)
		pk_err(err, -ENOMEM, "out of memory");
	return m;
bad:
	free(cpus);
	pk_err_at(err, -EINVAL, "cpu list", list, p - list,
		  "expected CPU numbers and ranges such as 0-3,8 (each below %d)", PK_MAX_CPU);
	return NULL;
}

pk_cpumap *pk_cpumap_any(void)
{
	int any = -1;
	return pk_cpumap_from_array(&any, 1);
}

pk_cpumap *pk_cpumap_intersect(const pk_cpumap *a, const pk_cpumap *b)
{
	pk_cpumap *m = cpumap_alloc(a->nr < b->nr ? a->nr : b->nr);
	if (!m)
		return NULL;
	int i = 0, j = 0, n = 0;
	while (i < a->nr && j < b->nr) {
		if (a->cpus[i] < b->cpus[j])
			i++;
		else if (a->cpus[i] > b->cpus[j])
			j++;
		else {
			m->cpus[n++] = a->cpus[i];
			i++;
			j++;
		}
	}
	m->nr = n;
	return m;
}

pk_cpumap *pk_cpumap_get(pk_cpumap *map)
{
	if (map)
		pki_ref_get(&map->ref);
	return map;
}

void pk_cpumap_put(pk_cpumap *map)
{
	if (map && pki_ref_put(&map->ref))
		free(map);
}

int pk_cpumap_nr(const pk_cpumap *map)
{
	return map ? map->nr : 0;
}

int pk_cpumap_cpu(const pk_cpumap *map, int idx)
{
	return (map && idx >= 0 && idx < map->nr) ? map->cpus[idx] : -1;
}

int pk_cpumap_idx(const pk_cpumap *map, int cpu)
{
	if (!map)
		return -1;
	int lo = 0, hi = map->nr - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (map->cpus[mid] == cpu)
			return mid;
		if (map->cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

bool pk_cpumap_has(const pk_cpumap *map, int cpu)
{
	return pk_cpumap_idx(map, cpu) >= 0;
}

bool pk_cpumap_equal(const pk_cpumap *a, const pk_cpumap *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->nr != b->nr)
		return false;
	return memcmp(a->cpus, b->cpus, (size_t)a->nr * sizeof(int)) == 0;
}

int pk_cpumap_format(const pk_cpumap *map, char *buf, size_t len)
{
	pk_strbuf sb = {0};
	int nr = pk_cpumap_nr(map);
	for (int i = 0; i < nr;) {
		int j = i;
		while (j + 1 < nr && map->cpus[j + 1] == map->cpus[j] + 1)
			j++;
		if (j > i)
			pki_sb_addf(&sb, "%s%d-%d", i ? "," : "", map->cpus[i], map->cpus[j]);
		else
			pki_sb_addf(&sb, "%s%d", i ? "," : "", map->cpus[i]);
		i = j + 1;
	}
	int n = snprintf(buf, len, "%s", sb.buf ? sb.buf : "");
	pki_sb_free(&sb);
	return n;
}
