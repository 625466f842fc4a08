/* perf inject's engine (include/pmukit/inject.h): a perf.data stream
 * copied through lib/perfdata's reader and writer, build ids put in as
 * perf inject 6.1 puts them.
 *
 * The objects (perf's dsos) are kept in perf's order: the kernel first,
 * then the input's BUILD_ID entries, then each new map's file; an object's
 * id comes from the input (feature or HEADER_BUILD_ID records) or, once,
 * from its ELF file when a record is to be put in. A pipe's header records
 * (attrs, event types, features) become a file's header when the output
 * is a file: records are held until the first kernel record, so the
 * header is known when the writer begins. Invariants: each input record is
 * written once and in order; a HEADER_BUILD_ID record is put in at most
 * once per object; nothing is printed. */
#include <pmukit/inject.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmukit/perfdata.h>
#include <pmukit/symbols.h>

#include "core/util.h"
#include "record/rec_internal.h"

#define KERNEL_DSO "[kernel.kallsyms]"

typedef struct inj_obj {
	char *name;
	bool kernel, hit, has_id, tried;
	uint8_t id[20];
	size_t id_len;
} inj_obj;

typedef struct inj {
	const pk_inject_opts *o;
	const pk_kernel *k;
	pk_pd_reader *r;
	pk_pd_writer *w;
	pk_machine *m;
	pk_inject_stats *st;
	inj_obj *v;
	size_t nr, cap;
	bool file_out, started, feature_on;
	pk_pd_buf held;              /* a pipe's records before the file header is known */
} inj;

static inj_obj *obj_find(inj *j, const char *name)
{
	for (size_t i = 0; i < j->nr; i++)
		if (!strcmp(j->v[i].name, name))
			return &j->v[i];
	return NULL;
}

/* The object of that name (the kernel's for its maps), added when new. */
static inj_obj *obj_get(inj *j, const char *name)
{
	/* perf's kernel map ("[kernel.kallsyms]_text") names an object of its
	 * own, never hit nor given an id: the kernel is hit by samples */
	bool kernel = !strcmp(name, KERNEL_DSO);
	inj_obj *ob = obj_find(j, name);
	if (ob)
		return ob;
	char *copy = strdup(name);
	if (!copy || pki_grow(&j->v, &j->cap, j->nr + 1, sizeof(*j->v)) < 0) {
		free(copy);
		return NULL;
	}
	j->v[j->nr] = (inj_obj){.name = copy, .kernel = kernel};
	return &j->v[j->nr++];
}

static void obj_set_id(inj_obj *ob, const uint8_t *id, size_t len)
{
	if (ob->has_id || !len || len > sizeof(ob->id))
		return;
	memcpy(ob->id, id, len);
	ob->id_len = len;
	ob->has_id = true;
}

static int feature_entry(void *arg, const pk_pd_rec_build_id *b)
{
	inj *j = arg;
	inj_obj *ob = obj_get(j, b->filename);
	if (!ob)
		return -ENOMEM;
	obj_set_id(ob, b->id, b->id_len);
	return 0;
}

/* One record out: an AUXTRACE with its data; a size that is not a
 * multiple of 8 padded to one. */
static int put(inj *j, const pk_pd_event *ev, pk_error *err)
{
	if (ev->type == PK_RECORD_AUXTRACE)
		return pk_pd_writer_write_auxtrace(j->w, ev->data, ev->size, ev->aux, ev->aux_size, err);
	if (ev->type == PK_RECORD_HEADER_TRACING_DATA)
		return pk_err(err, -ENOTSUP, "%s: a pipe's HEADER_TRACING_DATA record is not copied",
			      pk_pd_path(j->r));
	size_t len = ev->size;
	if (!(len % 8))
		return pk_pd_writer_write(j->w, ev->data, len, err);
	uint8_t rec[65536 + 8] = {0};
	memcpy(rec, ev->data, len);
	len = (len + 7) / 8 * 8;
	uint16_t sz = (uint16_t)len;
	memcpy(rec + 6, &sz, sizeof(sz));
	j->st->padded++;
	return pk_pd_writer_write(j->w, rec, len, err);
}

/* perf's HEADER_BUILD_ID record for ob before the record that hit it: an
 * object whose id the input gave (the kernel's, the vDSO's too) or whose
 * ELF file has one. */
static int put_build_id(inj *j, inj_obj *ob, unsigned cpumode, pk_error *err)
{
	if (!ob->has_id && !ob->tried && ob->name[0] == '/') {
		uint8_t id[20];
		size_t len = 0;
		ob->tried = true;
		if (pki_rec_file_build_id(ob->name, id, &len) == 0)
			obj_set_id(ob, id, len);
	}
	if (!ob->has_id)
		return 0;
	pk_pd_buf b = {0};
	pki_rec_build_id_entry(&b, PK_RECORD_HEADER_BUILD_ID, (uint16_t)cpumode, ob->name, ob->id,
			       ob->id_len, true);
	int rc = b.oom ? pk_err(err, -ENOMEM, "out of memory") : pk_pd_writer_write(j->w, b.data, b.len, err);
	pk_pd_buf_release(&b);
	if (rc == 0)
		j->st->build_ids++;
	return rc;
}

/* The header: the input's events and features (BUILD_ID made at the end,
 * COMPRESSED dropped: the records go out decompressed). */
static int begin(inj *j, pk_error *err)
{
	int rc = 0;
	j->started = true;
	bool pipe_through = pk_pd_is_pipe(j->r) && !j->file_out;
	for (size_t i = 0; rc == 0 && !pipe_through && i < pk_pd_nr_evsels(j->r); i++) {
		const pk_pd_evsel *e = pk_pd_evsel_at(j->r, i);
		rc = pk_pd_writer_add_evsel(j->w, &e->attr, e->config3, e->name, e->ids, e->nr_ids, err);
	}
	for (int f = 1; rc == 0 && !pipe_through && f < PK_FEAT_LAST_6_1; f++) {
		const uint8_t *data;
		size_t len;
		if (f == PK_FEAT_BUILD_ID || f == PK_FEAT_COMPRESSED || !pk_pd_has_feature(j->r, f) ||
		    pk_pd_feature_raw(j->r, f, &data, &len, NULL) || !len)
			continue;
		rc = pk_pd_writer_set_feature(j->w, f, data, len, err);
	}
	if (rc == 0)
		rc = pk_pd_writer_begin(j->w, err);
	/* the records held (a pipe's before its first kernel record) */
	for (size_t at = 0; rc == 0 && at + 8 <= j->held.len;) {
		uint16_t sz;
		memcpy(&sz, j->held.data + at + 6, sizeof(sz));
		rc = pk_pd_writer_write(j->w, j->held.data + at, sz, err);
		at += sz;
	}
	pk_pd_buf_release(&j->held);
	return rc;
}

/* What a record tells (maps, ids) and the build ids it asks for. */
static int note(inj *j, const pk_pd_event *ev, pk_error *err)
{
	if (pk_machine_event(j->m, ev) == -ENOMEM)
		return pk_err(err, -ENOMEM, "out of memory");
	if (ev->type == PK_RECORD_HEADER_BUILD_ID) {
		pk_pd_rec_build_id b;
		inj_obj *ob;
		if (pk_pd_build_id_parse(ev->data, ev->size, false, &b) > 0 && (ob = obj_get(j, b.filename)))
			obj_set_id(ob, b.id, b.id_len);
		return 0;
	}
	if (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2) {
		pk_pd_rec_mmap mm;
		if (pk_pd_rec_mmap_parse(ev, &mm, NULL) || !mm.filename[0])
			return 0;
		inj_obj *ob = obj_get(j, mm.filename);
		if (!ob)
			return pk_err(err, -ENOMEM, "out of memory");
		if (!j->o->buildid_all || ob->hit)
			return 0;
		ob->hit = true;
		return put_build_id(j, ob, ev->misc & PERF_RECORD_MISC_CPUMODE_MASK, err);
	}
	if (ev->type != PERF_RECORD_SAMPLE || !j->o->build_ids || j->o->buildid_all)
		return 0;
	pk_pd_sample s = PK_PD_SAMPLE_INIT;
	if (pk_pd_reader_parse_sample(j->r, ev, &s, NULL) < 0 || !(s.type & PERF_SAMPLE_IP))
		return 0;
	unsigned mode = s.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const pk_addr_loc *loc = pk_machine_lookup(j->m, s.pid, mode, s.ip);
	inj_obj *ob = loc->has_map ? obj_find(j, loc->kernel ? KERNEL_DSO : loc->dso) : NULL;
	if (!ob || ob->hit)
		return 0;
	ob->hit = true;
	return put_build_id(j, ob, mode, err);
}

static bool pipe_header_record(uint32_t type)
{
	return type == PK_RECORD_HEADER_ATTR || type == PK_RECORD_HEADER_EVENT_TYPE ||
	       type == PK_RECORD_HEADER_TRACING_DATA || type == PK_RECORD_HEADER_FEATURE;
}

static int one(inj *j, const pk_pd_event *ev, pk_error *err)
{
	bool header = pk_pd_is_pipe(j->r) && j->file_out && pipe_header_record(ev->type);
	if (!j->started && ev->type < PK_RECORD_HEADER_ATTR) {
		int rc = begin(j, err);
		if (rc)
			return rc;
	}
	int rc = note(j, ev, err);
	if (rc || header)
		return rc;
	j->st->records++;
	if (j->started)
		return put(j, ev, err);
	/* a pipe's record before the file header can be written */
	size_t at = j->held.len;
	pk_pd_buf_bytes(&j->held, ev->data, ev->size);
	while ((j->held.len - at) % 8 && !j->held.oom)
		pk_pd_buf_bytes(&j->held, "", 1);
	uint16_t sz = (uint16_t)(j->held.len - at);
	if (!j->held.oom)
		memcpy(j->held.data + at + 6, &sz, sizeof(sz));
	return j->held.oom ? pk_err(err, -ENOMEM, "out of memory") : 0;
}

/* perf's BUILD_ID feature of the output: the objects hit whose id is
 * known, and the vDSO's (from its host when the input had none). */
static int feature(inj *j, pk_error *err)
{
	pk_pd_buf b = {0};
	for (size_t i = 0; i < j->nr; i++) {
		inj_obj *ob = &j->v[i];
		bool vdso = !strcmp(ob->name, "[vdso]");
		if (vdso && !ob->has_id && j->k->ops->host.build_id) {
			uint8_t id[20];
			size_t len = 0;
			if (j->k->ops->host.build_id(j->k, ob->name, id, &len) == 0)
				obj_set_id(ob, id, len);
		}
		if ((ob->hit || vdso) && ob->has_id)
			pki_rec_build_id_entry(&b, 0, ob->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
					       ob->name, ob->id, ob->id_len, false);
	}
	int rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
		 : b.len ? pk_pd_writer_set_feature(j->w, PK_FEAT_BUILD_ID, b.data, b.len, err) : 0;
	pk_pd_buf_release(&b);
	return rc;
}

static int run(inj *j, const char *out, pk_error *err)
{
	pk_machine_opts mo = {.kallsyms = "", .no_symbols = true, .buildid_dir = "", .kallsyms_cache = ""};
	if (!(j->m = pk_machine_new(&mo)) || !obj_get(j, KERNEL_DSO))
		return pk_err(err, -ENOMEM, "out of memory");
	int rc = pk_pd_has_feature(j->r, PK_FEAT_BUILD_ID) ? pk_pd_build_ids(j->r, feature_entry, j, NULL) : 0;
	if (rc == -ENOMEM)
		return pk_err(err, rc, "out of memory");
	j->feature_on = pk_pd_has_feature(j->r, PK_FEAT_BUILD_ID) || j->o->build_ids;
	rc = pk_pd_writer_open(out, !j->file_out, &j->w, err);
	if (rc)
		return rc;
	if (!pk_pd_is_pipe(j->r) || !j->file_out)
		rc = begin(j, err);
	pk_pd_event ev;
	while (rc == 0 && (rc = pk_pd_next(j->r, &ev, err)) == 1)
		rc = one(j, &ev, err);
	if (rc == 0 && !j->started)
		rc = begin(j, err);
	if (rc == 0 && j->file_out && j->feature_on)
		rc = feature(j, err);
	return rc;
}

int pk_inject(const char *in, const char *out, const pk_inject_opts *o, pk_inject_stats *st,
	      pk_error *err)
{
	if (!o || o->size != sizeof(*o))
		return pk_err(err, -EINVAL, "pk_inject: options of another size");
	pk_inject_stats none;
	inj j = {.o = o, .k = o->kernel ? o->kernel : pk_kernel_linux(), .st = st ? st : &none,
		 .file_out = strcmp(out, "-") != 0};
	memset(j.st, 0, sizeof(*j.st));
	pk_pd_open_opts ro = {.no_order = true};
	int rc = pk_pd_reader_open(in, &ro, &j.r, err);
	if (rc == 0)
		rc = run(&j, out, err);
	if (j.w && rc == 0) {
		rc = pk_pd_writer_close(j.w, err);
	} else if (j.w) {
		pk_pd_writer_abort(j.w);
		if (j.file_out)
			unlink(out);
	}
	pk_pd_reader_close(j.r);
	pk_machine_free(j.m);
	pk_pd_buf_release(&j.held);
	for (size_t i = 0; i < j.nr; i++)
		free(j.v[i].name);
	free(j.v);
	return rc < 0 ? rc : 0;
}
