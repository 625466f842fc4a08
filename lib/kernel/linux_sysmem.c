/* The real kernel's facts about memory, caches and build ids: NUMA nodes
 * (devices/system/node), memory blocks (devices/system/memory and each
 * node's memory<I> links), CPU caches (devices/system/cpu/cpu<N>/cache),
 * the kernel's and modules' build ids (kernel/notes, module/<m>/notes) and
 * the vDSO's (this process's own image: the kernel maps the same vDSO into
 * every process); what perf's build-id cache keeps of them (kallsyms' text,
 * the vDSO's mapped image).
 *
 * Sysfs facts are read under pk_sysfs_root(), as linux_host.c reads the
 * CPU sets, so $PMUKIT_SYSFS moves them with the rest. Every answer is read
 * when asked; a file that is not there is -ENOENT (not published). */
#include "kernel/linux_host.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include <pmukit/pmu.h>

#include "core/util.h"

/* A file's text, stripped; the caller frees *text. */
static int read_text(const char *path, char **text)
{
	int r = pki_read_file(path, text, NULL);
	if (r == 0)
		pki_rstrip(*text);
	return r;
}

static int read_u64(const char *path, uint64_t *out)
{
	char *text = NULL;
	int r = read_text(path, &text);
	if (r == 0)
		r = pki_parse_u64(pki_lskip(text), out, NULL);
	free(text);
	return r;
}

static int read_cpus(const char *path, pk_cpumap **out)
{
	char *text = NULL;
	int r = read_text(path, &text);
	if (r < 0)
		return r;
	*out = pk_cpumap_parse(text, NULL);
	free(text);
	return *out ? 0 : -EINVAL;
}

int pki_linux_nodes(const pk_kernel *k, pk_cpumap **out)
{
	(void)k;
	char path[4096];
	int r = pki_linux_sys_path(path, sizeof(path), "devices/system/node/online");
	return r < 0 ? r : read_cpus(path, out);
}

/* "Node 0 MemTotal:  10708768 kB": the number after key, in kB. */
static int meminfo_kb(const char *text, const char *key, uint64_t *out)
{
	const char *p = strstr(text, key);
	if (!p)
		return -ENOENT;
	*out = strtoull(p + strlen(key), NULL, 10);
	return 0;
}

int pki_linux_node(const pk_kernel *k, int node, pk_host_node *out)
{
	(void)k;
	char path[4096], *text = NULL;
	*out = (pk_host_node){0};
	int r = pki_linux_sys_path(path, sizeof(path), "devices/system/node/node%d/meminfo", node);
	if (r == 0)
		r = pki_read_file(path, &text, NULL);
	if (r == 0)
		r = meminfo_kb(text, "MemTotal:", &out->mem_total_kb);
	if (r == 0)
		r = meminfo_kb(text, "MemFree:", &out->mem_free_kb);
	free(text);
	if (r == 0)
		r = pki_linux_sys_path(path, sizeof(path), "devices/system/node/node%d/cpulist", node);
	if (r == 0)
		r = read_cpus(path, &out->cpus);
	return r;
}

int pki_linux_mem_blocks(const pk_kernel *k, int node, uint64_t *block_size, pk_host_block_fn fn,
			 void *arg)
{
	(void)k;
	char path[4096], *text = NULL;
	int r = pki_linux_sys_path(path, sizeof(path), "devices/system/memory/block_size_bytes");
	if (r == 0)
		r = read_text(path, &text);
	if (r < 0)
		return r;
	/* the kernel writes it in hex without 0x */
	char *end;
	*block_size = strtoull(text, &end, 16);
	bool bad = end == text || *end;
	free(text);
	if (bad || !*block_size)
		return -EINVAL;
	if ((r = pki_linux_sys_path(path, sizeof(path), "devices/system/node/node%d", node)) < 0)
		return r;
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		uint64_t idx;
		if (!strncmp(de->d_name, "memory", 6) && de->d_name[6] >= '0' &&
		    de->d_name[6] <= '9' && pki_parse_u64(de->d_name + 6, &idx, NULL) == 0)
			r = fn(arg, idx);
	}
	closedir(d);
	return r;
}

int pki_linux_cache(const pk_kernel *k, int cpu, int index, pk_host_cache *out)
{
	(void)k;
	static const char *const nums[4] = {"level", "coherency_line_size", "number_of_sets",
					    "ways_of_associativity"};
	uint32_t *dst[4] = {&out->level, &out->line_size, &out->sets, &out->ways};
	char path[4096], *text = NULL;
	*out = (pk_host_cache){0};
	int r = 0;
	for (int i = 0; i < 4 && r == 0; i++) {
		uint64_t v = 0;
		r = pki_linux_sys_path(path, sizeof(path), "devices/system/cpu/cpu%d/cache/index%d/%s", cpu,
			     index, nums[i]);
		if (r == 0)
			r = read_u64(path, &v);
		*dst[i] = (uint32_t)v;
	}
	static const char *const strs[2] = {"type", "size"};
	char *sdst[2] = {out->type, out->size};
	for (int i = 0; i < 2 && r == 0; i++) {
		r = pki_linux_sys_path(path, sizeof(path), "devices/system/cpu/cpu%d/cache/index%d/%s", cpu,
			     index, strs[i]);
		if (r == 0)
			r = read_text(path, &text);
		if (r == 0)
			snprintf(sdst[i], sizeof(out->type), "%s", text);
		free(text);
		text = NULL;
	}
	if (r == 0)
		r = pki_linux_sys_path(path, sizeof(path),
			     "devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, index);
	if (r == 0)
		r = read_cpus(path, &out->cpus);
	return r;
}

/* The GNU build id among ELF notes (4-byte aligned: namesz, descsz, type,
 * name, desc); -ENOENT when there is none. */
static int note_build_id(const uint8_t *p, size_t len, uint8_t id[20], size_t *idlen)
{
	size_t off = 0;
	while (off + 12 <= len) {
		uint32_t h[3];
		memcpy(h, p + off, sizeof(h));
		size_t name = off + 12, desc = name + ((h[0] + 3u) & ~3u);
		size_t next = desc + ((h[1] + 3u) & ~3u);
		if (desc > len || next > len || next <= off)
			break;
		if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 && !memcmp(p + name, "GNU", 4)) {
			*idlen = h[1] > 20 ? 20 : h[1];
			memcpy(id, p + desc, *idlen);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

/* The vDSO image this process got from the kernel: its PT_NOTE segments. */
static int vdso_build_id(uint8_t id[20], size_t *len)
{
#if defined(__LP64__)
	const ElfW(Ehdr) *eh = (const void *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return -ENOENT;
	const ElfW(Phdr) *ph = (const void *)((const uint8_t *)eh + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_NOTE &&
		    note_build_id((const uint8_t *)eh + ph[i].p_offset, ph[i].p_filesz, id, len) == 0)
			return 0;
#else
	(void)id, (void)len;
#endif
	return -ENOENT;
}

int pki_linux_build_id(const pk_kernel *k, const char *object, uint8_t id[20], size_t *len)
{
	(void)k;
	if (object && !strcmp(object, "[vdso]"))
		return vdso_build_id(id, len);
	char path[4096], *data = NULL;
	size_t n = 0;
	int r = object ? (strchr(object, '/') || strstr(object, "..")
				  ? -EINVAL
				  : pki_linux_sys_path(path, sizeof(path), "module/%s/notes/.note.gnu.build-id",
					     object))
		       : pki_linux_sys_path(path, sizeof(path), "kernel/notes");
	if (r == 0)
		r = pki_read_file(path, &data, &n);
	if (r == 0)
		r = note_build_id((const uint8_t *)data, n, id, len);
	free(data);
	return r;
}

/* A copy of this process's vDSO mapping (/proc/self/maps' [vdso] range). */
static int vdso_image(char **data, size_t *len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return -errno;
	char line[512];
	unsigned long start = 0, end = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			break;
	fclose(f);
	if (!start || end <= start)
		return -ENOENT;
	*len = (size_t)(end - start);
	*data = malloc(*len);
	if (!*data)
		return -ENOMEM;
	memcpy(*data, (const void *)(uintptr_t)start, *len);
	return 0;
}

int pki_linux_cache_copy(const pk_kernel *k, const char *object, char **data, size_t *len)
{
	(void)k;
	if (!object)
		return pki_read_file("/proc/kallsyms", data, len);
	return strcmp(object, "[vdso]") ? -ENOENT : vdso_image(data, len);
}
