/* The dsos of a machine: one per file name (the machine's strmap, freed
 * with it), each loading its symbols once, on the first address looked up
 * in it (pki_sy_dso_load): ELF files by absolute path (or their build-id
 * cache copy), the vdso from this process, nothing for other
 * "[name]" pseudo-files. The kernel's dso loads from kallsyms instead. */
#include "sy_internal.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

dso *pki_sy_dso_get(pk_machine *m, const char *name)
{
	pki_strmap_slot *s = pki_strmap_put(&m->dsos, name);
	if (!s || s->val)
		return s ? s->val : NULL;
	dso *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	const char *base = strrchr(name, '/');
	d->name = strdup(name);
	d->short_name = strdup(base && base[1] ? base + 1 : name);
	if (!d->name || !d->short_name) { /* the slot stays empty: tried again */
		free(d->name);
		free(d->short_name);
		free(d);
		return NULL;
	}
	d->keep_mangled = m->opts.no_demangle;
	d->ordinal = ++m->nr_dsos;
	s->val = d;
	return d;
}

/* perf's name of a module: "[name]" as it is; for a path, its base name,
 * "[stem]" when it is a .ko file (compressed or not), '-' read as '_' as
 * the kernel spells module names. */
bool pki_sy_dso_set_module(dso *d)
{
	d->is_module = true;
	if (d->name[0] == '[')
		return true;
	const char *base = d->short_name;
	const char *ko = strstr(base, ".ko");
	bool kmod = ko && (!ko[3] || ko[3] == '.');
	size_t len = kmod ? (size_t)(ko - base) : strlen(base);
	char *n = malloc(len + 3);
	if (!n)
		return false;
	snprintf(n, len + 3, kmod ? "[%.*s]" : "%.*s", (int)len, base);
	for (char *c = n; *c; c++)
		if (*c == '-')
			*c = '_';
	free(d->short_name);
	d->short_name = n;
	return true;
}

static void dso_free(void *v)
{
	dso *d = v;
	pki_sy_dso_srcline_free(d);
	free(d->name);
	free(d->short_name);
	free(d->bpf_alias);
	free(d->syms);
	free(d->strs);
	free(d->segs);
	free(d->shadows);
	free(d->index.first);
	for (size_t i = 0; i < d->nr_dnames; i++)
		free(d->dnames[i]);
	free(d->dnames);
	if (d->kmap)
		munmap(d->kmap, d->kmap_len);
	free(d);
}

void pki_sy_dsos_free(pk_machine *m)
{
	pki_strmap_free(&m->dsos, dso_free);
}

void pki_sy_dso_load(pk_machine *m, dso *d)
{
	d->loaded = true;
	if (m->opts.no_symbols)
		return;
	bool vdso = !strcmp(d->name, "[vdso]");
	if (vdso && pki_sy_host_vdso(m, d)) {
		pki_sy_load_vdso(m, d);
		return;
	}
	/* another kernel's vdso: only the build-id cache's copy */
	if (!vdso && d->name[0] != '/')
		return;
	if (pki_sy_is_perfmap(d->name)) {
		pki_sy_perfmap_load(d);
		return;
	}
	Elf *e;
	int fd = pki_sy_open_recorded(m, d, &e);
	if (fd < 0)
		return;
	if (e && elf_kind(e) == ELF_K_ELF) {
		GElf_Ehdr eh;
		d->elf = true;
		d->exec = gelf_getehdr(e, &eh) && eh.e_type == ET_EXEC;
		pki_sy_elf_load(d, e);
	}
	if (e)
		elf_end(e);
	close(fd);
}
