/* The host facts of the real kernel: /proc, the CPU part of sysfs, the
 * cpuid instruction, uname(2) and sysconf(3).
 *
 * Sysfs facts (CPU sets, topology, the Arm MIDR) are read under
 * pk_sysfs_root(), so $PMUKIT_SYSFS moves them together with the PMU tree;
 * /proc facts have no such root (procfs is per kernel, not per fixture).
 * Every answer is read when asked, with no cache, so a CPU brought online or
 * a task that exits is seen. Missing files are -ENOENT (a fact not
 * published) or -ESRCH (a task gone), as kernel.h promises. */
#include "kernel/linux_host.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pmukit/pmu.h>

#include "core/util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* A signed decimal (or 0x hex) number alone in a file. */
static int read_number(const char *path, int64_t *out)
{
	char *text = NULL;
	int r = pki_read_file(path, &text, NULL);
	if (r < 0)
		return r;
	const char *p = pki_lskip(text);
	bool neg = *p == '-';
	uint64_t v;
	r = pki_parse_u64(pki_rstrip((char *)p + neg), &v, NULL);
	if (r == 0 && v > (uint64_t)INT64_MAX)
		r = -ERANGE;
	if (r == 0)
		*out = neg ? -(int64_t)v : (int64_t)v;
	free(text);
	return r;
}

static int mem_total_kb(int64_t *out)
{
	char *text = NULL;
	int r = pki_read_file("/proc/meminfo", &text, NULL);
	if (r < 0)
		return r;
	char *p = strstr(text, "MemTotal:");
	if (p)
		*out = (int64_t)strtoull(p + 9, NULL, 10);
	free(text);
	return p ? 0 : -ENOENT;
}

/* The kernel's perfmon_capable(): CAP_PERFMON or CAP_SYS_ADMIN in the
 * effective set (the CapEff mask of /proc/self/status). */
#define CAP_BIT_SYS_ADMIN 21
#define CAP_BIT_PERFMON 38

static int perfmon_capable(int64_t *out)
{
	char *text = NULL;
	uint64_t caps = 0;
	int r = pki_read_file("/proc/self/status", &text, NULL);
	if (r < 0)
		return r;
	const char *p = strstr(text, "\nCapEff:");
	char buf[24];
	r = -ENOENT;
	if (p && snprintf(buf, sizeof(buf), "0x%.16s", pki_lskip(p + 8)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		if (pki_parse_u64(buf, &caps, NULL) == 0)
			r = 0;
	}
	free(text);
	*out = (caps & ((1ULL << CAP_BIT_SYS_ADMIN) | (1ULL << CAP_BIT_PERFMON))) != 0;
	return r;
}

/* Persistent memory as perf's #has_pmem tells it: the firmware's ACPI NFIT
 * table is published (under the sysfs root, so a fixture answers too). */
static int has_pmem(int64_t *out)
{
	char path[4096];
	int r = pki_linux_sys_path(path, sizeof(path), "firmware/acpi/tables/NFIT");
	if (r < 0)
		return r;
	*out = access(path, F_OK) == 0;
	return 0;
}

/* the TSC's rate (below, beside the other /proc/cpuinfo reader) */
static int tsc_hz(int64_t *out);

int pki_linux_number(const pk_kernel *k, pk_host_num what, int64_t *out)
{
	(void)k;
	long v;
	switch (what) {
	case PK_HOST_PARANOID:
		return read_number("/proc/sys/kernel/perf_event_paranoid", out);
	case PK_HOST_MAX_SAMPLE_RATE:
		return read_number("/proc/sys/kernel/perf_event_max_sample_rate", out);
	case PK_HOST_MLOCK_KB:
		return read_number("/proc/sys/kernel/perf_event_mlock_kb", out);
	case PK_HOST_PAGE_SIZE:
		v = sysconf(_SC_PAGESIZE);
		if (v <= 0)
			return -ENOENT;
		*out = v;
		return 0;
	case PK_HOST_MEM_TOTAL_KB:
		return mem_total_kb(out);
	case PK_HOST_PERFMON_CAPABLE:
		return perfmon_capable(out);
	case PK_HOST_TSC_HZ:
		return tsc_hz(out);
	case PK_HOST_HAS_PMEM:
		return has_pmem(out);
	default:
		return -EINVAL;
	}
}

/* <sysfs root>/<fmt...> into buf (linux_host.h). */
int pki_linux_sys_path(char *buf, size_t len, const char *fmt, ...)
{
	int n = snprintf(buf, len, "%s/", pk_sysfs_root());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return m < 0 || (size_t)m >= len - (size_t)n ? -ENAMETOOLONG : 0;
}

static int read_cpulist(const char *path, pk_cpumap **out)
{
	char *text = NULL;
	int r = pki_read_file(path, &text, NULL);
	if (r < 0)
		return r;
	pk_error e;
	pk_error_clear(&e);
	*out = pk_cpumap_parse(pki_rstrip(text), &e);
	free(text);
	return *out ? 0 : e.code ? e.code : -ENOMEM;
}

int pki_linux_cpus(const pk_kernel *k, pk_host_cpuset which, pk_cpumap **out)
{
	(void)k;
	char path[4096];
	int r = pki_linux_sys_path(path, sizeof(path), "devices/system/cpu/%s",
				   which == PK_HOST_CPUS_ONLINE ? "online" : "present");
	if (r == 0)
		r = read_cpulist(path, out);
	if (r != -ENOENT)
		return r;
	/* No CPU directory (a container, a fixture tree): count processors. */
	long n = sysconf(which == PK_HOST_CPUS_ONLINE ? _SC_NPROCESSORS_ONLN : _SC_NPROCESSORS_CONF);
	if (n <= 0 || n > 65536)
		return -ENOENT;
	int *cpus = malloc((size_t)n * sizeof(int));
	if (!cpus)
		return -ENOMEM;
	for (int i = 0; i < (int)n; i++)
		cpus[i] = i;
	*out = pk_cpumap_from_array(cpus, (int)n);
	free(cpus);
	return *out ? 0 : -ENOMEM;
}

int pki_linux_topology(const pk_kernel *k, int cpu, pk_cpu_topology *t)
{
	(void)k;
	static const char *const lists[3] = {"core_siblings_list", "thread_siblings_list",
					     "die_cpus_list"};
	static const char *const ids[3] = {"core_id", "physical_package_id", "die_id"};
	pk_cpumap **maps[3] = {&t->core_siblings, &t->thread_siblings, &t->die_cpus};
	int *idv[3] = {&t->core_id, &t->package_id, &t->die_id};
	char path[4096];
	int found = 0;
	*t = (pk_cpu_topology){.core_id = -1, .package_id = -1, .die_id = -1};
	for (int i = 0; i < 3; i++) {
		int64_t v;
		if (pki_linux_sys_path(path, sizeof(path), "devices/system/cpu/cpu%d/topology/%s", cpu,
				       lists[i]) == 0 &&
		    read_cpulist(path, maps[i]) == 0)
			found++;
		if (pki_linux_sys_path(path, sizeof(path), "devices/system/cpu/cpu%d/topology/%s", cpu,
				       ids[i]) == 0 &&
		    read_number(path, &v) == 0 && v >= -1 && v <= INT32_MAX) {
			*idv[i] = (int)v;
			found++;
		}
	}
	return found ? 0 : -ENOENT;
}

/* The PERF_CPUID string of cpu0: the cpuid instruction on x86, the MIDR
 * register's sysfs file elsewhere. */
static int cpu_ident(pk_cpuid *out)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char vendor[13];
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return -ENOTSUP;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return -ENOTSUP;
	unsigned family = (a >> 8) & 0xf, model = (a >> 4) & 0xf, stepping = a & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 6)
		model += ((a >> 16) & 0xf) << 4;
	char str[64];
	snprintf(str, sizeof(str), "%s-%u-%X-%X", vendor, family, model, stepping);
	return pk_cpuid_parse(str, out, NULL);
#else
	char path[4096], *text = NULL;
	int r = pki_linux_sys_path(path, sizeof(path),
				   "devices/system/cpu/cpu0/regs/identification/midr_el1");
	if (r == 0)
		r = pki_read_file(path, &text, NULL);
	if (r < 0)
		return r;
	r = pk_cpuid_parse(pki_rstrip(text), out, NULL);
	free(text);
	return r;
#endif
}

/* Value of "key : value" of the first CPU in /proc/cpuinfo, or "". */
static void cpuinfo_field(const char *key, char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[1024];
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
		snprintf(buf, len, "%s", pki_rstrip(p));
		break;
	}
	fclose(f);
}

/* The TSC's rate: CPUID leaf 0x15 gives it as the crystal's rate times the
 * TSC/crystal ratio where the CPU states all three; else the nominal rate
 * of Intel's brand string ("... @ 2.50GHz"), which the TSC runs at. */
static int tsc_hz(int64_t *out)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (__get_cpuid_max(0, NULL) >= 0x15 && __get_cpuid(0x15, &a, &b, &c, &d) && a && b &&
	    c) {
		*out = (int64_t)((uint64_t)c * b / a);
		return 0;
	}
#endif
	char name[256], *end;
	cpuinfo_field("model name", name, sizeof(name));
	const char *at = strrchr(name, '@');
	double v = at ? strtod(at + 1, &end) : 0;
	if (!at || v <= 0 || end == at + 1)
		return -ENOENT;
	while (*end == ' ')
		end++;
	double unit = !strncmp(end, "GHz", 3) ? 1e9 : !strncmp(end, "MHz", 3) ? 1e6 : 0;
	if (!unit)
		return -ENOENT;
	*out = (int64_t)(v * unit + 0.5);
	return 0;
}

int pki_linux_cpu(const pk_kernel *k, pk_host_cpu *out)
{
	(void)k;
	memset(out, 0, sizeof(*out));
	cpuinfo_field("model name", out->model_name, sizeof(out->model_name));
	return cpu_ident(&out->id);
}

int pki_linux_uname(const pk_kernel *k, struct utsname *out)
{
	(void)k;
	return uname(out) < 0 ? -errno : 0;
}

int pki_linux_tasks(const pk_kernel *k, pid_t pid, pk_host_tid_fn fn, void *arg)
{
	(void)k;
	char path[64];
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc");
	DIR *d = opendir(path);
	if (!d)
		return pid > 0 && errno == ENOENT ? -ESRCH : -errno;
	struct dirent *de;
	int r = 0;
	while (r == 0 && (de = readdir(d))) {
		uint64_t tid;
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    pki_parse_u64(de->d_name, &tid, NULL) < 0 || tid > 0x7fffffff)
			continue;
		r = fn(arg, (pid_t)tid);
	}
	closedir(d);
	return r;
}

int pki_linux_task(const pk_kernel *k, pid_t tid, pk_host_task *out)
{
	(void)k;
	char path[64], *text = NULL;
	if (tid <= 0)
		return -ESRCH;
	/* /proc/<tid> exists for every thread, listed in /proc or not */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	int r = pki_read_file(path, &text, NULL);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;
	const char *tg = strstr(text, "\nTgid:");
	out->tgid = tg ? (pid_t)strtol(tg + 6, NULL, 10) : tid;
	const char *uid = strstr(text, "\nUid:"); /* real, effective, ... */
	char *end = NULL;
	if (uid)
		strtoul(uid + 5, &end, 10);
	out->uid = end ? (uid_t)strtoul(end, NULL, 10) : 0;
	free(text);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	r = pki_read_file(path, &text, NULL);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;
	snprintf(out->comm, sizeof(out->comm), "%s", pki_rstrip(text));
	free(text);
	return 0;
}

/* One /proc/<pid>/maps line; false when it is not one. */
static bool parse_map_line(char *line, pk_host_map *m)
{
	unsigned long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int name_at = 0;
	if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &start, &end, perms, &off, &maj, &min, &ino,
		   &name_at) < 7 ||
	    strlen(perms) < 4)
		return false;
	*m = (pk_host_map){.start = start, .end = end, .pgoff = off, .ino = ino, .maj = maj,
			   .min = min};
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->name = name_at ? pki_rstrip(line + name_at) : "";
	return true;
}

int pki_linux_maps(const pk_kernel *k, pid_t pid, pk_host_map_fn fn, void *arg)
{
	(void)k;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	char line[4096 + 256];
	int r = 0;
	pk_host_map m;
	while (r == 0 && fgets(line, sizeof(line), f))
		if (parse_map_line(line, &m))
			r = fn(arg, &m);
	fclose(f);
	return r;
}

int pki_linux_kernel_text(const pk_kernel *k, uint64_t *start, uint64_t *end)
{
	(void)k;
	FILE *f = fopen("/proc/kallsyms", "r");
	uint64_t text = 0, etext = 0;
	if (!f)
		return -errno;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		char *e;
		uint64_t a = strtoull(line, &e, 16);
		if (strstr(e, " _text\n") && !text)
			text = a;
		else if (strstr(e, " _etext\n"))
			etext = a;
		if (text && etext)
			break;
	}
	fclose(f);
	if (!text)
		return -ENOENT; /* addresses hidden (kptr_restrict) */
	*start = text;
	*end = etext;
	return 0;
}

/* The tracefs roots perf tries, in its order. */
static const char *const tracefs_dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

/* A tracefs root is usable when its events/ directory can be listed. An
 * unmounted /sys/kernel/tracing exists but is empty. */
bool pki_tracefs_usable(const char *dir)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/events", dir);
	return n >= 0 && (size_t)n < sizeof(path) && access(path, R_OK | X_OK) == 0;
}

const char *pk_tracefs_dir(const char *override)
{
	if (override)
		return override;
	const char *env = pki_env("PMUKIT_TRACEFS");
	if (env && *env)
		return env;
	for (size_t i = 0; i < PK_ARRAY_SIZE(tracefs_dirs); i++)
		if (pki_tracefs_usable(tracefs_dirs[i]))
			return tracefs_dirs[i];
	return NULL;
}

/* A tracefs file under the root pk_tracefs_dir finds ($PMUKIT_TRACEFS,
 * /sys/kernel/tracing, /sys/kernel/debug/tracing). */
int pki_linux_tracefs_file(const pk_kernel *k, const char *name, char **data, size_t *len)
{
	(void)k;
	if (!name || !*name || name[0] == '/' || strstr(name, ".."))
		return -EINVAL;
	const char *root = pk_tracefs_dir(NULL);
	if (!root)
		return -ENOENT;
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/%s", root, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	int rc = pki_read_file(path, data, len);
	return rc == -ENOTDIR ? -ENOENT : rc;
}
