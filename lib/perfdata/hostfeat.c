/* The host description perf record puts in the header features. */
#include "pd_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/util.h"

#ifndef PMUKIT_VERSION_STRING
#define PMUKIT_VERSION_STRING "pmukit 0.1"
#endif

static int set_string(pk_pd_writer *w, int feat, const char *s, pk_error *err)
{
	pk_pd_buf b = {0};
	pk_pd_buf_string(&b, s);
	int rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
		       : pk_pd_writer_set_feature(w, feat, b.data, b.len, err);
	pk_pd_buf_release(&b);
	return rc;
}

/* Value of "key : value" in /proc/cpuinfo (first CPU), or NULL. */
static char *cpuinfo_field(const char *key)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return NULL;
	char line[1024];
	char *val = NULL;
	size_t kl = strlen(key);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, kl))
			continue;
		char *p = line + kl;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ')
			p++;
		val = strdup(pki_rstrip(p));
		break;
	}
	fclose(f);
	return val;
}

static int max_present_cpu(void)
{
	char *s = NULL;
	if (pki_read_file("/sys/devices/system/cpu/present", &s, NULL) < 0)
		return -1;
	/* the last number of the list */
	int max = -1;
	for (char *p = s; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p) {
			p++;
			continue;
		}
		if (v > max)
			max = (int)v;
		p = end;
	}
	free(s);
	return max;
}

static int add_topology(pk_pd_writer *w, int nr_avail, pk_error *err)
{
	/* perf's lists: package siblings ("sibling sockets"), thread siblings,
	 * then core and socket ids per CPU, then die siblings and die ids */
	char **cores = calloc((size_t)nr_avail, sizeof(char *));
	char **threads = calloc((size_t)nr_avail, sizeof(char *));
	char **dies = calloc((size_t)nr_avail, sizeof(char *));
	uint32_t *ids = calloc((size_t)nr_avail * 3, sizeof(uint32_t));
	int nc = 0, nt = 0, nd = 0;
	int rc = 0;
	if (!cores || !threads || !dies || !ids) {
		rc = pk_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (int cpu = 0; cpu < nr_avail; cpu++) {
		char path[256];
		char *v;
		const char *files[3] = {"core_siblings_list", "thread_siblings_list",
					"die_cpus_list"};
		char **lists[3] = {cores, threads, dies};
		int *counts[3] = {&nc, &nt, &nd};
		for (int k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu,
				 files[k]);
			if (pki_read_file(path, &v, NULL) < 0)
				continue;
			pki_rstrip(v);
			bool dup = false;
			for (int j = 0; j < *counts[k] && !dup; j++)
				dup = !strcmp(lists[k][j], v);
			if (dup)
				free(v);
			else
				lists[k][(*counts[k])++] = v;
		}
		const char *idf[3] = {"core_id", "physical_package_id", "die_id"};
		for (int k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu,
				 idf[k]);
			if (pki_read_file(path, &v, NULL) < 0)
				continue;
			ids[cpu * 3 + k] = (uint32_t)strtoul(v, NULL, 10);
			free(v);
		}
	}
	if (!nc || !nt)
		goto out; /* no topology in sysfs: leave the feature out */
	pk_pd_buf b = {0};
	pk_pd_buf_u32(&b, (uint32_t)nc);
	for (int i = 0; i < nc; i++)
		pk_pd_buf_string(&b, cores[i]);
	pk_pd_buf_u32(&b, (uint32_t)nt);
	for (int i = 0; i < nt; i++)
		pk_pd_buf_string(&b, threads[i]);
	for (int cpu = 0; cpu < nr_avail; cpu++) {
		pk_pd_buf_u32(&b, ids[cpu * 3]);
		pk_pd_buf_u32(&b, ids[cpu * 3 + 1]);
	}
	if (nd) {
		pk_pd_buf_u32(&b, (uint32_t)nd);
		for (int i = 0; i < nd; i++)
			pk_pd_buf_string(&b, dies[i]);
		for (int cpu = 0; cpu < nr_avail; cpu++)
			pk_pd_buf_u32(&b, ids[cpu * 3 + 2]);
	}
	rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
		   : pk_pd_writer_set_feature(w, PK_FEAT_CPU_TOPOLOGY, b.data, b.len, err);
	pk_pd_buf_release(&b);
out:
	for (int i = 0; i < nc; i++)
		free(cores[i]);
	for (int i = 0; i < nt; i++)
		free(threads[i]);
	for (int i = 0; i < nd; i++)
		free(dies[i]);
	free(cores);
	free(threads);
	free(dies);
	free(ids);
	return rc;
}

static int add_pmu_mappings(pk_pd_writer *w, pk_error *err)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	if (!d)
		return 0;
	pk_pd_buf b = {0};
	uint32_t n = 0;
	pk_pd_buf_u32(&b, 0);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[512], *v;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", de->d_name);
		if (pki_read_file(path, &v, NULL) < 0)
			continue;
		pk_pd_buf_u32(&b, (uint32_t)strtoul(v, NULL, 10));
		pk_pd_buf_string(&b, de->d_name);
		free(v);
		n++;
	}
	closedir(d);
	int rc = 0;
	if (b.oom) {
		rc = pk_err(err, -ENOMEM, "out of memory");
	} else if (n) {
		pd_st32(b.data, n);
		rc = pk_pd_writer_set_feature(w, PK_FEAT_PMU_MAPPINGS, b.data, b.len, err);
	}
	pk_pd_buf_release(&b);
	return rc;
}

int pk_pd_writer_host_features(pk_pd_writer *w, int argc, char *const *argv, pk_error *err)
{
	struct utsname u;
	int rc = 0;
	if (uname(&u) == 0) {
		rc = set_string(w, PK_FEAT_HOSTNAME, u.nodename, err);
		if (rc == 0)
			rc = set_string(w, PK_FEAT_OSRELEASE, u.release, err);
		if (rc == 0)
			rc = set_string(w, PK_FEAT_ARCH, u.machine, err);
	}
	if (rc == 0)
		rc = set_string(w, PK_FEAT_VERSION, PMUKIT_VERSION_STRING, err);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int maxp = max_present_cpu();
	int avail = maxp >= 0 ? maxp + 1 : (int)online;
	if (rc == 0 && online > 0 && avail > 0) {
		uint32_t v[2] = {(uint32_t)avail, (uint32_t)online};
		rc = pk_pd_writer_set_feature(w, PK_FEAT_NRCPUS, v, sizeof(v), err);
	}
	char *desc = cpuinfo_field("model name");
	if (rc == 0 && desc)
		rc = set_string(w, PK_FEAT_CPUDESC, desc, err);
	free(desc);
	char *vendor = cpuinfo_field("vendor_id");
	if (vendor) {
		char *fam = cpuinfo_field("cpu family"), *model = cpuinfo_field("model"),
		     *step = cpuinfo_field("stepping");
		char id[160];
		snprintf(id, sizeof(id), "%s,%s,%s,%s", vendor, fam ? fam : "0", model ? model : "0",
			 step ? step : "0");
		if (rc == 0)
			rc = set_string(w, PK_FEAT_CPUID, id, err);
		free(fam);
		free(model);
		free(step);
		free(vendor);
	} else {
		char *midr = NULL;
		if (pki_read_file("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", &midr,
				 NULL) == 0) {
			if (rc == 0)
				rc = set_string(w, PK_FEAT_CPUID, pki_rstrip(midr), err);
			free(midr);
		}
	}
	char *mem = NULL;
	if (rc == 0 && pki_read_file("/proc/meminfo", &mem, NULL) == 0) {
		char *p = strstr(mem, "MemTotal:");
		if (p) {
			uint64_t kb = strtoull(p + 9, NULL, 10);
			rc = pk_pd_writer_set_feature(w, PK_FEAT_TOTAL_MEM, &kb, sizeof(kb), err);
		}
	}
	free(mem);
	if (rc == 0 && argc > 0) {
		pk_pd_buf b = {0};
		pk_pd_buf_u32(&b, (uint32_t)argc);
		for (int i = 0; i < argc; i++)
			pk_pd_buf_string(&b, argv[i]);
		rc = b.oom ? pk_err(err, -ENOMEM, "out of memory")
			   : pk_pd_writer_set_feature(w, PK_FEAT_CMDLINE, b.data, b.len, err);
		pk_pd_buf_release(&b);
	}
	if (rc == 0 && avail > 0)
		rc = add_topology(w, avail, err);
	if (rc == 0)
		rc = add_pmu_mappings(w, err);
	if (rc == 0)
		rc = pk_pd_writer_event_desc(w, err);
	return rc;
}
