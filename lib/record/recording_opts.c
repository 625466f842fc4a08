/* perf record's option words that set more than one field of a recording
 * (recording.h): --call-graph MODE[,SIZE] as perf 6.1 takes it, --max-size's
 * units, -k's clock names, --synth's words, -u's processes; and the
 * options checked together (pk_recording_opts_check).
 *
 * Invariants: on an error the options are left as they were and err
 * quotes the word (perf's message for a bad stack dump size). */
#include <pmukit/recording.h>
#include <pmukit/kernel.h>

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* dwarf's SIZE: the user stack dump, rounded up to 8 bytes, 8..65528. */
static int dwarf_size(const char *s, uint32_t *out, pk_error *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	v = (v + 7) & ~7ULL;
	if (errno || end == s || *end || !v || v > PK_STACK_DUMP_MAX)
		return pk_err(err, -EINVAL, "callchain: Incorrect stack dump size (max %u): %s",
			      PK_STACK_DUMP_MAX, s);
	*out = (uint32_t)v;
	return 0;
}

int pk_recording_call_graph(pk_recording_opts *o, const char *arg, pk_error *err)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	if (n == 5 && !strncmp(arg, "dwarf", 5)) {
		uint32_t size = o->stack_dump;
		if (comma && dwarf_size(comma + 1, &size, err) < 0)
			return err->code;
		o->call_graph = PK_CALL_GRAPH_DWARF;
		o->stack_dump = size;
		o->sample_addr = true; /* perf's record does, for the data maps */
		return 0;
	}
	if (n == 2 && !strncmp(arg, "fp", 2)) {
		o->call_graph = PK_CALL_GRAPH_FP;
		/* perf keeps N below the kernel's default perf_event_max_stack (127) */
		unsigned long v = comma ? strtoul(comma + 1, NULL, 0) : 0;
		o->max_stack = v < 127 ? (uint16_t)v : 0;
		return 0;
	}
	if (n == 3 && !strncmp(arg, "lbr", 3) && !comma) {
		o->call_graph = PK_CALL_GRAPH_LBR;
		return 0;
	}
	return pk_err(err, -EINVAL, "--call-graph takes fp, dwarf[,SIZE] or lbr, not '%s'", arg);
}

int pk_recording_max_size(pk_recording_opts *o, const char *arg, pk_error *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	static const char units[] = "BKMGT";
	const char *u = *end ? strchr(units, *end & ~0x20) : units;
	if (errno || end == arg || !u || (*end && end[1]) || *arg == '-')
		return pk_err(err, -EINVAL, "--max-size '%s': a size like 4096, 512K, 10M, 1G", arg);
	unsigned shift = (unsigned)(u - units) * 10;
	if (shift && v > UINT64_MAX >> shift)
		return pk_err(err, -EINVAL, "--max-size '%s' is too large", arg);
	o->max_size = (uint64_t)v << shift;
	return 0;
}

int pk_recording_clockid(pk_recording_opts *o, const char *arg, pk_error *err)
{
	static const struct {
		const char *name;
		int id;
	} clocks[] = {{"monotonic", CLOCK_MONOTONIC}, {"monotonic_raw", CLOCK_MONOTONIC_RAW},
		      {"realtime", CLOCK_REALTIME}, {"boottime", CLOCK_BOOTTIME},
		      {"tai", CLOCK_TAI}, {"mono", CLOCK_MONOTONIC},
		      {"raw", CLOCK_MONOTONIC_RAW}, {"real", CLOCK_REALTIME},
		      {"boot", CLOCK_BOOTTIME}};
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (*arg && !*end && !errno && v >= INT32_MIN && v <= INT32_MAX) {
		o->use_clockid = true;
		o->clockid = (int)v;
		return 0;
	}
	const char *name = strncasecmp(arg, "CLOCK_", 6) ? arg : arg + 6;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcasecmp(name, clocks[i].name)) {
			o->use_clockid = true;
			o->clockid = clocks[i].id;
			return 0;
		}
	return pk_err(err, -EINVAL, "unknown clockid %s, check man page", arg);
}

/* USER as a uid: a number, or a name the password database knows. */
static bool user_uid(const char *user, uid_t *uid)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(user, &end, 10);
	if (*user && !*end && !errno && v <= UINT32_MAX) {
		*uid = (uid_t)v;
		return true;
	}
	struct passwd *pw = getpwnam(user);
	if (pw)
		*uid = pw->pw_uid;
	return pw != NULL;
}

struct uid_walk {
	const pk_kernel *k;
	uid_t uid;
	char *buf;
	size_t n, len;
	bool full;
};

static int uid_process(void *arg, pid_t pid)
{
	struct uid_walk *w = arg;
	pk_host_task t;
	if (pid == getpid() || w->k->ops->host.task(w->k, pid, &t) < 0 || t.uid != w->uid)
		return 0; /* ours, gone meanwhile, or another user's */
	int c = snprintf(w->buf + w->len, w->n - w->len, "%s%d", w->len ? "," : "", (int)pid);
	if (c < 0 || (size_t)c >= w->n - w->len) {
		w->full = true;
		return 1;
	}
	w->len += (size_t)c;
	return 0;
}

int pk_recording_uid_pids(const pk_kernel *k, const char *user, char *buf, size_t n,
			  pk_error *err)
{
	struct uid_walk w = {.k = k ? k : pk_kernel_linux(), .buf = buf, .n = n};
	if (!user_uid(user, &w.uid))
		return pk_err(err, -EINVAL, "Invalid User: %s", user);
	buf[0] = '\0';
	int rc = w.k->ops->host.tasks(w.k, 0, uid_process, &w);
	if (w.full)
		return pk_err(err, -ENOSPC, "-u %s: too many processes", user);
	if (rc < 0)
		return pk_err(err, rc, "cannot list the tasks: %s", strerror(-rc));
	if (!w.len)
		return pk_err(err, -ESRCH, "-u %s: the user runs no process", user);
	return 0;
}

int pk_recording_synth(pk_recording_opts *o, const char *arg, pk_error *err)
{
	static const struct {
		const char *word;
		unsigned bits;
	} words[] = {{"no", PK_SYNTH_NONE}, {"all", PK_SYNTH_TASK | PK_SYNTH_MMAP | PK_SYNTH_CGROUP},
		     {"task", PK_SYNTH_TASK}, {"mmap", PK_SYNTH_TASK | PK_SYNTH_MMAP},
		     {"cgroup", PK_SYNTH_CGROUP}};
	unsigned bits = 0;
	const char *p = arg;
	do {
		size_t n = strcspn(p, ","), i = 0;
		while (i < sizeof(words) / sizeof(words[0]) &&
		       (strlen(words[i].word) != n || strncmp(p, words[i].word, n)))
			i++;
		if (i == sizeof(words) / sizeof(words[0]))
			return pk_err(err, -EINVAL, "Invalid synth option: %s", arg);
		bits |= words[i].bits;
		p += n;
	} while (*p++ == ',');
	o->synth = bits & ~(unsigned)PK_SYNTH_NONE ? bits & ~(unsigned)PK_SYNTH_NONE : bits;
	return 0;
}

int pk_recording_opts_check(const pk_recording_opts *o, bool model, pk_error *err)
{
	bool cpus = o->system_wide || o->cpu_list;
	if ((o->freq || o->freq_max) && o->period)
		return pk_err(err, -EINVAL, "-F and -c exclude each other");
	if ((o->pids != NULL) + (o->tids != NULL) + cpus > 1)
		return pk_err(err, -EINVAL, "-a/-C, -p and -t exclude each other");
	if (o->compress && o->output && !strcmp(o->output, "-"))
		return pk_err(err, -EINVAL, "-z writes a file: pipe mode (-o -) is not compressed");
	if (model && o->cmd)
		return pk_err(err, -EINVAL, "--model runs the scenario's threads: no command");
	if (!model && !o->cmd && !o->pids && !o->tids && !cpus)
		return pk_err(err, -EINVAL, "nothing to record: give a command, -p, -t, -a or -C");
	return 0;
}
