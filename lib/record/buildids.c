/* The BUILD_ID feature as perf record writes it at the end of a recording:
 * the file written so far is read back, its task and map records followed
 * (lib/symbols' pk_machine, maps only), and each sample's address marks
 * the object it fell in; every marked object with a build id gets an entry.
 *
 * Order and form follow perf 6.1: the kernel first ("[kernel.kallsyms]",
 * misc KERNEL), then user objects in the order their first map appeared;
 * pid -1 (the host) for all; misc | MISC_BUILD_ID_SIZE with the id's length
 * in byte 20 of its 24; the name NUL-padded to a multiple of 64 (entry
 * layout in docs/perfdata.md). Only sampled addresses count (not call
 * chains), as in perf without --buildid-all. The kernel's and the vDSO's
 * ids come from the kernel seam (host.build_id), files' from their ELF
 * notes. Objects without an id ("[heap]", anonymous maps, a file that is
 * gone or not ELF) are left out; the vDSO is written hit or not, as perf
 * does. The same pass gives SAMPLE_TIME as perf's does: the first and the
 * last sample's time in time order (all ones for samples without TIME;
 * 0 and 0 without samples). With --buildid-all (pki_rec_build_ids' all)
 * every object mapped gets its entry, hit or not, and SAMPLE_TIME is 0 and
 * 0 (perf follows no sample then). Each entry written is told to the
 * caller (the recording keeps it in the build-id cache). */
#include "record/rec_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/buildid_cache.h>
#include <pmukit/record.h>
#include <pmukit/symbols.h>

#include "core/util.h"
#include "symbols/sy_internal.h"

#define KERNEL_DSO "[kernel.kallsyms]"
#define MISC_BUILD_ID_SIZE 0x8000

typedef struct object {
	char *name;
	bool kernel, hit;
} object;

typedef struct objects {
	object *v;
	size_t nr, cap;
	uint64_t first, last;        /* the first and last sample's times (perf's) */
	bool any;
} objects;

static object *find(objects *o, const char *name)
{
	for (size_t i = 0; i < o->nr; i++)
		if (!strcmp(o->v[i].name, name))
			return &o->v[i];
	return NULL;
}

static int add(objects *o, const char *name, bool kernel)
{
	if (find(o, name))
		return 0;
	char *copy = strdup(name);
	if (!copy || pki_grow(&o->v, &o->cap, o->nr + 1, sizeof(*o->v)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	o->v[o->nr++] = (object){.name = copy, .kernel = kernel};
	return 0;
}

/* One record: maps noted in order, samples mark their object. */
static int follow(pk_pd_reader *r, pk_machine *m, objects *o, const pk_pd_event *ev)
{
	int rc = pk_machine_event(m, ev);
	uint32_t type = ev->type;
	if (rc == 0 && (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2)) {
		pk_pd_rec_mmap mm;
		if (pk_pd_rec_mmap_parse(ev, &mm, NULL) == 0 && mm.filename[0] &&
		    strncmp(mm.filename, KERNEL_DSO, strlen(KERNEL_DSO)))
			rc = add(o, mm.filename, false);
	} else if (rc == 0 && type == PERF_RECORD_SAMPLE) {
		pk_pd_sample s = PK_PD_SAMPLE_INIT;
		if (pk_pd_reader_parse_sample(r, ev, &s, NULL) < 0)
			return 0;
		/* perf's sample time without TIME is all ones */
		uint64_t t = s.type & PERF_SAMPLE_TIME ? s.time : UINT64_MAX;
		if (!o->any)
			o->first = t;
		o->last = t;
		o->any = true;
		if (!(s.type & PERF_SAMPLE_IP))
			return 0;
		const pk_addr_loc *loc = pk_machine_lookup(m, s.pid, s.misc & 7, s.ip);
		object *ob = loc->has_map ? find(o, loc->kernel ? KERNEL_DSO : loc->dso) : NULL;
		if (ob)
			ob->hit = true;
	}
	return rc;
}

int pki_rec_file_build_id(const char *path, uint8_t id[20], size_t *len)
{
	char hex[PK_BUILD_ID_HEX];
	int rc = pk_buildid_file(path, hex, NULL);
	if (rc < 0)
		return rc;
	*len = strlen(hex) / 2;
	for (size_t i = 0; i < *len; i++) {
		char two[3] = {hex[2 * i], hex[2 * i + 1], 0};
		id[i] = (uint8_t)strtoul(two, NULL, 16);
	}
	return 0;
}

static int object_build_id(const pk_kernel *k, const object *ob, uint8_t id[20], size_t *len)
{
	if (ob->kernel || !strcmp(ob->name, "[vdso]"))
		return k->ops->host.build_id ? k->ops->host.build_id(k, ob->kernel ? NULL : ob->name,
								     id, len)
					     : -ENOENT;
	return ob->name[0] == '/' ? pki_rec_file_build_id(ob->name, id, len) : -ENOENT;
}

void pki_rec_build_id_entry(pk_pd_buf *b, uint32_t type, uint16_t misc, const char *name,
			    const uint8_t *id, size_t len, bool align8)
{
	size_t padded = (strlen(name) + 1 + 63) / 64 * 64;
	if (align8) /* 36 bytes before the name */
		padded += 4;
	uint8_t pad[24] = {0};
	memcpy(pad, id, len);
	pad[20] = (uint8_t)len;
	pk_pd_buf_u32(b, type);
	pk_pd_buf_u16(b, (uint16_t)(misc | MISC_BUILD_ID_SIZE));
	pk_pd_buf_u16(b, (uint16_t)(8 + 4 + 24 + padded));
	pk_pd_buf_u32(b, UINT32_MAX); /* pid -1: the host */
	pk_pd_buf_bytes(b, pad, sizeof(pad));
	size_t at = b->len;
	pk_pd_buf_bytes(b, name, strlen(name));
	while (b->len < at + padded && !b->oom)
		pk_pd_buf_bytes(b, "", 1);
}

static void put_entry(pk_pd_buf *b, const object *ob, const uint8_t *id, size_t len)
{
	pki_rec_build_id_entry(b, 0, ob->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
			       ob->name, id, len, false);
}

static int read_objects(const char *path, objects *o, pk_error *err)
{
	pk_pd_reader *r = NULL;
	int rc = pk_pd_reader_open(path, NULL, &r, err);
	if (rc < 0)
		return rc;
	pk_machine_opts mo = {.kallsyms = "", .no_symbols = true, .buildid_dir = "",
			      .kallsyms_cache = ""};
	pk_machine *m = pk_machine_new(&mo);
	rc = m ? add(o, KERNEL_DSO, true) : pk_err(err, -ENOMEM, "out of memory");
	pk_pd_event ev;
	while (rc == 0 && (rc = pk_pd_next(r, &ev, err)) == 1)
		rc = follow(r, m, o, &ev) < 0 ? pk_err(err, -ENOMEM, "out of memory") : 0;
	pk_machine_free(m);
	pk_pd_reader_close(r);
	return rc;
}

void pki_rec_id_hex(const uint8_t *id, size_t len, char *hex)
{
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * len] = '\0';
}

int pki_rec_build_ids(pk_pd_writer *w, const char *path, const pk_kernel *k, bool all,
		      pki_rec_build_id_fn fn, void *arg, pk_error *err)
{
	objects o = {0};
	k = k ? k : pk_kernel_linux();
	int rc = read_objects(path, &o, err);
	pk_pd_buf b = {0};
	for (size_t i = 0; rc == 0 && i < o.nr; i++) {
		uint8_t id[20];
		size_t len = 0;
		char hex[2 * 20 + 1];
		/* perf writes the vDSO's id hit or not */
		bool want = all || o.v[i].hit || !strcmp(o.v[i].name, "[vdso]");
		if (!want || object_build_id(k, &o.v[i], id, &len) < 0 || !len)
			continue;
		put_entry(&b, &o.v[i], id, len);
		pki_rec_id_hex(id, len, hex);
		if (fn)
			fn(arg, o.v[i].name, hex);
	}
	if (rc == 0 && b.oom)
		rc = pk_err(err, -ENOMEM, "out of memory");
	if (rc == 0 && b.len)
		rc = pk_pd_writer_set_feature(w, PK_FEAT_BUILD_ID, b.data, b.len, err);
	/* --buildid-all: perf follows no sample, so its times stay 0 */
	uint64_t times[2] = {all ? 0 : o.first, all ? 0 : o.last};
	if (rc == 0)
		rc = pk_pd_writer_set_feature(w, PK_FEAT_SAMPLE_TIME, times, sizeof(times), err);
	pk_pd_buf_release(&b);
	for (size_t i = 0; i < o.nr; i++)
		free(o.v[i].name);
	free(o.v);
	return rc;
}

int pk_record_build_ids(pk_pd_writer *w, const char *path, const pk_kernel *k, pk_error *err)
{
	return pki_rec_build_ids(w, path, k, false, NULL, NULL, err);
}
