/* The region report: what was counted and how (method, RDPMC or read(2),
 * modeled or measured, why TopDown does not count), then one row per
 * region: calls, threads, time, slots, the Level 1/2 nodes in percent (a
 * node not computable is "-", JSON null, never 0). Text or JSON; the
 * likwid-marker.h entry points. Writes only to the FILE it is given. */
#include "region/region_internal.h"
#include "core/util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pk_region_get_info(pk_region_info *out)
{
	pthread_mutex_lock(&pki_rg_lock);
	*out = (pk_region_info){
		.topdown = pki_rg.td != NULL,
		.modeled = pki_rg.sim,
		.syscall_reads = pki_rg.syscall_reads || !pki_rg.td,
		.level = pki_rg.level,
		.method = pki_rg.td ? pki_rg.method : NULL,
		.pmu = pki_rg.td ? pki_rg.pmu : NULL,
		.fallback = pki_rg.fallback[0] ? pki_rg.fallback : NULL,
		.why = pki_rg.why[0] ? pki_rg.why : NULL,
		.scenario = pki_rg.sim ? pki_rg.scenario : NULL,
		.first_error = pki_rg.first_error[0] ? pki_rg.first_error : NULL,
	};
	pthread_mutex_unlock(&pki_rg_lock);
}

/* A JSON string (names are the user's), escaped by jansson; null for NULL. */
static void jstr(FILE *f, const char *s)
{
	json_t *j = s ? json_string(s) : NULL;
	if (!j || json_dumpf(j, f, JSON_ENCODE_ANY) < 0)
		fputs("null", f);
	json_decref(j);
}

static void text_header(FILE *f, const pk_region_info *in)
{
	fprintf(f, "# pmukit regions: ");
	if (in->topdown)
		fprintf(f, "TopDown Level %d, method %s (%s), read with %s\n", in->level, in->method,
			in->pmu, in->syscall_reads ? "read(2): every reading is a system call"
						   : "RDPMC");
	else if (in->fallback)
		fprintf(f, "no TopDown (%s); counting %s with read(2): every reading is a "
			   "system call\n", in->why, in->fallback);
	else
		fprintf(f, "nothing counted\n");
	if (in->modeled)
		fprintf(f, "# MODELED: counted on the PMU model (scenario %s), not measured; a "
			   "region shows the scenario's phases its virtual time covers\n",
			in->scenario);
	if (in->first_error)
		fprintf(f, "# error: %s\n", in->first_error);
}

static void text_report(FILE *f, const pk_region_info *in, const pk_region_result *r, size_t n)
{
	text_header(f, in);
	fprintf(f, "%-24s %8s %7s %12s %16s", "region", "calls", "threads", "time_ms",
		in->topdown ? "slots" : in->fallback ? in->fallback : "count");
	size_t nn = 0;
	for (size_t i = 0; i < n; i++)
		nn = r[i].bd.nr > nn ? r[i].bd.nr : nn;
	const pk_region_breakdown *first = NULL;
	for (size_t i = 0; i < n && !first; i++)
		first = r[i].bd.nr == nn ? &r[i].bd : NULL;
	for (size_t j = 0; first && j < nn; j++)
		fprintf(f, " %s%%", first->node[j].name + (strncmp(first->node[j].name, "tma_", 4)
								? 0 : 4));
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const pk_region_breakdown *b = &r[i].bd;
		fprintf(f, "%-24s %8llu %7llu %12.3f %16.0f", r[i].name, (unsigned long long)r[i].calls,
			(unsigned long long)r[i].threads, b->time_ns / 1e6,
			in->topdown ? b->slots : b->count);
		for (size_t j = 0; j < b->nr; j++) {
			int w = (int)strlen(b->node[j].name) - (strncmp(b->node[j].name, "tma_", 4) ? 0 : 4) + 1;
			if (b->node[j].computable)
				fprintf(f, " %*.1f", w, b->node[j].value);
			else
				fprintf(f, " %*s", w, "-");
		}
		if (r[i].lost)
			fprintf(f, "  (%llu pairs lost: group off the PMU)", (unsigned long long)r[i].lost);
		fputc('\n', f);
	}
}

static void json_report(FILE *f, const pk_region_info *in, const pk_region_result *r, size_t n)
{
	fprintf(f, "{\"modeled\": %s, \"scenario\": ", in->modeled ? "true" : "false");
	jstr(f, in->scenario);
	fprintf(f, ", \"topdown\": %s, \"level\": %d, \"method\": ", in->topdown ? "true" : "false",
		in->level);
	jstr(f, in->method);
	fprintf(f, ", \"pmu\": ");
	jstr(f, in->pmu);
	fprintf(f, ", \"read\": \"%s\", \"why_no_topdown\": ",
		in->syscall_reads ? "read(2)" : "rdpmc");
	jstr(f, in->why);
	fprintf(f, ", \"fallback_event\": ");
	jstr(f, in->fallback);
	fprintf(f, ", \"error\": ");
	jstr(f, in->first_error);
	fprintf(f, ",\n \"regions\": [");
	for (size_t i = 0; i < n; i++) {
		const pk_region_breakdown *b = &r[i].bd;
		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		jstr(f, r[i].name);
		fprintf(f, ", \"calls\": %llu, \"threads\": %llu, \"lost\": %llu, \"time_ns\": %.0f",
			(unsigned long long)r[i].calls, (unsigned long long)r[i].threads,
			(unsigned long long)r[i].lost, b->time_ns);
		if (in->topdown)
			fprintf(f, ", \"slots\": %.0f, \"nodes\": {", b->slots);
		else
			fprintf(f, ", \"count\": %.0f, \"nodes\": {", b->count);
		for (size_t j = 0; j < b->nr; j++) {
			fprintf(f, "%s", j ? ", " : "");
			jstr(f, b->node[j].name);
			if (b->node[j].computable)
				fprintf(f, ": %.4f", b->node[j].value);
			else
				fprintf(f, ": null");
		}
		fprintf(f, "}}");
	}
	fprintf(f, "\n ]}\n");
}

int pk_region_report(FILE *f, bool json, pk_error *err)
{
	pk_region_result *r = calloc(PK_REGION_MAX_REGIONS, sizeof(*r));
	if (!r)
		return pk_err(err, -ENOMEM, "out of memory");
	size_t n = pk_region_results(r, PK_REGION_MAX_REGIONS);
	pk_region_info in;
	pk_region_get_info(&in);
	if (json)
		json_report(f, &in, r, n);
	else
		text_report(f, &in, r, n);
	free(r);
	if (fflush(f) != 0 || ferror(f))
		return pk_err(err, -EIO, "writing the region report");
	return 0;
}

int pki_rg_write_report(const char *path, pk_error *err)
{
	size_t n = strlen(path);
	bool json = n > 5 && !strcmp(path + n - 5, ".json");
	if (!strcmp(path, "-"))
		return pk_region_report(stderr, json, err);
	pki_wfile w;
	int r = pki_wfile_open(&w, path, 0666, err);
	FILE *f = r < 0 ? NULL : fdopen(w.fd, "w");
	if (r == 0 && !f)
		r = pk_err(err, -errno, "%s: %s", path, strerror(errno));
	if (f) {
		r = pk_region_report(f, json, err);
		w.fd = -1; /* fclose closes it */
		if (fclose(f) != 0 && r == 0)
			r = pk_err(err, -errno, "%s: %s", path, strerror(errno));
	}
	if (r == 0)
		return pki_wfile_commit(&w, err);
	if (f || w.path)
		pki_wfile_abort(&w);
	return r;
}

/* likwid's markers ask for the report: stderr unless PMUKIT_REGION_REPORT
 * names another place (empty: none). */
void pk_region_likwid_init(void)
{
	const char *e = pki_env("PMUKIT_REGION_REPORT");
	pk_region_opts o;
	pk_region_opts_init(&o);
	o.report = e ? e : "-";
	pk_region_init(&o, NULL);
}

void pk_region_likwid_close(void)
{
	pk_region_fini();
}

int pk_region_likwid_register(const char *tag)
{
	pki_rg_thread *t = pki_rg_self(NULL);
	return t ? pki_rg_name_id(tag, true) < 0 ? -EINVAL : 0 : -ENODEV;
}

int pk_region_likwid_get(const char *tag, int *nevents, double *events, double *time,
			 int *count)
{
	pk_region_result r;
	int ret = pki_rg_thread_result(tag, &r);
	if (ret < 0) {
		if (nevents)
			*nevents = 0;
		return ret;
	}
	int k = 0;
	for (size_t j = 0; j < r.bd.nr && nevents && events && k < *nevents; j++)
		events[k++] = r.bd.node[j].value;
	if (nevents)
		*nevents = k;
	if (time)
		*time = r.bd.time_ns / 1e9;
	if (count)
		*count = (int)r.calls;
	return 0;
}

int pk_region_likwid_reset(const char *tag)
{
	return pki_rg_thread_reset(tag);
}
